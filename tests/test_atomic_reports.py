"""Atomic report sets: a leaderboard re-run killed at any point leaves the previous report set or
the new one in the output directory, never a mix of the two; the user's own files stay.

A set is everything of one run: ``leaderboard.md/.csv/.json``, the figures and their stamp,
``mteb_results/``, ``predictions/`` and the manifest. The re-runs are forked from this process
(MTEB is already imported here, so a child costs the run, not the imports) and killed with
SIGKILL or SIGINT once they reach a chosen point: evaluation done, a report file written, half
the figures drawn, or the first rename of the final swap.

The swap itself is all or nothing: a failure (or a kill) at every one of its moves, a real
read-only sub-folder and a planted symlink each leave exactly the previous set or exactly the new
one (every file's digest), the error says which, and the folder is then read back as untampered.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from sts_extras.benchmark_tables import read_rows
from sts_extras.errors import UserInputError
from sts_extras.integrity import MANIFEST_FILE, write_manifest
from sts_extras.io.content import file_digest
from sts_extras.leaderboard.reports import figures, json_report
from sts_extras.leaderboard.run import pipeline, report_set
from sts_extras.leaderboard.run.cells import read_cells
from sts_extras.leaderboard.run.collect import collect_leaderboard
from sts_extras.leaderboard.run.pipeline import run_leaderboard
from sts_extras.leaderboard.run.report_set import (
    COMMIT_JOURNAL,
    STAGING_PREFIX,
    OutputWriteError,
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
    options.setdefault("method", "adjusted-percentile")
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


# --------------------------------------------------------------------------------------------
# the swap itself: a failure at any move leaves the whole previous set or the whole new one
# --------------------------------------------------------------------------------------------
def _digests(folder: Path) -> dict[str, str]:
    """Relative path -> digest of every file below ``folder`` (the user's files, MTEB's files and
    the manifest included: "the whole set" means every byte)."""
    return {
        path.relative_to(folder).as_posix(): file_digest(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def _linked_copy(source: Path, target: Path) -> Path:
    """A copy of ``source`` as hard links (fast; no file is changed in place: every write of a
    run or a swap is a new file renamed in)."""
    return Path(shutil.copytree(source, target, copy_function=os.link, dirs_exist_ok=True))


def _stage(output: Path, source: Path) -> Path:
    """A staging folder in ``output`` holding the set of ``source`` without its figures (so the
    swap also removes files of the previous set) and with a file in a new folder (so it also
    makes folders), its manifest rewritten."""
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=output))
    _linked_copy(source, staging)
    for figure in [*staging.glob("*.png"), *staging.glob("*.pdf")]:
        figure.unlink()
    (staging / "extra" / "deeper").mkdir(parents=True)
    (staging / "extra" / "deeper" / "note.json").write_text("{}", encoding="utf-8")
    key = json.loads((staging / MANIFEST_FILE).read_text(encoding="utf-8"))["key"]
    write_manifest(staging, key)
    return staging


def _failing_moves(monkeypatch, fail: dict[int, type[BaseException]]) -> list[int]:
    """Make the swap's k-th move raise ``fail[k]`` (an OSError naming its target, or a
    BaseException standing for a kill); returns the running count of moves."""
    calls = [0]
    move = report_set._move

    def moving(source: Path, target: Path) -> None:
        calls[0] += 1
        kind = fail.get(calls[0])
        if kind is PermissionError:
            raise PermissionError(13, "Permission denied", str(source), None, str(target))
        if kind is not None:
            raise kind()
        move(source, target)

    monkeypatch.setattr(report_set, "_move", moving)
    return calls


class _Killed(BaseException):
    """Stands for SIGKILL in the middle of a move: nothing after it runs."""


def _no_leftovers(output: Path) -> None:
    assert not (output / COMMIT_JOURNAL).exists()
    assert not [p.name for p in output.iterdir() if p.name.startswith(STAGING_PREFIX)]


@pytest.fixture
def fast_tmp(tmp_path):
    """A scratch folder in memory where the system has one (``/dev/shm``: the test below makes
    some 200 swaps, each a few hundred renames and folder operations), else ``tmp_path``."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(dir=shm, prefix="sts-extras-test-") as folder:
        yield Path(folder)


