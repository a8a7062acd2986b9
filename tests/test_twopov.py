"""Wilcox's (2009) TWOpov: Zou's MOVER interval of r1 - r2 from per-correlation HC4 limits.

The reference values are computed here from the formulas of Wilcox's R functions (``olshc4``,
``pcorhc4``, ``TWOpov`` with ``CN=FALSE``, ``BOOT=FALSE``), written out in matrix form with
numpy: the regression of the references on a standardised system with an intercept, its hat
matrix, the HC4 sandwich, Student's t with n - 2 df, and the MOVER limits with the correlation
``corhat`` between the two correlations. The package computes the same numbers in closed form,
vectorised over comparisons.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from sts_extras.stats.bootstrap import bootstrap_correlation_difference
from sts_extras.stats.dependent import compare_dependent_correlations
from sts_extras.stats.intervals import (
    difference_intervals,
    difference_pvalues,
    difference_statistics,
    hc4_standard_errors,
    twopov_standard_errors,
)
from sts_extras.stats.model_comparison import compare_models


def _olshc4_slope(x: np.ndarray, y: np.ndarray, alpha: float) -> tuple[float, float, float]:
    """Wilcox's olshc4 for one predictor, in matrix form: (slope, ci low, ci high)."""
    n = x.size
    design = np.column_stack([np.ones(n), x])
    xtx = np.linalg.inv(design.T @ design)
    coefficients = xtx @ design.T @ y
    residuals = y - design @ coefficients
    hat = np.diag(design @ xtx @ design.T)
    d = np.minimum(4.0, n * hat / hat.sum())
    sandwich = xtx @ design.T @ np.diag(residuals**2 / (1 - hat) ** d) @ design @ xtx
    crit = stats.t.ppf(1 - alpha / 2, n - design.shape[1])
    se = np.sqrt(sandwich[1, 1])
    return coefficients[1], coefficients[1] - crit * se, coefficients[1] + crit * se


def _pcorhc4(x: np.ndarray, y: np.ndarray, alpha: float) -> tuple[float, float]:
    z1 = (x - x.mean()) / x.std(ddof=1)
    z2 = (y - y.mean()) / y.std(ddof=1)
    _, low, high = _olshc4_slope(z1, z2, alpha)
    return low, high


def _twopov(x1: np.ndarray, x2: np.ndarray, y: np.ndarray, alpha: float) -> tuple[float, float]:
    """TWOpov(cbind(x1, x2), y, alpha, CN=FALSE, BOOT=FALSE), step by step."""
    r12 = np.corrcoef(x1, y)[0, 1]
    r13 = np.corrcoef(x2, y)[0, 1]
    r23 = np.corrcoef(x1, x2)[0, 1]
    ci12 = _pcorhc4(x1, y, alpha)
    ci13 = _pcorhc4(x2, y, alpha)
    corhat = ((r23 - 0.5 * r12 * r13) * (1 - r12**2 - r13**2 - r23**2) + r23**3) / (
        (1 - r12**2) * (1 - r13**2)
    )
    term1 = 2 * corhat * (r12 - ci12[0]) * (ci13[1] - r13)
    term2 = 2 * corhat * (r12 - ci12[1]) * (ci13[0] - r13)
    low = r12 - r13 - np.sqrt((r12 - ci12[0]) ** 2 + (ci13[1] - r13) ** 2 - term1)
    high = r12 - r13 + np.sqrt((r12 - ci12[1]) ** 2 + (ci13[0] - r13) ** 2 - term2)
    return float(low), float(high)


