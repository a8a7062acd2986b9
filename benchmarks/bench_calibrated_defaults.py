"""Speed of `compare_models`' calibrated default against the `compare_models` of commit 25ab094.

Target (issue 31, "Speed"): the default decision for all pairs of 10 models on 1,379 items takes
at most 2x the ``compare_models`` of commit 25ab094 with ``n_resamples=10000``, in the same run.

The data are realistic: the gold scores of the STS Benchmark test set (1,379 pairs), the scores of
the 5 real models of ``benchmarks/calibration/real_scores.py`` (MiniLM encoding costs ~20 s the
first time, cached after) and 5 synthetic systems (gold plus normal noise of growing sd).

Timed, best of ``--repeats`` (wall and CPU time separately; the calls interleaved, so all see the
same load of the machine), with UserWarnings ignored:

* today's ``compare_models(models, gold, n_resamples=10000, seed=0)``: its defaults,
  ``method="auto"`` (the calibrated choice; the method it chose is printed) and ``adjust="holm"``;
* the same call to the baseline, commit 25ab094, with its own defaults (``method="meng1992"``
  with a BCa interval per pair, ``adjust="holm"``). That commit's whole ``sts_extras`` package
  (``git archive``) is imported in a child process, so the baseline also runs on that commit's
  resampling engine, whatever has changed since;
* for reference, today's explicit ``method="BCa"`` and ``method="meng1992"``.

Run from the repository root (a git checkout, for the baseline)::

    python benchmarks/bench_calibrated_defaults.py
    python benchmarks/bench_calibrated_defaults.py --repeats 5
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_calibrated_defaults.py   # steadier when loaded

On a machine busy with other work, multi-threaded BLAS makes every time (wall and CPU) vary by 2x
or more from run to run; one BLAS thread (inherited by the baseline's process) steadies them.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from sts_extras.stats.model_comparison import compare_models

ROOT = Path(__file__).resolve().parents[1]
#: The commit whose ``compare_models`` is the baseline.
BASELINE_COMMIT = "25ab094"
RESAMPLES = 10000
#: Noise sd of the synthetic systems (the gold scores have sd ~1.5 on 0-5).
SYNTHETIC_NOISE = (0.8, 1.0, 1.3, 1.7, 2.2)

#: A child process whose working directory holds the baseline's ``sts_extras``: one timed call
#: per line read from stdin, answered with a line of JSON.
BASELINE_CHILD = """
import json, sys, time, warnings
import numpy as np
import sts_extras
from sts_extras.stats.model_comparison import compare_models
assert sts_extras.__file__.startswith(sys.argv[1]), sts_extras.__file__
data = np.load(sys.argv[2])
gold, models = data["gold"], {k: data[k] for k in data.files if k != "gold"}
for _ in sys.stdin:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        cpu, wall = time.process_time(), time.perf_counter()
        result = compare_models(models, gold, n_resamples=int(sys.argv[3]), seed=0)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    significant = sum(bool(p.significant) for p in result.pairs)
    print(json.dumps([wall, cpu, significant, result.method]), flush=True)
"""


def load_data(seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Gold scores of the STS Benchmark test set, 5 real models and 5 synthetic systems."""
    sys.path.insert(0, str(ROOT))  # benchmarks.calibration is imported as a package
    real_scores = importlib.import_module("benchmarks.calibration.real_scores")
    gold, models = real_scores.stsb_scores("test")
    rng = np.random.default_rng(seed)
    for sd in SYNTHETIC_NOISE:
        models[f"synthetic-sd{sd}"] = gold + rng.normal(0, sd, gold.size)
    return gold, models


def today(models, gold, method: str):
    """A function timing a call of today's ``compare_models``: wall s, CPU s, decisions, method."""

    def call() -> tuple[float, float, int, str]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            cpu, wall = time.process_time(), time.perf_counter()
            result = compare_models(models, gold, method=method, n_resamples=RESAMPLES, seed=0)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        return wall, cpu, sum(bool(pair.significant) for pair in result.pairs), result.method

    return call


@contextlib.contextmanager
def baseline(gold, models):
    """The same as :func:`today` for the baseline's ``compare_models`` (with its defaults)."""
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(
            ["git", "archive", BASELINE_COMMIT, "sts_extras"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        data = Path(folder) / "data.npz"
        np.savez(data, gold=gold, **models)
        command = [sys.executable, "-c", BASELINE_CHILD, folder, str(data), str(RESAMPLES)]
        with subprocess.Popen(
            command, cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        ) as child:

            def call() -> tuple[float, float, int, str]:
                child.stdin.write("go\n")
                child.stdin.flush()
                return tuple(json.loads(child.stdout.readline()))

            yield call
            child.stdin.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each; best time reported")
    args = parser.parse_args()

    gold, models = load_data()
    pairs = len(models) * (len(models) - 1) // 2
    print(f"{len(models)} models ({pairs} pairs), n = {gold.size}, {RESAMPLES} resamples")

    default, old = "today default", f"{BASELINE_COMMIT} default"
    runs: dict[str, list[tuple[float, float, int, str]]] = {}
    with baseline(gold, models) as baseline_call:
        calls = {
            default: today(models, gold, "auto"),
            old: baseline_call,
            "today BCa": today(models, gold, "BCa"),
            "today meng1992": today(models, gold, "meng1992"),
        }
        for _ in range(args.repeats):  # interleaved: all see the same load of the machine
            for label, call in calls.items():
                runs.setdefault(label, []).append(call())
    print(f"today's method='auto' chose {runs[default][-1][3]!r} (adjust='holm')")

    print(f"best of {args.repeats}:      wall s    CPU s   method       significant pairs (Holm)")
    best = {}
    for label, times in runs.items():
        best[label] = min(t[0] for t in times), min(t[1] for t in times)
        *_, significant, method = times[-1]
        print(
            f"  {label:16s} {best[label][0]:8.2f} {best[label][1]:8.2f}   {method:12s} "
            f"{significant}/{pairs}"
        )
    wall_ratio, cpu_ratio = (best[default][k] / best[old][k] for k in (0, 1))
    print(
        f"default / {BASELINE_COMMIT}: {wall_ratio:.2f}x wall, {cpu_ratio:.2f}x CPU; "
        f"at most 2x: {wall_ratio <= 2} (wall), {cpu_ratio <= 2} (CPU)"
    )


if __name__ == "__main__":
    main()
