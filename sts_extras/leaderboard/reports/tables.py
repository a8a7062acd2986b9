"""The contents of the leaderboard's tables, shared by every format.

The Markdown (:mod:`~sts_extras.leaderboard.reports.markdown`), the HTML page
(:mod:`~sts_extras.leaderboard.reports.html_report`) and the LaTeX tables
(:mod:`~sts_extras.leaderboard.reports.latex`) show the same cells: correlations rounded to 3
decimals (the STSS-131 guidance for reporting r), and for each pair of models ONE decision: its
interval of Δr at the per-pair level that matches the adjustment over all pairs of the task, with
:data:`MARK` (†) when it excludes 0, which is exactly when the adjusted p-value is below
1 - confidence level (no second mark); the method each task used, with what the calibration
suite measured for it at the task's n (:func:`decision_line`). The CSV
(:mod:`~sts_extras.leaderboard.reports.csv_report`) and JSON
(:mod:`~sts_extras.leaderboard.reports.json_report`) share the flat record of each model × unit
(:func:`result_record`), at full precision.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any, cast

from sts_extras.io.report_text import escape_markdown
from sts_extras.leaderboard.scoring import (
    ComparisonStats,
    LeaderboardResult,
    ModelTaskFailure,
    ModelTaskRow,
    ModelTaskStats,
)

__all__ = [
    "MARK",
    "adjust_name",
    "adjusted_over_pairs",
    "bin_ranges",
    "calibration_line",
    "decision_line",
    "detectable_test",
    "escape_markdown",
    "tied_gold_values",
    "level_text",
    "mean_rank_rows",
    "method_name",
    "pairwise_lines",
    "result_record",
    "ScoreKeys",
    "table_header",
    "table_rows",
]

#: The one mark of a significant pair, in every report: its interval (at the per-pair level that
#: matches the adjustment over the task's pairs) excludes 0.
MARK = "†"


def _r(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def _p(value: float | None) -> str:
    if value is None:
        return "—"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _edge(value: float) -> str:
    return f"{value:.3g}"


def _bins(row: ModelTaskStats) -> str:
    if not row.bin_r:
        return "—"
    return " / ".join(f"{_r(r)} ({n})" for r, n in zip(row.bin_r, row.bin_sizes))


def bin_ranges(edges: tuple[float, ...]) -> str:
    """The gold-score bins as intervals, e.g. ``[0, 1.67) / [1.67, 3.33) / [3.33, 5]``."""
    parts = []
    for index in range(len(edges) - 1):
        closing = "]" if index == len(edges) - 2 else ")"
        parts.append(f"[{_edge(edges[index])}, {_edge(edges[index + 1])}{closing}")
    return " / ".join(parts)


#: Authors of the tests of two dependent correlations, for the legend.
_TEST_NAMES = {
    "steiger1980": "Steiger's (1980) z",
    "meng1992": "Meng, Rosenthal & Rubin's (1992) z",
    "williams1959": "Williams's (1959) t",
    "hittner2003": "Hittner, May & Silver's (2003) z",
    "dunn1969": "Dunn & Clark's (1969) z",
    "hotelling1940": "Hotelling's (1940) t",
    "hendrickson1970": "Hendrickson, Stanley & Hills's (1970) t",
    "olkin1967": "Olkin's (1967) z",
    "pearson1898": "Pearson & Filon's (1898) z",
}


_ADJUST_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "sidak": "Šidák",
    "holm-sidak": "Holm–Šidák",
    "simes-hochberg": "Hochberg",
    "hommel": "Hommel",
    "fdr_bh": "BH",
    "fdr_by": "BY",
    "none": "unadjusted",
}


#: The interval methods of r1 - r2, for the reports.
_INTERVAL_NAMES = {
    "twopov": "TWOpov interval (Wilcox 2009: Zou's MOVER from HC4 limits)",
    "adjusted-percentile": (
        "adjusted percentile bootstrap interval (our variant: Wilcox & Muska's order "
        "statistics applied to r1 - r2)"
    ),
    "jackknife-t": "jackknife-t interval",
    "percentile": "percentile bootstrap interval",
    "BCa": "BCa bootstrap interval (Efron 1987)",
}


def method_name(method: str) -> str:
    """The procedure ``method`` of the pair decisions in words: an interval method, or a test of
    two dependent correlations with Zou's (2007) interval."""
    if method in _TEST_NAMES:
        return f"{_TEST_NAMES[method]} test with Zou's (2007) interval"
    return _INTERVAL_NAMES.get(method, method)


