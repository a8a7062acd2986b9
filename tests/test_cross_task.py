"""Cross-task statistics: published examples, the reference libraries, and the stated properties.

References: Demšar (2006) for the Friedman/Nemenyi critical difference; ``autorank`` for the CD
groups and ``scipy`` for Friedman's statistic; ``baycomp`` for the Bayesian signed-rank test
(Benavoli et al. 2014/2017); Mogstad, Romano, Shaikh & Wilhelm (2024) for the rank sets' stated
properties; Bonett & Wright (2000) for the variance of Spearman's z.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from sts_extras.errors import UserInputError
from sts_extras.stats import (
    adjacent_separability,
    bayesian_signed_rank,
    friedman_nemenyi,
    rank_confidence_sets,
    task_difference,
    task_score_uncertainty,
)


def _leaderboard(seed: int, means: np.ndarray, tasks: int = 10, spread: float = 0.02) -> np.ndarray:
    rng = np.random.default_rng(seed)
    task_effect = rng.uniform(0.65, 0.85, size=(tasks, 1))
    return task_effect + means[None, :] + spread * rng.standard_normal((tasks, means.size))


# --- within a task ---------------------------------------------------------------------------


def test_pearson_standard_error_is_fisher_z() -> None:
    result = task_score_uncertainty([0.5], [28], correlation="pearson")
    assert result.z_standard_error[0] == pytest.approx(0.2)  # 1 / sqrt(28 - 3)
    z = np.arctanh(0.5)
    assert result.confidence_interval.low[0] == pytest.approx(np.tanh(z - 1.959964 * 0.2))
    assert result.confidence_interval.high[0] == pytest.approx(np.tanh(z + 1.959964 * 0.2))
    assert result.standard_error[0] == pytest.approx(0.2 * 0.75)


def test_spearman_variance_is_bonett_wright_and_matches_simulation() -> None:
    n, rho = 100, 0.6
    result = task_score_uncertainty(np.array([[0.6]]), np.array([[n]]))
    assert result.z_standard_error[0, 0] == pytest.approx(np.sqrt((1 + 0.18) / 97))
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4000, n))
    y = rho * x + np.sqrt(1 - rho**2) * rng.standard_normal((4000, n))
    rx, ry = stats.rankdata(x, axis=1), stats.rankdata(y, axis=1)
    rs = np.array([np.corrcoef(a, b)[0, 1] for a, b in zip(rx, ry)])
    simulated = np.std(np.arctanh(rs))
    # Bonett & Wright's approximation at the population Spearman rho_s = 6/pi asin(rho/2).
    rho_s = 6 / np.pi * np.arcsin(rho / 2)
    expected = np.sqrt((1 + rho_s**2 / 2) / (n - 3))
    assert simulated == pytest.approx(expected, rel=0.05)


def test_scores_broadcast_against_the_tasks_n() -> None:
    scores = np.array([[0.8, 0.7, 0.6], [0.5, 0.4, 0.3]])
    result = task_score_uncertainty(scores, np.array([[1379], [100]]))
    assert result.standard_error.shape == (2, 3)
    assert (result.standard_error[1] > result.standard_error[0]).all()  # smaller n


def test_difference_states_the_unknown_error_correlation() -> None:
    independent = task_difference(0.82, 0.80, 1379)
    assert independent.error_correlation == 0.0
    correlated = task_difference(0.82, 0.80, 1379, error_correlation=0.9)
    assert independent.pvalue > 0.05 > correlated.pvalue
    width = independent.confidence_interval.high - independent.confidence_interval.low
    narrower = correlated.confidence_interval.high - correlated.confidence_interval.low
    assert narrower < width
    # At the critical error correlation the z test sits exactly on alpha.
    rho = float(independent.critical_error_correlation)
    assert 0 < rho < 0.9
    assert float(task_difference(0.82, 0.80, 1379, error_correlation=rho).pvalue) == pytest.approx(
        0.05
    )


def test_difference_interval_is_zou_2007() -> None:
    one = task_score_uncertainty(0.7, 200)
    two = task_score_uncertainty(0.6, 200)
    (l1, u1), (l2, u2) = one.confidence_interval, two.confidence_interval
    result = task_difference(0.7, 0.6, 200, error_correlation=0.5)
    low = 0.1 - np.sqrt((0.7 - l1) ** 2 + (u2 - 0.6) ** 2 - (0.7 - l1) * (u2 - 0.6))
    high = 0.1 + np.sqrt((u1 - 0.7) ** 2 + (0.6 - l2) ** 2 - (u1 - 0.7) * (0.6 - l2))
    assert result.confidence_interval.low == pytest.approx(low)
    assert result.confidence_interval.high == pytest.approx(high)


# --- Friedman and Nemenyi ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "q"),
    [(2, 1.960), (3, 2.343), (4, 2.569), (5, 2.728), (6, 2.850), (7, 2.949), (8, 3.031),
     (9, 3.102), (10, 3.164)],
)  # fmt: skip
def test_critical_difference_uses_demsars_table(k: int, q: float) -> None:
    """Demšar (2006), Table 5(a): q_0.05 of the Nemenyi test for k classifiers."""
    scores = np.random.default_rng(k).standard_normal((14, k))
    result = friedman_nemenyi(scores)
    assert result.critical_difference == pytest.approx(
        q * np.sqrt(k * (k + 1) / (6 * 14)), abs=2e-3
    )


def test_demsar_worked_example_critical_difference() -> None:
    """Demšar (2006), §3.2.2: k = 4, N = 14, alpha = 0.05 gives CD = 1.25."""
    result = friedman_nemenyi(np.random.default_rng(0).standard_normal((14, 4)))
    assert round(result.critical_difference, 2) == 1.25


def test_friedman_matches_scipy_and_groups_match_autorank() -> None:
    autorank = pytest.importorskip("autorank")
    pd = pytest.importorskip("pandas")
    means = np.linspace(0.0, 0.08, 8)
    scores = _leaderboard(5, means, tasks=12, spread=0.03)
    scores[0, :2] = scores[0, 2]  # ties, handled as scipy does
    names = [f"m{j}" for j in range(8)]
    result = friedman_nemenyi(scores, models=names)
    reference = stats.friedmanchisquare(*scores.T)
    assert result.statistic == pytest.approx(reference.statistic)
    assert result.pvalue == pytest.approx(reference.pvalue)
    frame = pd.DataFrame(scores, columns=names)
    ranked = autorank.autorank(frame, alpha=0.05, verbose=False, force_mode="nonparametric")
    assert result.critical_difference == pytest.approx(ranked.cd, rel=1e-4)  # qsturng
    mean_rank = dict(zip(ranked.rankdf.index, ranked.rankdf.meanrank))
    assert [mean_rank[name] for name in names] == pytest.approx(list(result.mean_rank))
    _, ordered, groups = autorank._util.get_sorted_rank_groups(ranked, reverse=False)
    expected = {frozenset(ordered[i : j + 1]) for i, j in groups}
    assert {frozenset(group) for group in result.groups} == expected
    assert len(result.groups) == len(groups)
    assert result.groups  # the data are built to have overlapping groups


def test_separable_is_a_mean_rank_gap_beyond_the_critical_difference() -> None:
    scores = _leaderboard(1, np.array([0.0, 0.0, 0.3, 0.3]), tasks=20, spread=0.01)
    result = friedman_nemenyi(scores, models=["a", "b", "c", "d"])
    assert result.pvalue < 1e-6
    assert result.separable[0, 2] and result.separable[1, 3]
    assert not result.separable[0, 1] and not result.separable[2, 3]
    assert set(map(frozenset, result.groups)) == {frozenset("cd"), frozenset("ab")}


# --- Bayesian signed-rank ----------------------------------------------------------------------


def test_bayesian_signed_rank_matches_baycomp() -> None:
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(1)
    for shift, rope in ((0.01, 0.01), (0.02, 0.01), (0.004, 0.0), (-0.015, 0.005)):
        x = rng.normal(0.8, 0.05, 10)
        y = x + rng.normal(shift, 0.015, 10)
        expected = baycomp.SignedRankTest.probs(x, y, rope=rope, random_state=0)
        result = bayesian_signed_rank(x, y, rope=rope)
        got = (
            [result.p_left, result.p_rope, result.p_right]
            if rope > 0
            else [
                result.p_left,
                result.p_right,
            ]
        )
        # Both are Monte Carlo with 50,000 posterior samples: agree within 4 standard errors.
        assert np.asarray(got, dtype=float) == pytest.approx(np.asarray(expected), abs=0.01)


def test_many_pairs_at_once_equal_one_at_a_time() -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(0.8, 0.05, (6, 10))
    y = x + rng.normal(0.005, 0.01, (6, 10))
    batch = bayesian_signed_rank(x, y, nsamples=4000, seed=7)
    for index in range(6):
        single = bayesian_signed_rank(x[index], y[index], nsamples=4000, seed=7)
        assert float(single.p_left) == batch.p_left[index]
        assert float(single.p_rope) == batch.p_rope[index]
        assert float(single.p_right) == batch.p_right[index]
    assert batch.p_left + batch.p_rope + batch.p_right == pytest.approx(np.ones(6))


def test_a_missing_task_drops_out_of_the_pair() -> None:
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(4)
    x = rng.normal(0.8, 0.05, 10)
    y = x + rng.normal(0.012, 0.01, 10)
    with_gap = y.copy()
    with_gap[3] = np.nan
    result = bayesian_signed_rank(x, with_gap)
    assert int(result.n_tasks) == 9
    kept = np.arange(10) != 3
    expected = baycomp.SignedRankTest.probs(x[kept], y[kept], rope=0.01, random_state=0)
    assert (result.p_left, result.p_rope, result.p_right) == pytest.approx(expected, abs=0.01)


# --- rank confidence sets (Mogstad, Romano, Shaikh & Wilhelm 2024) -------------------------------


def test_precise_estimates_give_the_true_ranks() -> None:
    means = np.linspace(0.2, 0.0, 8)  # well separated: 0.029 apart
    scores = _leaderboard(0, means, spread=0.001)
    result = rank_confidence_sets(scores, n_resamples=500)
    truth = np.arange(1, 9)
    assert list(result.rank) == list(truth)
    for low, high in (
        (result.marginal_low, result.marginal_high),
        (result.simultaneous_low, result.simultaneous_high),
    ):
        assert list(low) == list(truth) and list(high) == list(truth)
    assert result.best_set == ("0",)


def test_a_near_duplicate_model_does_not_blind_the_others() -> None:
    """Two models equal up to rounding (the same model under two names) must not make the
    resampled t statistics degenerate: the other models' sets still collapse."""
    means = np.linspace(0.2, 0.0, 6)
    scores = _leaderboard(12, means, spread=0.001)
    twin = scores[:, 5] + 1e-9 * np.random.default_rng(0).standard_normal(10)
    result = rank_confidence_sets(np.column_stack([scores, twin]), n_resamples=300)
    assert list(result.simultaneous_low[:5]) == [1, 2, 3, 4, 5]
    assert list(result.simultaneous_high[:5]) == [1, 2, 3, 4, 5]
    assert set(result.simultaneous_low[5:]) == {6} and set(result.simultaneous_high[5:]) == {7}


