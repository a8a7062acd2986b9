"""The figures of a ranking (matplotlib, Agg canvas): the CD diagram and the rank intervals.

* ``cd_diagram``: Demšar's (2006) critical-difference diagram as autorank draws it -- the
  models on an axis of their Friedman mean rank over the tasks (1 = best), the Nemenyi critical
  difference as a bar, and a thick line under each group of models whose mean ranks lie within
  it (not separable).
* ``rank_intervals``: each model's rank with its marginal rank confidence set (thick) and its
  simultaneous set (thin), Mogstad, Romano, Shaikh & Wilhelm (2024); own runs (item-level
  treatment) in vermillion, published models in blue.

About 180 models cannot be labelled readably in one figure: with more than ``top + 10`` ranked
models, both figures show the ``top`` best-ranked ones plus every own run, and say so in their
title; ranks, sets and groups are always those among all ranked models. Colours from Okabe &
Ito's palette; PNG at the leaderboard's resolution; no dates in the files.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from sts_extras.leaderboard.reports.figures import FONT_SIZE, OKABE_ITO, PNG_DPI, TWO_COLUMN
from sts_extras.optional import requires_extra

if TYPE_CHECKING:  # pragma: no cover -- matplotlib is imported when a figure is drawn
    from matplotlib.figure import Figure

    from sts_extras.rank.ranking import Ranking

__all__ = ["cd_diagram", "rank_intervals", "shown_models", "write_figures"]

_OWN, _PUBLISHED, _GROUP = OKABE_ITO[4], OKABE_ITO[3], "#000000"
#: Width of the CD diagram in inches: wider than a page column, for the names on both sides.
_CD_WIDTH = 1.4 * TWO_COLUMN
_METADATA: dict[str, dict[str, Any]] = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}


def _figure(
    width: float, height: float, layout: Literal["constrained"] | None = "constrained"
) -> Figure:
    """A stand-alone Agg figure (no pyplot: the caller's backend and figures are untouched)."""
    with requires_extra("figures"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout=layout)
    FigureCanvasAgg(figure)
    return figure


def _text(name: str, width: int = 48) -> str:
    """A name as literal text for matplotlib (no mathtext from a ``$``), shortened to ``width``
    characters (the middle elided)."""
    if len(name) > width:
        name = name[: width // 2 - 1] + "…" + name[-(width // 2 - 1) :]
    return name.replace("$", r"\$")


def _tick_step(span: int) -> int:
    return next((step for step in (1, 2, 5, 10, 20, 50, 100) if span / step <= 12), 200)


def _save(figure: Figure, folder: Path, stem: str, formats: Sequence[str]) -> list[str]:
    import matplotlib

    names = []
    with matplotlib.rc_context({"pdf.fonttype": 42, "svg.fonttype": "none", "svg.hashsalt": stem}):
        for suffix in formats:
            name = f"{stem}.{suffix}"
            figure.savefig(
                folder / name, format=suffix, dpi=PNG_DPI, metadata=_METADATA.get(suffix, {})
            )
            names.append(name)
    return names


def shown_models(names: Sequence[str], own: set[str], top: int) -> tuple[list[str], str]:
    """The models a figure shows (in the given order) and the sentence saying which."""
    if len(names) <= top + 10:
        return list(names), f"all {len(names)} models"
    shown = [name for k, name in enumerate(names) if k < top or name in own]
    extra = len(shown) - top
    plus = f" plus {extra} own run{'s' if extra != 1 else ''}" if extra else ""
    return shown, f"top {top} of {len(names)} models{plus}"


def cd_diagram(friedman: Any, own: set[str], *, top: int = 30, title: str | None = None) -> Figure:
    """The critical-difference diagram of a Friedman/Nemenyi result
    (:class:`~sts_extras.stats.cross_task.FriedmanNemenyiResult`)."""
    order = sorted(range(len(friedman.models)), key=lambda k: (friedman.mean_rank[k], k))
    names = [friedman.models[k] for k in order]
    ranks = {friedman.models[k]: float(friedman.mean_rank[k]) for k in order}
    shown, which = shown_models(names, own, top)
    low = math.floor(min(ranks[n] for n in shown))
    high = math.ceil(max(ranks[n] for n in shown))
    high = max(high, low + 1)

    def x(rank: float) -> float:  # the axis spans the middle of the figure
        return 0.37 + 0.26 * (rank - low) / (high - low)

    half = math.ceil(len(shown) / 2)
    groups = [
        [n for n in group if n in shown]
        for group in friedman.groups
        if sum(n in shown for n in group) >= 2
    ]
    row = 1.0
    group_rows = len(groups)
    top_label = -(1.2 + 0.35 * group_rows)
    height = 0.55 + 0.17 * (half + 2 + 0.35 * group_rows)
    # placed by hand (every element is in data coordinates of one axes without frame): the
    # constrained layout would measure each of the ~30 labels, for nothing
    figure = _figure(_CD_WIDTH, height, layout=None)
    axes = figure.add_axes((0.0, 0.0, 1.0, 1.0 - 0.45 / height))
    axes.set_axis_off()
    axes.set_xlim(0, 1)
    axes.set_ylim(top_label - half * row - 0.5, 1.6)
    axes.plot([x(low), x(high)], [0, 0], color="black", linewidth=0.8)
    step = _tick_step(high - low)
    for tick in range(low, high + 1, step):
        axes.plot([x(tick), x(tick)], [0, 0.2], color="black", linewidth=0.8)
        axes.text(x(tick), 0.35, str(tick), ha="center", va="bottom", fontsize=FONT_SIZE)
    cd = float(friedman.critical_difference)
    if low + cd <= high:
        axes.plot([x(low), x(low + cd)], [1.3, 1.3], color="black", linewidth=1.2)
        axes.text(
            x(low + cd / 2), 1.45, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=FONT_SIZE
        )
    for j, group in enumerate(groups):
        y = -0.6 - 0.35 * j
        axes.plot(
            [x(ranks[group[0]]) - 0.004, x(ranks[group[-1]]) + 0.004],
            [y, y],
            color=_GROUP,
            linewidth=2.2,
            solid_capstyle="round",
        )
    for i, name in enumerate(shown):
        left = i < half
        y = top_label - (i if left else i - half) * row
        end = 0.35 if left else 0.65
        colour = _OWN if name in own else "black"
        axes.plot([x(ranks[name])] * 2 + [end], [0, y, y], color=colour, linewidth=0.6)
        short = _text(name, 44)
        label = f"{short} ({ranks[name]:.1f})" if left else f"({ranks[name]:.1f}) {short}"
        axes.text(
            end + (-0.005 if left else 0.005),
            y,
            label,
            ha="right" if left else "left",
            va="center",
            fontsize=FONT_SIZE - 1,
            color=colour,
        )
    axes.set_title(
        title
        or (
            f"Friedman mean rank over {friedman.n_tasks} tasks ({which}, own runs in vermillion)"
            f"\nbars: groups within Nemenyi's critical difference CD = {cd:.2f} "
            f"(alpha = {friedman.alpha:g}), not separable"
        ),
        fontsize=FONT_SIZE,
    )
    return figure


def rank_intervals(ranking: Ranking, *, top: int = 30) -> Figure:
    """Each model's rank with its marginal (thick) and simultaneous (thin) rank confidence set."""
    own = {m.model for m in ranking.models if m.treatment == "item-level"}
    shown, which = shown_models([m.model for m in ranking.models], own, top)
    rows = [ranking.model(name) for name in shown]
    height = 0.9 + 0.15 * len(rows)
    figure = _figure(TWO_COLUMN, height)
    axes = figure.add_subplot()
    for y, m in enumerate(rows):
        colour = _OWN if m.model in own else _PUBLISHED
        axes.plot(
            [m.simultaneous_rank_low, m.simultaneous_rank_high], [y, y], color=colour, linewidth=0.8
        )
        axes.plot([m.rank_low, m.rank_high], [y, y], color=colour, linewidth=3.0, alpha=0.6)
        axes.plot([m.rank], [y], marker="o", markersize=3, color=colour)
    axes.set_yticks(range(len(rows)))
    axes.set_yticklabels(
        [_text(m.model) + (" *" if m.in_best_set else "") for m in rows], fontsize=FONT_SIZE - 1
    )
    for label, m in zip(axes.get_yticklabels(), rows):
        label.set_color(_OWN if m.model in own else "black")
    axes.invert_yaxis()
    axes.set_xlabel(
        f"rank (1 = best of {len(ranking.models)}); thick: marginal set, thin: simultaneous",
        fontsize=FONT_SIZE,
    )
    axes.grid(axis="x", linewidth=0.3, alpha=0.5)
    level = f"{100 * (1 - ranking.settings['alpha']):g}%"
    figure.suptitle(
        f"{level} rank confidence sets (Mogstad et al. 2024), {which}\n"
        "own runs (item-level) in vermillion; * in the confidence set of the best model",
        fontsize=FONT_SIZE,
    )
    axes.tick_params(labelsize=FONT_SIZE - 1)
    return figure


def write_figures(
    ranking: Ranking, friedman: Any, folder: Path, *, top: int, formats: Sequence[str]
) -> list[str]:
    """Draw both figures into ``folder`` in each format; return the file names written."""
    with requires_extra("figures"):
        import matplotlib

    own = {m.model for m in ranking.models if m.treatment == "item-level"}
    with matplotlib.rc_context({"font.size": FONT_SIZE, "axes.titlesize": FONT_SIZE}):
        names = _save(rank_intervals(ranking, top=top), folder, "rank_intervals", formats)
        if friedman is not None:
            names += _save(cd_diagram(friedman, own, top=top), folder, "cd_diagram", formats)
    return names
