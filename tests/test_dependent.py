"""Specification of `sts_extras.stats.dependent`: tests for comparing correlations.

Expected values are published numbers: the STSS-131 report's worked example (O'Shea, Bandar &
Crockett, STSS-131 technical report, part B) and the literature vectors that R's cocor 1.1-4
checks in its own test suite (tests/testthat/test_cocor.R; each cites its source below). Where a
source prints k decimals we assert agreement to k decimals: ``atol = 0.5 * 10**-k`` with
``rtol = 0`` (i.e. the printed value is our value rounded).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from sts_extras.stats.dependent import (
    DEPENDENT_METHODS,
    DependentCorrelationResult,
    IndependentCorrelationResult,
    compare_dependent_correlations,
    correlation_vs_group_test,
    dependent_correlation_test,
    holm_adjust,
    independent_correlation_test,
)


def printed(value: float, decimals: int):
    """Keyword arguments for assert_allclose: agreement to the printed number of decimals."""
    return {"desired": value, "rtol": 0, "atol": 0.5 * 10.0**-decimals + 1e-12}


# --------------------------------------------------------------------------------------------
# STSS-131 report, part B: STASIS r = 0.636, LSA r = 0.693 with the average human, r = 0.52
# between STASIS and LSA, n = 64. Each row compares two correlations that share one variable:
# row 1 shares the humans, row 2 shares STASIS, row 3 shares LSA. The report prints z, the
# right-tail p ("p"), the "left p" and the two-sided p.
# --------------------------------------------------------------------------------------------
STSS131_ROWS = [
    # (r_jk, r_jh, r_kh), (z, z decimals), p greater, p less, two-sided
    ((0.636, 0.693, 0.52), (-0.677, 3), 0.7507, 0.2493, 0.4986),
    ((0.636, 0.52, 0.693), (1.48, 2), 0.0695, 0.9305, 0.139),
    ((0.693, 0.52, 0.636), (2.126, 3), 0.0167, 0.9833, 0.0334),
]


@pytest.mark.parametrize("triple, z, p_greater, p_less, p_two", STSS131_ROWS)
def test_stss131_worked_example_is_meng_rosenthal_rubin(
    triple: tuple[float, float, float], z, p_greater, p_less, p_two
):
    greater = dependent_correlation_test(*triple, 64, method="meng1992", alternative="greater")
    less = dependent_correlation_test(*triple, 64, method="meng1992", alternative="less")
    two = dependent_correlation_test(*triple, 64, method="meng1992")
    assert_allclose(greater.statistic, **printed(*z))
    assert_allclose(greater.pvalue, **printed(p_greater, 4))
    assert_allclose(less.pvalue, **printed(p_less, 4))
    # The report's two-sided value is twice its *rounded* one-sided p (0.0334 = 2 x 0.0167 in
    # row 3, where the unrounded two-sided p is 0.03348): reproduce exactly that arithmetic.
    assert round(2 * round(min(greater.pvalue, less.pvalue), 4), 4) == pytest.approx(p_two)
    assert_allclose(two.pvalue, 2 * min(greater.pvalue, less.pvalue), rtol=1e-12)
    assert_allclose(two.pvalue, **printed(p_two, 3))


def test_stss131_numbers_are_not_steiger1980():
    """cocor's pooled-r Steiger (1980) z differs from the report in the printed digits."""
    values = [dependent_correlation_test(*row[0], 64).statistic for row in STSS131_ROWS]
    assert_allclose(values, [-0.6768, 1.4823, 2.1349], rtol=0, atol=5e-5)
    assert round(values[2], 3) != 2.126


# --------------------------------------------------------------------------------------------
# cocor's test vectors (Diedenhofen & Musch 2015; tests/testthat/test_cocor.R).
# --------------------------------------------------------------------------------------------
# DEPCOR (Silver, Hittner & May 2006, Applied Psychological Measurement 30, 152-153):
# r_jk = .3, r_jh = .4, r_kh = .5, n = 100, statistic and two-sided p to 4 decimals.
DEPCOR = {
    "steiger1980": (-1.0718, 0.2838),
    "dunn1969": (-1.0730, 0.2833),
    "hittner2003": (-1.0715, 0.2839),
    "williams1959": (-1.0767, 0.2843),
    "meng1992": (-1.0707, 0.2843),
}


