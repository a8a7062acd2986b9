"""Options of ``sts-extras annotate plan``, ``score`` and ``simulate``.

Argument definitions only: building them imports nothing beyond argparse, :mod:`pathlib` and
:mod:`sts_extras.cli.choices`, so ``--help`` is fast. The actions are
:func:`sts_extras.cli.annotate_run.run`, imported when a command starts.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sts_extras.cli import choices

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``plan``, ``score`` and ``simulate`` sub-subcommands."""
    sub = parser.add_subparsers(dest="annotate_command", metavar="ACTION", required=True)

    plan = sub.add_parser("plan", help="Counts of a campaign (Eq. 2-4), §2.7 checks, ballot 1.")
    plan.add_argument("--n-items", type=int, help="number of items (or give --items/--pairs)")
    source = plan.add_mutually_exclusive_group()
    source.add_argument("--items", type=Path, help="text file, one item label per line")
    source.add_argument(
        "--pairs", type=Path, help="sentence pairs: .csv/.jsonl/.parquet, sentence1,sentence2[,id]"
    )
    budget = plan.add_mutually_exclusive_group(required=True)
    budget.add_argument("--m", type=int, help="appearances of each item in each ballot")
    budget.add_argument("--n-comparisons", type=int, help="budget in pairs (Eq. 3)")
    plan.add_argument(
        "--alpha",
        type=float,
        help="fraction selected per ballot (default: the paper's 0.5; if that leaves fewer than "
        "2 items in the last of --n-ballots ballots, the smallest of 0.55, 0.6, ..., 0.75 that "
        "does not)",
    )
    plan.add_argument(
        "--n-ballots",
        type=int,
        help="number of ballots n_b (default: the paper's 7, or fewer when few items would "
        "leave fewer than 2 in the last ballot: 50 items give 6)",
    )
    plan.add_argument("--uniform", action="store_true", help="plan a uniform campaign (§2.4)")
    plan.add_argument(
        "--pairs-out", type=Path, help="write ballot 1 here as CSV (needs --items or --pairs)"
    )
    plan.add_argument(
        "--label-studio-out",
        type=Path,
        help="write ballot 1 as Label Studio tasks (JSON; config .xml beside it; needs --pairs)",
    )
    plan.add_argument("--seed", type=int, default=0, help="seed of the pair draw (default: 0)")
    plan.add_argument("--format", choices=("text", "json"), default="text")

    score = sub.add_parser("score", help="Rank items from votes (Eq. 1, 5, 6); QC; dataset.")
    score.add_argument(
        "votes",
        type=Path,
        nargs="+",
        help="votes: CSV item_a,item_b,winner[,ballot][,worker_id], Label Studio JSON export "
        "or MTurk batch results (several files are stacked)",
    )
    score.add_argument(
        "--votes-format", choices=choices.VOTE_FORMATS, default="auto", help="(default: auto)"
    )
    score.add_argument(
        "--strict",
        action="store_true",
        help="refuse votes given twice (an annotation in two exports) instead of counting once",
    )
    score.add_argument("--alpha", type=float, default=0.5, help="fraction selected per ballot")
    score.add_argument(
        "--no-selection", action="store_true", help="skip the selection checks (custom designs)"
    )
    known = score.add_mutually_exclusive_group()
    known.add_argument("--items", type=Path, help="text file of every item label, one per line")
    known.add_argument("--pairs", type=Path, help="the campaign's sentence pairs (as for plan)")
    score.add_argument("--tie-label", default="tie", help="winner value of a tie (default: tie)")
    score.add_argument("--update", choices=choices.UPDATES, default="paper")
    score.add_argument(
        "--min-agreement",
        type=float,
        default=choices.DEFAULT_MIN_AGREEMENT,
        help="flag annotators agreeing less with the others' consensus (default: %(default)s)",
    )
    score.add_argument(
        "--exclude-flagged", action="store_true", help="score without the flagged annotators"
    )
    score.add_argument("--output", type=Path, help="write the full ranked table (CSV) here")
    score.add_argument(
        "--dataset-out",
        type=Path,
        help="write id,sentence1,sentence2,score,n_votes (needs --pairs)",
    )
    score.add_argument(
        "--scale",
        type=float,
        nargs=2,
        default=(0.0, 5.0),
        metavar=("LOW", "HIGH"),
        help="--dataset-out scores: LOW + (HIGH - LOW) * score (default: 0 5; relative)",
    )
    score.add_argument("--top", type=int, default=20, help="rows printed in text format")
    score.add_argument("--next-pairs", type=Path, help="write the next ballot's pairs here")
    score.add_argument(
        "--label-studio-out",
        type=Path,
        help="write the next ballot as Label Studio tasks (needs --pairs and --m)",
    )
    score.add_argument("--m", type=int, help="appearances per item in the next ballot")
    score.add_argument(
        "--seed", type=int, default=0, help="seed of the next pair draw (default: 0)"
    )
    score.add_argument("--format", choices=("text", "csv", "json"), default="text")

    simulate = sub.add_parser("simulate", help="Uniform vs adaptive, as Table 2 of the paper.")
    simulate.add_argument("--distribution", choices=choices.DISTRIBUTIONS, default="exponential")
    simulate.add_argument("--z", type=Path, help="your own similarities, one per line, in [-1, 1]")
    simulate.add_argument("--reps", type=int, default=50, help="repetitions (default 50)")
    simulate.add_argument("--seed", type=int, default=0, help="seed of the simulation (default: 0)")
    simulate.add_argument(
        "--n-items", type=int, help="items of the law (default 990; with --z, its line count)"
    )
    simulate.add_argument("--m", type=int, default=20)
    simulate.add_argument(
        "--alpha", type=float, help="fraction selected per ballot (default: as for plan)"
    )
    simulate.add_argument(
        "--n-ballots", type=int, help="number of ballots (default: as for plan; 7 for 990 items)"
    )
    simulate.add_argument("--voters", type=int, default=100)
    simulate.add_argument(
        "--published-code",
        action="store_true",
        help="use the authors' published simulation settings (reproduces their Table 2)",
    )
    simulate.add_argument("--figure", type=Path, help="save a Fig. 4-like plot of one run here")
    simulate.add_argument(
        "--progress", action="store_true", help="show a progress bar over the repetitions"
    )
    simulate.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    """Run ``sts-extras annotate ACTION`` (:func:`sts_extras.cli.annotate_run.run`)."""
    from sts_extras.cli import annotate_run as cli

    return cli.run(args)
