"""Specification of `sts_extras.stats.model_comparison`: all pairs of many models on one task."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats
from statsmodels.stats.multitest import multipletests

from sts_extras.errors import UserInputError
from sts_extras.stats import resampling
from sts_extras.stats.bootstrap import bootstrap_correlation_difference
from sts_extras.stats.dependent import compare_dependent_correlations, holm_adjust
from sts_extras.stats.model_comparison import (
    compare_models,
    mean_rank_across_tasks,
    top_model_detectable_deltas,
)
from sts_extras.stats.power import minimal_detectable_delta


def _task(seed: int, n: int, m: int, ties: bool = True):
    rng = np.random.default_rng(seed)
    gold = rng.uniform(0, 5, n)
    if ties:
        gold = np.round(gold * 5) / 5
    models = {f"model-{k}": gold + rng.normal(0, 1.0 + k / 4, n) for k in range(m)}
    if ties:
        models["rounded"] = np.round(gold + rng.normal(0, 1.2, n))
    return gold, models


@pytest.mark.parametrize("statistic", ["pearson", "spearman"])
def test_each_pair_equals_the_per_pair_functions_with_the_same_seed(statistic):
    gold, models = _task(1, 120, 4)
    # Unadjusted, each pair's interval is that of the per-pair function with the same method.
    result = compare_models(
        models, gold, correlation=statistic, n_resamples=1500, seed=5, method="BCa", adjust="none"
    )
    tests = compare_models(
        models,
        gold,
        correlation=statistic,
        n_resamples=1500,
        seed=5,
        method="meng1992",
        adjust="none",
    )
    assert len(result.pairs) == 10
    for pair in result.pairs:
        one = bootstrap_correlation_difference(
            models[pair.model1],
            models[pair.model2],
            gold,
            correlation=statistic,
            n_resamples=1500,
            seed=5,
            method="BCa",
        )
        assert_allclose(
            [pair.delta, pair.confidence_interval.low, pair.confidence_interval.high],
            [one.delta, one.confidence_interval.low, one.confidence_interval.high],
            atol=1e-12,
        )
        assert_allclose(pair.pvalue, one.pvalue, rtol=1e-12)
        assert pair.significant == one.significant
        test = compare_dependent_correlations(
            models[pair.model1], models[pair.model2], gold, method="meng1992", correlation=statistic
        )
        tested = tests.pair(pair.model1, pair.model2)
        assert_allclose(
            [tested.statistic, tested.pvalue], [test.statistic, test.pvalue], rtol=1e-12
        )
        assert_allclose(pair.r12, test.r12, rtol=1e-12)


def test_ranks_and_win_probabilities_equal_a_brute_force_loop_over_the_same_resamples():
    gold, models = _task(2, 60, 5)
    names = list(models)
    result = compare_models(models, gold, n_resamples=1000, seed=3)
    # The same resamples, materialised, and every model's r computed by scipy.
    rng = np.random.default_rng(3)
    rows = []
    for counts in resampling.resample_counts(rng, 1000, gold.size):
        for count in counts:
            items = np.repeat(np.arange(gold.size), count.astype(int))
            rows.append([stats.pearsonr(gold[items], models[k][items])[0] for k in names])
    boot = np.array(rows)
    m = len(names)
    ranks = np.array([[1 + np.sum(row > row[k]) for k in range(m)] for row in boot])
    wins = np.array(
        [
            [
                np.mean(boot[:, i] > boot[:, j]) + 0.5 * np.mean(boot[:, i] == boot[:, j])
                for j in range(m)
            ]
            for i in range(m)
        ]
    )
    assert_array_equal(result.bootstrap_ranks, ranks)
    assert_array_equal(result.win_probability, wins)
    observed = np.array([stats.pearsonr(gold, models[k])[0] for k in names])
    assert_array_equal(result.rank, [1 + np.sum(observed > r) for r in observed])
    assert_allclose(result.win_probability + result.win_probability.T, 1.0)


def test_holm_over_all_pairs_matches_statsmodels_and_a_hand_worked_case():
    gold, models = _task(4, 80, 5)
    result = compare_models(models, gold, n_resamples=1000, seed=0)
    pvalues = np.array([pair.pvalue for pair in result.pairs])
    adjusted = np.array([pair.pvalue_adjusted for pair in result.pairs])
    assert_allclose(adjusted, multipletests(pvalues, method="holm")[1], rtol=1e-15)
    # Hand-worked Holm: sorted p (0.005, 0.01, 0.03, 0.04) times (4, 3, 2, 1), running max.
    assert holm_adjust([0.01, 0.04, 0.03, 0.005]).tolist() == [0.03, 0.06, 0.06, 0.02]
    bonferroni = compare_models(models, gold, n_resamples=1000, seed=0, adjust="bonferroni")
    assert_allclose(
        [pair.pvalue_adjusted for pair in bonferroni.pairs], np.minimum(1, pvalues * pvalues.size)
    )


def test_mean_rank_across_tasks_resamples_within_each_task():
    tasks = [_task(seed, 50 + 10 * seed, 3, ties=False) for seed in range(3)]
    results = [
        compare_models(models, gold, n_resamples=1000, seed=seed)
        for seed, (gold, models) in enumerate(tasks)
    ]
    # Same models in another order in the last task: matched by name.
    gold, models = tasks[2]
    results[2] = compare_models(
        dict(reversed(list(models.items()))), gold, n_resamples=1000, seed=2
    )
    pooled = mean_rank_across_tasks(results)
    names = pooled.models
    stacked = np.stack(
        [res.bootstrap_ranks[:, [res.models.index(k) for k in names]] for res in results]
    )
    expected = np.quantile(stacked.mean(axis=0), [0.025, 0.975], axis=0)
    assert_allclose([pooled.confidence_interval.low, pooled.confidence_interval.high], expected)
    observed = np.mean([[res.rank[res.models.index(k)] for k in names] for res in results], axis=0)
    assert_allclose(pooled.mean_rank, observed)
    assert pooled.n_tasks == 3
    with pytest.raises(UserInputError, match="same models"):
        mean_rank_across_tasks([results[0], compare_models({"a": gold + 1.0, "b": -gold}, gold)])


def test_top_model_detectable_deltas():
    gold, models = _task(6, 150, 3, ties=False)
    result = compare_models(models, gold, n_resamples=1000, seed=0)
    deltas = top_model_detectable_deltas(result)
    top = int(np.argmax(result.r))
    assert set(deltas) == set(result.models) - {result.models[top]}
    for name, delta in deltas.items():
        k = result.models.index(name)
        expected = minimal_detectable_delta(
            float(result.r[top]), float(result.model_correlations[top, k]), 150
        )
        assert delta == expected and 0 < delta < 1


def test_identical_models_give_a_pair_error_not_a_crash():
    gold, models = _task(7, 40, 2, ties=False)
    models["copy"] = models["model-0"].copy()
    result = compare_models(models, gold, n_resamples=1000, seed=0)
    pair = result.pair("model-0", "copy")
    assert abs(pair.delta) < 1e-12 and np.isnan(pair.pvalue)
    assert pair.error is not None and "perfectly" in pair.error
    assert not np.isnan([p.pvalue_adjusted for p in result.pairs if p is not pair]).any()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"predictions": {"a": [1, 2, 3, 4, 5]}}, "at least 2 models"),
        ({"predictions": [[1, 2, 3, 4, 5]] * 2}, "mapping"),
        ({"method": "nope"}, "method"),
        ({"adjust": "nope"}, "adjust"),
        ({"correlation": "kendall"}, "correlation"),
        ({"predictions": {"a": [1, 2, 3, 4, 5], "b": [1, 1, 1, 1, 1]}}, "constant"),
        ({"predictions": {"a": [1, 2, 3, 4, 5], "b": [1, 2, 3]}}, "same length"),
    ],
)
def test_bad_input_raises_user_errors(kwargs, message):
    arguments = {"predictions": {"a": [1, 3, 2, 5, 4], "b": [2, 1, 3, 4, 5]}, **kwargs}
    with pytest.raises(UserInputError, match=message):
        compare_models(references=[1, 2, 3, 4, 5], **arguments, n_resamples=1000)


@pytest.mark.parametrize("statistic", ["pearson", "spearman"])
def test_shared_draw_gives_the_per_comparison_intervals_exactly(statistic):
    # One draw shared by all comparisons of a task against a baseline (for speed) gives the
    # same intervals as one bootstrap_correlation_difference call per comparison, same seed.
    gold, models = _task(4, 300, 4)
    baseline = models.pop("model-0")
    shared = compare_models(
        {**models, "baseline": baseline},
        gold,
        correlation=statistic,
        n_resamples=2000,
        seed=8,
        adjust="none",
    )
    for name, scores in models.items():
        one = bootstrap_correlation_difference(
            scores,
            baseline,
            gold,
            correlation=statistic,
            n_resamples=2000,
            seed=8,
            method=shared.method,
        )
        pair = shared.pair(name, "baseline")
        assert (pair.model1, pair.model2) == (name, "baseline")
        # Equal to the last bits: the matrix product of the counts with a wider design matrix
        # may sum in another order (measured differences ~1e-16).
        assert_allclose(
            [pair.delta, pair.confidence_interval.low, pair.confidence_interval.high],
            [one.delta, one.confidence_interval.low, one.confidence_interval.high],
            rtol=1e-13,
            atol=1e-15,
        )
        assert pair.significant == one.significant


# --------------------------------------------------------------------------------------------
# Rank intervals: the rank sets that the pair decisions leave (Mogstad et al. 2024)
# --------------------------------------------------------------------------------------------
def _decided_counts(result, decided):
    """Per model: the decided pairs in which the other model is better, and worse (sign of Δr)."""
    better = np.zeros(len(result.models), dtype=int)
    worse = np.zeros(len(result.models), dtype=int)
    for pair, made in zip(result.pairs, decided):
        if not made or pair.delta == 0:
            continue
        i, j = result.models.index(pair.model1), result.models.index(pair.model2)
        winner, loser = (i, j) if pair.delta > 0 else (j, i)
        better[loser] += 1
        worse[winner] += 1
    return better, worse


@st.composite
def _score_sets(draw):
    """A few models on a few items, ties allowed in the gold and in the predictions."""
    n = draw(st.integers(min_value=8, max_value=24))
    m = draw(st.integers(min_value=2, max_value=5))
    values = st.integers(min_value=0, max_value=5)
    gold = np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=float)
    noise = st.lists(st.integers(min_value=-2, max_value=2), min_size=n, max_size=n)
    models = {}
    for k in range(m):
        scale = draw(st.sampled_from([0.0, 0.5, 1.0, 2.0]))
        models[f"m{k}"] = gold + scale * np.array(draw(noise), dtype=float)
    assume(np.ptp(gold) > 0 and all(np.ptp(x) > 0 for x in models.values()))
    return gold, models, draw(st.integers(min_value=0, max_value=2**16))


def _compare_quietly(models, gold, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # uncalibrated n, dropped constant resamples
        try:
            return compare_models(models, gold, n_resamples=1000, **kwargs)
        except UserInputError:  # every resample constant: too few distinct values
            assume(False)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task=_score_sets(), adjust=st.sampled_from(["holm", "bonferroni"]))
def test_rank_intervals_are_the_ranks_the_familywise_pair_decisions_leave(task, adjust):
    gold, models, seed = task
    result = _compare_quietly(models, gold, seed=seed, adjust=adjust)
    m = len(models)
    better, worse = _decided_counts(result, [pair.significant for pair in result.pairs])
    assert_array_equal(result.rank_low, 1 + better)
    assert_array_equal(result.rank_high, m - worse)
    assert ((result.rank_low <= result.rank) & (result.rank <= result.rank_high)).all()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task=_score_sets(), adjust=st.sampled_from(["none", "fdr_bh", "hommel"]))
def test_rank_intervals_without_familywise_control_keep_only_holms_decisions(task, adjust):
    gold, models, seed = task
    result = _compare_quietly(models, gold, seed=seed, adjust=adjust)
    m = len(models)
    own = [pair.significant for pair in result.pairs]
    # Every rank the call's own decisions leave possible stays in the interval ...
    better, worse = _decided_counts(result, own)
    assert (result.rank_low <= 1 + better).all() and (result.rank_high >= m - worse).all()
    # ... which is the one the decisions that Holm's step-down makes too leave.
    pvalues = np.array([pair.pvalue for pair in result.pairs])
    holm = np.zeros(pvalues.size, dtype=bool)
    tested = ~np.isnan(pvalues)
    if tested.any():
        holm[tested] = multipletests(pvalues[tested], alpha=0.05, method="holm")[0]
    better, worse = _decided_counts(result, np.logical_and(own, holm))
    assert_array_equal(result.rank_low, 1 + better)
    assert_array_equal(result.rank_high, m - worse)


def test_no_significant_pair_gives_every_model_every_rank():
    # The bootstrap percentile interval of the rank printed [1, 2] and [2, 3] here while no pair
    # differs significantly; the rank sets say what the decisions say: nothing is decided.
    rng = np.random.default_rng(0)
    gold = rng.uniform(0, 5, 200)
    models = {f"m{k}": gold + rng.normal(0, 1 + k / 8, 200) for k in range(3)}
    result = compare_models(models, gold, n_resamples=2000, seed=1)
    assert not any(pair.significant for pair in result.pairs)
    assert result.rank_low.tolist() == [1, 1, 1] and result.rank_high.tolist() == [3, 3, 3]
    percentile = np.quantile(result.bootstrap_ranks, [0.025, 0.975], axis=0, method="inverted_cdf")
    assert percentile.T.tolist() == [[1, 2], [1, 3], [2, 3]]


def test_exactly_tied_models_keep_their_shared_true_rank_one():
    # 60 models with the same predictions, each permuted within the items of equal gold score:
    # every model has the same r (a population tie), so every true rank is 1. The bootstrap
    # percentile interval leaves 1 out for most of them (each resampled rank spreads over
    # 1..60); the rank sets keep it.
    rng = np.random.default_rng(5)
    gold = rng.integers(0, 6, 80).astype(float)
    base = gold + rng.normal(0, 1.5, gold.size)
    models = {}
    for k in range(60):
        scores = base.copy()
        for value in np.unique(gold):
            where = np.flatnonzero(gold == value)
            scores[where] = scores[rng.permutation(where)]
        models[f"m{k}"] = scores
    result = compare_models(models, gold, n_resamples=1000, seed=0)
    assert_allclose(result.r, result.r[0], rtol=1e-12)
    assert not any(pair.significant for pair in result.pairs)
    assert (result.rank_low == 1).all() and (result.rank_high == 60).all()
    low = np.quantile(result.bootstrap_ranks, 0.025, axis=0, method="inverted_cdf")
    assert (low > 1).mean() > 0.5


def test_tied_and_separated_groups_share_their_ranks():
    # Two identical copies of a good model and two of a poor one (n = 300): a copy's pair has
    # no decision (perfectly correlated), each group is decided against the other, so the
    # copies share one rank set (their observed r may differ in the last bit).
    rng = np.random.default_rng(3)
    gold = rng.uniform(0, 5, 300)
    good, poor = gold + rng.normal(0, 0.5, 300), gold + rng.normal(0, 3.0, 300)
    models = {"good-a": good, "poor-a": poor, "good-b": good.copy(), "poor-b": poor.copy()}
    result = compare_models(models, gold, n_resamples=1000, seed=0)
    assert result.pair("good-a", "good-b").error is not None
    assert result.rank_low.tolist() == [1, 3, 1, 3]
    assert result.rank_high.tolist() == [2, 4, 2, 4]


def test_a_copy_of_a_model_is_no_decision_and_leaves_the_shared_rank_possible():
    # an affine copy (r12 = 1): no test, no interval, no decision; an outside check found it
    # significant with a NaN p-value and rank sets that left out the true rank
    rng = np.random.default_rng(33)
    gold = rng.normal(size=60)
    a = gold + rng.normal(size=60)
    strong = gold + 0.5 * rng.normal(size=60)
    result = compare_models(
        {"A": a, "B": 4.2 * a - 17.0, "C": strong}, gold, method="BCa", n_resamples=1000
    )
    pair = result.pair("A", "B")
    assert pair.error is not None and "perfectly correlated" in pair.error
    assert not pair.significant
    assert np.isnan(pair.confidence_interval.low) and np.isnan(pair.pvalue)
    # A and B share rank 2 behind C
    for k in (0, 1):
        assert result.rank_low[k] <= 2 <= result.rank_high[k]