@pytest.mark.parametrize("method", sorted(DEPCOR))
def test_depcor_vector(method):
    res = dependent_correlation_test(0.3, 0.4, 0.5, 100, method=method)
    assert_allclose(res.statistic, **printed(DEPCOR[method][0], 4))
    assert_allclose(res.pvalue, **printed(DEPCOR[method][1], 4))
    assert (res.df == 97.0) if method == "williams1959" else (res.df is None)


def test_steiger1980_case_a():
    # Steiger (1980), Case A, p. 249, as computed by cocor (the paper's rounded covariance
    # gives -.8913).
    res = dependent_correlation_test(r1=0.4, r2=0.5, r12=0.1, n=103, method="steiger1980")
    assert_allclose(res.statistic, **printed(-0.8887185, 7))


def test_dunn1969_spreadsheet_vector():
    # stat-help.com spreadsheet, as in cocor's tests (10 decimals).
    res = dependent_correlation_test(0.5, 0.6, 0.7, 100, method="dunn1969")
    assert_allclose(res.statistic, **printed(-1.5838851123, 10))
    assert_allclose(res.pvalue, **printed(0.1132198659, 10))


# May & Hittner (1997), Psychological Reports 80, 475-480: n = 50, r_kh = 0, .1, ..., .8.
R_KH = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
MAY_HITTNER = {
    ("hotelling1940", 0.5, 0.2): [1.73, 1.80, 1.89, 2.01, 2.17, 2.38, 2.68, 3.16, 4.07],
    ("hotelling1940", 0.7, 0.4): [2.46, 2.42, 2.45, 2.53, 2.67, 2.89, 3.22, 3.78, 4.91],
    ("meng1992", 0.5, 0.2): [1.62, 1.70, 1.80, 1.91, 2.06, 2.245, 2.50, 2.87, 3.50],
    ("meng1992", 0.7, 0.4): [2.03, 2.10, 2.20, 2.32, 2.47, 2.66, 2.94, 3.35, 4.05],
}


@pytest.mark.parametrize("key", sorted(MAY_HITTNER))
def test_may_hittner_1997_tables(key):
    method, r_jk, r_jh = key
    for r_kh, expected in zip(R_KH, MAY_HITTNER[key]):
        decimals = 3 if expected == 2.245 else 2  # cocor checks 2.245 to 3 decimals
        res = dependent_correlation_test(r_jk, r_jh, r_kh, 50, method=method)
        assert_allclose(res.statistic, **printed(expected, decimals), err_msg=f"r_kh={r_kh}")


@pytest.mark.parametrize(
    "method, args, expected, decimals",
    [
        # Glass & Stanley (1984), p. 311; Guilford & Fruchter (1978), p. 164.
        ("hotelling1940", (0.612, 0.541, 0.466, 157), 1.158, 3),
        ("hotelling1940", (0.55, 0.45, 0.60, 200), 1.91, 2),
        # May & Hittner (1997), p. 477.
        ("hendrickson1970", (0.5, 0.2, 0.3, 50), 2.01, 2),
        ("olkin1967", (0.5, 0.2, 0.3, 50), 2.00, 2),
        # Glass & Stanley (1970), p. 314 (the book prints 1.60).
        ("olkin1967", (0.56, 0.43, 0.52, 100), 1.59, 2),
    ],
)
def test_textbook_vectors(method, args, expected, decimals):
    res = dependent_correlation_test(*args, method=method)
    assert_allclose(res.statistic, **printed(expected, decimals))


def test_meng1992_paper_example():
    # Meng, Rosenthal & Rubin (1992), p. 173: one-sided test.
    res = dependent_correlation_test(
        0.63, -0.03, -0.19, 15, method="meng1992", alternative="greater"
    )
    assert_allclose(res.statistic, **printed(1.68, 2))
    assert_allclose(res.pvalue, **printed(0.047, 3))


