"""Fuzzy bag-of-words similarity: DynaMax, max-pooled and averaged word vectors.

Implements Section 2 and Algorithm 1 of Zhelezniak et al. (2019) [1]_ as batched numpy code.
A sentence is a multiset of word vectors. Its *fuzzy bag-of-words* over a universe
:math:`U \\in \\mathbb{R}^{K \\times d}` is the max-pool of the word memberships
:math:`\\mu^{(i)} = w^{(i)} U^T` together with the zero vector (Eq. 1-2 in [1]_):

.. math::

    \\mu^S_j = \\max\\bigl(0, \\max_{w \\in S} w \\cdot u_j\\bigr).

* **DynaMax** (Algorithm 1): the universe is the pair's own word vectors, ``U = [X; Y]``.
* **MaxPool** (Eq. 3-4): the universe is the identity, so ``mu^S`` is the max-pooled word vector
  clamped at 0.
* **avg-cos**: the baseline, cosine between averaged word vectors.

Two fuzzy sets are compared with the fuzzy Jaccard index (Section 2.2.1) or the Otsuka-Ochiai and
Dice coefficients (Appendix B), or cosine (the paper's ablations).

Reference semantics (the authors' code, ``babylonhealth/fuzzymax``): raw dot products (no
normalisation), the clamp at 0 comes from pooling with the zero vector, repeated tokens are kept
(so a repeated word adds a repeated column to the DynaMax universe), and a score whose
denominator is 0 (an empty sentence, or all-zero memberships) is 0 rather than NaN.

Sentences are given either as word-vector matrices (one ``(k, d)`` array per sentence) or as
integer row indices into a shared ``vectors`` table (what :mod:`sts_extras.integrations.mteb.models`
uses; only the rows a call needs are ever copied), validated by :mod:`sts_extras.similarity.inputs`.
``weights`` multiplies each table row, e.g. SIF weights.

References
----------
.. [1] V. Zhelezniak, A. Savkov, A. Shen, F. Moramarco, J. Flann and N. Y. Hammerla, "Don't
   settle for average, go for the max: fuzzy sets and max-pooled word vectors", ICLR 2019.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import (
    as_real_array,
    check_choice,
    check_positive_int,
    scale_exponent,
)
from sts_extras.errors import UserInputError
from sts_extras.similarity.inputs import Ragged, VectorTable, prepare_inputs
from sts_extras.similarity.kernels import (
    distinct_sentences,
    pair_universes,
    segment_max,
    single_threaded_blas,
    starts_of,
)
from sts_extras.similarity.vocabulary import membership_gatherer

__all__ = [
    "DEFAULT_CHUNK_BYTES",
    "DEFAULT_CHUNK_PAIRS",
    "DYNAMAX_MEASURES",
    "MAXPOOL_MEASURES",
    "average_cosine_similarity",
    "dynamax_similarity",
    "dynamax_similarity_matrix",
    "fuzzy_set_similarity",
    "fuzzy_set_similarity_matrix",
    "maxpool_similarity",
    "pool_word_vectors",
]

#: Set similarity measures available for DynaMax (Section 2.2.1, Appendix B; cosine: Appendix C).
DYNAMAX_MEASURES = ("jaccard", "otsuka", "dice", "cosine")
#: Measures for max-pooled vectors (U = identity): fuzzy Jaccard, or cosine (Figure 1 of [1]).
MAXPOOL_MEASURES = ("jaccard", "otsuka", "dice", "cosine")
_POOLING_MODES = ("max", "mean", "sum")

#: Default memory budget of one DynaMax chunk (gathered vectors + Gram matrices), in bytes.
DEFAULT_CHUNK_BYTES = 32 * 2**20
#: Default number of pairs per DynaMax chunk (small chunks keep the gathered vectors in cache;
#: 4-16 measured equally fast for d = 300, larger chunks slower).
DEFAULT_CHUNK_PAIRS = 8
# Pairs gathered per step of the vocabulary path: per-token arrays of ~0.5 MB stay in cache and
# their memory is reused (8,192 pairs per step measured ~25% slower on 20,000 STS pairs).
_VOCABULARY_STEP_PAIRS = 2048

#: A scorer of pairs ``(left, right)`` of sentence indices into ``out``.
_PairScorer = Callable[[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]], None]


# --------------------------------------------------------------------------------------------
# fuzzy set similarity measures (Section 2.2.1 and Appendix B of [1])
# --------------------------------------------------------------------------------------------
def _safe_divide(
    numerator: NDArray[np.float64], denominator: NDArray[np.float64]
) -> NDArray[np.float64]:
    # A zero denominator means both fuzzy sets are empty (or all-zero): the score is 0, as the
    # reference semantics (module docstring) ask, never NaN.
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):  # NaN stays NaN: check_finite names it
        np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _set_scores(
    mu1: NDArray[np.float64],
    mu2: NDArray[np.float64],
    measure: str,
    counts: NDArray[np.float64] | None = None,
    owner: NDArray[np.int64] | None = None,
    n_sets: int = 0,
) -> NDArray[np.float64]:
    """Row-wise measure between membership vectors (last axis = universe); no validation.

    ``counts`` gives each universe element a multiplicity (a repeated word is a repeated
    column of the DynaMax universe); None means every column counts once. With ``owner``, the
    inputs are flat and element ``i`` belongs to set ``owner[i]`` of ``n_sets``.
    """

    def total(values: NDArray[np.float64]) -> NDArray[np.float64]:
        if owner is not None:
            # with weights, bincount returns float64 (numpy's stubs say an integer array)
            return cast(NDArray[np.float64], np.bincount(owner, weights=values, minlength=n_sets))
        return (
            values.sum(axis=-1) if counts is None else np.einsum("...k,...k->...", values, counts)
        )

    if measure == "cosine":
        norms = np.sqrt(total(mu1 * mu1) * total(mu2 * mu2))
        return _safe_divide(total(mu1 * mu2), norms)
    intersection = total(np.minimum(mu1, mu2))
    if measure == "jaccard":
        return _safe_divide(intersection, total(np.maximum(mu1, mu2)))
    size1, size2 = total(mu1), total(mu2)
    if measure == "otsuka":
        return _safe_divide(intersection, np.sqrt(size1 * size2))
    return _safe_divide(2.0 * intersection, size1 + size2)  # dice


def _as_memberships(mu: ArrayLike, name: str, measure: str) -> NDArray[np.float64]:
    array = as_real_array(mu, name).astype(np.float64, copy=False)
    if array.ndim not in (1, 2):
        raise UserInputError(
            f"`{name}` must be a 1-D or 2-D array of memberships, got shape {array.shape}."
        )
    if not np.all(np.isfinite(array)):
        raise UserInputError(f"`{name}` must be finite; it holds NaN or inf.")
    if measure != "cosine" and array.size and array.min() < 0:
        raise UserInputError(
            f"`{name}` must be non-negative for the fuzzy {measure} measure (fuzzy sets built by "
            f"max-pooling with the zero vector are); its minimum is {array.min():.6g}."
        )
    return array


def _common_scale(
    a: NDArray[np.float64], b: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``a`` and ``b`` times one power of two (exact) if their magnitude is extreme.

    Every measure is a ratio unchanged by a common factor, but its products would overflow or
    underflow beyond about 1e±154.
    """
    largest = max(
        float(np.abs(a).max()) if a.size else 0.0, float(np.abs(b).max()) if b.size else 0.0
    )
    shift = scale_exponent(largest)
    return (np.ldexp(a, shift), np.ldexp(b, shift)) if shift else (a, b)