def _heteroscedastic(seed: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    gold = rng.uniform(0, 5, n)
    shared = rng.normal(0, 1, n)
    a = gold + (0.3 + np.abs(gold - 2.5)) * rng.normal(0, 1, n) + 0.5 * shared
    b = gold + rng.standard_t(3, n) + 0.5 * shared
    return gold, a, b


@pytest.mark.parametrize(("seed", "n"), [(0, 20), (1, 50), (2, 64), (3, 250)])
def test_hc4_standard_error_is_the_slope_entry_of_wilcox_olshc4_sandwich(seed, n):
    gold, a, b = _heteroscedastic(seed, n)
    se = hc4_standard_errors(np.vstack([a, b]), gold)
    for k, system in enumerate((a, b)):
        z1 = (system - system.mean()) / system.std(ddof=1)
        z2 = (gold - gold.mean()) / gold.std(ddof=1)
        slope, low, high = _olshc4_slope(z1, z2, 0.05)
        crit = stats.t.ppf(0.975, n - 2)
        assert slope == pytest.approx(np.corrcoef(system, gold)[0, 1], rel=1e-12)
        assert se[k] == pytest.approx((high - low) / (2 * crit), rel=1e-10)


@pytest.mark.parametrize(("seed", "n", "alpha"), [(0, 20, 0.05), (1, 50, 0.05), (4, 100, 0.1)])
def test_twopov_interval_equals_wilcox_mover_construction_from_pcorhc4_limits(seed, n, alpha):
    gold, a, b = _heteroscedastic(seed, n)
    r1, r2 = np.corrcoef(a, gold)[0, 1], np.corrcoef(b, gold)[0, 1]
    r12 = np.corrcoef(a, b)[0, 1]
    se1, se2 = hc4_standard_errors(np.vstack([a, b]), gold)
    se = twopov_standard_errors(se1, se2, r1, r2, r12)
    low, high = difference_intervals(
        "twopov", np.array([r1 - r2]), alpha=alpha, n=n, standard_error=np.atleast_1d(se)
    )
    expected = _twopov(a, b, gold, alpha)
    assert (low[0], high[0]) == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_twopov_pvalue_is_the_exact_inverse_of_its_interval():
    gold, a, b = _heteroscedastic(7, 80)
    r1, r2 = np.corrcoef(a, gold)[0, 1], np.corrcoef(b, gold)[0, 1]
    se1, se2 = hc4_standard_errors(np.vstack([a, b]), gold)
    se = np.atleast_1d(twopov_standard_errors(se1, se2, r1, r2, np.corrcoef(a, b)[0, 1]))
    observed = np.array([r1 - r2])
    p = difference_pvalues("twopov", observed, n=80, standard_error=se)[0]
    low, high = difference_intervals("twopov", observed, alpha=p, n=80, standard_error=se)
    # at level 1 - p one end of the interval sits on 0
    assert min(abs(low[0]), abs(high[0])) == pytest.approx(0.0, abs=1e-12)
    t = difference_statistics("twopov", observed, standard_error=se)[0]
    assert p == pytest.approx(2 * stats.t.sf(abs(t), 78), rel=1e-12)


def test_every_public_door_gives_the_same_twopov_interval():
    gold, a, b = _heteroscedastic(11, 120)
    expected = _twopov(a, b, gold, 0.05)
    single = compare_dependent_correlations(a, b, gold, method="twopov")
    boot = bootstrap_correlation_difference(a, b, gold, method="twopov", n_resamples=1000)
    many = compare_models({"a": a, "b": b}, gold, method="twopov", n_resamples=1000)
    pair = many.pair("a", "b")
    for interval in (single.confidence_interval, boot.confidence_interval):
        assert (interval.low, interval.high) == pytest.approx(expected, rel=1e-10)
    assert (pair.confidence_interval.low, pair.confidence_interval.high) == pytest.approx(
        expected, rel=1e-10
    )
    assert single.method == boot.method == many.method == "twopov"
    assert single.df == 118
    assert single.pvalue == pytest.approx(boot.pvalue, rel=1e-12)


def test_twopov_for_spearman_is_twopov_on_the_ranks():
    gold, a, b = _heteroscedastic(12, 60)
    ranked = [stats.rankdata(v) for v in (gold, a, b)]
    expected = _twopov(ranked[1], ranked[2], ranked[0], 0.05)
    result = compare_dependent_correlations(a, b, gold, method="twopov", correlation="spearman")
    assert (result.confidence_interval.low, result.confidence_interval.high) == pytest.approx(
        expected, rel=1e-10
    )


def test_twopov_is_refused_where_hc4_or_its_closed_form_is_undefined():
    rng = np.random.default_rng(0)
    gold = rng.normal(size=30)
    other = gold + rng.normal(size=30)
    one_hot = np.zeros(30)
    one_hot[0] = 1.0  # leverage 1: HC4's weight is 0 / 0
    with pytest.raises(ValueError, match="twopov is undefined here"):
        compare_dependent_correlations(one_hot, other, gold, method="twopov")
    many = compare_models(
        {"a": one_hot, "b": other, "c": gold + rng.normal(size=30)},
        gold,
        method="twopov",
        n_resamples=1000,
    )
    assert many.pair("a", "b").error == "twopov undefined here."
    assert not many.pair("a", "b").significant
    # correlations within 1e-6 of 1, where the closed form cancels its digits away
    rng = np.random.default_rng(4)
    gold = rng.normal(size=40)
    near_a, near_b = gold + 1e-4 * rng.normal(size=40), gold + 2e-4 * rng.normal(size=40)
    with pytest.raises(ValueError, match="within 1e-6"):
        compare_dependent_correlations(near_a, near_b, gold, method="twopov")
