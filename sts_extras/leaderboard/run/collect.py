"""``sts-extras leaderboard collect``: the report of cells evaluated elsewhere, no model loaded.

Two kinds of folders are collected:

* outputs of ``sts-extras leaderboard`` (typically one per ``--shard K/N`` job): their plans must
  agree (models, tasks, baseline and every run setting, ``--score-range`` included), their tasks
  must hold the same data and score range, the cells of one model must have been made by the same
  model (the identity each cell records: a content hash of the model's files and its loader
  settings), every file read must match the folder's manifest, and every cell of the plan must be
  found (or ``allow_missing``) -- otherwise a ``UserInputError`` names the field that differs and
  the two folders;
* folders written by plain MTEB, ``mteb.evaluate(model, tasks, prediction_folder=DIR)``: the
  per-pair scores of each ``<task>_predictions.json`` (its ``mteb_model_meta`` names the model),
  MTEB's task results beside them or in another folder given (for MTEB's own ``pearson`` and
  the dataset revision, which must be the one loaded here), and the gold scores from the task
  itself (``mteb.get_task``; offline, MTEB's tasks need their data in the local cache). Prediction
  files of other task types are left out, with a warning naming them.

Everything read is untrusted: records are parsed through their schemas
(:mod:`~sts_extras.leaderboard.run.records`), and every path taken from a record or a file (a listed
file, a model name or revision that becomes a folder) is resolved inside its folder
(:func:`~sts_extras.io.paths.confined_path`), so nothing is read or written outside the folders
given and ``--output``. The folders are read in a fixed order (their resolved paths, sorted), so
the report and every error are the same whatever their order on the command line.

Every cell must agree with itself before it is copied (:func:`_check_scores`): its per-pair
scores hold one finite number per pair of the task, and the Pearson r they give equals the one its
cell record and its MTEB result file say (to floating-point error, or to the 6 decimals MTEB
writes), so scores changed after the run (negated, permuted) with a manifest made to match are
refused, naming the folder, the cell and the numbers. Every error names the file as given, never
the staging folder the report set is written to.

Either way the cells are copied into the new report set, with their records, so the collected
output can itself be collected again, and the report is written by the same code as a run's
(:func:`~sts_extras.leaderboard.run.pipeline.report_from_cells`): two shards collected give the
``leaderboard.json`` of the serial run byte for byte.
"""

from __future__ import annotations

import glob
import math
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from sts_extras.errors import UserFileNotFoundError, UserInputError
from sts_extras.io.content import content_hash
from sts_extras.io.paths import check_distinct_file_names, check_file_name, confined_path
from sts_extras.io.records import parse_record
from sts_extras.leaderboard.run import resolve
from sts_extras.leaderboard.run.cells import (
    CELLS_DIR,
    PLAN_FILE,
    CellRecord,
    OutputCells,
    Plan,
    cell_identity,
    copied_outcome,
    prediction_name,
    read_cells,
    task_record,
    write_outcomes,
    write_plan,
    write_task_record,
)
from sts_extras.leaderboard.run.evaluation import (
    CellOutcome,
    Unit,
    loaded_task_key,
    slug,
    task_units,
)
from sts_extras.leaderboard.run.pipeline import checked_settings, report_from_cells
from sts_extras.leaderboard.run.records import CellIdentity, PredictionMeta, TaskResultFile
from sts_extras.leaderboard.run.report_set import (
    commit,
    output_errors,
    recover_output,
    staging_folder,
)
from sts_extras.leaderboard.scoring import LeaderboardResult
from sts_extras.leaderboard.settings import (
    RUN_SETTINGS,
    LeaderboardSettings,
    RunSettings,
    option_name,
)
from sts_extras.optional import check_installed

if TYPE_CHECKING:  # pragma: no cover -- MTEB is imported on use
    from mteb.abstasks.sts import AbsTaskSTS

__all__ = ["collect_leaderboard"]

_SUFFIX = "_predictions.json"
#: Missing cells named in an error before "and N more".
_NAMED = 6
#: The model metadata MTEB keeps beside a model's results (shared by its cells).
_MODEL_META = "model_meta.json"


