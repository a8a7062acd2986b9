"""Atomic writes and cache manifests (sts_extras.integrity): what every cache entry relies on."""

from __future__ import annotations

import hashlib
import json
import os

import pytest
import xxhash

from sts_extras.integrity import (
    MANIFEST_FILE,
    CacheDiscardedWarning,
    atomic_directory,
    atomic_write_text,
    discard,
    verify_listed,
    verify_manifest,
    write_manifest,
)
from sts_extras.io.content import content_hash


@pytest.fixture
def entry(tmp_path):
    folder = tmp_path / "entry"
    folder.mkdir()
    (folder / "vectors.bin").write_bytes(bytes(range(256)) * 4)
    (folder / "sub").mkdir()
    (folder / "sub" / "config.json").write_text('{"dim": 4}', encoding="utf-8")
    write_manifest(folder, {"model": "m", "revision": "r"})
    return folder


def test_an_untouched_entry_verifies(entry):
    assert verify_manifest(entry, {"model": "m", "revision": "r"}) is None
    assert verify_manifest(entry) is None


def test_a_flipped_byte_is_found(entry):
    data = bytearray((entry / "vectors.bin").read_bytes())
    data[500] ^= 0xFF
    (entry / "vectors.bin").write_bytes(bytes(data))
    problem = verify_manifest(entry)
    assert problem is not None and "vectors.bin was changed" in problem


@pytest.mark.parametrize(
    "damage, expected",
    [
        (lambda f: (f / "vectors.bin").write_bytes(b"short"), "vectors.bin was changed"),
        (lambda f: (f / "sub" / "config.json").unlink(), "config.json is missing"),
        (lambda f: (f / "extra.npy").write_bytes(b"x"), "extra.npy is not in the manifest"),
        (lambda f: (f / MANIFEST_FILE).unlink(), "is missing"),
        (lambda f: (f / MANIFEST_FILE).write_text("{not json", encoding="utf-8"), "unreadable"),
    ],
    ids=["truncated", "deleted", "added", "no-manifest", "bad-manifest"],
)
def test_each_kind_of_damage_is_named(entry, damage, expected):
    damage(entry)
    problem = verify_manifest(entry)
    assert problem is not None and expected in problem


def test_other_settings_do_not_verify(entry):
    problem = verify_manifest(entry, {"model": "m", "revision": "other"})
    assert problem is not None and "other settings" in problem


def test_the_manifest_lists_sizes_and_digests(entry):
    manifest = json.loads((entry / MANIFEST_FILE).read_text(encoding="utf-8"))
    assert sorted(manifest["files"]) == ["sub/config.json", "vectors.bin"]
    assert manifest["files"]["vectors.bin"][0] == 1024
    # the package's one content hash, XXH3-128 of the file's bytes, and the manifest names it
    assert manifest["hash"] == "xxh3-128"
    data = (entry / "vectors.bin").read_bytes()
    assert manifest["files"]["vectors.bin"][1] == xxhash.xxh3_128_hexdigest(data)


@pytest.mark.parametrize("written_with", [None, "blake2b-128"])
def test_a_manifest_of_another_hash_is_refused_not_misread(entry, written_with):
    # a manifest of before 0.4 (no hash named, BLAKE2b digests of the same 32 hex digits): the
    # entry is rebuilt with a reason saying so, never compared digest by digest
    manifest = json.loads((entry / MANIFEST_FILE).read_text(encoding="utf-8"))
    del manifest["hash"]
    if written_with is not None:
        manifest["hash"] = written_with
    for name in manifest["files"]:
        data = (entry / name).read_bytes()
        manifest["files"][name][1] = hashlib.blake2b(data, digest_size=16).hexdigest()
    (entry / MANIFEST_FILE).write_text(json.dumps(manifest), encoding="utf-8")
    problem = verify_manifest(entry, {"model": "m", "revision": "r"})
    assert problem is not None
    assert "another content hash" in problem and "older sts-extras" in problem
    assert (written_with or "BLAKE2b") in problem
    assert verify_listed(entry, ["vectors.bin"]) == problem


def test_content_hash_is_xxh3_128_of_bytes_or_utf8_text():
    assert content_hash(b"abc") == xxhash.xxh3_128_hexdigest(b"abc")
    assert content_hash("é\ud800") == xxhash.xxh3_128_hexdigest(
        "é\ud800".encode("utf-8", "surrogatepass")
    )
    assert content_hash("abc", digits=12) == content_hash("abc")[:12]
    with pytest.raises(ValueError, match="digits"):
        content_hash("abc", digits=33)


def test_atomic_write_replaces_whole_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "a" / "report.md"
    atomic_write_text(target, "first")
    atomic_write_text(target, "second")
    assert target.read_text(encoding="utf-8") == "second"
    assert os.listdir(target.parent) == ["report.md"]
    assert oct(target.stat().st_mode & 0o777) == oct(0o644)


def test_atomic_directory_swaps_in_whole_or_not_at_all(tmp_path):
    target = tmp_path / "entry"
    with atomic_directory(target) as staging:
        (staging / "a").write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_directory(target) as staging:
        (staging / "a").write_text("half", encoding="utf-8")
        raise RuntimeError("killed")
    assert (target / "a").read_text(encoding="utf-8") == "old"
    with atomic_directory(target) as staging:
        (staging / "b").write_text("new", encoding="utf-8")
    assert sorted(os.listdir(target)) == ["b"]
    assert sorted(os.listdir(tmp_path)) == ["entry"]  # no staging or old copies left


def test_discard_removes_with_one_warning(entry, tmp_path):
    with pytest.warns(CacheDiscardedWarning, match="because it was edited"):
        discard(entry, "because it was edited")
    assert not entry.exists()
    stray = tmp_path / "file.npy"
    stray.write_bytes(b"x")
    with pytest.warns(CacheDiscardedWarning):
        discard(stray, "unreadable")
    assert not stray.exists()
