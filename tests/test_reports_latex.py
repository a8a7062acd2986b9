"""``leaderboard.tex``: booktabs tables with the Markdown's columns and marks, every model and task,
escaped names, settings in the captions; compiled with pdflatex where TeX is installed."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from sts_extras.leaderboard import TaskScores, score_leaderboard
from sts_extras.leaderboard.latex import escape, table_label, to_latex
from sts_extras.leaderboard.report import table_rows

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
        tasks, list(MODELS), baseline=MODELS[0], n_resamples=1000, seed=4, adjust="bonferroni"
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
    for model in MODELS:
        assert escape(model) in tex
    assert r"50\% \{odd\}\textasciitilde{}\textasciicircum{}$\backslash$name" in tex
    assert r"good \& \#1" in tex and "failed: RuntimeError: 100\\% broken\\_model" in tex
    header = next(line for line in tex.splitlines() if line.startswith(r"\# & Model"))
    assert (
        "$z$" in header
        and "$p$ (Bonferroni)" in header
        and r"$\Delta r$" in header
        and r"$\rho_w$" in header
    )
    # the marks: † on intervals excluding 0, * on adjusted p ≤ alpha
    for item in result.comparisons:
        if item.bca_significant:
            assert r"$\dagger$" in tex
        if item.holm_significant:
            assert " *" in tex


def test_captions_carry_the_settings(result):
    tex = to_latex(result)
    captions = re.findall(r"\\caption\{(.*)\}", tex)
    assert len(captions) == 3
    for caption in captions[:2]:
        assert "1000 paired bootstrap resamples" in caption and "seed 4" in caption
        assert "meng1992" in caption and "Bonferroni-adjusted" in caption
    assert "1000 bootstrap resamples" in captions[2] and "seed 4" in captions[2]


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_compiles_with_plain_pdflatex_and_booktabs(result, tmp_path):
    (tmp_path / "leaderboard.tex").write_text(to_latex(result), encoding="utf-8")
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
        "\\input{leaderboard.tex}\n\\end{document}\n",
        encoding="utf-8",
    )
    completed = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout[-3000:]
    assert (tmp_path / "paper.pdf").stat().st_size > 0
    aux = (tmp_path / "paper.aux").read_text(encoding="utf-8")
    for task in result.tasks:
        assert table_label(task.name) in aux
    assert "Undefined control sequence" not in completed.stdout
