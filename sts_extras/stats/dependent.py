"""Significance tests for comparing correlations: is system A really better than system B?

Two STS systems scored against the same human ratings give two *dependent* correlations that share
one variable (the ratings). This module implements the classical tests for that case, in the
notation of R's ``cocor`` (Diedenhofen & Musch, 2015) [1]_: ``j`` is the shared variable (the
references), ``k`` and ``h`` the two systems, so

* ``r_jk`` = r(references, predictions1),
* ``r_jh`` = r(references, predictions2),
* ``r_kh`` = r(predictions1, predictions2),

and a positive statistic means that system 1 correlates better with the references.

Also here: Fisher's r-to-z test for two correlations from independent samples (one system on two
datasets), a one-sample test of one correlation against a set of correlations (e.g. a system
against the human inter-rater agreement), both suggested by the STSS-131 report [2]_ (part B).
:func:`holm_adjust` (Holm's step-down adjustment) lives in :mod:`sts_extras.stats.multiple` and
is re-exported here.

References
----------
.. [1] Diedenhofen, B. & Musch, J. (2015). cocor: A comprehensive solution for the statistical
       comparison of correlations. PLoS ONE 10(4): e0121945.
.. [2] O'Shea, J., Bandar, Z. & Crockett, K. (2013). A new benchmark dataset with production
       methodology for short text semantic similarity algorithms. ACM TSLP 10(4); technical
       report extract "STSS-131", part B "Other statistical tests".
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy import special, stats

from sts_extras._validation import (
    as_float_vector,
    as_paired_vectors,
    check_choice,
    check_not_constant,
    check_open_unit_interval,
    unit_scaled,
)
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.stats.multiple import holm_adjust

__all__ = [
    "ALTERNATIVES",
    "CORRELATIONS",
    "DEPENDENT_METHODS",
    "CorrelationGroupResult",
    "DependentCorrelationResult",
    "IndependentCorrelationResult",
    "compare_dependent_correlations",
    "correlation_vs_group_test",
    "dependent_correlation_test",
    "holm_adjust",
    "independent_correlation_test",
]

#: Tests for two overlapping dependent correlations, named as in R's ``cocor``.
DEPENDENT_METHODS = (
    "steiger1980",
    "meng1992",
    "williams1959",
    "hittner2003",
    "dunn1969",
    "hotelling1940",
    "hendrickson1970",
    "olkin1967",
    "pearson1898",
)
#: Methods whose statistic follows Student's t with n - 3 degrees of freedom (the others: N(0, 1)).
T_METHODS = ("williams1959", "hotelling1940", "hendrickson1970")
ALTERNATIVES = ("two-sided", "greater", "less")
CORRELATIONS = ("pearson", "spearman")
_GROUP_TRANSFORMS = ("fisher", "none")
# Tolerance for the determinant of the 3 x 3 correlation matrix: correlations computed from data
# can give a determinant of -1e-17 where the exact value is 0.
_DET_TOLERANCE = 1e-12
# A correlation computed from data this close to +-1 is a perfect correlation up to rounding.
_PERFECT = 1.0 - 1e-12


# --------------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------------
def statistic_pvalue(statistic: float, alternative: str, df: float | None = None) -> float:
    """p-value of a z (``df=None``) or t statistic; 'greater' means H1: rho_1 > rho_2."""
    dist = stats.norm if df is None else stats.t(df)
    if alternative == "greater":
        return float(dist.sf(statistic))
    if alternative == "less":
        return float(dist.cdf(statistic))
    return float(min(1.0, 2.0 * dist.sf(abs(statistic))))


def check_correlation(value: Any, name: str) -> float:
    """A correlation coefficient strictly inside (-1, 1) (Fisher's z of +-1 is infinite)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise UserInputTypeError(f"`{name}` must be a real number in (-1, 1), got {value!r}.")
    value = float(value)
    if not math.isfinite(value) or not -1.0 < value < 1.0:
        raise UserInputError(
            f"`{name}` must lie strictly between -1 and 1 (Fisher's z and the tests' variances "
            f"are undefined at |r| = 1), got {value}."
        )
    return value


def check_sample_size(value: Any, name: str = "n") -> int:
    """Sample size as int, at least 4 (every test divides by n - 3)."""
    if isinstance(value, bool) or not isinstance(value, (Integral, Real)):
        raise UserInputTypeError(f"`{name}` must be an integer, got {value!r}.")
    if (
        isinstance(value, Real)
        and not isinstance(value, Integral)
        and not float(value).is_integer()
    ):
        raise UserInputTypeError(f"`{name}` must be an integer, got {value!r}.")
    value = int(value) if isinstance(value, Integral) else int(float(value))
    if value < 4:
        raise UserInputError(
            f"`{name}` must be at least 4 (the tests divide by n - 3), got {value}."
        )
    return value


def _fisher_interval(r: float, n: int, z_crit: float) -> tuple[float, float]:
    """Fisher-z confidence limits (l, u) of one correlation (Zou 2007, p. 406)."""
    half = z_crit / math.sqrt(n - 3)
    z = math.atanh(r)
    return math.tanh(z - half), math.tanh(z + half)


def _zou_interval(
    r1: float, l1: float, u1: float, r2: float, l2: float, u2: float, c: float
) -> tuple[float, float]:
    """Zou's (2007) MOVER interval of r1 - r2 from the single-correlation limits (p. 409)."""
    below = (r1 - l1) ** 2 + (u2 - r2) ** 2 - 2 * c * (r1 - l1) * (u2 - r2)
    above = (u1 - r1) ** 2 + (r2 - l2) ** 2 - 2 * c * (u1 - r1) * (r2 - l2)
    low = r1 - r2 - math.sqrt(max(0.0, below))
    high = r1 - r2 + math.sqrt(max(0.0, above))
    return float(low), float(high)


def _critical_z(confidence_level: float) -> float:
    return float(special.ndtri(0.5 + confidence_level / 2.0))


# --------------------------------------------------------------------------------------------
# Dependent, overlapping correlations
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DependentCorrelationResult:
    """Result of a test of two dependent correlations sharing one variable.

    Attributes
    ----------
    statistic : float
        z (or t for ``williams1959``, ``hotelling1940``, ``hendrickson1970``); positive when
        ``r1 > r2`` (system 1 correlates better with the references).
    pvalue : float
        p-value for ``alternative``.
    r1, r2, r12 : float
        r_jk = r(references, predictions1), r_jh = r(references, predictions2) and
        r_kh = r(predictions1, predictions2).
    n : int
        Number of items.
    method, alternative : str
        The test and the alternative hypothesis (``"greater"``: r1 > r2).
    df : float or None
        Degrees of freedom (n - 3) for the t tests, ``None`` for z tests.
    confidence_level : float
        Default level of :meth:`confidence_interval`.
    correlation : str or None
        ``"pearson"``/``"spearman"`` when computed from data, ``None`` when r's were given.
    """

    statistic: float
    pvalue: float
    r1: float
    r2: float
    r12: float
    n: int
    method: str
    alternative: str
    df: float | None = None
    confidence_level: float = 0.95
    correlation: str | None = None

    @property
    def difference(self) -> float:
        """r1 - r2."""
        return self.r1 - self.r2

    def confidence_interval(self, confidence_level: float | None = None) -> tuple[float, float]:
        """Zou's (2007) interval of ``r1 - r2`` (two-sided, whatever ``alternative`` was).

        Zou, G. Y. (2007). Toward using confidence intervals to compare correlations.
        Psychological Methods 12(4), 399-413, p. 409 (overlapping dependent correlations).
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        level = check_open_unit_interval(level, "confidence_level")
        z_crit = _critical_z(level)
        l1, u1 = _fisher_interval(self.r1, self.n, z_crit)
        l2, u2 = _fisher_interval(self.r2, self.n, z_crit)
        r_jk, r_jh, r_kh = self.r1, self.r2, self.r12
        # Correlation between r_jk and r_jh (Zou 2007, p. 409).
        c = ((r_kh - 0.5 * r_jk * r_jh) * (1 - r_jk**2 - r_jh**2 - r_kh**2) + r_kh**3) / (
            (1 - r_jk**2) * (1 - r_jh**2)
        )
        return _zou_interval(r_jk, l1, u1, r_jh, l2, u2, c)


def check_correlation_matrix(r_jk: float, r_jh: float, r_kh: float) -> None:
    """Raise ``UserInputError`` unless the three correlations form a valid correlation matrix."""
    det = 1 + 2 * r_jk * r_jh * r_kh - r_jk**2 - r_jh**2 - r_kh**2
    if det < -_DET_TOLERANCE:
        raise UserInputError(
            "(r_jk, r_jh, r_kh) is not a valid correlation matrix: its determinant "
            f"1 + 2 r_jk r_jh r_kh - r_jk^2 - r_jh^2 - r_kh^2 must be >= 0 (positive "
            f"semi-definite), got {det:.6g} for (r_jk, r_jh, r_kh) = ({r_jk}, {r_jh}, {r_kh})."
        )


def _dependent_iv(r_jk, r_jh, r_kh, n, method, alternative, confidence_level):
    r_jk = check_correlation(r_jk, "r_jk")
    r_jh = check_correlation(r_jh, "r_jh")
    r_kh = check_correlation(r_kh, "r_kh")
    n = check_sample_size(n)
    method = check_choice(method, "method", DEPENDENT_METHODS)
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    confidence_level = check_open_unit_interval(confidence_level, "confidence_level")
    check_correlation_matrix(r_jk, r_jh, r_kh)
    return r_jk, r_jh, r_kh, n, method, alternative, confidence_level


def dependent_statistic(method: str, r_jk: float, r_jh: float, r_kh: float, n: int) -> float:
    """Test statistic of ``method`` for valid inputs (see :func:`dependent_correlation_test`).

    Formulas as in cocor's documentation [1] and the papers. Each branch gives the difference (of
    r's or of Fisher z's) and the variance it is divided by. Raises ``UserInputError`` where the
    method's variance is undefined.
    """
    det = max(0.0, 1 + 2 * r_jk * r_jh * r_kh - r_jk**2 - r_jh**2 - r_kh**2)
    z_diff = math.atanh(r_jk) - math.atanh(r_jh)
    if method in ("dunn1969", "steiger1980", "hittner2003"):
        if method == "dunn1969":
            # Dunn & Clark (1969), eq. 15 with the covariance of eq. 8.
            c = (
                r_kh * (1 - r_jk**2 - r_jh**2)
                - 0.5 * r_jk * r_jh * (1 - r_jk**2 - r_jh**2 - r_kh**2)
            ) / ((1 - r_jk**2) * (1 - r_jh**2))
        else:
            # Steiger (1980), eq. 14 with eq. 10 at the pooled r; Hittner, May & Silver (2003)
            # pool as tanh of the mean Fisher z (Silver & Dunlap 1987, eq. 4).
            if method == "steiger1980":
                rp = (r_jk + r_jh) / 2
            else:
                rp = math.tanh((math.atanh(r_jk) + math.atanh(r_jh)) / 2)
            c = (r_kh * (1 - 2 * rp**2) - 0.5 * rp**2 * (1 - 2 * rp**2 - r_kh**2)) / (
                (1 - rp**2) ** 2
            )
        difference, variance = z_diff, (2 - 2 * c) / (n - 3)
    elif method == "meng1992":
        # Meng, Rosenthal & Rubin (1992), eqs. 1-3; f is capped at 1.
        r2_mean = (r_jk**2 + r_jh**2) / 2
        f = min(1.0, (1 - r_kh) / (2 * (1 - r2_mean)))
        h = (1 - f * r2_mean) / (1 - r2_mean)
        difference, variance = z_diff, 2 * (1 - r_kh) * h / (n - 3)
    elif method == "williams1959":
        # Williams (1959) as in Steiger (1980), eq. 7 ("standard Williams' t", Hittner et al. 2003).
        r_mean = (r_jk + r_jh) / 2
        denominator = 2 * ((n - 1) / (n - 3)) * det + r_mean**2 * (1 - r_kh) ** 3
        difference, variance = r_jk - r_jh, denominator / ((n - 1) * (1 + r_kh))
    elif method in ("hotelling1940", "hendrickson1970"):
        # Hotelling (1940), p. 278, eq. 7; Hendrickson, Stanley & Hills (1970), p. 193.
        extra = 0.0
        if method == "hendrickson1970":
            extra = (r_jk - r_jh) ** 2 * (1 - r_kh) ** 3 / (4 * (n - 1))
        if det <= 0.0 and extra <= 0.0:
            raise UserInputError(
                f"method={method!r} is undefined for a singular correlation matrix (determinant "
                f"{det:.3g}); use another method."
            )
        difference, variance = r_jk - r_jh, (2 * det + extra) / ((n - 3) * (1 + r_kh))
    elif method == "olkin1967":
        # Olkin (1967) as corrected by Hendrickson & Collins (1970); Glass & Stanley (1970), 14.19.
        psi = (
            (1 - r_jk**2) ** 2
            + (1 - r_jh**2) ** 2
            - 2 * r_kh**3
            - (2 * r_kh - r_jk * r_jh) * (1 - r_kh**2 - r_jk**2 - r_jh**2)
        )
        difference, variance = r_jk - r_jh, psi / n
    else:
        # pearson1898: Pearson & Filon (1898); Steiger (1980), eqs. 3-4.
        k = r_kh * (1 - r_jk**2 - r_jh**2) - 0.5 * r_jk * r_jh * (1 - r_jk**2 - r_jh**2 - r_kh**2)
        difference, variance = r_jk - r_jh, ((1 - r_jk**2) ** 2 + (1 - r_jh**2) ** 2 - 2 * k) / n
    if not variance > 0.0:
        raise UserInputError(
            f"method={method!r} is undefined here: the estimated variance of the difference is "
            f"{variance:.3g} for (r_jk, r_jh, r_kh) = ({r_jk}, {r_jh}, {r_kh}), n = {n} (the "
            "two systems are (almost) perfectly correlated)."
        )
    return difference / math.sqrt(variance)


def dependent_correlation_test(
    r_jk: float,
    r_jh: float,
    r_kh: float,
    n: int,
    *,
    method: str = "steiger1980",
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> DependentCorrelationResult:
    r"""Test whether two correlations sharing variable ``j`` differ (H0: rho_jk = rho_jh).

    Parameters
    ----------
    r_jk : float
        Correlation of the shared variable ``j`` (the references) with ``k`` (system 1).
    r_jh : float
        Correlation of ``j`` with ``h`` (system 2).
    r_kh : float
        Correlation of the two systems with each other.
    n : int
        Number of items the correlations were computed on (at least 4).
    method : str, default "steiger1980"
        One of :data:`DEPENDENT_METHODS`. ``"steiger1980"`` is Steiger's (1980) z with the pooled
        r-bar, as in R's ``cocor``; ``"meng1992"`` is Meng, Rosenthal & Rubin's (1992) z, which
        reproduces the numbers printed in the STSS-131 report; ``"williams1959"``,
        ``"hotelling1940"`` and ``"hendrickson1970"`` are t tests with n - 3 degrees of freedom.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: rho_jk > rho_jh (system 1 better).
    confidence_level : float, default 0.95
        Level of the Zou (2007) interval given by ``result.confidence_interval()``.

    Returns
    -------
    DependentCorrelationResult
        ``statistic``, ``pvalue``, ``r1`` (= r_jk), ``r2`` (= r_jh), ``r12`` (= r_kh), ``n``, ...

    Raises
    ------
    ValueError
        If a correlation is not strictly inside (-1, 1), ``n < 4``, the three correlations do not
        form a positive semi-definite matrix, or ``method``/``alternative`` is unknown.

    See Also
    --------
    compare_dependent_correlations : the same test from raw scores.

    Notes
    -----
    With Fisher's :math:`Z = \operatorname{artanh} r`, :math:`\bar r = (r_{jk} + r_{jh})/2` and
    :math:`|R| = 1 + 2 r_{jk} r_{jh} r_{kh} - r_{jk}^2 - r_{jh}^2 - r_{kh}^2`:

    * steiger1980 (Steiger 1980, eq. 14 and eq. 10):
      :math:`z = (Z_{jk} - Z_{jh}) \sqrt{n - 3} / \sqrt{2 - 2\bar c}`,
      :math:`\bar c = [r_{kh}(1 - 2\bar r^2) - \tfrac12 \bar r^2 (1 - 2\bar r^2 - r_{kh}^2)]
      / (1 - \bar r^2)^2`. dunn1969 (Dunn & Clark 1969, eqs. 8 and 15) uses the unpooled
      covariance; hittner2003 pools :math:`\bar r = \tanh((Z_{jk} + Z_{jh})/2)`.
    * meng1992 (Meng et al. 1992, eqs. 1-3):
      :math:`z = (Z_{jk} - Z_{jh}) \sqrt{(n - 3) / (2 (1 - r_{kh}) h)}`,
      :math:`h = (1 - f \overline{r^2}) / (1 - \overline{r^2})`,
      :math:`f = \min(1, (1 - r_{kh}) / (2 (1 - \overline{r^2})))`.
    * williams1959 (Steiger 1980, eq. 7): :math:`t = (r_{jk} - r_{jh})
      \sqrt{(n-1)(1 + r_{kh}) / (2 \tfrac{n-1}{n-3}|R| + \bar r^2 (1 - r_{kh})^3)}`, df = n - 3.
    * hotelling1940 (Hotelling 1940, eq. 7): :math:`t = (r_{jk} - r_{jh})
      \sqrt{(n-3)(1 + r_{kh})} / \sqrt{2|R|}`, df = n - 3.

    The popular Python snippets labelled "Steiger's test" compute Williams' t.

    References
    ----------
    .. [1] Steiger, J. H. (1980). Tests for comparing elements of a correlation matrix.
           Psychological Bulletin 87(2), 245-251.
    .. [2] Meng, X.-L., Rosenthal, R. & Rubin, D. B. (1992). Comparing correlated correlation
           coefficients. Psychological Bulletin 111(1), 172-175.
    .. [3] Dunn, O. J. & Clark, V. (1969). Correlation coefficients measured on the same
           individuals. JASA 64, 366-377.
    .. [4] Hittner, J. B., May, K. & Silver, N. C. (2003). A Monte Carlo evaluation of tests for
           comparing dependent correlations. J. General Psychology 130(2), 149-168.
    .. [5] Williams, E. J. (1959). The comparison of regression variables. JRSS B 21, 396-399.
    .. [6] Hotelling, H. (1940). The selection of variates for use in prediction. Annals of
           Mathematical Statistics 11, 271-283.
    .. [7] Zou, G. Y. (2007). Toward using confidence intervals to compare correlations.
           Psychological Methods 12(4), 399-413.
    .. [8] Diedenhofen, B. & Musch, J. (2015). cocor. PLoS ONE 10(4): e0121945.

    Examples
    --------
    The STSS-131 report's worked example (STASIS 0.636, LSA 0.693, STASIS-LSA 0.52, n = 64):

    >>> from sts_extras.stats.dependent import dependent_correlation_test
    >>> res = dependent_correlation_test(0.636, 0.693, 0.52, 64, method="meng1992")
    >>> round(res.statistic, 3), round(res.pvalue, 4)
    (-0.677, 0.4986)
    >>> [round(x, 3) for x in res.confidence_interval()]
    [-0.232, 0.11]
    """
    r_jk, r_jh, r_kh, n, method, alternative, confidence_level = _dependent_iv(
        r_jk, r_jh, r_kh, n, method, alternative, confidence_level
    )
    statistic = dependent_statistic(method, r_jk, r_jh, r_kh, n)
    df = float(n - 3) if method in T_METHODS else None
    return DependentCorrelationResult(
        statistic=float(statistic),
        pvalue=statistic_pvalue(statistic, alternative, df),
        r1=r_jk,
        r2=r_jh,
        r12=r_kh,
        n=n,
        method=method,
        alternative=alternative,
        df=df,
        confidence_level=confidence_level,
    )


def correlation_matrix(columns: np.ndarray, correlation: str) -> np.ndarray:
    """Pearson or Spearman (Pearson of average ranks) matrix of the rows of ``columns``.

    Each row is scaled by a power of two first (exact), so extreme magnitudes cannot overflow.
    """
    if correlation == "spearman":
        columns = stats.rankdata(columns, axis=1)
    return np.corrcoef(np.vstack([unit_scaled(row) for row in columns]))


def check_not_perfect(r_jk: float, r_jh: float, r_kh: float, correlation: str) -> None:
    """Raise ``UserInputError`` when correlations computed from data are +-1 up to rounding."""
    for value, name in (
        (r_jk, "r(references, predictions1)"),
        (r_jh, "r(references, predictions2)"),
    ):
        if abs(value) >= _PERFECT:
            raise UserInputError(
                f"{name} = {value}: a perfect correlation leaves nothing to test (Fisher's z is "
                "infinite)."
            )
    if abs(r_kh) >= _PERFECT:
        raise UserInputError(
            f"r(predictions1, predictions2) = {r_kh}: the two systems are perfectly "
            f"{'' if r_kh > 0 else 'anti-'}correlated ({correlation}), so their correlations with "
            "the references are equal up to sign and the test is undefined."
        )


def compare_dependent_correlations(
    predictions1: Any,
    predictions2: Any,
    references: Any,
    *,
    method: str = "steiger1980",
    correlation: str = "pearson",
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> DependentCorrelationResult:
    """Test whether system 1 or system 2 correlates better with the same references.

    Computes r1 = r(predictions1, references), r2 = r(predictions2, references) and
    r12 = r(predictions1, predictions2), then runs :func:`dependent_correlation_test` with
    (r_jk, r_jh, r_kh) = (r1, r2, r12) and ``n`` = number of items.

    Parameters
    ----------
    predictions1, predictions2 : array_like of float
        Scores of system 1 and system 2 for the same items.
    references : array_like of float
        Gold (human) scores of the items.
    method, alternative, confidence_level
        As in :func:`dependent_correlation_test`.
    correlation : {"pearson", "spearman"}
        Correlation coefficient. With ``"spearman"`` the tests' Fisher-z variance 1/(n - 3) is an
        approximation (the exact variance of z(rho_s) is about 1.06/(n - 3), Fieller et al. 1957).

    Returns
    -------
    DependentCorrelationResult

    Raises
    ------
    ValueError
        On length mismatch, NaN/inf, fewer than 4 items, constant input, identical (perfectly
        correlated) systems, unknown ``method``, ``correlation`` or ``alternative``.

    Examples
    --------
    >>> from sts_extras.stats.dependent import compare_dependent_correlations
    >>> gold = [0.1, 0.4, 0.35, 0.8, 0.6, 0.9, 0.2, 0.5]
    >>> sys1 = [0.2, 0.5, 0.3, 0.9, 0.5, 0.8, 0.1, 0.6]
    >>> sys2 = [0.3, 0.2, 0.6, 0.7, 0.4, 0.9, 0.5, 0.3]
    >>> res = compare_dependent_correlations(sys1, sys2, gold, method="meng1992")
    >>> round(res.r1, 3), round(res.r2, 3), round(res.r12, 3)
    (0.934, 0.662, 0.474)
    >>> round(res.statistic, 3), round(res.pvalue, 3)
    (1.612, 0.107)
    """
    p1, p2, ref = as_paired_vectors(
        4, predictions1=predictions1, predictions2=predictions2, references=references
    )
    correlation = check_choice(correlation, "correlation", CORRELATIONS)
    for array, name in ((p1, "predictions1"), (p2, "predictions2"), (ref, "references")):
        check_not_constant(array, name, what="the correlation")
    matrix = correlation_matrix(np.vstack([ref, p1, p2]), correlation)
    r_jk, r_jh, r_kh = float(matrix[0, 1]), float(matrix[0, 2]), float(matrix[1, 2])
    check_not_perfect(r_jk, r_jh, r_kh, correlation)
    result = dependent_correlation_test(
        r_jk,
        r_jh,
        r_kh,
        p1.size,
        method=method,
        alternative=alternative,
        confidence_level=confidence_level,
    )
    return dataclasses.replace(result, correlation=correlation)


# --------------------------------------------------------------------------------------------
# Independent correlations (Fisher's r-to-z)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class IndependentCorrelationResult:
    """Result of Fisher's r-to-z test for correlations from two independent samples.

    Attributes
    ----------
    statistic : float
        z, positive when ``r1 > r2``.
    pvalue : float
    r1, r2 : float
    n1, n2 : int
    alternative : str
    confidence_level : float
        Default level of :meth:`confidence_interval`.
    """

    statistic: float
    pvalue: float
    r1: float
    n1: int
    r2: float
    n2: int
    alternative: str
    confidence_level: float = 0.95

    @property
    def difference(self) -> float:
        """r1 - r2."""
        return self.r1 - self.r2

    def confidence_interval(self, confidence_level: float | None = None) -> tuple[float, float]:
        """Zou's (2007, p. 406) interval of ``r1 - r2`` for independent correlations."""
        level = self.confidence_level if confidence_level is None else confidence_level
        z_crit = _critical_z(check_open_unit_interval(level, "confidence_level"))
        l1, u1 = _fisher_interval(self.r1, self.n1, z_crit)
        l2, u2 = _fisher_interval(self.r2, self.n2, z_crit)
        return _zou_interval(self.r1, l1, u1, self.r2, l2, u2, 0.0)


