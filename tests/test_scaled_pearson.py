"""Specification of the scaled Pearson correlation and Fisher pooling (Atoum 2019, eq. 2-5)."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from sts_extras.stats.correlation import (
    ScaledPearsonResult,
    SkippedSegmentWarning,
    fisher_mean,
    scaled_pearson,
)

RTOL = 1e-12

# Three segments of the 0-5 scale whose Pearson r are easy to compute by hand:
#   [0, 5/3):    references 0.5, 1.0, 1.5 / predictions 1, 3, 2
#                deviations (-1, 0, 1), (-1, 1, 0): r = 1 / sqrt(2 * 2) = 1/2
#   [5/3, 10/3): references 2.0, 2.5, 3.0 / predictions 1, 2, 3: r = 1
#   [10/3, 5]:   references 3.5, 4, 4.5, 5 / predictions 2, 1, 4, 3
#                deviations (-1.5, -.5, .5, 1.5), (-.5, -1.5, 1.5, .5):
#                r = (.75 + .75 + .75 + .75) / sqrt(5 * 5) = 3/5
HAND_REFERENCES = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0]
HAND_PREDICTIONS = [1, 3, 2, 1, 2, 3, 2, 1, 4, 3]
HAND_SEGMENT_R = (0.5, 1.0, 0.6)


def test_hand_computed_segments():
    result = scaled_pearson(HAND_PREDICTIONS, HAND_REFERENCES, bins=3, score_range=(0, 5))
    assert isinstance(result, ScaledPearsonResult)
    assert_allclose(result.segment_r, HAND_SEGMENT_R, rtol=RTOL)  # type: ignore[arg-type]  # float | None items
    assert_allclose(result.statistic, (0.5 + 1.0 + 0.6) / 3, rtol=RTOL)  # eq. 3: 0.7
    assert result.segment_sizes == (3, 3, 4)
    assert_allclose(result.edges, (0.0, 5 / 3, 10 / 3, 5.0), rtol=RTOL)
    assert result.skipped == ()
    assert_allclose(result.pearson, stats.pearsonr(HAND_REFERENCES, HAND_PREDICTIONS)[0], rtol=RTOL)
    assert type(result.statistic) is float and all(type(r) is float for r in result.segment_r)


def test_explicit_edges_as_in_atoum():
    """Atoum's STS bins: < 1.66, 1.66-3.33, > 3.33 on the 0-5 scale."""
    result = scaled_pearson(HAND_PREDICTIONS, HAND_REFERENCES, bins=[0, 1.66, 3.33, 5])
    assert result.edges == (0.0, 1.66, 3.33, 5.0)
    assert_allclose(result.segment_r, HAND_SEGMENT_R, rtol=RTOL)  # type: ignore[arg-type]  # float | None items


def test_segments_match_scipy_pearsonr_on_random_data():
    rng = np.random.default_rng(0)
    references = rng.uniform(0, 5, size=500)
    predictions = references + rng.normal(scale=1.0, size=500)
    for kwargs in ({"bins": 4}, {"bins": 5, "strategy": "count"}, {"bins": [0, 1, 2.5, 4.5, 5]}):
        result = scaled_pearson(predictions, references, **kwargs)
        edges = np.asarray(result.edges)
        for k, r in enumerate(result.segment_r):
            assert r is not None  # no segment is skipped here
            upper = references <= edges[k + 1] if k == len(edges) - 2 else references < edges[k + 1]
            members = (references >= edges[k]) & upper
            assert members.sum() == result.segment_sizes[k]
            expected = stats.pearsonr(references[members], predictions[members])[0]
            assert_allclose(r, expected, rtol=1e-10)
        assert_allclose(result.statistic, np.mean(result.segment_r), rtol=RTOL)  # type: ignore[arg-type]  # float | None items


def test_default_range_is_observed_references():
    result = scaled_pearson(HAND_PREDICTIONS, HAND_REFERENCES, bins=3)
    assert_allclose(result.edges, (0.5, 2.0, 3.5, 5.0), rtol=RTOL)
    assert result.segment_sizes == (3, 3, 4)


def test_one_segment_is_plain_pearson():
    result = scaled_pearson(HAND_PREDICTIONS, HAND_REFERENCES, bins=1)
    assert_allclose(result.statistic, result.pearson, rtol=RTOL)


