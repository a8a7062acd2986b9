"""Vector files: format detection and validating readers.

Text formats (word2vec text, GloVe, fastText ``.vec``, optionally ``.gz``/``.bz2``) are read here,
line by line; binary word2vec, fastText ``.bin`` and gensim's native files are read by gensim
(imported only inside the readers) and checked afterwards. A malformed file raises ``ValueError``
naming the file and the line (or vector); a missing file raises
:class:`~sts_extras.errors.UserFileNotFoundError`.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from sts_extras.errors import UserFileNotFoundError
from sts_extras.optional import requires_extra

__all__ = [
    "check_finite",
    "existing_file",
    "file_stem",
    "has_word2vec_header",
    "inner_suffix",
    "is_fasttext_bin",
    "json_value",
    "read_fasttext_binary",
    "read_keyed_vectors",
    "read_text_vectors",
    "read_word2vec_binary",
]

_FASTTEXT_MAGIC = 793712314  # first int32 of a fastText .bin file (gensim's _fasttext_bin)


def _open_binary(path: Path) -> io.BufferedIOBase:
    if path.suffix == ".gz":
        return gzip.open(path, "rb")
    if path.suffix == ".bz2":
        return bz2.open(path, "rb")
    return path.open("rb")


def inner_suffix(path: Path) -> str:
    """The format suffix of ``path``, lower-cased, under a ``.gz``/``.bz2`` compression suffix."""
    suffixes = [suffix.lower() for suffix in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2"):
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def is_fasttext_bin(path: Path) -> bool:
    """Does ``path`` start with fastText's magic number (a fastText ``.bin`` model)?"""
    with _open_binary(path) as handle:
        head = handle.read(4)
    return len(head) == 4 and int(np.frombuffer(head, dtype="<i4")[0]) == _FASTTEXT_MAGIC


def has_word2vec_header(path: Path) -> bool:
    """Is the first line of ``path`` a word2vec ``<count> <dimension>`` header?"""
    with _open_binary(path) as handle:
        first = handle.readline(4096)
    parts = first.split()
    return len(parts) == 2 and all(part.isdigit() for part in parts)


