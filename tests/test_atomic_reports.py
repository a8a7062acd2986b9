"""Atomic report sets: a leaderboard re-run killed at any point leaves the previous report set or
the new one in the output directory, never a mix of the two; the user's own files stay.

A set is everything of one run: ``leaderboard.md/.csv/.json``, the figures and their stamp,
``mteb_results/``, ``predictions/`` and the manifest. The re-runs are forked from this process
(MTEB is already imported here, so a child costs the run, not the imports) and killed with
SIGKILL or SIGINT once they reach a chosen point: evaluation done, a report file written, half
the figures drawn, or the first rename of the final swap.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import signal
import time
from pathlib import Path

import numpy as np
import pytest

from sts_extras.benchmark_tables import read_rows
from sts_extras.integrity import MANIFEST_FILE
from sts_extras.io.content import file_digest
from sts_extras.leaderboard.reports import figures, json_report
from sts_extras.leaderboard.run import pipeline
from sts_extras.leaderboard.run.pipeline import run_leaderboard
from sts_extras.leaderboard.run.report_set import (
    COMMIT_JOURNAL,
    STAGING_PREFIX,
    recover_output,
)
from sts_extras.leaderboard.settings import LeaderboardSettings

N_RESAMPLES = 1000
#: Files a user put into the output directory; no run may remove or change them.
USER_FILES = {"notes.txt": "my notes\n", "predictions/README.txt": "what these are\n"}


@pytest.fixture(scope="module")
def vectors(tmp_path_factory):
    """Random 8-d word vectors over the words of DSCS: three static models."""
    from gensim.models import KeyedVectors

    words = sorted(
        {
            token.lower()
            for row in read_rows("dscs")
            for text in (row["sentence1"], row["sentence2"])
            for token in re.findall(r"\w+", text)
        }
    )
    kv = KeyedVectors(vector_size=8)
    kv.add_vectors(words, np.random.default_rng(0).normal(size=(len(words), 8)).astype(np.float32))
    path = tmp_path_factory.mktemp("vectors") / "tiny.txt"
    kv.save_word2vec_format(str(path), binary=False)
    return path


def _run(vectors: Path, output: Path, seed: int, **options) -> None:
    # a bootstrap interval method, so that every report file (the forest plot too) depends on
    # the seed and a set mixed from two runs is visible ("auto" on several pairs picks the
    # jackknife-t interval, which does not resample)
    options.setdefault("method", "wilcox2009")
    settings = LeaderboardSettings(
        output=output, seed=seed, n_resamples=N_RESAMPLES, progress=False, **options
    )
    run_leaderboard(vectors=[str(vectors)], tasks=["DSCS"], settings=settings)


@pytest.fixture(scope="module")
def sets(env, vectors, tmp_path_factory):
    """Complete sets of the seed-0 and the seed-7 run."""
    root = tmp_path_factory.mktemp("sets")
    _run(vectors, root / "seed0", 0)
    _run(vectors, root / "seed7", 7)
    return {0: root / "seed0", 7: root / "seed7"}


def _report_set(folder: Path) -> dict[str, str | None]:
    """Relative path -> digest of every file of the set in ``folder``: the user's files and
    leftover staging folders left out; MTEB's result files (they hold timestamps) and the
    manifest (it lists them) by name only."""
    found: dict[str, str | None] = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if not path.is_file() or name in USER_FILES or name.startswith(STAGING_PREFIX):
            continue
        volatile = name.startswith("mteb_results/") or name == MANIFEST_FILE
        found[name] = None if volatile else file_digest(path)
    return found


def _seed_of(folder: Path, expected: dict[int, dict[str, str | None]]) -> int:
    """The seed whose complete set ``folder`` holds; fails on a mix."""
    found = _report_set(folder)
    for seed, files in expected.items():
        if found == files:
            return seed
    mixed = {
        name: [seed for seed, files in expected.items() if files.get(name) == digest]
        for name, digest in found.items()
    }
    raise AssertionError(f"{folder} holds no complete set; file -> seeds it matches: {mixed}")


def _check_manifest(folder: Path) -> None:
    """The manifest lists exactly the set's files with their digests; the Markdown names it."""
    manifest = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    listed = manifest["files"]
    assert sorted(listed) == sorted(set(_report_set(folder)) - {MANIFEST_FILE})
    for name, (size, digest) in listed.items():
        assert (folder / name).stat().st_size == size and file_digest(folder / name) == digest
    assert MANIFEST_FILE in (folder / "leaderboard.md").read_text(encoding="utf-8")


