"""``sts-extras annotate``: plan, score and simulate adaptive pairwise vote collection.

Thin adapter over :mod:`sts_extras.annotation`. Bad options and unreadable or unwritable files
raise :class:`~sts_extras.errors.UserInputError` naming the option or path (exit status 2), and
every such check runs before anything is printed or written: options and paths first, then the
inputs are read and everything is computed, then each output file is written whole (temporary
file + rename) and the report printed.

A campaign over sentence pairs: ``plan --pairs pairs.csv`` writes ballot 1 as a CSV with the
ids and texts of both pairs (``--pairs-out``) and as a Label Studio import file with its
labeling configuration beside it (``--label-studio-out``); ``score`` reads the votes from our
CSV, a Label Studio export or MTurk batch results (:mod:`sts_extras.annotation.votes`), reports
each annotator's agreement (:mod:`sts_extras.annotation.agreement`), can leave the flagged
annotators out, writes the next ballot the same two ways and, with ``--dataset-out``, the STS
dataset ``id,sentence1,sentence2,score,n_votes``.

The options are defined in :mod:`sts_extras.cli.annotate`, which imports this module when a
command starts (never the other way round).
"""

from __future__ import annotations

import argparse
import io
import json
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, cast

from sts_extras.cli.user_paths import (
    distinct_files,
    input_file,
    output_file,
    user_file,
    write_text,
)
from sts_extras.errors import UserInputError
from sts_extras.integrity import atomic_write_bytes
from sts_extras.io.numbers import parse_number
from sts_extras.io.text import read_text
from sts_extras.optional import requires_extra

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from matplotlib.figure import Figure
    from numpy.typing import NDArray

__all__ = ["run"]


def _read_lines(path: Path, name: str) -> list[tuple[int, str]]:
    """``(line number, stripped text)`` of the non-blank lines of a UTF-8 text file (with or
    without a byte-order mark, which is not part of the first line)."""
    text = read_text(path, name)
    lines = ((number, line.strip()) for number, line in enumerate(text.splitlines(), start=1))
    return [(number, line) for number, line in lines if line]


def _read_items(path: Path, name: str = "--items") -> list[str]:
    """Item labels, one per line (surrounding whitespace stripped, blank lines skipped).

    A file whose first line is a table header with ``sentence1`` and ``sentence2`` is refused:
    it holds sentence pairs, which ``--pairs`` reads.
    """
    first_line: dict[str, int] = {}
    lines = _read_lines(input_file(path, name), name)
    if lines and {"sentence1", "sentence2"} <= {
        cell.strip().strip('"').lower() for cell in lines[0][1].split(",")
    }:
        raise UserInputError(
            f"{name} {path}: its header has sentence1 and sentence2, so it holds sentence "
            "pairs; give it as --pairs (--items reads one item label per line)."
        )
    for number, label in lines:
        if label in first_line:
            raise UserInputError(
                f"{name} {path}: label {label!r} appears twice (lines {first_line[label]} and "
                f"{number}); item labels must be distinct."
            )
        first_line[label] = number
    return list(first_line)


def _read_similarities(path: Path) -> list[float]:
    return [
        parse_number(line, f"--z {path}: line {number}")
        for number, line in _read_lines(input_file(path, "--z"), "--z")
    ]


def _ballot_outputs(
    pairs: NDArray[np.generic],
    ballot: int,
    texts: pd.DataFrame | None,
    csv_option: str,
    files: dict[str, Path | None],
) -> dict[str, tuple[Path, str]]:
    """The files of one ballot, by option: the CSV (``files[csv_option]``), and the Label
    Studio tasks (``files["--label-studio-out"]``) with the labeling config beside them."""
    from sts_extras.annotation.ballots import (
        LABEL_CONFIG,
        ballot_table,
        label_config_path,
        label_studio_tasks,
    )
    from sts_extras.annotation.tables import csv_text

    table = ballot_table(pairs, ballot, texts)
    outputs = {}
    csv_path, tasks_path = files.get(csv_option), files.get("--label-studio-out")
    if csv_path is not None:
        outputs[csv_option] = (csv_path, csv_text(table))
    if tasks_path is not None:
        outputs["--label-studio-out"] = (tasks_path, label_studio_tasks(table))
        outputs["--label-studio-out config"] = (label_config_path(tasks_path), LABEL_CONFIG)
    return outputs


