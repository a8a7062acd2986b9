"""``leaderboard.tex``: the leaderboard's tables for a paper (LaTeX, ``booktabs``).

One ``table*`` per unit with the columns and the significance mark of the Markdown table (numbers
to 3 decimals; † on a pair's interval of Δr excluding 0, at the per-pair level that matches the
adjustment: the pair's one decision), a caption with the settings (paired bootstrap resamples,
seed, the method the unit used and its measured level, the adjustment) and a
``\\label`` (``tab:leaderboard-<unit>``), then the mean rank across units. The file holds only
the tables: ``\\input{leaderboard.tex}`` it from a document whose preamble loads ``booktabs``
(and ``graphicx``, which nearly every paper loads); it compiles with plain ``pdflatex``. Model
names and messages are escaped, so any name prints as it is (control characters as their code
points, ``<U+000A>``; characters outside Latin scripts need a Unicode engine such as
``lualatex``).

Every table fits the line it is set in: a one-column ``article`` (345 pt), both columns of a
two-column paper for the unit tables (``table*``) and one column (about 230-250 pt) for the
mean-rank table. The layout does it (``\\footnotesize``, long model names broken after ``/`` and
``-`` onto lines of at most :data:`NAME_WIDTH` characters, intervals and per-bin values on lines
of their own, the level's ``%`` in the header, the adjustment's name in the caption): the
default run's tables fit a one-column ``article`` at their natural size, so a preamble with
``booktabs`` alone sets them. A table still wider than the line (many units, many bins) is
shrunk to it by ``\\stsextrasfit`` (``graphicx``'s ``\\resizebox``; without ``graphicx`` it
stays as it is, with a warning), which writes ``sts-extras: table shrunk ...`` to the log when
it does.
"""

from __future__ import annotations

import re
from pathlib import Path

from sts_extras.integrity import atomic_write_text
from sts_extras.io.paths import file_name as slug
from sts_extras.io.report_text import show_controls
from sts_extras.leaderboard.reports import tables
from sts_extras.leaderboard.scoring import LeaderboardResult

__all__ = ["NAME_WIDTH", "escape", "table_label", "to_latex", "write_latex"]

#: Longest line of a model name in a table, in characters; longer names are broken after ``/``,
#: ``-``, ``_`` or a space (or, as a last resort, anywhere).
NAME_WIDTH = 14

# LaTeX's special characters, and the symbols of the reports, in text mode
_REPLACEMENTS = {
    "\\": r"$\backslash$",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"$<$",
    ">": r"$>$",
    "|": r"$|$",
    "—": "---",
    "–": "--",
    "−": "-",
    "†": r"$\dagger$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    "×": r"$\times$",
    "ρ": r"$\rho$",
    "τ": r"$\tau$",
    "Δ": r"$\Delta$",
    "α": r"$\alpha$",
}
_SPECIAL = re.compile("|".join(re.escape(key) for key in _REPLACEMENTS))
#: Column alignment: rank, model, 6 statistics, rank interval, Δr interval, its level, p; no
#: padding outside the first and last column.
_COLUMNS = "@{}rlrrrlrrllrr@{}"
#: The column names in LaTeX (the Markdown's, in math where they are symbols).
_HEADER = (
    r"\#",
    "Model",
    "$r$",
    r"$\rho$",
    "scaled $r$",
    "$r$ per bin ($n$)",
    r"$\rho_w$",
    r"$\tau_w$",
)


def escape(text: str) -> str:
    """``text`` for LaTeX's text mode: control characters shown as their code points
    (:func:`~sts_extras.io.report_text.show_controls`: a line break in a name would end the
    table row's paragraph), special characters escaped, the reports' symbols (—, †, ρ, Δ, ≤,
    ...) as LaTeX commands; other characters unchanged."""
    return _SPECIAL.sub(lambda match: _REPLACEMENTS[match.group(0)], show_controls(text))


def table_label(task: str) -> str:
    """The ``\\label`` of a unit's table: ``tab:leaderboard-`` and the unit's name in lower case,
    other characters than letters and digits as ``-``."""
    return "tab:leaderboard-" + re.sub(r"[^a-z0-9]+", "-", slug(task).lower()).strip("-")


def _signed_math(cell: str) -> str:
    """Minus signs of numbers as math minus (a hyphen otherwise)."""
    return re.sub(r"(?<![\w.])-(?=\d)", "$-$", cell)


def _stack(cell: str, separator: str, keep: bool) -> str:
    """A cell on several lines of a nested ``tabular`` (split at ``separator``, kept at the start
    of the next line when ``keep``), so that the table fits the width of a page. ``{}`` after each
    line break: a line starting with ``[`` is no optional argument of ``\\``."""
    parts = cell.split(separator)
    if len(parts) == 1:
        return cell
    lines = [parts[0], *((separator.strip() if keep else "") + part for part in parts[1:])]
    return r"\begin{tabular}[t]{@{}l@{}}" + r"\\{}".join(lines) + r"\end{tabular}"


