"""Input handling of the fuzzy-set similarity functions: ragged sentences and the vector table.

Every function of :mod:`sts_extras.similarity.fuzzy` takes sentences either as integer row ids
into a shared ``vectors`` table or as ``(tokens, dim)`` word-vector matrices.
:func:`prepare_inputs` validates both forms and returns one :class:`VectorTable` and, per side,
one :class:`Ragged`: the row ids of all sentences back to back. Row-id sentences are checked on
their concatenation (one pass in C over the sentences, however many there are); the slow
per-sentence path only runs to name the sentence a bad input comes from.
"""

from __future__ import annotations

from collections.abc import Sequence, Sized
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import as_real_array, scale_exponent
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.similarity.kernels import starts_of

__all__ = ["Ragged", "VectorTable", "prepare_inputs"]

#: Largest vector value that scoring accepts: 2^511 (about 6.7e153), whose square fits float64.
LARGEST_SCORABLE = 2.0**511


@dataclass(frozen=True)
class Ragged:
    """Sentences as one flat array of table rows plus per-sentence offsets and lengths."""

    flat: NDArray[np.int64]  # row ids into the table, all sentences back to back
    offsets: NDArray[np.int64]  # start of each sentence in ``flat``
    lengths: NDArray[np.int64]  # number of tokens of each sentence

    def __len__(self) -> int:
        return self.lengths.size

    @classmethod
    def from_lengths(cls, tokens: NDArray[np.integer], lengths: NDArray[np.int64]) -> Ragged:
        """The sentences of ``lengths`` tokens each, back to back in ``tokens``."""
        return cls(
            flat=tokens.astype(np.int64, copy=False), offsets=starts_of(lengths), lengths=lengths
        )


@dataclass(frozen=True)
class VectorTable:
    """The word-vector table as given (never copied whole) and optional per-row weights.

    ``shift`` is a power of two applied to every gathered vector (``numpy.ldexp``, exact): 0 for
    vectors of ordinary magnitude, else the one that brings ``largest``, the largest used
    (weighted) value, into [0.5, 1), so that dot products neither overflow nor underflow. Every
    score is a ratio that does not depend on it; pooled vectors are scaled back.
    """

    data: NDArray[np.floating]  # (V, d), any float dtype
    weights: NDArray[np.float64] | None  # (V,)
    shift: int = 0
    largest: float = 0.0

    def check_scorable(self) -> None:
        """Refuse (weighted) vectors beyond :data:`LARGEST_SCORABLE` before scoring them.

        Their dot products overflow float64; the scores would be computable after rescaling,
        but such vectors are almost surely a mistake, so the user is told to rescale them.
        """
        if np.isfinite(self.largest) and self.largest > LARGEST_SCORABLE:
            raise UserInputError(
                f"The (weighted) word vectors reach {self.largest:.3g}: their dot products "
                "overflowed float64 (beyond about 6.7e153); rescale the vectors."
            )

    @property
    def dim(self) -> int:
        return int(self.data.shape[1])

    def gather(
        self, rows: NDArray[np.integer], valid: NDArray[np.bool_] | None = None
    ) -> NDArray[np.float64]:
        """float64 vectors of ``rows`` (any shape), weighted; zero where ``valid`` is False.

        Only the rows a chunk needs are read and cast, so memory is bounded by the chunk, never
        by the size of the table (e.g. 400k GloVe words stay float32 and untouched).
        """
        vectors = self.data[rows]  # fancy indexing: a fresh copy, safe to modify
        if self.weights is None:
            vectors = vectors.astype(np.float64, copy=False)
        else:
            vectors = np.multiply(vectors, self.weights[rows][..., None], dtype=np.float64)
        if self.shift:
            vectors = np.ldexp(vectors, self.shift)
        if valid is not None and not valid.all():
            vectors[~valid] = 0.0
        return vectors

    def check_finite(self, result: NDArray[np.float64], *raggeds: Ragged) -> NDArray[np.float64]:
        """Return ``result`` if finite; otherwise raise naming the bad row (never a silent NaN)."""
        if np.all(np.isfinite(result)):
            return result
        used = np.unique(np.concatenate([ragged.flat for ragged in raggeds]))
        values = self.gather(used)
        bad = np.flatnonzero(~np.all(np.isfinite(values), axis=1))
        if bad.size:
            raise UserInputError(
                f"`vectors` must be finite; row {int(used[bad[0]])} holds NaN or inf "
                "(after weighting)."
            )
        raise UserInputError(
            "The scores overflowed (a dot product of the word vectors is not finite in float64); "
            "rescale the vectors."
        )


