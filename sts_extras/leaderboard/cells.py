"""The cells of a leaderboard run on disk: the plan, shards, and reading cells back as scores.

A run is a plan: models × tasks (model-major, in run order), a baseline and the settings of the
statistics. Each model × task cell writes, under the output directory, MTEB's own files (the task
result under ``mteb_results/``, the per-pair scores under ``predictions/<model>/``) and a small
record ``cells/<model>/<task>.json`` (the model's description, MTEB's unrounded ``pearson``, the
task key, the files, or the cell's error). ``cells/plan.json`` holds the plan and
``cells/tasks/<task>.json`` the gold scores of each task. That is all the report needs: the
statistics are computed from these files wherever the cells ran (:func:`read_cells`,
:func:`task_scores`), so a run in one process, on a Dask cluster or as shards collected later
gives the same ``leaderboard.json``.

Shards: ``--shard K/N`` takes the K-th of N contiguous blocks of the plan's cells (model-major,
so a shard loads as few models as possible); the blocks cover every cell exactly once.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from sts_extras.errors import UserInputError
from sts_extras.integrity import atomic_write_bytes, atomic_write_text, verify_listed
from sts_extras.leaderboard.evaluation import CellOutcome, Unit, slug
from sts_extras.leaderboard.scoring import TaskScores

__all__ = [
    "CELLS_DIR",
    "PLAN_FILE",
    "SETTINGS",
    "CellRecord",
    "OutputCells",
    "Plan",
    "TaskRecord",
    "UnreadableCellsError",
    "parse_shard",
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
#: The settings of the statistics a plan fixes (a collected report needs them equal everywhere).
SETTINGS = ("seed", "n_resamples", "bins", "test", "adjust", "round_scores")
_FORMAT = 1


class UnreadableCellsError(UserInputError):
    """An output directory's cells cannot be read or trusted (named in the message)."""


