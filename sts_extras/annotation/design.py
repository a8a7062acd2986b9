"""Planning pairwise vote-collection campaigns: uniform and adaptive designs.

Implements the counting rules of Lombardo et al. (2020) [1]_: the uniform item selection of
§2.4, the adaptive, ballot-by-ballot selection of §2.5 (Eq. 2-4) and the heuristic parameter
bounds of §2.7, plus the random pair lists of one ballot in which every item appears ``M`` times.

Counting convention: ``n_comparisons`` is the paper's :math:`N_{comp}` of Eq. 3, the number of
*pairs* shown to voters (one vote each). The paper's §4.2 quotes ":math:`N_{comp}` = 39000" for
the design 990 items, M = 20, alpha = 0.5, n_b = 7, which Eq. 3 puts at 19 660 pairs; 39 000
counts item-comparisons (two per pair, 39 320 exactly), which is what the authors' published
simulation does. :attr:`CampaignPlan.n_item_comparisons` gives that count too.

References
----------
.. [1] P. Lombardo, A. Boiardi, L. Colombo, A. Schiavone and N. Tamagnone, "Top-Rank-Focused
   Adaptive Vote Collection for the Evaluation of Domain-Specific Semantic Models", Proc. EMNLP
   2020, pp. 3081-3093.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sts_extras._validation import check_open_unit_interval, check_positive_int, check_seed
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.limits import MAX_BALLOTS, MAX_PAIRS  # re-exported: their old home

__all__ = [
    "MAX_BALLOTS",
    "MAX_PAIRS",
    "DEFAULT_ALPHA",
    "DEFAULT_N_BALLOTS",
    "MIN_LAST_BALLOT",
    "CampaignPlan",
    "DesignWarning",
    "adaptive_defaults",
    "ballot_sizes",
    "clean_label",
    "clean_labels",
    "draw_pairs",
    "plan_adaptive",
    "plan_uniform",
    "round_half_up",
]


#: The paper's design (§4.2): alpha = 0.5 over n_b = 7 ballots -- the defaults where they fit.
DEFAULT_ALPHA = 0.5
DEFAULT_N_BALLOTS = 7
#: Fewest items a ballot can hold: its pairs are drawn among its own items.
MIN_LAST_BALLOT = 2
# alpha values tried, in order, when the default leaves too few items: round numbers, and 0.75
# always works (round_half_up(0.75 * k) >= 2 for every k >= 2, so the sizes never drop below 2)
_ALPHA_STEPS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75)


class DesignWarning(UserWarning):
    """A campaign parameter lies outside the heuristic ranges of §2.7 in Lombardo et al."""


def round_half_up(value: float) -> int:
    """The paper's ``round``: nearest integer, halves rounded up (``round_half_up(15.5) == 16``).

    Python's built-in ``round`` rounds halves to even; the two agree on the paper's design
    (990 -> 495 -> 248 -> 124 -> 62 -> 31 -> 16) but not in general.
    """
    return math.floor(value + 0.5)


def clean_label(label: Hashable) -> Hashable:
    """``label`` with surrounding whitespace stripped if it is a string; blank -> None (missing).

    Item names and the tie label are compared after this, everywhere (votes, ``items``, the
    command line's ``--items`` file), so ``" a "`` and ``"a"`` are one item and a blank cell is
    a missing label, never an item named ``""``.
    """
    if isinstance(label, str):
        label = label.strip()
        return label or None
    return label


def clean_labels(labels: NDArray[np.object_]) -> NDArray[np.object_]:
    """:func:`clean_label` of each element of an object array."""
    # fromiter keeps tuple labels as single elements (assigning a list could broadcast them)
    return np.fromiter((clean_label(label) for label in labels), dtype=object, count=labels.size)


@dataclass(frozen=True)
class CampaignPlan:
    """Counts of a vote-collection campaign (Eq. 2-4 in Lombardo et al.).

    Attributes
    ----------
    approach : {"adaptive", "uniform"}
        Adaptive (§2.5, ``n_ballots`` ballots) or uniform (§2.4, one ballot) item selection.
    n_items : int
        :math:`N_{items}`, items (pairs of texts or tokens) to rank.
    m : int
        :math:`M`, times each item of a ballot is shown to voters in that ballot. For the
        uniform design this is :math:`M_{unif}`, the votes of every item.
    alpha : float or None
        :math:`\\alpha`, fraction of a ballot's items selected for the next ballot (None for
        the uniform design).
    n_ballots : int
        :math:`n_b` (1 for the uniform design).
    items_per_ballot : tuple of int
        :math:`N_{items}^{(k)}`, Eq. 2: ``round(alpha * N^(k-1))`` items in ballot ``k``.
    pairs_per_ballot : tuple of int
        Pairs shown in ballot ``k``: :math:`\\lceil M N^{(k)}_{items} / 2 \\rceil` (when both
        are odd one item appears ``M + 1`` times, footnote 6).
    n_comparisons : int
        :math:`N_{comp}`, Eq. 3: total pairs (votes) of the campaign.
    n_comparisons_approx : float
        The closed form of Eq. 3, :math:`\\frac{1-\\alpha^{n_b}}{2(1-\\alpha)} M N_{items}`.
    m_top : int
        :math:`M_{top} = n_b M`, Eq. 4: votes of an item that survives to the last ballot.
    m_unif : float
        :math:`M_{unif} = 2 N_{comp} / N_{items}`: votes per item of a uniform campaign with the
        same number of comparisons.
    m_top_approx : float or None
        :math:`(1-\\alpha) n_b M_{unif}`, the right-hand side of Eq. 4 (adaptive only).
    advice : tuple of str
        The §2.7 heuristics that this plan breaks, each with the numbers (also issued as
        :class:`DesignWarning`).
    derived : tuple of str
        The parameters (``"n_ballots"``, ``"alpha"``) that were not given and were derived from
        ``n_items`` because the paper's default leaves fewer than :data:`MIN_LAST_BALLOT` items
        in the last ballot (:func:`adaptive_defaults`); empty when the given values or the
        paper's defaults are used.
    """

    approach: str
    n_items: int
    m: int
    alpha: float | None
    n_ballots: int
    items_per_ballot: tuple[int, ...]
    pairs_per_ballot: tuple[int, ...]
    n_comparisons: int
    n_comparisons_approx: float
    m_top: int
    m_unif: float
    m_top_approx: float | None
    advice: tuple[str, ...] = ()
    derived: tuple[str, ...] = ()

    @property
    def n_item_comparisons(self) -> int:
        """Item-comparisons, two per pair: the count the paper's §4.2 calls N_comp = 39000."""
        return 2 * self.n_comparisons

    @property
    def top_fraction(self) -> float:
        """Fraction of the items that reach the last ballot, :math:`N^{(n_b)}/N_{items}`."""
        return self.items_per_ballot[-1] / self.n_items

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python view (lists instead of tuples), e.g. for JSON output."""
        data = asdict(self)
        for key, value in data.items():
            if isinstance(value, tuple):
                data[key] = list(value)
        data["n_item_comparisons"] = self.n_item_comparisons
        data["top_fraction"] = self.top_fraction
        return data

    def describe(self) -> str:
        """A short human-readable report of the plan (used by ``sts-extras annotate plan``)."""
        lines = [f"{self.approach} design for {self.n_items} items"]
        if self.approach == "adaptive":
            lines += [
                f"  alpha = {self.alpha:g}, n_b = {self.n_ballots}, M = {self.m} per ballot",
                *self._derived_lines(),
                "  items per ballot (Eq. 2): " + ", ".join(map(str, self.items_per_ballot)),
                "  pairs per ballot:         " + ", ".join(map(str, self.pairs_per_ballot)),
                f"  N_comp (Eq. 3): {self.n_comparisons} pairs = {self.n_item_comparisons} "
                f"item-comparisons (closed form {self.n_comparisons_approx:.1f} pairs)",
                f"  M_top (Eq. 4): {self.m_top} votes per top item; a uniform campaign of the "
                f"same size gives M_unif = {self.m_unif:.2f} (approximation (1-alpha) n_b M_unif "
                f"= {self.m_top_approx:.1f})",
                f"  items reaching the last ballot: {self.items_per_ballot[-1]} "
                f"({100 * self.top_fraction:.1f}%)",
            ]
        else:
            lines += [
                f"  M_unif = {self.m} votes per item",
                f"  N_comp: {self.n_comparisons} pairs = {self.n_item_comparisons} "
                "item-comparisons",
            ]
        lines += [f"  warning: {text}" for text in self.advice]
        return "\n".join(lines)

    def _derived_lines(self) -> list[str]:
        """Say which parameters were derived from the number of items, and how."""
        fewest = "alpha" in self.derived  # even 2 ballots empty the last one at alpha = 0.5
        why = {
            "n_ballots": f"n_b = {self.n_ballots} derived from the {self.n_items} items: "
            + (
                f"the fewest ballots; no n_b keeps {MIN_LAST_BALLOT} items at alpha = "
                f"{DEFAULT_ALPHA:g}"
                if fewest
                else f"the largest n_b <= {DEFAULT_N_BALLOTS} that keeps at least "
                f"{MIN_LAST_BALLOT} items in the last ballot"
            ),
            "alpha": f"alpha = {self.alpha:g} derived from the {self.n_items} items: the "
            f"smallest of {', '.join(f'{step:g}' for step in _ALPHA_STEPS)} that keeps at least "
            f"{MIN_LAST_BALLOT} items in the last of {self.n_ballots} ballots",
        }
        return [f"  ({why[name]})" for name in self.derived]


def ballot_sizes(n_items: int, alpha: float, n_ballots: int) -> tuple[int, ...]:
    """Items in each ballot of an adaptive campaign (Eq. 2 in Lombardo et al.).

    :math:`N^{(1)} = N_{items}` and :math:`N^{(k)} = \\mathrm{round}(\\alpha N^{(k-1)})`, with
    halves rounded up.

    Parameters
    ----------
    n_items : int
        Items of the first ballot (at least 2).
    alpha : float
        Fraction of items selected at each ballot, in (0, 1).
    n_ballots : int
        Number of ballots, at least 1.

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> ballot_sizes(990, 0.5, 7)
    (990, 495, 248, 124, 62, 31, 16)
    """
    n_items = check_positive_int(n_items, "n_items", minimum=2)
    alpha = check_open_unit_interval(alpha, "alpha")
    n_ballots = check_positive_int(n_ballots, "n_ballots")
    if n_ballots > MAX_BALLOTS:
        raise UserInputError(
            f"`n_ballots` must be at most {MAX_BALLOTS} (ballots shrink by alpha until rounding "
            f"keeps their size fixed; the paper uses 7), got {n_ballots}."
        )
    sizes = [n_items]
    for _ in range(n_ballots - 1):
        sizes.append(round_half_up(alpha * sizes[-1]))
    return tuple(sizes)


def adaptive_defaults(
    n_items: int, alpha: float | None = None, n_ballots: int | None = None
) -> tuple[float, int, tuple[str, ...]]:
    """``alpha`` and ``n_ballots`` of an adaptive campaign over ``n_items``, the missing derived.

    The paper's design is alpha = 0.5 over 7 ballots (:data:`DEFAULT_ALPHA`,
    :data:`DEFAULT_N_BALLOTS`); on few items it leaves fewer than :data:`MIN_LAST_BALLOT` items
    in the last ballot (50 items: 50, 25, 13, 7, 4, 2, 1). A value not given is derived so that
    every accepted ``n_items`` gets a plan:

    * ``n_ballots`` not given: the largest ``n_b <= 7`` whose last ballot keeps at least 2 items
      at ``alpha`` (the given one, else 0.5);
    * ``alpha`` not given: 0.5 if it fits ``n_ballots``, else the smallest of 0.55, 0.6, ...,
      0.75 that does (0.75 always does).

    Given values are returned as they are: one that does not fit is refused by
    :func:`plan_adaptive` with the numbers.

    Parameters
    ----------
    n_items : int
        :math:`N_{items}`, at least 2.
    alpha : float, optional
    n_ballots : int, optional

    Returns
    -------
    (alpha, n_ballots, derived)
        ``derived`` names the parameters whose value differs from the paper's default because
        it was derived (empty for 990 items, and whenever both are given).

    Examples
    --------
    >>> adaptive_defaults(990)
    (0.5, 7, ())
    >>> adaptive_defaults(50)
    (0.5, 6, ('n_ballots',))
    >>> adaptive_defaults(2)
    (0.75, 2, ('n_ballots', 'alpha'))
    """
    n_items = check_positive_int(n_items, "n_items", minimum=2)
    if alpha is not None:
        alpha = check_open_unit_interval(alpha, "alpha")

    def fits(alpha: float, n_ballots: int) -> bool:
        return ballot_sizes(n_items, alpha, n_ballots)[-1] >= MIN_LAST_BALLOT

    derived = []
    if n_ballots is None:
        trial = DEFAULT_ALPHA if alpha is None else alpha
        fitting = (count for count in range(DEFAULT_N_BALLOTS, 1, -1) if fits(trial, count))
        # none fits (2 items at alpha 0.5, or a small given alpha): 2 ballots, the fewest
        # adaptive; a given alpha is then refused by plan_adaptive, a default one derived below
        n_ballots = next(fitting, 2)
        if n_ballots != DEFAULT_N_BALLOTS:
            derived.append("n_ballots")
    if alpha is None:
        n_ballots = check_positive_int(n_ballots, "n_ballots")
        alpha = next((step for step in _ALPHA_STEPS if fits(step, n_ballots)), DEFAULT_ALPHA)
        if alpha != DEFAULT_ALPHA:
            derived.append("alpha")
    return alpha, n_ballots, tuple(derived)


def _pairs_for(n_items: int, m: int) -> int:
    return (n_items * m + 1) // 2  # ceil: odd M x odd N adds one pair (footnote 6)


def _m_from_budget(n_comparisons: int | None, item_slots: int, name: str = "n_comparisons") -> int:
    n_comparisons = check_positive_int(n_comparisons, name)
    m = round_half_up(2 * n_comparisons / item_slots)
    if m < 1:
        raise UserInputError(
            f"`{name}` = {n_comparisons} pairs is too few: it gives M = "
            f"2 * {n_comparisons} / {item_slots} < 0.5 appearances per item and ballot."
        )
    return m


def _resolve_m(m: int | None, n_comparisons: int | None, item_slots: int) -> int:
    if (m is None) == (n_comparisons is None):
        raise UserInputError(
            "Give exactly one of `m` (appearances per item and ballot) and `n_comparisons` "
            f"(total pairs, Eq. 3); got m={m!r}, n_comparisons={n_comparisons!r}."
        )
    if m is not None:
        return check_positive_int(m, "m")
    return _m_from_budget(n_comparisons, item_slots)


def _emit(advice: list[str]) -> tuple[str, ...]:
    for text in advice:
        warnings.warn(text, DesignWarning, stacklevel=3)
    return tuple(advice)


def plan_adaptive(
    n_items: int,
    *,
    alpha: float | None = None,
    n_ballots: int | None = None,
    m: int | None = None,
    n_comparisons: int | None = None,
) -> CampaignPlan:
    """Plan an adaptive campaign (§2.5 and Eq. 2-4 in Lombardo et al.) and check §2.7.

    Give either ``m`` (appearances of each item in each ballot) or ``n_comparisons`` (the
    budget in pairs); ``M`` is then the nearest integer to :math:`2 N_{comp} / \\sum_k N^{(k)}`
    and the plan reports the exact count of that ``M``.

    Parameters
    ----------
    n_items : int
        :math:`N_{items}`, at least 2.
    alpha : float, optional
        Fraction of each ballot's items that go on to the next ballot, in (0, 1). Default: the
        paper's 0.5, or when that leaves fewer than 2 items in the last ballot of ``n_ballots``,
        the smallest of 0.55, 0.6, ..., 0.75 that does not (:func:`adaptive_defaults`).
    n_ballots : int, optional
        :math:`n_b`, at least 2. Default: the paper's 7, or the largest smaller count whose
        last ballot keeps at least 2 items (50 items: 6 ballots, 25, 13, 7, 4, 2 items after
        the first); :attr:`CampaignPlan.derived` says which values were derived.
    m : int, optional
        :math:`M`. The paper recommends an even value (footnote 6).
    n_comparisons : int, optional
        :math:`N_{comp}` in pairs (Eq. 3).

    Returns
    -------
    CampaignPlan

    Raises
    ------
    sts_extras.errors.UserInputError
        A ``ValueError``: if ``alpha`` is not in (0, 1), ``n_ballots < 2``, the last ballot would
        hold fewer than 2 items, or not exactly one of ``m`` / ``n_comparisons`` is given.

    Warns
    -----
    DesignWarning
        For each heuristic of §2.7 the plan breaks: more than 10 ballots; more than 10% of the
        items reaching the last ballot (:math:`\\alpha \\lesssim 0.1^{1/(n_b-1)}`);
        :math:`M_{top} < 100` (:math:`N_{comp} \\gtrsim 50 N_{items}/[(1-\\alpha) n_b]`); an odd
        ``M`` with ballots of an odd number of items.

    Notes
    -----
    .. math::

        N^{(k)} = \\mathrm{round}(\\alpha N^{(k-1)}), \\qquad
        N_{comp} = \\sum_{k=1}^{n_b} \\frac{M N^{(k)}}{2}, \\qquad M_{top} = n_b M

    (Eq. 2, 3 and 4 in [1]_); a ballot with ``M`` and :math:`N^{(k)}` both odd has one more pair.

    References
    ----------
    .. [1] Lombardo et al., "Top-Rank-Focused Adaptive Vote Collection for the Evaluation of
       Domain-Specific Semantic Models", EMNLP 2020.

    Examples
    --------
    >>> plan = plan_adaptive(990, alpha=0.5, n_ballots=7, m=20)
    >>> plan.items_per_ballot
    (990, 495, 248, 124, 62, 31, 16)
    >>> plan.n_comparisons, plan.n_item_comparisons, plan.m_top
    (19660, 39320, 140)
    >>> plan_adaptive(50, m=8).items_per_ballot  # n_b = 6 derived: 7 would leave 1 item
    (50, 25, 13, 7, 4, 2)
    """
    n_items = check_positive_int(n_items, "n_items", minimum=2)
    alpha, n_ballots, derived = adaptive_defaults(n_items, alpha, n_ballots)
    alpha = check_open_unit_interval(alpha, "alpha")
    n_ballots = check_positive_int(n_ballots, "n_ballots")
    if n_ballots < 2:
        raise UserInputError(
            f"`n_ballots` must be at least 2 for the adaptive approach (§2.7), got {n_ballots}; "
            "use plan_uniform for a single ballot."
        )
    sizes = ballot_sizes(n_items, alpha, n_ballots)
    if sizes[-1] < 2:
        lower = (2 / n_items) ** (1 / (n_ballots - 1))
        raise UserInputError(
            f"`alpha` = {alpha:g} with n_ballots = {n_ballots} leaves {sizes[-1]} item(s) in the "
            f"last ballot (sizes {', '.join(map(str, sizes))}); at least 2 are needed, i.e. "
            f"alpha >~ (2/N_items)^(1/(n_b-1)) = {lower:.3f} (§2.7), or fewer ballots."
        )
    m = _resolve_m(m, n_comparisons, sum(sizes))
    pairs = tuple(_pairs_for(size, m) for size in sizes)
    total = sum(pairs)
    m_unif = 2 * total / n_items
    advice = []
    if n_ballots > 10:
        advice.append(
            f"n_ballots = {n_ballots} > 10: every ballot interrupts the collection; §2.7 "
            "suggests n_b <~ 10."
        )
    upper = 0.1 ** (1 / (n_ballots - 1))
    if sizes[-1] > 0.1 * n_items:
        advice.append(
            f"{sizes[-1]} of {n_items} items ({100 * sizes[-1] / n_items:.1f}%) reach the last "
            f"ballot; §2.7 asks for at most 10%, i.e. alpha <~ 0.1^(1/(n_b-1)) = {upper:.3f} "
            f"(alpha = {alpha:g})."
        )
    if n_ballots * m < 100:
        needed = 50 * n_items / ((1 - alpha) * n_ballots)
        advice.append(
            f"M_top = n_b * M = {n_ballots * m} < 100 votes per top item; §2.7 asks for "
            f"M_top >~ 100, i.e. M >= {math.ceil(100 / n_ballots)} or "
            f"N_comp >~ 50 N_items / ((1 - alpha) n_b) = {needed:.0f} pairs (this plan: {total})."
        )
    odd = [k + 1 for k, size in enumerate(sizes) if size % 2 == 1]
    if m % 2 == 1 and odd:
        advice.append(
            f"M = {m} is odd and ballot(s) {', '.join(map(str, odd))} have an odd number of "
            f"items, so one item of each appears M + 1 = {m + 1} times; the paper recommends "
            "an even M (footnote 6)."
        )
    return CampaignPlan(
        approach="adaptive",
        n_items=n_items,
        m=m,
        alpha=alpha,
        n_ballots=n_ballots,
        items_per_ballot=sizes,
        pairs_per_ballot=pairs,
        n_comparisons=total,
        n_comparisons_approx=(1 - alpha**n_ballots) / (2 * (1 - alpha)) * m * n_items,
        m_top=n_ballots * m,
        m_unif=m_unif,
        m_top_approx=(1 - alpha) * n_ballots * m_unif,
        advice=_emit(advice),
        derived=derived,
    )


def plan_uniform(
    n_items: int, *, m: int | None = None, n_comparisons: int | None = None
) -> CampaignPlan:
    """Plan a uniform campaign (§2.4 in Lombardo et al.): every item shown ``M`` times.

    Give either ``m`` or the budget ``n_comparisons`` in pairs; ``M`` is then the nearest integer
    to :math:`M_{unif} = 2 N_{comp} / N_{items}`. This is how the paper's uniform baseline is
    matched to an adaptive plan: ``plan_uniform(990, n_comparisons=19660)`` gives every item 40
    votes (19 800 pairs).

    Parameters
    ----------
    n_items : int
        :math:`N_{items}`, at least 2.
    m : int, optional
        Votes per item.
    n_comparisons : int, optional
        Budget in pairs.

    Returns
    -------
    CampaignPlan
        With ``n_ballots = 1`` and ``alpha = None``.

    Examples
    --------
    >>> plan = plan_uniform(990, n_comparisons=19660)
    >>> plan.m, plan.n_comparisons
    (40, 19800)
    """
    n_items = check_positive_int(n_items, "n_items", minimum=2)
    m = _resolve_m(m, n_comparisons, n_items)
    total = _pairs_for(n_items, m)
    advice = []
    if m % 2 == 1 and n_items % 2 == 1:
        advice.append(
            f"M = {m} and N_items = {n_items} are both odd, so one item appears M + 1 = {m + 1} "
            "times; the paper recommends an even M (footnote 6)."
        )
    return CampaignPlan(
        approach="uniform",
        n_items=n_items,
        m=m,
        alpha=None,
        n_ballots=1,
        items_per_ballot=(n_items,),
        pairs_per_ballot=(total,),
        n_comparisons=total,
        n_comparisons_approx=m * n_items / 2,
        m_top=m,
        m_unif=2 * total / n_items,
        m_top_approx=None,
        advice=_emit(advice),
    )


def draw_pair_indices(n_items: int, m: int, rng: np.random.Generator) -> NDArray[np.intp]:
    """Random pairs of ``range(n_items)`` in which every item appears ``m`` times.

    Each pair of appearances comes from a random Hamiltonian cycle through all items (item
    ``p[j]`` meets ``p[j+1]`` and ``p[j-1]``), so no item meets itself and, for three or more
    items, no pair repeats within a cycle. An odd ``m`` adds a random perfect matching; with an
    odd number of items its left-over item meets a random other one, which thus appears
    ``m + 1`` times (footnote 6 of Lombardo et al.).
    """
    half, odd = divmod(m, 2)
    blocks = []
    if half:
        cycles = rng.permuted(np.tile(np.arange(n_items), (half, 1)), axis=1)
        blocks.append(np.column_stack([cycles.ravel(), np.roll(cycles, -1, axis=1).ravel()]))
    if odd:
        order = rng.permutation(n_items)
        even = n_items - n_items % 2
        blocks.append(order[:even].reshape(-1, 2))
        if n_items % 2:
            left_over = order[-1]
            partner = order[rng.integers(0, n_items - 1)]
            blocks.append(np.array([[left_over, partner]]))
    pairs = np.concatenate(blocks, axis=0)
    pairs = pairs[rng.permutation(len(pairs))]
    flip = rng.random(len(pairs)) < 0.5  # random left/right position in the question
    pairs[flip] = pairs[flip, ::-1]
    return pairs


def draw_pairs(
    items: int | Sequence[Hashable], m: int, *, seed: int | np.random.Generator | None = 0
) -> NDArray[np.generic]:
    """Draw the pair list of one ballot: every item appears ``m`` times (§2.4-2.5).

    Parameters
    ----------
    items : int or sequence
        The ballot's items: a count ``n`` (items ``0 .. n-1``) or their labels (distinct).
    m : int
        Appearances of every item. If ``m`` and the number of items are both odd, one item
        appears ``m + 1`` times (footnote 6 of Lombardo et al.).
    seed : int, numpy.random.Generator or None, default 0
        Same seed, same pairs (``None``: fresh entropy).

    Returns
    -------
    numpy.ndarray
        Shape ``(ceil(n * m / 2), 2)``: one row per comparison, in random order, items in random
        left/right position. An item never meets itself; with fewer than ``m + 1`` items some
        pairs necessarily repeat.

    Raises
    ------
    sts_extras.errors.UserInputError
        A ``ValueError``: fewer than 2 items, a blank label, two labels equal once surrounding
        whitespace is stripped (:func:`score_votes` would merge them), or more than
        :data:`MAX_PAIRS` pairs (checked before anything is allocated).

    Examples
    --------
    >>> pairs = draw_pairs(["a", "b", "c", "d", "e"], 4, seed=0)
    >>> pairs.shape
    (10, 2)
    >>> sorted({str(item): int((pairs == item).sum()) for item in "abcde"}.items())
    [('a', 4), ('b', 4), ('c', 4), ('d', 4), ('e', 4)]
    """
    m = check_positive_int(m, "m")
    rng = check_seed(seed)
    if isinstance(items, (int, np.integer)) and not isinstance(items, bool):
        n_items = check_positive_int(items, "items", minimum=2)
        _check_pair_count(n_items, m)
        return draw_pair_indices(n_items, m, rng)
    if isinstance(items, (str, bytes, bool)):
        raise UserInputTypeError(f"`items` must be a count or a sequence of labels, got {items!r}.")
    labels = np.asarray(list(items))
    if labels.ndim != 1:
        labels = np.empty(len(items), dtype=object)
        labels[:] = list(items)
    if labels.size < 2:
        raise UserInputError(f"`items` needs at least 2 items to pair, got {labels.size}.")
    cleaned = clean_labels(labels.astype(object)).tolist()
    if None in cleaned:
        position = cleaned.index(None)
        raise UserInputError(f"`items` holds a blank or missing label at position {position}.")
    if len(set(cleaned)) != labels.size:
        raise UserInputError(
            "`items` must be distinct labels (compared without surrounding whitespace); some "
            "label appears twice."
        )
    _check_pair_count(labels.size, m)
    return labels[draw_pair_indices(labels.size, m, rng)]


def _check_pair_count(n_items: int, m: int) -> None:
    """Refuse a ballot larger than :data:`MAX_PAIRS` before allocating it."""
    n_pairs = _pairs_for(n_items, m)
    if n_pairs > MAX_PAIRS:
        raise UserInputError(
            f"`m` = {m} appearances of {n_items} items make {n_pairs} pairs in one ballot; at "
            f"most {MAX_PAIRS} are drawn (about 200 bytes of memory each while drawing and "
            "writing them). Lower `m` or split the items into several campaigns."
        )