def read_text_vectors(path: Path, *, header: bool) -> tuple[list[str], np.ndarray]:
    """Read word2vec-text / GloVe / fastText ``.vec`` vectors, validating every line.

    Written here rather than calling gensim's text reader because that reader neither checks
    line widths (a line with one value is silently broadcast to the full dimension) nor reports
    line numbers. Repeated words keep their first vector (as gensim does), with one warning.
    """
    words: list[str] = []
    rows: list[np.ndarray] = []
    lines: list[int] = []
    seen: set[str] = set()
    duplicates = 0
    declared: int | None = None
    dim: int | None = None
    with _open_binary(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as error:
                raise ValueError(
                    f"{path}, line {number}: not valid UTF-8 ({error.reason})."
                ) from None
            if number == 1 and header:
                parts = line.split()
                if len(parts) != 2 or not all(part.isdigit() for part in parts):
                    raise ValueError(
                        f"{path}, line 1: expected a '<count> <dimension>' header, "
                        f"got {line[:60]!r}."
                    )
                declared, dim = int(parts[0]), int(parts[1])
                continue
            if not line.strip():
                continue  # blank lines carry no vector
            parts = line.rstrip().split(" ")
            if len(parts) < 2:
                raise ValueError(
                    f"{path}, line {number}: expected a word followed by its vector, "
                    f"got {line[:60]!r}."
                )
            if dim is None:
                dim = len(parts) - 1
            if len(parts) - 1 != dim:
                raise ValueError(
                    f"{path}, line {number}: the vector of {parts[0]!r} has "
                    f"{len(parts) - 1} values, "
                    f"expected {dim} (dimension mismatch)."
                )
            if declared is not None and len(words) + duplicates >= declared:
                raise ValueError(
                    f"{path}, line {number}: more vectors than the {declared} the header declares."
                )
            try:
                vector = np.array(parts[1:], dtype=np.float32)
            except ValueError:
                bad = next(value for value in parts[1:] if not _is_float(value))
                raise ValueError(f"{path}, line {number}: {bad[:30]!r} is not a number.") from None
            if parts[0] in seen:
                duplicates += 1
                continue
            seen.add(parts[0])
            words.append(parts[0])
            rows.append(vector)
            lines.append(number)
    if declared is not None and len(words) + duplicates < declared:
        raise ValueError(
            f"{path}, line {(lines[-1] if lines else 1) + 1}: the header declares "
            f"{declared} vectors "
            f"but the file ends after {len(words) + duplicates}."
        )
    if not words:
        raise ValueError(f"{path}: no word vectors found (empty vocabulary).")
    table = np.stack(rows)
    finite = np.isfinite(table).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise ValueError(
            f"{path}, line {lines[row]}: the vector of {words[row]!r} holds NaN or inf."
        )
    if duplicates:
        warnings.warn(
            f"{path}: {duplicates} repeated word(s); the first vector of each was kept.",
            stacklevel=3,
        )
    return words, table


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _diagnose_binary(path: Path) -> None:
    """Raise the reason gensim could not read a word2vec binary file (header or data size)."""
    with _open_binary(path) as handle:
        first = handle.readline(4096)
        rest = handle.read()
    parts = first.split()
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise ValueError(
            f"{path}, line 1: expected a '<count> <dimension>' header, got {first[:60]!r}."
        )
    count, dim = int(parts[0]), int(parts[1])
    raise ValueError(
        f"{path}: the header (line 1) declares {count} vectors of dimension {dim}, but the binary "
        f"data ({len(rest)} bytes) does not hold them (truncated or not word2vec binary)."
    )


def check_finite(kv: Any, path: Path | None) -> None:
    """Fail on the first vector of ``kv`` holding NaN or inf (``path``: the binary file read)."""
    finite = np.isfinite(kv.vectors).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        where = "the KeyedVectors" if path is None else f"{path}, vector {row + 1}"
        raise ValueError(f"{where}: the vector of {kv.index_to_key[row]!r} holds NaN or inf.")


def read_word2vec_binary(path: Path) -> Any:
    """A gensim ``KeyedVectors`` from a word2vec binary file (``ValueError`` saying why not)."""
    with requires_extra("vectors"):
        from gensim.models import KeyedVectors

    try:
        return KeyedVectors.load_word2vec_format(str(path), binary=True)
    except (ValueError, EOFError, UnicodeDecodeError, IndexError, AssertionError) as error:
        _diagnose_binary(path)
        raise ValueError(f"{path}: could not read word2vec binary vectors ({error}).") from None


def read_fasttext_binary(path: Path) -> Any:
    """The ``FastTextKeyedVectors`` (with subword n-grams) of a fastText ``.bin`` model."""
    with requires_extra("vectors"):
        from gensim.models.fasttext import load_facebook_vectors

    try:
        kv = load_facebook_vectors(str(path))
    except (ValueError, EOFError, AssertionError, NotImplementedError, OSError) as error:
        raise ValueError(f"{path}: could not read the fastText binary model ({error}).") from None
    if len(kv.index_to_key) == 0:
        raise ValueError(f"{path}: no word vectors found (empty vocabulary).")
    return kv


def read_keyed_vectors(path: Path) -> Any:
    """A gensim ``KeyedVectors`` saved in gensim's native format (``.kv``/``.model``)."""
    with requires_extra("vectors"):
        from gensim.models import KeyedVectors

    try:
        return KeyedVectors.load(str(path))
    except Exception as error:  # noqa: BLE001 -- unpickling fails in many ways
        raise ValueError(f"{path}: not a gensim KeyedVectors file ({error}).") from None


def existing_file(path: str | os.PathLike) -> Path:
    """``path`` as a Path, or a user error if it is not an existing file."""
    resolved = Path(path).expanduser()
    if not resolved.is_file():
        raise UserFileNotFoundError(f"Vector file not found: {resolved}")
    return resolved


def file_stem(path: Path) -> str:
    """The default name of vectors read from ``path``: the file name without its suffixes."""
    name = path.name
    for suffix in (".gz", ".bz2"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    for suffix in (".txt", ".vec", ".bin", ".kv", ".model"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or path.name
    return name


def json_value(path: Path, key: str) -> Any:
    """``key`` of the JSON object in ``path``; None if unreadable or missing."""
    try:
        return json.loads(path.read_text(encoding="utf-8")).get(key)
    except (OSError, ValueError, AttributeError):
        return None
