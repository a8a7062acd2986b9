"""Options of ``sts-extras leaderboard`` and ``sts-extras leaderboard collect``.

Argument definitions only: building them imports nothing beyond argparse and
:mod:`sts_extras.cli.choices`, so ``--help`` is fast. The runs are
:func:`sts_extras.cli.leaderboard_run.run` and :func:`~sts_extras.cli.leaderboard_run.run_collect`,
imported when a command starts.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from sts_extras.cli import choices, option_types

__all__ = ["add_arguments", "run", "run_collect"]


def _one_of(names: Sequence[str]) -> str:
    return f"{', '.join(names[:-1])} or {names[-1]}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sts-extras leaderboard`` and its ``collect``."""
    parser.add_argument(
        "--model",
        action="append",
        metavar="NAME_OR_PATH[=NAME]",
        help="a name in MTEB's model registry (loaded by mteb.get_model with MTEB's prompts, "
        "loader arguments and revision, e.g. sts-extras/DynaMax-Jaccard), or a "
        "sentence-transformers model name or directory; '=NAME' sets its display name "
        "(repeatable); 'all-MiniLM-L6-v2' is the packaged offline copy",
    )
    parser.add_argument(
        "--trust-remote-code",
        action="store_true",
        help="let models run code from their repositories (sentence-transformers' "
        "trust_remote_code; required by registry models MTEB loads with it)",
    )
    parser.add_argument(
        "--vectors",
        action="append",
        metavar="PATH_OR_NAME",
        help="word vectors (word2vec/GloVe/fastText file, model2vec directory, "
        "'glove-6b-50d' (Stanford's GloVe 6B 50-d, offline: pip install "
        "'sts-extras[glove]'), gensim-downloader name, or 'distilled[:MODEL]' (distilled from "
        "all-MiniLM-L6-v2 or MODEL)); each adds avg-cos, MaxPool-Jaccard and DynaMax-Jaccard "
        "(repeatable; with neither --model nor --vectors: all-MiniLM-L6-v2 and the three over "
        "glove-6b-50d)",
    )
    parser.add_argument(
        "--trust-pickle",
        action="store_true",
        help="read --vectors files in gensim's native .kv/.model format: they are Python "
        "pickles, and reading one runs any code stored in it (only for files you trust; the "
        "other formats hold only data)",
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
        default=choices.DEFAULT_OUTPUT,
        metavar="DIR",
        help="directory for the reports (default: %(default)s)",
    )
    # the defaults of the statistics are LeaderboardSettings's (an option left out is not set)
    parser.add_argument(
        "--seed", type=option_types.whole_number, help="bootstrap seed (default: 0)"
    )
    parser.add_argument(
        "--n-resamples",
        type=option_types.whole_number,
        metavar="N",
        help="bootstrap resamples per task, shared by its models (at least "
        f"{choices.MIN_RESAMPLES}; "
        "default: 10000)",
    )
    _add_method_options(parser, default_shown=True)
    parser.add_argument(
        "--adjust",
        metavar="METHOD",
        help="adjustment over all pairs of models of a task: "
        f"{_one_of(choices.ADJUST_METHODS)} (default: holm); a pair is significant (†) when "
        "its interval, shown at the per-pair level that matches the adjustment, excludes 0",
    )
    parser.add_argument(
        "--bins",
        type=option_types.whole_number,
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
    _add_figure_options(parser)
    parser.add_argument(
        "--score-range",
        nargs=2,
        type=option_types.number,
        metavar=("MIN", "MAX"),
        help="gold-score range of --task CSV files (default: read from the file)",
    )
    parser.add_argument(
        "--duplicate-pairs",
        choices=("warn", "refuse"),
        help="a sentence pair given twice in a --task file: warn, naming both rows, and keep "
        "both as MTEB does (default), or refuse the file",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")
    beyond = parser.add_argument_group(
        "beyond one machine",
        "run the cells (model x task) as shards or on a Dask cluster; see also "
        "'sts-extras leaderboard collect --help'",
    )
    beyond.add_argument(
        "--shard",
        metavar="K/N",
        help="evaluate only shard K of N of the cells (contiguous blocks, model-major; e.g. "
        "--shard $SLURM_ARRAY_TASK_ID/$N) and write no report: build it with "
        "'sts-extras leaderboard collect' from every shard's --output",
    )
    beyond.add_argument(
        "--workers",
        type=option_types.whole_number,
        metavar="N",
        help="run the cells on a local Dask cluster of N worker processes (needs "
        "sts-extras[distributed])",
    )
    beyond.add_argument(
        "--dask-scheduler",
        metavar="ADDRESS",
        help="run the cells on the running dask.distributed scheduler at ADDRESS "
        "(e.g. tcp://10.0.0.5:8786)",
    )
    beyond.add_argument(
        "--gpu-per-cell",
        action="store_true",
        help="with Dask: each cell asks for the worker resource GPU=1 (start the workers with "
        "--resources GPU=1)",
    )
    commands = parser.add_subparsers(dest="leaderboard_command", metavar="collect")
    collect = commands.add_parser(
        "collect",
        help="build the report from cells evaluated elsewhere (shards, plain MTEB runs)",
        description="Build the leaderboard report from the cells in DIR ... without loading any "
        "model: the --output folders of 'sts-extras leaderboard --shard K/N' jobs (their plans "
        "and settings must agree, and every cell must be found), or folders written by plain "
        "mteb.evaluate(..., prediction_folder=DIR) runs (with MTEB's result cache, if you "
        "have it, as another DIR).",
    )
    _add_collect_arguments(collect)
    collect.set_defaults(_run=run_collect)


def _add_collect_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directories", nargs="+", metavar="DIR", help="folders to collect")
    parser.add_argument(
        "--output",
        default=choices.DEFAULT_OUTPUT,
        metavar="DIR",
        help="directory for the report (default: %(default)s)",
    )
    parser.add_argument(
        "--baseline",
        metavar="MODEL",
        help="plain MTEB folders: model the others are compared with (default: the first found)",
    )
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="report cells no folder holds as not evaluated instead of refusing",
    )
    settings = parser.add_argument_group(
        "settings of the statistics",
        "for plain MTEB folders (defaults as for a run); sts-extras outputs carry their own, "
        "and a different value is refused",
    )
    settings.add_argument(
        "--seed", type=option_types.whole_number, help="bootstrap seed (default: 0)"
    )
    settings.add_argument(
        "--n-resamples",
        type=option_types.whole_number,
        metavar="N",
        help="bootstrap resamples (default: 10000)",
    )
    _add_method_options(settings, default_shown=False)
    settings.add_argument(
        "--adjust", metavar="METHOD", help="adjustment over all pairs of models of a task"
    )
    settings.add_argument(
        "--bins", type=option_types.whole_number, metavar="K", help="bins of the scaled Pearson"
    )
    settings.add_argument(
        "--round-scores",
        action="store_true",
        default=None,
        help="round system scores to 3 decimals before every statistic",
    )
    _add_figure_options(parser)
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")


def run(args: argparse.Namespace) -> int:
    """Run ``sts-extras leaderboard`` (:func:`sts_extras.cli.leaderboard_run.run`)."""
    from sts_extras.cli import leaderboard_run as cli

    return cli.run(args)


def run_collect(args: argparse.Namespace) -> int:
    """Run ``sts-extras leaderboard collect``
    (:func:`sts_extras.cli.leaderboard_run.run_collect`)."""
    from sts_extras.cli import leaderboard_run as cli

    return cli.run_collect(args)


def _add_method_options(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup, *, default_shown: bool
) -> None:
    """``--method``: the procedure of the pair decisions."""
    parser.add_argument(
        "--method",
        metavar="METHOD",
        help="procedure of the pair decisions of every task: auto (the method the calibration "
        "suite chose for the task's n, docs/calibration.md; the report names it with its "
        "measured type-I error and coverage), an interval of r1 - r2 "
        f"({', '.join(choices.INTERVAL_METHODS)}) or a "
        f"test of two dependent correlations with Zou's interval "
        f"({_one_of(choices.DEPENDENT_METHODS)})" + (" (default: auto)" if default_shown else ""),
    )


def _add_figure_options(parser: argparse.ArgumentParser) -> None:
    """``--no-figures`` and ``--figure-format``, the same for a run and for ``collect``."""
    parser.add_argument("--no-figures", action="store_true", help="skip the figures")
    parser.add_argument(
        "--figure-format",
        metavar="FORMATS",
        help=f"comma-separated figure formats: {', '.join(choices.FIGURE_FORMATS)} "
        "(default: pdf,png)",
    )
