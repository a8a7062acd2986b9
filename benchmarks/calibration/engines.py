"""Correlations, bootstrap differences and jackknives of many data sets at once.

For S data sets of one cell (arrays ``(S, n)``), :func:`pearson_statistics` and
:func:`spearman_statistics` return the observed r1 = r(h, a), r2 = r(h, b) and r12 = r(a, b),
the bootstrap differences r1* - r2* of B resamples (``(S, B)``) and the leave-one-out
differences (``(S, n)``).

One count matrix W (B x n, :func:`sts_extras.stats.resampling.draw_counts`) serves every data set
of a cell: the resampled indices are independent of the data, so each data set is bootstrapped
with B valid resamples (the data sets are independent, the resamples are shared).

* Pearson: a resample's correlations are functions of its weighted sums, so the sums of every
  data set come from one matrix product ``W @ X``, with X the (n x 8S) column stack of h, a, b,
  h^2, a^2, b^2, h a and h b of each (standardised) data set, in chunks of data sets; the
  jackknife is the total sums minus each item's terms, as
  :meth:`sts_extras.stats.resampling.PearsonCorrelations.jackknife`.
* Spearman: the package's engine, :class:`~sts_extras.stats.resampling.SpearmanCorrelations`
  (ranks recomputed inside every resample) and the exact
  :func:`~sts_extras.stats.jackknife.spearman_jackknife`, one data set at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from sts_extras.stats.jackknife import spearman_jackknife
from sts_extras.stats.resampling import SpearmanCorrelations, _pearson_from_sums

__all__ = [
    "Statistics",
    "pearson_observed",
    "pearson_statistics",
    "spearman_bootstrap",
    "spearman_jackknife_batch",
    "spearman_statistics",
    "spearman_statistics_reference",
]

Array = NDArray[np.float64]
#: Upper bound on the float64 elements of one chunk's (B x 8 chunk) array of sums (32 MiB).
CHUNK_ELEMENTS = 1 << 22
#: Largest n at which Spearman's resampled ranks come from rank matrices (an O(B n^2) product).
GEMM_MAX_N = 100
#: Largest n at which data sets with ties use rank matrices (above: the package's engine).
GEMM_TIED_MAX_N = 250
#: Elements of one block of resamples in the O(B n) Spearman bootstrap (fits in the L2 cache).
SORTED_BLOCK_ELEMENTS = 1 << 15
#: Largest n at which Spearman's jackknife is the vectorised O(n^2) one.
JACKKNIFE_BATCH_MAX_N = 100
# A resample whose weighted variance (of unit-variance data) is below this is constant: NaN.
_DEGENERATE_VARIANCE = 1e-9


@dataclass(frozen=True)
class Statistics:
    """What the methods need, for S data sets.

    Attributes
    ----------
    r1, r2, r12 : numpy.ndarray
        (S,) observed r(h, a), r(h, b), r(a, b).
    deltas : numpy.ndarray
        (S, B) bootstrap differences r1* - r2*, NaN where a resample is constant.
    jackknife : numpy.ndarray
        (S, n) leave-one-out differences.
    """

    r1: Array
    r2: Array
    r12: Array
    deltas: Array
    jackknife: Array


def _standardise(x: Array) -> Array:
    """Each row to mean 0 and variance 1 (correlations are invariant; one-pass sums stay exact)."""
    centred = x - x.mean(axis=1, keepdims=True)
    return centred / np.sqrt(np.mean(centred * centred, axis=1, keepdims=True))


def _pearson_pairs(count: float, sums: list[Array]) -> tuple[Array, Array, Array]:
    """r(h, a), r(h, b) and the smallest variance term, from the 8 sums.

    The sums are, in order, of h, a, b, h h, a a, b b, h a and h b; ``count`` is the total weight.
    """
    sh, sa, sb, shh, saa, sbb, sha, shb = sums
    var_h = count * shh - sh * sh
    var_a = count * saa - sa * sa
    var_b = count * sbb - sb * sb
    with np.errstate(invalid="ignore", divide="ignore"):
        r1 = (count * sha - sh * sa) / np.sqrt(var_h * var_a)
        r2 = (count * shb - sh * sb) / np.sqrt(var_h * var_b)
    return r1, r2, np.minimum(np.minimum(var_h, var_a), var_b)


def pearson_statistics(
    h: Array, a: Array, b: Array, counts: Array, *, bootstrapped: int | None = None
) -> Statistics:
    """Observed Pearson correlations, bootstrap and jackknife differences of S data sets.

    Parameters
    ----------
    h, a, b : numpy.ndarray
        (S, n) gold and system scores of each data set.
    counts : numpy.ndarray
        (B, n) resample counts shared by all data sets.
    bootstrapped : int, optional
        Accepted for symmetry with :func:`spearman_statistics`; Pearson bootstraps every data
        set (it is cheap).

    Returns
    -------
    Statistics
    """
    h, a, b = _standardise(h), _standardise(a), _standardise(b)
    samples, n = h.shape
    resamples = counts.shape[0]
    r1, r2, r12 = np.mean(h * a, axis=1), np.mean(h * b, axis=1), np.mean(a * b, axis=1)
    deltas = np.empty((samples, resamples))
    jackknife = np.empty((samples, n))
    chunk = max(1, min(samples, CHUNK_ELEMENTS // (8 * max(resamples, n))))
    for start in range(0, samples, chunk):
        part = slice(start, start + chunk)
        columns = (h[part], a[part], b[part])
        ch, ca, cb = columns
        design = np.stack([ch, ca, cb, ch * ch, ca * ca, cb * cb, ch * ca, ch * cb])  # 8 x s x n
        width = design.shape[1]
        # (n x 8s) column stack, one product for every data set of the chunk.
        stacked = np.ascontiguousarray(design.reshape(8 * width, n).T)
        sums = (counts @ stacked).reshape(resamples, 8, width)  # B x 8 x s
        boot1, boot2, smallest = _pearson_pairs(float(n), [sums[:, k, :] for k in range(8)])
        difference = boot1 - boot2
        difference[~(smallest > _DEGENERATE_VARIANCE * float(n) ** 2)] = np.nan
        deltas[part] = difference.T
        # Leave-one-out: total sums minus each item's terms.
        totals = design.sum(axis=2, keepdims=True)
        jack1, jack2, _ = _pearson_pairs(float(n - 1), list(totals - design))
        jackknife[part] = jack1 - jack2
    return Statistics(r1, r2, r12, deltas, jackknife)


def _rank_rows(x: Array) -> Array:
    return np.asarray(stats.rankdata(x, axis=1), dtype=np.float64)


def _rank_matrices(x: Array) -> NDArray[np.float32]:
    """(s, n, n) contributions of item j to item i's doubled rank: 2 [x_j < x_i] + [x_j == x_i].

    A resample with counts w gives item i the doubled average rank sum_j w_j L[j, i] + 1
    (twice the draws below its tie group, plus the draws of the group, plus one); small
    integers, exact in float32.
    """
    before = x[:, :, None] < x[:, None, :]
    tied = x[:, :, None] == x[:, None, :]
    matrix = before.astype(np.float32)
    matrix *= 2.0
    matrix += tied
    return matrix


def _resample_ranks(counts32: NDArray[np.float32], matrices: NDArray[np.float32]) -> Array:
    """(B, s, n) doubled average ranks of every resample of s data sets: one float32 product.

    Every partial sum is an integer below 2^24, so the float32 product is exact.
    """
    s, n, _ = matrices.shape
    stacked = np.ascontiguousarray(matrices.transpose(1, 0, 2)).reshape(n, s * n)
    ranks = (counts32 @ stacked).reshape(counts32.shape[0], s, n).astype(np.float64)
    ranks += 1.0
    return ranks


def _gemm_bootstrap(h: Array, a: Array, b: Array, counts: Array) -> Array:
    """(S, B) bootstrap differences by rank matrices (items of each data set sorted by h)."""
    samples, n = h.shape
    resamples = counts.shape[0]
    counts32 = counts.astype(np.float32)
    total = np.asarray(float(n * (n + 1)))
    # Ranks of h shared by every data set whose h has no ties (its items are in h's order).
    cumulative = np.cumsum(counts, axis=1)
    shared_ranks = 2.0 * cumulative - counts + 1.0
    shared_weighted = counts * shared_ranks
    shared_shh = np.einsum("bn,bn->b", shared_weighted, shared_ranks)[:, None]
    distinct_h = np.all(h[:, 1:] != h[:, :-1], axis=1)
    deltas = np.empty((samples, resamples))
    chunk = max(1, min(samples, CHUNK_ELEMENTS // 2 // (resamples * n)))
    for start in range(0, samples, chunk):
        part = slice(start, start + chunk)
        width = h[part].shape[0]
        if distinct_h[part].all():
            weighted_h = np.broadcast_to(shared_weighted[:, None, :], (resamples, width, n))
            shh = shared_shh
        else:
            ranks_h = _resample_ranks(counts32, _rank_matrices(h[part]))
            weighted_h = counts[:, None, :] * ranks_h
            shh = np.einsum("bsn,bsn->bs", weighted_h, ranks_h)
        r = []
        for x in (a[part], b[part]):
            ranks_x = _resample_ranks(counts32, _rank_matrices(x))
            shx = np.einsum("bsn,bsn->bs", weighted_h, ranks_x)
            ranks_x *= ranks_x
            sxx = np.matmul(ranks_x, counts[:, :, None])[:, :, 0]
            with np.errstate(invalid="ignore", divide="ignore"):
                r.append(_pearson_from_sums(float(n), total, total, shh, sxx, shx)[0])
        deltas[part] = (r[0] - r[1]).T
    return deltas


def spearman_bootstrap(h: Array, a: Array, b: Array, counts: Array) -> Array:
    """(S, B) bootstrap differences rho1* - rho2* of S data sets, ranks redone in each resample.

    The numbers :class:`~sts_extras.stats.resampling.SpearmanCorrelations` gives for each data
    set with its items in ascending order of h (the resamples' counts apply to the items in
    that order; a data set is an exchangeable sample, so the order is immaterial), to the last
    bit: every sum is the same exact integer, and the correlation is the same arithmetic
    (``sts_extras.stats.resampling._pearson_from_sums``).

    Up to n = :data:`GEMM_MAX_N` the doubled ranks of all resamples of many data sets come from
    one exact float32 matrix product of the counts with each data set's (n x n) rank matrix
    (:func:`_rank_matrices`), and the ranks of h are shared by the data sets without ties in
    h; above, data sets without ties go through :func:`_sorted_bootstrap` (O(B n)), the others
    through rank matrices up to :data:`GEMM_TIED_MAX_N` and the package's engine beyond (one
    data set at a time).
    """
    order = np.argsort(h, axis=1, kind="stable")
    h, a, b = (np.take_along_axis(x, order, axis=1) for x in (h, a, b))
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    if h.shape[1] <= GEMM_MAX_N:
        return _gemm_bootstrap(h, a, b, counts)
    deltas = np.empty((h.shape[0], counts.shape[0]))
    distinct = _distinct_rows(h) & _distinct_rows(np.sort(a, axis=1))
    distinct &= _distinct_rows(np.sort(b, axis=1))
    if distinct.any():
        deltas[distinct] = _sorted_bootstrap(h[distinct], a[distinct], b[distinct], counts)
    tied = ~distinct
    if tied.any() and h.shape[1] <= GEMM_TIED_MAX_N:
        deltas[tied] = _gemm_bootstrap(h[tied], a[tied], b[tied], counts)
    elif tied.any():
        for s in np.flatnonzero(tied):
            r = SpearmanCorrelations(h[s], np.vstack([a[s], b[s]])).correlations(counts)
            deltas[s] = r[:, 0] - r[:, 1]
    return deltas


def _distinct_rows(ordered: Array) -> NDArray[np.bool_]:
    """Rows (each sorted ascending) without ties."""
    return np.all(ordered[:, 1:] != ordered[:, :-1], axis=1)


def _sorted_bootstrap(h: Array, a: Array, b: Array, counts: Array) -> Array:
    """(S, B) bootstrap differences of data sets without ties, items in ascending order of h.

    O(B n) per data set, in cache-sized blocks of resamples: the doubled ranks of h in a
    resample, 2 C - w + 1 with C the cumulative counts, are shared by every data set; a
    system's follow from the counts taken in its order; without ties the sum of the squared
    doubled ranks of a resample is 4 n (n + 1)(2n + 1) / 6 - sum(w^3 - w) / 3, the same for
    every variable. The same exact integer sums as the package's engine.
    """
    samples, n = h.shape
    resamples = counts.shape[0]
    total = np.asarray(float(n * (n + 1)))
    squares = 4.0 * float(n * (n + 1) * (2 * n + 1) // 6)
    cumulative = np.cumsum(counts, axis=1)
    weighted_h = counts * (2.0 * cumulative - counts + 1.0)
    sum_squares = squares - np.sum(counts * (counts * counts - 1.0), axis=1) / 3.0
    block = max(1, min(resamples, SORTED_BLOCK_ELEMENTS // n))
    taken, ranks, partner = (np.empty((block, n)) for _ in range(3))
    deltas = np.empty((samples, resamples))
    cross = np.empty((2, resamples))
    for s in range(samples):
        for k, x in enumerate((a[s], b[s])):
            order = np.argsort(x, kind="stable")
            for start in range(0, resamples, block):
                rows = min(block, resamples - start)
                w, r, g = taken[:rows], ranks[:rows], partner[:rows]
                np.take(counts[start : start + rows], order, axis=1, out=w)
                np.cumsum(w, axis=1, out=r)
                r *= 2.0
                r -= w
                r += 1.0
                np.take(weighted_h[start : start + rows], order, axis=1, out=g)
                cross[k, start : start + rows] = np.einsum("ij,ij->i", g, r)
        with np.errstate(invalid="ignore", divide="ignore"):
            r1 = _pearson_from_sums(float(n), total, total, sum_squares, sum_squares, cross[0])[0]
            r2 = _pearson_from_sums(float(n), total, total, sum_squares, sum_squares, cross[1])[0]
        deltas[s] = r1 - r2
    return deltas


def _leave_one_out_cross(
    first: Array, second: Array, first_ranks: Array, second_ranks: Array
) -> Array:
    """(s, n) sums over j != i of the two variables' doubled ranks without item i, per i."""
    full = np.einsum("sn,sn->s", first_ranks, second_ranks)[:, None]
    return (
        full
        - np.einsum("sij,sj->si", first, second_ranks)
        - np.einsum("sij,sj->si", second, first_ranks)
        + np.einsum("sij,sij->si", first, second)
        - (first_ranks - 1.0) * (second_ranks - 1.0)
    )


