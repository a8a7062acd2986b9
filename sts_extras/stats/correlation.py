"""Scaled Pearson correlation (Atoum, 2019) and Fisher-z pooling of correlations.

Plain Pearson r over a whole benchmark hides *where* a similarity system fails: a system can
reach a high r by getting the coarse order of dissimilar / similar pairs right while ranking the
pairs inside each band poorly. The scaled Pearson correlation splits the pairs into K segments by
their gold (reference) score and averages the Pearson r of the segments (eq. 3 of [1]); Fisher's
z transform pools such values across datasets or segments (eq. 4-5 of [1]).

References
----------
.. [1] I. Atoum, "Scaled Pearson's Correlation Coefficient for Evaluating Text Similarity
   Measures", Modern Applied Science 13(10):26-38, 2019. doi:10.5539/mas.v13n10p26.
.. [2] D. Nikolić, R. C. Mureşan, W. Feng and W. Singer, "Scaled correlation analysis: a better
   way to compute a cross-correlogram", European Journal of Neuroscience 35(5):742-762, 2012.
.. [3] R. A. Fisher, "On the 'probable error' of a coefficient of correlation deduced from a
   small sample", Metron 1:3-32, 1921.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import (
    as_float_vector,
    as_paired_vectors,
    check_choice,
    check_count,
    check_non_negative_weights,
    check_not_constant,
    unit_scaled,
)
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.limits import MAX_BINS

__all__ = [
    "ScaledPearsonResult",
    "SkippedSegmentWarning",
    "assign_segments",
    "fisher_mean",
    "scaled_pearson",
]

_STRATEGIES = ("width", "count")
_CLOSED = ("left", "right")
_MIN_SEGMENT_SIZE = 3


class SkippedSegmentWarning(UserWarning):
    """A segment had no Pearson r (fewer than 3 pairs or a constant side) and was left out."""


@dataclass(frozen=True)
class ScaledPearsonResult:
    """Result of :func:`scaled_pearson`.

    Attributes
    ----------
    statistic : float
        The scaled Pearson correlation: the mean of the per-segment r over the valid segments
        (eq. 3 of Atoum 2019).
    segment_r : tuple of (float or None)
        Pearson r of each segment, lowest reference scores first; ``None`` for a skipped segment.
    segment_sizes : tuple of int
        Number of pairs in each segment.
    edges : tuple of float
        The K + 1 segment edges on the reference scale.
    skipped : tuple of int
        Indices of the segments left out of the mean.
    pearson : float
        Plain Pearson r over all pairs, for comparison.
    closed : str
        ``"left"``: segments are [e_k, e_k+1) with the last one closed, [e_K-1, e_K];
        ``"right"``: (e_k, e_k+1] with the first one closed, [e_0, e_1].
    """

    statistic: float
    segment_r: tuple[float | None, ...]
    segment_sizes: tuple[int, ...]
    edges: tuple[float, ...]
    skipped: tuple[int, ...]
    pearson: float
    closed: str


# --------------------------------------------------------------------------------------------
# validation and segmentation
# --------------------------------------------------------------------------------------------


def _check_covers(edges: NDArray[np.float64], references: NDArray[np.float64], name: str) -> None:
    low, high = float(references.min()), float(references.max())
    if edges[0] > low or edges[-1] < high:
        raise UserInputError(
            f"`{name}` must cover the data: the references range over [{low}, {high}] but "
            f"`{name}` spans [{edges[0]}, {edges[-1]}]."
        )


def _equal_count_edges(references: NDArray[np.float64], k: int, closed: str) -> NDArray[np.float64]:
    """Edges for K segments of (as nearly as possible) equal size, cut in the sorted references.

    Cut positions follow ``numpy.array_split``. Each inner edge is the reference score at the cut,
    so pairs with equal reference scores always share a segment: with ties at a cut the sizes are
    only nearly equal, and the result does not depend on the input order.
    """
    ordered = np.sort(references)
    base, extra = divmod(ordered.size, k)
    cuts = np.arange(1, k) * base + np.minimum(np.arange(1, k), extra)
    inner = ordered[cuts] if closed == "left" else ordered[cuts - 1]
    return np.concatenate(([ordered[0]], inner, [ordered[-1]]))


def _scaled_pearson_iv(
    predictions: ArrayLike,
    references: ArrayLike,
    bins: int | ArrayLike,
    score_range: tuple[float, float] | None,
    strategy: object,
    closed: object,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], str]:
    predictions, references = as_paired_vectors(
        _MIN_SEGMENT_SIZE, predictions=predictions, references=references
    )
    check_not_constant(references, "references", what="Pearson's r")
    check_not_constant(predictions, "predictions", what="Pearson's r")
    strategy = check_choice(strategy, "strategy", _STRATEGIES)
    closed = check_choice(closed, "closed", _CLOSED)

    if isinstance(bins, (str, bytes, bool)):
        raise UserInputTypeError(
            f"`bins` must be a positive int or a sequence of score edges, got {bins!r}."
        )
    if isinstance(bins, Integral):
        k = check_count(bins, "bins", MAX_BINS, why="more bins than items are empty")
        if strategy == "count":
            if score_range is not None:
                raise UserInputError(
                    "`score_range` only applies to strategy='width'; equal-count segments are "
                    f"cut in the observed references (got score_range={score_range!r})."
                )
            edges = _equal_count_edges(references, k, closed)
        else:
            if score_range is None:
                low, high = float(references.min()), float(references.max())
            else:
                span = as_float_vector(score_range, "score_range")
                if span.size != 2 or not span[0] < span[1]:
                    raise UserInputError(
                        f"`score_range` must be a pair (low, high) with low < high, got "
                        f"{score_range!r}."
                    )
                low, high = float(span[0]), float(span[1])
            edges = np.linspace(low, high, k + 1)
            _check_covers(edges, references, "score_range")
    elif isinstance(bins, Real) or np.ndim(bins) == 0:
        raise UserInputTypeError(
            f"`bins` must be a positive int or a sequence of score edges, got {bins!r}."
        )
    else:
        if score_range is not None:
            raise UserInputError(
                "`score_range` only applies to an int `bins` (equal-width segments); explicit "
                f"edges were given (score_range={score_range!r})."
            )
        edges = as_float_vector(bins, "bins", min_size=2)
        steps = np.diff(edges)
        if (steps <= 0).any():
            first = int(np.flatnonzero(steps <= 0)[0])
            raise UserInputError(
                "`bins` edges must be strictly increasing; got bins["
                f"{first}] = {edges[first]} followed by {edges[first + 1]}."
            )
        _check_covers(edges, references, "bins")
    return predictions, references, edges, closed


def assign_segments(
    references: ArrayLike, edges: ArrayLike, *, closed: str = "left"
) -> NDArray[np.intp]:
    """Segment index (0 .. K-1) of each reference score, as :func:`scaled_pearson` assigns it.

    ``closed="left"``: segments ``[e0, e1), ..., [e(K-1), eK]``; ``"right"``:
    ``[e0, e1], (e1, e2], ..., (e(K-1), eK]``. Scores are assumed to lie within the edges.

    Examples
    --------
    >>> assign_segments([0.0, 1.66, 3.0, 5.0], [0, 1.66, 3.33, 5]).tolist()
    [0, 1, 1, 2]
    """
    references = np.asarray(references, dtype=np.float64)
    edges = np.asarray(edges, dtype=np.float64)
    k = edges.size - 1
    if closed == "left":
        ids = np.searchsorted(edges, references, side="right") - 1
        ids[ids == k] = k - 1  # the top edge belongs to the last segment
    else:
        ids = np.searchsorted(edges, references, side="left") - 1
        ids[ids == -1] = 0  # the bottom edge belongs to the first segment
    return ids


def _segment_pearson(
    x: NDArray[np.float64], y: NDArray[np.float64], ids: NDArray[np.intp], k: int
) -> tuple[NDArray[np.float64], NDArray[np.intp], dict[int, str]]:
    """Per-segment Pearson r in one vectorised pass; returns (r, sizes, reasons-for-skipping)."""
    sizes = np.bincount(ids, minlength=k)
    filled = sizes > 0
    safe_sizes = np.where(filled, sizes, 1)
    # exact constancy test (a centred sum of squares need not be exactly 0 in floating point)
    order = np.argsort(ids, kind="stable")
    starts = (np.cumsum(sizes) - sizes)[filled]
    constant_x = np.zeros(k, dtype=bool)
    constant_y = np.zeros(k, dtype=bool)
    x_sorted, y_sorted = x[order], y[order]
    constant_x[filled] = np.minimum.reduceat(x_sorted, starts) == np.maximum.reduceat(
        x_sorted, starts
    )
    constant_y[filled] = np.minimum.reduceat(y_sorted, starts) == np.maximum.reduceat(
        y_sorted, starts
    )
    # two-pass (centred) sums, as in scipy.stats.pearsonr
    dx = x - (np.bincount(ids, weights=x, minlength=k) / safe_sizes)[ids]
    dy = y - (np.bincount(ids, weights=y, minlength=k) / safe_sizes)[ids]
    sxx = np.bincount(ids, weights=dx * dx, minlength=k)
    syy = np.bincount(ids, weights=dy * dy, minlength=k)
    sxy = np.bincount(ids, weights=dx * dy, minlength=k)
    valid = (sizes >= _MIN_SEGMENT_SIZE) & ~constant_x & ~constant_y
    r = np.full(k, np.nan)
    r[valid] = np.clip(sxy[valid] / np.sqrt(sxx[valid] * syy[valid]), -1.0, 1.0)
    reasons = {}
    for index in np.flatnonzero(~valid):
        if sizes[index] < _MIN_SEGMENT_SIZE:
            reasons[int(index)] = f"{sizes[index]} pair(s), fewer than {_MIN_SEGMENT_SIZE}"
        elif constant_y[index]:
            reasons[int(index)] = "constant references"
        else:
            reasons[int(index)] = "constant predictions"
    return r, sizes, reasons


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------


def scaled_pearson(
    predictions: ArrayLike,
    references: ArrayLike,
    *,
    bins: int | ArrayLike = 3,
    score_range: tuple[float, float] | None = None,
    strategy: str = "width",
    closed: str = "left",
) -> ScaledPearsonResult:
    r"""Scaled Pearson correlation: the mean Pearson r over segments of the reference scale.

    The pairs are split into K segments by their **reference** (gold) score and

    .. math::

        \bar r = \frac{1}{K'} \sum_{k \in \text{valid}} r_k

    is the mean of the per-segment Pearson coefficients (eq. 3 in [1]; eq. 2 there, K = N/n,
    relates the number of segments to the pairs per segment). A segment with fewer than 3 pairs or
    with constant predictions or references has no r; it is left out of the mean
    (:math:`K' \le K`), reported in ``skipped`` and announced with a
    :class:`SkippedSegmentWarning`.

    Parameters
    ----------
    predictions : sequence of float
        System similarity scores.
    references : sequence of float
        Gold scores of the same pairs; they define the segments.
    bins : int or sequence of float, default 3
        Either K, the number of segments (cut according to ``strategy``), or the K + 1 explicit
        segment edges on the reference scale, strictly increasing and covering all references.
        Atoum's setting on a 0-5 scale is ``bins=[0, 1.66, 3.33, 5]`` (or ``bins=3,
        score_range=(0, 5)`` for the exact thirds 5/3 and 10/3).
    score_range : (float, float), optional
        The scale (low, high) over which ``strategy="width"`` cuts K equal-width segments; default
        the observed min and max of the references. Only valid with an int ``bins`` and
        ``strategy="width"``.
    strategy : {"width", "count"}, default "width"
        For an int ``bins``: ``"width"``, K equal-width segments of the scale (Atoum); or
        ``"count"``, K segments holding equal numbers of pairs sorted by reference score, the
        segmentation of Nikolić et al.'s original scaled correlation [2] (pairs with equal
        reference scores are kept together, so sizes are only nearly equal under ties). Ignored
        when explicit edges are given.
    closed : {"left", "right"}, default "left"
        Which edge a segment includes. ``"left"`` (as ``numpy.histogram``): [e_0, e_1),
        [e_1, e_2), ..., [e_K-1, e_K], so a score on an inner edge goes to the upper segment.
        ``"right"``: [e_0, e_1], (e_1, e_2], ..., (e_K-1, e_K], so it goes to the lower one.

    Returns
    -------
    ScaledPearsonResult
        ``statistic`` (the scaled r), ``segment_r``, ``segment_sizes``, ``edges``, ``skipped``,
        and the plain ``pearson`` r.

    Raises
    ------
    ValueError
        Different lengths, fewer than 3 pairs, NaN/inf, constant predictions or references, bad
        edges (not strictly increasing, not covering the references), a bad ``score_range`` or an
        option combination that does not apply, or no segment with a defined r.
    TypeError
        Non-numeric input, or ``bins`` neither an int nor a sequence.

    Warns
    -----
    SkippedSegmentWarning
        When one or more segments are left out of the mean.

    See Also
    --------
    fisher_mean : pool scaled values across datasets (eq. 4-5 in [1]).

    Notes
    -----
    Atoum [1] used K = 3 on STS data (edges 1.66 and 3.33 on the 0-5 scale: "less than 1.66",
    "between 1.66 and 3.33", "higher than 3.33"; a score exactly on an edge is not assigned in the
    paper, hence ``closed``), and reports scaled values about 30 % below the plain Pearson r.

    References
    ----------
    .. [1] I. Atoum, "Scaled Pearson's Correlation Coefficient for Evaluating Text Similarity
       Measures", Modern Applied Science 13(10):26-38, 2019, eq. 2-5.
    .. [2] D. Nikolić et al., "Scaled correlation analysis: a better way to compute a
       cross-correlogram", European Journal of Neuroscience 35(5):742-762, 2012.

    Examples
    --------
    >>> from sts_extras.stats.correlation import scaled_pearson
    >>> references = [0.2, 0.9, 1.4, 2.0, 2.6, 3.1, 3.6, 4.2, 4.8]
    >>> predictions = [0.5, 0.4, 1.0, 2.8, 2.2, 2.9, 4.0, 3.9, 4.6]
    >>> result = scaled_pearson(predictions, references, bins=3, score_range=(0, 5))
    >>> round(result.statistic, 4), round(result.pearson, 4)
    (0.5288, 0.9587)
    >>> [round(r, 4) for r in result.segment_r], result.segment_sizes
    ([0.7139, 0.0799, 0.7924], (3, 3, 3))
    """
    from scipy import stats  # scipy.stats is a heavier import than numpy alone

    predictions, references, edges, closed = _scaled_pearson_iv(
        predictions, references, bins, score_range, strategy, closed
    )
    k = edges.size - 1
    ids = assign_segments(references, edges, closed=closed)
    # Segments come from the references as given; the r's from inputs scaled by a power of two
    # (exact), so that no sum of squares overflows or underflows at extreme magnitudes.
    predictions, references = unit_scaled(predictions), unit_scaled(references)
    r, sizes, reasons = _segment_pearson(predictions, references, ids, k)
    if len(reasons) == k:
        listed = "; ".join(f"segment {i}: {why}" for i, why in reasons.items())
        raise UserInputError(
            "No segment has a defined Pearson r (each needs >= 3 pairs and non-constant "
            f"predictions and references), so the scaled Pearson r is undefined: {listed}."
        )
    if reasons:
        listed = "; ".join(
            f"segment {i} [{edges[i]:g}, {edges[i + 1]:g}]: {why}"
            for i, why in list(reasons.items())[:10]
        ) + ("; ..." if len(reasons) > 10 else "")
        warnings.warn(
            f"Left {len(reasons)} of {k} segments out of the scaled Pearson r: {listed}.",
            SkippedSegmentWarning,
            stacklevel=2,
        )
    valid = ~np.isnan(r)
    return ScaledPearsonResult(
        statistic=float(np.mean(r[valid])),
        segment_r=tuple(float(value) if ok else None for value, ok in zip(r, valid)),
        segment_sizes=tuple(int(size) for size in sizes),
        edges=tuple(float(edge) for edge in edges),
        skipped=tuple(reasons),
        pearson=float(stats.pearsonr(references, predictions).statistic),
        closed=closed,
    )


def fisher_mean(rs: ArrayLike, weights: ArrayLike | None = None) -> float:
    r"""Pool correlations through Fisher's z: tanh of the (weighted) mean of arctanh(r).

    .. math::

        z_i = \tfrac12 \ln\frac{1 + r_i}{1 - r_i} = \operatorname{arctanh} r_i,\qquad
        \bar r = \tanh\Big(\sum_i v_i z_i \Big/ \sum_i v_i\Big)

    (eq. 4-5 in [1], after Fisher [2]). Atoum pools scaled Pearson values of several datasets (or
    of the same segment across datasets) this way.

    Parameters
    ----------
    rs : sequence of float
        Correlations in [-1, 1].
    weights : sequence of float, optional
        Non-negative weights :math:`v_i`, e.g. ``n_i - 3`` (the inverse variance of z); default
        equal weights.

    Returns
    -------
    float
        The pooled correlation. A correlation of exactly ±1 with positive weight makes z infinite
        and the result ±1.

    Raises
    ------
    ValueError
        Empty input, NaN/inf, a value outside [-1, 1], weights of another length, negative or all
        zero, or both +1 and -1 present with positive weight (the pooled z is undefined).

    References
    ----------
    .. [1] I. Atoum, "Scaled Pearson's Correlation Coefficient for Evaluating Text Similarity
       Measures", Modern Applied Science 13(10):26-38, 2019, eq. 4-5.
    .. [2] R. A. Fisher, Metron 1:3-32, 1921.

    Examples
    --------
    >>> from sts_extras.stats.correlation import fisher_mean
    >>> round(fisher_mean([0.3, 0.5]), 6)
    0.404831
    >>> round(fisher_mean([0.3, 0.5], weights=[97, 47]), 6)  # n - 3 for n = 100 and n = 50
    0.369448
    """
    if isinstance(rs, (list, tuple)) and any(r is None for r in rs):
        raise UserInputTypeError(
            "`rs` holds None (a skipped segment of scaled_pearson?); pass only defined "
            f"correlations, got {rs!r}."
        )
    rs = as_float_vector(rs, "rs", min_size=1)
    outside = np.abs(rs) > 1.0
    if outside.any():
        first = int(np.flatnonzero(outside)[0])
        raise UserInputError(f"`rs` must lie in [-1, 1]; rs[{first}] = {rs[first]}.")
    if weights is None:
        weights = np.ones_like(rs)
    else:
        rs, weights = as_paired_vectors(1, rs=rs, weights=weights)
        check_non_negative_weights(weights)
    used = weights > 0
    perfect = used & (np.abs(rs) == 1.0)
    if perfect.any():
        signs = np.unique(rs[perfect])
        if signs.size > 1:
            raise UserInputError(
                "`rs` holds both +1 and -1 with positive weight: their Fisher z values are +inf "
                "and -inf and the pooled correlation is undefined."
            )
        return float(signs[0])
    z = np.arctanh(rs[used])
    return float(np.tanh(np.dot(weights[used], z) / weights[used].sum()))
