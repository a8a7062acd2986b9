"""What the calibration suite measured: each method's size and coverage, by correlation and n.

The repository's calibration suite (``python -m benchmarks.calibration``; ``docs/calibration.md``)
simulates thousands of data sets per cell -- normal, heteroscedastic, heavy-tailed, skewed and
STS-like bounded, tied data, and samples of real STS Benchmark pairs scored by real models -- and
writes what every method achieved into ``sts_extras/data/calibration.json``. This module reads
that table (a validated, packaged file) so that a result can say how well its method holds at
its n, ``method="auto"`` can pick the best measured method, and a request no method is
calibrated for is never silent (:class:`UncalibratedWarning`).

A method is *calibrated* at a grid n when, over every synthetic cell of the suite, its type-I
error at alpha = 0.05 lies within [3.5 %, 6.5 %] and its 95 % coverage within [93.5 %, 96.5 %]
(:data:`SIZE_BAND`, :data:`COVERAGE_BAND`). Real-data cells are reported beside it
(``real_coverage``): they are the hard ones, and the table says where they miss.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import warnings
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "COVERAGE_BAND",
    "SIZE_BAND",
    "MeasuredLevel",
    "UncalibratedWarning",
    "choose_method",
    "family_error",
    "for_family",
    "heavy_ties",
    "measured_for_data",
    "measured_level",
    "total_violation",
    "warn_if_uncalibrated",
]

#: Type-I error band (alpha = 0.05) a calibrated test meets on every synthetic cell.
SIZE_BAND = (0.035, 0.065)
#: Coverage band of a calibrated 95 % interval on every synthetic cell.
COVERAGE_BAND = (0.935, 0.965)
#: The preference among methods measured equally well (cheapest and simplest first).
_PREFERENCE = ("adjusted-percentile", "jackknife-t", "percentile", "BCa")
#: Below this share of distinct values among the references, results are flagged (heavy ties).
_DISTINCT_SHARE = 0.05
_MIN_DISTINCT = 5


class UncalibratedWarning(UserWarning):
    """The method's measured type-I error or coverage at this n is outside the calibrated band."""


@dataclass(frozen=True)
class MeasuredLevel:
    """How well a method held at the grid n nearest to a request, in the calibration suite.

    Attributes
    ----------
    method, correlation : str
    n : int
        The sample size of the request.
    grid_n : int
        The nearest n of the suite's grid (on a log scale) whose numbers are reported.
    size : float
        The worst (largest) type-I error at alpha = 0.05 over the synthetic null cells.
    coverage : float
        The worst (smallest) coverage of the 95 % interval over the synthetic cells.
    real_coverage : float or None
        The worst coverage over the real-data cells (STS Benchmark samples), if measured.
    calibrated : bool
        On every synthetic cell within reach, the size is at most the top of
        :data:`SIZE_BAND` and the coverage at least the bottom of :data:`COVERAGE_BAND`, up to
        the measurement's Monte Carlo error (two standard errors; a conservative size below the
        band errs on the safe side), and ``n`` is not below the suite's smallest n. For
        decisions adjusted over several pairs (:func:`for_family`): the measured family-wise
        error of the method's adjusted decisions is at most 5 %, up to its Monte Carlo error.
    samples : int
        Simulated data sets per cell (the standard error of a rate p is sqrt(p(1-p)/samples)).
    note : str
        One line for people, e.g. ``"adjusted-percentile at n = 50 (grid 50): worst type-I error
        4.6 %, worst coverage 94.1 % (real data 92.9 %), 2000 data sets per cell"``.
    """

    method: str
    correlation: str
    n: int
    grid_n: int
    size: float
    coverage: float
    real_coverage: float | None
    calibrated: bool
    samples: int
    note: str

    def as_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (for reports and the ``evaluate`` modules)."""
        return {
            "method": self.method,
            "grid_n": self.grid_n,
            "measured_size": self.size,
            "measured_coverage": self.coverage,
            "measured_real_coverage": self.real_coverage,
            "calibrated": self.calibrated,
            "samples": self.samples,
        }


def _finite_rate(value: object, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"calibration table: {what} must be a number, got {value!r}")
    rate = float(value)
    if not (math.isfinite(rate) and 0.0 <= rate <= 1.0):
        raise ValueError(f"calibration table: {what} must lie in [0, 1], got {rate!r}")
    return rate


@dataclass(frozen=True)
class _Cell:
    """One measured cell of the suite: a method's size (null cells) and coverage."""

    cell: str
    real: bool
    size: float | None
    coverage: float
    samples: int

    def within_error(self) -> bool:
        """Size at most the band's top and coverage at least its bottom, up to the Monte Carlo
        error of the measurement (two standard errors at the band's edge)."""
        error = 2.0 * math.sqrt(SIZE_BAND[1] * (1.0 - SIZE_BAND[1]) / self.samples)
        if self.size is not None and self.size > SIZE_BAND[1] + error:
            return False
        error = 2.0 * math.sqrt(COVERAGE_BAND[0] * (1.0 - COVERAGE_BAND[0]) / self.samples)
        return self.coverage >= COVERAGE_BAND[0] - error

    def violation(self) -> float:
        """How far the cell lies outside the bands (0 inside), in rate units."""
        out = max(0.0, COVERAGE_BAND[0] - self.coverage, self.coverage - COVERAGE_BAND[1])
        if self.size is not None:
            out += max(0.0, self.size - SIZE_BAND[1], SIZE_BAND[0] - self.size)
        return out


