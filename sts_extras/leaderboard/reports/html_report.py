"""``leaderboard.html``: the whole leaderboard as one self-contained web page.

One file to send or open offline: the CSS and the table-sorting script are inline, the figures
of the report set are embedded (SVG inline when written, else PNG as a data URI), and nothing is
fetched from the network. Per unit: the ranked table (click a column header to sort by it, click
again to reverse; the intervals are in the cells and each cell's hover text names its column),
the method of its pair decisions with what the calibration suite measured for it at the unit's n,
the groups the unit cannot separate, the minimal detectable Δr, the matrix of win probabilities
with the significant pairs marked † (the pair's one decision, as in the table), and the
figures. Then the mean rank across units, the settings and package versions, and relative links to
MTEB's result files (``mteb_results/...``) and per-pair predictions of the report set.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sts_extras.integrity import atomic_write_text
from sts_extras.io.paths import file_name as slug
from sts_extras.leaderboard.reports import markdown, tables
from sts_extras.leaderboard.reports.figures import PNG_DPI, TWO_COLUMN
from sts_extras.leaderboard.scoring import LeaderboardResult

__all__ = ["to_html", "write_html"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5rem auto;
max-width:80rem;padding:0 1rem;color:#1a1a1a;background:#fff;line-height:1.4}
h1{font-size:1.6rem}h2{font-size:1.3rem;margin-top:2.2rem;border-bottom:1px solid #ccc}
h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.9rem}
th,td{padding:.25rem .55rem;border-bottom:1px solid #e2e2e2;text-align:right;vertical-align:top}
td.name,th.name,td.text{text-align:left}
thead th{border-bottom:2px solid #333;background:#f4f4f4;white-space:nowrap}
table.sortable thead th{cursor:pointer;user-select:none}
table.sortable thead th[aria-sort=ascending]::after{content:" \\25B2"}
table.sortable thead th[aria-sort=descending]::after{content:" \\25BC"}
tr.baseline td{background:#f0f6fb}
td.matrix,td.num{font-variant-numeric:tabular-nums}td.num{white-space:nowrap}
.note{color:#444;font-size:.9rem}
figure{margin:1rem 0;max-width:100%}figure img,figure svg{width:100%;height:auto}
code{background:#f4f4f4;padding:0 .2rem}
"""