def test_identical_models_span_every_rank() -> None:
    scores = np.tile(np.linspace(0.6, 0.9, 10)[:, None], (1, 5))
    result = rank_confidence_sets(scores, n_resamples=200)
    assert (result.simultaneous_low == 1).all() and (result.simultaneous_high == 5).all()
    assert (result.marginal_low == 1).all() and (result.marginal_high == 5).all()
    assert len(result.best_set) == 5


def test_marginal_sets_lie_inside_simultaneous_sets() -> None:
    scores = _leaderboard(2, np.linspace(0.05, 0.0, 25), spread=0.02)
    result = rank_confidence_sets(scores, n_resamples=400, seed=3)
    assert (result.simultaneous_low <= result.marginal_low).all()
    assert (result.marginal_high <= result.simultaneous_high).all()
    assert (result.marginal_low <= result.rank).all() and (
        result.rank <= result.marginal_high
    ).all()
    # Some sets are informative, not all of them span everything.
    assert (result.simultaneous_high - result.simultaneous_low < 24).any()
    assert "0" in result.best_set and "24" not in result.best_set


def test_a_wider_tau_best_set_holds_the_narrower() -> None:
    scores = _leaderboard(6, np.linspace(0.05, 0.0, 12), spread=0.015)
    one = rank_confidence_sets(scores, n_resamples=300, tau=1)
    three = rank_confidence_sets(scores, n_resamples=300, tau=3)
    assert set(one.best_set) <= set(three.best_set)


