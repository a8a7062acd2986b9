"""The data cells of the calibration suite: synthetic families and real STS Benchmark samples.

A *cell* is a population of triplets (h, a, b) -- gold score, system a, system b -- from which
the suite draws data sets of n items. Synthetic cells (:data:`FAMILIES`) are built so that the
population Pearson correlations are exactly the cell's targets rho1 = r(h, a), rho2 = r(h, b)
and r12 = r(a, b) (except ``sts-like``, whose targets are those of a latent normal model):

* the gold h has mean 0 and variance 1; each system is ``rho * h + sqrt(1 - rho^2) * u`` where
  u = g(h) e / sqrt(E[g(h)^2]) has mean 0 and variance 1 and is uncorrelated with h (the error
  e is independent of h), and the errors of a and b share a factor: e_a = sqrt(q) z0 +
  sqrt(1 - q) z_a, e_b = sqrt(q) z0 + sqrt(1 - q) z_b with q = (r12 - rho1 rho2) /
  sqrt((1 - rho1^2)(1 - rho2^2)), so (e_a, e_b) are exchangeable: with rho1 = rho2 the systems
  are built symmetrically and every population correlation with the gold (Pearson, Spearman)
  is equal, so the true difference of a null cell is exactly 0;
* ``normal``: h, e normal (trivariate normal);
* ``heteroscedastic``: h normal, g(h) = 0.2 + |h| (error sd grows with the distance from the
  mean);
* ``heavy-tailed``: h normal, (e_a, e_b) bivariate t with 3 df (one chi-square divisor per row);
* ``skewed``: h a standardised gamma(2) (skewness 1.41); each error a standardised centred
  chi-square(4), the sum of 4 squared normals whose pairs (a, b) correlate sqrt(q), so that
  corr(e_a, e_b) = q exactly;
* ``sts-like``: a latent normal t; the gold is the mean of 5 integer votes on 0-5
  (round(2.5 + 1.25 t + 0.8 noise), clipped), so 26 tied values with piles at the bounds; the
  systems are cosine-like, tanh(0.6 + 0.5 x) in (-1, 1) of latent scores x built from t as
  above (rho1, rho2, r12 are the latent values; the population correlations are lower and are
  reported in the docs).

Real cells (:func:`real_cells`) take the 1,379 pairs of the STS Benchmark test set scored by two
of the package's models (:mod:`benchmarks.calibration.real_scores`) as the population: data
sets are n pairs drawn with replacement, and the true difference is the full-set difference.
The null real cell is the symmetrised population of the 2 x 1,379 triplets (h, a, b) and
(h, b, a), on which rho1 = rho2 exactly.

True differences (:func:`true_difference`): 0 on null cells (by symmetry); on synthetic effect
cells the exact rho1 - rho2 for Pearson (by construction), else the difference computed once
from a 2,000,000-row sample with a fixed seed (cached in memory); on real cells the full-set
value.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy import stats

__all__ = [
    "FAMILIES",
    "POPULATION_ROWS",
    "REAL_PAIRS",
    "Cell",
    "cell_key",
    "cell_populations",
    "population_correlations",
    "real_cells",
    "synthetic_cells",
    "true_difference",
]

Array = NDArray[np.float64]
Triplet = tuple[Array, Array, Array]

#: Synthetic data families, in the order of the tables.
FAMILIES = ("normal", "heteroscedastic", "heavy-tailed", "skewed", "sts-like")
#: (rho1, rho2, r12) of the synthetic settings: two nulls and two effects per family.
NULL_SETTINGS = ((0.7, 0.7, 0.8), (0.4, 0.4, 0.5))
EFFECT_SETTINGS = ((0.9, 0.85, 0.95), (0.5, 0.3, 0.6))
#: Model pairs of the real effect cells, and the pair of the symmetrised real null cell.
REAL_PAIRS = (
    ("dynamax-glove50", "avgcos-glove50"),
    ("minilm", "maxpool-glove50"),
    ("overlap", "maxpool-glove50"),
)
REAL_NULL_PAIR = ("dynamax-glove50", "avgcos-glove50")
#: Rows of the large sample that fixes the true difference of a synthetic effect cell.
POPULATION_ROWS = 2_000_000
#: Rows of the sample whose correlations a null cell's row of the docs shows (its true
#: difference is 0 by symmetry, whatever the sample).
NULL_POPULATION_ROWS = 400_000
_POPULATION_SEED = 20_240_531
# E[(0.2 + |h|)^2] for standard normal h.
_HETERO_SCALE = math.sqrt(0.04 + 0.4 * math.sqrt(2.0 / math.pi) + 1.0)


@dataclass(frozen=True)
class Cell:
    """One population of (gold, system a, system b) triplets.

    Attributes
    ----------
    family : str
        One of :data:`FAMILIES`, or ``"stsb-test"`` for a real cell.
    setting : str
        The parameters, e.g. ``"rho=0.7,r12=0.8"`` or ``"rho1=0.9,rho2=0.85,r12=0.95"``.
    effect : bool
        False on a null cell (rho1 = rho2 exactly).
    real : bool
        True for STS Benchmark cells.
    rho1, rho2, r12 : float
        Target Pearson correlations of a synthetic cell (NaN on real cells).
    population : tuple of numpy.ndarray, optional
        The (h, a, b) population of a real cell.
    """

    family: str
    setting: str
    effect: bool
    real: bool = False
    rho1: float = math.nan
    rho2: float = math.nan
    r12: float = math.nan
    population: Triplet | None = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        """``family/setting/null`` or ``family/setting/effect``."""
        return f"{self.family}/{self.setting}/{'effect' if self.effect else 'null'}"

    def draw(self, rng: np.random.Generator, samples: int, n: int) -> Triplet:
        """``samples`` data sets of ``n`` triplets: (h, a, b), each ``(samples, n)``."""
        if self.real:
            assert self.population is not None
            h, a, b = self.population
            index = rng.integers(0, h.size, size=(samples, n))
            return h[index], a[index], b[index]
        return _GENERATORS[self.family](rng, (samples, n), self.rho1, self.rho2, self.r12)


def cell_key(name: str) -> int:
    """A stable 32-bit key of a cell name (its random streams do not depend on the grid)."""
    return zlib.crc32(name.encode("utf-8"))


def _setting(rho1: float, rho2: float, r12: float) -> str:
    if rho1 == rho2:
        return f"rho={rho1:g},r12={r12:g}"
    return f"rho1={rho1:g},rho2={rho2:g},r12={r12:g}"


def synthetic_cells(families: tuple[str, ...] = FAMILIES) -> list[Cell]:
    """The synthetic cells: per family, the null and effect settings."""
    cells = []
    for family in families:
        for rho1, rho2, r12 in (*NULL_SETTINGS, *EFFECT_SETTINGS):
            cells.append(
                Cell(
                    family=family,
                    setting=_setting(rho1, rho2, r12),
                    effect=rho1 != rho2,
                    rho1=rho1,
                    rho2=rho2,
                    r12=r12,
                )
            )
    return cells


def real_cells() -> list[Cell]:
    """The STS Benchmark test-set cells: one per :data:`REAL_PAIRS`, and the symmetrised null.

    Raises ``FileNotFoundError`` when the STS Benchmark is not available
    (:func:`benchmarks.calibration.real_scores.data_dir`).
    """
    from benchmarks.calibration.real_scores import stsb_scores

    gold, scores = stsb_scores("test")
    cells = [
        Cell(
            "stsb-test",
            f"{first},{second}",
            effect=True,
            real=True,
            population=(gold, scores[first], scores[second]),
        )
        for first, second in REAL_PAIRS
    ]
    first, second = REAL_NULL_PAIR
    a, b = scores[first], scores[second]
    symmetrised = (np.concatenate([gold, gold]), np.concatenate([a, b]), np.concatenate([b, a]))
    cells.append(
        Cell(
            "stsb-test",
            f"{first},{second},symmetrised",
            effect=False,
            real=True,
            population=symmetrised,
        )
    )
    return cells


# --------------------------------------------------------------------------------------------
# Synthetic families
# --------------------------------------------------------------------------------------------
def _error_correlation(rho1: float, rho2: float, r12: float) -> float:
    """Correlation q of the standardised errors that gives r(a, b) = r12."""
    q = (r12 - rho1 * rho2) / math.sqrt((1.0 - rho1**2) * (1.0 - rho2**2))
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"setting ({rho1}, {rho2}, {r12}) needs error correlation {q:.3f}")
    return q


def _shared_factor(
    rng: np.random.Generator, shape: tuple[int, ...], q: float
) -> tuple[Array, Array]:
    """Exchangeable standard normal pairs with correlation q >= 0."""
    common = rng.standard_normal(shape)
    first, second = rng.standard_normal(shape), rng.standard_normal(shape)
    shared, own = math.sqrt(q), math.sqrt(1.0 - q)
    return shared * common + own * first, shared * common + own * second


def _systems(h: Array, u_a: Array, u_b: Array, rho1: float, rho2: float) -> Triplet:
    a = rho1 * h + math.sqrt(1.0 - rho1**2) * u_a
    b = rho2 * h + math.sqrt(1.0 - rho2**2) * u_b
    return h, a, b


def _normal(rng: np.random.Generator, shape: tuple[int, ...], *rhos: float) -> Triplet:
    rho1, rho2, r12 = rhos
    h = rng.standard_normal(shape)
    e_a, e_b = _shared_factor(rng, shape, _error_correlation(rho1, rho2, r12))
    return _systems(h, e_a, e_b, rho1, rho2)


def _heteroscedastic(rng: np.random.Generator, shape: tuple[int, ...], *rhos: float) -> Triplet:
    rho1, rho2, r12 = rhos
    h = rng.standard_normal(shape)
    e_a, e_b = _shared_factor(rng, shape, _error_correlation(rho1, rho2, r12))
    spread = (0.2 + np.abs(h)) / _HETERO_SCALE
    return _systems(h, spread * e_a, spread * e_b, rho1, rho2)


def _heavy_tailed(rng: np.random.Generator, shape: tuple[int, ...], *rhos: float) -> Triplet:
    rho1, rho2, r12 = rhos
    h = rng.standard_normal(shape)
    e_a, e_b = _shared_factor(rng, shape, _error_correlation(rho1, rho2, r12))
    # Bivariate t with 3 df (variance 3), scaled to unit variance.
    scale = 1.0 / np.sqrt(rng.chisquare(3.0, shape))
    return _systems(h, scale * e_a, scale * e_b, rho1, rho2)


def _skewed(rng: np.random.Generator, shape: tuple[int, ...], *rhos: float) -> Triplet:
    rho1, rho2, r12 = rhos
    h = (rng.standard_gamma(2.0, shape) - 2.0) / math.sqrt(2.0)
    q = _error_correlation(rho1, rho2, r12)
    # corr(X^2, Y^2) = corr(X, Y)^2 for jointly normal X, Y: pairs correlated sqrt(q).
    sum_a, sum_b = np.zeros(shape), np.zeros(shape)
    for _ in range(4):
        x, y = _shared_factor(rng, shape, math.sqrt(q))
        sum_a += x * x
        sum_b += y * y
    scale = math.sqrt(8.0)
    return _systems(h, (sum_a - 4.0) / scale, (sum_b - 4.0) / scale, rho1, rho2)


def _sts_like(rng: np.random.Generator, shape: tuple[int, ...], *rhos: float) -> Triplet:
    rho1, rho2, r12 = rhos
    latent = rng.standard_normal(shape)
    votes = np.zeros(shape)
    for _ in range(5):
        vote = np.rint(2.5 + 1.25 * latent + 0.8 * rng.standard_normal(shape))
        votes += np.clip(vote, 0.0, 5.0)
    e_a, e_b = _shared_factor(rng, shape, _error_correlation(rho1, rho2, r12))
    _, x_a, x_b = _systems(latent, e_a, e_b, rho1, rho2)
    return votes / 5.0, np.tanh(0.6 + 0.5 * x_a), np.tanh(0.6 + 0.5 * x_b)


_GENERATORS: dict[str, Callable[..., Triplet]] = {
    "normal": _normal,
    "heteroscedastic": _heteroscedastic,
    "heavy-tailed": _heavy_tailed,
    "skewed": _skewed,
    "sts-like": _sts_like,
}
#: Families whose population Pearson correlations are exactly the targets.
_EXACT_PEARSON = ("normal", "heteroscedastic", "heavy-tailed", "skewed")


# --------------------------------------------------------------------------------------------
# Population values
# --------------------------------------------------------------------------------------------
def _correlations(h: Array, a: Array, b: Array, correlation: str) -> tuple[float, float, float]:
    """(r(h, a), r(h, b), r(a, b)) of one large sample, Pearson or Spearman (average ranks)."""
    columns = [h, a, b]
    if correlation == "spearman":
        columns = [np.asarray(stats.rankdata(x), dtype=np.float64) for x in columns]
    matrix: Array = np.asarray(np.corrcoef(np.vstack(columns)), dtype=np.float64)
    return float(matrix[0, 1]), float(matrix[0, 2]), float(matrix[1, 2])


_POPULATION_CACHE: dict[tuple[str, str], tuple[float, float, float]] = {}


def population_correlations(cell: Cell, correlation: str) -> tuple[float, float, float]:
    """The population (rho1, rho2, r12) of a cell for ``correlation``.

    Real cells: the full population. Synthetic cells: exact targets for Pearson where the
    construction makes them exact, else a 2,000,000-row sample with a fixed seed (400,000
    rows for a null cell, whose values are only shown; one sample per cell gives both
    correlations; cached in memory).
    """
    key = (cell.name, correlation)
    if key in _POPULATION_CACHE:
        return _POPULATION_CACHE[key]
    if cell.real:
        assert cell.population is not None
        values = _correlations(*cell.population, correlation)
    elif correlation == "pearson" and cell.family in _EXACT_PEARSON:
        values = (cell.rho1, cell.rho2, cell.r12)
    else:
        seed = np.random.SeedSequence(_POPULATION_SEED, spawn_key=(cell_key(cell.name),))
        rows = POPULATION_ROWS if cell.effect else NULL_POPULATION_ROWS
        h, a, b = (x[0] for x in cell.draw(np.random.default_rng(seed), 1, rows))
        for other in ("pearson", "spearman"):
            _POPULATION_CACHE[(cell.name, other)] = _correlations(h, a, b, other)
        if cell.family in _EXACT_PEARSON:
            _POPULATION_CACHE[(cell.name, "pearson")] = (cell.rho1, cell.rho2, cell.r12)
        values = _POPULATION_CACHE[key]
    _POPULATION_CACHE[key] = values
    return values


def cell_populations(cell: Cell) -> dict[str, tuple[float, float, float]]:
    """Both correlations' population values of a cell (one large sample serves both)."""
    order = ("spearman", "pearson")  # the sample, if any, is drawn for Spearman
    return {correlation: population_correlations(cell, correlation) for correlation in order}


def true_difference(cell: Cell, correlation: str) -> float:
    """The true rho1 - rho2 of a cell: exactly 0 on null cells (by symmetry)."""
    if not cell.effect:
        return 0.0
    rho1, rho2, _ = population_correlations(cell, correlation)
    return rho1 - rho2