# Sorts a table by the clicked column: numbers (data-sort) numerically, other cells as text;
# a second click on the same column reverses the order; empty cells stay last.
_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("thead th").forEach(function (header, column) {
    header.addEventListener("click", function () {
      var ascending = header.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("thead th").forEach(function (other) {
        other.removeAttribute("aria-sort");
      });
      header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      function key(row) {
        var cell = row.cells[column];
        return cell ? cell.getAttribute("data-sort") : "";
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (x === "" || y === "") { return (x === "") - (y === ""); }
        var p = parseFloat(x), q = parseFloat(y);
        var order = (!isNaN(p) && !isNaN(q)) ? p - q : x.localeCompare(y);
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""

_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


def _sort_key(text: str, numeric: bool) -> str:
    """The value a cell sorts by: its first number (``numeric``), else its text."""
    if not numeric:
        return text
    match = _NUMBER.search(text)
    return match.group(0) if match else ""


def _table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    text_columns: Sequence[int] = (),
    classes: Sequence[str] = (),
    caption: str | None = None,
) -> list[str]:
    """A sortable HTML table; ``text_columns`` sort as text and are left-aligned."""
    out = ['<table class="sortable">']
    if caption:
        out.append(f"<caption class='note'>{html.escape(caption)}</caption>")
    out.append(
        "<thead><tr>"
        + "".join(
            f'<th class="{"name" if k in text_columns else "num"}" title="sort by '
            f'{html.escape(name)}">{html.escape(name)}</th>'
            for k, name in enumerate(header)
        )
        + "</tr></thead><tbody>"
    )
    for index, cells in enumerate(rows):
        css = f' class="{classes[index]}"' if index < len(classes) and classes[index] else ""
        out.append(
            f"<tr{css}>"
            + "".join(
                f'<td class="{"name" if k in text_columns else "num"}" '
                f'data-sort="{html.escape(_sort_key(cell, k not in text_columns))}" '
                f'title="{html.escape(header[k])}: {html.escape(cell)}">{html.escape(cell)}</td>'
                for k, cell in enumerate(cells)
            )
            + "</tr>"
        )
    out.append("</tbody></table>")
    return out


def _matrix(result: LeaderboardResult, task: str) -> list[str]:
    """The win probabilities of a unit as a table, † on the significant pairs."""
    comparison = result.pairwise.get(task)
    if comparison is None:
        return []
    significant = {
        frozenset((pair.model1, pair.model2)) for pair in comparison.pairs if pair.significant
    }
    models = comparison.models
    out = [
        "<h3>Pairwise: win probability P(row has the higher r than column)</h3>",
        f"<p class='note'>{comparison.n_resamples} paired resamples; {tables.MARK} marks the "
        f"significant pairs: {html.escape(comparison.method)}, p "
        f"{html.escape(tables.adjusted_over_pairs(result.settings))} (the pair's interval "
        "excludes 0), as in the table.</p>",
        '<table class="pairwise"><thead><tr><th class="name">row \\ column</th>'
        + "".join(f'<th title="{html.escape(name)}">{k + 1}</th>' for k, name in enumerate(models))
        + "</tr></thead><tbody>",
    ]
    for i, name in enumerate(models):
        cells = []
        for j, other in enumerate(models):
            if i == j:
                cells.append('<td class="matrix">—</td>')
                continue
            mark = tables.MARK if frozenset((name, other)) in significant else ""
            value = comparison.win_probability[i, j]
            cells.append(
                f'<td class="matrix" title="P({html.escape(name)} has the higher r than '
                f'{html.escape(other)}) = {value:.3f}">{value:.2f}{mark}</td>'
            )
        out.append(
            f'<tr><td class="name">{i + 1}. {html.escape(name)}</td>' + "".join(cells) + "</tr>"
        )
    out.append("</tbody></table>")
    return out


def _figure(folder: Path | None, stem: str, caption: str) -> list[str]:
    """A figure of the report set embedded: SVG inline if written, else the PNG as data URI;
    shown at 1.5 times its printed width."""
    if folder is None:
        return []
    svg, png = folder / f"{stem}.svg", folder / f"{stem}.png"
    if svg.is_file():
        text = svg.read_text(encoding="utf-8")
        body = text[text.index("<svg") :]  # without the XML declaration and doctype
        width = re.search(r'width="([\d.]+)pt"', body)
        inches = float(width.group(1)) / 72 if width else TWO_COLUMN
    elif png.is_file():
        data = png.read_bytes()
        inches = int.from_bytes(data[16:20], "big") / PNG_DPI  # IHDR: width in pixels
        encoded = base64.b64encode(data).decode("ascii")
        body = f'<img alt="{html.escape(caption)}" src="data:image/png;base64,{encoded}">'
    else:
        return []
    return [
        f'<figure style="width:{1.5 * 96 * inches:.0f}px">{body}'
        f"<figcaption class='note'>{html.escape(caption)}</figcaption></figure>"
    ]


def _links(folder: Path | None, subfolder: str) -> list[str]:
    """Relative links to every file under ``folder/subfolder``, as a list."""
    if folder is None or not (folder / subfolder).is_dir():
        return []
    files = sorted(path for path in (folder / subfolder).rglob("*") if path.is_file())
    items = [
        f'<li><a href="{html.escape(name)}">{html.escape(name)}</a></li>'
        for name in (path.relative_to(folder).as_posix() for path in files)
    ]
    return ["<ul>", *items, "</ul>"] if items else []


def _model_files(
    folder: Path | None, model_info: Mapping[str, Mapping[str, object]], name: str
) -> str:
    """Links to the MTEB result files of one model (its MTEB name and revision's folder)."""
    info = model_info.get(name, {})
    if folder is None or "mteb_name" not in info or "mteb_revision" not in info:
        return ""
    parts = (str(info["mteb_name"]).replace("/", "__"), str(info["mteb_revision"]))
    links = [
        f'<a href="{html.escape(path.relative_to(folder).as_posix())}">{html.escape(path.name)}</a>'
        for path in sorted((folder / "mteb_results").rglob("*.json"))
        if path.parent.parts[-2:] == parts
    ]
    return ", ".join(links)


def to_html(
    result: LeaderboardResult,
    *,
    folder: Path | None = None,
    versions: Mapping[str, str] | None = None,
    model_info: Mapping[str, Mapping[str, object]] | None = None,
    run_id: str | None = None,
) -> str:
    """The page of ``result``; ``folder`` is the report set it lives in (figures to embed and
    MTEB files to link, all optional)."""
    settings = result.settings
    info = model_info or {}
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>STS leaderboard</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>STS leaderboard</h1>",
        f"<p>Models ranked by Pearson r on each task. Baseline: "
        f"<strong>{html.escape(result.baseline)}</strong>. Click a column header to sort.</p>",
    ]
    header = tables.table_header(result)
    for task in result.tasks:
        low, high = task.score_range
        out.append(
            f'<h2 id="{html.escape(slug(task.name))}">{html.escape(task.name)} — '
            f"{task.gold.size} pairs, gold {low:g}–{high:g}</h2>"
        )
        decisions = tables.decision_line(result, task.name)
        if decisions:
            out.append(f"<p class='note'>{html.escape(decisions)}</p>")
        rows = tables.table_rows(result, task.name, escape=lambda text: text)
        classes = ["baseline" if cells[1] == result.baseline else "" for cells in rows]
        out += _table(header, rows, text_columns=(1, 5), classes=classes)
        edges = result.bin_edges(task.name)
        if edges:
            out.append(f"<p class='note'>Bins (gold score): {tables.bin_ranges(edges)}.</p>")
        out += [
            f"<p class='note'>{html.escape(line)}</p>"
            for line in tables.pairwise_lines(result, task.name, escape=lambda text: text)
        ]
        out += _matrix(result, task.name)
        name = slug(task.name)
        out += _figure(
            folder,
            f"pairwise_{name}",
            f"{task.name}: win probabilities, {tables.MARK} on the significant pairs",
        )
        out += _figure(
            folder, f"scatter_{name}", f"{task.name}: model score against gold score, by bin"
        )
    mean = tables.mean_rank_rows(result)
    if mean:
        level = settings.get("confidence_level", 0.95)
        out.append("<h2 id='mean-rank'>Mean rank across tasks</h2>")
        out += _table(
            ["Model", f"mean rank [{level:.0%}]", *(task.name for task in result.tasks)],
            mean,
            text_columns=(0,),
        )
    out += _figure(
        folder,
        "forest",
        "Δr against the baseline with each pair's interval (at the level that matches the "
        f"adjustment; filled: significant, {tables.MARK}), per task",
    )
    out += [
        "<h2 id='legend'>Legend</h2>",
        "<pre class='note' style='white-space:pre-wrap'>",
        html.escape(_legend(result)),
        "</pre>",
        "<h2 id='settings'>Settings and versions</h2>",
        "<table><tbody>",
        *(
            f'<tr><td class="name">{html.escape(str(key))}</td>'
            f'<td class="text">{html.escape(str(value))}</td></tr>'
            for key, value in [*settings.items(), *(versions or {}).items()]
        ),
        *([f'<tr><td class="name">run</td><td class="text">{run_id}</td></tr>'] if run_id else []),
        "</tbody></table>",
        "<h2 id='files'>Files</h2>",
        "<table><thead><tr><th class='name'>Model</th><th class='name'>kind</th>"
        "<th class='name'>MTEB result files</th></tr></thead><tbody>",
        *(
            f'<tr><td class="name">{html.escape(name)}</td>'
            f'<td class="text">{html.escape(str(info.get(name, {}).get("kind", "")))}</td>'
            f'<td class="text">{_model_files(folder, info, name)}</td></tr>'
            for name in result.models
        ),
        "</tbody></table>",
        '<p>The report set: <a href="leaderboard.md">leaderboard.md</a>, '
        '<a href="leaderboard.csv">leaderboard.csv</a>, '
        '<a href="leaderboard.json">leaderboard.json</a>, '
        '<a href="leaderboard.tex">leaderboard.tex</a>. MTEB result files '
        "(<code>mteb_results/</code>):</p>",
        *_links(folder, "mteb_results"),
        "<p>Per-pair predictions (<code>predictions/</code>):</p>",
        *_links(folder, "predictions"),
        f"<script>{_SCRIPT}</script>",
        "</body></html>",
    ]
    return "\n".join(out) + "\n"


def _legend(result: LeaderboardResult) -> str:
    """The legend of the Markdown report, as plain text."""
    text = markdown.to_markdown(result)
    legend = text[text.index("## Legend") + len("## Legend") :].strip()
    return legend.replace("**", "").replace("`", "").replace("\\*", "*").replace("\\|", "|")


def write_html(result: LeaderboardResult, path: Path, **kwargs: Any) -> Path:  # to_html's
    """Write :func:`to_html` to ``path`` (atomically), embedding the figures and linking the
    files of ``path``'s folder; ``kwargs`` go to :func:`to_html`."""
    atomic_write_text(path, to_html(result, folder=path.parent, **kwargs))
    return path
