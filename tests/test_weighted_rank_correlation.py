"""Specification of ρ_w and τ_w (Lombardo et al., EMNLP 2020, §3, eq. 7-9).

Reference values: hand-verified test vectors (n0 = 2, rank 1 = best, exact fractions), brute-force
O(n²) versions written straight from eq. 7 below, and scipy.stats.weightedtau for τ_w.
"""

from __future__ import annotations

import doctest
import math
from itertools import permutations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import special, stats

from sts_extras.stats.ranking import (
    WeightedRankCorrelationResult,
    top_rank_weights,
    weighted_inversions,
    weighted_kendall_tau,
    weighted_rank_correlation,
)

RTOL = 1e-12  # every exact comparison in this file


# ----------------------------------------------------------------------------------------------
# brute force, straight from the paper
# ----------------------------------------------------------------------------------------------


def average_ranks_best_first(scores):
    """Rank 1 = highest score, ties share their average rank."""
    return stats.rankdata(-np.asarray(scores, dtype=float), method="average")


def paper_weights(a, b, n0=2.0):
    """Eq. 9 with f(n; n0) = 1 / (n + n0)^2."""
    f_a = 1.0 / (np.asarray(a) + n0) ** 2
    f_b = 1.0 / (np.asarray(b) + n0) ** 2
    return (f_a + f_b) / np.sum(f_a + f_b)


def gamma_eq7(a_matrix, b_matrix):
    """Kendall's general Γ, eq. 7."""
    return np.sum(a_matrix * b_matrix) / math.sqrt(np.sum(a_matrix**2) * np.sum(b_matrix**2))


def brute_force(predictions, references, n0=2.0):
    """ρ_w and τ_w as Γ with a_ij = sqrt(w_i w_j)(a_j - a_i) / sqrt(w_i w_j) sign(a_j - a_i)."""
    a = average_ranks_best_first(references)
    b = average_ranks_best_first(predictions)
    w = paper_weights(a, b, n0)
    root = np.sqrt(np.outer(w, w))
    a_diff = a[None, :] - a[:, None]
    b_diff = b[None, :] - b[:, None]
    rho_w = gamma_eq7(root * a_diff, root * b_diff)
    tau_w = gamma_eq7(root * np.sign(a_diff), root * np.sign(b_diff))
    return rho_w, tau_w


def scores_from_ranks(ranks):
    """Scores whose best-first average ranks are ``ranks``."""
    return -np.asarray(ranks, dtype=float)


# ----------------------------------------------------------------------------------------------
# published / verified values
# ----------------------------------------------------------------------------------------------

VERIFIED_VECTORS = [
    # (a = reference ranks, b = prediction ranks, rho_w, tau_w)
    ([1, 2, 3], [2, 1, 3], 0.255205811138, -49 / 1201),
    ([1, 2, 3, 4, 5], [2, 1, 3, 4, 5], 0.784541178291, 208683 / 514933),
    (list(range(1, 11)), [2, 1, 4, 3, 6, 5, 8, 7, 10, 9], 0.912214301261, 0.545164158003),
    # with ties: the Γ normaliser of eq. 7
    ([1, 2.5, 2.5, 4, 5], [1, 3, 2, 4.5, 4.5], 0.957566925249, 0.933661611022),
]


@pytest.mark.parametrize(("a", "b", "rho_w", "tau_w"), VERIFIED_VECTORS)
def test_design_vectors(a, b, rho_w, tau_w):
    result = weighted_rank_correlation(scores_from_ranks(b), scores_from_ranks(a), n0=2)
    # the decimal vectors are printed to 12 digits, the fractions are exact
    assert_allclose(result.rho_w, rho_w, rtol=0, atol=1e-12)
    assert_allclose(result.tau_w, tau_w, rtol=0, atol=1e-12)


