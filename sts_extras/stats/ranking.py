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
from typing import Any, NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

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
    statistic : float
        The estimate: ``rho_w``, the same number (the weighted counterpart of Spearman's ρ,
        the correlation MTEB's STS tasks report); ``tau_w`` is the second estimate.
    rho_w : float
        Top-rank-weighted Spearman ρ (eq. 8 of Lombardo et al. 2020), in [-1, 1].
    tau_w : float
        Top-rank-weighted Kendall τ (eq. 8, Γ normaliser of eq. 7 under ties), in [-1, 1].
    spearman : float
        Plain Spearman ρ, reported alongside as in the paper's Table 2 (the value of
        ``scipy.stats.spearmanr(references, predictions)``, to the bit).
    kendall : float
        Plain Kendall τ-b, reported alongside as in Table 2 (the value of
        ``scipy.stats.kendalltau(references, predictions)``, to the bit).
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

    @property
    def statistic(self) -> float:
        """The estimate: ``rho_w``, the top-rank-weighted Spearman ρ (the same number)."""
        return self.rho_w


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------


def _check_n0(n0: object) -> float:
    if isinstance(n0, bool) or not isinstance(n0, Real):
        raise UserInputTypeError(f"`n0` must be a non-negative number (or math.inf), got {n0!r}.")
    value = float(n0)
    if math.isnan(value) or value < 0:
        raise UserInputError(f"`n0` must be >= 0 (the offset of f(n) = 1/(n + n0)^2), got {n0!r}.")
    return value


def _weighted_rank_correlation_iv(
    predictions: ArrayLike, references: ArrayLike, n0: object
) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    predictions, references = as_paired_vectors(3, predictions=predictions, references=references)
    check_not_constant(references, "references", what="a rank correlation")
    check_not_constant(predictions, "predictions", what="a rank correlation")
    return predictions, references, _check_n0(n0)


# --------------------------------------------------------------------------------------------
# building blocks
# --------------------------------------------------------------------------------------------


def _index_type(n: int) -> type[np.signedinteger[Any]]:
    """The narrowest of int32 / int64 that holds 0..n: halves the memory of codes and indices."""
    return np.int32 if n < 2**31 else np.int64