#: A cell no interval method comes within this of the bands (one point: Monte Carlo error)
#: is "out of reach": reported, but not held against a method's ``calibrated``.
_REACH = 0.01


def _load() -> dict[str, Any]:
    text = resources.files("sts_extras").joinpath("data/calibration.json").read_text("utf-8")
    document = json.loads(text)
    if not isinstance(document, dict) or not isinstance(document.get("rows"), list):
        raise ValueError("calibration table: expected an object with a list 'rows'")
    return document


@functools.lru_cache(maxsize=1)
def _table() -> dict[tuple[str, str, int], list[_Cell]]:
    """(correlation, method, n) -> the measured cells, read once from the packaged
    ``calibration.json`` and validated (the package ships it; a malformed table raises)."""
    table: dict[tuple[str, str, int], list[_Cell]] = {}
    for row in _load()["rows"]:
        if not isinstance(row, dict):
            raise ValueError("calibration table: every row must be an object")
        correlation, method, n = row.get("correlation"), row.get("method"), row.get("n")
        cell, samples = row.get("cell"), row.get("samples")
        if not (
            isinstance(correlation, str)
            and isinstance(method, str)
            and isinstance(cell, str)
            and type(n) is int
            and type(samples) is int
            and samples >= 1
        ):
            raise ValueError(f"calibration table: bad row {row!r}")
        coverage = _finite_rate(row.get("coverage"), "coverage")
        if coverage is None:
            raise ValueError(f"calibration table: row without coverage {row!r}")
        size = _finite_rate(row.get("size"), "size")
        entry = _Cell(cell, bool(row.get("real")), size, coverage, samples)
        table.setdefault((correlation, method, n), []).append(entry)
    return table


@functools.cache
def _out_of_reach(correlation: str, n: int) -> frozenset[str]:
    """The synthetic cells at (correlation, n) that no interval method comes near the bands."""
    from sts_extras.stats.intervals import DIFFERENCE_METHODS

    best: dict[str, float] = {}
    for method in DIFFERENCE_METHODS:
        for cell in _table().get((correlation, method, n), []):
            if not cell.real:
                best[cell.cell] = min(best.get(cell.cell, math.inf), cell.violation())
    return frozenset(name for name, violation in best.items() if violation > _REACH)


@functools.lru_cache(maxsize=1)
def _family_errors() -> dict[tuple[str, int], float]:
    """(method, n) -> the worst measured family-wise error of its Holm-adjusted pair decisions
    (five equally good models, ten pairs; the ``families`` of ``calibration.json``)."""
    rows = _load().get("families", [])
    if not isinstance(rows, list):
        raise ValueError("calibration table: 'families' must be a list")
    worst: dict[tuple[str, int], float] = {}
    for row in rows:
        if not isinstance(row, dict) or row.get("kind") != "fwer":
            continue
        method, n = row.get("method"), row.get("n")
        value = _finite_rate(row.get("value"), "value")
        if not (isinstance(method, str) and type(n) is int and value is not None):
            raise ValueError(f"calibration table: bad family row {row!r}")
        worst[(method, n)] = max(worst.get((method, n), 0.0), value)
    return worst