def fuzzy_set_similarity(
    mu1: ArrayLike, mu2: ArrayLike, *, measure: str = "jaccard"
) -> NDArray[np.float64]:
    """Compare fuzzy sets given by membership vectors, row by row.

    Implements the fuzzy Jaccard index of Section 2.2.1 of [1]_ and the fuzzy Otsuka-Ochiai and
    Dice coefficients of Appendix B (cosine is the paper's ablation):

    .. math::

        J = \\frac{\\sum_k \\min(\\mu^A_k, \\mu^B_k)}{\\sum_k \\max(\\mu^A_k, \\mu^B_k)}, \\quad
        O = \\frac{\\sum_k \\min(\\mu^A_k, \\mu^B_k)}{\\sqrt{|A|\\,|B|}}, \\quad
        D = \\frac{2 \\sum_k \\min(\\mu^A_k, \\mu^B_k)}{|A| + |B|},

    with the fuzzy cardinality :math:`|A| = \\sum_k \\mu^A_k`.

    Parameters
    ----------
    mu1, mu2 : array_like, shape (n, K) or (K,)
        Membership vectors, one row per fuzzy set; row ``i`` of ``mu1`` is compared with row
        ``i`` of ``mu2``. Non-negative for Jaccard, Otsuka and Dice.
    measure : {"jaccard", "otsuka", "dice", "cosine"}
        The set similarity measure.

    Returns
    -------
    numpy.ndarray
        float64 scores, shape ``(n,)`` (a 0-d array for 1-D inputs). A pair whose denominator
        is 0 (two empty sets) scores 0.

    Raises
    ------
    sts_extras.errors.UserInputError
        A ``ValueError``: if shapes differ, values are not finite, or memberships are negative
        for a fuzzy measure.

    References
    ----------
    .. [1] Zhelezniak et al., "Don't settle for average, go for the max", ICLR 2019.

    Examples
    --------
    >>> from sts_extras.similarity.fuzzy import fuzzy_set_similarity
    >>> fuzzy_set_similarity([[1.0, 0.5, 0.0]], [[0.5, 0.5, 1.0]]).tolist()
    [0.4]
    """
    check_choice(measure, "measure", DYNAMAX_MEASURES)
    a = _as_memberships(mu1, "mu1", measure)
    b = _as_memberships(mu2, "mu2", measure)
    if a.shape != b.shape:
        raise UserInputError(
            f"`mu1` and `mu2` must have the same shape, got {a.shape} and {b.shape}."
        )
    return _set_scores(*_common_scale(a, b), measure)


