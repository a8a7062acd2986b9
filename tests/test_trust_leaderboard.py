"""The leaderboard's doors from outside: shards, cell records and ``collect``.

A shard folder or a plain MTEB prediction folder may come from anyone. Nothing they hold may make
``collect`` read or write outside the folders it was given, change a number (a record is parsed
through its schema or refused), or merge cells that do not belong together (other model files
under the same name, another ``--score-range``, the order of the folders). A second shard
written into a shard's ``--output`` adds to its cells; names that share a file name after
slugging are refused before any model runs, and a full disk is one line with the previous
report set kept.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sts_extras.cli import main
from sts_extras.errors import UserInputError
from sts_extras.integrity import MANIFEST_FILE
from sts_extras.io.content import file_digest
from sts_extras.io.paths import UnsafePathError, file_name
from sts_extras.leaderboard.run import cells as cells_module
from sts_extras.leaderboard.run.cells import UnreadableCellsError, read_cells, write_cell
from sts_extras.leaderboard.run.collect import collect_leaderboard
from sts_extras.leaderboard.run.evaluation import CellOutcome, slug
from sts_extras.leaderboard.settings import LeaderboardSettings

N_RESAMPLES = 200
CELL = "cells/avg-cos_tiny/DSCS.json"
PREDICTION = "predictions/avg-cos_tiny/DSCS_predictions.json"


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["leaderboard", *argv])
    return code, out.getvalue(), err.getvalue()


def _run(output, *extra, vectors=None, task="DSCS"):
    return _cli(
        "--vectors",
        str(vectors),
        "--task",
        str(task),
        "--n-resamples",
        str(N_RESAMPLES),
        "--no-figures",
        "--no-progress",
        "--output",
        str(output),
        *extra,
    )


def _collect(*folders, output):
    return _cli(
        "collect", *map(str, folders), "--output", str(output), "--no-figures", "--no-progress"
    )


def _one_line(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if "error:" in line]
    assert len(lines) == 1, err
    return lines[0]


def _files(folder: Path, *skip: Path) -> dict[str, bytes]:
    """Every file below ``folder`` (not below ``skip``) with its bytes: what changed where."""
    found = {}
    for path in folder.rglob("*"):
        if any(path == s or s in path.parents for s in skip):
            continue
        if path.is_file() and not path.is_symlink():
            found[str(path)] = path.read_bytes()
    return found


def _rewrite(folder: Path, name: str, data) -> None:
    """Write a record and list it in the folder's manifest, as an attacker who wrote the whole
    folder would: the manifest proves nothing about who wrote it."""
    path = folder / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    _relist(folder, name)


def _relist(folder: Path, name: str) -> None:
    manifest = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    path = folder / name
    manifest["files"][name] = [path.stat().st_size, file_digest(path)]
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest), encoding="utf-8")


@pytest.fixture(scope="module")
def shards(env, vectors_file, tmp_path_factory):
    """Shards 1/2 and 2/2 of three static models on DSCS (three cells: one, then two)."""
    root = tmp_path_factory.mktemp("shards")
    for index in (1, 2):
        code, _, err = _run(root / f"s{index}", "--shard", f"{index}/2", vectors=vectors_file)
        assert code == 0, err
    return root


# --------------------------------------------------------------------------------------------
# nothing a shard or an MTEB folder holds makes collect read or write outside
# --------------------------------------------------------------------------------------------
def test_a_listed_file_with_dotdot_is_refused_and_nothing_is_written_outside(shards, tmp_path):
    shard = shutil.copytree(shards / "s1", tmp_path / "a" / "b" / "shard")
    # the attacker's payload, where "../../x/evil.pth" from the shard leads
    payload = tmp_path / "a" / "x" / "evil.pth"
    payload.parent.mkdir(parents=True)
    payload.write_text("import os  # runs at interpreter start\n", encoding="utf-8")
    record = json.loads((shard / CELL).read_text(encoding="utf-8"))
    record["files"].append("../../x/evil.pth")
    _rewrite(shard, CELL, record)
    _relist(shard, "../../x/evil.pth")
    output = tmp_path / "out" / "report"
    before = _files(tmp_path, output)
    code, _, err = _collect(shard, shards / "s2", output=output)
    assert code == 2, err
    line = _one_line(err)
    assert str(shard) in line and "../../x/evil.pth" in line
    assert _files(tmp_path, output) == before  # nothing new or changed outside --output
    assert not (tmp_path / "out" / "x").exists()


def test_a_symlink_planted_in_a_shard_is_not_followed_out(shards, tmp_path):
    shard = shutil.copytree(shards / "s1", tmp_path / "shard")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    # the prediction file replaced by a link to a file outside with the same bytes: the
    # manifest still matches, only the link gives it away
    target = outside / "DSCS_predictions.json"
    shutil.move(shard / PREDICTION, target)
    (shard / PREDICTION).symlink_to(target)
    output = tmp_path / "out"
    code, _, err = _collect(shard, shards / "s2", output=output)
    assert code == 2, err
    line = _one_line(err)
    assert str(shard) in line and "DSCS_predictions.json" in line
    assert not (output / "leaderboard.json").exists()


def test_a_folder_of_a_listed_file_that_is_a_symlink_out_is_refused(shards, tmp_path):
    shard = shutil.copytree(shards / "s1", tmp_path / "shard")
    outside = tmp_path / "elsewhere"
    shutil.move(shard / "mteb_results", outside)
    (shard / "mteb_results").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePathError, match="leads out of"):
        read_cells(shard)


def test_a_plain_mteb_revision_cannot_become_a_path_outside(shards, tmp_path):
    """The revision of a plain prediction file becomes a folder of the collected output."""
    plain = tmp_path / "a" / "b" / "c" / "plain"
    source = shards / "s2" / "predictions"
    shutil.copytree(source, plain)
    revision = "../../../../../evil"
    for file in plain.rglob("*_predictions.json"):
        data = json.loads(file.read_text(encoding="utf-8"))
        data["mteb_model_meta"]["revision"] = revision
        file.write_text(json.dumps(data), encoding="utf-8")
        # a task result where that revision leads from the model's folder, for MTEB's lookup
        model = data["mteb_model_meta"]["model_name"].replace("/", "__")
        result = Path(os.path.normpath(plain / model / revision / "DSCS.json"))
        result.parent.mkdir(parents=True, exist_ok=True)
        (plain / model).mkdir(exist_ok=True)
        result.write_text(
            json.dumps({"task_name": "DSCS", "dataset_revision": None, "scores": {}}),
            encoding="utf-8",
        )
    output = tmp_path / "out" / "report"
    before = _files(tmp_path, output)
    code, _, err = _cli(
        "collect",
        str(plain),
        "--output",
        str(output),
        "--n-resamples",
        str(N_RESAMPLES),
        "--no-figures",
        "--no-progress",
    )
    assert code == 2, err
    line = _one_line(err)
    assert "revision" in line and "DSCS_predictions.json" in line
    assert _files(tmp_path, output) == before


def test_a_plain_prediction_file_linked_from_outside_is_not_read(shards, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    outside = next((shards / "s2" / "predictions").rglob("*_predictions.json"))
    (plain / "DSCS_predictions.json").symlink_to(outside)
    code, _, err = _cli("collect", str(plain), "--output", str(tmp_path / "out"))
    assert code == 2 and "leads out of" in _one_line(err)


# --------------------------------------------------------------------------------------------
# one validated parse per format
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "field, value",
    [
        ("pearson", {"default/test": True}),
        ("pearson", {"default/test": "0.2"}),
        ("pearson", {"default/test": 1.5}),
        ("format", 1),
        ("model", ""),
        ("files", ["/etc/passwd"]),
        ("files", [PREDICTION, "cells/plan.json"]),
        ("identity", None),
        ("extra", 1),
    ],
)
def test_a_malformed_cell_record_is_refused(shards, tmp_path, field, value):
    shard = shutil.copytree(shards / "s1", tmp_path / "shard")
    record = json.loads((shard / CELL).read_text(encoding="utf-8"))
    record[field] = value
    _rewrite(shard, CELL, record)
    with pytest.raises((UnreadableCellsError, UnsafePathError)) as caught:
        read_cells(shard)
    assert str(shard) in str(caught.value)


@pytest.mark.parametrize(
    "change",
    [
        lambda plan: plan["settings"].update(score_range=[5, 0]),
        lambda plan: plan["settings"].update(seed=True),
        lambda plan: plan.update(shards=["3/2"]),
        lambda plan: plan.update(baseline="nobody"),
        lambda plan: plan.update(models=[]),
    ],
)
def test_a_malformed_plan_is_refused(shards, tmp_path, change):
    shard = shutil.copytree(shards / "s1", tmp_path / "shard")
    plan = json.loads((shard / "cells/plan.json").read_text(encoding="utf-8"))
    change(plan)
    _rewrite(shard, "cells/plan.json", plan)
    with pytest.raises(UnreadableCellsError):
        read_cells(shard)


def test_a_boolean_gold_score_is_refused(shards, tmp_path):
    shard = shutil.copytree(shards / "s1", tmp_path / "shard")
    record = json.loads((shard / "cells/tasks/DSCS.json").read_text(encoding="utf-8"))
    record["units"][0]["gold"][0] = True
    _rewrite(shard, "cells/tasks/DSCS.json", record)
    with pytest.raises(UnreadableCellsError, match="gold"):
        read_cells(shard)


def test_a_boolean_prediction_score_is_not_read_as_one(shards, tmp_path):
    from sts_extras.integrations.mteb.internals import read_prediction

    path = tmp_path / "DSCS_predictions.json"
    data = json.loads((shards / "s1" / PREDICTION).read_text(encoding="utf-8"))
    data["default"]["test"]["similarity_scores"][0] = True
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UserInputError, match="similarity_scores"):
        read_prediction(path, "default", "test")


# --------------------------------------------------------------------------------------------
# collect proves the shards belong together, whatever their order
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def other_vectors(vectors_file, tmp_path_factory):
    """Other vectors under the same file name (so the same display names): rows permuted."""
    lines = vectors_file.read_text(encoding="utf-8").splitlines()
    header, rows = lines[0], lines[1:]
    words = [row.split(" ", 1)[0] for row in rows]
    vectors = [row.split(" ", 1)[1] for row in rows]
    shuffled = vectors[1:] + vectors[:1]
    path = tmp_path_factory.mktemp("other") / vectors_file.name
    text = "\n".join([header, *(f"{w} {v}" for w, v in zip(words, shuffled, strict=True))])
    path.write_text(text + "\n", encoding="utf-8")
    return path


def test_shards_of_other_vectors_under_the_same_name_are_refused_in_either_order(
    shards, other_vectors, tmp_path
):
    other = tmp_path / "s2-other"
    assert _run(other, "--shard", "2/2", vectors=other_vectors)[0] == 0
    errors = []
    for folders in ((shards / "s1", other), (other, shards / "s1")):
        code, _, err = _collect(*folders, output=tmp_path / "out")
        assert code == 2, err
        errors.append(_one_line(err))
    assert errors[0] == errors[1]
    assert str(shards / "s1") in errors[0] and str(other) in errors[0]
    assert "identity.model" in errors[0]
    assert not (tmp_path / "out" / "leaderboard.json").exists()


@pytest.fixture(scope="module")
def csv_task(tmp_path_factory):
    from sts_extras.benchmark_tables import read_rows

    path = tmp_path_factory.mktemp("task") / "pairs.csv"
    rows = list(read_rows("dscs"))[:20]
    lines = ["sentence1,sentence2,score"]
    for row in rows:
        lines.append(
            ",".join(json.dumps(row[key]) for key in ("sentence1", "sentence2"))
            + f",{row['score']}"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_shards_of_another_score_range_are_refused_in_either_order(
    env, vectors_file, csv_task, tmp_path
):
    first, second = tmp_path / "s1", tmp_path / "s2"
    assert _run(first, "--shard", "1/2", "--score-range", "0", "5", vectors=vectors_file,
                task=csv_task)[0] == 0  # fmt: skip
    assert _run(second, "--shard", "2/2", "--score-range", "0", "10", vectors=vectors_file,
                task=csv_task)[0] == 0  # fmt: skip
    errors = []
    for folders in ((first, second), (second, first)):
        code, _, err = _collect(*folders, output=tmp_path / "out")
        assert code == 2, err
        errors.append(_one_line(err))
    assert errors[0] == errors[1]
    assert "--score-range" in errors[0]
    assert str(first) in errors[0] and str(second) in errors[0]
    plan = json.loads((first / "cells/plan.json").read_text(encoding="utf-8"))
    assert plan["settings"]["score_range"] == [0.0, 5.0]


def _quiet(output: Path, **values) -> LeaderboardSettings:
    """The settings of a collect into ``output`` without figures or progress bars."""
    return LeaderboardSettings(output=output, figures=False, progress=False, **values)


def test_the_report_does_not_depend_on_the_order_of_the_folders(shards, tmp_path):
    # plain MTEB folders, one model each: the first found used to be the baseline
    one, two = tmp_path / "one", tmp_path / "two"
    shutil.copytree(shards / "s1" / "predictions", one)
    shutil.copytree(shards / "s2" / "predictions", two)
    reports = []
    for index, folders in enumerate(((one, two), (two, one))):
        output = tmp_path / f"out{index}"
        with pytest.warns(UserWarning, match="revision"):
            collect_leaderboard(folders, settings=_quiet(output, n_resamples=N_RESAMPLES))
        reports.append((output / "leaderboard.json").read_bytes())
    assert reports[0] == reports[1]
    shard_reports = []
    for index, folders in enumerate(
        ((shards / "s1", shards / "s2"), (shards / "s2", shards / "s1"))
    ):
        output = tmp_path / f"shards{index}"
        collect_leaderboard(folders, settings=_quiet(output))
        shard_reports.append((output / "leaderboard.json").read_bytes())
    assert shard_reports[0] == shard_reports[1]


# --------------------------------------------------------------------------------------------
# a second shard in the first one's --output adds to its cells
# --------------------------------------------------------------------------------------------
def test_a_second_shard_in_the_same_output_adds_to_the_first(shards, vectors_file, tmp_path):
    output = tmp_path / "both"
    assert _run(output, "--shard", "1/2", vectors=vectors_file)[0] == 0
    assert _run(output, "--shard", "2/2", vectors=vectors_file)[0] == 0
    assert (output / CELL).is_file()  # the first shard's cell is still there
    plan = json.loads((output / "cells/plan.json").read_text(encoding="utf-8"))
    assert plan["shards"] == ["1/2", "2/2"]
    collect_leaderboard([output], settings=_quiet(tmp_path / "one"))
    collect_leaderboard([shards / "s1", shards / "s2"], settings=_quiet(tmp_path / "two"))
    assert (tmp_path / "one" / "leaderboard.json").read_bytes() == (
        tmp_path / "two" / "leaderboard.json"
    ).read_bytes()


def test_a_shard_of_another_plan_in_the_same_output_is_refused(
    shards, vectors_file, other_vectors, tmp_path
):
    output = shutil.copytree(shards / "s1", tmp_path / "s1")
    before = _files(output)
    code, _, err = _run(output, "--shard", "2/2", "--seed", "7", vectors=vectors_file)
    assert code == 2 and "another plan" in _one_line(err) and "--seed" in err
    code, _, err = _run(output, "--shard", "2/2", vectors=other_vectors)
    assert code == 2 and "another model" in _one_line(err)
    assert _files(output) == before


# --------------------------------------------------------------------------------------------
# names that share a file name; a full disk
# --------------------------------------------------------------------------------------------
def test_display_names_that_share_a_file_name_are_refused_before_any_model_runs(
    env, vectors_file, tmp_path
):
    first, second = tmp_path / "x y.txt", tmp_path / "x_y.txt"
    shutil.copyfile(vectors_file, first)
    shutil.copyfile(vectors_file, second)
    output = tmp_path / "out"
    code, _, err = _cli(
        "--vectors", str(first), "--vectors", str(second), "--task", "DSCS",
        "--no-figures", "--no-progress", "--output", str(output),
    )  # fmt: skip
    assert code == 2 and "would share the file name" in _one_line(err)
    assert not (output / "cells").exists()


def test_task_names_that_share_a_file_name_are_refused_before_any_model_runs(
    env, vectors_file, csv_task, tmp_path
):
    first, second = tmp_path / "my task.csv", tmp_path / "my_task.csv"
    shutil.copyfile(csv_task, first)
    shutil.copyfile(csv_task, second)
    output = tmp_path / "out"
    code, _, err = _cli(
        "--vectors", str(vectors_file), "--task", str(first), "--task", str(second),
        "--no-figures", "--no-progress", "--output", str(output),
    )  # fmt: skip
    assert code == 2 and "would share the file name" in _one_line(err)
    assert not (output / "cells").exists()


def test_the_comparisons_work_is_bounded_before_any_model_runs(
    env, vectors_file, tmp_path, monkeypatch
):
    """--n-resamples under its own ceiling can still ask for too much work on a large task:
    resamples x pairs is checked when the task is read, not when the models are compared."""
    from sts_extras.leaderboard.run import pipeline
    from sts_extras.limits import MAX_RESAMPLED_ITEMS, MAX_RESAMPLES

    pairs = MAX_RESAMPLED_ITEMS // MAX_RESAMPLES + 1
    task = tmp_path / "large.csv"
    lines = ["sentence1,sentence2,score"]
    lines += [f"cat {i} sleeps,dog {i % 97} barks,{i % 5}" for i in range(pairs)]
    task.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def no_model_runs(*args, **kwargs):
        raise AssertionError("a model ran before the work was bounded")

    monkeypatch.setattr(pipeline, "evaluate_cells", no_model_runs)
    code, _, err = _cli(
        "--vectors", str(vectors_file), "--task", str(task), "--n-resamples", str(MAX_RESAMPLES),
        "--no-figures", "--no-progress", "--output", str(tmp_path / "out"),
    )  # fmt: skip
    assert code == 2
    assert "--n-resamples" in _one_line(err) and str(MAX_RESAMPLED_ITEMS) in _one_line(err)


def test_slug_is_the_one_file_name_rule():
    for name in ("avg-cos (tiny)", "DynaMax-Jaccard (glove-6b-50d)", "tiny-st", "DSCS", "STS22.v2"):
        assert slug(name) == file_name(name)
    assert slug("avg-cos (tiny)") == "avg-cos_tiny"  # the paths of docs/leaderboard outputs


@pytest.mark.parametrize("failing", ["plan", "report"])
def test_a_full_disk_is_one_line_and_the_previous_report_set_is_kept(
    env, vectors_file, tmp_path, monkeypatch, failing
):
    output = tmp_path / "out"
    assert _run(output, vectors=vectors_file)[0] == 0
    before = _files(output)

    def full(path, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    if failing == "plan":
        monkeypatch.setattr(cells_module, "atomic_write_text", full)
    else:
        from sts_extras.leaderboard.reports import json_report

        monkeypatch.setattr(json_report, "write_json", lambda result, path, **kw: full(path))
    code, _, err = _run(output, "--seed", "5", vectors=vectors_file)
    assert code == 2, err
    line = _one_line(err)
    assert "No space left on device" in line and str(output) in line
    assert "the previous report set is kept" in line and ".sts-extras-staging" not in line
    assert _files(output) == before  # the earlier set, byte for byte; no staging left


# --------------------------------------------------------------------------------------------
# properties: random names and random record mutations
# --------------------------------------------------------------------------------------------
#: The fixtures of a property test hold one shard copy, rewritten by every example.
_REUSED = [HealthCheck.function_scoped_fixture]
_PARTS = st.sampled_from(
    ["..", ".", "", "a", "link", "．．", "\u2215", "x\x00y", "predictions", "avg-cos_tiny",
     "DSCS_predictions.json", "mteb_results", "DSCS.json", "model_meta.json", "cells",
     "plan.json", "C:", "~", "..\\.."]
)  # fmt: skip
_NAMES = st.builds(
    lambda lead, parts: lead + "/".join(parts),
    st.sampled_from(["", "/", "./"]),
    st.lists(_PARTS, min_size=1, max_size=5),
)


@pytest.fixture
def planted(shards, tmp_path):
    """A copy of shard 1 with a symlink ``link`` at its top and in its prediction folder, both
    leading outside, and the folder they lead to."""
    shard = shutil.copytree(shards / "s1", tmp_path / "shard")
    outside = tmp_path / "outside"
    outside.mkdir()
    (shard / "link").symlink_to(outside, target_is_directory=True)
    (shard / "predictions" / "avg-cos_tiny" / "link").symlink_to(outside)
    return shard, outside


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=_NAMES)
def test_no_listed_name_reads_or_writes_outside(planted, tmp_path, name):
    shard, outside = planted
    record = json.loads((shard / CELL).read_text(encoding="utf-8"))
    original = list(record["files"])
    record["files"] = [*original, name]
    _rewrite(shard, CELL, record)
    try:
        found = read_cells(shard)
    except UserInputError:
        pass
    else:  # accepted: every file it will read is inside the shard, not through a link out
        for path in (shard / file for file in found.cells["avg-cos (tiny)", "DSCS"].files):
            assert Path(os.path.realpath(path)).is_relative_to(os.path.realpath(shard))
    finally:
        record["files"] = original
        _rewrite(shard, CELL, record)
    target = tmp_path / "written"
    target.mkdir(exist_ok=True)
    outcome = CellOutcome("avg-cos (tiny)", "DSCS", {"kind": "k", "source": "s"},
                          files={PREDICTION: b"{}", name: b"payload"})  # fmt: skip
    identity = read_cells(shard).cells["avg-cos (tiny)", "DSCS"].identity
    (target / "predictions" / "avg-cos_tiny").mkdir(parents=True, exist_ok=True)
    link = target / "predictions" / "avg-cos_tiny" / "link"
    if not link.is_symlink():
        link.symlink_to(outside)
    with contextlib.suppress(UserInputError):
        write_cell(target, outcome, identity)
    assert not any(outside.iterdir())  # nothing written through the link


_VALUES = st.one_of(
    st.booleans(),
    st.none(),
    st.text(max_size=5),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _paths(record, prefix=()):
    """Every (path of keys, value) in a JSON record."""
    yield prefix, record
    if isinstance(record, dict):
        for key, value in record.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(record, list):
        for index, value in enumerate(record):
            yield from _paths(value, (*prefix, index))


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_mutated_cell_record_is_refused_or_reads_the_same_numbers(shards, tmp_path, data):
    shard = tmp_path / "shard"
    if not shard.exists():
        shutil.copytree(shards / "s1", shard)
    text = (shards / "s1" / CELL).read_text(encoding="utf-8")
    record = json.loads(text)
    places = [path for path, _ in _paths(record) if path]
    where = data.draw(st.sampled_from(places))
    kind = data.draw(st.sampled_from(["replace", "extra", "remove"]))
    parent = record
    for key in where[:-1]:
        parent = parent[key]
    if kind == "replace":
        parent[where[-1]] = data.draw(_VALUES)
    elif kind == "extra" and isinstance(parent, dict):
        parent[data.draw(st.text(min_size=1, max_size=4))] = data.draw(_VALUES)
    elif isinstance(parent, dict):
        del parent[where[-1]]
    else:
        parent.pop(where[-1])
    _rewrite(shard, CELL, json.dumps(record, allow_nan=True))
    try:
        found = read_cells(shard)
    except (UnreadableCellsError, UnsafePathError):
        return
    # accepted: exactly what the JSON says, nothing coerced (no boolean or text read as a number)
    cell = found.cells[("avg-cos (tiny)", "DSCS")]
    assert cell.pearson == record["pearson"]
    assert all(value is None or type(value) is float for value in cell.pearson.values())
    assert list(cell.files) == record["files"] and cell.error == record["error"]


def test_a_planted_swap_journal_cannot_move_or_remove_files_elsewhere(tmp_path):
    """The swap journal and manifest in an --output are read back by the next run (to complete
    an interrupted swap): from a folder others may have written to, they are records from
    outside, and their names are confined to the output."""
    from sts_extras.leaderboard.run.report_set import COMMIT_JOURNAL, recover_output

    output, home = tmp_path / "out", tmp_path / "home"
    output.mkdir()
    home.mkdir()
    precious = home / "precious.txt"
    precious.write_text("mine", encoding="utf-8")
    (output / "lnk").symlink_to(home)
    planted = tmp_path / ".sts-extras-staging-evil"
    planted.mkdir()
    (planted / "leaderboard.md").write_text("planted", encoding="utf-8")
    (output / ".sts-extras-staging-x").symlink_to(planted)
    (output / ".sts-extras-staging-y").mkdir()
    move = {"direction": "forward", "aside": [], "made": []}
    journals = [
        {**move, "staging": "../.sts-extras-staging-evil", "files": ["leaderboard.md"]},
        {**move, "staging": ".sts-extras-staging-x", "files": ["leaderboard.md"]},
        {**move, "staging": ".sts-extras-staging-y", "files": [], "aside": ["lnk/precious.txt"]},
        {**move, "staging": ".sts-extras-staging-y", "files": ["lnk/precious.txt"]},
        {**move, "staging": ".sts-extras-staging-y", "files": [], "made": ["lnk/new"]},
        {**move, "staging": ".sts-extras-staging-y", "files": [], "direction": "back",
         "aside": ["lnk/precious.txt"]},
        {**move, "staging": "not-ours", "files": []},
    ]  # fmt: skip
    for journal in journals:
        (output / COMMIT_JOURNAL).write_text(json.dumps(journal), encoding="utf-8")
        recover_output(output)
        assert precious.read_text(encoding="utf-8") == "mine", journal
        assert sorted(path.name for path in home.iterdir()) == ["precious.txt"], journal
        assert (planted / "leaderboard.md").is_file(), journal
        assert not (output / "leaderboard.md").exists(), journal
        assert not (output / COMMIT_JOURNAL).exists(), journal


# --------------------------------------------------------------------------------------------
# a shard agrees with itself: scores, cell record and MTEB's result say the same r
# --------------------------------------------------------------------------------------------
def _scores_of(shard: Path) -> tuple[dict, list[float], float]:
    """The prediction record of shard 1's cell, its scores, and the r its cell record says."""
    data = json.loads((shard / PREDICTION).read_text(encoding="utf-8"))
    scores = data["default"]["test"]
    key = "similarity_scores" if scores.get("similarity_scores") else "cosine_scores"
    record = json.loads((shard / CELL).read_text(encoding="utf-8"))
    return data, scores[key], record["pearson"]["default/test"]


