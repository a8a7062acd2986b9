"""Figures of the leaderboard (matplotlib, Agg canvas), sized for a paper: per-task scatter plots
and heat maps of the pairwise comparisons, and a forest plot of the comparisons with the baseline.

Every figure is written in each format asked for (``pdf``, ``png``, ``svg``), PNG at
:data:`PNG_DPI`. Sizes are those of an ACL-style page: the scatter plots and the forest plot span
both columns (:data:`TWO_COLUMN` wide), a heat map of up to :data:`ONE_COLUMN_MODELS` models fits
one column (:data:`ONE_COLUMN` wide; larger ones span both). No text is smaller than
:data:`FONT_SIZE` pt at that size. Models appear in the order of the task's table (best first)
in every figure and label it by name; the panels of a scatter plot share the gold-score axis
but each has its own model-score range (similarity measures have different ranges); every figure
uses the tables' one significance decision per pair, stated in its legend (the forest plot:
filled = the pair's interval of Δr, drawn at the per-pair level that matches the adjustment over
the task's pairs, excludes 0, the table's †; the heat map: † on the same significant pairs);
legends sit outside the data;
colours come from the Okabe & Ito (2008) colour-blind-safe palette. Identical results give
byte-identical files (no dates in the PDF/SVG metadata, fixed SVG ids).
"""

from __future__ import annotations

import contextlib
import math
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sts_extras.io.paths import file_name as slug
from sts_extras.leaderboard.reports.tables import MARK, adjusted_over_pairs
from sts_extras.leaderboard.scoring import LeaderboardResult, ModelTaskFailure
from sts_extras.leaderboard.settings import DEFAULT_FIGURE_FORMATS
from sts_extras.optional import requires_extra
from sts_extras.stats.correlation import assign_segments

if TYPE_CHECKING:  # pragma: no cover -- matplotlib is imported when a figure is drawn
    from matplotlib.figure import Figure

__all__ = [
    "FONT_SIZE",
    "ONE_COLUMN",
    "ONE_COLUMN_MODELS",
    "OKABE_ITO",
    "PNG_DPI",
    "TWO_COLUMN",
    "forest_plot",
    "pairwise_heatmap",
    "scatter_plot",
    "write_figures",
]

#: Width in inches of one column of a two-column paper (ACL: 3.3 in).
ONE_COLUMN = 3.3
#: Width in inches of a figure spanning both columns (ACL text width: 6.8 in).
TWO_COLUMN = 6.8
#: The smallest font size used, in points at the figure's size.
FONT_SIZE = 8
#: Resolution of the PNG files.
PNG_DPI = 300
#: Heat maps of at most this many models are one column wide.
ONE_COLUMN_MODELS = 4
#: Okabe & Ito's (2008) palette, distinguishable with every common colour-vision deficiency.
OKABE_ITO = (
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#009E73",  # bluish green
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#F0E442",  # yellow (last: faint on white)
    "#000000",
)
_BETTER, _WORSE = "#0072B2", "#D55E00"  # forest plot: Δr above / below 0

_STYLE: dict[str, Any] = {
    # names come from outside: "$...$" in a model or task name is text, never mathtext (which
    # would fail to draw on "$\foo$"); the figures' own texts use no "$"
    "text.parse_math": False,
    "font.size": FONT_SIZE,
    "axes.titlesize": FONT_SIZE + 1,
    "axes.labelsize": FONT_SIZE,
    "xtick.labelsize": FONT_SIZE,
    "ytick.labelsize": FONT_SIZE,
    "legend.fontsize": FONT_SIZE,
    "legend.title_fontsize": FONT_SIZE,
    "figure.titlesize": FONT_SIZE + 1,
    "figure.labelsize": FONT_SIZE,
    # text stays text: selectable in the PDF (TrueType), readable in the SVG
    "pdf.fonttype": 42,
    "svg.fonttype": "none",
    # fixed ids in the SVG instead of random ones: identical figures, identical bytes
    "svg.hashsalt": "sts-extras",
}
# what would otherwise vary between two runs drawing the same figure
_METADATA = {"pdf": {"CreationDate": None}, "svg": {"Date": None}, "png": {}}


