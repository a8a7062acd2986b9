"""The cells of a leaderboard run on disk: the plan, shards, and reading cells back as scores.

A run is a plan: models × tasks (model-major, in run order), a baseline and the settings that
change its numbers. Each model × task cell writes, under the output directory, MTEB's own files
(the task result under ``mteb_results/``, the per-pair scores under ``predictions/<model>/``) and
a small record ``cells/<model>/<task>.json`` (the model's description, the cell's identity,
MTEB's unrounded ``pearson``, the files, or the cell's error). ``cells/plan.json`` holds the plan
and ``cells/tasks/<task>.json`` the gold scores of each task. That is all the report needs: the
statistics are computed from these files wherever the cells ran (:func:`read_cells`,
:func:`task_scores`), so a run in one process, on a Dask cluster or as shards collected later
gives the same ``leaderboard.json``.

Trust. An output folder may come from another machine or another person (a shard to collect):
every record is parsed once through its schema (:mod:`~sts_extras.leaderboard.run.records`), every
file a record names is resolved inside the folder (:func:`~sts_extras.io.paths.confined_path`:
no absolute name, no ``..``, no symlink leading out), for reading and for writing, and the files
must match the folder's manifest. Each cell carries its identity
(:class:`~sts_extras.leaderboard.run.records.CellIdentity`: the model's identity, the task's data
key and score range, the run settings), so cells of different models, data or settings are never
merged.

Shards: ``--shard K/N`` takes the K-th of N contiguous blocks of the plan's cells (model-major,
so a shard loads as few models as possible); the blocks cover every cell exactly once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

import numpy as np

from sts_extras.errors import UserInputError
from sts_extras.integrity import MANIFEST_FILE, atomic_write_bytes, atomic_write_text, verify_listed
from sts_extras.io.content import content_hasher
from sts_extras.io.paths import UnsafePathError, confined_path
from sts_extras.io.records import Record, parse_record
from sts_extras.io.text import read_json
from sts_extras.leaderboard.run.evaluation import CellOutcome, Unit, slug
from sts_extras.leaderboard.run.records import (
    FORMAT,
    MTEB_PREDICTION_SUFFIX,
    CellFile,
    CellIdentity,
    CellInfo,
    PlanFile,
    TaskFile,
    TaskIdentity,
    check_relative_name,
    checked_record,
)
from sts_extras.leaderboard.scoring import TaskScores
from sts_extras.leaderboard.settings import RUN_SETTINGS, RunSettings

__all__ = [
    "CELLS_DIR",
    "PLAN_FILE",
    "CellRecord",
    "OutputCells",
    "Plan",
    "TaskRecord",
    "UnreadableCellsError",
    "cell_files_problem",
    "cell_identity",
    "copied_outcome",
    "parse_shard",
    "prediction_name",
    "read_cells",
    "results_folder",
    "shard_cells",
    "task_record",
    "task_scores",
    "write_cell",
    "write_outcomes",
    "write_plan",
    "write_task_record",
]

#: Folder of the cell records, the plan and the task records inside an output directory.
CELLS_DIR = "cells"
#: The plan of the run that wrote an output directory.
PLAN_FILE = f"{CELLS_DIR}/plan.json"
_TASKS_DIR = f"{CELLS_DIR}/tasks"


class UnreadableCellsError(UserInputError):
    """An output directory's cells cannot be read or trusted (named in the message)."""


_R = TypeVar("_R", bound=Record)


def _read_record(schema: type[_R], path: Path, what: str) -> _R:
    """The record of ``schema`` in ``path``; one of another :data:`FORMAT` is refused as written
    by another version of sts-extras (its digests are of another hash: never compared)."""
    data = read_json(path, what)
    found = data.get("format") if isinstance(data, dict) else None
    if type(found) is int and found != FORMAT:
        raise UnreadableCellsError(
            f"{str(path)!r} was written by another version of sts-extras (format {found}; this "
            f"one reads format {FORMAT}, whose digests are XXH3-128); make that output again "
            "with this version (run its shard again)."
        )
    return parse_record(schema, data, f"{what} {str(path)!r}")


