"""The `evaluate` comparisons `metrics/steiger` and `metrics/bca_bootstrap`.

They load with `evaluate.load` from a relative or an absolute path, are thin adapters (same numbers
as the core functions, no **kwargs), their examples run as doctests, and their cards document the
keys they return. The README section runs as a doctest in tests/test_readme.py.
"""

from __future__ import annotations

import doctest
import inspect
import os
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import evaluate

from sts_extras.stats.bootstrap import bootstrap_correlation_difference
from sts_extras.stats.dependent import compare_dependent_correlations

REPO = Path(__file__).resolve().parents[1]
MODULES = ("steiger", "bca_bootstrap")
CARD_SECTIONS = (
    "Description",
    "How to Use",
    "Inputs",
    "Output Values",
    "Values from Popular Papers",
    "Examples",
    "Limitations and Bias",
    "Citation",
    "Further References",
)


@pytest.fixture(scope="module")
def loaded():
    """Each comparison loaded once, from a path relative to the repository root."""
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        return {name: evaluate.load(f"metrics/{name}") for name in MODULES}
    finally:
        os.chdir(cwd)


@pytest.fixture()
def at_repo_root(monkeypatch):
    monkeypatch.chdir(REPO)


def _scores(seed=0, n=80):
    rng = np.random.default_rng(seed)
    gold = np.round(rng.uniform(0, 5, n), 1)
    return gold + rng.normal(0, 1.0, n), gold + rng.normal(0, 1.4, n), gold


def test_modules_are_comparisons(loaded):
    for name, module in loaded.items():
        assert isinstance(module, evaluate.Comparison), name
        assert module.module_type == "comparison"
        assert set(module.features) == {"predictions1", "predictions2", "references"}
        assert all(feature.dtype == "float64" for feature in module.features.values())
        parameters = inspect.signature(type(module)._compute).parameters.values()
        assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters), name


def test_load_by_absolute_path():
    module = evaluate.load(str(REPO / "metrics" / "steiger"))
    p1, p2, gold = _scores(1)
    assert module.compute(predictions1=p1, predictions2=p2, references=gold)["n"] == 80


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"method": "meng1992"},
        {"method": "williams1959", "correlation": "spearman", "alternative": "greater"},
        {"method": "hotelling1940", "confidence_level": 0.9},
    ],
)
def test_steiger_gives_the_core_numbers(loaded, options):
    p1, p2, gold = _scores(2)
    out = loaded["steiger"].compute(
        predictions1=p1.tolist(), predictions2=p2.tolist(), references=gold.tolist(), **options
    )
    core = compare_dependent_correlations(p1, p2, gold, **{"method": "steiger1980", **options})
    low, high = core.confidence_interval
    expected = {
        "r1": core.r1,
        "r2": core.r2,
        "r12": core.r12,
        "n": core.n,
        "statistic": core.statistic,
        "pvalue": core.pvalue,
        "ci_low": low,
        "ci_high": high,
        "method": core.method,
        "measured_size": None if core.calibration is None else core.calibration.size,
        "measured_coverage": None if core.calibration is None else core.calibration.coverage,
        "calibrated": None if core.calibration is None else core.calibration.calibrated,
        "outside_band": None
        if core.calibration is None
        else [cell.cell for cell in core.calibration.outside_band],
    }
    assert out == expected  # float64 features: no float32 rounding on the way
    assert all(type(v) in (float, int, str, bool, list, type(None)) for v in out.values())


@pytest.mark.parametrize(
    "options",
    [
        {"seed": 0, "n_resamples": 2000},
        {
            "seed": 1,
            "n_resamples": 1500,
            "statistic": "spearman",
            "method": "percentile",
            "confidence_level": 0.9,
        },
    ],
)
def test_bca_bootstrap_gives_the_core_numbers(loaded, options):
    p1, p2, gold = _scores(3)
    out = loaded["bca_bootstrap"].compute(
        predictions1=p1, predictions2=p2, references=gold, **options
    )
    # the module's option `statistic` (its Hub key since 0.1) is the library's `correlation`
    core_options = {("correlation" if k == "statistic" else k): v for k, v in options.items()}
    core = bootstrap_correlation_difference(p1, p2, gold, **{"method": "BCa", **core_options})
    assert out == {
        "delta": core.delta,
        "ci_low": core.confidence_interval.low,
        "ci_high": core.confidence_interval.high,
        "significant": core.significant,
        "r1": core.r1,
        "r2": core.r2,
        "bias_correction": core.bias_correction,
        "acceleration": core.acceleration,
        "n_resamples": core.n_resamples,
        "pvalue": core.pvalue,
        "method": core.method,
        "measured_size": None if core.calibration is None else core.calibration.size,
        "measured_coverage": None if core.calibration is None else core.calibration.coverage,
        "calibrated": None if core.calibration is None else core.calibration.calibrated,
        "outside_band": None
        if core.calibration is None
        else [cell.cell for cell in core.calibration.outside_band],
    }


