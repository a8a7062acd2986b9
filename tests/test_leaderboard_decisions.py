"""One decision per pair, everywhere (issue 31, item 3): every report shows, for each compared
pair, the interval whose exclusion of 0 is the decision (adjusted over all pairs of the task) and
ONE mark, †, exactly on the significant pairs; the Markdown, HTML, LaTeX, CSV, JSON and the
figures agree pair by pair. Each task names the method it used and what the calibration suite
measured for it at the task's n, and says so when it is not calibrated."""

from __future__ import annotations

import csv
import dataclasses
import html
import json
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sts_extras.leaderboard import LeaderboardResult, TaskScores, score_leaderboard
from sts_extras.leaderboard.reports import figures as figures_module
from sts_extras.leaderboard.reports import latex, tables
from sts_extras.leaderboard.reports.csv_report import write_csv
from sts_extras.leaderboard.reports.html_report import to_html
from sts_extras.leaderboard.reports.json_report import to_json_dict
from sts_extras.leaderboard.reports.markdown import to_markdown
from sts_extras.leaderboard.settings import RunSettings
from sts_extras.stats.calibration import MeasuredLevel, OutsideCell

MODELS = ("base", "close", "better", "worse", "noise")
#: (method, adjust) of the runs checked: the default, a closed-form test with Zou's interval, an
#: interval method without adjustment
RUNS = [("auto", "holm"), ("meng1992", "bonferroni"), ("jackknife-t", "none")]


def _tasks() -> list[TaskScores]:
    rng = np.random.default_rng(11)
    tasks = []
    for name, n in (("TaskA", 60), ("TaskB", 80)):
        gold = rng.uniform(0, 5, n)
        noise = dict(zip(MODELS, (1.0, 0.95, 0.45, 1.6, 4.0)))
        predictions = {model: gold + rng.normal(0, s, n) for model, s in noise.items()}
        tasks.append(
            TaskScores(name=name, gold=gold, score_range=(0.0, 5.0), predictions=predictions)
        )
    return tasks


def _score(method: str, adjust: str) -> LeaderboardResult:
    with warnings.catch_warnings():
        # an UncalibratedWarning where the suite did not measure the method at this n: the
        # reports say so too (tested below)
        warnings.simplefilter("ignore", UserWarning)
        return score_leaderboard(
            _tasks(),
            list(MODELS),
            baseline="base",
            settings=RunSettings(n_resamples=1000, seed=3, method=method, adjust=adjust),
        )


@pytest.fixture(scope="module", params=RUNS, ids=["-".join(run) for run in RUNS])
def board(request, tmp_path_factory) -> dict[str, Any]:
    result = _score(*request.param)
    folder = tmp_path_factory.mktemp("decisions")
    write_csv(result, folder / "leaderboard.csv")
    with (folder / "leaderboard.csv").open(encoding="utf-8") as handle:
        rows = {(row["task"], row["model"]): row for row in csv.DictReader(handle)}
    return {
        "result": result,
        "markdown": to_markdown(result),
        "html": to_html(result),
        "latex": latex.to_latex(result),
        "csv": rows,
        "json": json.loads(json.dumps(to_json_dict(result))),
    }


def _excludes_zero(low: float, high: float) -> bool:
    return low > 0 or high < 0


def _comparisons(result: LeaderboardResult) -> list[Any]:
    return [item for item in result.comparisons if item.confidence_interval is not None]


def test_every_pair_has_one_decision_its_interval_excluding_zero(board):
    result = board["result"]
    some = {True: 0, False: 0}
    for task in result.tasks:
        comparison = result.pairwise[task.name]
        alpha = 1 - comparison.confidence_level
        for pair in comparison.pairs:
            low, high = pair.confidence_interval
            assert pair.significant == _excludes_zero(low, high)
            assert pair.significant == (pair.pvalue_adjusted < alpha)
            assert pair.confidence_level >= comparison.confidence_level - 1e-12
            some[pair.significant] += 1
    assert some[True] and some[False]  # the data give both decisions
    for item in _comparisons(result):
        pair = result.pairwise[item.task].pair(item.model, item.baseline)
        assert item.significant == pair.significant == _excludes_zero(*item.confidence_interval)
        assert item.pvalue_adjusted == pair.pvalue_adjusted  # one family: all pairs of the task
        assert item.method == result.pairwise[item.task].method


