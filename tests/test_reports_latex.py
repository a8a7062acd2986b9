"""``leaderboard.tex``: booktabs tables with the Markdown's columns and its one mark, every model
and task, escaped names, settings, method and calibration in the captions; compiled with pdflatex
where TeX is installed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from sts_extras.leaderboard import TaskScores, score_leaderboard
from sts_extras.leaderboard.reports import latex, tables
from sts_extras.leaderboard.reports.latex import escape, table_label, to_latex
from sts_extras.leaderboard.reports.tables import table_rows
from sts_extras.leaderboard.settings import RunSettings

REPO = Path(__file__).resolve().parents[1]
MODELS = ("base (vec_a)", "good & #1", "50% {odd}~^\\name", "gone")


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(1)
    tasks = []
    for name, n in (("TaskA", 40), ("Task_B (sub, test)", 36)):
        gold = rng.uniform(0, 5, n)
        predictions = {
            model: gold + rng.normal(0, s, n) for model, s in zip(MODELS[:3], (1.2, 0.4, 0.9))
        }
        tasks.append(
            TaskScores(
                name=name,
                gold=gold,
                score_range=(0.0, 5.0),
                predictions=predictions,
                failures={"gone": "RuntimeError: 100% broken_model"},
            )
        )
    return score_leaderboard(
        tasks,
        list(MODELS),
        baseline=MODELS[0],
        settings=RunSettings(n_resamples=1000, seed=4, adjust="bonferroni"),
    )


def _environments_balanced(text: str) -> None:
    stack = []
    for kind, name in re.findall(r"\\(begin|end)\{([^}]*)\}", text):
        if kind == "begin":
            stack.append(name)
        else:
            assert stack and stack.pop() == name, name
    assert not stack


def test_tables_hold_every_model_task_column_and_mark(result):
    tex = to_latex(result)
    _environments_balanced(tex)
    assert tex.count(r"\toprule") == tex.count(r"\bottomrule") == 3  # 2 tasks + mean rank
    assert tex.count(r"\midrule") == 3
    for task in result.tasks:
        assert escape(task.name) in tex
        assert rf"\label{{{table_label(task.name)}}}" in tex
        for cells in table_rows(result, task.name, escape=lambda text: text):
            # every number of the Markdown row, at 3 decimals, in the LaTeX row
            for number in re.findall(r"\d+\.\d{3}", " ".join(cells)):
                assert number in tex
    assert r"\label{tab:leaderboard-task-b-sub-test}" in tex
    for model in MODELS:  # on lines of at most NAME_WIDTH characters, each escaped
        assert r"\\{}".join(escape(line) for line in latex._name_lines(model)) in tex
    assert r"50\%\\{}\{odd\}\textasciitilde{}\textasciicircum{}$\backslash$name" in tex
    assert r"good \& \#1" in tex and "failed: RuntimeError: 100\\% broken\\_model" in tex
    header = next(line for line in tex.splitlines() if line.startswith(r"\# & Model"))
    assert (
        r"level\\{}(\%)" in header
        and r"$p$\\{}adj." in header  # the caption names the adjustment (below)
        and r"$\Delta r$" in header
        and r"$\rho_w$" in header
    )
    # the level's % sign in the header, the number in the cells: "98.33", not "98.33\%"
    levels = [tables.level_text(item.confidence_level) for item in result.comparisons]
    assert any(f"& {level.removesuffix('%')} &" in tex for level in levels if level != "—")
    assert not any(f"& {escape(level)} &" in tex for level in levels if level != "—")
    # one mark: † on a row exactly when its interval excludes 0 (the pair's decision); no *
    marked = 0
    for item in result.comparisons:
        if item.confidence_interval is None:
            continue
        # the row of the model in this task's table
        table = tex.split(rf"\label{{{table_label(item.task)}}}")[0].rsplit(r"\toprule", 1)[1]
        first = escape(latex._name_lines(item.model)[0])
        (row,) = [line for line in table.splitlines() if first in line]
        excludes = item.confidence_interval.low > 0 or item.confidence_interval.high < 0
        assert item.significant == excludes
        assert (r"$\dagger$" in row) == excludes, row
        marked += excludes
    assert tex.count(r"$\dagger$") >= marked
    assert " *" not in tex.replace(r"\*", "")


def test_captions_carry_the_settings(result):
    tex = to_latex(result)
    captions = re.findall(r"\\caption\{(.*)\}", tex)
    assert len(captions) == 3
    for task, caption in zip(result.tasks, captions[:2]):
        assert "1000 paired bootstrap resamples" in caption and "seed 4" in caption
        comparison = result.pairwise[task.name]
        assert escape(tables.method_name(comparison.method)) in caption
        assert "Bonferroni-adjusted over all pairs of the task below 0.05" in caption
        assert r"$\dagger$: the pair is significant, i.e.\ the interval excludes 0" in caption
        # what the calibration suite measured for the method at the task's n
        assert escape(tables.calibration_line(result, task.name) or "") in caption
        assert "calibrated" in caption.lower()
    assert "1000 bootstrap resamples" in captions[2] and "seed 4" in captions[2]


def _pdflatex(folder: Path, document_class: str, packages: str = "booktabs,graphicx") -> str:
    """Compile ``\\input{leaderboard.tex}`` in ``document_class``; return the log."""
    (folder / "paper.tex").write_text(
        f"{document_class}\n\\usepackage{{{packages}}}\n\\begin{{document}}\n"
        "\\input{leaderboard.tex}\n\\end{document}\n",
        encoding="utf-8",
    )
    completed = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout[-3000:]
    assert (folder / "paper.pdf").stat().st_size > 0
    assert "Undefined control sequence" not in completed.stdout
    return (folder / "paper.log").read_text(encoding="utf-8", errors="replace")


def _overfull(log: str) -> list[float]:
    return [float(points) for points in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide", log)]


def _shrink_factors(log: str) -> list[float]:
    return [
        float(to) / float(natural)
        for natural, to in re.findall(
            r"sts-extras: table shrunk from ([\d.]+)pt to ([\d.]+)pt", log
        )
    ]


needs_pdflatex = pytest.mark.skipif(
    shutil.which("pdflatex") is None, reason="pdflatex is not installed"
)
#: The layouts papers use: one column (345 pt), two columns (table* over both, table in one), and
#: IEEE's two columns where its class and fonts are installed.
LAYOUTS = {
    "article": "\\documentclass{article}",
    "twocolumn": "\\documentclass[twocolumn]{article}",
    "IEEEtran": "\\documentclass[conference]{IEEEtran}",
}


def _layout_available(name: str) -> bool:
    if name != "IEEEtran":
        return True
    kpsewhich = shutil.which("kpsewhich")
    if kpsewhich is None:
        return False
    found = subprocess.run(
        [kpsewhich, "IEEEtran.cls", "ptmr7t.tfm"], capture_output=True, text=True, check=False
    ).stdout.split()
    return len(found) == 2  # the class and its Times fonts


@needs_pdflatex
def test_compiles_with_plain_pdflatex_and_booktabs(result, tmp_path):
    (tmp_path / "leaderboard.tex").write_text(to_latex(result), encoding="utf-8")
    log = _pdflatex(tmp_path, LAYOUTS["article"])
    aux = (tmp_path / "paper.aux").read_text(encoding="utf-8")
    for task in result.tasks:
        assert table_label(task.name) in aux
    assert not [points for points in _overfull(log) if points > 1.0]


@needs_pdflatex
def test_without_graphicx_it_still_compiles_and_warns(result, tmp_path):
    (tmp_path / "leaderboard.tex").write_text(to_latex(result), encoding="utf-8")
    log = _pdflatex(tmp_path, LAYOUTS["article"], packages="booktabs")
    assert "load graphicx" in log


LONG_NAMES = {
    "all-MiniLM-L6-v2": "sentence-transformers/paraphrase-multilingual-mpnet-base-v2",
    # the static model of the docs' run, over the default vectors of then and now
    "DynaMax-Jaccard (all-MiniLM-L6-v2-static)": (
        "DynaMax-Jaccard (sentence-transformers/all-mpnet-base-v2-static)"
    ),
    "DynaMax-Jaccard (glove-6b-50d)": (
        "DynaMax-Jaccard (sentence-transformers/all-mpnet-base-v2-static)"
    ),
}


def _docs_result(rename: dict[str, str]):
    """The committed default run (docs/leaderboard/), scored again, models renamed."""
    board = json.loads((REPO / "docs" / "leaderboard" / "leaderboard.json").read_text("utf-8"))
    units = [
        TaskScores(
            name=task["name"],
            gold=np.array(task["gold"]),
            score_range=tuple(task["score_range"]),
            predictions={
                rename.get(row["model"], row["model"]): np.array(row["scores"])
                for row in board["results"]
                if row["task"] == task["name"]
            },
        )
        for task in board["tasks"]
    ]
    baseline = board["settings"]["baseline"]
    return score_leaderboard(
        units,
        list(units[0].predictions),
        baseline=rename.get(baseline, baseline),
        settings=RunSettings(n_resamples=1000, seed=0),
    )


@needs_pdflatex
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("names", ["docs", "long names", "fixture"])
def test_every_table_fits_the_line_in_one_and_two_column_layouts(layout, names, result, tmp_path):
    # The default run's tables ran 92-99 pt into the margin of a one-column article, and its
    # mean-rank table 46 pt past the column of a two-column paper.
    if not _layout_available(layout):
        pytest.skip(f"{layout} (class or fonts) is not installed")
    board = {
        "docs": lambda: _docs_result({}),
        "long names": lambda: _docs_result(LONG_NAMES),
        "fixture": lambda: result,
    }[names]()
    tex = to_latex(board)
    if names == "long names":  # broken onto lines, never cut
        assert r"sentence-transformers/" not in tex  # too long for one line
        assert "paraphrase-" in tex and "multilingual-" in tex and "mpnet-base-v2" in tex
    (tmp_path / "leaderboard.tex").write_text(tex, encoding="utf-8")
    log = _pdflatex(tmp_path, LAYOUTS[layout])
    assert not [points for points in _overfull(log) if points > 1.0], _overfull(log)
    # the layout does most of it: any shrinking keeps the text near \footnotesize
    assert all(factor >= 0.85 for factor in _shrink_factors(log)), _shrink_factors(log)
    if layout != "article":  # two columns: every table fits at its natural size
        assert _shrink_factors(log) == []


@needs_pdflatex
@pytest.mark.parametrize("names", ["docs", "long names"])
def test_the_default_runs_tables_fit_a_plain_article_without_graphicx(names, tmp_path):
    # A newcomer set docs/leaderboard/leaderboard.tex in \documentclass{article} with booktabs
    # alone: without graphicx nothing shrinks, and the unit tables ran 29.6 pt into the margin.
    board = _docs_result({} if names == "docs" else LONG_NAMES)
    (tmp_path / "leaderboard.tex").write_text(to_latex(board), encoding="utf-8")
    log = _pdflatex(tmp_path, LAYOUTS["article"], packages="booktabs")
    assert _overfull(log) == []
    assert "wider than the line" not in log
    # and with graphicx nothing needs shrinking: the tables are set at their natural size
    log = _pdflatex(tmp_path, LAYOUTS["article"])
    assert _shrink_factors(log) == [] and _overfull(log) == []
