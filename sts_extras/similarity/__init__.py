"""Sentence similarity from word vectors as fuzzy sets (DynaMax, MaxPool, avg-cos).

Plain numpy; see :mod:`sts_extras.similarity.fuzzy`. The MTEB / sentence-transformers models built
on it live in :mod:`sts_extras.integrations.mteb.models`.
"""

from sts_extras.similarity.fuzzy import (
    DEFAULT_CHUNK_BYTES,
    DEFAULT_CHUNK_PAIRS,
    DYNAMAX_MEASURES,
    MAXPOOL_MEASURES,
    average_cosine_similarity,
    dynamax_similarity,
    dynamax_similarity_matrix,
    fuzzy_set_similarity,
    fuzzy_set_similarity_matrix,
    maxpool_similarity,
    pool_word_vectors,
)

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
