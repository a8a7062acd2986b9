r"""Exact leave-one-out (jackknife) Spearman correlations in O(n log n).

BCa's acceleration needs rho without item i for every i. Recomputing the ranks each time is
O(n^2); here the n leave-one-out correlations come from a few sums over the full sample.

With doubled average ranks :math:`R_j` (integers) and their centred values
:math:`c_j = R_j - (n + 1)`, removing item i lowers :math:`R_j` by
:math:`\operatorname{sign}(h_j - h_i) + 1` (by 2 above it, by 1 in its tie group), and the
leave-one-out ranks have mean :math:`n`. Writing :math:`s^h_{ij} = \operatorname{sign}(h_j - h_i)`
and likewise :math:`s^x_{ij}` (both 0 at j = i), the leave-one-out co-moment of the doubled ranks
of the reference h and a system x is

.. math::

    C_{(i)} = \sum_{j \ne i} (c^h_j - s^h_{ij})(c^x_j - s^x_{ij})
            = Q - c^h_i c^x_i - \sum_j c^x_j s^h_{ij} - \sum_j c^h_j s^x_{ij}
              + \sum_j s^h_{ij} s^x_{ij},

with :math:`Q = \sum_j c^h_j c^x_j`. The two middle sums are prefix sums along the sorted values
(O(n) after one sort); the last, item i's concordant minus discordant pairs, is a per-item
inversion count, done by a merge sort vectorised over its levels (O(n log n)). The leave-one-out
variance of the doubled ranks of m = n - 1 items is :math:`((m^3 - m) - \sum_g (t_g^3 - t_g)) / 3`
over the tie groups g left (Kendall 1948), so removing i from a group of size t adds
:math:`t(t - 1)` to the value with the full sample's groups. Then
:math:`\rho_{(i)} = C_{(i)} / \sqrt{V^h_{(i)} V^x_{(i)}}`.

Every sum is an integer computed exactly (int64 per item, Python integers for the O(n^3)
totals), so the only rounding is in the last few float operations: the values are the exact
leave-one-out correlations to a few units in the last place, at any n.

References
----------
.. [1] Kendall, M. G. (1948). Rank Correlation Methods. Griffin, ch. 3 (tie corrections).
.. [2] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall,
       eq. 14.15 (the acceleration from the jackknife).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import as_float_vector, as_real_array
from sts_extras.errors import UserInputError

__all__ = ["spearman_jackknife"]


@dataclass(frozen=True)
class _TieRanks:
    """Ranks of one variable with ties, as integers.

    ``below``/``up_to``: per item, how many items are strictly below / at most its value (so
    its doubled average rank is ``below + up_to + 1``); ``order``: a sort order (ties in any
    order);
    ``tie_sum``: the sum of t^3 - t over tie groups, exact.
    """

    order: NDArray[np.intp]
    below: NDArray[np.int64]
    up_to: NDArray[np.int64]
    tie_sum: int

    @property
    def centred(self) -> NDArray[np.int64]:
        """Doubled average rank minus its mean, n + 1."""
        return self.below + self.up_to - self.below.size


def _exact_sum(values: NDArray[np.int64]) -> int:
    """Sum of an int64 array as a Python integer, in chunks small enough not to overflow."""
    if values.size == 0:
        return 0
    step = max(1, 2**62 // max(1, int(np.abs(values).max())))
    return sum(int(values[start : start + step].sum()) for start in range(0, values.size, step))


def _tie_ranks(x: NDArray[np.float64]) -> _TieRanks:
    n = x.size
    order = np.argsort(x)  # any order inside a tie group will do
    sorted_x = x[order]
    new_group = np.empty(n, dtype=bool)
    new_group[0] = True
    np.not_equal(sorted_x[1:], sorted_x[:-1], out=new_group[1:])
    starts = np.flatnonzero(new_group)
    sizes = np.diff(np.append(starts, n))
    group = np.cumsum(new_group) - 1  # tie group of each sorted position
    below, up_to = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    below[order] = starts[group]
    up_to[order] = (starts + sizes)[group]
    tied = sizes[sizes > 1].astype(np.int64)
    return _TieRanks(order, below, up_to, _exact_sum(tied * tied * tied - tied))


def _earlier_smaller(permutation: NDArray[np.int64]) -> NDArray[np.int64]:
    """For each position p of a permutation of 0..n-1, #{q < p : permutation[q] < permutation[p]}.

    Bottom-up merge sort: at level k, blocks of 2^k sorted values are merged in pairs by one
    stable argsort (two sorted runs per block), and each value from a right block gains the
    number of left-block values merged before it. Counts travel with their values, so every
    step is a sequential pass; O(n log n) in all.
    """
    n = permutation.size
    values = permutation.astype(np.int64)
    counts = np.zeros(n, dtype=np.int64)
    left_before = np.zeros(n + 1, dtype=np.int64)
    level = 0
    while (1 << level) < n:
        block = 2 << level
        offsets = np.repeat(np.arange(-(-n // block), dtype=np.int64) * n, block)[:n]
        source = np.argsort(values + offsets, kind="stable")
        values, counts = values[source], counts[source]
        from_right = (source >> level) & 1
        np.cumsum(1 - from_right, out=left_before[1:])
        block_start = np.repeat(left_before[0:n:block], block)[:n]
        counts += from_right * (left_before[:n] - block_start)
        level += 1
    # values is now 0..n-1 in order: counts[v] belongs to the value v.
    return counts[permutation]


def _concordance(h: _TieRanks, x: _TieRanks) -> NDArray[np.int64]:
    r"""Per item i, :math:`\sum_j \operatorname{sign}(h_j - h_i)\operatorname{sign}(x_j - x_i)`.

    Items are laid out by (h, x); position p's value is the rank of its x among (x ascending,
    position descending), so an earlier position holds a smaller value exactly when its x is
    strictly smaller. From the count c of such earlier items, the e earlier items with equal
    x, and the item's (h, x) run [s, r) inside its h tie group [a, b):
    A = sum over earlier positions of sign(x_q - x_i) = p - 2c - e, and the sum is
    (sum_j sign(x_j - x_i)) - 2A - (s - a) - (b - r).
    """
    n = h.below.size
    key = h.below * n + x.below
    layout = np.argsort(key)  # the order inside a run of equal (h, x) does not matter
    sorted_key = key[layout]
    run_start = np.empty(n, dtype=bool)
    run_start[0] = True
    np.not_equal(sorted_key[1:], sorted_key[:-1], out=run_start[1:])
    starts = np.flatnonzero(run_start)
    run = np.cumsum(run_start) - 1
    position = np.arange(n, dtype=np.int64)
    s = starts[run]
    r = np.append(starts[1:], n)[run]
    # Rank by (x ascending, position descending): distinct keys, so any sort gives it.
    value = np.empty(n, dtype=np.int64)
    value[np.argsort(x.below[layout] * n + (n - 1 - position))] = position
    smaller = _earlier_smaller(value)
    equal_before = x.up_to[layout] - 1 - value
    earlier = position - 2 * smaller - equal_before
    out = np.empty(n, dtype=np.int64)
    out[layout] = -x.centred[layout] - 2 * earlier - (s - h.below[layout]) - (h.up_to[layout] - r)
    return out


def _signed_prefix(weights: NDArray[np.int64], ranks: _TieRanks) -> NDArray[np.int64]:
    r"""Per item i, :math:`\sum_j w_j \operatorname{sign}(v_j - v_i)` for the ranked variable v.

    Needs ``weights.sum() == 0`` (centred ranks): then the sum above v_i is minus the prefix
    sum up to the end of i's tie group.
    """
    prefix = np.zeros(weights.size + 1, dtype=np.int64)
    np.cumsum(weights[ranks.order], out=prefix[1:])
    return -prefix[ranks.up_to] - prefix[ranks.below]


def _tie_growth(ranks: _TieRanks) -> NDArray[np.int64]:
    """t(t - 1) for the tie group (size t) of each item: what leaving it out adds to V."""
    size = ranks.up_to - ranks.below
    return size * (size - 1)


def _split(value: int) -> tuple[float, float]:
    """A Python integer as the unevaluated sum of two floats (exact up to about 2^106)."""
    high = float(value)
    return high, float(value - int(high))


def _plus(big: int, small: NDArray[np.int64]) -> NDArray[np.float64]:
    """``big + small`` in float64 with about one rounding: ``big`` is exact, ``small`` int64."""
    high, low = _split(big)
    return (high + small.astype(np.float64)) + low


def _jackknife_iv(
    predictions: object, references: object
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The checked (m x n) systems and the n references of :func:`spearman_jackknife`.

    The arguments are taken in the documented order, never guessed from their shapes: a 2-D
    ``references`` (the systems passed second) is an error that names it.
    """
    reference = as_real_array(references, "references")
    if reference.ndim != 1:
        raise UserInputError(
            "`references` (the second argument) must be one-dimensional, got an array of shape "
            f"{reference.shape}; the order is spearman_jackknife(predictions, references)."
        )
    reference = as_float_vector(reference, "references", min_size=3)
    systems = as_real_array(predictions, "predictions").astype(np.float64, copy=False)
    if systems.ndim not in (1, 2):
        raise UserInputError(
            "`predictions` must be one system's scores (n,) or several systems' (m x n), got an "
            f"array of shape {systems.shape}."
        )
    systems = np.atleast_2d(systems)
    if systems.shape[1] != reference.size:
        raise UserInputError(
            f"`predictions` has {systems.shape[1]} scores per system, `references` has "
            f"{reference.size}; they must score the same items."
        )
    if not np.isfinite(systems).all():
        raise UserInputError("`predictions` must be finite (no NaN or inf).")
    return systems, reference


