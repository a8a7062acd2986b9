"""Checks and helpers that several statistics modules share (dependent tests, power, comparisons).

Private module: its names are public API of :mod:`sts_extras.stats.dependent`, which re-exports
them; the other statistics modules import them from here.
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

from sts_extras._validation import unit_scaled
from sts_extras.errors import UserInputError

__all__ = [
    "check_correlation_matrix",
    "check_not_copies",
    "check_not_perfect",
    "correlation_covariance",
    "correlation_matrix",
    "fisher_limits",
    "fisher_z_variance",
    "mover_difference_limits",
    "overlap_correlation",
    "overlap_covariance",
    "statistic_pvalue",
]

# Tolerance for the determinant of the 3 x 3 correlation matrix: correlations computed from data
# can give a determinant of -1e-17 where the exact value is 0.
_DET_TOLERANCE = 1e-12
# A correlation computed from data this close to +-1 is a perfect correlation up to rounding.
_PERFECT = 1.0 - 1e-12


def statistic_pvalue(statistic: float, alternative: str, df: float | None = None) -> float:
    """p-value of a z (``df=None``) or t statistic; 'greater' means H1: rho_1 > rho_2."""
    dist = stats.norm if df is None else stats.t(df)
    if alternative == "greater":
        return float(dist.sf(statistic))
    if alternative == "less":
        return float(dist.cdf(statistic))
    return float(min(1.0, 2.0 * dist.sf(abs(statistic))))


def check_correlation_matrix(r1: float, r2: float, r12: float) -> None:
    """Raise ``UserInputError`` unless the three correlations form a valid correlation matrix."""
    det = 1 + 2 * r1 * r2 * r12 - r1**2 - r2**2 - r12**2
    if det < -_DET_TOLERANCE:
        raise UserInputError(
            "(r1, r2, r12) is not a valid correlation matrix: its determinant "
            "1 + 2 r1 r2 r12 - r1^2 - r2^2 - r12^2 must be >= 0 (positive semi-definite), got "
            f"{det:.6g} for (r1, r2, r12) = ({r1}, {r2}, {r12})."
        )


def correlation_matrix(columns: ArrayLike, correlation: str) -> NDArray[np.float64]:
    """Pearson or Spearman (Pearson of average ranks) matrix of the rows of ``columns``.

    Each row is scaled by a power of two first (exact), so extreme magnitudes cannot overflow.
    """
    rows = np.asarray(columns, dtype=np.float64)
    if correlation == "spearman":
        rows = stats.rankdata(rows, axis=1)
    return np.asarray(np.corrcoef(np.vstack([unit_scaled(row) for row in rows])), dtype=np.float64)


def check_not_perfect(r1: float, r2: float, r12: float, correlation: str) -> None:
    """Raise ``UserInputError`` when correlations computed from data are +-1 up to rounding."""
    for value, name in (
        (r1, "r(references, predictions1)"),
        (r2, "r(references, predictions2)"),
    ):
        if abs(value) >= _PERFECT:
            raise UserInputError(
                f"{name} = {value}: a perfect correlation leaves nothing to test (Fisher's z is "
                "infinite)."
            )
    check_not_copies(r12, correlation)


def check_not_copies(r12: float, correlation: str) -> None:
    """Raise ``UserInputError`` when the two systems are perfectly correlated up to rounding:
    one is an increasing (or decreasing) copy of the other, their correlations with the
    references are equal up to sign, and any difference found is rounding noise."""
    if abs(r12) >= _PERFECT:
        raise UserInputError(
            f"r(predictions1, predictions2) = {r12}: the two systems are perfectly "
            f"{'' if r12 > 0 else 'anti-'}correlated ({correlation}), so their correlations with "
            "the references are equal up to sign and the test is undefined."
        )


@overload
def correlation_covariance(
    r_jk: float, r_hm: float, r_jh: float, r_jm: float, r_kh: float, r_km: float
) -> float: ...
@overload
def correlation_covariance(
    r_jk: ArrayLike,
    r_hm: ArrayLike,
    r_jh: ArrayLike,
    r_jm: ArrayLike,
    r_kh: ArrayLike,
    r_km: ArrayLike,
) -> NDArray[np.float64]: ...
def correlation_covariance(
    r_jk: ArrayLike,
    r_hm: ArrayLike,
    r_jh: ArrayLike,
    r_jm: ArrayLike,
    r_kh: ArrayLike,
    r_km: ArrayLike,
) -> float | NDArray[np.float64]:
    r"""Large-sample covariance of :math:`\sqrt n\, r_{jk}` and :math:`\sqrt n\, r_{hm}`.

    The one home of the Pearson & Filon (1898) covariance of two correlations of one correlation
    matrix (Eq. 3 in [1]_, the :math:`\psi_{jk,hm}` there); normal data. The overlapping case
    (:func:`overlap_covariance`), the correlation of two overlapping correlations
    (:func:`overlap_correlation`) and the 3 x 3 covariance of :mod:`sts_extras.stats.power` are
    this function at the entries they name.

    Parameters
    ----------
    r_jk, r_hm : array_like
        The two correlations.
    r_jh, r_jm, r_kh, r_km : array_like
        The four cross correlations of their variables (1 where two names are one variable).

    Returns
    -------
    float or numpy.ndarray
        :math:`\psi_{jk,hm}`, elementwise (a float when all six are floats: the closed-form tests
        call it once per sample in :func:`~sts_extras.stats.power.simulate_power`);
        :math:`(1 - r_{jk}^2)^2` for :math:`hm = jk`.

    Notes
    -----
    .. math::

        \psi_{jk,hm} = \tfrac12 r_{jk} r_{hm} (r_{jh}^2 + r_{jm}^2 + r_{kh}^2 + r_{km}^2)
        + r_{jh} r_{km} + r_{jm} r_{kh}
        - (r_{jk} r_{jh} r_{jm} + r_{jk} r_{kh} r_{km} + r_{jh} r_{kh} r_{hm}
        + r_{jm} r_{km} r_{hm})

    References
    ----------
    .. [1] Steiger, J. H. (1980). Tests for comparing elements of a correlation matrix.
           Psychological Bulletin 87(2), 245-251.
    """
    values = (r_jk, r_hm, r_jh, r_jm, r_kh, r_km)
    scalar = all(isinstance(value, float) for value in values)
    jk, hm, jh, jm, kh, km = (
        float(value) if scalar else np.asarray(value, dtype=np.float64)  # type: ignore[arg-type]
        for value in values
    )
    psi = (
        0.5 * jk * hm * (jh**2 + jm**2 + kh**2 + km**2)
        + jh * km
        + jm * kh
        - (jk * jh * jm + jk * kh * km + jh * kh * hm + jm * km * hm)
    )
    return float(psi) if scalar else np.asarray(psi, dtype=np.float64)


@overload
def overlap_covariance(r1: float, r2: float, r12: float) -> float: ...
@overload
def overlap_covariance(r1: ArrayLike, r2: ArrayLike, r12: ArrayLike) -> NDArray[np.float64]: ...
def overlap_covariance(r1: ArrayLike, r2: ArrayLike, r12: ArrayLike) -> Any:
    """:func:`correlation_covariance` of two overlapping correlations r(j, k) = ``r1`` and
    r(j, h) = ``r2`` with r(k, h) = ``r12``, elementwise: r12 (1 - r1^2 - r2^2) -
    r1 r2 (1 - r1^2 - r2^2 - r12^2) / 2 (Steiger 1980, eq. 3 with h = j; Dunn & Clark 1969,
    eq. 8). ``overlap_covariance(r, r, 1.0)`` is the variance (1 - r^2)^2. Floats give a float."""
    return correlation_covariance(r1, r2, 1.0, r2, r1, r12)


@overload
def overlap_correlation(r1: float, r2: float, r12: float) -> float: ...
@overload
def overlap_correlation(r1: ArrayLike, r2: ArrayLike, r12: ArrayLike) -> NDArray[np.float64]: ...
def overlap_correlation(r1: ArrayLike, r2: ArrayLike, r12: ArrayLike) -> Any:
    """The large-sample correlation between two overlapping correlations r(j, k) = ``r1`` and
    r(j, h) = ``r2`` when r(k, h) = ``r12``, elementwise (Pearson & Filon 1898, as in Olkin & Finn
    1990 and Zou 2007, p. 409): :func:`overlap_covariance` / ((1 - r1^2)(1 - r2^2)); it is also
    the correlation of their Fisher z's (Steiger 1980, eqs. 11-12). Floats give a float."""
    covariance: Any = overlap_covariance(r1, r2, r12)
    one: Any = r1 if isinstance(covariance, float) else np.asarray(r1, dtype=np.float64)
    two: Any = r2 if isinstance(covariance, float) else np.asarray(r2, dtype=np.float64)
    return covariance / ((1 - one**2) * (1 - two**2))


