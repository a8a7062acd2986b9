"""Significance tests for comparing correlations: is system A really better than system B?

Two STS systems scored against the same human ratings give two *dependent* correlations that share
one variable (the ratings). This module implements the classical tests for that case, in the
vocabulary of ``docs/api-conventions.md``:

* ``r1`` = r(references, predictions1),
* ``r2`` = r(references, predictions2),
* ``r12`` = r(predictions1, predictions2),

and a positive statistic means that system 1 correlates better with the references. (R's
``cocor`` (Diedenhofen & Musch, 2015) [1]_ writes them r_jk, r_jh and r_kh, with ``j`` the shared
variable; the formulas in the docstrings keep that notation.)

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

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from sts_extras._validation import (
    as_float_vector,
    as_paired_vectors,
    check_choice,
    check_correlation,
    check_not_constant,
    check_open_unit_interval,
    check_sample_size,
    check_seed,
)
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.stats._common import (
    check_correlation_matrix,
    check_not_perfect,
    correlation_matrix,
    fisher_limits,
    fisher_z_variance,
    mover_difference_limits,
    overlap_correlation,
    overlap_covariance,
    statistic_pvalue,
)
from sts_extras.stats.bootstrap import (
    BOOTSTRAP_METHODS,
    check_resample_count,
    paired_difference,
    resolve_method,
)
from sts_extras.stats.calibration import (
    MeasuredLevel,
    measured_for_data,
    warn_if_uncalibrated,
)
from sts_extras.stats.intervals import STUDENTISED_METHODS
from sts_extras.stats.multiple import holm_adjust
from sts_extras.stats.results import ConfidenceInterval

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
# check_correlation, check_sample_size (sts_extras._validation) and check_correlation_matrix,
# check_not_perfect, correlation_matrix, statistic_pvalue (sts_extras.stats._common) are shared
# with power.py and model_comparison.py; imported above, they stay importable from here.


# --------------------------------------------------------------------------------------------
# Intervals (Zou 2007)
# --------------------------------------------------------------------------------------------
def _fisher_interval(
    r: float, n: int, level: float, correlation: str = "pearson"
) -> tuple[float, float]:
    """Fisher-z confidence limits (l, u) of one correlation (Zou 2007, p. 406), as floats."""
    low, high = fisher_limits(r, n, level, correlation)
    return float(low), float(high)


def _zou_interval(
    r1: float, l1: float, u1: float, r2: float, l2: float, u2: float, c: float
) -> tuple[float, float]:
    """Zou's (2007) MOVER interval of r1 - r2 from the single-correlation limits (p. 409)."""
    low, high = mover_difference_limits(r1, l1, u1, r2, l2, u2, c)
    return float(low), float(high)


def zou_dependent_interval(
    r1: float,
    r2: float,
    r12: float,
    n: int,
    confidence_level: float,
    correlation: str = "pearson",
) -> tuple[float, float]:
    """Zou's (2007) interval of ``r1 - r2`` for two overlapping dependent correlations.

    Two-sided at ``confidence_level``, whatever the test's alternative. Each correlation's own
    limits are :func:`~sts_extras.stats._common.fisher_limits` (Fisher-z variance 1/(n - 3) for
    ``correlation="pearson"``, Bonett & Wright 2000 for ``"spearman"``). Zou, G. Y. (2007).
    Toward using confidence intervals to compare correlations. Psychological Methods 12(4),
    399-413, p. 409.
    """
    level = check_open_unit_interval(confidence_level, "confidence_level")
    l1, u1 = _fisher_interval(r1, n, level, correlation)
    l2, u2 = _fisher_interval(r2, n, level, correlation)
    # Correlation between r1 and r2 (Zou 2007, p. 409; r_jk, r_jh, r_kh there).
    c = float(overlap_correlation(r1, r2, r12))
    return _zou_interval(r1, l1, u1, r2, l2, u2, c)


