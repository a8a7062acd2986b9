"""The one vocabulary of ``docs/api-conventions.md``, held for every public statistics function.

Names and order of the parameters (read with ``inspect.signature``), what the results carry, and
that every old spelling of sts-extras 0.2 still works until 0.4: it warns with a
``DeprecationWarning`` naming the new spelling and gives exactly the result of the new one.
"""

from __future__ import annotations

import inspect
import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import sts_extras.stats as stats_api
from sts_extras._deprecation import REMOVED_IN
from sts_extras.stats import (
    ArrayConfidenceInterval,
    ConfidenceInterval,
    bootstrap_correlation_difference,
    compare_dependent_correlations,
    compare_models,
    correlation_vs_group_test,
    dependent_correlation_test,
    independent_correlation_test,
    mean_rank_across_tasks,
    scaled_pearson,
)
from sts_extras.stats.jackknife import spearman_jackknife

PUBLIC_FUNCTIONS = {
    name: getattr(stats_api, name)
    for name in stats_api.__all__
    if inspect.isfunction(getattr(stats_api, name))
}
PUBLIC_FUNCTIONS["spearman_jackknife"] = spearman_jackknife

#: Spellings of 0.2 that no public function may use any more.
OLD_PARAMETERS = {"reference", "statistic", "test", "r_jk", "r_jh", "r_kh", "rng", "random_state"}
#: Options that are keyword-only wherever they appear.
OPTIONS = {"method", "correlation", "alternative", "confidence_level", "seed", "n_resamples"}


def _parameters(function):
    return list(inspect.signature(function).parameters.values())


def _names(function):
    return [parameter.name for parameter in _parameters(function)]


def _data(seed=0, n=40):
    rng = np.random.default_rng(seed)
    gold = rng.uniform(0, 5, n)
    return gold, gold + rng.normal(0, 1.0, n), gold + rng.normal(0, 1.6, n)


# --------------------------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(PUBLIC_FUNCTIONS))
def test_no_public_function_uses_an_old_parameter_name(name):
    assert not OLD_PARAMETERS & set(_names(PUBLIC_FUNCTIONS[name]))


@pytest.mark.parametrize("name", sorted(PUBLIC_FUNCTIONS))
def test_predictions_come_before_references(name):
    names = _names(PUBLIC_FUNCTIONS[name])
    if "references" not in names:
        return
    for first in ("predictions", "predictions1", "predictions2"):
        if first in names:
            assert names.index(first) < names.index("references"), names


@pytest.mark.parametrize("name", sorted(PUBLIC_FUNCTIONS))
def test_correlations_of_a_dependent_comparison_are_r1_r2_r12_in_order(name):
    names = _names(PUBLIC_FUNCTIONS[name])
    present = [n for n in ("r1", "r2", "r12") if n in names]
    assert [names.index(n) for n in present] == sorted(names.index(n) for n in present)
    if "r12" in names and "r2" in names:
        assert names.index("r1") < names.index("r2") < names.index("r12")


#: Positional by design: validators check the value they are given (``check_resample_count(
#: n_resamples, n)``), and ``adjust_pvalues(pvalues, method)`` mirrors statsmodels'
#: ``multipletests(pvals, alpha, method)``.
POSITIONAL_OPTIONS = {"adjust_pvalues", "check_comparison_size", "check_resample_count"}


@pytest.mark.parametrize("name", sorted(set(PUBLIC_FUNCTIONS) - POSITIONAL_OPTIONS))
def test_options_are_keyword_only(name):
    for parameter in _parameters(PUBLIC_FUNCTIONS[name]):
        if parameter.name in OPTIONS:
            assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, parameter.name


@pytest.mark.parametrize("name", sorted(PUBLIC_FUNCTIONS))
def test_every_random_procedure_takes_a_seed(name):
    names = set(_names(PUBLIC_FUNCTIONS[name]))
    if names & {"n_resamples", "n_simulations"} and name != "check_resample_count":
        assert "seed" in names or name.startswith("check_"), name


def test_the_choice_of_correlation_is_named_correlation():
    for function in (bootstrap_correlation_difference, compare_models):
        assert "correlation" in _names(function)
    assert "correlation" in _names(compare_dependent_correlations)


def test_seed_accepts_a_generator_as_it_is():
    gold, a, b = _data(1)
    by_int = bootstrap_correlation_difference(a, b, gold, n_resamples=1000, seed=5)
    by_generator = bootstrap_correlation_difference(
        a, b, gold, n_resamples=1000, seed=np.random.default_rng(5)
    )
    assert by_int == by_generator
    power = stats_api.simulate_power(0.5, 0.4, 0.6, 50, n_simulations=200, seed=3)
    same = stats_api.simulate_power(
        0.5, 0.4, 0.6, 50, n_simulations=200, seed=np.random.default_rng(3)
    )
    assert power.power == same.power


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------
def _results():
    gold, a, b = _data(2)
    return {
        "dependent_correlation_test": dependent_correlation_test(0.636, 0.693, 0.52, 64),
        "compare_dependent_correlations": compare_dependent_correlations(a, b, gold),
        "independent_correlation_test": independent_correlation_test(0.4, 100, 0.5, 100),
        "correlation_vs_group_test": correlation_vs_group_test(0.8, [0.82, 0.86, 0.79, 0.9], 64),
        "bootstrap_correlation_difference": bootstrap_correlation_difference(
            a, b, gold, n_resamples=1000, seed=0
        ),
        "compare_models pair": compare_models(
            {"a": a, "b": b}, gold, n_resamples=1000, seed=0
        ).pairs[0],
    }


