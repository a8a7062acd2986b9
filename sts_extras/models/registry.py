"""The bounded registry that links DynaMax's encoded rows back to their sentences' token ids.

DynaMax scores a pair from both sentences' word vectors, so MTEB's ``similarity`` calls, which
only see :meth:`~sts_extras.models.DynaMax.encode` outputs, need a way back from each row to its
tokens. :class:`SentenceRegistry` is that way: a least-recently-used map keyed by a hash of the row.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

import numpy as np

from sts_extras.errors import UserInputError

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
        self._entries: OrderedDict[bytes, Any] = OrderedDict()

    @staticmethod
    def _key(row: np.ndarray) -> bytes:
        return hashlib.blake2b(
            np.ascontiguousarray(row, dtype=np.float32).tobytes(), digest_size=16
        ).digest()

    def register(self, rows: np.ndarray, ids: list[np.ndarray]) -> None:
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

    def lookup(self, rows: np.ndarray, name: str) -> list[np.ndarray]:
        """The (sorted) token ids of each row; ``name`` is the argument named in errors."""
        out: list[np.ndarray] = []
        for index, row in enumerate(rows):
            known = self._entries.get(self._key(row))
            if known is None:
                raise UserInputError(
                    f"`{name}` row {index} was not produced by this model's encode() (or was "
                    "evicted from its registry, or its values were altered, e.g. cast to float16). "
                    "DynaMax is a pairwise measure: its similarity needs the encode() outputs of "
                    "the same DynaMax object."
                )
            if known is self._AMBIGUOUS:
                raise UserInputError(
                    f"`{name}` row {index}: two different sentences encoded to the same summed "
                    "vector, so DynaMax cannot tell them apart; use DynaMax.score() instead."
                )
            out.append(known)
        return out