def detectable_test(method: str) -> str:
    """The closed-form test whose power gives the minimal detectable Δr of a task that used
    ``method`` (:func:`~sts_extras.stats.model_comparison.top_model_detectable_deltas`): the
    method itself when it is one, else Meng, Rosenthal & Rubin's (1992)."""
    return method if method in _TEST_NAMES else "meng1992"


def adjust_name(settings: Mapping[str, object]) -> str:
    """The name of the adjustment over the pairs of ``settings`` (e.g. "Holm")."""
    method = cast(str, settings.get("adjust", "holm"))
    return _ADJUST_NAMES.get(method, method)


def adjusted_over_pairs(settings: Mapping[str, object]) -> str:
    """How the pair decisions of ``settings`` are adjusted, as a phrase: "Holm-adjusted over all
    pairs of the task", or "not adjusted over the pairs" (``adjust="none"``)."""
    if settings.get("adjust", "holm") == "none":
        return "not adjusted over the pairs"
    return f"{adjust_name(settings)}-adjusted over all pairs of the task"


def level_text(level: float | None) -> str:
    """A confidence level as a percentage with at most 2 decimals: 95%, 99.17%."""
    if level is None or not math.isfinite(level):
        return "—"
    return f"{100 * level:.2f}".rstrip("0").rstrip(".") + "%"


def tied_gold_values(gold: object) -> int | None:
    """The number of distinct gold scores when there are too few for the calibration suite's
    cells to speak for the task (:func:`sts_extras.stats.calibration.heavy_ties`), else None."""
    import numpy as np

    from sts_extras.stats.calibration import heavy_ties as tied

    values = np.asarray(gold, dtype=float)
    return int(np.unique(values).size) if tied(values) else None


def _percent(value: float) -> str:
    return f"{value:.1%}"


def decision_line(result: LeaderboardResult, task: str) -> str | None:
    """The sentences beside a task's table on its pair decisions: the method used (``auto``
    resolved), the adjustment over its pairs, and what the calibration suite measured for the
    method at the task's n (:func:`calibration_line`). None without a comparison of the task."""
    comparison = result.pairwise.get(task)
    if comparison is None:
        return None
    settings = result.settings
    chosen = " (chosen by method=auto)" if settings.get("method") == "auto" else ""
    pairs = len(comparison.pairs)
    family = f"the {pairs} pair{'s' * (pairs != 1)} of models"
    level = level_text(comparison.confidence_level)
    if comparison.adjust == "none":
        adjust = f"not adjusted over {family} (level {level} for each pair)"
        where = ""
    else:
        adjust = f"{adjust_name(settings)}-adjusted over {family} (family level {level})"
        where = ", at the per-pair level that matches the adjustment,"
    return (
        f"Pair decisions: {method_name(comparison.method)}{chosen}, {adjust}; {MARK} marks a "
        f"pair whose interval{where} excludes 0. {calibration_line(result, task)}"
    )