# --------------------------------------------------------------------------------------------
# the plan and its shards
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """Models × tasks of a run, its baseline and the settings that change its numbers.

    Attributes
    ----------
    models : tuple of str
        Display names, in run order.
    tasks : tuple of str
        Task names, in run order.
    baseline : str
        The model the others are compared with.
    settings : RunSettings
        The settings that change the numbers (the record of the run's
        :class:`~sts_extras.leaderboard.settings.LeaderboardSettings`).
    identities : dict
        Display name -> the model's identity
        (:attr:`~sts_extras.leaderboard.run.resolve.ModelEntry.identity`; None for a model object).
        Every shard of a plan records them, so shards of other models under the same names
        are told apart even when they share no model.
    """

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    baseline: str
    settings: RunSettings
    identities: Mapping[str, str | None] = field(default_factory=dict)

    def cells(self) -> list[tuple[str, str]]:
        """Every (model, task), model-major."""
        return [(model, task) for model in self.models for task in self.tasks]

    def to_json(self, shards: Sequence[str] = ()) -> dict[str, Any]:  # JSON values
        """The plan as written to :data:`PLAN_FILE`, with the shards the folder holds."""
        return {
            "format": FORMAT,
            "models": list(self.models),
            "tasks": list(self.tasks),
            "baseline": self.baseline,
            "settings": self.settings.model_dump(mode="json"),
            "identities": {model: self.identities.get(model) for model in self.models},
            "shards": sorted(set(shards), key=_shard_order),
        }

    @classmethod
    def from_record(cls, record: PlanFile) -> Plan:
        """The plan of a parsed :data:`PLAN_FILE`."""
        return cls(
            models=record.models,
            tasks=record.tasks,
            baseline=record.baseline,
            settings=record.settings,
            identities=dict(record.identities),
        )


def _shard_order(label: str) -> tuple[int, int]:
    index, count = label.split("/")
    return int(count), int(index)


def parse_shard(text: object, argument: str = "--shard") -> tuple[int, int]:
    """``"K/N"`` -> (K, N) with 1 <= K <= N; ``UserInputError`` naming ``argument`` otherwise."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(text))
    if match is None:
        raise UserInputError(f"{argument} {text!r}: expected K/N, e.g. 1/4 (shard K of N).")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise UserInputError(
            f"{argument} {text!r}: K must be between 1 and N, and N at least 1 (shards are "
            "numbered 1..N, as SLURM's --array=1-N)."
        )
    return index, count


_T = TypeVar("_T")


def shard_cells(cells: Sequence[_T], index: int, count: int) -> list[_T]:
    """Shard ``index`` of ``count`` (1-based): the contiguous block ``[(K-1)C/N, KC/N)``."""
    total = len(cells)
    return list(cells[(index - 1) * total // count : index * total // count])


# --------------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------------
def _write_json(folder: Path, name: str, data: object) -> None:
    path = confined_path(folder, name, f"{folder}: a record")
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data, indent=1, ensure_ascii=False))


def write_plan(folder: Path, plan: Plan, shards: Sequence[str] = ()) -> None:
    """Write :data:`PLAN_FILE`, with the shards (``"K/N"``) whose cells the folder holds."""
    _write_json(folder, PLAN_FILE, plan.to_json(shards))


def _gold_digest(units: Iterable[Mapping[str, Any]]) -> str:  # task records read from JSON
    """:data:`~sts_extras.io.content.CONTENT_HASH` of each unit's label, gold scores and range."""
    digest = content_hasher()
    for unit in units:
        digest.update(
            json.dumps([unit["label"], list(unit["gold"]), list(unit["score_range"])]).encode()
        )
    return digest.hexdigest()


def task_record(name: str, units: Sequence[Unit], key: str) -> dict[str, Any]:  # JSON values
    """The record of a task: its units with their gold scores, and its store key."""
    listed = [
        {
            "label": unit.label,
            "subset": unit.subset,
            "split": unit.split,
            "score_range": [float(end) for end in unit.score_range],
            "gold": unit.gold.tolist(),
        }
        for unit in units
    ]
    digest = _gold_digest(listed)
    return {"format": FORMAT, "task": name, "key": key, "units": listed, "gold": digest}


