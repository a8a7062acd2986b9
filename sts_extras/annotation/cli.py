"""``sts-extras annotate``: plan, score and simulate adaptive pairwise vote collection.

Thin adapter over :mod:`sts_extras.annotation`. Bad options and unreadable or unwritable files
raise :class:`~sts_extras.errors.UserInputError` naming the option or path (exit status 2).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sts_extras.errors import UserFileNotFoundError, UserInputError

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``plan``, ``score`` and ``simulate`` sub-subcommands."""
    sub = parser.add_subparsers(dest="annotate_command", metavar="ACTION", required=True)

    plan = sub.add_parser("plan", help="Counts of a campaign (Eq. 2-4), §2.7 checks, ballot 1.")
    plan.add_argument("--n-items", type=int, help="number of items (or give --items)")
    plan.add_argument("--items", type=Path, help="text file, one item label per line")
    budget = plan.add_mutually_exclusive_group(required=True)
    budget.add_argument("--m", type=int, help="appearances of each item in each ballot")
    budget.add_argument("--n-comparisons", type=int, help="budget in pairs (Eq. 3)")
    plan.add_argument("--alpha", type=float, default=0.5, help="fraction selected per ballot")
    plan.add_argument("--n-ballots", type=int, default=7, help="number of ballots n_b")
    plan.add_argument("--uniform", action="store_true", help="plan a uniform campaign (§2.4)")
    plan.add_argument("--pairs-out", type=Path, help="write ballot 1's pairs here (needs --items)")
    plan.add_argument("--seed", type=int, default=None, help="seed of the pair draw")
    plan.add_argument("--format", choices=("text", "json"), default="text")

    score = sub.add_parser("score", help="Rank items from a CSV of votes (Eq. 1, 5, 6).")
    score.add_argument("votes", type=Path, help="CSV with item_a,item_b,winner[,ballot]")
    score.add_argument("--alpha", type=float, default=0.5, help="fraction selected per ballot")
    score.add_argument(
        "--no-selection", action="store_true", help="skip the selection checks (custom designs)"
    )
    score.add_argument("--items", type=Path, help="text file of every item label, one per line")
    score.add_argument("--tie-label", default="tie", help="winner value of a tie (default: tie)")
    score.add_argument("--update", choices=("paper", "published-code"), default="paper")
    score.add_argument("--output", type=Path, help="write the full ranked table (CSV) here")
    score.add_argument("--top", type=int, default=20, help="rows printed in text format")
    score.add_argument("--next-pairs", type=Path, help="write the next ballot's pairs here")
    score.add_argument("--m", type=int, help="appearances per item in the next ballot")
    score.add_argument("--seed", type=int, default=None, help="seed of the next pair draw")
    score.add_argument("--format", choices=("text", "csv", "json"), default="text")

    simulate = sub.add_parser("simulate", help="Uniform vs adaptive, as Table 2 of the paper.")
    simulate.add_argument(
        "--distribution", choices=("exponential", "power_law"), default="exponential"
    )
    simulate.add_argument("--z", type=Path, help="your own similarities, one per line, in [-1, 1]")
    simulate.add_argument("--reps", type=int, default=50, help="repetitions (default 50)")
    simulate.add_argument("--seed", type=int, default=0)
    simulate.add_argument("--n-items", type=int, default=990)
    simulate.add_argument("--m", type=int, default=20)
    simulate.add_argument("--alpha", type=float, default=0.5)
    simulate.add_argument("--n-ballots", type=int, default=7)
    simulate.add_argument("--voters", type=int, default=100)
    simulate.add_argument(
        "--published-code",
        action="store_true",
        help="use the authors' published simulation settings (reproduces their Table 2)",
    )
    simulate.add_argument("--figure", type=Path, help="save a Fig. 4-like plot of one run here")
    simulate.add_argument("--format", choices=("text", "json"), default="text")


@contextmanager
def _user_file(
    action: str, path: Path, errors: tuple[type[Exception], ...] = (OSError, UnicodeError)
) -> Iterator[None]:
    """Turn ``errors`` raised while reading or writing a file the user named into user errors."""
    try:
        yield
    except errors as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        message = f"cannot {action} {path}: {reason}"
        if isinstance(error, FileNotFoundError):
            raise UserFileNotFoundError(message) from None
        raise UserInputError(message) from None


def _read_lines(path: Path) -> list[str]:
    with _user_file("read", path):
        text = path.read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line]


def _write_pairs(path: Path, pairs: Any, ballot: int) -> None:
    import pandas as pd

    frame = pd.DataFrame({"item_a": pairs[:, 0], "item_b": pairs[:, 1], "ballot": ballot})
    with _user_file("write", path):
        frame.to_csv(path, index=False)


def _read_similarities(path: Path) -> list[float]:
    values = []
    for line in _read_lines(path):
        try:
            values.append(float(line))
        except ValueError:
            raise UserInputError(f"--z {path}: {line!r} is not a number.") from None
    return values


