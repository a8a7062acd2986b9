"""The calibration suite: size and coverage of every difference method, over a grid of cells.

For each cell (:mod:`benchmarks.calibration.cells`), correlation and n, the suite draws S data
sets, bootstraps all of them with one shared count matrix (:mod:`benchmarks.calibration.engines`)
and measures, for every method,

* the **size**: the share of data sets of a null cell whose two-sided p-value of H0: rho1 = rho2
  is below alpha = 0.05 (equivalently, whose 95 % interval excludes 0);
* the **coverage**: the share of data sets whose 95 % interval of r1 - r2 contains the true
  difference.

Methods: the interval methods of :data:`sts_extras.stats.intervals.DIFFERENCE_METHODS` through
:func:`~sts_extras.stats.intervals.difference_intervals` and
:func:`~sts_extras.stats.intervals.difference_pvalues`, and every test of
:data:`sts_extras.stats.dependent.DEPENDENT_METHODS` (its p-value from
:func:`~sts_extras.stats.dependent.dependent_statistic`, as
:func:`~sts_extras.stats.dependent.dependent_correlation_test` computes it; its coverage is that
of the Zou (2007) interval it reports, the same for all of them).

An undefined p-value (NaN) counts as no rejection and an undefined interval as not covering.
Every random stream is keyed by (seed, cell name, n, correlation), so the same seed gives the
same numbers whatever the grid, the order or the number of workers.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray
from scipy import special

from benchmarks.calibration.cells import (
    Cell,
    cell_key,
    cell_populations,
    real_cells,
    synthetic_cells,
)
from benchmarks.calibration.engines import Statistics, pearson_statistics, spearman_statistics
from sts_extras.errors import UserInputError
from sts_extras.stats.dependent import (
    DEPENDENT_METHODS,
    T_METHODS,
    dependent_statistic,
    zou_dependent_interval,
)
from sts_extras.stats.intervals import (
    DIFFERENCE_METHODS,
    STUDENTISED_METHODS,
    difference_intervals,
    difference_pvalues,
    hc4_standard_errors,
    twopov_standard_errors,
)
from sts_extras.stats.resampling import draw_counts

__all__ = [
    "ALPHA",
    "CONFIDENCE_LEVEL",
    "METHODS",
    "N_GRID",
    "CellResult",
    "SuiteConfig",
    "SuiteResult",
    "full_config",
    "one_thread",
    "quick_config",
    "run_suite",
    "standard_error",
    "with_workers",
]

#: Nominal level of the tests and one minus that of the intervals.
ALPHA = 0.05
CONFIDENCE_LEVEL = 1.0 - ALPHA
#: Every method measured: the interval methods, then the seed tests.
METHODS = (*DIFFERENCE_METHODS, *DEPENDENT_METHODS)
#: Sample sizes of the full grid.
N_GRID = (20, 30, 50, 64, 100, 250, 1000)
CORRELATIONS = ("pearson", "spearman")
#: Default data sets per cell (Spearman: see SPEARMAN_SHARES) and resamples per bootstrap.
DEFAULT_SAMPLES = 2000
DEFAULT_RESAMPLES = 999
DEFAULT_SEED = 0
#: Spearman costs more (its bootstrap O(B n) or O(B n^2) per data set): by n, the share of
#: ``samples`` drawn, and the share bootstrapped (the bootstrap methods are measured on the
#: first ones; jackknife-t and the seed tests on all that are drawn). 1 where not listed.
SPEARMAN_SHARES = {
    20: (1.0, 0.5),
    30: (1.0, 0.5),
    50: (1.0, 0.5),
    64: (1.0, 0.5),
    100: (1.0, 0.5),
    250: (0.5, 0.5),
    1000: (0.5, 0.125),
}
#: The quick slice: its cells, sample sizes and data sets per cell.
QUICK_CELLS = (
    "normal/rho=0.7,r12=0.8/null",
    "heteroscedastic/rho=0.7,r12=0.8/null",
    "heavy-tailed/rho=0.7,r12=0.8/null",
    "sts-like/rho=0.7,r12=0.8/null",
    "normal/rho1=0.5,rho2=0.3,r12=0.6/effect",
    "skewed/rho1=0.9,rho2=0.85,r12=0.95/effect",
)
QUICK_N = (50, 250)
QUICK_SAMPLES = 1000

Array = NDArray[np.float64]


class _Engine(Protocol):
    """The statistics of S data sets for one correlation (:mod:`.engines`)."""

    def __call__(
        self, h: Array, a: Array, b: Array, counts: Array, *, bootstrapped: int | None = None
    ) -> Statistics: ...


_ENGINES: dict[str, _Engine] = {"pearson": pearson_statistics, "spearman": spearman_statistics}


@dataclass(frozen=True)
class SuiteConfig:
    """What one run measures.

    Attributes
    ----------
    n_values : tuple of int
        Sample sizes.
    correlations : tuple of str
        ``"pearson"`` and/or ``"spearman"``.
    cells : tuple of Cell
        The cells (synthetic and real).
    samples : int
        Data sets per cell (Spearman: a share of them at some n, see :meth:`samples_for`).
    resamples : int
        Bootstrap resamples B per data set.
    seed : int
        Root of every random stream.
    workers : int
        Processes (1: in this process).
    spearman_shares : dict of int to (float, float)
        For Spearman, by n: the share of ``samples`` drawn and the share bootstrapped.
    """

    n_values: tuple[int, ...]
    correlations: tuple[str, ...]
    cells: tuple[Cell, ...]
    samples: int = DEFAULT_SAMPLES
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    workers: int = 2
    spearman_shares: dict[int, tuple[float, float]] = field(
        default_factory=lambda: dict(SPEARMAN_SHARES)
    )

    def samples_for(self, correlation: str, n: int) -> tuple[int, int]:
        """(data sets drawn, data sets bootstrapped) per cell for ``correlation`` at ``n``."""
        if correlation == "pearson":
            return self.samples, self.samples
        drawn_share, booted_share = self.spearman_shares.get(n, (1.0, 1.0))
        drawn = max(1, int(round(self.samples * drawn_share)))
        return drawn, max(1, min(drawn, int(round(self.samples * booted_share))))


def full_config(
    *,
    samples: int = DEFAULT_SAMPLES,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    workers: int = 2,
    real: bool = True,
) -> SuiteConfig:
    """The full grid: every family and setting, the real cells, Pearson and Spearman.

    With ``real=True`` and the STS Benchmark missing, the real cells are left out (with a
    message on stderr).
    """
    cells = synthetic_cells()
    if real:
        try:
            cells += real_cells()
        except FileNotFoundError as error:
            import sys

            print(f"real-data cells left out: {error}", file=sys.stderr)
    return SuiteConfig(
        n_values=N_GRID,
        correlations=CORRELATIONS,
        cells=tuple(cells),
        samples=samples,
        resamples=resamples,
        seed=seed,
        workers=workers,
    )


def quick_config(
    *,
    samples: int = QUICK_SAMPLES,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    workers: int = 1,
) -> SuiteConfig:
    """The fixed-seed slice the tests run: :data:`QUICK_CELLS` at n = 50 and 250, Pearson."""
    chosen = [cell for cell in synthetic_cells() if cell.name in QUICK_CELLS]
    return SuiteConfig(
        n_values=QUICK_N,
        correlations=("pearson",),
        cells=tuple(chosen),
        samples=samples,
        resamples=resamples,
        seed=seed,
        workers=workers,
    )


@dataclass(frozen=True)
class CellResult:
    """Measurements of every method on one (cell, correlation, n).

    Attributes
    ----------
    cell : Cell
    correlation : str
    n, samples, resamples : int
        ``samples``: data sets drawn (the bootstrap methods may use fewer: ``samples_by_method``).
    delta : float
        The true difference rho1 - rho2.
    size : dict of str to float or None
        Per method, the share of p-values below alpha (``None`` on effect cells).
    coverage : dict of str to float
        Per method, the share of 95 % intervals containing ``delta``.
    undefined : dict of str to int
        Per method, data sets whose interval (or p-value) was undefined (NaN).
    samples_by_method : dict of str to int
        Per method, the data sets it was measured on.
    seconds, cpu_seconds : float
        Wall-clock and CPU time taken (CPU of the process that ran it).
    """

    cell: Cell
    correlation: str
    n: int
    samples: int
    resamples: int
    delta: float
    size: dict[str, float | None]
    coverage: dict[str, float]
    undefined: dict[str, int]
    samples_by_method: dict[str, int]
    seconds: float
    cpu_seconds: float

    def rows(self) -> list[dict[str, Any]]:
        """The rows of ``calibration.json``, one per method."""
        rows = []
        for method in METHODS:
            size = self.size[method]
            rows.append(
                {
                    "correlation": self.correlation,
                    "method": method,
                    "n": self.n,
                    "cell": self.cell.name,
                    "family": self.cell.family,
                    "real": self.cell.real,
                    "effect": self.cell.effect,
                    "size": None if size is None else round(size, 4),
                    "coverage": round(self.coverage[method], 4),
                    "samples": self.samples_by_method[method],
                }
            )
        return rows


@dataclass(frozen=True)
class SuiteResult:
    """Everything one run measured.

    Attributes
    ----------
    config : SuiteConfig
    results : list of CellResult
        In the order of (cell, correlation, n) of the config.
    populations : dict
        (cell name, correlation) -> population (rho1, rho2, r12).
    seconds : float
        Wall-clock time of the run.
    cpu_seconds : float
        CPU time of the work (the cells and the population values, in whichever process).
    """

    config: SuiteConfig
    results: list[CellResult]
    populations: dict[tuple[str, str], tuple[float, float, float]]
    seconds: float
    cpu_seconds: float

    def rows(self) -> list[dict[str, Any]]:
        """Every row of ``calibration.json``."""
        return [row for result in self.results for row in result.rows()]


# --------------------------------------------------------------------------------------------
# One (cell, correlation, n)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Task:
    cell: Cell
    correlation: str
    n: int
    samples: int
    bootstrapped: int
    resamples: int
    seed: int
    delta: float


def _seed_tests(
    r1: Array, r2: Array, r12: Array, n: int, delta: float, correlation: str
) -> tuple[dict[str, Array], Array]:
    """p-values of every seed test and Zou-interval coverage (its Fisher-z limits for
    ``correlation``, as the package computes them), one data set at a time."""
    samples = r1.size
    statistics = {method: np.full(samples, np.nan) for method in DEPENDENT_METHODS}
    covered = np.zeros(samples, dtype=bool)
    for s in range(samples):
        values = (float(r1[s]), float(r2[s]), float(r12[s]))
        if not all(abs(v) < 1.0 for v in values):
            continue
        for method in DEPENDENT_METHODS:
            # An undefined variance leaves NaN.
            with contextlib.suppress(UserInputError, ValueError, ZeroDivisionError):
                statistics[method][s] = dependent_statistic(method, *values, n)
        low, high = zou_dependent_interval(*values, n, CONFIDENCE_LEVEL, correlation)
        covered[s] = low <= delta <= high
    pvalues = {}
    for method, statistic in statistics.items():
        tail = np.abs(statistic)
        if method in T_METHODS:
            sf = special.stdtr(float(n - 3), -tail)
        else:
            sf = special.ndtr(-tail)
        pvalues[method] = np.minimum(1.0, 2.0 * sf)
    return pvalues, covered


def _run_task(task: _Task) -> CellResult:
    """Draw the data sets of one task, bootstrap them and measure every method.

    With one BLAS thread, in every process: the matrix products then sum in the same order
    whatever the number of workers, so the numbers are the same to the last bit.
    """
    with one_thread():
        return _measure(task)


def _measure(task: _Task) -> CellResult:
    start, cpu_start = time.perf_counter(), time.process_time()
    key = (cell_key(task.cell.name), task.n, CORRELATIONS.index(task.correlation))
    data_seed, counts_seed = np.random.SeedSequence(task.seed, spawn_key=key).spawn(2)
    h, a, b = task.cell.draw(np.random.default_rng(data_seed), task.samples, task.n)
    counts = draw_counts(np.random.default_rng(counts_seed), task.resamples, task.n)
    statistics = _ENGINES[task.correlation](h, a, b, counts, bootstrapped=task.bootstrapped)
    se_a, se_b = (hc4_standard_errors(x, h, correlation=task.correlation) for x in (a, b))
    del h, a, b
    twopov_se = twopov_standard_errors(se_a, se_b, statistics.r1, statistics.r2, statistics.r12)
    observed = statistics.r1 - statistics.r2
    ordered = np.sort(statistics.deltas, axis=1)  # the methods do not depend on the order
    booted = ordered.shape[0]
    null = not task.cell.effect
    size: dict[str, float | None] = {}
    coverage: dict[str, float] = {}
    undefined: dict[str, int] = {}
    samples_by_method: dict[str, int] = {}
    for method in DIFFERENCE_METHODS:
        rows = task.samples if method in STUDENTISED_METHODS else booted
        arguments: dict[str, Any] = {
            "n": task.n,
            "deltas": None if method in STUDENTISED_METHODS else ordered,
            "jackknife": statistics.jackknife[:rows],
            "standard_error": twopov_se[:rows],
        }
        low, high = difference_intervals(method, observed[:rows], alpha=ALPHA, **arguments)
        coverage[method] = float(np.mean((low <= task.delta) & (task.delta <= high)))
        bad = np.isnan(low) | np.isnan(high)
        if null:
            p = difference_pvalues(method, observed[:rows], **arguments)
            size[method] = float(np.mean(p < ALPHA))
            bad |= np.isnan(p)
        else:
            size[method] = None
        undefined[method] = int(np.count_nonzero(bad))
        samples_by_method[method] = rows
    pvalues, covered = _seed_tests(
        statistics.r1, statistics.r2, statistics.r12, task.n, task.delta, task.correlation
    )
    zou = float(np.mean(covered))
    for method in DEPENDENT_METHODS:
        p = pvalues[method]
        size[method] = float(np.mean(p < ALPHA)) if null else None
        coverage[method] = zou
        undefined[method] = int(np.count_nonzero(np.isnan(p)))
        samples_by_method[method] = task.samples
    return CellResult(
        cell=task.cell,
        correlation=task.correlation,
        n=task.n,
        samples=task.samples,
        resamples=task.resamples,
        delta=task.delta,
        size=size,
        coverage=coverage,
        undefined=undefined,
        samples_by_method=samples_by_method,
        seconds=time.perf_counter() - start,
        cpu_seconds=time.process_time() - cpu_start,
    )


# --------------------------------------------------------------------------------------------
# The grid
# --------------------------------------------------------------------------------------------
def one_thread() -> contextlib.AbstractContextManager[Any]:
    """One BLAS thread while it is entered (the workers share the cores)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn
        return contextlib.nullcontext()
    return threadpool_limits(1)


