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
``docs/calibration.md`` and :mod:`sts_extras.stats.calibration`). Each is either the cited
paper's method or says in one line what is ours:

* ``"twopov"`` -- Wilcox's (2009) method for two dependent, overlapping correlations (his R
  function ``TWOpov`` with ``CN=FALSE``, ``BOOT=FALSE``): Zou's (2007) MOVER interval of
  r1 - r2 built from each correlation's HC4 interval (``pcorhc4``: the slope of the
  standardised regression of the references on the system, with the HC4 standard error of
  Cribari-Neto 2004 and Student's t with n - 2 df). As HC4 limits are symmetric, the MOVER
  interval is r1 - r2 plus or minus t times sqrt(se1^2 + se2^2 - 2 c se1 se2), c the
  correlation between r1 and r2 (:func:`twopov_standard_errors`). For Spearman: the same on
  the ranks (our extension; Wilcox defines it for Pearson's r). No resampling.
* ``"adjusted-percentile"`` -- our variant, supported only by this package's calibration
  suite: the percentile interval of the bootstrap r1* - r2* with the wider, n-dependent order
  statistics of Wilcox & Muska's ``pcorb`` (a method for *one* correlation, reused in Wilcox's
  ``twopcor`` for two *independent* ones): 7/593 of 599 resamples for n < 40, 8/592 below 80,
  11/588 below 180, 14/585 below 250, 15/584 from 250. Any number of resamples is scaled to
  the same quantile levels; other confidence levels widen the normal-scale tail by the same
  factor (:func:`wilcox_widening`; also ours: the table is for 95 % only).
* ``"jackknife-t"`` -- r1 - r2 plus or minus Student's t (n - 1 df) times the leave-one-out
  jackknife standard error (Efron & Tibshirani 1993, eq. 11.5); no resampling.
