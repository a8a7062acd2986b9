"""Input validation shared by every public function of sts-extras.

One place for the checks of every entry point: each message names the argument, the rule and the
value received. Bad values raise :class:`~sts_extras.errors.UserInputError` (a ``ValueError``), bad
types :class:`~sts_extras.errors.UserInputTypeError` (also a ``TypeError``), so the command line
reports them as one-line user errors. Core modules call these instead of writing their own copies.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.io.numbers import FLOAT_RANGE, NumberOutOfRangeError

__all__ = [
    "as_float_vector",
    "as_paired_vectors",
    "as_real_array",
    "as_sentence_list",
    "check_choice",
    "check_correlation",
    "check_count",
    "check_name",
    "check_non_negative_weights",
    "check_not_constant",
    "check_open_unit_interval",
    "check_positive_int",
    "check_real_columns",
    "check_sample_size",
    "check_seed",
    "check_work",
    "first_control_character",
    "scale_exponent",
    "short_repr",
    "unit_scaled",
]

# Python / numpy scalar types that numpy would silently turn into floats (or drop parts of).
_NOT_REAL = (bool, np.bool_, str, bytes, complex, np.complexfloating)
_KIND_NAMES = {"b": "booleans", "c": "complex numbers", "U": "strings", "S": "bytes"}


def short_repr(value: Any) -> str:
    """``repr(value)`` for a message: at most 60 characters, and never an error (an int past
    Python's 4300-digit limit of int -> str is described by its number of digits)."""
    try:
        text = repr(value)
    except ValueError:  # an int beyond Python's 4300-digit limit of int -> str
        return f"an integer of {int(value.bit_length() * math.log10(2)) + 1} digits"
    return text if len(text) <= 60 else text[:57] + "..."


_describe = short_repr


def _overflows(item: object) -> bool:
    try:
        float(item)  # type: ignore[arg-type]
    except OverflowError:
        return True
    except (TypeError, ValueError):
        return False
    return False


def _as_float(value: Real, name: str) -> float:
    """``float(value)``; an integer beyond the float range is out of range, named (never an
    ``OverflowError``)."""
    try:
        return float(value)
    except OverflowError:
        raise NumberOutOfRangeError(
            f"`{name}` is out of range (a number must lie within {FLOAT_RANGE}), got "
            f"{_describe(value)}."
        ) from None


def _refuse(name: str, what: str, example: Any) -> UserInputTypeError:
    if isinstance(example, np.generic):
        example = example.item()
    hint = {
        "booleans": "convert them explicitly (e.g. `np.asarray(x, dtype=float)`) if 0/1 is meant",
        "strings": "numeric strings are not parsed; convert them to numbers first",
        "bytes": "numeric strings are not parsed; convert them to numbers first",
        "complex numbers": "pass the real part explicitly if that is what is meant",
    }.get(what, "pass numbers")
    return UserInputTypeError(
        f"`{name}` must hold real numbers, got {what} (e.g. {_describe(example)}); {hint}."
    )


def as_real_array(values: object, name: str) -> NDArray[Any]:
    """Return ``values`` as a numpy array of real numbers (int, uint or float dtype), any shape.

    Booleans, complex numbers and strings (numeric or not) are refused rather than coerced, in
    lists, numpy arrays (object arrays too), pandas Series and array-likes alike: ``True`` is no
    score, ``"0.5"`` is a parsing mistake and a complex value would lose its imaginary part. A
    real numeric array is returned as it is (no copy); object arrays and lists become float64.

    ``values`` is typed ``object``, not ``ArrayLike``: this is the run-time check of untrusted
    input (a parsed settings value, an argument of the wrong type or in the wrong place), so
    any object is accepted here and refused with a :class:`UserInputTypeError`. The result keeps
    the input's own int, uint or float dtype, hence ``NDArray[Any]``.

    Raises
    ------
    UserInputTypeError
        If ``values`` is a string or a mapping, holds non-real items, or cannot be converted.
    """
    if isinstance(values, (str, bytes, Mapping)):
        raise UserInputTypeError(
            f"`{name}` must be a sequence of numbers, got {type(values).__name__}."
        )
    try:
        if isinstance(values, (list, tuple)):
            # An object array keeps each item's type, so True in [True, 0.5] is still seen.
            array = np.array(values, dtype=object)
        else:
            array = np.asarray(values)
    except (TypeError, ValueError) as error:
        raise UserInputTypeError(
            f"`{name}` must be a sequence of numbers; could not convert it to floats ({error})."
        ) from None
    kind = array.dtype.kind
    if kind in "iuf":
        return array
    if kind in _KIND_NAMES:
        raise _refuse(name, _KIND_NAMES[kind], array.flat[0] if array.size else array)
    if kind != "O":
        raise UserInputTypeError(
            f"`{name}` must hold real numbers, got an array of dtype {array.dtype}."
        )
    if any(issubclass(kind, _NOT_REAL) for kind in set(map(type, array.flat))):
        item = next(item for item in array.flat if isinstance(item, _NOT_REAL))
        if isinstance(item, (bool, np.bool_)):
            raise _refuse(name, "booleans", item)
        what = "strings" if isinstance(item, (str, bytes)) else "complex numbers"
        raise _refuse(name, what, item)
    try:
        return array.astype(np.float64)
    except OverflowError:  # an int beyond the float range (a 401-digit score)
        item = next(item for item in array.flat if _overflows(item))
        raise NumberOutOfRangeError(
            f"`{name}` holds a number out of range (a number must lie within {FLOAT_RANGE}): "
            f"{_describe(item)}."
        ) from None
    except (TypeError, ValueError) as error:
        raise UserInputTypeError(
            f"`{name}` must be a sequence of numbers; could not convert it to floats ({error})."
        ) from None


def as_float_vector(values: object, name: str, *, min_size: int = 0) -> NDArray[np.float64]:
    """Return ``values`` as a finite 1-D float64 array.

    Any object is accepted and checked at run time, as by :func:`as_real_array`.

    Raises
    ------
    UserInputTypeError
        If ``values`` is a string, a mapping, or holds non-numeric items, booleans, complex
        numbers or numeric strings (see :func:`as_real_array`).
    UserInputError
        If it is not one-dimensional, has fewer than ``min_size`` items, or holds NaN/inf.
    """
    array = as_real_array(values, name).astype(np.float64, copy=False)
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


def check_real_columns(**columns: ArrayLike | None) -> None:
    """Refuse non-real values in columns given to an ``evaluate`` module (``None`` is skipped).

    The modules declare float64 features, and Arrow would otherwise parse ``"0.5"`` and turn
    ``True`` into 1.0 before the statistics see them. A single value (``add(prediction=...)``)
    is checked like a one-item column.
    """
    for name, values in columns.items():
        if values is None:
            continue
        if isinstance(values, (str, bytes)) or np.ndim(values) > 0:
            as_real_array(values, name)
        else:
            as_real_array([values], name)


def as_sentence_list(sentences: Any, name: str) -> list[str]:
    """Return ``sentences`` (a sequence or iterable of strings) as a list of str.

    A single string is refused: iterating over it would score its characters as sentences.

    Raises
    ------
    UserInputTypeError
        If ``sentences`` is a string, bytes, a mapping or not iterable, or an item is no string.
    """
    if isinstance(sentences, (str, bytes)):
        raise UserInputTypeError(
            f"`{name}` must be a sequence of sentences, got a single {type(sentences).__name__} "
            f"({_describe(sentences)}); wrap it in a list."
        )
    if isinstance(sentences, Mapping) or not isinstance(sentences, Iterable):
        raise UserInputTypeError(
            f"`{name}` must be a sequence of sentences (strings), got {type(sentences).__name__}."
        )
    items = list(sentences)
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise UserInputTypeError(
                f"`{name}[{index}]` must be a string (one sentence), got {type(item).__name__}."
            )
    return items


def scale_exponent(largest: float) -> int:
    """Power of two ``e`` such that ``largest * 2**e`` lies in [0.5, 1), or 0 when not needed.

    Magnitudes in [2^-64, 2^64] are left alone (0): their products, summed over any realistic
    dimension, stay far from float64's limits. For others, ``numpy.ldexp(values, e)`` is an
    exact rescaling (see :func:`unit_scaled`).
    """
    if largest == 0.0 or not math.isfinite(largest) or 2.0**-64 <= largest <= 2.0**64:
        return 0
    return -math.frexp(largest)[1]


def unit_scaled(array: NDArray[np.float64]) -> NDArray[np.float64]:
    """``array`` times the power of two that brings its largest magnitude into [0.5, 1).

    Correlations do not depend on the scale of their inputs, but their sums of squares overflow
    from about 1e154 and underflow below 1e-154. Scaling by a power of two is exact (only values
    that end up below 1e-308 times the largest one lose digits, and they are negligible), so
    results at ordinary scales are unchanged to the last bit and ties and ranks are kept.
    """
    largest = float(np.max(np.abs(array))) if array.size else 0.0
    if largest == 0.0 or not math.isfinite(largest):
        return array
    return np.ldexp(array, -math.frexp(largest)[1])


def as_paired_vectors(min_size: int = 3, **named_values: object) -> tuple[NDArray[np.float64], ...]:
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


def check_not_constant(
    array: NDArray[np.float64], name: str, *, what: str = "the statistic"
) -> None:
    """Raise :class:`UserInputError` when ``array`` is constant (``what`` is then undefined)."""
    if array.size and np.all(array == array[0]):
        raise UserInputError(
            f"`{name}` is constant (every value is {array[0]!r}); {what} is undefined for "
            "constant input."
        )


def check_non_negative_weights(weights: NDArray[np.float64], name: str = "weights") -> None:
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
    number = _as_float(value, name)
    if not 0.0 < number < 1.0:
        raise UserInputError(f"`{name}` must lie strictly between 0 and 1, got {_describe(value)}.")
    return number


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as int if it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise UserInputTypeError(f"`{name}` must be an integer, got {_describe(value)}.")
    if value < minimum:
        raise UserInputError(f"`{name}` must be at least {minimum}, got {_describe(value)}.")
    return int(value)


def check_count(value: Any, name: str, ceiling: int, *, minimum: int = 1, why: str = "") -> int:
    """Return ``value`` as int if ``minimum <= value <= ceiling``; checked before any work.

    ``ceiling`` is one of the named ceilings of :mod:`sts_extras.limits`; the message names the
    argument, the ceiling and ``why`` (what the ceiling bounds), so a user who asked for
    10^12 resamples learns at once what the most is rather than waiting until the run is killed.

    Raises
    ------
    UserInputTypeError
        If ``value`` is not an integer (booleans included).
    UserInputError
        If it lies below ``minimum`` or above ``ceiling``.
    """
    count = check_positive_int(value, name, minimum=minimum)
    if count > ceiling:
        reason = f" ({why})" if why else ""
        raise UserInputError(f"`{name}` must be at most {ceiling}{reason}, got {_describe(count)}.")
    return count


def check_work(
    counts: Mapping[str, int], ceiling: int, *, what: str, name: str | None = None
) -> None:
    """Refuse a product of counts (``n_resamples * n``) above ``ceiling``, before any work.

    ``counts`` maps each argument's name to its (already checked) value; ``what`` says what
    their product counts and bounds. ``name``, if given, is the argument the advice names.
    """
    total = math.prod(counts.values())
    if total > ceiling:
        listed = " x ".join(f"`{key}` {value}" for key, value in counts.items())
        if len(counts) > 1:
            listed += f" = {total}"
        lower = f"lower `{name}`" if name else "lower one of them"
        raise UserInputError(
            f"{listed} {what}; at most {ceiling} are allowed (a run of minutes and "
            f"GBs, see sts_extras.limits): {lower}."
        )


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


def check_correlation(value: Any, name: str) -> float:
    """A correlation coefficient strictly inside (-1, 1) (Fisher's z of +-1 is infinite)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise UserInputTypeError(f"`{name}` must be a real number in (-1, 1), got {value!r}.")
    number = _as_float(value, name)
    if not math.isfinite(number) or not -1.0 < number < 1.0:
        raise UserInputError(
            f"`{name}` must lie strictly between -1 and 1 (Fisher's z and the tests' variances "
            f"are undefined at |r| = 1), got {number}."
        )
    return number


#: Largest sample size of the analytic formulas: 2**53, the largest integer a float holds
#: exactly (every formula computes with ``n - 3`` as a float).
MAX_SAMPLE_SIZE = 2**53


def check_sample_size(value: Any, name: str = "n") -> int:
    """Sample size as int, at least 4 (every test of correlations divides by n - 3) and at most
    :data:`MAX_SAMPLE_SIZE` (a larger one is refused, never an ``OverflowError``)."""
    if isinstance(value, bool) or not isinstance(value, (Integral, Real)):
        raise UserInputTypeError(f"`{name}` must be an integer, got {value!r}.")
    if (
        isinstance(value, Real)
        and not isinstance(value, Integral)
        and not float(value).is_integer()
    ):
        raise UserInputTypeError(f"`{name}` must be an integer, got {value!r}.")
    size = int(value) if isinstance(value, Integral) else int(float(value))
    if size < 4:
        raise UserInputError(
            f"`{name}` must be at least 4 (the tests divide by n - 3), got {size}."
        )
    if size > MAX_SAMPLE_SIZE:
        raise UserInputError(
            f"`{name}` must be at most 2**53 = {MAX_SAMPLE_SIZE} (the largest whole number a "
            f"float holds exactly), got {_describe(size)}."
        )
    return size


#: Most characters of a name (a display name, a task name): as the run records store it.
MAX_NAME_LENGTH = 1000


def first_control_character(text: str) -> str | None:
    """The first character of ``text`` that a name may not hold (Unicode category Cc: C0, DEL
    and C1 controls; the line and paragraph separators U+2028, U+2029; a lone surrogate, which
    is how Python spells a file-name byte that is not UTF-8), or ``None``."""
    return next(
        (char for char in text if unicodedata.category(char) in ("Cc", "Zl", "Zp", "Cs")), None
    )


def check_name(value: object, what: str, *, max_length: int = MAX_NAME_LENGTH) -> str:
    """``value`` if it is a name sts-extras can show and store; else a one-line
    :class:`UserInputError` naming ``what`` (the option and the value given).

    A name (a model's display name, a ``--model``/``--vectors`` spec, a task name) is a
    non-empty string of at most ``max_length`` characters without control characters: no
    character of Unicode category Cc (C0 controls such as NUL, tab, newline and ESC, DEL, C1
    controls), no line or paragraph separator (U+2028, U+2029) and no byte that is not UTF-8
    (a file name Python read as a lone surrogate, U+DC80-U+DCFF). Such a name is refused, not
    cleaned: a cleaned name would differ from the file or model the user meant, and could
    collide with another. The run records (:mod:`sts_extras.leaderboard.run.records`) refuse
    the same characters, so a name that passes here is never refused after the models have run.
    """
    if not isinstance(value, str):
        raise UserInputTypeError(f"{what}: expected a name (a string), got {_describe(value)}.")
    if not value.strip():
        raise UserInputError(f"{what}: the name is empty.")
    bad = first_control_character(value)
    if bad is not None:
        kind = (
            "a byte that is not UTF-8"
            if unicodedata.category(bad) == "Cs"
            else f"the control character U+{ord(bad):04X}"
        )
        raise UserInputError(
            f"{what}: the name holds {kind} at position {value.index(bad) + 1}; names are "
            "shown in reports and stored in records, so rename it without control characters."
        )
    if len(value) > max_length:
        raise UserInputError(
            f"{what}: the name has {len(value)} characters; at most {max_length} are allowed."
        )
    return value
