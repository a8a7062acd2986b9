"""Edge inputs: never a silent wrong answer.

* a single string where a sequence of sentences is expected is refused, naming the argument;
* every statistic that is invariant in theory gives the same numbers (to 1e-9 relative) when an
  input is multiplied by 10^±300, 10^±160, and depends on a positive affine map of an input only
  through its sign;
* complex, boolean and numeric-string inputs (lists, numpy arrays, object arrays, pandas Series)
  are refused with a ``UserInputTypeError`` naming the argument, never coerced.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.integrations.mteb.models import DynaMax, MaxPool, MeanPooled
from sts_extras.integrations.mteb.models.base import as_embedding_matrix
from sts_extras.similarity.fuzzy import (
    average_cosine_similarity,
    dynamax_similarity,
    fuzzy_set_similarity,
    fuzzy_set_similarity_matrix,
    maxpool_similarity,
    pool_word_vectors,
)
from sts_extras.stats.bootstrap import bootstrap_correlation_difference
from sts_extras.stats.correlation import fisher_mean, scaled_pearson
from sts_extras.stats.dependent import (
    DEPENDENT_METHODS,
    compare_dependent_correlations,
    correlation_vs_group_test,
)
from sts_extras.stats.model_comparison import compare_models
from sts_extras.stats.multiple import adjust_pvalues, holm_adjust
from sts_extras.stats.ranking import (
    top_rank_weights,
    weighted_kendall_tau,
    weighted_rank_correlation,
)
from sts_extras.vectors import WordVectors

REPO = Path(__file__).resolve().parents[1]
METRICS = ("scaled_pearson", "weighted_rank_correlation", "steiger", "bca_bootstrap")

_rng = np.random.default_rng(12)
N = 40
GOLD = np.round(_rng.uniform(0, 5, N), 1)  # STS-like, with ties
SYSTEM_A = GOLD + _rng.normal(0, 1.0, N)
SYSTEM_B = GOLD + _rng.normal(0, 1.6, N)
SYSTEM_C = GOLD + _rng.normal(0, 1.3, N)
WEIGHTS = _rng.uniform(0.1, 1.0, N)


@pytest.fixture(scope="module")
def metrics():
    import evaluate

    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        return {name: evaluate.load(f"metrics/{name}") for name in METRICS}
    finally:
        os.chdir(cwd)


@pytest.fixture(scope="module")
def word_vectors():
    return WordVectors.from_arrays(
        ["cats", "dogs", "sleep"], np.array([[1.0, 0.2], [0.8, 0.4], [0.0, 1.0]]), name="toy"
    )


# --------------------------------------------------------------------------------------------
# 1. a string where a sequence of sentences is expected
# --------------------------------------------------------------------------------------------
def _model_call(model_class, method, *args):
    def call(wv):
        return getattr(model_class(wv), method)(*args)

    return call


STRING_CASES = {
    f"{model.__name__}.score-{side}-{kind}": (
        _model_call(model, "score", *((text, ["dogs sleep"]) if side == 1 else (["a"], text))),
        f"sentences{side}",
    )
    for model in (DynaMax, MaxPool, MeanPooled)
    for side in (1, 2)
    for kind, text in (("str", "cats sleep"), ("bytes", b"cats sleep"))
}
STRING_CASES.update(
    {
        f"{model.__name__}.encode-bytes": (_model_call(model, "encode", b"cats"), "inputs")
        for model in (DynaMax, MaxPool, MeanPooled)
    }
)
STRING_CASES.update(
    {
        f"{function.__name__}-{side}": (
            (
                lambda wv, f=function, s=side: f(
                    *(("ab", [[0]]) if s == 1 else ([[0]], "ab")), vectors=np.eye(2)
                )
            ),  # fmt: skip
            f"sentences{side}",
        )
        for function in (dynamax_similarity, maxpool_similarity, average_cosine_similarity)
        for side in (1, 2)
    }
)
STRING_CASES["pool_word_vectors"] = (
    lambda wv: pool_word_vectors("ab", vectors=np.eye(2)),
    "sentences",
)


@pytest.mark.parametrize("case", sorted(STRING_CASES))
def test_string_for_sentences_is_refused(case, word_vectors):
    call, name = STRING_CASES[case]
    with pytest.raises(UserInputTypeError, match=re.escape(f"`{name}`")):
        call(word_vectors)


@pytest.mark.parametrize("name", METRICS)
def test_string_for_scores_is_refused_by_evaluate_modules(name, metrics):
    module = metrics[name]
    if name in ("steiger", "bca_bootstrap"):
        inputs = {"predictions1": "12345678", "predictions2": [1.0] * 8, "references": [1.0] * 8}
        argument = "predictions1"
    else:
        inputs = {"predictions": "12345678", "references": list(range(8))}
        argument = "predictions"
    with pytest.raises(UserInputTypeError, match=f"`{argument}`"):
        module.compute(**inputs)


# --------------------------------------------------------------------------------------------
# 2. scale invariance
# --------------------------------------------------------------------------------------------
def _flat(*values):
    out = []
    for value in values:
        if value is None:
            continue
        out.extend(np.ravel(np.asarray(value, dtype=np.float64)).tolist())
    return np.array(out)


def _scaled_pearson(strategy):
    def run(p, g):
        result = scaled_pearson(p, g, bins=3, strategy=strategy)
        return _flat(result.statistic, result.pearson, result.segment_r)

    return run


def _weighted_ranks(p, g):
    result = weighted_rank_correlation(p, g)
    return _flat(result.rho_w, result.tau_w, result.spearman, result.kendall)


def _dependent(correlation):
    def run(p1, p2, g):
        values = []
        for method in DEPENDENT_METHODS:
            result = compare_dependent_correlations(
                p1, p2, g, method=method, correlation=correlation
            )
            values.append(
                _flat(
                    result.statistic,
                    result.pvalue,
                    result.r1,
                    result.r2,
                    result.r12,
                    result.confidence_interval,
                )
            )
        return np.concatenate(values)

    return run


def _bootstrap(statistic):
    def run(p1, p2, g):
        result = bootstrap_correlation_difference(
            p1, p2, g, correlation=statistic, n_resamples=1000, seed=3
        )
        return _flat(
            result.delta,
            result.confidence_interval.low,
            result.confidence_interval.high,
            result.bias_correction,
            result.acceleration,
            result.r1,
            result.r2,
            result.n_resamples,
        )

    return run


def _models(statistic):
    def run(g, p1, p2, p3):
        result = compare_models(
            {"a": p1, "b": p2, "c": p3},
            g,
            correlation=statistic,
            n_resamples=1000,
            seed=4,
        )
        pairs = [
            _flat(
                p.r1,
                p.r2,
                p.r12,
                p.delta,
                p.confidence_interval.low,
                p.confidence_interval.high,
                p.statistic,
                p.pvalue,
            )
            for p in result.pairs
        ]
        return _flat(
            result.r,
            result.rank,
            result.rank_low,
            result.rank_high,
            result.win_probability,
            result.model_correlations,
            *pairs,
        )

    return run


THREE = (SYSTEM_A, SYSTEM_B, GOLD)
FOUR = (GOLD, SYSTEM_A, SYSTEM_B, SYSTEM_C)
# name -> (function of the arrays, its inputs, the maps each input allows: "s" any affine map
# c (x + t), "p" one with c > 0 (the references that define scaled Pearson's segments), "c" only
# x -> c x with c > 0 (weights))
STATISTICS = {
    "scaled_pearson-width": (_scaled_pearson("width"), (SYSTEM_A, GOLD), "sp"),
    "scaled_pearson-count": (_scaled_pearson("count"), (SYSTEM_A, GOLD), "sp"),
    "weighted_rank_correlation": (_weighted_ranks, (SYSTEM_A, GOLD), "ss"),
    "top_rank_weights": (lambda p, g: top_rank_weights(p, g), (SYSTEM_A, GOLD), "ss"),
    "weighted_kendall_tau": (
        lambda x, y, w: _flat(weighted_kendall_tau(x, y, w)),
        (SYSTEM_A, GOLD, WEIGHTS),
        "ssc",
    ),
    "dependent-pearson": (_dependent("pearson"), THREE, "sss"),
    "dependent-spearman": (_dependent("spearman"), THREE, "sss"),
    "bootstrap-pearson": (_bootstrap("pearson"), THREE, "sss"),
    "bootstrap-spearman": (_bootstrap("spearman"), THREE, "sss"),
    "compare_models-pearson": (_models("pearson"), FOUR, "ssss"),
    "compare_models-spearman": (_models("spearman"), FOUR, "ssss"),
}
FACTORS = (1e300, 1e-300, 1e160, 1e-160)


def _assert_same(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("factor", FACTORS, ids=lambda f: f"{f:g}")
@pytest.mark.parametrize("name", sorted(STATISTICS))
def test_statistics_are_scale_invariant(name, factor):
    function, inputs, _ = STATISTICS[name]
    expected = function(*inputs)
    for index in range(len(inputs)):
        scaled = list(inputs)
        scaled[index] = inputs[index] * factor
        _assert_same(function(*scaled), expected)
    _assert_same(function(*(x * factor for x in inputs)), expected)


def _affine(rng, x, mode):
    """c (x + t): a random factor of size 10^±300 (negative for mode "s") and a shift of a few
    spreads (not for mode "c"); returns the mapped x and the sign of c."""
    sign = rng.choice([-1.0, 1.0]) if mode == "s" else 1.0
    factor = sign * 10.0 ** rng.uniform(-300, 300)
    shift = rng.uniform(-5, 5) * float(np.std(x)) if mode != "c" else 0.0
    return factor * (x + shift), sign


@pytest.mark.parametrize("name", sorted(STATISTICS))
def test_statistics_depend_on_an_affine_map_only_through_its_sign(name):
    function, inputs, modes = STATISTICS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    for _ in range(3):
        mapped, signs = zip(*(_affine(rng, x, mode) for x, mode in zip(inputs, modes)))
        expected = function(*(sign * x for sign, x in zip(signs, inputs)))
        _assert_same(function(*mapped), expected)


def _metric_numbers(module, name, inputs):
    if name == "bca_bootstrap":
        result = module.compute(**inputs, n_resamples=1000, seed=5)
    else:
        result = module.compute(**inputs)
    return _flat(
        *(
            value
            for value in result.values()
            if value is not None and not isinstance(value, (bool, list, str))
        )
    )


@pytest.mark.parametrize("name", METRICS)
def test_evaluate_modules_depend_on_an_affine_map_only_through_its_sign(name, metrics):
    module = metrics[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    keys: tuple[str, ...]
    inputs: tuple[np.ndarray, ...]
    if name in ("steiger", "bca_bootstrap"):
        keys, inputs = ("predictions1", "predictions2", "references"), (SYSTEM_A, SYSTEM_B, GOLD)
    else:
        keys, inputs = ("predictions", "references"), (SYSTEM_A, GOLD)
    for _ in range(2):
        mapped, signs = zip(
            *(
                _affine(rng, x, "p" if name == "scaled_pearson" and key == "references" else "s")
                for key, x in zip(keys, inputs)
            )
        )
        expected = _metric_numbers(
            module, name, {k: (s * x).tolist() for k, s, x in zip(keys, signs, inputs)}
        )
        actual = _metric_numbers(module, name, {k: x.tolist() for k, x in zip(keys, mapped)})
        _assert_same(actual, expected)


_TABLE = np.random.default_rng(5).normal(size=(6, 4))
_IDS1 = [np.array([0, 2]), np.array([1, 3, 4]), np.array([5])]
_IDS2 = [np.array([1, 2]), np.array([0, 5]), np.array([3, 4])]
SIMILARITIES: dict[str, Callable[[Any], Any]] = {
    **{
        f"dynamax_similarity-{m}": lambda v, m=m: dynamax_similarity(  # type: ignore[misc]  # lambda default
            _IDS1, _IDS2, vectors=v, measure=m
        )
        for m in ("jaccard", "otsuka", "dice", "cosine")
    },
    "maxpool_similarity": lambda v: maxpool_similarity(_IDS1, _IDS2, vectors=v),
    "maxpool_similarity-cosine": lambda v: maxpool_similarity(
        _IDS1, _IDS2, vectors=v, measure="cosine"
    ),
    "average_cosine_similarity": lambda v: average_cosine_similarity(_IDS1, _IDS2, vectors=v),
    "average_cosine_similarity-weights": lambda v: average_cosine_similarity(
        _IDS1, _IDS2, vectors=v, weights=np.linspace(0.5, 1.0, 6)
    ),
    "fuzzy_set_similarity-otsuka": lambda v: fuzzy_set_similarity(
        np.abs(v[:3]), np.abs(v[3:]), measure="otsuka"
    ),
    "fuzzy_set_similarity_matrix-cosine": lambda v: fuzzy_set_similarity_matrix(
        v[:3], v[3:], measure="cosine"
    ),
    "pool_word_vectors-sum (rescaled)": lambda v: (
        pool_word_vectors(_IDS1, vectors=v, mode="sum") / np.abs(v).max()
    ),
}


@pytest.mark.parametrize("factor", (*FACTORS, 1e100), ids=lambda f: f"{f:g}")
@pytest.mark.parametrize("name", sorted(SIMILARITIES))
def test_similarities_are_scale_invariant(name, factor):
    """Each measure is a ratio: the same value for word vectors of any magnitude, except that
    word vectors whose products overflow float64 (beyond ~6.7e153) are refused with a named
    error before scoring (never a NaN or a 0)."""
    function = SIMILARITIES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if factor > 1e154 and name.startswith(("dynamax", "maxpool", "average")):
            with pytest.raises(UserInputError, match="overflowed"):
                function(_TABLE * factor)
        else:
            _assert_same(function(_TABLE * factor), function(_TABLE))


# --------------------------------------------------------------------------------------------
# 3. complex, boolean and numeric-string inputs
# --------------------------------------------------------------------------------------------
BASE = [0.1, 0.9, 0.4, 0.7, 0.2, 0.8, 0.3, 0.6]
OTHER = [0.3, 0.8, 0.5, 0.9, 0.1, 0.6, 0.2, 0.7]
THIRD = [0.2, 0.7, 0.6, 0.8, 0.3, 0.9, 0.1, 0.4]
_BOOLS = [True, False, True, True, False, True, False, False]

BAD_VALUES = {
    "numeric-strings-array": lambda: np.array([str(v) for v in BASE]),
    "numeric-strings-list": lambda: [str(v) for v in BASE],
    "bool-list": lambda: list(_BOOLS),
    "bool-array": lambda: np.array(_BOOLS),
    "bool-mixed-list": lambda: [True, *BASE[1:]],
    "complex-array": lambda: np.array(BASE) + 0j,
    "complex-list": lambda: [complex(v) for v in BASE],
    "object-strings": lambda: np.array([str(v) for v in BASE], dtype=object),
    "object-bools": lambda: np.array(_BOOLS, dtype=object),
    "series-strings": lambda: pd.Series([str(v) for v in BASE]),
    "series-bools": lambda: pd.Series(_BOOLS),
}

CONSUMERS = {
    "scaled_pearson-predictions": (lambda v: scaled_pearson(v, OTHER, bins=2), "predictions"),
    "scaled_pearson-references": (lambda v: scaled_pearson(OTHER, v, bins=1), "references"),
    "scaled_pearson-bins": (lambda v: scaled_pearson(BASE, OTHER, bins=[v[0], v[1]]), "bins"),
    "weighted_rank_correlation": (lambda v: weighted_rank_correlation(v, OTHER), "predictions"),
    "top_rank_weights": (lambda v: top_rank_weights(OTHER, v), "references"),
    "weighted_kendall_tau-weights": (lambda v: weighted_kendall_tau(BASE, OTHER, v), "weights"),
    "weighted_kendall_tau-x": (lambda v: weighted_kendall_tau(v, OTHER, BASE), "x"),
    "fisher_mean": (lambda v: fisher_mean(v), "rs"),
    "fisher_mean-weights": (lambda v: fisher_mean(OTHER, weights=v), "weights"),
    "compare_dependent_correlations": (
        lambda v: compare_dependent_correlations(OTHER, v, THIRD),
        "predictions2",
    ),
    "correlation_vs_group_test": (lambda v: correlation_vs_group_test(0.5, v, 50), "group_rs"),
    "adjust_pvalues": (lambda v: adjust_pvalues(v), "pvalues"),
    "holm_adjust": (lambda v: holm_adjust(v), "pvalues"),
    "bootstrap_correlation_difference": (
        lambda v: bootstrap_correlation_difference(v, OTHER, THIRD, n_resamples=1000),
        "predictions1",
    ),
    "compare_models-references": (
        lambda v: compare_models({"a": OTHER, "b": THIRD}, v, n_resamples=1000),
        "references",
    ),
    "compare_models-predictions": (
        lambda v: compare_models({"a": OTHER, "b": v}, THIRD, n_resamples=1000),
        "predictions['b']",
    ),
    "fuzzy_set_similarity": (lambda v: fuzzy_set_similarity(v, OTHER), "mu1"),
    "fuzzy_set_similarity_matrix": (lambda v: fuzzy_set_similarity_matrix(OTHER, v), "mu2"),
    "pool_word_vectors-weights": (
        lambda v: pool_word_vectors([[0, 1]], vectors=np.ones((8, 2)), weights=v),
        "weights",
    ),
}


@pytest.mark.parametrize("kind", sorted(BAD_VALUES))
@pytest.mark.parametrize("consumer", sorted(CONSUMERS))
def test_non_real_numbers_are_refused(consumer, kind):
    call, name = CONSUMERS[consumer]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ComplexWarning would mean silent coercion
        with pytest.raises(UserInputTypeError, match=re.escape(f"`{name}")):
            call(BAD_VALUES[kind]())


def _vector_table(dtype):
    return np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]).astype(dtype)


ARRAY_CONSUMERS = {
    "pool_word_vectors-vectors": (
        lambda table: pool_word_vectors([[0, 1]], vectors=table),
        "vectors",
    ),
    "dynamax_similarity-vectors": (
        lambda table: dynamax_similarity([[0, 1]], [[2]], vectors=table),
        "vectors",
    ),
    "maxpool_similarity-matrices": (
        lambda table: maxpool_similarity([table], [np.ones((1, 2))]),
        "sentences1[0]",
    ),
    "as_embedding_matrix": (lambda table: as_embedding_matrix(table, "embeddings1"), "embeddings1"),
    "fuzzy_set_similarity-2d": (lambda table: fuzzy_set_similarity(table, np.ones((3, 2))), "mu1"),
}


@pytest.mark.parametrize("dtype", [complex, bool, str, object])
@pytest.mark.parametrize("consumer", sorted(ARRAY_CONSUMERS))
def test_non_real_arrays_are_refused(consumer, dtype):
    call, name = ARRAY_CONSUMERS[consumer]
    table = _vector_table(dtype)
    if dtype is object:
        table[0, 0] = True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserInputTypeError, match=re.escape(f"`{name}")):
            call(table)


def test_models_refuse_complex_embeddings(word_vectors):
    embeddings = MaxPool(word_vectors).encode(["cats sleep", "dogs"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserInputTypeError, match="`embeddings1`"):
            MaxPool(word_vectors).similarity_pairwise(embeddings + 0j, embeddings)


@pytest.mark.parametrize("kind", ["numeric-strings-list", "bool-list", "series-bools"])
@pytest.mark.parametrize("name", METRICS)
def test_evaluate_modules_refuse_non_real_numbers(name, kind, metrics):
    module = metrics[name]
    bad = BAD_VALUES[kind]()
    if name in ("steiger", "bca_bootstrap"):
        inputs = {"predictions1": OTHER, "predictions2": THIRD, "references": bad}
        argument = "references"
    else:
        inputs = {"predictions": OTHER, "references": bad}
        argument = "references"
    with pytest.raises(UserInputTypeError, match=f"`{argument}`"):
        module.compute(**inputs)


def test_plain_numbers_of_every_kind_are_still_accepted():
    """ints, numpy floats of any width, object arrays of numbers, Series, tuples and ranges."""
    expected = weighted_rank_correlation(BASE, OTHER)
    for values in (
        np.array(BASE, dtype=np.float32).astype(np.float64),
        np.array(BASE, dtype=object),
        pd.Series(BASE),
        tuple(BASE),
        [np.float64(v) for v in BASE],
    ):
        assert weighted_rank_correlation(values, OTHER) == expected
    assert weighted_rank_correlation(range(8), np.arange(8) ** 2).rho_w == pytest.approx(1.0)
