"""Specification of the exact O(n log n) leave-one-out jackknife of Spearman's rho.

The reference here is the O(n^2) computation the engine did before: removing item i lowers the
doubled average rank of every other item j by ``sign(x_j - x_i) + 1``, and rho without i is the
Pearson correlation of those ranks (integer sums, exact in int64 at these sizes). The fast
jackknife must equal it to 1e-12, ties included, and the BCa intervals built from it must equal
the intervals built from the reference to 1e-12. Speed is measured in
benchmarks/bench_spearman_jackknife.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from sts_extras.stats import intervals, resampling
from sts_extras.stats.bootstrap import bootstrap_correlation_difference
from sts_extras.stats.jackknife import spearman_jackknife
from sts_extras.stats.model_comparison import compare_models


def _doubled_ranks(x):
    return np.rint(2 * stats.rankdata(x)).astype(np.int64)


def reference_jackknife(reference, predictions, rows=None):
    """(len(rows) x m) leave-one-out rho by the O(n^2) rank update, exact integer sums."""
    reference = np.asarray(reference, dtype=float)
    predictions = np.atleast_2d(np.asarray(predictions, dtype=float))
    n = reference.size
    rows = np.arange(n) if rows is None else np.asarray(rows)
    full_h = _doubled_ranks(reference)
    out = np.empty((rows.size, predictions.shape[0]))
    for start in range(0, rows.size, 256):
        chunk = rows[start : start + 256]
        keep = np.ones((chunk.size, n), dtype=bool)
        keep[np.arange(chunk.size), chunk] = False

        def centred(doubled, x, chunk=chunk, keep=keep):
            # Doubled leave-one-out ranks minus their mean (n), zero at the left-out item.
            drop = np.sign(x[None, :] - x[chunk, None]).astype(np.int64) + 1
            return np.where(keep, doubled[None, :] - drop - n, 0)

        ch = centred(full_h, reference)
        vh = (ch * ch).sum(axis=1)
        for k, x in enumerate(predictions):
            cx = centred(_doubled_ranks(x), x)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[start : start + chunk.size, k] = (ch * cx).sum(axis=1) / np.sqrt(
                    vh.astype(float) * (cx * cx).sum(axis=1).astype(float)
                )
    return out


def _data(seed, n, levels=None):
    """Gold scores and two systems; ``levels`` rounds everything to that many values (ties)."""
    rng = np.random.default_rng(seed)
    gold = rng.uniform(0, 5, n)
    a = gold + rng.normal(0, 1.0, n)
    b = -0.5 * gold + rng.normal(0, 0.8, n) + 0.3 * rng.standard_t(3, n)
    if levels is not None:
        gold, a, b = (np.round(v / v.std() * levels / 6) for v in (gold, a, b))
    return gold, np.vstack([a, b])


def test_reference_is_the_leave_one_out_spearman():
    gold, systems = _data(1, 25, levels=8)
    expected = [
        [stats.spearmanr(np.delete(gold, i), np.delete(x, i))[0] for x in systems]
        for i in range(gold.size)
    ]
    assert_allclose(reference_jackknife(gold, systems), expected, rtol=1e-12, atol=1e-14)


CASES = {
    "no ties": _data(2, 3000),
    "heavy ties": _data(3, 3000, levels=6),
    "some ties": _data(4, 2000, levels=300),
    "ties in gold only": (np.round(_data(5, 1500)[0]), _data(5, 1500)[1]),
    "all tied but two": (
        np.r_[np.zeros(998), 1.0, 2.0],
        np.vstack([np.r_[2.0, np.zeros(998), 1.0], np.arange(1000.0)]),
    ),
    "all tied but one (NaN when it is left out)": (
        np.r_[np.zeros(99), 1.0],
        np.vstack([np.arange(100.0), np.r_[3.0, np.ones(99)]]),
    ),
    "n = 3": (np.array([1.0, 2.0, 3.0]), np.array([[2.0, 1.0, 3.0], [1.0, 1.0, 0.0]])),
    "n = 4": (np.array([1.0, 2.0, 2.0, 5.0]), np.array([[4.0, 1.0, 3.0, 3.0], [1, 2, 3, 4.0]])),
    "identical to gold": (np.arange(50.0) % 7, np.vstack([np.arange(50.0) % 7])),
}


@pytest.mark.parametrize("case", list(CASES))
def test_fast_jackknife_equals_the_quadratic_reference(case):
    gold, systems = CASES[case]
    fast = spearman_jackknife(systems, gold)
    assert fast.shape == (gold.size, systems.shape[0])
    assert_allclose(fast, reference_jackknife(gold, systems), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize(
    ("predictions", "references", "match"),
    [
        (np.arange(5.0), np.ones((2, 5)), r"`references` \(the second argument\)"),
        (np.arange(5.0), np.arange(2.0), "at least 3"),
        (np.ones((2, 2, 5)), np.arange(5.0), "`predictions` must be one system"),
        (np.ones((2, 4)), np.arange(5.0), "`predictions` has 4 scores per system"),
        ([0.0, np.nan, 1.0], [1.0, 2.0, 3.0], "`predictions` must be finite"),
        ([0.0, 2.0, 1.0], [1.0, np.inf, 3.0], "`references`"),
    ],
)
def test_bad_input_names_the_argument(predictions, references, match):
    with pytest.raises(ValueError, match=match):
        spearman_jackknife(predictions, references)


def test_engine_jackknife_is_exact_at_n_1e5():
    """The engine's jackknife at a size the quadratic loop could not reach in a test (its speed
    is measured by benchmarks/bench_spearman_jackknife.py, not asserted here)."""
    gold, systems = _data(6, 100_000, levels=26)
    fast = resampling.SpearmanDelta(gold, *systems).jackknife()
    rows = np.random.default_rng(0).choice(gold.size, 20, replace=False)
    expected = reference_jackknife(gold, systems, rows)
    assert_allclose(fast[rows], expected[:, 0] - expected[:, 1], rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("seed, n, levels", [(0, 40, 8), (1, 300, None), (2, 800, 20)])
def test_bca_interval_equals_the_one_from_the_reference_jackknife(seed, n, levels):
    gold, (a, b) = _data(seed, n, levels)
    res = bootstrap_correlation_difference(
        a, b, gold, correlation="spearman", n_resamples=2000, seed=seed, method="BCa"
    )
    leave_one_out = reference_jackknife(gold, np.vstack([a, b]))
    jackknife = (leave_one_out[:, 0] - leave_one_out[:, 1])[None, :]
    low, high = intervals.difference_intervals(
        "BCa",
        np.array([res.delta]),
        alpha=0.05,
        n=n,
        deltas=res.bootstrap_distribution[None, :],
        jackknife=jackknife,
    )
    assert res.acceleration is not None  # BCa
    assert_allclose(
        [res.confidence_interval.low, res.confidence_interval.high, res.acceleration],
        [low[0], high[0], intervals.acceleration(jackknife)[0]],
        rtol=1e-12,
        atol=1e-12,
    )


def test_compare_models_intervals_equal_the_ones_from_the_reference_jackknife():
    gold, systems = _data(7, 300, levels=30)
    models = {"a": systems[0], "b": systems[1], "c": gold + np.arange(gold.size) % 5}
    res = compare_models(
        models, gold, correlation="spearman", n_resamples=1000, seed=3, method="BCa", adjust="none"
    )
    leave_one_out = reference_jackknife(gold, np.vstack(list(models.values())))
    engine = resampling.SpearmanCorrelations(gold, np.vstack(list(models.values())))
    observed = engine.correlations(np.ones((1, gold.size)))[0]
    boot = np.concatenate(
        [
            engine.correlations(counts)
            for counts in resampling.resample_counts(np.random.default_rng(3), 1000, gold.size)
        ]
    )
    for left, right in (("a", "b"), ("a", "c"), ("b", "c")):
        i, j = list(models).index(left), list(models).index(right)
        expected = intervals.difference_intervals(
            "BCa",
            np.array([observed[i] - observed[j]]),
            alpha=0.05,
            n=gold.size,
            deltas=(boot[:, i] - boot[:, j])[None, :],
            jackknife=(leave_one_out[:, i] - leave_one_out[:, j])[None, :],
        )
        pair = res.pair(left, right)
        assert_allclose(
            [pair.confidence_interval.low, pair.confidence_interval.high],
            [expected[0][0], expected[1][0]],
            rtol=1e-12,
            atol=1e-12,
        )