def test_result_is_frozen_with_plain_floats():
    result = weighted_rank_correlation([3, 1, 2, 5, 4], [1, 2, 3, 4, 5])
    assert isinstance(result, WeightedRankCorrelationResult)
    for name in ("statistic", "rho_w", "tau_w", "spearman", "kendall", "n0"):
        assert type(getattr(result, name)) is float
    assert result.statistic == result.rho_w  # the estimate, as every result's `statistic`
    assert result.n == 5 and result.n0 == 2.0
    with pytest.raises(AttributeError):
        result.tau_w = 0.0  # type: ignore[misc]


def test_plain_coefficients_are_scipys():
    rng = np.random.default_rng(3)
    references = rng.normal(size=50)
    predictions = references + rng.normal(size=50)
    result = weighted_rank_correlation(predictions, references)
    assert result.spearman == pytest.approx(stats.spearmanr(references, predictions)[0], rel=RTOL)
    assert result.kendall == pytest.approx(stats.kendalltau(references, predictions)[0], rel=RTOL)


@pytest.mark.parametrize("n0", [0.0, 2.0])
def test_first_rank_weight_fraction_matches_paper(n0):
    """§3: R(n0) = f(1; n0) / Σ f(n; n0) = 1 / [(n0 + 1)² ψ'(n0 + 1)]; R(0) ≈ 0.61, R(2) ≈ 0.28."""
    n = 100_000
    scores = np.arange(n, 0, -1, dtype=float)  # identical rankings: w_i = f(i) / Σ f
    first = top_rank_weights(scores, scores, n0=n0)[0]
    exact = 1.0 / ((n0 + 1) ** 2 * special.polygamma(1, n0 + 1))
    assert_allclose(first, exact, rtol=1e-4)  # the tail beyond n holds ~1/n of the weight
    assert round(first, 2) == {0.0: 0.61, 2.0: 0.28}[n0]


def test_weights_follow_eq9():
    a = [1, 2.5, 2.5, 4, 5]
    b = [1, 3, 2, 4.5, 4.5]
    w = top_rank_weights(scores_from_ranks(b), scores_from_ranks(a), n0=2)
    assert_allclose(w, paper_weights(a, b, 2.0), rtol=RTOL)
    assert_allclose(w.sum(), 1.0, rtol=RTOL)


# ----------------------------------------------------------------------------------------------
# fast == brute force == scipy
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("levels", [None, 4, 2])  # None: continuous scores, else heavy ties
def test_fast_equals_brute_force(seed, levels):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 90))
    references = rng.normal(size=n)
    predictions = 0.7 * references + rng.normal(size=n)
    if levels is not None:
        references = np.round(references * levels / 2)
        predictions = np.round(predictions * levels / 2)
        assert np.ptp(references) > 0 and np.ptp(predictions) > 0  # the draw is not degenerate
    n0 = float(rng.choice([0.0, 0.5, 2.0, 10.0]))
    result = weighted_rank_correlation(predictions, references, n0=n0)
    rho_w, tau_w = brute_force(predictions, references, n0)
    assert_allclose(result.rho_w, rho_w, rtol=RTOL, atol=1e-14)
    assert_allclose(result.tau_w, tau_w, rtol=RTOL, atol=1e-14)


def test_all_rankings_of_five_items_with_brute_force():
    references = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    for permutation in permutations(range(5)):
        predictions = references[list(permutation)]
        result = weighted_rank_correlation(predictions, references)
        rho_w, tau_w = brute_force(predictions, references)
        assert_allclose([result.rho_w, result.tau_w], [rho_w, tau_w], rtol=RTOL, atol=1e-15)