def test_same_seed_same_sets_and_the_within_task_draw_is_reported() -> None:
    scores = _leaderboard(8, np.linspace(0.04, 0.0, 12), spread=0.01)
    first = rank_confidence_sets(scores, n_resamples=300, seed=1)
    again = rank_confidence_sets(scores, n_resamples=300, seed=1)
    assert list(first.simultaneous_low) == list(again.simultaneous_low)
    assert list(first.marginal_high) == list(again.marginal_high)
    assert first.within_task == "none"
    noisy = rank_confidence_sets(scores, n=np.full(10, 150), n_resamples=300, seed=1)
    assert noisy.within_task == "fisher-z"
    assert (noisy.simultaneous_low <= noisy.rank).all()
    assert (noisy.rank <= noisy.simultaneous_high).all()


def test_per_pair_bootstrap_draws_and_fisher_z_mix_by_model() -> None:
    rng = np.random.default_rng(9)
    scores = _leaderboard(9, np.linspace(0.04, 0.0, 6), spread=0.01)
    draws = scores[None] + 0.002 * rng.standard_normal((50, 10, 6))
    draws[:, :, 3:] = np.nan  # models 3-5: published only
    result = rank_confidence_sets(scores, n=np.full(10, 1000), within_task_draws=draws)
    assert result.within_task == "bootstrap+fisher-z"
    every = scores[None] + 0.002 * rng.standard_normal((50, 10, 6))
    assert rank_confidence_sets(scores, within_task_draws=every).within_task == "bootstrap"
    with pytest.raises(UserInputError, match="`n`"):
        rank_confidence_sets(scores, within_task_draws=draws)
    with pytest.raises(UserInputError, match="within_task_draws"):
        rank_confidence_sets(scores, within_task_draws=draws[:, :5])


