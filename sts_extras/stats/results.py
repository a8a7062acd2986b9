"""The parts every result of :mod:`sts_extras.stats` shares: the ``(low, high)`` interval.

A result of a test or an estimate carries ``statistic`` (a number), ``pvalue`` where there is a
test, and ``confidence_interval``, a :class:`ConfidenceInterval` named tuple with ``.low`` and
``.high``, as ``scipy.stats`` results do (see ``docs/api-conventions.md``). An interval at
another level comes from calling the function again with ``confidence_level=``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["ArrayConfidenceInterval", "ConfidenceInterval"]


class ConfidenceInterval(NamedTuple):
    """A confidence interval ``(low, high)``, as ``scipy.stats``' ``ConfidenceInterval``.

    Unpacks as a tuple (``low, high = result.confidence_interval``) and compares equal to the
    plain tuple ``(low, high)``.

    Attributes
    ----------
    low, high : float
        The end points (NaN where the interval is undefined; the result says why).
    """

    low: float
    high: float


class ArrayConfidenceInterval(NamedTuple):
    """Confidence intervals of several values at once (one per model), ``(low, high)`` arrays.

    The same shape as :class:`ConfidenceInterval` (``scipy.stats`` uses one type for both; a
    second one keeps the types exact on Python 3.10, where a named tuple cannot be generic).

    Attributes
    ----------
    low, high : numpy.ndarray
        The end points, one per value.
    """

    low: NDArray[np.float64]
    high: NDArray[np.float64]
