"""Speed of `read_mteb_results` on MTEB's published STS results, against `json.load` alone.

Target (issue 34, item 5): reading the 2,571 files of ``../shared/data/mteb-sts-results`` takes
at most 3 s on the 2-core reference machine.

Run from the repository root::

    python benchmarks/bench_rank_read.py                 # the shared folder, best of 5 runs
    python benchmarks/bench_rank_read.py --repeat 3 DIR  # another results folder

What is printed, for the best of ``--repeat`` runs of each (runs alternate, so both see the same
file cache and machine load):

* the baseline: every file under the folder read with a plain ``json.load`` and nothing else
  (no validation, no choice of revision);
* ``read_mteb_results``: every file found, parsed, validated into one record, scored or refused,
  one revision kept per model (``revisions="one"``, the default);
* ``read_mteb_results(..., revisions="join")``: the same, each task taken from the model's
  revision folders in MTEB's order of its join of revisions;
* their ratios, and the counts each rule reports (so a faster run that reads less shows).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from sts_extras.rank.results import read_mteb_results

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "mteb-sts-results"
TARGET_SECONDS = 3.0
#: The revision rules timed (``revisions=`` of read_mteb_results).
RULES_TIMED = ("one", "join")


def json_load_all(folder: Path) -> int:
    """The baseline: ``json.load`` of every file under ``folder``; the number of files."""
    count = 0
    for base, _, names in os.walk(folder):
        for name in names:
            if name.endswith(".json"):
                with open(os.path.join(base, name), encoding="utf-8") as handle:
                    json.load(handle)
                count += 1
    return count


def best_of(repeat: int, folder: Path) -> tuple[float, dict[str, float], int]:
    """The best time of the baseline and of the reader under each revision rule."""
    baseline = float("inf")
    reader = dict.fromkeys(RULES_TIMED, float("inf"))
    files = 0
    for _ in range(repeat):
        start = time.perf_counter()
        files = json_load_all(folder)
        baseline = min(baseline, time.perf_counter() - start)
        for rule in RULES_TIMED:
            start = time.perf_counter()
            read_mteb_results(folder, revisions=rule)
            reader[rule] = min(reader[rule], time.perf_counter() - start)
    return baseline, reader, files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=SHARED)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not args.folder.is_dir():
        raise SystemExit(f"{args.folder} is not a folder (the shared data is ../shared/data).")

    print(f"folder: {args.folder}")
    for rule in RULES_TIMED:  # once before timing: imports, file cache; and the counts
        result = read_mteb_results(args.folder, revisions=rule)
        print(
            f"revisions={rule!r}: files found {result.files_found}: used {result.used_files}, "
            f"refused {len(result.refused)} {result.refused_by_kind()}, set aside "
            f"{result.set_aside_files}, not selected {result.not_selected}; models "
            f"{len(result.models)}, with all {len(result.tasks)} tasks {len(result.complete())}"
        )
    baseline, reader, files = best_of(args.repeat, args.folder)
    print(f"json.load of {files} files (baseline):     {baseline:.3f} s")
    for rule in RULES_TIMED:
        seconds = reader[rule]
        verdict = "within" if seconds <= TARGET_SECONDS else "OVER"
        print(
            f"read_mteb_results(revisions={rule!r}):{' ' * (6 - len(rule))}{seconds:.3f} s, "
            f"ratio to baseline {seconds / baseline:.2f}, target {TARGET_SECONDS:.0f} s: {verdict}"
        )


if __name__ == "__main__":
    main()
