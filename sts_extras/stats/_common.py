"""Checks and helpers that several statistics modules share (dependent tests, power, comparisons).

Private module: its names are public API of :mod:`sts_extras.stats.dependent`, which re-exports
them; the other statistics modules import them from here.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from sts_extras._validation import unit_scaled
from sts_extras.errors import UserInputError

__all__ = [
    "check_correlation_matrix",
    "check_not_perfect",
    "correlation_matrix",
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
    if abs(r12) >= _PERFECT:
        raise UserInputError(
            f"r(predictions1, predictions2) = {r12}: the two systems are perfectly "
            f"{'' if r12 > 0 else 'anti-'}correlated ({correlation}), so their correlations with "
            "the references are equal up to sign and the test is undefined."
        )


def overlap_correlation(r1: ArrayLike, r2: ArrayLike, r12: ArrayLike) -> NDArray[np.float64]:
    """The large-sample correlation between two overlapping correlations r(j, k) = ``r1`` and
    r(j, h) = ``r2`` when r(k, h) = ``r12``, elementwise (Pearson & Filon 1898, as in Olkin & Finn
    1990 and Zou 2007, p. 409): ((r12 - r1 r2 / 2)(1 - r1^2 - r2^2 - r12^2) + r12^3) /
    ((1 - r1^2)(1 - r2^2))."""
    r1, r2, r12 = (np.asarray(a, dtype=np.float64) for a in (r1, r2, r12))
    return ((r12 - 0.5 * r1 * r2) * (1 - r1**2 - r2**2 - r12**2) + r12**3) / (
        (1 - r1**2) * (1 - r2**2)
    )


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
