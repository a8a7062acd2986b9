"""Specification of `sts_extras.stats.model_comparison`: all pairs of many models on one task."""

from __future__ import annotations

import numpy as np
import pytest
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
    for k in range(m):
        ordered = np.sort(ranks[:, k])
        # Percentile interval: the ceil(B q)-th smallest rank (inverted CDF).
        assert result.rank_low[k] == ordered[int(np.ceil(1000 * 0.025)) - 1]
        assert result.rank_high[k] == ordered[int(np.ceil(1000 * 0.975)) - 1]
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
