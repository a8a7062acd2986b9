"""The defaults of an adaptive campaign work for every number of items the planner accepts.

The paper's design (alpha = 0.5 over 7 ballots, 990 items) leaves a single item in the last
ballot of a 50-pair benchmark (DSCS's size): 50, 25, 13, 7, 4, 2, 1. A value the user did not give
is derived from the number of items; a value the user gave is used as it is, or refused.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sts_extras.annotation.design import (
    MIN_LAST_BALLOT,
    adaptive_defaults,
    ballot_sizes,
    plan_adaptive,
)
from sts_extras.cli import main
from sts_extras.errors import UserInputError

pytestmark = pytest.mark.filterwarnings("ignore::sts_extras.annotation.design.DesignWarning")

# n_items -> (alpha, n_ballots, ballot sizes, derived)
EXPECTED = {
    10: (0.5, 4, (10, 5, 3, 2), ("n_ballots",)),
    30: (0.5, 5, (30, 15, 8, 4, 2), ("n_ballots",)),
    50: (0.5, 6, (50, 25, 13, 7, 4, 2), ("n_ballots",)),
    131: (0.5, 7, (131, 66, 33, 17, 9, 5, 3), ()),
    1000: (0.5, 7, (1000, 500, 250, 125, 63, 32, 16), ()),
}


def _pairs_file(path, n):
    rows = [f"{i},sentence {i} a,sentence {i} b" for i in range(1, n + 1)]
    path.write_text("id,sentence1,sentence2\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("n_items", sorted(EXPECTED))
def test_the_default_plan_works_for_n_items(n_items):
    alpha, n_ballots, sizes, derived = EXPECTED[n_items]
    plan = plan_adaptive(n_items, m=8)
    assert (plan.alpha, plan.n_ballots, plan.items_per_ballot) == (alpha, n_ballots, sizes)
    assert plan.derived == derived


@pytest.mark.parametrize("n_items", sorted(EXPECTED))
def test_annotate_plan_on_a_pairs_file_works_with_its_defaults(tmp_path, capsys, n_items):
    pairs = _pairs_file(tmp_path / "pairs.csv", n_items)
    ballot = tmp_path / "ballot1.csv"
    argv = ["annotate", "plan", "--pairs", str(pairs), "--m", "8", "--pairs-out", str(ballot)]
    assert main([*argv, "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    alpha, n_ballots, sizes, derived = EXPECTED[n_items]
    assert (plan["alpha"], plan["n_ballots"], plan["items_per_ballot"]) == (
        alpha,
        n_ballots,
        list(sizes),
    )
    assert plan["derived"] == list(derived)
    assert ballot.exists()
    assert main(argv) == 0
    text = capsys.readouterr().out
    if derived:  # the text says so, and why
        assert f"n_b = {n_ballots} derived from the {n_items} items" in text
        assert "keeps at least 2 items in the last ballot" in text
    else:
        assert "derived" not in text


def test_the_papers_design_is_unchanged():
    plan = plan_adaptive(990, m=20)
    assert plan.items_per_ballot == (990, 495, 248, 124, 62, 31, 16)
    assert (plan.n_comparisons, plan.n_item_comparisons, plan.m_top) == (19660, 39320, 140)
    assert plan.derived == ()
    assert plan == plan_adaptive(990, alpha=0.5, n_ballots=7, m=20)


def test_given_values_are_used_as_they_are_or_refused():
    # the old message, for explicit values that leave one item
    with pytest.raises(UserInputError, match=r"alpha` = 0.5 with n_ballots = 7 leaves 1 item"):
        plan_adaptive(50, alpha=0.5, n_ballots=7, m=8)
    plan = plan_adaptive(50, alpha=0.5, n_ballots=3, m=8)
    assert (plan.items_per_ballot, plan.derived) == ((50, 25, 13), ())


def test_alpha_is_derived_when_the_given_n_ballots_needs_it(capsys):
    # 10 items over 7 ballots: 0.5 leaves 1 item; 0.75 is the first step that keeps 2
    plan = plan_adaptive(10, n_ballots=7, m=8)
    assert (plan.alpha, plan.items_per_ballot, plan.derived) == (
        0.75,
        (10, 8, 6, 5, 4, 3, 2),
        ("alpha",),
    )
    assert plan_adaptive(50, n_ballots=6, m=8).alpha == 0.5  # fits: the default stays
    assert main(["annotate", "plan", "--n-items", "10", "--m", "8", "--n-ballots", "7"]) == 0
    out = capsys.readouterr().out
    assert "alpha = 0.75 derived from the 10 items" in out
    assert "annotate score --alpha 0.75" in out  # score checks the selection with the same alpha


def test_n_ballots_is_derived_for_a_given_alpha():
    plan = plan_adaptive(50, alpha=0.3, m=8)
    assert (plan.n_ballots, plan.items_per_ballot, plan.derived) == (
        4,
        (50, 15, 5, 2),
        ("n_ballots",),
    )


def test_a_given_alpha_too_small_for_two_ballots_is_refused():
    with pytest.raises(UserInputError, match=r"`alpha` = 0.1 with n_ballots = 2 leaves 1 item"):
        plan_adaptive(10, alpha=0.1, m=2)


def test_the_smallest_inputs_get_a_plan():
    assert plan_adaptive(3, m=2).items_per_ballot == (3, 2)
    two = plan_adaptive(2, m=2)
    assert (two.alpha, two.items_per_ballot, two.derived) == (0.75, (2, 2), ("n_ballots", "alpha"))


@settings(max_examples=200, deadline=None)
@given(
    n_items=st.integers(min_value=2, max_value=100_000),
    alpha=st.none() | st.floats(min_value=0.3, max_value=0.95),
    n_ballots=st.none() | st.integers(min_value=2, max_value=12),
)
def test_a_missing_value_is_always_derived_to_a_working_plan(n_items, alpha, n_ballots):
    if alpha is not None and n_ballots is not None:
        return  # both given: nothing to derive
    if alpha is not None and ballot_sizes(n_items, alpha, 2)[-1] < MIN_LAST_BALLOT:
        return  # a given alpha that empties even the second ballot is refused (test above)
    derived_alpha, derived_ballots, derived = adaptive_defaults(n_items, alpha, n_ballots)
    plan = plan_adaptive(n_items, alpha=alpha, n_ballots=n_ballots, m=4)
    assert plan.items_per_ballot[-1] >= MIN_LAST_BALLOT
    assert (plan.alpha, plan.n_ballots, plan.derived) == (derived_alpha, derived_ballots, derived)
    assert plan.alpha is not None  # an adaptive plan always has one
    if n_ballots is None:
        assert plan.n_ballots <= 7
        if plan.n_ballots < 7 and "alpha" not in derived:  # the largest that fits
            assert ballot_sizes(n_items, plan.alpha, plan.n_ballots + 1)[-1] < MIN_LAST_BALLOT
    if alpha is None:
        assert plan.alpha in (0.5, 0.55, 0.6, 0.65, 0.7, 0.75)


def test_annotate_simulate_works_with_its_defaults_on_few_items(tmp_path, capsys):
    z = tmp_path / "z.txt"
    z.write_text("\n".join(f"{value / 50:.3f}" for value in range(-25, 25)) + "\n")
    argv = ["annotate", "simulate", "--z", str(z), "--reps", "1", "--m", "4", "--voters", "5"]
    assert main(argv) == 0
    assert "n_b = 6 (n_ballots derived from the 50 items)" in capsys.readouterr().out
