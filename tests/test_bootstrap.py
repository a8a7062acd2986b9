"""Specification of `sts_extras.stats.bootstrap.bootstrap_correlation_difference`.

The reference is ``scipy.stats.bootstrap(..., paired=True, vectorized=True, method="BCa")``: it
draws its resamples as ``rng.integers(0, n, (n_resamples, n))``, exactly as we do, so with the
same seed both must give the same interval to rounding (rtol 1e-9); with different seeds they
must agree within Monte-Carlo error. Speed is measured in benchmarks/bench_bca_bootstrap.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import special, stats

from sts_extras.errors import UserInputError
from sts_extras.stats import resampling as resampling_module
from sts_extras.stats.bootstrap import BootstrapDifferenceResult, bootstrap_correlation_difference
from sts_extras.stats.calibration import UncalibratedWarning


def _pearson(x, y, axis=-1):
    xm = x - x.mean(axis=axis, keepdims=True)
    ym = y - y.mean(axis=axis, keepdims=True)
    return (xm * ym).sum(axis) / np.sqrt((xm * xm).sum(axis) * (ym * ym).sum(axis))


def _spearman(x, y, axis=-1):
    return _pearson(stats.rankdata(x, axis=axis), stats.rankdata(y, axis=axis), axis)


STATISTICS = {"pearson": _pearson, "spearman": _spearman}


def _scipy_interval(h, a, b, statistic, seed, n_resamples, method="BCa", level=0.95):
    corr = STATISTICS[statistic]

    def delta(h, a, b, axis=-1):
        return corr(h, a, axis) - corr(h, b, axis)

    res = stats.bootstrap(
        (h, a, b),
        delta,
        paired=True,
        vectorized=True,
        method=method,
        n_resamples=n_resamples,
        confidence_level=level,
        random_state=np.random.default_rng(seed),  # `rng=` is scipy >= 1.15; the floor is 1.11
    )
    return res.confidence_interval


def _data(seed, n, ties=True):
    """Gold scores on a 0-4 scale (rounded, so with ties) and two noisy systems."""
    rng = np.random.default_rng(seed)
    gold = rng.uniform(0, 4, n)
    if ties:
        gold = np.round(gold, 1)
    a = gold + rng.normal(0, 0.9, n)
    b = 0.6 * gold + rng.normal(0, 0.9, n) + 0.4 * rng.standard_t(3, n)
    if ties:
        b = np.round(b, 1)
    return gold, a, b


# --------------------------------------------------------------------------------------------
# Agreement with scipy.stats.bootstrap.
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("statistic", ["pearson", "spearman"])
@pytest.mark.parametrize("seed, n, ties", [(0, 30, True), (1, 120, False), (2, 250, True)])
def test_same_seed_same_interval_as_scipy(statistic, seed, n, ties):
    gold, a, b = _data(seed, n, ties)
    for method, level in (("BCa", 0.95), ("percentile", 0.9)):
        ours = bootstrap_correlation_difference(
            a,
            b,
            gold,
            correlation=statistic,
            n_resamples=2000,
            seed=seed + 10,
            method=method,
            confidence_level=level,
        )
        low, high = _scipy_interval(gold, a, b, statistic, seed + 10, 2000, method, level)
        assert_allclose(
            [ours.confidence_interval.low, ours.confidence_interval.high],
            [low, high],
            rtol=1e-9,
            atol=1e-12,
        )


@pytest.mark.parametrize("statistic", ["pearson", "spearman"])
def test_interval_within_monte_carlo_error_of_scipy(statistic):
    """Different seeds: end points differ only by Monte-Carlo noise.

    Over 10 seeds the end points of ours have sd 0.001-0.002 here, so the difference of two
    independent runs has sd <= 0.003; 0.01 is more than 3 of those.
    """
    gold, a, b = _data(5, 200, ties=True)
    ours = bootstrap_correlation_difference(
        a, b, gold, correlation=statistic, n_resamples=10000, seed=1
    )
    low, high = _scipy_interval(gold, a, b, statistic, 2, 10000)
    assert_allclose(
        [ours.confidence_interval.low, ours.confidence_interval.high],
        [low, high],
        rtol=0,
        atol=0.01,
    )


# --------------------------------------------------------------------------------------------
# The fast pieces equal the naive computations.
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("statistic", ["pearson", "spearman"])
def test_resampling_by_counts_equals_materialised_resamples(statistic):
    gold, a, b = _data(7, 40, ties=True)
    engine_class = (
        resampling_module.PearsonDelta
        if statistic == "pearson"
        else resampling_module.SpearmanDelta
    )
    engine = engine_class(gold, a, b)
    counts = resampling_module.draw_counts(np.random.default_rng(3), 60, gold.size)
    r_ha, r_hb = engine.correlations(counts)
    corr = stats.pearsonr if statistic == "pearson" else stats.spearmanr
    for row, count in enumerate(counts):
        items = np.repeat(np.arange(gold.size), count.astype(int))
        assert_allclose(r_ha[row], corr(gold[items], a[items])[0], rtol=1e-12, atol=1e-14)
        assert_allclose(r_hb[row], corr(gold[items], b[items])[0], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("statistic", ["pearson", "spearman"])
@pytest.mark.parametrize("ties", [True, False])
def test_fast_jackknife_equals_leave_one_out_loop(statistic, ties):
    gold, a, b = _data(11, 35, ties=ties)
    engine_class = (
        resampling_module.PearsonDelta
        if statistic == "pearson"
        else resampling_module.SpearmanDelta
    )
    fast = engine_class(gold, a, b).jackknife()
    corr = stats.pearsonr if statistic == "pearson" else stats.spearmanr
    naive = []
    for i in range(gold.size):
        keep = np.arange(gold.size) != i
        naive.append(corr(gold[keep], a[keep])[0] - corr(gold[keep], b[keep])[0])
    assert_allclose(fast, naive, rtol=1e-10, atol=1e-13)

    # ... and the reported acceleration is Efron's from those jackknife values.
    res = bootstrap_correlation_difference(
        a, b, gold, correlation=statistic, n_resamples=1000, seed=0, method="BCa"
    )
    u = np.mean(naive) - np.asarray(naive)
    assert res.acceleration is not None  # BCa
    assert_allclose(res.acceleration, np.sum(u**3) / (6 * np.sum(u**2) ** 1.5), rtol=1e-8)


def test_bias_correction_counts_ties_half():
    gold, a, b = _data(4, 50)
    res = bootstrap_correlation_difference(a, b, gold, n_resamples=3000, seed=9)
    d = res.bootstrap_distribution
    share = (np.sum(d < res.delta) + 0.5 * np.sum(d == res.delta)) / d.size
    assert_allclose(res.bias_correction, special.ndtri(share), rtol=1e-12)


def test_chunk_size_does_not_change_the_result(monkeypatch):
    gold, a, b = _data(6, 90)
    reference = {
        s: bootstrap_correlation_difference(a, b, gold, correlation=s, n_resamples=1500, seed=4)
        for s in ("pearson", "spearman")
    }
    monkeypatch.setattr(resampling_module, "CHUNK_ELEMENTS", 90 * 7 + 3)  # 7 resamples per chunk
    for statistic, expected in reference.items():
        res = bootstrap_correlation_difference(
            a, b, gold, correlation=statistic, n_resamples=1500, seed=4
        )
        assert_allclose(
            res.bootstrap_distribution, expected.bootstrap_distribution, rtol=1e-12, atol=1e-14
        )
        assert_allclose(res.confidence_interval, expected.confidence_interval, rtol=1e-12)


# --------------------------------------------------------------------------------------------
# Behaviour.
# --------------------------------------------------------------------------------------------
def test_result_fields_and_observed_correlations():
    gold, a, b = _data(8, 80)
    res = bootstrap_correlation_difference(a, b, gold, n_resamples=2000, seed=0, method="BCa")
    assert isinstance(res, BootstrapDifferenceResult)
    assert_allclose(
        [res.r1, res.r2], [stats.pearsonr(gold, a)[0], stats.pearsonr(gold, b)[0]], rtol=1e-12
    )
    assert_allclose(res.delta, res.r1 - res.r2, rtol=1e-12)
    assert res.confidence_interval.low < res.delta < res.confidence_interval.high
    assert (res.n, res.n_resamples, res.correlation, res.method) == (80, 2000, "pearson", "BCa")
    assert res.statistic == res.delta == res.r1 - res.r2
    assert res.significant == (res.confidence_interval.low > 0 or res.confidence_interval.high < 0)
    for value in (
        res.delta,
        res.confidence_interval.low,
        res.confidence_interval.high,
        res.bias_correction,
        res.acceleration,
    ):
        assert type(value) is float
    assert type(res.significant) is bool
    assert (
        res.bootstrap_distribution.shape == (2000,)
        and not res.bootstrap_distribution.flags.writeable
    )
    spearman = bootstrap_correlation_difference(
        a, b, gold, correlation="spearman", n_resamples=2000, seed=0
    )
    assert_allclose(spearman.r1, stats.spearmanr(gold, a)[0], rtol=1e-12)


def test_same_seed_same_interval_and_generator_seed():
    gold, a, b = _data(9, 60)
    first = bootstrap_correlation_difference(a, b, gold, n_resamples=2000, seed=123)
    second = bootstrap_correlation_difference(a, b, gold, n_resamples=2000, seed=123)
    assert first == second
    assert np.array_equal(first.bootstrap_distribution, second.bootstrap_distribution)
    from_generator = bootstrap_correlation_difference(
        a, b, gold, n_resamples=2000, seed=np.random.default_rng(123)
    )
    assert from_generator == first
    other = bootstrap_correlation_difference(a, b, gold, n_resamples=2000, seed=124)
    assert other.confidence_interval.low != first.confidence_interval.low


@pytest.mark.parametrize("statistic", ["pearson", "spearman"])
@pytest.mark.parametrize("method", ["BCa", "percentile"])
def test_swapping_the_systems_mirrors_the_interval(statistic, method):
    gold, a, b = _data(10, 70)
    ab = bootstrap_correlation_difference(
        a, b, gold, correlation=statistic, method=method, n_resamples=2000, seed=3
    )
    ba = bootstrap_correlation_difference(
        b, a, gold, correlation=statistic, method=method, n_resamples=2000, seed=3
    )
    assert_allclose(
        [ba.confidence_interval.low, ba.confidence_interval.high],
        [-ab.confidence_interval.high, -ab.confidence_interval.low],
        rtol=1e-10,
    )
    assert ba.significant == ab.significant


def test_clear_winner_is_significant_and_identical_systems_are_not():
    rng = np.random.default_rng(12)
    gold = rng.uniform(0, 5, 300)
    good, bad = gold + rng.normal(0, 0.5, 300), gold + rng.normal(0, 3.0, 300)
    res = bootstrap_correlation_difference(good, bad, gold, n_resamples=2000, seed=0)
    assert res.significant and res.confidence_interval.low > 0
    # a copy of a system (or an affine copy: r12 = 1) has nothing to compare; its r1 - r2 is
    # rounding noise, which a bootstrap would call significant (an outside check found
    # p = 1.3e-05 for an affine copy): refused, as compare_dependent_correlations refuses it
    for copy in (good.copy(), 3.7 * good - 42.0):
        with pytest.raises(UserInputError, match="perfectly correlated"):
            bootstrap_correlation_difference(good, copy, gold, n_resamples=1000, method="BCa")


def test_percentile_interval_is_plain_quantiles():
    gold, a, b = _data(13, 60)
    res = bootstrap_correlation_difference(
        a, b, gold, n_resamples=2000, method="percentile", confidence_level=0.9, seed=2
    )
    assert_allclose(
        [res.confidence_interval.low, res.confidence_interval.high],
        np.quantile(res.bootstrap_distribution, [0.05, 0.95]),
        rtol=1e-12,
    )
    assert res.acceleration is None
    assert (
        bootstrap_correlation_difference(a, b, gold, n_resamples=1000, method="bca", seed=2).method
        == "BCa"
    )


def test_degenerate_resamples_are_dropped_with_a_warning():
    # n = 4: about 1/64 of the resamples draw a single item (every variable constant).
    gold, a, b = (
        np.array([0.0, 1.0, 2.0, 3.0]),
        np.array([0.5, 0.7, 2.5, 2.0]),
        np.array([1.0, 0.0, 3.0, 2.0]),
    )
    with pytest.warns(RuntimeWarning, match="constant variable"):
        res = bootstrap_correlation_difference(
            a, b, gold, n_resamples=4000, method="percentile", seed=5
        )
    indices = np.random.default_rng(5).integers(0, 4, size=(4000, 4))
    constant = (indices == indices[:, :1]).all(axis=1)
    assert res.n_resamples == 4000 - int(constant.sum()) and constant.sum() > 20
    assert np.isfinite(res.bootstrap_distribution).all()


# --------------------------------------------------------------------------------------------
# Bad input.
# --------------------------------------------------------------------------------------------
def test_bad_input_raises():
    gold, a, b = _data(14, 30)
    call = bootstrap_correlation_difference
    with pytest.raises(ValueError, match="same length"):
        call(a[:-1], b, gold)
    nan = a.copy()
    nan[3] = np.nan
    with pytest.raises(ValueError, match="predictions1.*finite"):
        call(nan, b, gold)
    inf = gold.copy()
    inf[0] = np.inf
    with pytest.raises(ValueError, match="references.*finite"):
        call(a, b, inf)
    with pytest.raises(ValueError, match="at least 4"):
        call(a[:3], b[:3], gold[:3])
    with pytest.raises(ValueError, match="predictions2.*constant"):
        call(a, np.full_like(b, 2.0), gold)
    with pytest.raises(ValueError, match="`correlation` must be one of"):
        call(a, b, gold, correlation="kendall")
    with pytest.raises(ValueError, match="`method` must be one of"):
        call(a, b, gold, method="basic")
    with pytest.raises(ValueError, match="`n_resamples` must be at least 1"):
        call(a, b, gold, n_resamples=0)
    with pytest.raises(TypeError, match="`n_resamples` must be an integer"):
        call(a, b, gold, n_resamples=1000.5)  # type: ignore[arg-type]  # deliberately wrong type
    for level in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="confidence_level"):
            call(a, b, gold, confidence_level=level)
    with pytest.raises(TypeError, match="seed"):
        call(a, b, gold, seed=-1)


def test_few_resamples_warn():
    gold, a, b = _data(15, 30)
    with pytest.warns(UserWarning, match="n_resamples=200 is below 1000"):
        bootstrap_correlation_difference(a, b, gold, n_resamples=200, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # (the method's calibration has its own warning, UncalibratedWarning: not this one)
        warnings.simplefilter("ignore", UncalibratedWarning)
        bootstrap_correlation_difference(a, b, gold, n_resamples=1000, seed=0)


# --------------------------------------------------------------------------------------------
# Buffer reuse and shared draws, done for speed, change no number.
# --------------------------------------------------------------------------------------------
def test_counts_are_scipys_draws_whatever_the_buffer():
    # The counts of each chunk equal a bincount of scipy's int64 indices, written into a reused
    # buffer or a fresh array alike.
    n, rows = 37, 11
    indices = np.random.default_rng(8).integers(0, n, size=(rows, n))
    expected = np.array([np.bincount(row, minlength=n) for row in indices], dtype=np.float64)
    fresh = resampling_module.draw_counts(np.random.default_rng(8), rows, n)
    buffer = np.full((rows, n), 7.0)
    reused = resampling_module.draw_counts(np.random.default_rng(8), rows, n, out=buffer)
    assert reused is buffer
    np.testing.assert_array_equal(fresh, expected)
    np.testing.assert_array_equal(reused, expected)
    chunks = [c.copy() for c in resampling_module.resample_counts(np.random.default_rng(8), 11, n)]
    np.testing.assert_array_equal(np.vstack(chunks), expected)


@pytest.mark.parametrize("statistic", ["pearson", "spearman"])
@pytest.mark.parametrize("ties", [True, False])
def test_results_equal_a_per_chunk_recomputation_exactly(statistic, ties):
    # Same bootstrap values, bit for bit, as fresh scipy-style counts (int64 indices, bincount)
    # fed chunk by chunk to a fresh engine: the reused buffers change no last bit.
    gold, a, b = _data(12, 300, ties=ties)
    res = bootstrap_correlation_difference(
        a, b, gold, correlation=statistic, n_resamples=1000, seed=6
    )
    engine_class = (
        resampling_module.PearsonDelta
        if statistic == "pearson"
        else resampling_module.SpearmanDelta
    )
    engine = engine_class(gold, a, b)
    rng = np.random.default_rng(6)
    size = resampling_module.CHUNK_ELEMENTS // gold.size
    deltas = []
    for start in range(0, 1000, size):
        rows = min(size, 1000 - start)
        indices = rng.integers(0, gold.size, size=(rows, gold.size))
        counts = np.array([np.bincount(r, minlength=gold.size) for r in indices], dtype=float)
        deltas.append(np.subtract(*engine.correlations(counts)))
    np.testing.assert_array_equal(res.bootstrap_distribution, np.concatenate(deltas))