@contextlib.contextmanager
def _style() -> Iterator[None]:
    """The figures' rc settings, for drawing and saving (the caller's settings are restored)."""
    with requires_extra("figures"):
        import matplotlib
        from matplotlib.rcsetup import cycler

    settings: Any = {**_STYLE, "axes.prop_cycle": cycler(color=OKABE_ITO)}
    with matplotlib.rc_context(settings):
        yield


def _figure(width: float, height: float) -> Figure:
    """A stand-alone Agg figure: no pyplot, so the caller's backend and open figures are
    untouched (e.g. in a notebook)."""
    with requires_extra("figures"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _save(figure: Figure, path: Path, formats: Sequence[str] | None) -> Path:
    """Save ``figure`` to ``path`` and beside it in each of ``formats`` (same name, their
    suffix); return ``path``."""
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    wanted = [path.suffix.lstrip(".").lower() or "png", *(formats or ())]
    for name in dict.fromkeys(wanted):
        target = path if name == wanted[0] else path.with_name(f"{stem}.{name}")
        figure.savefig(target, format=name, dpi=PNG_DPI, metadata=_METADATA.get(name, {}))
        # the constrained layout is placed (in figure fractions, the same in every format):
        # keep it instead of solving it again for each format (a quarter of the saving time)
        figure.set_layout_engine("none")
    return path


def _wrap(name: str, width: int = 28) -> str:
    """A model name on short lines: the source in parentheses on its own, long parts broken."""
    head, paren, tail = name.partition(" (")
    parts = [head, paren.strip() + tail] if paren else [head]
    return "\n".join(line for part in parts for line in textwrap.wrap(part, width) or [part])


def scatter_plot(
    result: LeaderboardResult, task: str, path: Path, *, formats: Sequence[str] | None = None
) -> Path:
    """Model score against gold score, one panel per model in table order, points coloured by
    gold-score bin; two columns wide, panels sharing the gold-score axis, each with its own
    model-score range (a measure whose scores span 0.2-0.4 is not flattened by one spanning -1 to
    1), the bin legend below them.

    Saved to ``path`` and, for each of ``formats``, beside it with that suffix; returns ``path``.
    """
    unit = next(item for item in result.tasks if item.name == task)
    rows = result.stats_for(task)
    columns = min(4, len(rows))
    lines = math.ceil(len(rows) / columns)
    edges = result.bin_edges(task)
    ids = assign_segments(unit.gold, edges) if edges else np.zeros(unit.gold.size, dtype=int)
    low, high = unit.score_range
    with _style():
        figure = _figure(TWO_COLUMN, 1.9 * lines + 0.9)
        axes = figure.subplots(lines, columns, squeeze=False, sharex=True, sharey=False)
        for axis, row in zip(axes.flat, rows):
            name = _wrap(row.model, 26)
            if row.model == result.baseline:
                first, _, rest = name.partition("\n")
                name = f"{first} [baseline]" + (f"\n{rest}" if rest else "")
            axis.set_xlim(low - 0.04 * (high - low), high + 0.04 * (high - low))
            if isinstance(row, ModelTaskFailure):
                axis.set_title(f"{name}\nfailed", fontsize=FONT_SIZE)
                continue
            scaled = "—" if row.scaled_pearson is None else f"{row.scaled_pearson:.3f}"
            axis.set_title(f"{name}\nr = {row.pearson:.3f}, scaled {scaled}", fontsize=FONT_SIZE)
            scores = np.asarray(row.scores)
            for index in range(max(len(edges) - 1, 1)):
                mask = ids == index
                label = None
                if edges:
                    closing = "]" if index == len(edges) - 2 else ")"
                    label = f"[{edges[index]:.3g}, {edges[index + 1]:.3g}{closing}"
                axis.scatter(
                    unit.gold[mask],
                    scores[mask],
                    s=9,
                    alpha=0.85,
                    label=label,
                    color=OKABE_ITO[index % len(OKABE_ITO)],
                    edgecolors="none",
                )
            for edge in edges[1:-1]:
                axis.axvline(edge, color="0.75", linewidth=0.6, linestyle=":")
        for index, axis in enumerate(axes.flat):
            if index >= len(rows):
                axis.set_visible(False)
            if index % columns == 0:
                axis.set_ylabel("model score")
            if index + columns >= len(rows):  # the lowest panel of its column
                axis.set_xlabel("gold score")
                axis.xaxis.set_tick_params(labelbottom=True)
        if edges:
            handles, labels = next(
                (axis.get_legend_handles_labels() for axis in axes.flat if axis.collections),
                ([], []),
            )
            if handles:
                figure.legend(
                    handles,
                    labels,
                    loc="outside lower center",
                    ncols=len(handles),
                    frameon=False,
                    title="gold-score bin (the r of each bin is in the table)",
                    markerscale=1.5,
                )
        figure.suptitle(f"{task}: model score against gold score (models in table order)")
        return _save(figure, path, formats)


def forest_plot(
    result: LeaderboardResult, path: Path, *, formats: Sequence[str] | None = None
) -> Path | None:
    """Δr = r(model) − r(baseline) with the pairs' intervals: one panel per task (stacked, sharing
    the Δr axis, the task's method in its title), models in the order of the task's table, the
    baseline at 0; None if no task has a comparison. Saved to ``path`` and, for each of
    ``formats``, beside it; returns ``path``.

    The one decision of each pair, the one drawn: the interval is the table's (at the per-pair
    level that matches the adjustment over the task's pairs), the marker filled when the pair is
    significant, which is when that interval excludes 0 (the table's †), hollow otherwise; the
    legend says so."""
    shown = [
        task.name
        for task in result.tasks
        if any(
            item.task == task.name
            and item.delta is not None
            and item.confidence_interval is not None
            for item in result.comparisons
        )
    ]
    if not shown:
        return None
    level = result.settings.get("confidence_level", 0.95)
    heights = [len(result.stats_for(task)) for task in shown]
    with requires_extra("figures"):
        from matplotlib.lines import Line2D
    with _style():
        figure = _figure(TWO_COLUMN, 0.22 * sum(heights) + 0.45 * len(shown) + 0.9)
        axes = figure.subplots(
            len(shown), 1, sharex=True, squeeze=False, height_ratios=[h + 1.5 for h in heights]
        )[:, 0]
        for axis, task in zip(axes, shown):
            rows = result.stats_for(task)
            for position, row in enumerate(rows):
                y = len(rows) - 1 - position  # first row of the table on top
                if row.model == result.baseline:
                    axis.plot(0.0, y, marker="D", color="black", markersize=5)
                    continue
                item = result.comparison(task, row.model)
                if item is None or item.delta is None or item.confidence_interval is None:
                    continue
                colour = _BETTER if item.delta > 0 else _WORSE
                axis.plot(list(item.confidence_interval), [y, y], color=colour, linewidth=1.5)
                axis.plot(
                    item.delta,
                    y,
                    marker="o",
                    color=colour,
                    markerfacecolor=colour if item.significant else "white",
                    markersize=5,
                )
            axis.axvline(0.0, color="0.5", linestyle="--", linewidth=0.8)
            axis.set_yticks(range(len(rows) - 1, -1, -1))
            axis.set_yticklabels([row.model for row in rows])
            axis.set_ylim(-0.6, len(rows) - 0.4)
            comparison = result.pairwise.get(task)
            method = f" ({comparison.method})" if comparison is not None else ""
            axis.set_title(f"{task}{method}", loc="left")
        axes[-1].set_xlabel(
            f"Δr = r(model) − r({result.baseline})\n"
            f"each interval at the level of its decision (family level {level:.0%}):\n"
            f"p {adjusted_over_pairs(result.settings)}"
        )
        legend = [
            Line2D(
                [],
                [],
                marker="o",
                color="0.3",
                linestyle="",
                label=f"significant: interval excludes 0 ({MARK})",
            ),
            Line2D(
                [],
                [],
                marker="o",
                color="0.3",
                markerfacecolor="white",
                linestyle="",
                label="interval includes 0",
            ),
            Line2D([], [], marker="D", color="black", linestyle="", label="baseline"),
        ]
        figure.legend(handles=legend, loc="outside lower center", ncols=3, frameon=False)
        figure.suptitle("Difference in Pearson r from the baseline (models in table order)")
        return _save(figure, path, formats)


def _short(name: str, size: int) -> str:
    return name if len(name) <= size else name[: size - 3] + "..."


def _label(name: str, width: int = 18, lines: int = 3) -> str:
    """A model name as a heat-map label: at most ``lines`` lines of ``width`` characters (a cell
    is as tall as three lines); a longer name keeps its start and its end, "…" between."""
    wrapped = _wrap(name, width).splitlines()
    if len(wrapped) > lines:
        wrapped = [*wrapped[: lines - 2], wrapped[lines - 2] + "…", wrapped[-1]]
    return "\n".join(wrapped)


def pairwise_heatmap(
    result: LeaderboardResult, task: str, path: Path, *, formats: Sequence[str] | None = None
) -> Path | None:
    """Win probabilities P(row model has the higher r than column model) of one unit, models in
    table order, † on the significant pairs (the pair's one decision, the table's †); one column
    wide
    up to :data:`ONE_COLUMN_MODELS` models; None with fewer than 2 scored models. Saved to
    ``path`` and, for each of ``formats``, beside it; returns ``path``."""
    comparison = result.pairwise.get(task)
    if comparison is None:
        return None
    models = comparison.models
    m = len(models)
    shown = comparison.win_probability.copy()
    shown[np.diag_indices(m)] = np.nan
    significant = {
        frozenset((pair.model1, pair.model2)) for pair in comparison.pairs if pair.significant
    }
    caption = [
        "cell: P(row has the higher r than column)",
        f"over {comparison.n_resamples} paired resamples;",
        f"{MARK}: significant, {comparison.method} interval",
        f"p {adjusted_over_pairs(result.settings).replace(' of the task', '')}",
        "(as in the table)",
    ]
    wide = m > ONE_COLUMN_MODELS
    with _style():
        cell = 0.5 if m <= 8 else 4.0 / m
        names = [_label(name) for name in models]
        # the column names stand on top, turned: as tall as the longest line is long
        label_height = 0.07 * max(len(line) for name in names for line in name.splitlines())
        figure = _figure(
            TWO_COLUMN if wide else ONE_COLUMN,
            cell * m + 0.16 * len(caption) + 0.8 + label_height,
        )
        axis = figure.subplots()
        # RdBu: a diverging map that stays readable with colour-vision deficiencies
        # aspect "auto": the map fills the height its rows were given (three lines of a name
        # each). Square cells, as narrow as the width the names leave, made the map shorter than
        # that and left a blank band between it and the caption below.
        image = axis.imshow(shown, cmap="RdBu", vmin=0.0, vmax=1.0, aspect="auto")
        for i in range(m):
            for j in range(m):
                if i == j:
                    continue
                value = shown[i, j]
                mark = MARK if frozenset((models[i], models[j])) in significant else ""
                axis.text(
                    j,
                    i,
                    f"{value:.2f}{mark}",
                    ha="center",
                    va="center",
                    color="white" if abs(value - 0.5) > 0.3 else "black",
                )
        # the models' names (the table's order) on both axes: rows on the left, columns on top
        axis.set_xticks(range(m))
        axis.set_xticklabels(names, rotation=90, ha="center", va="bottom")
        axis.xaxis.tick_top()
        axis.set_yticks(range(m))
        axis.set_yticklabels(names)
        colour_bar = figure.colorbar(image, ax=axis, shrink=0.8, aspect=15, pad=0.03)
        colour_bar.set_ticks([0.0, 0.5, 1.0])
        figure.supxlabel("\n".join(caption), multialignment="left")
        axis.set_title(f"{task}: win probability", loc="left")
        return _save(figure, path, formats)


def write_figures(
    result: LeaderboardResult, output: Path, formats: Sequence[str] = DEFAULT_FIGURE_FORMATS
) -> list[Path]:
    """Write ``scatter_<task>``, ``pairwise_<task>`` for every unit and ``forest`` in each of
    ``formats``; return the paths (every format of a figure together, in ``formats`` order)."""
    first, *others = formats

    def paths(stem: str) -> list[Path]:
        return [output / f"{stem}.{name}" for name in formats]

    written = []
    for task in result.tasks:
        stem = f"scatter_{slug(task.name)}"
        scatter_plot(result, task.name, output / f"{stem}.{first}", formats=others)
        written += paths(stem)
    for task in result.tasks:
        stem = f"pairwise_{slug(task.name)}"
        if pairwise_heatmap(result, task.name, output / f"{stem}.{first}", formats=others):
            written += paths(stem)
    if forest_plot(result, output / f"forest.{first}", formats=others) is not None:
        written += paths("forest")
    return written