def test_the_markdown_mark_is_the_decision_and_there_is_no_other(board):
    result, markdown = board["result"], board["markdown"]
    for item in _comparisons(result):
        section = markdown.split(f"## {item.task} — ")[1].split("\n## ")[0]
        (line,) = [row for row in section.splitlines() if f"| {item.model} | " in row]
        cells = line.split(" | ")
        low, high = item.confidence_interval
        interval = f"{item.delta:+.3f} [{low:+.3f}, {high:+.3f}]"
        assert cells[9] == interval + (" †" if item.significant else "")
        assert cells[10] == tables.level_text(item.confidence_level)
        assert not any(cell.rstrip(" |").endswith("*") for cell in cells)
    legend = markdown.split("## Legend")[1]
    assert "**†**: the pair is significant, its p-value " in legend
    assert "exactly when the interval shown excludes 0" in legend
    assert "\\*" not in legend and "BCa" not in legend


def test_the_html_table_and_matrix_show_the_same_decisions(board):
    result, page = board["result"], board["html"]
    for task in result.tasks:
        section = page.split(f'id="{task.name}"')[1].split("<h2")[0]
        for cells in tables.table_rows(result, task.name, escape=lambda text: text):
            if cells[1] != "base" and not cells[2].startswith("failed"):
                assert f">{html.escape(cells[9])}</td>" in section
        comparison = result.pairwise[task.name]
        for i, name in enumerate(comparison.models):
            for j, other in enumerate(comparison.models):
                if i != j:
                    value = f"{comparison.win_probability[i, j]:.2f}"
                    mark = "†" if comparison.pair(name, other).significant else ""
                    assert re.search(
                        rf"P\({re.escape(name)} has the higher r than {re.escape(other)}\) = "
                        rf"[\d.]+\">{value}{mark}</td>",
                        section,
                    )
        assert "† marks the significant pairs" in section
    assert "*" not in re.sub(r"<(script|style)>.*?</\1>", "", page, flags=re.S).replace("\\*", "")


def test_the_latex_rows_carry_the_dagger_exactly_on_significant_pairs(board):
    result, tex = board["result"], board["latex"]
    for item in _comparisons(result):
        table = tex.split(rf"\label{{{latex.table_label(item.task)}}}")[0].rsplit(r"\toprule", 1)
        first = latex.escape(latex._name_lines(item.model)[0])
        (row,) = [line for line in table[1].splitlines() if f"& {first}" in line]
        assert (
            (r"$\dagger$" in row) == item.significant == _excludes_zero(*item.confidence_interval)
        )
    for caption in re.findall(r"\\caption\{(.*)\}", tex)[:2]:
        assert r"$\dagger$: the pair is significant, i.e.\ the interval excludes 0" in caption
        assert "BCa" not in caption and "*" not in caption


def test_the_csv_and_json_carry_the_decision_its_level_and_the_method(board):
    result, rows, data = board["result"], board["csv"], board["json"]
    for item in _comparisons(result):
        row = rows[(item.task, item.model)]
        assert row["significant"] == str(item.significant)
        assert row["significant"] == str(
            _excludes_zero(float(row["ci_low"]), float(row["ci_high"]))
        )
        assert float(row["confidence_level"]) == item.confidence_level
        assert (row["method"], row["adjust"]) == (item.method, result.settings["adjust"])
        assert float(row["pvalue_adjusted"]) == item.pvalue_adjusted
    for record in data["comparisons"]:
        if record["ci_low"] is not None:
            excludes = _excludes_zero(record["ci_low"], record["ci_high"])
            assert record["significant"] == excludes
        assert not {"bca_significant", "holm_significant", "pvalue_holm"} & set(record)
    for task in data["tasks"]:
        for entry in task["pairwise"]:
            excludes = _excludes_zero(entry["ci_low"], entry["ci_high"])
            assert entry["significant"] == entry["adjusted_significant"] == excludes
            assert entry["method"] == task["method"]
            assert 0.95 - 1e-12 <= entry["confidence_level"] < 1.0
        assert task["not_separable"] == [
            list(group) for group in result.not_separable(task["name"])
        ]