RESULTS = _results()


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_results_carry_a_number_a_pvalue_and_an_interval(name):
    result = RESULTS[name]
    assert type(result.statistic) is float
    interval = result.confidence_interval
    assert isinstance(interval, ConfidenceInterval)
    assert type(interval.low) is float and type(interval.high) is float
    assert interval.low <= interval.high
    low, high = interval
    assert (low, high) == interval == (interval.low, interval.high)
    assert 0.0 <= result.pvalue <= 1.0


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_results_survive_pickling(name):
    # Dask ships results between processes; the interval's old-call hook must travel too.
    result = RESULTS[name]
    assert pickle.loads(pickle.dumps(result)) == result


def test_bootstrap_and_model_comparison_statistic_is_the_estimate():
    gold, a, b = _data(3)
    boot = bootstrap_correlation_difference(a, b, gold, n_resamples=1000, seed=1)
    assert boot.statistic == boot.delta == boot.r1 - boot.r2
    assert boot.correlation == "pearson"
    comparison = compare_models({"a": a, "b": b}, gold, n_resamples=1000, seed=1, method="meng1992")
    assert_array_equal(comparison.statistic, comparison.r)
    assert comparison.correlation == "pearson"
    pair = comparison.pairs[0]
    test = dependent_correlation_test(pair.r1, pair.r2, pair.r12, gold.size, method="meng1992")
    # The pair's test uses the correlations of the full sample; the bootstrap engine computes
    # r from its own sums (equal to the last few bits).
    assert pair.statistic == pytest.approx(test.statistic, rel=1e-12)


def test_scaled_pearson_statistic_is_the_estimate():
    gold, a, _ = _data(4)
    result = scaled_pearson(a, gold, bins=2)
    assert type(result.statistic) is float


def test_mean_rank_interval_is_a_named_tuple_of_arrays():
    results = []
    for seed in range(2):
        gold, a, b = _data(10 + seed)
        results.append(compare_models({"a": a, "b": b}, gold, n_resamples=1000, seed=seed))
    pooled = mean_rank_across_tasks(results)
    assert isinstance(pooled.confidence_interval, ArrayConfidenceInterval)
    assert (pooled.confidence_interval.low <= pooled.statistic).all()
    assert (pooled.statistic <= pooled.confidence_interval.high).all()


# --------------------------------------------------------------------------------------------
# Old names: each warns, naming the new one, and gives exactly the new result
# --------------------------------------------------------------------------------------------
def _old(new, call):
    """Run ``call`` expecting one DeprecationWarning that names ``new``; return its result."""
    with pytest.warns(DeprecationWarning) as caught:
        value = call()
    messages = [str(item.message) for item in caught if item.category is DeprecationWarning]
    assert any(new in message and REMOVED_IN in message for message in messages), messages
    return value


correlations = st.floats(-0.9, 0.9)


@settings(max_examples=60, deadline=None)
@given(correlations, correlations, correlations, st.integers(4, 500))
def test_old_keywords_r_jk_r_jh_r_kh(r1, r2, r12, n):
    try:
        new = dependent_correlation_test(r1=r1, r2=r2, r12=r12, n=n)
    except ValueError:  # not a correlation matrix, or the test undefined
        return
    old = _old(
        "'r1'",
        lambda: dependent_correlation_test(r_jk=r1, r_jh=r2, r_kh=r12, n=n),  # type: ignore[call-arg]  # the deprecated names
    )
    assert old == new


def test_old_and_new_keyword_together_is_a_type_error():
    with pytest.raises(TypeError, match="both 'r_jk'"):
        dependent_correlation_test(0.3, r2=0.4, r12=0.5, n=50, r_jk=0.3, r1=0.3)  # type: ignore[call-arg, misc]  # both names


scores = st.lists(st.integers(0, 6), min_size=8, max_size=30)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**16))
def test_old_keyword_statistic_of_the_bootstrap(seed):
    gold, a, b = _data(seed, n=25)
    for correlation in ("pearson", "spearman"):
        new = bootstrap_correlation_difference(
            a, b, gold, correlation=correlation, n_resamples=1000, seed=seed
        )
        old = _old(
            "'correlation'",
            lambda c=correlation: bootstrap_correlation_difference(  # type: ignore[call-arg]  # old name
                a, b, gold, statistic=c, n_resamples=1000, seed=seed
            ),
        )
        assert old == new
        assert_array_equal(old.bootstrap_distribution, new.bootstrap_distribution)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**16))
