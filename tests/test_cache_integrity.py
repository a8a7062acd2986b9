"""Corrupt each kind of file a leaderboard re-run reads back from its caches (MTEB's embedding
cache, the store of earlier evaluations) or its output directory; the re-run must give exactly
the numbers of a clean run, after one CacheDiscardedWarning naming the damaged file."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from sts_extras.integrity import MANIFEST_FILE


@pytest.fixture(scope="module")
def clean(tmp_path_factory, tiny_model_dir, run_on_dscs):
    """A tiny sentence-transformers model, and the caches and output of one clean run."""
    root = tmp_path_factory.mktemp("integrity")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MTEB_CACHE", str(root / "mteb"))
        data, discarded = run_on_dscs(root / "cache", root / "output", models=[str(tiny_model_dir)])
        assert discarded == []
        yield {"model": tiny_model_dir, "root": root, "json": data}


def _flip(path: Path, offset: int = 0) -> None:
    data = bytearray(path.read_bytes())
    for i in range(offset, min(offset + 8, len(data))):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))


def _flip_json(path: Path) -> None:
    """Flip bytes inside the first number of a JSON file's data (no longer valid UTF-8)."""
    number = re.search(rb"\d\.\d", path.read_bytes())
    assert number is not None
    _flip(path, number.start())


def _edit_score(path: Path) -> None:
    """Change the first per-pair score of a prediction file: valid JSON, another value."""
    predictions = json.loads(path.read_text(encoding="utf-8"))
    predictions["default"]["test"]["similarity_scores"][0] += 0.5
    path.write_text(json.dumps(predictions), encoding="utf-8")


def _edit_pearson(path: Path) -> None:
    """Change the pearson MTEB reported in the store's record: valid JSON, another value."""
    record = json.loads(path.read_text(encoding="utf-8"))
    record["pearson"][0][2] += 0.1
    path.write_text(json.dumps(record), encoding="utf-8")


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _delete(path: Path) -> None:
    path.unlink()


def _dimension_8_to_4(path: Path) -> None:
    assert path.read_text(encoding="utf-8").strip() == "8"
    path.write_text("4", encoding="utf-8")


def _swap_index(path: Path) -> None:
    """Swap the rows of the first two texts of MTEB's index: valid JSON, wrong vectors."""
    index = json.loads(path.read_text(encoding="utf-8"))
    first, second = list(index)[:2]
    index[first], index[second] = index[second], index[first]
    path.write_text(json.dumps(index), encoding="utf-8")


def _garbage_run_settings(path: Path) -> None:
    path.write_text('{"task": "DSCS"}\nnot json\n[1, 2]\n', encoding="utf-8")


# case -> (where: "embeddings", "store" or "output"; file name; damage)
CASES = {
    "vectors-flip": ("embeddings", "vectors.npy", _flip),
    "vectors-truncate": ("embeddings", "vectors.npy", _truncate),
    "vectors-delete": ("embeddings", "vectors.npy", _delete),
    "dimension-edit": ("embeddings", "dimension", _dimension_8_to_4),
    "dimension-delete": ("embeddings", "dimension", _delete),
    "index-edit": ("embeddings", "index.json", _swap_index),
    "index-truncate": ("embeddings", "index.json", _truncate),
    "embeddings-no-manifest": ("embeddings", MANIFEST_FILE, _delete),  # 0.1, or a crash
    "predictions-flip": ("store", "DSCS_predictions.json", _flip_json),
    "predictions-edit": ("store", "DSCS_predictions.json", _edit_score),
    "predictions-truncate": ("store", "DSCS_predictions.json", _truncate),
    "predictions-delete": ("store", "DSCS_predictions.json", _delete),
    "record-edit": ("store", "stored.json", _edit_pearson),
    "record-truncate": ("store", "stored.json", _truncate),
    "result-flip": ("store", "DSCS.json", _flip_json),
    "model-meta-delete": ("store", "model_meta.json", _delete),
    "store-no-manifest": ("store", MANIFEST_FILE, _delete),
    "output-run-settings": ("output", "run_settings.jsonl", _garbage_run_settings),
    "output-predictions-flip": ("output", "DSCS_predictions.json", _flip_json),
}


def _one(pattern: str, root: Path) -> Path:
    found = sorted(root.glob(pattern))
    assert len(found) == 1, (pattern, found)
    return found[0]


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_file_gives_the_clean_numbers(clean, case, tmp_path, monkeypatch, run_on_dscs):
    where, name, damage = CASES[case]
    cache, output = tmp_path / "cache", tmp_path / "output"
    shutil.copytree(clean["root"] / "cache", cache)
    shutil.copytree(clean["root"] / "output", output)
    monkeypatch.setenv("MTEB_CACHE", str(clean["root"] / "mteb"))
    if where == "embeddings":
        # without stored evaluations the model is evaluated, through its embedding cache
        shutil.rmtree(cache / "evaluations")
        target = _one(f"embeddings/*/*/DSCS/{name}", cache)
    elif where == "store":
        target = _one(f"evaluations/*/*/{name}", cache)
    else:
        target = _one(f"**/{name}", output)
    damage(target)

    data, discarded = run_on_dscs(cache, output, models=[str(clean["model"])])

    assert data == clean["json"]
    if where == "output":  # not a cache: rewritten by the run, nothing to discard
        assert discarded == []
    else:
        assert len(discarded) == 1, discarded
        assert name in discarded[0]