def spearman_jackknife(predictions: ArrayLike, references: ArrayLike) -> NDArray[np.float64]:
    """(n x m) Spearman correlations of each system with ``references``, leaving out each item.

    Parameters
    ----------
    predictions : array_like
        (m x n) or (n,) scores of the systems.
    references : array_like
        The n gold scores (n >= 3), one-dimensional.

    Returns
    -------
    numpy.ndarray
        Row i holds rho computed without item i (average ranks for ties); NaN where a
        variable is constant once i is left out. O(n log n) per system, exact sums (see the
        module docstring).

    Raises
    ------
    ValueError
        If ``references`` is not one-dimensional (e.g. the systems passed second), has fewer
        than 3 values or holds NaN/inf, or ``predictions`` does not score the same n items.
    TypeError
        On non-numeric input.

    Examples
    --------
    >>> import numpy as np
    >>> from sts_extras.stats.jackknife import spearman_jackknife
    >>> gold = np.array([1.0, 2.0, 2.0, 4.0, 5.0])
    >>> system = np.array([2.0, 1.0, 3.0, 3.0, 6.0])
    >>> spearman_jackknife(system, gold)[:, 0].round(4).tolist()
    [0.8333, 0.9487, 0.8, 0.6325, 0.5]
    """
    predictions, reference = _jackknife_iv(predictions, references)
    n = reference.size
    h = _tie_ranks(reference)
    ch = h.centred
    cube = (n - 1) ** 3 - (n - 1)
    variance_h = _plus((cube - h.tie_sum) // 3, _tie_growth(h))
    out = np.empty((n, predictions.shape[0]))
    for k, values in enumerate(predictions):
        x = _tie_ranks(values)
        cx = x.centred
        # Everything but Q is an exact int64 of magnitude O(n^2).
        removed = ch * cx + _signed_prefix(cx, h) + _signed_prefix(ch, x) - _concordance(h, x)
        co_moment = _plus(_exact_sum(ch * cx), -removed)
        variance_x = _plus((cube - x.tie_sum) // 3, _tie_growth(x))
        product = variance_h * variance_x
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, k] = np.where(product > 0.0, co_moment / np.sqrt(product), np.nan)
    return out
