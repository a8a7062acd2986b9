"""The tables of a campaign on disk: sentence-pair files in, STS datasets out.

A campaign's items are sentence pairs, read from a CSV, JSON Lines or Parquet file (chosen by
the file's suffix) with the columns ``sentence1``, ``sentence2`` and optionally ``id``
(:func:`read_pairs`). Its result is an STS dataset, ``id,sentence1,sentence2,score,n_votes``
(:func:`scored_dataset`), which :func:`read_sts_table` reads back, as does any other file with
the columns ``sentence1``, ``sentence2`` and ``score``. Every problem of a file is one
:class:`~sts_extras.errors.UserInputError` line naming the file, the row and what is wrong.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sts_extras.errors import (
    InputWarning,
    UserFileNotFoundError,
    UserInputError,
    UserInputTypeError,
)
from sts_extras.io.numbers import NumberOutOfRangeError, json_number, parse_number
from sts_extras.io.text import parse_json, read_text

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "DUPLICATE_PAIRS",
    "MIN_STS_PAIRS",
    "TABLE_SUFFIXES",
    "DuplicatePairWarning",
    "StsTable",
    "cell_number",
    "csv_text",
    "parse_csv_text",
    "read_csv_text",
    "read_pairs",
    "read_sts_table",
    "read_table",
    "row_name",
    "scored_dataset",
]

#: File suffixes of the tables read here (letter case ignored).
TABLE_SUFFIXES = (".csv", ".jsonl", ".parquet")
#: Fewest pairs of an STS dataset: a correlation over fewer says nothing.
MIN_STS_PAIRS = 3


def row_name(index: int, path: Path) -> str:
    """``"row 3 (line 4)"`` for the 0-based data row ``index`` (a CSV line counts the header)."""
    if path.suffix.lower() == ".csv":
        return f"row {index + 1} (line {index + 2})"
    return f"row {index + 1}"


def read_csv_text(path: Path, where: str) -> pd.DataFrame:
    """A CSV file as a table of text cells (UTF-8, with or without a byte-order mark).

    Every cell stays text, as written (numbers are parsed where a column needs one, by
    :func:`~sts_extras.io.numbers.parse_number`); blank lines are skipped, a short row is padded
    with blank cells, a row longer than the header or a column named twice is refused.
    """
    return parse_csv_text(read_text(path, where), path, where)


def parse_csv_text(text: str, path: Path, where: str) -> pd.DataFrame:
    """:func:`read_csv_text` of a file's ``text`` already read.

    Fields of any length up to the largest file read are accepted
    (:func:`~sts_extras.io.csv_cells.csv_rows`), and every cell and column name is restored from
    the spreadsheet-safe form our CSV writers use (:func:`~sts_extras.io.csv_cells.restore_cell`:
    ``'=x`` is read as ``=x``), so a file we wrote reads back exactly as its table was.
    """
    import pandas as pd

    from sts_extras.io.csv_cells import csv_rows, restore_rows

    rows = csv_rows(text, where)
    if "'" in text:  # else no cell was neutralised
        restore_rows(rows)
    if not rows:
        raise UserInputError(f"{where}: is empty; expected a header line and rows.")
    header = [column.strip() for column in rows[0]]
    twice = next((column for column in header if header.count(column) > 1), None)
    if twice is not None:
        raise UserInputError(f"{where}: the column {twice!r} appears twice in the header.")
    width = len(header)
    for index, row in enumerate(rows[1:]):
        if len(row) > width:
            raise UserInputError(
                f"{where}: {row_name(index, path)}: {len(row)} cells, but the header has "
                f"{width} columns."
            )
    body = [row + [""] * (width - len(row)) for row in rows[1:]]
    return pd.DataFrame(body, columns=header, dtype=object)


def _read_json_lines(path: Path, where: str) -> pd.DataFrame:
    """A JSON Lines file (one object per line) as a table; values keep their JSON types."""
    import pandas as pd

    text = read_text(path, where)
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        record = parse_json(line, f"{where}: line {number}")
        if not isinstance(record, dict):
            raise UserInputError(f"{where}: line {number} is not a JSON object.")
        records.append(record)
    if not records:
        raise UserInputError(f"{where}: is empty; expected one JSON object per line.")
    return pd.DataFrame(records, dtype=object)


def read_table(path: Path, name: str) -> pd.DataFrame:
    """Read a CSV (every cell as text), JSON Lines or Parquet file given as ``name``.

    CSV and JSON Lines are read as UTF-8 with or without a byte-order mark
    (:func:`~sts_extras.io.text.read_text`); JSON Lines strictly (no ``NaN``, no key twice),
    its values keeping their JSON types, so that a ``true`` is never read as 1.

    Raises
    ------
    sts_extras.errors.UserInputError
        One line naming ``name`` and the file: a missing file or a folder, an unknown suffix,
        an empty or unparsable file.
    """
    import pandas as pd

    path = Path(path)
    where = f"{name} {path}"
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise UserInputError(
            f"{where}: unknown table format {path.suffix or '(no suffix)'!r}; give a "
            f"{', '.join(TABLE_SUFFIXES[:-1])} or {TABLE_SUFFIXES[-1]} file."
        )
    if not path.exists():
        raise UserFileNotFoundError(f"{where}: no such file.")
    if path.is_dir():
        raise UserInputError(f"{where}: is a directory; give a file.")
    if suffix == ".csv":
        return read_csv_text(path, where)
    if suffix == ".jsonl":
        return _read_json_lines(path, where)
    try:
        return pd.read_parquet(path)
    except (OSError, UnicodeError, ValueError, ImportError) as error:
        reason = " ".join(str(error).split())[:200]
        raise UserInputError(f"{where}: cannot read it as parquet: {reason}") from None


def cell_number(value: object, what: str) -> float:
    """The number in one table cell: text is parsed by
    :func:`~sts_extras.io.numbers.parse_number` (no ``1_000``, hex, ``inf``, ``nan``), a JSON or
    Parquet value must be a real number (:func:`~sts_extras.io.numbers.json_number`: never a
    boolean). :class:`~sts_extras.errors.UserInputError` naming ``what`` otherwise."""
    if isinstance(value, str):
        try:
            return parse_number(value, what)
        except NumberOutOfRangeError:  # already one line naming the cell: "out of range"
            raise
        except UserInputError:
            if value.strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):
                raise UserInputError(f"{what} {value!r} is not finite.") from None
            raise UserInputError(
                f"{what} {value!r} is not a number (plain decimals only: no `_`, hex or "
                "thousands separators)."
            ) from None
    if isinstance(value, np.generic):
        if isinstance(value, np.bool_):
            raise UserInputTypeError(f"{what}: expected a number, got {value!r}.")
        value = value.item()
    return json_number(value, what)


def _require_columns(frame: pd.DataFrame, where: str, required: tuple[str, ...], hint: str) -> None:
    missing = [column for column in required if column not in frame.columns]
    if missing:
        raise UserInputError(
            f"{where}: missing column(s) {', '.join(missing)}; expected {hint} "
            f"(found: {', '.join(map(str, frame.columns)) or 'none'})."
        )


def _is_missing(value: Any) -> bool:  # any cell (pd.isna's stubs list scalar types)
    """A float NaN or pandas' missing value (a Parquet null), not a number or text."""
    import pandas as pd

    try:
        return not isinstance(value, str) and bool(pd.isna(value))
    except (TypeError, ValueError):  # a list or another value without one truth value
        return False


def _text_column(frame: pd.DataFrame, column: str, path: Path, where: str) -> list[str]:
    """The cells of ``column`` as stripped strings; a blank or missing cell is an error."""

    values = []
    for index, value in enumerate(frame[column].tolist()):
        if isinstance(value, (bool, np.bool_)) or not (
            value is None or isinstance(value, (str, int, np.integer)) or _is_missing(value)
        ):
            raise UserInputError(
                f"{where}: {row_name(index, path)}: `{column}` {value!r} is not text."
            )
        text = "" if value is None or _is_missing(value) else value
        text = str(text).strip()
        if not text:
            raise UserInputError(f"{where}: {row_name(index, path)}: `{column}` is blank.")
        values.append(text)
    return values


def read_pairs(path: Path, name: str = "--pairs") -> pd.DataFrame:
    """The sentence pairs of a campaign: columns ``id``, ``sentence1``, ``sentence2`` (text).

    Parameters
    ----------
    path : pathlib.Path
        A ``.csv``, ``.jsonl`` or ``.parquet`` file with the columns ``sentence1``,
        ``sentence2`` and optionally ``id``; other columns are ignored.
    name : str
        How the file was given (named in the errors).

    Returns
    -------
    pandas.DataFrame
        One row per pair, in file order. Without an ``id`` column the ids are the row numbers
        ``"1"``, ``"2"``, ... as text (stable while the rows keep their order).

    Raises
    ------
    sts_extras.errors.UserInputError
        A missing column, a blank cell (the row is named), an id given twice, fewer than 2 pairs,
        or a file that cannot be read.
    """
    import pandas as pd

    path = Path(path)
    where = f"{name} {path}"
    frame = read_table(path, name)
    _require_columns(frame, where, ("sentence1", "sentence2"), "sentence1, sentence2 and id")
    if len(frame) < 2:
        raise UserInputError(f"{where}: holds {len(frame)} pair(s); a campaign needs at least 2.")
    if "id" in frame.columns:
        ids = _text_column(frame, "id", path, where)
        first: dict[str, int] = {}
        for index, pair_id in enumerate(ids):
            if pair_id in first:
                raise UserInputError(
                    f"{where}: id {pair_id!r} appears twice ({row_name(first[pair_id], path)} "
                    f"and {row_name(index, path)}); ids must be distinct."
                )
            first[pair_id] = index
    else:
        ids = [str(index + 1) for index in range(len(frame))]
    return pd.DataFrame(
        {
            "id": ids,
            "sentence1": _text_column(frame, "sentence1", path, where),
            "sentence2": _text_column(frame, "sentence2", path, where),
        }
    )


@dataclass(frozen=True)
class StsTable:
    """An STS dataset read by :func:`read_sts_table`.

    Attributes
    ----------
    frame : pandas.DataFrame
        Columns ``sentence1``, ``sentence2`` (text) and ``score`` (float), in file order.
    score_range : (float, float)
        The given range, or the lowest and highest score of the file.
    """

    frame: pd.DataFrame
    score_range: tuple[float, float]


#: What :func:`read_sts_table` does with a pair given twice (in either order): warn, or refuse.
DUPLICATE_PAIRS = ("warn", "refuse")
_STS_COLUMNS = ("sentence1", "sentence2", "score")


class DuplicatePairWarning(InputWarning):
    """A task table holds the same sentence pair twice (in either order); every row is kept."""


def _headerless_rows(path: Path, where: str) -> list[list[str]] | None:
    """The rows of a CSV file without a header line, or None when its first line is a header.

    The rule (stated, not guessed): a first row that names the columns ``sentence1``,
    ``sentence2`` and ``score`` is a header; a first row of exactly three cells whose third is a
    number is data, and the file is read as ``sentence1, sentence2, score`` rows (the layout of
    the STS Benchmark as distributed). Any other first row is a header (and its missing columns
    are then refused by :func:`read_sts_table`).
    """
    from sts_extras.io.csv_cells import csv_rows, restore_cell

    rows = [[restore_cell(cell) for cell in row] for row in csv_rows(read_text(path, where), where)]
    if not rows:
        return None
    first = rows[0]
    if {column.strip() for column in first} >= set(_STS_COLUMNS) or len(first) != 3:
        return None
    try:
        parse_number(first[2], "score")
    except UserInputError:
        return None
    for index, row in enumerate(rows):
        if len(row) != 3:
            raise UserInputError(
                f"{where}: row {index + 1} (line {index + 1}): {len(row)} cells; a file without a "
                "header line has three (sentence1, sentence2, score) in every row."
            )
    return rows


def _pair_key(sentence1: str, sentence2: str) -> tuple[str, str]:
    """A pair by what it says: the two texts with runs of white space as one space, unordered."""
    first, second = (" ".join(text.split()) for text in (sentence1, sentence2))
    return (first, second) if first <= second else (second, first)


def _check_duplicate_pairs(
    sentence1: list[str],
    sentence2: list[str],
    scores: np.ndarray,
    where: str,
    name_row: Callable[[int], str],
    duplicate_pairs: str,
) -> None:
    """Warn about (or refuse) each pair given twice, in either order, naming both rows."""
    first: dict[tuple[str, str], int] = {}
    for index, pair in enumerate(zip(sentence1, sentence2)):
        key = _pair_key(*pair)
        if key not in first:
            first[key] = index
            continue
        earlier = first[key]
        reversed_ = " ".join(sentence1[earlier].split()) != " ".join(pair[0].split())
        message = (
            f"{where}: the pair {sentence1[earlier]!r} / {sentence2[earlier]!r} appears twice: "
            f"{name_row(earlier)} with score {scores[earlier]:g} and {name_row(index)}"
            f"{', reversed,' if reversed_ else ''} with score {scores[index]:g}"
        )
        if duplicate_pairs == "refuse":
            raise UserInputError(f"{message}; refused (duplicate_pairs='refuse').")
        warnings.warn(
            f"{message}; both rows are kept, as MTEB keeps them (duplicate_pairs='refuse' "
            "refuses such a file).",
            DuplicatePairWarning,
            stacklevel=4,
        )


def read_sts_table(
    path: Path,
    name: str = "STS file",
    score_range: tuple[float, float] | None = None,
    *,
    duplicate_pairs: str = "warn",
) -> StsTable:
    """Read and check an STS dataset: columns ``sentence1``, ``sentence2`` and ``score``.

    Parameters
    ----------
    path : pathlib.Path
        A ``.csv``, ``.jsonl`` or ``.parquet`` file; other columns are ignored. A CSV file may
        have no header line: a first row of exactly three cells whose third is a number (so it
        cannot be a header naming the columns) starts the data, read as ``sentence1,
        sentence2, score`` in every row, as the STS Benchmark is distributed (``test.csv`` of
        ``stsb-multi-mt``). A first row naming ``sentence1``, ``sentence2`` and ``score`` is a
        header; any other first row is taken as a header too, and its missing columns refused.
    name : str
        How the file was given (named in the errors).
    score_range : (float, float), optional
        The rating scale; default: the lowest and highest score in the file.
    duplicate_pairs : {"warn", "refuse"}, default "warn"
        A pair given twice, in either order (texts compared with runs of white space as one
        space), is a :class:`DuplicatePairWarning` naming both rows and every row is kept, as
        MTEB keeps them; ``"refuse"`` makes it an error.

    Raises
    ------
    sts_extras.errors.UserInputError
        A missing column, a blank cell, a score that is not a number or not finite, fewer than
        :data:`MIN_STS_PAIRS` pairs, a range whose minimum is not below its maximum (every score
        equal, or a bad ``score_range``), a score outside ``score_range``, a row of a header-less
        file without three cells, or (``duplicate_pairs="refuse"``) a pair given twice.

    Warns
    -----
    DuplicatePairWarning
        For each pair given twice (``duplicate_pairs="warn"``).

    Examples
    --------
    >>> import tempfile, pathlib, warnings
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "plain.csv").write_text("A cat.,A dog.,2\\nRain.,Sun.,0\\nHi.,Hello.,5\\n")
    >>> read_sts_table(folder / "plain.csv").frame["score"].tolist()
    [2.0, 0.0, 5.0]
    """
    import pandas as pd

    if duplicate_pairs not in DUPLICATE_PAIRS:
        raise UserInputError(
            f"`duplicate_pairs` must be one of {', '.join(DUPLICATE_PAIRS)}, got "
            f"{duplicate_pairs!r}."
        )
    path = Path(path)
    where = f"{name} {path}"
    headerless = None
    if path.suffix.lower() == ".csv" and path.is_file():
        headerless = _headerless_rows(path, where)
    if headerless is not None:
        frame = pd.DataFrame(headerless, columns=list(_STS_COLUMNS), dtype=object)

        def name_row(index: int) -> str:
            return f"row {index + 1} (line {index + 1})"

    else:
        frame = read_table(path, name)

        def name_row(index: int) -> str:
            return row_name(index, path)

        _require_columns(
            frame,
            where,
            _STS_COLUMNS,
            "sentence1, sentence2, score (or, in a CSV file without "
            "a header line, those three cells in every row)",
        )
    if len(frame) < MIN_STS_PAIRS:
        raise UserInputError(
            f"{where}: holds {len(frame)} pair(s); an STS dataset needs at least {MIN_STS_PAIRS}."
        )
    if headerless is not None:
        sentence1, sentence2 = ([row[k].strip() for row in headerless] for k in (0, 1))
        for column, texts in (("sentence1", sentence1), ("sentence2", sentence2)):
            blank = next((index for index, text in enumerate(texts) if not text), None)
            if blank is not None:
                raise UserInputError(f"{where}: {name_row(blank)}: `{column}` is blank.")
    else:
        sentence1 = _text_column(frame, "sentence1", path, where)
        sentence2 = _text_column(frame, "sentence2", path, where)
    scores = np.empty(len(frame))
    for index, value in enumerate(frame["score"].tolist()):
        what = f"{where}: {name_row(index)}: `score`"
        if (
            value is None
            or (isinstance(value, str) and not value.strip())
            or (isinstance(value, float) and np.isnan(value))
        ):
            raise UserInputError(f"{what} is blank.")
        scores[index] = cell_number(value, what)
    if score_range is None:
        low, high = float(scores.min()), float(scores.max())
        if low >= high:
            raise UserInputError(
                f"{where}: every score is {low:g}, so the score range (min {low:g}, max "
                f"{high:g}) is empty; the correlations need scores that differ."
            )
    else:
        low, high = (float(bound) for bound in score_range)
        if not (np.isfinite(low) and np.isfinite(high) and low < high):
            raise UserInputError(
                f"--score-range {low:g} {high:g}: the minimum must be below the maximum."
            )
        outside = np.flatnonzero((scores < low) | (scores > high))
        if outside.size:
            raise UserInputError(
                f"{where}: {name_row(int(outside[0]))}: `score` {scores[outside[0]]:g} "
                f"lies outside the score range {low:g}-{high:g}."
            )
    _check_duplicate_pairs(sentence1, sentence2, scores, where, name_row, duplicate_pairs)
    table = pd.DataFrame({"sentence1": sentence1, "sentence2": sentence2, "score": scores})
    return StsTable(frame=table, score_range=(low, high))


def scored_dataset(
    ranking: pd.DataFrame, pairs: pd.DataFrame, scale: tuple[float, float] = (0.0, 5.0)
) -> pd.DataFrame:
    """The STS dataset of a campaign: ``id,sentence1,sentence2,score,n_votes``, in pairs order.

    Parameters
    ----------
    ranking : pandas.DataFrame
        :attr:`~sts_extras.annotation.scoring.VoteScoresResult.table` (``item``, ``score``,
        ``votes``).
    pairs : pandas.DataFrame
        :func:`read_pairs` output; pairs without votes are left out.
    scale : (float, float), default (0, 5)
        ``score = low + (high - low) * y``: the protocol's score :math:`\\bar y` (a Borda win
        ratio rescaled onto ballot 1's scale, Eq. 1, 5, 6 of Lombardo et al., 2020) mapped
        linearly, so that 0 gives ``low`` and 1 gives ``high``.

    Notes
    -----
    The scores are relative, as in the paper: they say how often a pair was judged more similar
    than the other pairs *of the campaign*, not how similar its two sentences are on an absolute
    scale. Compare models by correlation on them, not by the values.

    Examples
    --------
    >>> import pandas as pd
    >>> ranking = pd.DataFrame({"item": ["2", "1"], "score": [1.0, 0.25], "votes": [4, 4]})
    >>> pairs = pd.DataFrame({"id": ["1", "2", "3"], "sentence1": ["a", "b", "c"],
    ...                       "sentence2": ["d", "e", "f"]})
    >>> scored_dataset(ranking, pairs, scale=(0, 4))
      id sentence1 sentence2  score  n_votes
    0  1         a         d    1.0        4
    1  2         b         e    4.0        4
    """
    low, high = (float(bound) for bound in scale)
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise UserInputError(f"--scale {low:g} {high:g}: LOW must be below HIGH.")
    by_item = ranking.set_index(ranking["item"].astype(str))
    voted = pairs[pairs["id"].isin(by_item.index)].reset_index(drop=True)
    rows = by_item.loc[voted["id"]]
    out = voted[["id", "sentence1", "sentence2"]].copy()
    out["score"] = low + (high - low) * rows["score"].to_numpy(dtype=float)
    out["n_votes"] = rows["votes"].to_numpy(dtype=np.int64)
    return out


def csv_text(frame: pd.DataFrame) -> str:
    """``frame`` as CSV text without the index, safe to open in a spreadsheet.

    Text cells that begin with ``= + - @``, tab or CR get a leading ``'``
    (:func:`~sts_extras.io.csv_cells.frame_csv_text`, OWASP's rule against CSV injection);
    numbers are written as numbers. :func:`read_csv_text` removes the quote again.
    """
    from sts_extras.io.csv_cells import frame_csv_text

    return frame_csv_text(frame)
