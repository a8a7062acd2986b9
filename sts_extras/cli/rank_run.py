"""``sts-extras rank``: the adapter from the command-line options to
:func:`sts_extras.rank.pipeline.rank_models`; prints the summary and the top of the ranking."""

from __future__ import annotations

import argparse
import sys

from sts_extras.rank.pipeline import rank_models
from sts_extras.rank.reports import summary_lines

__all__ = ["run"]

#: Rows of the ranking printed (all of them are in the reports).
_SHOWN = 20


def run(args: argparse.Namespace) -> int:
    """Rank, write the reports, print the summary; exit status 0."""
    kwargs = {}
    if args.tasks is not None:
        kwargs["tasks"] = args.tasks
    ranking = rank_models(
        args.directories,
        output=args.output,
        seed=args.seed,
        n_resamples=args.n_resamples,
        alpha=args.alpha,
        rope=args.rope,
        threshold=args.threshold,
        incomplete=args.incomplete,
        figures=not args.no_figures,
        figure_formats=[part.strip() for part in args.figure_format.split(",") if part.strip()],
        figure_top=args.figure_top,
        revisions=args.revisions,
        **kwargs,
    )
    for line in summary_lines(ranking):
        print(line)
    print()
    print("rank  set        mean    model")
    for model in ranking.models[:_SHOWN]:
        interval = f"[{model.rank_low}, {model.rank_high}]"
        own = " (own run)" if model.treatment == "item-level" else ""
        print(f"{model.rank:>4}  {interval:<10} {model.mean_score:.4f}  {model.model}{own}")
    if len(ranking.models) > _SHOWN:
        print(f"... {len(ranking.models) - _SHOWN} more in ranking.md")
    print(f"Reports written to {ranking.output.resolve()}", file=sys.stderr)
    return 0
