"""Static word-vector sentence similarity models usable in ``mteb.evaluate`` and directly.

* :class:`DynaMax` -- DynaMax with the fuzzy Jaccard (default), Otsuka, Dice or cosine measure
  (Algorithm 1 of Zhelezniak et al., ICLR 2019).
* :class:`MaxPool` -- max-pooled word vectors (the fuzzy bag-of-words with the identity universe)
  compared with the fuzzy Jaccard index ("MaxPool-Jaccard") or cosine.
* :class:`MeanPooled` -- averaged word vectors with cosine ("avg-cos"); converts to a real
  ``SentenceTransformer``.

All three take a :class:`sts_extras.vectors.WordVectors`, optional SIF weights, and offer
``score(sentences1, sentences2)`` for plain use plus MTEB's ``EncoderProtocol`` (``encode``,
``similarity``, ``similarity_pairwise``, ``mteb_model_meta``). The scores come from
:mod:`sts_extras.similarity.fuzzy`; this module only tokenises, gathers vectors and adapts.

How DynaMax fits MTEB's encoder interface
------------------------------------------
DynaMax scores a *pair*: its universe is built from both sentences, so no fixed per-sentence
vector reproduces it. :meth:`DynaMax.encode` therefore returns the **summed** (SIF-weighted)
word vectors of each sentence -- a real ``(n, dim)`` embedding that MTEB's generic cosine,
Euclidean and Manhattan computations accept -- and remembers, for each returned row, the
sentence's token ids (a small bounded registry keyed by a hash of the row).
:meth:`DynaMax.similarity_pairwise` looks the rows up and runs the exact batched DynaMax, in
bounded-memory chunks. In MTEB's STS results this means:

* ``pearson`` / ``spearman`` (the model's own similarity) are **exactly DynaMax**;
* ``cosine_pearson`` / ``cosine_spearman`` are avg-cos of the same word vectors (the cosine of
  summed vectors equals the cosine of averaged ones) -- the paper's baseline, for free;
* ``euclidean_*`` / ``manhattan_*`` use negative distances between the summed vectors; they
  mix similarity with sentence length and have no meaning for DynaMax.

For :class:`MaxPool` the embedding is the max-pooled fuzzy set itself (``cosine_*`` is
MaxPool-cosine); for :class:`MeanPooled` it is the averaged vector (``cosine_*`` = ``pearson``).
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from sts_extras._validation import check_choice, check_positive_int
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
from sts_extras.vectors import SIFWeights, TokenizedSentences, WordVectors

__all__ = ["DynaMax", "MaxPool", "MeanPooled"]

_DYNAMAX_CITATION = """@inproceedings{zhelezniak2019dont,
  title={Don't Settle for Average, Go for the Max: Fuzzy Sets and Max-Pooled Word Vectors},
  author={Zhelezniak, Vitalii and Savkov, Aleksandar and Shen, April and
          Moramarco, Francesco and Flann, Jack and Hammerla, Nils Y.},
  booktitle={International Conference on Learning Representations},
  year={2019},
  url={https://openreview.net/forum?id=SkxXg2C5FX}
}"""
_DYNAMAX_URL = "https://openreview.net/forum?id=SkxXg2C5FX"
#: Encodes of at least this many sentences show a progress bar unless told otherwise.
PROGRESS_BAR_THRESHOLD = 10_000


def _to_numpy(embeddings: Any, name: str) -> np.ndarray:
    if hasattr(embeddings, "detach"):  # torch.Tensor, without importing torch
        embeddings = (
            embeddings.detach().cpu().float().numpy()
            if str(embeddings.dtype) in ("torch.float16", "torch.bfloat16")
            else embeddings.detach().cpu().numpy()
        )
    array = np.asarray(embeddings)
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2 or not np.issubdtype(array.dtype, np.number):
        raise ValueError(
            f"`{name}` must be a (n, dim) array of embeddings, got shape {array.shape}."
        )
    return array


def _texts_of(batch: Any) -> list[str]:
    if isinstance(batch, dict):
        if "text" not in batch:
            raise ValueError(
                f"Expected MTEB batches with a 'text' column, got columns {sorted(batch)}."
            )
        return list(batch["text"])
    if isinstance(batch, str):
        return [batch]
    return list(batch)


class _StaticVectorModel:
    """Shared machinery: tokenisation, SIF weights, compact vector tables, MTEB adapters."""

    _method: str = ""
    _similarity_fn: str = "custom"

    def __init__(
        self,
        vectors: WordVectors,
        *,
        sif: bool | SIFWeights = False,
        show_progress_bar: bool | None = None,
        max_chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    ) -> None:
        if not isinstance(vectors, WordVectors):
            raise TypeError(
                "`vectors` must be a sts_extras.vectors.WordVectors (from WordVectors.load, "
                f".from_gensim, .from_sentence_transformer, ...), got {type(vectors).__name__}."
            )
        if isinstance(sif, bool):
            self.sif: SIFWeights | None = SIFWeights() if sif else None
        elif isinstance(sif, SIFWeights):
            self.sif = sif
        else:
            raise TypeError(f"`sif` must be True, False or a SIFWeights, got {type(sif).__name__}.")
        if show_progress_bar is not None and not isinstance(show_progress_bar, bool):
            raise TypeError(
                f"`show_progress_bar` must be True, False or None, got {show_progress_bar!r}."
            )
        self.vectors = vectors
        self.show_progress_bar = show_progress_bar
        self.max_chunk_bytes = check_positive_int(max_chunk_bytes, "max_chunk_bytes")
        self._sif_cache: dict[int, float] = {}
        self._meta: Any = None

    # ------------------------------------------------------------------ naming
    @property
    def method(self) -> str:
        """The method's display name, e.g. ``"DynaMax-Jaccard"`` or ``"avg-cos-SIF"``."""
        return self._method + ("-SIF" if self.sif is not None else "")

    @property
    def name(self) -> str:
        """``"<method> (<vectors name>)"``."""
        return f"{self.method} ({self.vectors.name})"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.vectors!r}, method={self.method!r})"

    # ------------------------------------------------------------------ tokens -> vectors
    def _tokenize(self, texts: Sequence[str]) -> TokenizedSentences:
        return self.vectors.encode(texts, warn=True)

    def _compact(
        self, *id_lists: list[np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray | None, list[list[np.ndarray]]]:
        """The vector table, its SIF weights and the ids to score with.

        Without SIF and subword-built rows, the word vectors are used in place (the core reads
        only the rows it needs). Otherwise only the rows used are gathered into a small table.
        """
        wv = self.vectors
        if self.sif is None and all(
            ids.size == 0 or ids.max() < len(wv) for ids_list in id_lists for ids in ids_list
        ):
            return wv.vectors, None, [list(ids_list) for ids_list in id_lists]
        sizes = [[ids.size for ids in ids_list] for ids_list in id_lists]
        flat = np.concatenate(
            [ids for ids_list in id_lists for ids in ids_list] or [np.empty(0, np.int64)]
        )
        used, inverse = np.unique(flat.astype(np.int64), return_inverse=True)
        table = self.vectors.vectors_for(used)
        if table.shape[0] == 0:
            table = np.zeros((1, self.vectors.dim), dtype=np.float64)
        weights = self._sif_weights(used) if self.sif is not None and used.size else None
        remapped: list[list[np.ndarray]] = []
        start = 0
        inverse = inverse.reshape(-1)
        for lengths in sizes:
            bounds = np.cumsum([0, *lengths]) + start
            remapped.append([inverse[a:b] for a, b in zip(bounds[:-1], bounds[1:])])
            start = int(bounds[-1])
        return table, weights, remapped

    def _sif_weights(self, rows: np.ndarray) -> np.ndarray:
        missing = [int(row) for row in rows.tolist() if row not in self._sif_cache]
        if missing:
            values = self.sif.weights(self.vectors.words_for(missing))
            self._sif_cache.update(zip(missing, values.tolist()))
        return np.array([self._sif_cache[int(row)] for row in rows.tolist()], dtype=np.float64)

    # ------------------------------------------------------------------ plain-Python entry point
    def score(self, sentences1: Sequence[str], sentences2: Sequence[str]) -> np.ndarray:
        """Similarity of each pair ``(sentences1[i], sentences2[i])`` as a float64 array.

        Out-of-vocabulary tokens are dropped (one :class:`~sts_extras.vectors.OOVWarning` per
        call); a pair with an empty side scores 0.
        """
        first, second = list(sentences1), list(sentences2)
        if len(first) != len(second):
            raise ValueError(
                "`sentences1` and `sentences2` must have the same length, got "
                f"{len(first)} and {len(second)}."
            )
        tokens = self._tokenize(first + second).ids
        table, weights, (ids1, ids2) = self._compact(tokens[: len(first)], tokens[len(first) :])
        return self._score_ids(ids1, ids2, table, weights)

    def _score_ids(
        self,
        ids1: list[np.ndarray],
        ids2: list[np.ndarray],
        table: np.ndarray,
        weights: np.ndarray | None,
    ) -> np.ndarray:
        raise NotImplementedError

    # ------------------------------------------------------------------ MTEB EncoderProtocol
    def _collect_texts(self, inputs: Any, show_progress_bar: bool | None) -> TokenizedSentences:
        if isinstance(inputs, str):
            raise TypeError(
                "`inputs` must be MTEB's DataLoader or a list of sentences, got a single string."
            )
        batches: Iterable[Any]
        if hasattr(inputs, "dataset") and hasattr(inputs, "__iter__"):
            batches, total = inputs, len(inputs.dataset)
        else:
            texts = list(inputs)
            batches, total = [texts[i : i + 4096] for i in range(0, len(texts), 4096)], len(texts)
        show = show_progress_bar if show_progress_bar is not None else self.show_progress_bar
        if show is None:
            show = total >= PROGRESS_BAR_THRESHOLD
        bar = None
        if show:
            from tqdm.auto import tqdm

            bar = tqdm(total=total, desc=f"Encoding ({self.method})", unit="sentence")
        parts: list[TokenizedSentences] = []
        for batch in batches:
            texts = _texts_of(batch)
            parts.append(self.vectors.encode(texts, warn=False))
            if bar is not None:
                bar.update(len(texts))
        if bar is not None:
            bar.close()
        merged = TokenizedSentences(
            ids=[ids for part in parts for ids in part.ids],
            n_tokens=sum(part.n_tokens for part in parts),
            n_dropped=sum(part.n_dropped for part in parts),
            n_subword=sum(part.n_subword for part in parts),
            n_empty=sum(part.n_empty for part in parts),
        )
        self.vectors.report_oov(merged, stacklevel=4)
        return merged

    def encode(
        self,
        inputs: Any,
        *,
        task_metadata: Any = None,
        hf_split: str | None = None,
        hf_subset: str | None = None,
        prompt_type: Any = None,
        show_progress_bar: bool | None = None,
        **kwargs: Any,
    ) -> np.ndarray:
        """Encode MTEB's DataLoader of ``{"text": [...]}`` batches (or a list of sentences).

        Returns a float64 ``(n, dim)`` array; see the module docstring for what it holds for each
        model. ``task_metadata``, ``hf_split``, ``hf_subset``, ``prompt_type`` and other MTEB
        keyword arguments (``batch_size``, ...) are accepted and ignored: the models use no
        prompts. A progress bar is shown for long encodes (``show_progress_bar``).
        """
        tokens = self._collect_texts(inputs, show_progress_bar)
        table, weights, (ids,) = self._compact(tokens.ids)
        return self._embed(ids, table, weights, tokens.ids)

    def _embed(
        self,
        ids: list[np.ndarray],
        table: np.ndarray,
        weights: np.ndarray | None,
        original_ids: list[np.ndarray],
    ) -> np.ndarray:
        raise NotImplementedError

    def similarity(self, embeddings1: Any, embeddings2: Any) -> np.ndarray:
        """``(n1, n2)`` matrix of the model's similarity between two sets of encode outputs."""
        raise NotImplementedError

    def similarity_pairwise(self, embeddings1: Any, embeddings2: Any) -> np.ndarray:
        """Similarity of row ``i`` of ``embeddings1`` with row ``i`` of ``embeddings2``."""
        raise NotImplementedError

    @property
    def mteb_model_meta(self) -> Any:
        """An ``mteb.models.ModelMeta`` whose name is unique per method and vectors."""
        if self._meta is None:
            from mteb.models import ModelMeta
            from mteb.models.model_meta import ScoringFunction

            wv = self.vectors
            revision = hashlib.blake2b(
                repr((wv.fingerprint, self.method, self.sif)).encode(), digest_size=6
            ).hexdigest()
            slug = re.sub(r"[^A-Za-z0-9._-]+", "-", wv.name).strip("-")
            n_parameters = int(len(wv) * wv.dim)
            self._meta = ModelMeta(
                loader=None,
                name=f"sts-extras/{self.method}-{slug}",
                revision=revision,
                release_date=None,
                languages=None,
                n_parameters=n_parameters,
                n_embedding_parameters=n_parameters,
                memory_usage_mb=round(wv.vectors.nbytes / 2**20, 2),
                max_tokens=float("inf"),
                embed_dim=wv.dim,
                license=None,
                open_weights=True,
                public_training_code=None,
                public_training_data=None,
                framework=["NumPy"],
                reference=_DYNAMAX_URL,
                similarity_fn_name=ScoringFunction(self._similarity_fn),
                use_instructions=False,
                training_datasets=None,
                modalities=["text"],
                model_type=["dense"],
                citation=_DYNAMAX_CITATION,
            )
        return self._meta

    @mteb_model_meta.setter
    def mteb_model_meta(self, meta: Any) -> None:
        self._meta = meta


class DynaMax(_StaticVectorModel):
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
    >>> from sts_extras.models import DynaMax
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
        self._registry = _SentenceRegistry(
            check_positive_int(max_cached_sentences, "max_cached_sentences")
        )
        self._method = f"DynaMax-{self.measure.capitalize()}"

    def _score_ids(self, ids1, ids2, table, weights):
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

    def _embed(self, ids, table, weights, original_ids):
        summed = pool_word_vectors(
            ids, vectors=table, weights=weights, mode="sum", max_chunk_bytes=self.max_chunk_bytes
        )
        self._registry.register(summed, original_ids)
        return summed

    def _lookup_pair_sets(self, embeddings1: Any, embeddings2: Any):
        first = self._registry.lookup(_to_numpy(embeddings1, "embeddings1"), "embeddings1")
        second = self._registry.lookup(_to_numpy(embeddings2, "embeddings2"), "embeddings2")
        return self._compact(first, second)

    def similarity_pairwise(self, embeddings1: Any, embeddings2: Any) -> np.ndarray:
        """Exact DynaMax of each pair of encoded sentences (rows must come from :meth:`encode`)."""
        table, weights, (ids1, ids2) = self._lookup_pair_sets(embeddings1, embeddings2)
        if len(ids1) != len(ids2):
            raise ValueError(
                "`embeddings1` and `embeddings2` must have the same number of rows, got "
                f"{len(ids1)} and {len(ids2)}."
            )
        return self._score_ids(ids1, ids2, table, weights)

    def similarity(self, embeddings1: Any, embeddings2: Any) -> np.ndarray:
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


class _PooledVectorModel(_StaticVectorModel):
    """A model whose sentence vector is a pooling of its word vectors, compared by a measure.

    Subclasses set ``_pool_mode`` ("max" or "mean") and ``measure``; encode outputs are the
    pooled vectors, so MTEB's pairwise and all-pairs similarities are one fuzzy-set call each.
    """

    _pool_mode: str = ""
    measure: str = ""

    def _embed(self, ids, table, weights, original_ids):
        return pool_word_vectors(
            ids,
            vectors=table,
            weights=weights,
            mode=self._pool_mode,
            max_chunk_bytes=self.max_chunk_bytes,
        )

    def similarity_pairwise(self, embeddings1: Any, embeddings2: Any) -> np.ndarray:
        """The model's measure between paired pooled vectors (the :meth:`encode` outputs)."""
        return fuzzy_set_similarity(
            _to_numpy(embeddings1, "embeddings1"),
            _to_numpy(embeddings2, "embeddings2"),
            measure=self.measure,
        )

    def similarity(self, embeddings1: Any, embeddings2: Any) -> np.ndarray:
        """All-pairs measure between pooled vectors."""
        return fuzzy_set_similarity_matrix(
            _to_numpy(embeddings1, "embeddings1"),
            _to_numpy(embeddings2, "embeddings2"),
            measure=self.measure,
            max_chunk_bytes=self.max_chunk_bytes,
        )


class MaxPool(_PooledVectorModel):
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

    def _score_ids(self, ids1, ids2, table, weights):
        return maxpool_similarity(
            ids1,
            ids2,
            vectors=table,
            weights=weights,
            measure=self.measure,
            max_chunk_bytes=self.max_chunk_bytes,
        )


class MeanPooled(_PooledVectorModel):
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
    >>> from sts_extras.models import MeanPooled
    >>> wv = WordVectors.from_arrays(["cats", "dogs", "sleep"],
    ...                              np.array([[1.0, 0.2], [0.8, 0.4], [0.0, 1.0]]), name="toy")
    >>> MeanPooled(wv).score(["cats sleep"], ["dogs sleep"]).round(4).tolist()
    [0.9846]
    """

    _method = "avg-cos"
    _similarity_fn = "cosine"
    _pool_mode = "mean"
    measure = "cosine"  # cosine of averaged vectors; 0 when one of them is zero

    def _score_ids(self, ids1, ids2, table, weights):
        return average_cosine_similarity(
            ids1, ids2, vectors=table, weights=weights, max_chunk_bytes=self.max_chunk_bytes
        )

    def to_sentence_transformer(self, *, device: str = "cpu") -> Any:
        """The same model as a ``SentenceTransformer``: WordEmbeddings (+ WordWeights) + Pooling.

        The tokenizer is this model's own tokenisation (no stop-word removal unless the
        :class:`~sts_extras.vectors.WordVectors` asks for it), so cosine scores match
        :meth:`score` up to float32 rounding. Words known only through fastText subwords are
        dropped (``WordEmbeddings`` has no subword lookup). Reloading a saved copy needs
        ``trust_remote_code=True`` because the tokenizer class lives in sts-extras.
        """
        from sentence_transformers import SentenceTransformer
        from sentence_transformers.sentence_transformer.modules import (
            Pooling,
            WordEmbeddings,
            WordWeights,
        )

        from sts_extras.models.st_tokenizer import WordVectorsTokenizer

        wv = self.vectors
        tokenizer = WordVectorsTokenizer(wv.vocabulary.copy())
        table = np.ascontiguousarray(wv.vectors, dtype=np.float32)
        modules: list[Any] = [
            WordEmbeddings(tokenizer=tokenizer, embedding_weights=table, update_embeddings=False)
        ]
        if self.sif is not None:
            words = wv.words
            weights = self.sif.weights(words)
            modules.append(
                WordWeights(
                    vocab=words,
                    word_weights=dict(zip(words, weights.tolist())),
                    unknown_word_weight=1.0,
                )
            )
        modules.append(Pooling(wv.dim, pooling_mode="mean"))
        return SentenceTransformer(modules=modules, device=device)


class _SentenceRegistry:
    """Bounded map from an encoded row to the token ids it stands for (DynaMax's MTEB bridge).

    The key is a 128-bit hash of the row rounded to float32, so it survives slicing,
    concatenation and conversion to a float32 torch tensor. Rows with equal keys but different
    token multisets (which would need two different sentences with bitwise-equal summed
    vectors) are marked ambiguous and refused rather than guessed.
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
        out: list[np.ndarray] = []
        for index, row in enumerate(rows):
            known = self._entries.get(self._key(row))
            if known is None:
                raise ValueError(
                    f"`{name}` row {index} was not produced by this model's encode() (or was "
                    "evicted from its registry, or its values were altered, e.g. cast to float16). "
                    "DynaMax is a pairwise measure: its similarity needs the encode() outputs of "
                    "the same DynaMax object."
                )
            if known is self._AMBIGUOUS:
                raise ValueError(
                    f"`{name}` row {index}: two different sentences encoded to the same summed "
                    "vector, so DynaMax cannot tell them apart; use DynaMax.score() instead."
                )
            out.append(known)
        return out
