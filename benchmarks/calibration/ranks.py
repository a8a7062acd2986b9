"""Calibration of the cross-task procedures: rank confidence sets and the cross-task tests.

Through the public API of :mod:`sts_extras.stats.cross_task`, on simulated leaderboards shaped
like MTEB's ten English STS tasks (``../shared/data/mteb-sts-results``, the 151 models with all
ten tasks): model j's score on task t is

    s_tj = tanh(atanh(a_t + mu_j + e_tj) + u_tj),

with a_t the task's mean score (0.65 to 0.86, as measured), e_tj ~ N(0, sigma_t^2) the
model-by-task interaction (sigma_t the measured residual sd of each task, 0.014 to 0.047; the
task is the unit, so this is the noise the cross-task procedures must account for), and u_tj the
sampling noise of a Spearman correlation on the task's n test pairs (Fisher's z, Bonett & Wright
2000). The truth is mu: models of the *ranked* cells have means spread evenly with sd 0.02 (the
spread of the 100 best published models); in the *null* cells all means are equal.

Measured, for 10, 30 and 100 models on the ten tasks:

* **coverage** of :func:`rank_confidence_sets` (alpha = 0.05): marginal (the worst model's and
  the average share of replications whose set holds its true rank), simultaneous (every set
  holds every true rank at once) and the set of the best (holds the true best), with the task
  bootstrap alone and with the Fisher-z within-task draw (``n``);
* **size** under equal models: the Friedman test's rejection rate, the share of replications in
  which the Nemenyi post-hoc separates any adjacent pair of the ranking by mean score (after a
  rejecting Friedman test), the same for the Bayesian signed-rank decision (P > 0.95 on one side
  outside a rope of 0.01), and the share of replications whose simultaneous rank sets separate
  any two models (under equal means every true rank is 1).

Run it alone with ``python -m benchmarks.calibration.ranks`` (it writes its rows under
``"cross_task"`` of ``sts_extras/data/calibration.json`` and its section of
``docs/calibration.md``, leaving every other row as it is); ``python -m benchmarks.calibration``
runs it too (``--rank-samples``).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.calibration import report
from sts_extras.stats.cross_task import adjacent_separability, rank_confidence_sets

__all__ = ["RankRow", "markdown", "run_ranks", "write_rows", "write_section"]

#: The ten tasks: mean score, residual (model x task) sd and test pairs n, as measured on the
#: published results (STS12-16, STSBenchmark, SICK-R, BIOSSES, STS17 en-en, STS22 en).
TASK_MEANS = (0.727, 0.804, 0.765, 0.843, 0.813, 0.813, 0.757, 0.805, 0.859, 0.652)
TASK_SDS = (0.037, 0.031, 0.025, 0.014, 0.018, 0.021, 0.031, 0.047, 0.025, 0.043)
TASK_N = (3108, 1500, 3750, 3000, 1186, 1379, 9927, 100, 250, 197)
#: sd of the true model means in the ranked cells (the 100 best published models: 0.021).
MEAN_SD = 0.02
ROOT = Path(__file__).resolve().parents[2]
_SECTION = "## Cross-task ranking: rank confidence sets and the tests across tasks"


@dataclass(frozen=True)
class RankRow:
    """One measured value: ``kind`` is ``coverage`` or ``size``."""

    kind: str
    measure: str
    models: int
    tasks: int
    within_task: str
    value: float
    target: float
    samples: int
    detail: str


def _leaderboard(
    rng: np.random.Generator, means: np.ndarray, tasks: int
) -> tuple[np.ndarray, np.ndarray]:
    a = np.resize(np.asarray(TASK_MEANS), tasks)
    sd = np.resize(np.asarray(TASK_SDS), tasks)
    n = np.resize(np.asarray(TASK_N, dtype=float), tasks)
    clean = a[:, None] + means[None, :] + sd[:, None] * rng.standard_normal((tasks, means.size))
    z = np.arctanh(np.clip(clean, -0.99, 0.99))
    var = (1.0 + clean**2 / 2.0) / (n[:, None] - 3.0)
    return np.tanh(z + np.sqrt(var) * rng.standard_normal(z.shape)), n


def _true_means(models: int) -> np.ndarray:
    # Evenly spread with sd MEAN_SD, best first (the true rank of column j is j + 1).
    grid = np.linspace(1.0, -1.0, models)
    return grid / grid.std() * MEAN_SD


def _coverage_rows(
    models: int, tasks: int, samples: int, resamples: int, seed: int
) -> list[RankRow]:
    rng = np.random.default_rng([seed, models, tasks, 1])
    means = _true_means(models)
    truth = np.arange(1, models + 1)
    rows = []
    for within in ("none", "fisher-z"):
        marginal = np.zeros(models)
        simultaneous = best = 0
        width_m = width_s = 0.0
        for _replication in range(samples):
            scores, n = _leaderboard(rng, means, tasks)
            result = rank_confidence_sets(
                scores,
                n=n if within == "fisher-z" else None,
                n_resamples=resamples,
                seed=int(rng.integers(2**31)),
            )
            marginal += (result.marginal_low <= truth) & (truth <= result.marginal_high)
            simultaneous += bool(
                np.all((result.simultaneous_low <= truth) & (truth <= result.simultaneous_high))
            )
            best += "0" in result.best_set
            width_m += float(np.mean(result.marginal_high - result.marginal_low + 1))
            width_s += float(np.mean(result.simultaneous_high - result.simultaneous_low + 1))
        share = marginal / samples
        common: dict[str, Any] = dict(models=models, tasks=tasks, within_task=within, target=0.95)
        rows += [
            RankRow(
                kind="coverage",
                measure="rank set, marginal (worst model)",
                value=float(share.min()),
                samples=samples,
                detail=f"average over models {share.mean():.1%}; mean set size "
                f"{width_m / samples:.1f} of {models}",
                **common,
            ),
            RankRow(
                kind="coverage",
                measure="rank sets, simultaneous (all at once)",
                value=simultaneous / samples,
                samples=samples,
                detail=f"mean set size {width_s / samples:.1f} of {models}",
                **common,
            ),
            RankRow(
                kind="coverage",
                measure="set of the best holds the true best",
                value=best / samples,
                samples=samples,
                detail="tau = 1",
                **common,
            ),
        ]
    return rows


def _size_rows(
    models: int, tasks: int, samples: int, resamples: int, nsamples: int, seed: int
) -> list[RankRow]:
    rng = np.random.default_rng([seed, models, tasks, 0])
    means = np.zeros(models)
    friedman = nemenyi = bayes = 0
    ranks = {"none": 0, "fisher-z": 0}
    nemenyi_pairs = bayes_pairs = 0
    for _replication in range(samples):
        scores, n = _leaderboard(rng, means, tasks)
        separability = adjacent_separability(
            scores, nsamples=nsamples, seed=int(rng.integers(2**31))
        )
        friedman += separability.friedman.pvalue < 0.05
        nemenyi += separability.n_separable_nemenyi > 0
        bayes += separability.n_separable_bayes > 0
        nemenyi_pairs += separability.n_separable_nemenyi
        bayes_pairs += separability.n_separable_bayes
        for within in ranks:
            sets = rank_confidence_sets(
                scores,
                n=n if within == "fisher-z" else None,
                n_resamples=resamples,
                seed=int(rng.integers(2**31)),
            )
            ranks[within] += bool(np.any(sets.simultaneous_low > 1))
    pairs = samples * (models - 1)
    common: dict[str, Any] = dict(
        models=models, tasks=tasks, within_task="-", target=0.05, samples=samples
    )
    return [
        RankRow(kind="size", measure="Friedman test rejects", value=friedman / samples,
                detail="equal models", **common),
        RankRow(kind="size", measure="Nemenyi separates any adjacent pair",
                value=nemenyi / samples,
                detail=f"per adjacent pair {nemenyi_pairs / pairs:.2%}", **common),
        RankRow(kind="size", measure="Bayesian signed-rank separates any adjacent pair",
                value=bayes / samples,
                detail=f"per adjacent pair {bayes_pairs / pairs:.2%}; rope 0.01, "
                f"P > 0.95, {nsamples} posterior samples", **common),
    ] + [
        RankRow(kind="size", measure="simultaneous rank sets separate any two models",
                value=count / samples, detail="equal models: every true rank is 1",
                **{**common, "within_task": within})
        for within, count in ranks.items()
    ]  # fmt: skip


def run_ranks(
    *,
    samples: int = 200,
    resamples: int = 500,
    nsamples: int = 5000,
    seed: int = 0,
    shapes: Sequence[tuple[int, int]] = ((10, 10), (30, 10), (100, 10)),
) -> list[RankRow]:
    """Every row: coverage and size for each (models, tasks) shape; fixed seed, same numbers."""
    rows: list[RankRow] = []
    for models, tasks in shapes:
        rows += _coverage_rows(models, tasks, samples, resamples, seed)
        rows += _size_rows(models, tasks, samples, resamples, nsamples, seed)
    return rows


def markdown(
    rows: Sequence[RankRow], seconds: float | None = None, cpu_seconds: float | None = None
) -> str:
    """The section of ``docs/calibration.md``."""
    lines = [
        _SECTION,
        "",
        "`benchmarks/calibration/ranks.py`, through the public API "
        "(`rank_confidence_sets`, `adjacent_separability`), on simulated leaderboards shaped "
        "like MTEB's ten English STS tasks: each task's mean score, model-by-task spread and "
        "number of test pairs as measured on the 151 published models with all ten tasks "
        "(spread 0.014 to 0.047; n from 100 (BIOSSES) to 9,927 (SICK-R)); true model means "
        f"spread evenly with sd {MEAN_SD} (the 100 best published models: 0.021), or all equal "
        "for the sizes. Rank sets at alpha = 0.05 from "
        "the task-level bootstrap, alone or with the Fisher-z within-task draw; coverage targets "
        "are at least 95 %, sizes at most 5 %. The standard error of a share near 95 % "
        "(5 %) over S replications is sqrt(0.05 x 0.95 / S): 1.5 points at S = 200.",
        "",
        "How to read it: each difference is studentised by its standard error over the ten "
        "tasks and its critical value comes from a parametric bootstrap of those t statistics "
        "(Gaussian pseudo-tasks with the tasks' covariance), so their heavy tails at nine "
        "degrees of freedom are kept: a version with a fixed standard error separated equal "
        "models in 42 % (10 models) to 100 % (100 models) of the simulated leaderboards. The "
        "sets are conservative by construction (a set holds the true rank whenever the signs "
        "of the differences it relies on are right), so coverage near 100 % is expected; the "
        "price is their size: with ten tasks and the published models' spread, few ranks "
        "can be told apart. The within-task draw (Fisher z from n) changes little: the "
        "task-to-task spread that studentises every difference already holds the items' "
        "sampling noise. Under equal models the Friedman test holds its size, and the Nemenyi "
        "post-hoc (after a rejecting Friedman test) and the Bayesian decision (with a rope) "
        "separate adjacent pairs far less often than 5 %.",
        "",
        "| measure | models x tasks | within task | measured | target | replications | detail |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        sign = "≥" if row.kind == "coverage" else "≤"
        lines.append(
            f"| {row.measure} | {row.models} x {row.tasks} | {row.within_task} | "
            f"{row.value:.1%} | {sign} {row.target:.0%} | {row.samples} | {row.detail} |"
        )
    lines += report.timing_lines(seconds, cpu_seconds)
    return "\n".join(lines) + "\n"


def write_rows(rows: Sequence[RankRow], table: Path) -> None:
    """Put the rows under ``"cross_task"`` of the calibration table; the rest is left as it is."""
    report.write_key(table, "cross_task", [dataclasses.asdict(row) for row in rows])


def write_section(
    rows: Sequence[RankRow],
    page: Path,
    seconds: float | None = None,
    cpu_seconds: float | None = None,
) -> None:
    """Replace (or append) this section of the calibration page."""
    report.write_section(page, _SECTION, markdown(rows, seconds, cpu_seconds))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the family and write its rows and section; 0 on success."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.calibration.ranks")
    parser.add_argument("--samples", type=int, default=200, help="replications per cell")
    parser.add_argument("--resamples", type=int, default=500, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--print-only", action="store_true", help="print, write nothing")
    args = parser.parse_args(argv)
    start, cpu_start = time.perf_counter(), time.process_time()
    rows = run_ranks(samples=args.samples, resamples=args.resamples, seed=args.seed)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    print(markdown(rows, seconds, cpu))
    if not args.print_only:
        write_rows(rows, ROOT / "sts_extras" / "data" / "calibration.json")
        write_section(rows, ROOT / "docs" / "calibration.md", seconds, cpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
