"""Specification of the fuzzy-set similarity core (Zhelezniak et al., ICLR 2019).

The batched functions must equal a per-pair implementation written here straight from
Algorithm 1 (and the authors' reference code): raw dot products, max-pool with the zero vector,
repeated tokens kept, 0 when a denominator is 0. Small cases are checked against hand-computed
fractions.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose

from sts_extras.similarity.fuzzy import (
    DYNAMAX_MEASURES,
    average_cosine_similarity,
    dynamax_similarity,
    dynamax_similarity_matrix,
    fuzzy_set_similarity,
    fuzzy_set_similarity_matrix,
    maxpool_similarity,
    pool_word_vectors,
)

EXACT = 1e-12  # batched and per-pair differ only by floating-point summation order


# ---------------------------------------------------------------- per-pair reference (Algorithm 1)
def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator > 0 else 0.0


def _compare(mx: np.ndarray, my: np.ndarray, measure: str) -> float:
    intersection = np.minimum(mx, my).sum()
    if measure == "jaccard":
        return _ratio(intersection, np.maximum(mx, my).sum())
    if measure == "otsuka":
        return _ratio(intersection, np.sqrt(mx.sum() * my.sum()))
    if measure == "dice":
        return _ratio(2 * intersection, mx.sum() + my.sum())
    return _ratio(float(mx @ my), float(np.linalg.norm(mx) * np.linalg.norm(my)))


def reference_dynamax(x: np.ndarray, y: np.ndarray, measure: str = "jaccard") -> float:
    """Algorithm 1: U = [X; Y]; z = max-pool(x_i U^T, ..., 0); same for Y; fuzzy measure."""
    d = max(x.shape[-1] if x.size else 0, y.shape[-1] if y.size else 0, 1)
    x = x.reshape(-1, d)
    y = y.reshape(-1, d)
    u = np.vstack((x, y))
    z = np.zeros(u.shape[0])
    mx = np.max(np.vstack([x @ u.T, z]), axis=0)
    my = np.max(np.vstack([y @ u.T, z]), axis=0)
    return _compare(mx, my, measure)


def reference_maxpool(x: np.ndarray, y: np.ndarray, measure: str = "jaccard") -> float:
    d = max(x.shape[-1] if x.size else 0, y.shape[-1] if y.size else 0, 1)
    mx = np.max(np.vstack([x.reshape(-1, d), np.zeros(d)]), axis=0)
    my = np.max(np.vstack([y.reshape(-1, d), np.zeros(d)]), axis=0)
    return _compare(mx, my, measure)


def reference_avg_cos(x: np.ndarray, y: np.ndarray) -> float:
    if x.size == 0 or y.size == 0:
        return 0.0
    return _compare(x.mean(axis=0), y.mean(axis=0), "cosine")


@pytest.fixture(scope="module")
def random_pairs():
    """Random raw vectors (negative dot products included) and awkward sentences."""
    rng = np.random.default_rng(2019)
    vocab, dim = 60, 12
    table = rng.normal(size=(vocab, dim)) * rng.uniform(0.2, 3.0, size=(vocab, 1))
    lengths1 = rng.integers(1, 15, size=80)
    lengths2 = rng.integers(1, 15, size=80)
    first = [rng.integers(0, vocab, size=k) for k in lengths1]
    second = [rng.integers(0, vocab, size=k) for k in lengths2]
    first[0] = np.array([3, 3, 3, 7])  # duplicates
    second[0] = np.array([7])
    first[1] = np.array([], dtype=np.int64)  # empty (e.g. all tokens out of vocabulary)
    first[2] = np.array([], dtype=np.int64)
    second[2] = np.array([], dtype=np.int64)  # both empty
    first[3] = rng.integers(0, vocab, size=120)  # very unequal lengths
    second[3] = np.array([5])
    first[4] = np.array([11])
    second[4] = rng.integers(0, vocab, size=90)
    first[5] = second[5] = np.array([1, 2, 2, 9])  # identical
    return table, first, second


# ---------------------------------------------------------------- batched == per-pair
@pytest.mark.parametrize("measure", DYNAMAX_MEASURES)
def test_dynamax_batched_equals_algorithm_1(random_pairs, measure):
    table, first, second = random_pairs
    expected = [reference_dynamax(table[a], table[b], measure) for a, b in zip(first, second)]
    assert_allclose(
        dynamax_similarity(first, second, vectors=table, measure=measure),
        expected,
        rtol=0,
        atol=EXACT,
    )


def test_padding_is_neutral_whatever_the_chunking(random_pairs):
    table, first, second = random_pairs
    alone = [dynamax_similarity([a], [b], vectors=table)[0] for a, b in zip(first, second)]
    for chunk_pairs, max_chunk_bytes in [(1, 10**9), (7, 10**9), (1000, 10**9), (64, 1)]:
        batched = dynamax_similarity(
            first, second, vectors=table, chunk_pairs=chunk_pairs, max_chunk_bytes=max_chunk_bytes
        )
        assert_allclose(batched, alone, rtol=0, atol=EXACT)


def test_degenerate_pairs_follow_the_reference_semantics(random_pairs):
    table, first, second = random_pairs
    scores = dynamax_similarity(first, second, vectors=table)
    assert scores[1] == 0.0  # one side empty: 0
    assert scores[2] == 0.0  # both sides empty: 0, not NaN
    assert scores[5] == pytest.approx(1.0, abs=EXACT)  # identical sentences
    assert np.all((scores >= 0) & (scores <= 1 + EXACT))


def test_dynamax_is_symmetric(random_pairs):
    table, first, second = random_pairs
    assert_allclose(
        dynamax_similarity(first, second, vectors=table),
        dynamax_similarity(second, first, vectors=table),
        rtol=0,
        atol=EXACT,
    )


@pytest.mark.parametrize("measure", ["jaccard", "cosine"])
def test_maxpool_and_avg_cos_equal_per_pair_reference(random_pairs, measure):
    table, first, second = random_pairs
    expected = [reference_maxpool(table[a], table[b], measure) for a, b in zip(first, second)]
    assert_allclose(
        maxpool_similarity(first, second, vectors=table, measure=measure),
        expected,
        rtol=0,
        atol=EXACT,
    )
    expected = [reference_avg_cos(table[a], table[b]) for a, b in zip(first, second)]
    assert_allclose(
        average_cosine_similarity(first, second, vectors=table), expected, rtol=0, atol=EXACT
    )


def test_matrix_equals_every_pair(random_pairs):
    table, first, second = random_pairs
    matrix = dynamax_similarity_matrix(
        first[:9], second[:7], vectors=table, measure="otsuka", chunk_pairs=5
    )
    expected = [
        [reference_dynamax(table[a], table[b], "otsuka") for b in second[:7]] for a in first[:9]
    ]
    assert matrix.shape == (9, 7)
    assert_allclose(matrix, expected, rtol=0, atol=EXACT)


def test_word_vector_matrices_and_row_ids_agree(random_pairs):
    table, first, second = random_pairs
    as_matrices = dynamax_similarity([table[a] for a in first], [table[b] for b in second])
    assert_allclose(
        as_matrices, dynamax_similarity(first, second, vectors=table), rtol=0, atol=EXACT
    )


def test_row_weights_scale_the_word_vectors(random_pairs):
    table, first, second = random_pairs
    weights = np.random.default_rng(5).uniform(0.01, 1.0, size=table.shape[0])
    weighted = dynamax_similarity(first, second, vectors=table, weights=weights)
    assert_allclose(
        weighted,
        dynamax_similarity(first, second, vectors=table * weights[:, None]),
        rtol=0,
        atol=EXACT,
    )


# ---------------------------------------------------------------- hand-computed cases
A, B, C, D = [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]
HAND = np.array([A, B, C, D])


@pytest.mark.parametrize(
    ("measure", "expected"),
    [
        # U = [a; b; c]: mu_X = (1, 1, 1), mu_Y = (c.a, c.b, c.c) = (1, 1, 2)
        ("jaccard", 3 / 4),
        ("otsuka", 3 / np.sqrt(3 * 4)),
        ("dice", 2 * 3 / (3 + 4)),
        ("cosine", 4 / np.sqrt(3 * 6)),
    ],
)
def test_dynamax_hand_computed(measure, expected):
    assert_allclose(
        dynamax_similarity([[0, 1]], [[2]], vectors=HAND, measure=measure), [expected], rtol=1e-15
    )


def test_dynamax_keeps_repeated_tokens_and_clamps_at_zero():
    # {a, a} vs {c}: U = [a; a; c], mu_X = (1, 1, 1), mu_Y = (1, 1, 2) -> 3/4
    # {a} vs {c}:    U = [a; c],    mu_X = (1, 1),    mu_Y = (1, 2)    -> 2/3
    # {a} vs {d}: every cross dot product is -1, clamped to 0: mu_X = (1, 0), mu_Y = (0, 1) -> 0
    scores = dynamax_similarity([[0, 0], [0], [0]], [[2], [2], [3]], vectors=HAND)
    assert_allclose(scores, [3 / 4, 2 / 3, 0.0], rtol=1e-15)


# A worked example of Algorithm 1 (Zhelezniak et al. 2019, Sec. 2.2.3), by hand. Sentence X has
# the words p = (2, 0) and q = (0, 1), sentence Y the word r = (-1, 1). The universe stacks both
# sentences, U = [p; q; r]; a sentence's membership in each row u of U is the largest dot product
# of one of its words with u, max-pooled together with the zero vector (the clipping at 0):
#   p.p = 4, q.p = 0, r.p = -2;   p.q = 0, q.q = 1, r.q = 1;   p.r = -2, q.r = 1, r.r = 2
#   mu_X = (max(4, 0, 0), max(0, 1, 0), max(-2, 1, 0)) = (4, 1, 1)
#   mu_Y = (max(-2, 0), max(1, 0), max(2, 0))          = (0, 1, 2)
# and the fuzzy Jaccard index is sum(min) / sum(max) = (0 + 1 + 1) / (4 + 1 + 2) = 2/7.
WORKED = np.array([[2.0, 0.0], [0.0, 1.0], [-1.0, 1.0]])  # p, q, r
WORKED_X, WORKED_Y = [[0, 1]], [[2]]
WORKED_DYNAMAX_JACCARD = 2 / 7
#: What a wrong kernel gives on the worked example: each differs from 2/7.
WORKED_WRONG_KERNELS = {
    # no clipping: mu_Y = (-2, 1, 2), sum(min) = -2 + 1 + 1 = 0
    "memberships not clipped at 0": 0.0,
    # cosine of the memberships: (4*0 + 1*1 + 1*2) / (sqrt(18) sqrt(5))
    "cosine instead of fuzzy Jaccard": 3 / np.sqrt(90),
    # U = [p; q]: mu_X = (4, 1), mu_Y = (0, 1): 1/5
    "universe of the first sentence only": 1 / 5,
    # U = [r]: mu_X = max(-2, 1) = 1, mu_Y = 2: 1/2
    "universe of the second sentence only": 1 / 2,
    # U = I (max-pooled word vectors): max(p, q, 0) = (2, 1), max(r, 0) = (0, 1)
    "Jaccard of the max-pooled word vectors": 1 / 3,
    "cosine of the max-pooled word vectors": 1 / np.sqrt(5),
    # mean over words instead of the max: mu_X = (2, 1/2, -1/2) clipped to (2, 1/2, 0): 1/10
    "mean-pooled memberships": 1 / 10,
}


def test_dynamax_jaccard_equals_the_worked_example_of_algorithm_1():
    (score,) = dynamax_similarity(WORKED_X, WORKED_Y, vectors=WORKED)
    assert score == pytest.approx(WORKED_DYNAMAX_JACCARD, rel=1e-15)
    (swapped,) = dynamax_similarity(WORKED_Y, WORKED_X, vectors=WORKED)
    assert swapped == pytest.approx(WORKED_DYNAMAX_JACCARD, rel=1e-15)
    # the same pair given as word-vector matrices instead of row ids
    (as_matrices,) = dynamax_similarity([WORKED[[0, 1]]], [WORKED[[2]]])
    assert as_matrices == pytest.approx(WORKED_DYNAMAX_JACCARD, rel=1e-15)


@pytest.mark.parametrize(
    "wrong", WORKED_WRONG_KERNELS.values(), ids=list(WORKED_WRONG_KERNELS.keys())
)
def test_the_worked_example_tells_dynamax_jaccard_from_a_wrong_kernel(wrong):
    (score,) = dynamax_similarity(WORKED_X, WORKED_Y, vectors=WORKED)
    assert abs(score - wrong) > 0.01


def test_the_worked_examples_wrong_kernels_by_their_own_arithmetic():
    """The numbers in ``WORKED_WRONG_KERNELS`` are what those kernels compute (so the test above
    compares with real mistakes, not with arbitrary numbers)."""
    x, y = WORKED[[0, 1]], WORKED[[2]]
    universe = np.vstack((x, y))

    def jaccard(a, b):
        return np.minimum(a, b).sum() / np.maximum(a, b).sum()

    def cosine(a, b):
        return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))

    def members(words, u, pool=np.max):
        return np.maximum(pool(words @ u.T, axis=0), 0.0)

    computed = {
        "memberships not clipped at 0": jaccard((x @ universe.T).max(0), (y @ universe.T).max(0)),
        "cosine instead of fuzzy Jaccard": cosine(members(x, universe), members(y, universe)),
        "universe of the first sentence only": jaccard(members(x, x), members(y, x)),
        "universe of the second sentence only": jaccard(members(x, y), members(y, y)),
        "Jaccard of the max-pooled word vectors": jaccard(
            members(x, np.eye(2)), members(y, np.eye(2))
        ),
        "cosine of the max-pooled word vectors": cosine(
            members(x, np.eye(2)), members(y, np.eye(2))
        ),
        "mean-pooled memberships": jaccard(members(x, universe, np.mean), members(y, universe)),
    }
    assert computed == pytest.approx(WORKED_WRONG_KERNELS, rel=1e-12)
    assert jaccard(members(x, universe), members(y, universe)) == pytest.approx(2 / 7)


_words = arrays(
    np.float64,
    st.tuples(st.integers(1, 6), st.just(3)),
    elements=st.integers(-12, 12).map(lambda k: k / 4),  # no underflow of a product to 0
)


@settings(max_examples=60, deadline=None)
@given(_words, _words, st.floats(0.1, 10))
def test_dynamax_jaccard_properties(x, y, scale):
    """In [0, 1] (memberships are clipped at 0), 1 for a sentence and itself (when it has a
    non-zero word), symmetric, and unchanged when every vector is scaled by c > 0 (memberships
    scale by c^2)."""
    score, itself, swapped, scaled = dynamax_similarity([x, x, y, scale * x], [y, x, x, scale * y])
    assert -EXACT <= score <= 1 + EXACT
    if np.any(x):
        assert itself == pytest.approx(1.0, abs=EXACT)
    assert swapped == pytest.approx(score, abs=EXACT)
    assert scaled == pytest.approx(score, abs=1e-9)


def test_maxpool_hand_computed():
    x = [np.array([[1.0, -2.0], [-1.0, 3.0]])]  # max-pool with 0: (1, 3)
    y = [np.array([[2.0, -1.0]])]  # (2, 0)
    assert_allclose(maxpool_similarity(x, y), [1 / 5], rtol=1e-15)
    assert_allclose(maxpool_similarity(x, y, measure="cosine"), [2 / (np.sqrt(10) * 2)], rtol=1e-15)
    assert_allclose(pool_word_vectors(x, mode="max"), [[1.0, 3.0]])
    assert_allclose(pool_word_vectors(x, mode="mean"), [[0.0, 0.5]])
    assert_allclose(pool_word_vectors(x, mode="sum"), [[0.0, 1.0]])


def test_avg_cos_hand_computed():
    x = [np.array([[1.0, 0.0], [1.0, 2.0]]), np.array([[1.0, 0.0], [1.0, 2.0]])]  # mean (1, 1)
    y = [np.array([[2.0, 2.0]]), np.array([[1.0, 0.0]])]
    assert_allclose(average_cosine_similarity(x, y), [1.0, 1 / np.sqrt(2)], rtol=1e-15)


def test_fuzzy_set_measures_hand_computed():
    mu1, mu2 = [[1.0, 0.5, 0.0]], [[0.5, 0.5, 1.0]]  # min-sum 1, max-sum 2.5, |A| 1.5, |B| 2
    assert_allclose(fuzzy_set_similarity(mu1, mu2), [0.4])
    assert_allclose(fuzzy_set_similarity(mu1, mu2, measure="otsuka"), [1 / np.sqrt(3)])
    assert_allclose(fuzzy_set_similarity(mu1, mu2, measure="dice"), [2 / 3.5])
    assert_allclose(fuzzy_set_similarity([[0.0, 0.0]], [[0.0, 0.0]]), [0.0])  # empty sets: 0
    matrix = fuzzy_set_similarity_matrix(
        [[1.0, 0.5, 0.0], [0.0, 0.0, 0.0]], mu2 + [[1.0, 0.5, 0.0]], max_chunk_bytes=8
    )
    assert_allclose(matrix, [[0.4, 1.0], [0.0, 0.0]])


# ---------------------------------------------------------------- validation
def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="same number of sentences"):
        dynamax_similarity([[0]], [[0], [1]], vectors=HAND)
    with pytest.raises(ValueError, match="`measure` must be one of"):
        dynamax_similarity([[0]], [[1]], vectors=HAND, measure="tanimoto")
    with pytest.raises(ValueError, match=r"sentences2\[0\]` holds row id 9"):
        dynamax_similarity([[0]], [[9]], vectors=HAND)
    with pytest.raises(TypeError, match=r"sentences1\[0\]` must be a 1-D array of integer row ids"):
        dynamax_similarity([[0.5]], [[1]], vectors=HAND)
    with pytest.raises(ValueError, match="row 1 holds NaN"):
        dynamax_similarity([[1]], [[0]], vectors=np.array([[1.0, 0.0], [np.nan, 1.0]]))
    with pytest.raises(ValueError, match="same width"):
        dynamax_similarity([np.ones((2, 3))], [np.ones((1, 4))])
    with pytest.raises(ValueError, match="non-negative"):
        fuzzy_set_similarity([[-1.0, 1.0]], [[1.0, 1.0]])
    with pytest.raises(TypeError, match="`chunk_pairs` must be an integer"):
        dynamax_similarity([[0]], [[1]], vectors=HAND, chunk_pairs=2.5)  # type: ignore[arg-type]  # deliberately wrong type
    with pytest.raises(TypeError, match="sequence of sentences"):
        dynamax_similarity("a sentence", ["another"], vectors=HAND)


def test_threads_and_table_dtype_do_not_change_scores(random_pairs):
    table, first, second = random_pairs
    expected = dynamax_similarity(first, second, vectors=table)
    assert_allclose(
        dynamax_similarity(first, second, vectors=table, workers=2, chunk_pairs=3),
        expected,
        rtol=0,
        atol=EXACT,
    )
    as_float32 = table.astype(np.float32)
    assert_allclose(
        dynamax_similarity(first, second, vectors=as_float32),
        [
            reference_dynamax(as_float32[a].astype(float), as_float32[b].astype(float))
            for a, b in zip(first, second)
        ],
        rtol=0,
        atol=EXACT,
    )


def test_non_finite_weighted_vectors_are_named_not_silenced():
    weights = np.array([1.0, np.inf, 1.0, 1.0])
    with pytest.raises(ValueError, match="`weights` must be finite"):
        dynamax_similarity([[0]], [[1]], vectors=HAND, weights=weights)
    huge = np.array([[1e200, 0.0], [1e200, 1.0]])
    with pytest.raises(ValueError, match="overflowed"):
        dynamax_similarity([[0]], [[1]], vectors=huge)


# ------------------------------------------- cross-pair reuse: one word table for many pairs
@pytest.fixture
def table_path(monkeypatch):
    """Count membership-table builds; make the per-pair products look expensive (force the table
    path whenever it fits in the memory budget)."""
    import sts_extras.similarity.vocabulary as vocabulary

    monkeypatch.setattr(vocabulary, "_NS_PER_PAIR", 1e12)
    calls = []
    build = vocabulary.membership_table

    def counting(*args, **kwargs):
        calls.append(args[0].use_gram)
        return build(*args, **kwargs)

    monkeypatch.setattr(vocabulary, "membership_table", counting)
    return calls


@pytest.fixture(scope="module")
def repaired_pairs(random_pairs):
    """Few sentences re-paired many times (as STS sets scored against each other), with repeated
    words, empty sentences and identical pairs."""
    table, first, second = random_pairs
    rng = np.random.default_rng(16)
    pool = [*first[:12], np.array([4, 4, 4]), np.array([], dtype=np.int64)]
    chosen = rng.integers(0, len(pool), size=(2, 300))
    return table, [pool[i] for i in chosen[0]], [pool[i] for i in chosen[1]]


@pytest.mark.parametrize("measure", DYNAMAX_MEASURES)
@pytest.mark.parametrize("data", ["random_pairs", "repaired_pairs"])
def test_vocabulary_table_equals_algorithm_1(request, table_path, data, measure):
    table, first, second = request.getfixturevalue(data)
    expected = [reference_dynamax(table[a], table[b], measure) for a, b in zip(first, second)]
    got = dynamax_similarity(first, second, vectors=table, measure=measure)
    assert table_path, "the membership table was not used"
    assert_allclose(got, expected, rtol=EXACT, atol=EXACT)
    weights = np.random.default_rng(3).uniform(0.01, 1.0, size=table.shape[0])
    assert_allclose(
        dynamax_similarity(first, second, vectors=table, weights=weights, measure=measure),
        [
            reference_dynamax(table[a] * weights[a, None], table[b] * weights[b, None], measure)
            for a, b in zip(first, second)
        ],
        rtol=EXACT,
        atol=EXACT,
    )


def test_vocabulary_table_matrix_equals_every_pair(table_path, repaired_pairs):
    table, first, second = repaired_pairs
    matrix = dynamax_similarity_matrix(first[:20], second[:15], vectors=table, measure="dice")
    assert table_path
    expected = [
        [reference_dynamax(table[a], table[b], "dice") for b in second[:15]] for a in first[:20]
    ]
    assert_allclose(matrix, expected, rtol=EXACT, atol=EXACT)


def test_choice_boundary_is_the_memory_budget(table_path, repaired_pairs):
    """At the budget the table (Gram or product variant) is used, one byte below it the per-pair
    products are: both sides of the boundary give the reference scores."""
    table, first, second = repaired_pairs
    words = np.unique(np.concatenate([*first, *second]))
    distinct = {tuple(s) for s in [*first, *second]}
    dim = table.shape[1]
    expected = [reference_dynamax(table[a], table[b]) for a, b in zip(first, second)]
    product = 8 * words.size * (dim + len(distinct))  # W_V and the table
    gram = product + 8 * words.size**2  # and G
    for budget, used in [
        (gram, [True]),
        (gram - 1, [False]),
        (product, [False]),
        (product - 1, []),
    ]:
        table_path.clear()
        scores = dynamax_similarity(first, second, vectors=table, max_chunk_bytes=budget)
        assert table_path == used, budget
        assert_allclose(scores, expected, rtol=EXACT, atol=EXACT)


def test_large_vocabulary_keeps_the_per_pair_products(random_pairs):
    import sts_extras.similarity.vocabulary as vocabulary

    table, first, second = random_pairs
    # d = 12 and 80 pairs with 60 words: the per-pair cost estimate decides, whichever way,
    # and one byte of budget always rules the table out.
    assert (
        vocabulary.plan_memberships(
            np.concatenate(first), np.array([a.size for a in first]), 60, 12, 1e3, 80, 1e3, 1
        )
        is None
    )


def test_distinct_sentences_survive_hash_collisions(monkeypatch, repaired_pairs):
    import sts_extras.similarity.kernels as kernels

    _, first, _ = repaired_pairs
    tokens = np.concatenate(first)
    lengths = np.array([a.size for a in first])
    monkeypatch.setattr(kernels, "_mix", lambda values: values * np.uint64(0))  # all collide
    representatives, groups = kernels.distinct_sentences(tokens, lengths)
    for index, sentence in enumerate(first):
        assert np.array_equal(first[representatives[groups[index]]], sentence)


@pytest.mark.parametrize("measure", ["jaccard", "otsuka", "cosine"])
def test_maxpool_with_recurring_sentences_equals_reference(repaired_pairs, measure):
    table, first, second = repaired_pairs
    expected = [reference_maxpool(table[a], table[b], measure) for a, b in zip(first, second)]
    assert_allclose(
        maxpool_similarity(first, second, vectors=table, measure=measure),
        expected,
        rtol=EXACT,
        atol=EXACT,
    )
    pooled = pool_word_vectors(first, vectors=table, mode="mean")
    assert_allclose(
        pooled,
        [table[a].mean(axis=0) if a.size else np.zeros(table.shape[1]) for a in first],
        rtol=EXACT,
        atol=EXACT,
    )


# ---------------------------------------------------------------- vectorised checks and grouping
def test_row_ids_checked_on_the_concatenation_name_the_sentence():
    vectors = np.arange(12.0).reshape(4, 3)
    with pytest.raises(ValueError, match=r"`sentences1\[2\]` holds row id -1, outside the 4 rows"):
        dynamax_similarity([[0], [], [1, -1], [9]], [[0], [1], [2], [3]], vectors=vectors)
    with pytest.raises(TypeError, match=r"`sentences2\[1\]` must be a 1-D array .* dtype float64"):
        dynamax_similarity([[0], [1]], [np.array([1]), np.array([0.5])], vectors=vectors)
    with pytest.raises(TypeError, match=r"`sentences1\[1\]` must be a 1-D array .* shape \(\)"):
        dynamax_similarity([[0], 3], [[0], [1]], vectors=vectors)
    # Untyped empty sentences (float64 `[]`) and mixed integer dtypes are fine.
    typed = dynamax_similarity(
        [np.array([0, 1]), np.empty(0, dtype=np.int64)],
        [np.array([2]), np.array([3])],
        vectors=vectors,
    )
    mixed = dynamax_similarity(
        [np.array([0, 1], dtype=np.uint64), []],
        [np.array([2], dtype=np.int32), [3]],
        vectors=vectors,
    )
    assert np.array_equal(typed, mixed)


def _groups_by_dict(sentences):
    seen: dict[tuple[int, ...], int] = {}
    return [seen.setdefault(tuple(s.tolist()), len(seen)) for s in sentences]


@pytest.mark.parametrize("collide", [False, True])
def test_distinct_sentences_blockwise_equal_exact_grouping(monkeypatch, collide):
    import sts_extras.similarity.kernels as kernels

    rng = np.random.default_rng(7)
    pool = [rng.integers(0, 30, size=k) for k in rng.integers(0, 9, size=25)]
    pool += [pool[3][::-1], np.array([5, 5]), np.array([5]), np.array([], dtype=np.int64)]
    sentences = [pool[i] for i in rng.integers(0, len(pool), size=400)]
    tokens = np.concatenate(sentences)
    lengths = np.array([s.size for s in sentences])
    monkeypatch.setattr(kernels, "BLOCK_TOKENS", 7)  # many blocks, sentences longer than one
    if collide:
        monkeypatch.setattr(kernels, "_mix", lambda values: values * np.uint64(0))
    representatives, groups = kernels.distinct_sentences(tokens, lengths)
    for index, sentence in enumerate(sentences):
        assert np.array_equal(sentences[representatives[groups[index]]], sentence)
    if not collide:  # one group per distinct sentence: the same partition as a dict of tuples
        pairs = set(zip(groups.tolist(), _groups_by_dict(sentences), strict=True))
        assert len(pairs) == representatives.size == len({tuple(s) for s in sentences})


def test_sentence_blocks_cover_whole_sentences_in_order():
    from sts_extras.similarity.kernels import sentence_blocks

    lengths = np.array([0, 3, 10, 0, 0, 2, 1, 7, 0])
    blocks = sentence_blocks(lengths, 4)
    assert blocks[0].start == 0 and blocks[-1].stop == lengths.size
    assert all(a.stop == b.start for a, b in zip(blocks[:-1], blocks[1:]))
    assert sentence_blocks(np.zeros(0, dtype=np.int64)) == []
    assert sentence_blocks(np.zeros(3, dtype=np.int64)) == [slice(0, 3)]


def test_segment_max_reads_indexed_rows_in_place():
    from sts_extras.similarity.kernels import segment_max

    rng = np.random.default_rng(2)
    values = rng.standard_normal((20, 6))
    rows = rng.integers(0, 20, size=15)
    lengths = np.array([3, 1, 5, 2, 4])
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    assert np.array_equal(
        segment_max(values, starts, lengths, rows), segment_max(values[rows], starts, lengths)
    )
    assert np.array_equal(
        segment_max(values[rows], starts, lengths),
        np.maximum.reduceat(values[rows], starts, axis=0),
    )
