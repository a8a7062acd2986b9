"""The report files of a ranking: JSON, CSV, Markdown, LaTeX and one offline HTML page.

Formatting only: every number comes from the :class:`~sts_extras.rank.pipeline.Ranking`. Each
format escapes names from outside (model names from result files and leaderboard outputs) with
its one escaper: Markdown by :func:`sts_extras.io.report_text.escape_markdown`, CSV text cells by
:func:`sts_extras.io.csv_cells.frame_csv_text` (OWASP's rule against formula injection), HTML by
:func:`html.escape`, LaTeX by :func:`sts_extras.leaderboard.reports.latex.escape`, JSON by
:mod:`json`. Files are written atomically.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sts_extras.integrity import atomic_write_text
from sts_extras.io.report_text import escape_markdown

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from sts_extras.rank.ranking import Ranking

__all__ = [
    "ranking_table",
    "summary_lines",
    "write_csv",
    "write_html",
    "write_json",
    "write_latex",
    "write_markdown",
]


def write_json(ranking: Ranking, path: Path) -> None:
    """``ranking.json``: :attr:`Ranking.record` (strict JSON: no NaN)."""
    atomic_write_text(
        path, json.dumps(ranking.record, indent=1, ensure_ascii=False, allow_nan=False)
    )


def ranking_table(ranking: Ranking) -> pd.DataFrame:
    """One row per ranked model, best first: rank, its sets, mean score and each task's score."""
    import pandas as pd

    rows = []
    for m in ranking.models:
        row: dict[str, object] = {
            "rank": m.rank,
            "rank_low": m.rank_low,
            "rank_high": m.rank_high,
            "simultaneous_rank_low": m.simultaneous_rank_low,
            "simultaneous_rank_high": m.simultaneous_rank_high,
            "in_best_set": m.in_best_set,
            "model": m.model,
            "revision": m.revision,
            "treatment": m.treatment,
            "mean_score": m.mean_score,
            "friedman_mean_rank": m.friedman_mean_rank,
        }
        for task in ranking.tasks:
            row[task] = m.scores.get(task)
        rows.append(row)
    return pd.DataFrame(rows)


def write_csv(ranking: Ranking, path: Path) -> None:
    """``ranking.csv``: :func:`ranking_table`, text cells neutralised for spreadsheets."""
    from sts_extras.io.csv_cells import frame_csv_text

    atomic_write_text(path, frame_csv_text(ranking_table(ranking)))


def summary_lines(ranking: Ranking, name: Callable[[str], str] = str) -> list[str]:
    """The findings in sentences, each model name through ``name`` (the format's escaper)."""
    lines = [
        f"{len(ranking.models)} models ranked on {len(ranking.tasks)} tasks "
        f"({', '.join(ranking.tasks)}); {len(ranking.left_out)} left out, "
        f"{len(ranking.refused)} files refused.",
    ]
    joinable = sum("--revisions join" in entry.reason for entry in ranking.left_out)
    if joinable:
        lines.append(
            f"{joinable} of those left out have their missing tasks in another revision folder: "
            "--revisions join ranks them (as MTEB's leaderboard joins revisions)."
        )
    separable = ranking.separable
    if separable is not None:
        lines.append(
            f"Adjacent pairs separable ({separable['n_models']} models with every task, "
            f"{separable['n_pairs']} adjacent pairs): {separable['nemenyi']} by Nemenyi's "
            f"test after Friedman's (alpha = {separable['alpha']:g}), {separable['bayesian']} "
            f"by the Bayesian signed-rank test (P > {separable['threshold']:g} outside a ROPE "
            f"of ±{separable['rope']:g})."
        )
    item = [m.model for m in ranking.models if m.treatment == "item-level"]
    lines.append(
        "Item-level treatment (per-pair bootstrap within each task): "
        + (", ".join(map(name, item)) if item else "none")
        + "; every other model: task-level (Fisher-z from the task's n)."
    )
    return lines


def _level(ranking: Ranking) -> str:
    return f"{100 * (1 - ranking.settings['alpha']):g}%"


