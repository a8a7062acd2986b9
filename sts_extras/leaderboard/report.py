"""Writers for the leaderboard: Markdown (ranked tables + legend), CSV and JSON.

The Markdown rounds correlations to 3 decimals (the STSS-131 guidance for reporting r); the CSV
and JSON keep full precision, and the JSON also holds the gold and per-pair model scores, so every
number can be recomputed from it.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
from pathlib import Path
from typing import Any

from sts_extras.leaderboard.scoring import (
    ComparisonStats,
    LeaderboardResult,
    ModelTaskFailure,
    ModelTaskRow,
    ModelTaskStats,
)

__all__ = [
    "CSV_COLUMNS",
    "result_record",
    "task_table",
    "to_json_dict",
    "to_markdown",
    "write_csv",
    "write_json",
    "write_markdown",
]

CSV_COLUMNS = (
    "task",
    "rank",
    "model",
    "is_baseline",
    "n",
    "pearson",
    "spearman",
    "scaled_pearson",
    "bin_edges",
    "bin_r",
    "bin_sizes",
    "rho_w",
    "tau_w",
    "mteb_pearson",
    "delta_r",
    "ci_low",
    "ci_high",
    "bca_significant",
    "z_meng1992",
    "p",
    "p_holm",
    "holm_significant",
    "error",
)


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


def _bin_ranges(edges: tuple[float, ...]) -> str:
    parts = []
    for index in range(len(edges) - 1):
        closing = "]" if index == len(edges) - 2 else ")"
        parts.append(f"[{_edge(edges[index])}, {_edge(edges[index + 1])}{closing}")
    return " / ".join(parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _comparison_cells(item: ComparisonStats | None, is_baseline: bool) -> list[str]:
    if is_baseline:
        return ["baseline", "", ""]
    if item is None or item.delta is None or item.ci_low is None or item.ci_high is None:
        reason = item.error if item is not None and item.error else "no comparison"
        return [f"— ({_cell(reason)})", "—", "—"]
    mark = " †" if item.bca_significant else ""
    star = " *" if item.holm_significant else ""
    interval = f"{_signed(item.delta)} [{_signed(item.ci_low)}, {_signed(item.ci_high)}]{mark}"
    return [interval, f"{item.statistic:.2f}", f"{_p(item.pvalue_holm)}{star}"]


def result_record(row: ModelTaskRow) -> dict[str, Any]:
    """One model × unit as a flat record: the same keys, in the same order, for a failure."""
    if isinstance(row, ModelTaskStats):
        return {**dataclasses.asdict(row), "error": None}
    return {
        "task": row.task,
        "model": row.model,
        "n": row.n,
        "rank": None,
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


def task_table(result: LeaderboardResult, task: str) -> str:
    """The ranked Markdown table of one unit."""
    header = (
        "| # | Model | r | ρ | scaled r | r per bin (n) | ρ_w | τ_w "
        "| Δr vs baseline [95% BCa] | z | p (Holm) |"
    )
    lines = [header, "|--:|:--|--:|--:|--:|:--|--:|--:|:--|--:|--:|"]
    for row in result.stats_for(task):
        is_baseline = row.model == result.baseline
        name = _cell(row.model)  # the Δr column says "baseline"
        if isinstance(row, ModelTaskFailure):
            cells = ["–", name, f"failed: {_cell(row.error)}", *[""] * 8]
        else:
            cells = [
                str(row.rank),
                name,
                _r(row.pearson),
                _r(row.spearman),
                _r(row.scaled_pearson),
                _bins(row),
                _r(row.rho_w),
                _r(row.tau_w),
                *_comparison_cells(result.comparison(task, row.model), is_baseline),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def to_markdown(result: LeaderboardResult) -> str:
    """The whole report: a section per unit (ranked table) and a legend."""
    settings = result.settings
    out = ["# STS leaderboard", ""]
    out.append(f"Models ranked by Pearson r on each task. Baseline: **{_cell(result.baseline)}**.")
    if settings.get("round_scores"):
        out.append(
            "System scores were rounded to 3 decimals before every statistic (STSS-131 guidance)."
        )
    for task in result.tasks:
        low, high = task.score_range
        out += ["", f"## {task.name} — {task.gold.size} pairs, gold {low:g}–{high:g}", ""]
        out.append(task_table(result, task.name))
        edges = result.bin_edges(task.name)
        if edges:
            out += ["", f"Bins (gold score): {_bin_ranges(edges)}."]
    level = settings.get("confidence_level", 0.95)
    alpha = settings.get("alpha", 0.05)
    out += [
        "",
        "## Legend",
        "",
        "- **r**: Pearson correlation with the gold scores; **ρ**: Spearman. Correlations are "
        "shown to 3 decimals (STSS-131 guidance); the CSV/JSON keep full precision.",
        f"- **scaled r**: mean of the Pearson r within {settings.get('bins', 3)} equal-width bins "
        "of the task's gold scale (Atoum 2019, Eq. 3); **r per bin**: r and number of pairs in "
        "each bin, lowest scores first; — marks a bin with fewer than 3 pairs or constant scores "
        "(left out of the mean).",
        f"- **ρ_w**, **τ_w**: top-rank-weighted Spearman and Kendall correlations (Lombardo et al. "
        f"2020, Eq. 8, n0 = {settings.get('n0', 2):g}): disagreements on the most similar pairs "
        "weigh most.",
        f"- **Δr**: r(model) − r(baseline), with a {level:.0%} BCa bootstrap interval "
        f"({settings.get('n_resamples')} paired resamples, seed {settings.get('seed')}); "
        "**†**: the interval excludes 0.",
        "- **z**: Meng, Rosenthal & Rubin (1992) test of two dependent correlations with the same "
        "gold scores (positive: the model correlates better than the baseline); **p (Holm)**: its "
        "two-sided p-value, Holm-adjusted across the comparisons of the task; "
        f"**\\***: p ≤ {alpha:g}.",
        "- MTEB's own result files are in `mteb_results/`, its per-pair predictions in "
        "`predictions/`; `leaderboard.json` holds every score used here.",
    ]
    return "\n".join(out) + "\n"


def write_markdown(result: LeaderboardResult, path: Path) -> Path:
    path.write_text(to_markdown(result), encoding="utf-8")
    return path


def _join(values: tuple[Any, ...]) -> str:
    return ";".join("" if value is None else repr(value) for value in values)


def _csv_value(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return value


def write_csv(result: LeaderboardResult, path: Path) -> Path:
    """One row per model × unit (full precision; empty cells for missing values)."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for task in result.tasks:
            for row in result.stats_for(task.name):
                item = result.comparison(task.name, row.model)
                comparison = item or ComparisonStats(
                    task=task.name, model=row.model, baseline=result.baseline
                )
                values = result_record(row)
                record = (
                    values["task"],
                    values["rank"],
                    values["model"],
                    row.model == result.baseline,
                    values["n"],
                    values["pearson"],
                    values["spearman"],
                    values["scaled_pearson"],
                    _join(values["bin_edges"]),
                    _join(values["bin_r"]),
                    _join(values["bin_sizes"]),
                    values["rho_w"],
                    values["tau_w"],
                    values["mteb_pearson"],
                    comparison.delta,
                    comparison.ci_low,
                    comparison.ci_high,
                    comparison.bca_significant,
                    comparison.statistic,
                    comparison.pvalue,
                    comparison.pvalue_holm,
                    comparison.holm_significant,
                    values["error"] or comparison.error,
                )
                writer.writerow([_csv_value(value) for value in record])
    return path


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    return value


def to_json_dict(
    result: LeaderboardResult,
    *,
    models: dict[str, dict[str, str]] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything of the run as plain Python: settings, tasks with gold scores, per-model
    statistics with the per-pair scores, comparisons."""
    return _jsonable(
        {
            **(extra or {}),
            "settings": dict(result.settings),
            "models": [{"name": name, **(models or {}).get(name, {})} for name in result.models],
            "tasks": [
                {
                    "name": task.name,
                    "n": int(task.gold.size),
                    "score_range": list(task.score_range),
                    "gold": task.gold.tolist(),
                }
                for task in result.tasks
            ],
            "results": [result_record(row) for row in result.stats],
            "comparisons": [dataclasses.asdict(item) for item in result.comparisons],
        }
    )


def write_json(result: LeaderboardResult, path: Path, **kwargs: Any) -> Path:
    path.write_text(
        json.dumps(to_json_dict(result, **kwargs), indent=1, ensure_ascii=False), encoding="utf-8"
    )
    return path