def _copy_with_user_files(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    for name, text in USER_FILES.items():
        (target / name).write_text(text, encoding="utf-8")
    return target


def _user_files_intact(folder: Path) -> bool:
    return all((folder / name).read_text(encoding="utf-8") == t for name, t in USER_FILES.items())


def _rerun_until(vectors: Path, output: Path, point: str, marker: Path, pause: float) -> None:
    """Child process: the seed-7 re-run, stopping ``pause`` seconds once it reaches ``point``."""
    signal.signal(signal.SIGINT, signal.default_int_handler)

    def reached() -> None:
        marker.touch()
        time.sleep(pause)

    def after(function):
        def wrapper(*args, **kwargs):
            value = function(*args, **kwargs)
            reached()
            return value

        return wrapper

    if point == "evaluated":
        pipeline.evaluate_cells = after(pipeline.evaluate_cells)
    elif point == "json written":
        json_report.write_json = after(json_report.write_json)
    elif point == "figures half drawn":
        figures.pairwise_heatmap = after(figures.pairwise_heatmap)
    elif point == "swap begun":
        replace = os.replace

        def replacing(source, target, **kwargs):
            replace(source, target, **kwargs)
            if Path(target) == output / "leaderboard.csv":
                reached()

        os.replace = replacing  # type: ignore[assignment]  # the same call, then a stop
    _run(vectors, output, 7)


#: (where the seed-7 re-run is stopped, signal, how long it pauses there, the seed of the set
#: left): before the swap the previous set stays; Ctrl-C waits for the swap to end.
SCENARIOS = [
    ("evaluated", signal.SIGKILL, 60, 0),
    ("json written", signal.SIGKILL, 60, 0),
    ("json written", signal.SIGINT, 60, 0),
    ("figures half drawn", signal.SIGKILL, 60, 0),
    ("swap begun", signal.SIGINT, 2, 7),
    ("swap begun", signal.SIGKILL, 60, 7),
]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks the re-runs")
def test_killed_rerun_leaves_one_complete_set(sets, vectors, tmp_path):
    expected = {seed: _report_set(folder) for seed, folder in sets.items()}
    assert expected[0]["leaderboard.json"] != expected[7]["leaderboard.json"]
    assert expected[0]["forest.png"] != expected[7]["forest.png"]
    context = multiprocessing.get_context("fork")
    runs = []
    for index, (point, signum, pause, seed) in enumerate(SCENARIOS):
        output = _copy_with_user_files(sets[0], tmp_path / f"out{index}")
        marker = tmp_path / f"reached{index}"
        child = context.Process(target=_rerun_until, args=(vectors, output, point, marker, pause))
        child.start()
        runs.append((point, signum, seed, output, marker, child))
    try:
        for point, signum, seed, output, marker, child in runs:
            deadline = time.monotonic() + 90
            while not marker.exists():
                assert child.is_alive(), f"the re-run ended before {point!r}"
                assert time.monotonic() < deadline, f"the re-run never reached {point!r}"
                time.sleep(0.05)
            assert child.pid is not None  # started
            os.kill(child.pid, signum)
            child.join(30)
            assert child.exitcode not in (0, None), (point, child.exitcode)
            seen = f"{point}, {signal.Signals(signum).name}"
            assert _user_files_intact(output), seen
            if (point, signum) == ("swap begun", signal.SIGKILL):
                # killed between two renames of the swap: the journal marks the set
                # unfinished, and the next run (or recover_output) completes it first
                assert (output / COMMIT_JOURNAL).is_file(), seen
                recover_output(output)
            else:
                assert not (output / COMMIT_JOURNAL).exists(), seen
            assert _seed_of(output, expected) == seed, seen
            recover_output(output)  # the next run's first step: leftovers of a killed run go
            assert not [p.name for p in output.iterdir() if p.name.startswith(STAGING_PREFIX)]
            assert _seed_of(output, expected) == seed and _user_files_intact(output), seen
            _check_manifest(output)
    finally:
        for *_, child in runs:
            if child.is_alive():
                child.kill()
                child.join()


def test_rerun_replaces_the_set_and_keeps_user_files(sets, vectors, tmp_path):
    output = _copy_with_user_files(sets[0], tmp_path / "out")
    _run(vectors, output, 7, figures=False)
    # the page of a run without figures embeds none, so it differs from the seed-7 one
    expected = {
        name: digest
        for name, digest in _report_set(sets[7]).items()
        if not name.endswith((".png", ".pdf", ".svg"))
        and name not in (".figures.json", "leaderboard.html")
    }
    written = _report_set(output)
    assert "leaderboard.html" in written
    del written["leaderboard.html"]
    assert written == expected  # the seed-0 figures went with their set
    assert _user_files_intact(output)
    _check_manifest(output)


def test_damaged_figure_is_redrawn_and_intact_ones_are_kept(sets, vectors, tmp_path, monkeypatch):
    output = shutil.copytree(sets[7], tmp_path / "out")
    forest = output / "forest.png"
    original = forest.read_bytes()
    info = forest.stat()
    forest.write_bytes(b"\0" * len(original))  # same size and modification time, other bytes
    os.utime(forest, ns=(info.st_atime_ns, info.st_mtime_ns))
    _run(vectors, output, 7)
    assert forest.read_bytes() == original

    def no_drawing(*args, **kwargs):
        raise AssertionError("unchanged figures were redrawn")

    monkeypatch.setattr(figures, "write_figures", no_drawing)
    _run(vectors, output, 7)
    assert _report_set(output) == _report_set(sets[7])