def _pairs_within(sizes: NDArray[np.intp]) -> int:
    """Σ size (size - 1) / 2: the number of pairs inside groups of these sizes, as a Python int."""
    sizes = sizes.astype(np.int64, copy=False)
    return int((sizes * (sizes - 1) // 2).sum())


class _Ranking(NamedTuple):
    """One sort of a score vector and what the four statistics take from it (see :func:`_rank`)."""

    codes: NDArray[np.signedinteger[Any]]
    order: NDArray[np.intp]
    tied_pairs: int


def _rank(x: NDArray[np.float64], ranks_out: NDArray[np.float64] | None = None) -> _Ranking:
    """Rank ``x`` with one sort, shared by ρ_w, τ_w, Spearman's ρ and Kendall's τ-b.

    Written by hand rather than calling ``scipy.stats.rankdata`` because the four statistics need,
    from the same sort, the dense tie codes, the sort order and the number of tied pairs as well
    as the ranks (``scipy.stats.spearmanr`` and ``kendalltau`` would each sort both inputs again).

    Parameters
    ----------
    x : ndarray of float
        The scores (at least one).
    ranks_out : ndarray of float, optional
        Filled with the average ranks of ``x``, ascending (1 = smallest value): a tie group at
        sorted positions start + 1 .. start + size gets start + (size + 1) / 2, exact in float64,
        so these are the numbers of ``scipy.stats.rankdata(x)`` to the bit.

    Returns
    -------
    _Ranking
        ``codes`` (int32; int64 from 2^31 items on): dense codes, 0 for the smallest value, equal
        values sharing a code; ``order``: ``argsort(x)`` (order inside a tie group unspecified);
        ``tied_pairs``: the number of pairs of items with equal values (0 without ties).
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
    del is_new
    has_ties = starts.size < n
    tied_pairs = 0
    if has_ties or ranks_out is not None:
        sizes = np.diff(starts, append=n)
        if has_ties:
            tied_pairs = _pairs_within(sizes)
        if ranks_out is not None:
            np.take(starts + (sizes + 1) / 2.0, codes, out=ranks_out)
    return _Ranking(codes, order, tied_pairs)


class _RankedPair(NamedTuple):
    """Two rankings of the same items and their joint order (see :func:`_rank_pair`)."""

    u: NDArray[np.signedinteger[Any]]
    v: NDArray[np.signedinteger[Any]]
    order: NDArray[np.intp]
    tied_u: int
    tied_v: int


def _rank_pair(
    x: NDArray[np.float64], y: NDArray[np.float64], ranks_out: NDArray[np.float64] | None = None
) -> _RankedPair:
    """Rank ``x`` and ``y`` with one sort each, for τ_w and Kendall's τ-b (and ρ_w, Spearman's ρ).

    Returns the dense codes ``u`` of x and ``v`` of y, the items in lexicographic (u, v) order
    (order inside joint ties unspecified) and the numbers of pairs tied in x and in y; with
    ``ranks_out`` (shape (2, n)), its rows get the ascending average ranks of x and y. The two
    sort orders are dropped on return, except the one that is already the joint order.
    """
    u = _rank(x, None if ranks_out is None else ranks_out[0])
    v = _rank(y, None if ranks_out is None else ranks_out[1])
    # y's order is needed only to break the ties of x
    order = _lexicographic_order(u.codes, v.codes, v.order) if u.tied_pairs else u.order
    return _RankedPair(u.codes, v.codes, order, u.tied_pairs, v.tied_pairs)


def _best_first(ranks: NDArray[np.float64]) -> NDArray[np.float64]:
    """Ascending ranks turned around, 1 = largest value, as in eq. 9 of [1] (exact in float64)."""
    return (ranks.size + 1) - ranks


def _weights_from_ranks(
    a: NDArray[np.float64], b: NDArray[np.float64], n0: float
) -> NDArray[np.float64]:
    """Additive weights of eq. 9 in [1] with f(n; n0) = 1/(n + n0)^2; n0 = inf -> uniform."""
    if math.isinf(n0):
        return np.full(a.size, 1.0 / a.size)
    w = 1.0 / (a + n0) ** 2 + 1.0 / (b + n0) ** 2
    return w / w.sum()


def _weighted_sum(w: NDArray[np.float64], a: NDArray[np.float64]) -> float:
    """Σ w_i a_i by numpy's pairwise summation: single-threaded, as accurate as a BLAS dot."""
    return float(np.multiply(w, a).sum())


def _weighted_pearson(
    a: NDArray[np.float64], b: NDArray[np.float64], w: NDArray[np.float64]
) -> float:
    """ρ_w of eq. 8 in [1]: Σ w (a - ā)(b - b̄) / (σ_a σ_b) with normalised weights ``w``."""
    da = a - _weighted_sum(w, a)
    db = b - _weighted_sum(w, b)
    # centred form of σ_a² = Σ w_i (a_i² - ā²): same value, no cancellation
    denominator = math.sqrt(_weighted_sum(w, da * da) * _weighted_sum(w, db * db))
    return float(np.clip(_weighted_sum(w, da * db) / denominator, -1.0, 1.0))


def _spearman_from_ranks(ranks: NDArray[np.float64]) -> float:
    """Spearman's ρ of the two rows of ``ranks`` (ascending average ranks), as scipy computes it.

    ``scipy.stats.spearmanr(x, y)`` is ``numpy.corrcoef`` of the ``rankdata`` ranks of x and y,
    held as the two rows of one C-ordered (2, n) array; the same call on the same array gives its
    value to the bit, without sorting the inputs again.
    """
    # cast: for a 2-D input corrcoef is the matrix; the stubs also allow a 1-D input's float64
    return float(cast(NDArray[np.float64], np.corrcoef(ranks))[1, 0])


def _kendall_tau_b(n: int, tied_x: int, tied_y: int, tied_both: int, discordant: int) -> float:
    """Kendall's τ-b from pair counts, in the float operations of ``scipy.stats.kendalltau``.

    (C - D) / sqrt((N - T_x)(N - T_y)) with N = n(n - 1)/2 pairs, T_x / T_y the pairs tied in x /
    y and C - D = N - T_x - T_y + T_xy - 2D. The counts are exact integers, so with scipy's
    operations (two square roots, two divisions) the value is scipy's to the bit.
    """
    total = n * (n - 1) // 2
    concordant_minus_discordant = total - tied_x - tied_y + tied_both - 2 * discordant
    tau = concordant_minus_discordant / np.sqrt(total - tied_x) / np.sqrt(total - tied_y)
    return float(min(1.0, max(-1.0, tau)))


_CUMSUM_BLOCK = 1024


def _dot(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    """Σ a_i b_i single-threaded (BLAS dot threads contend badly on a busy machine)."""
    return np.einsum("i,i->", a, b)


def _blocked_cumsum_inplace(blocks: NDArray[np.float64]) -> NDArray[np.float64]:
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


def _padded_blocks(n: int) -> NDArray[np.float64]:
    """Zeroed (m, _CUMSUM_BLOCK) buffer whose first n raveled items hold a vector."""
    return np.zeros((-(-n // _CUMSUM_BLOCK), _CUMSUM_BLOCK))


def weighted_inversions(values: NDArray[np.integer[Any]], weights: ArrayLike) -> float:
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
    return _inversions_overwriting(values.astype(_index_type(n)), weight_blocks, n)[0]


def _inversions_overwriting(
    level_values: NDArray[np.signedinteger[Any]],
    weight_blocks: NDArray[np.float64],
    n: int,
    *,
    count_pairs: bool = False,
) -> tuple[float, int]:
    """:func:`weighted_inversions` of codes ``level_values`` and weights in ``weight_blocks``.

    Both arrays are used as work space and overwritten: with them, the pass holds five vectors
    of n (two of codes, three of weights, rotated between levels) and no per-level copies, which
    keeps τ_w under ~60 bytes per item.

    With ``count_pairs``, the same pass also counts the inverted pairs (the discordant pairs of
    Kendall's τ-b) exactly, in integers, in one more vector of codes: per level, Σ over the
    0-items of the 1-items before them is Σ_j c_j - n1 (n1 + 1) / 2 with c the running count of
    1-items (n1 of them), and the correction for earlier groups mirrors the weighted one.
    Otherwise the count returned is 0.
    """
    n_bits = max(int(level_values.max()).bit_length(), 1)
    # Zero-padded (m, B) buffers for the blocked cumulative sums; the padding sits after item
    # n - 1 in the last block, and cumulative sums only look backwards, so what it holds is
    # harmless.
    ones_blocks, zeros_blocks = _padded_blocks(n), _padded_blocks(n)
    spare_values = np.empty_like(level_values)
    ones_count = np.empty_like(level_values) if count_pairs else None
    is_one = np.empty(n, dtype=bool)
    is_zero = np.empty(n, dtype=bool)
    total = 0.0
    pairs = 0
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
        if ones_count is not None:
            np.cumsum(is_one, out=ones_count)
            n_ones = int(ones_count[-1])
            level_pairs = int(ones_count.sum(dtype=np.int64)) - n_ones * (n_ones + 1) // 2
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
                del at_ends
                level_total -= float(_dot(ones_before, zeros_in_group))
                del ones_before, zeros_in_group
                if ones_count is not None:
                    # the same in counts: the 0-items up to position i are i + 1 - ones_count[i]
                    count_before = ones_count[before].astype(np.int64)
                    zeros_at_ends = before + 1 - count_before
                    zeros_in_groups = np.diff(zeros_at_ends, append=n - n_ones)
                    level_pairs -= int(np.dot(count_before, zeros_in_groups))
                    del count_before, zeros_at_ends, zeros_in_groups
            del before
        total += level_total
        if ones_count is not None:
            pairs += level_pairs
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
    return total, pairs


def _sum_of_squared_group_sums(
    weights: NDArray[np.float64], group_starts: NDArray[np.intp]
) -> float:
    sums = np.add.reduceat(weights, group_starts)
    return float(np.dot(sums, sums))


def _lexicographic_order(
    u: NDArray[np.signedinteger[Any]], v: NDArray[np.signedinteger[Any]], order_v: NDArray[np.intp]
) -> NDArray[np.intp]:
    """The items sorted by codes ``u``, then by codes ``v`` (order inside joint ties unspecified).

    Up to 2^16 distinct values of u, a stable sort by u of the items in v's order ``order_v``:
    numpy sorts 16-bit integers stably by radix sort, several times faster than sorting a
    combined (u, v) key, which is the way for more distinct values.
    """
    n_u = int(u.max()) + 1
    if n_u <= 2**16:
        by_u = np.argsort(u[order_v].astype(np.uint16), kind="stable")
        return order_v[by_u]
    n_v = int(v.max()) + 1
    key = u.astype(_index_type(n_u * n_v)) * n_v + v
    return np.argsort(key)


class _TauParts(NamedTuple):
    """What τ_w and Kendall's τ-b need besides the inversion count (see :func:`_tau_parts`)."""

    v_sorted: NDArray[np.signedinteger[Any]]
    weight_blocks: NDArray[np.float64]
    untied_u: float
    untied_v: float
    untied_both: float
    tied_both_pairs: int


def _tau_parts(
    pair: _RankedPair, w: NDArray[np.float64], names: tuple[str, str] = ("x", "y")
) -> _TauParts:
    """Everything τ_w needs from the rankings in ``pair`` (u first, v second) and weights ``w``.

    With C / D the weighted concordant / discordant pair sums (i < j, pair weight w_i w_j):
    numerator = C - D = T - 2D, where T is the weight of pairs untied in both rankings, and the
    Γ normaliser is sqrt(U_u U_v) with U the weight of pairs untied in one ranking. Each of T, U
    follows from tie-group sums: Σ_{i<j, u_i≠u_j} w_i w_j = ((Σw)² - Σ_g (Σ_g w)²) / 2.

    Returns ``v`` and ``w`` in lexicographic (u, v) order (the second in padded blocks, work
    space for :func:`_inversions_overwriting`; pairs tied in u are then never inversions), U_u,
    U_v, T, and the number of pairs tied in both rankings (for Kendall's τ-b). The inputs are no
    longer needed afterwards, so callers drop them before counting the inversions (peak memory).
    """
    u, v, order = pair.u, pair.v, pair.order
    n = u.size
    v_sorted = v[order]
    weight_blocks = _padded_blocks(n)
    w_sorted = np.take(w, order, out=weight_blocks.reshape(-1)[:n])

    square = float(w_sorted.sum()) ** 2
    # cast: with ``weights`` bincount sums float64 weights; the stubs say intp counts
    v_sums = cast(NDArray[np.float64], np.bincount(v_sorted, weights=w_sorted))
    tied_v = float(_dot(v_sums, v_sums))
    del v_sums
    tied_both_pairs = 0
    if pair.tied_u:
        u_sorted = u[order]
        new_u = np.empty(n, dtype=bool)
        new_u[0] = True
        np.not_equal(u_sorted[1:], u_sorted[:-1], out=new_u[1:])
        del u_sorted
        new_uv = new_u.copy()
        new_uv[1:] |= v_sorted[1:] != v_sorted[:-1]
        tied_u = _sum_of_squared_group_sums(w_sorted, np.flatnonzero(new_u))
        del new_u
        uv_starts = np.flatnonzero(new_uv)
        del new_uv
        tied_uv = _sum_of_squared_group_sums(w_sorted, uv_starts)
        if uv_starts.size < n:
            tied_both_pairs = _pairs_within(np.diff(uv_starts, append=n))
        del uv_starts
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
    return _TauParts(v_sorted, weight_blocks, untied_u, untied_v, untied_both, tied_both_pairs)


def _tau_w(parts: _TauParts, discordant: float) -> float:
    """τ_w = (T - 2D) / sqrt(U_u U_v) from :func:`_tau_parts` and the weighted inversions D."""
    tau = (parts.untied_both - 2.0 * discordant) / math.sqrt(parts.untied_u * parts.untied_v)
    return float(min(1.0, max(-1.0, tau)))


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------


def top_rank_weights(
    predictions: ArrayLike, references: ArrayLike, *, n0: float = 2
) -> NDArray[np.float64]:
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
    ranks = np.empty((2, references.size))
    _rank(references, ranks[0])
    _rank(predictions, ranks[1])
    return _weights_from_ranks(_best_first(ranks[0]), _best_first(ranks[1]), n0)


def weighted_kendall_tau(x: ArrayLike, y: ArrayLike, weights: ArrayLike) -> float:
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
    pair = _rank_pair(x, y)
    # Dividing by the largest weight makes τ_w scale-free and keeps the squared sums away from
    # overflow.
    parts = _tau_parts(pair, weights / weights.max(), names=("x", "y"))
    del pair  # the inversion count needs only ``parts``
    discordant, _ = _inversions_overwriting(parts.v_sorted, parts.weight_blocks, x.size)
    return _tau_w(parts, discordant)


def weighted_rank_correlation(
    predictions: ArrayLike, references: ArrayLike, *, n0: float = 2
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
        ``rho_w`` (also ``statistic``), ``tau_w``, and plain ``spearman`` and ``kendall`` (τ-b)
        as Python floats.

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
    rankings of 10⁶ items take well under a second. All four statistics share one sort of each
    input: Spearman's ρ is computed from the same average ranks as ρ_w, and Kendall's τ-b from
    exact pair counts taken in τ_w's inversion pass, in scipy's floating-point operations, so
    both equal scipy's ``spearmanr`` and ``kendalltau`` to the bit at a fraction of their cost
    (``benchmarks/bench_weighted_tau.py``). ρ_w and τ_w are symmetric in the two inputs.
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
    predictions, references, n0 = _weighted_rank_correlation_iv(predictions, references, n0)
    n = references.size
    # One sort per input serves all four statistics. The rows are ordered as
    # scipy.stats.spearmanr(references, predictions) stacks them (see _spearman_from_ranks).
    ranks = np.empty((2, n))
    pair = _rank_pair(references, predictions, ranks)
    spearman = _spearman_from_ranks(ranks)
    a, b = _best_first(ranks[0]), _best_first(ranks[1])
    del ranks
    w = _weights_from_ranks(a, b, n0)
    rho_w = _weighted_pearson(a, b, w)
    del a, b
    parts = _tau_parts(pair, w, names=("references", "predictions"))
    tied_references, tied_predictions = pair.tied_u, pair.tied_v
    del pair, w  # the inversion count needs only ``parts``
    discordant, discordant_pairs = _inversions_overwriting(
        parts.v_sorted, parts.weight_blocks, n, count_pairs=True
    )
    return WeightedRankCorrelationResult(
        rho_w=rho_w,
        tau_w=_tau_w(parts, discordant),
        spearman=spearman,
        kendall=_kendall_tau_b(
            n, tied_references, tied_predictions, parts.tied_both_pairs, discordant_pairs
        ),
        n0=n0,
        n=int(n),
    )