def prepare_inputs(
    sentences1: Sequence[ArrayLike],
    sentences2: Sequence[ArrayLike],
    vectors: ArrayLike | None,
    weights: ArrayLike | None,
    *,
    paired: bool,
    names: tuple[str, str] = ("sentences1", "sentences2"),
) -> tuple[VectorTable, Ragged, Ragged]:
    """Validate the inputs; return the table (with weights) and the two sets of sentences.

    ``names`` are the argument names of the two sides, for the error messages.

    Raises
    ------
    sts_extras.errors.UserInputTypeError
        If a side is not a sequence of sentences, a sentence is neither row ids (with
        ``vectors``) nor a word-vector matrix (without), or ``vectors`` / ``weights`` hold
        booleans, complex numbers or strings.
    sts_extras.errors.UserInputError
        If ``paired`` and the sides differ in length, a row id is outside ``vectors``, or
        ``vectors`` / ``weights`` have the wrong shape or non-finite weights.
    """
    items1 = _sentence_list(sentences1, names[0])
    items2 = _sentence_list(sentences2, names[1])
    if paired and len(items1) != len(items2):
        raise UserInputError(
            f"`{names[0]}` and `{names[1]}` must hold the same number of sentences (one pair "
            f"each), got {len(items1)} and {len(items2)}."
        )
    if vectors is None:
        table, ragged1, ragged2 = _table_from_matrices(items1, items2, names)
        if weights is not None:
            raise UserInputError(
                "`weights` (one per row of `vectors`) needs `vectors`; with word-vector "
                "matrices, scale the vectors yourself."
            )
        return _scaled_table(table, None, ragged1, ragged2), ragged1, ragged2
    table = as_real_array(vectors, "vectors")
    if table.ndim != 2:
        raise UserInputError(
            f"`vectors` must be a 2-D numeric array (one row per word), got shape "
            f"{table.shape} and dtype {table.dtype}."
        )
    ragged1 = _row_ids(items1, names[0], table.shape[0])
    ragged2 = _row_ids(items2, names[1], table.shape[0])
    row_weights = None
    if weights is not None:
        row_weights = as_real_array(weights, "weights").astype(np.float64, copy=False)
        if row_weights.shape != (table.shape[0],):
            raise UserInputError(
                f"`weights` must hold one value per row of `vectors` ({table.shape[0]}), got "
                f"shape {row_weights.shape}."
            )
        if not np.all(np.isfinite(row_weights)):
            raise UserInputError("`weights` must be finite; it holds NaN or inf.")
    if not np.issubdtype(table.dtype, np.floating):
        table = table.astype(np.float64)
    return _scaled_table(table, row_weights, ragged1, ragged2), ragged1, ragged2


def _scaled_table(
    data: NDArray[np.floating], weights: NDArray[np.float64] | None, *raggeds: Ragged
) -> VectorTable:
    """The table with the ``shift`` its used rows need (only those rows are read)."""
    used = np.zeros(data.shape[0], dtype=bool)
    for ragged in raggeds:
        used[ragged.flat] = True
    rows = np.flatnonzero(used)
    if rows.size == 0 or data.shape[1] == 0:
        return VectorTable(data, weights)
    largest = np.abs(data[rows]).max(axis=1).astype(np.float64)
    if weights is not None:
        largest *= np.abs(weights[rows])
    top = float(largest.max())
    return VectorTable(data, weights, scale_exponent(top), top)


def _sentence_list(sentences: Sequence[ArrayLike], name: str) -> Sequence[ArrayLike]:
    if isinstance(sentences, (str, bytes)) or not isinstance(sentences, Sequence | np.ndarray):
        raise UserInputTypeError(
            f"`{name}` must be a sequence of sentences (arrays of row ids or of word vectors), "
            f"got {type(sentences).__name__}."
        )
    return list(sentences) if isinstance(sentences, np.ndarray) else sentences


