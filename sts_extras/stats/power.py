r"""Power, sample size and minimal detectable difference of the dependent-correlation tests.

For two systems k and h scored against the same references j, with population correlations
ρ1 = ρ_jk, ρ2 = ρ_jh and ρ12 = ρ_kh, each test of :mod:`sts_extras.stats.dependent` (Steiger
1980; Meng, Rosenthal & Rubin 1992; ...) computes a statistic T = T(r_jk, r_jh, r_kh; n) of the
three sample correlations. Under bivariate-normal sampling theory the Fisher transforms
Z = artanh(r) of the three are asymptotically normal with covariance C / (n - 3), where

.. math::

    C_{ab} = \psi_{ab} / ((1 - \rho_a^2)(1 - \rho_b^2))

and :math:`\psi_{jk,hm}` is the asymptotic covariance of :math:`\sqrt n\, r_{jk}` and
:math:`\sqrt n\, r_{hm}` (Pearson & Filon 1898; Steiger 1980, eqs. 3 and 11-12). The delta method
then gives T ≈ N(μ, σ²) with μ = T(ρ; n) and σ² = ∇T' (C / (n - 3)) ∇T (gradient in Z, by central
differences), so the power at level α is

* two-sided: Φ((μ - c)/σ) + Φ((-c - μ)/σ), c = the (1 - α/2) quantile,
* "greater" (H1: ρ1 > ρ2): Φ((μ - c)/σ), c = the (1 - α) quantile; "less" likewise on the left,

with quantiles of N(0, 1), or of Student's t with n - 3 df for the t tests (Williams, Hotelling,
Hendrickson). Under H0 (ρ1 = ρ2) this gives σ ≈ 1 only to the extent that the test's own variance
is right; the approximation accounts for a test whose variance differs from the true one, and for
the sampling variability of the estimated variance. :func:`simulate_power` checks it by Monte
Carlo from a trivariate normal distribution.

References
----------
.. [1] Steiger, J. H. (1980). Tests for comparing elements of a correlation matrix.
       Psychological Bulletin 87(2), 245-251.
.. [2] Meng, X.-L., Rosenthal, R. & Rubin, D. B. (1992). Comparing correlated correlation
       coefficients. Psychological Bulletin 111(1), 172-175.
.. [3] Pearson, K. & Filon, L. N. G. (1898). Mathematical contributions to the theory of
       evolution IV. Phil. Trans. R. Soc. A 191, 229-311.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

from sts_extras._validation import (
    check_choice,
    check_correlation,
    check_count,
    check_open_unit_interval,
    check_sample_size,
    check_seed,
    check_work,
)
from sts_extras.errors import UserInputError
from sts_extras.limits import MAX_SIMULATED_ITEMS, MAX_SIMULATIONS
from sts_extras.progress import progress_bar
from sts_extras.stats._common import check_correlation_matrix, correlation_covariance
from sts_extras.stats.dependent import (
    ALTERNATIVES,
    DEPENDENT_METHODS,
    T_METHODS,
    dependent_statistic,
)

__all__ = [
    "PowerResult",
    "SimulatedPower",
    "check_simulation_count",
    "dependent_test_power",
    "minimal_detectable_delta",
    "required_sample_size",
    "simulate_power",
]

# Step of the central differences in Fisher's z.
_STEP = 1e-5
# Largest sample size searched by required_sample_size.
_MAX_N = 10**8
# Distance kept from the edge of the valid correlation matrices when searching a delta.
_EDGE = 1e-6
# Resolution of minimal_detectable_delta.
_DELTA_TOLERANCE = 1e-7


@dataclass(frozen=True)
class PowerResult:
    """Analytic power of a dependent-correlation test.

    Attributes
    ----------
    power : float
    n : int
    r1, r2, r12 : float
        ρ_jk (references with system 1), ρ_jh (references with system 2), ρ_kh.
    mean, sd : float
        Normal approximation T ≈ N(mean, sd²) of the test statistic.
    critical_value : float
    method, alternative : str
    alpha : float
    """

    power: float
    n: int
    r1: float
    r2: float
    r12: float
    mean: float
    sd: float
    critical_value: float
    method: str
    alternative: str
    alpha: float


@dataclass(frozen=True)
class SimulatedPower:
    """Monte-Carlo power: share of ``n_simulations`` samples in which the test rejects.

    Attributes
    ----------
    power, standard_error : float
        Rejection rate and its binomial standard error.
    n_simulations : int
    n_undefined : int
        Samples in which the test was undefined (counted as not rejecting).
    n : int
    r1, r2, r12 : float
    method, alternative : str
    alpha : float
    seed : int or None
        The seed given, when it was an int (None for None or a Generator).
    """

    power: float
    standard_error: float
    n_simulations: int
    n_undefined: int
    n: int
    r1: float
    r2: float
    r12: float
    method: str
    alternative: str
    alpha: float
    seed: int | None


def _options(method: object, alpha: object, alternative: object) -> tuple[str, float, str]:
    return (
        check_choice(method, "method", DEPENDENT_METHODS),
        check_open_unit_interval(alpha, "alpha"),
        check_choice(alternative, "alternative", ALTERNATIVES),
    )


def _correlations(r1: object, r2: object, r12: object) -> tuple[float, float, float]:
    values = (
        check_correlation(r1, "r1"),
        check_correlation(r2, "r2"),
        check_correlation(r12, "r12"),
    )
    check_correlation_matrix(*values)
    return values


def _critical_value(method: str, alpha: float, alternative: str, n: int) -> float:
    tail = alpha / 2.0 if alternative == "two-sided" else alpha
    if method in T_METHODS:
        return float(stats.t(n - 3).isf(tail))
    return float(-special.ndtri(tail))


def _z_covariance(r1: float, r2: float, r12: float) -> NDArray[np.float64]:
    """C: n - 3 times the asymptotic covariance of artanh(r_jk), artanh(r_jh), artanh(r_kh).

    Steiger (1980), eq. 3 (Pearson & Filon 1898) for psi
    (:func:`~sts_extras.stats._common.correlation_covariance`, at all 3 x 3 pairs at once),
    divided by (1 - rho_a^2)(1 - rho_b^2) (eqs. 11-12).
    """
    rho = np.array([[1.0, r1, r2], [r1, 1.0, r12], [r2, r12, 1.0]])
    pairs = np.array([(0, 1), (0, 2), (1, 2)])  # (j, k), (j, h), (k, h)
    j, k = pairs[:, 0, None], pairs[:, 1, None]  # rows a: the pair (j, k)
    h, m = pairs[None, :, 0], pairs[None, :, 1]  # columns b: the pair (h, m)
    psi = correlation_covariance(rho[j, k], rho[h, m], rho[j, h], rho[j, m], rho[k, h], rho[k, m])
    scale = 1.0 - np.array([r1, r2, r12]) ** 2
    return psi / np.outer(scale, scale)


def _normal_approximation(
    method: str, r1: float, r2: float, r12: float, n: int
) -> tuple[float, float]:
    """(mean, sd) of the statistic by the delta method in Fisher's z."""
    z = np.arctanh([r1, r2, r12])
    gradient = np.empty(3)
    for index in range(3):
        step = np.zeros(3)
        step[index] = _STEP
        (a1, a2, a12), (b1, b2, b12) = np.tanh(z + step), np.tanh(z - step)
        gradient[index] = (
            dependent_statistic(method, float(a1), float(a2), float(a12), n)
            - dependent_statistic(method, float(b1), float(b2), float(b12), n)
        ) / (2.0 * _STEP)
    variance = float(gradient @ _z_covariance(r1, r2, r12) @ gradient) / (n - 3)
    return dependent_statistic(method, r1, r2, r12, n), math.sqrt(max(variance, 0.0))