def _check_outputs(files: dict[str, Path | None], inputs: dict[str, Path | None]) -> None:
    """Every output writable (a Label Studio file with its config beside it), none the same."""
    from sts_extras.annotation.ballots import label_config_path

    named = dict(files)
    tasks = files.get("--label-studio-out")
    if tasks is not None:
        if tasks.suffix.lower() != ".json":
            raise UserInputError(
                f"--label-studio-out {tasks}: give a .json file name (the labeling config is "
                "written beside it, as .xml)."
            )
        named["--label-studio-out config"] = label_config_path(tasks)
    for name, path in named.items():
        if path is not None:
            output_file(path, name)
    distinct_files({**inputs, **named})


def _plan(args: argparse.Namespace) -> int:
    from sts_extras.annotation.design import (
        DesignWarning,
        draw_pairs,
        plan_adaptive,
        plan_uniform,
    )
    from sts_extras.annotation.tables import read_pairs

    if args.pairs_out is not None and args.items is None and args.pairs is None:
        raise UserInputError("--pairs-out needs the items: give --pairs (or --items).")
    if args.label_studio_out is not None and args.pairs is None:
        raise UserInputError("--label-studio-out needs the sentences: give --pairs.")
    texts = read_pairs(input_file(args.pairs, "--pairs")) if args.pairs else None
    items = list(texts["id"]) if texts is not None else None
    if args.items is not None:
        items = _read_items(args.items)
    if items is None and args.n_items is None:
        raise UserInputError("give --n-items, --pairs or --items.")
    given = "--pairs" if args.pairs else "--items"
    if items is not None and args.n_items is not None and args.n_items != len(items):
        raise UserInputError(f"--n-items {args.n_items} disagrees with the {len(items)} {given}.")
    _check_outputs(
        {"--pairs-out": args.pairs_out, "--label-studio-out": args.label_studio_out},
        {"--items": args.items, "--pairs": args.pairs},
    )
    n_items = len(items) if items is not None else args.n_items
    budget = {"m": args.m, "n_comparisons": args.n_comparisons}
    with warnings.catch_warnings():  # the advice is printed with the plan below
        warnings.simplefilter("ignore", DesignWarning)
        if args.uniform:
            plan = plan_uniform(n_items, **budget)
        else:
            plan = plan_adaptive(n_items, alpha=args.alpha, n_ballots=args.n_ballots, **budget)
    outputs = {}
    if items is not None and (args.pairs_out or args.label_studio_out):
        pairs = draw_pairs(items, plan.m, seed=args.seed)  # refuses a huge ballot up front
        files = {"--pairs-out": args.pairs_out, "--label-studio-out": args.label_studio_out}
        outputs = _ballot_outputs(pairs, 1, texts, "--pairs-out", files)
    for name, (path, text) in outputs.items():
        write_text(path, name, text)
    if args.format == "json":
        print(json.dumps(plan.to_dict(), indent=2))
    else:
        print(plan.describe())
        if "alpha" in plan.derived:  # `annotate score` checks the selection with its --alpha
            print(f"score the votes with: sts-extras annotate score --alpha {plan.alpha:g} ...")
        for name, (path, _) in outputs.items():
            if name.endswith("config"):
                print(f"Label Studio labeling config written to {path}")
            else:
                print(f"ballot 1: {plan.pairs_per_ballot[0]} pairs written to {path}")
    return 0


