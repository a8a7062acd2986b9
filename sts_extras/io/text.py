"""Reading text files from outside: UTF-8 with or without a byte-order mark, errors named."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NoReturn

from sts_extras.errors import UserFileNotFoundError, UserInputError

__all__ = ["MAX_TEXT_BYTES", "TextDecodeError", "parse_json", "read_json", "read_text"]

#: Largest text file (a record, a table, a vote export) read whole: 2 GiB. Larger ones are
#: refused before reading rather than exhausting memory.
MAX_TEXT_BYTES = 2 << 30


class TextDecodeError(UserInputError):
    """A file that should hold UTF-8 text (or JSON) does not."""


def read_text(path: str | os.PathLike[str], what: str, *, limit: int = MAX_TEXT_BYTES) -> str:
    """The text of ``path`` as UTF-8; a leading byte-order mark is dropped.

    Raises :class:`~sts_extras.errors.UserFileNotFoundError` for a missing file and
    :class:`TextDecodeError` for a file that is not UTF-8, larger than ``limit`` bytes, or
    unreadable; each message names ``what`` and the path.
    """
    file = Path(path)
    try:
        with file.open("rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise UserFileNotFoundError(f"{what}: {str(file)!r} does not exist.") from None
    except IsADirectoryError:
        raise UserInputError(f"{what}: {str(file)!r} is a folder, not a file.") from None
    except OSError as error:
        raise TextDecodeError(
            f"{what}: {str(file)!r} cannot be read ({error.strerror or error})."
        ) from None
    if len(data) > limit:
        raise TextDecodeError(f"{what}: {str(file)!r} is larger than {limit} bytes.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise TextDecodeError(
            f"{what}: {str(file)!r} is not UTF-8 text (byte {error.start}); save it as UTF-8."
        ) from None


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def read_json(
    path: str | os.PathLike[str],
    what: str,
    *,
    limit: int = MAX_TEXT_BYTES,
    non_finite_as_null: bool = False,
) -> Any:
    """The JSON value of ``path`` (strict: no ``NaN``/``Infinity``, no duplicate keys).

    ``non_finite_as_null`` reads ``NaN``/``Infinity`` as ``null`` instead of refusing them: for
    files of other tools that write them (MTEB's), read through a schema that then refuses a
    ``null`` wherever a number is required.
    """
    text = read_text(path, what, limit=limit)
    constant = (lambda name: None) if non_finite_as_null else _no_constant
    try:
        return json.loads(text, parse_constant=constant, object_pairs_hook=_no_duplicate_keys)
    except (ValueError, RecursionError) as error:
        raise TextDecodeError(f"{what}: {str(path)!r} is not valid JSON ({error}).") from None


def parse_json(text: str, what: str) -> Any:
    """The JSON value in ``text``, as strictly as :func:`read_json` (no ``NaN``/``Infinity``, no
    duplicate keys); :class:`TextDecodeError` naming ``what`` (a line of a JSON Lines file)."""
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicate_keys)
    except (ValueError, RecursionError) as error:
        raise TextDecodeError(f"{what} is not valid JSON ({error}).") from None


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the key {key!r} appears twice")
        found[key] = value
    return found
