"""``sts-extras leaderboard``: the adapter from the command-line options to :func:`run_leaderboard`.

The options themselves are defined in :mod:`sts_extras.cli.leaderboard` (re-exported here as
:func:`add_arguments`), which imports nothing heavy, so ``--help`` does not load this module.
Importing this module loads neither MTEB, torch, sentence-transformers nor the datasets library;
they are imported when a run starts.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from sts_extras.cli.leaderboard import add_arguments
from sts_extras.leaderboard.reports.scoring import LeaderboardResult
from sts_extras.leaderboard.reports.writers import check_figure_formats
from sts_extras.leaderboard.run.cells import parse_shard
from sts_extras.leaderboard.run.collect import collect_leaderboard
from sts_extras.leaderboard.run.pipeline import run_leaderboard, run_shard
from sts_extras.leaderboard.run.resolve import check_n_resamples
from sts_extras.progress import library_bars

__all__ = ["add_arguments", "run", "run_collect"]


def run(args: argparse.Namespace) -> int:
    """CLI adapter: run the leaderboard (or one shard of it) and print its Markdown table.

    Exit status 0; 1 when some model failed on some task (the reports are still written); user
    errors raise :class:`~sts_extras.errors.UserInputError` (the dispatcher prints one line and
    exits with 2).
    """
    check_n_resamples(args.n_resamples, "--n-resamples")  # before the output is touched
    check_figure_formats(args.figure_format, "--figure-format")
    if args.shard is not None:
        parse_shard(args.shard)
    options = {
        "models": args.model,
        "vectors": args.vectors,
        "tasks": args.task,
        "baseline": args.baseline,
        "output": args.output,
        "seed": args.seed,
        "n_resamples": args.n_resamples,
        "bins": args.bins,
        "sif": args.sif,
        "round_scores": args.round_scores,
        "test": args.test,
        "adjust": args.adjust,
        "figures": not args.no_figures,
        "figure_formats": args.figure_format,
        "score_range": None if args.score_range is None else tuple(args.score_range),
        "progress": not args.no_progress,
        "trust_remote_code": args.trust_remote_code,
        "trust_pickle": args.trust_pickle,
        "workers": args.workers,
        "dask_scheduler": args.dask_scheduler,
        "gpu_per_cell": args.gpu_per_cell,
    }
    output = Path(args.output).expanduser()
    if args.shard is not None:
        summary = run_shard(args.shard, **options)  # its bars follow --no-progress
        print(
            f"Shard {summary.shard}: {len(summary.cells)} of {summary.total} cells written to "
            f"{output.resolve()}; build the report with: sts-extras leaderboard collect "
            "<every shard's --output> --output DIR",
            file=sys.stderr,
        )
        return _failed_status(summary.failed)
    result = run_leaderboard(**options)  # the libraries' bars too follow --no-progress
    return _report_status(result, output)


def run_collect(args: argparse.Namespace) -> int:
    """CLI adapter of ``sts-extras leaderboard collect``: build the report and print it."""
    check_figure_formats(args.figure_format, "--figure-format")
    if args.n_resamples is not None:
        check_n_resamples(args.n_resamples, "--n-resamples")
    with library_bars(not args.no_progress):
        result = _collect(args)
    return _report_status(result, Path(args.output).expanduser())


def _collect(args: argparse.Namespace) -> LeaderboardResult:
    return collect_leaderboard(
        args.directories,
        output=args.output,
        baseline=args.baseline,
        allow_missing=args.allow_missing,
        figures=not args.no_figures,
        figure_formats=args.figure_format,
        progress=not args.no_progress,
        seed=args.seed,
        n_resamples=args.n_resamples,
        bins=args.bins,
        test=args.test,
        adjust=args.adjust,
        round_scores=args.round_scores,
    )


def _report_status(result: LeaderboardResult, output: Path) -> int:
    # the report as written: it also says which prediction key each model's scores came from
    print((output / "leaderboard.md").read_text(encoding="utf-8"))
    print(f"Reports written to {output.resolve()}", file=sys.stderr)
    return _failed_status([f"{row.model} on {row.task}" for row in result.stats if not row.ok])


def _failed_status(failed: Sequence[str]) -> int:
    if failed:  # the reports are complete, but say so in the exit status
        print(f"{len(failed)} model × task run(s) failed: {'; '.join(failed)}", file=sys.stderr)
        return 1
    return 0
