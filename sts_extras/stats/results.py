"""The parts every result of :mod:`sts_extras.stats` shares: the ``(low, high)`` interval.

A result of a test or an estimate carries ``statistic`` (a number), ``pvalue`` where there is a
test, and ``confidence_interval``, a :class:`ConfidenceInterval` named tuple with ``.low`` and
``.high``, as ``scipy.stats`` results do (see ``docs/api-conventions.md``).

In sts-extras 0.2 some results had a ``confidence_interval()`` *method*; calling the attribute
still works until sts-extras 0.4, with a ``DeprecationWarning``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from sts_extras._deprecation import warn_renamed

__all__ = ["ArrayConfidenceInterval", "ConfidenceInterval"]


def _warn_called(stacklevel: int = 4) -> None:
    warn_renamed(
        "confidence_interval()",
        "confidence_interval (an attribute: result.confidence_interval.low / .high)",
        where="result",
        stacklevel=stacklevel,
    )


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

    def __call__(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Deprecated: the interval was a method in sts-extras 0.2; it is now this attribute.

        Returns the interval itself with a ``DeprecationWarning`` (removed in sts-extras 0.4).
        Results whose interval can be computed at another level accept ``confidence_level``;
        the new spelling is to pass ``confidence_level=`` to the function that made the result.
        """
        _warn_called()
        if confidence_level is not None:
            raise TypeError(
                "This interval cannot be recomputed at another level; pass confidence_level= to "
                "the function that computed the result."
            )
        return self


class _LevelledInterval(ConfidenceInterval):
    """A :class:`ConfidenceInterval` that the deprecated call can recompute at another level.

    Only for the results whose 0.2 method took ``confidence_level`` (Zou's intervals and the
    interval of :func:`~sts_extras.stats.dependent.correlation_vs_group_test`). ``at`` is a
    module-level function of the level (picklable with its arguments), kept out of the tuple's
    values, so equality and unpacking are those of ``(low, high)``.
    """

    # No __slots__: instances get a __dict__ that holds the recomputation.
    at: Callable[[float], tuple[float, float]]

    def __new__(
        cls, low: float, high: float, at: Callable[[float], tuple[float, float]]
    ) -> _LevelledInterval:
        interval = super().__new__(cls, low, high)
        interval.at = at
        return interval

    def __getnewargs__(self) -> tuple[float, float, Callable[[float], tuple[float, float]]]:
        return (self.low, self.high, self.at)

    def __repr__(self) -> str:
        return f"ConfidenceInterval(low={self.low!r}, high={self.high!r})"

    def __call__(self, confidence_level: float | None = None) -> ConfidenceInterval:
        _warn_called()
        if confidence_level is None:
            return ConfidenceInterval(self.low, self.high)
        return ConfidenceInterval(*self.at(confidence_level))


def levelled_interval(
    at: Callable[[float], tuple[float, float]], confidence_level: float
) -> ConfidenceInterval:
    """The interval ``at(confidence_level)``, which the deprecated call can recompute."""
    low, high = at(confidence_level)
    return _LevelledInterval(low, high, at)


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