def _set_scores(shard: Path, change) -> None:
    """Change every score list of the prediction file with ``change`` and list it in the
    manifest again, as anyone can."""
    data = json.loads((shard / PREDICTION).read_text(encoding="utf-8"))
    for key, values in data["default"]["test"].items():
        if isinstance(values, list):
            data["default"]["test"][key] = change(values)
    _rewrite(shard, PREDICTION, data)


def _result_file(shard: Path) -> str:
    return next(
        path.relative_to(shard).as_posix()
        for path in (shard / "mteb_results").rglob("DSCS.json")
        if "avg-cos" in str(path)
    )


def _refused(shards: Path, shard: Path, tmp_path: Path) -> str:
    with pytest.raises(UserInputError) as caught:
        collect_leaderboard(
            [shard, shards / "s2"],
            settings=LeaderboardSettings(output=tmp_path / "o", figures=False, progress=False),
        )
    message = str(caught.value)
    assert str(shard) in message and "avg-cos (tiny) on DSCS" in message, message
    assert ".sts-extras-staging" not in message
    assert not (tmp_path / "o" / "leaderboard.json").exists()
    return message


def test_a_shard_with_negated_scores_and_a_matching_manifest_is_refused(shards, tmp_path):
    """The attack: negate the per-pair scores and recompute the manifest. The report would say
    r = +x while the cell record and MTEB's result file say -x; refused, with both numbers."""
    shard = shutil.copytree(shards / "s1", tmp_path / "shard")
    _, _, r = _scores_of(shard)
    _set_scores(shard, lambda values: [-value for value in values])
    message = _refused(shards, shard, tmp_path)
    assert f"{-r:+.6f}" in message and f"{r:+.6f}" in message and CELL in message


