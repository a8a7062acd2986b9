"""Top-rank-weighted rank correlations ρ_w and τ_w (Lombardo et al., 2020, §3).

Both coefficients compare the ranking induced by the gold ``references`` with the ranking induced
by a system's ``predictions`` (rank 1 = highest score, ties get their average rank), with item
weights that favour the top of either ranking (eq. 9 of [1]):

    w_i = (f(a_i) + f(b_i)) / Σ_j (f(a_j) + f(b_j)),    f(n; n0) = 1 / (n + n0)².

``ρ_w`` is the weighted Pearson correlation of the ranks; ``τ_w`` is Kendall's general Γ (eq. 7)
with pair weights ``w_i w_j``, computed in O(n log n) time and O(n) memory.

References
----------
.. [1] P. Lombardo, A. Boiardi, L. Colombo, A. Schiavone and N. Tamagnone, "Top-Rank-Focused
   Adaptive Vote Collection for the Evaluation of Domain-Specific Semantic Models", Proceedings of
   EMNLP 2020, pp. 3081-3093. arXiv:2010.04486.
.. [2] S. Vigna, "A weighted correlation index for rankings with ties", Proceedings of the 24th
   International Conference on World Wide Web (WWW 2015), pp. 1166-1176.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any, Literal, overload

import numpy as np

from sts_extras._validation import (
    as_paired_vectors,
    check_non_negative_weights,
    check_not_constant,
)
from sts_extras.errors import UserInputError, UserInputTypeError

__all__ = [
    "WeightedRankCorrelationResult",
    "top_rank_weights",
    "weighted_kendall_tau",
    "weighted_rank_correlation",
]


@dataclass(frozen=True)
class WeightedRankCorrelationResult:
    """Result of :func:`weighted_rank_correlation`.

    Attributes
    ----------
    rho_w : float
        Top-rank-weighted Spearman ρ (eq. 8 of Lombardo et al. 2020), in [-1, 1].
    tau_w : float
        Top-rank-weighted Kendall τ (eq. 8, Γ normaliser of eq. 7 under ties), in [-1, 1].
    spearman : float
        Plain Spearman ρ (``scipy.stats.spearmanr``), reported alongside as in the paper's Table 2.
    kendall : float
        Plain Kendall τ-b (``scipy.stats.kendalltau``), reported alongside as in Table 2.
    n0 : float
        The weight offset used.
    n : int
        Number of items.
    """

    rho_w: float
    tau_w: float
    spearman: float
    kendall: float
    n0: float
    n: int


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------


def _check_n0(n0: Any) -> float:
    if isinstance(n0, bool) or not isinstance(n0, Real):
        raise UserInputTypeError(f"`n0` must be a non-negative number (or math.inf), got {n0!r}.")
    value = float(n0)
    if math.isnan(value) or value < 0:
        raise UserInputError(f"`n0` must be >= 0 (the offset of f(n) = 1/(n + n0)^2), got {n0!r}.")
    return value


def _weighted_rank_correlation_iv(predictions: Any, references: Any, n0: Any):
    predictions, references = as_paired_vectors(3, predictions=predictions, references=references)
    check_not_constant(references, "references", what="a rank correlation")
    check_not_constant(predictions, "predictions", what="a rank correlation")
    return predictions, references, _check_n0(n0)


# --------------------------------------------------------------------------------------------
# building blocks
# --------------------------------------------------------------------------------------------


def _index_type(n: int) -> type[np.signedinteger]:
    """The narrowest of int32 / int64 that holds 0..n: halves the memory of codes and indices."""
    return np.int32 if n < 2**31 else np.int64


@overload
def _rank_codes(
    x: np.ndarray, *, with_ranks: Literal[True] = ...
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]: ...
@overload
def _rank_codes(
    x: np.ndarray, *, with_ranks: Literal[False]
) -> tuple[np.ndarray, None, np.ndarray, bool]: ...
def _rank_codes(
    x: np.ndarray, *, with_ranks: bool = True
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, bool]:
    """Rank ``x`` with one sort.

    Written by hand rather than calling ``scipy.stats.rankdata`` twice because τ_w needs, from the
    same sort, the dense tie codes and the sort order as well as the average ranks.

    Returns
    -------
    codes : ndarray of int32 (int64 from 2^31 items on)
        Dense codes, 0 for the smallest value; equal values share a code.
    ranks : ndarray of float or None
        Average ranks in *descending* order of ``x`` (1 = largest value), as in eq. 9 of [1];
        None unless ``with_ranks``.
    order : ndarray of intp
        ``argsort(x)`` (order among equal values unspecified).
    has_ties : bool
    """
    n = x.size
    order = np.argsort(x)  # quicksort: the order inside a tie group never matters below
    is_new = np.empty(n, dtype=bool)
    is_new[0] = True
    x_sorted = x[order]
    np.not_equal(x_sorted[1:], x_sorted[:-1], out=is_new[1:])
    del x_sorted
    sorted_codes = np.cumsum(is_new, dtype=_index_type(n))
    sorted_codes -= 1
    codes = np.empty_like(sorted_codes)
    codes[order] = sorted_codes
    del sorted_codes
    starts = np.flatnonzero(is_new)
    has_ties = bool(starts.size < n)
    if not with_ranks:
        return codes, None, order, has_ties
    sizes = np.diff(np.append(starts, n))
    # ascending average rank of a tie group = start + (size + 1) / 2; descending = n + 1 - that
    group_rank = (n + 1) - (starts + (sizes + 1) / 2.0)
    return codes, group_rank[codes], order, has_ties


def _weights_from_ranks(a: np.ndarray, b: np.ndarray, n0: float) -> np.ndarray:
    """Additive weights of eq. 9 in [1] with f(n; n0) = 1/(n + n0)^2; n0 = inf -> uniform."""
    if math.isinf(n0):
        return np.full(a.size, 1.0 / a.size)
    w = 1.0 / (a + n0) ** 2 + 1.0 / (b + n0) ** 2
    return w / w.sum()


def _weighted_pearson(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> float:
    """ρ_w of eq. 8 in [1]: Σ w (a - ā)(b - b̄) / (σ_a σ_b) with normalised weights ``w``."""
    da = a - np.dot(w, a)
    db = b - np.dot(w, b)
    # centred form of σ_a² = Σ w_i (a_i² - ā²): same value, no cancellation
    denominator = math.sqrt(np.dot(w, da * da) * np.dot(w, db * db))
    return float(np.clip(np.dot(w, da * db) / denominator, -1.0, 1.0))


_CUMSUM_BLOCK = 1024


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """Σ a_i b_i single-threaded (BLAS dot threads contend badly on a busy machine)."""
    return np.einsum("i,i->", a, b)


def _blocked_cumsum_inplace(blocks: np.ndarray) -> np.ndarray:
    """Cumulative sum of ``blocks.ravel()``, in place, for a C-contiguous (m, B) array.

    Summing within blocks and then adding the running block offsets keeps every partial sum
    small, so the rounding error of element j grows like sqrt(B) + sqrt(j / B) ulps instead of
    sqrt(j): at n = 10⁶ this is what keeps τ_w within ~1e-15 of an extended-precision evaluation.
    """
    np.cumsum(blocks, axis=1, out=blocks)
    if blocks.shape[0] > 1:
        offsets = np.cumsum(blocks[:-1, -1])
        blocks[1:] += offsets[:, None]
    return blocks.reshape(-1)


def _padded_blocks(n: int) -> np.ndarray:
    """Zeroed (m, _CUMSUM_BLOCK) buffer whose first n raveled items hold a vector."""
    return np.zeros((-(-n // _CUMSUM_BLOCK), _CUMSUM_BLOCK))


def weighted_inversions(values: np.ndarray, weights: np.ndarray) -> float:
    """Σ w_i w_j over the pairs i < j with values[i] > values[j] (strictly), in O(n log m).

    ``values`` are non-negative integer codes (m = max + 1). scipy has no weighted inversion count
    with product weights (``weightedtau`` calls a Python weigher per item and is ~10x slower), so
    this is written by hand as a vectorised wavelet-matrix pass: at level k, the items are grouped
    by the bits of their value above bit k (each group is a contiguous run, items in original
    order); a pair is inverted at the highest bit where the two values differ, so for every item
    with bit k = 0 we add its weight times the weight of the earlier items of its group with bit
    k = 1. A stable partition by bit k then yields the grouping for the next level.
    """
    n = values.size
    if n < 2:
        return 0.0
    weight_blocks = _padded_blocks(n)
    weight_blocks.reshape(-1)[:n] = weights
    return _inversions_overwriting(values.astype(_index_type(n)), weight_blocks, n)


def _inversions_overwriting(level_values: np.ndarray, weight_blocks: np.ndarray, n: int) -> float:
    """:func:`weighted_inversions` of codes ``level_values`` and weights in ``weight_blocks``.

    Both arrays are used as work space and overwritten: with them, the pass holds five vectors
    of n (two of codes, three of weights, rotated between levels) and no per-level copies, which
    keeps τ_w under ~60 bytes per item.
    """
    n_bits = max(int(level_values.max()).bit_length(), 1)
    # Zero-padded (m, B) buffers for the blocked cumulative sums; the padding sits after item
    # n - 1 in the last block, and cumulative sums only look backwards, so what it holds is
    # harmless.
    ones_blocks, zeros_blocks = _padded_blocks(n), _padded_blocks(n)
    spare_values = np.empty_like(level_values)
    is_one = np.empty(n, dtype=bool)
    is_zero = np.empty(n, dtype=bool)
    total = 0.0
    for k in range(n_bits - 1, -1, -1):
        level_weights = weight_blocks.reshape(-1)[:n]
        ones_weight = ones_blocks.reshape(-1)[:n]
        zeros_weight = zeros_blocks.reshape(-1)[:n]
        np.not_equal(np.bitwise_and(level_values, 1 << k, out=spare_values), 0, out=is_one)
        np.logical_not(is_one, out=is_zero)
        np.multiply(level_weights, is_one, out=ones_weight)
        np.subtract(level_weights, ones_weight, out=zeros_weight)
        ones_cumsum = _blocked_cumsum_inplace(ones_blocks)[:n]
        # every 0-item times the 1-weight before it, ignoring group boundaries ...
        level_total = float(_dot(zeros_weight, ones_cumsum))
        if k < n_bits - 1:
            prefix = np.right_shift(level_values, k + 1, out=spare_values)
            before = np.flatnonzero(prefix[1:] != prefix[:-1])  # group starts - 1
            if before.size:
                # ... minus, per group, the 1-weight of earlier groups times the group's 0-weight
                zeros_cumsum = _blocked_cumsum_inplace(zeros_blocks)[:n]
                ones_before = ones_cumsum[before]
                # zeros_cumsum[ends] - zeros_cumsum[starts - 1], where the end of a group is the
                # next group's start - 1 (n - 1 for the last group)
                at_ends = zeros_cumsum[before]
                zeros_in_group = np.empty_like(at_ends)
                np.subtract(at_ends[1:], at_ends[:-1], out=zeros_in_group[:-1])
                zeros_in_group[-1] = zeros_cumsum[n - 1] - at_ends[-1]
                del before, at_ends
                level_total -= float(_dot(ones_before, zeros_in_group))
                del ones_before, zeros_in_group
        total += level_total
        if k:
            # stable partition, 0-items first, into the spare buffers (the zeros buffer is free)
            n_zeros = int(np.count_nonzero(is_zero))
            partitioned = zeros_blocks.reshape(-1)
            np.compress(is_zero, level_weights, out=partitioned[:n_zeros])
            np.compress(is_one, level_weights, out=partitioned[n_zeros:n])
            weight_blocks, zeros_blocks = zeros_blocks, weight_blocks
            np.compress(is_zero, level_values, out=spare_values[:n_zeros])
            np.compress(is_one, level_values, out=spare_values[n_zeros:])
            level_values, spare_values = spare_values, level_values
    return total


def _sum_of_squared_group_sums(weights: np.ndarray, group_starts: np.ndarray) -> float:
    sums = np.add.reduceat(weights, group_starts)
    return float(np.dot(sums, sums))


def _tau_parts(
    u: np.ndarray,
    v: np.ndarray,
    w: np.ndarray,
    order_u: np.ndarray,
    u_has_ties: bool,
    names: tuple[str, str] = ("x", "y"),
) -> tuple[np.ndarray, np.ndarray, float, float, float]:
    """Everything τ_w needs from dense codes ``u`` (first ranking), ``v`` (second), weights ``w``.

    With C / D the weighted concordant / discordant pair sums (i < j, pair weight w_i w_j):
    numerator = C - D = T - 2D, where T is the weight of pairs untied in both rankings, and the
    Γ normaliser is sqrt(U_u U_v) with U the weight of pairs untied in one ranking. Each of T, U
    follows from tie-group sums: Σ_{i<j, u_i≠u_j} w_i w_j = ((Σw)² - Σ_g (Σ_g w)²) / 2.

    Returns ``v`` and ``w`` in lexicographic (u, v) order (the second in padded blocks, work
    space for :func:`_inversions_overwriting`), then U_u, U_v and T. The inputs are no longer
    needed afterwards, so callers drop them before counting the inversions (peak memory).
    """
    n = u.size
    if u_has_ties:
        # lexicographic (u, v) order, so that pairs tied in u are never counted as inversions
        span = int(v.max()) + 1
        key = u.astype(_index_type((int(u.max()) + 1) * span)) * span + v
        order = np.argsort(key)
        del key
    else:
        order = order_u
    v_sorted = v[order]
    weight_blocks = _padded_blocks(n)
    w_sorted = np.take(w, order, out=weight_blocks.reshape(-1)[:n])

    square = float(w_sorted.sum()) ** 2
    v_sums = np.bincount(v_sorted, weights=w_sorted)
    tied_v = float(_dot(v_sums, v_sums))
    del v_sums
    if u_has_ties:
        u_sorted = u[order]
        new_u = np.empty(n, dtype=bool)
        new_u[0] = True
        np.not_equal(u_sorted[1:], u_sorted[:-1], out=new_u[1:])
        del u_sorted
        new_uv = new_u.copy()
        new_uv[1:] |= v_sorted[1:] != v_sorted[:-1]
        tied_u = _sum_of_squared_group_sums(w_sorted, np.flatnonzero(new_u))
        tied_uv = _sum_of_squared_group_sums(w_sorted, np.flatnonzero(new_uv))
    else:  # every tie group in u (and so in (u, v)) is a single item
        tied_u = tied_uv = float(_dot(w_sorted, w_sorted))
    untied_u = (square - tied_u) / 2.0
    untied_v = (square - tied_v) / 2.0
    untied_both = (square - tied_u - tied_v + tied_uv) / 2.0
    for name, untied in zip(names, (untied_u, untied_v)):
        if not untied > 0.0:
            raise UserInputError(
                f"τ_w is undefined: every pair of items with positive weight is tied in `{name}`."
            )
    return v_sorted, weight_blocks, untied_u, untied_v, untied_both


def _tau_from_parts(parts: tuple[np.ndarray, np.ndarray, float, float, float]) -> float:
    """τ_w = (T - 2D) / sqrt(U_u U_v) from :func:`_tau_parts` (whose arrays it overwrites)."""
    v_sorted, weight_blocks, untied_u, untied_v, untied_both = parts
    discordant = _inversions_overwriting(v_sorted, weight_blocks, v_sorted.size)
    tau = (untied_both - 2.0 * discordant) / math.sqrt(untied_u * untied_v)
    return float(min(1.0, max(-1.0, tau)))


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------


def top_rank_weights(predictions: Any, references: Any, *, n0: float = 2) -> np.ndarray:
    r"""Normalised additive item weights of Lombardo et al. (2020), eq. 9.

    Parameters
    ----------
    predictions, references : sequence of float
        Scores of the same items; each induces a ranking with rank 1 = highest score (ties get
        their average rank).
    n0 : float, default 2
        Offset of :math:`f(n; n_0) = 1/(n + n_0)^2`. ``math.inf`` gives uniform weights.

    Returns
    -------
    numpy.ndarray
        :math:`w_i = (f(a_i) + f(b_i)) / \sum_j (f(a_j) + f(b_j))`, summing to 1, in input order.

    Examples
    --------
    >>> from sts_extras.stats.ranking import top_rank_weights
    >>> top_rank_weights([3.0, 2.0, 1.0], [3.0, 2.0, 1.0]).round(4).tolist()
    [0.5202, 0.2926, 0.1873]
    """
    predictions, references, n0 = _weighted_rank_correlation_iv(predictions, references, n0)
    _, a, _, _ = _rank_codes(references)
    _, b, _, _ = _rank_codes(predictions)
    return _weights_from_ranks(a, b, n0)


def weighted_kendall_tau(x: Any, y: Any, weights: Any) -> float:
    r"""Weighted Kendall τ with product pair weights and Kendall's Γ normaliser, in O(n log n).

    .. math::

        \tau_w = \frac{\sum_{i,j} w_i w_j \,\mathrm{sign}(x_j - x_i)\,\mathrm{sign}(y_j - y_i)}
                      {\sqrt{\sum_{i,j} w_i w_j [x_i \ne x_j] \;\sum_{i,j} w_i w_j [y_i \ne y_j]}}

    This is eq. 8 of [1] with the general-Γ normaliser of eq. 7 (which equals
    :math:`1 - \sum_i w_i^2` for normalised weights without ties), and the same number as
    ``scipy.stats.weightedtau(x, y, rank=np.arange(n), weigher=lambda i: weights[i],
    additive=False)`` [2], computed about 10x faster at n = 10⁶
    (``benchmarks/bench_weighted_tau.py``).

    Parameters
    ----------
    x, y : sequence of float
        Two scorings (or rankings) of the same items. Only the order matters, so scores and
        ranks in either direction give the same value.
    weights : sequence of float
        Non-negative item weights; the pair (i, j) gets weight ``weights[i] * weights[j]``.
        Their scale does not matter.

    Returns
    -------
    float
        τ_w in [-1, 1].

    Raises
    ------
    ValueError
        Different lengths, fewer than 2 items, NaN/inf, negative or all-zero weights, or every
        positively weighted pair tied in ``x`` or in ``y`` (τ_w undefined).

    See Also
    --------
    weighted_rank_correlation : ρ_w and τ_w with the paper's top-rank weights.

    References
    ----------
    .. [1] P. Lombardo et al., "Top-Rank-Focused Adaptive Vote Collection for the Evaluation of
       Domain-Specific Semantic Models", EMNLP 2020, eq. 7-8.
    .. [2] S. Vigna, "A weighted correlation index for rankings with ties", WWW 2015.

    Examples
    --------
    >>> from sts_extras.stats.ranking import weighted_kendall_tau
    >>> weighted_kendall_tau([1, 2, 3, 4], [1, 3, 2, 4], [1, 1, 1, 1])  # plain tau: (5 - 1) / 6
    0.6666666666666666
    """
    x, y, weights = as_paired_vectors(2, x=x, y=y, weights=weights)
    check_non_negative_weights(weights)
    u, _, order_u, u_has_ties = _rank_codes(x, with_ranks=False)
    v, _, _, _ = _rank_codes(y, with_ranks=False)
    # Dividing by the largest weight makes τ_w scale-free and keeps the squared sums away from
    # overflow.
    parts = _tau_parts(u, v, weights / weights.max(), order_u, u_has_ties, names=("x", "y"))
    del u, v, order_u
    return _tau_from_parts(parts)


def weighted_rank_correlation(
    predictions: Any, references: Any, *, n0: float = 2
) -> WeightedRankCorrelationResult:
    r"""Top-rank-weighted Spearman ρ_w and Kendall τ_w of Lombardo et al. (2020), §3.

    Each score vector induces a ranking, rank 1 = highest score, tied scores sharing their
    average rank: :math:`a_i` from ``references``, :math:`b_i` from ``predictions``. Items get
    the additive weights of eq. 9,

    .. math::

        w_i = \frac{f(a_i) + f(b_i)}{\sum_j \left(f(a_j) + f(b_j)\right)},\qquad
        f(n; n_0) = \frac{1}{(n + n_0)^2},

    and eq. 8 gives

    .. math::

        \rho_w = \frac{\sum_i w_i (a_i - \bar a)(b_i - \bar b)}{\sigma_a \sigma_b},\qquad
        \tau_w = \frac{\sum_{i,j} w_i w_j\, \mathrm{sign}(a_j - a_i)\, \mathrm{sign}(b_j - b_i)}
                      {\sqrt{\sum_{i,j} w_i w_j [a_i \ne a_j] \sum_{i,j} w_i w_j [b_i \ne b_j]}}

    with :math:`\bar a = \sum_i w_i a_i` and :math:`\sigma_a^2 = \sum_i w_i (a_i - \bar a)^2`.
    The τ_w normaliser is Kendall's general Γ (eq. 7); without ties it is the paper's
    :math:`1 - \sum_i w_i^2`.

    Parameters
    ----------
    predictions : sequence of float
        System scores, one per item.
    references : sequence of float
        Gold scores of the same items.
    n0 : float, default 2
        Weight offset (the paper's choice is 2; ``n0 = 0`` puts ~61 % of the weight of a long
        ranking on its first item, ``n0 = 2`` ~28 %). ``math.inf`` gives uniform weights, for which
        ρ_w is Spearman's ρ and τ_w is Kendall's τ-b.

    Returns
    -------
    WeightedRankCorrelationResult
        ``rho_w``, ``tau_w``, and plain ``spearman`` and ``kendall`` (τ-b) as Python floats.

    Raises
    ------
    ValueError
        Different lengths, fewer than 3 pairs, NaN/inf values, ``n0 < 0``, or constant
        ``predictions`` or ``references``.
    TypeError
        Non-numeric input or ``n0``.

    Notes
    -----
    τ_w runs in O(n log n) time and O(n) memory (a vectorised weighted inversion count), so
    rankings of 10⁶ items take well under a second. ρ_w and τ_w are symmetric in the two inputs.
    The authors' code divides τ_w by a τ-a-like normaliser also when there are ties; this
    function follows the paper's Γ form (equal without ties).

    Expected values are not 0 for unrelated rankings: under the additive weights a mismatch of
    the two top items dominates, so for independent random rankings E[τ_w] ≈ -0.15 at n = 10
    and ≈ -0.5 at n = 990.

    References
    ----------
    .. [1] P. Lombardo, A. Boiardi, L. Colombo, A. Schiavone and N. Tamagnone, "Top-Rank-Focused
       Adaptive Vote Collection for the Evaluation of Domain-Specific Semantic Models",
       EMNLP 2020, pp. 3081-3093, §3, eq. 7-9.

    Examples
    --------
    Swapping the two top items costs far more than swapping two bottom ones:

    >>> from sts_extras.stats.ranking import weighted_rank_correlation
    >>> gold = [5.0, 4.0, 3.0, 2.0, 1.0]
    >>> top_swap = weighted_rank_correlation([4.0, 5.0, 3.0, 2.0, 1.0], gold)
    >>> bottom_swap = weighted_rank_correlation([5.0, 4.0, 3.0, 1.0, 2.0], gold)
    >>> round(top_swap.tau_w, 4), round(bottom_swap.tau_w, 4), round(top_swap.kendall, 4)
    (0.4053, 0.9531, 0.8)
    >>> round(top_swap.rho_w, 6)
    0.784541
    """
    from scipy import stats  # scipy.stats is a heavier import than numpy alone

    predictions, references, n0 = _weighted_rank_correlation_iv(predictions, references, n0)
    u, a, order_u, u_has_ties = _rank_codes(references)
    v, b, _, _ = _rank_codes(predictions)
    w = _weights_from_ranks(a, b, n0)
    rho_w = _weighted_pearson(a, b, w)
    parts = _tau_parts(u, v, w, order_u, u_has_ties, names=("references", "predictions"))
    del u, a, order_u, v, b, w  # τ_w's inversion count needs only ``parts``
    return WeightedRankCorrelationResult(
        rho_w=rho_w,
        tau_w=_tau_from_parts(parts),
        spearman=float(stats.spearmanr(references, predictions).statistic),
        kendall=float(stats.kendalltau(references, predictions).statistic),
        n0=n0,
        n=int(references.size),
    )