def test_the_figures_mark_the_same_decisions(board, monkeypatch):
    from matplotlib.colors import to_rgba

    result = board["result"]
    kept: list[Any] = []
    monkeypatch.setattr(figures_module, "_save", lambda figure, path, formats: kept.append(figure))
    figures_module.forest_plot(result, Path("unused.png"))
    for task in result.tasks:
        figures_module.pairwise_heatmap(result, task.name, Path("unused.png"))
    forest, *heat_maps = kept
    legend = [text.get_text() for text in forest.legends[0].get_texts()]
    assert legend[0] == "significant: interval excludes 0 (†)"
    for axis, task in zip(forest.axes, result.tasks):
        intervals = [  # not the dashed line at 0
            line
            for line in axis.lines
            if len(line.get_xdata()) == 2 and line.get_linestyle() == "-"
        ]
        markers = [line for line in axis.lines if line.get_marker() == "o"]
        items = [
            result.comparison(task.name, row.model)
            for row in result.stats_for(task.name)
            if row.model != "base"
        ]
        assert len(intervals) == len(markers) == len(items)
        for interval, marker, item in zip(intervals, markers, items):
            assert list(interval.get_xdata()) == list(item.confidence_interval)
            filled = to_rgba(marker.get_markerfacecolor()) != (1.0, 1.0, 1.0, 1.0)
            assert filled == item.significant
    for figure, task in zip(heat_maps, result.tasks):
        comparison = result.pairwise[task.name]
        for text in figure.axes[0].texts:
            x, y = text.get_position()
            pair = comparison.pair(comparison.models[round(y)], comparison.models[round(x)])
            assert text.get_text().endswith("†") == pair.significant
        assert "*" not in figure.get_supxlabel()


# --------------------------------------------------------------------------------------------
# each task: the method used and what the calibration suite measured for it at its n
# --------------------------------------------------------------------------------------------
def test_each_task_names_its_method_and_measured_level(board):
    result, data, markdown = board["result"], board["json"], board["markdown"]
    for task in data["tasks"]:
        comparison = result.pairwise[task["name"]]
        assert task["method"] == comparison.method
        if result.settings["method"] != "auto":
            assert task["method"] == result.settings["method"]
        assert task["adjust"] == result.settings["adjust"]
        measured = comparison.calibration
        assert task["calibration"] == (None if measured is None else measured.as_dict())
        if measured is not None:
            assert set(task["calibration"]) >= {
                "method",
                "grid_n",
                "measured_size",
                "measured_coverage",
                "measured_real_coverage",
                "calibrated",
                "samples",
            }
        line = tables.calibration_line(result, task["name"])
        verdict = "Calibrated (" if measured and measured.calibrated else "Not calibrated: "
        assert line is not None and line.startswith(verdict)
        section = markdown.split(f"## {task['name']} — ")[1].split("\n## ")[0]
        assert line in section  # our own words, not escaped
        assert tables.method_name(comparison.method) in section
        row = board["csv"][(task["name"], "base")]
        assert row["calibrated"] == str(bool(measured and measured.calibrated))


def _with_calibration(result: LeaderboardResult, level: MeasuredLevel | None) -> LeaderboardResult:
    pairwise = {
        name: dataclasses.replace(comparison, calibration=level)
        for name, comparison in result.pairwise.items()
    }
    return dataclasses.replace(result, pairwise=pairwise)


