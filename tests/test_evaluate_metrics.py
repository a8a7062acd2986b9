"""The `evaluate` modules metrics/scaled_pearson and metrics/weighted_rank_correlation.

They must load from a checkout with ``evaluate.load("metrics/<name>")`` (offline), give exactly the
numbers of the core functions, work inside ``evaluate.combine``, and keep their documented examples
(module docstring and metric card) runnable.
"""

from __future__ import annotations

import doctest
import inspect
import os
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import evaluate
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sts_extras.integrations.evaluate.columns import ScoreFeatures
from sts_extras.stats.correlation import SkippedSegmentWarning, scaled_pearson
from sts_extras.stats.ranking import weighted_rank_correlation

REPO_ROOT = Path(__file__).resolve().parents[1]
MODULES = ("scaled_pearson", "weighted_rank_correlation")
CARD_SECTIONS = (
    "Metric Description",
    "How to Use",
    "Inputs",
    "Output Values",
    "Values from Popular Papers",
    "Examples",
    "Limitations and Bias",
    "Citation",
    "Further References",
)

rng = np.random.default_rng(42)
REFERENCES = np.round(rng.uniform(0, 5, size=200), 1)  # STS-like, with ties
PREDICTIONS = np.clip(REFERENCES + rng.normal(scale=0.9, size=200), 0, 5)


@pytest.fixture(scope="module")
def loaded():
    """Both modules, loaded by a path relative to the repository root."""
    cwd = os.getcwd()
    os.chdir(REPO_ROOT)
    try:
        return {name: evaluate.load(f"metrics/{name}") for name in MODULES}
    finally:
        os.chdir(cwd)


def test_load_by_absolute_path():
    for name in MODULES:
        module = evaluate.load(str(REPO_ROOT / "metrics" / name))
        assert module.name == name


def test_scaled_pearson_equals_core(loaded):
    options: dict[str, Any] = {"bins": [0, 1.66, 3.33, 5], "closed": "right"}
    output = loaded["scaled_pearson"].compute(
        predictions=PREDICTIONS.tolist(), references=REFERENCES.tolist(), **options
    )
    core = scaled_pearson(PREDICTIONS, REFERENCES, **options)
    assert output == {
        "scaled_pearson": core.statistic,
        "pearson": core.pearson,
        "segment_r": list(core.segment_r),
        "segment_sizes": list(core.segment_sizes),
        "edges": list(core.edges),
        "skipped": list(core.skipped),
    }
    for options in ({"bins": 4, "strategy": "count"}, {"bins": 3, "score_range": [0, 5]}):
        output = loaded["scaled_pearson"].compute(
            predictions=PREDICTIONS, references=REFERENCES, **options
        )
        core = scaled_pearson(PREDICTIONS, REFERENCES, **options)  # type: ignore[arg-type]  # mixed values
        assert output["scaled_pearson"] == core.statistic


@pytest.mark.parametrize("n0", [0, 2, 7.5])
def test_weighted_rank_correlation_equals_core(loaded, n0):
    output = loaded["weighted_rank_correlation"].compute(
        predictions=PREDICTIONS.tolist(), references=REFERENCES.tolist(), n0=n0
    )
    core = weighted_rank_correlation(PREDICTIONS, REFERENCES, n0=n0)
    assert output == {
        "rho_w": core.rho_w,
        "tau_w": core.tau_w,
        "spearman": core.spearman,
        "kendall": core.kendall,
    }
    assert all(type(value) is float for value in output.values())


def test_inputs_keep_float64_precision(loaded):
    """Features are float64: evaluate's usual Value("float") would round inputs to float32."""
    references = [0.1, 0.2 + 1e-12, 0.3, 0.7, 0.9, 1.3]
    predictions = [0.1 + 1e-12, 0.2, 0.35, 0.5, 1.1, 1.2]
    output = loaded["weighted_rank_correlation"].compute(
        predictions=predictions, references=references
    )
    assert output["tau_w"] == weighted_rank_correlation(predictions, references).tau_w