def collect_leaderboard(
    directories: Sequence[str | os.PathLike],
    *,
    settings: LeaderboardSettings | None = None,
    baseline: str | None = None,
    allow_missing: bool = False,
) -> LeaderboardResult:
    """Build the leaderboard report of the cells found in ``directories``.

    Parameters
    ----------
    directories : sequence of path
        Outputs of ``sts-extras leaderboard`` (e.g. one per shard), or folders of plain
        ``mteb.evaluate(..., prediction_folder=...)`` runs (with or without MTEB's result
        cache); not both kinds at once. Their order does not matter.
    settings : LeaderboardSettings, optional
        ``output`` (the directory of the report set, not one of ``directories``), ``figures``,
        ``figure_formats`` and ``progress`` as for a run. The settings that change the numbers
        (:data:`~sts_extras.leaderboard.settings.RUN_SETTINGS`): for sts-extras outputs they are
        the plan's, and one set explicitly here (``LeaderboardSettings(seed=3)``: pydantic's
        ``model_fields_set``) must equal it; for plain MTEB folders they are these settings'
        (``score_range`` does not apply: the tasks are MTEB's own). The settings of loading and
        running models (``sif``, ``workers`` ...) are not used: no model is loaded.
    baseline : str, optional
        For plain MTEB folders: the model the others are compared with (default the first by
        name). For sts-extras outputs the plan's baseline is used; a different one is refused.
    allow_missing : bool, default False
        Report cells of the plan (or, for plain folders, of models × tasks found) that no
        directory holds as failed ("not evaluated") instead of refusing.

    Returns
    -------
    LeaderboardResult

    Raises
    ------
    UserInputError
        A directory that does not exist or holds no cells; outputs of different plans, run
        settings, task data or score ranges, or whose cells of one model were made by different
        models (naming the field and the two folders); a cell found twice with different scores;
        a file that does not match its manifest; per-pair scores that are not one finite number
        per pair, or whose Pearson r differs from the one the cell's record or MTEB's result
        file says (naming the folder, the cell and both numbers); a record that is malformed or
        names a file outside its folder; model names that share a file name; missing cells (without
        ``allow_missing``); an unknown baseline; a setting that differs from the plan's; a file
        of the report set that cannot be written
        (:class:`~sts_extras.leaderboard.run.report_set.OutputWriteError`).
    UserInputTypeError
        ``settings`` is not a :class:`~sts_extras.leaderboard.settings.LeaderboardSettings`.
    """
    settings = checked_settings(settings, "collect_leaderboard()")
    output = settings.output
    check_installed("mteb", extra="mteb")
    if settings.figures:
        check_installed("matplotlib", extra="figures")
    roots = _check_directories(directories)
    output_dir = resolve.prepare_output(output)
    if any(output_dir.resolve() == root.resolve() for root in roots):
        raise UserInputError(
            f"--output {str(output)!r} is one of the collected directories; write the report "
            "to another one."
        )
    ours = [root for root in roots if (root / PLAN_FILE).is_file()]
    if ours and len(ours) != len(roots):
        plain = next(root for root in roots if root not in ours)
        raise UserInputError(
            f"{str(plain)!r} is not an sts-extras leaderboard output, but {str(ours[0])!r} is: "
            "collect outputs of sts-extras or folders of plain MTEB runs, not both at once."
        )
    shards: list[str] = []
    if ours:
        sources = [read_cells(root) for root in roots]
        for source in sources:
            for cell in source.cells.values():
                _check_cell(source.tasks[cell.task].units, cell)
        plan = _common_plan(sources, settings, baseline)
        tasks = sources[0].tasks
        records = _merged_cells(sources)
        outcomes = [copied_outcome(record) for record in records.values()]
        identities = {cell: record.identity for cell, record in records.items()}
        task_files = [
            task_record(name, task.units, task.key)
            for name, task in tasks.items()
            if name in plan.tasks
        ]
        shards = sorted({label for source in sources for label in source.shards})
    else:
        plan, outcomes, task_files, identities = _plain_mteb(roots, settings, baseline)
    _check_shared_files(outcomes)
    found = {(outcome.model, outcome.task) for outcome in outcomes}
    missing = [cell for cell in plan.cells() if cell not in found]
    if missing and not allow_missing:
        named = "; ".join(f"{model} on {task}" for model, task in missing[:_NAMED])
        more = f" and {len(missing) - _NAMED} more" if len(missing) > _NAMED else ""
        raise UserInputError(
            f"{len(missing)} of {len(plan.cells())} cells are in none of the directories: "
            f"{named}{more}. Collect the outputs that hold them (e.g. every --shard K/N), or "
            "pass --allow-missing to report them as not evaluated."
        )
    recover_output(output_dir)
    with output_errors(output_dir), staging_folder(output_dir) as staging:
        write_plan(staging, plan, shards)
        for record in task_files:
            write_task_record(staging, record)
        order = [cell for cell in plan.cells() if cell in found]
        write_outcomes(staging, outcomes, identities, order)
        result = report_from_cells(staging, output_dir, settings)
        commit(staging, output_dir)
    return result


