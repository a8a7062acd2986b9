"""One strict number parser for every table and record sts-extras reads.

``float()`` accepts ``"1_000"``, ``" inf "``, ``"nan"`` and ``"0x1p3"``-like spellings through
other routes, and ``json`` turns ``true`` into a value that ``float()`` reads as 1. A score is a
plain decimal number: :func:`parse_number` accepts exactly ``[+-]digits[.digits][e[+-]digits]``
(and ``.5``, ``5.``), nothing else; :func:`json_number` accepts a JSON int or float, never a
boolean or a string.

A number written correctly but too large for a 64-bit float (beyond about ±1.8e308: ``1e309``, a
401-digit integer) is not "not a number": every reader refuses it as out of range with
:class:`NumberOutOfRangeError`, naming what (file, row, column) the caller passed as ``what``.
This module is the one place that says so; the readers of tables, records, vote exports,
similarity files and vector files all call it.
"""

from __future__ import annotations

import math
import re
from numbers import Integral, Real

from sts_extras.errors import UserInputError, UserInputTypeError

__all__ = [
    "FLOAT_RANGE",
    "NumberOutOfRangeError",
    "json_count",
    "json_number",
    "parse_integer",
    "parse_number",
]

#: The largest finite magnitude of a 64-bit float, as the messages show it.
FLOAT_RANGE = "±1.8e308"


class NumberOutOfRangeError(UserInputError):
    """A number written correctly but beyond the range of a 64-bit float (±1.8e308)."""


def _shown(value: object) -> str:
    """``value`` for a message: a long spelling is cut, with its length (a 401-digit integer)."""
    try:
        text = value if isinstance(value, str) else str(value)
    except ValueError:  # an int beyond Python's 4300-digit limit of int -> str
        return "an integer of more than 4300 digits"
    if len(text) <= 40:
        return repr(text) if isinstance(value, str) else text
    if isinstance(value, str):
        return f"{text[:20]!r}... ({len(text)} characters)"
    return f"{text[:20]}... ({len(text.lstrip('-'))} digits)"


def _out_of_range(what: str, value: object) -> NumberOutOfRangeError:
    # a float infinity here was a JSON number that overflowed when parsed (JSON has no inf)
    shown = "a number that overflows to infinity" if isinstance(value, float) else _shown(value)
    return NumberOutOfRangeError(
        f"{what}: {shown} is out of range (a number must lie within {FLOAT_RANGE}, "
        "the range of a 64-bit float)."
    )


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def parse_number(text: object, what: str) -> float:
    """The finite number written in ``text``; :class:`UserInputError` naming ``what`` otherwise.

    Only plain decimal notation (surrounding spaces allowed): no ``_`` separators, no hex, no
    ``inf``/``nan``, no booleans, no thousands commas, no full-width digits. A plain decimal
    beyond the float range (``1e309``) raises :class:`NumberOutOfRangeError`.
    """
    if isinstance(text, bool) or not isinstance(text, str):
        raise UserInputTypeError(f"{what}: expected a number written as text, got {text!r}.")
    stripped = text.strip(" \t")
    if _DECIMAL.fullmatch(stripped) is None:
        raise UserInputError(
            f"{what}: {text!r} is not a number (write plain decimals, e.g. 0.5, -3 or 1e-3)."
        )
    value = float(stripped)  # a plain decimal: float() overflows to inf, never raises
    if not math.isfinite(value):
        raise _out_of_range(what, stripped)
    return value


_INTEGER = re.compile(r"[+-]?[0-9]+")


def parse_integer(text: object, what: str) -> int:
    """The whole number written in ``text`` (``[+-]digits``, surrounding spaces allowed);
    :class:`UserInputError` naming ``what`` otherwise.

    ``int()`` also takes ``"1_000"``, full-width and Arabic-Indic digits; these are refused, as
    :func:`parse_number` refuses them.
    """
    if isinstance(text, bool) or not isinstance(text, str):
        raise UserInputTypeError(f"{what}: expected a whole number written as text, got {text!r}.")
    stripped = text.strip(" \t")
    if _INTEGER.fullmatch(stripped) is None:
        raise UserInputError(
            f"{what}: {_shown(text)} is not a whole number (write plain digits, e.g. 10 or -3)."
        )
    if len(stripped.lstrip("+-")) > 4000:  # int() refuses more than 4300 digits
        raise UserInputError(f"{what}: {_shown(stripped)} is out of range (at most 4000 digits).")
    return int(stripped)


def json_number(value: object, what: str) -> float:
    """A JSON number as a finite float; booleans, strings and ``NaN``/``Infinity`` are refused.

    An integer too large for a float (a 401-digit score) and a float that overflowed while the
    JSON was parsed (``1e309`` is read as ``inf``) raise :class:`NumberOutOfRangeError`.
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise UserInputTypeError(f"{what}: expected a number, got {_shown(value)}.")
    try:
        number = float(value)
    except OverflowError:  # an int beyond the float range
        raise _out_of_range(what, value) from None
    if math.isnan(number):
        raise UserInputError(f"{what}: expected a finite number, got {value!r}.")
    if math.isinf(number):  # JSON has no infinity: the text was a number beyond the range
        raise _out_of_range(what, value)
    return number


def json_count(value: object, what: str, *, low: int = 0, high: int | None = None) -> int:
    """A JSON integer in ``[low, high]``; booleans, floats and strings are refused."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise UserInputTypeError(f"{what}: expected a whole number, got {_shown(value)}.")
    number = int(value)
    if number < low or (high is not None and number > high):
        upper = "" if high is None else f" and at most {high}"
        raise UserInputError(f"{what}: expected at least {low}{upper}, got {_shown(number)}.")
    return number
