"""Figures of the leaderboard (matplotlib, Agg canvas): per-task scatter plots and a forest plot."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from sts_extras.leaderboard.evaluation import slug
from sts_extras.leaderboard.scoring import LeaderboardResult, ModelTaskFailure
from sts_extras.stats.correlation import assign_segments

__all__ = ["forest_plot", "scatter_plot", "write_figures"]

_BIN_COLOURS = ("#d95f02", "#7570b3", "#1b9e77", "#e7298a", "#66a61e", "#e6ab02", "#a6761d")


def _figure(width: float, height: float):
    """A stand-alone Agg figure: no pyplot, so the caller's backend and open figures are
    untouched (e.g. in a notebook)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def scatter_plot(result: LeaderboardResult, task: str, path: Path) -> Path:
    """Model score against gold score, one panel per model, points coloured by gold-score bin."""
    unit = next(item for item in result.tasks if item.name == task)
    rows = result.stats_for(task)
    columns = 2 if len(rows) == 4 else min(3, len(rows))
    lines = math.ceil(len(rows) / columns)
    figure = _figure(4.2 * columns, 3.6 * lines)
    axes = figure.subplots(lines, columns, squeeze=False)
    edges = result.bin_edges(task)
    ids = assign_segments(unit.gold, edges) if edges else np.zeros(unit.gold.size, dtype=int)
    for axis, row in zip(axes.flat, rows):
        title = row.model + (" — baseline" if row.model == result.baseline else "")
        axis.set_title(title if len(title) <= 48 else title[:45] + "...", fontsize=9)
        axis.set_xlabel("gold score", fontsize=8)
        axis.set_ylabel("model score", fontsize=8)
        axis.tick_params(labelsize=7)
        low, high = unit.score_range
        axis.set_xlim(low - 0.04 * (high - low), high + 0.04 * (high - low))
        if isinstance(row, ModelTaskFailure):
            axis.text(0.5, 0.5, "failed", ha="center", va="center", transform=axis.transAxes)
            continue
        scores = np.asarray(row.scores)
        for index in range(max(len(edges) - 1, 1)):
            mask = ids == index
            label = None
            if edges:
                r = row.bin_r[index]
                closing = "]" if index == len(edges) - 2 else ")"
                label = f"[{edges[index]:.3g}, {edges[index + 1]:.3g}{closing}: r = " + (
                    "—" if r is None else f"{r:.2f}"
                )
            axis.scatter(
                unit.gold[mask],
                scores[mask],
                s=14,
                alpha=0.85,
                label=label,
                color=_BIN_COLOURS[index % len(_BIN_COLOURS)],
                edgecolors="none",
            )
        for edge in edges[1:-1]:
            axis.axvline(edge, color="0.75", linewidth=0.8, linestyle=":")
        scaled = "—" if row.scaled_pearson is None else f"{row.scaled_pearson:.3f}"
        axis.text(
            0.03,
            0.97,
            f"r = {row.pearson:.3f}\nscaled r = {scaled}",
            transform=axis.transAxes,
            va="top",
            fontsize=8,
        )
        if edges:
            axis.legend(fontsize=6, loc="lower right", frameon=False)
    for axis in list(axes.flat)[len(rows) :]:
        axis.set_visible(False)
    figure.suptitle(f"{task}: model score vs gold, coloured by gold-score bin", fontsize=11)
    figure.savefig(path, dpi=110)
    return path


def forest_plot(result: LeaderboardResult, path: Path) -> Path | None:
    """Δr = r(model) − r(baseline) with BCa intervals, grouped by task; None if no comparison."""
    items = [(item, item.delta) for item in result.comparisons if item.delta is not None]
    if not items:
        return None
    level = result.settings.get("confidence_level", 0.95)
    figure = _figure(7.5, 0.42 * len(items) + 1.4)
    axis = figure.subplots()
    labels = []
    for position, (item, delta) in enumerate(items):
        y = len(items) - 1 - position
        colour = "#1b9e77" if delta > 0 else "#d95f02"
        axis.plot([item.ci_low, item.ci_high], [y, y], color=colour, linewidth=2)
        axis.plot(
            delta,
            y,
            marker="o",
            color=colour,
            markerfacecolor=colour if item.holm_significant else "white",
            markersize=7,
        )
        labels.append(f"{item.task}: {item.model}")
    axis.axvline(0.0, color="0.4", linestyle="--", linewidth=1)
    axis.set_yticks(range(len(items) - 1, -1, -1))
    axis.set_yticklabels(labels, fontsize=8)
    axis.set_xlabel(
        f"Δr vs {result.baseline} ({level:.0%} BCa interval; filled: Holm p ≤ "
        f"{result.settings.get('alpha', 0.05):g})",
        fontsize=8,
    )
    axis.set_title("Difference in Pearson r from the baseline", fontsize=10)
    figure.savefig(path, dpi=110)
    return path


def write_figures(result: LeaderboardResult, output: Path) -> list[Path]:
    """Write ``scatter_<task>.png`` for every unit and ``forest.png``; return the paths."""
    paths = [
        scatter_plot(result, task.name, output / f"scatter_{slug(task.name)}.png")
        for task in result.tasks
    ]
    forest = forest_plot(result, output / "forest.png")
    return paths + ([forest] if forest is not None else [])
