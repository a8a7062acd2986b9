"""Reading MTEB result folders (sts_extras.rank.results), as a specification.

* Over the shared copy of MTEB's results repository (``../shared/data/mteb-sts-results``, 2,571
  files written by MTEB 0.0.2 to 2.x) every file is used, refused with a reason, or in a revision
  folder set aside, and the counts add up; MiniLM's STSBenchmark score is MTEB's published one.
* An independent parse written plainly here (``json`` and one explicit rule per file shape)
  gives the reader's score for every file it used, and finds no English score in the files it
  refused; MTEB's own loader agrees on a file of each shape.
* Hostile files (truncated JSON, a huge number, NaN, a score outside [-1, 1], wrong types, a list
  where an object belongs, a link out of the folder, an oversized file, ...) are refused with the
  file and the field named, and never raise.
* The revision rule on a built folder (most usable tasks, then the newest MTEB version, then the
  name; ``external/`` competing as a revision) and MTEB's ResultCache layout written by MTEB.
* Revisions joined (``revisions="join"``): each task from the model's revision folders in the
  order of MTEB's ``BenchmarkResults.join_revisions`` (a valid mteb_version, a named revision, the
  newest version; then our fixed tie order), on a built folder and against MTEB's own join on it
  and on every model of the shared folder; the counts of complete models under both rules.
* The constant task table equals MTEB's task metadata.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from sts_extras.errors import UserFileNotFoundError, UserInputError
from sts_extras.rank import results as results_module
from sts_extras.rank.results import (
    REVISION_RULES,
    RULES,
    STS_TASKS,
    TASK_INFO,
    PublishedResults,
    TaskScore,
    read_mteb_results,
)

SHARED = Path(__file__).parents[1].parent / "shared" / "data" / "mteb-sts-results"
needs_shared = pytest.mark.skipif(
    not (SHARED / "results").is_dir(),
    reason=f"the shared copy of MTEB's results is not at {SHARED} (../shared/data beside the repo)",
)
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def accounted(result: PublishedResults) -> int:
    return result.used_files + len(result.refused) + result.set_aside_files + result.not_selected


@pytest.fixture(scope="module")
def shared() -> PublishedResults:
    if not (SHARED / "results").is_dir():
        pytest.skip(f"the shared copy of MTEB's results is not at {SHARED}")
    return read_mteb_results(SHARED)


# --------------------------------------------------------------------------------------------
# the shared folder
# --------------------------------------------------------------------------------------------
@needs_shared
def test_every_shared_file_is_used_refused_or_set_aside(shared):
    on_disk = sum(len(names) for _, _, names in os.walk(SHARED / "results"))
    assert on_disk == 2571
    assert shared.files_found == on_disk == accounted(shared)
    assert (shared.used_files, len(shared.refused), shared.set_aside_files) == (2345, 56, 170)
    assert shared.not_selected == 0
    # the one reason here: STS22 files without the English subset (Chinese-only models, etc.)
    assert shared.refused_by_kind() == {"no English subset": 56}
    assert all(Path(item.file).name == "STS22.json" for item in shared.refused)
    assert len(shared.models) == 272
    assert len(shared.complete()) == 99
    # set-aside folders are listed with the reason and the rule that decided
    assert len(shared.set_aside) == 79
    assert all("revision-most-tasks" in item.reason for item in shared.set_aside)


@needs_shared
def test_minilm_stsbenchmark_is_mtebs_published_score(shared):
    (minilm,) = [model for model in shared.models if model.model == MINILM]
    score = minilm.scores["STSBenchmark"]
    assert score.score == pytest.approx(0.8203247283, abs=1e-10)
    assert (score.metric, score.split, score.subset, score.n_pairs) == (
        "cosine_spearman",
        "test",
        "default",
        1379,
    )
    assert score.field == "scores.test[0].cosine_spearman"
    assert score.mteb_version == "1.12.75"
    assert minilm.revision == "8b3219a92973c328a8e22fadcfa821b5dc75636a"
    assert minilm.missing == ()
    assert minilm.source == "published"
    assert {"name-from-model-meta", "revision-only-one", "english-subset"} <= set(minilm.rules)
    assert minilm.scores["STS17"].subset == "en-en" and minilm.scores["STS17"].n_pairs == 250


@needs_shared
def test_every_model_names_the_rules_that_applied(shared):
    for model in shared.models:
        assert set(model.rules) <= set(RULES)
        assert sum(rule.startswith("revision-") and "from" not in rule for rule in model.rules) == 1
        assert ("name-from-model-meta" in model.rules) != ("name-from-folder" in model.rules)
    by_rule = Counter(rule for model in shared.models for rule in model.rules)
    # 20 model folders (no_revision_available/) have no model_meta.json
    assert by_rule["name-from-folder"] == 20
    assert by_rule["external-as-revision"] == 115
    assert by_rule["revision-only-one"] + by_rule["revision-most-tasks"] == 272


@pytest.fixture(scope="module")
def shared_joined() -> PublishedResults:
    if not (SHARED / "results").is_dir():
        pytest.skip(f"the shared copy of MTEB's results is not at {SHARED}")
    return read_mteb_results(SHARED, revisions="join")


@needs_shared
def test_joined_revisions_complete_more_models_of_the_shared_folder(shared, shared_joined):
    joined = shared_joined
    assert (shared.revisions, joined.revisions) == ("one", "join")
    assert joined.files_found == accounted(joined) == 2571
    # the same files are refused; files of tasks another revision supplies are now used
    assert joined.refused == shared.refused
    assert (joined.used_files, joined.set_aside_files) == (2509, 6)
    assert len(joined.models) == len(shared.models) == 272
    # complete models: 99 with one revision folder each, 165 with revisions joined (MTEB's join
    # also counts 12 models whose STS22 file has no English subset: 177)
    assert (len(shared.complete()), len(joined.complete())) == (99, 165)
    assert {m.model for m in shared.complete()} < {m.model for m in joined.complete()}
    several = [model for model in joined.models if len(model.revisions) > 1]
    assert len(several) == 68
    assert sum("revisions-joined" in model.rules for model in joined.models) == 79
    for model in joined.models:
        assert model.revision == model.revisions[0]
        assert {score.revision for score in model.scores.values()} <= set(model.revisions)
        counts = Counter(score.revision for score in model.scores.values())
        assert counts.get(model.revision, 0) == max(counts.values(), default=0)
    # no two revision folders of one model hold the same task here: the join is their union,
    # so every score is the one the single-folder rule read from the same file
    one = {(m.model, t): s for m in shared.models for t, s in m.scores.items()}
    for model in joined.models:
        for task, score in model.scores.items():
            assert one.get((model.model, task), score) == score


# --------------------------------------------------------------------------------------------
# an independent parse, written plainly
# --------------------------------------------------------------------------------------------
ENGLISH = {"STS17": "en-en", "STS22": "en"}  # every other task: "default"


def plain_score(path: Path) -> float | None:
    """The English test cosine_spearman of one result file, by explicit rules per file shape;
    None where the file has no English subset."""
    task = path.stem
    subset = ENGLISH.get(task, "default")
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if "scores" in data:  # MTEB >= 1.11: scores -> split -> list of entries by hf_subset
        entries = [entry for entry in data["scores"]["test"] if entry["hf_subset"] == subset]
        if not entries:
            return None
        (entry,) = entries
        if "cosine_spearman" in entry:  # MTEB >= 1.12
            value = entry["cosine_spearman"]
        elif "cos_sim_spearman" in entry:  # MTEB 1.11
            value = entry["cos_sim_spearman"]
        elif "cos_sim" in entry:  # an entry that still nests the metrics
            value = entry["cos_sim"]["spearman"]
        else:
            value = entry["main_score"]
        return value[0] if isinstance(value, list) else value  # [statistic, p-value]
    # MTEB < 1.11: the split at the top level; per subset for multilingual tasks
    split = data["test"]
    if subset != "default":
        if subset not in split:
            return None
        split = split[subset]
    return split["cos_sim"]["spearman"]


@needs_shared
def test_independent_parse_equals_the_reader_on_every_file(shared):
    used = {score.file: score.score for model in shared.models for score in model.scores.values()}
    assert len(used) == shared.used_files - sum(
        1 for model in shared.models if Path(model.folder, "model_meta.json").exists()
    )
    for file, score in used.items():
        assert plain_score(Path(file)) == score, file
    for item in shared.refused:
        assert plain_score(Path(item.file)) is None, item
    # every result file is exactly one of: used, refused, in a folder set aside (and valid)
    refused = {item.file for item in shared.refused}
    aside = {
        str(path)
        for item in shared.set_aside
        for path in Path(item.folder).glob("*.json")
        if path.name != "model_meta.json" and str(path) not in refused
    }
    every = {str(path) for path in (SHARED / "results").glob("*/*/*.json")}
    every -= {path for path in every if path.endswith("/model_meta.json")}
    assert every == set(used) | refused | aside and len(every) == len(used) + len(refused) + len(
        aside
    )
    assert all(plain_score(Path(path)) is not None for path in aside)


def shape(score) -> str:
    """Where a score was read, without the entry's position: ``scores.test[].cosine_spearman``."""
    return re.sub(r"\[\d+\]", "[]", score.field)


