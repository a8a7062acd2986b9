"""Specification of the simulated campaigns of Lombardo et al. (2020), §4.2 and Table 2.

Table 2 was produced by the authors' published simulation, whose voter noise and score update
differ from the paper's text (see ``PUBLISHED_CODE_SETTINGS``); with those settings the
trustworthy cells (every Power-law cell, the Exponential tau_w) are reproduced. The paper's
Exponential rho_w, rho and tau come from a misaligned comparison in the authors' code and are
not targets. Tolerance: two of the paper's standard deviations (over 50 runs) on our mean over
20 runs (each of our means is a fraction of a paper sd away at 50 runs).
"""

from __future__ import annotations

import doctest
from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from sts_extras.annotation import simulation
from sts_extras.annotation.simulation import (
    PUBLISHED_CODE_SETTINGS,
    TABLE2,
    simulate_campaigns,
    trace_adaptive_campaign,
)

REPS = 20

# small designs in these tests break the §2.7 heuristics on purpose
pytestmark = pytest.mark.filterwarnings("ignore::sts_extras.annotation.design.DesignWarning")


@pytest.fixture(scope="module")
def published_power_law():
    return simulate_campaigns("power_law", n_reps=REPS, seed=1, **PUBLISHED_CODE_SETTINGS)


@pytest.fixture(scope="module")
def published_exponential():
    return simulate_campaigns("exponential", n_reps=REPS, seed=2, **PUBLISHED_CODE_SETTINGS)


def test_docstring_examples_run():
    result = doctest.testmod(simulation, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_table2_power_law_row_is_reproduced(published_power_law):
    summary = published_power_law.summary()
    for approach in ("uniform", "adaptive"):
        for metric in ("rho_w", "tau_w", "spearman", "kendall"):
            mean, sd = TABLE2["power_law"][approach][metric]
            assert_allclose(
                summary[approach][metric]["mean"], mean, rtol=0, atol=2 * sd,
                err_msg=f"power law, {approach}, {metric}",
            )  # fmt: skip


def test_table2_exponential_tau_w_is_reproduced(published_exponential):
    summary = published_exponential.summary()
    for approach in ("uniform", "adaptive"):
        mean, sd = TABLE2["exponential"][approach]["tau_w"]
        assert_allclose(summary[approach]["tau_w"]["mean"], mean, rtol=0, atol=2 * sd)


def test_exponential_rho_and_tau_are_those_of_a_correct_alignment(published_exponential):
    # the published .81 / .63 come from correlating an item -> rank list with a position -> item
    # list; aligned item by item, the exponential behaves like the power law (~.97 / ~.85)
    summary = published_exponential.summary()
    for approach in ("uniform", "adaptive"):
        assert summary[approach]["spearman"]["mean"] > 0.95
        assert summary[approach]["kendall"]["mean"] > 0.82
    assert summary["adaptive"]["rho_w"]["mean"] > 0.97  # published (misaligned): .9452


def test_the_papers_qualitative_claims_hold_under_the_text_model():
    # §4.2: the adaptive approach raises rho_w and tau_w "with no relevant changes" in rho, tau
    result = simulate_campaigns("power_law", n_reps=10, seed=3).summary()
    uniform, adaptive = result["uniform"], result["adaptive"]
    assert adaptive["rho_w"]["mean"] > uniform["rho_w"]["mean"] + 0.08
    assert adaptive["tau_w"]["mean"] > uniform["tau_w"]["mean"] + 0.4
    assert abs(adaptive["spearman"]["mean"] - uniform["spearman"]["mean"]) < 0.05
    # ... but the text's voters (sigma*(1 - z^2), sigma* in [0.02, 0.2]) are noisier than the
    # published code's, so the overall rank accuracy is below the published .9713
    assert uniform["spearman"]["mean"] < 0.9713 - 10 * 0.0013


def test_same_seed_same_numbers():
    kwargs: dict[str, Any] = dict(n_reps=3, n_items=120, m=10, n_ballots=4, seed=11)
    first = simulate_campaigns("exponential", **kwargs)
    assert first.values == simulate_campaigns("exponential", **kwargs).values
    assert first.values != simulate_campaigns("exponential", **{**kwargs, "seed": 12}).values
    one = trace_adaptive_campaign(n_items=120, m=10, n_ballots=4, seed=5)
    two = trace_adaptive_campaign(n_items=120, m=10, n_ballots=4, seed=5)
    assert_array_equal(one.final_scores, two.final_scores)


def test_result_layout_and_plans(published_power_law):
    result = published_power_law
    assert result.adaptive_plan.n_comparisons == 19660
    assert (result.uniform_plan.m, result.uniform_plan.n_comparisons) == (40, 19800)
    assert set(result.values) == {"uniform", "adaptive"}
    assert all(len(values) == REPS for values in result.values["adaptive"].values())
    summary = result.summary()
    assert set(summary["uniform"]["rho_w"]) == {"mean", "sd"}
    assert_allclose(
        summary["uniform"]["tau_w"]["sd"], np.std(result.values["uniform"]["tau_w"], ddof=1)
    )
    text = result.format_table()
    assert "(paper)" in text and "0.9713" in text


def test_user_given_similarities():
    z = np.linspace(0.9, -0.3, 80)
    result = simulate_campaigns(z=z, n_reps=2, m=10, n_ballots=3, seed=0)
    assert result.distribution == "custom"
    assert result.adaptive_plan.n_items == 80
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        simulate_campaigns(z=[0.2, 1.2, 0.1], n_reps=1, m=2, n_ballots=2)


def test_trace_holds_each_ballot():
    trace = trace_adaptive_campaign("exponential", n_items=200, m=10, n_ballots=4, seed=0)
    present = [int(np.sum(~np.isnan(x))) for x in trace.raw_scores]
    assert present == [200, 100, 50, 25]
    assert sorted(trace.estimated_rank.tolist()) == list(range(1, 201))
    assert sorted(trace.theoretical_rank.tolist()) == list(range(1, 201))
    assert len(trace.slopes) == 3 and all(0 < b <= 1 for b in trace.slopes)  # footnote 7


def test_plot_like_figure_4(tmp_path):
    from matplotlib.figure import Figure

    from sts_extras.cli.annotate_plot import plot_ballot_scores

    trace = trace_adaptive_campaign(n_items=100, m=10, n_ballots=3, seed=0)
    figure = plot_ballot_scores(trace, n_ballots_shown=2)
    assert isinstance(figure, Figure)  # no `ax` given: a new figure, not a SubFigure
    assert len(figure.axes[0].collections) == 3  # x^(1), x^(2), ybar
    figure.savefig(tmp_path / "fig4.png")
    assert (tmp_path / "fig4.png").stat().st_size > 0


def test_simulation_parameter_errors():
    with pytest.raises(ValueError, match="distribution"):
        simulate_campaigns("uniform", n_reps=1)
    with pytest.raises(ValueError, match="update"):
        simulate_campaigns(n_reps=1, update="code")
    with pytest.raises(ValueError, match="n_reps"):
        simulate_campaigns(n_reps=0)
