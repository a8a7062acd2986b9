"""Paired bootstrap machinery: resampling by counts, correlations of many systems, jackknives.

A resample of the n items is a vector of counts ``w`` (how often each item was drawn), and

* Pearson: the correlation of a resample is a function of weighted sums sum(w x), sum(w x y), ...,
  so a whole chunk of resamples is one matrix product ``counts @ design``, for every system at
  once; the leave-one-out jackknife is O(n) from the total sums minus each item;
* Spearman: the average ranks of a resample follow from a cumulative sum of the counts along the
  items sorted once by value (an item drawn w times is a tie block of size w), so no sorting per
  resample; Spearman's rho is then the count-weighted Pearson correlation of those ranks. The
  exact leave-one-out jackknife is O(n log n) (:mod:`~sts_extras.stats.jackknife`).

Both give exactly the numbers one gets by materialising the resample. Counts are drawn as
``scipy.stats.bootstrap`` draws its resamples (``rng.integers(0, n, (B, n))``), in chunks that
bound memory; the random stream does not depend on the chunk size. One pass serves one pair of
systems (:func:`~sts_extras.stats.bootstrap.bootstrap_correlation_difference`) or all pairs of
many systems (:func:`~sts_extras.stats.model_comparison.compare_models`); the intervals made from
these resamples are :mod:`~sts_extras.stats.intervals`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sts_extras._validation import unit_scaled
from sts_extras.stats.jackknife import spearman_jackknife

__all__ = [
    "CHUNK_ELEMENTS",
    "CORRELATION_ENGINES",
    "PearsonCorrelations",
    "PearsonDelta",
    "SpearmanCorrelations",
    "SpearmanDelta",
    "draw_counts",
    "resample_counts",
]

# Upper bound on the number of float64 elements of one (chunk x n) working array (512 KiB): small
# enough to stay in cache, which makes the rank arithmetic several times faster than large
# chunks. The results do not depend on it (the generator's stream is the same whether drawn at
# once or in chunks), up to the last bits of the matrix products.
CHUNK_ELEMENTS = 1 << 16
# A resample whose (standardised) variance falls below this is checked exactly for constancy.
_DEGENERATE_VARIANCE = 1e-9


# --------------------------------------------------------------------------------------------
# Resampling by counts
# --------------------------------------------------------------------------------------------
def draw_counts(
    rng: np.random.Generator, rows: int, n: int, *, out: NDArray[np.float64] | None = None
) -> NDArray[np.float64]:
    """Counts (rows x n, float64) of n draws with replacement from n items, one row per resample.

    Same draws as indexing the data with ``rng.integers(0, n, size=(rows, n))``. Given ``out``
    (a C-contiguous rows x n float64 array) the counts are written there, so that a loop over
    chunks allocates no (rows x n) arrays but the drawn indices.
    """
    # int32 draws are the same numbers as the default int64 ones (both dtypes use the generator's
    # 32-bit bounded draw when n <= 2^32), in half the memory.
    dtype = np.int32 if rows * n < 2**31 else np.int64
    indices: NDArray[np.signedinteger[Any]] = rng.integers(0, n, size=(rows, n), dtype=dtype)
    if rows > 1:
        offsets: NDArray[np.signedinteger[Any]] = np.arange(0, rows * n, n, dtype=dtype)
        indices += offsets[:, None]
    if out is None:
        counts = np.zeros((rows, n))
    else:
        counts = out
        counts.fill(0.0)
    # Adding 1.0 per draw into a reused buffer is exact and, unlike bincount + astype, allocates
    # no new (rows x n) arrays; fresh ~0.5 MB arrays per chunk are mapped and unmapped by glibc
    # each time, and the page faults cost more than the counting.
    np.add.at(counts.reshape(-1), indices.reshape(-1), 1.0)
    return counts


def resample_counts(
    rng: np.random.Generator, n_resamples: int, n: int
) -> Iterator[NDArray[np.float64]]:
    """The ``n_resamples`` count vectors of a paired bootstrap of n items, chunk by chunk.

    Chunks hold at most ``CHUNK_ELEMENTS`` counts (at least one row); the same generator state
    gives the same resamples whatever the chunk size. The yielded array is one buffer, reused:
    each chunk overwrites the previous one (copy a chunk to keep it).
    """
    size = max(1, min(n_resamples, CHUNK_ELEMENTS // n))
    buffer = np.empty((size, n))
    for start in range(0, n_resamples, size):
        rows = min(size, n_resamples - start)
        yield draw_counts(rng, rows, n, out=buffer[:rows])


def _pearson_from_sums(
    count: float,
    sx: NDArray[np.float64],
    sy: NDArray[np.float64],
    sxx: NDArray[np.float64],
    syy: NDArray[np.float64],
    sxy: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Pearson r from (weighted) sums; ``count`` = total weight. Works on arrays."""
    cov = count * sxy - sx * sy
    var_x = count * sxx - sx * sx
    var_y = count * syy - sy * sy
    with np.errstate(invalid="ignore", divide="ignore"):
        return cov / np.sqrt(var_x * var_y), var_x, var_y