def test_zou2007_interval_dependent_overlapping():
    # Zou (2007), p. 409, example 2.
    res = dependent_correlation_test(0.396, 0.179, 0.088, 66)
    assert_allclose(res.confidence_interval, [-0.093, 0.517], rtol=0, atol=5e-4 + 1e-12)


def test_zou_interval_level():
    res = dependent_correlation_test(0.396, 0.179, 0.088, 66, confidence_level=0.90)
    wide = dependent_correlation_test(0.396, 0.179, 0.088, 66, confidence_level=0.99)
    narrow = res.confidence_interval
    assert wide.confidence_interval.low < narrow.low < res.difference
    assert res.difference < narrow.high < wide.confidence_interval.high


# --------------------------------------------------------------------------------------------
# Properties every method must have.
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", DEPENDENT_METHODS)
def test_swapping_the_systems_negates_the_statistic(method):
    ab = dependent_correlation_test(0.636, 0.52, 0.693, 64, method=method)
    ba = dependent_correlation_test(0.52, 0.636, 0.693, 64, method=method)
    assert_allclose(ba.statistic, -ab.statistic, rtol=1e-12)
    assert_allclose(ba.pvalue, ab.pvalue, rtol=1e-12)  # two-sided
    greater = dependent_correlation_test(
        0.636, 0.52, 0.693, 64, method=method, alternative="greater"
    )
    less = dependent_correlation_test(0.52, 0.636, 0.693, 64, method=method, alternative="less")
    assert_allclose(greater.pvalue, less.pvalue, rtol=1e-12)
    lo, hi = ab.confidence_interval
    assert_allclose(ba.confidence_interval, (-hi, -lo), rtol=1e-12)


def test_equal_correlations_give_zero_statistic():
    for method in DEPENDENT_METHODS:
        res = dependent_correlation_test(0.5, 0.5, 0.3, 40, method=method)
        assert res.statistic == 0.0 and res.pvalue == 1.0


def test_null_rejection_rate_is_nominal():
    """Under H0 (rho_jk = rho_jh) with normal data every test rejects about 5% of the time."""
    rng = np.random.default_rng(20240601)
    population = np.array([[1.0, 0.5, 0.5], [0.5, 1.0, 0.6], [0.5, 0.6, 1.0]])
    n, reps = 100, 2000
    data = rng.standard_normal((reps, n, 3)) @ np.linalg.cholesky(population).T
    centred = data - data.mean(axis=1, keepdims=True)
    cov = np.einsum("rni,rnj->rij", centred, centred)
    sd = np.sqrt(np.einsum("rii->ri", cov))
    corr = cov / sd[:, :, None] / sd[:, None, :]
    for method in DEPENDENT_METHODS:
        p = np.array(
            [
                dependent_correlation_test(c[0, 1], c[0, 2], c[1, 2], n, method=method).pvalue
                for c in corr
            ]
        )
        rate = float(np.mean(p < 0.05))
        assert 0.03 <= rate <= 0.07, (method, rate)  # binomial sd 0.005


# --------------------------------------------------------------------------------------------
# From raw scores.
# --------------------------------------------------------------------------------------------
def _scores(seed=0, n=60):
    rng = np.random.default_rng(seed)
    gold = np.round(rng.uniform(0, 4, n), 1)  # ties, like human means
    return gold + rng.normal(0, 0.8, n), gold + rng.normal(0, 1.2, n), gold


@pytest.mark.parametrize("correlation", ["pearson", "spearman"])
def test_compare_from_scores_matches_the_r_test(correlation):
    p1, p2, gold = _scores()
    corr = stats.pearsonr if correlation == "pearson" else stats.spearmanr
    r1, r2, r12 = corr(gold, p1)[0], corr(gold, p2)[0], corr(p1, p2)[0]
    for method in DEPENDENT_METHODS:
        res = compare_dependent_correlations(p1, p2, gold, method=method, correlation=correlation)
        ref = dependent_correlation_test(r1, r2, r12, gold.size, method=method)
        assert isinstance(res, DependentCorrelationResult)
        assert_allclose([res.r1, res.r2, res.r12], [r1, r2, r12], rtol=1e-12)
        assert_allclose([res.statistic, res.pvalue], [ref.statistic, ref.pvalue], rtol=1e-10)
        assert (res.n, res.method, res.alternative, res.correlation) == (
            60,
            method,
            "two-sided",
            correlation,
        )
        assert res.statistic > 0  # system 1 is the less noisy one


