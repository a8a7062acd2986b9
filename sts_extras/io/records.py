"""Validated records: the one way sts-extras turns JSON from outside into objects.

Every record format read from a file someone else may have written (a plan, a cell record, a
task record, a manifest, an MTEB result or prediction file, a vote export) is a :class:`Record`
subclass: a frozen pydantic model with strict types (no string-to-number or boolean-to-number
coercion), no unknown fields unless a format allows them, and no ``NaN``/``Infinity``. It is
parsed once, where the file is read, by :func:`parse_record`; the code that uses it reads typed
attributes, never raw dictionaries. (pydantic because MTEB's own metadata is pydantic with
``extra="forbid"``: the same tool, the same habits.)
"""

from __future__ import annotations

import json
import os
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from sts_extras.errors import UserInputError
from sts_extras.io.text import read_json

__all__ = ["Record", "RecordError", "parse_record", "read_record"]

R = TypeVar("R", bound="Record")


class RecordError(UserInputError):
    """A record from outside does not have the form its format requires (named in the message)."""


class Record(BaseModel):
    """Base of every record format: frozen, strict, no extra fields, finite numbers only."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", strict=True, allow_inf_nan=False, hide_input_in_errors=True
    )


def _describe(error: ValidationError) -> str:
    problems = []
    for item in error.errors()[:3]:
        where = ".".join(str(part) for part in item["loc"]) or "(top level)"
        problems.append(f"{where}: {item['msg']}")
    more = error.error_count() - len(problems)
    return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")


def parse_record(schema: type[R], data: object, what: str) -> R:
    """``data`` (parsed JSON) as a ``schema`` object; :class:`RecordError` naming ``what``."""
    try:
        # through JSON, as the record was read: strict types, arrays become tuples
        return schema.model_validate_json(json.dumps(data, allow_nan=False))
    except (TypeError, ValueError) as error:
        if not isinstance(error, ValidationError):
            raise RecordError(f"{what} is not a valid record ({error}).") from None
        raise RecordError(f"{what} is not a valid record ({_describe(error)}).") from None


def read_record(schema: type[R], path: str | os.PathLike[str], what: str) -> R:
    """The record in the JSON file ``path`` (:func:`~sts_extras.io.text.read_json`)."""
    return parse_record(schema, read_json(path, what), f"{what} {str(path)!r}")