def zou_independent_interval(
    r1: float, n1: int, r2: float, n2: int, confidence_level: float
) -> tuple[float, float]:
    """Zou's (2007, p. 406) interval of ``r1 - r2`` for correlations of independent samples."""
    level = check_open_unit_interval(confidence_level, "confidence_level")
    l1, u1 = _fisher_interval(r1, n1, level)
    l2, u2 = _fisher_interval(r2, n2, level)
    return _zou_interval(r1, l1, u1, r2, l2, u2, 0.0)


# --------------------------------------------------------------------------------------------
# Dependent, overlapping correlations
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DependentCorrelationResult:
    """Result of a test of two dependent correlations sharing one variable.

    Attributes
    ----------
    statistic : float
        The test statistic: z (or t for ``williams1959``, ``hotelling1940``,
        ``hendrickson1970``); positive when ``r1 > r2`` (system 1 correlates better with the
        references).
    pvalue : float
        p-value for ``alternative``.
    confidence_interval : ConfidenceInterval
        Zou's (2007) interval ``(low, high)`` of ``r1 - r2`` at ``confidence_level``
        (two-sided, whatever ``alternative`` is).
    r1, r2, r12 : float
        r1 = r(references, predictions1), r2 = r(references, predictions2) and
        r12 = r(predictions1, predictions2) (cocor's r_jk, r_jh, r_kh).
    n : int
        Number of items.
    method, alternative : str
        The test and the alternative hypothesis (``"greater"``: r1 > r2).
    df : float or None
        Degrees of freedom (n - 3) for the t tests, ``None`` for z tests.
    confidence_level : float
        Level of ``confidence_interval``.
    correlation : str or None
        ``"pearson"``/``"spearman"`` when computed from data, ``None`` when r's were given.
    calibration : MeasuredLevel or None
        From data (:func:`compare_dependent_correlations`): what the calibration suite measured
        for ``method`` at the grid n nearest to ``n`` (``docs/calibration.md``).
    n_resamples : int or None
        Bootstrap resamples drawn (with a defined difference) for a resampling ``method``;
        ``None`` for the closed-form tests.
    """

    statistic: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    r1: float
    r2: float
    r12: float
    n: int
    method: str
    alternative: str
    df: float | None = None
    confidence_level: float = 0.95
    correlation: str | None = None
    calibration: MeasuredLevel | None = None
    n_resamples: int | None = None

    @property
    def difference(self) -> float:
        """r1 - r2."""
        return self.r1 - self.r2


def _dependent_iv(
    r1: object,
    r2: object,
    r12: object,
    n: object,
    method: object,
    alternative: object,
    confidence_level: object,
) -> tuple[float, float, float, int, str, str, float]:
    values = (
        check_correlation(r1, "r1"),
        check_correlation(r2, "r2"),
        check_correlation(r12, "r12"),
    )
    size = check_sample_size(n)
    method = check_choice(method, "method", DEPENDENT_METHODS)
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    level = check_open_unit_interval(confidence_level, "confidence_level")
    check_correlation_matrix(*values)
    return (*values, size, method, alternative, level)


