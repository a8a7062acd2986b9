"""The Python entry points of the leaderboard: check the input, evaluate the cells, score, report.

:func:`run_leaderboard` strings the parts together: :mod:`~sts_extras.leaderboard.run.resolve`
(checks every name before any work), :mod:`~sts_extras.leaderboard.run.distributed` (runs each model
× task cell here or on a Dask cluster, :mod:`~sts_extras.leaderboard.run.evaluation`),
:mod:`~sts_extras.leaderboard.run.cells` (the cells on disk, read back as scores),
:mod:`~sts_extras.leaderboard.scoring` (the statistics) and
:mod:`~sts_extras.leaderboard.reports.writers` (the reports). :func:`run_shard` evaluates one shard
of the cells and writes no report; ``sts-extras leaderboard collect``
(:mod:`~sts_extras.leaderboard.run.collect`) builds it later from the cells of every shard, by the
same :func:`report_from_cells`.
Heavy libraries (MTEB, torch, matplotlib, dask) are imported when a run starts.

One run, one report set: everything is written to a staging folder inside the output and swapped
in at the end, all or nothing (:mod:`~sts_extras.leaderboard.run.report_set`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.integrity import write_manifest
from sts_extras.io.paths import check_distinct_file_names, check_file_name
from sts_extras.leaderboard.reports.writers import write_reports
from sts_extras.leaderboard.run import resolve
from sts_extras.leaderboard.run.cells import (
    PLAN_FILE,
    CellRecord,
    Plan,
    UnreadableCellsError,
    cell_identity,
    copied_outcome,
    parse_shard,
    read_cells,
    shard_cells,
    task_record,
    task_scores,
    write_outcomes,
    write_plan,
    write_task_record,
)
from sts_extras.leaderboard.run.distributed import CellJob, connect, run_dask, run_serial
from sts_extras.leaderboard.run.evaluation import CellOutcome, Unit, loaded_task_key, task_units
from sts_extras.leaderboard.run.records import CellIdentity
from sts_extras.leaderboard.run.report_set import (
    commit,
    output_errors,
    recover_output,
    staging_folder,
)
from sts_extras.leaderboard.run.resolve import ModelEntry, ModelSpec, TaskSpec
from sts_extras.leaderboard.scoring import LeaderboardResult, score_leaderboard
from sts_extras.leaderboard.settings import (
    DEFAULT_OUTPUT,
    RUN_SETTINGS,
    LeaderboardSettings,
    option_name,
)
from sts_extras.optional import check_installed
from sts_extras.progress import library_bars
from sts_extras.stats.model_comparison import check_comparison_size

if TYPE_CHECKING:  # pragma: no cover -- MTEB is imported on use, never here
    from mteb.abstasks.sts import AbsTaskSTS

__all__ = [
    "DEFAULT_OUTPUT",
    "ShardSummary",
    "checked_settings",
    "report_from_cells",
    "run_leaderboard",
    "run_shard",
]


def run_leaderboard(
    *,
    models: Sequence[ModelSpec] | None = None,
    vectors: Sequence[str] | None = None,
    tasks: Sequence[TaskSpec] | None = None,
    baseline: str | None = None,
    settings: LeaderboardSettings | None = None,
) -> LeaderboardResult:
    """Run models × tasks through ``mteb.evaluate`` and write the leaderboard.

    Parameters
    ----------
    models : sequence of (str or MTEB model), optional
        Names in MTEB's model registry (loaded by ``mteb.get_model``, with MTEB's prompts, loader
        arguments and revision; sts-extras' own ``"sts-extras/DynaMax-Jaccard"`` and friends
        too), sentence-transformers model names or directories (``"all-MiniLM-L6-v2"`` is the
        packaged offline copy), or ready MTEB encoder objects. ``"NAME_OR_PATH=DISPLAY_NAME"``
        names a model in the reports (display names must be unique).
    vectors : sequence of str, optional
        Word-vector files, model2vec directories, named sources (``"glove-6b-50d"``),
        gensim-downloader names, or ``"distilled[:MODEL]"`` (static vectors distilled from a
        sentence-transformers model, default all-MiniLM-L6-v2). Each source adds avg-cos,
        MaxPool-Jaccard and DynaMax-Jaccard. With neither ``models`` nor ``vectors``:
        all-MiniLM-L6-v2 plus the three static models over ``"glove-6b-50d"`` (Stanford's GloVe
        6B 50-d, the ``glove`` extra).
    tasks : sequence of (str or AbsTaskSTS), optional
        ``"DSCS"``, ``"STSS131"`` (the default: both), any MTEB STS task name, or your own
        ``mteb`` ``AbsTaskSTS`` object.
    baseline : str, optional
        Model every other one is compared with (a display name or a unique part of it). Default:
        the avg-cos model of the first vector source, else the first model.
    settings : LeaderboardSettings, optional
        Every other setting: the output directory, the statistics, the figures, the cache, what
        may be trusted and where the cells run (default ``LeaderboardSettings()``: reports in
        ``leaderboard/``, seed 0, 10000 resamples, the calibration suite's method (``"auto"``), Holm
        adjustment).

    Returns
    -------
    LeaderboardResult

    Raises
    ------
    UserInputError
        Before any model runs: unknown task or model name (with close matches), a vector file
        that does not exist or cannot be parsed, an output directory that cannot be written, an
        unknown baseline, or a missing extra. A model that fails on a task does not raise:
        the failure is reported in the table. Offline (``HF_HUB_OFFLINE``), a registry model
        whose files are not in the local cache; without ``trust_remote_code``, a registry model
        that needs it. After the run but before its set is swapped in (the previous set
        stays): a folder of the output directory in the place of a report file.
    UserInputTypeError
        ``settings`` is not a :class:`LeaderboardSettings`.

    Every model is ranked by its own similarity (MTEB's ``similarity_scores``) on every task;
    ``leaderboard.json`` says per row which prediction key was read (``"score_key"``), and the
    Markdown says which models fell back to the cosine of their embeddings, if any did.
    ``leaderboard.json`` holds the settings that change the numbers under ``"settings"``
    (:meth:`LeaderboardSettings.to_record`).

    The output directory holds one complete report set at any time, this run's or the previous
    one (the journalled swap of :mod:`~sts_extras.leaderboard.run.report_set`); a user's own
    files in it are left alone. A whole run replaces the cells of an earlier run or of shards in
    ``output``; a file that cannot be written (a full disk, a read-only folder) is a
    :class:`~sts_extras.leaderboard.run.report_set.OutputWriteError` naming it and saying which
    set the output holds ("the previous report set is kept" or "... restored", or "the new
    report set is complete").

    Examples
    --------
    >>> from sts_extras.leaderboard import LeaderboardSettings, run_leaderboard
    >>> result = run_leaderboard(  # doctest: +SKIP
    ...     vectors=["glove-6b-50d"],
    ...     tasks=["DSCS"],
    ...     settings=LeaderboardSettings(output="board", n_resamples=2000, figures=False),
    ... )
    """
    settings = checked_settings(settings, "run_leaderboard()")
    # the libraries' own bars (datasets, transformers, model2vec) follow `progress` too
    with library_bars(settings.progress):
        run = _prepare(models, vectors, tasks, baseline, settings)
        recover_output(run.output)
        with output_errors(run.output), staging_folder(run.output) as staging:
            evaluate_cells(run, run.plan.cells(), staging, shards=("1/1",))
            result = report_from_cells(staging, run.output, settings)
            commit(staging, run.output)
    return result


@dataclass(frozen=True)
class ShardSummary:
    """What :func:`run_shard` evaluated.

    Attributes
    ----------
    shard : str
        ``"K/N"``.
    cells : tuple of (str, str)
        The (model, task) cells of the shard, in plan order.
    failed : tuple of str
        ``"model on task: why"`` for each cell that has no scores.
    total : int
        Cells of the whole plan.
    """

    shard: str
    cells: tuple[tuple[str, str], ...]
    failed: tuple[str, ...]
    total: int


def run_shard(
    shard: str,
    *,
    models: Sequence[ModelSpec] | None = None,
    vectors: Sequence[str] | None = None,
    tasks: Sequence[TaskSpec] | None = None,
    baseline: str | None = None,
    settings: LeaderboardSettings | None = None,
) -> ShardSummary:
    """Evaluate shard ``"K/N"`` of the cells of a leaderboard run into ``settings.output``; no
    report.

    The cells (model-major, as :func:`run_leaderboard` would run them) are cut into N contiguous
    blocks and block K is evaluated (:func:`~sts_extras.leaderboard.run.cells.shard_cells`), so the
    N jobs of an array cover every cell once. Each writes MTEB's files, the cell records, the
    plan and the gold scores to its output; ``sts-extras leaderboard collect`` then builds
    the report of the whole plan from all of them.

    Parameters
    ----------
    shard : str
        ``"K/N"``, 1 <= K <= N.
    models, vectors, tasks, baseline, settings
        As for :func:`run_leaderboard` (``settings.figures`` and ``settings.figure_formats`` are
        unused: the report comes from ``collect``). Every shard of a plan must be given the same
        ones, but for ``output`` and how the cells run (``workers`` ...):
        ``settings.replace(output=...)`` gives a shard its own folder.

    Returns
    -------
    ShardSummary

    Raises
    ------
    UserInputError
        As :func:`run_leaderboard`; and, before any model runs, an output that holds the
        cells of another plan (other models, tasks, baseline or run settings), of other models
        under the same names, or cells that cannot be read.

    Notes
    -----
    Shards of one plan may share an output: a shard written where another shard (or a whole
    run) of the same plan left its cells adds to them (its own cells replace theirs), and the
    plan records both shards; ``collect`` of that one folder then reports them all.
    """
    settings = checked_settings(settings, "run_shard()")
    index, count = parse_shard(shard, "`shard`")
    with library_bars(settings.progress):
        run = _prepare(models, vectors, tasks, baseline, settings)
        cells = shard_cells(run.plan.cells(), index, count)
        label = f"{index}/{count}"
        recover_output(run.output)
        kept, shards = _cells_already_there(run)
        kept = {cell: record for cell, record in kept.items() if cell not in cells}
        with output_errors(run.output), staging_folder(run.output) as staging:
            outcomes = evaluate_cells(
                run,
                cells,
                staging,
                shards=(*shards, label),
                kept=[copied_outcome(record) for record in kept.values()],
            )
            write_manifest(staging, {"shard": label})
            commit(staging, run.output)
    failed = tuple(
        f"{outcome.model} on {outcome.task}: {outcome.error}"
        for outcome in outcomes
        if outcome.error is not None
    )
    return ShardSummary(label, tuple(cells), failed, len(run.plan.cells()))


def checked_settings(settings: LeaderboardSettings | None, where: str) -> LeaderboardSettings:
    """The settings of a public entry point (``where``): ``settings`` as given (it checked
    itself when it was made), ``LeaderboardSettings()`` for None; anything else is refused."""
    if settings is None:
        return LeaderboardSettings()
    if not isinstance(settings, LeaderboardSettings):
        raise UserInputTypeError(
            f"{where}: `settings` must be a LeaderboardSettings, got {type(settings).__name__}."
        )
    return settings


def _cells_already_there(run: _Run) -> tuple[dict[tuple[str, str], CellRecord], tuple[str, ...]]:
    """The cells and shards an earlier shard (or run) of the same plan left in the output.

    Refused, before any model runs, when they are of another plan or other models, or cannot
    be read: writing this shard would delete them (the report set is swapped in whole).
    """
    if not (run.output / PLAN_FILE).exists():
        return {}, ()
    where = f"--output {str(run.output)!r}"
    advice = "give this shard another --output (or move those cells away)."
    try:
        found = read_cells(run.output)
    except UserInputError as error:
        raise UnreadableCellsError(
            f"{where} holds cells that cannot be read ({str(error).rstrip('.')}); {advice}"
        ) from None
    mine, theirs = run.plan, found.plan
    for what, a, b in (
        ("models", mine.models, theirs.models),
        ("tasks", mine.tasks, theirs.tasks),
        ("baseline", mine.baseline, theirs.baseline),
        *(
            (option_name(name), getattr(mine.settings, name), getattr(theirs.settings, name))
            for name in RUN_SETTINGS
        ),
    ):
        if a != b:
            raise UserInputError(
                f"{where} holds the cells of another plan ({what}: {b!r} there, {a!r} here); "
                f"{advice}"
            )
    for model in mine.models:
        if mine.identities.get(model) != theirs.identities.get(model):
            raise UserInputError(
                f"{where} holds the cells of another model under the name {model!r} (other "
                f"model files, vectors or loader settings: their identity differs); {advice}"
            )
    for (model, task), record in found.cells.items():
        if record.identity != run.identity(model, task):
            raise UserInputError(
                f"{where} holds cells of {model} on {task} made by another model or on other "
                f"data under the same name (their identity differs); {advice}"
            )
    return found.cells, found.shards


@dataclass(frozen=True)
class _Run:
    """A checked run: its settings, where it writes, its tasks, models and plan."""

    settings: LeaderboardSettings
    output: Path
    cache: Path
    tasks: dict[str, AbsTaskSTS]
    task_keys: dict[str, str]
    entries: dict[str, ModelEntry]
    plan: Plan
    units: dict[str, list[Unit]]

    def identity(self, model: str, task: str) -> CellIdentity:
        """What the cell of ``model`` on ``task`` depends on (recorded with it)."""
        return cell_identity(
            self.entries[model].identity,
            self.task_keys[task],
            self.units[task],
            self.plan.settings,
        )


def _prepare(
    models: Sequence[ModelSpec] | None,
    vectors: Sequence[str] | None,
    tasks: Sequence[TaskSpec] | None,
    baseline: str | None,
    settings: LeaderboardSettings,
) -> _Run:
    """Check every name, load the tasks and resolve the models: all before any work (the
    settings checked themselves when they were made)."""
    # a missing extra fails here, with the pip command, before any work
    check_installed("mteb", extra="mteb")
    if settings.figures:
        check_installed("matplotlib", extra="figures")
    if settings.uses_dask:
        check_installed("distributed", extra="distributed")
    output_dir = resolve.prepare_output(settings.output)
    cache = (
        settings.cache_dir.expanduser() if settings.cache_dir is not None else resolve.cache_root()
    )
    task_objects = resolve.resolve_tasks(
        tasks, score_range=settings.score_range, duplicate_pairs=settings.duplicate_pairs
    )
    entries = resolve.resolve_models(
        models,
        vectors,
        sif=settings.sif,
        cache_dir=cache,
        trust_remote_code=settings.trust_remote_code,
        trust_pickle=settings.trust_pickle,
    )
    baseline_name = resolve.resolve_baseline(baseline, entries)
    names = [task.metadata.name for task in task_objects]
    # names become file names: a collision is found now, not after every model has run
    for name in names:
        check_file_name(name, f"the task name {name!r}")
    check_distinct_file_names(names, "the tasks' names", empty="task")
    check_distinct_file_names([entry.name for entry in entries], "the models' display names")
    units = {name: task_units(task) for name, task in zip(names, task_objects, strict=True)}
    for task_unit in (unit for listed in units.values() for unit in listed):
        # the work of the comparisons is bounded now, not after every model has run
        check_comparison_size(
            settings.n_resamples, task_unit.gold.size, len(entries), "--n-resamples"
        )
    plan = Plan(
        models=tuple(entry.name for entry in entries),
        tasks=tuple(names),
        baseline=baseline_name,
        settings=settings.to_record(),
        identities={entry.name: entry.identity for entry in entries},
    )
    return _Run(
        settings=settings,
        output=output_dir,
        cache=cache,
        tasks=dict(zip(names, task_objects, strict=True)),
        task_keys={task.metadata.name: loaded_task_key(task) for task in task_objects},
        entries={entry.name: entry for entry in entries},
        plan=plan,
        units=units,
    )


def evaluate_cells(
    run: _Run,
    cells: Sequence[tuple[str, str]],
    staging: Path,
    *,
    shards: Sequence[str] = (),
    kept: Sequence[CellOutcome] = (),
) -> list[CellOutcome]:
    """Evaluate ``cells`` of ``run`` and write them, the plan (holding ``shards``), the task
    records and the ``kept`` cells of an earlier shard to ``staging``; return the outcomes of
    ``cells`` (without their files) in plan order."""
    write_plan(staging, run.plan, shards)
    for name in run.tasks:
        write_task_record(staging, task_record(name, run.units[name], run.task_keys[name]))
    jobs = [
        CellJob(run.entries[model], run.tasks[task], run.task_keys[task]) for model, task in cells
    ]
    identities = {cell: run.identity(*cell) for cell in run.plan.cells()}
    kept_cells = {(outcome.model, outcome.task) for outcome in kept}
    order = [cell for cell in run.plan.cells() if cell in kept_cells or cell in cells]
    written = write_outcomes(
        staging, itertools.chain(kept, _run_jobs(run, jobs)), identities, order
    )
    chosen = set(cells)
    return [outcome for outcome in written if (outcome.model, outcome.task) in chosen]


def _run_jobs(run: _Run, jobs: Sequence[CellJob]) -> Iterator[CellOutcome]:
    settings = run.settings
    if not settings.uses_dask:
        yield from run_serial(jobs, cache_dir=run.cache, progress=settings.progress)
        return
    with connect(
        scheduler=settings.dask_scheduler,
        workers=settings.workers,
        gpu_per_cell=settings.gpu_per_cell,
    ) as client:
        yield from run_dask(
            jobs,
            client,
            cache_dir=run.cache,
            gpu_per_cell=settings.gpu_per_cell,
            progress=settings.progress,
        )


def report_from_cells(
    staging: Path,
    output: Path,
    settings: LeaderboardSettings,
    *,
    verify: bool = False,
) -> LeaderboardResult:
    """Score the plan and cells written in ``staging`` and write the reports beside them.

    The statistics follow the plan's settings (its
    :class:`~sts_extras.leaderboard.settings.RunSettings` record); ``settings``
    gives the rest (progress bars, figures and their formats). ``output`` is the folder whose
    figures may be kept. ``verify`` checks the files against the folder's manifest first
    (:func:`~sts_extras.leaderboard.run.cells.read_cells`).
    """
    found = read_cells(staging, verify=verify)
    plan = found.plan
    units, model_info, score_keys = task_scores(plan, found.tasks, found.cells)
    record = plan.settings
    result = score_leaderboard(
        units,
        list(plan.models),
        baseline=plan.baseline,
        settings=record,
        progress=settings.progress,
    )
    write_reports(
        result,
        staging,
        model_info=model_info,
        score_keys=score_keys,
        versions=_versions(),
        run_settings=record.model_dump(mode="json"),
        figures=settings.figures,
        figure_formats=settings.figure_formats,
        reuse_figures_from=output,
    )
    return result


def _versions() -> dict[str, str]:
    from importlib import metadata

    versions = {}
    for package in ("sts-extras", "mteb", "sentence-transformers", "numpy", "scipy"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return versions