def test_compare_from_scores_two_sided_p_symmetric_in_the_systems():
    p1, p2, gold = _scores(seed=3)
    for method in DEPENDENT_METHODS:
        ab = compare_dependent_correlations(p1, p2, gold, method=method)
        ba = compare_dependent_correlations(p2, p1, gold, method=method)
        assert_allclose(ba.pvalue, ab.pvalue, rtol=1e-12)
        assert_allclose(ba.statistic, -ab.statistic, rtol=1e-12)


def test_compare_returns_plain_python_types():
    res = compare_dependent_correlations(*_scores())
    for value in (res.statistic, res.pvalue, res.r1, res.r2, res.r12):
        assert type(value) is float
    assert type(res.n) is int
    assert all(type(v) is float for v in res.confidence_interval)


# --------------------------------------------------------------------------------------------
# Independent correlations: Fisher's r-to-z (cocor.indep.groups vectors).
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, z, decimals",
    [
        ((0.92, 60, 0.82, 50), 2.19, 2),  # Guilford & Fruchter (1978), p. 164 (book: 2.18)
        ((0.71, 200, 0.28, 78), 4.42, 2),  # Glass & Stanley (1970), p. 312 (book: 4.40)
        ((0.657, 62, 0.430, 143), 2.110737, 6),  # Cohen et al. (2003), eqs. 2.8.4, 2.8.11
        ((0.4, 100, 0.5, 100), -0.8751012342, 10),  # stat-help.com spreadsheet
    ],
)
def test_fisher_r_to_z(args, z, decimals):
    res = independent_correlation_test(*args)
    assert isinstance(res, IndependentCorrelationResult)
    assert_allclose(res.statistic, **printed(z, decimals))


def test_fisher_r_to_z_pvalue_and_alternatives():
    res = independent_correlation_test(0.4, 100, 0.5, 100)
    assert_allclose(res.pvalue, **printed(0.3815188256, 10))
    less = independent_correlation_test(0.4, 100, 0.5, 100, alternative="less")
    greater = independent_correlation_test(0.4, 100, 0.5, 100, alternative="greater")
    assert_allclose([less.pvalue, greater.pvalue], [res.pvalue / 2, 1 - res.pvalue / 2], rtol=1e-12)
    swapped = independent_correlation_test(0.5, 100, 0.4, 100)
    assert_allclose(swapped.statistic, -res.statistic, rtol=1e-12)


def test_zou2007_interval_independent():
    # Zou (2007), pp. 406 and 409.
    res = independent_correlation_test(0.49, 145, 0.36, 87)
    assert_allclose(res.confidence_interval, [-0.087, 0.359], rtol=0, atol=5e-4 + 1e-12)


# --------------------------------------------------------------------------------------------
# One correlation against a group of correlations (STSS-131 report: one-sample t-test).
# --------------------------------------------------------------------------------------------
HUMANS = [0.82, 0.86, 0.79, 0.88, 0.84, 0.80, 0.85, 0.83]


@pytest.mark.parametrize("transform", ["fisher", "none"])
def test_group_test_is_a_one_sample_t_test(transform):
    g = np.arctanh if transform == "fisher" else (lambda x: np.asarray(x, dtype=float))
    for alternative, ref_alt in (
        ("two-sided", "two-sided"),
        ("greater", "less"),
        ("less", "greater"),
    ):
        res = correlation_vs_group_test(
            0.636, HUMANS, 64, transform=transform, alternative=alternative
        )
        # scipy tests mean(group) - r; ours is r - mean(group), so the sides swap.
        ref = stats.ttest_1samp(g(HUMANS), g(0.636), alternative=ref_alt)
        assert_allclose(res.statistic, -ref.statistic, rtol=1e-12)
        assert_allclose(res.pvalue, ref.pvalue, rtol=1e-10)
        assert res.df == 7.0 and res.group_size == 8