def test_combine(loaded):
    combined = evaluate.combine([loaded["scaled_pearson"], loaded["weighted_rank_correlation"]])
    output = combined.compute(predictions=PREDICTIONS, references=REFERENCES)
    assert output["scaled_pearson"] == scaled_pearson(PREDICTIONS, REFERENCES).statistic
    assert output["tau_w"] == weighted_rank_correlation(PREDICTIONS, REFERENCES).tau_w
    assert set(output) == {
        "scaled_pearson", "pearson", "segment_r", "segment_sizes", "edges", "skipped",
        "rho_w", "tau_w", "spearman", "kendall",
    }  # fmt: skip


def test_incremental_add_batch(loaded):
    metric = loaded["weighted_rank_correlation"]
    for start in range(0, 200, 50):
        metric.add_batch(
            predictions=PREDICTIONS[start : start + 50], references=REFERENCES[start : start + 50]
        )
    assert metric.compute()["rho_w"] == weighted_rank_correlation(PREDICTIONS, REFERENCES).rho_w


@pytest.mark.parametrize(
    ("name", "kwargs", "match"),
    [
        ("weighted_rank_correlation", {"n0": -1}, "n0"),
        ("weighted_rank_correlation", {"references": [1.0, 2.0, float("nan")]}, "finite"),
        ("weighted_rank_correlation", {"references": [2.0, 2.0, 2.0]}, "constant"),
        ("scaled_pearson", {"bins": [0, 2, 1, 5]}, "strictly increasing"),
        ("scaled_pearson", {"bins": [1, 2, 3]}, "cover"),
        ("scaled_pearson", {"predictions": [1.0, 2.0], "references": [1.0, 2.0]}, "at least 3"),
    ],
)
def test_bad_input_raises_value_error(name, kwargs, match):
    # a fresh in-memory instance: after a failed compute, evaluate makes the next call sharing its
    # cache file wait ~1 s for the file lock
    module = evaluate.load(str(REPO_ROOT / "metrics" / name), keep_in_memory=True)
    arguments = {"predictions": [1.0, 3.0, 2.0], "references": [0.5, 1.0, 4.0], **kwargs}
    with pytest.raises(ValueError, match=match):
        module.compute(**arguments)


def test_skipped_segment_warning_reaches_the_user(loaded):
    with pytest.warns(SkippedSegmentWarning):
        output = loaded["scaled_pearson"].compute(
            predictions=[0.1, 0.3, 0.2, 2.5, 2.0, 4.1, 4.4, 4.2],
            references=[0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 4.5, 5.0],
            bins=[0, 1.66, 3.33, 5],
        )
    assert output["skipped"] == [1] and output["segment_r"][1] is None


@pytest.mark.parametrize("name", MODULES)
def test_compute_takes_explicit_keywords(loaded, name):
    parameters = inspect.signature(type(loaded[name])._compute).parameters.values()
    assert all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in parameters)


def _run_doctests(text: str, name: str) -> doctest.TestResults:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {"evaluate": evaluate}, name, name, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    cwd = os.getcwd()
    os.chdir(REPO_ROOT)  # the examples load "metrics/<name>" relative to the repository root
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SkippedSegmentWarning)
            runner.run(test)
    finally:
        os.chdir(cwd)
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("name", MODULES)
def test_module_examples_run(loaded, name):
    docstring = type(loaded[name]).__doc__
    assert docstring is not None
    results = _run_doctests(docstring, name)
    assert results.attempted >= 2 and results.failed == 0