@pytest.mark.parametrize("ties", [False, True])
def test_tau_w_equals_scipy_weightedtau(ties):
    """τ_w == weightedtau(x, y, rank=arange(n), weigher=w.__getitem__,
    additive=False)."""
    rng = np.random.default_rng(11)
    n = 3000
    references = rng.normal(size=n)
    predictions = references + rng.normal(size=n)
    if ties:
        references, predictions = np.round(references * 3), np.round(predictions * 2)
    w = top_rank_weights(predictions, references)
    expected = stats.weightedtau(
        references, predictions, rank=np.arange(n), weigher=lambda i: w[i], additive=False
    ).statistic
    assert_allclose(weighted_rank_correlation(predictions, references).tau_w, expected, atol=1e-12)
    assert_allclose(weighted_kendall_tau(references, predictions, w), expected, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_weighted_inversion_count_equals_double_loop(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    values = rng.integers(0, int(rng.integers(1, 2 * n + 2)), size=n)
    weights = rng.random(n)
    expected = sum(
        weights[i] * weights[j] for j in range(n) for i in range(j) if values[i] > values[j]
    )
    assert_allclose(weighted_inversions(values, weights), expected, rtol=RTOL, atol=1e-15)


def test_weighted_kendall_tau_with_unit_weights_is_tau_b():
    rng = np.random.default_rng(5)
    x, y = np.round(rng.normal(size=(2, 400)) * 2)
    assert_allclose(weighted_kendall_tau(x, y, np.ones(400)), stats.kendalltau(x, y)[0], rtol=RTOL)


# ----------------------------------------------------------------------------------------------
# limits and invariances
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ties", [False, True])
def test_large_n0_approaches_spearman_and_kendall(ties):
    rng = np.random.default_rng(2)
    references = rng.normal(size=200)
    predictions = references + rng.normal(size=200)
    if ties:
        references, predictions = np.round(references), np.round(predictions)
    spearman = stats.spearmanr(references, predictions)[0]
    kendall = stats.kendalltau(references, predictions)[0]
    gaps = []
    for n0 in (1e2, 1e4, 1e6):
        result = weighted_rank_correlation(predictions, references, n0=n0)
        gaps.append(max(abs(result.rho_w - spearman), abs(result.tau_w - kendall)))
    assert gaps[0] > gaps[1] > gaps[2]
    assert gaps[2] < 1e-5
    uniform = weighted_rank_correlation(predictions, references, n0=math.inf)
    assert_allclose([uniform.rho_w, uniform.tau_w], [spearman, kendall], rtol=RTOL)


@pytest.mark.parametrize("ties", [False, True])
def test_identical_rankings_give_one_and_reversed_give_minus_one(ties):
    scores = np.arange(40.0)
    if ties:
        scores = np.floor(scores / 3)
    same = weighted_rank_correlation(scores * 2 + 1, scores)
    reversed_ = weighted_rank_correlation(-scores, scores)
    assert_allclose([same.rho_w, same.tau_w], [1.0, 1.0], rtol=RTOL)
    assert_allclose([reversed_.rho_w, reversed_.tau_w], [-1.0, -1.0], rtol=RTOL)


def test_symmetric_and_depends_on_ranks_only():
    rng = np.random.default_rng(8)
    x = rng.normal(size=60)
    y = x + rng.normal(size=60)
    forward = weighted_rank_correlation(x, y)
    backward = weighted_rank_correlation(y, x)
    monotone = weighted_rank_correlation(np.exp(x), y**3)
    for other in (backward, monotone):
        assert_allclose([other.rho_w, other.tau_w], [forward.rho_w, forward.tau_w], rtol=RTOL)


def test_top_mistakes_cost_more_than_bottom_mistakes():
    gold = np.arange(20.0, 0.0, -1.0)
    top_swap, bottom_swap = gold.copy(), gold.copy()
    top_swap[[0, 1]] = top_swap[[1, 0]]
    bottom_swap[[18, 19]] = bottom_swap[[19, 18]]
    top = weighted_rank_correlation(top_swap, gold)
    bottom = weighted_rank_correlation(bottom_swap, gold)
    assert top.kendall == pytest.approx(bottom.kendall)
    assert top.tau_w < bottom.tau_w - 0.25
    assert top.rho_w < bottom.rho_w


@pytest.mark.parametrize(
    ("n", "draws", "expected", "tolerance"), [(10, 3000, -0.15, 0.025), (990, 400, -0.5, 0.03)]
)
def test_expected_tau_w_of_random_rankings_is_negative(n, draws, expected, tolerance):
    """Lombardo et al. (2020): E[τ_w] ≈ -0.15 at n = 10, ≈ -0.5 at n = 990 (random rankings).

    (n0 = 2; a mismatch of the two top items dominates the additive weights.) The tolerances are
    about 4 Monte Carlo standard errors (0.006 and 0.005) plus the rounding of the quoted values.
    """
    rng = np.random.default_rng(2024)
    gold = np.arange(float(n))
    values = []
    for _ in range(draws):
        predictions = rng.permutation(n).astype(float)
        values.append(weighted_kendall_tau(predictions, gold, top_rank_weights(predictions, gold)))
    assert abs(np.mean(values) - expected) < tolerance


# ----------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"predictions": [1, 2, 3], "references": [1, 2, 3, 4]}, ValueError, "same length"),
        ({"predictions": [1, 2], "references": [2, 1]}, ValueError, "at least 3 pairs"),
        ({"predictions": [1, np.nan, 3], "references": [1, 2, 3]}, ValueError, "finite"),
        ({"predictions": [1, 2, 3], "references": [1, np.inf, 3]}, ValueError, "finite"),
        ({"predictions": [1, 2, 3], "references": [1, 2, 3], "n0": -1}, ValueError, "n0"),
        ({"predictions": [1, 2, 3], "references": [1, 2, 3], "n0": math.nan}, ValueError, "n0"),
        ({"predictions": [1, 2, 3], "references": [1, 2, 3], "n0": "2"}, TypeError, "n0"),
        ({"predictions": [1, 2, 3], "references": [1, 2, 3], "n0": True}, TypeError, "n0"),
        ({"predictions": [1, 2, 3], "references": [4, 4, 4]}, ValueError, "`references` is const"),
        ({"predictions": [7, 7, 7], "references": [1, 2, 3]}, ValueError, "`predictions` is const"),
        ({"predictions": "abc", "references": [1, 2, 3]}, TypeError, "predictions"),
    ],
)
def test_bad_input_raises(kwargs, error, match):
    with pytest.raises(error, match=match):
        weighted_rank_correlation(**kwargs)


