"""Small array kernels shared by the fuzzy-set similarity code (plain numpy).

Ragged sentences are given as ``tokens`` (row ids of all sentences back to back) and ``lengths``.
"""

from __future__ import annotations

from typing import cast

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "BLOCK_TOKENS",
    "distinct_sentences",
    "pair_universes",
    "segment_max",
    "sentence_blocks",
    "single_threaded_blas",
    "starts_of",
]


def starts_of(lengths: NDArray[np.integer]) -> NDArray[np.int64]:
    """Start of each segment of the given lengths in the concatenation (exclusive cumsum)."""
    offsets = np.zeros(lengths.size, dtype=np.int64)
    if lengths.size:
        np.cumsum(lengths[:-1], out=offsets[1:])
    return offsets


def segment_max(
    values: NDArray[np.float64],
    starts: NDArray[np.integer],
    lengths: NDArray[np.integer],
    rows: NDArray[np.integer] | None = None,
) -> NDArray[np.float64]:
    """Row-wise maximum of each non-empty segment ``values[starts[i]:starts[i] + lengths[i]]``.

    Same result as ``np.maximum.reduceat(values, starts, axis=0)`` (a maximum is exact in any
    order) but 3-5x faster for short segments of wide rows: segments are sorted by length and
    the j-th row of every segment longer than j is folded in with one vectorised maximum. With
    ``rows``, the segments are of ``values[rows]``, read in place (never gathered whole).
    """
    order = np.argsort(-lengths, kind="stable")
    ordered, firsts = lengths[order], starts[order]
    out = values[firsts if rows is None else rows[firsts]]
    for j in range(1, int(ordered[0]) if ordered.size else 0):
        count = int(np.searchsorted(-ordered, -j, side="left"))  # segments longer than j
        positions = firsts[:count] + j
        row = values[positions if rows is None else rows[positions]]
        np.maximum(out[:count], row, out=out[:count])
    result = np.empty_like(out)
    result[order] = out
    return result


def _mix(values: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """splitmix64 finaliser on uint64 (wrapping arithmetic): well-spread hash values."""
    values = values ^ (values >> np.uint64(30))
    values = values * np.uint64(0xBF58476D1CE4E5B9)
    values = values ^ (values >> np.uint64(27))
    values = values * np.uint64(0x94D049BB133111EB)
    return values ^ (values >> np.uint64(31))


#: Tokens handled per step of the sentence-level kernels. Whole-call temporaries the size of all
#: tokens cost more in fresh memory pages than in arithmetic; blocks of this size are reused.
BLOCK_TOKENS = 1 << 15


def sentence_blocks(lengths: NDArray[np.integer], block_tokens: int = BLOCK_TOKENS) -> list[slice]:
    """Consecutive runs of whole sentences holding about ``block_tokens`` tokens each."""
    offsets = starts_of(lengths)
    total = int(lengths.sum())
    cuts = np.unique(np.searchsorted(offsets, np.arange(0, total, block_tokens), side="left"))
    bounds = [*cuts.tolist(), lengths.size] if lengths.size else [0]
    if bounds[0] != 0:
        bounds.insert(0, 0)
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def distinct_sentences(
    tokens: NDArray[np.integer], lengths: NDArray[np.integer]
) -> tuple[NDArray[np.intp], NDArray[np.int64]]:
    """Group equal sentences (same tokens in the same order), exactly.

    Each sentence is hashed (order-dependent: the sum of its token hashes times odd position
    weights, mixed with its length), sentences are grouped by hash with one sort, and every
    sentence is then compared token by token with the representative of its group; one that
    differs (a hash collision) becomes its own group. Returns the index of one representative
    per group and the group of every sentence.
    """
    n = lengths.size
    offsets = starts_of(lengths)
    blocks = sentence_blocks(lengths, BLOCK_TOKENS)
    high = int(tokens.max(initial=0))
    # Dense ids (e.g. local vocabulary ids): mix each id once, then gather.
    id_hashes = _mix(np.arange(high + 1, dtype=np.uint64)) if high < tokens.size else None
    sums = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for block in blocks:
            chosen = block.start + np.flatnonzero(lengths[block])
            if not chosen.size:
                continue
            # sum_i h_i (2 p_i + 1), p_i the position in the sentence, from the global index
            # g_i = start + p_i: sum_i h_i (2 g_i + 1) - 2 start sum_i h_i (modulo 2**64).
            starts = offsets[chosen]
            begin, end = int(starts[0]), int(starts[-1] + lengths[chosen[-1]])
            part = tokens[begin:end]
            hashed = id_hashes[part] if id_hashes is not None else _mix(part.astype(np.uint64))
            weighted = np.arange(2 * begin + 1, 2 * end + 1, 2, dtype=np.uint64)
            weighted *= hashed
            within = starts - begin
            twice_start = np.uint64(2) * starts.view(np.uint64)
            sums[chosen] = np.add.reduceat(weighted, within)
            sums[chosen] -= twice_start * np.add.reduceat(hashed, within)
        hashes = _mix(sums ^ _mix(lengths.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)))
    order = np.argsort(hashes)
    ordered = hashes[order]
    head = np.ones(n, dtype=bool)
    head[1:] = ordered[1:] != ordered[:-1]
    first = order[head]
    groups = np.empty(n, dtype=np.int64)
    groups[order] = np.cumsum(head) - 1
    # Exact check: compare every sentence with its representative, token by token.
    candidate = first[groups]
    differs = lengths[candidate] != lengths
    # Token g of a sentence is compared with token g + shift (shift 0 for a length mismatch).
    shifts = np.where(differs, 0, offsets[candidate] - offsets)
    for block in blocks:
        begin = int(offsets[block.start])
        compared = np.repeat(shifts[block], lengths[block])
        compared += np.arange(begin, begin + compared.size, dtype=np.int64)
        mismatch = begin + np.flatnonzero(tokens[compared] != tokens[begin : begin + compared.size])
        differs[np.searchsorted(offsets, mismatch, side="right") - 1] = True
    if not differs.any():
        return first, groups
    moved = np.flatnonzero(differs)
    groups[moved] = first.size + np.arange(moved.size)
    return np.concatenate([first, moved]), groups


