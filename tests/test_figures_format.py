"""The leaderboard's figures as a paper needs them: every asked format, the documented size (read
back from the PDF, SVG and PNG), no text below 8 pt, models in table order, identical bytes for
identical results, and the figure cache keyed on the formats."""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

import numpy as np
import pytest

from sts_extras.io.content import file_digest
from sts_extras.leaderboard import TaskScores, score_leaderboard
from sts_extras.leaderboard.reports import figures as figures_module
from sts_extras.leaderboard.reports.figure_cache import STAMP_FILE, write_figures_if_changed
from sts_extras.leaderboard.reports.figures import FONT_SIZE, ONE_COLUMN, TWO_COLUMN, write_figures
from sts_extras.leaderboard.settings import RunSettings

pytest.importorskip("matplotlib")

MODELS = ("weak (vectors-a)", "good", "so-so & co_50%", "noisy (vectors-b)")
FORMATS = ("pdf", "png", "svg")
#: figure -> documented width in inches
WIDTHS = {"scatter": TWO_COLUMN, "forest": TWO_COLUMN, "pairwise": ONE_COLUMN}


def _result():
    rng = np.random.default_rng(0)
    tasks = []
    for name, n, high in (("TaskA", 40, 5.0), ("TaskB", 48, 4.0)):
        gold = rng.uniform(0, high, n)
        noise = dict(zip(MODELS, (1.4, 0.5, 0.9, 1.1)))
        if name == "TaskB":
            noise["weak (vectors-a)"] = 0.7  # another order on the second task
        predictions = {model: gold + rng.normal(0, s, n) for model, s in noise.items()}
        tasks.append(
            TaskScores(name=name, gold=gold, score_range=(0.0, high), predictions=predictions)
        )
    return score_leaderboard(
        tasks, list(MODELS), baseline=MODELS[0], settings=RunSettings(n_resamples=1000, seed=0)
    )


@pytest.fixture(scope="module")
def result():
    return _result()


@pytest.fixture(scope="module")
def drawn(result, tmp_path_factory):
    folder = tmp_path_factory.mktemp("figures")
    return folder, write_figures(result, folder, FORMATS)


def _pdf_streams(path: Path) -> list[bytes]:
    data = path.read_bytes()
    out = []
    for match in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", data, re.S):
        try:
            out.append(zlib.decompress(match.group(1)))
        except zlib.error:
            out.append(match.group(1))
    return out


def _pdf_size(path: Path) -> tuple[float, float]:
    box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", path.read_bytes())
    assert box, path
    return float(box.group(1)) / 72, float(box.group(2)) / 72


def _pdf_font_sizes(path: Path) -> list[float]:
    return [
        float(size)
        for stream in _pdf_streams(path)
        for size in re.findall(rb"/F\d+ ([\d.]+) Tf", stream)
    ]


def _svg_texts(path: Path) -> list[tuple[float, float, str, float]]:
    """(x, y, text, font size) of every text element, in document order."""
    out = []
    for attrs, text in re.findall(r"<text([^>]*)>(.*?)</text>", path.read_text(encoding="utf-8")):
        size = re.search(r"font[^;\"]*?([\d.]+)px", attrs)
        x = re.search(r'\bx="([-\d.]+)"', attrs)
        y = re.search(r'\by="([-\d.]+)"', attrs)
        out.append(
            (
                float(x.group(1)) if x else 0.0,
                float(y.group(1)) if y else 0.0,
                re.sub(r"<[^>]+>", "", text).replace("&amp;", "&"),
                float(size.group(1)) if size else -1.0,
            )
        )
    return out


def _svg_size(path: Path) -> tuple[float, float]:
    head = path.read_text(encoding="utf-8")[:2000]
    width = re.search(r'<svg[^>]*\bwidth="([\d.]+)pt"', head)
    height = re.search(r'<svg[^>]*\bheight="([\d.]+)pt"', head)
    assert width and height
    return float(width.group(1)) / 72, float(height.group(1)) / 72


def test_every_figure_is_written_in_every_format(result, drawn):
    folder, paths = drawn
    stems = [f"{kind}_{task}" for kind in ("scatter", "pairwise") for task in ("TaskA", "TaskB")]
    expected = {folder / f"{stem}.{ext}" for stem in [*stems, "forest"] for ext in FORMATS}
    assert set(paths) == expected and len(paths) == len(expected)
    assert all(path.stat().st_size > 0 for path in paths)
    assert _pdf_streams(folder / "forest.pdf")  # a real PDF with content streams
    assert (folder / "forest.pdf").read_bytes().startswith(b"%PDF")


