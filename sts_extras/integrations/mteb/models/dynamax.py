"""DynaMax as a model: exact pairwise scores, and MTEB's encoder interface around them.

DynaMax scores a *pair*: its universe is built from both sentences, so no fixed per-sentence
vector reproduces it. :meth:`DynaMax.encode` therefore returns the **summed** (SIF-weighted)
word vectors of each sentence -- a real ``(n, dim)`` embedding that MTEB's generic cosine,
Euclidean and Manhattan computations accept -- and remembers, for each returned row, the
sentence's token ids (a :class:`~sts_extras.integrations.mteb.models.registry.SentenceRegistry`).
:meth:`DynaMax.similarity_pairwise` looks the rows up and runs the exact batched DynaMax, in
bounded-memory chunks. In MTEB's STS results this means:

* ``pearson`` / ``spearman`` (the model's own similarity) are **exactly DynaMax**;
* ``cosine_pearson`` / ``cosine_spearman`` are avg-cos of the same word vectors (the cosine of
  summed vectors equals the cosine of averaged ones) -- the paper's baseline, for free;
* ``euclidean_*`` / ``manhattan_*`` use negative distances between the summed vectors; they
  mix similarity with sentence length and have no meaning for DynaMax.

MTEB's own STS tasks have ``main_score="cosine_spearman"``, so their main score is avg-cos, not
DynaMax; :meth:`DynaMax.encode` warns
(:class:`~sts_extras.integrations.mteb.models.base.MainScoreWarning`) the first time it sees such a
task.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import check_choice, check_positive_int
from sts_extras.errors import UserInputError
from sts_extras.integrations.mteb.models.base import StaticVectorModel, as_embedding_matrix
from sts_extras.integrations.mteb.models.registry import SentenceRegistry
from sts_extras.similarity.fuzzy import (
    DEFAULT_CHUNK_BYTES,
    DEFAULT_CHUNK_PAIRS,
    DYNAMAX_MEASURES,
    dynamax_similarity,
    dynamax_similarity_matrix,
    pool_word_vectors,
)
from sts_extras.vectors import SIFWeights, TokenizedSentences, WordVectors

__all__ = ["DynaMax"]


class DynaMax(StaticVectorModel):
    """DynaMax sentence similarity over word vectors (Algorithm 1 of Zhelezniak et al., 2019).

    Parameters
    ----------
    vectors : WordVectors
        The word vectors (raw: DynaMax uses unnormalised dot products).
    measure : {"jaccard", "otsuka", "dice", "cosine"}
        The fuzzy set similarity; ``"jaccard"`` is DynaMax-Jaccard, the paper's method.
    sif : bool or SIFWeights
        Weight word vectors by ``a / (a + p(w))`` (DynaMax-SIF, Table 2). Off by default.
    show_progress_bar : bool, optional
        Progress bar while encoding; None shows it for 10,000 sentences or more.
    chunk_pairs, max_chunk_bytes, workers : int
        Chunking and threads of the batched computation (see
        :func:`sts_extras.similarity.fuzzy.dynamax_similarity`).
    max_cached_sentences : int
        Capacity of the registry linking :meth:`encode` outputs to token ids (least recently
        used entries are forgotten first).

    Examples
    --------
    >>> import numpy as np
    >>> from sts_extras.vectors import WordVectors
    >>> from sts_extras.integrations.mteb.models import DynaMax
    >>> wv = WordVectors.from_arrays(["cats", "dogs", "sleep"],
    ...                              np.array([[1.0, 0.2], [0.8, 0.4], [0.0, 1.0]]), name="toy")
    >>> model = DynaMax(wv)
    >>> model.score(["cats sleep"], ["dogs sleep"]).round(4).tolist()
    [0.9388]
    """

    def __init__(
        self,
        vectors: WordVectors,
        measure: str = "jaccard",
        *,
        sif: bool | SIFWeights = False,
        show_progress_bar: bool | None = None,
        chunk_pairs: int = DEFAULT_CHUNK_PAIRS,
        max_chunk_bytes: int = DEFAULT_CHUNK_BYTES,
        max_cached_sentences: int = 500_000,
        workers: int = 1,
    ) -> None:
        super().__init__(
            vectors, sif=sif, show_progress_bar=show_progress_bar, max_chunk_bytes=max_chunk_bytes
        )
        self.measure = check_choice(measure, "measure", DYNAMAX_MEASURES)
        self.chunk_pairs = check_positive_int(chunk_pairs, "chunk_pairs")
        self.workers = workers if workers == -1 else check_positive_int(workers, "workers")
        self._registry = SentenceRegistry(
            check_positive_int(max_cached_sentences, "max_cached_sentences")
        )
        self._method = f"DynaMax-{self.measure.capitalize()}"

    def _generic_meaning(self, family: str) -> str:
        if family == "cosine":
            return "avg-cos of the same word vectors"
        return f"{family} distance between summed word vectors"

    def _score_ids(
        self,
        ids1: list[NDArray[np.int64]],
        ids2: list[NDArray[np.int64]],
        table: NDArray[np.floating],
        weights: NDArray[np.float64] | None,
    ) -> NDArray[np.float64]:
        return dynamax_similarity(
            ids1,
            ids2,
            vectors=table,
            weights=weights,
            measure=self.measure,
            chunk_pairs=self.chunk_pairs,
            max_chunk_bytes=self.max_chunk_bytes,
            workers=self.workers,
        )

    def _embed(
        self,
        ids: list[NDArray[np.int64]],
        table: NDArray[np.floating],
        weights: NDArray[np.float64] | None,
        tokens: TokenizedSentences,
    ) -> NDArray[np.float64]:
        summed = pool_word_vectors(
            ids, vectors=table, weights=weights, mode="sum", max_chunk_bytes=self.max_chunk_bytes
        )
        # Remember each distinct sentence once, in the order of its last occurrence: the
        # registry's recency order is then that of registering every sentence in turn.
        reversed_index = tokens.sentence_index[::-1]
        _, last_from_end = np.unique(reversed_index, return_index=True)
        recency = np.argsort(-last_from_end, kind="stable")  # earliest last occurrence first
        self._registry.register(
            summed[recency], list(map(tokens.distinct_ids.__getitem__, recency.tolist()))
        )
        return summed

    def _lookup_pair_sets(
        self, embeddings1: ArrayLike, embeddings2: ArrayLike
    ) -> tuple[NDArray[np.floating], NDArray[np.float64] | None, list[list[NDArray[np.int64]]]]:
        distinct1, index1 = self._registry.lookup_distinct(
            as_embedding_matrix(embeddings1, "embeddings1"), "embeddings1"
        )
        distinct2, index2 = self._registry.lookup_distinct(
            as_embedding_matrix(embeddings2, "embeddings2"), "embeddings2"
        )
        return self._compact(distinct1 + distinct2, index1, index2 + len(distinct1))

    def similarity_pairwise(
        self, embeddings1: ArrayLike, embeddings2: ArrayLike
    ) -> NDArray[np.float64]:
        """Exact DynaMax of each pair of encoded sentences (rows must come from :meth:`encode`)."""
        table, weights, (ids1, ids2) = self._lookup_pair_sets(embeddings1, embeddings2)
        if len(ids1) != len(ids2):
            raise UserInputError(
                "`embeddings1` and `embeddings2` must have the same number of rows, got "
                f"{len(ids1)} and {len(ids2)}."
            )
        return self._score_ids(ids1, ids2, table, weights)

    def similarity(self, embeddings1: ArrayLike, embeddings2: ArrayLike) -> NDArray[np.float64]:
        """Exact DynaMax between every row of ``embeddings1`` and every row of ``embeddings2``."""
        table, weights, (ids1, ids2) = self._lookup_pair_sets(embeddings1, embeddings2)
        return dynamax_similarity_matrix(
            ids1,
            ids2,
            vectors=table,
            weights=weights,
            measure=self.measure,
            chunk_pairs=self.chunk_pairs,
            max_chunk_bytes=self.max_chunk_bytes,
            workers=self.workers,
        )