#: ``(flat, offsets, lengths, chosen)``: ragged sentences and the sentence of every pair.
_RaggedChoice = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]


class single_threaded_blas:
    """Run BLAS single-threaded while the small batched products run.

    Many tiny matrix products are slower, and much noisier on a busy machine, when OpenBLAS
    splits each across threads (measured: ~46 vs 50-95 us per pair on 2 cores); parallelism
    comes from ``workers`` instead. Uses ``threadpoolctl`` when installed, else does nothing.
    """

    def __enter__(self) -> None:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            self._limits = None
            return
        self._limits = threadpool_limits(limits=1, user_api="blas")

    def __exit__(self, *exc_info: object) -> None:
        if self._limits is not None:
            self._limits.restore_original_limits()


def pair_universes(
    first: _RaggedChoice,
    second: _RaggedChoice,
    n_rows: int,
) -> tuple[
    NDArray[np.int64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.int64],
    NDArray[np.int64],
]:
    """Distinct rows of each pair's universe ``U = [X; Y]`` with their multiplicities.

    A repeated row adds an identical column to the universe (Algorithm 1 keeps repeated
    tokens) and an identical row to the max-pool (where it changes nothing), so each distinct
    row is computed once and its column counted ``count_x + count_y`` times. Fully vectorised:
    one sort of (pair, row) keys over all pairs.

    Each side is ``(flat, offsets, lengths, chosen)``: a ragged set of sentences and the
    sentence of every pair. Returns ``rows``, ``count_x``, ``count_y`` (flat, grouped by
    pair), and per pair the ``offsets`` and ``sizes`` of its group.
    """
    n_pairs = first[3].size
    keys_parts, side_parts = [], []
    for side, (flat, offsets, lengths, chosen) in enumerate((first, second)):
        count = lengths[chosen]
        total = int(count.sum())
        # token positions of every chosen sentence, concatenated
        starts = np.repeat(offsets[chosen] - np.concatenate([[0], np.cumsum(count)[:-1]]), count)
        rows = flat[starts + np.arange(total, dtype=np.int64)]
        pair = np.repeat(np.arange(n_pairs, dtype=np.int64), count)
        keys_parts.append(pair * n_rows + rows)
        side_parts.append(np.full(total, side, dtype=np.int8))
    keys = np.concatenate(keys_parts)
    sides = np.concatenate(side_parts)
    order = np.argsort(keys, kind="stable")
    keys, sides = keys[order], sides[order]
    head = np.ones(keys.size, dtype=bool)
    head[1:] = keys[1:] != keys[:-1]
    group = np.cumsum(head) - 1
    n_groups = int(group[-1]) + 1 if group.size else 0
    # with weights, bincount returns float64 (numpy's stubs say an integer array)
    count_y = cast(NDArray[np.float64], np.bincount(group, weights=sides, minlength=n_groups))
    count_x = np.bincount(group, minlength=n_groups) - count_y
    unique_keys = keys[head]
    rows, pairs = unique_keys % n_rows, unique_keys // n_rows
    sizes = np.bincount(pairs, minlength=n_pairs).astype(np.int64)
    offsets = np.zeros(n_pairs, dtype=np.int64)
    np.cumsum(sizes[:-1], out=offsets[1:])
    return rows, count_x, count_y, offsets, sizes
