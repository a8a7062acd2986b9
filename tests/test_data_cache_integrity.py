"""Damaged data caches are found and rebuilt: the datasets Arrow cache and distilled vectors.

Each test damages one kind of file of a cache entry (flips bytes in the data area, truncates,
deletes, edits metadata) and loads again: the result is the clean data, with one
CacheDiscardedWarning, or a named error; never different numbers without a word. Every cache
lives under tmp_path.
"""

from __future__ import annotations

import json
import shutil
import struct
import warnings
from pathlib import Path

import pytest
from numpy.testing import assert_array_equal

from sts_extras.benchmark_tables import read_rows
from sts_extras.integrations.datasets.loading import DatasetCacheError, load_dataset
from sts_extras.integrity import MANIFEST_FILE, CacheDiscardedWarning

datasets = pytest.importorskip("datasets")


def _load_recording(*args, **kwargs):
    """``load_dataset(*args, **kwargs)`` and the CacheDiscardedWarnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = load_dataset(*args, **kwargs)
    return loaded, [w for w in caught if issubclass(w.category, CacheDiscardedWarning)]


# ------------------------------------------------------------------ the datasets Arrow cache
def _arrow_file(name, config, cache_dir):
    """Prepare ``name``/``config`` under ``cache_dir`` and return its Arrow file."""
    (cache_file,) = load_dataset(name, config, split="test", cache_dir=cache_dir).cache_files
    return Path(cache_file["filename"])


def _flip_sentence_bytes(arrow, rows):
    data = bytearray(arrow.read_bytes())
    start = data.find(rows[0]["sentence1"].encode("utf-8"))
    data[start + 3] ^= 0x20  # a letter changes case: same length, valid UTF-8
    arrow.write_bytes(bytes(data))


def _edit_gold_score(arrow, rows):
    data = arrow.read_bytes()
    old = struct.pack("<d", rows[0]["score"])
    assert old in data
    arrow.write_bytes(data.replace(old, struct.pack("<d", rows[0]["score"] + 0.5), 1))


def _truncate(arrow, rows):
    arrow.write_bytes(arrow.read_bytes()[: arrow.stat().st_size // 2])


def _empty(arrow, rows):
    arrow.write_bytes(b"")


def _delete(arrow, rows):
    arrow.unlink()


def _edit_info(change):
    def damage(arrow, rows):
        info_file = arrow.parent / "dataset_info.json"
        info = json.loads(info_file.read_text(encoding="utf-8"))
        change(info)
        info_file.write_text(json.dumps(info), encoding="utf-8")

    return damage


def _truncate_info(arrow, rows):
    info_file = arrow.parent / "dataset_info.json"
    info_file.write_text(info_file.read_text(encoding="utf-8")[:40], encoding="utf-8")


ARROW_DAMAGE = {
    "flipped-text-bytes": _flip_sentence_bytes,
    "edited-gold-score": _edit_gold_score,
    "truncated-arrow": _truncate,
    "empty-arrow": _empty,
    "deleted-arrow": _delete,
    "info-row-count-edited": _edit_info(
        lambda info: info["splits"]["test"].update(num_examples=10)
    ),
    "info-dtype-edited": _edit_info(lambda info: info["features"]["score"].update(dtype="float32")),
    "info-truncated": _truncate_info,
}


@pytest.mark.parametrize("damage", ARROW_DAMAGE.values(), ids=ARROW_DAMAGE.keys())
def test_a_damaged_arrow_cache_is_rebuilt_to_the_packaged_rows(damage, tmp_path):
    cache_dir = str(tmp_path / "hf")
    damage(_arrow_file("dscs", None, cache_dir), read_rows("dscs"))
    loaded, warned = _load_recording("dscs", cache_dir=cache_dir)
    assert loaded["test"].to_list() == read_rows("dscs")
    assert len(warned) == 1 and "dscs" in str(warned[0].message)
    # repaired for good: the next load is clean and silent
    again, warned = _load_recording("dscs", split="test", cache_dir=cache_dir)
    assert again.to_list() == read_rows("dscs") and not warned


@pytest.mark.parametrize(
    ("name", "config", "split"),
    [("stss131", None, "test"), ("stss131", "all", "test[:5]"), ("dscs", "default", None)],
)
def test_every_config_and_split_form_is_checked(name, config, split, tmp_path):
    cache_dir = str(tmp_path / "hf")
    rows = read_rows(name, config)
    _edit_gold_score(_arrow_file(name, config, cache_dir), rows)
    loaded, warned = _load_recording(name, config, split=split, cache_dir=cache_dir)
    expected = rows[:5] if split == "test[:5]" else rows
    got = loaded.to_list() if split else loaded["test"].to_list()
    assert got == expected and len(warned) == 1


def test_the_check_follows_custom_features(tmp_path):
    cache_dir = str(tmp_path / "hf")
    features = datasets.Features(
        {
            "id": datasets.Value("int64"),
            "sentence1": datasets.Value("string"),
            "sentence2": datasets.Value("string"),
            "score": datasets.Value("float32"),
        }
    )
    clean, warned = _load_recording("dscs", split="test", cache_dir=cache_dir, features=features)
    assert not warned and clean.features == features
    clean_rows = clean.to_list()  # before the damage: `clean` maps the file
    (arrow,) = (Path(f["filename"]) for f in clean.cache_files)
    data = arrow.read_bytes()
    old = struct.pack("<f", read_rows("dscs")[0]["score"])
    arrow.write_bytes(data.replace(old, struct.pack("<f", 0.25), 1))
    again, warned = _load_recording("dscs", split="test", cache_dir=cache_dir, features=features)
    assert again.to_list() == clean_rows and len(warned) == 1


def test_a_cache_that_stays_wrong_after_the_rebuild_is_a_named_error(tmp_path, monkeypatch):
    from sts_extras.integrations.datasets.builders import DSCS

    def wrong_examples(self):
        for row in read_rows("dscs"):
            yield row["id"], {**row, "score": row["score"] + 1}

    monkeypatch.setattr(DSCS, "_generate_examples", wrong_examples)
    with pytest.warns(CacheDiscardedWarning), pytest.raises(DatasetCacheError) as raised:
        load_dataset("dscs", cache_dir=str(tmp_path / "hf"))
    message = str(raised.value)
    assert str(tmp_path / "hf") in message and "remove" in message.lower()


def test_the_mteb_task_reads_the_repaired_table(tmp_path, monkeypatch):
    pytest.importorskip("mteb")
    from sts_extras.integrations.mteb.tasks import DSCS

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf")
    _edit_gold_score(_arrow_file("dscs", None, None), read_rows("dscs"))
    task = DSCS()
    with pytest.warns(CacheDiscardedWarning):
        task.load_data()
    assert task.dataset is not None
    assert task.dataset["test"]["score"] == [row["score"] for row in read_rows("dscs")]


# ------------------------------------------------------------------ distilled static vectors
@pytest.fixture(scope="module")
def distilled(tmp_path_factory, tiny_bert):
    """The tiny BERT, its clean distillation and the cache folder that holds it."""
    pytest.importorskip("model2vec.distill")
    from sts_extras.vectors import WordVectors

    cache = tmp_path_factory.mktemp("vectors-cache")
    clean = WordVectors.from_sentence_transformer(tiny_bert, cache_dir=cache, pca_dims=None)
    (entry,) = cache.iterdir()
    return {"bert": tiny_bert, "clean": clean, "entry": entry}


def _flip_safetensors(entry):
    path = entry / "model.safetensors"
    data = bytearray(path.read_bytes())
    data[-8] ^= 0xFF  # inside the last vector: the header is at the start
    path.write_bytes(bytes(data))


def _truncate_safetensors(entry):
    path = entry / "model.safetensors"
    path.write_bytes(path.read_bytes()[:-64])


def _edit_config(entry):
    path = entry / "config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config["normalize"] = not config.get("normalize", False)
    path.write_text(json.dumps(config), encoding="utf-8")


VECTOR_DAMAGE = {
    "flipped-safetensors": _flip_safetensors,
    "truncated-safetensors": _truncate_safetensors,
    "deleted-config": lambda entry: (entry / "config.json").unlink(),
    "edited-config": _edit_config,
    "missing-manifest": lambda entry: (entry / MANIFEST_FILE).unlink(),
}


@pytest.mark.parametrize("damage", VECTOR_DAMAGE.values(), ids=VECTOR_DAMAGE.keys())
def test_a_damaged_distilled_model_is_distilled_again(damage, distilled, tmp_path):
    from sts_extras.vectors import WordVectors

    entry = tmp_path / distilled["entry"].name
    shutil.copytree(distilled["entry"], entry)
    damage(entry)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = WordVectors.from_sentence_transformer(
            distilled["bert"], cache_dir=tmp_path, pca_dims=None
        )
    warned = [w for w in caught if issubclass(w.category, CacheDiscardedWarning)]
    assert len(warned) == 1 and entry.name in str(warned[0].message)
    assert_array_equal(again.vectors, distilled["clean"].vectors)
    assert again.words == distilled["clean"].words
    assert json.loads((entry / "config.json").read_text(encoding="utf-8")) == json.loads(
        (distilled["entry"] / "config.json").read_text(encoding="utf-8")
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == [entry.name]  # no leftovers


def test_a_distilled_model_built_for_other_settings_is_not_used(distilled, tmp_path):
    from sts_extras.vectors import WordVectors

    entry = tmp_path / distilled["entry"].name
    shutil.copytree(distilled["entry"], entry)
    manifest = json.loads((entry / MANIFEST_FILE).read_text(encoding="utf-8"))
    manifest["key"] = {"source": "another-model"}
    (entry / MANIFEST_FILE).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.warns(CacheDiscardedWarning, match="other settings"):
        again = WordVectors.from_sentence_transformer(
            distilled["bert"], cache_dir=tmp_path, pca_dims=None
        )
    assert_array_equal(again.vectors, distilled["clean"].vectors)
