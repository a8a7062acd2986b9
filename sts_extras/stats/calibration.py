"""What the calibration suite measured: each method's size and coverage, by correlation and n.

The repository's calibration suite (``python -m benchmarks.calibration``; ``docs/calibration.md``)
simulates thousands of data sets per cell -- normal, heteroscedastic, heavy-tailed, skewed and
STS-like bounded, tied data, and samples of real STS Benchmark pairs scored by real models -- and
writes what every method achieved into ``sts_extras/data/calibration.json``, twice: a
*selection* replicate, from which ``method="auto"`` chooses (:func:`choose_method`), and an
*evaluation* replicate with other random streams, from which every result's printed level and
its ``calibrated`` flag come (:func:`measured_level`), so that the choice is not also the
evidence. This module reads that table (a validated, packaged file).

The one rule, :data:`CALIBRATION_RULE` (``docs/calibration.md`` quotes it from here):
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

from sts_extras._validation import check_choice
from sts_extras.errors import UserInputError
from sts_extras.stats.multiple import FAMILYWISE_ADJUSTMENTS

__all__ = [
    "CALIBRATION_RULE",
    "CHOICE_RULE",
    "COVERAGE_BAND",
    "MONTE_CARLO_ALLOWANCE",
    "REPLICATES",
    "SIZE_BAND",
    "Choice",
    "MeasuredLevel",
    "OutsideCell",
    "UncalibratedWarning",
    "band_direction",
    "choice_table",
    "choose_method",
    "family_error",
    "for_family",
    "heavy_ties",
    "measured_for_data",
    "measured_level",
    "warn_if_uncalibrated",
]

#: Type-I error band (alpha = 0.05) of a calibrated test, on every cell of the suite.
SIZE_BAND = (0.035, 0.065)
#: Coverage band of a calibrated 95 % interval, on every cell of the suite.
COVERAGE_BAND = (0.935, 0.965)
#: A measured rate counts as inside a band when it lies within this many Monte Carlo standard
#: errors of it: sqrt(p (1 - p) / S) at the band's nearer edge p, S the cell's data sets.
MONTE_CARLO_ALLOWANCE = 2.0
#: The two replicates of the table: ``method="auto"`` chooses on the first, results print the
#: second.
REPLICATES = ("selection", "evaluation")
#: The rule behind ``calibrated`` (one place; the docs and the reports quote it).
CALIBRATION_RULE = (
    "A method is calibrated at a grid n when, on every cell the suite measured at that n "
    "(synthetic and real STS Benchmark cells, including cells that no method reaches), its "
    "type-I error at alpha = 0.05 lies within [3.5 %, 6.5 %] and the coverage of its 95 % "
    "interval within [93.5 %, 96.5 %], each up to 2 Monte Carlo standard errors of the cell "
    "(sqrt(p(1 - p)/S) at the band's edge p, S data sets). A conservative cell (size below "
    "3.5 % or coverage above 96.5 % beyond that allowance) is outside the band too. The rates "
    "are those of the evaluation replicate, which the choice of method='auto' did not see; an "
    "n below the suite's smallest n, references with fewer than 5 distinct values (or "
    "fewer than 5 % of n) and a confidence level other than 95 % are not calibrated. "
    "Decisions adjusted over several pairs "
    "(Holm's or Bonferroni's adjustment) are calibrated when, in addition, the family-wise "
    "error of the method's Holm-adjusted decisions on the same correlation (five and ten "
    "equally good models, 10 and 45 pairs) is at most 5 %, up to 2 Monte Carlo "
    "standard errors."
)
#: The rule behind ``method="auto"`` (one place; the docs quote it).
CHOICE_RULE = (
    "On the selection replicate, each method's summed band violation over the cells of a grid n "
    "(how far its rates lie outside the bands, in rate units). method='auto' starts from the "
    "method with the smallest violation summed over the grid n >= 50 (ties to the simpler "
    "method) and walks the grid outwards from n = 50; at each n it keeps the current method "
    "unless another's violation there is smaller by more than the margin, 2 Monte Carlo "
    "standard errors of the difference: 2 sqrt(k x 0.05 x 0.95 / S), with k the rates outside "
    "the band in either method and S the cells' data sets. For decisions adjusted over several "
    "pairs, only methods whose measured family-wise error is at most 5 % (up to its Monte Carlo "
    "error) qualify."
)
__doc__ = (__doc__ or "") + "\n" + CALIBRATION_RULE + "\n\n" + CHOICE_RULE + "\n"
#: The preference among methods measured equally well (simplest first).
_PREFERENCE = ("twopov", "jackknife-t", "adjusted-percentile", "percentile", "BCa")
#: Below this share of distinct values among the references, results are flagged (heavy ties).
_DISTINCT_SHARE = 0.05
_MIN_DISTINCT = 5
#: The level of the suite's tests (its intervals are at 1 - alpha).
_ALPHA = 0.05
#: The grid n from which the choice walks outwards (the smallest n the band is promised for).
_ANCHOR_N = 50


class UncalibratedWarning(UserWarning):
    """The method's measured type-I error or coverage at this n is outside the calibrated band."""


