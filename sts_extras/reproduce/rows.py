"""One row of ``sts-extras reproduce``: a published number beside ours.

Every paper module of :mod:`sts_extras.reproduce` returns a list of :class:`ReproducedRow`; the
command prints them as one table ("paper value | ours | difference | why it may differ") and
writes them as Markdown and JSON. A row is either computed here (``ours`` is a number), or needs
what this machine may not have (the network, a vectors file): then ``ours`` is None, ``status`` is
``"needs network"`` (or ``"needs data"``) and ``command`` is the exact command that reproduces it.
Such a row may also carry a :class:`LeaderboardReading`: what to read from the ``leaderboard.json``
its ``sts-extras leaderboard`` command writes, so that ``sts-extras reproduce --source NAME=PATH``
(or ``--online``) can run the command and fill ``ours``
(:mod:`sts_extras.reproduce.network`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "LeaderboardReading",
    "ReproducedRow",
    "RowStatus",
    "Statistic",
    "computed_row",
    "network_row",
]

RowStatus = Literal["match", "differs (explained)", "needs network", "needs data"]
#: The statistics a reading takes, by their keys in ``leaderboard.json``'s ``"results"``.
Statistic = Literal["pearson", "spearman"]


@dataclass(frozen=True)
class LeaderboardReading:
    """Where a row's number is in the ``leaderboard.json`` its ``sts-extras leaderboard`` command
    writes, and how it is compared once read.

    Attributes
    ----------
    source : str
        The word of the row's command that ``--source NAME=PATH`` replaces: a gensim-downloader
        name or vector file name after ``--vectors``, a Hub id after ``--model``, or a
        placeholder for data that was never published.
    task : str
        The task's name in ``leaderboard.json`` (``"DSCS"``, ``"STS12"``).
    statistic : {"pearson", "spearman"}
        The key of the number in the task's result record.
    model : str or None
        The method's display name (``"avg-cos"``, ``"DynaMax-Jaccard-SIF"``): the result whose
        model is named exactly that or that followed by `` (``vectors``)``, as ``--vectors`` runs
        name their models. None: the run's only model (a ``--model`` run, whose display name
        depends on where the model was loaded from).
    tolerance, tolerance_reason : float, str
        As :func:`computed_row` takes them: the paper's printed decimals.
    why_may_differ : str
        What still differs between the paper's setting and the run (required: a number read
        from another setting is never expected to match by construction).
    scale : float, default 100
        ``leaderboard.json`` stores correlations in [-1, 1]; the papers print percent.
    """

    source: str
    task: str
    statistic: Statistic
    model: str | None
    tolerance: float
    tolerance_reason: str
    why_may_differ: str
    scale: float = 100.0

    def __post_init__(self) -> None:
        if self.statistic not in ("pearson", "spearman") or not self.why_may_differ:
            raise ValueError(f"reading of {self.task}: bad statistic or no explanation.")

    def selects(self, model: str) -> bool:
        """Does the result of the model named ``model`` hold this reading's number?"""
        return self.model is None or model == self.model or model.startswith(f"{self.model} (")


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
    reading : LeaderboardReading or None
        For a row whose command is an ``sts-extras leaderboard`` run: what to read from its
        ``leaderboard.json`` when the command is run (None: the command is only printed).
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
    reading: LeaderboardReading | None = None

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
    reading: LeaderboardReading | None = None,
) -> ReproducedRow:
    """A row that needs the network (or data not shipped): ``ours`` is None, ``command`` is what
    reproduces it where the data and vectors are reachable, and ``reading`` (if given) says what
    to read from that command's ``leaderboard.json`` (its ``source`` must be a word of it)."""
    if reading is not None and reading.source not in shlex.split(command):
        raise ValueError(f"{paper}: {quantity}: {reading.source!r} is not in {command!r}.")
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
        reading=reading,
    )
