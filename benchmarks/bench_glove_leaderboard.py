"""Wall time of the leaderboard run with and without the GloVe models, fresh and re-run.

Written for issue 25, when the default run's static models used vectors distilled from MiniLM:
could ``--vectors glove-6b-50d`` (avg-cos, MaxPool-Jaccard and DynaMax-Jaccard over Stanford's
GloVe 6B 50-d vectors) join it, with the first run from empty caches still at most
:data:`FIRST_RUN_RATIO` times its re-run? Since issue 32 the default run *is* MiniLM and the three
models over GloVe (distillation is the explicit ``--vectors distilled``), so the configurations
below, run side by side in new processes with the real command line, offline, now measure:

* ``default``: ``sts-extras leaderboard`` as it is today (all-MiniLM-L6-v2 and the three static
  models over ``glove-6b-50d``, DSCS and STSS-131);
* ``default+glove``: ``--model all-MiniLM-L6-v2 --vectors distilled --vectors glove-6b-50d``, the
  default before issue 32 plus the GloVe models, i.e. today's default plus the three models over
  distilled vectors (``--model``/``--vectors`` replace the default set, so every source is named);
* ``glove``: ``--vectors glove-6b-50d`` alone.

Each configuration runs first from empty caches (new ``STS_EXTRAS_CACHE``, ``MTEB_CACHE`` and
``HF_DATASETS_CACHE``: the first distillation included where the run distils), then again into the
same output with the same caches (the re-run). The load average before each run is printed: the
machine may be shared.

``--marginal`` measures what ``default+glove`` adds to a ``default`` run, with less noise than two
fresh runs side by side: the default run from empty caches (F), its re-run (R, best of
``--repeat``), then ``default+glove`` in the same caches -- only the cells it adds are new, so its
time is R plus their first-run cost -- and its re-run (best of ``--repeat``). It prints the ratio
the default run would have with those cells in it, (F + first-run cost) / (its re-run), against
the same ratio without. Its printed labels keep their issue-25 names ("the GloVe models'
first-run cost"); with today's default the added cells are the distilled models', and their
first-run cost is chiefly the distillation.

Run from the repository root::

    python benchmarks/bench_glove_leaderboard.py
    python benchmarks/bench_glove_leaderboard.py --only glove
    python benchmarks/bench_glove_leaderboard.py --marginal --repeat 3
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

#: The first run may take at most this many times the re-run (the speed issue's target).
FIRST_RUN_RATIO = 3.0
CONFIGURATIONS: dict[str, list[str]] = {
    "default": [],
    "default+glove": [
        "--model",
        "all-MiniLM-L6-v2",
        "--vectors",
        "distilled",
        "--vectors",
        "glove-6b-50d",
    ],
    "glove": ["--vectors", "glove-6b-50d"],
}


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def run(arguments: list[str], output: Path, caches: Path) -> float:
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "STS_EXTRAS_CACHE": str(caches / "sts_extras"),
        "MTEB_CACHE": str(caches / "mteb"),
        "HF_DATASETS_CACHE": str(caches / "datasets"),
    }
    command = [sys.executable, "-m", "sts_extras.cli", "leaderboard", *arguments]
    command += ["--output", str(output), "--no-progress"]
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def marginal(root: Path, repeat: int) -> None:
    """What ``default+glove`` adds to the default run's first run and re-run (see above)."""
    caches, output = root / "caches", root / "out"
    load = load_average()
    fresh = run(CONFIGURATIONS["default"], output, caches)
    rerun = min(run(CONFIGURATIONS["default"], output, caches) for _ in range(repeat))
    print(f"default: fresh {fresh:.1f} s (load {load}), re-run {rerun:.1f} s", flush=True)
    load = load_average()
    added = run(CONFIGURATIONS["default+glove"], output, caches)
    with_glove = min(run(CONFIGURATIONS["default+glove"], output, caches) for _ in range(repeat))
    first_cost = added - rerun
    print(
        f"default+glove after the default: {added:.1f} s (load {load}; the GloVe models' "
        f"first-run cost {first_cost:.1f} s), re-run {with_glove:.1f} s "
        f"(+{with_glove - rerun:.1f} s)",
        flush=True,
    )
    ratio, ratio_glove = fresh / rerun, (fresh + first_cost) / with_glove
    print(
        f"first run / re-run: default {ratio:.2f}, with GloVe {ratio_glove:.2f} "
        f"(target <= {FIRST_RUN_RATIO:g}; load now {load_average()})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(CONFIGURATIONS), action="append")
    parser.add_argument("--marginal", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-glove-leaderboard-"))
    try:
        if args.marginal:
            marginal(root, args.repeat)
            return
        for name in args.only or CONFIGURATIONS:
            caches, output = root / name / "caches", root / name / "out"
            before_fresh = load_average()
            fresh = run(CONFIGURATIONS[name], output, caches)
            before_rerun = load_average()
            rerun = run(CONFIGURATIONS[name], output, caches)
            verdict = "holds" if fresh <= FIRST_RUN_RATIO * rerun else "does not hold"
            print(
                f"{name:14s} fresh {fresh:6.1f} s (load {before_fresh}), re-run {rerun:5.1f} s "
                f"(load {before_rerun}); fresh / re-run {fresh / rerun:.2f} "
                f"(target <= {FIRST_RUN_RATIO:g}: {verdict})",
                flush=True,
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