def dependent_statistic(method: str, r1: float, r2: float, r12: float, n: int) -> float:
    """Test statistic of ``method`` for valid inputs (see :func:`dependent_correlation_test`).

    Formulas as in cocor's documentation [1] and the papers. Each branch gives the difference (of
    r's or of Fisher z's) and the variance it is divided by. Raises ``UserInputError`` where the
    method's variance is undefined.
    """
    det = max(0.0, 1 + 2 * r1 * r2 * r12 - r1**2 - r2**2 - r12**2)
    z_diff = math.atanh(r1) - math.atanh(r2)
    if method in ("dunn1969", "steiger1980", "hittner2003"):
        if method == "dunn1969":
            # Dunn & Clark (1969), eq. 15 with the covariance of eq. 8.
            c = float(overlap_correlation(r1, r2, r12))
        else:
            # Steiger (1980), eq. 14 with eq. 10 at the pooled r; Hittner, May & Silver (2003)
            # pool as tanh of the mean Fisher z (Silver & Dunlap 1987, eq. 4).
            if method == "steiger1980":
                rp = (r1 + r2) / 2
            else:
                rp = math.tanh((math.atanh(r1) + math.atanh(r2)) / 2)
            c = float(overlap_correlation(rp, rp, r12))
        difference, variance = z_diff, (2 - 2 * c) / (n - 3)
    elif method == "meng1992":
        # Meng, Rosenthal & Rubin (1992), eqs. 1-3; f is capped at 1.
        mean_square = (r1**2 + r2**2) / 2
        f = min(1.0, (1 - r12) / (2 * (1 - mean_square)))
        h = (1 - f * mean_square) / (1 - mean_square)
        difference, variance = z_diff, 2 * (1 - r12) * h / (n - 3)
    elif method == "williams1959":
        # Williams (1959) as in Steiger (1980), eq. 7 ("standard Williams' t", Hittner et al. 2003).
        r_mean = (r1 + r2) / 2
        denominator = 2 * ((n - 1) / (n - 3)) * det + r_mean**2 * (1 - r12) ** 3
        difference, variance = r1 - r2, denominator / ((n - 1) * (1 + r12))
    elif method in ("hotelling1940", "hendrickson1970"):
        # Hotelling (1940), p. 278, eq. 7; Hendrickson, Stanley & Hills (1970), p. 193.
        extra = 0.0
        if method == "hendrickson1970":
            extra = (r1 - r2) ** 2 * (1 - r12) ** 3 / (4 * (n - 1))
        if det <= 0.0 and extra <= 0.0:
            raise UserInputError(
                f"method={method!r} is undefined for a singular correlation matrix (determinant "
                f"{det:.3g}); use another method."
            )
        difference, variance = r1 - r2, (2 * det + extra) / ((n - 3) * (1 + r12))
    else:
        # pearson1898: Pearson & Filon (1898); Steiger (1980), eqs. 3-4. olkin1967: Olkin (1967)
        # as corrected by Hendrickson & Collins (1970) (Glass & Stanley 1970, 14.19), whose
        # variance expands to the same psi_11 + psi_22 - 2 psi_12.
        psi_11, psi_22 = overlap_covariance(r1, r1, 1.0), overlap_covariance(r2, r2, 1.0)
        psi_12 = overlap_covariance(r1, r2, r12)
        difference, variance = r1 - r2, (psi_11 + psi_22 - 2 * psi_12) / n
    if not variance > 0.0:
        raise UserInputError(
            f"method={method!r} is undefined here: the estimated variance of the difference is "
            f"{variance:.3g} for (r1, r2, r12) = ({r1}, {r2}, {r12}), n = {n} (the "
            "two systems are (almost) perfectly correlated)."
        )
    return difference / math.sqrt(variance)