def test_old_order_and_keyword_of_compare_models(seed):
    gold, a, b = _data(seed, n=30)
    models = {"a": a, "b": b, "c": (a + b) / 2}
    new = compare_models(models, gold, correlation="spearman", n_resamples=1000, seed=seed)
    old = _old(
        "compare_models(predictions, references)",
        lambda: compare_models(gold, models, correlation="spearman", n_resamples=1000, seed=seed),  # type: ignore[arg-type]  # the deprecated order
    )
    also_old = _old(
        "'correlation'",
        lambda: compare_models(models, gold, statistic="spearman", n_resamples=1000, seed=seed),  # type: ignore[call-arg]  # the deprecated name
    )
    for result in (old, also_old):
        assert result.pairs == new.pairs and result.models == new.models
        assert_array_equal(result.bootstrap_ranks, new.bootstrap_ranks)
        assert_array_equal(result.win_probability, new.win_probability)


@settings(max_examples=40, deadline=None)
@given(scores, st.data())
def test_old_order_and_keyword_of_spearman_jackknife(gold, data):
    gold = np.asarray(gold, dtype=float)
    systems = np.asarray(
        data.draw(
            st.lists(
                st.lists(st.integers(0, 6), min_size=gold.size, max_size=gold.size),
                min_size=1,
                max_size=3,
            )
        ),
        dtype=float,
    )
    new = spearman_jackknife(systems, gold)
    old = _old(
        "spearman_jackknife(predictions, references)", lambda: spearman_jackknife(gold, systems)
    )
    assert_array_equal(old, new)
    keyword = _old(
        "'references'",
        lambda: spearman_jackknife(systems, reference=gold),  # type: ignore[call-arg]  # the deprecated name
    )
    assert_array_equal(keyword, new)
    # One system as a 1-D array: rho is symmetric, so both orders give the same numbers.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_array_equal(
            spearman_jackknife(gold, systems[0]), spearman_jackknife(systems[0], gold)
        )


@pytest.mark.parametrize("name", ["bootstrap_correlation_difference", "compare_models pair"])
def test_old_ci_low_ci_high_attributes(name):
    result = RESULTS[name]
    low = _old("confidence_interval.low", lambda: result.ci_low)
    high = _old("confidence_interval.high", lambda: result.ci_high)
    assert (low, high) == result.confidence_interval


def test_old_mean_rank_ci_attributes():
    results = [
        compare_models({"a": a, "b": b}, gold, n_resamples=1000, seed=s)
        for s, (gold, a, b) in enumerate(_data(20 + k) for k in range(2))
    ]
    pooled = mean_rank_across_tasks(results)
    assert_array_equal(
        _old("confidence_interval.low", lambda: pooled.ci_low), pooled.confidence_interval.low
    )
    assert_array_equal(
        _old("confidence_interval.high", lambda: pooled.ci_high), pooled.confidence_interval.high
    )


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_old_confidence_interval_method_call(name):
    result = RESULTS[name]
    called = _old("confidence_interval", lambda: result.confidence_interval())
    assert called == result.confidence_interval


@pytest.mark.parametrize("level", [0.8, 0.9, 0.99])
def test_old_method_call_with_a_level_equals_the_new_argument(level):
    old_result = dependent_correlation_test(0.396, 0.179, 0.088, 66)
    new = dependent_correlation_test(0.396, 0.179, 0.088, 66, confidence_level=level)
    assert _old("confidence_interval", lambda: old_result.confidence_interval(level)) == (
        new.confidence_interval
    )
    group = correlation_vs_group_test(0.8, [0.82, 0.86, 0.79, 0.9], 64)
    group_new = correlation_vs_group_test(0.8, [0.82, 0.86, 0.79, 0.9], 64, confidence_level=level)
    assert _old("confidence_interval", lambda: group.confidence_interval(level)) == (
        group_new.confidence_interval
    )
    independent = independent_correlation_test(0.4, 100, 0.5, 90)
    independent_new = independent_correlation_test(0.4, 100, 0.5, 90, confidence_level=level)
    assert _old("confidence_interval", lambda: independent.confidence_interval(level)) == (
        independent_new.confidence_interval
    )


def test_a_bootstrap_interval_cannot_be_recomputed_at_another_level():
    result = RESULTS["bootstrap_correlation_difference"]
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="confidence_level="):
        result.confidence_interval(0.9)


def test_old_bootstrap_statistics_constant_is_the_correlations():
    assert stats_api.BOOTSTRAP_STATISTICS == stats_api.BOOTSTRAP_CORRELATIONS


def test_old_keyword_test_of_score_leaderboard():
    from sts_extras.leaderboard.reports.scoring import TaskScores, score_leaderboard

    gold, a, b = _data(30, n=30)
    task = TaskScores("t", gold, (0.0, 5.0), {"a": a, "b": b})
    options: dict[str, Any] = dict(baseline="a", n_resamples=1000, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        new = score_leaderboard([task], ["a", "b"], method="steiger1980", **options)
        old = _old(
            "'method'",
            lambda: score_leaderboard([task], ["a", "b"], test="steiger1980", **options),  # type: ignore[call-arg]  # the deprecated name
        )
    assert old.comparisons == new.comparisons and old.stats == new.stats
    assert new.settings["method"] == "steiger1980"
