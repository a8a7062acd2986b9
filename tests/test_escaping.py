"""Names from outside print as text in every report format, through every door that takes one.

A name is whatever a user's file or option says: a vector file ``<img src=x onerror=alert(1)>.txt``,
a ``--model PATH=NAME`` display name, a ``--task`` file, the ``model_name`` of a plain MTEB
prediction file given to ``collect``, a pair id of ``annotate score``. Hypothesis sends hostile
names (markup, Markdown, LaTeX specials, control characters, formula prefixes) through the
Markdown, HTML, LaTeX, CSV and JSON writers; one command-line run per door checks the doors with
a fixed hostile name. Markdown is rendered by the two engines that show it (Python-Markdown with
mkdocs' extensions, and markdown-it's CommonMark with GFM tables, as GitHub does): no tag or
attribute of a name is rendered, every table row keeps its columns, every name reads back.
"""

from __future__ import annotations

import contextlib
import csv
import html
import io
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from sts_extras.cli import main
from sts_extras.io.csv_cells import neutralise_cell, restore_cell
from sts_extras.io.report_text import escape_markdown, show_controls, unescape_markdown
from sts_extras.leaderboard import TaskScores, score_leaderboard
from sts_extras.leaderboard.reports import csv_report, json_report, latex, markdown
from sts_extras.leaderboard.reports.html_report import to_html
from sts_extras.leaderboard.settings import RunSettings

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

#: Names an attacker would try first; hypothesis adds its own text to them.
ATTACKS = (
    "<img src=x onerror=alert(1)>",
    "<script>alert('x')</script>",
    "=cmd|' /C calc'!A0",
    "+1+2",
    "-2+3",
    "@SUM(A1)",
    "\tlead",
    "a|b|c",
    "`code` **bold** _em_ [link](http://x) ![i](x)",
    "# heading",
    "1. item",
    "- item",
    "&lt;not a tag&gt; &amp;",
    r"50% {odd}~^\name $x$ #1 & _",
    "line\nbreak\r\nand\x00nul\x1b[31m",
    "\u202eevil\u2028sep",
    "\\|\\\\|",
    "[x]: http://evil",
    "--8<-- 'README.md'",
)
NAMES = st.one_of(
    st.sampled_from(ATTACKS),
    st.text(min_size=1, max_size=24),
    st.builds(lambda a, b: a + b, st.sampled_from(ATTACKS), st.text(min_size=0, max_size=12)),
)

MKDOCS_EXTENSIONS = ["tables", "attr_list", "footnotes", "toc", "pymdownx.arithmatex"]
#: The tags the Markdown report itself makes; a name may add none.
REPORT_TAGS = {"h1", "h2", "p", "table", "thead", "tbody", "tr", "th", "td", "strong", "code"}
REPORT_TAGS |= {"ul", "li", "a", "span"}  # toc permalinks; arithmatex only on our own text


class _Tags(HTMLParser):
    """The tags and attributes of an HTML text, and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(text: str) -> _Tags:
    parser = _Tags()
    parser.feed(text)
    parser.close()
    return parser


def _python_markdown(text: str) -> str:
    """The HTML mkdocs makes of ``text`` (docs/leaderboard/ includes the report as it is)."""
    import markdown as python_markdown

    return python_markdown.markdown(
        text,
        extensions=MKDOCS_EXTENSIONS,
        extension_configs={"pymdownx.arithmatex": {"generic": True}},
    )


def _commonmark():
    """CommonMark with GFM tables, as GitHub reads Markdown."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def _cells_per_row(text: str) -> list[int]:
    """The number of cells of every table row, as CommonMark with GFM tables reads ``text``."""
    tokens = _commonmark().parse(text)
    counts, count = [], 0
    for token in tokens:
        if token.type == "tr_open":
            count = 0
        elif token.type in ("td_open", "th_open"):
            count += 1
        elif token.type == "tr_close":
            counts.append(count)
    return counts