def _power(
    method: str, alpha: float, alternative: str, r1: float, r2: float, r12: float, n: int
) -> tuple[float, float, float, float]:
    mean, sd = _normal_approximation(method, r1, r2, r12, n)
    critical = _critical_value(method, alpha, alternative, n)
    upper = float(special.ndtr((mean - critical) / sd)) if sd > 0 else float(mean > critical)
    lower = float(special.ndtr((-critical - mean) / sd)) if sd > 0 else float(mean < -critical)
    if alternative == "greater":
        power = upper
    elif alternative == "less":
        power = lower
    else:
        power = upper + lower
    return power, mean, sd, critical


def dependent_test_power(
    r1: float,
    r2: float,
    r12: float,
    n: int,
    *,
    method: str = "meng1992",
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> PowerResult:
    r"""Analytic power of a test of two dependent correlations at sample size ``n``.

    Parameters
    ----------
    r1, r2 : float
        Population correlations of system 1 and system 2 with the references (ρ_jk, ρ_jh).
    r12 : float
        Population correlation between the two systems (ρ_kh).
    n : int
        Number of items (at least 4).
    method : str, default "meng1992"
        One of :data:`~sts_extras.stats.dependent.DEPENDENT_METHODS`.
    alpha : float, default 0.05
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``"greater"``: H1 is ρ1 > ρ2.

    Returns
    -------
    PowerResult

    Raises
    ------
    UserInputError
        If a correlation is not inside (-1, 1), the three do not form a correlation matrix,
        ``n < 4``, or an option is invalid or the method undefined for these values.

    Notes
    -----
    Power = P(T beyond the critical value) with T ≈ N(μ, σ²), μ = T(ρ1, ρ2, ρ12; n) and
    σ² = ∇T' C ∇T / (n - 3) (see the module docstring; Steiger 1980, eqs. 3, 11-12). For
    Meng et al.'s (1992) z this is, to first order, the usual
    Φ(|artanh ρ1 - artanh ρ2| √((n - 3) / (2 (1 - ρ12) h)) - z_{1-α/2}) with their eq. 2's h.

    Examples
    --------
    >>> from sts_extras.stats.power import dependent_test_power
    >>> round(dependent_test_power(0.5, 0.4, 0.6, 200).power, 3)
    0.438
    """
    method, alpha, alternative = _options(method, alpha, alternative)
    r1, r2, r12 = _correlations(r1, r2, r12)
    n = check_sample_size(n)
    power, mean, sd, critical = _power(method, alpha, alternative, r1, r2, r12, n)
    return PowerResult(
        power=power,
        n=n,
        r1=r1,
        r2=r2,
        r12=r12,
        mean=mean,
        sd=sd,
        critical_value=critical,
        method=method,
        alternative=alternative,
        alpha=alpha,
    )


def required_sample_size(
    r1: float,
    r2: float,
    r12: float,
    *,
    power: float = 0.8,
    method: str = "meng1992",
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> int:
    """Smallest n whose analytic power (:func:`dependent_test_power`) reaches ``power``.

    Parameters
    ----------
    r1, r2, r12, method, alpha, alternative
        As in :func:`dependent_test_power`.
    power : float, default 0.8
        Target power, in (alpha, 1).

    Returns
    -------
    int
        n with power(n) >= ``power`` and power(n - 1) < ``power`` (or n = 4, the smallest size).

    Raises
    ------
    UserInputError
        On invalid input, or if no n up to 10^8 reaches the target (e.g. r1 = r2, or the wrong
        direction for a one-sided alternative).

    Examples
    --------
    >>> from sts_extras.stats.power import required_sample_size
    >>> required_sample_size(0.5, 0.4, 0.6, power=0.8)
    474
    """
    method, alpha, alternative = _options(method, alpha, alternative)
    r1, r2, r12 = _correlations(r1, r2, r12)
    target = _target_power(power, alpha)

    def reaches(n: int) -> bool:
        return _power(method, alpha, alternative, r1, r2, r12, n)[0] >= target

    low, high = 3, 4  # power(low) < target is assumed for low = 3 (no test at n = 3)
    while not reaches(high):
        if high >= _MAX_N:
            raise UserInputError(
                f"No sample size up to {_MAX_N} reaches power {target} for (r1, r2, r12) = "
                f"({r1}, {r2}, {r12}) with {method} ({alternative}, alpha = {alpha})."
            )
        low, high = high, min(2 * high, _MAX_N)
    while high - low > 1:
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle
    return high


def _target_power(power: object, alpha: float) -> float:
    target = check_open_unit_interval(power, "power")
    if target <= alpha:
        raise UserInputError(
            f"`power` must exceed alpha = {alpha} (the power of any test when r1 = r2), got "
            f"{target}."
        )
    return target


def minimal_detectable_delta(
    r1: float,
    r12: float,
    n: int,
    *,
    power: float = 0.8,
    method: str = "meng1992",
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> float:
    """Smallest difference Δ = r1 - r2 that the test detects with the given power at ``n``.

    System 1's correlation ``r1`` and the correlation ``r12`` between the systems are held
    fixed; system 2's correlation is r2 = r1 - Δ (r1 + Δ for ``alternative="less"``), searched
    within the values for which (r1, r2, r12) is a valid correlation matrix.

    Parameters
    ----------
    r1 : float
        Correlation of system 1 (e.g. the top model) with the references.
    r12 : float
        Correlation between the two systems.
    n : int
    power : float, default 0.8
    method, alpha, alternative
        As in :func:`dependent_test_power`.

    Returns
    -------
    float
        Δ >= 0 to within 1e-7, or NaN when no valid r2 reaches the target power.

    Examples
    --------
    >>> from sts_extras.stats.power import minimal_detectable_delta
    >>> round(minimal_detectable_delta(0.5, 0.6, 200), 3)
    0.156
    """
    method, alpha, alternative = _options(method, alpha, alternative)
    r1, r12 = check_correlation(r1, "r1"), check_correlation(r12, "r12")
    n = check_sample_size(n)
    target = _target_power(power, alpha)
    sign = 1.0 if alternative == "less" else -1.0
    # r2 is valid within r1 r12 +- sqrt((1 - r1^2)(1 - r12^2)) (a non-negative determinant).
    spread = math.sqrt((1.0 - r1**2) * (1.0 - r12**2))
    near, far = r1 * r12 - sign * spread, r1 * r12 + sign * spread
    far = max(-1.0, min(1.0, far)) - sign * _EDGE
    low = max(0.0, sign * (near - r1) + _EDGE)
    high = sign * (far - r1)
    if high < low:
        return math.nan

    def reaches(delta: float) -> bool:
        return _power(method, alpha, alternative, r1, r1 + sign * delta, r12, n)[0] >= target

    if not reaches(high):
        return math.nan
    if reaches(low):
        return low
    while high - low > _DELTA_TOLERANCE:
        middle = 0.5 * (low + high)
        if reaches(middle):
            high = middle
        else:
            low = middle
    return high


def check_simulation_count(n_simulations: object, n: int, name: str = "n_simulations") -> int:
    """``n_simulations`` if it is an int in [1, :data:`~sts_extras.limits.MAX_SIMULATIONS`] and
    ``n_simulations * n`` is at most :data:`~sts_extras.limits.MAX_SIMULATED_ITEMS`; checked
    before any sample is drawn (a :class:`~sts_extras.errors.UserInputError` otherwise)."""
    n_simulations = check_count(
        n_simulations, name, MAX_SIMULATIONS, why="the standard error is then below 1.6e-4"
    )
    check_work(
        {name: n_simulations, "n": n}, MAX_SIMULATED_ITEMS, what="simulated items", name=name
    )
    return n_simulations


def _simulate_chunk(
    rng: np.random.Generator,
    factor: NDArray[np.float64],
    size: int,
    n: int,
    method: str,
    alternative: str,
    critical: float,
) -> tuple[int, int]:
    """(rejected, undefined) among ``size`` simulated samples of n items."""
    rejected = undefined = 0
    samples = rng.standard_normal((size, n, 3)) @ factor.T
    samples -= samples.mean(axis=1, keepdims=True)
    scatter = np.einsum("sni,snj->sij", samples, samples)
    scale = np.sqrt(np.einsum("sii->si", scatter))
    corr = scatter / (scale[:, :, None] * scale[:, None, :])
    for r_jk, r_jh, r_kh in zip(corr[:, 0, 1], corr[:, 0, 2], corr[:, 1, 2]):
        if max(abs(r_jk), abs(r_jh), abs(r_kh)) >= 1.0:  # |r| = 1 by rounding: no Fisher z
            undefined += 1
            continue
        try:
            statistic = dependent_statistic(method, float(r_jk), float(r_jh), float(r_kh), n)
        except UserInputError:  # the method's variance is undefined for this sample
            undefined += 1
            continue
        if alternative == "greater":
            rejected += statistic > critical
        elif alternative == "less":
            rejected += statistic < -critical
        else:
            rejected += abs(statistic) > critical
    return int(rejected), undefined


def simulate_power(
    r1: float,
    r2: float,
    r12: float,
    n: int,
    *,
    method: str = "meng1992",
    alpha: float = 0.05,
    alternative: str = "two-sided",
    n_simulations: int = 10000,
    seed: int | np.random.Generator | None = 0,
    progress: bool = False,
) -> SimulatedPower:
    """Monte-Carlo power: draw samples of n trivariate-normal items and run the test on each.

    The references and the two systems are drawn from N(0, R) with R the correlation matrix of
    (r1, r2, r12); each sample's three correlations go through the test's statistic, and the
    rejection rate at level ``alpha`` is the power.

    Parameters
    ----------
    r1, r2, r12, n, method, alpha, alternative
        As in :func:`dependent_test_power`.
    n_simulations : int, default 10000
        At most :data:`~sts_extras.limits.MAX_SIMULATIONS`, and ``n_simulations * n`` at most
        :data:`~sts_extras.limits.MAX_SIMULATED_ITEMS` (checked before any work).
    seed : None, int or numpy.random.Generator, default 0
        Seed of the simulated samples (same seed, same power); a Generator is used as it is.
    progress : bool, default False
        Show a progress bar over the simulations (stderr).

    Returns
    -------
    SimulatedPower
        With the binomial standard error sqrt(p (1 - p) / n_simulations).
    """
    method, alpha, alternative = _options(method, alpha, alternative)
    r1, r2, r12 = _correlations(r1, r2, r12)
    n = check_sample_size(n)
    n_simulations = check_simulation_count(n_simulations, n)
    rng = check_seed(seed)
    # Cholesky factor of a semi-definite matrix: eigen-decomposition handles det = 0 too.
    values, vectors = np.linalg.eigh(np.array([[1.0, r1, r2], [r1, 1.0, r12], [r2, r12, 1.0]]))
    factor = vectors * np.sqrt(np.clip(values, 0.0, None))
    critical = _critical_value(method, alpha, alternative, n)
    rejected = undefined = 0
    chunk = max(1, (1 << 20) // (3 * n))
    with progress_bar(n_simulations, "Simulating", unit="sample", enabled=progress) as bar:
        for start in range(0, n_simulations, chunk):
            size = min(chunk, n_simulations - start)
            chunk_rejected, chunk_undefined = _simulate_chunk(
                rng, factor, size, n, method, alternative, critical
            )
            rejected += chunk_rejected
            undefined += chunk_undefined
            bar.update(size)
    rate = rejected / n_simulations
    return SimulatedPower(
        power=rate,
        standard_error=math.sqrt(rate * (1.0 - rate) / n_simulations),
        n_simulations=n_simulations,
        n_undefined=undefined,
        n=n,
        r1=r1,
        r2=r2,
        r12=r12,
        method=method,
        alternative=alternative,
        alpha=alpha,
        seed=seed if isinstance(seed, int) else None,
    )