def test_an_uncalibrated_task_says_so_in_every_report(tmp_path):
    result = _score("BCa", "holm")
    level = MeasuredLevel(
        method="BCa",
        correlation="pearson",
        n=60,
        grid_n=50,
        size=0.081,
        coverage=0.893,
        real_coverage=0.887,
        calibrated=False,
        samples=2000,
        note="BCa at n = 60 (grid 50): worst type-I error 8.1 %",
        outside_band=(
            OutsideCell("heavy-tailed/rho=0.7,r12=0.8/null", False, 0.081, 0.919, "liberal"),
            OutsideCell("stsb-test/minilm/effect", True, None, 0.887, "liberal"),
        ),
    )
    shown = _with_calibration(result, level)
    expected = (
        "Not calibrated: the calibration suite measured BCa's type-I error 8.1% and coverage "
        "89.3%, 88.7% on real STS data at n = 50"
    )
    worst = (
        "outside the band on 2 cells, farthest heavy-tailed/rho=0.7,r12=0.8/null (type-I error "
        "8.1%, coverage 91.9%, liberal)"
    )
    markdown = to_markdown(shown)
    section = markdown.split("## TaskA — ")[1].split("\n## ")[0]
    assert expected in section
    assert "calibrated means type-I error within [3.5%, 6.5%] and coverage within" in section
    # every report carries the cells outside the band
    assert worst in section.replace("\\", "")
    assert html.escape(expected) in to_html(shown)
    assert html.escape(worst) in to_html(shown)
    assert latex.escape(expected) in latex.to_latex(shown)
    write_csv(shown, tmp_path / "board.csv")
    with (tmp_path / "board.csv").open(encoding="utf-8") as handle:
        row = next(csv.DictReader(handle))
    assert (row["measured_size"], row["measured_coverage"], row["calibrated"]) == (
        "0.081",
        "0.893",
        "False",
    )
    assert row["outside_band"] == "heavy-tailed/rho=0.7,r12=0.8/null;stsb-test/minilm/effect"
    record = to_json_dict(shown)["tasks"][0]["calibration"]
    assert record["calibrated"] is False and record["measured_size"] == 0.081
    assert [cell["cell"] for cell in record["outside_band"]] == [
        "heavy-tailed/rho=0.7,r12=0.8/null",
        "stsb-test/minilm/effect",
    ]
    # a method the suite never measured is not silently trusted either
    unmeasured = to_markdown(_with_calibration(result, None))
    assert "Not calibrated: the calibration suite did not measure BCa" in unmeasured
    assert to_json_dict(_with_calibration(result, None))["tasks"][0]["calibration"] is None


def test_tied_gold_scores_are_flagged_beside_the_task():
    rng = np.random.default_rng(4)
    gold = rng.integers(0, 3, 120).astype(float)  # 3 distinct values
    predictions = {model: gold + rng.normal(0, s, 120) for model, s in zip("abc", (0.5, 1, 2))}
    task = TaskScores(name="tied", gold=gold, score_range=(0.0, 2.0), predictions=predictions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = score_leaderboard(
            [task], list("abc"), baseline="a", settings=RunSettings(n_resamples=500, seed=0)
        )
    assert "The gold scores take only 3 distinct values" in to_markdown(result)
    assert to_json_dict(result)["tasks"][0]["heavy_ties"] is True


def test_the_uncalibrated_warning_reaches_the_caller_of_score_leaderboard():
    """Whatever the calibration table says, a request it does not cover (here: very few, heavily
    tied gold scores) warns; the leaderboard never silences it."""
    from sts_extras.stats.calibration import UncalibratedWarning

    rng = np.random.default_rng(5)
    gold = np.repeat([0.0, 1.0, 2.0], 10)
    predictions = {model: gold + rng.normal(0, s, 30) for model, s in zip("ab", (0.5, 1.0))}
    task = TaskScores(name="tiny", gold=gold, score_range=(0.0, 2.0), predictions=predictions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("always", UncalibratedWarning)
        with pytest.warns(UncalibratedWarning):
            score_leaderboard(
                [task], ["a", "b"], baseline="a", settings=RunSettings(n_resamples=500, seed=0)
            )
