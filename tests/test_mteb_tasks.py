"""DSCS and STSS-131 as MTEB tasks: metadata MTEB accepts, explicit registration, offline data,
and `mteb.evaluate` writing MTEB's normal result files."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest
import xxhash
from numpy.testing import assert_allclose

mteb = pytest.importorskip("mteb")

from mteb.abstasks.sts import AbsTaskSTS  # noqa: E402
from mteb.abstasks.task_metadata import TaskMetadata  # noqa: E402

from sts_extras.benchmark_tables import get_spec  # noqa: E402
from sts_extras.integrations.datasets.loading import read_rows  # noqa: E402
from sts_extras.integrations.mteb.tasks import DSCS, STSS131, TASKS, register  # noqa: E402

CASES = [(DSCS, "dscs", 50, (0.0, 5.0)), (STSS131, "stss131", 64, (0.0, 4.0))]


@pytest.mark.parametrize(("task_cls", "dataset", "n_pairs", "score_range"), CASES)
def test_metadata_passes_mtebs_own_validation(task_cls, dataset, n_pairs, score_range):
    metadata = task_cls.metadata
    # MTEB's pydantic model forbids unknown fields and checks every Literal; re-validating the
    # dumped fields catches anything set after construction.
    TaskMetadata.model_validate(metadata.model_dump())
    metadata._validate_metadata()  # MTEB's language-code check
    assert metadata.is_filled()  # MTEB's "every field filled" check
    assert issubclass(task_cls, AbsTaskSTS)
    assert metadata.type == "STS"
    assert metadata.category == "t2t"
    assert metadata.eval_splits == ["test"]
    assert metadata.eval_langs == ["eng-Latn"]
    assert metadata.main_score == "pearson"
    assert (task_cls.min_score, task_cls.max_score) == score_range
    spec = get_spec(dataset)
    assert metadata.bibtex_citation == spec.citation
    assert metadata.reference == spec.homepage
    assert spec.license_note in metadata.description
    # The in-text citation MTEB builds from the BibTeX key must have no whitespace.
    assert " " not in metadata.intext_citation(include_cite=False)


@pytest.mark.parametrize(("task_cls", "dataset", "n_pairs", "score_range"), CASES)
def test_revision_is_the_hash_of_the_packaged_table(task_cls, dataset, n_pairs, score_range):
    data = resources.files("sts_extras").joinpath("data", get_spec(dataset).data_file).read_bytes()
    assert task_cls.metadata.revision == xxhash.xxh3_128_hexdigest(data)


def test_register_makes_get_task_and_get_tasks_work():
    register()
    register()  # idempotent
    tasks = mteb.get_tasks(tasks=["DSCS", "STSS131"])
    assert [type(task) for task in tasks] == [DSCS, STSS131]
    assert isinstance(mteb.get_task("DSCS"), DSCS)
    sts_names = {
        task.metadata.name for task in mteb.get_tasks(task_types=["STS"], languages=["eng"])
    }
    assert {"DSCS", "STSS131"} <= sts_names
    assert "BIOSSES" in sts_names  # MTEB's own tasks are still there


def test_register_refuses_to_shadow_a_different_task(monkeypatch):
    from sts_extras.integrations.mteb.internals import task_registry

    monkeypatch.setitem(task_registry(), "DSCS", STSS131)
    with pytest.raises(ValueError, match="already defines a task named 'DSCS'"):
        register()


@pytest.mark.parametrize(("task_cls", "dataset", "n_pairs", "score_range"), CASES)
def test_load_data_is_offline_and_matches_the_package(task_cls, dataset, n_pairs, score_range):
    task = task_cls()
    task.load_data()
    split = task.dataset["test"]
    assert split.num_rows == n_pairs
    rows = read_rows(dataset)
    assert split["sentence1"] == [row["sentence1"] for row in rows]
    assert split["score"] == [row["score"] for row in rows]
    assert min(split["score"]) >= score_range[0] and max(split["score"]) <= score_range[1]
    if dataset == "stss131":  # the calibration pairs SP99 and SP129 must not be evaluated
        assert not {99, 129} & set(split["id"])


def test_mteb_evaluate_writes_normal_result_files(tiny_sentence_transformer, tmp_path):
    register()
    cache = mteb.ResultCache(tmp_path / "mteb")
    result = mteb.evaluate(
        tiny_sentence_transformer,
        mteb.get_tasks(tasks=["DSCS", "STSS131"]),
        cache=cache,
        prediction_folder=tmp_path / "predictions",
        co2_tracker=False,
        show_progress_bar=False,
    )
    assert not result.exceptions
    for task_result, (task_cls, dataset, n_pairs, _) in zip(result.task_results, CASES):
        name = task_cls.metadata.name
        files = list((tmp_path / "mteb" / "results").glob(f"*/*/{name}.json"))
        assert len(files) == 1
        stored = json.loads(files[0].read_text())
        assert stored["task_name"] == name
        assert stored["dataset_revision"] == task_cls.metadata.revision
        stored_scores = stored["scores"]["test"][0]
        assert stored_scores["main_score"] == stored_scores["pearson"]
        pearson = task_result.get_score()  # full precision; the file keeps 6 decimals
        assert_allclose(stored_scores["pearson"], pearson, atol=5e-7)
        # MTEB's pearson is the Pearson r of the per-pair scores it saved and the gold scores.
        predictions = json.loads(
            (tmp_path / "predictions" / f"{name}_predictions.json").read_text()
        )
        similarity = np.asarray(predictions["default"]["test"]["similarity_scores"])
        gold = np.asarray([row["score"] for row in read_rows(dataset)])
        assert similarity.shape == (n_pairs,)
        assert_allclose(pearson, np.corrcoef(similarity, gold)[0, 1], rtol=1e-12)
    assert set(TASKS) == {"DSCS", "STSS131"}
