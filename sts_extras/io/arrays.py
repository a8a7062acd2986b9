"""Reading arrays and columns from outside: NumPy ``.npy`` matrices and Parquet string columns.

Both are parsed as data only: the ``.npy`` header is read with NumPy's own header parser
(``numpy.lib.format``, a literal parser, never a pickle) and checked against the file's size
before any value is read, so a lying header cannot make a large allocation or a short read; a
Parquet file is read by pyarrow (a core dependency) and checked against the schema the caller
expects -- column names, their type, the row count, no missing value, valid UTF-8. Every failure
is a :class:`~sts_extras.errors.UserInputError` naming what was read and the file.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from sts_extras.errors import UserFileNotFoundError, UserInputError

__all__ = ["read_npy_matrix", "read_parquet_strings"]

# the magic string, two version bytes and the header length field of an .npy file
_NPY_PREAMBLE = 6 + 2 + 4


def _existing(path: str | os.PathLike[str], what: str) -> Path:
    file = Path(path)
    if not file.is_file():
        if file.exists():
            raise UserInputError(f"{what}: {str(file)!r} is not a file.")
        raise UserFileNotFoundError(f"{what}: {str(file)!r} does not exist.")
    return file


def _npy_header(file: Path, what: str) -> tuple[tuple[int, ...], bool, np.dtype[np.generic], int]:
    """``(shape, fortran_order, dtype, data offset)`` of an ``.npy`` file, parsed as a literal."""
    try:
        with file.open("rb") as handle:
            version = np.lib.format.read_magic(handle)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
            else:
                raise ValueError(f"unsupported .npy format version {version}")
            return shape, fortran, dtype, handle.tell()
    except (ValueError, SyntaxError, OSError) as error:
        raise UserInputError(f"{what}: {str(file)!r} is not a NumPy .npy file ({error}).") from None


def read_npy_matrix(path: str | os.PathLike[str], what: str) -> NDArray[np.floating]:
    """A 2-D matrix of finite floats from an ``.npy`` file, in memory, C order, native byte order.

    Parameters
    ----------
    path : path
        The ``.npy`` file (format version 1.0 or 2.0).
    what : str
        What the file is, for messages (``"the glove-6b-50d vectors"``).

    Returns
    -------
    numpy.ndarray
        float32 or float64 as stored (float16 is widened to float32), C-contiguous: row lookups
        of a table stored in Fortran order would otherwise touch every column's page.

    Raises
    ------
    UserFileNotFoundError
        ``path`` does not exist.
    UserInputError
        Not an ``.npy`` file; not a 2-D float array (object, integer or structured dtypes are
        refused, so nothing is ever unpickled); an empty array; a file size that disagrees with
        the header (truncated, or data appended); a NaN or infinite value (the message names
        its row).
    """
    file = _existing(path, what)
    shape, fortran, dtype, offset = _npy_header(file, what)
    if dtype.kind != "f" or dtype.fields is not None or dtype.subdtype is not None:
        raise UserInputError(
            f"{what}: {str(file)!r} holds {dtype} values; expected floating-point numbers."
        )
    if len(shape) != 2 or 0 in shape:
        raise UserInputError(
            f"{what}: {str(file)!r} holds an array of shape {shape}; expected a non-empty 2-D "
            "matrix (one row per word)."
        )
    expected = offset + shape[0] * shape[1] * dtype.itemsize
    size = file.stat().st_size
    if size != expected:
        raise UserInputError(
            f"{what}: {str(file)!r} has {size} bytes but its header declares {shape[0]} x "
            f"{shape[1]} {dtype} values ({expected} bytes): a truncated or altered file."
        )
    mapped = np.memmap(
        file, dtype=dtype, mode="r", offset=offset, shape=shape, order="F" if fortran else "C"
    )
    target = np.dtype(np.float32) if dtype.itemsize < 4 else dtype.newbyteorder("=")
    # a copy in memory: the table must not change if the file does after the load
    matrix = np.ascontiguousarray(mapped, dtype=target)
    del mapped
    finite = np.isfinite(matrix).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise UserInputError(
            f"{what}: {str(file)!r}, row {row}: the vector holds NaN or inf "
            f"({int((~finite).sum())} such row(s))."
        )
    return matrix


def read_parquet_strings(
    path: str | os.PathLike[str], what: str, *, column: str, max_rows: int
) -> list[str]:
    """The values of the one string column of a Parquet file, checked against that schema.

    Parameters
    ----------
    path : path
        The Parquet file.
    what : str
        What the file is, for messages.
    column : str
        The name of its only column, of type ``string`` (or ``large_string``).
    max_rows : int
        Most rows accepted; the count in the file's footer is checked before the data is read.

    Raises
    ------
    UserFileNotFoundError
        ``path`` does not exist.
    UserInputError
        Not a readable Parquet file; other columns, another column name or type; more than
        ``max_rows`` rows; a missing (null) value; a value that is not valid UTF-8.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    file = _existing(path, what)
    try:
        parquet = pq.ParquetFile(file)
        schema = parquet.schema_arrow
        rows = parquet.metadata.num_rows
    except (pa.ArrowException, OSError) as error:
        raise UserInputError(f"{what}: {str(file)!r} is not a Parquet file ({error}).") from None
    found = [f"{field.name}: {field.type}" for field in schema]
    if schema.names != [column] or not (
        pa.types.is_string(schema.field(0).type) or pa.types.is_large_string(schema.field(0).type)
    ):
        raise UserInputError(
            f"{what}: {str(file)!r} has the columns [{', '.join(found)}]; expected exactly one, "
            f"{column!r} of strings."
        )
    if rows > max_rows:
        raise UserInputError(
            f"{what}: {str(file)!r} declares {rows} rows; at most {max_rows} are accepted."
        )
    try:
        values = parquet.read(columns=[column]).column(column)
        values.validate(full=True)  # UTF-8 included: Parquet does not guarantee it
    except (pa.ArrowException, OSError) as error:
        raise UserInputError(f"{what}: {str(file)!r} cannot be read ({error}).") from None
    if len(values) != rows:
        raise UserInputError(
            f"{what}: {str(file)!r} declares {rows} rows in its footer but holds {len(values)}."
        )
    if values.null_count:
        first = int(values.is_null().to_numpy(zero_copy_only=False).argmax())
        raise UserInputError(
            f"{what}: {str(file)!r}, row {first}: a missing value ({values.null_count} in all)."
        )
    words: list[str] = values.to_pylist()
    return words
