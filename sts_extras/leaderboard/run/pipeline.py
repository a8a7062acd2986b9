"""The Python entry points of the leaderboard: check the input, evaluate the cells, score, report.

:func:`run_leaderboard` strings the parts together: :mod:`~sts_extras.leaderboard.run.resolve`
(checks every name before any work), :mod:`~sts_extras.leaderboard.run.distributed` (runs each model
× task cell here or on a Dask cluster, :mod:`~sts_extras.leaderboard.run.evaluation`),
:mod:`~sts_extras.leaderboard.run.cells` (the cells on disk, read back as scores),
:mod:`~sts_extras.leaderboard.reports.scoring` (the statistics) and
:mod:`~sts_extras.leaderboard.reports.writers` (the reports). :func:`run_shard` evaluates one shard
of the cells and writes no report; ``sts-extras leaderboard collect``
(:mod:`~sts_extras.leaderboard.run.collect`) builds it later from the cells of every shard, by the
same :func:`report_from_cells`.
Heavy libraries (MTEB, torch, matplotlib, dask) are imported when a run starts.

One run, one report set: everything is written to a staging folder inside the output and swapped
in at the end (:mod:`~sts_extras.leaderboard.run.report_set`).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sts_extras._validation import check_choice, check_count, check_positive_int
from sts_extras.errors import UserInputError
from sts_extras.integrity import write_manifest
from sts_extras.io.paths import check_distinct_file_names, check_file_name
from sts_extras.leaderboard.reports.scoring import LeaderboardResult, score_leaderboard
from sts_extras.leaderboard.reports.writers import (
    DEFAULT_FIGURE_FORMATS,
    check_figure_formats,
    write_reports,
)
from sts_extras.leaderboard.run import resolve
from sts_extras.leaderboard.run.cells import (
    PLAN_FILE,
    RUN_SETTINGS,
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
from sts_extras.leaderboard.run.evaluation import CellOutcome, loaded_task_key, task_units
from sts_extras.leaderboard.run.records import CellIdentity
from sts_extras.leaderboard.run.report_set import (
    commit,
    output_errors,
    recover_output,
    staging_folder,
)
from sts_extras.leaderboard.run.resolve import ModelEntry
from sts_extras.limits import MAX_BINS, max_local_workers
from sts_extras.optional import check_installed
from sts_extras.progress import library_bars
from sts_extras.stats.model_comparison import check_comparison_size

__all__ = [
    "DEFAULT_OUTPUT",
    "ShardSummary",
    "check_statistics_options",
    "report_from_cells",
    "run_leaderboard",
    "run_shard",
]

#: Where the reports go unless ``output`` says otherwise.
DEFAULT_OUTPUT = "leaderboard"


def run_leaderboard(
    *,
    models: Sequence[Any] | None = None,
    vectors: Sequence[str] | None = None,
    tasks: Sequence[Any] | None = None,
    baseline: str | None = None,
    output: str | os.PathLike = DEFAULT_OUTPUT,
    seed: int = 0,
    n_resamples: int = 10000,
    bins: int = 3,
    sif: bool = False,
    round_scores: bool = False,
    test: str = "meng1992",
    adjust: str = "holm",
    figures: bool = True,
    figure_formats: str | Sequence[str] | None = None,
    score_range: tuple[float, float] | None = None,
    progress: bool = True,
    cache_dir: str | os.PathLike | None = None,
    trust_remote_code: bool = False,
    trust_pickle: bool = False,
    workers: int | None = None,
    dask_scheduler: str | None = None,
    gpu_per_cell: bool = False,
) -> LeaderboardResult:
    """Run models × tasks through ``mteb.evaluate`` and write the leaderboard to ``output``.

    Parameters
    ----------
    models : sequence of (str or MTEB model), optional
        Names in MTEB's model registry (loaded by ``mteb.get_model``, with MTEB's prompts, loader
        arguments and revision; sts-extras' own ``"sts-extras/DynaMax-Jaccard"`` and friends
        too), sentence-transformers model names or directories (``"all-MiniLM-L6-v2"`` is the
        packaged offline copy), or ready MTEB encoder objects. ``"NAME_OR_PATH=DISPLAY_NAME"``
        names a model in the reports (display names must be unique).
    vectors : sequence of str, optional
        Word-vector files, model2vec directories, gensim-downloader names, or
        ``"distilled[:MODEL]"`` (static vectors distilled from a sentence-transformers model,
        default all-MiniLM-L6-v2). Each source adds avg-cos, MaxPool-Jaccard and DynaMax-Jaccard.
        With neither ``models`` nor ``vectors``: all-MiniLM-L6-v2 plus the three static models
        over vectors distilled from it.
    tasks : sequence of (str or AbsTaskSTS), optional
        ``"DSCS"``, ``"STSS131"`` (the default: both), any MTEB STS task name, or your own
        ``mteb`` ``AbsTaskSTS`` object.
    baseline : str, optional
        Model every other one is compared with (a display name or a unique part of it). Default:
        the avg-cos model of the first vector source, else the first model.
    output : path, default "leaderboard"
        Directory for the reports (created if needed).
    seed : int, default 0
        Seed of the bootstrap.
    n_resamples : int, default 10000
        Bootstrap resamples per task (one resampling shared by its models).
    bins : int, default 3
        Equal-width bins of the gold scale for the scaled Pearson.
    sif : bool, default False
        SIF-weight the words of the static-vector models.
    round_scores : bool, default False
        Round system scores to 3 decimals before every statistic (STSS-131 guidance).
    test : str, default "meng1992"
        Test of two dependent correlations (one of
        :data:`~sts_extras.stats.dependent.DEPENDENT_METHODS`).
    adjust : str, default "holm"
        p-value adjustment within a task (one of :data:`~sts_extras.stats.multiple.ADJUST_METHODS`).
    figures : bool, default True
        Write the figures (kept as they are when what they show did not change).
    figure_formats : str or sequence of str, optional
        Figure file formats, some of ``"pdf"``, ``"png"``, ``"svg"`` (a comma-separated string
        or a sequence; default
        :data:`~sts_extras.leaderboard.reports.writers.DEFAULT_FIGURE_FORMATS`).
    score_range : (float, float), optional
        The gold-score range of tasks given as CSV files (default: read from the file).
    progress : bool, default True
        Show progress bars.
    cache_dir : path, optional
        Cache of encodings, distilled vectors and earlier evaluations (default
        ``$STS_EXTRAS_CACHE`` or ``~/.cache/sts_extras``).
    trust_remote_code : bool, default False
        Let models run code from their repositories (passed to sentence-transformers; needed by
        the registry models MTEB loads with ``trust_remote_code=True``). Recorded per model in
        ``leaderboard.json``.
    trust_pickle : bool, default False
        Read vector files in gensim's pickle-based ``.kv``/``.model`` format, which runs any code
        stored in them (CLI: ``--trust-pickle``); refused without it.
    workers : int, optional
        Run the cells on a ``dask.distributed`` ``LocalCluster`` of this many worker processes
        (each builds its own models). Needs the ``distributed`` extra.
    dask_scheduler : str, optional
        Run the cells on the running ``dask.distributed`` scheduler at this address (e.g.
        ``"tcp://10.0.0.5:8786"``); its workers need sts-extras and the models' files.
    gpu_per_cell : bool, default False
        With Dask: each cell asks for the worker resource ``GPU=1`` (start the workers with
        ``--resources GPU=1``).

    Returns
    -------
    LeaderboardResult

    Raises
    ------
    UserInputError
        Before any model runs: unknown task or model name (with close matches), a vector file
        that does not exist or cannot be parsed, an output directory that cannot be written, an
        unknown baseline or an out-of-range option. A model that fails on a task does not raise:
        the failure is reported in the table. Offline (``HF_HUB_OFFLINE``), a registry model
        whose files are not in the local cache; without ``trust_remote_code``, a registry model
        that needs it. After the run but before its set is swapped in (the previous set
        stays): a folder of the output directory in the place of a report file.

    Every model is ranked by its own similarity (MTEB's ``similarity_scores``) on every task;
    ``leaderboard.json`` says per row which prediction key was read (``"score_key"``), and the
    Markdown says which models fell back to the cosine of their embeddings, if any did.

    The output directory holds one complete report set at any time, this run's or the previous
    one (see the module docstring); a user's own files in it are left alone. A whole run replaces
    the cells of an earlier run or of shards in ``output``; a file that cannot be written (a full
    disk) is a :class:`~sts_extras.leaderboard.run.report_set.OutputWriteError` naming it, and the
    set already there is kept.
    """
    # the libraries' own bars (datasets, transformers, model2vec) follow `progress` too
    with library_bars(progress):
        run = _prepare(
            models=models,
            vectors=vectors,
            tasks=tasks,
            baseline=baseline,
            output=output,
            seed=seed,
            n_resamples=n_resamples,
            bins=bins,
            sif=sif,
            round_scores=round_scores,
            test=test,
            adjust=adjust,
            figures=figures,
            score_range=score_range,
            cache_dir=cache_dir,
            trust_remote_code=trust_remote_code,
            trust_pickle=trust_pickle,
            workers=workers,
            dask_scheduler=dask_scheduler,
            gpu_per_cell=gpu_per_cell,
        )
        formats = check_figure_formats(figure_formats)
        recover_output(run.output)
        with output_errors(run.output), staging_folder(run.output) as staging:
            evaluate_cells(run, run.plan.cells(), staging, progress=progress, shards=("1/1",))
            result = report_from_cells(
                staging,
                run.output,
                progress=progress,
                figures=figures,
                figure_formats=formats,
            )
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


def run_shard(shard: str, **options: Any) -> ShardSummary:
    """Evaluate shard ``"K/N"`` of the cells of a leaderboard run into ``output``; no report.

    The cells (model-major, as :func:`run_leaderboard` would run them) are cut into N contiguous
    blocks and block K is evaluated (:func:`~sts_extras.leaderboard.run.cells.shard_cells`), so the
    N jobs of an array cover every cell once. Each writes MTEB's files, the cell records, the
    plan and the gold scores to its ``output``; ``sts-extras leaderboard collect`` then builds
    the report of the whole plan from all of them.

    Parameters
    ----------
    shard : str
        ``"K/N"``, 1 <= K <= N.
    **options
        The keyword arguments of :func:`run_leaderboard` (``figures`` and ``figure_formats``
        are checked but unused: the report comes from ``collect``). Every shard of a plan
        must be given the same ones.

    Returns
    -------
    ShardSummary

    Raises
    ------
    UserInputError
        As :func:`run_leaderboard`; and, before any model runs, an ``output`` that holds the
        cells of another plan (other models, tasks, baseline or run settings), of other models
        under the same names, or cells that cannot be read.

    Notes
    -----
    Shards of one plan may share an ``output``: a shard written where another shard (or a whole
    run) of the same plan left its cells adds to them (its own cells replace theirs), and the
    plan records both shards; ``collect`` of that one folder then reports them all.
    """
    index, count = parse_shard(shard, "`shard`")
    progress = options.pop("progress", True)
    check_figure_formats(options.pop("figure_formats", None))
    with library_bars(progress):
        run = _prepare(**options)
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
                progress=progress,
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
            (f"--{name.replace('_', '-')}", mine.settings[name], theirs.settings[name])
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
    """A checked run: where it writes, its tasks, models and plan, and how cells are run."""

    output: Path
    cache: Path
    tasks: dict[str, Any]
    task_keys: dict[str, str]
    entries: dict[str, ModelEntry]
    plan: Plan
    workers: int | None
    dask_scheduler: str | None
    gpu_per_cell: bool
    units: dict[str, Any]

    def identity(self, model: str, task: str) -> CellIdentity:
        """What the cell of ``model`` on ``task`` depends on (recorded with it)."""
        return cell_identity(
            self.entries[model].identity,
            self.task_keys[task],
            self.units[task],
            self.plan.run_settings(),
        )


def _prepare(
    *,
    models: Sequence[Any] | None = None,
    vectors: Sequence[str] | None = None,
    tasks: Sequence[Any] | None = None,
    baseline: str | None = None,
    output: str | os.PathLike = DEFAULT_OUTPUT,
    seed: int = 0,
    n_resamples: int = 10000,
    bins: int = 3,
    sif: bool = False,
    round_scores: bool = False,
    test: str = "meng1992",
    adjust: str = "holm",
    figures: bool = True,
    score_range: tuple[float, float] | None = None,
    cache_dir: str | os.PathLike | None = None,
    trust_remote_code: bool = False,
    trust_pickle: bool = False,
    workers: int | None = None,
    dask_scheduler: str | None = None,
    gpu_per_cell: bool = False,
) -> _Run:
    """Check every option and name, load the tasks and resolve the models: all before any work."""
    check_statistics_options(
        seed=seed, n_resamples=n_resamples, bins=bins, test=test, adjust=adjust
    )
    _check_cluster(workers, dask_scheduler, gpu_per_cell)
    # a missing extra fails here, with the pip command, before any work
    check_installed("mteb", extra="mteb")
    if figures:
        check_installed("matplotlib", extra="figures")
    if workers is not None or dask_scheduler is not None:
        check_installed("distributed", extra="distributed")
    output_dir = resolve.prepare_output(output)
    cache = Path(cache_dir).expanduser() if cache_dir is not None else resolve.cache_root()
    task_objects = resolve.resolve_tasks(tasks, score_range=score_range)
    entries = resolve.resolve_models(
        models,
        vectors,
        sif=sif,
        cache_dir=cache,
        trust_remote_code=trust_remote_code,
        trust_pickle=trust_pickle,
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
        check_comparison_size(n_resamples, task_unit.gold.size, len(entries), "--n-resamples")
    plan = Plan(
        models=tuple(entry.name for entry in entries),
        tasks=tuple(names),
        baseline=baseline_name,
        settings={
            "seed": seed,
            "n_resamples": n_resamples,
            "bins": bins,
            "test": test,
            "adjust": adjust,
            "round_scores": round_scores,
            "score_range": None if score_range is None else tuple(map(float, score_range)),
        },
        identities={entry.name: entry.identity for entry in entries},
    )
    return _Run(
        output=output_dir,
        cache=cache,
        tasks=dict(zip(names, task_objects, strict=True)),
        task_keys={task.metadata.name: loaded_task_key(task) for task in task_objects},
        entries={entry.name: entry for entry in entries},
        plan=plan,
        workers=workers,
        dask_scheduler=dask_scheduler,
        gpu_per_cell=gpu_per_cell,
        units=units,
    )


def _check_cluster(workers: Any, dask_scheduler: Any, gpu_per_cell: bool) -> None:
    if workers is not None:
        check_count(
            workers,
            "workers",
            max_local_workers(),
            why="the CPUs of this machine; for more, start workers elsewhere and give "
            "`dask_scheduler`",
        )
    if workers is not None and dask_scheduler is not None:
        raise UserInputError(
            "Give `workers` (a local Dask cluster) or `dask_scheduler` (a running one), not both."
        )
    if dask_scheduler is not None and (not isinstance(dask_scheduler, str) or not dask_scheduler):
        raise UserInputError(
            f"`dask_scheduler` must be a scheduler address such as 'tcp://host:8786', "
            f"got {dask_scheduler!r}."
        )
    if gpu_per_cell and workers is None and dask_scheduler is None:
        raise UserInputError("`gpu_per_cell` needs Dask: give `workers` or `dask_scheduler`.")


def evaluate_cells(
    run: _Run,
    cells: Sequence[tuple[str, str]],
    staging: Path,
    *,
    progress: bool = True,
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
        staging, itertools.chain(kept, _run_jobs(run, jobs, progress)), identities, order
    )
    chosen = set(cells)
    return [outcome for outcome in written if (outcome.model, outcome.task) in chosen]


def _run_jobs(run: _Run, jobs: Sequence[CellJob], progress: bool) -> Iterator[CellOutcome]:
    if run.workers is None and run.dask_scheduler is None:
        yield from run_serial(jobs, cache_dir=run.cache, progress=progress)
        return
    with connect(
        scheduler=run.dask_scheduler, workers=run.workers, gpu_per_cell=run.gpu_per_cell
    ) as client:
        yield from run_dask(
            jobs, client, cache_dir=run.cache, gpu_per_cell=run.gpu_per_cell, progress=progress
        )


def report_from_cells(
    staging: Path,
    output: Path,
    *,
    progress: bool = True,
    figures: bool = True,
    figure_formats: Sequence[str] = DEFAULT_FIGURE_FORMATS,
    verify: bool = False,
) -> LeaderboardResult:
    """Score the plan and cells written in ``staging`` and write the reports beside them.

    ``output`` is the folder whose figures may be kept. ``verify`` checks the files against
    the folder's manifest first (:func:`~sts_extras.leaderboard.run.cells.read_cells`).
    """
    found = read_cells(staging, verify=verify)
    plan = found.plan
    units, model_info, score_keys = task_scores(plan, found.tasks, found.cells)
    settings = plan.settings
    result = score_leaderboard(
        units,
        list(plan.models),
        baseline=plan.baseline,
        bins=settings["bins"],
        n_resamples=settings["n_resamples"],
        seed=settings["seed"],
        round_scores=settings["round_scores"],
        test=settings["test"],
        adjust=settings["adjust"],
        progress=progress,
    )
    write_reports(
        result,
        staging,
        model_info=model_info,
        score_keys=score_keys,
        versions=_versions(),
        figures=figures,
        figure_formats=figure_formats,
        reuse_figures_from=output,
    )
    return result


def check_statistics_options(
    *, seed: Any, n_resamples: Any, bins: Any, test: Any, adjust: Any, round_scores: Any = False
) -> None:
    """Check the settings of the statistics: ``UserInputError`` naming the first bad one."""
    from sts_extras.stats.dependent import DEPENDENT_METHODS
    from sts_extras.stats.multiple import ADJUST_METHODS

    resolve.check_n_resamples(n_resamples)
    check_count(bins, "bins", MAX_BINS, why="more bins than items are empty")
    check_positive_int(seed, "seed", minimum=0)  # an int: every comparison reuses it
    check_choice(test, "test", DEPENDENT_METHODS)
    check_choice(adjust, "adjust", ADJUST_METHODS)
    if not isinstance(round_scores, bool):
        raise UserInputError(f"`round_scores` must be True or False, got {round_scores!r}.")


def _versions() -> dict[str, str]:
    from importlib import metadata

    versions = {}
    for package in ("sts-extras", "mteb", "sentence-transformers", "numpy", "scipy"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return versions
