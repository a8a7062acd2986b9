"""Vector files: format detection and validating readers.

Text formats (word2vec text, GloVe, fastText ``.vec``) and word2vec binary files, optionally
``.gz``/``.bz2``, are read here and checked entry by entry; fastText ``.bin`` and gensim's native
files are read by gensim (imported only inside the readers), a fastText file after its header and
vocabulary have been checked here. A malformed
file raises :class:`~sts_extras.errors.UserInputError` naming the file and the line (or vector); a
missing file raises :class:`~sts_extras.errors.UserFileNotFoundError`.

A word given twice follows one rule in every format: **the first vector is kept** (as gensim and
word2vec's own tools do), and a :class:`RepeatedWordsWarning` names the file, each repeated word
and the two lines (binary files: vector numbers) where it appears. Published files do carry
repeats (GloVe 840B, some Chinese word2vec sets), so refusing them would make such files
unusable; the warning makes the choice visible. The vocabulary keeps the first index of a word
for vectors built in Python too (:class:`~sts_extras.vectors.tokenization.Vocabulary`). fastText
``.bin`` files are the exception that is no exception: fastText's dictionary is a hash table
that cannot hold a word twice, so a repeat there means a corrupt file and is refused.

gensim's native files (``.kv``/``.model``, written by ``KeyedVectors.save``) are Python pickles,
and unpickling runs whatever code the file holds, so :func:`read_keyed_vectors` opens one only
with ``trust_pickle=True``. Every other reader parses plain data: text, raw float32 (word2vec and
fastText ``.bin``) or safetensors (model2vec, read elsewhere).
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import re
import struct
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from sts_extras.errors import InputWarning, UserFileNotFoundError, UserInputError
from sts_extras.io.numbers import parse_number
from sts_extras.io.text import read_json
from sts_extras.optional import requires_extra

if TYPE_CHECKING:  # gensim ships no type information: these are names for the reader
    from gensim.models import KeyedVectors
    from gensim.models.fasttext import FastTextKeyedVectors

__all__ = [
    "SAFE_FORMATS",
    "RepeatedWordsWarning",
    "check_finite",
    "existing_file",
    "file_stem",
    "has_word2vec_header",
    "header_counts",
    "inner_suffix",
    "is_fasttext_bin",
    "json_value",
    "read_fasttext_binary",
    "read_keyed_vectors",
    "read_text_vectors",
    "read_word2vec_binary",
]

_FASTTEXT_MAGIC = 793712314  # first int32 of a fastText .bin file (gensim's _fasttext_bin)
_CHUNK = 1 << 20  # bytes read at a time from a binary file
_MAX_WORD_BYTES = 1 << 16  # a longer "word" means the data is misaligned, not a real word
_BOM = "\ufeff"
# A word2vec header: two counts in ASCII digits (str.isdigit also takes "²" and "١", which
# int() then refuses or reads as another number).
_HEADER = re.compile(r"([0-9]+)[ \t]+([0-9]+)")
# Characters a vector value may hold; numpy's float parser also takes "1_000", "inf", "nan"
# and full-width digits, so a line with any other character is refused before numpy sees it
# (what is left, numpy reads exactly as the plain-decimal grammar of parse_number).
_NOT_DECIMAL = re.compile(r"[^0-9eE.+\- ]")
# Formats holding only data, named when a pickle-based file is refused.
SAFE_FORMATS = (
    "word2vec text or binary, GloVe text, fastText .vec or .bin, a model2vec directory "
    "(safetensors)"
)


class RepeatedWordsWarning(InputWarning):
    """A vector file gives a word twice; the first vector was kept (see the module docstring)."""


#: Repeats named in one warning; the rest are counted.
_REPEATS_SHOWN = 5


def _warn_repeated(path: Path, repeats: list[tuple[str, int, int]], unit: str) -> None:
    """One :class:`RepeatedWordsWarning` for the repeated words of ``path``: (word, where it
    came first, where it came again), ``unit`` ``"line"`` or ``"vector"``."""
    if not repeats:
        return
    shown = "; ".join(
        f"{word!r} on {unit}s {first} and {again}"
        for word, first, again in repeats[:_REPEATS_SHOWN]
    )
    more = len(repeats) - _REPEATS_SHOWN
    rest = f"; and {more} more" if more > 0 else ""
    warnings.warn(
        f"{path}: {len(repeats)} repeated word(s), the first vector of each kept: {shown}{rest}.",
        RepeatedWordsWarning,
        stacklevel=4,
    )


def _compressed(path: Path) -> bool:
    return path.suffix in (".gz", ".bz2")


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
    return header_counts(first) is not None


def header_counts(first: bytes | str) -> tuple[int, int] | None:
    """``(count, dimension)`` of a word2vec header line (``b"3000000 300\\n"``), else None.

    A leading UTF-8 byte-order mark is dropped (an editor's UTF-8 file); the two counts must be
    plain ASCII digits separated by spaces or tabs, nothing else on the line.
    """
    if isinstance(first, bytes):
        try:
            first = first.decode("utf-8")
        except UnicodeDecodeError:
            return None
    match = _HEADER.fullmatch(first.removeprefix(_BOM).strip(" \t\r\n"))
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))


def read_text_vectors(path: Path, *, header: bool) -> tuple[list[str], NDArray[np.float32]]:
    """Read word2vec-text / GloVe / fastText ``.vec`` vectors, validating every line.

    Written here rather than calling gensim's text reader because that reader neither checks
    line widths (a line with one value is silently broadcast to the full dimension) nor reports
    line numbers. Repeated words keep their first vector (as gensim does), with one
    :class:`RepeatedWordsWarning` naming each word and both lines.
    """
    words: list[str] = []
    rows: list[NDArray[np.float32]] = []
    lines: list[int] = []
    seen: dict[str, int] = {}  # word -> the line of its kept vector
    repeats: list[tuple[str, int, int]] = []
    declared: int | None = None
    dim: int | None = None
    with _open_binary(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as error:
                raise UserInputError(
                    f"{path}, line {number}: not valid UTF-8 ({error.reason})."
                ) from None
            if number == 1:
                line = line.removeprefix(_BOM)
            if number == 1 and header:
                counts = header_counts(line)
                if counts is None:
                    raise UserInputError(
                        f"{path}, line 1: expected a '<count> <dimension>' header, "
                        f"got {line[:60]!r}."
                    )
                declared, dim = counts
                continue
            if not line.strip():
                continue  # blank lines carry no vector
            parts = line.rstrip().split(" ")
            if len(parts) < 2:
                raise UserInputError(
                    f"{path}, line {number}: expected a word followed by its vector, "
                    f"got {line[:60]!r}."
                )
            if dim is None:
                dim = len(parts) - 1
            if len(parts) - 1 != dim:
                raise UserInputError(
                    f"{path}, line {number}: the vector of {parts[0]!r} has "
                    f"{len(parts) - 1} values, "
                    f"expected {dim} (dimension mismatch)."
                )
            if declared is not None and len(words) + len(repeats) >= declared:
                raise UserInputError(
                    f"{path}, line {number}: more vectors than the {declared} the header declares."
                )
            try:
                if _NOT_DECIMAL.search(line.rstrip(), len(parts[0]) + 1) is not None:
                    raise ValueError("not a plain decimal")
                with np.errstate(over="ignore"):  # beyond float32: inf, named below
                    vector = np.array(parts[1:], dtype=np.float32)
            except ValueError:
                bad = next(value for value in parts[1:] if not _is_float(value))
                if bad.lower().lstrip("+-") in ("nan", "inf", "infinity"):
                    raise UserInputError(
                        f"{path}, line {number}: the vector of {parts[0]!r} holds NaN or inf."
                    ) from None
                raise UserInputError(
                    f"{path}, line {number}: {bad[:30]!r} is not a number."
                ) from None
            if parts[0] in seen:
                repeats.append((parts[0], seen[parts[0]], number))
                continue
            seen[parts[0]] = number
            words.append(parts[0])
            rows.append(vector)
            lines.append(number)
    if declared is not None and len(words) + len(repeats) < declared:
        raise UserInputError(
            f"{path}, line {(lines[-1] if lines else 1) + 1}: the header declares "
            f"{declared} vectors "
            f"but the file ends after {len(words) + len(repeats)}."
        )
    if not words:
        raise UserInputError(f"{path}: no word vectors found (empty vocabulary).")
    table = np.stack(rows)
    finite = np.isfinite(table).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise UserInputError(
            # "nan" and "inf" are refused as words above: this is a decimal beyond float32
            f"{path}, line {lines[row]}: the vector of {words[row]!r} holds a value out of range "
            "(vectors are float32: at most ±3.4e38)."
        )
    _warn_repeated(path, repeats, "line")
    return words, table


def _is_float(text: str) -> bool:
    try:
        parse_number(text, "a vector value")
    except UserInputError:
        return False
    return True


class _ByteStream:
    """Sequential reads from a binary file through a small window (never the whole file)."""

    def __init__(self, handle: io.BufferedIOBase) -> None:
        self._handle = handle
        self._data = b""
        self._pos = 0
        self._dropped = 0  # bytes consumed before ``_data``

    @property
    def position(self) -> int:
        """Bytes consumed so far."""
        return self._dropped + self._pos

    def _fill(self, needed: int) -> bool:
        """Make ``needed`` bytes available after the position; False if the file ends first."""
        self._dropped += self._pos
        pieces = [self._data[self._pos :]]
        have = len(pieces[0])
        while have < needed:
            piece = self._handle.read(_CHUNK)  # a huge read would allocate its size
            if not piece:
                break
            pieces.append(piece)
            have += len(piece)
        self._data, self._pos = b"".join(pieces), 0
        return have >= needed

    def at_end(self) -> bool:
        """True when no byte is left."""
        return self._pos >= len(self._data) and not self._fill(1)

    def skip_newlines(self) -> None:
        """Skip the newlines word2vec.c writes after each vector (gensim writes none)."""
        while not self.at_end() and self._data[self._pos] == 0x0A:
            self._pos += 1

    def until(self, delimiter: bytes, limit: int) -> bytes | None:
        """The bytes before the next ``delimiter`` (consumed with it); None if the file ends first.

        Gives up after ``limit`` bytes without one, returning more than ``limit`` bytes.
        """
        while True:
            index = self._data.find(delimiter, self._pos, self._pos + limit + 1)
            if index >= 0:
                word = self._data[self._pos : index]
                self._pos = index + 1
                return word
            available = len(self._data) - self._pos
            if available > limit:
                return self._data[self._pos :]
            if not self._fill(available + 1):
                return None

    def take(self, size: int) -> bytes | None:
        """The next ``size`` bytes; None if the file ends first."""
        if len(self._data) - self._pos < size and not self._fill(size):
            return None
        data = self._data[self._pos : self._pos + size]
        self._pos += size
        return data

    def skip(self, size: int) -> bool:
        """Skip ``size`` bytes without keeping them; False if the file ends first."""
        while len(self._data) - self._pos < size:
            size -= len(self._data) - self._pos
            self._pos = len(self._data)
            if not self._fill(1):
                return False
        self._pos += size
        return True

    def drain(self) -> int:
        """Read to the end of the file; the number of bytes that were left."""
        left = len(self._data) - self._pos
        self._data, self._pos = b"", 0
        while piece := self._handle.read(_CHUNK):
            left += len(piece)
        return left


def _binary_header(path: Path, first: bytes) -> tuple[int, int]:
    counts = header_counts(first)
    if counts is None:
        raise UserInputError(
            f"{path}, line 1: expected a '<count> <dimension>' header, got {first[:60]!r}."
        )
    count, dim = counts
    if dim < 1:
        raise UserInputError(f"{path}, line 1: the header declares vectors of dimension {dim}.")
    return count, dim


def _binary_entry(
    stream: _ByteStream, path: Path, entry: int, dim: int
) -> tuple[bytes, bytes] | None:
    """The word and vector bytes of ``entry`` (1-based); None if the data ends before them."""
    stream.skip_newlines()
    word = stream.until(b" ", _MAX_WORD_BYTES)
    if word is not None and len(word) > _MAX_WORD_BYTES:
        raise UserInputError(
            f"{path}, vector {entry}: no word found (no space within {_MAX_WORD_BYTES} bytes): "
            f"not word2vec binary, or the header's dimension {dim} is wrong."
        )
    vector = None if word is None else stream.take(4 * dim)
    return None if word is None or vector is None else (word, vector)


def _extra_data(stream: _ByteStream, path: Path, count: int, dim: int) -> str | None:
    """What follows the ``count`` declared vectors, described; None if nothing does."""
    extra = 0
    try:
        while _binary_entry(stream, path, count + extra + 1, dim) is not None:
            extra += 1
    except UserInputError:
        pass
    left = stream.drain()
    if not extra and not left:
        return None
    if not left:
        return f"holds {count + extra}"
    return f"has {left} more bytes after vector {count + extra}"


def read_word2vec_binary(path: Path) -> tuple[list[str], NDArray[np.float32]]:
    """Read a word2vec binary file, checking the header against the data.

    Written here rather than calling gensim's binary reader because that reader loads only the
    vectors the header counts (silently dropping the rest), allocates the table the header
    declares before reading anything, and reports a word that is not UTF-8 as a truncated file.
    Here a header promising more data than the file holds is refused before any allocation (for a
    compressed file the table grows with the data instead), data after the declared vectors is
    an error, and a bad word is named by its vector number. Repeated words keep their first
    vector (as gensim does), with one :class:`RepeatedWordsWarning` naming each word and both
    vector numbers.
    """
    compressed = _compressed(path)
    with _open_binary(path) as handle:
        first = handle.readline(4096)
        count, dim = _binary_header(path, first)
        declared = f"{path}: the header (line 1) declares {count} vectors of dimension {dim}"
        # each entry is at least a space and 4*dim bytes of float32
        needed = count * (4 * dim + 1)
        if not compressed and needed > (available := path.stat().st_size - len(first)):
            raise UserInputError(
                f"{declared}, at least {needed} bytes, but only {available} bytes follow it "
                "(a wrong header, or a truncated file)."
            )
        table: NDArray[np.float32] | None = None  # allocated once a first vector has been read
        words: list[str] = []
        seen: dict[str, int] = {}  # word -> the entry of its kept vector
        skipped: list[int] = []  # entries of repeated words
        repeats: list[tuple[str, int, int]] = []
        stream = _ByteStream(handle)
        for entry in range(1, count + 1):
            found = _binary_entry(stream, path, entry, dim)
            if found is None:
                raise UserInputError(
                    f"{declared}, but the data ends inside vector {entry} "
                    "(a truncated file, or a wrong header)."
                )
            raw, vector = found
            try:
                word = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                # misaligned data (a wrong dimension) shows up here too: say so past vector 1
                hint = f"; or the header's dimension {dim} is wrong" if entry > 1 else ""
                raise UserInputError(
                    f"{path}, vector {entry} of {count}: the word {raw[:40]!r} is not valid UTF-8 "
                    f"({error.reason} at byte {error.start}){hint}."
                ) from None
            if word in seen:
                skipped.append(entry)
                repeats.append((word, seen[word], entry))
                continue
            if table is None or len(words) == len(table):
                table = _grown(table, count, dim, compressed=compressed)
            seen[word] = entry
            table[len(words)] = np.frombuffer(vector, dtype="<f4")
            words.append(word)
        extra = _extra_data(stream, path, count, dim)
    if extra is not None:
        raise UserInputError(
            f"{path}: the header (line 1) declares {count} vectors but the file {extra}; "
            "reading only the declared ones would silently drop the rest (fix the header)."
        )
    if table is None:
        raise UserInputError(f"{path}: no word vectors found (empty vocabulary).")
    table = table[: len(words)]
    finite = np.isfinite(table).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        entry = row + 1
        for skip in skipped:  # increasing entry numbers
            entry += skip <= entry
        raise UserInputError(
            f"{path}, vector {entry}: the vector of {words[row]!r} holds NaN or inf."
        )
    _warn_repeated(path, repeats, "vector")
    return words, table


def _grown(
    table: NDArray[np.float32] | None, count: int, dim: int, *, compressed: bool
) -> NDArray[np.float32]:
    """A larger table holding ``table``'s rows.

    An uncompressed file was checked against its size, so its table is allocated whole; a
    compressed one grows by doubling from about one chunk, at most twice the data read so far.
    """
    if table is None:
        rows = min(count, max(1, _CHUNK // (4 * dim))) if compressed else count
    else:
        rows = min(count, 2 * len(table))
    grown = np.empty((rows, dim), dtype=np.float32)
    if table is not None:
        grown[: len(table)] = table
    return grown


def check_finite(kv: KeyedVectors, path: Path | None) -> None:
    """Fail on the first vector of ``kv`` holding NaN or inf (``path``: the file it came from)."""
    finite = np.isfinite(kv.vectors).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        where = "the KeyedVectors" if path is None else f"{path}, vector {row + 1}"
        raise UserInputError(f"{where}: the vector of {kv.index_to_key[row]!r} holds NaN or inf.")


def _check_fasttext_layout(path: Path) -> None:
    """Walk the header and vocabulary of a fastText ``.bin`` file before gensim reads it.

    gensim's reader loops forever on a file that ends inside the vocabulary, silently replaces
    the bytes of a word that is not UTF-8, and reads a matrix of whatever size the file declares.
    Here those are named errors; the rest (unsupported models, the matrix itself) is gensim's.
    """
    with _open_binary(path) as handle:
        stream = _ByteStream(handle)
        # magic, version, 12 int32 and one double of arguments; vocabulary size, words, labels
        head = stream.take(64 + 12 + 16)
        if head is None:
            raise UserInputError(f"{path}: the fastText header is truncated.")
        dim = struct.unpack_from("@i", head, 8)[0]
        size, nwords, nlabels = struct.unpack_from("@3i", head, 64)
        prune_pairs = struct.unpack_from("@q", head, 84)[0]
        if nlabels > 0:
            return  # a supervised model: gensim refuses it by name
        if not 0 <= nwords <= size or prune_pairs < -1:
            raise UserInputError(
                f"{path}: the fastText header declares {size} vocabulary entries and {nwords} "
                "words (a corrupt header)."
            )
        compressed = _compressed(path)
        # each vocabulary entry is at least a NUL, an int64 count and an int8 type
        if not compressed and 10 * size > (left := path.stat().st_size - stream.position):
            raise UserInputError(
                f"{path}: the fastText header declares {size} vocabulary entries, at least "
                f"{10 * size} bytes, but only {left} bytes follow (a corrupt header, or a "
                "truncated file)."
            )
        entries: dict[bytes, int] = {}  # word -> its vocabulary entry
        for entry in range(1, size + 1):
            word = stream.until(b"\0", _MAX_WORD_BYTES)
            if word is None or not stream.skip(9):  # int64 count, int8 entry type
                raise UserInputError(
                    f"{path}: the fastText header declares {size} vocabulary entries, but the "
                    f"file ends inside entry {entry} (a truncated file, or a wrong header)."
                )
            if len(word) > _MAX_WORD_BYTES:
                raise UserInputError(
                    f"{path}, vocabulary entry {entry}: no word end within {_MAX_WORD_BYTES} "
                    "bytes (a corrupt file)."
                )
            try:
                word.decode("utf-8")
            except UnicodeDecodeError as error:
                raise UserInputError(
                    f"{path}, vocabulary entry {entry} of {size}: the word {word[:40]!r} is not "
                    f"valid UTF-8 ({error.reason} at byte {error.start})."
                ) from None
            if word in entries:  # fastText's hash-table dictionary never writes a word twice
                raise UserInputError(
                    f"{path}: the word {word.decode('utf-8')!r} is vocabulary entries "
                    f"{entries[word]} and {entry}; fastText never writes a word twice, so the "
                    "file is corrupt (its vectors would be assigned to the wrong words)."
                )
            entries[word] = entry
        shape = stream.take(1 + 16) if stream.skip(8 * max(prune_pairs, 0)) else None
        if shape is None:
            raise UserInputError(f"{path}: the file ends before the fastText input matrix.")
        rows, columns = struct.unpack_from("@2q", shape, 1)
        if compressed:
            return  # no size to check against; gensim reads the matrix in batches
        left = path.stat().st_size - stream.position
        if rows < nwords or columns != dim or 4 * rows * columns > left:
            raise UserInputError(
                f"{path}: the fastText input matrix declares {rows} x {columns} float32 values "
                f"for {nwords} words of dimension {dim}, but {left} bytes follow (a truncated "
                "file, or a corrupt header)."
            )


def read_fasttext_binary(path: Path) -> FastTextKeyedVectors:
    """The ``FastTextKeyedVectors`` (with subword n-grams) of a fastText ``.bin`` model."""
    _check_fasttext_layout(path)
    with requires_extra("vectors"):
        from gensim.models.fasttext import load_facebook_vectors

    try:
        kv = load_facebook_vectors(str(path))
    except (ValueError, EOFError, AssertionError, NotImplementedError, OSError) as error:
        raise UserInputError(
            f"{path}: could not read the fastText binary model ({error})."
        ) from None
    if len(kv.index_to_key) == 0:
        raise UserInputError(f"{path}: no word vectors found (empty vocabulary).")
    return kv


def read_keyed_vectors(path: Path, *, trust_pickle: bool) -> KeyedVectors:
    """The ``KeyedVectors`` of a file in gensim's native format (``.kv``/``.model``).

    Such a file is a Python pickle: loading it runs whatever code the file holds. It is opened
    only with ``trust_pickle=True``; otherwise a :class:`~sts_extras.errors.UserInputError` says
    why and names the formats that hold only data. A saved model (``Word2Vec``, ``FastText``)
    gives its ``.wv``.
    """
    if not trust_pickle:
        raise UserInputError(
            f"{path}: gensim's native format is a Python pickle, and loading a pickle runs any "
            "code stored in the file; if you trust where it came from, pass trust_pickle=True "
            f"(CLI: --trust-pickle), or use a format that holds only data: {SAFE_FORMATS}."
        )
    with requires_extra("vectors"):
        from gensim.models import KeyedVectors

    try:
        loaded = KeyedVectors.load(str(path))
    except Exception as error:  # noqa: BLE001 -- unpickling fails in many ways
        raise UserInputError(f"{path}: not a gensim KeyedVectors file ({error}).") from None
    kv = getattr(loaded, "wv", loaded)
    if not hasattr(kv, "index_to_key") or not hasattr(kv, "vectors"):
        raise UserInputError(
            f"{path}: not a gensim KeyedVectors file (it holds a {type(loaded).__name__})."
        )
    return kv


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


def json_value(path: Path, key: str) -> object:
    """``key`` of the JSON object in ``path``; None if unreadable, not an object, or missing
    (a format sniff: read strictly, UTF-8 with or without a byte-order mark)."""
    try:
        data = read_json(path, "a model's config")
    except (OSError, ValueError):
        return None
    return data.get(key) if isinstance(data, dict) else None