def _name_lines(name: str, width: int = NAME_WIDTH) -> list[str]:
    """A model name on lines of at most ``width`` characters: the source in parentheses on a line
    of its own, the rest broken after ``/``, ``-``, ``_`` or a space (mid-word only for a piece
    longer than ``width``), so that a Hub id such as
    ``sentence-transformers/paraphrase-multilingual-mpnet-base-v2`` wraps instead of running
    into the margin."""
    head, paren, tail = name.partition(" (")
    lines: list[str] = []
    for part in [head, "(" + tail] if paren else [head]:
        pieces = [piece for piece in re.split(r"(?<=[/\-_ ])", part) if piece]
        line = ""
        for piece in pieces:
            while len(piece) > width:  # a piece no break point can shorten
                if line:
                    lines.append(line)
                    line = ""
                lines.append(piece[:width])
                piece = piece[width:]
            if line and len(line) + len(piece.rstrip()) > width:
                lines.append(line)
                line = ""
            line += piece
        if line:
            lines.append(line)
    return [line.rstrip() for line in lines]


def _name_cell(name: str) -> str:
    """A model name in a table cell, on several lines when it is long (see :func:`_name_lines`)."""
    return _lines_cell([escape(line) for line in _name_lines(name)])


def _lines_cell(lines: list[str]) -> str:
    if len(lines) == 1:
        return lines[0]
    return r"\begin{tabular}[t]{@{}l@{}}" + r"\\{}".join(lines) + r"\end{tabular}"


#: Cells split over lines: per-bin r (a bin a line), rank and its interval, Δr and its interval
#: (whose two ends get a line each, below).
_STACKED = {5: (" / ", False), 8: (" [", True), 9: (" [", True)}
#: Columns of a unit table: rank, model, 6 statistics, rank interval, Δr interval, its level, p.
_COLUMN_COUNT = len(_COLUMNS.replace("@{}", ""))


def _latex_cells(cells: list[str]) -> list[str]:
    if cells[2].startswith("failed: "):
        # the message spans the statistics' columns, wrapped within a fixed width
        message = _signed_math(escape(cells[2]))
        span = _COLUMN_COUNT - 2
        return [
            escape(cells[0]),
            _name_cell(cells[1]),
            rf"\multicolumn{{{span}}}{{p{{0.4\linewidth}}}}{{\raggedright {message}}}",
        ]
    out = []
    for index, cell in enumerate(cells):
        if index == 1:
            out.append(_name_cell(cell))
            continue
        text = _signed_math(escape(cell))
        if index == 9 and " [" in text:  # Δr, then the interval's ends on two lines
            delta, _, interval = text.partition(" [")
            low, _, high = interval.partition(", ")
            mark = escape(" " + tables.MARK)
            if high.endswith(mark):  # the mark next to Δr, not after the interval
                delta, high = delta + mark, high.removesuffix(mark)
            text = _lines_cell([delta, f"[{low},", high] if high else [delta, "[" + interval])
        elif index == 10:  # the level's % sign is in the header
            text = text.removesuffix(escape("%"))
        elif index in _STACKED:
            separator, keep = _STACKED[index]
            text = _stack(text, escape(separator), keep)
        out.append(text)
    return out


#: Defined once per document (``\providecommand``): set a table at its natural width, or, if it is
#: wider than the line, shrink it to the line with graphicx's ``\resizebox`` and say so in the log.
_FIT_MACRO = r"""\makeatletter
\@ifundefined{stsextras@box}{\newsavebox{\stsextras@box}}{}
\providecommand{\stsextrasfit}[1]{%
  \sbox{\stsextras@box}{#1}%
  \ifdim\wd\stsextras@box>\linewidth
    \@ifundefined{resizebox}{%
      \PackageWarningNoLine{sts-extras}{A table is wider than the line; load graphicx to shrink
        it}%
      \usebox{\stsextras@box}%
    }{%
      \typeout{sts-extras: table shrunk from \the\wd\stsextras@box\space to \the\linewidth}%
      \resizebox{\linewidth}{!}{\usebox{\stsextras@box}}%
    }%
  \else
    \usebox{\stsextras@box}%
  \fi}
\makeatother"""


def _settings_sentence(result: LeaderboardResult, task: str) -> str:
    settings = result.settings
    level = settings.get("confidence_level", 0.95)
    percent = escape(f"{level:.0%}")
    comparison = result.pairwise.get(task)
    decisions = (
        ""
        if comparison is None
        else f" Method: {tables.method_name(comparison.method)}"
        + (" (chosen by method=auto)" if settings.get("method") == "auto" else "")
        + f". {tables.calibration_line(result, task)}"
    )
    return (
        f"Baseline: {escape(result.baseline)}. {settings.get('n_resamples')} paired bootstrap "
        f"resamples of the pairs, seed {settings.get('seed')}; rank sets ({percent}, all at "
        f"once): the ranks the family-wise pair decisions leave. $\\Delta r$ against the "
        f"baseline with the pair's interval at the level in the next column, the one that "
        f"matches the adjustment; $\\dagger$: the pair is "
        f"significant, i.e.\\ the interval excludes 0 (the same decision as its $p$ "
        f"{escape(tables.adjusted_over_pairs(settings))} below {1 - level:.2g})."
        + escape(decisions)
        + " Correlations to 3 decimals."
    )


