"""Models whose sentence vector is a pooling of word vectors: MaxPool and MeanPooled (avg-cos).

Their :meth:`~sts_extras.integrations.mteb.models.base.StaticVectorModel.encode` output is the
pooled vector itself, so MTEB's pairwise and all-pairs similarities are one fuzzy-set call each. For
:class:`MaxPool` it is the max-pooled fuzzy set (MTEB's ``cosine_*`` is MaxPool-cosine); for
:class:`MeanPooled` it is the averaged vector (``cosine_*`` equals ``pearson``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import check_choice
from sts_extras.integrations.mteb.models.base import StaticVectorModel, as_embedding_matrix
from sts_extras.optional import requires_extra
from sts_extras.similarity.fuzzy import (
    DEFAULT_CHUNK_BYTES,
    MAXPOOL_MEASURES,
    average_cosine_similarity,
    fuzzy_set_similarity,
    fuzzy_set_similarity_matrix,
    maxpool_similarity,
    pool_word_vectors,
)
from sts_extras.vectors import SIFWeights, TokenizedSentences, WordVectors

if TYPE_CHECKING:  # pragma: no cover -- sentence-transformers is imported on use
    from sentence_transformers import SentenceTransformer

__all__ = ["MaxPool", "MeanPooled", "PooledVectorModel"]


class PooledVectorModel(StaticVectorModel):
    """A model whose sentence vector is a pooling of its word vectors, compared by a measure.

    Subclasses set ``_pool_mode`` ("max" or "mean") and ``measure``; encode outputs are the
    pooled vectors, so MTEB's pairwise and all-pairs similarities are one fuzzy-set call each.
    """

    _pool_mode: str = ""
    measure: str = ""

    def _embed(
        self,
        ids: list[NDArray[np.int64]],
        table: NDArray[np.floating],
        weights: NDArray[np.float64] | None,
        tokens: TokenizedSentences,
    ) -> NDArray[np.float64]:
        return pool_word_vectors(
            ids,
            vectors=table,
            weights=weights,
            mode=self._pool_mode,
            max_chunk_bytes=self.max_chunk_bytes,
        )

    def similarity_pairwise(
        self, embeddings1: ArrayLike, embeddings2: ArrayLike
    ) -> NDArray[np.float64]:
        """The model's measure between paired pooled vectors (the :meth:`encode` outputs)."""
        return fuzzy_set_similarity(
            as_embedding_matrix(embeddings1, "embeddings1"),
            as_embedding_matrix(embeddings2, "embeddings2"),
            measure=self.measure,
        )

    def similarity(self, embeddings1: ArrayLike, embeddings2: ArrayLike) -> NDArray[np.float64]:
        """All-pairs measure between pooled vectors."""
        return fuzzy_set_similarity_matrix(
            as_embedding_matrix(embeddings1, "embeddings1"),
            as_embedding_matrix(embeddings2, "embeddings2"),
            measure=self.measure,
            max_chunk_bytes=self.max_chunk_bytes,
        )


