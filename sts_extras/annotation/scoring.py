"""Scoring pairwise votes: Borda win ratios, between-ballot rescaling and running averages.

Implements §2.4 and §2.6 of Lombardo et al. (2020) [1]_: the Borda score (win ratio) of Eq. 1
with ties counting half (footnote 4), the linear rescaling of Eq. 6 constrained to
:math:`f^{(k)}(1) = 1`, and the running average :math:`\\bar y^{(k)}` of Eq. 5; the items of the
next ballot are the top :math:`\\mathrm{round}(\\alpha N^{(k)})` of the current ballot by
:math:`\\bar y^{(k)}`.

The authors' published simulation differs from these equations in two places, and this module
follows the paper: their running average leaves out the first ballot's score of the items that
survive it, and they select the next ballot by the current ballot's raw :math:`x^{(k)}` rather than
by :math:`\\bar y^{(k)}`.

References
----------
.. [1] P. Lombardo, A. Boiardi, L. Colombo, A. Schiavone and N. Tamagnone, "Top-Rank-Focused
   Adaptive Vote Collection for the Evaluation of Domain-Specific Semantic Models", Proc. EMNLP
   2020, pp. 3081-3093.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import as_paired_vectors, check_choice, check_open_unit_interval
from sts_extras.annotation.design import clean_label, clean_labels, round_half_up
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.limits import MAX_BALLOTS

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["UPDATES", "RescaledScores", "VoteScoresResult", "rescale_scores", "score_votes"]

VOTE_COLUMNS = ("item_a", "item_b", "winner", "ballot")

#: Score-update rules: ``"paper"`` follows Eq. 5 and selects the next ballot by
#: :math:`\bar y^{(k)}`; ``"published-code"`` is what the authors' simulation does: the running
#: average of the items that survive ballot 1 leaves out their ballot-1 score
#: (:math:`\bar y^{(k)} = \frac{1}{k-1}\sum_{k'=2}^{k} y^{(k')}` for k >= 2, with Eq. 6 still
#: fitted against it) and the next ballot is the top of the current ballot's raw
#: :math:`x^{(k)}`.
UPDATES = ("paper", "published-code")


@dataclass(frozen=True)
class RescaledScores:
    """Output of :func:`rescale_scores`.

    Attributes
    ----------
    scores : numpy.ndarray
        :math:`y^{(k)}_i = 1 - \\hat b^{(k)} + \\hat b^{(k)} x^{(k)}_i`.
    slope : float
        :math:`\\hat b^{(k)}` of Eq. 6.
    """

    scores: NDArray[np.float64]
    slope: float


def rescale_scores(x: ArrayLike, previous_mean: ArrayLike) -> RescaledScores:
    """Rescale one ballot's Borda scores onto the previous ballots' scale (Eq. 6).

    The map :math:`f^{(k)}(x) = 1 - \\hat b + \\hat b x` is the least-squares line through the
    points :math:`(x^{(k)}_j, \\bar y^{(k-1)}_j)` of the ballot's items constrained to pass through
    :math:`(1, 1)`, so that :math:`f^{(k)}(1) = 1`.

    Parameters
    ----------
    x : array_like
        :math:`x^{(k)}_j`, the Borda scores of the items of ballot ``k`` (Eq. 1).
    previous_mean : array_like
        :math:`\\bar y^{(k-1)}_j` of the same items, in the same order (Eq. 5).

    Returns
    -------
    RescaledScores

    Raises
    ------
    sts_extras.errors.UserInputError
        A ``ValueError``: if the inputs differ in length or hold NaN, or if every
        :math:`x_j = 1` (the slope is then undefined; it cannot happen with two or more items and
        one winner per vote).

    Notes
    -----
    .. math::

        \\hat b^{(k)} = \\frac{\\sum_j [1 - x^{(k)}_j][1 - \\bar y^{(k-1)}_j]}
                             {\\sum_j [1 - x^{(k)}_j]^2}

    (Eq. 6 in [1]_).

    References
    ----------
    .. [1] Lombardo et al., "Top-Rank-Focused Adaptive Vote Collection for the Evaluation of
       Domain-Specific Semantic Models", EMNLP 2020.

    Examples
    --------
    >>> result = rescale_scores([1.0, 0.5, 0.0], [1.0, 0.75, 0.5])
    >>> result.slope
    0.5
    >>> result.scores.tolist()
    [1.0, 0.75, 0.5]
    """
    x, previous_mean = as_paired_vectors(min_size=1, x=x, previous_mean=previous_mean)
    slope = _slope(x, previous_mean)
    return RescaledScores(scores=1.0 - slope + slope * x, slope=slope)


def _slope(x: NDArray[np.float64], previous_mean: NDArray[np.float64]) -> float:
    lost = 1.0 - x
    denominator = float(lost @ lost)
    if denominator == 0.0:
        raise UserInputError(
            "Eq. 6 is undefined when every item of the ballot has Borda score x = 1 "
            f"({x.size} item(s)); a ballot with two or more items always has a loser."
        )
    return float(lost @ (1.0 - previous_mean)) / denominator


class BallotScorer:
    """Running state of an adaptive campaign over integer item codes ``0 .. n_items-1``.

    The single implementation of Eq. 1, 5 and 6 and of the selection rule, shared by
    :func:`score_votes` (real votes) and the simulation of §4.2. Items not (yet) in a ballot
    hold NaN internally; public outputs say so explicitly.
    """

    def __init__(
        self, n_items: int, tiebreak: NDArray[np.integer] | None = None, update: str = "paper"
    ) -> None:
        self.n_items = n_items
        self.update = update
        # order key for equal scores: lower key ranks first (stable, like the authors' sort)
        self.tiebreak = np.arange(n_items) if tiebreak is None else tiebreak
        self.mean = np.full(n_items, np.nan)
        self.last_ballot = np.zeros(n_items, dtype=np.int64)
        self.votes = np.zeros(n_items, dtype=np.int64)
        self.wins = np.zeros(n_items, dtype=np.int64)
        self.ties = np.zeros(n_items, dtype=np.int64)
        self.raw: list[NDArray[np.float64]] = []
        self.slopes: list[float] = []
        self.current = np.zeros(0, dtype=np.int64)

    @property
    def n_ballots(self) -> int:
        return len(self.raw)

    def add_ballot(
        self, item_a: NDArray[np.int64], item_b: NDArray[np.int64], points_a: NDArray[np.float64]
    ) -> None:
        """Score one ballot: ``points_a`` is 1 (a wins), 0 (b wins) or 0.5 (tie) per vote."""
        n = self.n_items
        appearances = np.bincount(item_a, minlength=n) + np.bincount(item_b, minlength=n)
        points = np.bincount(item_a, weights=points_a, minlength=n) + np.bincount(
            item_b, weights=1.0 - points_a, minlength=n
        )
        tie = points_a == 0.5
        ties = np.bincount(item_a[tie], minlength=n) + np.bincount(item_b[tie], minlength=n)
        present = np.flatnonzero(appearances)
        x = np.full(n, np.nan)
        x[present] = points[present] / appearances[present]  # Eq. 1 with ties as 1/2
        k = self.n_ballots + 1
        if k == 1:
            self.mean[present] = x[present]
        else:
            previous = self.mean[present]
            slope = _slope(x[present], previous)  # Eq. 6
            y = 1.0 - slope + slope * x[present]
            if self.update == "paper":
                self.mean[present] = ((k - 1) * previous + y) / k  # Eq. 5
            else:  # published code: ballot 1 left out of the survivors' average
                self.mean[present] = ((k - 2) * previous + y) / (k - 1)
            self.slopes.append(slope)
        self.raw.append(x)
        self.votes += appearances
        self.wins += np.rint(points - 0.5 * ties).astype(np.int64)
        self.ties += ties
        self.last_ballot[present] = k
        self.current = present

    def order(
        self, candidates: NDArray[np.intp], key: NDArray[np.float64] | None = None
    ) -> NDArray[np.intp]:
        """``candidates`` best first by ``key`` (default: running mean), ties by ``tiebreak``."""
        key = self.mean if key is None else key
        return candidates[np.lexsort((self.tiebreak[candidates], -key[candidates]))]

    def selection_key(self) -> NDArray[np.float64]:
        """Score that picks the next ballot: running mean (paper) or raw x (published code)."""
        return self.mean if self.update == "paper" else self.raw[-1]

    def n_selected(self, alpha: float) -> int:
        return round_half_up(alpha * self.current.size)

    def select(self, alpha: float) -> NDArray[np.intp]:
        """Items of the next ballot: top round(alpha * N^(k)) of the current ballot."""
        return self.order(self.current, self.selection_key())[: self.n_selected(alpha)]

    def ranking(self) -> NDArray[np.intp]:
        """Every scored item, best first (a permutation: ties broken by ``tiebreak``)."""
        return self.order(np.flatnonzero(self.votes))


@dataclass(frozen=True)
class VoteScoresResult:
    """Output of :func:`score_votes`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per voted item, best first, with columns ``rank`` (1 = best; equal scores are
        ordered by item order, so ranks are a permutation), ``item``, ``score`` (the final
        :math:`\\bar y_i`, Eq. 5), ``last_ballot``, ``votes`` (comparisons the item took part
        in), ``wins``, ``ties`` and ``x_1 .. x_K``, the Borda scores of each ballot (Eq. 1; NaN
        where the item was not in that ballot).
    ballot_sizes : tuple of int
        Items voted on in each ballot.
    slopes : tuple of float
        :math:`\\hat b^{(k)}` of Eq. 6 for ballots 2 .. K.
    alpha : float or None
        The selection fraction used for the checks and :attr:`next_items`.
    next_items : tuple
        Items of the next ballot: the top ``round(alpha * N^(K))`` of the last ballot by score
        (empty when ``alpha`` is None).
    unvoted_items : tuple
        Items listed in ``items`` that received no vote (left out of ``table``).
    """

    table: pd.DataFrame
    ballot_sizes: tuple[int, ...]
    slopes: tuple[float, ...]
    alpha: float | None
    next_items: tuple[Hashable, ...]
    unvoted_items: tuple[Hashable, ...] = ()


def _row(index: int) -> str:
    return f"row {index} (0-based; line {index + 2} of a CSV file with a header)"


def _votes_frame(votes: pd.DataFrame | Mapping[str, ArrayLike]) -> pd.DataFrame:
    import pandas as pd

    if isinstance(votes, pd.DataFrame):
        frame = votes
    elif isinstance(votes, Mapping):
        frame = pd.DataFrame(dict(votes))
    else:
        raise UserInputTypeError(
            "`votes` must be a pandas DataFrame or a mapping of columns with item_a, item_b, "
            f"winner and optionally ballot; got {type(votes).__name__}."
        )
    missing = [column for column in VOTE_COLUMNS[:3] if column not in frame.columns]
    if missing:
        raise UserInputError(
            f"`votes` lacks column(s) {', '.join(missing)}; expected item_a, item_b, winner "
            f"and optionally ballot, got columns {list(frame.columns)}."
        )
    if len(frame) == 0:
        raise UserInputError("`votes` has no rows.")
    frame = frame.reset_index(drop=True)  # a new frame: the caller's table is left as it was
    for column in VOTE_COLUMNS[:3]:
        frame[column] = clean_labels(frame[column].to_numpy(dtype=object))
    return frame


def _first_bad(mask: NDArray[np.bool_]) -> int | None:
    bad = np.flatnonzero(mask)
    return int(bad[0]) if bad.size else None


def _encode_items(
    frame: pd.DataFrame, items: Iterable[Hashable] | None
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.object_]]:
    """Integer codes of item_a / item_b and the label of each code."""
    import pandas as pd

    raw_a = frame["item_a"].to_numpy(dtype=object)
    raw_b = frame["item_b"].to_numpy(dtype=object)
    for name, column in (("item_a", raw_a), ("item_b", raw_b)):
        bad = _first_bad(pd.isna(column))
        if bad is not None:
            raise UserInputError(f"Vote {_row(bad)}: `{name}` is missing.")
    if items is None:
        interleaved = np.column_stack([raw_a, raw_b]).ravel()
        codes, labels = pd.factorize(interleaved)  # first appearance order
        labels = np.asarray(labels, dtype=object)
        code_a, code_b = codes[0::2], codes[1::2]
    else:
        if isinstance(items, (str, bytes)):
            raise UserInputTypeError(f"`items` must be a sequence of item labels, got {items!r}.")
        labels = clean_labels(np.asarray(list(items), dtype=object))
        blank = _first_bad(pd.isna(labels))
        if blank is not None:
            raise UserInputError(f"`items` holds a blank or missing label at position {blank}.")
        index = pd.Index(labels)
        if not index.is_unique:
            raise UserInputError("`items` must hold distinct labels; some label appears twice.")
        # pandas-stubs ask an Index; get_indexer takes any array (it wraps it in one)
        code_a = index.get_indexer(raw_a)  # type: ignore[arg-type]
        code_b = index.get_indexer(raw_b)  # type: ignore[arg-type]
        for name, codes, column in (("item_a", code_a, raw_a), ("item_b", code_b, raw_b)):
            bad = _first_bad(codes < 0)
            if bad is not None:
                raise UserInputError(
                    f"Vote {_row(bad)}: `{name}` = {column[bad]!r} is not one of the "
                    f"{labels.size} known `items`."
                )
    same = _first_bad(code_a == code_b)
    if same is not None:
        raise UserInputError(f"Vote {_row(same)}: item {raw_a[same]!r} is compared with itself.")
    return code_a.astype(np.int64), code_b.astype(np.int64), labels


def _check_tie_label(
    labels: NDArray[np.object_], code_a: NDArray[np.int64], code_b: NDArray[np.int64], tie: Hashable
) -> None:
    """Refuse an item named like the tie label: its wins and the ties could not be told apart."""
    clash = next((code for code, label in enumerate(labels) if label == tie), None)
    if clash is None:
        return
    row = _first_bad((code_a == clash) | (code_b == clash))
    item = f"Vote {_row(row)}: item" if row is not None else "Item of `items`"
    raise UserInputError(
        f"{item} {labels[clash]!r} has the same name as the tie label {tie!r}, so a "
        f"winner {tie!r} would be ambiguous; choose another tie label (`tie_label`, "
        "--tie-label on the command line)."
    )


def _points(frame: pd.DataFrame, tie_label: Hashable) -> NDArray[np.float64]:
    import pandas as pd

    winner = frame["winner"].to_numpy(dtype=object)
    raw_a = frame["item_a"].to_numpy(dtype=object)
    raw_b = frame["item_b"].to_numpy(dtype=object)
    missing = pd.isna(winner)
    is_a = ~missing & (winner == raw_a)
    is_b = ~missing & (winner == raw_b)
    is_tie = ~missing & (winner == tie_label) & ~is_a & ~is_b
    bad = _first_bad(~(is_a | is_b | is_tie))
    if bad is not None:
        value = "is missing, so it is" if missing[bad] else f"= {winner[bad]!r} is"
        raise UserInputError(
            f"Vote {_row(bad)}: `winner` {value} neither item_a "
            f"({raw_a[bad]!r}) nor item_b ({raw_b[bad]!r}) nor the tie label {tie_label!r}."
        )
    return np.where(is_a, 1.0, np.where(is_b, 0.0, 0.5))


def _ballots(frame: pd.DataFrame) -> NDArray[np.int64]:
    import pandas as pd

    if "ballot" not in frame.columns:
        return np.ones(len(frame), dtype=np.int64)
    column = frame["ballot"].to_numpy(dtype=object)
    # True is no ballot number (to_numeric would read it as 1), nor is "1_000"
    not_bool = np.array([not isinstance(value, (bool, np.bool_)) for value in column], dtype=bool)
    numeric = pd.to_numeric(frame["ballot"].where(not_bool), errors="coerce").to_numpy(dtype=float)
    # np.arange below allocates up to the largest ballot: it must stay within MAX_BALLOTS
    valid = (
        not_bool
        & np.isfinite(numeric)
        & (numeric == np.round(numeric))
        & (numeric >= 1)
        & (numeric <= MAX_BALLOTS)
    )
    bad = _first_bad(~valid)
    if bad is not None:
        raise UserInputError(
            f"Vote {_row(bad)}: `ballot` = {frame['ballot'].iloc[bad]!r} is not an integer "
            f"from 1 to {MAX_BALLOTS}."
        )
    ballots = numeric.astype(np.int64)
    present = np.unique(ballots)
    expected = np.arange(1, present.max() + 1)
    if present.size != expected.size:
        absent = sorted(set(expected.tolist()) - set(present.tolist()))
        raise UserInputError(
            f"`ballot` numbers must run 1, 2, ..., K without gaps; ballot(s) {absent} have no "
            f"votes (found {present.tolist()})."
        )
    return ballots


def _check_selection(
    scorer: BallotScorer,
    k: int,
    in_ballot: NDArray[np.intp],
    alpha: float,
    rows: NDArray[np.intp],
    code_a: NDArray[np.int64],
    code_b: NDArray[np.int64],
    labels: NDArray[np.object_],
) -> None:
    """Ballot ``k``'s items must be among the top round(alpha N^(k-1)) of ballot k-1."""
    n_select = scorer.n_selected(alpha)
    key = scorer.selection_key()
    ranked = scorer.order(scorer.current, key)
    if n_select < 2:
        raise UserInputError(
            f"Ballot {k - 1} has {scorer.current.size} items, so round(alpha * "
            f"{scorer.current.size}) = {n_select} < 2 items can go on to ballot {k} "
            f"(alpha = {alpha:g}); at least 2 are needed for a comparison."
        )
    cutoff = key[ranked[n_select - 1]]
    allowed = np.zeros(scorer.n_items, dtype=bool)
    allowed[scorer.current] = key[scorer.current] >= cutoff  # ties at the cut allowed
    ok_a, ok_b = allowed[code_a[rows]], allowed[code_b[rows]]
    bad = _first_bad(~(ok_a & ok_b))
    if bad is not None:
        item = labels[(code_a if not ok_a[bad] else code_b)[rows][bad]]
        raise UserInputError(
            f"Vote {_row(int(rows[bad]))}: item {item!r} is in ballot {k} but was not "
            f"selected: ballot {k} may only hold the top round({alpha:g} * "
            f"{scorer.current.size}) = {n_select} items of ballot {k - 1} by score."
        )
    if in_ballot.size > n_select:
        raise UserInputError(
            f"Ballot {k} holds {in_ballot.size} items but only round({alpha:g} * "
            f"{scorer.current.size}) = {n_select} are selected from ballot {k - 1}."
        )
    if in_ballot.size < n_select:
        warnings.warn(
            f"Ballot {k} has votes for {in_ballot.size} of the {n_select} items selected from "
            f"ballot {k - 1}; the others keep their score from ballot {k - 1}.",
            UserWarning,
            stacklevel=4,
        )