def calibration_line(result: LeaderboardResult, task: str) -> str | None:
    """What the calibration suite measured for a task's method at its n, one or two sentences:
    "Calibrated: ..." or "Not calibrated: measured type-I error 8.1% ..." (outside the band,
    or not measured at all), and a warning when the gold scores are too tied for the suite's
    cells. None without a comparison of the task."""
    comparison = result.pairwise.get(task)
    if comparison is None:
        return None
    from sts_extras.stats.calibration import COVERAGE_BAND, SIZE_BAND

    measured = comparison.calibration
    if measured is None:
        parts = [
            f"Not calibrated: the calibration suite did not measure {comparison.method}, so its "
            f"error rate at n = {comparison.n} is unknown (docs/calibration.md)."
        ]
    else:
        real = (
            ""
            if measured.real_coverage is None
            else f", {_percent(measured.real_coverage)} on real STS data"
        )
        samples = f"{measured.samples} data set{'s' * (measured.samples != 1)} per cell"
        numbers = (
            f"the calibration suite measured {measured.method}'s type-I error "
            f"{_percent(measured.size)} and coverage {_percent(measured.coverage)}"
            f"{real} at n = {measured.grid_n} (one pair at α = 0.05, the largest and smallest "
            "over its data cells, "
            f"{samples}; this task: n = {comparison.n})"
        )
        band = (
            f"type-I error within [{SIZE_BAND[0]:.1%}, {SIZE_BAND[1]:.1%}] and coverage within "
            f"[{COVERAGE_BAND[0]:.1%}, {COVERAGE_BAND[1]:.1%}] on every cell the suite measured "
            "at that n, up to its Monte Carlo error"
        )
        family = measured.note.partition("; family-wise error of its Holm-adjusted decisions ")[2]
        if family:
            # decisions adjusted over several pairs: the family-wise error is the claim
            band += (
                ", and the family-wise error of the adjusted pair decisions at most 5%, up to "
                "its Monte Carlo error"
            )
            numbers += f"; its adjusted decisions' family-wise error {family}"
        if measured.outside_band:
            cells = measured.outside_band
            numbers += (
                f"; outside the band on {len(cells)} cell{'s' * (len(cells) != 1)}, farthest "
                f"{cells[0].text()}"
            )
        if measured.calibrated:
            parts = [f"Calibrated ({band}): {numbers}."]
        else:
            parts = [
                f"Not calibrated: {numbers}; calibrated means {band}, at an n the suite "
                "covers (docs/calibration.md)."
            ]
    unit = next((item for item in result.tasks if item.name == task), None)
    distinct = None if unit is None else tied_gold_values(unit.gold)
    if distinct is not None:
        parts.append(
            f"The gold scores take only {distinct} distinct values: too tied for the "
            "calibration suite's cells to speak for this task."
        )
    return " ".join(parts)


def _rank_cell(row: ModelTaskStats) -> str:
    if row.rank_low is None or row.rank_high is None:
        return str(row.rank)
    return f"{row.rank} [{row.rank_low}, {row.rank_high}]"


def _comparison_cells(
    item: ComparisonStats | None, is_baseline: bool, escape: Callable[[str], str]
) -> list[str]:
    if is_baseline:
        return ["baseline", "", ""]
    if item is None or item.delta is None or item.confidence_interval is None:
        reason = item.error if item is not None and item.error else "no comparison"
        return [f"— ({escape(reason)})", "—", "—"]
    mark = f" {MARK}" if item.significant else ""
    low, high = item.confidence_interval
    interval = f"{_signed(item.delta)} [{_signed(low)}, {_signed(high)}]{mark}"
    return [interval, level_text(item.confidence_level), _p(item.pvalue_adjusted)]


def result_record(row: ModelTaskRow) -> dict[str, Any]:
    """One model × unit as a flat record: the same keys, in the same order, for a failure."""
    if isinstance(row, ModelTaskStats):
        values = dataclasses.asdict(row)
        ordered = {}
        for key, value in values.items():  # the rank interval next to the rank
            if key not in ("rank_low", "rank_high"):
                ordered[key] = value
            if key == "rank":
                ordered.update(rank_low=row.rank_low, rank_high=row.rank_high)
        return {**ordered, "error": None}
    return {
        "task": row.task,
        "model": row.model,
        "n": row.n,
        "rank": None,
        "rank_low": None,
        "rank_high": None,
        "pearson": None,
        "spearman": None,
        "scaled_pearson": None,
        "bin_edges": (),
        "bin_r": (),
        "bin_sizes": (),
        "rho_w": None,
        "tau_w": None,
        "mteb_pearson": row.mteb_pearson,
        "scores": row.scores,
        "error": row.error,
    }


def table_header(result: LeaderboardResult) -> list[str]:
    """The column names of a unit's ranked table (the adjustment named, the confidence level if
    not 95%): the Δr interval with its mark, the interval's per-pair level, the adjusted p."""
    level = result.settings.get("confidence_level", 0.95)
    shown = "95%" if level == 0.95 else f"{level:.0%}"
    adjust = adjust_name(result.settings)
    interval = f"{shown} CI" if result.settings.get("adjust") == "none" else f"{adjust}-adj. CI"
    return [
        "#",
        "Model",
        "r",
        "ρ",
        "scaled r",
        "r per bin (n)",
        "ρ_w",
        "τ_w",
        f"rank [{shown}]",
        f"Δr vs baseline [{interval}]",
        "CI level",
        f"p ({adjust})",
    ]


