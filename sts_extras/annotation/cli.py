"""``sts-extras annotate``: plan, score and simulate adaptive pairwise vote collection.

Thin adapter over :mod:`sts_extras.annotation`. Bad options and unreadable or unwritable files
raise :class:`~sts_extras.errors.UserInputError` naming the option or path (exit status 2), and
every such check runs before anything is printed or written: options and paths first, then the
inputs are read and everything is computed, then each output file is written whole (temporary
file + rename) and the report printed.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sts_extras.errors import UserFileNotFoundError, UserInputError
from sts_extras.integrity import atomic_write_bytes, atomic_write_text
from sts_extras.optional import requires_extra

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
    simulate.add_argument(
        "--n-items", type=int, help="items of the law (default 990; with --z, its line count)"
    )
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
    action: str,
    path: Path,
    name: str,
    errors: tuple[type[Exception], ...] = (OSError, UnicodeError),
) -> Iterator[None]:
    """Turn ``errors`` raised while reading or writing the file given as ``name`` into one line."""
    try:
        yield
    except errors as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        message = f"{name}: cannot {action} {path}: {reason}"
        if isinstance(error, FileNotFoundError):
            raise UserFileNotFoundError(message) from None
        raise UserInputError(message) from None


def _input_file(path: Path, name: str) -> Path:
    """``path`` (given as ``name``) if it is an existing file; checked before any work starts."""
    if not path.exists():
        raise UserFileNotFoundError(f"{name}: cannot read {path}: No such file or directory")
    if path.is_dir():
        raise UserInputError(f"{name}: cannot read {path}: Is a directory; give a file")
    return path


def _output_file(path: Path, name: str) -> Path:
    """``path`` (given as ``name``) if a file can be written there; checked before any work.

    Files are written whole through a temporary file and a rename, so the folder must be
    writable, and an existing path must be a regular file (never a directory or a device).
    """
    cannot = f"{name}: cannot write {path}:"
    if path.is_dir():
        raise UserInputError(f"{cannot} Is a directory; give a file name")
    if path.exists() and not path.is_file():
        raise UserInputError(f"{cannot} it exists and is not a regular file")
    folder = path.parent
    if not folder.exists():
        raise UserFileNotFoundError(f"{cannot} folder {folder} does not exist")
    if not folder.is_dir():
        raise UserInputError(f"{cannot} {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserInputError(f"{cannot} folder {folder} is not writable")
    return path


def _distinct_files(files: dict[str, Path | None]) -> None:
    """Refuse two arguments naming one file (an output would overwrite an input or another)."""
    seen: dict[Path, str] = {}
    for name, path in files.items():
        if path is None:
            continue
        key = path.resolve()
        if key in seen:
            raise UserInputError(f"{name} {path} is the same file as {seen[key]}; give another.")
        seen[key] = name


def _write_text(path: Path, name: str, text: str) -> None:
    """Write ``text`` whole (temporary file + rename) to the real file behind ``path``."""
    with _user_file("write", path, name):
        atomic_write_text(path.resolve(), text)


def _read_lines(path: Path, name: str) -> list[tuple[int, str]]:
    """``(line number, stripped text)`` of the non-blank lines of a UTF-8 text file."""
    with _user_file("read", path, name):
        text = path.read_text(encoding="utf-8")
    lines = ((number, line.strip()) for number, line in enumerate(text.splitlines(), start=1))
    return [(number, line) for number, line in lines if line]


def _read_items(path: Path, name: str = "--items") -> list[str]:
    """Item labels, one per line (surrounding whitespace stripped, blank lines skipped)."""
    first_line: dict[str, int] = {}
    for number, label in _read_lines(_input_file(path, name), name):
        if label in first_line:
            raise UserInputError(
                f"{name} {path}: label {label!r} appears twice (lines {first_line[label]} and "
                f"{number}); item labels must be distinct."
            )
        first_line[label] = number
    return list(first_line)


def _read_similarities(path: Path) -> list[float]:
    values = []
    for number, line in _read_lines(_input_file(path, "--z"), "--z"):
        try:
            values.append(float(line))
        except ValueError:
            raise UserInputError(f"--z {path}: line {number}, {line!r} is not a number.") from None
    return values


def _read_votes(path: Path) -> Any:
    import pandas as pd

    try:
        # every cell as text, a blank one as "" (score_votes calls it a missing label)
        with _user_file("read", path, "votes file"):
            return pd.read_csv(path, dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        raise UserInputError(
            f"votes file {path}: is empty; expected a CSV file with the header line "
            "item_a,item_b,winner (and optionally ,ballot) and one vote per line."
        ) from None
    except UserInputError:
        raise
    except ValueError as error:  # pandas' report of a malformed CSV
        raise UserInputError(f"votes file {path}: cannot read it as CSV: {error}") from None


def _pairs_csv(pairs: Any, ballot: int) -> str:
    import pandas as pd

    frame = pd.DataFrame({"item_a": pairs[:, 0], "item_b": pairs[:, 1], "ballot": ballot})
    return str(frame.to_csv(index=False))


def _plan(args: argparse.Namespace) -> int:
    from sts_extras.annotation.design import (
        DesignWarning,
        draw_pairs,
        plan_adaptive,
        plan_uniform,
    )

    if args.pairs_out is not None and args.items is None:
        raise UserInputError("--pairs-out needs the item labels: give --items.")
    items = _read_items(args.items) if args.items else None
    if items is None and args.n_items is None:
        raise UserInputError("give --n-items or --items.")
    if items is not None and args.n_items is not None and args.n_items != len(items):
        raise UserInputError(f"--n-items {args.n_items} disagrees with the {len(items)} --items.")
    if args.pairs_out is not None:
        _output_file(args.pairs_out, "--pairs-out")
        _distinct_files({"--items": args.items, "--pairs-out": args.pairs_out})
    n_items = len(items) if items is not None else args.n_items
    budget = {"m": args.m, "n_comparisons": args.n_comparisons}
    with warnings.catch_warnings():  # the advice is printed with the plan below
        warnings.simplefilter("ignore", DesignWarning)
        if args.uniform:
            plan = plan_uniform(n_items, **budget)
        else:
            plan = plan_adaptive(n_items, alpha=args.alpha, n_ballots=args.n_ballots, **budget)
    if args.pairs_out is not None and items is not None:  # --pairs-out needs --items (above)
        pairs = draw_pairs(items, plan.m, seed=args.seed)  # refuses a huge ballot up front
        _write_text(args.pairs_out, "--pairs-out", _pairs_csv(pairs, ballot=1))
    if args.format == "json":
        print(json.dumps(plan.to_dict(), indent=2))
    else:
        print(plan.describe())
        if args.pairs_out is not None:
            print(f"ballot 1: {plan.pairs_per_ballot[0]} pairs written to {args.pairs_out}")
    return 0


def _check_score_options(args: argparse.Namespace) -> float | None:
    """Every option and path of ``score``, before the votes are read; returns ``alpha``."""
    from sts_extras._validation import check_open_unit_interval, check_positive_int

    alpha = None if args.no_selection else check_open_unit_interval(args.alpha, "--alpha")
    if args.next_pairs is not None:
        if args.m is None:
            raise UserInputError("--next-pairs needs --m, the appearances of each item in it.")
        if alpha is None:
            raise UserInputError("--next-pairs needs a selection; drop --no-selection.")
    if args.m is not None:
        check_positive_int(args.m, "--m")
    check_positive_int(args.top, "--top", minimum=0)
    if not args.tie_label.strip():
        raise UserInputError("--tie-label must not be blank (a blank winner is a missing vote).")
    _input_file(args.votes, "votes file")
    if args.items is not None:
        _input_file(args.items, "--items")
    for path, name in ((args.output, "--output"), (args.next_pairs, "--next-pairs")):
        if path is not None:
            _output_file(path, name)
    _distinct_files(
        {
            "the votes file": args.votes,
            "--items": args.items,
            "--output": args.output,
            "--next-pairs": args.next_pairs,
        }
    )
    return alpha


def _score(args: argparse.Namespace) -> int:
    from sts_extras.annotation.design import draw_pairs
    from sts_extras.annotation.scoring import score_votes

    alpha = _check_score_options(args)
    votes = _read_votes(args.votes)
    items = _read_items(args.items) if args.items else None
    try:
        result = score_votes(
            votes, alpha=alpha, items=items, tie_label=args.tie_label, update=args.update
        )
    except UserInputError as error:  # a problem of the file's content: say which file
        raise UserInputError(f"votes file {args.votes}: {error}") from None
    outputs = {}  # everything is computed before the first file is written
    if args.output is not None:
        outputs["--output"] = (args.output, str(result.table.to_csv(index=False)))
    if args.next_pairs is not None:
        if not result.next_items:
            raise UserInputError(
                f"--next-pairs: round({alpha:g} * {result.ballot_sizes[-1]}) < 2 items of the "
                "last ballot are selected, so there is no next ballot to pair."
            )
        pairs = draw_pairs(list(result.next_items), args.m, seed=args.seed)
        ballot = len(result.ballot_sizes) + 1
        outputs["--next-pairs"] = (args.next_pairs, _pairs_csv(pairs, ballot=ballot))
    for name, (path, text) in outputs.items():
        _write_text(path, name, text)
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


def _figure_path(path: Path) -> tuple[Path, str]:
    """Where ``--figure`` writes and in which format; a name without suffix gets ``.png``."""
    with requires_extra("figures"):
        from matplotlib.backend_bases import FigureCanvasBase

    if path.is_dir():
        raise UserInputError(f"--figure: cannot write {path}: Is a directory; give a file name")
    if not path.suffix:
        path = path.with_name(path.name + ".png")
    image_format = path.suffix[1:].lower()
    formats = FigureCanvasBase.get_supported_filetypes()
    if image_format not in formats:
        raise UserInputError(
            f"--figure {path}: unknown image format {image_format!r}; use one of "
            f"{', '.join(sorted(formats))}."
        )
    return _output_file(path, "--figure"), image_format


def _simulate(args: argparse.Namespace) -> int:
    from sts_extras.annotation.simulation import (
        PUBLISHED_CODE_SETTINGS,
        simulate_campaigns,
        trace_adaptive_campaign,
    )

    settings = dict(PUBLISHED_CODE_SETTINGS) if args.published_code else {}
    z = _read_similarities(args.z) if args.z else None
    if z is not None and args.n_items is not None and args.n_items != len(z):
        raise UserInputError(
            f"--n-items {args.n_items} disagrees with the {len(z)} values of --z {args.z}; "
            "leave --n-items out (it is the number of values)."
        )
    figure_path = _figure_path(args.figure) if args.figure is not None else None
    common = dict(
        z=z, n_items=args.n_items, m=args.m, alpha=args.alpha, n_ballots=args.n_ballots,
        n_voters=args.voters, seed=args.seed, **settings,
    )  # fmt: skip
    result = simulate_campaigns(args.distribution, n_reps=args.reps, **common)
    if figure_path is not None:
        from sts_extras.annotation.plotting import plot_ballot_scores

        path, image_format = figure_path
        figure = plot_ballot_scores(trace_adaptive_campaign(args.distribution, **common))
        image = io.BytesIO()
        figure.savefig(image, format=image_format, dpi=150)
        with _user_file("write", path, "--figure"):
            atomic_write_bytes(path.resolve(), image.getvalue())
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
        if figure_path is not None:
            print(f"figure written to {figure_path[0]}")
    return 0


def run(args: argparse.Namespace) -> int:
    """Dispatch ``sts-extras annotate ACTION``."""
    actions = {"plan": _plan, "score": _score, "simulate": _simulate}
    return actions[args.annotate_command](args)