def test_closed_side_decides_scores_on_an_edge():
    references = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]
    predictions = [0.1, 0.3, 0.2, 1.6, 1.9, 1.7]
    with pytest.warns(SkippedSegmentWarning):
        left = scaled_pearson(predictions, references, bins=[0, 1, 2.5], closed="left")
    right = scaled_pearson(predictions, references, bins=[0, 1, 2.5], closed="right")
    assert left.segment_sizes == (2, 4)  # 1.0 opens [1, 2.5]
    assert right.segment_sizes == (3, 3)  # 1.0 closes [0, 1]
    assert right.segment_r[0] is not None
    assert_allclose(right.segment_r[0], stats.pearsonr([0.0, 0.5, 1.0], [0.1, 0.3, 0.2])[0])


def test_equal_count_segments():
    rng = np.random.default_rng(4)
    references = rng.permutation(np.arange(12.0))
    predictions = references + rng.normal(size=12)
    result = scaled_pearson(predictions, references, bins=3, strategy="count")
    assert result.segment_sizes == (4, 4, 4)
    assert result.edges == (0.0, 4.0, 8.0, 11.0)
    right = scaled_pearson(predictions, references, bins=3, strategy="count", closed="right")
    assert right.segment_sizes == (4, 4, 4) and right.edges == (0.0, 3.0, 7.0, 11.0)
    assert_allclose(right.segment_r, result.segment_r, rtol=RTOL)  # type: ignore[arg-type]  # float | None items
    # uneven n: sizes as numpy.array_split
    uneven = scaled_pearson(predictions[:11], references[:11], bins=3, strategy="count")
    assert sorted(uneven.segment_sizes) == [3, 4, 4]


def test_equal_count_keeps_ties_together_and_ignores_input_order():
    references = np.array([1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 5, 5], dtype=float)
    predictions = np.array([1.2, 0.9, 2.5, 1.5, 2.2, 1.9, 2.8, 3.3, 4.4, 3.9, 5.5, 4.6])
    with pytest.warns(SkippedSegmentWarning, match="segment 0"):
        result = scaled_pearson(predictions, references, bins=3, strategy="count")
    assert result.segment_sizes == (2, 6, 4)  # the tie group at the first cut stays whole
    order = np.random.default_rng(1).permutation(12)
    with pytest.warns(SkippedSegmentWarning, match="segment 0"):
        shuffled = scaled_pearson(predictions[order], references[order], bins=3, strategy="count")
    assert shuffled.segment_sizes == result.segment_sizes
    assert_allclose(shuffled.segment_r[1:], result.segment_r[1:], rtol=RTOL)  # type: ignore[arg-type]  # float | None items


def test_skipped_segments_warn_and_leave_the_mean():
    references = [0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 4.5, 5.0, 3.5, 3.6]
    predictions = [0.1, 0.3, 0.2, 2.5, 2.0, 4.1, 4.4, 4.2, 1.0, 1.0]
    with pytest.warns(SkippedSegmentWarning, match=r"segment 1 .*fewer than 3"):
        result = scaled_pearson(predictions, references, bins=[0, 1.66, 3.33, 5])
    assert result.segment_sizes == (3, 2, 5)
    assert result.segment_r[1] is None and result.skipped == (1,)
    valid_mean = np.mean([result.segment_r[0], result.segment_r[2]])
    assert_allclose(result.statistic, float(valid_mean), rtol=RTOL)


@pytest.mark.parametrize(
    ("side", "match"), [("predictions", "constant predictions"), ("references", "constant refer")]
)
def test_constant_side_in_a_segment_is_skipped(side, match):
    references = np.array([0.0, 0.5, 1.0, 2.0, 2.0, 2.0, 4.0, 4.5, 5.0])
    predictions = np.array([0.1, 0.3, 0.2, 2.5, 2.1, 2.9, 4.1, 4.4, 4.2])
    if side == "predictions":
        references[3:6] = [2.0, 2.5, 3.0]
        predictions[3:6] = 2.0
    with pytest.warns(SkippedSegmentWarning, match=match):
        result = scaled_pearson(predictions, references, bins=3, score_range=(0, 5))
    assert result.skipped == (1,) and result.segment_sizes == (3, 3, 3)