* ``"percentile"`` and ``"BCa"`` -- Efron's percentile and bias-corrected and accelerated
  intervals (the DynaMax paper's Appendix D uses BCa).

References
----------
.. [1] Wilcox, R. R. (2009). Comparing Pearson correlations: dealing with heteroscedasticity and
       nonnormality. Communications in Statistics - Simulation and Computation 38(10),
       2220-2234.
.. [2] Zou, G. Y. (2007). Toward using confidence intervals to compare correlations.
       Psychological Methods 12(4), 399-413.
.. [3] Cribari-Neto, F. (2004). Asymptotic inference under heteroskedasticity of unknown form.
       Computational Statistics & Data Analysis 45(2), 215-233.
.. [4] Wilcox, R. R. & Muska, J. (2001). Inferences about correlations when there is
       heteroscedasticity. British Journal of Mathematical and Statistical Psychology 54(1),
       39-47.
.. [5] Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.
.. [6] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

from sts_extras._validation import unit_scaled
from sts_extras.stats._common import overlap_correlation

__all__ = [
    "BOOTSTRAP_DIFFERENCE_METHODS",
    "DIFFERENCE_METHODS",
    "METHOD_SOURCES",
    "STUDENTISED_METHODS",
    "difference_intervals",
    "difference_pvalues",
    "difference_statistics",
    "hc4_standard_errors",
    "twopov_standard_errors",
    "wilcox_tail_share",
    "wilcox_widening",
]

#: Interval methods of r1 - r2 that resample (they need the bootstrap deltas).
BOOTSTRAP_DIFFERENCE_METHODS = ("adjusted-percentile", "percentile", "BCa")
#: Every interval method of r1 - r2 (``"auto"`` picks one of them from the calibration table).
DIFFERENCE_METHODS = ("twopov", "adjusted-percentile", "jackknife-t", "percentile", "BCa")
#: Where each interval method comes from, one line each (the calibration table carries them):
#: the cited paper's method, or "ours" and what differs.
METHOD_SOURCES = {
    "twopov": "Wilcox (2009), his R function TWOpov (CN=FALSE, BOOT=FALSE): Zou's (2007) MOVER "
    "interval from pcorhc4's HC4 limits; for Spearman the same on the ranks (ours)",
    "adjusted-percentile": "ours: Wilcox & Muska's pcorb order statistics (a method for one "
    "correlation) applied to the bootstrap r1 - r2 of two dependent correlations; only this "
    "calibration suite supports it",
    "jackknife-t": "Efron & Tibshirani (1993), eq. 11.5: Student's t with the jackknife standard "
    "error",
    "percentile": "Efron (1987): the percentile bootstrap interval",
    "BCa": "Efron (1987): the bias-corrected and accelerated bootstrap interval",
}
#: ``"twopov"`` is undefined for a correlation this close to +-1 (see twopov_standard_errors).
_NEAR_ONE = 1e-6
#: Methods whose interval is r1 - r2 plus or minus Student's t times a standard error, with the
#: degrees of freedom n minus this number: the statistic they report is that t.
STUDENTISED_METHODS = {"twopov": 2, "jackknife-t": 1}

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


def hc4_standard_errors(
    predictors: NDArray[np.float64],
    response: NDArray[np.float64],
    *,
    correlation: str = "pearson",
) -> NDArray[np.float64]:
    """HC4 standard error of each row's Pearson r, as Wilcox's ``pcorhc4`` computes it.

    Both variables are standardised (sd with n - 1), so r is the slope of the least-squares
    regression of ``response`` on ``predictors``; its HC4 variance (Cribari-Neto 2004) is
    ``sum(w_i z_i^2) / (n - 1)^2`` with leverages ``h_i = 1/n + z_i^2 / (n - 1)``, exponents
    ``d_i = min(4, n h_i / 2)`` and ``w_i = e_i^2 / (1 - h_i)^d_i`` for the residuals ``e_i``:
    the slope's entry of Wilcox's ``olshc4`` sandwich, whose off-diagonal terms vanish once the
    predictor is centred.

    Parameters
    ----------
    predictors : numpy.ndarray
        (P x n) the systems' scores (Wilcox's ``x``), one comparison per row.
    response : numpy.ndarray
        (n,) or (P x n) the references (his ``y``).
    correlation : {"pearson", "spearman"}, default "pearson"
        ``"spearman"``: the same on the average ranks of each row (our extension).

    Returns
    -------
    numpy.ndarray
        (P,) standard errors; NaN where a row is constant.
    """
    x = np.atleast_2d(np.asarray(predictors, dtype=np.float64))
    y = np.broadcast_to(np.asarray(response, dtype=np.float64), x.shape)
    if correlation == "spearman":
        x, y = stats.rankdata(x, axis=1), stats.rankdata(y, axis=1)
    n = x.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        zx, zy = (_standard_scores(v) for v in (x, y))
        r = np.einsum("ij,ij->i", zx, zy)[:, None] / (n - 1)
        residuals = zy - r * zx
        leverage = 1.0 / n + zx * zx / (n - 1)
        exponent = np.minimum(4.0, n * leverage / 2.0)
        weights = residuals * residuals / (1.0 - leverage) ** exponent
        se = np.sqrt(np.einsum("ij,ij->i", weights, zx * zx)) / (n - 1)
    # An item of leverage 1 (the system constant but for it) leaves HC4 undefined (0 / 0).
    return np.where((leverage < 1.0 - 1e-9).all(axis=1), se, np.nan)


def _standard_scores(rows: NDArray[np.float64]) -> NDArray[np.float64]:
    scaled = np.vstack([unit_scaled(row) for row in rows])
    centred = scaled - scaled.mean(axis=1, keepdims=True)
    return centred / centred.std(axis=1, ddof=1, keepdims=True)


def twopov_standard_errors(
    se1: ArrayLike, se2: ArrayLike, r1: ArrayLike, r2: ArrayLike, r12: ArrayLike
) -> NDArray[np.float64]:
    """The standard error behind Wilcox's ``TWOpov`` interval of r1 - r2, elementwise.

    ``TWOpov`` is Zou's (2007, eqs. 12-13) MOVER interval from the HC4 limits
    ``r_k -/+ t se_k``; with symmetric limits both of its ends are r1 - r2 -/+ t s with
    ``s = sqrt(se1^2 + se2^2 - 2 c se1 se2)`` and c the correlation between r1 and r2
    (:func:`~sts_extras.stats._common.overlap_correlation` of r1, r2 and r12, the correlation
    between the two systems).
    """
    # c is a correlation: rounding near r = 1 can push the formula past 1
    c = np.clip(overlap_correlation(r1, r2, r12), -1.0, 1.0)
    se1, se2 = np.asarray(se1, dtype=np.float64), np.asarray(se2, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        # se1^2 + se2^2 - 2 c se1 se2, written so that it cannot cancel below 0
        variance = (se1 - se2) ** 2 + 2.0 * (1.0 - c) * se1 * se2
        se = np.sqrt(variance)
    # Within 1e-6 of +-1 the closed form of c cancels away most of its digits (an outside
    # check measured intervals 24-35 % off at 1 - r = 4e-9): undefined there, not wrong.
    near_one = np.maximum(np.abs(r1), np.abs(r2)) > 1.0 - _NEAR_ONE
    return np.asarray(np.where(near_one, np.nan, se), dtype=np.float64)


def _studentised_error(
    method: str,
    jackknife: NDArray[np.float64] | None,
    standard_error: NDArray[np.float64] | None,
) -> NDArray[np.float64]:
    if method == "jackknife-t":
        if jackknife is None:
            raise ValueError("method 'jackknife-t' needs the leave-one-out differences")
        return jackknife_standard_error(jackknife)
    if standard_error is None:
        raise ValueError(f"method {method!r} needs its standard errors")
    return np.asarray(standard_error, dtype=np.float64)


def difference_statistics(
    method: str,
    observed: NDArray[np.float64],
    *,
    jackknife: NDArray[np.float64] | None = None,
    standard_error: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """The statistic a method reports for each difference: Student's t = (r1 - r2) / se for the
    :data:`STUDENTISED_METHODS` (NaN where se is 0), the estimate r1 - r2 for the others."""
    observed = np.asarray(observed, dtype=np.float64)
    if method not in STUDENTISED_METHODS:
        return observed
    se = _studentised_error(method, jackknife, standard_error)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(se > 0.0, observed / se, np.nan)


def difference_intervals(
    method: str,
    observed: NDArray[np.float64],
    *,
    alpha: float | NDArray[np.float64],
    n: int,
    deltas: NDArray[np.float64] | None = None,
    jackknife: NDArray[np.float64] | None = None,
    standard_error: NDArray[np.float64] | None = None,
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
    standard_error : numpy.ndarray, optional
        (P,) standard errors of the differences; needed by ``"twopov"``
        (:func:`twopov_standard_errors`).

    Returns
    -------
    low, high : numpy.ndarray
        (P,) end points; NaN where the method is undefined (BCa with an infinite bias
        correction, no defined resample, a zero standard error for a studentised method).
    """
    observed = np.asarray(observed, dtype=np.float64)
    alphas = np.broadcast_to(np.asarray(alpha, dtype=np.float64), observed.shape)
    if method in STUDENTISED_METHODS:
        se = _studentised_error(method, jackknife, standard_error)
        half = stats.t.isf(alphas / 2.0, n - STUDENTISED_METHODS[method]) * se
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


def _zero_levels(
    ordered: NDArray[np.float64], n_valid: NDArray[np.intp]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per sorted row, the quantile levels at which :func:`row_quantiles` (linear interpolation
    between order statistics) leaves 0: ``(low, high)`` with the quantile > 0 exactly at levels
    above ``low`` and < 0 exactly at levels below ``high``.

    Without a value equal to 0 both are the level where the interpolated quantile function
    crosses 0 (0 when every value is positive, 1 when every one is negative); on a run of values
    equal to 0, ``low`` is the level of its last member and ``high`` that of its first, since
    every level in between gives exactly 0, which no interval end excludes.
    """
    rows = ordered.shape[0]
    low, high = np.full(rows, np.nan), np.full(rows, np.nan)
    for i in range(rows):
        values = ordered[i, : n_valid[i]]
        m = values.size
        if m == 0:
            continue
        below = int(np.searchsorted(values, 0.0, side="left"))
        upto = int(np.searchsorted(values, 0.0, side="right"))
        if m == 1:
            low[i], high[i] = (1.0, 0.0) if upto > below else (float(below), float(below))
        elif upto > below:  # some values are exactly 0
            low[i], high[i] = (upto - 1) / (m - 1), below / (m - 1)
        elif below in (0, m):
            low[i] = high[i] = below / m
        else:
            a, b = values[below - 1], values[below]
            low[i] = high[i] = (below - 1 + (0.0 - a) / (b - a)) / (m - 1)
    return low, high


def _bca_inverse(
    q: NDArray[np.float64], z0: NDArray[np.float64], acceleration: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The z whose BCa-adjusted level is ``q``; -inf at q = 0 and +inf at q = 1 (an end that
    every level passes, or none)."""
    w = special.ndtri(q) - z0
    z = w / (1.0 + acceleration * w) - z0
    return np.where(np.isinf(w), w, z)


def difference_pvalues(
    method: str,
    observed: NDArray[np.float64],
    *,
    n: int,
    deltas: NDArray[np.float64] | None = None,
    jackknife: NDArray[np.float64] | None = None,
    standard_error: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Two-sided p-values of H0: rho1 = rho2, the exact inverses of :func:`difference_intervals`.

    ``pvalue < alpha`` exactly when the interval at level ``1 - alpha`` excludes 0: for the
    percentile methods, the level at which an end point of the interpolated bootstrap quantile
    function reaches 0 (for ``"adjusted-percentile"`` divided by the widening factor); for BCa
    the level whose adjusted quantile is 0 (Efron's BCa p-value); for the
    :data:`STUDENTISED_METHODS` Student's t with their degrees of freedom. Capped at 1; NaN
    where the interval is undefined.
    """
    observed = np.asarray(observed, dtype=np.float64)
    if method in STUDENTISED_METHODS:
        se = _studentised_error(method, jackknife, standard_error)
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.abs(observed) / se
            p = 2.0 * stats.t.sf(t, n - STUDENTISED_METHODS[method])
        return np.where(se > 0.0, p, np.where(observed == 0.0, 1.0, np.nan))
    assert deltas is not None
    ordered, n_valid = _sorted_valid(deltas)
    # The lower end of the interval at level 1 - alpha exceeds 0 exactly when its quantile level
    # exceeds ``low``, the upper end falls below 0 exactly when its level is below ``high``; each
    # side's alpha at equality, and p the smaller: p < alpha exactly when 0 is excluded.
    low, high = _zero_levels(ordered, n_valid)
    if method == "BCa":
        assert jackknife is not None
        z0, acceleration = _bca_parameters(deltas, observed, jackknife)
        # The adjusted level Phi(z0 + (z0 + z)/(1 - a(z0 + z))) equals q at
        # z = w / (1 + a w) - z0 with w = Phi^-1(q) - z0 (Efron 1987, section 4).
        with np.errstate(invalid="ignore", divide="ignore"):
            z_low, z_high = (_bca_inverse(q, z0, acceleration) for q in (low, high))
            p = np.minimum(2.0 * special.ndtr(z_low), 2.0 * special.ndtr(-z_high))
        p = np.where(np.isfinite(z0) & ~np.isnan(low), p, np.nan)
    else:
        tails = np.stack([low, 1.0 - high])
        if method == "adjusted-percentile":
            # an end passes 0 when Phi(z_(alpha/2) * widening) equals its tail share
            with np.errstate(divide="ignore"):
                tails = special.ndtr(special.ndtri(tails) / wilcox_widening(n))
        p = 2.0 * np.min(tails, axis=0)
    return np.minimum(p, 1.0)