def fuzzy_set_similarity_matrix(
    mu1: ArrayLike,
    mu2: ArrayLike,
    *,
    measure: str = "jaccard",
    max_chunk_bytes: int = DEFAULT_CHUNK_BYTES,
) -> NDArray[np.float64]:
    """All-pairs version of :func:`fuzzy_set_similarity`: an ``(n1, n2)`` matrix.

    Rows of ``mu1`` are processed in chunks so that the broadcast ``(rows, n2, K)`` array stays
    under ``max_chunk_bytes``.
    """
    check_choice(measure, "measure", DYNAMAX_MEASURES)
    check_positive_int(max_chunk_bytes, "max_chunk_bytes")
    a = np.atleast_2d(_as_memberships(mu1, "mu1", measure))
    b = np.atleast_2d(_as_memberships(mu2, "mu2", measure))
    if a.shape[1] != b.shape[1]:
        raise UserInputError(
            "`mu1` and `mu2` must have the same number of columns, got "
            f"{a.shape[1]} and {b.shape[1]}."
        )
    a, b = _common_scale(a, b)
    if measure == "cosine":
        norms = np.outer(np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1))
        return _safe_divide(a @ b.T, norms)
    out = np.empty((a.shape[0], b.shape[0]), dtype=np.float64)
    rows = max(1, max_chunk_bytes // max(1, 8 * b.size))
    for start in range(0, a.shape[0], rows):
        block = a[start : start + rows, None, :]
        out[start : start + rows] = _set_scores(block, b[None, :, :], measure)
    return out


# --------------------------------------------------------------------------------------------
# pooling (Eq. 4 of [1] for max; the avg-cos baseline for mean)
# --------------------------------------------------------------------------------------------
def _pool(
    table: VectorTable, ragged: Ragged, mode: str, max_chunk_bytes: int
) -> NDArray[np.float64]:
    # Sentences recur (across pairs, in all-pairs scoring): pool each distinct one once. Equal
    # sentences pool to bitwise-equal vectors, so this changes no score.
    representatives, groups = distinct_sentences(ragged.flat, ragged.lengths)
    if representatives.size == len(ragged):
        return _pool_each(table, ragged, mode, max_chunk_bytes)
    lengths = ragged.lengths[representatives]
    where = np.repeat(ragged.offsets[representatives] - starts_of(lengths), lengths)
    distinct = Ragged.from_lengths(ragged.flat[where + np.arange(where.size)], lengths)
    return _pool_each(table, distinct, mode, max_chunk_bytes)[groups]


def _pool_each(
    table: VectorTable, ragged: Ragged, mode: str, max_chunk_bytes: int
) -> NDArray[np.float64]:
    n, dim = len(ragged), table.dim
    out = np.zeros((n, dim), dtype=np.float64)
    nonempty = np.flatnonzero(ragged.lengths)
    if nonempty.size == 0:
        return out
    # Chunk sentences so the gathered token vectors stay under the budget.
    cumulative = np.cumsum(ragged.lengths[nonempty])
    per_chunk = max(1, max_chunk_bytes // (8 * dim))
    start = 0
    while start < nonempty.size:
        base = cumulative[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(cumulative, base + per_chunk, side="right")))
        chosen = nonempty[start:stop]
        first = ragged.offsets[chosen[0]]
        last = ragged.offsets[chosen[-1]] + ragged.lengths[chosen[-1]]
        tokens = table.gather(ragged.flat[first:last])
        starts = ragged.offsets[chosen] - first
        if mode == "max":
            # Pooling together with the zero vector (Section 2.2 of [1]): clamp at 0.
            out[chosen] = np.maximum(segment_max(tokens, starts, ragged.lengths[chosen]), 0.0)
        else:
            pooled = np.add.reduceat(tokens, starts, axis=0)
            if mode == "mean":
                pooled /= ragged.lengths[chosen, None]
            out[chosen] = pooled
        start = stop
    return table.check_finite(out, ragged)


def pool_word_vectors(
    sentences: Sequence[ArrayLike],
    *,
    vectors: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    mode: str = "max",
    max_chunk_bytes: int = DEFAULT_CHUNK_BYTES,
) -> NDArray[np.float64]:
    """Pool each sentence's word vectors into one vector.

    ``mode="max"`` is the max-pooled fuzzy bag-of-words with the identity universe, Eq. 4 of [1]_:
    the element-wise maximum over the sentence's (weighted) word vectors and the zero vector.
    ``"mean"`` is the averaged word vector of the avg-cos baseline and ``"sum"`` the summed one.
    An empty sentence pools to the zero vector.

    Parameters
    ----------
    sentences : sequence
        One entry per sentence: an integer array of row ids into ``vectors``, or (without
        ``vectors``) a ``(tokens, dim)`` array of word vectors.
    vectors : array_like, shape (V, dim), optional
        The word-vector table the row ids point into.
    weights : array_like, shape (V,), optional
        Per-row multipliers (e.g. SIF weights), applied before pooling.
    mode : {"max", "mean", "sum"}
        The pooling operation.
    max_chunk_bytes : int
        Memory budget for the gathered token vectors of one chunk of sentences.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(len(sentences), dim)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sts_extras.similarity.fuzzy import pool_word_vectors
    >>> pool_word_vectors([np.array([[1.0, -2.0], [-1.0, -3.0]])], mode="max").tolist()
    [[1.0, 0.0]]
    """
    check_choice(mode, "mode", _POOLING_MODES)
    check_positive_int(max_chunk_bytes, "max_chunk_bytes")
    table, ragged, _ = prepare_inputs(
        sentences, [], vectors, weights, paired=False, names=("sentences", "sentences2")
    )
    pooled = _pool(table, ragged, mode, max_chunk_bytes)
    if not table.shift:
        return pooled
    # back to the vectors' own scale; pooling is exact under the power-of-two shift
    pooled = np.ldexp(pooled, -table.shift)
    if not np.all(np.isfinite(pooled)):
        raise UserInputError(
            "The pooled vectors overflow float64 (the word vectors are too large); rescale them."
        )
    return pooled


def maxpool_similarity(
    sentences1: Sequence[ArrayLike],
    sentences2: Sequence[ArrayLike],
    *,
    vectors: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    measure: str = "jaccard",
    max_chunk_bytes: int = DEFAULT_CHUNK_BYTES,
) -> NDArray[np.float64]:
    """Similarity of max-pooled word vectors (the fuzzy BoW with U = identity), pair by pair.

    Implements Eq. 3-4 of [1]_ followed by the fuzzy Jaccard index (Section 2.2.1) -- the
    "MaxPool-Jaccard" of the paper -- or the Otsuka/Dice/cosine measures.

    Parameters
    ----------
    sentences1, sentences2 : sequence
        Paired sentences, row ids into ``vectors`` or ``(tokens, dim)`` word-vector arrays.
    vectors, weights, max_chunk_bytes
        As in :func:`pool_word_vectors`.
    measure : {"jaccard", "otsuka", "dice", "cosine"}
        How the two max-pooled vectors are compared.

    Returns
    -------
    numpy.ndarray
        float64 scores, one per pair; 0 when both sentences are empty.

    Examples
    --------
    >>> import numpy as np
    >>> from sts_extras.similarity.fuzzy import maxpool_similarity
    >>> x = [np.array([[1.0, 0.0], [0.0, 1.0]])]
    >>> y = [np.array([[1.0, 1.0], [-1.0, 3.0]])]
    >>> maxpool_similarity(x, y).tolist()  # (1 + 1) / (1 + 3)
    [0.5]
    """
    check_choice(measure, "measure", MAXPOOL_MEASURES)
    check_positive_int(max_chunk_bytes, "max_chunk_bytes")
    table, ragged1, ragged2 = prepare_inputs(sentences1, sentences2, vectors, weights, paired=True)
    table.check_scorable()
    return _set_scores(
        _pool(table, ragged1, "max", max_chunk_bytes),
        _pool(table, ragged2, "max", max_chunk_bytes),
        measure,
    )


def average_cosine_similarity(
    sentences1: Sequence[ArrayLike],
    sentences2: Sequence[ArrayLike],
    *,
    vectors: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    max_chunk_bytes: int = DEFAULT_CHUNK_BYTES,
) -> NDArray[np.float64]:
    """Cosine similarity of averaged word vectors ("avg-cos", the baseline of [1]_), pair by pair.

    With SIF ``weights`` this is avg-SIF of Table 2 in [1]_ (Arora et al. 2017 without the
    principal-component removal). A pair with an empty sentence scores 0.

    Examples
    --------
    >>> import numpy as np
    >>> from sts_extras.similarity.fuzzy import average_cosine_similarity
    >>> x = [np.array([[1.0, 0.0], [1.0, 2.0]])]
    >>> y = [np.array([[2.0, 2.0]])]
    >>> round(float(average_cosine_similarity(x, y)[0]), 12)  # cos((1, 1), (2, 2))
    1.0
    """
    check_positive_int(max_chunk_bytes, "max_chunk_bytes")
    table, ragged1, ragged2 = prepare_inputs(sentences1, sentences2, vectors, weights, paired=True)
    table.check_scorable()
    return _set_scores(
        _pool(table, ragged1, "mean", max_chunk_bytes),
        _pool(table, ragged2, "mean", max_chunk_bytes),
        "cosine",
    )


# --------------------------------------------------------------------------------------------
# DynaMax (Algorithm 1 of [1]), batched
# --------------------------------------------------------------------------------------------
def _dynamax_pairs(
    table: VectorTable,
    ragged1: Ragged,
    ragged2: Ragged,
    left: NDArray[np.int64],
    right: NDArray[np.int64],
    measure: str,
    chunk_pairs: int,
    max_chunk_bytes: int,
    workers: int,
    out: NDArray[np.float64],
) -> None:
    """Score the pairs (left[p], right[p]) into ``out[p]``.

    For a chunk of pairs, the distinct word vectors of each pair's universe ``U = [X; Y]`` are
    stacked (zero rows pad the smaller universes), one batched matrix product gives every Gram
    matrix ``G = U U^T``, and the memberships of Algorithm 1 are column maxima over the rows
    that belong to X (or to Y), taken together with 0 (the algorithm's zero vector ``z``).
    Rows outside a sentence are zeroed before the max, which is neutral for the same reason
    padding is: a 0 never beats the 0 already in the max. Padded columns get weight 0.
    """
    rows, count_x, count_y, offsets, sizes = pair_universes(
        (ragged1.flat, ragged1.offsets, ragged1.lengths, left),
        (ragged2.flat, ragged2.offsets, ragged2.lengths, right),
        table.data.shape[0],
    )
    rows = np.append(rows, 0)  # sentinel for padding (zeroed when gathered)
    count_x = np.append(count_x, 0.0)
    count_y = np.append(count_y, 0.0)
    # Sort pairs by universe size so a chunk holds pairs of nearly equal shape: little padding.
    order = np.argsort(sizes, kind="stable")
    dim = table.dim
    width = int(sizes.max(initial=0))
    per_pair = 8 * max(1, width) * (dim + max(1, width))
    size = max(1, min(chunk_pairs, max_chunk_bytes // per_pair))

    def score_chunk(start: int) -> None:
        chosen = order[start : start + size]
        width = int(sizes[chosen].max())
        if width == 0:
            out[chosen] = 0.0
            return
        columns = np.arange(width, dtype=np.int64)
        valid = columns < sizes[chosen, None]
        positions = np.where(valid, offsets[chosen, None] + columns, rows.size - 1)
        stacked = table.gather(rows[positions], valid)  # (B, K, d): distinct rows of U per pair
        gram = np.matmul(stacked, stacked.transpose(0, 2, 1))  # (B, K, K), symmetric
        in_x = (count_x[positions] > 0)[:, :, None]
        in_y = (count_y[positions] > 0)[:, :, None]
        mu_x = np.max(gram, axis=1, where=in_x, initial=0.0)  # fuzzify X over U, with z = 0
        mu_y = np.max(gram, axis=1, where=in_y, initial=0.0)  # fuzzify Y over U
        out[chosen] = _set_scores(mu_x, mu_y, measure, count_x[positions] + count_y[positions])

    starts = range(0, order.size, size)
    # Overflow becomes inf/NaN, which VectorTable.check_finite reports with a clear error.
    with single_threaded_blas(), np.errstate(over="ignore", invalid="ignore"):
        if workers == 1 or len(starts) < 2:
            for start in starts:
                score_chunk(start)
        else:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=workers) as pool:
                for _ in pool.map(score_chunk, starts):
                    pass


def _dynamax_by_vocabulary(
    table: VectorTable,
    ragged1: Ragged,
    ragged2: Ragged,
    measure: str,
    max_chunk_bytes: int,
    pair_tokens: float,
    pair_sizes_squared: float,
    n_pairs: int,
) -> _PairScorer | None:
    """Scorer ``(left, right, out)`` through one vocabulary membership table, or None.

    Cross-pair reuse (:mod:`sts_extras.similarity.vocabulary`): chosen when the call's
    vocabulary and distinct sentences make the table cheaper than the per-pair products and it
    fits in ``max_chunk_bytes``. Pair totals are then sums over each pair's tokens (a repeated
    token is a repeated column of the universe, as in Algorithm 1).
    """
    lengths = np.concatenate([ragged1.lengths, ragged2.lengths])
    with np.errstate(over="ignore", invalid="ignore"):  # check_finite reports overflow
        memberships = membership_gatherer(
            np.concatenate([ragged1.flat, ragged2.flat]),
            lengths,
            table.data.shape[0],
            table.gather,
            dim=table.dim,
            n_pairs=n_pairs,
            pair_tokens=pair_tokens,
            pair_sizes_squared=pair_sizes_squared,
            max_bytes=max_chunk_bytes,
        )
    if memberships is None:
        return None

    def score(left: NDArray[np.int64], right: NDArray[np.int64], out: NDArray[np.float64]) -> None:
        for start in range(0, left.size, _VOCABULARY_STEP_PAIRS):
            chosen = slice(start, start + _VOCABULARY_STEP_PAIRS)
            mu_x, mu_y, owner = memberships(left[chosen], right[chosen] + len(ragged1))
            with np.errstate(invalid="ignore"):
                out[chosen] = _set_scores(mu_x, mu_y, measure, owner=owner, n_sets=out[chosen].size)

    return score


def _check_chunking(chunk_pairs: int, max_chunk_bytes: int, workers: int) -> int:
    check_positive_int(chunk_pairs, "chunk_pairs")
    check_positive_int(max_chunk_bytes, "max_chunk_bytes")
    if workers == -1:
        return os.cpu_count() or 1
    return check_positive_int(workers, "workers")


def dynamax_similarity(
    sentences1: Sequence[ArrayLike],
    sentences2: Sequence[ArrayLike],
    *,
    vectors: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    measure: str = "jaccard",
    chunk_pairs: int = DEFAULT_CHUNK_PAIRS,
    max_chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    workers: int = 1,
) -> NDArray[np.float64]:
    """DynaMax similarity of sentence pairs (Algorithm 1 of [1]_), batched.

    For each pair with word vectors :math:`X \\in \\mathbb{R}^{k \\times d}` and
    :math:`Y \\in \\mathbb{R}^{l \\times d}`, the universe is :math:`U = [X; Y]` and

    .. math::

        \\mu^X = \\max\\bigl(0, \\max_i x_i U^T\\bigr), \\qquad
        \\mu^Y = \\max\\bigl(0, \\max_j y_j U^T\\bigr),

    compared with the fuzzy Jaccard index (DynaMax-Jaccard, the default), Otsuka, Dice or
    cosine (:func:`fuzzy_set_similarity`).

    Parameters
    ----------
    sentences1, sentences2 : sequence
        Paired sentences: integer row ids into ``vectors`` or ``(tokens, dim)`` arrays of word
        vectors. Repeated tokens are kept; an empty sentence is allowed.
    vectors : array_like, shape (V, dim), optional
        The word-vector table the row ids point into.
    weights : array_like, shape (V,), optional
        Per-row multipliers, e.g. SIF weights (DynaMax-SIF, Table 2 of [1]_).
    measure : {"jaccard", "otsuka", "dice", "cosine"}
        The fuzzy set similarity measure.
    chunk_pairs : int
        Largest number of pairs scored by one batched matrix product.
    max_chunk_bytes : int
        Memory budget of one chunk (gathered vectors plus Gram matrices); chunks shrink to fit.
    workers : int
        Threads scoring chunks in parallel (-1: one per CPU). BLAS itself is kept
        single-threaded during the call (via ``threadpoolctl``): many tiny products run faster
        that way.

    Returns
    -------
    numpy.ndarray
        float64 scores, one per pair. A pair with an empty side scores 0.

    Notes
    -----
    The computation is exact (float64, the same dot products as the per-pair algorithm): only
    the order of floating-point summation differs, so scores agree with a per-pair
    implementation to ~1e-15. Only the rows of ``vectors`` that occur are copied.

    References
    ----------
    .. [1] Zhelezniak et al., "Don't settle for average, go for the max", ICLR 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from sts_extras.similarity.fuzzy import dynamax_similarity
    >>> vectors = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> dynamax_similarity([np.array([0, 1])], [np.array([2])], vectors=vectors).tolist()
    [0.75]
    """
    check_choice(measure, "measure", DYNAMAX_MEASURES)
    workers = _check_chunking(chunk_pairs, max_chunk_bytes, workers)
    table, ragged1, ragged2 = prepare_inputs(sentences1, sentences2, vectors, weights, paired=True)
    table.check_scorable()
    pairs = np.arange(len(ragged1), dtype=np.int64)
    out = np.empty(pairs.size, dtype=np.float64)
    sizes = (ragged1.lengths + ragged2.lengths).astype(np.float64)
    by_vocabulary = _dynamax_by_vocabulary(
        table,
        ragged1,
        ragged2,
        measure,
        max_chunk_bytes,
        sizes.sum(),
        float(sizes @ sizes),
        pairs.size,
    )
    if by_vocabulary is not None:
        by_vocabulary(pairs, pairs, out)
    else:
        _dynamax_pairs(
            table,
            ragged1,
            ragged2,
            pairs,
            pairs,
            measure,
            chunk_pairs,
            max_chunk_bytes,
            workers,
            out,
        )
    return table.check_finite(out, ragged1, ragged2)


def dynamax_similarity_matrix(
    sentences1: Sequence[ArrayLike],
    sentences2: Sequence[ArrayLike],
    *,
    vectors: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    measure: str = "jaccard",
    chunk_pairs: int = DEFAULT_CHUNK_PAIRS,
    max_chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    workers: int = 1,
) -> NDArray[np.float64]:
    """DynaMax between every sentence of ``sentences1`` and every one of ``sentences2``.

    Same parameters as :func:`dynamax_similarity`; returns an ``(n1, n2)`` float64 matrix.
    Pairs are generated block by block, so working memory stays bounded by the chunk budget
    (plus the output matrix itself).
    """
    check_choice(measure, "measure", DYNAMAX_MEASURES)
    workers = _check_chunking(chunk_pairs, max_chunk_bytes, workers)
    table, ragged1, ragged2 = prepare_inputs(sentences1, sentences2, vectors, weights, paired=False)
    table.check_scorable()
    n1, n2 = len(ragged1), len(ragged2)
    out = np.empty((n1, n2), dtype=np.float64)
    if n1 == 0 or n2 == 0:
        return out
    length1, length2 = ragged1.lengths.astype(np.float64), ragged2.lengths.astype(np.float64)
    by_vocabulary = _dynamax_by_vocabulary(
        table,
        ragged1,
        ragged2,
        measure,
        max_chunk_bytes,
        n2 * length1.sum() + n1 * length2.sum(),  # sums of (k + l) and (k + l)^2 over all pairs
        float(n2 * length1 @ length1 + n1 * length2 @ length2 + 2 * length1.sum() * length2.sum()),
        n1 * n2,
    )
    rows = max(1, 16384 // n2)  # pairs generated per block
    for start in range(0, n1, rows):
        stop = min(n1, start + rows)
        left = np.repeat(np.arange(start, stop, dtype=np.int64), n2)
        right = np.tile(np.arange(n2, dtype=np.int64), stop - start)
        block = np.empty(left.size, dtype=np.float64)
        if by_vocabulary is not None:
            by_vocabulary(left, right, block)
        else:
            _dynamax_pairs(
                table,
                ragged1,
                ragged2,
                left,
                right,
                measure,
                chunk_pairs,
                max_chunk_bytes,
                workers,
                block,
            )
        out[start:stop] = block.reshape(stop - start, n2)
    return table.check_finite(out, ragged1, ragged2)
