"""The contents of the leaderboard's tables, shared by every format.

The Markdown (:mod:`~sts_extras.leaderboard.reports.markdown`), the HTML page
(:mod:`~sts_extras.leaderboard.reports.html_report`) and the LaTeX tables
(:mod:`~sts_extras.leaderboard.reports.latex`) show the same cells: correlations rounded to 3
decimals (the STSS-131 guidance for reporting r), † on a BCa interval excluding 0, * on an
adjusted p-value at most alpha, the names of the test and the adjustment that were run. The CSV
(:mod:`~sts_extras.leaderboard.reports.csv_report`) and JSON
(:mod:`~sts_extras.leaderboard.reports.json_report`) share the flat record of each model × unit
(:func:`result_record`), at full precision.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any, cast

from sts_extras.leaderboard.reports.scoring import (
    ComparisonStats,
    LeaderboardResult,
    ModelTaskFailure,
    ModelTaskRow,
    ModelTaskStats,
)

__all__ = [
    "adjust_name",
    "bin_ranges",
    "escape_markdown",
    "mean_rank_rows",
    "pairwise_lines",
    "result_record",
    "ScoreKeys",
    "table_header",
    "table_rows",
    "test_letter",
    "test_name",
]


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


def escape_markdown(text: str) -> str:
    """``text`` as a Markdown table cell: ``|`` escaped, line breaks as spaces."""
    return text.replace("|", "\\|").replace("\n", " ")


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


def test_name(settings: Mapping[str, object]) -> str:
    """The authors and statistic of the dependent-correlation test of ``settings``."""
    test = cast(str, settings.get("dependent_test", "meng1992"))
    return _TEST_NAMES.get(test, test)


def test_letter(settings: Mapping[str, object]) -> str:
    """'t' for the tests with a t statistic, else 'z'."""
    from sts_extras.stats.dependent import T_METHODS

    return "t" if settings.get("dependent_test", "meng1992") in T_METHODS else "z"


def adjust_name(settings: Mapping[str, object]) -> str:
    """The name of the p-value adjustment of ``settings`` (e.g. "Holm")."""
    method = cast(str, settings.get("multiple_comparisons", "holm"))
    return _ADJUST_NAMES.get(method, method)


def _rankescape_markdown(row: ModelTaskStats) -> str:
    if row.rank_low is None or row.rank_high is None:
        return str(row.rank)
    return f"{row.rank} [{row.rank_low}, {row.rank_high}]"


def _comparison_cells(
    item: ComparisonStats | None, is_baseline: bool, escape: Callable[[str], str]
) -> list[str]:
    if is_baseline:
        return ["baseline", "", ""]
    if item is None or item.delta is None or item.ci_low is None or item.ci_high is None:
        reason = item.error if item is not None and item.error else "no comparison"
        return [f"— ({escape(reason)})", "—", "—"]
    mark = " †" if item.bca_significant else ""
    star = " *" if item.holm_significant else ""
    interval = f"{_signed(item.delta)} [{_signed(item.ci_low)}, {_signed(item.ci_high)}]{mark}"
    statistic = "—" if item.statistic is None else f"{item.statistic:.2f}"
    return [interval, statistic, f"{_p(item.pvalue_holm)}{star}"]


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
    """The column names of a unit's ranked table (the test's statistic and the adjustment
    named, the confidence level if not 95%)."""
    level = result.settings.get("confidence_level", 0.95)
    shown = "95%" if level == 0.95 else f"{level:.0%}"
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
        f"Δr vs baseline [{shown} BCa]",
        test_letter(result.settings),
        f"p ({adjust_name(result.settings)})",
    ]


def table_rows(
    result: LeaderboardResult, task: str, escape: Callable[[str], str] = escape_markdown
) -> list[list[str]]:
    """The cells of a unit's ranked table, best first (failed models last), as in the Markdown:
    3 decimals, † on a BCa interval excluding 0, * on an adjusted p at most ``alpha``. Model
    names and error messages go through ``escape`` (default: Markdown's)."""
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
                _rankescape_markdown(row),
                *_comparison_cells(result.comparison(task, row.model), is_baseline, escape),
            ]
        )
    return rows


def _group(names: tuple[str, ...]) -> str:
    return "{" + ", ".join(escape_markdown(name) for name in names) + "}"


def pairwise_lines(result: LeaderboardResult, task: str) -> list[str]:
    """The lines under a unit's table: failed models left out, groups the unit cannot separate,
    and the minimal detectable Δr of the top model."""
    settings = result.settings
    alpha = settings.get("alpha", 0.05)
    lines = []
    failed = [row.model for row in result.stats_for(task) if isinstance(row, ModelTaskFailure)]
    if failed:
        lines.append(
            "Left out of the comparisons and rank intervals (no usable scores): "
            + ", ".join(escape_markdown(name) for name in failed)
            + "."
        )
    if task in result.pairwise_errors:
        lines.append(f"No comparisons: {escape_markdown(result.pairwise_errors[task])}")
    comparison = result.pairwise.get(task)
    if comparison is None:
        return lines
    groups = result.not_separable(task)
    lines.append(
        f"Not separable at {1 - alpha:.0%} ({adjust_name(settings)}-adjusted p > {alpha:g} "
        "over all pairs): "
        + (", ".join(_group(group) for group in groups) if groups else "none, every pair differs")
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
            parts.append(f"{escape_markdown(name)} {shown} (observed {_signed(observed)})")
        lines.append(
            f"Minimal detectable Δr at {settings.get('detectable_power', 0.8):.0%} power "
            f"({settings.get('dependent_test', 'meng1992')} test, α = {alpha:g}, "
            f"n = {comparison.n}) of "
            f"{escape_markdown(top)} against: " + "; ".join(parts) + "."
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
