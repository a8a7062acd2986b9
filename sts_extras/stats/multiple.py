"""Adjusted p-values for a family of comparisons (Holm by default), via ``statsmodels``.

``statsmodels.stats.multitest.multipletests`` does the arithmetic; this module validates the input,
names the families we offer and keeps :func:`holm_adjust`'s historical signature. ``statsmodels``
is imported on first use (it takes about two seconds to import).

References
----------
.. [1] Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
       Journal of Statistics 6(2), 65-70.
.. [2] Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. JRSS B 57(1),
       289-300.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import as_float_vector, check_choice
from sts_extras.errors import UserInputError

__all__ = ["ADJUST_METHODS", "FAMILYWISE_ADJUSTMENTS", "adjust_pvalues", "holm_adjust"]

#: ``multipletests`` methods offered for adjusting p-values, and ``"none"`` (no adjustment).
#: The two-stage FDR methods are left out: their adjusted p-values depend on ``alpha``.
ADJUST_METHODS = (
    "holm",
    "bonferroni",
    "sidak",
    "holm-sidak",
    "simes-hochberg",
    "hommel",
    "fdr_bh",
    "fdr_by",
    "none",
)
#: The adjustments whose decisions are Holm's or a subset of them (Bonferroni's), so control the
#: family-wise error wherever Holm's do: the calibration suite's family-wise rows speak for them,
#: and ``compare_models``' rank sets take their decisions as they are.
FAMILYWISE_ADJUSTMENTS = ("holm", "bonferroni")


def adjust_pvalues(pvalues: ArrayLike, method: str = "holm") -> NDArray[np.float64]:
    """Adjusted p-values of one family of comparisons.

    Parameters
    ----------
    pvalues : array_like of float
        Unadjusted p-values in [0, 1], one per comparison (1-D).
    method : str, default "holm"
        One of :data:`ADJUST_METHODS`: a method of
        ``statsmodels.stats.multitest.multipletests`` (``"holm"``: Holm's 1979 step-down,
        ``"fdr_bh"``: Benjamini & Hochberg 1995, ...) or ``"none"``.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the input order; reject H_i at level alpha when the adjusted p-value
        is <= alpha.

    Raises
    ------
    UserInputError
        If a p-value is NaN or outside [0, 1], or ``method`` is unknown.
    """
    method = check_choice(method, "method", ADJUST_METHODS)
    p = as_float_vector(pvalues, "pvalues")
    outside = (p < 0.0) | (p > 1.0)
    if outside.any():
        raise UserInputError(
            f"`pvalues` must lie in [0, 1]; got {p[outside][0]} at index "
            f"{int(np.flatnonzero(outside)[0])}."
        )
    if method == "none" or p.size == 0:
        return p.copy()
    if method == "holm":
        # by hand: statsmodels' Holm runs gc.collect() on every call (0.5 s in a process that
        # holds millions of objects, on the default path of every comparison)
        order = np.argsort(p, kind="stable")
        steps = np.arange(p.size, 0, -1) * p[order]
        adjusted = np.empty_like(p)
        adjusted[order] = np.minimum(np.maximum.accumulate(steps), 1.0)
        return adjusted
    from statsmodels.stats.multitest import multipletests

    return np.asarray(multipletests(p, method=method)[1], dtype=np.float64)


def holm_adjust(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Holm's (1979) step-down adjusted p-values.

    Parameters
    ----------
    pvalues : array_like of float
        Unadjusted p-values in [0, 1], one per comparison (1-D).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the input order: ``p_(i) * (m - i + 1)`` for the i-th smallest,
        made monotone by a running maximum and capped at 1. Reject H_i at level alpha when the
        adjusted p-value is <= alpha (Holm 1979; same as R's ``p.adjust(p, "holm")``).

    References
    ----------
    .. [1] Holm, S. (1979). A simple sequentially rejective multiple test procedure.
           Scandinavian Journal of Statistics 6(2), 65-70.

    Examples
    --------
    >>> from sts_extras.stats.dependent import holm_adjust
    >>> holm_adjust([0.01, 0.04, 0.03, 0.005]).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    return adjust_pvalues(pvalues, "holm")