def test_sizes_resolution_and_fonts_as_documented(drawn):
    from PIL import Image

    folder, paths = drawn
    for path in paths:
        width = WIDTHS[path.stem.split("_")[0]]
        if path.suffix == ".pdf":
            assert _pdf_size(path)[0] == pytest.approx(width, abs=0.01), path
            sizes = _pdf_font_sizes(path)
            assert sizes and min(sizes) >= FONT_SIZE, (path, sorted(set(sizes)))
        elif path.suffix == ".svg":
            assert _svg_size(path)[0] == pytest.approx(width, abs=0.01), path
            sizes = [size for *_, size in _svg_texts(path)]
            assert sizes and min(sizes) >= FONT_SIZE, (path, sorted(set(sizes)))
        else:
            with Image.open(path) as image:
                dpi = image.info["dpi"][0]
                assert dpi >= 200, path
                assert image.width == pytest.approx(width * dpi, abs=2), path


def test_models_appear_in_table_order_in_every_figure(result, drawn):
    folder, _ = drawn
    for task in ("TaskA", "TaskB"):
        table = [row.model for row in result.stats_for(task)]
        # scatter: the panels' titles, left to right, top to bottom
        titles = [
            text.removesuffix(" [baseline]")
            for *_, text, _ in _svg_texts(folder / f"scatter_{task}.svg")
            if any(text.startswith(model.split(" (")[0]) for model in table)
        ]
        assert [model.split(" (")[0] for model in table] == titles
        # heat map: see test_heat_map_rows_and_columns_are_labelled_by_model_name
    # forest: each task's panel lists its table top to bottom
    labels = [(y, text) for _, y, text, _ in _svg_texts(folder / "forest.svg") if text in MODELS]
    labels.sort()
    tables = [[row.model for row in result.stats_for(task)] for task in ("TaskA", "TaskB")]
    assert [text for _, text in labels] == tables[0] + tables[1]
    assert tables[0] != tables[1]  # the test means something: the orders differ


def test_identical_results_give_identical_bytes(result, drawn, tmp_path):
    folder, paths = drawn
    again = write_figures(_result(), tmp_path, FORMATS)
    for first, second in zip(paths, again):
        assert first.read_bytes() == second.read_bytes(), first.name


def test_figure_cache_records_every_format(result, tmp_path, monkeypatch):
    paths = write_figures_if_changed(result, tmp_path, formats=("svg", "pdf"))
    record = json.loads((tmp_path / STAMP_FILE).read_text(encoding="utf-8"))
    assert record["formats"] == ["svg", "pdf"]
    assert sorted(name for name, *_ in record["files"]) == sorted(p.name for p in paths)
    assert {p.suffix for p in paths} == {".svg", ".pdf"}

    def no_drawing(*args, **kwargs):
        raise AssertionError("unchanged figures were redrawn")

    monkeypatch.setattr(figures_module, "write_figures", no_drawing)
    assert write_figures_if_changed(result, tmp_path, formats=("svg", "pdf")) == paths
    with pytest.raises(AssertionError, match="redrawn"):  # another format: drawn again
        write_figures_if_changed(result, tmp_path, formats=("png",))


@pytest.mark.parametrize(
    "name",
    ["../leaderboard.json", "leaderboard.json", "/etc/passwd", "forest.svg/../../x.svg", 3, True],
)
def test_a_tampered_figure_record_makes_the_figures_be_drawn_never_copied(
    result, tmp_path, monkeypatch, name
):
    """``.figures.json`` lies in a folder others may edit: a listed name that is not one figure
    file of this folder (traversal, a report file, a link) is never copied or trusted."""
    source, output = tmp_path / "old", tmp_path / "new"
    source.mkdir()
    output.mkdir()
    write_figures_if_changed(result, source, formats=("svg",))
    for where in (source, tmp_path):  # a file that is not a figure, recorded as one
        (where / "leaderboard.json").write_text("not a figure", encoding="utf-8")
    record = json.loads((source / STAMP_FILE).read_text(encoding="utf-8"))
    fake = source / "leaderboard.json"
    record["files"][0] = [name, fake.stat().st_size, file_digest(fake)]
    (source / STAMP_FILE).write_text(json.dumps(record), encoding="utf-8")
    drawn: list[str] = []
    real = figures_module.write_figures
    monkeypatch.setattr(
        figures_module,
        "write_figures",
        lambda *a, **k: drawn.append("x") or real(*a, **k),  # type: ignore[func-returns-value]  # a spy: append's None, then the real call
    )
    write_figures_if_changed(result, output, reuse_from=source, formats=("svg",))
    assert drawn == ["x"]
    assert not (output / "leaderboard.json").exists()


def test_a_figure_that_is_a_link_is_not_kept(result, tmp_path, monkeypatch):
    (tmp_path / "out").mkdir()
    paths = write_figures_if_changed(result, tmp_path / "out", formats=("svg",))
    elsewhere = tmp_path / "elsewhere.svg"
    paths[0].rename(elsewhere)
    paths[0].symlink_to(elsewhere)  # the same bytes, through a link
    drawn: list[str] = []
    real = figures_module.write_figures
    monkeypatch.setattr(
        figures_module,
        "write_figures",
        lambda *a, **k: drawn.append("x") or real(*a, **k),  # type: ignore[func-returns-value]  # a spy: append's None, then the real call
    )
    write_figures_if_changed(result, tmp_path / "out", formats=("svg",))
    assert drawn == ["x"]


