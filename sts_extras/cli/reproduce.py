"""Options of ``sts-extras reproduce``.

Argument definitions only: building them imports nothing beyond argparse and
:mod:`sts_extras.cli.choices`, so ``--help`` is fast. The command is
:func:`sts_extras.cli.reproduce_run.run`, imported when it starts.
"""

from __future__ import annotations

import argparse

from sts_extras.cli import choices

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sts-extras reproduce``."""
    parser.add_argument(
        "paper",
        metavar="PAPER",
        nargs="?",
        default="all",
        choices=(*choices.PAPER_NAMES, "all"),
        help=f"one of: {', '.join(choices.PAPER_NAMES)}, all (default: all); the seed paper "
        "whose published numbers are recomputed and printed beside ours",
    )
    parser.add_argument(
        "--output",
        metavar="DIR",
        default=None,
        help="also write reproduce.md and reproduce.json into DIR (made if missing)",
    )
    parser.add_argument(
        "--source",
        metavar="NAME=PATH",
        action="append",
        default=None,
        help="run the printed commands that use NAME (a gensim-downloader name, Hub id, vector "
        "file name or placeholder they print) with the local file or folder PATH in its place, "
        "and fill their rows (repeatable)",
    )
    parser.add_argument(
        "--online",
        action="store_true",
        help="also run the printed commands of the rows that need the network, as printed "
        "(they download); without --online or --source nothing is run",
    )
    parser.add_argument(
        "--no-progress", dest="progress", action="store_false", help="hide progress bars"
    )


def run(args: argparse.Namespace) -> int:
    """Run ``sts-extras reproduce`` (:func:`sts_extras.cli.reproduce_run.run`)."""
    from sts_extras.cli import reproduce_run as command

    return command.run(args)