def test_missing_tasks_compare_each_pair_on_common_tasks() -> None:
    means = np.linspace(0.2, 0.0, 6)
    scores = _leaderboard(10, means, spread=0.001)
    scores[[0, 4], 2] = np.nan  # model 2 lacks two tasks
    result = rank_confidence_sets(scores, n_resamples=300)
    assert result.pairwise_tasks
    assert list(result.simultaneous_low) == list(range(1, 7))
    assert list(result.simultaneous_high) == list(range(1, 7))


# --- one task: the within-task draws are the uncertainty ------------------------------------


def _delta_se(r: np.ndarray, n: float) -> np.ndarray:
    """Standard error of a Spearman score by the delta method on Bonett & Wright's z variance."""
    return (1 - r**2) * np.sqrt((1 + r**2 / 2) / (n - 3))


def test_one_task_with_precise_scores_gives_the_true_ranks() -> None:
    scores = np.array([[0.70, 0.85, 0.60, 0.80, 0.75]])
    result = rank_confidence_sets(scores, n=1_000_000, n_resamples=500)
    assert result.uncertainty == "within-task" and result.n_tasks == 1
    assert result.within_task == "fisher-z (independent)"
    assert list(result.rank) == [4, 1, 5, 2, 3]
    for low, high in [
        (result.marginal_low, result.marginal_high),
        (result.simultaneous_low, result.simultaneous_high),
    ]:
        assert list(low) == [4, 1, 5, 2, 3] and list(high) == [4, 1, 5, 2, 3]
    assert result.best_set == ("1",)