def _check_directories(directories: Sequence[str | os.PathLike]) -> list[Path]:
    """The folders, checked, in a fixed order (their resolved paths sorted), so that neither the
    report nor an error depends on their order on the command line."""
    if isinstance(directories, (str, os.PathLike)) or not directories:
        raise UserInputError("collect needs one or more directories (a list of paths).")
    roots: dict[str, Path] = {}
    for directory in directories:
        root = Path(directory).expanduser()
        if not root.is_dir():
            raise UserFileNotFoundError(
                f"collect: {str(directory)!r} is not a directory (give the --output folders of "
                "the shards, or MTEB prediction folders)."
            )
        key = str(root.resolve())
        if key in roots:
            raise UserInputError(f"collect: {str(directory)!r} is given twice.")
        roots[key] = root
    return [roots[key] for key in sorted(roots)]


# --------------------------------------------------------------------------------------------
# sts-extras outputs
# --------------------------------------------------------------------------------------------
def _refuse(first: Path, other: Path, what: str, mine: object, theirs: object, advice: str) -> None:
    if mine != theirs:
        raise UserInputError(
            f"{first} and {other} cannot be collected together ({what}: {_shown(mine)} vs "
            f"{_shown(theirs)}); {advice}"
        )


def _common_plan(
    sources: Sequence[OutputCells], settings: LeaderboardSettings, baseline: str | None
) -> Plan:
    """The plan all ``sources`` share; ``UserInputError`` naming the first difference, the field
    and the two folders (``sources`` are in a fixed order, so the error is too)."""
    first = sources[0]
    same_run = "collect outputs of one plan, run with the same options."
    for other in sources[1:]:
        for what, mine, theirs in (
            ("models", first.plan.models, other.plan.models),
            ("tasks", first.plan.tasks, other.plan.tasks),
            ("baseline", first.plan.baseline, other.plan.baseline),
            *(
                (
                    option_name(name),
                    getattr(first.plan.settings, name),
                    getattr(other.plan.settings, name),
                )
                for name in RUN_SETTINGS
            ),
        ):
            _refuse(first.root, other.root, f"different runs, {what}", mine, theirs, same_run)
        for name, task in first.tasks.items():
            theirs_task = other.tasks[name]
            _refuse(
                first.root,
                other.root,
                f"different data of task {name}",
                task.key,
                theirs_task.key,
                "another revision of the task, or another MTEB version; run all shards with "
                "the same versions.",
            )
            _refuse(
                first.root,
                other.root,
                f"task {name}, score range or gold scores",
                (task.units[0].score_range, task.digest),
                (theirs_task.units[0].score_range, theirs_task.digest),
                "run all shards on the same task files with the same --score-range.",
            )
    _same_models(sources)
    for name in RUN_SETTINGS:
        value, planned = getattr(settings, name), getattr(first.plan.settings, name)
        if name in settings.model_fields_set and value != planned:
            raise UserInputError(
                f"{option_name(name)} {_shown(value)}: the cells were planned with "
                f"{option_name(name)} {_shown(planned)} (leave it out, or run the shards with it)."
            )
    if baseline is not None and (
        resolve.resolve_baseline(baseline, _entries(first.plan.models)) != first.plan.baseline
    ):
        raise UserInputError(
            f"--baseline {baseline!r}: the cells were planned with baseline "
            f"{first.plan.baseline!r} (leave it out, or run the shards with it)."
        )
    return first.plan