def score_votes(
    votes: pd.DataFrame | Mapping[str, ArrayLike],
    *,
    alpha: float | None = 0.5,
    items: Iterable[Hashable] | None = None,
    tie_label: Hashable = "tie",
    update: str = "paper",
) -> VoteScoresResult:
    """Rank items from pairwise votes collected in one (uniform) or several (adaptive) ballots.

    For each ballot ``k`` the Borda score :math:`x^{(k)}_i` (Eq. 1, ties count half) is rescaled
    onto the scale of the previous ballots (Eq. 6, :math:`f^{(k)}(1) = 1`) and averaged
    (Eq. 5); items are ranked by their last running average :math:`\\bar y_i`.

    Parameters
    ----------
    votes : pandas.DataFrame or mapping of columns
        One row per vote with columns ``item_a``, ``item_b``, ``winner`` (equal to ``item_a`` or
        ``item_b``, or ``tie_label``) and optionally ``ballot`` (1, 2, ..., K; all 1 when absent).
    alpha : float or None, default 0.5
        Fraction selected at each ballot. Ballot ``k > 1`` may only hold the top
        ``round(alpha * N^(k-1))`` items of ballot ``k - 1`` (items tied with the last selected
        one are accepted), and :attr:`VoteScoresResult.next_items` lists the next ballot's items.
        None skips both.
    items : sequence, optional
        Every item label of the campaign; votes naming another item are an error, and listed
        items without votes are reported in ``unvoted_items``. Equal scores are ranked in this
        order (default: order of first appearance in ``votes``).
    tie_label : object, default "tie"
        Value of ``winner`` that marks a tie. No item may have this name (an error: a winner
        equal to it would be ambiguous).
    update : {"paper", "published-code"}, default "paper"
        Score-update rule, see :data:`UPDATES`: the paper's Eq. 5 with selection by
        :math:`\\bar y`, or the authors' published simulation.

    Returns
    -------
    VoteScoresResult

    Raises
    ------
    sts_extras.errors.UserInputError
        A ``ValueError`` naming the row or parameter: an unknown item, a missing (or blank)
        label, an item named like ``tie_label``, an item compared with itself, a winner that is
        neither item nor a tie, a ballot number that is not 1..K, a ballot holding an item that
        was not selected or more items than selected, ``alpha`` outside (0, 1), or fewer than 2
        items selectable for a ballot.
    sts_extras.errors.UserInputTypeError
        A ``TypeError``: if ``votes`` is not a table.

    Notes
    -----
    String labels (in ``item_a``, ``item_b``, ``winner``, ``items`` and ``tie_label``) are
    compared with surrounding whitespace stripped, so ``" a "`` and ``"a"`` are one item, named
    ``"a"`` in the table; a blank string is a missing label.

    .. math::

        x_i = \\frac{n^w_i + n^t_i / 2}{M_i}, \\qquad
        y^{(k)}_i = 1 - \\hat b^{(k)} + \\hat b^{(k)} x^{(k)}_i, \\qquad
        \\bar y^{(k)}_i = \\frac{1}{k} \\sum_{k'=1}^{k} y^{(k')}_i

    (Eq. 1 with footnote 4, Eq. 6 and Eq. 5 in [1]_; :math:`y^{(1)} = x^{(1)}`).

    References
    ----------
    .. [1] Lombardo et al., "Top-Rank-Focused Adaptive Vote Collection for the Evaluation of
       Domain-Specific Semantic Models", EMNLP 2020.

    Examples
    --------
    >>> votes = {
    ...     "item_a": ["cat-dog", "cat-dog", "car-tree", "sun-moon", "car-tree", "sun-moon"],
    ...     "item_b": ["car-tree", "sun-moon", "sun-moon", "cat-dog", "cat-dog", "car-tree"],
    ...     "winner": ["cat-dog", "tie", "sun-moon", "cat-dog", "cat-dog", "sun-moon"],
    ... }
    >>> result = score_votes(votes, alpha=None)
    >>> result.table[["rank", "item", "score", "votes", "wins", "ties"]]
       rank      item  score  votes  wins  ties
    0     1   cat-dog  0.875      4     3     1
    1     2  sun-moon  0.625      4     2     1
    2     3  car-tree  0.000      4     0     0
    """
    import pandas as pd

    if alpha is not None:
        alpha = check_open_unit_interval(alpha, "alpha")
    check_choice(update, "update", UPDATES)
    tie_label = clean_label(tie_label)
    if tie_label is None:
        raise UserInputError("`tie_label` must not be blank or missing.")
    frame = _votes_frame(votes)
    code_a, code_b, labels = _encode_items(frame, items)
    _check_tie_label(labels, code_a, code_b, tie_label)
    points = _points(frame, tie_label)
    ballots = _ballots(frame)
    scorer = BallotScorer(labels.size, update=update)
    sizes = []
    for k in range(1, int(ballots.max()) + 1):
        rows = np.flatnonzero(ballots == k)
        in_ballot = np.unique(np.concatenate([code_a[rows], code_b[rows]]))
        if k > 1 and alpha is not None:
            _check_selection(scorer, k, in_ballot, alpha, rows, code_a, code_b, labels)
        scorer.add_ballot(code_a[rows], code_b[rows], points[rows])
        sizes.append(int(in_ballot.size))
    ranked = scorer.ranking()
    table = pd.DataFrame(
        {
            "rank": np.arange(1, ranked.size + 1),
            "item": pd.Series(labels[ranked], dtype=object).infer_objects(),
            "score": scorer.mean[ranked],
            "last_ballot": scorer.last_ballot[ranked],
            "votes": scorer.votes[ranked],
            "wins": scorer.wins[ranked],
            "ties": scorer.ties[ranked],
        }
    )
    for k, x in enumerate(scorer.raw, start=1):
        table[f"x_{k}"] = x[ranked]
    unvoted = tuple(labels[scorer.votes == 0].tolist())
    if unvoted:
        warnings.warn(
            f"{len(unvoted)} of the {labels.size} `items` have no votes and are left out of the "
            f"ranking (first: {unvoted[0]!r}).",
            UserWarning,
            stacklevel=2,
        )
    next_items: tuple[Hashable, ...] = ()
    if alpha is not None and scorer.n_selected(alpha) >= 2:
        next_items = tuple(labels[scorer.select(alpha)].tolist())
    return VoteScoresResult(
        table=table,
        ballot_sizes=tuple(sizes),
        slopes=tuple(scorer.slopes),
        alpha=alpha,
        next_items=next_items,
        unvoted_items=unvoted,
    )