def _check_score_options(args: argparse.Namespace) -> float | None:
    """Every option and path of ``score``, before the votes are read; returns ``alpha``."""
    from sts_extras._validation import check_open_unit_interval, check_positive_int

    alpha = None if args.no_selection else check_open_unit_interval(args.alpha, "--alpha")
    for option, path in (
        ("--next-pairs", args.next_pairs),
        ("--label-studio-out", args.label_studio_out),
    ):
        if path is None:
            continue
        if args.m is None:
            raise UserInputError(f"{option} needs --m, the appearances of each item in it.")
        if alpha is None:
            raise UserInputError(f"{option} needs a selection; drop --no-selection.")
    for option, path in (
        ("--label-studio-out", args.label_studio_out),
        ("--dataset-out", args.dataset_out),
    ):
        if path is not None and args.pairs is None:
            raise UserInputError(f"{option} needs the sentences: give --pairs.")
    if args.m is not None:
        check_positive_int(args.m, "--m")
    check_positive_int(args.top, "--top", minimum=0)
    check_open_unit_interval(args.min_agreement, "--min-agreement")
    low, high = args.scale
    if not low < high:  # NaN fails too
        raise UserInputError(f"--scale {low:g} {high:g}: LOW must be below HIGH.")
    if not args.tie_label.strip():
        raise UserInputError("--tie-label must not be blank (a blank winner is a missing vote).")
    for path in args.votes:
        input_file(path, "votes file")
    for path, name in ((args.items, "--items"), (args.pairs, "--pairs")):
        if path is not None:
            input_file(path, name)
    _check_outputs(
        {
            "--output": args.output,
            "--next-pairs": args.next_pairs,
            "--label-studio-out": args.label_studio_out,
            "--dataset-out": args.dataset_out,
        },
        {
            **{f"the votes file {path}": path for path in args.votes},
            "--items": args.items,
            "--pairs": args.pairs,
        },
    )
    return alpha


def _where(paths: list[Path]) -> str:
    if len(paths) == 1:
        return f"votes file {paths[0]}"
    return f"votes files {', '.join(map(str, paths))} (rows counted through them in order)"


def _score(args: argparse.Namespace) -> int:
    from sts_extras.annotation.agreement import annotator_agreement
    from sts_extras.annotation.design import draw_pairs
    from sts_extras.annotation.scoring import score_votes
    from sts_extras.annotation.tables import csv_text, read_pairs, scored_dataset
    from sts_extras.annotation.votes import read_vote_files
    from sts_extras.cli.annotate_report import print_score

    alpha = _check_score_options(args)
    votes = read_vote_files(
        args.votes, args.votes_format, args.tie_label.strip(), strict=args.strict
    )
    texts = read_pairs(args.pairs) if args.pairs else None
    items = _read_items(args.items) if args.items else None
    if texts is not None:
        items = list(texts["id"])
    if args.exclude_flagged and "worker_id" not in votes.columns:
        raise UserInputError(
            "--exclude-flagged needs annotator ids: a worker_id column in the votes CSV (Label "
            "Studio exports and MTurk batch results have them)."
        )
    options = dict(alpha=alpha, items=items, tie_label=args.tie_label, update=args.update)
    # With --exclude-flagged the later ballots were drawn without the flagged annotators'
    # votes, so the selection is checked once they are left out, not before.
    first = {**options, "alpha": None} if args.exclude_flagged else options
    try:
        with warnings.catch_warnings():
            if args.exclude_flagged:  # any warning comes again from the final scoring
                warnings.simplefilter("ignore")
            result = score_votes(votes, **first)
    except UserInputError as error:  # a problem of the file's content: say which file
        raise UserInputError(f"{_where(args.votes)}: {error}") from None
    agreement = None
    if "worker_id" in votes.columns:
        agreement = annotator_agreement(
            votes.assign(**{c: votes[c].str.strip() for c in ("item_a", "item_b", "winner")}),
            min_agreement=args.min_agreement,
            tie_label=args.tie_label.strip(),
        )
    kept = votes
    if args.exclude_flagged:
        assert agreement is not None  # checked above: the votes have worker ids
        kept = votes[~votes["worker_id"].str.strip().isin(agreement.flagged)]
        if kept.empty:
            raise UserInputError("--exclude-flagged: every annotator is flagged; no vote is left.")
        try:
            result = score_votes(kept, **options)
        except UserInputError as error:
            left_out = ", ".join(agreement.flagged) or "none"
            raise UserInputError(
                f"{_where(args.votes)}, without the flagged annotators ({left_out}): {error} "
                "The flagged annotators must be the ones left out when the later ballots were "
                "drawn; or score with --no-selection."
            ) from None
    outputs = {}  # everything is computed before the first file is written
    if args.output is not None:
        outputs["--output"] = (args.output, csv_text(result.table))
    if args.dataset_out is not None:
        assert texts is not None  # checked with the options: --dataset-out needs --pairs
        dataset = scored_dataset(result.table, texts, tuple(args.scale))
        outputs["--dataset-out"] = (args.dataset_out, csv_text(dataset))
    if args.next_pairs is not None or args.label_studio_out is not None:
        if not result.next_items:
            raise UserInputError(
                f"--next-pairs/--label-studio-out: round({alpha:g} * {result.ballot_sizes[-1]}) "
                "< 2 items of the last ballot are selected, so there is no next ballot to pair."
            )
        pairs = draw_pairs(list(result.next_items), args.m, seed=args.seed)
        ballot = len(result.ballot_sizes) + 1
        files = {"--next-pairs": args.next_pairs, "--label-studio-out": args.label_studio_out}
        outputs.update(_ballot_outputs(pairs, ballot, texts, "--next-pairs", files))
    for name, (path, text) in outputs.items():
        write_text(path, name, text)
    print_score(
        result,
        agreement,
        output_format=args.format,
        top=args.top,
        n_votes=len(kept),
        excluded=args.exclude_flagged,
    )
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
    return output_file(path, "--figure"), image_format


