"""One strict number parser for every table and record sts-extras reads.

``float()`` accepts ``"1_000"``, ``" inf "``, ``"nan"`` and ``"0x1p3"``-like spellings through
other routes, and ``json`` turns ``true`` into a value that ``float()`` reads as 1. A score is a
plain decimal number: :func:`parse_number` accepts exactly ``[+-]digits[.digits][e[+-]digits]``
(and ``.5``, ``5.``), nothing else; :func:`json_number` accepts a JSON int or float, never a
boolean or a string.
"""

from __future__ import annotations

import math
import re
from numbers import Integral, Real

from sts_extras.errors import UserInputError, UserInputTypeError

__all__ = ["json_count", "json_number", "parse_number"]

_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def parse_number(text: object, what: str) -> float:
    """The finite number written in ``text``; :class:`UserInputError` naming ``what`` otherwise.

    Only plain decimal notation (surrounding spaces allowed): no ``_`` separators, no hex, no
    ``inf``/``nan``, no booleans, no thousands commas, no full-width digits.
    """
    if isinstance(text, bool) or not isinstance(text, str):
        raise UserInputTypeError(f"{what}: expected a number written as text, got {text!r}.")
    stripped = text.strip(" \t")
    if _DECIMAL.fullmatch(stripped) is None:
        raise UserInputError(
            f"{what}: {text!r} is not a number (write plain decimals, e.g. 0.5, -3 or 1e-3)."
        )
    value = float(stripped)
    if not math.isfinite(value):
        raise UserInputError(f"{what}: {text!r} is out of range.")
    return value


def json_number(value: object, what: str) -> float:
    """A JSON number as a finite float; booleans, strings and ``NaN``/``Infinity`` are refused."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise UserInputTypeError(f"{what}: expected a number, got {value!r}.")
    number = float(value)
    if not math.isfinite(number):
        raise UserInputError(f"{what}: expected a finite number, got {value!r}.")
    return number


def json_count(value: object, what: str, *, low: int = 0, high: int | None = None) -> int:
    """A JSON integer in ``[low, high]``; booleans, floats and strings are refused."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise UserInputTypeError(f"{what}: expected a whole number, got {value!r}.")
    number = int(value)
    if number < low or (high is not None and number > high):
        upper = "" if high is None else f" and at most {high}"
        raise UserInputError(f"{what}: expected at least {low}{upper}, got {number}.")
    return number