@dataclass(frozen=True)
class OutsideCell:
    """A cell of the suite where a method's rate lies outside the band (:data:`CALIBRATION_RULE`).

    Attributes
    ----------
    cell : str
        The cell's name, e.g. ``"heavy-tailed/rho1=0.9,rho2=0.85,r12=0.95/effect"``.
    real : bool
        A real STS Benchmark cell.
    size, coverage : float or None
        The measured type-I error (null cells only) and coverage.
    direction : str
        ``"liberal"`` (rejects too often or covers too little) or ``"conservative"`` (rejects
        too rarely or covers too much): :func:`band_direction`.
    unreachable : bool
        No interval method of the suite lies inside the band on this cell at this n.
    """

    cell: str
    real: bool
    size: float | None
    coverage: float
    direction: str
    unreachable: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return dataclasses.asdict(self)

    def text(self) -> str:
        """One line for people: the cell and its rates."""
        size = "" if self.size is None else f"type-I error {self.size:.1%}, "
        reach = "; no method of the suite reaches the band there" if self.unreachable else ""
        return f"{self.cell} ({size}coverage {self.coverage:.1%}, {self.direction}{reach})"


@dataclass(frozen=True)
class MeasuredLevel:
    """How well a method held at the grid n nearest to a request, in the calibration suite.

    Every number comes from the suite's evaluation replicate (:data:`REPLICATES`).

    Attributes
    ----------
    method, correlation : str
    n : int
        The sample size of the request.
    grid_n : int
        The nearest n of the suite's grid (on a log scale) whose numbers are reported.
    size : float
        The largest type-I error at alpha = 0.05 over the synthetic null cells (the liberal
        end; a conservative cell shows in ``outside_band``).
    coverage : float
        The smallest coverage of the 95 % interval over the synthetic cells (the liberal end).
    real_coverage : float or None
        The smallest coverage over the real-data cells (STS Benchmark samples), if measured.
    calibrated : bool
        :data:`CALIBRATION_RULE` holds at ``grid_n`` (every cell, synthetic and real, inside the
        band up to the Monte Carlo allowance) and ``n`` is not below the suite's smallest n;
        not for heavily tied references (:func:`measured_for_data`); for decisions adjusted
        over several pairs (:func:`for_family`), the measured family-wise error of the method's
        adjusted decisions is also at most 5 %, up to its Monte Carlo error.
    outside_band : tuple of OutsideCell
        Every cell at ``grid_n`` outside the band, worst first (empty when ``calibrated``).
    samples : int
        Simulated data sets per cell (the standard error of a rate p is sqrt(p(1-p)/samples)).
    note : str
        One line for people, e.g. ``"twopov at n = 50 (grid 50): worst type-I error 5.6 %,
        worst coverage 88.1 % (real data 93.9 %), at least 2000 data sets per cell; outside
        the band on 2 of 24 cells, worst heavy-tailed/... (coverage 88.1 %, liberal)"``.
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
    outside_band: tuple[OutsideCell, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (for reports and the ``evaluate`` modules)."""
        return {
            "method": self.method,
            "grid_n": self.grid_n,
            "measured_size": self.size,
            "measured_coverage": self.coverage,
            "measured_real_coverage": self.real_coverage,
            "calibrated": self.calibrated,
            "outside_band": [cell.as_dict() for cell in self.outside_band],
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


def _allowance(edge: float, samples: int) -> float:
    return MONTE_CARLO_ALLOWANCE * math.sqrt(edge * (1.0 - edge) / samples)


def band_direction(size: float | None, coverage: float | None, samples: int) -> str | None:
    """Where a cell's rates lie by :data:`CALIBRATION_RULE`: ``None`` inside the band (up to
    the Monte Carlo allowance), ``"liberal"`` when the test rejects too often or the interval
    covers too little, else ``"conservative"`` (rejects too rarely or covers too much).

    The one implementation of the rule's band: the results' ``calibrated`` and
    ``outside_band`` and the bold entries of ``docs/calibration.md`` all use it.
    """
    liberal = conservative = False
    if coverage is not None:
        liberal = coverage < COVERAGE_BAND[0] - _allowance(COVERAGE_BAND[0], samples)
        conservative = coverage > COVERAGE_BAND[1] + _allowance(COVERAGE_BAND[1], samples)
    if size is not None:
        liberal |= size > SIZE_BAND[1] + _allowance(SIZE_BAND[1], samples)
        conservative |= size < SIZE_BAND[0] - _allowance(SIZE_BAND[0], samples)
    if liberal:
        return "liberal"
    return "conservative" if conservative else None


@dataclass(frozen=True)
class _Cell:
    """One measured cell of the suite: a method's size (null cells) and coverage."""

    cell: str
    real: bool
    size: float | None
    coverage: float
    samples: int

    def outside(self) -> OutsideCell | None:
        """The cell as outside the band by :data:`CALIBRATION_RULE`, or None inside it."""
        direction = band_direction(self.size, self.coverage, self.samples)
        if direction is None:
            return None
        return OutsideCell(self.cell, self.real, self.size, self.coverage, direction)

    def violation(self) -> float:
        """How far the cell lies outside the bands (0 inside), in rate units."""
        out = max(0.0, COVERAGE_BAND[0] - self.coverage, self.coverage - COVERAGE_BAND[1])
        if self.size is not None:
            out += max(0.0, self.size - SIZE_BAND[1], SIZE_BAND[0] - self.size)
        return out

    def rates_outside(self) -> int:
        """How many of the cell's rates (size, coverage) lie outside the bands."""
        count = int(not COVERAGE_BAND[0] <= self.coverage <= COVERAGE_BAND[1])
        if self.size is not None:
            count += int(not SIZE_BAND[0] <= self.size <= SIZE_BAND[1])
        return count


def _load() -> dict[str, Any]:
    text = resources.files("sts_extras").joinpath("data/calibration.json").read_text("utf-8")
    document = json.loads(text)
    if not isinstance(document, dict) or not isinstance(document.get("rows"), list):
        raise ValueError("calibration table: expected an object with a list 'rows'")
    return document


_Key = tuple[str, str, str, int]  # replicate, correlation, method, n


@functools.lru_cache(maxsize=1)
def _table() -> dict[_Key, list[_Cell]]:
    """(replicate, correlation, method, n) -> the measured cells, read once from the packaged
    ``calibration.json`` and validated (the package ships it; a malformed table raises)."""
    table: dict[_Key, list[_Cell]] = {}
    for row in _load()["rows"]:
        if not isinstance(row, dict):
            raise ValueError("calibration table: every row must be an object")
        correlation, method, n = row.get("correlation"), row.get("method"), row.get("n")
        cell, samples, replicate = row.get("cell"), row.get("samples"), row.get("replicate")
        if not (
            isinstance(correlation, str)
            and isinstance(method, str)
            and isinstance(cell, str)
            and replicate in REPLICATES
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
        table.setdefault((str(replicate), correlation, method, n), []).append(entry)
    return table


_FamilyKey = tuple[str, str, str, int]  # replicate, correlation, method, n


@functools.lru_cache(maxsize=1)
def _family_rows() -> dict[_FamilyKey, tuple[float, int]]:
    """(replicate, correlation, method, n) -> (the worst measured family-wise error of its
    Holm-adjusted pair decisions, the fewest simulated tasks behind it): five and ten equally
    good models; the ``families`` of ``calibration.json``."""
    rows = _load().get("families", [])
    if not isinstance(rows, list):
        raise ValueError("calibration table: 'families' must be a list")
    worst: dict[_FamilyKey, tuple[float, int]] = {}
    for row in rows:
        if not isinstance(row, dict) or row.get("kind") != "fwer":
            continue
        method, n, replicate, samples, correlation = (
            row.get("method"),
            row.get("n"),
            row.get("replicate"),
            row.get("samples"),
            row.get("correlation"),
        )
        value = _finite_rate(row.get("value"), "value")
        if not (
            isinstance(method, str)
            and isinstance(correlation, str)
            and type(n) is int
            and replicate in REPLICATES
            and type(samples) is int
            and samples >= 1
            and value is not None
        ):
            raise ValueError(f"calibration table: bad family row {row!r}")
        key = (str(replicate), correlation, method, n)
        previous = worst.get(key, (0.0, samples))
        worst[key] = (max(previous[0], value), min(previous[1], samples))
    return worst


def family_error(
    method: str, n: int, replicate: str = "evaluation", correlation: str = "pearson"
) -> tuple[int, float] | None:
    """(grid n, worst measured family-wise error) of ``method``'s Holm-adjusted decisions on
    ``correlation`` near ``n``, in ``replicate`` (the evaluation replicate: the printed claim;
    selection: the choice)."""
    grid = sorted(
        {g for (r, c, m, g) in _family_rows() if (r, c, m) == (replicate, correlation, method)}
    )
    if not grid:
        return None
    grid_n = _nearest(grid, n)
    return grid_n, _family_rows()[(replicate, correlation, method, grid_n)][0]


def _family_holds(
    method: str, n: int, replicate: str = "evaluation", correlation: str = "pearson"
) -> bool:
    """The method's measured family-wise error near ``n`` is at most 5 %, up to its Monte Carlo
    error (two standard errors)."""
    measured = family_error(method, n, replicate, correlation)
    if measured is None:
        return False
    samples = _family_rows()[(replicate, correlation, method, measured[0])][1]
    return measured[1] <= 0.05 + _allowance(0.05, samples)


def _check_request(correlation: object, n: object) -> int:
    """A request's correlation and n, checked (an unknown correlation is refused by name)."""
    check_choice(correlation, "correlation", ("pearson", "spearman"))
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise UserInputError(f"`n` must be a positive integer sample size, got {n!r}.")
    return int(n)


def _grid(correlation: str, method: str, replicate: str = "evaluation") -> list[int]:
    return sorted(n for (r, c, m, n) in _table() if (r, c, m) == (replicate, correlation, method))


def _nearest(grid: list[int], n: int) -> int:
    return min(grid, key=lambda g: (abs(math.log(g) - math.log(n)), -g))


def measured_level(method: str, correlation: str, n: int) -> MeasuredLevel | None:
    """What the calibration suite's evaluation replicate measured for ``method`` near ``n``.

    ``size`` and ``coverage`` are the worst over the synthetic cells at the grid n nearest to
    ``n`` (every cell, those no method reaches included); ``real_coverage`` the worst over the
    real-data cells; ``calibrated`` is :data:`CALIBRATION_RULE`, and ``outside_band`` lists the
    cells that break it.

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
    n = _check_request(correlation, n)
    grid = _grid(correlation, method)
    if not grid:
        return None
    grid_n = _nearest(grid, n)
    cells = _table()[("evaluation", correlation, method, grid_n)]
    synthetic = [c for c in cells if not c.real]
    real = [c for c in cells if c.real]
    sizes = [c.size for c in synthetic if c.size is not None]
    size = max(sizes) if sizes else math.nan
    coverage = min((c.coverage for c in synthetic), default=math.nan)
    real_coverage = min((c.coverage for c in real), default=None)
    unreachable = _unreachable(correlation, grid_n)
    outside = sorted(
        (
            dataclasses.replace(found, unreachable=found.cell in unreachable)
            for found in (c.outside() for c in cells)
            if found is not None
        ),
        key=lambda found: -next(c.violation() for c in cells if c.cell == found.cell),
    )
    below = n < grid[0]
    calibrated = bool(cells) and not outside and not below
    real_text = "" if real_coverage is None else f" (real data {real_coverage:.1%})"
    samples = min(c.samples for c in cells)
    note = (
        f"{method} at n = {n} (grid {grid_n}): largest type-I error {size:.1%}, smallest "
        f"coverage {coverage:.1%}{real_text}, at least {samples} data sets per cell"
    )
    if outside:
        note += (
            f"; outside the band on {len(outside)} of {len(cells)} cells, farthest "
            f"{outside[0].text()}"
        )
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
        outside_band=tuple(outside),
    )


@functools.cache
def _unreachable(correlation: str, grid_n: int) -> frozenset[str]:
    """The cells at ``grid_n`` where every interval method of the evaluation replicate lies
    outside the band (shown as such: no choice of method helps there)."""
    from sts_extras.stats.intervals import DIFFERENCE_METHODS

    outside: dict[str, bool] = {}
    for method in DIFFERENCE_METHODS:
        for cell in _table().get(("evaluation", correlation, method, grid_n), []):
            outside[cell.cell] = outside.get(cell.cell, True) and cell.outside() is not None
    return frozenset(name for name, every in outside.items() if every)


def _selection_cells(method: str, correlation: str, grid_n: int) -> list[_Cell]:
    return _table().get(("selection", correlation, method, grid_n), [])


@dataclass(frozen=True)
class Choice:
    """What ``method="auto"`` picks at one grid n, and by how much (:data:`CHOICE_RULE`).

    Attributes
    ----------
    n : int
        The grid n.
    method : str
        The method chosen there.
    violation : float
        Its summed band violation on the selection replicate.
    best, best_violation : str, float
        The method with the smallest violation there (may be ``method`` itself).
    margin : float
        The Monte Carlo margin the best had to beat the method carried from the previous n by.
    carried, carried_violation : str, float
        The method carried from the previous n (``method`` unless the choice switched here)
        and its violation here.
    """

    n: int
    method: str
    violation: float
    best: str
    best_violation: float
    margin: float
    carried: str
    carried_violation: float


def _margin(a: list[_Cell], b: list[_Cell]) -> float:
    rates = sum(c.rates_outside() for c in a) + sum(c.rates_outside() for c in b)
    samples = min((c.samples for c in a + b), default=1)
    return MONTE_CARLO_ALLOWANCE * math.sqrt(rates * 0.05 * 0.95 / samples)


@functools.cache
def choice_table(correlation: str, family: bool = False) -> tuple[Choice, ...]:
    """``method="auto"``'s choice at every grid n of the selection replicate, by
    :data:`CHOICE_RULE`, with each choice's violation and margin (smallest n first)."""
    from sts_extras.stats.intervals import DIFFERENCE_METHODS

    methods = [m for m in _PREFERENCE if m in DIFFERENCE_METHODS]
    grids = {m: set(_grid(correlation, m, "selection")) for m in methods}
    methods = [m for m in methods if grids[m]]
    if not methods:
        return ()
    grid = sorted(set.intersection(*(grids[m] for m in methods)))

    def violation(method: str, n: int) -> float:
        return sum(c.violation() for c in _selection_cells(method, correlation, n))

    def allowed(method: str, n: int) -> bool:
        return not family or _family_holds(method, n, "selection", correlation)

    def ranked(n: int) -> list[str]:
        candidates = [m for m in methods if allowed(m, n)]
        if not candidates:  # none holds the family-wise error: the smallest error
            return sorted(
                methods,
                key=lambda m: (family_error(m, n, "selection", correlation) or (0, 1.0))[1],
            )[:1]
        return sorted(candidates, key=lambda m: (round(violation(m, n), 4), methods.index(m)))

    anchored = [g for g in grid if g >= _ANCHOR_N] or grid
    start = min(
        (m for m in methods if all(allowed(m, g) for g in anchored)),
        key=lambda m: (round(sum(violation(m, g) for g in anchored), 4), methods.index(m)),
        default=ranked(anchored[0])[0],
    )
    choices: dict[int, Choice] = {}
    for walk in (anchored, [g for g in reversed(grid) if g < anchored[0]]):
        current = start
        for n in walk:
            best = ranked(n)[0]
            margin = _margin(
                _selection_cells(current, correlation, n), _selection_cells(best, correlation, n)
            )
            carried = current
            if not allowed(current, n) or violation(current, n) - violation(best, n) > margin:
                current = best
            choices[n] = Choice(
                n,
                current,
                violation(current, n),
                best,
                violation(best, n),
                margin,
                carried,
                violation(carried, n),
            )
    return tuple(choices[n] for n in grid)


def choose_method(correlation: str, n: int, *, family: bool = False) -> str:
    """The interval method ``method="auto"`` uses for ``correlation`` at sample size ``n``.

    The choice at the grid n nearest to ``n`` of :func:`choice_table` (:data:`CHOICE_RULE`):
    one method across the grid unless another is better by more than the Monte Carlo margin,
    chosen on the suite's selection replicate (the printed level comes from the evaluation
    replicate). With ``family=True`` (decisions adjusted over several pairs, where each pair is
    decided at a far smaller level than 5 %), only methods whose measured family-wise error is
    at most 5 % qualify; if none does, the one with the smallest.
    """
    n = _check_request(correlation, n)
    table = choice_table(correlation, family)
    if not table:
        return _PREFERENCE[0]
    grid_n = _nearest([choice.n for choice in table], n)
    return next(choice.method for choice in table if choice.n == grid_n)


def heavy_ties(references: NDArray[np.float64]) -> bool:
    """Too few distinct gold values for the suite's cells to speak for the data.

    True when the references take fewer than 5 distinct values or fewer than 5 % of n.
    """
    distinct = np.unique(references).size
    return bool(distinct < _MIN_DISTINCT or distinct < _DISTINCT_SHARE * references.size)


def for_family(
    level: MeasuredLevel | None, method: str, n: int, adjust: str = "holm"
) -> MeasuredLevel | None:
    """``level`` for decisions adjusted over several pairs: ``calibrated`` also needs the
    family-wise error of the method's Holm-adjusted decisions on the same correlation measured
    at most 5 % (up to its Monte Carlo error; :func:`family_error`), the last clause of
    :data:`CALIBRATION_RULE`, and an adjustment those rows speak for (Holm's or Bonferroni's);
    the note says what the suite measured."""
    if level is None:
        return None
    measured = family_error(method, n, correlation=level.correlation)
    if measured is None:
        return dataclasses.replace(
            level, calibrated=False, note=level.note + "; family-wise error not measured"
        )
    grid_n, error = measured
    smallest = min(
        g for r, c, m, g in _family_rows() if (r, c, m) == ("evaluation", level.correlation, method)
    )
    holds = _family_holds(method, n, correlation=level.correlation) and n >= smallest
    note = (
        f"; family-wise error of its Holm-adjusted decisions {error:.1%} (the worst of five and "
        f"ten equally good models, grid n {grid_n})"
    )
    if adjust not in FAMILYWISE_ADJUSTMENTS:
        holds = False
        note += f"; the suite measured Holm's adjustment, not {adjust!r}"
    return dataclasses.replace(
        level, calibrated=bool(level.calibrated and holds), note=level.note + note
    )


def measured_for_data(
    method: str,
    correlation: str,
    references: NDArray[np.float64],
    confidence_level: float = 0.95,
) -> MeasuredLevel | None:
    """:func:`measured_level` at the data's n, marked not calibrated when the references are
    heavily tied (:func:`heavy_ties`: the suite's cells do not speak for such data) or the
    request is at another level than the suite's 95 % (its intervals and 5 % tests)."""
    level = measured_level(method, correlation, int(references.size))
    if level is not None and heavy_ties(references):
        level = dataclasses.replace(
            level,
            calibrated=False,
            note=level.note + "; the references are heavily tied (few distinct values), "
            "unlike the suite's cells",
        )
    if level is not None and abs(confidence_level - (1.0 - _ALPHA)) > 1e-12:
        level = dataclasses.replace(
            level,
            calibrated=False,
            note=level.note + f"; the suite measured 95 % intervals (tests at 5 %), not "
            f"{confidence_level:.4g}",
        )
    return level


def warn_if_uncalibrated(
    level: MeasuredLevel | None, method: str, n: int, *, stacklevel: int = 3
) -> bool:
    """Warn (:class:`UncalibratedWarning`) when the request is not calibrated; return whether.

    Not calibrated: the suite never measured the method, a cell at the nearest grid n is outside
    the band (:data:`CALIBRATION_RULE`; the message names the worst), n is below the suite's
    range, or the references are heavily tied (see ``level.note``).
    """
    if level is not None and level.calibrated:
        return True
    if level is None:
        message = f"{method} at n = {n} is not covered by the calibration suite"
    else:
        message = f"not calibrated: {level.note}"
    # stacklevel as if the caller had called warnings.warn itself
    warnings.warn(
        message + " (the Calibration page of the documentation, docs/calibration.md).",
        UncalibratedWarning,
        stacklevel=stacklevel + 1,
    )
    return False