@functools.lru_cache(maxsize=1)
def _family_samples() -> int:
    """The fewest simulated tasks behind a family-wise error row (its Monte Carlo error)."""
    samples: list[int] = []
    for row in _load().get("families", []):
        if isinstance(row, dict) and row.get("kind") == "fwer":
            value = row.get("samples")
            if type(value) is not int or value < 1:
                raise ValueError(f"calibration table: bad 'samples' in family row {row!r}")
            samples.append(value)
    return min(samples, default=1)


def family_error(method: str, n: int) -> tuple[int, float] | None:
    """(grid n, worst measured family-wise error) of ``method``'s adjusted decisions near ``n``."""
    grid = sorted({g for (m, g) in _family_errors() if m == method})
    if not grid:
        return None
    grid_n = _nearest(grid, n)
    return grid_n, _family_errors()[(method, grid_n)]


def _grid(correlation: str, method: str) -> list[int]:
    return sorted(n for (c, m, n) in _table() if c == correlation and m == method)


def _nearest(grid: list[int], n: int) -> int:
    return min(grid, key=lambda g: (abs(math.log(g) - math.log(n)), -g))


def measured_level(method: str, correlation: str, n: int) -> MeasuredLevel | None:
    """What the calibration suite measured for ``method`` at the grid n nearest to ``n``.

    ``size`` and ``coverage`` are the worst over the synthetic cells within reach (cells that
    no interval method comes within a point of the bands, such as Pearson's r under t errors
    with 3 df and high correlations, where r has no finite asymptotic variance, are reported in
    ``note`` instead); ``real_coverage`` the worst over the real-data cells.

    Parameters
    ----------
    method : str
        An interval method (:data:`~sts_extras.stats.intervals.DIFFERENCE_METHODS`) or a
        dependent-correlation test (:data:`~sts_extras.stats.dependent.DEPENDENT_METHODS`).
    correlation : {"pearson", "spearman"}
    n : int
        The request's sample size.

    Returns
    -------
    MeasuredLevel or None
        ``None`` when the suite did not measure this method and correlation.
    """
    grid = _grid(correlation, method)
    if not grid:
        return None
    grid_n = _nearest(grid, n)
    cells = _table()[(correlation, method, grid_n)]
    unreached = _out_of_reach(correlation, grid_n)
    synthetic = [c for c in cells if not c.real and c.cell not in unreached]
    real = [c for c in cells if c.real]
    sizes = [c.size for c in synthetic if c.size is not None]
    size = max(sizes) if sizes else math.nan
    coverage = min((c.coverage for c in synthetic), default=math.nan)
    real_coverage = min((c.coverage for c in real), default=None)
    below = n < grid[0]
    calibrated = bool(synthetic) and all(c.within_error() for c in synthetic) and not below
    real_text = "" if real_coverage is None else f" (real data {real_coverage:.1%})"
    samples = min(c.samples for c in cells)
    note = (
        f"{method} at n = {n} (grid {grid_n}): worst type-I error {size:.1%}, worst coverage "
        f"{coverage:.1%}{real_text}, at least {samples} data sets per cell"
    )
    for cell in cells:
        if cell.cell in unreached:
            note += f"; out of every method's reach: {cell.cell}, coverage {cell.coverage:.1%}"
    if below:
        note += f"; n = {n} is below the smallest n the suite measured ({grid[0]})"
    return MeasuredLevel(
        method=method,
        correlation=correlation,
        n=int(n),
        grid_n=grid_n,
        size=size,
        coverage=coverage,
        real_coverage=real_coverage,
        calibrated=bool(calibrated),
        samples=int(samples),
        note=note,
    )


def total_violation(method: str, correlation: str, n: int) -> float | None:
    """The summed band violation of ``method`` over every cell, synthetic and real, at the grid
    n nearest to ``n`` (in rate units; 0: every cell within the bands)."""
    grid = _grid(correlation, method)
    if not grid:
        return None
    return sum(c.violation() for c in _table()[(correlation, method, _nearest(grid, n))])