@pytest.mark.parametrize(
    ("x", "y", "weights", "match"),
    [
        ([1, 2, 3], [1, 2, 3], [1, -1, 1], "non-negative"),
        ([1, 2, 3], [1, 2, 3], [0, 0, 0], "all be zero"),
        ([1, 2, 3], [1, 2, 3], [1, 1], "same length"),
        ([1, 1, 2], [1, 2, 3], [1, 1, 0], "tied in `x`"),
        ([1, 2, 3], [5, 5, 5], [1, 1, 1], "tied in `y`"),
    ],
)
def test_weighted_kendall_tau_bad_input(x, y, weights, match):
    with pytest.raises(ValueError, match=match):
        weighted_kendall_tau(x, y, weights)


def test_weight_scale_does_not_matter():
    rng = np.random.default_rng(6)
    x, y, w = rng.normal(size=(3, 50))
    w = np.abs(w)
    reference = weighted_kendall_tau(x, y, w)
    for scale in (1e-300, 1e300):
        assert_allclose(weighted_kendall_tau(x, y, w * scale), reference, rtol=RTOL)


def test_docstring_examples_run():
    import sts_extras.stats.ranking as module

    results = doctest.testmod(module)
    assert results.attempted >= 4 and results.failed == 0


def test_tau_w_memory_and_inputs_untouched():
    # At most 60 bytes per item of numpy allocations (scipy's weightedtau needs 32-39),
    # and the work space is the function's own: the caller's arrays are not modified.
    import tracemalloc

    rng = np.random.default_rng(3)
    n = 200_000
    x, y = rng.normal(size=n), rng.normal(size=n)
    weights = rng.uniform(size=n)
    copies = x.copy(), y.copy(), weights.copy()
    expected = weighted_kendall_tau(x, y, weights)
    tracemalloc.start()
    value = weighted_kendall_tau(x, y, weights)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert value == expected
    assert peak / n <= 60
    codes = np.argsort(np.argsort(y)).astype(np.int64)
    before = codes.copy()
    weighted_inversions(codes, weights)
    for array, copy in zip((x, y, weights, codes), (*copies, before)):
        np.testing.assert_array_equal(array, copy)


