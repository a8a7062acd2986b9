"""``sts-extras leaderboard collect``: the report of cells evaluated elsewhere, no model loaded.

Two kinds of folders are collected:

* outputs of ``sts-extras leaderboard`` (typically one per ``--shard K/N`` job): their plans must
  agree (models, tasks, baseline and the settings of the statistics), their tasks must hold the
  same data, every file read must match the folder's manifest, and every cell of the plan must be
  found (or ``allow_missing``) -- otherwise a ``UserInputError`` names what differs or is missing;
* folders written by plain MTEB, ``mteb.evaluate(model, tasks, prediction_folder=DIR)``: the
  per-pair scores of each ``<task>_predictions.json`` (its ``mteb_model_meta`` names the model),
  MTEB's task results beside them or in another folder given (for MTEB's own ``pearson`` and
  the dataset revision, which must be the one loaded here), and the gold scores from the task
  itself (``mteb.get_task``; offline, MTEB's tasks need their data in the local cache). Prediction
  files of other task types are left out, with a warning naming them.

Either way the cells are copied into the new report set, with their records, so the collected
output can itself be collected again, and the report is written by the same code as a run's
(:func:`~sts_extras.leaderboard.pipeline.report_from_cells`): two shards collected give the
``leaderboard.json`` of the serial run byte for byte.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sts_extras.errors import UserFileNotFoundError, UserInputError
from sts_extras.leaderboard import resolve
from sts_extras.leaderboard.cells import (
    PLAN_FILE,
    SETTINGS,
    CellRecord,
    OutputCells,
    Plan,
    read_cells,
    results_folder,
    task_record,
    write_outcomes,
    write_plan,
    write_task_record,
)
from sts_extras.leaderboard.evaluation import CellOutcome, loaded_task_key, slug, task_units
from sts_extras.leaderboard.pipeline import (
    DEFAULT_OUTPUT,
    check_statistics_options,
    report_from_cells,
)
from sts_extras.leaderboard.report_set import commit, recover_output, staging_folder
from sts_extras.leaderboard.scoring import LeaderboardResult
from sts_extras.leaderboard.writers import check_figure_formats
from sts_extras.optional import check_installed

__all__ = ["DEFAULTS", "collect_leaderboard"]

#: The settings of a report collected from plain MTEB folders, unless given.
DEFAULTS: Mapping[str, Any] = {
    "seed": 0,
    "n_resamples": 10000,
    "bins": 3,
    "test": "meng1992",
    "adjust": "holm",
    "round_scores": False,
}
_SUFFIX = "_predictions.json"
_OPTION = {name: "--" + name.replace("_", "-") for name in SETTINGS}
#: Missing cells named in an error before "and N more".
_NAMED = 6


def collect_leaderboard(
    directories: Sequence[str | os.PathLike],
    *,
    output: str | os.PathLike = DEFAULT_OUTPUT,
    baseline: str | None = None,
    allow_missing: bool = False,
    figures: bool = True,
    figure_formats: str | Sequence[str] | None = None,
    progress: bool = True,
    **settings: Any,
) -> LeaderboardResult:
    """Build the leaderboard report of the cells found in ``directories``.

    Parameters
    ----------
    directories : sequence of path
        Outputs of ``sts-extras leaderboard`` (e.g. one per shard), or folders of plain
        ``mteb.evaluate(..., prediction_folder=...)`` runs (with or without MTEB's result
        cache); not both kinds at once.
    output : path, default "leaderboard"
        Directory for the report set (not one of ``directories``).
    baseline : str, optional
        For plain MTEB folders: the model the others are compared with (default the first found).
        For sts-extras outputs the plan's baseline is used; a different one is refused.
    allow_missing : bool, default False
        Report cells of the plan (or, for plain folders, of models × tasks found) that no
        directory holds as failed ("not evaluated") instead of refusing.
    figures, figure_formats, progress
        As for :func:`~sts_extras.leaderboard.pipeline.run_leaderboard`.
    **settings
        ``seed``, ``n_resamples``, ``bins``, ``test``, ``adjust``, ``round_scores``: for plain
        MTEB folders (default :data:`DEFAULTS`); for sts-extras outputs they are the plan's, and a
        different value is refused.

    Returns
    -------
    LeaderboardResult

    Raises
    ------
    UserInputError
        A directory that does not exist or holds no cells; outputs of different plans, settings
        or task data; a cell found twice with different scores; a file that does not match its
        manifest; missing cells (without ``allow_missing``); an unknown baseline or setting.
    """
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise UserInputError(
            f"collect_leaderboard got unknown settings {', '.join(unknown)}; expected some of "
            f"{', '.join(SETTINGS)}."
        )
    given = {name: value for name, value in settings.items() if value is not None}
    formats = check_figure_formats(figure_formats)
    check_installed("mteb", extra="mteb")
    if figures:
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
    if ours:
        sources = [read_cells(root) for root in roots]
        plan = _common_plan(sources, given, baseline)
        tasks = sources[0].tasks
        records = _merged_cells(sources)
        outcomes = [_copied(record) for record in records.values()]
        task_keys = {name: task.key for name, task in tasks.items()}
        task_files = [task_record(name, task.units, task.key) for name, task in tasks.items()]
    else:
        plan, outcomes, task_files = _plain_mteb(roots, given, baseline)
        task_keys = {record["task"]: record["key"] for record in task_files}
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
    with staging_folder(output_dir) as staging:
        write_plan(staging, plan)
        for record in task_files:
            write_task_record(staging, record)
        order = [cell for cell in plan.cells() if cell in found]
        write_outcomes(staging, outcomes, task_keys, order)
        result = report_from_cells(
            staging, output_dir, progress=progress, figures=figures, figure_formats=formats
        )
        commit(staging, output_dir)
    return result


def _check_directories(directories: Sequence[str | os.PathLike]) -> list[Path]:
    if isinstance(directories, (str, os.PathLike)) or not directories:
        raise UserInputError("collect needs one or more directories (a list of paths).")
    roots: list[Path] = []
    for directory in directories:
        root = Path(directory).expanduser()
        if not root.is_dir():
            raise UserFileNotFoundError(
                f"collect: {str(directory)!r} is not a directory (give the --output folders of "
                "the shards, or MTEB prediction folders)."
            )
        if root.resolve() in (known.resolve() for known in roots):
            raise UserInputError(f"collect: {str(directory)!r} is given twice.")
        roots.append(root)
    return roots


# --------------------------------------------------------------------------------------------
# sts-extras outputs
# --------------------------------------------------------------------------------------------
def _common_plan(sources: Sequence[OutputCells], given: Mapping[str, Any], baseline: Any) -> Plan:
    """The plan all ``sources`` share; ``UserInputError`` naming the first difference."""
    first = sources[0]
    for other in sources[1:]:
        for what, mine, theirs in (
            ("models", first.plan.models, other.plan.models),
            ("tasks", first.plan.tasks, other.plan.tasks),
            ("baseline", first.plan.baseline, other.plan.baseline),
            *(
                (_OPTION[name], first.plan.settings[name], other.plan.settings[name])
                for name in SETTINGS
            ),
        ):
            if mine != theirs:
                raise UserInputError(
                    f"{first.root} and {other.root} come from different runs ({what}: "
                    f"{_shown(mine)} vs {_shown(theirs)}); collect outputs of one plan, run "
                    "with the same options."
                )
        for name, task in first.tasks.items():
            if other.tasks[name].key != task.key:
                raise UserInputError(
                    f"{first.root} and {other.root} evaluated different data of task {name} "
                    "(another revision of the task, or another MTEB version); run all shards "
                    "with the same versions."
                )
    for name, value in given.items():
        if first.plan.settings[name] != value:
            raise UserInputError(
                f"{_OPTION[name]} {value!r}: the cells were planned with {_OPTION[name]} "
                f"{first.plan.settings[name]!r} (leave it out, or run the shards with it)."
            )
    if baseline is not None and (
        resolve.resolve_baseline(baseline, _entries(first.plan.models)) != first.plan.baseline
    ):
        raise UserInputError(
            f"--baseline {baseline!r}: the cells were planned with baseline "
            f"{first.plan.baseline!r} (leave it out, or run the shards with it)."
        )
    return first.plan


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(value) + "]"
    return repr(value)


def _merged_cells(sources: Sequence[OutputCells]) -> dict[tuple[str, str], CellRecord]:
    """Every cell found, once; one found twice must have the same files (the same scores)."""
    merged: dict[tuple[str, str], CellRecord] = {}
    for source in sources:
        for cell, record in source.cells.items():
            seen = merged.get(cell)
            if seen is None:
                merged[cell] = record
            elif _fingerprint(seen) != _fingerprint(record):
                raise UserInputError(
                    f"{cell[0]} on {cell[1]} is in {seen.root} and in {record.root} with "
                    "different results; collect only one of them."
                )
    return merged


def _fingerprint(record: CellRecord) -> tuple[Any, ...]:
    prediction = record.prediction_file()
    scores = prediction.read_bytes() if prediction is not None else None
    return (record.error, scores, sorted(record.pearson.items()))


def _copied(record: CellRecord) -> CellOutcome:
    """A recorded cell as an outcome, its files read from its folder."""
    from sts_extras.integrations.mteb import run_settings_of

    files = {name: (record.root / name).read_bytes() for name in record.files}
    folder = results_folder(record.root, record.files)
    run_settings = run_settings_of(folder, record.task) if folder is not None else []
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
# plain MTEB folders
# --------------------------------------------------------------------------------------------
def _prediction_files(roots: Iterable[Path]) -> list[Path]:
    """The prediction files below ``roots``; each root must hold some, or MTEB's results."""
    found: list[Path] = []
    for root in roots:
        files = sorted(root.rglob(f"*{_SUFFIX}"))
        if not files and next(root.rglob("model_meta.json"), None) is None:
            raise UserInputError(
                f"collect: {str(root)!r} holds neither an sts-extras output ({PLAN_FILE}) nor "
                f"MTEB prediction files (*{_SUFFIX}: run mteb.evaluate(..., "
                "prediction_folder=...)) nor MTEB results."
            )
        found.extend(files)
    if not found:
        raise UserInputError(
            f"collect: none of the directories holds MTEB prediction files (*{_SUFFIX}); MTEB's "
            "results alone have no per-pair scores: run mteb.evaluate(..., prediction_folder=...)."
        )
    return found


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UserInputError(
            f"collect: {path} cannot be read ({type(error).__name__}: {error})."
        ) from None