# --------------------------------------------------------------------------------------------
# the plan and its shards
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """Models × tasks of a run, its baseline and the settings of its statistics.

    Attributes
    ----------
    models : tuple of str
        Display names, in run order.
    tasks : tuple of str
        Task names, in run order.
    baseline : str
        The model the others are compared with.
    settings : dict
        :data:`SETTINGS` -> value.
    """

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    baseline: str
    settings: Mapping[str, Any]

    def cells(self) -> list[tuple[str, str]]:
        """Every (model, task), model-major."""
        return [(model, task) for model in self.models for task in self.tasks]

    def to_json(self) -> dict[str, Any]:
        """The plan as written to :data:`PLAN_FILE`."""
        return {
            "format": _FORMAT,
            "models": list(self.models),
            "tasks": list(self.tasks),
            "baseline": self.baseline,
            "settings": {name: self.settings[name] for name in SETTINGS},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Plan:
        """The plan of a :data:`PLAN_FILE`; ``KeyError``/``TypeError`` if it is not one."""
        if data["format"] != _FORMAT:
            raise ValueError(f"format {data['format']!r}, expected {_FORMAT}")
        settings = data["settings"]
        return cls(
            models=tuple(str(name) for name in data["models"]),
            tasks=tuple(str(name) for name in data["tasks"]),
            baseline=str(data["baseline"]),
            settings={name: settings[name] for name in SETTINGS},
        )


def parse_shard(text: Any, argument: str = "--shard") -> tuple[int, int]:
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


def shard_cells(cells: Sequence[Any], index: int, count: int) -> list[Any]:
    """Shard ``index`` of ``count`` (1-based): the contiguous block ``[(K-1)C/N, KC/N)``."""
    total = len(cells)
    return list(cells[(index - 1) * total // count : index * total // count])


# --------------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------------
def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data, indent=1, ensure_ascii=False))


def write_plan(folder: Path, plan: Plan, shard: tuple[int, int] | None = None) -> None:
    """Write :data:`PLAN_FILE` (with the shard that wrote it, if any)."""
    record = plan.to_json()
    record["shard"] = None if shard is None else f"{shard[0]}/{shard[1]}"
    _write_json(folder / PLAN_FILE, record)


def _gold_digest(units: Iterable[Mapping[str, Any]]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for unit in units:
        digest.update(json.dumps([unit["label"], unit["gold"], unit["score_range"]]).encode())
    return digest.hexdigest()


def task_record(name: str, units: Sequence[Unit], key: str) -> dict[str, Any]:
    """The record of a task: its units with their gold scores, and its store key."""
    listed = [
        {
            "label": unit.label,
            "subset": unit.subset,
            "split": unit.split,
            "score_range": list(unit.score_range),
            "gold": unit.gold.tolist(),
        }
        for unit in units
    ]
    digest = _gold_digest(listed)
    return {"format": _FORMAT, "task": name, "key": key, "units": listed, "gold": digest}


def _task_path(task: str) -> str:
    return f"{_TASKS_DIR}/{slug(task)}.json"


def _cell_path(model: str, task: str) -> str:
    return f"{CELLS_DIR}/{slug(model)}/{slug(task)}.json"


def write_task_record(folder: Path, record: Mapping[str, Any]) -> None:
    """Write a :func:`task_record` to ``cells/tasks/<task>.json``."""
    _write_json(folder / _task_path(record["task"]), record)


def write_cell(folder: Path, outcome: CellOutcome, task_key: str) -> list[dict[str, Any]]:
    """Write one cell's files and record into ``folder``; return its run-settings entries.

    The run settings of a model's cells share one file of MTEB's; the caller merges them in plan
    order once every cell is written (:func:`sts_extras.integrations.mteb.merge_run_settings`).
    """
    for name, content in outcome.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, content)
    record = {
        "format": _FORMAT,
        "model": outcome.model,
        "task": outcome.task,
        "info": outcome.info,
        "task_key": task_key,
        "pearson": outcome.pearson,
        "files": sorted(outcome.files),
        "error": outcome.error,
    }
    _write_json(folder / _cell_path(outcome.model, outcome.task), record)
    return outcome.run_settings


def results_folder(root: Path, names: Iterable[str]) -> Path | None:
    """The folder of MTEB's task result among a cell's files (``names``, relative to ``root``);
    its run-settings file is there too. None for a cell without one."""
    return next(((root / name).parent for name in names if name.startswith("mteb_results/")), None)


def write_outcomes(
    folder: Path,
    outcomes: Iterable[CellOutcome],
    task_keys: Mapping[str, str],
    order: Sequence[tuple[str, str]],
) -> list[CellOutcome]:
    """Write cells as they come (:func:`write_cell`); return them without files, in ``order``.

    MTEB's run-settings file of each model is merged in ``order`` once all are written, so the
    files do not depend on the order the cells finished in.
    """
    from sts_extras.integrations.mteb import merge_run_settings

    settings: dict[tuple[str, str], tuple[Path | None, list[dict[str, Any]]]] = {}
    written: dict[tuple[str, str], CellOutcome] = {}
    for outcome in outcomes:
        entries = write_cell(folder, outcome, task_keys[outcome.task])
        settings[outcome.model, outcome.task] = (results_folder(folder, outcome.files), entries)
        written[outcome.model, outcome.task] = replace(outcome, files={})
    for cell in order:
        where, entries = settings[cell]
        if where is not None and entries:
            merge_run_settings(where, entries)
    return [written[cell] for cell in order]


# --------------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TaskRecord:
    """A task as recorded by a run: its store key and its units with gold scores."""

    name: str
    key: str
    units: tuple[Unit, ...]


@dataclass(frozen=True)
class CellRecord:
    """One cell as recorded: where its files are, and what MTEB reported."""

    model: str
    task: str
    root: Path
    info: Mapping[str, Any]
    task_key: str
    pearson: Mapping[str, float | None]
    files: tuple[str, ...]
    error: str | None

    def prediction_file(self) -> Path | None:
        """The per-pair prediction file of the cell (None for a failed cell)."""
        return next(
            (self.root / name for name in self.files if name.startswith("predictions/")), None
        )


@dataclass
class OutputCells:
    """The plan, task records and cells read from one output directory."""

    root: Path
    plan: Plan
    shard: str | None
    tasks: dict[str, TaskRecord] = field(default_factory=dict)
    cells: dict[tuple[str, str], CellRecord] = field(default_factory=dict)


def _unit(task: str, data: Mapping[str, Any]) -> Unit:
    low, high = data["score_range"]
    return Unit(
        label=str(data["label"]),
        task_name=task,
        subset=str(data["subset"]),
        split=str(data["split"]),
        gold=np.asarray(data["gold"], dtype=np.float64),
        score_range=(float(low), float(high)),
    )


def read_cells(root: Path, *, verify: bool = True) -> OutputCells:
    """Read the plan, task records and cell records of an output directory.

    With ``verify``, every file read (records and MTEB's files) must be listed in the directory's
    manifest with its size and digest, so a damaged or edited file is refused, never read.

    Raises
    ------
    UnreadableCellsError
        Naming the directory and the file that is missing, unreadable or changed.
    """
    names: list[str] = [PLAN_FILE]
    try:
        plan_data = json.loads((root / PLAN_FILE).read_text(encoding="utf-8"))
        plan = Plan.from_json(plan_data)
        found = OutputCells(root, plan, plan_data.get("shard"))
        for task in plan.tasks:
            names.append(_task_path(task))
            data = json.loads((root / names[-1]).read_text(encoding="utf-8"))
            if data["task"] != task or data["gold"] != _gold_digest(data["units"]):
                raise ValueError(f"{names[-1]} does not hold the gold scores of {task}")
            units = tuple(_unit(task, unit) for unit in data["units"])
            found.tasks[task] = TaskRecord(task, str(data["key"]), units)
        for model, task in plan.cells():
            path = _cell_path(model, task)
            if not (root / path).is_file():
                continue  # a cell of another shard
            data = json.loads((root / path).read_text(encoding="utf-8"))
            if (data["model"], data["task"]) != (model, task):
                raise ValueError(f"{path} records {data['model']!r} on {data['task']!r}")
            record = CellRecord(
                model=model,
                task=task,
                root=root,
                info=dict(data["info"]),
                task_key=str(data["task_key"]),
                pearson=dict(data["pearson"]),
                files=tuple(data["files"]),
                error=data["error"],
            )
            names.append(path)
            names.extend(record.files)
            found.cells[model, task] = record
    except FileNotFoundError as error:
        raise UnreadableCellsError(
            f"{root}: {error.filename} is missing; it is not an sts-extras leaderboard output "
            "(or it was damaged)."
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UnreadableCellsError(
            f"{root}: its cell records cannot be read ({type(error).__name__}: {error})."
        ) from None
    if verify:
        reason = verify_listed(root, names)
        if reason is not None:
            raise UnreadableCellsError(
                f"{root}: {reason}; its cells cannot be trusted (run its shard again)."
            )
    return found


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
    from sts_extras.integrations.mteb import read_prediction

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
                    failures[model] = f"no per-pair scores ({type(error).__name__}: {error})"
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
