"""The bounded registry that links DynaMax's encoded rows back to their sentences' token ids.

DynaMax scores a pair from both sentences' word vectors, so MTEB's ``similarity`` calls, which
only see :meth:`~sts_extras.integrations.mteb.models.DynaMax.encode` outputs, need a way back from
each row to its tokens. :class:`SentenceRegistry` is that way: a least-recently-used map keyed by a
hash of the row.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sts_extras.errors import UserInputError
from sts_extras.io.content import content_hash

__all__ = ["SentenceRegistry"]


class SentenceRegistry:
    """Bounded map from an encoded row to the token ids it stands for (DynaMax's MTEB bridge).

    The key is a 128-bit hash of the row rounded to float32, so it survives slicing,
    concatenation and conversion to a float32 torch tensor. Rows with equal keys but different
    token multisets (which would need two different sentences with bitwise-equal summed
    vectors) are marked ambiguous and refused rather than guessed.

    Parameters
    ----------
    capacity : int
        Most rows remembered; the least recently registered ones are forgotten first.
    """

    _AMBIGUOUS = object()

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[str, Any] = OrderedDict()

    @staticmethod
    def _key(row: NDArray[np.number]) -> str:
        return content_hash(np.ascontiguousarray(row, dtype=np.float32).tobytes())

    def register(self, rows: NDArray[np.number], ids: list[NDArray[np.int64]]) -> None:
        """Remember that ``rows[i]`` stands for the tokens ``ids[i]``."""
        entries = self._entries
        for row, token_ids in zip(rows, ids):
            key = self._key(row)
            known = entries.get(key)
            if known is None:
                entries[key] = np.sort(token_ids)
            elif known is not self._AMBIGUOUS and not np.array_equal(known, np.sort(token_ids)):
                entries[key] = self._AMBIGUOUS
            entries.move_to_end(key)
        while len(entries) > self.capacity:
            entries.popitem(last=False)

    def lookup(self, rows: NDArray[np.number], name: str) -> list[NDArray[np.int64]]:
        """The (sorted) token ids of each row; ``name`` is the argument named in errors."""
        distinct, index = self.lookup_distinct(rows, name)
        return list(map(distinct.__getitem__, index.tolist()))

    def lookup_distinct(
        self, rows: NDArray[np.number], name: str
    ) -> tuple[list[NDArray[np.int64]], NDArray[np.int64]]:
        """The token ids of each distinct row, and for each row its distinct row.

        Rows are grouped by their float32 bytes (the registry's key) with numpy, so a sentence
        that recurs (MTEB encodes each sentence once per pair) is hashed and looked up once.
        Raises as :meth:`lookup` would, naming the first row that is not known.
        """
        keyed = np.ascontiguousarray(rows, dtype=np.float32)
        firsts, index = _equal_rows(keyed)
        out: list[NDArray[np.int64]] = []
        failures: list[tuple[int, bool]] = []
        for first in firsts.tolist():
            known = self._entries.get(self._key(keyed[first]))
            if known is None or known is self._AMBIGUOUS:
                failures.append((first, known is None))
                known = np.empty(0, dtype=np.int64)
            out.append(known)
        if failures:
            row, unknown = min(failures)
            if unknown:
                raise UserInputError(
                    f"`{name}` row {row} was not produced by this model's encode() (or was "
                    "evicted from its registry, or its values were altered, e.g. cast to float16). "
                    "DynaMax is a pairwise measure: its similarity needs the encode() outputs of "
                    "the same DynaMax object."
                )
            raise UserInputError(
                f"`{name}` row {row}: two different sentences encoded to the same summed "
                "vector, so DynaMax cannot tell them apart; use DynaMax.score() instead."
            )
        return out, index


def _equal_rows(rows: NDArray[np.float32]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Group the float32 rows with equal bytes: the first row of each group, and each row's group.

    Rows are grouped by one product with a fixed random vector, then compared with their
    group's first row in full; a row that differs (a collision) becomes its own group, so the
    grouping is exact whatever the values (NaN, -0.0: bytes are compared, as the key hashes
    them).
    """
    n = rows.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    bits = rows.view(np.uint32)
    probe = np.random.default_rng(0).standard_normal(rows.shape[1], dtype=np.float32)
    with np.errstate(all="ignore"):
        hashes = (rows @ probe).view(np.uint32)
    _, firsts, groups = np.unique(hashes, return_index=True, return_inverse=True)
    groups = groups.reshape(-1)
    differs = np.flatnonzero((bits != bits[firsts[groups]]).any(axis=1))
    if differs.size:
        groups[differs] = firsts.size + np.arange(differs.size)
        firsts = np.concatenate([firsts, differs])
    return firsts.astype(np.int64), groups.astype(np.int64)
