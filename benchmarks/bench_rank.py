"""Speed of the whole ranking (`sts-extras rank`) of MTEB's published STS results.

Target (issue 34, item 5): the whole ranking of ``../shared/data/mteb-sts-results`` (read every
file, rank sets, Friedman/Nemenyi, Bayesian signed-rank, every report and both figures) in at most
15 s on the 2-core reference machine.

Run from the repository root::

    python benchmarks/bench_rank.py                 # the shared folder, best of 3 runs
    python benchmarks/bench_rank.py --repeat 1 DIR  # another results folder

What is printed, for the best of ``--repeat`` runs of each (runs alternate, so all see the same
file cache and machine load):

* the baseline: every file read with a plain ``json.load``, each model's ``cosine_spearman`` of
  the English test subset picked naively, and the models with every task ranked by their mean
  with pandas -- the leaderboard's ranking without validation, uncertainty or reports;
* ``rank_models`` in this process without figures, and with both figures (PNG);
* ``sts-extras rank`` as a user runs it: a new process, imports included;
* the ratios to the baseline and the target, and the command's CPU time (user + system of the
  child process): on a shared machine the wall time also counts the other processes' load, which
  the load average printed beside it shows.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "mteb-sts-results"
TARGET_SECONDS = 15.0
TASKS = [
    "STS12",
    "STS13",
    "STS14",
    "STS15",
    "STS16",
    "STSBenchmark",
    "SICK-R",
    "BIOSSES",
    "STS17",
    "STS22",
]
SUBSET = {"STS17": "en-en", "STS22": "en"}


def baseline(folder: Path) -> int:
    """json.load of every file + a pandas ranking by mean over the complete models."""
    import pandas as pd

    rows = []
    for base, _, names in os.walk(folder):
        for name in names:
            if not name.endswith(".json"):
                continue
            with open(os.path.join(base, name), encoding="utf-8") as handle:
                data = json.load(handle)
            task = name[: -len(".json")]
            if task not in TASKS or not isinstance(data.get("scores"), dict):
                continue
            for entry in data["scores"].get("test", []):
                if entry.get("hf_subset") == SUBSET.get(task, "default"):
                    score = entry.get("cosine_spearman")
                    if isinstance(score, float):
                        rows.append((Path(base).parent.name, task, score))
    table = pd.DataFrame(rows, columns=["model", "task", "score"])
    wide = table.pivot_table(index="model", columns="task", values="score", aggfunc="first")
    complete = wide.dropna()
    return int(complete.mean(axis=1).rank(ascending=False).size)


def timed(function: Any, *args: Any, **kwargs: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=SHARED)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from sts_extras.rank import rank_models

    best = {"baseline": float("inf"), "no figures": float("inf"), "figures": float("inf")}
    best["sts-extras rank"] = float("inf")
    counts = None
    cpu = float("inf")
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(args.repeat):
            seconds, ranked = timed(baseline, args.folder)
            best["baseline"] = min(best["baseline"], seconds)
            seconds, ranking = timed(
                rank_models, [args.folder], output=Path(scratch) / "a", figures=False
            )
            best["no figures"] = min(best["no figures"], seconds)
            seconds, _ = timed(rank_models, [args.folder], output=Path(scratch) / "b")
            best["figures"] = min(best["figures"], seconds)
            command = [sys.executable, "-m", "sts_extras.cli", "rank", str(args.folder)]
            command += ["--output", str(Path(scratch) / "c")]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            seconds, _ = timed(subprocess.run, command, check=True, capture_output=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = min(cpu, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            best["sts-extras rank"] = min(best["sts-extras rank"], seconds)
            counts = (ranked, len(ranking.models), len(ranking.left_out), ranking.separable)
    assert counts is not None
    print(f"folder: {args.folder}")
    print(
        f"baseline (json.load + pandas mean ranking): {best['baseline']:.2f} s, {counts[0]} models"
    )
    for name in ("no figures", "figures", "sts-extras rank"):
        ratio = best[name] / best["baseline"]
        print(f"rank_models ({name}): {best[name]:.2f} s = {ratio:.1f} x baseline")
    separable = counts[3] or {}
    print(
        f"ranked {counts[1]} models, left out {counts[2]}; adjacent pairs separable: "
        f"{separable.get('nemenyi')} (Nemenyi), {separable.get('bayesian')} (Bayesian) of "
        f"{separable.get('n_pairs')}"
    )
    whole = best["sts-extras rank"]
    verdict = "within" if whole <= TARGET_SECONDS else "OVER"
    print(f"target: the whole command at most {TARGET_SECONDS:g} s: {whole:.2f} s, {verdict}")
    print(f"the command's CPU time: {cpu:.2f} s; load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