# --- one message per figure ---------------------------------------------------------------------


def _drawn_figure(monkeypatch, draw, *args):
    """The matplotlib figure ``draw(*args, path)`` makes, kept instead of saved."""
    kept = []
    monkeypatch.setattr(figures_module, "_save", lambda figure, path, formats: kept.append(figure))
    draw(*args, Path("unused.png"))
    return kept[0]


def test_forest_markers_follow_the_drawn_interval_and_the_legend_says_so(result, monkeypatch):
    # The marker followed the Holm-adjusted p-value: a BCa interval clear of 0 was drawn with a
    # hollow "n.s." marker. Now there is one decision per pair: filled <=> significant <=> the
    # interval drawn (the table's, at the level that matches the adjustment) excludes 0 (†).
    from matplotlib.colors import to_rgba

    figure = _drawn_figure(monkeypatch, figures_module.forest_plot, result)
    legend = [text.get_text() for text in figure.legends[0].get_texts()]
    assert legend == [
        "significant: interval excludes 0 (†)",
        "interval includes 0",
        "baseline",
    ]
    xlabel = figure.axes[-1].get_xlabel().replace("\n", " ")
    assert "p Holm-adjusted over all pairs of the task" in xlabel
    for axis, task in zip(figure.axes, result.tasks):  # the method each task used
        assert axis.get_title(loc="left") == f"{task.name} ({result.pairwise[task.name].method})"
    checked = 0
    for axis in figure.axes:  # TaskA, TaskB
        intervals = [line for line in axis.lines if len(line.get_xdata()) == 2]
        markers = [line for line in axis.lines if line.get_marker() == "o"]
        for interval, marker in zip(intervals, markers):
            low, high = interval.get_xdata()
            filled = to_rgba(marker.get_markerfacecolor()) != (1.0, 1.0, 1.0, 1.0)
            assert filled == (low > 0 or high < 0)
            checked += 1
    assert checked == 6  # three comparisons with the baseline per task


def test_heat_map_marks_are_the_tables_decisions(result, monkeypatch):
    """† on a cell exactly when the pair is significant, i.e. its interval excludes 0."""
    for task in result.tasks:
        figure = _drawn_figure(monkeypatch, figures_module.pairwise_heatmap, result, task.name)
        comparison = result.pairwise[task.name]
        cells = {
            (round(text.get_position()[1]), round(text.get_position()[0])): text.get_text()
            for text in figure.axes[0].texts
        }
        models = comparison.models
        for (i, j), text in cells.items():
            pair = comparison.pair(models[i], models[j])
            low, high = pair.confidence_interval
            assert text.endswith("†") == pair.significant == (low > 0 or high < 0), text
            assert "*" not in text
        assert len(cells) == len(models) * (len(models) - 1)
        assert "†: significant" in figure.get_supxlabel()


def test_heat_map_rows_and_columns_are_labelled_by_model_name(result, monkeypatch):
    figure = _drawn_figure(monkeypatch, figures_module.pairwise_heatmap, result, "TaskA")
    axis = figure.axes[0]
    names = [figures_module._label(row.model) for row in result.stats_for("TaskA")]
    assert [label.get_text() for label in axis.get_yticklabels()] == names
    assert [label.get_text() for label in axis.get_xticklabels()] == names


def test_heat_map_labels_of_long_names_keep_start_and_end():
    label = figures_module._label("sentence-transformers/paraphrase-multilingual-mpnet-base-v2")
    lines = label.splitlines()
    assert len(lines) == 3 and lines[1].endswith("…") and lines[-1].endswith("base-v2")


def test_scatter_panels_have_their_own_model_score_range(monkeypatch):
    # Similarity measures with different ranges: one shared y-axis flattened the narrow one.
    rng = np.random.default_rng(5)
    gold = rng.uniform(0, 5, 40)
    predictions = {
        "wide": gold * 2 - 5 + rng.normal(0, 0.5, 40),
        "narrow": 0.3 + gold * 0.01 + rng.normal(0, 0.01, 40),
    }
    board = score_leaderboard(
        [TaskScores(name="T", gold=gold, score_range=(0.0, 5.0), predictions=predictions)],
        list(predictions),
        baseline="wide",
        settings=RunSettings(n_resamples=200, seed=0),
    )
    figure = _drawn_figure(monkeypatch, figures_module.scatter_plot, board, "T")
    panels = [axis for axis in figure.axes if axis.collections]
    assert len(panels) == 2
    for axis in panels:
        scores = np.concatenate([c.get_offsets()[:, 1] for c in axis.collections])
        low, high = axis.get_ylim()
        span = scores.max() - scores.min()
        assert low <= scores.min() and high >= scores.max()
        assert high - low <= 1.5 * span  # the panel's own range, not the other's
    assert panels[0].get_xlim() == panels[1].get_xlim()  # the gold axis is shared