def _plan(args: argparse.Namespace) -> int:
    from sts_extras.annotation.design import (
        DesignWarning,
        draw_pairs,
        plan_adaptive,
        plan_uniform,
    )

    items = _read_lines(args.items) if args.items else None
    if items is None and args.n_items is None:
        raise UserInputError("give --n-items or --items.")
    if items is not None and args.n_items is not None and args.n_items != len(items):
        raise UserInputError(f"--n-items {args.n_items} disagrees with the {len(items)} --items.")
    n_items = len(items) if items is not None else args.n_items
    budget = {"m": args.m, "n_comparisons": args.n_comparisons}
    with warnings.catch_warnings():  # the advice is printed with the plan below
        warnings.simplefilter("ignore", DesignWarning)
        if args.uniform:
            plan = plan_uniform(n_items, **budget)
        else:
            plan = plan_adaptive(n_items, alpha=args.alpha, n_ballots=args.n_ballots, **budget)
    if args.pairs_out is not None:
        if items is None:
            raise UserInputError("--pairs-out needs the item labels: give --items.")
        _write_pairs(args.pairs_out, draw_pairs(items, plan.m, seed=args.seed), ballot=1)
    if args.format == "json":
        print(json.dumps(plan.to_dict(), indent=2))
    else:
        print(plan.describe())
        if args.pairs_out is not None:
            print(f"ballot 1: {plan.pairs_per_ballot[0]} pairs written to {args.pairs_out}")
    return 0


def _score(args: argparse.Namespace) -> int:
    import pandas as pd

    from sts_extras.annotation.design import draw_pairs
    from sts_extras.annotation.scoring import score_votes

    # pandas reports an empty or malformed CSV as a ValueError
    with _user_file("read", args.votes, (OSError, ValueError)):
        votes = pd.read_csv(args.votes, dtype=str, keep_default_na=False)
    items = _read_lines(args.items) if args.items else None
    alpha = None if args.no_selection else args.alpha
    result = score_votes(
        votes, alpha=alpha, items=items, tie_label=args.tie_label, update=args.update
    )
    if args.output is not None:
        with _user_file("write", args.output):
            result.table.to_csv(args.output, index=False)
    if args.next_pairs is not None:
        if args.m is None or not result.next_items:
            raise UserInputError("--next-pairs needs --m and a selection (not --no-selection).")
        pairs = draw_pairs(list(result.next_items), args.m, seed=args.seed)
        _write_pairs(args.next_pairs, pairs, ballot=len(result.ballot_sizes) + 1)
    if args.format == "csv":
        result.table.to_csv(sys.stdout, index=False)
    elif args.format == "json":
        payload = {
            "ballot_sizes": list(result.ballot_sizes),
            "slopes": list(result.slopes),
            "next_items": list(result.next_items),
            "ranking": json.loads(result.table.to_json(orient="records")),
        }
        print(json.dumps(payload, indent=2))
    else:
        sizes = ", ".join(map(str, result.ballot_sizes))
        print(f"{len(result.table)} items ranked from {len(votes)} votes; ballot sizes: {sizes}")
        if result.slopes:
            print("rescaling slopes b (Eq. 6): " + ", ".join(f"{b:.4f}" for b in result.slopes))
        print(result.table.head(args.top).to_string(index=False, float_format="{:.4f}".format))
        if result.next_items:
            print(f"next ballot: {len(result.next_items)} items selected")
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from sts_extras.annotation.simulation import (
        PUBLISHED_CODE_SETTINGS,
        simulate_campaigns,
        trace_adaptive_campaign,
    )

    settings = dict(PUBLISHED_CODE_SETTINGS) if args.published_code else {}
    z = _read_similarities(args.z) if args.z else None
    common = dict(
        z=z, n_items=args.n_items, m=args.m, alpha=args.alpha, n_ballots=args.n_ballots,
        n_voters=args.voters, seed=args.seed, **settings,
    )  # fmt: skip
    result = simulate_campaigns(args.distribution, n_reps=args.reps, **common)
    if args.format == "json":
        print(json.dumps(result.summary(), indent=2))
    else:
        print(result.format_table(compare=z is None))
        if result.distribution == "exponential":
            print(
                "note: the paper's exponential rho_w, spearman and kendall come from a "
                "misaligned comparison in the authors' code; compare tau_w only."
            )
        seconds = result.seconds
        print(
            f"seconds per repetition: uniform {seconds['uniform']:.4f}, "
            f"adaptive {seconds['adaptive']:.4f} (voting and scoring)"
        )
    if args.figure is not None:
        from sts_extras.annotation.plotting import plot_ballot_scores

        trace = trace_adaptive_campaign(args.distribution, **common)
        figure = plot_ballot_scores(trace)
        # matplotlib reports an unknown file extension as a ValueError
        with _user_file("write", args.figure, (OSError, ValueError)):
            figure.savefig(args.figure, dpi=150)
        if args.format != "json":
            print(f"figure written to {args.figure}")
    return 0


def run(args: argparse.Namespace) -> int:
    """Dispatch ``sts-extras annotate ACTION``."""
    actions = {"plan": _plan, "score": _score, "simulate": _simulate}
    return actions[args.annotate_command](args)
