"""``sts-extras leaderboard``: run models × STS tasks through MTEB and report every statistic.

For each model × task: Pearson r, Spearman ρ, the scaled Pearson over equal-width bins of the
gold scale with the r of each bin (Atoum 2019), and the top-rank-weighted ρ_w and τ_w (Lombardo
et al. 2020); for each model against a baseline: Δr with a BCa bootstrap interval and Meng,
Rosenthal & Rubin's (1992) dependent-correlation z test, Holm-adjusted within each task.
Writes ``leaderboard.md``, ``leaderboard.csv``, ``leaderboard.json`` and PNG figures, plus MTEB's
own result files.

The parts: :mod:`~sts_extras.leaderboard.runner` (checks input, runs ``mteb.evaluate``, reads
the per-pair scores), :mod:`~sts_extras.leaderboard.scoring` (the statistics, numpy only),
:mod:`~sts_extras.leaderboard.report` and :mod:`~sts_extras.leaderboard.figures` (outputs).
This module holds the Python entry point :func:`run_leaderboard` and the CLI adapter.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sts_extras.leaderboard.scoring import (
    ComparisonStats,
    LeaderboardResult,
    ModelTaskStats,
    TaskScores,
    score_leaderboard,
)

__all__ = [
    "ComparisonStats",
    "LeaderboardResult",
    "ModelTaskStats",
    "TaskScores",
    "add_arguments",
    "run",
    "run_leaderboard",
    "score_leaderboard",
]

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
    figures: bool = True,
    progress: bool = True,
    cache_dir: str | os.PathLike | None = None,
) -> LeaderboardResult:
    """Run models × tasks through ``mteb.evaluate`` and write the leaderboard to ``output``.

    Parameters
    ----------
    models : sequence of (str or MTEB model), optional
        Sentence-transformers model names or directories (``"all-MiniLM-L6-v2"`` is the
        packaged offline copy), or ready MTEB encoder objects.
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
        Bootstrap resamples per comparison.
    bins : int, default 3
        Equal-width bins of the gold scale for the scaled Pearson.
    sif : bool, default False
        SIF-weight the words of the static-vector models.
    round_scores : bool, default False
        Round system scores to 3 decimals before every statistic (STSS-131 guidance).
    figures : bool, default True
        Write the PNG figures.
    progress : bool, default True
        Show progress bars.
    cache_dir : path, optional
        Cache of encodings and distilled vectors (default ``$STS_EXTRAS_CACHE`` or
        ``~/.cache/sts_extras``).

    Returns
    -------
    LeaderboardResult

    Raises
    ------
    ValueError
        Before any model runs: unknown task or model name (with close matches), a vector file
        that does not exist or cannot be parsed, an output directory that cannot be written, an
        unknown baseline or an out-of-range option. A model that fails on a task does not raise:
        the failure is reported in the table.
    """
    from sts_extras._validation import check_positive_int
    from sts_extras.leaderboard import report, runner

    check_positive_int(n_resamples, "n_resamples")
    check_positive_int(bins, "bins")
    check_positive_int(seed, "seed", minimum=0)  # an int: every comparison reuses it
    output_dir = runner.prepare_output(output)
    cache = Path(cache_dir).expanduser() if cache_dir is not None else runner.cache_root()
    task_objects = runner.resolve_tasks(tasks)
    entries = runner.resolve_models(models, vectors, sif=sif, cache_dir=cache)
    baseline_name = runner.resolve_baseline(baseline, entries)

    units, model_info = runner.evaluate_models(entries, task_objects, output_dir, progress=progress)
    result = score_leaderboard(
        units,
        [entry.name for entry in entries],
        baseline=baseline_name,
        bins=bins,
        n_resamples=n_resamples,
        seed=seed,
        round_scores=round_scores,
        progress=progress,
    )
    report.write_markdown(result, output_dir / "leaderboard.md")
    report.write_csv(result, output_dir / "leaderboard.csv")
    report.write_json(
        result, output_dir / "leaderboard.json", models=model_info, extra={"versions": _versions()}
    )
    if figures:
        from sts_extras.leaderboard.figures import write_figures

        write_figures(result, output_dir)
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sts-extras leaderboard``."""
    parser.add_argument(
        "--model",
        action="append",
        metavar="NAME_OR_PATH",
        help="sentence-transformers model name or directory (repeatable); "
        "'all-MiniLM-L6-v2' is the packaged offline copy",
    )
    parser.add_argument(
        "--vectors",
        action="append",
        metavar="PATH_OR_NAME",
        help="word vectors (word2vec/GloVe/fastText file, model2vec directory, "
        "gensim-downloader name, or 'distilled[:MODEL]'); each adds avg-cos, "
        "MaxPool-Jaccard and DynaMax-Jaccard (repeatable)",
    )
    parser.add_argument(
        "--task",
        action="append",
        metavar="NAME",
        help="DSCS, STSS131 or any MTEB STS task (repeatable; default: DSCS and STSS131)",
    )
    parser.add_argument(
        "--baseline",
        metavar="MODEL",
        help="model the others are compared with (default: avg-cos of the first "
        "--vectors source, else the first --model)",
    )
    parser.add_argument(
        "--output",
        default=DEFAULT_OUTPUT,
        metavar="DIR",
        help="directory for the reports (default: %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    parser.add_argument(
        "--n-resamples",
        type=int,
        default=10000,
        metavar="N",
        help="bootstrap resamples per comparison (default: 10000)",
    )
    parser.add_argument(
        "--bins",
        type=int,
        default=3,
        metavar="K",
        help="equal-width bins of the gold scale for the scaled Pearson (default: 3)",
    )
    parser.add_argument(
        "--sif", action="store_true", help="SIF-weight the words of the static-vector models"
    )
    parser.add_argument(
        "--round-scores",
        action="store_true",
        help="round system scores to 3 decimals before every statistic (STSS-131 guidance)",
    )
    parser.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")


def run(args: argparse.Namespace) -> int:
    """CLI adapter: run the leaderboard and print its Markdown table.

    Exit status 0; 1 when some model failed on some task (the reports are still written); user
    errors raise ``ValueError`` (the dispatcher prints one line and exits with 2).
    """
    from sts_extras.leaderboard.report import to_markdown

    result = run_leaderboard(
        models=args.model,
        vectors=args.vectors,
        tasks=args.task,
        baseline=args.baseline,
        output=args.output,
        seed=args.seed,
        n_resamples=args.n_resamples,
        bins=args.bins,
        sif=args.sif,
        round_scores=args.round_scores,
        figures=not args.no_figures,
        progress=not args.no_progress,
    )
    print(to_markdown(result))
    print(f"Reports written to {Path(args.output).resolve()}", file=sys.stderr)
    failed = [f"{row.model} on {row.task}" for row in result.stats if not row.ok]
    if failed:  # the reports are complete, but say so in the exit status
        print(f"{len(failed)} model × task run(s) failed: {'; '.join(failed)}", file=sys.stderr)
        return 1
    return 0