def cell_identity(
    model_identity: str | None, task_key: str, units: Sequence[Unit], settings: RunSettings
) -> CellIdentity:
    """The identity of a cell: the model's identity, the task's data key and score range (of
    its first unit: a task has one), and the run settings."""
    low, high = units[0].score_range
    return CellIdentity(
        model=model_identity,
        task=TaskIdentity(key=task_key, score_range=(float(low), float(high))),
        settings=settings,
    )


def _task_path(task: str) -> str:
    return f"{_TASKS_DIR}/{slug(task)}.json"


def _cell_path(model: str, task: str) -> str:
    return f"{CELLS_DIR}/{slug(model)}/{slug(task)}.json"


def prediction_name(model: str, task: str) -> str:
    """Where a cell's per-pair scores are, relative to the output (MTEB names the file after the
    task, in the folder of the model)."""
    return f"predictions/{slug(model)}/{task}{MTEB_PREDICTION_SUFFIX}"


def cell_files_problem(model: str, task: str, names: Iterable[str], failed: bool) -> str | None:
    """Why ``names`` are not the files a cell of ``model`` on ``task`` may have, or None.

    A cell has its prediction file (:func:`prediction_name`) and, in one folder below
    ``mteb_results/``, MTEB's task result ``<task>.json`` and ``model_meta.json``; a failed cell
    has none. Nothing else: a record cannot make a copy overwrite the plan, another model's
    scores or a report file.
    """
    names = list(names)
    for name in names:
        try:
            check_relative_name(name)
        except ValueError as error:
            return str(error)
    if failed:
        return "a failed cell lists files" if names else None
    if prediction_name(model, task) not in names:
        return f"it does not list its prediction file {prediction_name(model, task)!r}"
    folders = set()
    for name in names:
        if name == prediction_name(model, task):
            continue
        path = PurePosixPath(name)
        if path.parts[0] != "mteb_results" or path.name not in (f"{task}.json", "model_meta.json"):
            return f"{name!r} is not one of the files a cell of {model} on {task} writes"
        folders.add(path.parent)
    if len(folders) > 1:
        return "its MTEB result files are in more than one folder"
    return None


def write_task_record(folder: Path, record: Mapping[str, Any]) -> None:  # JSON values
    """Write a :func:`task_record` to ``cells/tasks/<task>.json``."""
    _write_json(folder, _task_path(record["task"]), record)


# Any: the run-settings entries are MTEB's JSON objects, passed on as they are
def write_cell(folder: Path, outcome: CellOutcome, identity: CellIdentity) -> list[dict[str, Any]]:
    """Write one cell's files and record into ``folder``; return its run-settings entries.

    Every file goes through :func:`~sts_extras.io.paths.confined_path` (no name of a record can
    write outside ``folder``) and must be one a cell writes (:func:`cell_files_problem`). The run
    settings of a model's cells share one file of MTEB's; the caller merges them in plan order
    once every cell is written (:func:`sts_extras.integrations.mteb.internals.merge_run_settings`).

    Raises
    ------
    UnreadableCellsError
        The cell's files are not the ones a cell writes.
    sts_extras.io.paths.UnsafePathError
        A file name leaving ``folder``.
    """
    what = f"{outcome.model} on {outcome.task}"
    problem = cell_files_problem(
        outcome.model, outcome.task, outcome.files, failed=outcome.error is not None
    )
    if problem is not None:
        raise UnreadableCellsError(f"the cell of {what}: {problem}.")
    for name, content in outcome.files.items():
        path = confined_path(folder, name, f"the files of {what}")
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, content)
    info = CellInfo(**outcome.info)
    record = {
        "format": FORMAT,
        "model": outcome.model,
        "task": outcome.task,
        "info": info.model_dump(mode="json", exclude_none=True),
        "identity": identity.model_dump(mode="json"),
        "pearson": outcome.pearson,
        "files": sorted(outcome.files),
        "error": outcome.error,
    }
    checked_record(CellFile, record, f"the cell of {what}")  # never a NaN written
    _write_json(folder, _cell_path(outcome.model, outcome.task), record)
    return outcome.run_settings


