"""Input validation shared by every public function of sts-extras.

One place for the checks of every entry point: each message names the argument, the rule and the
value received. Bad values raise :class:`~sts_extras.errors.UserInputError` (a ``ValueError``), bad
types :class:`~sts_extras.errors.UserInputTypeError` (also a ``TypeError``), so the command line
reports them as one-line user errors. Core modules call these instead of writing their own copies.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np

from sts_extras.errors import UserInputError, UserInputTypeError

__all__ = [
    "as_float_vector",
    "as_paired_vectors",
    "check_choice",
    "check_non_negative_weights",
    "check_not_constant",
    "check_open_unit_interval",
    "check_positive_int",
    "check_seed",
]


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_float_vector(values: Any, name: str, *, min_size: int = 0) -> np.ndarray:
    """Return ``values`` as a finite 1-D float64 array.

    Raises
    ------
    UserInputTypeError
        If ``values`` is a string, a mapping, or holds non-numeric items.
    UserInputError
        If it is not one-dimensional, has fewer than ``min_size`` items, or holds NaN/inf.
    """
    if isinstance(values, (str, bytes, dict)):
        raise UserInputTypeError(
            f"`{name}` must be a sequence of numbers, got {type(values).__name__}."
        )
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise UserInputTypeError(
            f"`{name}` must be a sequence of numbers; could not convert it to floats ({error})."
        ) from None
    if array.ndim != 1:
        raise UserInputError(
            f"`{name}` must be one-dimensional, got an array of shape {array.shape}."
        )
    if array.size < min_size:
        raise UserInputError(f"`{name}` needs at least {min_size} values, got {array.size}.")
    bad = ~np.isfinite(array)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise UserInputError(
            f"`{name}` must be finite; it holds {int(bad.sum())} NaN/inf value(s), the first at "
            f"index {first} ({array[first]})."
        )
    return array


def as_paired_vectors(min_size: int = 3, **named_values: Any) -> tuple[np.ndarray, ...]:
    """Validate several same-length numeric sequences (e.g. predictions and references).

    Parameters
    ----------
    min_size : int
        Minimum number of pairs.
    **named_values
        The sequences, keyed by the argument name used in error messages, in output order.

    Returns
    -------
    tuple of numpy.ndarray
        The finite float64 vectors, in the order given.
    """
    arrays = {name: as_float_vector(values, name) for name, values in named_values.items()}
    lengths = {name: array.size for name, array in arrays.items()}
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"`{name}` has {size}" for name, size in lengths.items())
        raise UserInputError(f"Inputs must have the same length: {listed}.")
    size = next(iter(lengths.values()), 0)
    if size < min_size:
        names = " and ".join(f"`{name}`" for name in arrays)
        raise UserInputError(f"{names} need at least {min_size} pairs, got {size}.")
    return tuple(arrays.values())


def check_not_constant(array: np.ndarray, name: str, *, what: str = "the statistic") -> None:
    """Raise :class:`UserInputError` when ``array`` is constant (``what`` is then undefined)."""
    if array.size and np.all(array == array[0]):
        raise UserInputError(
            f"`{name}` is constant (every value is {array[0]!r}); {what} is undefined for "
            "constant input."
        )


def check_non_negative_weights(weights: np.ndarray, name: str = "weights") -> None:
    """Raise :class:`UserInputError` unless every weight is >= 0 and at least one is > 0."""
    negative = weights < 0
    if negative.any():
        first = int(np.flatnonzero(negative)[0])
        raise UserInputError(f"`{name}` must be non-negative; {name}[{first}] = {weights[first]}.")
    if not weights.any():
        raise UserInputError(f"`{name}` must not all be zero.")


def check_choice(value: Any, name: str, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``; else raise :class:`UserInputError`."""
    options: Sequence[str] = tuple(choices)
    if not isinstance(value, str) or value not in options:
        valid = ", ".join(repr(option) for option in options)
        raise UserInputError(f"`{name}` must be one of {valid}; got {_describe(value)}.")
    return value


def check_open_unit_interval(value: Any, name: str) -> float:
    """Return ``value`` as float if 0 < value < 1 (e.g. a confidence level)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise UserInputTypeError(f"`{name}` must be a number in (0, 1), got {_describe(value)}.")
    if not 0.0 < float(value) < 1.0:
        raise UserInputError(f"`{name}` must lie strictly between 0 and 1, got {value}.")
    return float(value)


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as int if it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise UserInputTypeError(f"`{name}` must be an integer, got {_describe(value)}.")
    if value < minimum:
        raise UserInputError(f"`{name}` must be at least {minimum}, got {value}.")
    return int(value)


def check_seed(seed: Any, name: str = "seed") -> np.random.Generator:
    """Turn ``seed`` (None, int or Generator) into a ``numpy.random.Generator``."""
    if seed is None or isinstance(seed, np.random.Generator):
        return np.random.default_rng(seed)
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise UserInputTypeError(
            f"`{name}` must be None, a non-negative integer or a numpy Generator, got "
            f"{_describe(seed)}."
        )
    return np.random.default_rng(int(seed))
