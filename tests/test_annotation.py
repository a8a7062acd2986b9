"""Specification of adaptive pairwise vote collection: planning, scoring, voter model.

Lombardo et al. (2020), "Top-Rank-Focused Adaptive Vote Collection for the Evaluation of
Domain-Specific Semantic Models", EMNLP: §2.4-2.7 (Eq. 1-6) and §4.1 (Eq. 11).
"""

from __future__ import annotations

import doctest
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from sts_extras.annotation import design, scoring, voters
from sts_extras.annotation.design import (
    DesignWarning,
    ballot_sizes,
    draw_pairs,
    plan_adaptive,
    plan_uniform,
)
from sts_extras.annotation.scoring import rescale_scores, score_votes
from sts_extras.annotation.voters import sample_voters, simulate_votes, underlying_similarity


@pytest.mark.parametrize("module", [design, scoring, voters])
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


# --------------------------------------------------------------------------------------------
# planning: Eq. 2-4 and §2.7
# --------------------------------------------------------------------------------------------
def test_paper_design_counts_eq2_to_eq4():
    # §4.2: 990 items, M = 20, alpha = 0.5, n_b = 7
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the paper's design breaks no heuristic of §2.7
        plan = plan_adaptive(990, alpha=0.5, n_ballots=7, m=20)
    assert plan.items_per_ballot == (990, 495, 248, 124, 62, 31, 16)  # Eq. 2
    assert plan.pairs_per_ballot == (9900, 4950, 2480, 1240, 620, 310, 160)
    assert plan.n_comparisons == 19660  # Eq. 3, pairs
    assert plan.n_item_comparisons == 39320  # the paper's "N_comp = 39000" (§4.2)
    assert_allclose(plan.n_comparisons_approx, (1 - 0.5**7) / (2 * 0.5) * 20 * 990, rtol=1e-15)
    assert plan.m_top == 140  # Eq. 4: n_b M
    assert_allclose(plan.m_unif, 2 * 19660 / 990, rtol=1e-15)
    assert plan.m_top_approx is not None  # adaptive
    assert_allclose(plan.m_top_approx, 0.5 * 7 * 2 * 19660 / 990, rtol=1e-15)
    assert plan.advice == ()


def test_uniform_baseline_with_the_same_budget_gives_40_votes_per_item():
    plan = plan_uniform(990, n_comparisons=19660)
    assert (plan.m, plan.n_comparisons, plan.n_ballots, plan.alpha) == (40, 19800, 1, None)


def test_budget_and_m_are_inverse():
    assert plan_adaptive(990, n_comparisons=19660).m == 20
    assert plan_adaptive(990, n_comparisons=19700).m == 20  # nearest integer M


