"""Intervals and p-values of differences of correlations, r1 - r2, vectorised over comparisons.

One implementation per method, shared by
:func:`~sts_extras.stats.bootstrap.bootstrap_correlation_difference`,
:func:`~sts_extras.stats.dependent.compare_dependent_correlations`,
:func:`~sts_extras.stats.model_comparison.compare_models` (all pairs of many models) and the
calibration suite (``benchmarks/calibration``), which measures every method on thousands of data
sets at once through these same functions. Each method gives an interval at any per-comparison
level and the p-value that is its exact inverse: the interval at level ``1 - alpha`` excludes 0
exactly when ``pvalue < alpha`` (so one decision, whichever is read).

Methods (the values of ``method=``; their measured size and coverage are in
``docs/calibration.md`` and :mod:`sts_extras.stats.calibration`):

* ``"adjusted-percentile"`` -- Wilcox's adjusted percentile bootstrap for dependent, overlapping
  correlations (Wilcox 2009; the ``TWOpov`` family of his R code): the percentile interval of
  the 599-resample bootstrap with wider, n-dependent order statistics (7/593 for n < 40, 8/592
  below 80, 11/588 below 180, 14/585 below 250, 15/584 from 250). Any number of resamples is
  scaled to the same quantile levels; other confidence levels widen the normal-scale tail by
  the same factor (:func:`wilcox_widening`; our extension: Wilcox tabulates 95 % only).
* ``"jackknife-t"`` -- r1 - r2 plus or minus Student's t (n - 1 df) times the leave-one-out
  jackknife standard error (Efron & Tibshirani 1993, eq. 11.5); no resampling.
* ``"percentile"`` and ``"BCa"`` -- Efron's percentile and bias-corrected and accelerated
  intervals (the DynaMax paper's Appendix D uses BCa).

References
----------
.. [1] Wilcox, R. R. (2009). Comparing Pearson correlations: dealing with heteroscedasticity and
       nonnormality. Communications in Statistics - Simulation and Computation 38(10),
       2220-2234.
.. [2] Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.
.. [3] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

__all__ = [
    "BOOTSTRAP_DIFFERENCE_METHODS",
    "DIFFERENCE_METHODS",
    "difference_intervals",
    "difference_pvalues",
    "wilcox_tail_share",
    "wilcox_widening",
]

#: Interval methods of r1 - r2 that resample (they need the bootstrap deltas).
BOOTSTRAP_DIFFERENCE_METHODS = ("adjusted-percentile", "percentile", "BCa")
#: Every interval method of r1 - r2 (``"auto"`` picks one of them from the calibration table).
DIFFERENCE_METHODS = ("adjusted-percentile", "jackknife-t", "percentile", "BCa")

# Wilcox (2009): order statistics (1-based, of 599 resamples) of the 95 % interval, by n.
_WILCOX_ORDER = ((40, 7, 593), (80, 8, 592), (180, 11, 588), (250, 14, 585))
_WILCOX_LARGE = (15, 584)


def wilcox_tail_share(n: int) -> float:
    """The share of bootstrap values outside each end of Wilcox's (2009) 95 % interval at n.

    The k-th of 599 sorted values is the quantile at (k - 1) / 598 (linear interpolation), so
    his lower order statistics are these shares exactly at 599 resamples: 6/598 for n < 40
    (about 1.0 %), 7/598 below 80, 10/598 below 180, 13/598 below 250 and 14/598 above. His
    upper order statistics mirror them up to n = 80 (593, 592); from there they sit one lower
    (588, 585, 584 instead of 589, 586, 585). We use the lower share on both sides, so that
    comparing B with A gives exactly the mirror image of A with B (one resample of 599 wider
    at the top than his table from n = 80).
    """
    order_low = _WILCOX_LARGE[0]
    for limit, low, _ in _WILCOX_ORDER:
        if n < limit:
            order_low = low
            break
    return (order_low - 1) / 598.0


def wilcox_widening(n: int) -> float:
    """Wilcox's widening at n on the normal scale: Phi^-1(1 - tail share) / Phi^-1(0.975).

    At the 95 % level his interval is the percentile interval at the tail share
    :func:`wilcox_tail_share`; at another level 1 - alpha we use the tail share
    Phi(z_(alpha/2) * widening), which is his at alpha = 0.05 and keeps intervals nested and
    p-values continuous (our extension: Wilcox tabulates 95 % only).
    """
    return float(special.ndtri(1.0 - wilcox_tail_share(n)) / special.ndtri(0.975))


def _tail_shares(method: str, n: int, alpha: NDArray[np.float64]) -> NDArray[np.float64]:
    """The nominal share of bootstrap values below (and above) the interval at level 1 - alpha."""
    if method == "adjusted-percentile":
        return special.ndtr(special.ndtri(alpha / 2.0) * wilcox_widening(n))
    return alpha / 2.0


def _sorted_valid(deltas: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    return np.sort(deltas, axis=1), np.count_nonzero(~np.isnan(deltas), axis=1)


def row_quantiles(
    sorted_rows: NDArray[np.float64], n_valid: NDArray[np.intp], levels: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Quantile ``levels[i]`` of the first ``n_valid[i]`` values of each sorted row.

    Linear interpolation between order statistics, as ``numpy.quantile``'s default method; NaN
    where a level is NaN or a row has no valid value.
    """
    rows = np.arange(sorted_rows.shape[0])
    ok = (n_valid > 0) & np.isfinite(levels)
    last = np.maximum(n_valid - 1, 0)
    index = np.where(ok, levels, 0.0) * last
    lower = np.minimum(np.floor(index).astype(np.intp), last)
    upper = np.minimum(lower + 1, last)
    t = index - lower
    a, b = sorted_rows[rows, lower], sorted_rows[rows, upper]
    difference = b - a
    # numpy's lerp: interpolate from the nearer end, so t = 1 returns b exactly.
    value = np.where(t >= 0.5, b - difference * (1.0 - t), a + difference * t)
    return np.where(ok, value, np.nan)