def _same_models(sources: Sequence[OutputCells]) -> None:
    """Each model, in every source's plan and cells, is one model (one identity): shards of
    other model files under the same display name are refused even when they share no model."""
    seen: dict[str, tuple[Path, str | None]] = {}
    for source in sources:
        claims = [(model, source.plan.identities.get(model)) for model in source.plan.models]
        claims += [(model, record.identity.model) for (model, _), record in source.cells.items()]
        for model, identity in claims:
            first = seen.setdefault(model, (source.root, identity))
            _refuse(
                first[0],
                source.root,
                f"identity.model of {model!r}: the same display name for different models "
                "(other model files, vectors or loader settings)",
                _short(first[1]),
                _short(identity),
                "give them different names (--model PATH=NAME) or run every shard on the same "
                "files.",
            )


def _short(identity: str | None) -> str:
    """An identity as a short label (12 hex digits of its content hash): the error names that
    they differ, not their text."""
    if identity is None:
        return "none (a model object)"
    return "model#" + content_hash(identity, digits=12)


def _shown(value: object) -> str:
    if isinstance(value, tuple) and all(isinstance(item, str) for item in value):
        return "[" + ", ".join(value) + "]"
    if isinstance(value, str):
        return value if value.startswith("model#") or value.startswith("none") else repr(value)
    return repr(value)


def _merged_cells(sources: Sequence[OutputCells]) -> dict[tuple[str, str], CellRecord]:
    """Every cell found, once (the first source in the fixed order holding it); one found twice
    must have the same identity and results."""
    merged: dict[tuple[str, str], CellRecord] = {}
    for source in sources:
        for cell, record in source.cells.items():
            seen = merged.get(cell)
            if seen is None:
                merged[cell] = record
            elif seen.identity != record.identity or _fingerprint(seen) != _fingerprint(record):
                raise UserInputError(
                    f"{cell[0]} on {cell[1]} is in {seen.root} and in {record.root} with "
                    "different results; collect only one of them."
                )
    return merged


def _fingerprint(
    record: CellRecord,
) -> tuple[str | None, bytes | None, list[tuple[str, float | None]]]:
    prediction = record.prediction_file()
    scores = prediction.read_bytes() if prediction is not None else None
    return (record.error, scores, sorted(record.pearson.items()))


def _check_shared_files(outcomes: Iterable[CellOutcome]) -> None:
    """Two cells that list one file must hold the same bytes in it (else one would overwrite
    the other's); only MTEB's model metadata, shared by the cells of a model, is kept once."""
    held: dict[str, tuple[bytes, str]] = {}
    for outcome in outcomes:
        for name, content in outcome.files.items():
            first = held.setdefault(name, (content, f"{outcome.model} on {outcome.task}"))
            if first[0] != content and not name.endswith("/" + _MODEL_META):
                raise UserInputError(
                    f"collect: the cells of {first[1]} and of {outcome.model} on "
                    f"{outcome.task} both list {name!r} with different contents; collect only "
                    "one of them."
                )


# --------------------------------------------------------------------------------------------
# plain MTEB folders
# --------------------------------------------------------------------------------------------
def _prediction_files(roots: Iterable[Path]) -> list[tuple[Path, Path]]:
    """(root, file) of the prediction files below ``roots``; each root must hold some, or
    MTEB's results. A file reached through a symlink leading out of its root is refused."""
    found: list[tuple[Path, Path]] = []
    for root in roots:
        files = sorted(root.rglob(f"*{_SUFFIX}"))
        if not files and next(root.rglob(_MODEL_META), None) is None:
            raise UserInputError(
                f"collect: {str(root)!r} holds neither an sts-extras output ({PLAN_FILE}) nor "
                f"MTEB prediction files (*{_SUFFIX}: run mteb.evaluate(..., "
                "prediction_folder=...)) nor MTEB results."
            )
        for file in files:
            _inside(root, file)
            if file.is_file():
                found.append((root, file))
    if not found:
        raise UserInputError(
            f"collect: none of the directories holds MTEB prediction files (*{_SUFFIX}); MTEB's "
            "results alone have no per-pair scores: run mteb.evaluate(..., prediction_folder=...)."
        )
    return found


def _inside(root: Path, file: Path) -> Path:
    """``file`` (found below ``root``), refused if it or a folder on the way is a symlink
    leading out of ``root``."""
    return confined_path(root, file.relative_to(root).as_posix(), f"collect: {root}")