def test_group_test_group_mean_and_interval_duality():
    res = correlation_vs_group_test(0.80, HUMANS, 64)
    assert_allclose(res.group_mean, math.tanh(np.mean(np.arctanh(HUMANS))), rtol=1e-12)
    for level in (0.9, 0.95, 0.99):
        lo, hi = correlation_vs_group_test(
            0.80, HUMANS, 64, confidence_level=level
        ).confidence_interval
        assert lo < res.r - res.group_mean < hi
        assert (lo > 0 or hi < 0) == (res.pvalue < 1 - level)


def test_group_test_with_sampling_error_of_r():
    res = correlation_vs_group_test(0.636, HUMANS, 64, sampling_error=True)
    z = np.arctanh(HUMANS)
    var_mean = z.var(ddof=1) / z.size
    se = math.sqrt(var_mean + 1 / 61)
    assert_allclose(res.statistic, (math.atanh(0.636) - z.mean()) / se, rtol=1e-12)
    assert_allclose(res.df, (var_mean + 1 / 61) ** 2 / (var_mean**2 / 7), rtol=1e-12)
    plain = correlation_vs_group_test(0.636, HUMANS, 64)
    assert abs(res.statistic) < abs(plain.statistic) and res.pvalue > plain.pvalue


# --------------------------------------------------------------------------------------------
# Holm.
# --------------------------------------------------------------------------------------------
def _holm_naive(p):
    p = np.asarray(p, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def test_holm_known_values():
    # R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm") -> 0.05 0.08 0.09 0.09 0.09
    assert_allclose(
        holm_adjust([0.01, 0.02, 0.03, 0.04, 0.05]), [0.05, 0.08, 0.09, 0.09, 0.09], rtol=1e-12
    )
    assert_allclose(holm_adjust([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02], rtol=1e-12)
    assert_allclose(holm_adjust([0.5, 0.6]), [1.0, 1.0])  # capped
    assert holm_adjust([0.2]).tolist() == [0.2]


def test_holm_is_statsmodels_holm_without_its_garbage_collection(monkeypatch):
    # statsmodels' Holm calls gc.collect() on every call: 0.5 s per call in a process holding
    # millions of objects, on the default path of every comparison of models
    import gc

    from statsmodels.stats.multitest import multipletests

    from sts_extras.stats.multiple import adjust_pvalues

    p = np.random.default_rng(3).uniform(0, 0.1, 45)
    expected = multipletests(p, method="holm")[1]
    monkeypatch.setattr(gc, "collect", lambda *args: pytest.fail("gc.collect() called"))
    assert_allclose(adjust_pvalues(p, "holm"), expected, rtol=1e-15)


def test_holm_matches_naive_and_is_monotone():
    rng = np.random.default_rng(1)
    for size in (1, 2, 7, 30):
        p = rng.uniform(0, 0.2, size) ** 2
        p[: size // 3] = p[0]  # ties
        adjusted = holm_adjust(p)
        assert_allclose(adjusted, _holm_naive(p), rtol=1e-12)
        order = np.argsort(p, kind="stable")
        assert np.all(np.diff(adjusted[order]) >= 0)
        assert np.all(adjusted >= p) and np.all(adjusted <= 1)
        assert isinstance(adjusted, np.ndarray)


# --------------------------------------------------------------------------------------------
# Bad input.
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"r1": 1.0}, "`r1`.*strictly between -1 and 1"),
        ({"r2": -1.0}, "`r2`.*strictly between -1 and 1"),
        ({"r12": 1.2}, "`r12`.*strictly between -1 and 1"),
        ({"r1": float("nan")}, "`r1`"),
        ({"n": 3}, "`n` must be at least 4"),
        ({"r1": 0.9, "r2": -0.9, "r12": 0.9}, "not a valid correlation matrix"),
        ({"method": "steiger"}, "`method` must be one of"),
        ({"alternative": "two.sided"}, "`alternative` must be one of"),
        ({"confidence_level": 1.0}, "confidence_level"),
        ({"confidence_level": 0.0}, "confidence_level"),
    ],
)
def test_dependent_test_rejects_bad_input(kwargs, match):
    args = {"r1": 0.3, "r2": 0.4, "r12": 0.5, "n": 100, **kwargs}
    n = args.pop("n")
    with pytest.raises(ValueError, match=match):
        dependent_correlation_test(args.pop("r1"), args.pop("r2"), args.pop("r12"), n, **args)