def test_a_failure_at_every_move_of_the_swap_leaves_one_whole_set(sets, fast_tmp, monkeypatch):
    """The swap's k-th move fails, for every k: the folder then holds exactly the previous set
    (every file's digest), the error says so and names no staging path, and the set is read back
    as untampered (what ``collect`` and a re-run check). A second failure while rolling back
    leaves the journal, from which the next run restores the previous set; a kill at any move
    (forward or back) is carried to the end the journal records."""
    monkeypatch.setattr(os, "fsync", lambda descriptor: None)  # durability is not tested here
    template = _copy_with_user_files(sets[0], fast_tmp / "template")
    old = _digests(template)
    seed7 = shutil.copytree(sets[7], fast_tmp / "newer")
    done = _linked_copy(template, fast_tmp / "done")
    calls = _failing_moves(monkeypatch, {})
    report_set.commit(_stage(done, seed7), done)
    moves, new = calls[0], _digests(done)
    _no_leftovers(done)
    assert old != new and "forest.png" in old and "forest.png" not in new
    assert "extra/deeper/note.json" in new and _user_files_intact(done)
    assert moves > 2 * len(new) - 20  # the set aside, then each file renamed in
    read_cells(done)
    for k in range(1, moves + 1):
        # the k-th move fails: rolled back, the previous set restored
        output = _linked_copy(template, fast_tmp / f"fail{k}")
        staging = _stage(output, seed7)
        _failing_moves(monkeypatch, {k: PermissionError})
        with pytest.raises(OutputWriteError) as caught:
            report_set.commit(staging, output)
        message = str(caught.value)
        assert "the previous report set is restored" in message, (k, message)
        assert STAGING_PREFIX not in message and "Permission denied" in message
        assert _digests(output) == old, k
        _no_leftovers(output)
        read_cells(output)  # verified against its manifest: not "changed after it was written"
        # the k-th fails and so does the first move back (after the first, there is one)
        if k > 1:
            output = _linked_copy(template, fast_tmp / f"twice{k}")
            staging = _stage(output, seed7)
            _failing_moves(monkeypatch, {k: PermissionError, k + 1: PermissionError})
            with pytest.raises(OutputWriteError, match="could not be undone") as caught:
                report_set.commit(staging, output)
            assert "the next run restores the previous report set" in str(caught.value)
            assert STAGING_PREFIX not in str(caught.value)
            _failing_moves(monkeypatch, {})
            recover_output(output)
            assert _digests(output) == old, k
            _no_leftovers(output)
        # killed at the k-th move: the next run completes the new set
        output = _linked_copy(template, fast_tmp / f"killed{k}")
        staging = _stage(output, seed7)
        _failing_moves(monkeypatch, {k: _Killed})
        with pytest.raises(_Killed):
            report_set.commit(staging, output)
        assert (output / COMMIT_JOURNAL).is_file()
        _failing_moves(monkeypatch, {})
        recover_output(output)
        assert _digests(output) == new, k
        _no_leftovers(output)
        # killed while rolling back: the next run finishes the rollback
        if k > 1:
            output = _linked_copy(template, fast_tmp / f"killed_back{k}")
            staging = _stage(output, seed7)
            _failing_moves(monkeypatch, {k: PermissionError, k + 1: _Killed})
            with pytest.raises(_Killed):
                report_set.commit(staging, output)
            _failing_moves(monkeypatch, {})
            recover_output(output)
            assert _digests(output) == old, k
            _no_leftovers(output)
        for folder in fast_tmp.glob(f"*[a-z]{k}"):
            shutil.rmtree(folder)


@pytest.fixture
def immutable(tmp_path):
    """Make a folder refuse changes for real: read-only, or (for root, whom permissions do not
    stop) immutable with ``chattr +i``; skipped where neither holds."""
    locked: list[Path] = []

    def lock(folder: Path) -> None:
        folder.chmod(0o555)
        locked.append(folder)
        if os.access(folder, os.W_OK):
            tool = shutil.which("chattr")
            if tool is None or subprocess.run([tool, "+i", str(folder)]).returncode != 0:
                pytest.skip("this user writes through read-only folders and cannot chattr +i")
            probe = folder / ".probe"
            with contextlib.suppress(OSError):
                probe.touch()
                probe.unlink()
                pytest.skip("chattr +i does not stop this user")

    yield lock
    for folder in locked:
        if shutil.which("chattr"):
            subprocess.run([shutil.which("chattr") or "", "-i", str(folder)], check=False)
        folder.chmod(0o755)