def _read_meta(path: Path) -> PredictionMeta:
    from sts_extras.integrations.mteb.internals import read_mteb_json

    data = read_mteb_json(path, "collect: a prediction file")
    if not isinstance(data, dict) or not isinstance(data.get("mteb_model_meta"), dict):
        raise UserInputError(
            f"collect: {path} has no mteb_model_meta; it was not written by "
            "mteb.evaluate(..., prediction_folder=...)."
        )
    return parse_record(PredictionMeta, data["mteb_model_meta"], f"collect: {path}")


# Any: the task records are JSON objects (cells.task_record)
def _plain_mteb(
    roots: Sequence[Path], settings: LeaderboardSettings, baseline: str | None
) -> tuple[Plan, list[CellOutcome], list[dict[str, Any]], dict[tuple[str, str], CellIdentity]]:
    """The plan, cells, task records and cell identities of plain MTEB prediction folders.

    Models are ordered by name and revision, tasks by name: the plan does not depend on the
    order of the folders.
    """
    predictions: dict[tuple[str, str, str], tuple[Path, Path]] = {}  # (model, rev, task) -> file
    for root, path in sorted(_prediction_files(roots), key=lambda item: str(item[1].resolve())):
        meta = _read_meta(path)
        name, revision = meta.model_name, meta.revision or "no_revision_available"
        # both become folders of the collected output: plain names only
        check_file_name(_model_folder(name), f"collect: {path}: mteb_model_meta.model_name")
        check_file_name(revision, f"collect: {path}: mteb_model_meta.revision")
        task = path.name[: -len(_SUFFIX)]
        key = (name, revision, task)
        if key in predictions and predictions[key][1].read_bytes() != path.read_bytes():
            raise UserInputError(
                f"collect: {predictions[key][1]} and {path} both hold {name} ({revision}) on "
                f"{task}, with different scores; collect only one of them."
            )
        predictions.setdefault(key, (root, path))
    models = sorted({(name, revision) for name, revision, _ in predictions})
    task_names = sorted({task for _, _, task in predictions})
    sts_names, skipped = _sts_tasks(task_names)
    if skipped:
        warnings.warn(
            f"collect: left out the prediction files of {', '.join(skipped)} (not STS tasks).",
            UserWarning,
            stacklevel=3,
        )
    if not sts_names:
        raise UserInputError("collect: none of the prediction files is of an STS task.")
    tasks = resolve.resolve_tasks(sts_names)
    names = [task.metadata.name for task in tasks]
    counts: dict[str, int] = {}
    for name, _ in models:
        counts[name] = counts.get(name, 0) + 1
    display = {
        (name, revision): name if counts[name] == 1 else f"{name} ({revision})"
        for name, revision in models
    }
    shown = [display[model] for model in models]
    check_distinct_file_names(shown, "collect: the models' names")
    check_distinct_file_names(names, "collect: the tasks' names", empty="task")
    chosen = resolve.resolve_baseline(baseline, _entries(shown)) if baseline else shown[0]
    plan = Plan(
        tuple(shown),
        tuple(names),
        chosen,
        _plain_settings(settings),
        {display[model]: _plain_identity(*model) for model in models},
    )
    outcomes = []
    identities: dict[tuple[str, str], CellIdentity] = {}
    units = {task.metadata.name: task_units(task) for task in tasks}
    keys = {task.metadata.name: loaded_task_key(task) for task in tasks}
    for (name, revision, task_name), (_, path) in sorted(predictions.items()):
        if task_name not in names:
            continue
        sts_task = tasks[names.index(task_name)]
        outcome = _plain_cell(
            roots, display[name, revision], name, revision, sts_task, path, units[task_name]
        )
        outcomes.append(outcome)
        identities[outcome.model, task_name] = cell_identity(
            _plain_identity(name, revision),
            keys[task_name],
            units[task_name],
            plan.settings,
        )
    unchecked = sorted(
        {o.task for o in outcomes if not any(f.startswith("mteb_") for f in o.files)}
    )
    if unchecked:
        warnings.warn(
            f"collect: no MTEB result file found for some cells of {', '.join(unchecked)}, so "
            "the revision of the data they were evaluated on cannot be checked against the one "
            "loaded here; give MTEB's results folder too (mteb.ResultCache) to check it.",
            UserWarning,
            stacklevel=3,
        )
    records = [task_record(name, units[name], keys[name]) for name in names]
    return plan, outcomes, records, identities