def _plain_mteb(
    roots: Sequence[Path], given: Mapping[str, Any], baseline: str | None
) -> tuple[Plan, list[CellOutcome], list[dict[str, Any]]]:
    """The plan, cells and task records of plain MTEB prediction folders."""
    predictions: dict[tuple[str, str, str], Path] = {}  # (model, revision, task) -> file
    models: list[tuple[str, str]] = []
    for path in _prediction_files(roots):
        meta = _read_json(path).get("mteb_model_meta") or {}
        name, revision = meta.get("model_name"), meta.get("revision")
        if not isinstance(name, str) or not name:
            raise UserInputError(
                f"collect: {path} has no mteb_model_meta.model_name; it was not written by "
                "mteb.evaluate(..., prediction_folder=...)."
            )
        revision = str(revision)
        task = path.name[: -len(_SUFFIX)]
        key = (name, revision, task)
        if key in predictions and predictions[key].read_bytes() != path.read_bytes():
            raise UserInputError(
                f"collect: {predictions[key]} and {path} both hold {name} ({revision}) on "
                f"{task}, with different scores; collect only one of them."
            )
        predictions.setdefault(key, path)
        if (name, revision) not in models:
            models.append((name, revision))
    task_names = list(dict.fromkeys(task for _, _, task in predictions))
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
    chosen = resolve.resolve_baseline(baseline, _entries(shown)) if baseline else shown[0]
    settings = {name: given.get(name, DEFAULTS[name]) for name in SETTINGS}
    check_statistics_options(**settings)
    plan = Plan(tuple(shown), tuple(names), chosen, settings)
    outcomes = []
    for (name, revision, task_name), path in predictions.items():
        if task_name not in names:
            continue
        task = tasks[names.index(task_name)]
        outcomes.append(_plain_cell(roots, display[name, revision], name, revision, task, path))
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
    records = [task_record(t.metadata.name, task_units(t), loaded_task_key(t)) for t in tasks]
    return plan, outcomes, records