def test_a_read_only_sub_folder_restores_the_previous_set(sets, vectors, tmp_path, immutable):
    """A re-run whose swap meets a read-only folder of the previous set (its predictions of one
    model) ends with the previous set whole, says so, and the folder is then collected and run
    again without complaint."""
    output = _copy_with_user_files(sets[0], tmp_path / "out")
    old = _digests(output)
    folder = next((output / "predictions").glob("MaxPool*"))
    immutable(folder)
    with pytest.raises(OutputWriteError) as caught:
        _run(vectors, output, 7)
    message = str(caught.value)
    assert "the previous report set is restored" in message
    assert str(folder) in message and STAGING_PREFIX not in message
    assert _digests(output) == old
    _no_leftovers(output)
    collected = tmp_path / "collected"
    settings = LeaderboardSettings(output=collected, progress=False, figures=False)
    collect_leaderboard([output], settings=settings)
    assert json.loads((collected / "leaderboard.json").read_bytes())["settings"]["seed"] == 0


def test_a_planted_symlink_is_refused_before_the_swap_or_replaced_as_a_file(sets, tmp_path):
    """A symlink where a report folder goes stops the swap before its first move (the previous
    set is kept, and the message says so); one where a report file goes is set aside like a file
    and its target is never written."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep me\n", encoding="utf-8")
    output = _copy_with_user_files(sets[0], tmp_path / "out")
    folder = next((output / "predictions").glob("MaxPool*"))
    shutil.rmtree(folder)
    folder.symlink_to(outside, target_is_directory=True)
    before = _digests(output)
    with pytest.raises(UserInputError) as caught, report_set.staging_folder(output) as staging:
        shutil.rmtree(staging)
        shutil.move(_stage(output, sets[7]), staging)
        report_set.commit(staging, output)
    assert "the previous report set is kept" in str(caught.value) and str(folder) in str(
        caught.value
    )
    assert _digests(output) == before and (output / COMMIT_JOURNAL).exists() is False
    assert sorted(p.name for p in outside.iterdir()) == ["precious.txt"]

    output = _copy_with_user_files(sets[0], tmp_path / "out2")
    (output / "leaderboard.csv").unlink()
    (output / "leaderboard.csv").symlink_to(outside / "precious.txt")
    expected = shutil.copytree(output, tmp_path / "expected")
    (expected / "leaderboard.csv").unlink()
    report_set.commit(_stage(expected, sets[7]), expected)
    report_set.commit(_stage(output, sets[7]), output)
    assert _digests(output) == _digests(expected)
    assert not (output / "leaderboard.csv").is_symlink()
    assert (outside / "precious.txt").read_text(encoding="utf-8") == "keep me\n"


@pytest.mark.parametrize("kind", ["record", "disk"])
def test_an_error_about_a_staged_file_names_the_file_of_the_output(
    sets, vectors, tmp_path, monkeypatch, kind
):
    """An error raised while the set is staged (a record that cannot be read back, a full disk)
    names the file of the output the staged one stands for, never the staging folder (gone by
    the time the message is read), and says the previous set is kept."""
    output = _copy_with_user_files(sets[0], tmp_path / "out")
    old = _digests(output)

    def failing(staging: Path, *args, **kwargs):
        staged = staging / "predictions" / "m" / "DSCS_predictions.json"
        if kind == "record":
            raise UserInputError(f"{staged}: 3 scores for DSCS, which has 50 pairs.")
        raise OSError(28, "No space left on device", str(staged))

    monkeypatch.setattr(pipeline, "report_from_cells", failing)
    with pytest.raises(UserInputError) as caught:
        _run(vectors, output, 7, figures=False)
    message = str(caught.value)
    assert str(output / "predictions" / "m" / "DSCS_predictions.json") in message, message
    assert STAGING_PREFIX not in message
    if kind == "disk":
        assert isinstance(caught.value, OutputWriteError)
        assert "the previous report set is kept" in message
    assert _digests(output) == old
    _no_leftovers(output)
