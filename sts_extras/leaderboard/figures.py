"""Figures of the leaderboard (matplotlib, Agg canvas): per-task scatter plots and heat maps of
the pairwise comparisons, and a forest plot of the comparisons with the baseline."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from sts_extras.leaderboard.evaluation import slug
from sts_extras.leaderboard.scoring import LeaderboardResult, ModelTaskFailure
from sts_extras.optional import requires_extra
from sts_extras.stats.correlation import assign_segments

__all__ = ["forest_plot", "pairwise_heatmap", "scatter_plot", "write_figures"]

_BIN_COLOURS = ("#d95f02", "#7570b3", "#1b9e77", "#e7298a", "#66a61e", "#e6ab02", "#a6761d")


def _figure(width: float, height: float):
    """A stand-alone Agg figure: no pyplot, so the caller's backend and open figures are
    untouched (e.g. in a notebook)."""
    with requires_extra("figures"):
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
        f"Δr vs {result.baseline} ({level:.0%} BCa interval; filled: "
        f"{result.settings.get('multiple_comparisons', 'holm')}-adjusted p ≤ "
        f"{result.settings.get('alpha', 0.05):g})",
        fontsize=8,
    )
    axis.set_title("Difference in Pearson r from the baseline", fontsize=10)
    figure.savefig(path, dpi=110)
    return path


def _short(name: str, size: int) -> str:
    return name if len(name) <= size else name[: size - 3] + "..."


def pairwise_heatmap(result: LeaderboardResult, task: str, path: Path) -> Path | None:
    """Win probabilities P(row model has the higher r than column model) of one unit, models in
    table order, ``*`` on the pairs whose adjusted p-value is at most ``alpha``; None with fewer
    than 2 scored models."""
    comparison = result.pairwise.get(task)
    if comparison is None:
        return None
    alpha = result.settings.get("alpha", 0.05)
    models = comparison.models
    m = len(models)
    shown = comparison.win_probability.copy()
    shown[np.diag_indices(m)] = np.nan
    figure = _figure(1.1 * m + 4.0, 0.8 * m + 1.6)
    axis = figure.subplots()
    image = axis.imshow(shown, cmap="RdBu", vmin=0.0, vmax=1.0)
    significant = {
        frozenset((pair.model1, pair.model2))
        for pair in comparison.pairs
        if pair.pvalue_adjusted <= alpha
    }
    for i in range(m):
        for j in range(m):
            if i == j:
                continue
            value = shown[i, j]
            mark = " *" if frozenset((models[i], models[j])) in significant else ""
            axis.text(
                j,
                i,
                f"{value:.2f}{mark}",
                ha="center",
                va="center",
                fontsize=8,
                color="white" if abs(value - 0.5) > 0.3 else "black",
            )
    # Full names on the rows (a vector source in parentheses on its own line), numbers on top.
    labels = [f"{k + 1}. " + _short(name, 60).replace(" (", "\n(") for k, name in enumerate(models)]
    axis.set_xticks(range(m))
    axis.set_xticklabels([str(k + 1) for k in range(m)], fontsize=8)
    axis.set_yticks(range(m))
    axis.set_yticklabels(labels, fontsize=7)
    colour_bar = figure.colorbar(image, ax=axis, shrink=0.8)
    colour_bar.set_label("P(row has the higher r than column)", fontsize=8)
    colour_bar.ax.tick_params(labelsize=7)
    adjust = result.settings.get("multiple_comparisons", "holm")
    test = result.settings.get("dependent_test", "meng1992")
    axis.set_title(
        f"{task}: win probabilities ({comparison.n_resamples} paired resamples)\n"
        f"*: {test} p ≤ {alpha:g}, {adjust}-adjusted over all pairs",
        fontsize=9,
    )
    figure.savefig(path, dpi=110)
    return path


def write_figures(result: LeaderboardResult, output: Path) -> list[Path]:
    """Write ``scatter_<task>.png`` and ``pairwise_<task>.png`` for every unit and
    ``forest.png``; return the paths."""
    paths = [
        scatter_plot(result, task.name, output / f"scatter_{slug(task.name)}.png")
        for task in result.tasks
    ]
    for task in result.tasks:
        heatmap = pairwise_heatmap(result, task.name, output / f"pairwise_{slug(task.name)}.png")
        if heatmap is not None:
            paths.append(heatmap)
    forest = forest_plot(result, output / "forest.png")
    return paths + ([forest] if forest is not None else [])
