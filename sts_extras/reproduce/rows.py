"""One row of ``sts-extras reproduce``: a published number beside ours.

Every paper module of :mod:`sts_extras.reproduce` returns a list of :class:`ReproducedRow`; the
command prints them as one table ("paper value | ours | difference | why it may differ") and
writes them as Markdown and JSON. A row is either computed here (``ours`` is a number), or needs
what this machine may not have (the network, a vectors file): then ``ours`` is None, ``status`` is
``"needs network"`` (or ``"needs data"``) and ``command`` is the exact command that reproduces it.
Its ``basis`` says what a match shows (:data:`RowBasis`): a recomputation through sts-extras, a
check of the package's copy of a dataset, or only arithmetic on numbers the paper itself prints.
A row whose ``ours`` averages independent simulation runs (:func:`monte_carlo_row`) keeps the
runs' values and compares the paper's one run with them within their Monte Carlo error.
Such a row may also carry a :class:`LeaderboardReading`: what to read from the ``leaderboard.json``
its ``sts-extras leaderboard`` command writes, so that ``sts-extras reproduce --source NAME=PATH``
(or ``--online``) can run the command and fill ``ours``
(:mod:`sts_extras.reproduce.network`).
"""

from __future__ import annotations

import dataclasses
import math
import shlex
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "BASES",
    "LeaderboardReading",
    "MONTE_CARLO_LEVEL",
    "ReproducedRow",
    "RowBasis",
    "RowStatus",
    "Statistic",
    "computed_row",
    "monte_carlo_row",
    "network_row",
]

RowStatus = Literal["match", "differs (explained)", "needs network", "needs data"]
#: What a row's ``ours`` is, so what its match shows:
#:
#: * ``"recomputed"``: sts-extras' own code computes it (a statistic, a model or word vectors, the
#:   vote simulator, readability through ``describe``), from the paper's data or inputs;
#: * ``"packaged data"``: counted or read in the package's copy of the paper's dataset (a check
#:   of that copy against what the paper says about it);
#: * ``"arithmetic on printed numbers"``: a sum, mean, count or textbook formula applied to
#:   numbers the paper itself prints; a match shows the paper is consistent with itself (and our
#:   transcription of it), not that sts-extras computes anything right.
RowBasis = Literal["recomputed", "packaged data", "arithmetic on printed numbers"]
#: The bases, in the order the report counts them.
BASES: tuple[RowBasis, ...] = ("recomputed", "packaged data", "arithmetic on printed numbers")
#: Two-sided level of a Monte Carlo row's interval: that of ±3 standard errors of a normal.
MONTE_CARLO_LEVEL = 0.9973
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
    basis : RowBasis, default "recomputed"
        What ``ours`` is (:data:`RowBasis`): recomputed through sts-extras, read from the
        packaged data, or arithmetic on numbers the paper prints.
    replicates : tuple of float, default ()
        For a Monte Carlo row (:func:`monte_carlo_row`): the value of each independent run (one
        per seed), whose mean is ``ours``; empty when ``ours`` is one computation.
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
    basis: RowBasis = "recomputed"
    replicates: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.basis not in BASES:
            raise ValueError(f"{self.paper}: {self.quantity}: unknown basis {self.basis!r}.")

    @property
    def difference(self) -> float | None:
        """``ours - paper_value``, or None when ``ours`` was not computed."""
        return None if self.ours is None else self.ours - self.paper_value

    @property
    def standard_error(self) -> float | None:
        """The Monte Carlo standard error of ``ours``: the sd of the ``replicates`` over the
        square root of their number (None for a row that is not a Monte Carlo row)."""
        if len(self.replicates) < 2:
            return None
        return statistics.stdev(self.replicates) / math.sqrt(len(self.replicates))


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
    basis: RowBasis = "recomputed",
) -> ReproducedRow:
    """A row computed here; its status is ``"match"`` when ``|ours - paper_value| <= tolerance``,
    else ``"differs (explained)"`` (then ``why_may_differ`` must say why). ``vectors`` names the
    word vectors ``ours`` comes from, when it comes from any; ``basis`` what ``ours`` is
    (:data:`RowBasis`)."""
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
        basis=basis,
    )


def monte_carlo_row(
    paper: str,
    quantity: str,
    paper_value: float,
    replicates: Sequence[float],
    *,
    run: str,
    why_may_differ: str = "",
    level: float = MONTE_CARLO_LEVEL,
) -> ReproducedRow:
    """A row whose ``ours`` is the mean of independent simulation runs (one per seed), compared
    with the paper's one run of the same simulation within their Monte Carlo error.

    With :math:`k` runs of mean :math:`\\bar x` and standard deviation :math:`s` (the Monte
    Carlo error of one run, measured over the seeds), the paper's value is a match when it lies
    in the prediction interval of one more run,
    :math:`\\bar x \\pm t_{k-1} \\, s \\sqrt{1 + 1/k}`, with :math:`t_{k-1}` the quantile of
    Student's t with :math:`k - 1` degrees of freedom at the two-sided ``level`` (99.73 %: that of
    ±3 standard errors of a normal; a consistent row falls outside by chance 3 times in 1000).
    It is not :math:`\\bar x \\pm 3\\,s/\\sqrt{k}`: the paper's value is one run, with the
    whole Monte Carlo error :math:`s` of a run, and that interval would shrink to nothing with
    more seeds. The row's ``tolerance_reason`` gives :math:`k`, :math:`t_{k-1}`, :math:`s` and
    the standard error of ours, :math:`s/\\sqrt{k}`.

    Parameters
    ----------
    paper, quantity, paper_value, why_may_differ
        As :func:`computed_row` takes them.
    replicates : sequence of float
        The value of each run (at least 2, finite), kept in the row.
    run : str
        What one run is, for the reason (e.g. "one run of 50 repetitions, seeds 0-9").
    level : float, default 0.9973
        Two-sided level of the interval.

    Examples
    --------
    >>> row = monte_carlo_row("lombardo", "q", 0.80, [0.79, 0.81, 0.80, 0.82, 0.78], run="a run")
    >>> row.ours, row.status, round(row.tolerance, 4), round(row.standard_error, 4)
    (0.8, 'match', 0.1147, 0.0071)
    """
    from scipy import stats  # heavier than the rest of this module; needed only here

    values = tuple(float(value) for value in replicates)
    if len(values) < 2 or not all(math.isfinite(value) for value in values):
        raise ValueError(f"{paper}: {quantity}: needs at least 2 finite replicates.")
    if not 0 < level < 1:
        raise ValueError(f"{paper}: {quantity}: level must be in (0, 1), got {level!r}.")
    k = len(values)
    spread = statistics.stdev(values)
    quantile = float(stats.t.ppf(0.5 + level / 2, k - 1))
    tolerance = quantile * spread * math.sqrt(1 + 1 / k)
    reason = (
        f"{100 * level:g}% prediction interval of one run like the paper's, "
        f"t({k - 1}) {quantile:.3g} × s × √(1 + 1/{k}): s = {spread:.3g}, the sd over {k} "
        f"seeds of {run} (the Monte Carlo error of one run); the standard error of ours, "
        f"s/√{k}, is {spread / math.sqrt(k):.2g}"
    )
    row = computed_row(
        paper,
        quantity,
        paper_value,
        statistics.fmean(values),
        tolerance=tolerance,
        tolerance_reason=reason,
        why_may_differ=why_may_differ,
    )
    return dataclasses.replace(row, replicates=values)


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
