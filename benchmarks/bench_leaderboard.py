"""Wall time of the default ``sts-extras leaderboard`` run: from empty caches, then a re-run.

Target (issue 6) on the 2-core reference machine: the default run (all-MiniLM-L6-v2 and the
avg-cos, MaxPool-Jaccard and DynaMax-Jaccard models over static vectors distilled from it, on DSCS
and STSS-131, 10000 BCa resamples per comparison) takes at most 10 minutes from a fresh install,
first distillation included, and at most 2 minutes on a re-run.

"Fresh install" is simulated by pointing every cache the run touches at new empty directories:
``STS_EXTRAS_CACHE`` (distilled vectors, encodings), ``MTEB_CACHE`` and ``HF_DATASETS_CACHE``
(the Arrow copies of DSCS/STSS-131). The re-run reuses them. Each run is the real command line in a
new process (imports included), offline (``HF_HUB_OFFLINE=1``).

Run from the repository root::

    python benchmarks/bench_leaderboard.py
    python benchmarks/bench_leaderboard.py --docs docs/leaderboard   # also refresh the example

``--docs DIR`` copies the re-run's ``leaderboard.md``, ``leaderboard.json`` and
``scatter_DSCS.png`` to ``DIR`` (the example shown in the README).

Note: the machine may be shared; the load average before each run is printed so a slow number can
be read in context.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"fresh": 600.0, "re-run": 120.0}
DOC_FILES = ("leaderboard.md", "leaderboard.json", "scatter_DSCS.png")


def _run(label: str, output: Path, env: dict[str, str], extra: list[str]) -> float:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    command = [
        sys.executable,
        "-m",
        "sts_extras.cli",
        "leaderboard",
        "--output",
        str(output),
        "--no-progress",
        *extra,
    ]
    start = time.perf_counter()
    completed = subprocess.run(command, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if completed.returncode != 0:
        sys.stderr.write(completed.stderr[-4000:])
        raise SystemExit(f"{label} run failed with exit status {completed.returncode}")
    verdict = "OK" if elapsed <= TARGETS[label] else "TOO SLOW"
    print(
        f"{label:>7}: {elapsed:7.1f} s   (target <= {TARGETS[label]:.0f} s: {verdict}; "
        f"load average before: {load:.2f})"
    )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, help="copy the example report files here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary caches")
    parser.add_argument("extra", nargs="*", help="extra leaderboard options (after --)")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="bench-leaderboard-"))
    env = dict(
        os.environ,
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        MPLBACKEND="Agg",
        STS_EXTRAS_CACHE=str(root / "sts_extras"),
        MTEB_CACHE=str(root / "mteb"),
        HF_DATASETS_CACHE=str(root / "datasets"),
    )
    print(f"caches under {root}; cores: {os.cpu_count()}")
    try:
        _run("fresh", root / "out-fresh", env, args.extra)
        _run("re-run", root / "out-rerun", env, args.extra)
        if args.docs:
            args.docs.mkdir(parents=True, exist_ok=True)
            for name in DOC_FILES:
                shutil.copy2(root / "out-rerun" / name, args.docs / name)
            print(f"example copied to {args.docs}")
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