def results_folder(root: Path, names: Iterable[str]) -> Path | None:
    """The folder of MTEB's task result among a cell's files (``names``, relative to ``root``);
    its run-settings file is there too. None for a cell without one."""
    return next(((root / name).parent for name in names if name.startswith("mteb_results/")), None)


def write_outcomes(
    folder: Path,
    outcomes: Iterable[CellOutcome],
    identities: Mapping[tuple[str, str], CellIdentity],
    order: Sequence[tuple[str, str]],
) -> list[CellOutcome]:
    """Write cells as they come (:func:`write_cell`); return them without files, in ``order``.

    ``identities`` gives each cell's identity. MTEB's run-settings file of each model is merged
    in ``order`` once all are written, so the files do not depend on the order the cells
    finished in.
    """
    from sts_extras.integrations.mteb.internals import merge_run_settings

    settings: dict[tuple[str, str], tuple[Path | None, list[dict[str, Any]]]] = {}
    written: dict[tuple[str, str], CellOutcome] = {}
    for outcome in outcomes:
        cell = (outcome.model, outcome.task)
        entries = write_cell(folder, outcome, identities[cell])
        settings[cell] = (results_folder(folder, outcome.files), entries)
        written[cell] = replace(outcome, files={})
    for cell in order:
        where, entries = settings[cell]
        if where is not None and entries:
            merge_run_settings(where, entries)
    return [written[cell] for cell in order]


def copied_outcome(record: CellRecord) -> CellOutcome:
    """A recorded cell as an outcome, its files read from its (checked) folder."""
    from sts_extras.integrations.mteb.internals import RUN_SETTINGS_FILE, run_settings_of

    files = {name: (record.root / name).read_bytes() for name in record.files}
    folder = results_folder(record.root, record.files)
    run_settings: list[dict[str, Any]] = []
    if folder is not None:
        relative = folder.relative_to(record.root).as_posix()
        # MTEB's run-settings file is not listed in the record: confined all the same
        confined_path(record.root, f"{relative}/{RUN_SETTINGS_FILE}", f"{record.root}: {relative}")
        run_settings = run_settings_of(folder, record.task)
    return CellOutcome(
        record.model,
        record.task,
        dict(record.info),
        files=files,
        run_settings=run_settings,
        pearson=dict(record.pearson),
        error=record.error,
    )


# --------------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TaskRecord:
    """A task as recorded by a run: its store key, its units with gold scores, and the digest
    of its units (labels, gold scores and score range)."""

    name: str
    key: str
    units: tuple[Unit, ...]
    digest: str = ""

    def identity(self) -> TaskIdentity:
        """The task part of a cell's identity."""
        low, high = self.units[0].score_range
        return TaskIdentity(key=self.key, score_range=(low, high))


@dataclass(frozen=True)
class CellRecord:
    """One cell as recorded: where its files are, what produced it, and what MTEB reported."""

    model: str
    task: str
    root: Path
    info: Mapping[str, Any]
    identity: CellIdentity
    pearson: Mapping[str, float | None]
    files: tuple[str, ...]
    error: str | None

    def prediction_file(self) -> Path | None:
        """The per-pair prediction file of the cell (None for a failed cell)."""
        name = prediction_name(self.model, self.task)
        return self.root / name if name in self.files else None


@dataclass
class OutputCells:
    """The plan, task records and cells read from one output directory."""

    root: Path
    plan: Plan
    shards: tuple[str, ...]
    tasks: dict[str, TaskRecord] = field(default_factory=dict)
    cells: dict[tuple[str, str], CellRecord] = field(default_factory=dict)