class MaxPool(PooledVectorModel):
    """Max-pooled word vectors compared as fuzzy sets (Eq. 3-4 of Zhelezniak et al., 2019).

    The sentence vector is the element-wise maximum of its word vectors and 0 (the fuzzy
    bag-of-words with the identity universe); ``measure="jaccard"`` gives "MaxPool-Jaccard",
    ``"cosine"`` the max-pooled cosine of the paper's Figure 1.

    Parameters
    ----------
    vectors : WordVectors
    measure : {"jaccard", "otsuka", "dice", "cosine"}
    sif : bool or SIFWeights
    show_progress_bar : bool, optional
    """

    _pool_mode = "max"

    def __init__(
        self,
        vectors: WordVectors,
        measure: str = "jaccard",
        *,
        sif: bool | SIFWeights = False,
        show_progress_bar: bool | None = None,
        max_chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    ) -> None:
        super().__init__(
            vectors, sif=sif, show_progress_bar=show_progress_bar, max_chunk_bytes=max_chunk_bytes
        )
        self.measure = check_choice(measure, "measure", MAXPOOL_MEASURES)
        self._method = f"MaxPool-{self.measure.capitalize()}"
        self._similarity_fn = "cosine" if self.measure == "cosine" else "custom"
        self._own_generic_prefix = "cosine_" if self.measure == "cosine" else None

    def _generic_meaning(self, family: str) -> str:
        return f"{family} between max-pooled vectors, i.e. MaxPool-{family.capitalize()}"

    def _score_ids(
        self,
        ids1: list[NDArray[np.int64]],
        ids2: list[NDArray[np.int64]],
        table: NDArray[np.floating],
        weights: NDArray[np.float64] | None,
    ) -> NDArray[np.float64]:
        return maxpool_similarity(
            ids1,
            ids2,
            vectors=table,
            weights=weights,
            measure=self.measure,
            max_chunk_bytes=self.max_chunk_bytes,
        )


class MeanPooled(PooledVectorModel):
    """Averaged word vectors with cosine similarity ("avg-cos"; with ``sif=True``, avg-SIF).

    Parameters
    ----------
    vectors : WordVectors
    sif : bool or SIFWeights
    show_progress_bar : bool, optional

    Examples
    --------
    >>> import numpy as np
    >>> from sts_extras.vectors import WordVectors
    >>> from sts_extras.integrations.mteb.models import MeanPooled
    >>> wv = WordVectors.from_arrays(["cats", "dogs", "sleep"],
    ...                              np.array([[1.0, 0.2], [0.8, 0.4], [0.0, 1.0]]), name="toy")
    >>> MeanPooled(wv).score(["cats sleep"], ["dogs sleep"]).round(4).tolist()
    [0.9846]
    """

    _method = "avg-cos"
    _similarity_fn = "cosine"
    _own_generic_prefix = "cosine_"
    _pool_mode = "mean"
    measure = "cosine"  # cosine of averaged vectors; 0 when one of them is zero

    def _score_ids(
        self,
        ids1: list[NDArray[np.int64]],
        ids2: list[NDArray[np.int64]],
        table: NDArray[np.floating],
        weights: NDArray[np.float64] | None,
    ) -> NDArray[np.float64]:
        return average_cosine_similarity(
            ids1, ids2, vectors=table, weights=weights, max_chunk_bytes=self.max_chunk_bytes
        )

    def to_sentence_transformer(self, *, device: str = "cpu") -> SentenceTransformer:
        """The same model as a plain ``SentenceTransformer`` (one ``StaticEmbedding`` module).

        The tokenizer is a Hugging Face ``tokenizers`` pipeline reproducing this model's
        tokenisation (see :mod:`sts_extras.integrations.sentence_transformers.export` for the few
        cases where it differs); SIF weights are folded into the embedding rows, and unknown tokens
        map to a zero row, so cosine scores match :meth:`score` up to float32 rounding. A saved copy
        reloads with
        ``SentenceTransformer(path)`` in an environment without sts-extras. Words known only
        through fastText subwords are dropped (``StaticEmbedding`` has no subword lookup).
        """
        with requires_extra("mteb"):
            from sentence_transformers import SentenceTransformer
            from sentence_transformers.sentence_transformer.modules import StaticEmbedding

        from sts_extras.integrations.sentence_transformers.export import static_embedding_parts

        wv = self.vectors
        table = np.asarray(wv.vectors, dtype=np.float64)
        if self.sif is not None:
            table = table * self.sif.weights(wv.words)[:, None]
        tokenizer, weights = static_embedding_parts(wv.vocabulary, table)
        module = StaticEmbedding(tokenizer, embedding_weights=weights)
        return SentenceTransformer(modules=[module], device=device, similarity_fn_name="cosine")
