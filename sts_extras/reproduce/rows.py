"""One row of ``sts-extras reproduce``: a published number beside ours.

Every paper module of :mod:`sts_extras.reproduce` returns a list of :class:`ReproducedRow`; the
command prints them as one table ("paper value | ours | difference | why it may differ") and
writes them as Markdown and JSON. A row is either computed here (``ours`` is a number), or needs
what this machine may not have (the network, a vectors file): then ``ours`` is None, ``status`` is
``"needs network"`` (or ``"needs data"``) and ``command`` is the exact command that reproduces it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["ReproducedRow", "RowStatus", "computed_row", "network_row"]

RowStatus = Literal["match", "differs (explained)", "needs network", "needs data"]


@dataclass(frozen=True)
class ReproducedRow:
    """A published number and ours.

    Attributes
    ----------
    paper : str
        The paper's key: ``"dscs"``, ``"stss131"``, ``"scaled-pearson"``, ``"lombardo"`` or
        ``"dynamax"``.
    quantity : str
        What the number is, as the paper names it (e.g. ``"Table 4, GloVe, Pearson (DSCS)"``).
    paper_value : float
        The value printed in the paper, on the scale printed there.
    ours : float or None
        Our value on the same scale, or None when it cannot be computed here (see ``command``).
    tolerance : float
        The largest ``|ours - paper_value|`` that counts as a match.
    tolerance_reason : str
        Why that tolerance (e.g. "the paper prints 2 decimals: half a unit of the last digit").
    why_may_differ : str
        What differs between the paper's setting and ours (empty when nothing does).
    status : RowStatus
        ``"match"`` (within tolerance), ``"differs (explained)"`` (outside it, ``why_may_differ``
        says why), ``"needs network"`` / ``"needs data"`` (not computed here).
    command : str or None
        The command that reproduces the row where data and vectors are reachable.
    vectors : str or None
        The word vectors ``ours`` was computed with (their name and provenance), if any.
    """

    paper: str
    quantity: str
    paper_value: float
    ours: float | None
    tolerance: float
    tolerance_reason: str
    why_may_differ: str
    status: RowStatus
    command: str | None = None
    vectors: str | None = None

    @property
    def difference(self) -> float | None:
        """``ours - paper_value``, or None when ``ours`` was not computed."""
        return None if self.ours is None else self.ours - self.paper_value


def computed_row(
    paper: str,
    quantity: str,
    paper_value: float,
    ours: float,
    *,
    tolerance: float,
    tolerance_reason: str,
    why_may_differ: str = "",
    vectors: str | None = None,
) -> ReproducedRow:
    """A row computed here; its status is ``"match"`` when ``|ours - paper_value| <= tolerance``,
    else ``"differs (explained)"`` (then ``why_may_differ`` must say why). ``vectors`` names the
    word vectors ``ours`` comes from, when it comes from any."""
    within = abs(float(ours) - float(paper_value)) <= tolerance
    if not within and not why_may_differ:
        raise ValueError(f"{paper}: {quantity}: outside its tolerance with no explanation.")
    return ReproducedRow(
        paper=paper,
        quantity=quantity,
        paper_value=float(paper_value),
        ours=float(ours),
        tolerance=float(tolerance),
        tolerance_reason=tolerance_reason,
        why_may_differ=why_may_differ,
        status="match" if within else "differs (explained)",
        vectors=vectors,
    )


def network_row(
    paper: str,
    quantity: str,
    paper_value: float,
    *,
    command: str,
    why_may_differ: str = "",
    status: RowStatus = "needs network",
) -> ReproducedRow:
    """A row that needs the network (or data not shipped): ``ours`` is None, ``command`` is what
    reproduces it where the data and vectors are reachable."""
    return ReproducedRow(
        paper=paper,
        quantity=quantity,
        paper_value=float(paper_value),
        ours=None,
        tolerance=0.0,
        tolerance_reason="",
        why_may_differ=why_may_differ,
        status=status,
        command=command,
    )