def _read_task(root: Path, task: str) -> TaskRecord:
    name = _task_path(task)
    path = confined_path(root, name, f"{root}: the record of task {task}")
    data = _read_record(TaskFile, path, "a task record")
    listed = [unit.model_dump() for unit in data.units]
    if data.task != task or data.gold != _gold_digest(listed):
        raise UnreadableCellsError(f"{root}: {name} does not hold the gold scores of {task}.")
    units = tuple(
        Unit(
            label=unit.label,
            task_name=task,
            subset=unit.subset,
            split=unit.split,
            gold=np.asarray(unit.gold, dtype=np.float64),
            score_range=unit.score_range,
        )
        for unit in data.units
    )
    return TaskRecord(task, data.key, units, data.gold)


def _read_cell(root: Path, plan: Plan, task: TaskRecord, model: str) -> CellRecord | None:
    name = _cell_path(model, task.name)
    path = confined_path(root, name, f"{root}: the record of {model} on {task.name}")
    if not path.exists():
        return None  # a cell of another shard
    data = _read_record(CellFile, path, "a cell record")
    where = f"{root}: {name}"
    if (data.model, data.task) != (model, task.name):
        raise UnreadableCellsError(f"{where} records {data.model!r} on {data.task!r}.")
    problem = cell_files_problem(model, task.name, data.files, failed=data.error is not None)
    if problem is not None:
        raise UnreadableCellsError(f"{where}: {problem}.")
    for file in data.files:
        confined_path(root, file, f"{where}, a listed file")
    if data.identity.settings != plan.settings:
        raise UnreadableCellsError(
            f"{where} was made with other run settings than its folder's plan "
            f"({_difference(data.identity.settings, plan.settings)})."
        )
    if data.identity.model != plan.identities.get(model):
        raise UnreadableCellsError(
            f"{where} was made by another model than the one its folder's plan names "
            f"{model!r} (their identities differ)."
        )
    if data.identity.task != task.identity():
        raise UnreadableCellsError(
            f"{where} was made on other data or another score range of {task.name} than its "
            "folder's task record."
        )
    return CellRecord(
        model=model,
        task=task.name,
        root=root,
        info=data.info.model_dump(mode="json", exclude_none=True),
        identity=data.identity,
        pearson=dict(data.pearson),
        files=data.files,
        error=data.error,
    )


def _difference(mine: RunSettings, theirs: RunSettings) -> str:
    for name in RUN_SETTINGS:
        if getattr(mine, name) != getattr(theirs, name):
            return f"{name}: {getattr(mine, name)!r} vs {getattr(theirs, name)!r}"
    return "equal"


def read_cells(root: Path, *, verify: bool = True) -> OutputCells:
    """Read the plan, task records and cell records of an output directory.

    Every record is parsed through its schema (:mod:`~sts_extras.leaderboard.run.records`) and
    every file it names must stay inside ``root``. A cell must belong to the folder's plan (its
    identity's settings and task equal the plan's and the task record's), and the cells of one
    model must share its identity. With ``verify``, every file read (records and MTEB's files)
    must be listed in the directory's manifest with its size and digest, so a damaged or edited
    file is refused, never read.

    Raises
    ------
    UnreadableCellsError
        Naming the directory and the file that is missing, unreadable, malformed or changed.
    sts_extras.io.paths.UnsafePathError
        A file name of a record that leaves ``root`` (``..``, an absolute path, a symlink).
    """
    names: list[str] = [PLAN_FILE]
    try:
        plan_path = confined_path(root, PLAN_FILE, f"{root}: the plan")
        plan_record = _read_record(PlanFile, plan_path, "the plan of a leaderboard output")
        plan = Plan.from_record(plan_record)
        found = OutputCells(root, plan, plan_record.shards)
        for task in plan.tasks:
            names.append(_task_path(task))
            found.tasks[task] = _read_task(root, task)
        models: dict[str, CellIdentity] = {}
        for model, task in plan.cells():
            record = _read_cell(root, plan, found.tasks[task], model)
            if record is None:
                continue
            first = models.setdefault(model, record.identity)
            if first.model != record.identity.model:
                raise UnreadableCellsError(
                    f"{root}: the cells of {model} were made by different models (their "
                    "identities differ); it holds cells of two runs."
                )
            names.append(_cell_path(model, task))
            names.extend(record.files)
            found.cells[model, task] = record
    except UserInputError as error:
        if isinstance(error, (UnreadableCellsError, UnsafePathError)):
            raise
        # a malformed record or file: one error type for "these cells cannot be read"
        text = str(error) if str(root) in str(error) else f"{root}: {error}"
        raise UnreadableCellsError(text) from None
    except FileNotFoundError as error:
        raise UnreadableCellsError(
            f"{root}: {error.filename or error} is missing; it is not an sts-extras leaderboard "
            "output (or it was damaged)."
        ) from None
    except OSError as error:
        raise UnreadableCellsError(
            f"{root}: its cell records cannot be read ({error.strerror or error})."
        ) from None
    if verify:
        confined_path(root, MANIFEST_FILE, f"{root}: the manifest")
        reason = verify_listed(root, names)
        if reason is not None:
            raise UnreadableCellsError(
                f"{root}: {reason}; its cells cannot be trusted (run its shard again)."
            )
    return found