def _quantiles(
    ordered: NDArray[np.float64], n_valid: NDArray[np.intp], levels: NDArray[np.float64]
) -> NDArray[np.float64]:
    return row_quantiles(ordered, n_valid, np.clip(levels, 0.0, 1.0))


def bias_correction(
    deltas: NDArray[np.float64], observed: NDArray[np.float64]
) -> NDArray[np.float64]:
    """BCa's z0 = Phi^-1(share of each row's bootstrap values below the observed one, ties
    counted half; NaN values left out) (Efron & Tibshirani 1993, eq. 14.14)."""
    n_used = np.count_nonzero(~np.isnan(deltas), axis=1)
    target = observed[:, None]
    below = np.count_nonzero(deltas < target, axis=1) + np.count_nonzero(deltas <= target, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return special.ndtri(below / (2.0 * n_used))


def acceleration(jackknife: NDArray[np.float64]) -> NDArray[np.float64]:
    """BCa's acceleration of each row's leave-one-out values (Efron & Tibshirani 1993, eq.
    14.15); 0 where they do not spread."""
    u = jackknife.mean(axis=1, keepdims=True) - jackknife
    denominator = np.sum(u * u, axis=1) ** 1.5
    numerator = np.sum(u**3, axis=1)
    return np.divide(
        numerator, 6.0 * denominator, out=np.zeros_like(numerator), where=denominator != 0.0
    )


def _bca_parameters(
    deltas: NDArray[np.float64], observed: NDArray[np.float64], jackknife: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """BCa's bias correction z0 and acceleration a."""
    return bias_correction(deltas, observed), acceleration(jackknife)


def _bca_levels(
    z0: NDArray[np.float64], acceleration: NDArray[np.float64], z: NDArray[np.float64]
) -> NDArray[np.float64]:
    shifted = z0 + z
    with np.errstate(invalid="ignore", divide="ignore"):
        adjusted = z0 + shifted / (1.0 - acceleration * shifted)
    return np.where(np.isfinite(z0), special.ndtr(adjusted), np.nan)


def jackknife_standard_error(jackknife: NDArray[np.float64]) -> NDArray[np.float64]:
    """Leave-one-out jackknife standard error of each row's statistic (Efron & Tibshirani, 11.5)."""
    n = jackknife.shape[1]
    u = jackknife - jackknife.mean(axis=1, keepdims=True)
    return np.sqrt((n - 1) / n * np.sum(u * u, axis=1))


def difference_intervals(
    method: str,
    observed: NDArray[np.float64],
    *,
    alpha: float | NDArray[np.float64],
    n: int,
    deltas: NDArray[np.float64] | None = None,
    jackknife: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-sided intervals of P differences r1 - r2 at levels ``1 - alpha``.

    Parameters
    ----------
    method : str
        One of :data:`DIFFERENCE_METHODS`.
    observed : numpy.ndarray
        (P,) observed differences.
    alpha : float or numpy.ndarray
        One minus the level of each interval (a scalar or one per comparison).
    n : int
        Items per comparison (Wilcox's order statistics and the t degrees of freedom use it).
    deltas : numpy.ndarray, optional
        (P x B) bootstrap differences (NaN: undefined resample); needed by the bootstrap methods.
    jackknife : numpy.ndarray, optional
        (P x n) leave-one-out differences; needed by ``"jackknife-t"`` and ``"BCa"``.

    Returns
    -------
    low, high : numpy.ndarray
        (P,) end points; NaN where the method is undefined (BCa with an infinite bias
        correction, no defined resample, zero jackknife spread for ``"jackknife-t"``).
    """
    observed = np.asarray(observed, dtype=np.float64)
    alphas = np.broadcast_to(np.asarray(alpha, dtype=np.float64), observed.shape)
    if method == "jackknife-t":
        assert jackknife is not None
        se = jackknife_standard_error(jackknife)
        half = stats.t.isf(alphas / 2.0, n - 1) * se
        with np.errstate(invalid="ignore"):
            bad = ~(se > 0.0)
        return np.where(bad, np.nan, observed - half), np.where(bad, np.nan, observed + half)
    assert deltas is not None
    ordered, n_valid = _sorted_valid(deltas)
    if method == "BCa":
        assert jackknife is not None
        z0, acceleration = _bca_parameters(deltas, observed, jackknife)
        z = special.ndtri(alphas / 2.0)
        low_levels = _bca_levels(z0, acceleration, z)
        high_levels = _bca_levels(z0, acceleration, -z)
    else:
        share = _tail_shares(method, n, alphas)
        low_levels, high_levels = share, 1.0 - share
    return _quantiles(ordered, n_valid, low_levels), _quantiles(ordered, n_valid, high_levels)


def _level_of_zero(ordered: NDArray[np.float64], n_valid: NDArray[np.intp]) -> NDArray[np.float64]:
    """The quantile level q at which each sorted row's interpolated quantile function equals 0.

    Inverts :func:`row_quantiles` (linear interpolation between
    order statistics): 0 below the smallest value, 1 above the largest, and on a run of values
    equal to 0 the middle of the run (ties counted half, as BCa's bias correction counts them).
    """
    rows = ordered.shape[0]
    q = np.full(rows, np.nan)
    for i in range(rows):
        values = ordered[i, : n_valid[i]]
        m = values.size
        if m == 0:
            continue
        if m == 1:
            q[i] = 0.5 if values[0] == 0.0 else float(values[0] < 0.0)
            continue
        below = int(np.searchsorted(values, 0.0, side="left"))
        upto = int(np.searchsorted(values, 0.0, side="right"))
        if upto > below:  # some values are exactly 0
            q[i] = ((below + upto - 1) / 2.0) / (m - 1)
        elif below == 0:
            q[i] = 0.0
        elif below == m:
            q[i] = 1.0
        else:
            a, b = values[below - 1], values[below]
            q[i] = (below - 1 + (0.0 - a) / (b - a)) / (m - 1)
    return q


def difference_pvalues(
    method: str,
    observed: NDArray[np.float64],
    *,
    n: int,
    deltas: NDArray[np.float64] | None = None,
    jackknife: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Two-sided p-values of H0: rho1 = rho2, the exact inverses of :func:`difference_intervals`.

    ``pvalue < alpha`` exactly when the interval at level ``1 - alpha`` excludes 0: for the
    percentile methods, the level at which an end point of the interpolated bootstrap quantile
    function reaches 0 (for ``"adjusted-percentile"`` divided by Wilcox's widening factor); for BCa the
    level whose adjusted quantile is 0 (Efron's BCa p-value); for ``"jackknife-t"`` Student's t
    with n - 1 df. Capped at 1; NaN where the interval is undefined.
    """
    observed = np.asarray(observed, dtype=np.float64)
    if method == "jackknife-t":
        assert jackknife is not None
        se = jackknife_standard_error(jackknife)
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.abs(observed) / se
            p = 2.0 * stats.t.sf(t, n - 1)
        return np.where(se > 0.0, p, np.where(observed == 0.0, 1.0, np.nan))
    assert deltas is not None
    ordered, n_valid = _sorted_valid(deltas)
    q = _level_of_zero(ordered, n_valid)
    if method == "BCa":
        assert jackknife is not None
        z0, acceleration = _bca_parameters(deltas, observed, jackknife)
        # The adjusted level Phi(z0 + (z0 + z)/(1 - a(z0 + z))) equals q at
        # z = w / (1 + a w) - z0 with w = Phi^-1(q) - z0 (Efron 1987, section 4).
        with np.errstate(invalid="ignore", divide="ignore"):
            w = special.ndtri(q) - z0
            z = w / (1.0 + acceleration * w) - z0
            tail = special.ndtr(-np.abs(z))
        p = np.where(np.isfinite(z0), 2.0 * tail, np.nan)
        p = np.where(np.isnan(q), np.nan, np.where(np.isinf(w) & np.isfinite(z0), 0.0, p))
    else:
        tail = np.minimum(q, 1.0 - q)
        if method == "adjusted-percentile":
            # an end passes 0 when Phi(z_(alpha/2) * widening) equals the tail share of 0
            with np.errstate(divide="ignore"):
                tail = special.ndtr(special.ndtri(tail) / wilcox_widening(n))
        p = 2.0 * tail
    return np.minimum(p, 1.0)
