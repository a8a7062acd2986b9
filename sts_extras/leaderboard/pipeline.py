"""The Python entry point of the leaderboard: check the input, evaluate, score, write reports.

:func:`run_leaderboard` strings the parts together: :mod:`~sts_extras.leaderboard.resolve`
(checks every name before any work), :mod:`~sts_extras.leaderboard.evaluation`
(``mteb.evaluate`` and the per-pair scores), :mod:`~sts_extras.leaderboard.scoring` (the
statistics), :mod:`~sts_extras.leaderboard.report` and :mod:`~sts_extras.leaderboard.figures`
(the outputs).
Heavy libraries (MTEB, torch, matplotlib) are imported when a run starts.

One run, one report set: everything is written to a staging folder inside the output and swapped
in at the end (:mod:`~sts_extras.leaderboard.report_set`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sts_extras._validation import check_choice, check_positive_int
from sts_extras.leaderboard import resolve
from sts_extras.leaderboard.evaluation import evaluate_models
from sts_extras.leaderboard.report_set import commit, recover_output, staging_folder
from sts_extras.leaderboard.scoring import LeaderboardResult, score_leaderboard
from sts_extras.leaderboard.writers import check_figure_formats, write_reports
from sts_extras.optional import check_installed

__all__ = ["DEFAULT_OUTPUT", "run_leaderboard"]

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
        or a sequence; default :data:`~sts_extras.leaderboard.writers.DEFAULT_FIGURE_FORMATS`).
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
    one (see the module docstring); a user's own files in it are left alone.
    """
    resolve.check_n_resamples(n_resamples)
    check_positive_int(bins, "bins")
    check_positive_int(seed, "seed", minimum=0)  # an int: every comparison reuses it
    _check_methods(test, adjust)
    formats = check_figure_formats(figure_formats)
    # a missing extra fails here, with the pip command, before any work
    check_installed("mteb", extra="mteb")
    if figures:
        check_installed("matplotlib", extra="figures")
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

    recover_output(output_dir)
    with staging_folder(output_dir) as staging:
        units, model_info, score_keys = evaluate_models(
            entries, task_objects, staging, progress=progress, cache_dir=cache
        )
        result = score_leaderboard(
            units,
            [entry.name for entry in entries],
            baseline=baseline_name,
            bins=bins,
            n_resamples=n_resamples,
            seed=seed,
            round_scores=round_scores,
            test=test,
            adjust=adjust,
            progress=progress,
        )
        write_reports(
            result,
            staging,
            model_info=model_info,
            score_keys=score_keys,
            versions=_versions(),
            figures=figures,
            figure_formats=formats,
            reuse_figures_from=output_dir,
        )
        commit(staging, output_dir)
    return result


def _check_methods(test: str, adjust: str) -> None:
    """Unknown test or adjustment: fail before any model runs."""
    from sts_extras.stats.dependent import DEPENDENT_METHODS
    from sts_extras.stats.multiple import ADJUST_METHODS

    check_choice(test, "test", DEPENDENT_METHODS)
    check_choice(adjust, "adjust", ADJUST_METHODS)


def _versions() -> dict[str, str]:
    from importlib import metadata

    versions = {}
    for package in ("sts-extras", "mteb", "sentence-transformers", "numpy", "scipy"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return versions