def test_one_task_identical_models_span_every_rank() -> None:
    result = rank_confidence_sets(np.full((1, 8), 0.8), n=200, n_resamples=500)
    assert (result.marginal_low == 1).all() and (result.marginal_high == 8).all()
    assert (result.simultaneous_low == 1).all() and (result.simultaneous_high == 8).all()
    assert len(result.best_set) == 8


def test_one_task_two_published_models_separate_exactly_when_the_z_test_does() -> None:
    # Two models: the family is one difference, so the max-|t| critical value is the normal
    # 97.5 % point; the difference's standard error is that of two independent scores.
    r = np.array([0.80, 0.75])
    for n, separated in [(1100, True), (500, False)]:
        t = (r[0] - r[1]) / np.hypot(*_delta_se(r, n))  # 2.57 and 1.73
        assert (t > 2.2) == separated and (t < 1.8) == (not separated)
        result = rank_confidence_sets(r[None], n=n, n_resamples=20_000, seed=3)
        expected = [1, 2] if separated else [1, 1]
        assert list(result.simultaneous_low) == expected
        assert list(result.marginal_high) == ([1, 2] if separated else [2, 2])


def test_one_task_three_published_models_against_a_hand_step_down() -> None:
    # t of the outer pair about 3.6, of the adjacent ones about 1.7 to 1.9: the first step's
    # critical value (max |t| of three dependent differences, about 2.4 by simulation below)
    # separates only the outer pair, the second (two differences, about 2.2) nothing more.
    r = np.array([0.90, 0.87, 0.83])
    n = 400
    se = _delta_se(r, n)
    t = {(j, k): (r[j] - r[k]) / np.hypot(se[j], se[k]) for j, k in [(0, 1), (1, 2), (0, 2)]}
    rng = np.random.default_rng(0)
    z = rng.standard_normal((200_000, 3)) * se  # independent score errors
    d = {(j, k): (z[:, j] - z[:, k]) / np.hypot(se[j], se[k]) for j, k in t}
    first = np.quantile(np.max(np.abs(np.column_stack(list(d.values()))), axis=1), 0.95)
    second = np.quantile(np.max(np.abs(np.column_stack([d[0, 1], d[1, 2]])), axis=1), 0.95)
    assert t[0, 2] > first + 0.5
    assert max(t[0, 1], t[1, 2]) < second - 0.2
    result = rank_confidence_sets(r[None], n=n, n_resamples=20_000, seed=5)
    assert list(result.simultaneous_low) == [1, 1, 2]
    assert list(result.simultaneous_high) == [2, 3, 3]
    assert result.best_set == ("0", "1")


def test_one_task_own_runs_keep_their_joint_draws_beside_fisher_z() -> None:
    # Two own runs on the same items: large common noise, a small but consistent gap; a
    # published model between them, whose error correlation with them is unknown.
    rng = np.random.default_rng(11)
    scores = np.array([[0.800, 0.790, 0.795]])
    common = 0.02 * rng.standard_normal(1000)
    draws = np.full((1000, 1, 3), np.nan)
    draws[:, 0, 0] = 0.800 + common + 0.0005 * rng.standard_normal(1000)
    draws[:, 0, 1] = 0.790 + common + 0.0005 * rng.standard_normal(1000)
    result = rank_confidence_sets(scores, n=500, within_task_draws=draws, n_resamples=1000)
    assert result.within_task == "bootstrap+fisher-z (independent)"
    assert list(result.simultaneous_low) == [1, 2, 1]
    assert list(result.simultaneous_high) == [2, 3, 3]
    # the same replicates with their pairing broken: the own runs no longer separate
    apart = draws.copy()
    apart[:, 0, 1] = rng.permutation(apart[:, 0, 1])
    loose = rank_confidence_sets(scores, n=500, within_task_draws=apart, n_resamples=1000)
    assert list(loose.simultaneous_low) == [1, 1, 1]
    with pytest.raises(UserInputError, match="`n`"):
        rank_confidence_sets(scores, within_task_draws=draws)
    only_own = rank_confidence_sets(scores[:, :2], within_task_draws=draws[:, :, :2])
    assert only_own.within_task == "bootstrap"


