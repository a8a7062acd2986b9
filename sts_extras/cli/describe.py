"""Options of ``sts-extras describe``.

Argument definitions only: building them imports nothing beyond argparse and
:mod:`sts_extras.cli.choices`, so ``--help`` is fast. The command is
:func:`sts_extras.cli.describe_run.run`, imported when it starts.
"""

from __future__ import annotations

import argparse

from sts_extras.cli import choices

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sts-extras describe``."""
    parser.add_argument(
        "dataset",
        help=f"one of: {', '.join(choices.DATASET_NAMES)}, or a .csv/.jsonl/.parquet file with "
        "sentence1,sentence2,score",
    )
    parser.add_argument("--config", default=None, help="dataset configuration (default: default)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")


def run(args: argparse.Namespace) -> int:
    """Run ``sts-extras describe`` (:func:`sts_extras.cli.describe_run.run`)."""
    from sts_extras.cli import describe_run as describe

    return describe.run(args)