def spearman_jackknife_batch(h: Array, a: Array, b: Array) -> Array:
    """(S, n) leave-one-out differences rho1 - rho2 of S data sets (exact integer sums).

    With the rank matrices L of :func:`_rank_matrices` (unit counts), item j's doubled rank
    is R_j = sum_k L[k, j] + 1, and without item i it is R_j - L[i, j]. So the leave-one-out
    sums are the full sums minus O(n) corrections: sum_{j != i} R^h_j R^x_j = Q - (L^h R^x)_i
    - (L^x R^h)_i + sum_j L^h[i, j] L^x[i, j] - (R^h_i - 1)(R^x_i - 1), and likewise for the
    squares; the ranks of n - 1 items always sum to n (n - 1). O(n^2) per data set, vectorised;
    the same values as :func:`~sts_extras.stats.jackknife.spearman_jackknife` up to rounding.
    """
    samples, n = h.shape
    out = np.empty((samples, n))
    total = np.asarray(float(n * (n - 1)))
    chunk = max(1, min(samples, CHUNK_ELEMENTS // (n * n)))
    for start in range(0, samples, chunk):
        part = slice(start, start + chunk)
        matrices = [_rank_matrices(x[part]).astype(np.float64) for x in (h, a, b)]
        ranks = [m.sum(axis=1) + 1.0 for m in matrices]  # (s, n)
        shh = _leave_one_out_cross(matrices[0], matrices[0], ranks[0], ranks[0])
        r = []
        for k in (1, 2):
            sxx = _leave_one_out_cross(matrices[k], matrices[k], ranks[k], ranks[k])
            shx = _leave_one_out_cross(matrices[0], matrices[k], ranks[0], ranks[k])
            with np.errstate(invalid="ignore", divide="ignore"):
                r.append(_pearson_from_sums(float(n - 1), total, total, shh, sxx, shx)[0])
        out[part] = r[0] - r[1]
    return out


def spearman_statistics(
    h: Array, a: Array, b: Array, counts: Array, *, bootstrapped: int | None = None
) -> Statistics:
    """Observed Spearman correlations, bootstrap and jackknife differences of S data sets.

    The observed correlations are Pearson's of average ranks (as
    :func:`~sts_extras.stats.dependent.compare_dependent_correlations` computes them); the
    bootstrap is :func:`spearman_bootstrap` (the package's engine's numbers, vectorised) and
    the jackknife the package's exact :func:`~sts_extras.stats.jackknife.spearman_jackknife`,
    one data set at a time.

    Parameters
    ----------
    h, a, b : numpy.ndarray
        (S, n) gold and system scores of each data set.
    counts : numpy.ndarray
        (B, n) resample counts shared by all data sets.
    bootstrapped : int, optional
        Bootstrap only the first this many data sets (Spearman's bootstrap is the costly part;
        the jackknife and the observed values are computed for all). Default: all.

    Returns
    -------
    Statistics
        ``deltas`` has one row per bootstrapped data set.
    """
    ranked = pearson_observed(_rank_rows(h), _rank_rows(a), _rank_rows(b))
    samples, n = h.shape
    rows = samples if bootstrapped is None else min(samples, bootstrapped)
    deltas = spearman_bootstrap(h[:rows], a[:rows], b[:rows], counts)
    if n <= JACKKNIFE_BATCH_MAX_N:
        jackknife = spearman_jackknife_batch(h, a, b)
    else:
        jackknife = np.empty((samples, n))
        for s in range(samples):
            loo = spearman_jackknife(np.vstack([a[s], b[s]]), h[s])
            jackknife[s] = loo[:, 0] - loo[:, 1]
    return Statistics(*ranked, deltas, jackknife)


def spearman_statistics_reference(h: Array, a: Array, b: Array, counts: Array) -> Statistics:
    """:func:`spearman_statistics` through the package's engine, one data set at a time.

    Slow; the tests compare it with the vectorised :func:`spearman_bootstrap` (the items of
    each data set sorted by h first, as :func:`spearman_bootstrap` orders them).
    """
    ranked = pearson_observed(_rank_rows(h), _rank_rows(a), _rank_rows(b))
    samples, n = h.shape
    deltas = np.empty((samples, counts.shape[0]))
    jackknife = np.empty((samples, n))
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    for s in range(samples):
        order = np.argsort(h[s], kind="stable")
        systems = np.vstack([a[s][order], b[s][order]])
        r = SpearmanCorrelations(h[s][order], systems).correlations(counts)
        deltas[s] = r[:, 0] - r[:, 1]
        loo = spearman_jackknife(systems, h[s][order])
        jackknife[s] = loo[order.argsort()][:, 0] - loo[order.argsort()][:, 1]
    return Statistics(*ranked, deltas, jackknife)


def pearson_observed(h: Array, a: Array, b: Array) -> tuple[Array, Array, Array]:
    """(S,) Pearson r(h, a), r(h, b), r(a, b) of each row."""
    h, a, b = _standardise(h), _standardise(a), _standardise(b)
    return np.mean(h * a, axis=1), np.mean(h * b, axis=1), np.mean(a * b, axis=1)
