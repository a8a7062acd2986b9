"""Records a leaderboard output keeps are read back whole and of this version.

A plan or cell record missing a run setting is refused naming the file and the field (the
Python constructor of ``RunSettings`` has defaults; a stored record never takes one). An output
of an sts-extras of before 0.4, whose digests and keys are of another hash, is refused as made
by another version, never as damaged, and a whole run into it replaces it cleanly.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import shutil
from pathlib import Path

import pytest

from sts_extras.cli import main
from sts_extras.integrity import MANIFEST_FILE
from sts_extras.io.content import CONTENT_HASH, file_digest
from sts_extras.leaderboard.run.cells import UnreadableCellsError, read_cells
from sts_extras.leaderboard.scoring import ComparisonStats
from sts_extras.leaderboard.settings import RunSettings

PLAN = "cells/plan.json"
CELL = "cells/avg-cos_tiny/DSCS.json"
TASK = "cells/tasks/DSCS.json"


def _cli(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["leaderboard", *argv])
    return code, err.getvalue()


def _run(output: Path, vectors: Path, *extra: str) -> tuple[int, str]:
    return _cli(
        "--vectors", str(vectors), "--task", "DSCS", "--n-resamples", "200", "--no-figures",
        "--no-progress", "--output", str(output), *extra,
    )  # fmt: skip


def _one_line(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if "error:" in line]
    assert len(lines) == 1, err
    return lines[0]


def _edit(folder: Path, name: str, change) -> None:
    """Change a record and list it in the manifest again: the folder is consistent, only the
    record's content is what the test makes it."""
    path = folder / name
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    manifest = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    manifest["files"][name] = [path.stat().st_size, file_digest(path)]
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest), encoding="utf-8")


@pytest.fixture(scope="module")
def shard(env, vectors_file, tmp_path_factory):
    """Shard 1/2 of three static models on DSCS."""
    folder = tmp_path_factory.mktemp("stored") / "s1"
    code, err = _run(folder, vectors_file, "--shard", "1/2")
    assert code == 0, err
    return folder


# --------------------------------------------------------------------------------------------
# a stored record names every setting
# --------------------------------------------------------------------------------------------
def test_a_plan_missing_seed_is_refused_naming_the_file_and_the_field(shard, tmp_path):
    folder = shutil.copytree(shard, tmp_path / "shard")
    _edit(folder, PLAN, lambda plan: plan["settings"].pop("seed"))
    with pytest.raises(UnreadableCellsError) as caught:
        read_cells(folder)
    message = str(caught.value)
    assert str(folder / PLAN) in message
    assert "settings" in message and "`seed` is missing" in message
    # the same through the command line: one line, the file and the field
    code, err = _cli("collect", str(folder), "--output", str(tmp_path / "out"), "--no-figures")
    line = _one_line(err)
    assert code == 2 and str(folder / PLAN) in line and "`seed`" in line
    assert not (tmp_path / "out" / "leaderboard.json").exists()


def test_a_cell_missing_a_setting_is_refused_naming_the_file_and_the_fields(shard, tmp_path):
    folder = shutil.copytree(shard, tmp_path / "shard")

    def drop(record):
        del record["identity"]["settings"]["bins"]
        del record["identity"]["settings"]["score_range"]

    _edit(folder, CELL, drop)
    with pytest.raises(UnreadableCellsError) as caught:
        read_cells(folder)
    message = str(caught.value)
    assert str(folder / CELL) in message and "`bins`, `score_range` are missing" in message


def test_the_constructor_keeps_its_defaults_and_the_written_record_is_whole(shard):
    assert RunSettings(n_resamples=2000) == RunSettings(n_resamples=2000, seed=0, bins=3)
    plan = json.loads((shard / PLAN).read_text(encoding="utf-8"))
    assert list(plan["settings"]) == list(RunSettings.model_fields)
    cell = json.loads((shard / CELL).read_text(encoding="utf-8"))
    assert cell["identity"]["settings"] == plan["settings"]


# --------------------------------------------------------------------------------------------
# an output of before 0.4 (another hash) is of another version, not damaged
# --------------------------------------------------------------------------------------------
def _blake2b(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _as_before_0_4(folder: Path) -> None:
    """Rewrite ``folder`` as sts-extras wrote it before 0.4: records of format 3 whose keys
    (20 hex digits) and gold digest are BLAKE2b, and a manifest of BLAKE2b digests without the
    name of its hash."""
    for path in (folder / "cells").rglob("*.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        record["format"] = 3
        if path.parent.name == "tasks":
            record["key"] = _blake2b(record["key"].encode())[:20]
            record["gold"] = _blake2b(json.dumps(record["units"]).encode())
        elif "identity" in record:
            record["identity"]["task"]["key"] = _blake2b(b"task")[:20]
        path.write_text(json.dumps(record), encoding="utf-8")
    manifest = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    del manifest["hash"]
    for name in manifest["files"]:
        data = (folder / name).read_bytes()
        manifest["files"][name] = [len(data), _blake2b(data)]
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest), encoding="utf-8")


def test_an_output_of_before_0_4_is_refused_as_another_version(shard, vectors_file, tmp_path):
    folder = shutil.copytree(shard, tmp_path / "old")
    _as_before_0_4(folder)
    with pytest.raises(UnreadableCellsError) as caught:
        read_cells(folder)
    message = str(caught.value)
    assert str(folder / PLAN) in message and "another version of sts-extras" in message
    assert "format 3" in message
    for damaged in ("does not hold", "cannot be trusted", "changed"):
        assert damaged not in message
    code, err = _cli("collect", str(folder), "--output", str(tmp_path / "out"), "--no-figures")
    assert code == 2 and "another version of sts-extras" in _one_line(err)
    # the next shard of the plan into that output: refused before any model runs, same reason
    before = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    code, err = _run(folder, vectors_file, "--shard", "2/2")
    line = _one_line(err)
    assert code == 2 and "another version of sts-extras" in line and "another --output" in line
    assert {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()} == before


def test_a_whole_run_into_an_output_of_before_0_4_replaces_it(shard, vectors_file, tmp_path):
    folder = shutil.copytree(shard, tmp_path / "old")
    _as_before_0_4(folder)
    code, err = _run(folder, vectors_file)
    assert code == 0, err
    manifest = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    assert manifest["hash"] == CONTENT_HASH
    read_cells(folder)  # every record of this version, every file as listed
    plan = json.loads((folder / PLAN).read_text(encoding="utf-8"))
    assert plan["format"] == 4 and plan["shards"] == ["1/1"]


# --------------------------------------------------------------------------------------------
# one name for the pair difference
# --------------------------------------------------------------------------------------------
def test_the_comparison_calls_the_difference_delta_as_the_statistics_do():
    names = [field.name for field in dataclasses.fields(ComparisonStats)]
    assert "delta" in names and "confidence_interval" in names and "pvalue_adjusted" in names
    assert not {"difference", "ci_low", "ci_high", "pvalue_holm"} & set(names)
