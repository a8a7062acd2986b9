"""Options of ``sts-extras rank``.

Argument definitions only: building them imports nothing beyond argparse and
:mod:`sts_extras.cli.option_types`, so ``--help`` is fast. The command is
:func:`sts_extras.cli.rank_run.run`, imported when it starts.
"""

from __future__ import annotations

import argparse

from sts_extras.cli import option_types

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sts-extras rank``."""
    parser.add_argument(
        "directories",
        nargs="+",
        metavar="DIR",
        help="an MTEB results folder (results/<org>__<model>/<revision>/<Task>.json, e.g. a copy "
        "of MTEB's results repository or a ResultCache) or a sts-extras leaderboard output "
        "(cells/plan.json); repeatable",
    )
    parser.add_argument(
        "--output", required=True, metavar="OUT", help="folder for the reports (created if missing)"
    )
    parser.add_argument(
        "--tasks",
        metavar="NAME[,NAME...]",
        help="tasks to rank on (default: STS12,STS13,STS14,STS15,STS16,STSBenchmark,SICK-R,"
        "BIOSSES,STS17,STS22)",
    )
    parser.add_argument(
        "--incomplete",
        action="store_true",
        help="also rank the models with at least two of the tasks (each pair compared on its "
        "common tasks); by default only models with every task are ranked",
    )
    parser.add_argument(
        "--seed", type=option_types.whole_number, default=0, help="seed (default: %(default)s)"
    )
    parser.add_argument(
        "--n-resamples",
        type=option_types.whole_number,
        default=1000,
        metavar="N",
        help="bootstrap resamples (tasks, and pairs of own runs; default: %(default)s)",
    )
    parser.add_argument(
        "--alpha",
        type=option_types.number,
        default=0.05,
        help="level of the tests and rank sets (default: %(default)s)",
    )
    parser.add_argument(
        "--rope",
        type=option_types.number,
        default=0.01,
        help="half-width of the Bayesian test's region of practical equivalence, on the score "
        "scale (default: %(default)s, one point of MTEB's 0-100 display)",
    )
    parser.add_argument(
        "--threshold",
        type=option_types.number,
        default=0.95,
        help="posterior probability that separates a pair in the Bayesian test "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--revisions",
        default="one",
        metavar="RULE",
        help="a published model's revision folders: 'one' (the one with the most tasks, then the "
        "newest MTEB version) or 'join' (each task from its revisions in MTEB's own order, as "
        "MTEB's leaderboard shows them); default: %(default)s",
    )
    parser.add_argument("--no-figures", action="store_true", help="skip the figures")
    parser.add_argument(
        "--figure-format",
        metavar="FORMATS",
        default="png",
        help="comma-separated figure formats: pdf, png, svg (default: %(default)s)",
    )
    parser.add_argument(
        "--figure-top",
        type=option_types.whole_number,
        default=30,
        metavar="N",
        help="the figures show the N best-ranked models plus your own runs (default: %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``sts-extras rank`` (:func:`sts_extras.cli.rank_run.run`)."""
    from sts_extras.cli import rank_run

    return rank_run.run(args)
