"""What a table of word vectors is, as a full-content hash: rows, words, tokenisation.

A cache entry or a leaderboard cell made with a :class:`~sts_extras.vectors.WordVectors` is keyed
by these digests, never by a file's path, size or a sample of rows: the same table read from two
places (or two formats) has one identity, and any changed value, word or row order has another.

The table is hashed as it is used (every byte, rows in order, little-endian), in blocks of rows so
that a non-contiguous table is never copied whole. The hash is the package's content hash,
:data:`~sts_extras.io.content.CONTENT_HASH` (XXH3-128), which runs at several GB/s: a
400 000 x 300 float32 table (480 MB, GloVe's size) costs well under a second, little beside the
tens of seconds its text file takes to read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from sts_extras.io.content import content_hasher

if TYPE_CHECKING:
    import xxhash

__all__ = ["array_digest", "callable_identity", "table_digest"]

# rows hashed per block: about 16 MB at 300 float32 columns
_BLOCK_BYTES = 16 << 20


def array_digest(array: ArrayLike, digest: xxhash.xxh3_128 | None = None) -> xxhash.xxh3_128:
    """Feed every byte of ``array`` (dtype, shape, values in C order, little-endian) to a hash.

    Parameters
    ----------
    array : array_like
        Any numeric array.
    digest : xxhash.xxh3_128, optional
        The hash to update; a new :func:`~sts_extras.io.content.content_hasher` by default.

    Returns
    -------
    xxhash.xxh3_128
        ``digest``, updated.
    """
    digest = digest if digest is not None else content_hasher()
    table = np.asarray(array)
    little = table.dtype.newbyteorder("<")
    digest.update(json.dumps([little.str, list(table.shape)]).encode("ascii"))
    if table.ndim == 0 or table.size == 0:
        digest.update(np.ascontiguousarray(table, dtype=little).tobytes())
        return digest
    row_bytes = max(1, table.itemsize * (table.size // table.shape[0]))
    step = max(1, _BLOCK_BYTES // row_bytes)
    for start in range(0, table.shape[0], step):
        block = np.ascontiguousarray(table[start : start + step], dtype=little)
        digest.update(block.data.cast("B"))
    return digest


def table_digest(words: Sequence[str], table: ArrayLike, *, extra: str = "") -> str:
    """The content hash (:data:`~sts_extras.io.content.CONTENT_HASH`, hex) of a vector table,
    its words in row order, and ``extra`` (e.g. subwords).

    Parameters
    ----------
    words : sequence of str
        The word of each row.
    table : array_like, shape (len(words), dim)
        The vectors.
    extra : str
        Anything else that decides the vectors the table gives (the identity of fastText's
        subword n-gram table).
    """
    digest = content_hasher()
    digest.update(b"sts-extras word vectors v1\0")
    # JSON quotes every word: no separator inside a word can make two lists hash alike
    names = json.dumps(list(words), ensure_ascii=False).encode("utf-8", "surrogatepass")
    digest.update(len(names).to_bytes(8, "big") + names)
    array_digest(table, digest)
    digest.update(extra.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def callable_identity(function: Callable[..., object]) -> str | None:
    """A stable name of a tokeniser given as a callable, or None when it has none.

    A :class:`~sts_extras.vectors.RegexTokenizer` is its pattern. Any other callable runs code
    whose behaviour no digest can capture (a closure's state, a global it reads), so it has no
    identity: the scores made with it are never cached nor merged across runs.
    """
    from sts_extras.vectors.tokenization import RegexTokenizer

    if type(function) is RegexTokenizer:
        return f"regex:{function.pattern}"
    return None
