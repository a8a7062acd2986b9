"""Options of ``sts-extras power``.

Argument definitions only: building them imports nothing beyond argparse, :mod:`pathlib` and
:mod:`sts_extras.cli.choices` (scipy.stats is not loaded for ``--help``). The command is
:func:`sts_extras.cli.power_run.run`, imported when it starts.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sts_extras.cli import choices, option_types

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sts-extras power``."""
    values = parser.add_argument_group("correlations (or --leaderboard)")
    values.add_argument("--r1", type=option_types.number, help="r(references, model 1)")
    values.add_argument("--r2", type=option_types.number, help="r(references, model 2)")
    values.add_argument("--r12", type=option_types.number, help="r(model 1, model 2)")
    values.add_argument("--leaderboard", type=Path, help="leaderboard JSON to read r's and n from")
    values.add_argument("--task", help="task of --leaderboard")
    values.add_argument("--model1", help="model 1 in --leaderboard")
    values.add_argument("--model2", help="model 2 in --leaderboard (default: its baseline)")
    question = parser.add_argument_group("question")
    question.add_argument("--n", type=option_types.whole_number, help="number of items")
    question.add_argument(
        "--target-power",
        type=option_types.number,
        help="target power (alone: smallest n; with --n: min Δr)",
    )
    test = parser.add_argument_group("test")
    test.add_argument(
        "--method",
        default="meng1992",
        metavar="METHOD",
        help=f"dependent-correlation test: {', '.join(choices.DEPENDENT_METHODS)} "
        "(default: %(default)s)",
    )
    test.add_argument("--alpha", type=option_types.number, default=0.05, help="significance level")
    test.add_argument(
        "--alternative", default="two-sided", help="two-sided, greater (r1 > r2) or less"
    )
    check = parser.add_argument_group("simulation check")
    check.add_argument(
        "--simulate", action="store_true", help="also estimate the power by simulation"
    )
    check.add_argument(
        "--simulations",
        type=option_types.whole_number,
        default=None,
        help="simulated samples, with --simulate (default 10000; at most 10^7, and "
        "--simulations x n at most 2 x 10^9)",
    )
    check.add_argument(
        "--progress", action="store_true", help="show a progress bar over the simulations"
    )
    check.add_argument(
        "--seed", type=option_types.whole_number, default=0, help="seed of the simulation"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")


def run(args: argparse.Namespace) -> int:
    """Run ``sts-extras power`` (:func:`sts_extras.cli.power_run.run`)."""
    from sts_extras.cli import power_run as power_cli

    return power_cli.run(args)