def test_one_task_same_seed_same_sets_and_the_unit_is_chosen_explicitly() -> None:
    rng = np.random.default_rng(12)
    scores = rng.uniform(0.7, 0.85, size=(1, 30))
    first = rank_confidence_sets(scores, n=1379, n_resamples=400, seed=7)
    again = rank_confidence_sets(scores, n=1379, n_resamples=400, seed=7)
    for name in ("marginal_low", "marginal_high", "simultaneous_low", "simultaneous_high"):
        assert list(getattr(first, name)) == list(getattr(again, name))
    assert first.best_set == again.best_set
    with pytest.raises(UserInputError, match="uncertainty='within-task'"):
        rank_confidence_sets(scores, n=1379, uncertainty="across-tasks")
    # asked for explicitly on several tasks: the mean score's draws, no task resampled
    two = np.vstack([scores, scores - 0.1])
    within = rank_confidence_sets(two, n=[1379, 1379], uncertainty="within-task", seed=7)
    assert within.uncertainty == "within-task" and within.n_tasks == 2
    assert list(within.rank) == list(first.rank)
    gappy = two.copy()
    gappy[1, 0] = np.nan
    with pytest.raises(UserInputError, match="missing tasks"):
        rank_confidence_sets(gappy, n=[1379, 1379], uncertainty="within-task")
    with pytest.raises(UserInputError, match="uncertainty"):
        rank_confidence_sets(two, n=[1379, 1379], uncertainty="items")


def test_one_task_simultaneous_sets_cover_the_true_ranks() -> None:
    # 200 leaderboards of 20 published models on one task of n = 300 (true scores 0.01 apart,
    # each observed score drawn by Fisher's z): all 20 true ranks in their simultaneous sets in
    # at least 95 % of them, up to three binomial standard errors.
    truth = np.linspace(0.85, 0.66, 20)
    n, reps = 300, 200
    rng = np.random.default_rng(13)
    sd = np.sqrt((1 + truth**2 / 2) / (n - 3))
    true_rank = np.arange(1, 21)
    covered = marginal = 0
    for rep in range(reps):
        observed = np.tanh(np.arctanh(truth) + sd * rng.standard_normal(20))
        result = rank_confidence_sets(observed[None], n=n, n_resamples=500, seed=rep)
        inside_s = (result.simultaneous_low <= true_rank) & (true_rank <= result.simultaneous_high)
        inside_m = (result.marginal_low <= true_rank) & (true_rank <= result.marginal_high)
        covered += bool(inside_s.all())
        marginal += int(inside_m.sum())
    tolerance = 3 * np.sqrt(0.95 * 0.05 / reps)
    assert covered / reps >= 0.95 - tolerance
    assert marginal / (reps * 20) >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / (reps * 20))


# --- adjacent pairs -------------------------------------------------------------------------------