def choose_method(correlation: str, n: int, *, family: bool = False) -> str:
    """The interval method ``method="auto"`` uses for ``correlation`` at sample size ``n``.

    Among :data:`~sts_extras.stats.intervals.DIFFERENCE_METHODS`, a calibrated one
    (:attr:`MeasuredLevel.calibrated`) before any other, and among those the one with the
    smallest summed band violation over the suite's cells (synthetic and real) at the nearest
    grid n (:func:`total_violation`; a worst-cell rule would let one cell that no method
    reaches decide everything); ties go to the simpler method.

    With ``family=True`` (decisions adjusted over several pairs, where each pair is decided at
    a far smaller level than 5 %), only methods whose measured family-wise error is at most 5 %
    qualify; if none does, the one with the smallest.
    """
    candidates: list[tuple[Any, ...]] = []
    for rank, method in enumerate(_PREFERENCE):
        violation = total_violation(method, correlation, n)
        level = measured_level(method, correlation, n)
        if violation is None or level is None:
            continue
        key: tuple[Any, ...] = (not level.calibrated, round(violation, 3), rank, method)
        if family:
            measured = family_error(method, n)
            error = 1.0 if measured is None else measured[1]
            key = (max(0.0, round(error - 0.05, 3)), *key)
        candidates.append(key)
    if not candidates:
        return _PREFERENCE[0]
    return str(min(candidates)[-1])


def heavy_ties(references: NDArray[np.float64]) -> bool:
    """Too few distinct gold values for the suite's cells to speak for the data.

    True when the references take fewer than 5 distinct values or fewer than 5 % of n.
    """
    distinct = np.unique(references).size
    return bool(distinct < _MIN_DISTINCT or distinct < _DISTINCT_SHARE * references.size)


def for_family(level: MeasuredLevel | None, method: str, n: int) -> MeasuredLevel | None:
    """``level`` for decisions adjusted over several pairs: ``calibrated`` is then whether the
    suite measured the family-wise error of the method's adjusted decisions at most 5 % (up to
    its Monte Carlo error; :func:`family_error`), and the note says what it measured."""
    if level is None:
        return None
    measured = family_error(method, n)
    if measured is None:
        return dataclasses.replace(
            level, calibrated=False, note=level.note + "; family-wise error not measured"
        )
    grid_n, error = measured
    tolerance = 2.0 * math.sqrt(0.05 * 0.95 / _family_samples())
    holds = error <= 0.05 + tolerance and n >= min(g for m, g in _family_errors() if m == method)
    return dataclasses.replace(
        level,
        calibrated=bool(holds and "heavily tied" not in level.note),
        note=level.note + f"; family-wise error of its adjusted decisions {error:.1%} "
        f"(five equally good models, ten pairs, grid n {grid_n})",
    )


def measured_for_data(
    method: str, correlation: str, references: NDArray[np.float64]
) -> MeasuredLevel | None:
    """:func:`measured_level` at the data's n, marked not calibrated when the references are
    heavily tied (:func:`heavy_ties`): the suite's cells do not speak for such data."""
    level = measured_level(method, correlation, int(references.size))
    if level is not None and heavy_ties(references):
        level = dataclasses.replace(
            level,
            calibrated=False,
            note=level.note + "; the references are heavily tied (few distinct values), "
            "unlike the suite's cells",
        )
    return level


def warn_if_uncalibrated(
    level: MeasuredLevel | None, method: str, n: int, *, stacklevel: int = 3
) -> bool:
    """Warn (:class:`UncalibratedWarning`) when the request is not calibrated; return whether.

    Not calibrated: the suite never measured the method, its worst measured type-I error or
    coverage at the nearest grid n is outside the band, n is below the suite's range, or the
    references are heavily tied (see ``level.note``).
    """
    if level is not None and level.calibrated:
        return True
    if level is None:
        message = f"{method} at n = {n} is not covered by the calibration suite"
    else:
        message = f"{method} is not calibrated here: {level.note}"
    # stacklevel as if the caller had called warnings.warn itself
    warnings.warn(
        message + " (docs/calibration.md).", UncalibratedWarning, stacklevel=stacklevel + 1
    )
    return False
