"""Neutralising CSV and TSV cells for spreadsheets and crowd platforms (CSV injection).

A spreadsheet (Excel, LibreOffice, Google Sheets) or a crowd platform's preview treats a cell
that begins with ``=``, ``+``, ``-`` or ``@`` (and, in some, a tab or a carriage return) as a
formula, so a sentence or a name taken from a user's file could run as one. Following the OWASP
recommendation ("CSV Injection", https://owasp.org/www-community/attacks/CSV_Injection), every
*text* cell of a CSV or TSV file sts-extras writes for people, spreadsheets or crowd platforms is
prefixed with a single quote when it begins with one of these characters; numbers (a negative
correlation difference, a gold score) are written as numbers.

The rule is a bijection, so that our readers read back exactly what our writers wrote:

* :func:`neutralise_cell` adds one ``'`` to a text that matches ``'*[=+\\-@\\t\\r]`` (any run of
  quotes, possibly none, then a formula character);
* :func:`restore_cell` removes one ``'`` from a text that matches ``'+[=+\\-@\\t\\r]``.

A text the writer did not change never matches the second pattern (it does not match the
first), so ``restore_cell(neutralise_cell(text)) == text`` for every text, including a user's
own ``'=x``, which is written as ``''=x`` and read back as ``'=x``.

:func:`csv_rows` is the one CSV parser of the files we read: Python's :mod:`csv` with its field
limit (128 KiB by default) lifted to :data:`~sts_extras.io.text.MAX_TEXT_BYTES`, the largest
file read whole, so that no field of a readable file is refused for its length.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable

import pandas as pd

from sts_extras.errors import UserInputError
from sts_extras.io.text import MAX_TEXT_BYTES

__all__ = [
    "FORMULA_CHARACTERS",
    "csv_rows",
    "frame_csv_text",
    "neutralise_cell",
    "neutralise_frame",
    "restore_cell",
    "restore_frame",
    "restore_rows",
]

#: The characters that make a spreadsheet read a cell as a formula when they begin it (OWASP).
FORMULA_CHARACTERS = "=+-@\t\r"

_CLASS = "[" + re.escape(FORMULA_CHARACTERS) + "]"
_NEEDS_QUOTE = re.compile("'*" + _CLASS)
_WAS_QUOTED = re.compile("'+" + _CLASS)


def neutralise_cell(text: str) -> str:
    """``text`` as a spreadsheet shows it and never evaluates it.

    Parameters
    ----------
    text : str
        A text cell.

    Returns
    -------
    str
        ``"'" + text`` when ``text`` is a run of zero or more single quotes followed by one of
        ``= + - @``, tab or carriage return; otherwise ``text`` unchanged.

    Examples
    --------
    >>> neutralise_cell("=HYPERLINK(1)")
    "'=HYPERLINK(1)"
    >>> neutralise_cell("'=x")
    "''=x"
    >>> neutralise_cell("A man is dancing.")
    'A man is dancing.'
    """
    return "'" + text if _NEEDS_QUOTE.match(text) else text


def restore_cell(text: str) -> str:
    """The exact inverse of :func:`neutralise_cell`: the text that was written.

    Examples
    --------
    >>> restore_cell("'=HYPERLINK(1)")
    '=HYPERLINK(1)'
    >>> restore_cell("''=x")
    "'=x"
    >>> restore_cell("'quoted'")
    "'quoted'"
    """
    if not text.startswith("'"):  # most cells: no pattern match needed
        return text
    return text[1:] if _WAS_QUOTED.match(text) else text


def restore_rows(rows: list[list[str]]) -> list[list[str]]:
    """:func:`restore_cell` of every cell of ``rows`` (of :func:`csv_rows`), in place; rows
    without a cell that begins with ``'`` are left as they are (the common case, fast)."""
    for index, row in enumerate(rows):
        if any(cell.startswith("'") for cell in row):
            rows[index] = [restore_cell(cell) for cell in row]
    return rows


def _map_text(frame: pd.DataFrame, function: Callable[[str], str]) -> pd.DataFrame:
    def cell_map(cell: object) -> object:
        return function(cell) if isinstance(cell, str) else cell

    out = frame.copy()
    for position in range(out.shape[1]):  # by position: column names may repeat
        series = out.iloc[:, position]
        dtype = series.dtype
        if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
            out.isetitem(position, series.map(cell_map).to_numpy())
    return out


def neutralise_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells are :func:`neutralise_cell`-ed.

    Only text cells (``str`` values of object or string columns) change: numeric columns, and
    numbers or missing values inside an object column, are kept as they are, so a negative
    number is still written as a number. Column names are text cells of the header row and are
    neutralised too.
    """
    out = _map_text(frame, neutralise_cell)
    out.columns = [neutralise_cell(c) if isinstance(c, str) else c for c in out.columns]
    return out


def restore_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The inverse of :func:`neutralise_frame`: a copy with text cells and names restored."""
    out = _map_text(frame, restore_cell)
    out.columns = [restore_cell(c) if isinstance(c, str) else c for c in out.columns]
    return out


def csv_rows(text: str, where: str, *, delimiter: str = ",") -> list[list[str]]:
    """The rows of a CSV (or, with ``delimiter="\\t"``, TSV) text, blank lines left out.

    Python's :mod:`csv` refuses a field longer than its field limit (128 KiB by default) with
    "field larger than field limit"; here the limit is lifted to
    :data:`~sts_extras.io.text.MAX_TEXT_BYTES` (2 GiB, the largest file
    :func:`~sts_extras.io.text.read_text` reads) for this parse only, and restored after it.

    Raises
    ------
    sts_extras.errors.UserInputError
        A text the :mod:`csv` module cannot parse, naming ``where``, the line and the reason
        (a field over the limit names the limit).
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[list[str]] = []
    previous = csv.field_size_limit(MAX_TEXT_BYTES)
    try:
        rows.extend(row for row in reader if row)
    except csv.Error as error:
        line = reader.line_num
        reason = str(error)
        if "field limit" in reason:
            reason = (
                f"a field is longer than {MAX_TEXT_BYTES} characters (the largest file read "
                "is 2 GiB); split the file or shorten the cell"
            )
        raise UserInputError(f"{where}: line {line}: cannot read it as CSV: {reason}.") from None
    finally:
        csv.field_size_limit(previous)
    return rows


def frame_csv_text(frame: pd.DataFrame) -> str:
    """``frame`` as spreadsheet-safe CSV text: :func:`neutralise_frame`, no index, LF line ends.

    Python's :mod:`csv` writer (which pandas uses) quotes a field holding a line feed but, with
    LF line ends, not one holding a carriage return, which a reader then takes for a line break.
    A table with a carriage return in a text cell or a column name is therefore written with
    CRLF line ends (RFC 4180), with which such a field is quoted; every reader of CSV takes both.
    """
    safe = neutralise_frame(frame)
    names = [str(name) for name in safe.columns]
    has_cr = any("\r" in name for name in names) or any(
        safe.iloc[:, position].map(lambda cell: isinstance(cell, str) and "\r" in cell).any()
        for position in range(safe.shape[1])
        if pd.api.types.is_object_dtype(safe.dtypes.iloc[position])
        or pd.api.types.is_string_dtype(safe.dtypes.iloc[position])
    )
    return str(safe.to_csv(index=False, lineterminator="\r\n" if has_cr else "\n"))