def _plain_settings(settings: LeaderboardSettings) -> RunSettings:
    """The run settings of a report of plain MTEB folders: ``settings``'s, without a score range
    (MTEB's tasks carry their own)."""
    if settings.score_range is not None:
        raise UserInputError(
            "collect: `score_range` applies to task files of an sts-extras run; the tasks of "
            "plain MTEB folders are MTEB's own, with their own score range (leave it out)."
        )
    return settings.to_record()


def _plain_identity(name: str, revision: str) -> str:
    """A plain MTEB model's identity: the name and revision its prediction files claim."""
    return repr(("mteb-predictions", name, revision))


def _model_folder(name: str) -> str:
    """The folder MTEB keeps a model's results in (``ModelMeta.model_name_as_path``)."""
    return name.replace("/", "__").replace(" ", "_")


def _entries(names: Iterable[str]) -> list[resolve.ModelEntry]:
    """Collected models as entries, for :func:`~sts_extras.leaderboard.run.resolve.resolve_baseline`
    (nothing to build: their scores are on disk)."""
    return [resolve.ModelEntry(name, "collected", name, _no_build) for name in names]


def _no_build() -> NoReturn:
    raise RuntimeError("a collected model has no model to build")


def _sts_tasks(names: Sequence[str]) -> tuple[list[str], list[str]]:
    """The names of STS tasks (ours or MTEB's), and the others."""
    from sts_extras.integrations.mteb.internals import task_registry
    from sts_extras.integrations.mteb.tasks import register

    register()
    registry = task_registry()
    sts: list[str] = []
    other: list[str] = []
    for name in names:
        task_class = registry.get(name)
        kind = getattr(getattr(task_class, "metadata", None), "type", None)
        (sts if kind == "STS" else other).append(name)
    return sts, other


def _plain_cell(
    roots: Sequence[Path],
    display: str,
    name: str,
    revision: str,
    task: AbsTaskSTS,
    path: Path,
    units: Sequence[Unit],
) -> CellOutcome:
    """One cell of a plain MTEB run: its prediction file, and its task result when found (the
    scores checked against the task's pairs and the result, :func:`_check_scores`)."""
    from sts_extras.integrations.mteb.internals import read_mteb_json

    task_name = task.metadata.name
    model_path = _model_folder(name)
    info = {
        "kind": "mteb-predictions",
        "source": str(path.parent),
        "mteb_name": name,
        "mteb_revision": revision,
    }
    target = f"mteb_results/results/{model_path}/{revision}"
    files = {prediction_name(display, task_name): path.read_bytes()}
    pearson: dict[str, float | None] = {}
    # the names are plain components (checked), and glob characters in them are literal
    pattern = "/".join(glob.escape(part) for part in (model_path, revision, f"{task_name}.json"))
    result = next(
        (
            (root, found)
            for root in roots
            for found in sorted(root.rglob(pattern))
            if _inside(root, found).is_file()
        ),
        None,
    )
    if result is not None:
        root, file = result
        data = parse_record(
            TaskResultFile, read_mteb_json(file, "collect: a task result"), f"collect: {file}"
        )
        expected = (task.metadata.dataset or {}).get("revision")
        if expected is not None and data.dataset_revision not in (None, expected):
            raise UserInputError(
                f"collect: {file} was evaluated on revision {data.dataset_revision} of "
                f"{task_name}'s data, but revision {expected} is loaded here; install the MTEB "
                "version the run used."
            )
        files[f"{target}/{file.name}"] = file.read_bytes()
        meta = file.parent / _MODEL_META
        if meta.is_file():
            _inside(root, meta)
            files[f"{target}/{meta.name}"] = meta.read_bytes()
        for split, items in data.scores.items():
            for item in items:
                if item.pearson is not None:
                    pearson[f"{item.hf_subset}/{split}"] = item.pearson
    claims = [] if result is None else [(f"MTEB's result file {str(result[1])!r}", pearson)]
    _check_scores(path, units, claims, f"{display} on {task_name}")
    return CellOutcome(display, task_name, info, files=files, pearson=pearson)


# --------------------------------------------------------------------------------------------
# every cell agrees with itself
# --------------------------------------------------------------------------------------------
#: Floating-point tolerance of a recorded correlation (relative, and absolute near zero).
TOLERANCE = 1e-9
#: The most a written correlation may have been rounded by: MTEB writes 6 decimals.
_ROUNDING = 5e-7


