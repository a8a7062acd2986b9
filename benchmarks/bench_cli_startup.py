"""Start-up time of ``sts-extras ... --help`` against ``python -c pass`` (issue 22).

Target: every ``--help`` under 0.5 s of wall time. Each command runs as a subprocess of the
installed console script (found next to the running Python, else on PATH), ``--repeat`` times;
the median is printed beside the median of ``python -c pass`` measured in the same run, and their
ratio. ``tests/test_cli_startup.py`` checks what ``--help`` imports (nothing heavy); this file
only times it.

Run from anywhere::

    python benchmarks/bench_cli_startup.py             # 7 repeats
    python benchmarks/bench_cli_startup.py --repeat 15
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = [
    [],
    ["leaderboard"],
    ["leaderboard", "collect"],
    ["annotate"],
    ["annotate", "plan"],
    ["annotate", "score"],
    ["annotate", "simulate"],
    ["power"],
    ["describe"],
    ["reproduce"],
]
TARGET_SECONDS = 0.5


def console_script() -> str:
    """The ``sts-extras`` script of the running environment (else the first one on PATH)."""
    beside = Path(sys.executable).with_name("sts-extras")
    found = str(beside) if beside.exists() else shutil.which("sts-extras")
    if found is None:
        sys.exit("no sts-extras console script: pip install the package first")
    return found


def median_seconds(command: list[str], repeat: int) -> float:
    """Median wall time of ``command`` over ``repeat`` runs (after one untimed warm-up run)."""
    subprocess.run(command, capture_output=True, check=True)  # the page cache, .pyc files
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per command (default 7)")
    args = parser.parse_args()
    script = console_script()
    baseline = median_seconds([sys.executable, "-c", "pass"], args.repeat)
    print(f"console script: {script}; median of {args.repeat} runs each")
    print(f"{'command':<42} {'seconds':>8} {'python -c pass':>15} {'ratio':>6}")
    print(f"{'python -c pass':<42} {baseline:8.3f} {baseline:15.3f} {1:6.1f}")
    slowest = 0.0
    for argv in COMMANDS:
        seconds = median_seconds([script, *argv, "--help"], args.repeat)
        slowest = max(slowest, seconds)
        name = " ".join(["sts-extras", *argv, "--help"])
        print(f"{name:<42} {seconds:8.3f} {baseline:15.3f} {seconds / baseline:6.1f}")
    verdict = "meets" if slowest < TARGET_SECONDS else "MISSES"
    print(f"slowest {slowest:.3f} s: {verdict} the target of {TARGET_SECONDS} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