def test_adjacent_counts_separate_two_clear_tiers_only() -> None:
    means = np.array([0.10, 0.10, 0.10, 0.0, 0.0, 0.0])
    scores = _leaderboard(11, means, tasks=10, spread=0.003)
    result = adjacent_separability(scores, nsamples=5000)
    assert result.n_pairs == 5
    gaps = [pair.mean_difference for pair in result.pairs]
    assert all(gap >= 0 for gap in gaps)
    tier_break = int(np.argmax(gaps))
    # Only the pair across the tiers is separable, by both tests.
    assert [pair.bayes_separable for pair in result.pairs] == [
        index == tier_break for index in range(5)
    ]
    assert result.n_separable_bayes == 1
    assert result.pairs[tier_break].p_left > 0.95
    assert result.n_separable_nemenyi <= 1
    assert result.n_separable_either == sum(
        pair.nemenyi_separable or pair.bayes_separable for pair in result.pairs
    )


# --- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: friedman_nemenyi(np.ones((1, 3))), "at least 2 tasks"),
        (lambda: friedman_nemenyi([[1.0, np.nan], [1.0, 2.0]]), "scores"),
        (lambda: friedman_nemenyi(np.ones((3, 2)), models=["a"]), "models"),
        (lambda: rank_confidence_sets(np.ones((3, 1))), "at least 2 models"),
        (lambda: rank_confidence_sets(np.full((3, 2), 5.0), n=[100] * 3), "0-100"),
        (lambda: rank_confidence_sets(np.ones((3, 2)) * 0.5, n=[100, 2, 100]), "`n`"),
        (lambda: rank_confidence_sets(np.ones((3, 2)) * 0.5, n=[100] * 2), "`n`"),
        (lambda: task_score_uncertainty(1.0, 100), "scores"),
        (lambda: task_difference(0.5, 0.4, 100, error_correlation=2), "error_correlation"),
        (lambda: bayesian_signed_rank([1.0, 2.0], [1.0]), "`x`"),
        (lambda: bayesian_signed_rank([1.0, np.nan], [1.0, 2.0]), "at least 2"),
        (lambda: bayesian_signed_rank([1.0, 2.0], [1.0, 2.0], rope=-1), "rope"),
    ],
)
def test_bad_input_names_the_argument(call, message) -> None:
    with pytest.raises(UserInputError, match=message):
        call()


# --- the calibration suite's cross-task family ---------------------------------------------------


def _ranks_module():
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    if str(root) not in sys.path:  # `benchmarks` is a folder of the checkout
        sys.path.insert(0, str(root))
    from benchmarks.calibration import ranks

    return ranks


def test_packaged_table_reports_rank_set_coverage_and_test_sizes() -> None:
    """The committed calibration table holds the cross-task family, and every row meets its
    target up to two Monte Carlo standard errors (coverage >= 95 %, size <= 5 %)."""
    import json
    from importlib import resources

    text = resources.files("sts_extras").joinpath("data/calibration.json").read_text("utf-8")
    rows = json.loads(text)["cross_task"]
    measures = {(row["kind"], row["measure"], row["within_task"]) for row in rows}
    assert ("coverage", "rank set, marginal (worst model)", "fisher-z") in measures
    assert ("coverage", "rank sets, simultaneous (all at once)", "none") in measures
    assert ("coverage", "set of the best holds the true best", "none") in measures
    assert ("size", "Friedman test rejects", "-") in measures
    assert ("size", "Nemenyi separates any adjacent pair", "-") in measures
    assert ("size", "Bayesian signed-rank separates any adjacent pair", "-") in measures
    assert {row["tasks"] for row in rows} == {10}
    for row in rows:
        error = 2 * np.sqrt(0.05 * 0.95 / row["samples"])
        if row["kind"] == "coverage":
            assert row["value"] >= row["target"] - error, row
        else:
            assert row["value"] <= row["target"] + error, row


def test_cross_task_family_is_reproducible() -> None:
    ranks = _ranks_module()
    first = ranks.run_ranks(samples=2, resamples=100, nsamples=1000, shapes=((5, 10),))
    again = ranks.run_ranks(samples=2, resamples=100, nsamples=1000, shapes=((5, 10),))
    assert first == again
    assert "| rank sets, simultaneous (all at once) | 5 x 10 |" in ranks.markdown(first)