def _check_simulate_counts(args: argparse.Namespace) -> None:
    """The counts of ``simulate`` within their ceilings (:mod:`sts_extras.limits`), named as
    options, before any file is read or any vote drawn."""
    from sts_extras._validation import check_count, check_positive_int, check_work
    from sts_extras.limits import MAX_CAMPAIGN_REPS, MAX_ITEMS, MAX_VOTER_OPINIONS

    check_count(args.reps, "--reps", MAX_CAMPAIGN_REPS, why="the paper uses 50")
    items = 990 if args.n_items is None else args.n_items
    check_count(items, "--n-items", MAX_ITEMS, minimum=2, why="the paper has 990")
    voters = check_positive_int(args.voters, "--voters")
    check_work(
        {"--voters": voters, "--n-items": items},
        MAX_VOTER_OPINIONS,
        what="voter opinions",
        name="--voters",
    )
    check_positive_int(args.m, "--m")
    if args.n_ballots is not None:  # None: derived from the number of items (plan_adaptive)
        check_positive_int(args.n_ballots, "--n-ballots")


def _simulate(args: argparse.Namespace) -> int:
    from sts_extras.annotation.simulation import (
        PUBLISHED_CODE_SETTINGS,
        simulate_campaigns,
        trace_adaptive_campaign,
    )

    _check_simulate_counts(args)
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
    result = simulate_campaigns(
        args.distribution, n_reps=args.reps, progress=args.progress, **common
    )
    if figure_path is not None:
        from sts_extras.cli.annotate_plot import plot_ballot_scores

        path, image_format = figure_path
        # without `ax` the figure is a new matplotlib Figure (never a SubFigure)
        figure = cast(
            "Figure", plot_ballot_scores(trace_adaptive_campaign(args.distribution, **common))
        )
        image = io.BytesIO()
        figure.savefig(image, format=image_format, dpi=150)
        with user_file("write", path, "--figure"):
            atomic_write_bytes(path.resolve(), image.getvalue())
    if args.format == "json":
        print(json.dumps(result.summary(), indent=2))
    else:
        print(result.format_table(compare=z is None))
        plan = result.adaptive_plan
        if plan.derived:  # say so: the table's design is not the paper's default
            print(
                f"note: adaptive design alpha = {plan.alpha:g}, n_b = {plan.n_ballots} "
                f"({' and '.join(plan.derived)} derived from the {plan.n_items} items)"
            )
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