def _one_cell_table(cell: str) -> str:
    return f"| before | name | after |\n|:--|:--|:--|\n| 1 | {cell} | 2 |\n"


# --- the one Markdown escape ----------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(NAMES)
def test_an_escaped_name_renders_as_its_text_in_a_table_cell_in_both_engines(name):
    cell = escape_markdown(name)
    assert "<" not in cell and ">" not in cell and "\n" not in cell and "\r" not in cell
    shown = show_controls(name)
    table = _one_cell_table(cell)
    # CommonMark + GFM tables (GitHub): one row of three cells, the middle one the name's text
    assert _cells_per_row(table) == [3, 3]
    rendered = _commonmark().render(table)
    found = re.findall(r"<td[^>]*>(.*?)</td>", rendered, re.S)
    assert [html.unescape(text).strip() for text in found] == ["1", shown.strip(), "2"]
    # Python-Markdown with mkdocs' extensions: the same, and no tag of the name
    page = _python_markdown(table)
    parsed = _parse(page)
    assert {tag for tag, _ in parsed.tags} <= {"table", "thead", "tbody", "tr", "th", "td"}
    found = re.findall(r"<td[^>]*>(.*?)</td>", page, re.S)
    assert [html.unescape(text).strip() for text in found] == ["1", shown.strip(), "2"]
    # and in a sentence
    assert _parse(_python_markdown(f"Left out: {cell}.")).text == [f"Left out: {shown}."]


@given(st.text(max_size=40).filter(lambda text: show_controls(text) == text))
def test_unescape_reads_back_every_text_without_control_characters(text):
    assert unescape_markdown(escape_markdown(text)) == text


def test_control_characters_are_made_visible_not_removed():
    assert show_controls("a\nb\r\tc\x00\x7f\x85\u2028\u202e") == (
        "a<U+000A>b<U+000D><U+0009>c<U+0000><U+007F><U+0085><U+2028><U+202E>"
    )
    assert escape_markdown("x\ny") == "x&lt;U+000A&gt;y"
    assert escape_markdown("model (v2)") == "model (v2)"  # plain names stay readable
    assert escape_markdown("glove.6B.300d") == "glove.6B.300d"


@given(NAMES)
def test_latex_escape_leaves_no_special_character_of_the_name(name):
    text = latex.escape(name)
    # remove what escape writes; nothing special may be left
    for written in sorted(latex._REPLACEMENTS.values(), key=len, reverse=True):
        text = text.replace(written, "")
    assert not re.search(r"[\\&%$#_{}~^<>|]", text), text
    assert show_controls(text) == text  # no control character left either


# --- every report format ----------------------------------------------------------------------


def _result(name: str, task: str):
    """A small scored leaderboard: baseline "base", the hostile model ``name`` (worse, so a
    negative Δr), a failed model whose message quotes the name, on the hostile ``task``."""
    rng = np.random.default_rng(0)
    gold = rng.uniform(0, 5, 14)
    other = "other " + name
    return score_leaderboard(
        [
            TaskScores(
                name=task,
                gold=gold,
                score_range=(0.0, 5.0),
                predictions={
                    "base": gold + rng.normal(0, 0.5, 14),
                    name: gold + rng.normal(0, 3, 14),
                    other: gold + rng.normal(0, 1, 14),
                },
                failures={"gone": f"ValueError: cannot read {name!s}"},
            ),
            TaskScores(
                name="plain",
                gold=gold,
                score_range=(0.0, 5.0),
                predictions={
                    "base": gold + rng.normal(0, 0.6, 14),
                    name: gold + rng.normal(0, 2, 14),
                    other: gold + rng.normal(0, 1.2, 14),
                    "gone": gold + rng.normal(0, 1.1, 14),
                },
            ),
        ],
        ["base", name, other, "gone"],
        baseline="base",
        settings=RunSettings(n_resamples=100, seed=0),
    )