# ----------------------------------------------------------------------------------------------
# one sort per input for all four statistics, same numbers as scipy's own routes
# ----------------------------------------------------------------------------------------------


@st.composite
def paired_scores(draw):
    """Two score vectors of 3..400 items on a grid of 2..60 levels (many ties) or continuous."""
    n = draw(st.integers(3, 400))
    seed = draw(st.integers(0, 2**32 - 1))
    levels = [draw(st.sampled_from([None, 2, 3, 7, 60])) for _ in range(2)]
    rng = np.random.default_rng(seed)
    references = rng.normal(size=n)
    predictions = draw(st.floats(-1, 1)) * references + rng.normal(size=n)
    scores = []
    for values, level in zip((references, predictions), levels):
        if level is not None:
            values = np.round((values - values.min()) / np.ptp(values) * (level - 1))
        scores.append(values)
    assume(np.ptp(scores[0]) > 0 and np.ptp(scores[1]) > 0)
    return scores[1], scores[0]  # predictions, references


@settings(max_examples=150, deadline=None)
@given(scores=paired_scores(), n0=st.sampled_from([0.0, 2.0, 7.5]))
def test_four_statistics_equal_scipys_routes(scores, n0):
    """Spearman's ρ and Kendall's τ-b are scipy's to the bit; ρ_w and τ_w agree to rounding.

    Spearman and Kendall now come from the sort that ρ_w and τ_w use (and Kendall's discordant
    pairs from τ_w's inversion count); scipy's functions sort the inputs again.
    """
    predictions, references = scores
    result = weighted_rank_correlation(predictions, references, n0=n0)
    assert result.spearman == stats.spearmanr(references, predictions).statistic
    assert result.kendall == stats.kendalltau(references, predictions).statistic
    w = top_rank_weights(predictions, references, n0=n0)
    expected_tau_w = stats.weightedtau(
        references, predictions, rank=np.arange(w.size), weigher=lambda i: w[i], additive=False
    ).statistic
    assert_allclose(result.tau_w, expected_tau_w, rtol=0, atol=1e-12)
    rho_w, tau_w = brute_force(predictions, references, n0)
    assert_allclose([result.rho_w, result.tau_w], [rho_w, tau_w], rtol=RTOL, atol=1e-14)


def test_ties_among_more_than_65536_distinct_references():
    """Past 2^16 distinct reference values the joint order comes from one combined sort key."""
    rng = np.random.default_rng(12)
    references = np.round(rng.normal(size=150_000) * 40_000)  # ~100,000 distinct values, ties
    predictions = np.round(references / 3 + rng.normal(size=150_000) * 30_000)
    assert 2**16 < np.unique(references).size < references.size
    result = weighted_rank_correlation(predictions, references)
    assert result.spearman == stats.spearmanr(references, predictions).statistic
    assert result.kendall == stats.kendalltau(references, predictions).statistic
    w = top_rank_weights(predictions, references)
    assert_allclose(weighted_kendall_tau(references, predictions, w), result.tau_w, rtol=RTOL)


@pytest.mark.parametrize("ties", [False, True])
def test_four_statistics_sort_each_input_once(monkeypatch, ties):
    """One sort per input serves ρ_w, τ_w, ρ and τ; breaking the ties of the references costs
    one more (a stable radix sort of 16-bit codes). scipy's spearmanr and kendalltau would sort
    both inputs twice more."""
    import sts_extras.stats.ranking as module

    sorts = []
    argsort = np.argsort

    def counting_argsort(*args, **kwargs):
        sorts.append(kwargs.get("kind"))
        return argsort(*args, **kwargs)

    rng = np.random.default_rng(4)
    references = rng.normal(size=500)
    predictions = references + rng.normal(size=500)
    if ties:
        references, predictions = np.round(references * 2), np.round(predictions * 2)
    monkeypatch.setattr(module.np, "argsort", counting_argsort)
    monkeypatch.setattr(stats, "spearmanr", None)
    monkeypatch.setattr(stats, "kendalltau", None)
    weighted_rank_correlation(predictions, references)
    assert sorts == ([None, None, "stable"] if ties else [None, None])