@needs_shared
def test_every_file_shape_is_present_and_read(shared):
    shapes = Counter(shape(score) for model in shared.models for score in model.scores.values())
    # MTEB >= 1.11 (scores by split and subset); MTEB < 1.11, monolingual (the split holds the
    # metrics) and multilingual (STS17's en-en, STS22's en under the split)
    assert shapes == {
        "scores.test[].cosine_spearman": 1978,
        "test.cos_sim.spearman": 96,
        "test.en-en.cos_sim.spearman": 10,
        "test.en.cos_sim.spearman": 9,
    }
    versions = {score.mteb_version for model in shared.models for score in model.scores.values()}
    assert None in versions and "0.0.2" in versions and "2.18.13" in versions


# --------------------------------------------------------------------------------------------
# a built folder
# --------------------------------------------------------------------------------------------
def result_file(task: str, score: float, *, version: str | None = "1.38.0", **extra) -> dict:
    subset = ENGLISH.get(task, "default")
    entry = {"cosine_spearman": score, "main_score": score, "hf_subset": subset}
    return {"task_name": task, "mteb_version": version, "scores": {"test": [entry]}, **extra}


def write(folder: Path, name: str, content: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def revision(root: Path, model: str, rev: str, tasks: dict, *, meta: bool = True) -> Path:
    folder = root / "results" / model.replace("/", "__") / rev
    for task, content in tasks.items():
        write(folder, f"{task}.json", content)
    if meta:
        write(folder, "model_meta.json", {"name": model, "revision": rev, "n_parameters": 1})
    return folder


def test_revision_rule_most_usable_tasks_then_newest_mteb_then_name(tmp_path):
    # X: r1 and external both have 2 usable tasks; external was written by a newer MTEB
    revision(
        tmp_path, "org/x", "r1", {t: result_file(t, 0.5, version="1.12.0") for t in STS_TASKS[:2]}
    )
    revision(
        tmp_path,
        "org/x",
        "external",
        {t: result_file(t, 0.6, version="1.38.0") for t in STS_TASKS[:2]},
    )
    revision(tmp_path, "org/x", "r0", {"STS12": result_file("STS12", 0.7, version="2.0.0")})
    # Y: r1 has 3 files but 2 refused (1 usable); r2 has 2 usable: r2 wins
    revision(
        tmp_path,
        "org/y",
        "r1",
        {"STS12": result_file("STS12", 0.5), "STS13": "{", "STS22": {"scores": {"test": []}}},
    )
    revision(tmp_path, "org/y", "r2", {t: result_file(t, 0.4) for t in ("STS14", "STS15")})
    # Z: a full tie: the revision last in sorted order; no model_meta.json: names from folders
    for rev in ("aaa", "bbb"):
        revision(tmp_path, "org/z", rev, {"BIOSSES": result_file("BIOSSES", 0.3)}, meta=False)

    result = read_mteb_results(tmp_path)
    assert result.files_found == accounted(result) == 17
    models = {model.model: model for model in result.models}
    assert list(models) == ["org/x", "org/y", "org/z"]

    x = models["org/x"]
    assert x.revision == "external" and x.scores["STS12"].score == 0.6
    assert "revision-newest-mteb" in x.rules and "external-as-revision" in x.rules
    assert x.missing == tuple(STS_TASKS[2:])
    y = models["org/y"]
    assert y.revision == "r2" and "revision-most-tasks" in y.rules
    assert "external-as-revision" not in y.rules
    z = models["org/z"]
    assert z.revision == "bbb" and "revision-last-name" in z.rules
    assert {"name-from-folder", "revision-from-folder"} <= set(z.rules)

    aside = {(item.model, item.revision): item for item in result.set_aside}
    assert set(aside) == {("org/x", "r1"), ("org/x", "r0"), ("org/y", "r1"), ("org/z", "aaa")}
    assert aside["org/x", "r1"].reason == (
        "2 usable selected tasks against 2 in the revision kept, 'external', written by a newer "
        "MTEB version (revision-newest-mteb)"
    )
    assert aside["org/x", "r0"].reason.endswith("(revision-most-tasks)")  # its own deciding rule
    assert aside["org/x", "r1"].files == 3  # two results and model_meta.json
    assert "1 usable selected tasks against 2" in aside["org/y", "r1"].reason
    assert result.set_aside_files == 3 + 2 + 2 + 1
    assert result.refused_by_kind() == {"not JSON": 1, "no English subset": 1}


def mteb_file(task: str, score: float, version: str | None) -> dict:
    """A result file as MTEB 2.x writes it (so that MTEB's own loader reads it too)."""
    content = result_file(task, score, version=version)
    content["scores"]["test"][0]["languages"] = ["eng-Latn"]
    return content | {"dataset_revision": "d", "evaluation_time": 1.0, "kg_co2_emissions": None}


#: The built folder of the join: model -> revision folder -> task -> (score, mteb_version).
#: (``-`` marks a folder without model_meta.json.)
JOINED: dict[str, dict[str, dict[str, tuple[float, str | None]]]] = {
    "org/x": {
        "r-new": {"STS12": (0.61, "2.0.0"), "STS13": (0.62, "2.0.0")},
        "r-old": {
            "STS12": (0.51, "1.12.0"),
            "STS13": (0.52, "1.12.0"),
            "STS14": (0.54, "1.12.0"),
            "STS22": (0.59, "1.12.0"),
        },
        "external-": {"STS12": (0.71, "2.5.0"), "STS14": (0.74, "2.5.0"), "STS15": (0.75, "2.5.0")},
        "r-nover": {"STS15": (0.85, None), "STS16": (0.86, None)},
        "no_revision_available-": {"STS16": (0.96, "1.0.1.dev0")},
        "r-range": {"BIOSSES": (0.38, "2.12.16-2.15.4")},
        "r-low": {"BIOSSES": (0.28, "1.0.0")},
    },
    # the ties MTEB leaves to the file system: more usable tasks, then the last in sorted order
    "org/t": {
        "a": {"STS12": (0.1, "1.38.0"), "STS13": (0.1, "1.38.0")},
        "b": {"STS12": (0.2, "1.38.0")},
        "c": {"STS14": (0.3, "1.38.0")},
        "d": {"STS14": (0.4, "1.38.0")},
    },
}
#: What the join takes: model -> task -> (revision, score), and why (the step that decided).
JOINED_PICKS = {
    "org/x": {
        "STS12": ("r-new", 0.61),  # named revisions before external's newer version
        "STS13": ("r-new", 0.62),  # the newer version
        "STS14": ("r-old", 0.54),  # named before unnamed (external)
        "STS15": ("external", 0.75),  # a valid version before none
        "STS16": ("no_revision_available", 0.96),  # a valid (dev) version before none
        "STS22": ("r-old", 0.59),  # the only file
        "BIOSSES": ("r-low", 0.28),  # a version range is no valid version
    },
    "org/t": {"STS12": ("a", 0.1), "STS14": ("d", 0.4), "STS13": ("a", 0.1)},
}


def build_joined(root: Path) -> Path:
    for model, folders in JOINED.items():
        for folder, tasks in folders.items():
            rev = folder.removesuffix("-")
            files = {t: mteb_file(t, score, version) for t, (score, version) in tasks.items()}
            revision(root, model, rev, files, meta=not folder.endswith("-"))
    return root


def test_joined_revisions_take_each_task_in_mtebs_order(tmp_path):
    result = read_mteb_results(build_joined(tmp_path), revisions="join")
    assert result.revisions == "join" and result.refused == ()
    n_files = sum(len(t) + int(not f.endswith("-")) for m in JOINED.values() for f, t in m.items())
    assert result.files_found == accounted(result) == n_files == 28
    models = {model.model: model for model in result.models}
    for name, picks in JOINED_PICKS.items():
        got = {task: (s.revision, s.score) for task, s in models[name].scores.items()}
        assert got == picks, name
        for score in models[name].scores.values():  # the file is the revision's own
            assert Path(score.file).parent.name == score.revision
    x, t = models["org/x"], models["org/t"]
    # the model's revision: the most tasks (r-old and r-new give 2), then the last in sorted order
    assert x.revision == "r-old" and x.folder.endswith("org__x/r-old")
    assert x.revisions == ("r-old", "r-new", "r-low", "no_revision_available", "external")
    assert x.missing == ("STSBenchmark", "SICK-R", "STS17")
    assert {"revisions-joined", "external-as-revision", "revision-from-folder"} <= set(x.rules)
    assert "revision-main" not in x.rules
    assert t.revisions == ("a", "d")

    # files not taken are set aside, by folder, with the tasks and what decided
    aside = {(item.model, item.revision): item for item in result.set_aside}
    assert set(aside) == {
        ("org/x", "r-old"),
        ("org/x", "external"),
        ("org/x", "r-nover"),
        ("org/x", "r-range"),
        ("org/t", "b"),
        ("org/t", "c"),
    }
    assert aside["org/x", "r-old"].tasks == ("STS12", "STS13")
    assert aside["org/x", "r-old"].files == 2  # its model_meta.json is used (STS14, STS22)
    assert aside["org/x", "r-old"].reason == (
        "STS12, STS13 taken from 'r-new' (a newer mteb_version) (revisions-joined)"
    )
    assert aside["org/x", "external"].reason == (
        "STS12 taken from 'r-new' (a named revision); STS14 taken from 'r-old' "
        "(a named revision) (revisions-joined)"
    )
    assert aside["org/x", "external"].files == 2  # STS15 is used, and there is no model_meta
    assert aside["org/x", "r-nover"].tasks == ("STS15", "STS16")
    assert "STS15 taken from 'external' (a valid mteb_version)" in aside["org/x", "r-nover"].reason
    assert aside["org/x", "r-nover"].files == 3  # no file used: model_meta.json too
    assert "no task of this folder is used" in aside["org/x", "r-nover"].reason
    assert "(a valid mteb_version)" in aside["org/x", "r-range"].reason
    assert "(more usable selected tasks in its folder)" in aside["org/t", "b"].reason
    assert "(later in sorted order)" in aside["org/t", "c"].reason
    assert result.set_aside_files == 2 + 2 + 3 + 2 + 2 + 2

    # the same folder by the single-folder rule: org/x keeps r-old, the folder with most tasks
    one = {model.model: model for model in read_mteb_results(tmp_path).models}
    assert one["org/x"].revision == "r-old" and one["org/x"].revisions == ("r-old",)
    assert {s.revision for s in one["org/x"].scores.values()} == {"r-old"}
    assert one["org/x"].scores["STS12"].score == 0.51


def test_main_revisions_go_first_when_given(tmp_path):
    build_joined(tmp_path)
    result = read_mteb_results(tmp_path, revisions="join", main_revisions={"org/x": "r-old"})
    x = {model.model: model for model in result.models}["org/x"]
    got = {task: s.revision for task, s in x.scores.items()}
    assert got["STS12"] == got["STS13"] == "r-old"  # before r-new's newer version
    assert got["STS15"] == "external" and "revision-main" in x.rules
    aside = {(i.model, i.revision): i for i in result.set_aside}
    assert "(the model's main revision)" in aside["org/x", "r-new"].reason
    assert result.files_found == accounted(result)


def test_a_refused_file_does_not_compete_in_the_join(tmp_path):
    newer = {"scores": {"test": [{"hf_subset": "zh", "cosine_spearman": 0.9}]}}
    revision(tmp_path, "org/y", "r1", {"STS22": newer | {"mteb_version": "2.0.0"}})
    revision(tmp_path, "org/y", "r2", {"STS22": result_file("STS22", 0.3, version="1.0.0")})
    result = read_mteb_results(tmp_path, revisions="join")
    (model,) = result.models
    assert model.scores["STS22"].revision == "r2" and model.scores["STS22"].score == 0.3
    (refusal,) = result.refused
    assert refusal.kind == "no English subset" and "r1" in refusal.file
    (aside,) = result.set_aside
    assert (aside.revision, aside.files, aside.tasks) == ("r1", 1, ())  # its model_meta.json
    assert result.files_found == accounted(result) == 4


def test_the_revision_rule_is_checked(tmp_path):
    revision(tmp_path, "org/m", "r", {"STS12": result_file("STS12", 0.5)})
    assert REVISION_RULES == ("one", "join")
    with pytest.raises(UserInputError, match="revisions: expected one of 'one', 'join', got 'all'"):
        read_mteb_results(tmp_path, revisions="all")
    with pytest.raises(UserInputError, match="main_revisions: used only with revisions='join'"):
        read_mteb_results(tmp_path, main_revisions={"org/m": "r"})
    with pytest.raises(UserInputError, match="main_revisions: expected a mapping"):
        read_mteb_results(tmp_path, revisions="join", main_revisions=["org/m"])  # type: ignore[arg-type]
    with pytest.raises(UserInputError, match="main_revisions: 'org/m' -> 3 is not"):
        read_mteb_results(tmp_path, revisions="join", main_revisions={"org/m": 3})  # type: ignore[dict-item]
    # one folder: both rules read the same, and name the same rule
    one, joined = read_mteb_results(tmp_path), read_mteb_results(tmp_path, revisions="join")
    assert one.models == joined.models and "revision-only-one" in one.models[0].rules


def test_selected_tasks_and_other_files(tmp_path):
    folder = revision(tmp_path, "org/m", "r", {t: result_file(t, 0.5) for t in STS_TASKS})
    write(folder, "ArguAna.json", {"whatever": 1})  # a task not selected: not read
    write(folder, "run_settings.jsonl", "{}\n")  # MTEB's ResultCache companion
    write(folder / "experiments" / "kw", "STS12.json", "not read")  # ResultCache experiments
    write(folder, "notes.txt", "hello")
    write(folder / "deeper", "STS12.json", result_file("STS12", 0.1))
    write(tmp_path / "results", "README.md", "top")

    result = read_mteb_results(tmp_path, tasks=["STSBenchmark", "STS17"])
    (model,) = result.models
    assert sorted(model.scores) == ["STS17", "STSBenchmark"]
    assert result.tasks == ("STSBenchmark", "STS17")
    assert result.not_selected == 8 + 1 + 1 + 1
    kinds = {Path(item.file).name: item.kind for item in result.refused}
    assert kinds == {
        "notes.txt": "not a result file",
        "STS12.json": "outside the layout",
        "README.md": "outside the layout",
    }
    assert result.files_found == accounted(result) == 17
    # the command line's --tasks A,B form gives the same selection
    assert read_mteb_results(tmp_path, tasks="STSBenchmark,STS17") == result


# --------------------------------------------------------------------------------------------
# hostile files: refused with the file and the field named, never an exception
# --------------------------------------------------------------------------------------------
def entry_with(**fields) -> dict:
    entry = {"hf_subset": "default", "cosine_spearman": 0.5, "main_score": 0.5, **fields}
    return {"task_name": "STS12", "mteb_version": "1.38.0", "scores": {"test": [entry]}}


HOSTILE = {
    "truncated JSON": (
        '{"scores": {"test": [{"hf_subset": "default", "cosine_',
        "not JSON",
        "not valid JSON",
    ),
    "huge number": (
        json.dumps(entry_with()).replace("0.5,", "1e999,", 1),
        "invalid field",
        "scores.test[0].cosine_spearman: Input should be a finite number",
    ),
    "huge integer": (
        json.dumps(entry_with()).replace("0.5,", "9" * 5000 + ",", 1),
        "not JSON",
        "not valid JSON",
    ),
    "NaN": (
        json.dumps(entry_with()).replace("0.5,", "NaN,", 1),
        "invalid field",
        "scores.test[0].cosine_spearman: null or NaN",
    ),
    "score above 1": (
        entry_with(cosine_spearman=1.5, main_score=1.5),
        "score out of range",
        "scores.test[0].cosine_spearman: 1.5 is not a correlation in [-1, 1]",
    ),
    "score a string": (
        entry_with(cosine_spearman="0.5"),
        "invalid field",
        "scores.test[0].cosine_spearman",
    ),
    "score a boolean": (
        entry_with(cosine_spearman=True),
        "invalid field",
        "scores.test[0].cosine_spearman",
    ),
    "subset a number": (entry_with(hf_subset=3), "invalid field", "scores.test[0].hf_subset"),
    "list for scores": (
        {"task_name": "STS12", "scores": [{"hf_subset": "default"}]},
        "invalid field",
        "scores: Input should be a valid dictionary",
    ),
    "list for the split": (
        {"mteb_dataset_name": "STS12", "test": [0.5]},
        "invalid field",
        "test: Input should be a valid dictionary",
    ),
    "list for cos_sim": (
        {"mteb_dataset_name": "STS12", "test": {"cos_sim": [0.5]}},
        "invalid field",
        "test.cos_sim: Input should be a valid dictionary",
    ),
    "top-level array": ([1, 2], "invalid field", "(top level): expected an object, got an array"),
    "bad p-value pair": (
        entry_with(cosine_spearman=[0.5, 7.0]),
        "invalid field",
        "scores.test[0].cosine_spearman: the p-value",
    ),
    "three-number list": (
        entry_with(cosine_spearman=[0.5, 0.0, 1.0]),
        "invalid field",
        "scores.test[0].cosine_spearman: expected a number or a [statistic, p-value] pair",
    ),
    "fields disagree": (
        entry_with(main_score=0.4),
        "scores disagree",
        "scores.test[0].main_score (0.4) differs from scores.test[0].cosine_spearman",
    ),
    "no main score": (
        entry_with(cosine_spearman=None, main_score=None)
        | {"scores": {"test": [{"hf_subset": "default", "spearman": 0.5}]}},
        "no main score",
        "scores.test[0]: no cosine_spearman",
    ),
    "old split without cos_sim": (
        {"mteb_dataset_name": "STS12", "test": {"evaluation_time": 1.0}},
        "no main score",
        "test: no cosine_spearman",
    ),
    "duplicate key": (
        '{"scores": {"test": []}, "scores": {"test": []}}',
        "not JSON",
        "the key 'scores' appears twice",
    ),
    "other task inside": (
        entry_with() | {"task_name": "STS13"},
        "task name differs",
        "task_name: 'STS13', but the file is named STS12.json",
    ),
    "no test split": (
        {"task_name": "STS12", "scores": {"validation": []}},
        "no test split",
        "scores: no split 'test'",
    ),
    "subset twice": (
        {"scores": {"test": [entry_with()["scores"]["test"][0]] * 2}},
        "invalid field",
        "hf_subset 'default' appears 2 times",
    ),
    "not UTF-8": (b'{"task_name": "STS\xff"}', "not JSON", "not UTF-8 text (byte 18)"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_file_is_refused_naming_the_file_and_field(tmp_path, case):
    content, kind, text = HOSTILE[case]
    folder = revision(tmp_path, "org/m", "r", {"STS13": result_file("STS13", 0.5)})
    path = folder / "STS12.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        write(folder, "STS12.json", content)
    result = read_mteb_results(tmp_path)
    (refusal,) = result.refused
    assert refusal.file == str(path)
    assert refusal.kind == kind
    assert text in refusal.reason, refusal.reason
    assert not re.search(r"\b_[A-Z]", refusal.reason)  # no private class names of the reader
    (model,) = result.models  # the folder's other file is still used
    assert list(model.scores) == ["STS13"] and "STS12" in model.missing
    assert result.files_found == accounted(result) == 3


def test_the_old_shapes_and_pairs_are_read(tmp_path):
    folder = revision(
        tmp_path,
        "org/m",
        "r",
        {
            # MTEB < 1.11, monolingual: the split holds the metrics
            "STS12": {
                "mteb_dataset_name": "STS12",
                "test": {"cos_sim": {"spearman": 0.25}, "evaluation_time": 1},
            },
            # MTEB < 1.11, multilingual: the split holds subsets
            "STS17": {
                "test": {"en-en": {"cos_sim": {"pearson": 0.1, "spearman": 0.35}}, "ko-ko": 3}
            },
            # an entry nesting cos_sim; a [statistic, p-value] pair; MTEB's NaN elsewhere
            "STS22": {
                "scores": {
                    "test": [
                        {
                            "hf_subset": "en",
                            "cos_sim": {"spearman": [0.45, 0.01]},
                            "main_score": 0.45,
                        },
                        {"hf_subset": "de", "cosine_spearman": float("nan")},
                    ]
                }
            },
            # an integer score (a JSON number) and spearman ignored
            "BIOSSES": {
                "scores": {
                    "test": [{"hf_subset": "default", "cosine_spearman": 1, "spearman": 0.2}]
                }
            },
        },
    )
    result = read_mteb_results(tmp_path)
    assert result.refused == ()
    (model,) = result.models
    got = {task: (s.score, s.field) for task, s in model.scores.items()}
    assert got == {
        "STS12": (0.25, "test.cos_sim.spearman"),
        "STS17": (0.35, "test.en-en.cos_sim.spearman"),
        "STS22": (0.45, "scores.test[0].cos_sim.spearman"),
        "BIOSSES": (1.0, "scores.test[0].cosine_spearman"),
    }
    assert model.scores["STS12"].mteb_version is None
    assert folder.name == model.revision


def test_links_out_of_the_folder_are_refused_not_followed(tmp_path):
    outside = tmp_path / "outside"
    write(outside, "STS12.json", result_file("STS12", 0.9))
    write(outside / "rev", "STS13.json", result_file("STS13", 0.9))
    root = tmp_path / "repo"
    folder = revision(root, "org/m", "r", {"STS14": result_file("STS14", 0.5)})
    (folder / "STS12.json").symlink_to(outside / "STS12.json")
    (folder.parent / "linked-rev").symlink_to(outside / "rev")
    # a link that stays inside the folder is fine (here to another model's file)
    other = revision(root, "org/other", "r", {"STS15": result_file("STS15", 0.25)}, meta=False)
    (folder / "STS15.json").symlink_to(other / "STS15.json")
    result = read_mteb_results(root)
    refused = {Path(item.file).name: item for item in result.refused}
    assert set(refused) == {"STS12.json", "linked-rev"}
    assert all(item.kind == "link out of the folder" for item in refused.values())
    assert all(str(root / "results") in item.reason for item in refused.values())
    model = result.models[0]
    assert sorted(model.scores) == ["STS14", "STS15"] and model.scores["STS15"].score == 0.25
    assert result.files_found == accounted(result) == 6


def test_an_oversized_file_is_refused_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(results_module, "MAX_RESULT_FILE_BYTES", 1000)
    big = result_file("STS12", 0.5, padding="x" * 2000)
    folder = revision(tmp_path, "org/m", "r", {"STS12": big, "STS13": result_file("STS13", 0.5)})
    (refusal,) = read_mteb_results(tmp_path).refused
    assert refusal.file == str(folder / "STS12.json")
    assert refusal.kind == "too large" and "more than the 1000 allowed" in refusal.reason


def test_a_refused_model_meta_refuses_its_folder(tmp_path):
    folder = revision(tmp_path, "org/m", "r", {"STS12": result_file("STS12", 0.5)}, meta=False)
    write(folder, "model_meta.json", {"name": 7, "revision": "r"})
    result = read_mteb_results(tmp_path)
    reasons = {Path(item.file).name: (item.kind, item.reason) for item in result.refused}
    assert reasons["model_meta.json"] == ("invalid field", "name: Input should be a valid string")
    assert reasons["STS12.json"][0] == "model_meta.json refused"
    assert result.used_files == 0 and result.files_found == accounted(result) == 2


def test_model_meta_names_the_model_and_revision(tmp_path):
    folder = revision(
        tmp_path, "org/m", "folder-rev", {"STS12": result_file("STS12", 0.5)}, meta=False
    )
    # MTEB writes Infinity in fields the reader does not use (max_tokens of static models)
    write(
        folder,
        "model_meta.json",
        '{"name": "Org/Real-Name", "revision": "abc", "max_tokens": Infinity}',
    )
    (model,) = read_mteb_results(tmp_path).models
    assert (model.model, model.revision) == ("Org/Real-Name", "abc")
    assert {"name-from-model-meta", "revision-from-model-meta"} <= set(model.rules)


def test_user_errors_name_the_argument(tmp_path):
    with pytest.raises(UserInputError, match="folders: give at least one"):
        read_mteb_results()
    with pytest.raises(UserFileNotFoundError, match="folders: .*does not exist"):
        read_mteb_results(tmp_path / "missing")
    write(tmp_path, "file.json", "{}")
    with pytest.raises(UserInputError, match="folders: .*is a file"):
        read_mteb_results(tmp_path / "file.json")
    with pytest.raises(UserInputError, match="tasks: 'STS99' is not one of the English STS"):
        read_mteb_results(tmp_path, tasks=["STS12", "STS99"])
    with pytest.raises(UserInputError, match="tasks: STS12, STS12 names a task twice"):
        read_mteb_results(tmp_path, tasks=["STS12", "STS12"])


def test_too_many_files_is_refused_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(results_module, "MAX_RESULT_FILES", 3)
    revision(tmp_path, "org/m", "r", {t: result_file(t, 0.5) for t in STS_TASKS[:4]})
    with pytest.raises(UserInputError, match="folders: more than 3 files under"):
        read_mteb_results(tmp_path)


# --------------------------------------------------------------------------------------------
# MTEB itself: its task metadata, its ResultCache, its loader
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def mteb():
    return pytest.importorskip("mteb")


def test_task_table_equals_mtebs_metadata(mteb):
    for name in STS_TASKS:
        metadata = mteb.get_task(name).metadata
        info = TASK_INFO[name]
        assert info.main_score == metadata.main_score
        assert metadata.eval_splits == [info.split]
        # the English subset: the one whose languages are all eng-Latn
        languages = metadata.hf_subsets_to_langscripts
        english = [subset for subset, langs in languages.items() if set(langs) == {"eng-Latn"}]
        assert english == [info.subset] or (info.subset == "default" and english == ["default"])
        stats = metadata.descriptive_stats[info.split]
        n = (
            stats["num_samples"]
            if info.subset == "default"
            else stats["hf_subset_descriptive_stats"][info.subset]["num_samples"]
        )
        assert info.n_pairs == n, name


def test_a_resultcache_written_by_mteb_is_read(mteb, tmp_path):
    from mteb.cache import ResultCache
    from mteb.results import TaskResult

    meta = mteb.get_model_meta(MINILM)
    cache = ResultCache(tmp_path / "cache")
    written = {"STSBenchmark": 0.8203247283, "STS17": 0.8765432109}
    for task_name, score in written.items():
        subset = ENGLISH.get(task_name, "default")
        scores = {
            "test": {subset: {"cosine_spearman": score, "main_score": score, "spearman": 0.1}}
        }
        if task_name == "STS17":
            scores["test"]["ko-ko"] = {"cosine_spearman": 0.3, "main_score": 0.3}
        task_result = TaskResult.from_task_results(
            mteb.get_task(task_name), scores, evaluation_time=1.0
        )
        cache.save_to_cache(task_result, meta)

    result = read_mteb_results(tmp_path / "cache")  # read through cache/results
    assert result.refused == ()
    assert result.not_selected == 1  # run_settings.jsonl
    assert result.files_found == accounted(result) == 4
    (model,) = result.models
    assert (model.model, model.revision) == (MINILM, meta.revision)
    assert model.folder == str(
        cache.cache_path / "results" / meta.model_name_as_path() / meta.revision
    )
    for task_name, score in written.items():
        got = model.scores[task_name]
        assert got.score == round(score, 6)  # MTEB rounds to 6 decimals when it writes
        assert got.mteb_version == mteb.__version__
    assert model.missing == tuple(t for t in STS_TASKS if t not in written)


@needs_shared
def test_mtebs_own_loader_agrees_on_each_file_shape(mteb, shared):
    from mteb.results import TaskResult

    by_shape: dict[tuple[str, str, bool], TaskScore] = {}
    for model in shared.models:
        for score in model.scores.values():
            by_shape.setdefault((shape(score), score.subset, score.mteb_version is None), score)
    assert len(by_shape) >= 4
    for score in by_shape.values():
        loaded = TaskResult.from_disk(Path(score.file))
        (entry,) = [item for item in loaded.scores["test"] if item["hf_subset"] == score.subset]
        value = entry["main_score"]
        assert (value[0] if isinstance(value, list) else value) == score.score, score.file


def mteb_joined(mteb, root: Path) -> dict[tuple[str, str], tuple[str | None, float]]:
    """MTEB's own join of revisions, as its leaderboard loads results: (model, task) ->
    (revision, English main score; NaN where the file has no English subset)."""
    from mteb.cache import ResultCache

    english = mteb.get_tasks(
        tasks=list(STS_TASKS), languages=["eng"], exclusive_language_filter=True
    )
    loaded = ResultCache(cache_path=root).load_results(
        tasks=list(STS_TASKS), require_model_meta=False, include_remote=False
    )
    picks = {}
    for model_result in loaded.select_tasks(english).join_revisions():
        for task_result in model_result.task_results:
            subset = TASK_INFO[task_result.task_name].subset
            (entry,) = [e for e in task_result.scores["test"] if e["hf_subset"] == subset]
            value = entry["main_score"]
            picks[model_result.model_name, task_result.task_name] = (
                model_result.model_revision,
                float(value[0] if isinstance(value, list) else value),
            )
    return picks


def test_the_join_agrees_with_mtebs_join_on_a_built_folder(mteb, tmp_path):
    build_joined(tmp_path)
    # a model of MTEB's registry: its main revision goes before a newer, named one
    main = mteb.get_model_meta(MINILM).revision
    revision(tmp_path, MINILM, main, {"STS12": mteb_file("STS12", 0.5, "1.12.0")})
    revision(tmp_path, MINILM, "r-new", {"STS12": mteb_file("STS12", 0.6, "2.0.0")})
    theirs = mteb_joined(mteb, tmp_path)
    ours = read_mteb_results(tmp_path, revisions="join", main_revisions={MINILM: main})
    got = {(m.model, t): (s.revision, s.score) for m in ours.models for t, s in m.scores.items()}
    assert got[MINILM, "STS12"] == (main, 0.5)
    # org/t's ties are left to the file system's order by MTEB: compared above, not here
    compared = {key: value for key, value in theirs.items() if key[0] != "org/t"}
    assert len(compared) == len(JOINED_PICKS["org/x"]) + 1
    assert {key: got[key] for key in compared} == compared
    # without the main revisions, the newer named revision goes first
    plain = read_mteb_results(tmp_path, revisions="join")
    (minilm,) = [m for m in plain.models if m.model == MINILM]
    assert minilm.scores["STS12"].revision == "r-new"


@needs_shared
@pytest.mark.filterwarnings("ignore:STS22. Missing subsets")
def test_the_join_agrees_with_mtebs_join_on_the_shared_folder(mteb, shared_joined):
    theirs = mteb_joined(mteb, SHARED)
    ours = {
        (m.model, t): (s.revision, s.score)
        for m in shared_joined.models
        for t, s in m.scores.items()
    }
    assert {model for model, _ in theirs} == {m.model for m in shared_joined.models}
    finite = {key: value for key, value in theirs.items() if value[1] == value[1]}
    assert len(finite) == len(ours) == 2189
    assert ours == finite  # the same revision and score for every model and task
    # the rest: MTEB's join took an STS22 file without the English subset (no score); the
    # reader refused the same files, and no other revision of those models has STS22
    refused = {
        (Path(r.file).parent.parent.name.replace("__", "/"), Path(r.file).stem)
        for r in shared_joined.refused
    }
    assert set(theirs) - set(finite) == refused and len(refused) == 56