# Any: the models' descriptions are JSON objects (CellOutcome.info)
def task_scores(
    plan: Plan, tasks: Mapping[str, TaskRecord], cells: Mapping[tuple[str, str], CellRecord]
) -> tuple[list[TaskScores], dict[str, dict[str, Any]], dict[str, dict[str, str]]]:
    """The scores of every unit of the plan, read from the cells' prediction files.

    A cell with an error, or missing from ``cells``, is a failure of that model on the task's
    units.

    Returns
    -------
    units : list of TaskScores
        One per (task, subset, split), in plan order.
    models : dict
        Display name -> the model's description (from its first cell that built or restored it).
    score_keys : dict
        Unit label -> display name -> the prediction key the scores were read from.

    Raises
    ------
    UnreadableCellsError
        A prediction file that does not hold the task's pairs (another task revision).
    """
    from sts_extras.integrations.mteb.internals import read_prediction

    model_info: dict[str, dict[str, Any]] = {}
    for model in plan.models:
        described = [cells[model, task].info for task in plan.tasks if (model, task) in cells]
        built = [info for info in described if "mteb_name" in info]
        model_info[model] = dict((built or described or [{}])[0])
    units: list[TaskScores] = []
    score_keys: dict[str, dict[str, str]] = {}
    for task in plan.tasks:
        for unit in tasks[task].units:
            predictions: dict[str, np.ndarray] = {}
            failures: dict[str, str] = {}
            pearson: dict[str, float] = {}
            keys: dict[str, str] = {}
            for model in plan.models:
                cell = cells.get((model, task))
                path = cell.prediction_file() if cell is not None else None
                if cell is None or cell.error is not None or path is None:
                    failures[model] = "not evaluated" if cell is None else cell.error or "failed"
                    continue
                try:
                    scores, key = read_prediction(path, unit.subset, unit.split)
                except (OSError, KeyError, ValueError) as error:
                    # the file's name, never its folder: during a run or collect that is staging
                    reason = str(error).replace(str(path), path.name)
                    failures[model] = f"no per-pair scores ({type(error).__name__}: {reason})"
                    continue
                if scores.shape != unit.gold.shape:
                    raise UnreadableCellsError(
                        f"{path}: {scores.size} scores for {unit.label}, which has "
                        f"{unit.gold.size} pairs (evaluated on another revision of the task?)."
                    )
                predictions[model], keys[model] = scores, key
                reported = cell.pearson.get(f"{unit.subset}/{unit.split}")
                if reported is not None:
                    pearson[model] = reported
            score_keys[unit.label] = keys
            units.append(
                TaskScores(
                    name=unit.label,
                    gold=unit.gold,
                    score_range=unit.score_range,
                    predictions=predictions,
                    failures=failures,
                    mteb_pearson=pearson,
                )
            )
    return units, model_info, score_keys