def test_a_shard_with_permuted_scores_is_refused(shards, tmp_path):
    shard = shutil.copytree(shards / "s1", tmp_path / "shard")
    _set_scores(shard, lambda values: values[1:] + values[:1])
    assert "does not agree with itself" in _refused(shards, shard, tmp_path)


def test_an_edited_mteb_result_file_with_a_matching_manifest_is_refused(shards, tmp_path):
    """Scores and cell record untouched; MTEB's result file says another r (6 decimals, as MTEB
    writes): refused, naming the result file."""
    shard = shutil.copytree(shards / "s1", tmp_path / "shard")
    name = _result_file(shard)
    result = json.loads((shard / name).read_text(encoding="utf-8"))
    entry = result["scores"]["test"][0]
    entry["pearson"] = round(-entry["pearson"], 6)
    _rewrite(shard, name, result)
    message = _refused(shards, shard, tmp_path)
    assert name in message and f"{entry['pearson']:+.6f}" in message


def test_an_edited_cell_record_pearson_is_refused(shards, tmp_path):
    shard = shutil.copytree(shards / "s1", tmp_path / "shard")
    record = json.loads((shard / CELL).read_text(encoding="utf-8"))
    record["pearson"]["default/test"] += 1e-6
    _rewrite(shard, CELL, record)
    assert CELL in _refused(shards, shard, tmp_path)