@pytest.mark.parametrize(
    "n_items, alpha, n_ballots, m",
    [(990, 0.5, 7, 20), (1000, 0.3, 4, 36), (57, 0.6, 3, 33), (31, 0.4, 2, 7)],
)
def test_eq3_counts_every_appearance(n_items, alpha, n_ballots, m):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DesignWarning)
        plan = plan_adaptive(n_items, alpha=alpha, n_ballots=n_ballots, m=m)
    sizes = ballot_sizes(n_items, alpha, n_ballots)
    assert plan.items_per_ballot == sizes
    # each pair shows two items; odd M x odd N^(k) adds one pair (footnote 6)
    assert plan.n_comparisons == sum((m * size + 1) // 2 for size in sizes)
    if m % 2 == 0:
        assert plan.n_comparisons == m * sum(sizes) // 2


def test_rounding_is_half_up():
    assert ballot_sizes(31, 0.5, 2) == (31, 16)
    assert ballot_sizes(5, 0.5, 3) == (5, 3, 2)  # 2.5 -> 3, 1.5 -> 2


def test_warnings_explain_the_heuristics_with_numbers():
    with pytest.warns(DesignWarning) as record:
        plan = plan_adaptive(100, alpha=0.8, n_ballots=4, m=3)
    messages = [str(item.message) for item in record]
    assert plan.advice == tuple(messages)
    assert any("51 of 100 items" in text and "0.464" in text for text in messages)  # 0.1^(1/3)
    assert any("M_top = n_b * M = 12 < 100" in text and "6250" in text for text in messages)
    assert any("M = 3 is odd" in text for text in messages)
    with pytest.warns(DesignWarning, match="n_ballots = 11 > 10"):
        plan_adaptive(100000, alpha=0.5, n_ballots=11, m=20)


@pytest.mark.parametrize("alpha", [0.0, 1.0, 1.5, -0.2])
def test_alpha_outside_the_open_unit_interval_is_an_error(alpha):
    with pytest.raises(ValueError, match="alpha"):
        plan_adaptive(990, alpha=alpha, m=20)


def test_parameter_errors_name_the_rule():
    with pytest.raises(ValueError, match=r"n_ballots.*at least 2"):
        plan_adaptive(990, n_ballots=1, m=20)
    with pytest.raises(ValueError, match=r"leaves 1 item\(s\) in the last ballot.*= 0\.200"):
        plan_adaptive(10, alpha=0.1, n_ballots=2, m=2)
    with pytest.raises(ValueError, match="exactly one of `m`"):
        plan_adaptive(990)
    with pytest.raises(ValueError, match="exactly one of `m`"):
        plan_adaptive(990, m=20, n_comparisons=19660)
    with pytest.raises(TypeError, match="`m` must be an integer"):
        plan_adaptive(990, m=2.5)  # type: ignore[arg-type]  # deliberately wrong type


@pytest.mark.parametrize("n_items", [2, 3, 16, 31, 990])
@pytest.mark.parametrize("m", [1, 2, 7, 20])
def test_each_item_appears_m_times_per_ballot(n_items, m):
    pairs = draw_pairs(n_items, m, seed=3)
    counts = np.bincount(pairs.ravel(), minlength=n_items)
    assert pairs.shape == ((n_items * m + 1) // 2, 2)
    assert np.all(pairs[:, 0] != pairs[:, 1])
    if (n_items * m) % 2 == 0:
        assert_array_equal(counts, m)
    else:  # odd M x odd N: exactly one item appears M + 1 times (footnote 6)
        assert sorted(np.unique(counts, return_counts=True)[1].tolist()) == [1, n_items - 1]
        assert counts.max() == m + 1 and counts.min() == m


def test_pairs_are_seeded_and_keep_labels():
    labels = [f"item-{i}" for i in range(11)]
    first = draw_pairs(labels, 4, seed=7)
    assert_array_equal(first, draw_pairs(labels, 4, seed=7))
    assert not np.array_equal(first, draw_pairs(labels, 4, seed=8))
    assert set(first.ravel().tolist()) == set(labels)
    with pytest.raises(ValueError, match="distinct"):
        draw_pairs(["a", "a", "b"], 2)


# --------------------------------------------------------------------------------------------
# scoring: Eq. 1, 5, 6
# --------------------------------------------------------------------------------------------
def test_rescaling_matches_a_hand_computed_case():
    # 1 - x = (0, .5, .75, 1), 1 - ybar = (.05, .1, .3, .4):
    # b = (.05 + .225 + .4) / (.25 + .5625 + 1) = .675 / 1.8125
    result = rescale_scores([1.0, 0.5, 0.25, 0.0], [0.95, 0.9, 0.7, 0.6])
    slope = 0.675 / 1.8125
    assert_allclose(result.slope, slope, rtol=1e-14)
    assert_allclose(result.scores, 1 - slope + slope * np.array([1, 0.5, 0.25, 0]), rtol=1e-14)


def test_rescaling_is_the_constrained_least_squares_line_with_f_1_equal_1():
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, 50)
    previous = np.clip(x + rng.normal(0, 0.1, 50), 0, 1)
    result = rescale_scores(x, previous)
    # the line through (1, 1): 1 - ybar = b (1 - x), fitted by least squares
    slope = np.linalg.lstsq((1 - x)[:, None], 1 - previous, rcond=None)[0][0]
    assert_allclose(result.slope, slope, rtol=1e-12)
    assert_allclose(rescale_scores([1.0, 0.3], [0.2, 0.1]).scores[0], 1.0, rtol=0)  # f(1) = 1
    with pytest.raises(ValueError, match="x = 1"):
        rescale_scores([1.0, 1.0], [0.5, 0.5])


def _two_ballot_votes():
    # ballot 1: round robin of A, B, C, D, each pair once; ties count half (footnote 4)
    ballot1 = [("A", "B", "A"), ("A", "C", "A"), ("A", "D", "A"), ("B", "C", "B"),
               ("B", "D", "B"), ("C", "D", "tie")]  # fmt: skip
    # alpha = 0.5 keeps round(0.5 * 4) = 2 items: A (x = 1) and B (x = 2/3)
    ballot2 = [("A", "B", "B"), ("B", "A", "B"), ("A", "B", "A"), ("A", "B", "B")]
    rows = [(*vote, 1) for vote in ballot1] + [(*vote, 2) for vote in ballot2]
    return pd.DataFrame(rows, columns=["item_a", "item_b", "winner", "ballot"])


def test_borda_running_average_by_hand():
    result = score_votes(_two_ballot_votes(), alpha=0.5)
    table = result.table.set_index("item")
    # Eq. 1: x^(1) = A 3/3, B 2/3, C 0.5/3, D 0.5/3
    x1 = table["x_1"].loc[["A", "B", "C", "D"]]
    assert_allclose(x1, [1, 2 / 3, 0.5 / 3, 0.5 / 3], rtol=1e-15)
    # ballot 2: A wins 1 of 4, B 3 of 4
    x2 = np.array([0.25, 0.75])
    y1 = np.array([1.0, 2 / 3])
    slope = ((1 - x2) @ (1 - y1)) / ((1 - x2) @ (1 - x2))  # Eq. 6
    y2 = 1 - slope + slope * x2
    assert_allclose(result.slopes, [slope], rtol=1e-14)
    assert_allclose(table["score"].loc[["A", "B"]], (y1 + y2) / 2, rtol=1e-14)  # Eq. 5
    assert_allclose(table["score"].loc[["C", "D"]], [1 / 6, 1 / 6], rtol=1e-15)
    # C before D: equal scores are ordered by first appearance
    assert table["rank"].loc[["A", "B", "C", "D"]].tolist() == [1, 2, 3, 4]
    assert table["votes"].loc[["A", "B", "C", "D"]].tolist() == [7, 7, 3, 3]
    assert table["ties"].loc[["A", "B", "C", "D"]].tolist() == [0, 0, 1, 1]
    assert table["wins"].loc[["A", "B", "C", "D"]].tolist() == [4, 5, 0, 0]
    assert table["last_ballot"].loc[["A", "B", "C", "D"]].tolist() == [2, 2, 1, 1]
    assert result.ballot_sizes == (4, 2)
    assert result.next_items == ()  # round(0.5 * 2) = 1 < 2 items: no further ballot
    published = score_votes(_two_ballot_votes(), alpha=0.5, update="published-code")
    assert_allclose(published.table.set_index("item")["score"].loc[["A", "B"]], y2, rtol=1e-14)


def test_equal_scores_keep_item_order_so_ranks_are_a_permutation():
    votes = {"item_a": ["p", "r"], "item_b": ["q", "s"], "winner": ["p", "r"]}
    table = score_votes(votes, alpha=None).table
    assert table["item"].tolist() == ["p", "r", "q", "s"]
    assert table["rank"].tolist() == [1, 2, 3, 4]
    table = score_votes(votes, alpha=None, items=["s", "r", "q", "p"]).table
    assert table["item"].tolist() == ["r", "p", "s", "q"]


def test_next_ballot_is_the_top_round_alpha_n_by_running_mean():
    votes = pd.DataFrame(
        [(a, b, min(a, b)) for a, b in itertools.combinations(range(10), 2)],
        columns=["item_a", "item_b", "winner"],
    )
    result = score_votes(votes, alpha=0.3)
    assert result.next_items == (0, 1, 2)  # round(0.3 * 10) = 3; lower number always wins


def test_unknown_items_and_bad_winners_name_the_row():
    votes = _two_ballot_votes()
    with pytest.raises(ValueError, match=r"row 2 .*`item_b` = 'D' is not one of the 3 known"):
        score_votes(votes, items=["A", "B", "C"])
    bad = votes.copy()
    bad.loc[4, "winner"] = "C"
    with pytest.raises(ValueError, match=r"row 4 .*`winner` = 'C' is neither item_a"):
        score_votes(bad)
    bad = votes.copy()
    bad.loc[2, "item_b"] = "A"
    with pytest.raises(ValueError, match=r"row 2 .*compared with itself"):
        score_votes(bad)
    bad = votes.copy()
    bad.loc[0, "winner"] = None
    with pytest.raises(ValueError, match=r"row 0 .*neither"):
        score_votes(bad)


def test_ballot_with_items_that_were_not_selected_is_an_error():
    votes = _two_ballot_votes()
    votes.loc[7, ["item_a", "winner"]] = ["C", "C"]  # C was 3rd of 4, only 2 selected
    with pytest.raises(ValueError, match=r"row 7 .*item 'C' is in ballot 2 but was not selected"):
        score_votes(votes, alpha=0.5)
    score_votes(votes, alpha=None)  # no selection rule: accepted


def test_a_selected_item_without_votes_keeps_its_score_with_a_warning():
    rows = [(a, b, min(a, b), 1) for a, b in itertools.combinations(range(6), 2)]
    rows += [(0, 1, 1, 2), (1, 0, 0, 2)]  # round(0.5 * 6) = 3 selected, item 2 gets no vote
    votes = pd.DataFrame(rows, columns=["item_a", "item_b", "winner", "ballot"])
    with pytest.warns(UserWarning, match="Ballot 2 has votes for 2 of the 3 items selected"):
        result = score_votes(votes, alpha=0.5)
    table = result.table.set_index("item")
    assert table.loc[2, "last_ballot"] == 1
    # its ballot-1 Borda score
    assert_allclose(table["score"].to_numpy()[table.index == 2], 3 / 5, rtol=1e-15)


def test_too_few_items_for_the_next_ballot_is_an_error():
    votes = _two_ballot_votes()
    with pytest.raises(ValueError, match=r"round\(alpha \* 4\) = 1 < 2"):
        score_votes(votes, alpha=0.3)


def test_other_table_errors():
    votes = _two_ballot_votes()
    with pytest.raises(ValueError, match="alpha"):
        score_votes(votes, alpha=1.0)
    with pytest.raises(ValueError, match="lacks column"):
        score_votes(votes.drop(columns="winner"))
    bad = votes.astype({"ballot": float})
    bad.loc[0, "ballot"] = 1.5
    with pytest.raises(ValueError, match=r"row 0 .*not an integer"):
        score_votes(bad)
    bad = votes.copy()
    bad["ballot"] = bad["ballot"].replace(2, 3)
    with pytest.raises(ValueError, match=r"without gaps; ballot\(s\) \[2\]"):
        score_votes(bad)
    with pytest.raises(TypeError, match="DataFrame"):
        score_votes([("A", "B", "A")])  # type: ignore[arg-type]  # deliberately wrong type
    with pytest.warns(UserWarning, match="1 of the 5 `items` have no votes"):
        result = score_votes(votes, items=["A", "B", "C", "D", "E"])
    assert result.unvoted_items == ("E",)


# --------------------------------------------------------------------------------------------
# voter model: §4.1
# --------------------------------------------------------------------------------------------
def test_underlying_similarities_of_section_4_1_1():
    z = underlying_similarity(990, "exponential")
    assert_allclose(z[[0, -1]], [2 * np.exp(-1 / 990) - 1, 2 * np.exp(-1) - 1], rtol=1e-15)
    assert (z < 0).sum() == 990 - int(990 * np.log(2))  # negative beyond i = N ln 2
    z = underlying_similarity(990, "power_law")
    assert_allclose(z[[0, -1]], [2 / (1 + np.sqrt(1 / 990)) - 1, 0.0], atol=1e-15)
    with pytest.raises(ValueError, match="distribution"):
        underlying_similarity(10, "gaussian")


def test_noiseless_voters_recover_the_theoretical_ranking_exactly():
    # relatedness-driven (|z|) on the exponential distribution, whose ranking is NOT item order
    z = underlying_similarity(60, "exponential")
    panel = sample_voters(z, n_voters=7, sigma_range=(0, 0), epsilon_range=(0, 0), seed=1)
    pairs = np.array(list(itertools.combinations(range(60), 2)))  # round robin
    outcome = simulate_votes(panel, pairs, seed=2)
    votes = pd.DataFrame({"item_a": pairs[:, 0], "item_b": pairs[:, 1]})
    votes["winner"] = np.where(outcome.points_a == 1.0, pairs[:, 0], pairs[:, 1])
    ranked = score_votes(votes, alpha=None).table["item"].to_numpy()
    assert_array_equal(ranked, np.argsort(-np.abs(z), kind="stable"))
    assert not np.array_equal(ranked, np.arange(60))


def test_opinions_follow_eq_11():
    z = np.full(20000, 0.5)
    panel = sample_voters(z, n_voters=3, sigma_range=(0.1, 0.1), relatedness=False, seed=0)
    assert_allclose(panel.opinions.std(axis=1), 0.1 * (1 - 0.5**2), rtol=0.03)  # sigma*(1 - z^2)
    panel = sample_voters(z, n_voters=3, sigma_range=(0.1, 0.1), sigma_form="z(1-z)", seed=0)
    assert_allclose(panel.opinions.std(axis=1), 0.1 * 0.5 * 0.5, rtol=0.03)
    wide = sample_voters(np.linspace(-1, 1, 501), n_voters=50, sigma_range=(0.5, 0.5), seed=0)
    assert wide.opinions.min() >= 0.0 and wide.opinions.max() <= 1.0  # |F(.)|
    narrow = sample_voters([-0.9, 0.9], n_voters=5, sigma_range=(0, 0), relatedness=False)
    assert_array_equal(narrow.opinions, [[-0.9, 0.9]] * 5)


def test_oversight_probability():
    panel = sample_voters([0.9, 0.1], n_voters=10, sigma_range=(0, 0), epsilon_range=(0.2, 0.2))
    pairs = np.tile([0, 1], (20000, 1))
    outcome = simulate_votes(panel, pairs, seed=5)
    assert_allclose(outcome.oversight.mean(), 0.2, atol=0.01)
    assert_array_equal(outcome.points_a == 0.0, outcome.oversight)
    assert_array_equal(np.bincount(outcome.voter), 2000)  # voters equally loaded


def test_voter_model_is_seeded_and_validated():
    z = underlying_similarity(50, "power_law")
    assert_array_equal(sample_voters(z, seed=4).opinions, sample_voters(z, seed=4).opinions)
    with pytest.raises(ValueError, match=r"\[-1, 1\].*index 1"):
        sample_voters([0.5, 1.5])
    with pytest.raises(ValueError, match="sigma_range"):
        sample_voters(z, sigma_range=(0.3, 0.1))
    with pytest.raises(ValueError, match="epsilon_range"):
        sample_voters(z, epsilon_range=(0.1, 0.6))
    with pytest.raises(ValueError, match="sigma_form"):
        sample_voters(z, sigma_form="1-z")
    with pytest.raises(ValueError, match="pairs"):
        simulate_votes(sample_voters(z), [[0, 50]])


def test_a_pair_one_annotator_judged_twice_is_no_repeated_comparison():
    """Regression: a pair repeated in a ballot and answered twice (differently) by one
    annotator made the Krippendorff α computation raise "more than one value in the domain"
    (a traceback in ``annotate score``); α counts comparisons judged by two annotators."""
    from sts_extras.annotation.agreement import annotator_agreement

    votes = pd.DataFrame(
        {
            "item_a": ["p1", "p1", "p2", "p3"],
            "item_b": ["p2", "p2", "p3", "p1"],
            "winner": ["p1", "p2", "p3", "p1"],
            "worker_id": ["w1", "w1", "w2", "w3"],
        }
    )
    result = annotator_agreement(votes)
    assert result.alpha is None and result.n_repeated == 0
    # a second annotator on the same pair makes it a repeated comparison
    more = pd.concat([votes, votes.iloc[[0]].assign(worker_id="w2")], ignore_index=True)
    assert annotator_agreement(more).n_repeated == 1