def _entries(names: Iterable[str]) -> list[resolve.ModelEntry]:
    """Collected models as entries, for :func:`~sts_extras.leaderboard.resolve.resolve_baseline`
    (nothing to build: their scores are on disk)."""
    return [resolve.ModelEntry(name, "collected", name, _no_build) for name in names]


def _no_build() -> Any:
    raise RuntimeError("a collected model has no model to build")


def _sts_tasks(names: Sequence[str]) -> tuple[list[str], list[str]]:
    """The names of STS tasks (ours or MTEB's), and the others."""
    from sts_extras.integrations.mteb import task_registry
    from sts_extras.mteb_tasks import register

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
    roots: Sequence[Path], display: str, name: str, revision: str, task: Any, path: Path
) -> CellOutcome:
    """One cell of a plain MTEB run: its prediction file, and its task result when found."""
    task_name = task.metadata.name
    model_path = name.replace("/", "__").replace(" ", "_")
    info = {
        "kind": "mteb-predictions",
        "source": str(path.parent),
        "mteb_name": name,
        "mteb_revision": revision,
    }
    target = f"mteb_results/results/{model_path}/{revision}"
    files = {f"predictions/{slug(display)}/{path.name}": path.read_bytes()}
    pearson: dict[str, float | None] = {}
    result = next(
        (
            found
            for root in roots
            for found in sorted(root.rglob(f"{model_path}/{revision}/{task_name}.json"))
        ),
        None,
    )
    if result is not None:
        data = _read_json(result)
        expected = (task.metadata.dataset or {}).get("revision")
        if expected is not None and data.get("dataset_revision") not in (None, expected):
            raise UserInputError(
                f"collect: {result} was evaluated on revision {data.get('dataset_revision')} of "
                f"{task_name}'s data, but revision {expected} is loaded here; install the MTEB "
                "version the run used."
            )
        files[f"{target}/{result.name}"] = result.read_bytes()
        meta = result.parent / "model_meta.json"
        if meta.is_file():
            files[f"{target}/{meta.name}"] = meta.read_bytes()
        for split, items in (data.get("scores") or {}).items():
            for item in items:
                if "pearson" in item and "hf_subset" in item:
                    pearson[f"{item['hf_subset']}/{split}"] = float(item["pearson"])
    return CellOutcome(display, task_name, info, files=files, pearson=pearson)