def dependent_correlation_test(
    r1: float,
    r2: float,
    r12: float,
    n: int,
    *,
    method: str = "steiger1980",
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> DependentCorrelationResult:
    r"""Test whether two correlations sharing the references differ (H0: rho1 = rho2).

    Parameters
    ----------
    r1 : float
        Correlation of the references with system 1 (cocor's r_jk: ``j`` the shared variable,
        ``k`` system 1).
    r2 : float
        Correlation of the references with system 2 (cocor's r_jh).
    r12 : float
        Correlation of the two systems with each other (cocor's r_kh).
    n : int
        Number of items the correlations were computed on (at least 4).
    method : str, default "steiger1980"
        One of :data:`DEPENDENT_METHODS`. ``"steiger1980"`` is Steiger's (1980) z with the pooled
        r-bar, as in R's ``cocor``; ``"meng1992"`` is Meng, Rosenthal & Rubin's (1992) z, which
        reproduces the numbers printed in the STSS-131 report; ``"williams1959"``,
        ``"hotelling1940"`` and ``"hendrickson1970"`` are t tests with n - 3 degrees of freedom.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: rho1 > rho2 (system 1 better).
    confidence_level : float, default 0.95
        Level of Zou's (2007) interval of r1 - r2, ``result.confidence_interval``.

    Returns
    -------
    DependentCorrelationResult
        ``statistic`` (z or t), ``pvalue``, ``confidence_interval`` (``.low``, ``.high``),
        ``r1``, ``r2``, ``r12``, ``n``, ...

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

    **Measured calibration** (``docs/calibration.md``; 2,000 simulated data sets per cell, worst
    of two settings, alpha = 0.05): all these tests assume normal data. Steiger's z at n = 50:
    type-I error 4.5 % on normal data, 5.0 % on STS-like bounded, tied data and 4.7 % on real
    STS Benchmark samples, but 22 % under heteroscedastic errors, 16 % under t(3) errors and
    10 % on skewed data (at n = 250: 23 %, 27 % and 10 %); Meng's and Williams' are within half
    a point of it. :func:`compare_dependent_correlations` attaches these numbers to its result
    (``calibration``) and warns; its default, ``method="auto"``, is calibrated.

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
    >>> [round(x, 3) for x in res.confidence_interval]
    [-0.232, 0.11]
    """
    r1, r2, r12, n, method, alternative, confidence_level = _dependent_iv(
        r1, r2, r12, n, method, alternative, confidence_level
    )
    statistic = dependent_statistic(method, r1, r2, r12, n)
    df = float(n - 3) if method in T_METHODS else None
    return DependentCorrelationResult(
        statistic=float(statistic),
        pvalue=statistic_pvalue(statistic, alternative, df),
        confidence_interval=ConfidenceInterval(
            *zou_dependent_interval(r1, r2, r12, n, confidence_level)
        ),
        r1=r1,
        r2=r2,
        r12=r12,
        n=n,
        method=method,
        alternative=alternative,
        df=df,
        confidence_level=confidence_level,
    )


def compare_dependent_correlations(
    predictions1: ArrayLike,
    predictions2: ArrayLike,
    references: ArrayLike,
    *,
    method: str = "auto",
    correlation: str = "pearson",
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
    n_resamples: int = 10000,
    seed: int | np.random.Generator | None = 0,
) -> DependentCorrelationResult:
    """Test whether system 1 or system 2 correlates better with the same references.

    Computes r1 = r(predictions1, references), r2 = r(predictions2, references) and
    r12 = r(predictions1, predictions2), then either resamples the items (the default and the
    interval methods of :mod:`sts_extras.stats.intervals`) or runs the closed-form
    :func:`dependent_correlation_test` with these ``r1, r2, r12`` and ``n``.

    The default, ``method="auto"``, is the method the repository's calibration suite measured
    best at this n (``docs/calibration.md``); ``result.method`` names it, ``result.calibration``
    gives its measured type-I error and coverage. Its p-value and interval are one decision:
    ``pvalue < 1 - confidence_level`` exactly when 0 lies outside ``confidence_interval``. The
    seed tests keep their names and reproduce R's ``cocor`` to the digit, but assume normal data:
    the suite measured Steiger's, Meng's and Williams' tests at about 23 % type-I error (for a
    nominal 5 %) under heteroscedastic errors at n = 50 (``result.calibration`` has the numbers;
    an :class:`~sts_extras.stats.calibration.UncalibratedWarning` says so).

    Parameters
    ----------
    predictions1, predictions2 : array_like of float
        Scores of system 1 and system 2 for the same items.
    references : array_like of float
        Gold (human) scores of the items.
    method : str, default "auto"
        ``"auto"``, an interval method of
        :data:`~sts_extras.stats.intervals.DIFFERENCE_METHODS` (``"adjusted-percentile"``,
        ``"jackknife-t"``, ``"percentile"``, ``"BCa"``), or a closed-form test of
        :data:`DEPENDENT_METHODS` (``"steiger1980"``, ``"meng1992"``, ...; their interval is
        Zou's).
    correlation : {"pearson", "spearman"}
        Correlation coefficient. With ``"spearman"`` the closed-form tests' Fisher-z variance
        1/(n - 3) is an approximation (the exact variance of z(rho_s) is about 1.06/(n - 3),
        Fieller et al. 1957); their Zou interval takes each rho_s's limits with Bonett & Wright's
        (2000) variance (1 + r^2/2)/(n - 3), as every Fisher-z interval of the package does.
    alternative : {"two-sided", "greater", "less"}
        For the closed-form tests; the resampling methods are two-sided (other values raise).
    confidence_level : float, default 0.95
    n_resamples : int, default 10000
        Bootstrap resamples of the resampling methods (ignored by the closed-form tests).
    seed : None, int or numpy.random.Generator, default 0
        Seed of the resamples: the same seed gives the same result.

    Returns
    -------
    DependentCorrelationResult
        ``statistic`` (z or t of a closed-form test; r1 - r2 for a bootstrap method; t for
        ``"jackknife-t"``), ``pvalue``, ``confidence_interval``, ``method``, ``calibration``, ...

    Raises
    ------
    ValueError
        On length mismatch, NaN/inf, fewer than 4 items, constant input, identical (perfectly
        correlated) systems, unknown ``method``, ``correlation`` or ``alternative``.

    Warns
    -----
    UncalibratedWarning
        The method's measured type-I error or coverage at this n is outside the calibrated band.

    Examples
    --------
    >>> from sts_extras.stats.dependent import compare_dependent_correlations
    >>> gold = [0.1, 0.4, 0.35, 0.8, 0.6, 0.9, 0.2, 0.5]
    >>> sys1 = [0.2, 0.5, 0.3, 0.9, 0.5, 0.8, 0.1, 0.6]
    >>> sys2 = [0.3, 0.2, 0.6, 0.7, 0.4, 0.9, 0.5, 0.3]
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # n = 8: far below the calibrated range
    ...     res = compare_dependent_correlations(sys1, sys2, gold, method="meng1992")
    >>> round(res.r1, 3), round(res.r2, 3), round(res.r12, 3)
    (0.934, 0.662, 0.474)
    >>> round(res.statistic, 3), round(res.pvalue, 3)
    (1.612, 0.107)
    """
    p1, p2, ref = as_paired_vectors(
        4, predictions1=predictions1, predictions2=predictions2, references=references
    )
    correlation = check_choice(correlation, "correlation", CORRELATIONS)
    method = check_choice(method, "method", (*BOOTSTRAP_METHODS, *DEPENDENT_METHODS))
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    level = check_open_unit_interval(confidence_level, "confidence_level")
    for array, name in ((p1, "predictions1"), (p2, "predictions2"), (ref, "references")):
        check_not_constant(array, name, what="the correlation")
    matrix = correlation_matrix(np.vstack([ref, p1, p2]), correlation)
    r1, r2, r12 = float(matrix[0, 1]), float(matrix[0, 2]), float(matrix[1, 2])
    check_not_perfect(r1, r2, r12, correlation)
    n = p1.size
    if method in DEPENDENT_METHODS:
        result = dependent_correlation_test(
            r1, r2, r12, n, method=method, alternative=alternative, confidence_level=level
        )
        measured = measured_for_data(method, correlation, ref, level)
        warn_if_uncalibrated(measured, method, n, stacklevel=2)
        interval = zou_dependent_interval(r1, r2, r12, n, level, correlation)
        return dataclasses.replace(
            result,
            confidence_interval=ConfidenceInterval(*interval),
            correlation=correlation,
            calibration=measured,
        )
    if alternative != "two-sided":
        raise UserInputError(
            f"method={method!r} gives two-sided intervals and p-values; for "
            f"alternative={alternative!r} read the side of the interval, or use a closed-form "
            "test of DEPENDENT_METHODS."
        )
    resamples = check_resample_count(n_resamples, n)
    rng = check_seed(seed)
    chosen, measured = resolve_method(
        method, correlation, n, ref, stacklevel=2, confidence_level=level
    )
    found = paired_difference(
        p1,
        p2,
        ref,
        correlation=correlation,
        method=chosen,
        n_resamples=resamples,
        confidence_level=level,
        rng=rng,
    )
    return DependentCorrelationResult(
        statistic=found.statistic,
        pvalue=found.pvalue,
        confidence_interval=ConfidenceInterval(found.low, found.high),
        r1=r1,
        r2=r2,
        r12=r12,
        n=n,
        method=chosen,
        alternative=alternative,
        df=float(n - STUDENTISED_METHODS[chosen]) if chosen in STUDENTISED_METHODS else None,
        confidence_level=level,
        correlation=correlation,
        calibration=measured,
        n_resamples=int(found.deltas.size),
    )


# --------------------------------------------------------------------------------------------
# Independent correlations (Fisher's r-to-z)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class IndependentCorrelationResult:
    """Result of Fisher's r-to-z test for correlations from two independent samples.

    Attributes
    ----------
    statistic : float
        The test statistic z, positive when ``r1 > r2``.
    pvalue : float
    confidence_interval : ConfidenceInterval
        Zou's (2007, p. 406) interval ``(low, high)`` of ``r1 - r2`` at ``confidence_level``.
    r1, r2 : float
    n1, n2 : int
    alternative : str
    confidence_level : float
        Level of ``confidence_interval``.
    """

    statistic: float
    pvalue: float
    confidence_interval: ConfidenceInterval
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
        Level of Zou's interval of r1 - r2, ``result.confidence_interval``.

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
    statistic = (math.atanh(r1) - math.atanh(r2)) / math.sqrt(
        float(fisher_z_variance(r1, n1) + fisher_z_variance(r2, n2))
    )
    return IndependentCorrelationResult(
        statistic=float(statistic),
        pvalue=statistic_pvalue(statistic, alternative),
        confidence_interval=ConfidenceInterval(
            *zou_independent_interval(r1, n1, r2, n2, confidence_level)
        ),
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
        The test statistic t, positive when ``r`` is above the group's mean correlation.
    pvalue : float
    confidence_interval : ConfidenceInterval
        Interval ``(low, high)`` of ``r - rho_group`` at ``confidence_level`` (a t interval on
        the test's scale, mapped back to r).
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
    confidence_interval: ConfidenceInterval
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


def group_difference_interval(
    r: float,
    group_mean: float,
    df: float,
    standard_error: float,
    transform: str,
    confidence_level: float,
) -> tuple[float, float]:
    """Interval of ``r - rho_group`` of :func:`correlation_vs_group_test` at a level.

    A t interval (``df``, ``standard_error``) on the test's scale, mapped back to r.
    """
    level = check_open_unit_interval(confidence_level, "confidence_level")
    half = float(stats.t(df).ppf(0.5 + level / 2)) * standard_error
    if transform == "fisher":
        # Interval of the group's rho on Fisher's scale, mapped back; then r minus it.
        center = math.atanh(group_mean)
        low_rho, high_rho = math.tanh(center - half), math.tanh(center + half)
        return float(r - high_rho), float(r - low_rho)
    return float(r - group_mean - half), float(r - group_mean + half)


def correlation_vs_group_test(
    r: float,
    group_rs: ArrayLike,
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
        Level of ``result.confidence_interval``, an interval of r - rho_group.

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
        own = float(fisher_z_variance(r, n)) if transform == "fisher" else (1 - r**2) ** 2 / (n - 1)
        variance = variance_of_mean + own
        df = variance**2 / (variance_of_mean**2 / (m - 1))  # Welch-Satterthwaite, own df = inf
    standard_error = math.sqrt(variance)
    statistic = (point - mean) / standard_error
    group_mean = math.tanh(mean) if transform == "fisher" else mean
    interval = group_difference_interval(
        r, group_mean, df, standard_error, transform, confidence_level
    )
    return CorrelationGroupResult(
        statistic=float(statistic),
        pvalue=statistic_pvalue(statistic, alternative, df),
        confidence_interval=ConfidenceInterval(*interval),
        df=df,
        r=r,
        group_mean=group_mean,
        group_size=m,
        n=n,
        transform=transform,
        alternative=alternative,
        sampling_error=bool(sampling_error),
        standard_error=standard_error,
        confidence_level=confidence_level,
    )
