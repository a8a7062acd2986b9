"""The all-pairs part of the leaderboard on synthetic scores: the comparisons with the baseline
are pairs of the shared bootstrap with their one decision, failed models are left out, groups
follow the pairs' decisions, the CLI help and the CSV columns."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_allclose

from sts_extras.leaderboard import ModelTaskStats, TaskScores, score_leaderboard
from sts_extras.leaderboard.reports.json_report import to_json_dict
from sts_extras.leaderboard.reports.markdown import to_markdown
from sts_extras.leaderboard.scoring import inseparable_groups
from sts_extras.leaderboard.settings import RunSettings
from sts_extras.stats.bootstrap import bootstrap_correlation_difference
from sts_extras.stats.model_comparison import compare_models


def _task(name: str = "toy", seed: int = 4, n: int = 80) -> TaskScores:
    rng = np.random.default_rng(seed)
    gold = rng.uniform(0, 5, n)
    noise = {"a": 0.8, "b": 1.0, "c": 1.6, "d": 3.0}
    return TaskScores(
        name=name,
        gold=gold,
        score_range=(0.0, 5.0),
        predictions={model: gold + rng.normal(0, s, n) for model, s in noise.items()},
        failures={"gone": "RuntimeError: boom"},
    )


def test_baseline_columns_are_the_shared_pairs():
    task = _task()
    result = score_leaderboard(
        [task], ["c", "a", "b", "d"], baseline="c", settings=RunSettings(n_resamples=1000, seed=2)
    )
    pairwise = result.pairwise["toy"]
    assert pairwise.models == ("a", "b", "c", "d")  # table order
    for model in ("a", "b", "d"):  # above and below the baseline
        item = result.comparison("toy", model)
        assert item is not None and item.delta is not None
        assert item.confidence_interval is not None
        pair = pairwise.pair(model, "c")
        sign = 1.0 if pair.model1 == model else -1.0
        # the pair's interval, oriented model - baseline, at the pair's own level
        low, high = sorted(sign * np.asarray(pair.confidence_interval))
        assert_allclose(
            [item.delta, item.confidence_interval.low, item.confidence_interval.high],
            [sign * pair.delta, low, high],
            atol=1e-12,
        )
        assert item.confidence_level == pair.confidence_level
        assert item.method == pairwise.method == result.pairwise["toy"].method
        if pairwise.method in (
            "adjusted-percentile",
            "percentile",
            "BCa",
        ):  # the bootstrap of the pair
            one = bootstrap_correlation_difference(  # in the pair's order, better model first
                task.predictions[pair.model1],
                task.predictions[pair.model2],
                task.gold,
                n_resamples=1000,
                seed=2,
                method=pairwise.method,
                confidence_level=pair.confidence_level,
            )
            assert_allclose(
                [pair.delta, *pair.confidence_interval],
                [one.delta, *one.confidence_interval],
                atol=1e-12,
            )
        # one decision: the pair's, adjusted over all pairs of the task
        assert item.pvalue == pair.pvalue and item.pvalue_adjusted == pair.pvalue_adjusted
        assert item.significant == pair.significant == (low > 0 or high < 0)
        assert item.statistic == pytest.approx(sign * pair.statistic)
        # the two decisions of sts-extras 0.3 are gone (no shims: it never shipped)
        assert not hasattr(item, "bca_significant") and not hasattr(item, "holm_significant")
    rows: dict[str, Any] = {row.model: row for row in result.stats}
    assert [(rows[m].rank_low, rows[m].rank_high) for m in pairwise.models] == list(
        zip(pairwise.rank_low.tolist(), pairwise.rank_high.tolist())
    )


def test_failed_models_are_left_out_of_the_comparisons():
    task = _task()
    with_failure = score_leaderboard(
        [task], ["a", "b", "c", "d", "gone"], baseline="d", settings=RunSettings(n_resamples=1000)
    )
    without = compare_models(dict(task.predictions), task.gold, n_resamples=1000, seed=0)
    pairwise = with_failure.pairwise["toy"]
    assert "gone" not in pairwise.models and len(pairwise.pairs) == 6
    assert_allclose(pairwise.rank_low, without.rank_low)
    assert [p.pvalue_adjusted for p in pairwise.pairs] == [p.pvalue_adjusted for p in without.pairs]
    gone = next(row for row in with_failure.stats if row.model == "gone")
    assert gone.rank is None and not hasattr(gone, "rank_low")
    assert (
        "Left out of the comparisons and rank intervals (no usable scores): gone."
        in to_markdown(with_failure)
    )


def test_one_scored_model_has_a_certain_rank_and_no_pairs():
    task = _task()
    only = TaskScores(
        name="one", gold=task.gold, score_range=(0.0, 5.0), predictions={"a": task.predictions["a"]}
    )
    result = score_leaderboard(
        [only], ["a", "b"], baseline="a", settings=RunSettings(n_resamples=1000)
    )
    row = next(row for row in result.stats if row.model == "a")
    assert isinstance(row, ModelTaskStats)
    assert (row.rank, row.rank_low, row.rank_high) == (1, 1, 1)
    record = to_json_dict(result)["tasks"][0]
    assert record["pairwise"] == [] and record["min_detectable_delta"] is None
    assert result.mean_rank is None


def test_mean_rank_needs_the_same_models_in_every_task():
    tasks = [_task("one", 4), _task("two", 5)]
    result = score_leaderboard(
        tasks, ["a", "b", "c", "d"], baseline="d", settings=RunSettings(n_resamples=1000)
    )
    assert result.mean_rank is not None and result.mean_rank.n_tasks == 2
    broken = TaskScores(
        name="two",
        gold=tasks[1].gold,
        score_range=(0.0, 5.0),
        predictions={k: v for k, v in tasks[1].predictions.items() if k != "a"},
    )
    result = score_leaderboard(
        [tasks[0], broken],
        ["a", "b", "c", "d"],
        baseline="d",
        settings=RunSettings(n_resamples=1000),
    )
    assert result.mean_rank is None
    assert "Not computed: the tasks do not rank the same models" in to_markdown(result)


def test_groups_are_maximal_runs_without_a_separated_pair():
    task = _task()
    comparison = compare_models(dict(task.predictions), task.gold, n_resamples=1000)
    # by default two models are separated by their pair's one decision (the table's dagger)
    groups = inseparable_groups(comparison)
    separated = {frozenset((p.model1, p.model2)) for p in comparison.pairs if p.significant}
    assert separated == {
        frozenset((p.model1, p.model2))
        for p in comparison.pairs
        if p.confidence_interval.low > 0 or p.confidence_interval.high < 0
    }
    for group in groups:
        assert not any(frozenset((x, y)) in separated for x in group for y in group if x != y)
    assert inseparable_groups(comparison, alpha=0.05) == groups  # p_adj < 0.05: the same
    assert inseparable_groups(comparison, alpha=0.0) == [comparison.models]  # none below 0
    assert inseparable_groups(comparison, alpha=0.999999) == []


def test_help_lists_every_method_and_adjustment():
    import argparse

    from sts_extras.cli.leaderboard import add_arguments
    from sts_extras.stats.model_comparison import COMPARISON_METHODS
    from sts_extras.stats.multiple import ADJUST_METHODS

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    options = {action.dest: action.help for action in parser._actions}
    assert options["method"] is not None and options["adjust"] is not None
    assert all(method in options["method"] for method in COMPARISON_METHODS)
    assert "(default: auto)" in options["method"]
    assert all(method in options["adjust"] for method in ADJUST_METHODS)


def test_csv_columns_carry_one_decision_the_method_and_the_adjustment():
    from sts_extras.leaderboard.reports.csv_report import CSV_COLUMNS, csv_header

    # fixed columns whatever was run: the method and adjustment are columns of their own
    assert csv_header({"method": "meng1992", "adjust": "holm"}) == CSV_COLUMNS
    assert csv_header({"method": "auto", "adjust": "fdr_bh"}) == CSV_COLUMNS
    assert {
        "ci_low",
        "ci_high",
        "significant",
        "confidence_level",
        "method",
        "adjust",
        "pvalue",
        "pvalue_adjusted",
        "measured_size",
        "measured_coverage",
        "calibrated",
    } <= set(CSV_COLUMNS)
    assert not {"bca_significant", "holm_significant", "p_holm", "z_meng1992"} & set(CSV_COLUMNS)