def test_dependent_test_rejects_bad_types():
    with pytest.raises(TypeError, match="`n` must be an integer"):
        dependent_correlation_test(0.3, 0.4, 0.5, 100.5)  # type: ignore[arg-type]  # deliberately wrong type
    with pytest.raises(TypeError, match="`r1`"):
        dependent_correlation_test("0.3", 0.4, 0.5, 100)  # type: ignore[arg-type]  # deliberately wrong type


def test_hotelling_needs_a_nonsingular_matrix():
    # det = 1 - .36 - .64 - 0 + 0 = 0: a PSD but singular matrix.
    assert 0 < dependent_correlation_test(0.6, 0.8, 0.0, 50).pvalue < 1
    with pytest.raises(ValueError, match="singular"):
        dependent_correlation_test(0.6, 0.8, 0.0, 50, method="hotelling1940")


def test_compare_rejects_bad_scores():
    p1, p2, gold = _scores()
    with pytest.raises(ValueError, match="same length"):
        compare_dependent_correlations(p1[:-1], p2, gold)
    bad = p1.copy()
    bad[5] = np.nan
    with pytest.raises(ValueError, match="predictions1.*finite"):
        compare_dependent_correlations(bad, p2, gold)
    bad[5] = np.inf
    with pytest.raises(ValueError, match="predictions1.*finite"):
        compare_dependent_correlations(bad, p2, gold)
    with pytest.raises(ValueError, match="at least 4"):
        compare_dependent_correlations(p1[:3], p2[:3], gold[:3])
    with pytest.raises(ValueError, match="references.*constant"):
        compare_dependent_correlations(p1, p2, np.ones_like(gold))
    with pytest.raises(ValueError, match="perfectly correlated"):
        compare_dependent_correlations(p1, 2 * p1 + 1, gold)
    with pytest.raises(ValueError, match="`correlation` must be one of"):
        compare_dependent_correlations(p1, p2, gold, correlation="kendall")
    with pytest.raises(ValueError, match="`method` must be one of"):
        compare_dependent_correlations(p1, p2, gold, method="williams")


def test_other_tests_reject_bad_input():
    with pytest.raises(ValueError, match="r1"):
        independent_correlation_test(1.0, 50, 0.3, 50)
    with pytest.raises(ValueError, match="`n2` must be at least 4"):
        independent_correlation_test(0.5, 50, 0.3, 3)
    with pytest.raises(ValueError, match="alternative"):
        independent_correlation_test(0.5, 50, 0.3, 50, alternative="bigger")
    with pytest.raises(ValueError, match="group_rs.*strictly between"):
        correlation_vs_group_test(0.5, [0.3, 1.0], 50)
    with pytest.raises(ValueError, match="group_rs.*at least 2"):
        correlation_vs_group_test(0.5, [0.3], 50)
    with pytest.raises(ValueError, match="group_rs.*constant"):
        correlation_vs_group_test(0.5, [0.3, 0.3, 0.3], 50)
    with pytest.raises(ValueError, match="transform"):
        correlation_vs_group_test(0.5, HUMANS, 50, transform="log")
    with pytest.raises(ValueError, match="pvalues.*\\[0, 1\\]"):
        holm_adjust([0.2, 1.5])
    with pytest.raises(ValueError, match="pvalues.*finite"):
        holm_adjust([0.2, float("nan")])