def write_markdown(ranking: Ranking, path: Path, *, run_id: str) -> None:
    """``ranking.md``: the summary, the table (names escaped), and what each column means."""
    level = _level(ranking)
    header = [
        "rank",
        f"rank set ({level})",
        "simultaneous",
        "best set",
        "model",
        "treatment",
        "mean",
        *ranking.tasks,
    ]
    lines = ["# Ranking on MTEB's English STS tasks", ""]
    lines += summary_lines(ranking, escape_markdown)
    lines += ["", "| " + " | ".join(escape_markdown(h) for h in header) + " |"]
    lines.append(
        "|" + "|".join("--:" if k < 4 or k > 5 else ":--" for k in range(len(header))) + "|"
    )
    for m in ranking.models:
        cells = [
            str(m.rank),
            f"[{m.rank_low}, {m.rank_high}]",
            f"[{m.simultaneous_rank_low}, {m.simultaneous_rank_high}]",
            "yes" if m.in_best_set else "",
            escape_markdown(m.model),
            m.treatment,
            f"{m.mean_score:.4f}",
            *(f"{m.scores[t]:.4f}" if t in m.scores else "—" for t in ranking.tasks),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    if ranking.left_out:
        lines += ["", f"## Left out ({len(ranking.left_out)})", ""]
        lines += [
            f"- {escape_markdown(item.model)}: {escape_markdown(item.reason)}"
            for item in ranking.left_out
        ]
    lines += [
        "",
        "## Legend",
        "",
        f"- **rank**: by mean score over the tasks (MTEB's main score, cosine_spearman). **rank "
        f"set**: the marginal {level} rank confidence set (Mogstad, Romano, Shaikh & Wilhelm "
        "2024): it holds this model's true rank with that probability. **simultaneous**: all "
        "these sets together hold all true ranks. **best set**: the confidence set of the best "
        "model.",
        "- **treatment**: item-level models (from a leaderboard output) are resampled on their "
        "pairs within each task; task-level models (published) carry the uncertainty their "
        "task's n gives (Fisher-z); the tasks are resampled for both.",
        f"- `ranking.json` holds every score, interval, rule, refused file and left-out model. "
        f"Run `{run_id}` (the xxh3-128 digest of `ranking.json`).",
    ]
    atomic_write_text(path, "\n".join(lines) + "\n")


def write_latex(ranking: Ranking, path: Path) -> None:
    """``ranking.tex``: a booktabs ``longtable`` of the ranked models (``\\usepackage{booktabs,
    longtable}``)."""
    from sts_extras.leaderboard.reports.latex import escape

    level = _level(ranking)
    columns = "r" * 3 + "l" + "r" * (1 + len(ranking.tasks))
    head = " & ".join(
        [
            "Rank",
            f"Set ({escape(level)})",
            "Simult.",
            "Model",
            "Mean",
            *(escape(task) for task in ranking.tasks),
        ]
    )
    lines = [
        f"\\begin{{longtable}}{{{columns}}}",
        f"\\caption{{Models ranked by mean cosine\\_spearman over {len(ranking.tasks)} STS tasks, "
        f"with {escape(level)} rank confidence sets (marginal and simultaneous; Mogstad et al. "
        "2024). $^*$: in the confidence set of the best model; $^\\dagger$: item-level "
        "treatment (own run).}\\label{tab:ranking}\\\\",
        "\\toprule",
        head + " \\\\",
        "\\midrule",
        "\\endhead",
    ]
    for m in ranking.models:
        marks = ("$^*$" if m.in_best_set else "") + (
            "$^\\dagger$" if m.treatment == "item-level" else ""
        )
        cells = [
            str(m.rank),
            f"[{m.rank_low}, {m.rank_high}]",
            f"[{m.simultaneous_rank_low}, {m.simultaneous_rank_high}]",
            escape(m.model) + marks,
            f"{m.mean_score:.4f}",
            *(f"{m.scores[t]:.4f}" if t in m.scores else "--" for t in ranking.tasks),
        ]
        lines.append(" & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{longtable}"]
    atomic_write_text(path, "\n".join(lines) + "\n")


_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}"
    "table{border-collapse:collapse;font-size:90%}th,td{padding:2px 8px;border-bottom:1px solid "
    "#ddd;text-align:right}td.name{text-align:left}img{max-width:100%}"
)


def write_html(ranking: Ranking, path: Path, *, figures: Sequence[str], run_id: str) -> None:
    """``ranking.html``: one offline page, the PNG figures embedded, every name escaped."""
    level = _level(ranking)
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>Ranking</title><style>{_CSS}</style></head><body>",
        "<h1>Ranking on MTEB's English STS tasks</h1>",
    ]
    parts += [f"<p>{line}</p>" for line in summary_lines(ranking, html.escape)]
    for name in figures:
        if not name.endswith(".png"):
            continue
        data = base64.b64encode((path.parent / name).read_bytes()).decode("ascii")
        parts.append(f'<p><img alt="{html.escape(name)}" src="data:image/png;base64,{data}"></p>')
    header = ["rank", f"rank set ({level})", "simultaneous", "best set", "model", "treatment"]
    header += ["mean", *ranking.tasks]
    parts.append("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>")
    for m in ranking.models:
        cells = [
            f"<td>{m.rank}</td>",
            f"<td>[{m.rank_low}, {m.rank_high}]</td>",
            f"<td>[{m.simultaneous_rank_low}, {m.simultaneous_rank_high}]</td>",
            f"<td>{'yes' if m.in_best_set else ''}</td>",
            f"<td class='name'>{html.escape(m.model)}</td>",
            f"<td class='name'>{m.treatment}</td>",
            f"<td>{m.mean_score:.4f}</td>",
            *(
                f"<td>{m.scores[t]:.4f}</td>" if t in m.scores else "<td>—</td>"
                for t in ranking.tasks
            ),
        ]
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</table>")
    if ranking.left_out:
        parts.append(f"<h2>Left out ({len(ranking.left_out)})</h2><ul>")
        parts += [
            f"<li>{html.escape(item.model)}: {html.escape(item.reason)}</li>"
            for item in ranking.left_out
        ]
        parts.append("</ul>")
    parts.append(f"<p>Run {html.escape(run_id)}; ranking.json holds every number.</p>")
    parts.append("</body></html>")
    atomic_write_text(path, "\n".join(parts) + "\n")