def _check_markdown(text: str, *names: str) -> None:
    """Markdown of a report holding ``names``: no tag or attribute of them when rendered, every
    table row with its header's cells, each name's text shown."""
    for name in names:
        for raw in ("<", ">"):
            if raw in name:  # a name's markup never appears unescaped
                assert name not in text
        assert escape_markdown(name) in text
    tables = [block for block in text.split("\n\n") if block.startswith("| ")]
    assert tables
    for block in tables:
        counts = _cells_per_row(block)
        # the header and every row (not the delimiter row), each with the header's cells
        assert len(counts) == block.count("\n") and len(set(counts)) == 1, block
    parsed = _parse(_python_markdown(text))
    tags = {tag for tag, _ in parsed.tags}
    assert tags <= REPORT_TAGS, tags - REPORT_TAGS
    attributes = {key for _, attrs in parsed.tags for key, _ in attrs}
    assert attributes <= {"id", "href", "class", "title", "style", "align"}, attributes
    page_text = "".join(parsed.text)
    for name in names:
        assert show_controls(name).strip(" ") in page_text


def _check_csv(text: str, names: set[str]) -> None:
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    seen = set()
    for row in rows:
        for column in ("task", "model", "error"):
            cell = row[column]
            assert restore_cell(cell) == restore_cell(neutralise_cell(restore_cell(cell)))
            assert cell == neutralise_cell(restore_cell(cell))  # neutralised as written
            assert cell[:1] not in ("=", "+", "-", "@", "\t", "\r")
            seen.add(restore_cell(cell))
        if row["delta_r"]:  # numbers stay numbers, a negative Δr too
            assert float(row["delta_r"]) == float(row["delta_r"])
    assert names <= seen
    assert any(row["delta_r"].startswith("-") for row in rows)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # a scored result per example
)
@given(NAMES, NAMES)
def test_hostile_model_and_task_names_are_escaped_in_every_format(tmp_path_factory, name, task):
    assume(name.strip() not in ("", "base", "gone", "plain") and task.strip() not in ("", "plain"))
    result = _result(name, task)
    # Markdown: rendered with mkdocs' engine and checked as GFM
    _check_markdown(markdown.to_markdown(result), name, task)
    # HTML: no tag or attribute of a name, one script (the page's own sorter)
    page = to_html(result)
    parsed = _parse(page)
    assert [tag for tag, _ in parsed.tags].count("script") == 1
    assert "img" not in {tag for tag, _ in parsed.tags}
    assert not any(key.startswith("on") for _, attrs in parsed.tags for key, _ in attrs)
    assert html.escape(name) in page and html.escape(task) in page
    # LaTeX: every name escaped (the specials test above: nothing special left of it)
    tex = latex.to_latex(result)
    assert latex.escape(task) in tex
    assert all("\n" not in latex.escape(line) for line in latex._name_lines(name))
    # CSV: text cells neutralised, restored exactly; numbers stay numbers
    folder = tmp_path_factory.mktemp("csv")
    csv_report.write_csv(result, folder / "leaderboard.csv")
    with (folder / "leaderboard.csv").open(encoding="utf-8", newline="") as handle:
        _check_csv(handle.read(), {name, task})
    # JSON: exactly the names, after a round trip
    data = json_report.to_json_dict(result)
    assert json.loads(json.dumps(data, ensure_ascii=False)) == json.loads(json.dumps(data))
    text = json.dumps(data, ensure_ascii=False)
    assert name in {row["model"] for row in json.loads(text)["results"]}
    assert task in {item["name"] for item in json.loads(text)["tasks"]}


needs_pdflatex = pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no pdflatex")


@needs_pdflatex
def test_a_latex_report_of_hostile_ascii_names_compiles(tmp_path):
    name = "<img src=x> & 50% $x$ #1 _a_ {b} ~c^ \\d | =cmd\n[x]\x1b"
    result = _result(name, "task & #2 {x}\t\\end{document}")
    (tmp_path / "leaderboard.tex").write_text(latex.to_latex(result), encoding="utf-8")
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage{booktabs,graphicx}"
        "\\begin{document}\\input{leaderboard.tex}\\end{document}\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "paper.pdf").is_file()