def test_no_valid_segment_raises():
    references = [0.0, 1.0, 4.0, 5.0]
    predictions = [0.0, 2.0, 3.0, 5.0]
    with pytest.raises(ValueError, match="No segment has a defined Pearson r"):
        scaled_pearson(predictions, references, bins=2)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"predictions": [1, 2, 3], "references": [1, 2, 3, 4]}, ValueError, "same length"),
        ({"predictions": [1, 2], "references": [1, 2]}, ValueError, "at least 3 pairs"),
        ({"predictions": [1, np.nan, 3], "references": [1, 2, 3]}, ValueError, "finite"),
        ({"predictions": [1, 2, 3], "references": [1, np.inf, 3]}, ValueError, "finite"),
        ({"predictions": [1, 2, 3], "references": [2, 2, 2]}, ValueError, "`references` is const"),
        ({"predictions": [5, 5, 5], "references": [1, 2, 3]}, ValueError, "`predictions` is const"),
        ({"bins": [0, 3, 2, 5]}, ValueError, "strictly increasing"),
        ({"bins": [0, 2, 2, 5]}, ValueError, "strictly increasing"),
        ({"bins": [1, 3, 5]}, ValueError, "must cover the data"),
        ({"bins": [0, 3, 4.5]}, ValueError, "must cover the data"),
        ({"bins": [0]}, ValueError, "at least 2"),
        ({"bins": [0, np.nan, 5]}, ValueError, "finite"),
        ({"bins": 0}, ValueError, "at least 1"),
        ({"bins": 2.5}, TypeError, "bins"),
        ({"bins": "3"}, TypeError, "bins"),
        ({"bins": True}, TypeError, "bins"),
        ({"score_range": (1, 5)}, ValueError, "must cover the data"),
        ({"score_range": (5, 0)}, ValueError, "low < high"),
        ({"score_range": (0, 2, 5)}, ValueError, "pair"),
        ({"bins": [0, 2, 5], "score_range": (0, 5)}, ValueError, "score_range"),
        ({"strategy": "count", "score_range": (0, 5)}, ValueError, "score_range"),
        ({"strategy": "quantile"}, ValueError, "strategy"),
        ({"closed": "both"}, ValueError, "closed"),
    ],
)
def test_bad_input_raises(kwargs, error, match):
    arguments = {"predictions": HAND_PREDICTIONS, "references": HAND_REFERENCES, **kwargs}
    with pytest.raises(error, match=match):
        scaled_pearson(**arguments)


# ----------------------------------------------------------------------------------------------
# Fisher pooling (eq. 4-5)
# ----------------------------------------------------------------------------------------------


def test_fisher_mean_round_trips():
    z = np.array([-0.4, 0.1, 0.9, 1.7])
    assert_allclose(fisher_mean(np.tanh(z)), np.tanh(z.mean()), rtol=RTOL)
    for r in (-0.93, 0.0, 0.42, 0.999):
        assert_allclose(fisher_mean([r]), r, rtol=RTOL)
        assert_allclose(fisher_mean([r, r, r], weights=[1, 5, 2]), r, rtol=RTOL)


def test_fisher_mean_eq4_by_hand():
    # z = 0.5 ln((1 + r) / (1 - r)); weights n - 3 for n = 100, 50
    z1, z2 = 0.5 * math.log(1.3 / 0.7), 0.5 * math.log(1.5 / 0.5)
    assert_allclose(fisher_mean([0.3, 0.5]), math.tanh((z1 + z2) / 2), rtol=RTOL)
    assert_allclose(
        fisher_mean([0.3, 0.5], weights=[97, 47]), math.tanh((97 * z1 + 47 * z2) / 144), rtol=RTOL
    )


def test_fisher_mean_pools_scaled_values_across_datasets():
    rng = np.random.default_rng(9)
    values = []
    for _ in range(3):
        references = rng.uniform(0, 5, 60)
        values.append(scaled_pearson(references + rng.normal(size=60), references).statistic)
    pooled = fisher_mean(values)
    assert min(values) < pooled < max(values)


def test_fisher_mean_perfect_correlations():
    assert fisher_mean([1.0, 0.2]) == 1.0
    assert fisher_mean([-1.0, 0.2], weights=[1, 3]) == -1.0
    assert_allclose(fisher_mean([1.0, 0.2], weights=[0, 1]), 0.2, rtol=RTOL)
    with pytest.raises(ValueError, match=r"both \+1 and -1"):
        fisher_mean([1.0, -1.0])


@pytest.mark.parametrize(
    ("rs", "weights", "error", "match"),
    [
        ([], None, ValueError, "at least 1"),
        ([0.2, 1.2], None, ValueError, r"\[-1, 1\]"),
        ([0.2, np.nan], None, ValueError, "finite"),
        ([0.2, None], None, TypeError, "skipped segment"),
        ([0.2, 0.3], [1, -1], ValueError, "non-negative"),
        ([0.2, 0.3], [0, 0], ValueError, "all be zero"),
        ([0.2, 0.3], [1, 2, 3], ValueError, "same length"),
    ],
)
def test_fisher_mean_bad_input(rs, weights, error, match):
    with pytest.raises(error, match=match):
        fisher_mean(rs, weights)


def test_docstring_examples_run():
    import sts_extras.stats.correlation as module

    results = doctest.testmod(module)
    assert results.attempted >= 4 and results.failed == 0