def _task_table(result: LeaderboardResult, task: str, label: str) -> list[str]:
    unit = next(item for item in result.tasks if item.name == task)
    low, high = unit.score_range
    header = [*_HEADER, *(escape(name) for name in tables.table_header(result)[8:])]
    header[-3] = header[-3].replace(r"$\Delta$r", r"$\Delta r$")
    header[-2] = _lines_cell(["CI", "level", escape("(%)")])  # the cells hold the number
    for index, separator in ((4, " "), (5, " ("), (8, " [")):
        header[index] = _stack(header[index], separator, separator != " ")
    # "Δr vs baseline [adj. CI]" on three lines, the widest header of the table (the caption
    # names the adjustment; the p column too)
    delta, _, level = header[9].partition(" [")
    if result.settings.get("adjust", "holm") != "none":
        level = "adj. CI]"
    header[9] = _lines_cell([*delta.rsplit(" ", 1), "[" + level])
    # "p adj." on two lines: the caption names the adjustment ("Holm-Šidák" is wider than p)
    adjusted = result.settings.get("adjust", "holm") != "none"
    header[-1] = _lines_cell(["$p$", "adj."]) if adjusted else "$p$"
    lines = [
        r"\begin{table*}[t]",
        r"\centering",
        r"\footnotesize",
        r"\setlength{\tabcolsep}{1.7pt}",
        r"\stsextrasfit{%",
        rf"\begin{{tabular}}{{{_COLUMNS}}}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
    ]
    for cells in tables.table_rows(result, task, escape=lambda text: text):
        lines.append(" & ".join(_latex_cells(cells)) + r" \\")
    edges = result.bin_edges(task)
    bins = (
        f"; gold-score bins of the scaled $r$: {escape(tables.bin_ranges(edges))}" if edges else ""
    )
    lines += [
        r"\bottomrule",
        r"\end{tabular}}",
        rf"\caption{{{escape(task)}: {unit.gold.size} pairs, gold {low:g}--{high:g}{bins}. "
        f"Models ranked by Pearson $r$. {_settings_sentence(result, task)}}}",
        rf"\label{{{label}}}",
        r"\end{table*}",
    ]
    return lines


def _mean_rank_table(result: LeaderboardResult) -> list[str]:
    rows = tables.mean_rank_rows(result)
    if not rows:
        return []
    level = result.settings.get("confidence_level", 0.95)
    names = [_name_cell(task.name) for task in result.tasks]
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\footnotesize",
        r"\setlength{\tabcolsep}{4pt}",
        r"\stsextrasfit{%",
        rf"\begin{{tabular}}{{ll{'r' * len(names)}}}",
        r"\toprule",
        " & ".join(["Model", _stack(escape(f"mean rank [{level:.0%}]"), " [", True), *names])
        + r" \\",
        r"\midrule",
    ]
    lines += [
        " & ".join([_name_cell(name), _stack(escape(mean), " [", True), *map(escape, ranks)])
        + r" \\"
        for name, mean, *ranks in rows
    ]
    lines += [
        r"\bottomrule",
        r"\end{tabular}}",
        rf"\caption{{Mean rank across tasks with its {level:.0%} percentile interval "
        f"({result.settings.get('n_resamples')} bootstrap resamples within each task, seed "
        f"{result.settings.get('seed')}), and the rank on each task.}}".replace("%", r"\%"),
        r"\label{tab:leaderboard-mean-rank}",
        r"\end{table}",
    ]
    return lines


def to_latex(result: LeaderboardResult) -> str:
    """The ``booktabs`` tables of every unit and the mean rank, as the text of a ``.tex`` file."""
    out = [
        "% Leaderboard tables written by sts-extras. Load booktabs and graphicx in the preamble",
        "% (\\usepackage{booktabs,graphicx}) and \\input{leaderboard.tex}. A table wider than",
        "% the line is shrunk to it (\\stsextrasfit, below; the log says so).",
        _FIT_MACRO,
    ]
    labels: set[str] = set()
    for task in result.tasks:
        base = label = table_label(task.name)
        while label in labels:  # two units with the same slug
            label = f"{base}-{len(labels) + 1}"
        labels.add(label)
        out += ["", *_task_table(result, task.name, label)]
    mean = _mean_rank_table(result)
    if mean:
        out += ["", *mean]
    return "\n".join(out) + "\n"


def write_latex(result: LeaderboardResult, path: Path) -> Path:
    """Write :func:`to_latex` to ``path`` (atomically)."""
    atomic_write_text(path, to_latex(result))
    return path