def test_figures_draw_names_with_dollar_signs_and_markup_as_text(tmp_path):
    """Matplotlib would read ``$...$`` of a name as a formula and fail on ``$\\foo{$``."""
    from sts_extras.leaderboard.reports.figures import write_figures

    name = "$\\foo{$ <script>alert(1)</script> $x^2$"
    result = _result(name, "task $\\bar$ <b>")
    written = write_figures(result, tmp_path, formats=("png", "svg"))
    assert {path.suffix for path in written} >= {".png"}
    for svg in tmp_path.glob("*.svg"):
        assert "<script" not in svg.read_text(encoding="utf-8")


# --- every door that takes a name: one command-line run each ---------------------------------

#: A file name that every file system here takes (no "/" and no NUL), markup and all.
FILE_NAME = "<img src=x onerror=alert(1)> |*_[x]$y$ #1"
DISPLAY_NAME = "<script>alert('x')</script> | **b**"
TASK_NAME = "=cmd|' _C calc'!A0 <b>"
MTEB_NAME = '<script>alert("mteb")</script>'


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _check_report_set(folder: Path, *names: str) -> None:
    """Every report of a run on hostile ``names``: Markdown and HTML without their markup,
    LaTeX escaped, CSV neutralised and restored, JSON exact."""
    text = (folder / "leaderboard.md").read_text(encoding="utf-8")
    shown = [name for name in names if any(name in line for line in text.splitlines())]
    assert not [name for name in shown if "<" in name], "raw markup of a name in leaderboard.md"
    page = (folder / "leaderboard.html").read_text(encoding="utf-8")
    parsed = _parse(page)
    assert [tag for tag, _ in parsed.tags].count("script") == 1
    assert not any(key.startswith("on") for _, attrs in parsed.tags for key, _ in attrs)
    models = {row["model"] for row in json.loads(
        (folder / "leaderboard.json").read_text(encoding="utf-8"))["results"]}  # fmt: skip
    tasks = {item["name"] for item in json.loads(
        (folder / "leaderboard.json").read_text(encoding="utf-8"))["tasks"]}  # fmt: skip
    named = [name for name in names if any(name in value for value in models | tasks)]
    assert named == list(names), (models, tasks)
    for name in names:
        assert escape_markdown(name) in text
        assert html.escape(name) in page
    _check_markdown(text, *names)
    rows = list(csv.DictReader(io.StringIO(
        (folder / "leaderboard.csv").read_text(encoding="utf-8"), newline="")))  # fmt: skip
    for row in rows:
        for column in ("task", "model"):
            assert row[column] == neutralise_cell(restore_cell(row[column]))
    assert {restore_cell(row["model"]) for row in rows} == models
    assert {restore_cell(row["task"]) for row in rows} == tasks
    tex = (folder / "leaderboard.tex").read_text(encoding="utf-8")
    for name in names:
        assert "<" not in name or name not in tex