def _row_ids(sentences: Sequence[ArrayLike], name: str, n_rows: int) -> Ragged:
    """Row-id sentences checked once on their concatenation (no per-sentence Python checks)."""
    flat = None
    if len(sentences):
        try:
            flat = np.concatenate(sentences)
        except (ValueError, TypeError):  # 0-d, ragged or mixed-rank items: named below
            flat = None
    else:
        flat = np.empty(0, dtype=np.int64)
    if flat is not None and flat.ndim == 1 and np.issubdtype(flat.dtype, np.integer):
        # Concatenated 1-D items: each item's length is its size.
        sized = cast("Sequence[Sized]", sentences)  # 1-D: they concatenated to a 1-D array
        lengths = np.fromiter(map(len, sized), dtype=np.int64, count=len(sized))
        if int(lengths.sum()) != flat.size:
            flat = None
    else:
        flat = None
    if flat is None:  # a bad sentence, or an empty float one (``[]``) that changed the dtype
        items = [np.asarray(sentence) for sentence in sentences]
        flat, lengths = _row_ids_one_by_one(items, name)
    if flat.size:
        low, high = int(flat.min()), int(flat.max())
        if low < 0 or high >= n_rows:
            first_bad = int(np.flatnonzero((flat < 0) | (flat >= n_rows))[0])
            index = int(np.searchsorted(starts_of(lengths), first_bad, side="right")) - 1
            value = low if low < 0 else high
            raise UserInputError(
                f"`{name}[{index}]` holds row id {value}, outside the {n_rows} rows of `vectors`."
            )
    return Ragged.from_lengths(flat, lengths)


def _row_ids_one_by_one(
    items: list[NDArray[np.generic]], name: str
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Name the first sentence that is not a 1-D integer array; else concatenate as int64."""
    for index, item in enumerate(items):
        if item.size and (item.ndim != 1 or not np.issubdtype(item.dtype, np.integer)):
            raise UserInputTypeError(
                f"`{name}[{index}]` must be a 1-D array of integer row ids into `vectors`, got "
                f"an array of shape {item.shape} and dtype {item.dtype}."
            )
    lengths = np.fromiter((item.size for item in items), dtype=np.int64, count=len(items))
    nonempty = [item.astype(np.int64, copy=False) for item in items if item.size]
    flat = np.concatenate(nonempty) if nonempty else np.empty(0, dtype=np.int64)
    return flat, lengths


def _table_from_matrices(
    items1: Sequence[ArrayLike], items2: Sequence[ArrayLike], names: tuple[str, str]
) -> tuple[NDArray[np.float64], Ragged, Ragged]:
    """Stack the word-vector matrices into one table; sentences become consecutive row ids."""
    arrays1 = [as_real_array(item, f"{names[0]}[{index}]") for index, item in enumerate(items1)]
    arrays2 = [as_real_array(item, f"{names[1]}[{index}]") for index, item in enumerate(items2)]
    dims = {item.shape[1] for item in (*arrays1, *arrays2) if item.ndim == 2 and item.size}
    if len(dims) > 1:
        raise UserInputError(
            f"All word-vector matrices must have the same width; got widths {sorted(dims)}."
        )
    dim = dims.pop() if dims else 1
    blocks: list[NDArray[np.generic]] = []
    counts: list[NDArray[np.int64]] = []
    for name, arrays in zip(names, (arrays1, arrays2)):
        for index, item in enumerate(arrays):
            if item.size and item.ndim != 2:
                raise UserInputTypeError(
                    f"`{name}[{index}]` must be a (tokens, dim) array of word vectors (or row "
                    f"ids with `vectors=`), got shape {item.shape} and dtype {item.dtype}."
                )
        blocks.extend(item for item in arrays if item.size)
        counts.append(
            np.fromiter(
                (item.shape[0] if item.size else 0 for item in arrays),
                dtype=np.int64,
                count=len(arrays),
            )
        )
    table = np.concatenate(blocks).astype(np.float64) if blocks else np.zeros((0, dim))
    total1 = int(counts[0].sum())
    ragged1 = Ragged.from_lengths(np.arange(total1, dtype=np.int64), counts[0])
    ragged2 = Ragged.from_lengths(np.arange(total1, table.shape[0], dtype=np.int64), counts[1])
    return table, ragged1, ragged2
