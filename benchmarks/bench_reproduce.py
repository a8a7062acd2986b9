"""Wall time of ``sts-extras reproduce all`` (target: under a minute), and of each paper alone.

Each command runs as a subprocess of the installed console script, offline, with an empty
``STS_EXTRAS_CACHE`` per run (the worst case: nothing reused between runs), ``--repeat`` times;
the median is printed beside the median of ``sts-extras --version`` (the interpreter and the
package's start-up) measured in the same run, and their ratio, so a busy machine still gives a
usable comparison. The load average is printed with the numbers.

Run from anywhere::

    python benchmarks/bench_reproduce.py              # 3 repeats
    python benchmarks/bench_reproduce.py --repeat 5 --papers all
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAPERS = ("dscs", "stss131", "scaled-pearson", "lombardo", "dynamax")
TARGET_SECONDS = 60.0


def console_script() -> str:
    """The ``sts-extras`` script of the running environment (else the first one on PATH)."""
    beside = Path(sys.executable).with_name("sts-extras")
    found = str(beside) if beside.exists() else shutil.which("sts-extras")
    if found is None:
        sys.exit("no sts-extras console script: pip install the package first")
    return found


def run_seconds(command: list[str]) -> float:
    """Wall time of one run of ``command``, offline, with an empty sts-extras cache."""
    with tempfile.TemporaryDirectory(prefix="bench-reproduce-") as cache:
        environment = {
            **os.environ,
            "STS_EXTRAS_CACHE": cache,
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
        }
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, env=environment)
        seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}")
    return seconds


def median_seconds(command: list[str], repeat: int) -> float:
    """Median wall time over ``repeat`` runs, after one untimed warm-up run (page cache)."""
    run_seconds(command)
    return statistics.median(run_seconds(command) for _ in range(repeat))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per command (default 3)")
    parser.add_argument(
        "--papers",
        choices=("all", "each"),
        default="each",
        help="time 'all' only, or also each paper alone (default: each)",
    )
    args = parser.parse_args()
    script = console_script()
    with open("/proc/loadavg") as handle:
        load_before = handle.read().split()[:3]
    baseline = median_seconds([script, "--version"], args.repeat)
    print(f"console script: {script}; median of {args.repeat} runs each")
    print(f"load average before: {' '.join(load_before)}")
    print(f"{'command':<50} {'seconds':>8} {'sts-extras --version':>21} {'ratio':>6}")
    commands = [["all"]] + ([[paper] for paper in PAPERS] if args.papers == "each" else [])
    timed = {}
    for argv in commands:
        seconds = median_seconds([script, "reproduce", *argv, "--no-progress"], args.repeat)
        timed[argv[0]] = seconds
        name = " ".join(["sts-extras reproduce", *argv, "--no-progress"])
        print(f"{name:<50} {seconds:8.2f} {baseline:21.2f} {seconds / baseline:6.1f}")
    with open("/proc/loadavg") as handle:
        print(f"load average after: {' '.join(handle.read().split()[:3])}")
    verdict = "meets" if timed["all"] < TARGET_SECONDS else "MISSES"
    print(f"reproduce all: {timed['all']:.1f} s: {verdict} the target of {TARGET_SECONDS:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
