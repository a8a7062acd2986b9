"""``leaderboard.html``: one self-contained page (no network), every table, the pairwise matrix, the
settings and versions, relative links to MTEB's files; sorted by a header click in a real headless
Chromium (Debian's, driven by playwright), whose screenshot is not blank."""

from __future__ import annotations

import html
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

from sts_extras.leaderboard import TaskScores, score_leaderboard
from sts_extras.leaderboard.reports import tables
from sts_extras.leaderboard.reports.figures import write_figures
from sts_extras.leaderboard.reports.html_report import to_html, write_html
from sts_extras.leaderboard.reports.writers import write_reports
from sts_extras.leaderboard.settings import RunSettings

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MODELS = ("base <b>", "good", "fair (vec)")
MODEL_INFO = {
    "base <b>": {"kind": "word-vectors", "mteb_name": "org/base", "mteb_revision": "r1"},
    "good": {"kind": "sentence-transformers", "mteb_name": "org/good", "mteb_revision": "r2"},
    "fair (vec)": {"kind": "word-vectors"},
}


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(2)
    tasks = []
    for name in ("TaskA", "TaskB"):
        gold = rng.uniform(0, 5, 40)
        predictions = {
            model: gold + rng.normal(0, s, 40) for model, s in zip(MODELS, (1.0, 0.4, 0.8))
        }
        tasks.append(
            TaskScores(name=name, gold=gold, score_range=(0.0, 5.0), predictions=predictions)
        )
    return score_leaderboard(
        tasks, list(MODELS), baseline=MODELS[0], settings=RunSettings(n_resamples=1000, seed=0)
    )


@pytest.fixture(scope="module")
def report_set(result, tmp_path_factory):
    """A report set as a run leaves it: MTEB files, the reports, figures as PNG and SVG."""
    folder = tmp_path_factory.mktemp("set")
    for name, revision in (("org__base", "r1"), ("org__good", "r2")):
        results = folder / "mteb_results" / "results" / name / revision
        results.mkdir(parents=True)
        for task in ("TaskA", "TaskB", "model_meta"):
            (results / f"{task}.json").write_text("{}", encoding="utf-8")
    write_reports(
        result,
        folder,
        model_info=MODEL_INFO,
        score_keys={},
        versions={"sts-extras": "9.9", "mteb": "2.26"},
        figure_formats=("png", "svg"),
    )
    return folder


def test_the_set_holds_the_page_and_the_tables(report_set):
    assert (report_set / "leaderboard.html").is_file()
    assert (report_set / "leaderboard.tex").is_file()
    assert (report_set / "scatter_TaskA.svg").is_file() and (report_set / "forest.png").is_file()


def test_page_is_self_contained_and_complete(result, report_set):
    page = (report_set / "leaderboard.html").read_text(encoding="utf-8")
    # nothing fetched: no external script, style, image or link target
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page and "@import" not in page
    assert not re.search(r"url\((?!#)", page)  # only references inside the page (SVG clips)
    assert page.count("<script>") == 1 and "<script src" not in page
    assert page.count("<svg") >= 5  # every figure inline (SVG written)
    # every unit's table in table order, names escaped, intervals in the cells
    for task in result.tasks:
        assert f"{task.name} — 40 pairs" in page
        for row in result.stats_for(task.name):
            assert f"{row.rank} [{row.rank_low}, {row.rank_high}]" in page
        order = [row.model for row in result.stats_for(task.name)]
        section = page.split(f'id="{task.name}"')[1].split("<h2")[0]
        names = re.findall(r'<td class="name" data-sort="([^"]*)" title="Model: ', section)
        assert names == [n.replace("<", "&lt;").replace(">", "&gt;") for n in order]
    assert "base &lt;b&gt;" in page and "base <b>" not in page
    assert "Pairwise: win probability" in page and "Mean rank across tasks" in page
    assert "Not separable at 95%" in page
    # settings and versions
    for key in ("n_resamples", "seed", "method", "adjust", "sts-extras"):
        assert f">{key}<" in page
    # each task names its method and its measured level; the matrix marks the table's decisions
    for task in result.tasks:
        section = page.split(f'id="{task.name}"')[1].split("<h2")[0]
        comparison = result.pairwise[task.name]
        assert html.escape(tables.decision_line(result, task.name) or "") in section
        for i, name in enumerate(comparison.models):
            for j, other in enumerate(comparison.models):
                if i == j:
                    continue
                pair = comparison.pair(name, other)
                value = f"{comparison.win_probability[i, j]:.2f}"
                mark = "†" if pair.significant else ""
                assert f"{html.escape(other)}) = " in section
                assert re.search(
                    rf"title=\"P\({re.escape(html.escape(name))} has the higher r than "
                    rf"{re.escape(html.escape(other))}\) = [\d.]+\">{value}{mark}</td>",
                    section,
                )
    # relative links to MTEB's result files of each model
    assert 'href="mteb_results/results/org__good/r2/TaskA.json"' in page
    assert 'href="mteb_results/results/org__base/r1/model_meta.json"' in page
    assert 'href="leaderboard.tex"' in page