def _standardise(x: NDArray[np.float64]) -> NDArray[np.float64]:
    # Correlations are invariant to affine maps; unit scale keeps the one-pass sums accurate.
    # The exact power-of-two scaling first keeps the mean and std finite at any magnitude.
    x = unit_scaled(x)
    return (x - x.mean()) / x.std()


def _is_constant_rows(counts: NDArray[np.float64], x: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Exact check, per row of ``counts``, that all drawn items have the same value of ``x``."""
    drawn = counts > 0
    high = np.where(drawn, x, -np.inf).max(axis=1)
    low = np.where(drawn, x, np.inf).min(axis=1)
    return high == low


def _constant_mask(
    counts: NDArray[np.float64], reference: NDArray[np.float64], predictions: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """(rows x m) True where the reference or system k is constant in the resample."""
    constant = np.empty((counts.shape[0], predictions.shape[0]), dtype=bool)
    reference_constant = _is_constant_rows(counts, reference)
    for k, x in enumerate(predictions):
        constant[:, k] = reference_constant | _is_constant_rows(counts, x)
    return constant


# --------------------------------------------------------------------------------------------
# Correlations of m systems with one reference, per resample
# --------------------------------------------------------------------------------------------
class PearsonCorrelations:
    """r(references, predictions[k]) of every system k in count-weighted resamples.

    Parameters
    ----------
    references : numpy.ndarray
        The n gold scores.
    predictions : numpy.ndarray
        (m x n) scores of the m systems.
    """

    def __init__(self, references: NDArray[np.float64], predictions: NDArray[np.float64]):
        self.reference = _standardise(references)
        self.predictions = np.vstack([_standardise(x) for x in predictions])
        h, x = self.reference, self.predictions
        self.n, self.m = h.size, x.shape[0]
        # Design matrix of the 2 + 3m sums a resample needs: h, x_k, h^2, x_k^2, h x_k. (With
        # m = 2 this is the column order of the two-system engine of sts-extras 0.1, so BLAS
        # sums in the same order and two-system results are bit-for-bit those of 0.1.)
        # C order, as 0.1's was: BLAS sums a row-major matrix in another order than a
        # column-major one, which would change the last bits.
        self.design = np.ascontiguousarray(np.column_stack([h, x.T, h * h, (x * x).T, (h * x).T]))

    def _from_sums(
        self, count: float, sums: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        m = self.m
        sh, sx = sums[..., :1], sums[..., 1 : 1 + m]
        shh, sxx, shx = (
            sums[..., 1 + m : 2 + m],
            sums[..., 2 + m : 2 + 2 * m],
            sums[..., 2 + 2 * m :],
        )
        r, var_h, var_x = _pearson_from_sums(count, sh, sx, shh, sxx, shx)
        return r, np.minimum(var_h, var_x)

    def _two_pass(self, counts: NDArray[np.float64]) -> NDArray[np.float64]:
        """Weighted correlations by the centred (two-pass) formula, for a few rows."""
        total = counts.sum(axis=1, keepdims=True)
        ch = self.reference[None, :] - (counts @ self.reference)[:, None] / total
        shh = (counts * ch * ch).sum(axis=1)
        out = np.empty((counts.shape[0], self.m))
        for k, x in enumerate(self.predictions):
            cx = x[None, :] - (counts @ x)[:, None] / total
            sxx = (counts * cx * cx).sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[:, k] = (counts * ch * cx).sum(axis=1) / np.sqrt(shh * sxx)
        return out

    def correlations(self, counts: NDArray[np.float64]) -> NDArray[np.float64]:
        """(rows x m) correlations; NaN where a variable is constant in the resample."""
        r, smallest = self._from_sums(float(self.n), counts @ self.design)
        # One-pass sums lose accuracy when a resample's variance is tiny: redo those rows by
        # the two-pass formula, and mark truly constant resamples (no correlation) as NaN.
        suspicious = (~(smallest > _DEGENERATE_VARIANCE * float(self.n) ** 2)).any(axis=1)
        if suspicious.any():
            rows = counts[suspicious]
            fixed = self._two_pass(rows)
            fixed[_constant_mask(rows, self.reference, self.predictions)] = np.nan
            r[suspicious] = fixed
        return r

    def jackknife(self) -> NDArray[np.float64]:
        """(n x m) leave-one-out correlations in O(n m): total sums minus each item's terms."""
        leave_one_out = self.design.sum(axis=0)[None, :] - self.design
        return self._from_sums(float(self.n - 1), leave_one_out)[0]


class _Buffers:
    """Named float64 work arrays of the chunks, allocated once and reused (see ``draw_counts``)."""

    def __init__(self) -> None:
        self._arrays: dict[str, NDArray[np.float64]] = {}

    def __call__(self, name: str, rows: int, columns: int) -> NDArray[np.float64]:
        """A C-contiguous (rows x columns) array; its contents are whatever was left in it."""
        array = self._arrays.get(name)
        if array is None or array.shape[0] < rows or array.shape[1] != columns:
            array = self._arrays[name] = np.empty((rows, columns))
        return array[:rows]


@dataclass(frozen=True)
class _RankPlan:
    """Sort order and tie groups of one variable, computed once.

    ``inverse`` is the sorted position of each item; ``group_end`` the last sorted position of
    each tie group and ``item_group`` the tie group of each item (both None without ties).
    """

    order: NDArray[np.intp]
    inverse: NDArray[np.intp]
    group_end: NDArray[np.intp] | None
    item_group: NDArray[np.intp] | None


def _rank_plan(x: NDArray[np.float64]) -> _RankPlan:
    order = np.argsort(x, kind="stable")
    inverse = np.empty_like(order)
    inverse[order] = np.arange(x.size)
    sorted_x = x[order]
    new_group = np.empty(x.size, dtype=bool)
    new_group[0] = True
    new_group[1:] = sorted_x[1:] != sorted_x[:-1]
    if new_group.all():
        return _RankPlan(order, inverse, None, None)
    group_of = np.cumsum(new_group) - 1  # group index of each sorted position
    group_end = np.append(np.flatnonzero(new_group)[1:], x.size) - 1
    return _RankPlan(order, inverse, group_end, group_of[inverse])


def _doubled_ranks(
    counts: NDArray[np.float64], plan: _RankPlan, out: NDArray[np.float64], buffers: _Buffers
) -> NDArray[np.float64]:
    """2 x (average rank) of every item in each count-weighted resample, in item order.

    An item drawn w times forms, with the items tied to it, one tie block; its average rank is
    (#draws below the block) + (block size + 1) / 2. Doubled ranks are integers, so the sums
    below are exact in float64 for n up to several thousand (and every step here is exact, so
    the order of the operations does not matter). Written into ``out`` (rows x n).
    """
    rows, n = counts.shape
    cumulative = np.take(counts, plan.order, axis=1, out=buffers("sorted", rows, n), mode="clip")
    np.cumsum(cumulative, axis=1, out=cumulative)
    if plan.group_end is None:
        # Doubled rank of the item at sorted position p: 2 cumulative[p] - count + 1.
        np.take(cumulative, plan.inverse, axis=1, out=out, mode="clip")
        out *= 2.0
        out -= counts
        out += 1.0
        return out
    assert plan.item_group is not None
    groups = plan.group_end.size
    ends = np.take(
        cumulative, plan.group_end, axis=1, out=buffers("ends", rows, groups), mode="clip"
    )
    # Doubled rank of a tie group: (draws up to the group before) + (draws up to its end) + 1.
    per_group = buffers("per_group", rows, groups)
    per_group[:, 0] = ends[:, 0]
    np.add(ends[:, 1:], ends[:, :-1], out=per_group[:, 1:])
    per_group += 1.0
    np.take(per_group, plan.item_group, axis=1, out=out, mode="clip")
    return out


def _rank_correlations(
    weights: NDArray[np.float64],
    count: float,
    rh: NDArray[np.float64],
    rxs: Iterable[NDArray[np.float64]],
    buffers: _Buffers,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Weighted Pearson r of the reference ranks ``rh`` with each system's ranks in ``rxs``."""
    rows, n = weights.shape
    weighted_h = np.multiply(weights, rh, out=buffers("weighted_h", rows, n))
    weighted_x = buffers("weighted_x", rows, n)
    sh = weighted_h.sum(axis=1)
    shh = np.einsum("ij,ij->i", weighted_h, rh)
    columns, smallest = [], []
    for rx in rxs:
        sx = np.einsum("ij,ij->i", weights, rx)
        shx = np.einsum("ij,ij->i", weighted_h, rx)
        sxx = np.einsum("ij,ij->i", np.multiply(weights, rx, out=weighted_x), rx)
        r, var_h, var_x = _pearson_from_sums(count, sh, sx, shh, sxx, shx)
        columns.append(r)
        smallest.append(np.minimum(var_h, var_x))
    return np.column_stack(columns), np.column_stack(smallest)


class SpearmanCorrelations:
    """rho(references, predictions[k]) of every system k, ranks recomputed in every resample.

    Parameters
    ----------
    references : numpy.ndarray
        The n gold scores.
    predictions : numpy.ndarray
        (m x n) scores of the m systems.
    """

    def __init__(self, references: NDArray[np.float64], predictions: NDArray[np.float64]):
        self.reference = references
        self.predictions = np.atleast_2d(predictions)
        self.n, self.m = references.size, self.predictions.shape[0]
        self.reference_plan = _rank_plan(references)
        self.plans = [_rank_plan(x) for x in self.predictions]
        self._buffers = _Buffers()

    def _system_ranks(self, counts: NDArray[np.float64]) -> Iterator[NDArray[np.float64]]:
        # One buffer for every system: each is consumed before the next is computed.
        out = self._buffers("system_ranks", *counts.shape)
        for plan in self.plans:
            yield _doubled_ranks(counts, plan, out, self._buffers)

    def correlations(self, counts: NDArray[np.float64]) -> NDArray[np.float64]:
        """(rows x m) correlations; NaN where a variable is constant in the resample."""
        counts = np.ascontiguousarray(counts, dtype=np.float64)
        buffers = self._buffers
        rh = _doubled_ranks(
            counts, self.reference_plan, buffers("reference_ranks", *counts.shape), buffers
        )
        r, smallest = _rank_correlations(
            counts, float(self.n), rh, self._system_ranks(counts), buffers
        )
        # A non-constant resample has doubled-rank variance >= ~n^3; a constant one gives 0 up to
        # rounding. Check the candidates exactly on the drawn values.
        suspicious = (~(smallest > _DEGENERATE_VARIANCE * float(self.n) ** 4)).any(axis=1)
        if suspicious.any():
            rows = np.flatnonzero(suspicious)
            constant = _constant_mask(counts[rows], self.reference, self.predictions)
            block = r[rows]
            block[constant] = np.nan
            r[rows] = block
        return r

    def jackknife(self) -> NDArray[np.float64]:
        """(n x m) leave-one-out correlations, exact, in O(n log n) per system.

        See :func:`~sts_extras.stats.jackknife.spearman_jackknife`.
        """
        return spearman_jackknife(self.predictions, self.reference)


#: Correlation engine of each bootstrap statistic.
CORRELATION_ENGINES: dict[str, type[PearsonCorrelations] | type[SpearmanCorrelations]] = {
    "pearson": PearsonCorrelations,
    "spearman": SpearmanCorrelations,
}


class PearsonDelta:
    """r(h, a) and r(h, b) of count-weighted resamples, and the jackknife of r(h, a) - r(h, b)."""

    engine_class: type[PearsonCorrelations] | type[SpearmanCorrelations] = PearsonCorrelations

    def __init__(self, h: NDArray[np.float64], a: NDArray[np.float64], b: NDArray[np.float64]):
        self.engine = self.engine_class(h, np.vstack([a, b]))

    def correlations(
        self, counts: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(r_ha, r_hb) per row of ``counts``; NaN where a variable is constant in the resample."""
        r = self.engine.correlations(counts)
        return r[:, 0], r[:, 1]

    def jackknife(self) -> NDArray[np.float64]:
        """Leave-one-out deltas r(h, a) - r(h, b)."""
        r = self.engine.jackknife()
        return r[:, 0] - r[:, 1]


class SpearmanDelta(PearsonDelta):
    """:class:`PearsonDelta` for Spearman's rho (ranks recomputed inside every resample)."""

    engine_class = SpearmanCorrelations