def test_correlations_agree_to_floating_point_error_or_to_the_decimals_written():
    from sts_extras.leaderboard.run.collect import agrees

    assert agrees(0.19439498219629112, 0.19439498219629117)
    assert agrees(0.194395, 0.19439498219629112)  # MTEB's 6 decimals
    assert not agrees(0.1943951, 0.19439498219629112)  # 7 decimals written: held to them
    assert not agrees(0.19, 0.19439498219629112)  # never more than MTEB's rounding
    assert not agrees(-0.194395, 0.19439498219629112)
    assert not agrees(0.0, float("nan"))


# --------------------------------------------------------------------------------------------
# errors name the user's file, never a staging path
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("damage", ["short", "nan", "null"])
def test_a_bad_plain_prediction_file_is_named_as_given(shards, tmp_path, damage):
    """A plain MTEB prediction file cut short or holding NaN: the error names that file, never a
    copy of it in a staging folder (which no longer exists when the message is read)."""
    plain = tmp_path / "plain"
    plain.mkdir()
    path = plain / "DSCS_predictions.json"
    data, _, _ = _scores_of(shards / "s1")
    for values in data["default"]["test"].values():
        if isinstance(values, list):
            if damage == "short":
                values.pop()
            else:
                values[3] = None if damage == "null" else float("nan")
    path.write_text(json.dumps(data, allow_nan=True), encoding="utf-8")
    settings = LeaderboardSettings(output=tmp_path / "o", figures=False, progress=False)
    with pytest.raises(UserInputError) as caught:
        collect_leaderboard([plain], settings=settings)
    message = str(caught.value)
    assert str(path) in message and "staging" not in message and "/tmp/tmp" not in message
    assert ("49 scores" in message) if damage == "short" else ("finite number" in message)
    code, _, err = _collect(plain, output=tmp_path / "o2")
    line = _one_line(err)
    assert code == 2 and str(path) in line and "staging" not in line


# --------------------------------------------------------------------------------------------
# our own records never hold NaN
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_record_with_nan_is_refused_before_it_is_written_and_when_read(shards, tmp_path, value):
    """A correlation of constant scores (all-zero vectors) is NaN: checked_record refuses such a
    record before it is written, naming it and the field; one planted in a shard is refused when
    read, naming the file."""
    from sts_extras.io.records import RecordError
    from sts_extras.leaderboard.run.records import CellFile, checked_record

    record = json.loads((shards / "s1" / CELL).read_text(encoding="utf-8"))
    assert checked_record(CellFile, record, "the cell").pearson == record["pearson"]
    record["pearson"]["default/test"] = value
    with pytest.raises(RecordError, match=r"the cell of avg-cos on DSCS: pearson\.default/test"):
        checked_record(CellFile, record, "the cell of avg-cos on DSCS")
    shard = shutil.copytree(shards / "s1", tmp_path / "shard")
    _rewrite(shard, CELL, json.dumps(record, allow_nan=True))
    with pytest.raises(UnreadableCellsError) as caught:
        read_cells(shard)
    assert str(shard / CELL) in str(caught.value)
