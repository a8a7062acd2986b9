"""The calibrated defaults: one decision per result, the measured level on every result, and
never a silently uncalibrated request (issue "Calibrated by evidence").

The numbers behind the defaults come from the calibration suite (``benchmarks/calibration``,
tested in ``tests/test_calibration_suite.py``); here: the methods' arithmetic (Wilcox's table,
p-values that are the exact inverses of the intervals), what the public entry points return, and
the warnings.
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

from sts_extras.stats import (
    bootstrap_correlation_difference,
    compare_dependent_correlations,
    compare_models,
)
from sts_extras.stats.calibration import (
    SIZE_BAND,
    UncalibratedWarning,
    choose_method,
    family_error,
    measured_level,
)
from sts_extras.stats.intervals import (
    DIFFERENCE_METHODS,
    difference_intervals,
    difference_pvalues,
    hc4_standard_errors,
    twopov_standard_errors,
    wilcox_tail_share,
)
from sts_extras.stats.resampling import PearsonDelta, resample_counts


def _data(seed: int, n: int, noise_b: float = 1.4):
    rng = np.random.default_rng(seed)
    gold = rng.uniform(0, 5, n)
    return gold, gold + rng.normal(0, 1.0, n), gold + rng.normal(0, noise_b, n)


@pytest.mark.parametrize(
    ("n", "low", "high"),
    # Wilcox's table; from n = 80 his upper end is one below the mirror of the lower (588, 585,
    # 584): we mirror the lower end, so that B against A is the mirror image of A against B
    [(30, 7, 593), (50, 8, 592), (100, 11, 589), (200, 14, 586), (400, 15, 585)],
)
def test_wilcox_interval_is_his_order_statistics_of_599_resamples(n, low, high):
    # Wilcox (2009): the 95 % interval is the (low, high)-th of 599 sorted bootstrap values.
    values = np.random.default_rng(n).normal(size=599)
    lo, hi = difference_intervals(
        "adjusted-percentile", np.array([0.0]), alpha=0.05, n=n, deltas=values[None, :]
    )
    ordered = np.sort(values)
    assert_allclose([lo[0], hi[0]], [ordered[low - 1], ordered[high - 1]], rtol=1e-12)
    assert wilcox_tail_share(n) == pytest.approx((low - 1) / 598)
    # and the comparison the other way round is its mirror image
    lo2, hi2 = difference_intervals(
        "adjusted-percentile", np.array([0.0]), alpha=0.05, n=n, deltas=-values[None, :]
    )
    assert_allclose([lo2[0], hi2[0]], [-hi[0], -lo[0]], rtol=1e-12)
    # and the comparison the other way round is its mirror image
    lo2, hi2 = difference_intervals(
        "adjusted-percentile", np.array([0.0]), alpha=0.05, n=n, deltas=-values[None, :]
    )
    assert_allclose([lo2[0], hi2[0]], [-hi[0], -lo[0]], rtol=1e-12)


@pytest.mark.parametrize("method", DIFFERENCE_METHODS)
def test_every_pvalue_is_the_exact_inverse_of_its_interval(method):
    # p < alpha exactly when the interval at 1 - alpha excludes 0: at alpha just above and just
    # below p, the interval's end nearest 0 crosses 0.
    for seed in range(4):
        gold, a, b = _data(seed, 60, noise_b=1.2 + 0.3 * seed)
        engine = PearsonDelta(gold, a, b)
        deltas = np.concatenate(
            [
                np.subtract(*engine.correlations(c))
                for c in resample_counts(np.random.default_rng(seed), 2000, 60)
            ]
        )[None, :]
        observed = np.array([np.corrcoef(gold, a)[0, 1] - np.corrcoef(gold, b)[0, 1]])
        se = hc4_standard_errors(np.vstack([a, b]), gold)
        inputs = {
            "deltas": deltas,
            "jackknife": engine.jackknife()[None, :],
            "standard_error": twopov_standard_errors(
                se[:1], se[1:], *np.corrcoef([gold, a, b])[[0, 0, 1], [1, 2, 2]]
            ),
        }
        p = difference_pvalues(method, observed, n=60, **inputs)[0]
        assert 0.0 < p < 1.0
        for alpha, excludes in ((p * 1.001, True), (p * 0.999, False)):
            low, high = difference_intervals(method, observed, alpha=alpha, n=60, **inputs)
            assert bool(low[0] > 0.0 or high[0] < 0.0) is excludes


@pytest.mark.parametrize("method", ["percentile", "adjusted-percentile", "BCa"])
def test_the_pvalue_inverts_the_interval_when_resamples_tie_at_zero(method):
    # Spearman on tied data gives runs of exact zeros among the bootstrap differences: the
    # interval's end then sits on 0 over a range of levels, which no interval excludes (an
    # outside check found p = 0.049 beside an interval [0.0, 0.56] and significant=False).
    rng = np.random.default_rng(5)
    for zeros in (1, 37, 180):
        deltas = np.concatenate([np.zeros(zeros), rng.normal(0.12, 0.06, 999 - zeros)])
        deltas = rng.permutation(deltas)[None, :]
        observed = np.array([0.1])
        jackknife = rng.normal(0.1, 0.01, (1, 25))
        inputs = {"deltas": deltas, "jackknife": jackknife}
        p = difference_pvalues(method, observed, n=25, **inputs)[0]
        assert 0.0 < p < 1.0
        for alpha, excludes in ((p * 1.0001, True), (p * 0.9999, False)):
            low, high = difference_intervals(method, observed, alpha=alpha, n=25, **inputs)
            assert bool(low[0] > 0.0 or high[0] < 0.0) is excludes, (zeros, alpha)


def test_the_defaults_say_which_method_and_how_well_it_holds():
    gold, a, b = _data(7, 64)
    chosen = choose_method("pearson", 64)
    expected = measured_level(chosen, "pearson", 64)
    assert expected is not None
    calls = (
        lambda: compare_dependent_correlations(a, b, gold),
        lambda: bootstrap_correlation_difference(a, b, gold, n_resamples=2000, seed=1),
    )
    results = []
    for call in calls:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results.append(call())
        uncalibrated = [w for w in caught if issubclass(w.category, UncalibratedWarning)]
        # the warning fires exactly when the rule fails, and names the worst cell
        assert len(uncalibrated) == (0 if expected.calibrated else 1)
        if not expected.calibrated:
            assert expected.outside_band[0].cell in str(uncalibrated[0].message)
    dependent, boot = results
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UncalibratedWarning)
        pair = compare_models({"a": a, "b": b}, gold, n_resamples=2000, seed=1).pairs[0]
    assert dependent.method == boot.method == chosen != "auto"
    for result in (dependent, boot):
        level = result.calibration
        assert level == expected  # the evaluation replicate's numbers, whichever door
        assert level.calibrated == (not level.outside_band)
        # one decision: the p-value and the interval agree
        low, high = result.confidence_interval
        assert (result.pvalue < 0.05) == (low > 0.0 or high < 0.0)
    assert pair.significant == (
        pair.confidence_interval.low > 0 or pair.confidence_interval.high < 0
    )
    assert pair.significant == (pair.pvalue_adjusted < 0.05)
    # the same seed, the same answer
    again = compare_dependent_correlations(a, b, gold)
    assert (again.pvalue, again.confidence_interval) == (
        dependent.pvalue,
        dependent.confidence_interval,
    )


def test_the_seed_tests_keep_their_numbers_and_say_their_measured_level():
    gold, a, b = _data(3, 64)
    with pytest.warns(UncalibratedWarning, match="steiger1980"):
        result = compare_dependent_correlations(a, b, gold, method="steiger1980")
    level = measured_level("steiger1980", "pearson", 64)
    assert result.calibration == level and level is not None
    # Steiger's normal-theory test over-rejects under heteroscedastic errors (measured)
    assert not level.calibrated and level.size > SIZE_BAND[1]


def test_family_decisions_match_their_intervals_at_the_adjusted_levels():
    gold, a, b = _data(11, 150)
    models = {"a": a, "b": b, "c": gold + np.random.default_rng(2).normal(0, 2.0, 150)}
    result = compare_models(models, gold, n_resamples=2000, seed=0, adjust="bonferroni")
    assert result.method == choose_method("pearson", 150, family=True)
    measured = family_error(result.method, 150)
    assert measured is not None and measured[1] <= 0.05 + 0.02  # within its Monte Carlo error
    for pair in result.pairs:
        assert pair.confidence_level == pytest.approx(1 - 0.05 / 3)
        excludes = pair.confidence_interval.low > 0 or pair.confidence_interval.high < 0
        assert pair.significant == excludes == (pair.pvalue_adjusted < 0.05)


def test_requests_no_method_is_calibrated_for_say_so():
    gold, a, b = _data(5, 12)
    with pytest.warns(UncalibratedWarning, match="below the smallest n"):
        small = compare_dependent_correlations(a, b, gold, n_resamples=1000)
    assert small.calibration is not None and not small.calibration.calibrated
    rng = np.random.default_rng(0)
    tied = rng.integers(0, 3, 200).astype(float)  # three distinct gold values
    with pytest.warns(UncalibratedWarning, match="heavily tied"):
        result = bootstrap_correlation_difference(
            tied + rng.normal(0, 1, 200),
            tied + rng.normal(0, 2, 200),
            tied,
            n_resamples=1000,
            seed=0,
        )
    assert result.calibration is not None and not result.calibration.calibrated