@pytest.mark.parametrize("name", MODULES)
def test_metric_card(loaded, name):
    card = (REPO_ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    headings = re.findall(r"^#{2,4} (.+?)\s*$", card, flags=re.MULTILINE)
    for section in CARD_SECTIONS:
        assert section in headings, f"{name} card lacks '{section}'"
    # every output key of the module is documented in the card's Output Values section
    outputs = re.split(r"\n#+ ", card.split("### Output Values", 1)[1], maxsplit=1)[0]
    output = loaded[name].compute(predictions=PREDICTIONS, references=REFERENCES)
    for key in output:
        assert f"`{key}`" in outputs, f"{name} card does not document output `{key}`"
    # the card's examples run as written
    results = _run_doctests(card, f"{name}/README.md")
    assert results.attempted >= 2 and results.failed == 0


# ----------------------------------------------------------------------------------------------
# the batch goes to Arrow in one conversion per column
# (sts_extras.integrations.evaluate.columns.ScoreFeatures)
# ----------------------------------------------------------------------------------------------

real_columns = st.one_of(
    st.lists(st.floats(allow_nan=False, width=64), min_size=1, max_size=30),
    st.lists(st.integers(-(2**70), 2**70), min_size=1, max_size=30),
    st.lists(st.floats(allow_nan=False, width=32), min_size=1, max_size=30).map(
        lambda values: np.array(values, dtype=np.float32)
    ),
    st.lists(st.integers(-(2**62), 2**62), min_size=1, max_size=30).map(np.array),
)


@settings(max_examples=200, deadline=None)
@given(column=real_columns)
def test_score_features_encode_the_values_of_item_by_item_encoding(column):
    """ScoreFeatures.encode_batch writes exactly the floats of datasets' item-by-item encoding."""
    import datasets

    features = ScoreFeatures.of("predictions")
    batch = {"predictions": column}
    ours = features.encode_batch(batch)["predictions"]
    theirs = datasets.Features(features).encode_batch(batch)["predictions"]
    assert ours.dtype == np.float64
    assert ours.tolist() == theirs
    np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))  # -0.0 stays -0.0


@pytest.mark.parametrize(
    "name", ["weighted_rank_correlation", "scaled_pearson", "steiger", "bca_bootstrap"]
)
def test_batch_is_encoded_per_column_not_per_item(name, monkeypatch):
    """evaluate's default encoding calls datasets' encode_nested_example once per score (about
    1 s per 10^6 scores); every module's features encode each column in one numpy conversion."""
    import datasets.features.features as features_module

    from sts_extras import load_metric

    module = load_metric(name)
    calls = []
    original = features_module.encode_nested_example

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(features_module, "encode_nested_example", counting)
    if name in ("steiger", "bca_bootstrap"):
        extra = {"n_resamples": 200} if name == "bca_bootstrap" else {}
        output = module.compute(
            predictions1=PREDICTIONS, predictions2=REFERENCES[::-1], references=REFERENCES, **extra
        )
    else:
        output = module.compute(predictions=PREDICTIONS, references=REFERENCES)
    if name == "weighted_rank_correlation":
        assert output["tau_w"] == weighted_rank_correlation(PREDICTIONS, REFERENCES).tau_w
    assert output and calls == []


@pytest.mark.parametrize("kind", ["ndarray", "list", "float32", "series"])
def test_weighted_rank_correlation_module_equals_core_for_every_input_kind(loaded, kind):
    """Whatever container the scores come in, the module's four values are the library's."""
    import pandas as pd

    convert = cast(
        Callable[[Any], Any],
        {
            "ndarray": np.asarray,
            "list": lambda values: values.tolist(),
            "float32": lambda values: values.astype(np.float32),
            "series": pd.Series,
        }[kind],
    )
    predictions, references = convert(PREDICTIONS), convert(REFERENCES)
    output = loaded["weighted_rank_correlation"].compute(
        predictions=predictions, references=references
    )
    core = weighted_rank_correlation(np.asarray(predictions), np.asarray(references))
    assert output == {
        "rho_w": core.rho_w,
        "tau_w": core.tau_w,
        "spearman": core.spearman,
        "kendall": core.kendall,
    }


def test_nested_lists_are_refused_as_before(loaded):
    module = loaded["weighted_rank_correlation"]
    with pytest.raises(ValueError, match="don't match the expected format"):
        module.compute(predictions=[[1.0, 2.0], [2.0, 3.0], [0.5, 1.0]], references=[1, 2, 3])


def test_metric_path_imports_no_datasets():
    """Finding a module is a path lookup: the features that need `datasets` load with the module."""
    import subprocess
    import sys

    code = (
        "import sys, sts_extras; sts_extras.metric_path('steiger'); "
        "print('datasets' in sys.modules, 'evaluate' in sys.modules)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert shown.stdout.split() == ["False", "False"]
