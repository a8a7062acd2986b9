"""The leaderboard beyond one process: serial vs ``--workers 2``, and the cost of ``collect``.

Part 1 (issue 14): the default ``sts-extras leaderboard`` run (all-MiniLM-L6-v2 and three static
models over the packaged GloVe 6B 50-d vectors, DSCS and STSS-131, 10000 resamples; until 0.4
over vectors distilled from MiniLM), serially and with
``--workers 2`` (a Dask ``LocalCluster`` of two worker processes), each from empty sts-extras and
MTEB caches (the HF datasets cache is shared: it only holds the two small Arrow tables), then
each re-run warm. Every run is the real command line in a new process, offline. The
``leaderboard.json`` of all four must be byte-identical. On a 2-core machine little can be
gained: the static models take a second each, and each worker process pays the imports (torch,
MTEB) and builds its own models.

Part 2: ``collect`` of a synthetic 100-model × 10-task plan written as two shards (random scores,
``--pairs`` pairs per task), built by the same code that writes real cells, with a manifest. The
time is split into reading and checking the cells (manifest digests, plan and task agreement,
copying into the new report set) and the whole command (statistics included, ``--n-resamples``,
no figures).

Run from the repository root::

    python benchmarks/bench_distributed.py                # both parts
    python benchmarks/bench_distributed.py --part collect --n-resamples 1000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def _env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        STS_EXTRAS_CACHE=str(root / "sts_extras"),
        MTEB_CACHE=str(root / "mteb"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
    )
    return env


def _timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def part_runs(work: Path) -> None:
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    command = [
        sys.executable,
        "-m",
        "sts_extras.cli",
        "leaderboard",
        "--no-progress",
        "--no-figures",
    ]
    outputs = {}
    for mode, extra in (("serial", []), ("--workers 2", ["--workers", "2"])):
        caches = work / f"caches-{len(outputs)}"
        output = work / f"out-{len(outputs)}"
        cold = _timed([*command, "--output", str(output), *extra], _env(caches))
        warm = _timed([*command, "--output", str(output), *extra], _env(caches))
        outputs[mode] = (output / "leaderboard.json").read_bytes()
        print(f"{mode:>12}: empty caches {cold:7.1f} s   warm re-run {warm:6.1f} s")
    same = len(set(outputs.values())) == 1
    print(f"leaderboard.json byte-identical across modes: {same}")
    if not same:
        raise SystemExit(1)


def _synthetic(
    root: Path, models: int, tasks: int, pairs: int, shards: int, n_resamples: int
) -> None:
    """Write a plan of ``models`` × ``tasks`` random cells as ``shards`` shard outputs."""
    from sts_extras.integrity import write_manifest
    from sts_extras.leaderboard.run.cells import (
        Plan,
        shard_cells,
        task_record,
        write_outcomes,
        write_plan,
        write_task_record,
    )
    from sts_extras.leaderboard.run.evaluation import CellOutcome, Unit, slug
    from sts_extras.leaderboard.settings import LeaderboardSettings

    rng = np.random.default_rng(0)
    names = [f"model-{index:03d}" for index in range(models)]
    task_names = [f"Task{index:02d}" for index in range(tasks)]
    settings = LeaderboardSettings(n_resamples=n_resamples).to_record()
    plan = Plan(tuple(names), tuple(task_names), names[0], settings)
    gold = {name: rng.uniform(0, 5, pairs).round(2) for name in task_names}
    records = [
        task_record(name, [Unit(name, name, "default", "test", gold[name], (0.0, 5.0))], name)
        for name in task_names
    ]
    noise = np.linspace(0.5, 3.0, models)
    for index in range(1, shards + 1):
        folder = root / f"shard{index}"
        cells = shard_cells(plan.cells(), index, shards)
        write_plan(folder, plan, (index, shards))
        for record in records:
            write_task_record(folder, record)
        outcomes = []
        for model, task in cells:
            scores = gold[task] + rng.normal(0, noise[names.index(model)], pairs)
            prediction = {
                "mteb_model_meta": {"model_name": f"synthetic/{model}", "revision": "1"},
                "default": {"test": {"similarity_scores": scores.tolist()}},
            }
            path = f"predictions/{slug(model)}/{task}_predictions.json"
            info = {
                "kind": "synthetic",
                "source": "bench",
                "mteb_name": model,
                "mteb_revision": "1",
            }
            outcomes.append(
                CellOutcome(model, task, info, files={path: json.dumps(prediction).encode()})
            )
        write_outcomes(folder, outcomes, {name: name for name in task_names}, cells)
        write_manifest(folder, {"shard": f"{index}/{shards}"})


def part_collect(work: Path, models: int, tasks: int, pairs: int, n_resamples: int) -> None:
    from sts_extras.leaderboard.run.cells import read_cells, task_scores
    from sts_extras.leaderboard.run.collect import collect_leaderboard
    from sts_extras.leaderboard.settings import LeaderboardSettings

    start = time.perf_counter()
    _synthetic(work, models, tasks, pairs, 2, n_resamples)
    print(
        f"synthetic {models} × {tasks} plan, {pairs} pairs per task, 2 shards: "
        f"written in {time.perf_counter() - start:.1f} s"
    )
    shards = [work / "shard1", work / "shard2"]
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    start = time.perf_counter()
    found = [read_cells(folder) for folder in shards]
    cells = {cell: record for source in found for cell, record in source.cells.items()}
    task_scores(found[0].plan, found[0].tasks, cells)
    reading = time.perf_counter() - start
    print(f"read + verify {len(cells)} cells and their scores: {reading:6.2f} s")
    start = time.perf_counter()
    collect_leaderboard(
        shards,
        settings=LeaderboardSettings(output=work / "collected", figures=False, progress=False),
    )
    whole = time.perf_counter() - start
    print(f"whole collect, statistics included ({n_resamples} resamples): {whole:7.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=["runs", "collect", "both"], default="both")
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--pairs", type=int, default=250)
    parser.add_argument("--n-resamples", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        if args.part in ("runs", "both"):
            part_runs(work / "runs")
        if args.part in ("collect", "both"):
            part_collect(work / "collect", args.models, args.tasks, args.pairs, args.n_resamples)


if __name__ == "__main__":
    main()
