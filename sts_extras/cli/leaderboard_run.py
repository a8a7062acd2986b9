"""``sts-extras leaderboard``: the adapter from the command-line options to :func:`run_leaderboard`.

The options themselves are defined in :mod:`sts_extras.cli.leaderboard`, which imports nothing
heavy and calls this module only when a run starts, so ``--help`` does not load it (this module
imports nothing from it).
Importing this module loads neither MTEB, torch, sentence-transformers nor the datasets library;
they are imported when a run starts.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sts_extras.errors import UserInputError
from sts_extras.leaderboard.run.cells import parse_shard
from sts_extras.leaderboard.run.collect import collect_leaderboard
from sts_extras.leaderboard.run.pipeline import run_leaderboard, run_shard
from sts_extras.leaderboard.scoring import LeaderboardResult
from sts_extras.leaderboard.settings import LeaderboardSettings
from sts_extras.progress import library_bars

__all__ = ["run", "run_collect", "settings_from_args"]

#: Option destination -> field of :class:`LeaderboardSettings` (``no_*`` flags are inverted).
_FIELDS = {
    "output": "output",
    "seed": "seed",
    "n_resamples": "n_resamples",
    "bins": "bins",
    "method": "method",
    "adjust": "adjust",
    "round_scores": "round_scores",
    "score_range": "score_range",
    "duplicate_pairs": "duplicate_pairs",
    "sif": "sif",
    "no_figures": "figures",
    "figure_format": "figure_formats",
    "no_progress": "progress",
    "trust_remote_code": "trust_remote_code",
    "trust_pickle": "trust_pickle",
    "workers": "workers",
    "dask_scheduler": "dask_scheduler",
    "gpu_per_cell": "gpu_per_cell",
}


def settings_from_args(args: argparse.Namespace) -> LeaderboardSettings:
    """The :class:`~sts_extras.leaderboard.settings.LeaderboardSettings` of the parsed options of
    ``sts-extras leaderboard`` or of its ``collect``.

    Only the options given are set (an option left out keeps the default, and ``collect`` does
    not compare it with the plan); ``--no-figures`` and ``--no-progress`` set ``figures`` and
    ``progress``. The settings check every value when they are made (the one check, before the
    output is touched); an error of a field names the option as typed.

    Raises
    ------
    UserInputError
        A bad value (naming the option).
    """
    if not args.output.strip():  # named as the option (LeaderboardSettings names `output`)
        raise UserInputError(
            "--output is empty; give a directory for the reports (it is created if missing)."
        )
    values: dict[str, Any] = {}
    for option, field in _FIELDS.items():
        if not hasattr(args, option):  # an option of the run only (collect loads no model)
            continue
        value = getattr(args, option)
        if option.startswith("no_"):
            value = not value
        elif option == "score_range" and value is not None:
            value = tuple(value)
        if value is not None:
            values[field] = value
    try:
        return LeaderboardSettings(**values)
    except UserInputError as error:
        raise _named_as_option(error) from None


def _named_as_option(error: UserInputError) -> UserInputError:
    """``error`` of a settings field (its message opens with `` `field` ``), naming the option the
    user typed instead (``--method``, not `` `method` ``); other errors as they are."""
    message = str(error)
    for option, field in _FIELDS.items():
        if not option.startswith("no_") and message.startswith(f"`{field}`"):
            return type(error)(f"--{option.replace('_', '-')}{message[len(field) + 2 :]}")
    return error


def run(args: argparse.Namespace) -> int:
    """CLI adapter: run the leaderboard (or one shard of it) and print its Markdown table.

    Exit status 0; 1 when some model failed on some task (the reports are still written); user
    errors raise :class:`~sts_extras.errors.UserInputError` (the dispatcher prints one line and
    exits with 2).
    """
    settings = settings_from_args(args)
    if args.shard is not None:
        parse_shard(args.shard)
    inputs = {
        "models": args.model,
        "vectors": args.vectors,
        "tasks": args.task,
        "baseline": args.baseline,
    }
    output = settings.output.expanduser()
    if args.shard is not None:
        summary = run_shard(args.shard, **inputs, settings=settings)  # bars follow --no-progress
        print(
            f"Shard {summary.shard}: {len(summary.cells)} of {summary.total} cells written to "
            f"{output.resolve()}; build the report with: sts-extras leaderboard collect "
            "<every shard's --output> --output DIR",
            file=sys.stderr,
        )
        return _failed_status(summary.failed)
    result = run_leaderboard(**inputs, settings=settings)  # the libraries' bars follow it too
    return _report_status(result, output)


def run_collect(args: argparse.Namespace) -> int:
    """CLI adapter of ``sts-extras leaderboard collect``: build the report and print it."""
    settings = settings_from_args(args)
    with library_bars(settings.progress):
        result = collect_leaderboard(
            args.directories,
            settings=settings,
            baseline=args.baseline,
            allow_missing=args.allow_missing,
        )
    return _report_status(result, settings.output.expanduser())


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
