"""Cross-pair reuse for DynaMax: one membership table over the vocabulary of a batch.

In Algorithm 1 of Zhelezniak et al. (2019) [1]_ the membership of sentence ``S`` in the universe
element ``u`` (a word of the pair) is :math:`\\max(0, \\max_{a \\in S} w_u \\cdot w_a)`. It
depends on the sentence and the word, never on the pair. On real STS data sentences share a small
vocabulary ``V`` and recur across pairs, so a table ``M`` (distinct sentences x ``V``) computed
once -- from one Gram matrix ``G = W_V W_V^T`` or one product per sentence -- gives every pair's
memberships by gathering ``M[sentence, word]`` for the words of the pair, with no per-pair
matrix product. The dot products are the float64 ones of the per-pair algorithm, so scores agree
with it to rounding (~1e-15).

Whether the table pays off depends on ``|V|``, the number of distinct sentences and the memory
budget; :func:`plan_memberships` decides, and :mod:`sts_extras.similarity.fuzzy` falls back to its
per-pair batched products otherwise. Sentences are plain arrays here: ``tokens`` holds the row ids
of all sentences back to back, ``lengths`` the number of tokens of each.

References
----------
.. [1] V. Zhelezniak, A. Savkov, A. Shen, F. Moramarco, J. Flann and N. Y. Hammerla, "Don't
   settle for average, go for the max: fuzzy sets and max-pooled word vectors", ICLR 2019.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
from numpy.typing import NDArray

from sts_extras.similarity.kernels import distinct_sentences, segment_max, starts_of

__all__ = [
    "MembershipPlan",
    "membership_gatherer",
    "membership_table",
    "pair_memberships",
    "plan_memberships",
    "vocabulary_of",
]

# Rough single-core costs in nanoseconds, measured with d = 300 on the development machine; they
# only need to rank the two paths, not predict run time.
_NS_PER_PAIR = 2500.0  # Python and numpy overhead of the per-pair path, per pair
_NS_PER_PAIR_FLOP = 0.06  # per multiply-add of the per-pair (K x d) @ (d x K) products
_NS_PER_GEMM_FLOP = 0.03  # per multiply-add of one large product (G or token x vocabulary)
_NS_PER_GATHER = 1.5  # per gathered-and-maxed element of the membership table
_NS_PER_TOKEN = 40.0  # per token of a pair in the vocabulary path (gather, min/max, sums)

#: ``gather(rows)``: the float64 (weighted) vectors of rows of the word-vector table.
_Gather = Callable[[NDArray[np.integer]], NDArray[np.float64]]
#: ``(mu_x, mu_y, owner)`` of every token of every pair (see :func:`pair_memberships`).
_Memberships = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]


@dataclass(frozen=True)
class MembershipPlan:
    """The vocabulary of a batch and how its membership table is built."""

    vocabulary: NDArray[np.intp]  # (|V|,) sorted distinct row ids
    local: NDArray[np.signedinteger]  # local vocabulary id of every token (layout of ``tokens``)
    representatives: NDArray[np.intp]  # one sentence index per distinct sentence
    sentence_ids: NDArray[np.int64]  # distinct-sentence id of every sentence
    use_gram: bool  # True: rows of G = W_V W_V^T; False: token vectors times W_V^T


def vocabulary_of(
    tokens: NDArray[np.integer], n_rows: int
) -> tuple[NDArray[np.intp], NDArray[np.signedinteger]]:
    """Sorted distinct row ids of ``tokens`` and each token's index into them.

    The indices are int32 whenever they fit: half the memory traffic of the per-token arrays.
    """
    if tokens.size and n_rows <= 8 * tokens.size + 1024:
        # A dense marker is O(rows + tokens), much cheaper than sorting the tokens.
        seen = np.zeros(n_rows, dtype=bool)
        seen[tokens] = True
        vocabulary = np.flatnonzero(seen)
        position = np.zeros(n_rows, dtype=_index_type(vocabulary.size))
        position[vocabulary] = np.arange(vocabulary.size)
        return vocabulary, position[tokens]
    vocabulary, local = np.unique(tokens, return_inverse=True)
    return vocabulary, local.astype(_index_type(vocabulary.size))


def _index_type(size: int) -> type[np.signedinteger]:
    return np.int32 if size <= np.iinfo(np.int32).max else np.int64


def plan_memberships(
    tokens: NDArray[np.integer],
    lengths: NDArray[np.integer],
    n_rows: int,
    dim: int,
    pair_sizes_squared: float,
    n_pairs: int,
    pair_tokens: float,
    max_bytes: int,
) -> MembershipPlan | None:
    """Decide whether the membership table beats the per-pair products; None if it does not.

    Parameters
    ----------
    tokens, lengths
        All sentences of the call (both sides), back to back.
    n_rows, dim
        Shape of the word-vector table.
    pair_sizes_squared
        Sum over the pairs to score of ``(k + l)**2`` (the per-pair Gram sizes).
    n_pairs, pair_tokens
        Number of pairs to score and their total number of tokens.
    max_bytes
        Memory budget: the table, ``W_V`` and (if used) ``G`` must fit in it.
    """
    per_pair = _NS_PER_PAIR * n_pairs + _NS_PER_PAIR_FLOP * dim * pair_sizes_squared
    vocabulary, local = vocabulary_of(tokens, n_rows)
    size = vocabulary.size
    fixed = _NS_PER_TOKEN * pair_tokens
    # Both ways of building the table cost at least |V|^2 d: test that before grouping sentences.
    if (
        fixed + _NS_PER_GEMM_FLOP * size * size * dim >= per_pair
        or 8 * size * (dim + 1) > max_bytes
    ):
        return None
    representatives, sentence_ids = distinct_sentences(local, lengths)
    table_tokens = float(lengths[representatives].sum())
    table_bytes = 8 * size * (dim + representatives.size)
    costs = {}
    if table_bytes + 8 * size * size <= max_bytes:
        costs[True] = _NS_PER_GEMM_FLOP * size * size * dim + _NS_PER_GATHER * table_tokens * size
    if table_bytes <= max_bytes:
        costs[False] = (_NS_PER_GEMM_FLOP * dim + _NS_PER_GATHER) * table_tokens * size
    if not costs or fixed + min(costs.values()) >= per_pair:
        return None
    return MembershipPlan(
        vocabulary=vocabulary,
        local=local,
        representatives=representatives,
        sentence_ids=sentence_ids,
        use_gram=min(costs, key=costs.__getitem__),
    )


def membership_table(
    plan: MembershipPlan,
    lengths: NDArray[np.integer],
    gather: _Gather,
    max_bytes: int,
) -> NDArray[np.float64]:
    """``M[s, v] = max(0, max_{a in s} w_v . w_a)`` for every distinct sentence ``s``.

    ``gather(rows)`` returns the float64 (weighted) vectors of table rows. Sentences are
    processed in chunks so the ``(tokens, |V|)`` block of dot products stays within the budget.
    """
    size = plan.vocabulary.size
    vectors = gather(plan.vocabulary)  # W_V, (|V|, d)
    gram = vectors @ vectors.T if plan.use_gram else None
    reps = plan.representatives
    counts = lengths[reps]
    starts = starts_of(lengths)[reps]
    table = np.zeros((reps.size, size), dtype=np.float64)
    chosen = np.flatnonzero(counts)  # an empty sentence keeps the zero row (the clamp at 0)
    cumulative = np.cumsum(counts[chosen])
    per_chunk = max(1, max_bytes // (8 * max(size, 1) * 4))
    begin = 0
    while begin < chosen.size:
        base = cumulative[begin - 1] if begin else 0
        end = max(begin + 1, int(np.searchsorted(cumulative, base + per_chunk, side="right")))
        block = chosen[begin:end]
        block_counts = counts[block]
        within = np.arange(int(block_counts.sum()), dtype=np.int64)
        local = plan.local[
            np.repeat(starts[block] - starts_of(block_counts), block_counts) + within
        ]
        if gram is not None:  # rows of G read in place, never gathered
            table[block] = segment_max(gram, starts_of(block_counts), block_counts, local)
        else:
            products = vectors[local] @ vectors.T
            table[block] = segment_max(products, starts_of(block_counts), block_counts)
        begin = end
    return np.maximum(table, 0.0, out=table)


def pair_memberships(
    plan: MembershipPlan,
    table: NDArray[np.float64],
    lengths: NDArray[np.integer],
    first: NDArray[np.integer],
    second: NDArray[np.integer],
) -> _Memberships:
    """Memberships of both sentences over each pair's universe ``U = [X; Y]``, gathered.

    ``first`` and ``second`` are sentence indices (into ``lengths``) of the pairs. Returns, for
    every token of every pair (repeated tokens kept: they are repeated columns of ``U``),
    ``mu_x``, ``mu_y`` and the pair it belongs to.
    """
    offsets = starts_of(lengths)
    size = table.shape[1]
    flat = table.reshape(-1)
    pairs = np.arange(first.size, dtype=np.int64)
    rows_x = plan.sentence_ids[first] * size  # row of each pair's X in the flat table
    rows_y = plan.sentence_ids[second] * size
    mu_x, mu_y, owners = [], [], []
    for chosen in (first, second):
        count = lengths[chosen]
        where = np.repeat(offsets[chosen] - starts_of(count), count)
        where += np.arange(where.size)
        word = plan.local[where]
        mu_x.append(flat[np.repeat(rows_x, count) + word])
        mu_y.append(flat[np.repeat(rows_y, count) + word])
        owners.append(np.repeat(pairs, count))
    return np.concatenate(mu_x), np.concatenate(mu_y), np.concatenate(owners)


def membership_gatherer(
    tokens: NDArray[np.integer],
    lengths: NDArray[np.integer],
    n_rows: int,
    gather: _Gather,
    *,
    dim: int,
    n_pairs: int,
    pair_tokens: float,
    pair_sizes_squared: float,
    max_bytes: int,
) -> Callable[[NDArray[np.integer], NDArray[np.integer]], _Memberships] | None:
    """Build the membership table if it pays (:func:`plan_memberships`); None otherwise.

    Returns ``memberships(first, second)``: :func:`pair_memberships` for pairs of sentence
    indices into ``lengths``.
    """
    plan = plan_memberships(
        tokens, lengths, n_rows, dim, pair_sizes_squared, n_pairs, pair_tokens, max_bytes
    )
    if plan is None:
        return None
    table = membership_table(plan, lengths, gather, max_bytes)
    return partial(pair_memberships, plan, table, lengths)