def agrees(written: float, computed: float) -> bool:
    """Does a correlation as written in a file agree with the one computed from the scores?

    Up to floating-point error (:data:`TOLERANCE`, relative), or up to the rounding the written
    number shows (half a unit of its last decimal: ``0.194395`` may stand for 0.1943949...),
    but never more than MTEB's own rounding to 6 decimals. A NaN (constant scores) agrees with
    nothing.
    """
    if not (math.isfinite(written) and math.isfinite(computed)):
        return False
    exponent = Decimal(repr(written)).as_tuple().exponent
    rounding = min(0.5 * 10.0 ** int(exponent), _ROUNDING) * (1 + 1e-9)
    return abs(written - computed) <= max(rounding, TOLERANCE * max(1.0, abs(written)))


def _pearson(scores: np.ndarray, gold: np.ndarray) -> float:
    """Pearson's r as the report computes it (scipy), NaN for a constant side."""
    from scipy.stats import pearsonr

    if scores.size < 2 or np.ptp(scores) == 0 or np.ptp(gold) == 0:
        return math.nan
    return float(pearsonr(scores, gold).statistic)


def _check_scores(
    path: Path,
    units: Sequence[Unit],
    claims: Sequence[tuple[str, Mapping[str, float | None]]],
    cell: str,
) -> None:
    """Refuse a cell whose per-pair scores in ``path`` (the user's file) are not one finite
    number per pair of each unit, or give another Pearson r than a claim (what a record says:
    ``"subset/split"`` -> r) says. A unit the file lacks is left to the report (a failure)."""
    from sts_extras.integrations.mteb.internals import read_prediction

    for unit in units:
        try:
            scores, _ = read_prediction(path, unit.subset, unit.split)
        except KeyError:
            continue
        except (OSError, ValueError) as error:
            detail = str(error).rstrip(".") if isinstance(error, UserInputError) else error
            raise UserInputError(
                f"collect: {cell}: {str(path)!r} holds no usable per-pair scores for "
                f"{unit.label} ({detail}); every score must be a finite number (MTEB writes NaN "
                "for constant or all-zero embeddings)."
            ) from None
        if scores.shape != unit.gold.shape:
            raise UserInputError(
                f"collect: {cell}: {str(path)!r} holds {scores.size} scores for {unit.label}, "
                f"which has {unit.gold.size} pairs (a file cut short, or made on another "
                "revision of the task)."
            )
        computed = _pearson(scores, unit.gold)
        for source, pearsons in claims:
            written = pearsons.get(f"{unit.subset}/{unit.split}")
            if written is not None and not agrees(written, computed):
                raise UserInputError(
                    f"collect: {cell}: the per-pair scores in {str(path)!r} give Pearson r = "
                    f"{computed:+.6f} on {unit.label}, but {source} says {written:+.6f}; the "
                    "cell does not agree with itself (its scores or records were changed after "
                    "it was made). Make it again."
                )


def _check_cell(units: Sequence[Unit], record: CellRecord) -> None:
    """:func:`_check_scores` of a cell of an sts-extras output, against its cell record and its
    MTEB result file."""
    from sts_extras.integrations.mteb.internals import read_mteb_json

    path = record.prediction_file()
    if record.error is not None or path is None:
        return
    where = f"{record.root}: {record.model} on {record.task}"
    claims: list[tuple[str, Mapping[str, float | None]]] = [
        (f"its cell record {str(record.root / _cell_name(record))!r}", record.pearson)
    ]
    for name in record.files:
        if name.startswith("mteb_results/") and name.endswith(f"/{record.task}.json"):
            file = record.root / name
            data = parse_record(
                TaskResultFile, read_mteb_json(file, "collect: a task result"), f"collect: {file}"
            )
            claims.append(
                (
                    f"its MTEB result file {str(file)!r}",
                    {
                        f"{item.hf_subset}/{split}": item.pearson
                        for split, items in data.scores.items()
                        for item in items
                    },
                )
            )
    _check_scores(path, units, claims, where)


def _cell_name(record: CellRecord) -> str:
    """The record file of a cell, relative to its folder."""
    return f"{CELLS_DIR}/{slug(record.model)}/{slug(record.task)}.json"
