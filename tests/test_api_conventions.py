"""The one vocabulary of ``docs/api-conventions.md``, held for every public statistics function.

Names and order of the parameters (read with ``inspect.signature``), what the results carry, one
seed default, and one name per thing: the old spellings of the internal 0.2/0.3 milestones are
plain errors, and no argument order is guessed from the arguments' types or shapes.
"""

from __future__ import annotations

import inspect
import pickle
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import sts_extras.stats as stats_api
from sts_extras.errors import UserInputError, UserInputTypeError
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
    weighted_rank_correlation,
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
    # Dask ships results between processes.
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


def test_weighted_rank_correlation_statistic_is_rho_w():
    gold, a, _ = _data(4)
    result = weighted_rank_correlation(a, gold)
    assert type(result.statistic) is float
    assert result.statistic == result.rho_w != result.tau_w


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
# One name per thing: no old spelling is accepted, no argument order is guessed
# --------------------------------------------------------------------------------------------
#: The spellings of the internal 0.2/0.3 milestones: each is now an ordinary ``TypeError``.
OLD_SPELLINGS: dict[str, tuple[Any, dict[str, Any]]] = {
    "bootstrap statistic=": (bootstrap_correlation_difference, {"statistic": "spearman"}),
    "compare_models statistic=": (compare_models, {"statistic": "spearman"}),
    "r_jk/r_jh/r_kh": (dependent_correlation_test, {"r_jk": 0.5, "r_jh": 0.4, "r_kh": 0.3}),
    "reference=": (spearman_jackknife, {"reference": None}),
}


@pytest.mark.parametrize("name", sorted(OLD_SPELLINGS))
def test_old_keywords_are_plain_type_errors(name):
    gold, a, b = _data(5)
    function, old = OLD_SPELLINGS[name]
    positional = {
        "bootstrap statistic=": (a, b, gold),
        "compare_models statistic=": ({"a": a, "b": b}, gold),
        "r_jk/r_jh/r_kh": (),
        "reference=": (a,),
    }[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            function(*positional, **old)


def test_compare_models_takes_its_arguments_in_the_documented_order():
    gold, a, b = _data(6)
    models = {"a": a, "b": b}
    with pytest.raises(UserInputTypeError, match=r"`predictions` \(the first argument\)") as caught:
        compare_models(gold, models, n_resamples=1000)  # type: ignore[arg-type]  # swapped on purpose
    assert "compare_models(predictions, references)" in str(caught.value)
    with pytest.raises(UserInputTypeError, match="`references`"):
        compare_models(models, models, n_resamples=1000)  # type: ignore[arg-type]  # a mapping


def test_spearman_jackknife_takes_its_arguments_in_the_documented_order():
    gold, a, b = _data(7)
    systems = np.vstack([a, b])
    with pytest.raises(UserInputError, match="`references` \\(the second argument\\)"):
        spearman_jackknife(gold, systems)
    with pytest.raises(UserInputError, match="`predictions` has 39 scores"):
        spearman_jackknife(systems[:, 1:], gold)
    # one system as a 1-D array: taken as given (rho is symmetric, so no order is inferred)
    assert_array_equal(spearman_jackknife(a, gold), spearman_jackknife(a[None, :], gold))


@pytest.mark.parametrize("name", ["bootstrap_correlation_difference", "compare_models pair"])
def test_intervals_have_one_name(name):
    result = RESULTS[name]
    assert not hasattr(result, "ci_low") and not hasattr(result, "ci_high")
    assert not callable(result.confidence_interval)
    assert "BOOTSTRAP_STATISTICS" not in stats_api.__all__


def _seed_defaults() -> dict[str, object]:
    return {
        name: inspect.signature(function).parameters["seed"].default
        for name, function in PUBLIC_FUNCTIONS.items()
        if "seed" in inspect.signature(function).parameters
    }


def test_one_seed_default_for_every_random_procedure():
    defaults = _seed_defaults()
    assert {"bootstrap_correlation_difference", "compare_models", "simulate_power"} <= set(defaults)
    assert set(defaults.values()) == {0}, defaults


def test_the_bootstrap_default_is_seed_0():
    gold, a, b = _data(8)
    default = bootstrap_correlation_difference(a, b, gold, n_resamples=1000)
    assert default == bootstrap_correlation_difference(a, b, gold, n_resamples=1000, seed=0)


def test_every_method_parameter_is_in_the_method_table_of_the_conventions():
    text = (Path(__file__).parents[1] / "docs" / "api-conventions.md").read_text(encoding="utf-8")
    table = text.split("### `method=`, function by function", 1)[1].split("\n## ", 1)[0]
    with_method = {name for name in PUBLIC_FUNCTIONS if "method" in _names(PUBLIC_FUNCTIONS[name])}
    assert with_method and all(f"`{name}`" in table for name in with_method), with_method