# --------------------------------------------------------------------------------------------
# One home per formula (issue 39): one Pearson-Filon covariance, one Fisher-z rule.
# --------------------------------------------------------------------------------------------
def test_the_covariance_of_two_correlations_is_pearson_filon_everywhere():
    from sts_extras.stats._common import (
        correlation_covariance,
        overlap_correlation,
        overlap_covariance,
    )

    r1, r2, r12 = 0.636, 0.693, 0.52
    # Var(sqrt(n) r) = (1 - r^2)^2: psi_{jk,jk}.
    assert_allclose(overlap_covariance(r1, r1, 1.0), (1 - r1**2) ** 2, rtol=1e-14)
    assert_allclose(correlation_covariance(r1, r1, 1.0, r1, r1, 1.0), (1 - r1**2) ** 2, rtol=1e-14)
    # Dunn & Clark (1969), eq. 8, and Zou (2007), p. 409, written out by hand.
    dunn = r12 * (1 - r1**2 - r2**2) - 0.5 * r1 * r2 * (1 - r1**2 - r2**2 - r12**2)
    assert_allclose(overlap_covariance(r1, r2, r12), dunn, rtol=1e-14)
    zou = ((r12 - 0.5 * r1 * r2) * (1 - r1**2 - r2**2 - r12**2) + r12**3) / (
        (1 - r1**2) * (1 - r2**2)
    )
    assert_allclose(overlap_correlation(r1, r2, r12), zou, rtol=1e-14)
    # Two correlations without a shared variable are uncorrelated when the cross terms are 0.
    assert correlation_covariance(0.5, 0.4, 0.0, 0.0, 0.0, 0.0) == 0.0
    # olkin1967 and pearson1898 are one variance (Hendrickson & Collins' correction).
    olkin = dependent_correlation_test(r1, r2, r12, 64, method="olkin1967")
    pearson = dependent_correlation_test(r1, r2, r12, 64, method="pearson1898")
    assert_allclose(olkin.statistic, pearson.statistic, rtol=1e-15)


def test_fisher_limits_pearson_one_over_n_minus_3_spearman_bonett_wright():
    from sts_extras.stats._common import fisher_limits, fisher_z_variance

    q = stats.norm.ppf(0.975)
    low, high = fisher_limits(0.5, 28, 0.95)
    assert_allclose([low, high], np.tanh(np.arctanh(0.5) + np.array([-q, q]) / 5.0), rtol=1e-14)
    se = math.sqrt((1 + 0.5**2 / 2) / 25)  # Bonett & Wright (2000), eq. 3
    low, high = fisher_limits(0.5, 28, 0.95, "spearman")
    assert_allclose([low, high], np.tanh(np.arctanh(0.5) + np.array([-q, q]) * se), rtol=1e-14)
    assert_allclose(fisher_z_variance([0.0, 0.6], 103, "spearman"), [0.01, 1.18 / 100], rtol=1e-14)
    assert_allclose(fisher_z_variance([0.0, 0.6], 103), [0.01, 0.01], rtol=1e-14)


def test_spearman_zou_interval_takes_bonett_wright_limits():
    """From data with Spearman's rho, the closed-form tests' Zou interval uses the package's one
    Fisher-z rule (Bonett & Wright 2000), not the Pearson variance 1/(n - 3)."""
    from sts_extras.stats.dependent import zou_dependent_interval

    p1, p2, gold = _scores()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # n = 60: the closed-form tests are uncalibrated
        res = compare_dependent_correlations(
            p1, p2, gold, method="steiger1980", correlation="spearman"
        )
        pearson = compare_dependent_correlations(p1, p2, gold, method="steiger1980")
    spearman = zou_dependent_interval(res.r1, res.r2, res.r12, res.n, 0.95, "spearman")
    pearson_rule = zou_dependent_interval(res.r1, res.r2, res.r12, res.n, 0.95)
    assert_allclose(tuple(res.confidence_interval), spearman, rtol=1e-14)
    low, high = res.confidence_interval
    assert low < pearson_rule[0] < pearson_rule[1] < high
    assert_allclose(
        tuple(pearson.confidence_interval),
        zou_dependent_interval(pearson.r1, pearson.r2, pearson.r12, pearson.n, 0.95),
        rtol=1e-14,
    )
