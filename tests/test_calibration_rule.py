"""One meaning of "calibrated" and a stable ``method="auto"`` (sts_extras.stats.calibration).

Each test writes a small calibration table whose numbers it chose, and reads it through the
package's reader: the rule (:data:`CALIBRATION_RULE`), the held-out printed level, the margin
rule of the choice (:data:`CHOICE_RULE`) and what a result carries about the cells outside the
band.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest

from benchmarks.calibration import report
from sts_extras.stats import calibration
from sts_extras.stats.calibration import (
    CALIBRATION_RULE,
    CHOICE_RULE,
    COVERAGE_BAND,
    MONTE_CARLO_ALLOWANCE,
    SIZE_BAND,
    UncalibratedWarning,
    choice_table,
    choose_method,
    measured_level,
    warn_if_uncalibrated,
)

ROOT = Path(__file__).resolve().parents[1]
S = 2000  # data sets per cell: the allowance at the band's edges is about 1.1 points


def _row(replicate, method, n, cell, size, coverage, *, real=False, correlation="pearson"):
    return {
        "replicate": replicate,
        "correlation": correlation,
        "method": method,
        "n": n,
        "cell": cell,
        "family": "test",
        "real": real,
        "effect": size is None,
        "size": size,
        "coverage": coverage,
        "samples": S,
    }


def _write(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"format": 2, "rows": rows, "families": []}), encoding="utf-8")
    return path


def _both(method, n, cell, size, coverage, **options):
    return [
        _row(r, method, n, cell, size, coverage, **options) for r in ("selection", "evaluation")
    ]


def _allowance(edge: float) -> float:
    return MONTE_CARLO_ALLOWANCE * math.sqrt(edge * (1 - edge) / S)


@pytest.mark.parametrize(
    ("size", "coverage", "calibrated", "direction"),
    [
        (0.050, 0.950, True, None),
        (SIZE_BAND[1] + 0.9 * _allowance(SIZE_BAND[1]), 0.950, True, None),  # within the error
        (SIZE_BAND[1] + 1.1 * _allowance(SIZE_BAND[1]), 0.950, False, "liberal"),
        (0.050, COVERAGE_BAND[0] - 1.1 * _allowance(COVERAGE_BAND[0]), False, "liberal"),
        # conservative cells are outside the band too: calibrated means at the level
        (SIZE_BAND[0] - 1.1 * _allowance(SIZE_BAND[0]), 0.950, False, "conservative"),
        (0.050, COVERAGE_BAND[1] + 1.1 * _allowance(COVERAGE_BAND[1]), False, "conservative"),
    ],
)
def test_calibrated_is_every_cell_inside_the_band_up_to_two_standard_errors(
    tmp_path, size, coverage, calibrated, direction
):
    rows = _both("twopov", 50, "a/null", size, coverage) + _both("twopov", 50, "b", None, 0.95)
    with report.use_table(_write(tmp_path, rows)):
        level = measured_level("twopov", "pearson", 50)
    assert level is not None and level.calibrated is calibrated
    if direction is None:
        assert level.outside_band == ()
    else:
        assert [(c.cell, c.direction) for c in level.outside_band] == [("a/null", direction)]


def test_a_cell_no_method_reaches_and_a_real_cell_count_against_calibrated(tmp_path):
    # Both methods miss the same effect cell (out of every method's reach): neither is
    # calibrated, and the printed coverage is that cell's.
    rows = []
    for method in ("twopov", "jackknife-t"):
        rows += _both(method, 50, "normal/null", 0.05, 0.95)
        rows += _both(method, 50, "t3/effect", None, 0.87)
    rows += _both("percentile", 50, "normal/null", 0.05, 0.95)
    rows += _both("percentile", 50, "real/effect", None, 0.90, real=True)
    with report.use_table(_write(tmp_path, rows)):
        for method in ("twopov", "jackknife-t"):
            level = measured_level(method, "pearson", 50)
            assert level is not None and not level.calibrated
            assert level.coverage == 0.87 and level.outside_band[0].cell == "t3/effect"
            # every method misses that cell: the result says no choice of method helps there
            assert level.outside_band[0].unreachable
            assert "no method of the suite reaches the band there" in level.note
            assert level.as_dict()["outside_band"][0]["coverage"] == 0.87
        real = measured_level("percentile", "pearson", 50)
    assert real is not None and not real.calibrated and real.real_coverage == 0.90
    assert real.outside_band[0].real


def test_the_printed_level_comes_from_the_evaluation_replicate_and_the_choice_from_selection(
    tmp_path,
):
    rows = [
        _row("selection", "twopov", 50, "c/null", 0.050, 0.950),
        _row("evaluation", "twopov", 50, "c/null", 0.080, 0.920),
        _row("selection", "jackknife-t", 50, "c/null", 0.090, 0.900),
        _row("evaluation", "jackknife-t", 50, "c/null", 0.050, 0.950),
    ]
    with report.use_table(_write(tmp_path, rows)):
        assert choose_method("pearson", 50) == "twopov"
        level = measured_level("twopov", "pearson", 50)
    assert level is not None and (level.size, level.coverage) == (0.080, 0.920)
    assert not level.calibrated


def test_auto_keeps_one_method_across_n_unless_another_beats_it_by_the_margin(tmp_path):
    rows = []
    grid = (20, 50, 100, 250, 1000)
    for n in grid:
        # twopov has the smaller violation summed over n >= 50; jackknife-t is a little better
        # at 100 (within the Monte Carlo margin) and far better at 1000
        twopov = {20: 0.08, 50: 0.05, 100: 0.068, 250: 0.05, 1000: 0.10}[n]
        jackknife = {20: 0.09, 50: 0.09, 100: 0.066, 250: 0.09, 1000: 0.05}[n]
        rows += _both("twopov", n, "c/null", twopov, 0.95)
        rows += _both("jackknife-t", n, "c/null", jackknife, 0.95)
    with report.use_table(_write(tmp_path, rows)):
        table = {choice.n: choice for choice in choice_table("pearson")}
        assert [table[n].method for n in grid] == [
            "twopov",
            "twopov",
            "twopov",  # jackknife-t best here by 0.2 points: less than the margin
            "twopov",
            "jackknife-t",  # by 3.5 points: more than the margin (about 1 point)
        ]
        assert table[100].best == "jackknife-t" and table[100].margin > 0.002
        assert table[1000].violation == 0.0 and table[1000].margin < 0.035
        assert choose_method("pearson", 900) == "jackknife-t"


def test_the_warning_names_the_worst_cell_outside_the_band(tmp_path):
    rows = _both("twopov", 64, "mild/null", 0.08, 0.95)
    rows += _both("twopov", 64, "worst/effect", None, 0.88)
    with report.use_table(_write(tmp_path, rows)):
        level = measured_level("twopov", "pearson", 64)
        with pytest.warns(UncalibratedWarning, match=r"farthest worst/effect \(coverage 88\.0%"):
            assert warn_if_uncalibrated(level, "twopov", 64) is False
    assert level is not None
    assert [cell.cell for cell in level.outside_band] == ["worst/effect", "mild/null"]


def test_a_calibrated_level_does_not_warn(tmp_path):
    rows = _both("twopov", 64, "fine/null", 0.05, 0.95)
    with report.use_table(_write(tmp_path, rows)):
        level = measured_level("twopov", "pearson", 64)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert warn_if_uncalibrated(level, "twopov", 64) is True


def test_the_docs_quote_both_rules_from_the_code():
    page = (ROOT / "docs" / "calibration.md").read_text(encoding="utf-8")
    assert f"> {CALIBRATION_RULE}" in page
    assert f"> {CHOICE_RULE}" in page
    assert CALIBRATION_RULE in (calibration.__doc__ or "")


def test_the_packaged_table_holds_two_replicates_of_every_row():
    document = json.loads(report.packaged_table_path().read_text(encoding="utf-8"))
    keys = {
        replicate: {
            (r["correlation"], r["method"], r["n"], r["cell"])
            for r in document["rows"]
            if r["replicate"] == replicate
        }
        for replicate in ("selection", "evaluation")
    }
    assert keys["selection"] == keys["evaluation"] and len(keys["selection"]) > 1000
    assert {r["method"] for r in document["rows"]} >= {"twopov", "adjusted-percentile"}
    assert "wilcox2009" not in json.dumps(document)
    # every method name says where it comes from: its paper, or "ours" and what differs
    assert set(document["methods"]) == {r["method"] for r in document["rows"]}
    assert document["methods"]["adjusted-percentile"].startswith("ours:")


def test_requests_the_suite_did_not_measure_are_not_calibrated():
    import numpy as np

    from sts_extras.errors import UserInputError
    from sts_extras.stats import compare_dependent_correlations, compare_models

    rng = np.random.default_rng(8)
    gold = rng.uniform(0, 5, 120)
    a, b, c = (gold + rng.normal(0, s, 120) for s in (0.8, 1.0, 1.3))
    with pytest.warns(UncalibratedWarning, match="95 % intervals"):
        other_level = compare_dependent_correlations(a, b, gold, confidence_level=0.9)
    assert other_level.calibration is not None and not other_level.calibration.calibrated
    # the family-wise rows measure Holm's decisions, not an FDR adjustment's
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UncalibratedWarning)
        fdr = compare_models({"a": a, "b": b, "c": c}, gold, adjust="fdr_bh", n_resamples=1000)
    assert fdr.calibration is not None and not fdr.calibration.calibrated
    assert "not 'fdr_bh'" in fdr.calibration.note
    for bad in ("Pearson", "kendall"):
        with pytest.raises(UserInputError, match="`correlation` must be one of"):
            choose_method(bad, 50)
    with pytest.raises(UserInputError, match="`n` must be a positive integer"):
        measured_level("twopov", "pearson", 0)