@pytest.fixture(scope="module")
def hostile_run(env, vectors_file, tiny_model_dir, tmp_path_factory):
    """One run through three doors: a vector file, a task file and a --model display name (and
    DSCS, whose prediction files ``collect`` reads as plain MTEB output)."""
    from sts_extras.benchmark_tables import read_rows

    root = tmp_path_factory.mktemp("doors")
    vectors = root / f"{FILE_NAME}.txt"
    shutil.copyfile(vectors_file, vectors)
    task = root / f"{TASK_NAME}.csv"
    lines = ["sentence1,sentence2,score"]
    for row in list(read_rows("dscs"))[:16]:
        lines.append(",".join(json.dumps(row[key]) for key in ("sentence1", "sentence2")))
        lines[-1] += f",{row['score']}"
    task.write_text("\n".join(lines) + "\n", encoding="utf-8")
    output = root / "out"
    code, stdout, err = _cli(
        "leaderboard", "--vectors", str(vectors), "--task", str(task), "--task", "DSCS",
        "--model", f"{tiny_model_dir}={DISPLAY_NAME}", "--output", str(output),
        "--n-resamples", "100", "--no-figures", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    return output, stdout


def test_vector_file_task_file_and_display_names_are_escaped_in_every_report(hostile_run):
    output, stdout = hostile_run
    data = json.loads((output / "leaderboard.json").read_text(encoding="utf-8"))
    models = {row["model"] for row in data["results"]}
    assert DISPLAY_NAME in models and f"avg-cos ({FILE_NAME})" in models
    assert [item["name"] for item in data["tasks"]] == [TASK_NAME, "DSCS"]
    _check_report_set(output, DISPLAY_NAME, f"avg-cos ({FILE_NAME})", TASK_NAME)
    assert "<script>" not in stdout and "<img" not in stdout  # the table printed is the .md's


def test_a_plain_mteb_model_name_given_to_collect_is_escaped(hostile_run, tmp_path):
    output, _ = hostile_run
    plain = tmp_path / "plain"
    shutil.copytree(output / "predictions", plain)
    for file in plain.rglob("*_predictions.json"):
        if not file.name.startswith("DSCS"):
            file.unlink()
            continue
        data = json.loads(file.read_text(encoding="utf-8"))
        if data["mteb_model_meta"]["model_name"].startswith("local/"):  # the tiny model
            data["mteb_model_meta"]["model_name"] = MTEB_NAME
        file.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = _cli(
        "leaderboard", "collect", str(plain), "--output", str(tmp_path / "out"),
        "--n-resamples", "100", "--no-figures", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads((tmp_path / "out" / "leaderboard.json").read_text(encoding="utf-8"))
    assert MTEB_NAME in {row["model"] for row in data["results"]}
    _check_report_set(tmp_path / "out", MTEB_NAME)


def test_pair_ids_of_annotate_score_are_neutralised_in_its_csv_and_exact_in_its_json(tmp_path):
    ids = ["=cmd|' /C calc'!A0", "+1", "-2", "@x", "-=x", "<b>plain</b>", "i6", "i7"]
    rows = [(ids[a], ids[b], ids[min(a, b)], 1) for a in range(8) for b in range(a + 1, 8)]
    votes = tmp_path / "votes.csv"
    with votes.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item_a", "item_b", "winner", "ballot"])
        writer.writerows(rows)
    code, out, err = _cli("annotate", "score", str(votes), "--format", "csv", "--m", "4")
    assert code == 0, err
    table = list(csv.DictReader(io.StringIO(out, newline="")))
    items = [row["item"] for row in table]
    assert items == [neutralise_cell(item) for item in map(restore_cell, items)]
    assert [restore_cell(item) for item in items] == ids  # the winner of every vote first
    assert all(item[:1] not in "=+-@\t\r" for item in items)
    code, out, err = _cli("annotate", "score", str(votes), "--format", "json", "--m", "4")
    assert code == 0, err
    assert [row["item"] for row in json.loads(out)["ranking"]] == ids


def test_a_control_character_in_a_vector_file_name_is_refused_or_shown(env, vectors_file, tmp_path):
    """Intended outcome: a clear one-line error naming the file before any work, or a report
    where the character is visible; never a traceback."""
    vectors = tmp_path / "tiny\x1b[31mred\x07.txt"
    shutil.copyfile(vectors_file, vectors)
    code, _, err = _cli(
        "leaderboard", "--vectors", str(vectors), "--task", "DSCS", "--output",
        str(tmp_path / "out"), "--n-resamples", "100", "--no-figures", "--no-progress",
    )  # fmt: skip
    assert "Traceback" not in err
    if code == 0:
        text = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
        assert "\x1b" not in text and "\x07" not in text and "U+001B" in text
    else:
        assert code == 2 and len([line for line in err.splitlines() if "error" in line]) == 1
        assert "--vectors" in err