def test_bad_input_reaches_the_user_as_value_error(loaded):
    p1, p2, gold = _scores(4)
    with pytest.raises(ValueError, match="`method` must be one of"):
        loaded["steiger"].compute(
            predictions1=p1, predictions2=p2, references=gold, method="steiger"
        )
    with pytest.raises(ValueError, match="at least 4"):
        loaded["steiger"].compute(predictions1=p1[:3], predictions2=p2[:3], references=gold[:3])
    with pytest.raises(ValueError, match="confidence_level"):
        loaded["bca_bootstrap"].compute(
            predictions1=p1, predictions2=p2, references=gold, confidence_level=1.0
        )


@pytest.mark.parametrize("name", MODULES)
def test_kwargs_description_examples_run(loaded, name, at_repo_root):
    module_file = sys.modules[type(loaded[name]).__module__]
    text = module_file._KWARGS_DESCRIPTION
    assert text.count(">>>") > 1
    test = doctest.DocTestParser().get_doctest(
        text, {"evaluate": evaluate}, f"{name}._KWARGS_DESCRIPTION", None, 0
    )
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert runner.summarize(verbose=False).attempted >= 4


@pytest.mark.parametrize("name", MODULES)
def test_card_has_the_sections_and_the_output_keys(loaded, name, at_repo_root):
    card = (REPO / "metrics" / name / "README.md").read_text(encoding="utf-8")
    headings = re.findall(r"^#{2,3} (.+)$", card, flags=re.MULTILINE)
    for section in CARD_SECTIONS:
        assert any(section in heading for heading in headings), (name, section)
    p1, p2, gold = _scores(5)
    extra = {"n_resamples": 1000, "seed": 0} if name == "bca_bootstrap" else {}
    keys = loaded[name].compute(predictions1=p1, predictions2=p2, references=gold, **extra).keys()
    for key in keys:
        assert f"**{key}**" in card, (name, key)
    # The card's own examples run.
    failures, attempted = doctest.testfile(
        str(REPO / "metrics" / name / "README.md"), module_relative=False
    )
    assert failures == 0 and attempted > 0


def test_bca_bootstrap_uses_evaluates_seed_when_compute_gets_none():
    p1, p2, gold = _scores(3, n=40)
    inputs = {"predictions1": p1, "predictions2": p2, "references": gold, "n_resamples": 500}

    def interval(**load_kwargs):
        module = evaluate.load(str(REPO / "metrics" / "bca_bootstrap"), keep_in_memory=True,
                               **load_kwargs)  # fmt: skip
        result = module.compute(**inputs)
        return result["ci_low"], result["ci_high"]

    assert interval(seed=123) == interval(seed=123)
    assert interval(seed=123) != interval(seed=124)
    module = evaluate.load(str(REPO / "metrics" / "bca_bootstrap"), keep_in_memory=True, seed=1)
    explicit = module.compute(**inputs, seed=7)
    core = bootstrap_correlation_difference(p1, p2, gold, n_resamples=500, seed=7, method="BCa")
    assert (explicit["ci_low"], explicit["ci_high"]) == (
        core.confidence_interval.low,
        core.confidence_interval.high,
    )
    # no seed at load or at compute: the library's one default, 0 (evaluate would draw one)
    default = bootstrap_correlation_difference(p1, p2, gold, n_resamples=500, seed=0, method="BCa")
    assert interval() == interval() == tuple(default.confidence_interval)


def test_steiger_resampling_takes_the_same_seeds():
    p1, p2, gold = _scores(6, n=40)
    inputs = {"predictions1": p1, "predictions2": p2, "references": gold}
    options: dict[str, Any] = {"method": "percentile", "n_resamples": 500}

    def interval(load_seed=None, **compute):
        module = evaluate.load(str(REPO / "metrics" / "steiger"), keep_in_memory=True,
                               seed=load_seed)  # fmt: skip
        result = module.compute(**inputs, **options, **compute)
        return result["ci_low"], result["ci_high"]

    def core(seed):
        result = compare_dependent_correlations(p1, p2, gold, **options, seed=seed)
        return tuple(result.confidence_interval)

    assert interval() == core(0)
    assert interval(load_seed=5) == core(5) != core(0)
    assert interval(load_seed=5, seed=7) == core(7)