def test_page_without_figures_embeds_png_or_nothing(result, tmp_path):
    assert "<figure" not in to_html(result)  # no folder: no figures, still a page
    write_figures(result, tmp_path, ("png",))
    page = write_html(result, tmp_path / "leaderboard.html").read_text(encoding="utf-8")
    assert page.count('src="data:image/png;base64,') == 5 and "<svg" not in page


def _browser():
    """playwright's Chromium driver on Debian's chromium, or a skip saying why not."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    return sync_api


def test_page_sorts_on_a_header_click_offline_in_chromium(result, report_set, tmp_path):
    sync_api = _browser()
    from PIL import Image, ImageStat

    requests = []
    with sync_api.sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            offline=True,
            viewport={"width": 1200, "height": 900},
        )
        try:
            page = context.new_page()
            page.on("request", lambda request: requests.append(request.url))
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto((report_set / "leaderboard.html").as_uri())
            table = page.locator("table.sortable").first

            def models():
                return table.locator("tbody tr td:nth-child(2)").all_inner_texts()

            before = models()
            expected = [row.model for row in result.stats_for("TaskA")]
            assert before == expected  # best first
            table.locator("thead th", has_text=re.compile(r"^r$")).click()
            after = models()
            assert after == expected[::-1] and after != before  # r ascending: worst first
            header = table.locator("thead th", has_text=re.compile(r"^r$"))
            assert header.get_attribute("aria-sort") == "ascending"
            header.click()
            assert models() == expected  # a second click: descending again
            table.locator("thead th", has_text="Model").click()
            assert models() == sorted(expected)
            assert not errors
            shot = tmp_path / "page.png"
            page.screenshot(path=str(shot), full_page=False)
        finally:
            context.close()
    assert all(url.startswith("file://") for url in requests), requests
    with Image.open(shot) as image:
        stats = ImageStat.Stat(image.convert("L"))
        assert image.size == (1200, 900)
        assert stats.var[0] > 100  # text, tables and figures: not a blank page
        dark = sum(image.convert("L").histogram()[:128])
        assert dark > 1000  # some dark (text) pixels


def test_a_readme_screenshot_can_be_made(report_set, tmp_path):
    """docs/screenshot_html.py, which made the README's screenshot, runs as documented."""
    _browser()
    import runpy

    script = Path(__file__).resolve().parents[1] / "docs" / "screenshot_html.py"
    screenshot = runpy.run_path(str(script))["screenshot"]
    screenshot(report_set / "leaderboard.html", tmp_path / "shot.png", width=800, height=600)
    assert (tmp_path / "shot.png").read_bytes().startswith(b"\x89PNG")
    assert shutil.which("chromium") or Path(CHROMIUM).is_file()


def _longest_blank_band(shot: Path, columns: tuple[float, float]) -> float:
    """The tallest run of blank (near-white) pixel rows inside the ink of ``shot``, in the band
    of columns ``columns`` (fractions of the width), as a fraction of its height."""
    from PIL import Image

    with Image.open(shot) as image:
        grey = np.asarray(image.convert("L"))
    band = grey[:, int(columns[0] * grey.shape[1]) : int(columns[1] * grey.shape[1])]
    blank: np.ndarray = np.all(band > 245, axis=1)
    ink = np.flatnonzero(~blank)
    longest = run = 0
    for row in blank[ink[0] : ink[-1] + 1]:
        run = run + 1 if row else 0
        longest = max(longest, run)
    return longest / grey.shape[0]


def test_the_heat_map_is_followed_by_its_caption_without_a_gap_in_chromium(tmp_path):
    # Long names leave a narrow map: its cells, drawn square, made it shorter than the rows' room
    # and its caption floated below a blank band a quarter of the figure tall.
    _browser()
    from playwright.sync_api import sync_playwright

    rng = np.random.default_rng(3)
    gold = rng.uniform(0, 5, 50)
    names = [
        "all-MiniLM-L6-v2",
        *(f"{method} (all-MiniLM-L6-v2-static)" for method in ("DynaMax-Jaccard", "avg-cos")),
        "MaxPool-Jaccard (all-MiniLM-L6-v2-static)",
    ]
    predictions = {name: gold + rng.normal(0, s, 50) for name, s in zip(names, (1, 2, 3, 4))}
    board = score_leaderboard(
        [TaskScores(name="DSCS", gold=gold, score_range=(0.0, 5.0), predictions=predictions)],
        names,
        baseline=names[2],
        settings=RunSettings(n_resamples=1000, seed=0),
    )
    write_figures(board, tmp_path, ("png",))
    page = write_html(board, tmp_path / "leaderboard.html")
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, offline=True
        )
        try:
            browser_page = context.new_page()
            browser_page.goto(page.as_uri())
            figure = browser_page.locator("figure", has_text="win probabilities")
            figure.screenshot(path=str(tmp_path / "heat map.png"))
        finally:
            context.close()
    # the map's columns (left of the colour bar): title, names, map, caption, each close to the
    # next; the gap was 25% of the figure's height, a line of text is about 3%
    assert _longest_blank_band(tmp_path / "heat map.png", (0.4, 0.75)) < 0.06