def fisher_z_variance(
    r: ArrayLike, n: ArrayLike, correlation: str = "pearson"
) -> NDArray[np.float64]:
    r"""Sampling variance of Fisher's :math:`z = \operatorname{artanh} r` from ``n`` pairs.

    The one rule of the package: :math:`1/(n - 3)` for Pearson's r (Fisher 1921) and
    :math:`(1 + r^2/2)/(n - 3)` for Spearman's rho (Eq. 3 in [1]_, which holds well for
    :math:`|r| \le 0.9` under near-normal data; 1/(n - 3) is too small for Spearman's rho,
    whose exact variance is about 1.06/(n - 3) near 0, Fieller et al. 1957). Elementwise.

    Parameters
    ----------
    r : array_like
        Correlations in (-1, 1) (used for Spearman only).
    n : array_like
        Numbers of pairs, at least 4 (not checked: callers check their own ``n``).
    correlation : {"pearson", "spearman"}, default "pearson"

    References
    ----------
    .. [1] Bonett, D. G. & Wright, T. A. (2000). Sample size requirements for estimating
           Pearson, Kendall and Spearman correlations. Psychometrika 65(1), 23-28.
    """
    r, n = np.asarray(r, dtype=np.float64), np.asarray(n, dtype=np.float64)
    if correlation == "spearman":
        return np.asarray((1.0 + r**2 / 2.0) / (n - 3.0), dtype=np.float64)
    return np.asarray(np.broadcast_to(1.0 / (n - 3.0), np.broadcast_shapes(r.shape, n.shape)))