def independent_correlation_test(
    r1: float,
    n1: int,
    r2: float,
    n2: int,
    *,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> IndependentCorrelationResult:
    r"""Fisher's r-to-z test of two correlations from independent samples.

    Use it to compare one system on two different datasets (e.g. LSA on STSS-65 against LSA on
    STSS-131, as the STSS-131 report suggests). For two systems on the *same* dataset use
    :func:`dependent_correlation_test`.

    Parameters
    ----------
    r1, n1 : float, int
        Correlation and sample size of sample 1 (n1 >= 4).
    r2, n2 : float, int
        Correlation and sample size of sample 2.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: rho_1 > rho_2.
    confidence_level : float, default 0.95
        Level of Zou's interval from ``result.confidence_interval()``.

    Returns
    -------
    IndependentCorrelationResult

    Notes
    -----
    :math:`z = (Z_1 - Z_2) / \sqrt{1/(n_1 - 3) + 1/(n_2 - 3)}` with
    :math:`Z = \operatorname{artanh} r` (Fisher 1925; Cohen et al. 2003, eq. 2.8.11).

    References
    ----------
    .. [1] Fisher, R. A. (1925). Statistical Methods for Research Workers. Oliver and Boyd.
    .. [2] Zou, G. Y. (2007). Psychological Methods 12(4), 399-413.

    Examples
    --------
    >>> from sts_extras.stats.dependent import independent_correlation_test
    >>> res = independent_correlation_test(0.4, 100, 0.5, 100)
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (-0.8751, 0.3815)
    """
    r1 = check_correlation(r1, "r1")
    r2 = check_correlation(r2, "r2")
    n1 = check_sample_size(n1, "n1")
    n2 = check_sample_size(n2, "n2")
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    confidence_level = check_open_unit_interval(confidence_level, "confidence_level")
    statistic = (math.atanh(r1) - math.atanh(r2)) / math.sqrt(1 / (n1 - 3) + 1 / (n2 - 3))
    return IndependentCorrelationResult(
        statistic=float(statistic),
        pvalue=statistic_pvalue(statistic, alternative),
        r1=r1,
        n1=n1,
        r2=r2,
        n2=n2,
        alternative=alternative,
        confidence_level=confidence_level,
    )


# --------------------------------------------------------------------------------------------
# One correlation against a set of correlations (e.g. human inter-rater agreement)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CorrelationGroupResult:
    """Result of :func:`correlation_vs_group_test`.

    Attributes
    ----------
    statistic : float
        t, positive when ``r`` is above the group's mean correlation.
    pvalue : float
    df : float
        Degrees of freedom (m - 1, or Welch-Satterthwaite with ``sampling_error=True``).
    r : float
        The single correlation.
    group_mean : float
        Mean correlation of the group (back-transformed mean Fisher z with ``transform="fisher"``).
    group_size : int
        Number m of correlations in the group.
    n : int
        Number of items ``r`` was computed on.
    transform, alternative : str
    sampling_error : bool
    standard_error : float
        Standard error of the difference on the test's scale (Fisher z, or r with
        ``transform="none"``).
    confidence_level : float
    """

    statistic: float
    pvalue: float
    df: float
    r: float
    group_mean: float
    group_size: int
    n: int
    transform: str
    alternative: str
    sampling_error: bool
    standard_error: float
    confidence_level: float = 0.95

    def confidence_interval(self, confidence_level: float | None = None) -> tuple[float, float]:
        """Interval of ``r - rho_group`` (t interval on the test's scale, mapped back to r)."""
        level = self.confidence_level if confidence_level is None else confidence_level
        level = check_open_unit_interval(level, "confidence_level")
        half = float(stats.t(self.df).ppf(0.5 + level / 2)) * self.standard_error
        if self.transform == "fisher":
            # Interval of the group's rho on Fisher's scale, mapped back; then r minus it.
            center = math.atanh(self.group_mean)
            low_rho, high_rho = math.tanh(center - half), math.tanh(center + half)
            return float(self.r - high_rho), float(self.r - low_rho)
        return float(self.r - self.group_mean - half), float(self.r - self.group_mean + half)


def correlation_vs_group_test(
    r: float,
    group_rs: Any,
    n: int,
    *,
    transform: str = "fisher",
    sampling_error: bool = False,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> CorrelationGroupResult:
    r"""Compare one correlation with the average of a set of correlations (one-sample t-test).

    The STSS-131 report (part B) prescribes a one-sample t-test to compare a single correlation
    with an average of correlation coefficients, e.g. a system's r against the human raters'
    individual correlations with the mean rating (inter-rater agreement), instead of picking the
    single human closest to the average.

    Parameters
    ----------
    r : float
        The system's correlation with the references, computed on ``n`` items.
    group_rs : array_like of float
        The set of correlations (at least 2, each strictly inside (-1, 1)), e.g. one per rater.
    n : int
        Number of items ``r`` was computed on (at least 4).
    transform : {"fisher", "none"}, default "fisher"
        ``"fisher"`` runs the test on Fisher's z of the correlations (correlations are bounded and
        skewed; averaging in z is the usual remedy, Silver & Dunlap 1987); ``"none"`` is the
        textbook one-sample t-test on the raw r's, as the report describes it.
    sampling_error : bool, default False
        ``False`` (the report's test): ``r`` is a fixed value, t = (r - mean) / (s / sqrt(m)),
        df = m - 1. ``True``: also count the sampling variance of ``r`` itself, 1/(n - 3) on
        Fisher's scale or (1 - r^2)^2/(n - 1) on the raw scale, treating ``r`` as independent of
        the group; df by Welch-Satterthwaite. Use it when the group is large and ``n`` small.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: ``r`` is above the group's mean correlation.
    confidence_level : float, default 0.95
        Level of ``result.confidence_interval()``, an interval of r - rho_group.

    Returns
    -------
    CorrelationGroupResult

    Notes
    -----
    With :math:`g(\cdot)` = artanh (or the identity), :math:`\bar g` and :math:`s` the mean and
    standard deviation of the group's :math:`g(r_i)`, :math:`t = (g(r) - \bar g) / \sqrt{s^2/m + v}`
    where :math:`v = 0` (default) or the sampling variance of :math:`g(r)`.

    Examples
    --------
    >>> from sts_extras.stats.dependent import correlation_vs_group_test
    >>> humans = [0.82, 0.86, 0.79, 0.88, 0.84, 0.80, 0.85, 0.83]
    >>> res = correlation_vs_group_test(0.636, humans, 64)
    >>> round(res.statistic, 2), res.df, round(res.group_mean, 3)
    (-12.76, 7.0, 0.836)
    >>> res.pvalue < 1e-5
    True
    """
    r = check_correlation(r, "r")
    group = as_float_vector(group_rs, "group_rs", min_size=2)
    bad = np.abs(group) >= 1.0
    if bad.any():
        raise UserInputError(
            f"`group_rs` must lie strictly between -1 and 1; got {group[bad][0]} at index "
            f"{int(np.flatnonzero(bad)[0])}."
        )
    check_not_constant(group, "group_rs", what="the one-sample t-test")
    n = check_sample_size(n)
    transform = check_choice(transform, "transform", _GROUP_TRANSFORMS)
    if not isinstance(sampling_error, (bool, np.bool_)):
        raise UserInputTypeError(f"`sampling_error` must be True or False, got {sampling_error!r}.")
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    confidence_level = check_open_unit_interval(confidence_level, "confidence_level")

    values = np.arctanh(group) if transform == "fisher" else group
    point = math.atanh(r) if transform == "fisher" else r
    m = values.size
    mean = float(values.mean())
    variance_of_mean = float(values.var(ddof=1)) / m
    df = float(m - 1)
    variance = variance_of_mean
    if sampling_error:
        own = 1.0 / (n - 3) if transform == "fisher" else (1 - r**2) ** 2 / (n - 1)
        variance = variance_of_mean + own
        df = variance**2 / (variance_of_mean**2 / (m - 1))  # Welch-Satterthwaite, own df = inf
    standard_error = math.sqrt(variance)
    statistic = (point - mean) / standard_error
    return CorrelationGroupResult(
        statistic=float(statistic),
        pvalue=statistic_pvalue(statistic, alternative, df),
        df=df,
        r=r,
        group_mean=math.tanh(mean) if transform == "fisher" else mean,
        group_size=m,
        n=n,
        transform=transform,
        alternative=alternative,
        sampling_error=bool(sampling_error),
        standard_error=standard_error,
        confidence_level=confidence_level,
    )
