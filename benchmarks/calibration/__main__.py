"""``python -m benchmarks.calibration``: run the calibration suite and write its outputs.

The full grid (default) writes ``sts_extras/data/calibration.json``, ``docs/calibration.md`` and
``docs/img/calibration.png``; ``--quick`` runs the fixed-seed slice of the tests and prints its
summary (``--output-dir DIR`` writes the three files under DIR instead, for either run).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from benchmarks.calibration import model_ranks, ranks, report
from benchmarks.calibration.families import FamilyRow, run_family_claims, run_family_errors
from benchmarks.calibration.families import markdown as families_markdown
from benchmarks.calibration.suite import (
    DEFAULT_RESAMPLES,
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    QUICK_SAMPLES,
    CellResult,
    full_config,
    quick_config,
    run_suite,
    with_workers,
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.calibration",
        description="Measure the size and coverage of every interval and test of r1 - r2.",
    )
    parser.add_argument("--quick", action="store_true", help="the fixed-seed slice of the tests")
    parser.add_argument(
        "--samples",
        type=int,
        default=None,
        help=f"data sets per cell (default {DEFAULT_SAMPLES}; --quick: {QUICK_SAMPLES})",
    )
    parser.add_argument(
        "--resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples B"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="root of every stream")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--no-real", action="store_true", help="leave out the real-data cells")
    parser.add_argument(
        "--family-samples",
        type=int,
        default=300,
        help="simulated tasks per family-wise cell (families.py; 0 leaves them out)",
    )
    parser.add_argument(
        "--rank-samples",
        type=int,
        default=200,
        help="replications per cross-task cell (ranks.py; 0 leaves them out)",
    )
    parser.add_argument(
        "--model-rank-samples",
        type=int,
        default=model_ranks.DEFAULT_SAMPLES,
        help="replications per rank cell of compare_models (model_ranks.py; 0 leaves them out)",
    )
    parser.add_argument(
        "--output-dir",
        type=Path,
        default=None,
        help="write calibration.json, calibration.md and img/calibration.png here instead",
    )
    return parser


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite as the command line asks; 0 on success."""
    args = _parser().parse_args(argv)
    if args.quick:
        samples = QUICK_SAMPLES if args.samples is None else args.samples
        config = quick_config(samples=samples, resamples=args.resamples, seed=args.seed)
    else:
        samples = DEFAULT_SAMPLES if args.samples is None else args.samples
        config = full_config(
            samples=samples, resamples=args.resamples, seed=args.seed, real=not args.no_real
        )
    config = with_workers(config, args.workers)
    total = len(config.cells) * sum(len(config.n_values) for _ in config.correlations)
    done = 0
    start = time.perf_counter()

    def progress(result: CellResult) -> None:
        nonlocal done
        done += 1
        print(
            f"[{done:>3}/{total}] {time.perf_counter() - start:6.0f} s  {result.correlation:<8} "
            f"n={result.n:<5} S={result.samples:<5} {result.cell.name}  ({result.seconds:.1f} s)",
            file=sys.stderr,
            flush=True,
        )

    # Two replicates: method="auto" chooses on the first, the printed levels come from the second.
    selection = run_suite(config, progress=progress)
    done = 0
    result = run_suite(dataclasses.replace(config, seed=config.seed + 1), progress=progress)
    print(report.summary_text(result))
    print(
        f"{len(result.results)} cells x 2 replicates in {selection.seconds + result.seconds:.1f} "
        f"s ({selection.cpu_seconds + result.cpu_seconds:.1f} s of CPU time)"
    )
    if args.quick and args.output_dir is None:
        return 0
    if args.output_dir is None:
        table = report.packaged_table_path()
        page = report.ROOT / "docs" / "calibration.md"
    else:
        table = args.output_dir / "calibration.json"
        page = args.output_dir / "calibration.md"
    figure = page.parent / "img" / "calibration.png"
    report.write_table(selection, result, table)
    report.write_figure(result, figure)
    family_rows = []
    family_seconds = 0.0
    if args.family_samples > 0 and not args.quick:
        family_start = time.perf_counter()
        # Two replicates of the family-wise errors, as of the rows (the choice reads the first,
        # the printed claim the second), one per worker; then the defaults' claims, which read
        # the table just written.
        seeds = {"selection": args.seed, "evaluation": args.seed + 1}
        with ProcessPoolExecutor(max_workers=max(1, min(2, args.workers))) as pool:
            futures = {
                (name, correlation): pool.submit(
                    run_family_errors,
                    samples=args.family_samples,
                    seed=seed,
                    correlation=correlation,
                )
                for name, seed in seeds.items()
                for correlation in ("pearson", "spearman")
            }
            replicates: dict[str, list[FamilyRow]] = {name: [] for name in seeds}
            for (name, _), future in futures.items():
                replicates[name] += future.result()
        _add_families(table, replicates)
        with report.use_table(table):
            claims = run_family_claims(samples=args.family_samples, seed=seeds["evaluation"])
        family_rows = replicates["evaluation"] + claims
        _add_families(table, {**replicates, "evaluation": family_rows})
        family_seconds = time.perf_counter() - family_start
        print(f"family-wise cells in {family_seconds:.1f} s")
    with report.use_table(table):
        report.write_page(result, page, selection=selection, machine=_machine())
    if family_rows:
        _append_family_section(page, family_rows, args.family_samples, family_seconds)
    if args.rank_samples > 0 and not args.quick:
        rank_start, rank_cpu = time.perf_counter(), time.process_time()
        rank_rows = ranks.run_ranks(samples=args.rank_samples, seed=args.seed)
        rank_seconds = time.perf_counter() - rank_start
        ranks.write_rows(rank_rows, table)
        ranks.write_section(rank_rows, page, rank_seconds, time.process_time() - rank_cpu)
        print(f"cross-task cells in {rank_seconds:.1f} s")
    if args.model_rank_samples > 0 and not args.quick:
        cell_start, cell_cpu = time.perf_counter(), time.process_time()
        with report.use_table(table):  # method="auto" of the defaults reads the new table
            cell_rows = model_ranks.run_model_ranks(samples=args.model_rank_samples, seed=args.seed)
        cell_seconds = time.perf_counter() - cell_start
        model_ranks.write_rows(cell_rows, table)
        model_ranks.write_section(cell_rows, page, cell_seconds, time.process_time() - cell_cpu)
        print(f"rank cells of compare_models in {cell_seconds:.1f} s")
    print(f"wrote {table}, {page} and {figure} in {time.perf_counter() - start:.0f} s")
    return 0


