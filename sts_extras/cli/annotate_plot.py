"""Figure of an adaptive campaign: scores of each ballot against the theoretical rank.

The analogue of Fig. 4 in Lombardo et al. (2020): the Borda scores :math:`x^{(k)}_i` of the
first ballots and the final :math:`\\bar y_i` (Eq. 5) as functions of the theoretical rank.
matplotlib is imported only when a figure is drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sts_extras._validation import check_positive_int
from sts_extras.annotation.simulation import BallotTrace
from sts_extras.errors import UserInputTypeError
from sts_extras.optional import requires_extra

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure

__all__ = ["plot_ballot_scores"]


def plot_ballot_scores(
    trace: BallotTrace, *, n_ballots_shown: int = 5, log_rank: bool = True, ax: Axes | None = None
) -> Figure | SubFigure:
    """Plot :math:`x^{(k)}_i` of the first ballots and :math:`\\bar y_i` vs theoretical rank.

    Parameters
    ----------
    trace : BallotTrace
        From :func:`~sts_extras.annotation.simulation.trace_adaptive_campaign`.
    n_ballots_shown : int, default 5
        Ballots drawn (the paper's Fig. 4 shows 5).
    log_rank : bool, default True
        Logarithmic rank axis, which spreads out the top ranks the adaptive design targets.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made when omitted.

    Returns
    -------
    matplotlib.figure.Figure
        The figure ``ax`` belongs to (a ``SubFigure`` if ``ax`` is in one), else a new one.
    """
    with requires_extra("figures"):
        from matplotlib.figure import Figure

    if not isinstance(trace, BallotTrace):
        raise UserInputTypeError(f"`trace` must be a BallotTrace, got {type(trace).__name__}.")
    n_ballots_shown = check_positive_int(n_ballots_shown, "n_ballots_shown")
    figure: Figure | SubFigure
    if ax is None:
        figure = Figure(figsize=(7.0, 4.5), layout="constrained")
        ax = figure.add_subplot()
    else:
        figure = ax.figure
    for k, x in enumerate(trace.raw_scores[:n_ballots_shown], start=1):
        shown = ~np.isnan(x)
        ax.scatter(trace.theoretical_rank[shown], x[shown], s=5, alpha=0.6, label=f"$x^{{({k})}}$")
    ax.scatter(trace.theoretical_rank, trace.final_scores, s=5, color="black", label=r"$\bar{y}$")
    if log_rank:
        ax.set_xscale("log")
    ax.set_xlabel("theoretical rank")
    ax.set_ylabel("score")
    ax.set_title("Scores per ballot in a simulated adaptive campaign")
    ax.legend(markerscale=3, fontsize="small")
    return figure