def table_rows(
    result: LeaderboardResult, task: str, escape: Callable[[str], str] = escape_markdown
) -> list[list[str]]:
    """The cells of a unit's ranked table, best first (failed models last), as in the Markdown:
    3 decimals; Δr against the baseline with the pair's interval, † when it excludes 0 (the
    pair's one decision), the interval's per-pair level and the adjusted p-value. Model names
    and error messages go through ``escape`` (default: Markdown's)."""
    rows = []
    for row in result.stats_for(task):
        is_baseline = row.model == result.baseline
        name = escape(row.model)  # the Δr column says "baseline"
        if isinstance(row, ModelTaskFailure):
            rows.append(["–", name, f"failed: {escape(row.error)}", *[""] * 9])
            continue
        rows.append(
            [
                str(row.rank),
                name,
                _r(row.pearson),
                _r(row.spearman),
                _r(row.scaled_pearson),
                _bins(row),
                _r(row.rho_w),
                _r(row.tau_w),
                _rank_cell(row),
                *_comparison_cells(result.comparison(task, row.model), is_baseline, escape),
            ]
        )
    return rows


def _group(names: tuple[str, ...], escape: Callable[[str], str]) -> str:
    return "{" + ", ".join(escape(name) for name in names) + "}"


def pairwise_lines(
    result: LeaderboardResult, task: str, escape: Callable[[str], str] = escape_markdown
) -> list[str]:
    """The lines under a unit's table: failed models left out, groups the unit cannot separate
    (by the pairs' decisions, the table's †), and the minimal detectable Δr of the top model.
    Model names and error messages go through ``escape`` (default: Markdown's)."""
    settings = result.settings
    alpha = settings.get("alpha", 0.05)
    level = settings.get("confidence_level", 0.95)
    lines = []
    failed = [row.model for row in result.stats_for(task) if isinstance(row, ModelTaskFailure)]
    if failed:
        lines.append(
            "Left out of the comparisons and rank intervals (no usable scores): "
            + ", ".join(escape(name) for name in failed)
            + "."
        )
    if task in result.pairwise_errors:
        lines.append(f"No comparisons: {escape(result.pairwise_errors[task])}")
    comparison = result.pairwise.get(task)
    if comparison is None:
        return lines
    groups = result.not_separable(task)
    lines.append(
        f"Not separable at {level:.0%} (no pair of a group is significant, {MARK}, "
        f"{adjusted_over_pairs(settings).replace(' of the task', '')}): "
        + (
            ", ".join(_group(group, escape) for group in groups)
            if groups
            else "none, every pair differs"
        )
        + "."
    )
    deltas = result.detectable.get(task, {})
    if deltas:
        top = comparison.models[int(comparison.r.argmax())]
        parts = []
        for name, value in deltas.items():
            pair = comparison.pair(top, name)
            observed = pair.delta if pair.model1 == top else -pair.delta
            shown = "—" if not math.isfinite(value) else f"{value:.3f}"
            parts.append(f"{escape(name)} {shown} (observed {_signed(observed)})")
        lines.append(
            f"Minimal detectable Δr at {settings.get('detectable_power', 0.8):.0%} power "
            f"({detectable_test(comparison.method)} test, α = {alpha:g} for one pair, "
            f"n = {comparison.n}) of "
            f"{escape(top)} against: " + "; ".join(parts) + "."
        )
    return lines


def mean_rank_rows(result: LeaderboardResult) -> list[list[str]]:
    """The rows of the mean-rank table, best mean rank first: model name (raw), mean rank with
    its interval, the rank on each unit; empty if the mean rank was not computed."""
    mean = result.mean_rank
    if mean is None:
        return []
    ranks = {(row.task, row.model): row.rank for row in result.stats}
    return [
        [
            mean.models[k],
            f"{mean.mean_rank[k]:.2f} [{mean.confidence_interval.low[k]:.2f}, "
            f"{mean.confidence_interval.high[k]:.2f}]",
            *(str(ranks[(task.name, mean.models[k])]) for task in result.tasks),
        ]
        for k in sorted(range(len(mean.models)), key=lambda k: (mean.mean_rank[k], k))
    ]


#: Unit label -> model -> the prediction-file key its scores were read from.
ScoreKeys = Mapping[str, Mapping[str, str]]