def fisher_limits(
    r: ArrayLike, n: ArrayLike, confidence_level: float, correlation: str = "pearson"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-sided Fisher-z limits ``(low, high)`` of correlations ``r`` from ``n`` pairs,
    elementwise: tanh(artanh r -+ q sqrt(v)), q the normal quantile of ``confidence_level`` and
    v = :func:`fisher_z_variance` (1/(n - 3) for Pearson, Bonett & Wright 2000 for Spearman);
    Zou (2007), p. 406. ``confidence_level`` is not checked here: callers check it."""
    r = np.asarray(r, dtype=np.float64)
    half = special.ndtri(0.5 + confidence_level / 2.0) * np.sqrt(
        fisher_z_variance(r, n, correlation)
    )
    z = np.arctanh(r)
    return np.tanh(z - half), np.tanh(z + half)


def mover_difference_limits(
    r1: ArrayLike,
    l1: ArrayLike,
    u1: ArrayLike,
    r2: ArrayLike,
    l2: ArrayLike,
    u2: ArrayLike,
    c: ArrayLike,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Zou's (2007, p. 409, eq. 12-13) MOVER limits of ``r1 - r2`` from each correlation's own
    limits ``(l, u)`` and the correlation ``c`` between the two estimates; elementwise."""
    r1, l1, u1, r2, l2, u2, c = (
        np.asarray(a, dtype=np.float64) for a in (r1, l1, u1, r2, l2, u2, c)
    )
    below = (r1 - l1) ** 2 + (u2 - r2) ** 2 - 2 * c * (r1 - l1) * (u2 - r2)
    above = (u1 - r1) ** 2 + (r2 - l2) ** 2 - 2 * c * (u1 - r1) * (r2 - l2)
    return r1 - r2 - np.sqrt(np.maximum(below, 0.0)), r1 - r2 + np.sqrt(np.maximum(above, 0.0))