def _population(
    cell: Cell,
) -> tuple[dict[tuple[str, str], tuple[float, float, float]], float]:
    """The cell's population values, and the CPU time they took."""
    start = time.process_time()
    values = {(cell.name, c): v for c, v in cell_populations(cell).items()}
    return values, time.process_time() - start


def _cost(task: _Task) -> float:
    """Rough relative cost in CPU seconds (measured with B = 999), to start the longest first."""
    n, scale = task.n, task.resamples / 1000.0
    if task.correlation == "pearson":
        return task.samples * (0.3e-3 + 1.0e-6 * n * scale)
    if n <= 100:
        per_set = 0.25e-3 * scale * (n / 20.0) ** 1.5
    else:
        per_set = 32e-6 * scale * n
    jackknife = 2e-4 if n <= 100 else 3e-3
    return task.bootstrapped * per_set + task.samples * (1e-4 + jackknife)


def _map(
    function: Callable[[Any], Any], items: Sequence[Any], pool: ProcessPoolExecutor | None
) -> Iterable[Any]:
    if pool is None:
        return map(function, items)
    return pool.map(function, items)


def run_suite(
    config: SuiteConfig, *, progress: Callable[[CellResult], None] | None = None
) -> SuiteResult:
    """Measure every method on every (cell, correlation, n) of ``config``.

    Parameters
    ----------
    config : SuiteConfig
    progress : callable, optional
        Called with each :class:`CellResult` as it is done (in completion order).

    Returns
    -------
    SuiteResult
        The results in the config's order: the same seed gives the same numbers.
    """
    start = time.perf_counter()
    pool = None
    if config.workers > 1:
        pool = ProcessPoolExecutor(max_workers=config.workers)
    try:
        populations: dict[tuple[str, str], tuple[float, float, float]] = {}
        cpu_seconds = 0.0
        for found, cpu in _map(_population, config.cells, pool):
            populations.update(found)
            cpu_seconds += cpu
        tasks = []
        for cell in config.cells:
            for correlation in config.correlations:
                delta = 0.0
                if cell.effect:
                    rho1, rho2, _ = populations[(cell.name, correlation)]
                    delta = rho1 - rho2
                for n in config.n_values:
                    tasks.append(
                        _Task(
                            cell,
                            correlation,
                            n,
                            *config.samples_for(correlation, n),
                            config.resamples,
                            config.seed,
                            delta,
                        )
                    )
        order = sorted(range(len(tasks)), key=lambda i: -_cost(tasks[i]))
        results: list[CellResult | None] = [None] * len(tasks)
        if pool is None:
            for i in order:
                results[i] = _run_task(tasks[i])
                if progress is not None:
                    progress(results[i])  # type: ignore[arg-type]
        else:
            futures = {pool.submit(_run_task, tasks[i]): i for i in order}
            from concurrent.futures import as_completed

            for future in as_completed(futures):
                result = future.result()
                results[futures[future]] = result
                if progress is not None:
                    progress(result)
    finally:
        if pool is not None:
            pool.shutdown()
    assert all(result is not None for result in results)
    return SuiteResult(
        config=config,
        results=[result for result in results if result is not None],
        populations=populations,
        seconds=time.perf_counter() - start,
        cpu_seconds=cpu_seconds + sum(r.cpu_seconds for r in results if r is not None),
    )


def standard_error(rate: float, samples: int) -> float:
    """Monte Carlo standard error of a rate measured on ``samples`` data sets."""
    return math.sqrt(rate * (1.0 - rate) / samples)


def with_workers(config: SuiteConfig, workers: int) -> SuiteConfig:
    """The same config with another number of worker processes (the numbers do not change)."""
    return replace(config, workers=max(1, min(workers, os.cpu_count() or 1)))
