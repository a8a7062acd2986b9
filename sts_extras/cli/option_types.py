"""The ``type=`` of the numeric options: the strict readers of :mod:`sts_extras.io.numbers`.

``argparse``'s ``type=float`` takes ``nan``, ``inf``, ``1e309`` (as ``inf``) and ``1_000``;
``type=int`` takes ``1_000`` and look-alike digits. Every number option of the ``sts-extras``
commands is read by :func:`number` or :func:`whole_number` instead: plain decimals only, a value
beyond the float range is "out of range", and the error is one line naming the option
(``argument --r1: '1e309' is out of range ...``), before anything runs.

The reader is imported when an option is given, not when the parser is built, so ``--help``
stays light (``tests/test_cli_startup.py``).
"""

from __future__ import annotations

import argparse

__all__ = ["number", "whole_number"]

_WHAT = "value"


def _message(error: Exception) -> str:
    return str(error).removeprefix(f"{_WHAT}: ")


def number(text: str) -> float:
    """A finite number in plain decimal notation (:func:`~sts_extras.io.numbers.parse_number`)."""
    from sts_extras.errors import UserInputError
    from sts_extras.io.numbers import parse_number

    try:
        return parse_number(text, _WHAT)
    except UserInputError as error:
        raise argparse.ArgumentTypeError(_message(error)) from None


def whole_number(text: str) -> int:
    """A whole number in plain digits (:func:`~sts_extras.io.numbers.parse_integer`)."""
    from sts_extras.errors import UserInputError
    from sts_extras.io.numbers import parse_integer

    try:
        return parse_integer(text, _WHAT)
    except UserInputError as error:
        raise argparse.ArgumentTypeError(_message(error)) from None