def _add_families(table: Path, replicates: dict[str, list[FamilyRow]]) -> None:
    """Put the family-wise rows of both replicates under ``"families"`` of the written table
    (read by ``sts_extras.stats.calibration.family_error`` for ``method="auto"`` on several
    pairs: the choice reads ``"selection"``, the printed claim ``"evaluation"``)."""
    tagged = [
        {**dataclasses.asdict(row), "replicate": name}
        for name, rows in replicates.items()
        for row in rows
    ]
    report.write_key(table, "families", tagged)


def _append_family_section(page: Path, rows: list[FamilyRow], samples: int, seconds: float) -> None:
    """The family-wise claims (adjusted decisions, mean ranks, power) on the page."""
    text = page.read_text(encoding="utf-8")
    text += (
        "\n## Family-wise claims: adjusted pair decisions, mean ranks, power\n\n"
        "`benchmarks/calibration/families.py`, through the public API (`compare_models` with "
        "its defaults, `mean_rank_across_tasks`, `dependent_test_power`), "
        f"{samples} simulated tasks per cell of five models on the same gold scores. "
        "Family-wise claims are conservative by design: the family-wise error of the "
        "Holm-adjusted pair decisions (five or ten equally good models, 10 or 45 pairs) must be "
        "at most "
        '5 %, and the coverage of mean-rank intervals at least 95 %. `method="auto"` on several '
        "pairs with an adjustment picks among the interval methods whose family-wise error here "
        "is at most 5 % (`choose_method(family=True)`); a bootstrap's far tails, which an "
        "adjusted decision reads, are where the percentile methods fail. The rank sets of "
        "`compare_models` are measured in their own section. This part took "
        f"{seconds / 60:.1f} min ({seconds:.0f} s) of the run.\n\n" + families_markdown(rows)
    )
    page.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
