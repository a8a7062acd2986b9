"""The shared base of the static word-vector models: tokens to vectors, and MTEB's interface.

:class:`StaticVectorModel` tokenises sentences with a :class:`~sts_extras.vectors.WordVectors`,
gathers the (optionally SIF-weighted) vectors a call needs, and adapts a model to MTEB's
``EncoderProtocol`` (``encode``, ``similarity``, ``similarity_pairwise``, ``mteb_model_meta``).
Subclasses (:class:`~sts_extras.integrations.mteb.models.DynaMax`,
:class:`~sts_extras.integrations.mteb.models.MaxPool`,
:class:`~sts_extras.integrations.mteb.models.MeanPooled`) supply the scoring and the embedding.

STS sets repeat sentences across pairs, and MTEB hands a model each sentence once per pair, so
every call works on its *distinct* sentences: :meth:`StaticVectorModel.score` and
:meth:`StaticVectorModel.encode` tokenise and look up each distinct text once
(:meth:`~sts_extras.vectors.Vocabulary.encode`), ``encode`` embeds it once, and DynaMax's
``similarity`` methods look each distinct row up once; the results are indexed back to every
sentence. Scores and rows are the same, bit for bit, as from handling every sentence in turn.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Mapping, Sequence, Sized
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import as_real_array, as_sentence_list, check_positive_int
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.integrations.mteb.models.metadata import model_meta
from sts_extras.io.content import content_hash
from sts_extras.similarity.fuzzy import DEFAULT_CHUNK_BYTES
from sts_extras.vectors import SIFWeights, TokenizedSentences, WordVectors

if TYPE_CHECKING:  # pragma: no cover -- MTEB (and torch) are never imported by this module
    from mteb.abstasks.task_metadata import TaskMetadata
    from mteb.models import ModelMeta
    from torch.utils.data import DataLoader

    from sts_extras.integrations.mteb.internals import BatchedInput, PromptType
    from sts_extras.integrations.mteb.models.metadata import Loader


__all__ = [
    "GENERIC_SCORE_PREFIXES",
    "PROGRESS_BAR_THRESHOLD",
    "MainScoreWarning",
    "StaticVectorModel",
    "as_embedding_matrix",
]

#: MTEB's STS keys computed from ``encode()`` outputs alone, whatever the model's similarity.
GENERIC_SCORE_PREFIXES = ("cosine_", "euclidean_", "manhattan_")
#: Encodes of at least this many sentences show a progress bar unless told otherwise.
PROGRESS_BAR_THRESHOLD = 10_000


class MainScoreWarning(UserWarning):
    """An MTEB task's main score is not the model's own similarity (read pearson/spearman)."""


def as_embedding_matrix(
    embeddings: Any,  # a numpy array or a torch tensor (typed Any: torch is optional)
    name: str,
) -> NDArray[np.number]:
    """``embeddings`` (numpy or torch, one row or ``(n, dim)``) as a 2-D numeric numpy array.

    Half-precision tensors are cast to float32 (numpy cannot take them directly); a 1-D input
    becomes one row. Raises :class:`~sts_extras.errors.UserInputError` naming ``name`` otherwise
    (:class:`~sts_extras.errors.UserInputTypeError` for booleans, complex numbers or strings).
    """
    if hasattr(embeddings, "detach"):  # torch.Tensor, without importing torch
        embeddings = (
            embeddings.detach().cpu().float().numpy()
            if str(embeddings.dtype) in ("torch.float16", "torch.bfloat16")
            else embeddings.detach().cpu().numpy()
        )
    array = as_real_array(embeddings, name)
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2:
        raise UserInputError(
            f"`{name}` must be a (n, dim) array of embeddings, got shape {array.shape}."
        )
    return array


def _texts_of(batch: Mapping[str, Iterable[str]] | str | Iterable[str]) -> list[str]:
    if isinstance(batch, dict):
        if "text" not in batch:
            raise UserInputError(
                f"Expected MTEB batches with a 'text' column, got columns {sorted(batch)}."
            )
        return list(batch["text"])
    if isinstance(batch, str):
        return [batch]
    return list(batch)


class StaticVectorModel:
    """Shared machinery: tokenisation, SIF weights, compact vector tables, MTEB adapters.

    Subclasses set ``_method`` (the display name without "-SIF"), ``_similarity_fn`` (MTEB's
    scoring function name) and ``_own_generic_prefix`` (the MTEB key family that is the model's own
    similarity, ``"cosine_"`` when it is the cosine of the embeddings, else None) and implement
    ``_score_ids``, ``_embed``, :meth:`similarity` and
    :meth:`similarity_pairwise`.

    Parameters
    ----------
    vectors : WordVectors
        The word vectors.
    sif : bool or SIFWeights
        Weight word vectors by ``a / (a + p(w))`` (Arora et al., 2017). Off by default.
    show_progress_bar : bool, optional
        Progress bar while encoding; None shows it for 10,000 sentences or more.
    max_chunk_bytes : int
        Memory budget of one chunk of the batched computation.
    """

    _method: str = ""
    _similarity_fn: str = "custom"
    _own_generic_prefix: str | None = None

    def __init__(
        self,
        vectors: WordVectors,
        *,
        sif: bool | SIFWeights = False,
        show_progress_bar: bool | None = None,
        max_chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    ) -> None:
        if not isinstance(vectors, WordVectors):
            raise UserInputTypeError(
                "`vectors` must be a sts_extras.vectors.WordVectors (from WordVectors.load, "
                f".from_gensim, .from_sentence_transformer, ...), got {type(vectors).__name__}."
            )
        if isinstance(sif, bool):
            self.sif: SIFWeights | None = SIFWeights() if sif else None
        elif isinstance(sif, SIFWeights):
            self.sif = sif
        else:
            raise UserInputTypeError(
                f"`sif` must be True, False or a SIFWeights, got {type(sif).__name__}."
            )
        if show_progress_bar is not None and not isinstance(show_progress_bar, bool):
            raise UserInputTypeError(
                f"`show_progress_bar` must be True, False or None, got {show_progress_bar!r}."
            )
        self.vectors = vectors
        self.show_progress_bar = show_progress_bar
        self.max_chunk_bytes = check_positive_int(max_chunk_bytes, "max_chunk_bytes")
        self._sif_cache: dict[int, float] = {}
        self._meta: ModelMeta | None = None
        self._warned_main_scores: set[str] = set()

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
        self, distinct: list[NDArray[np.int64]], *indices: NDArray[np.int64]
    ) -> tuple[NDArray[np.floating], NDArray[np.float64] | None, list[list[NDArray[np.int64]]]]:
        """The vector table, its SIF weights and, per ``indices``, the ids to score with.

        ``distinct`` are the row ids of the distinct sentences of a call and each of
        ``indices`` picks sentences among them (e.g. the first and the second side of the
        pairs). Without SIF and subword-built rows, the word vectors are used in place (the core
        reads only the rows it needs). Otherwise only the rows used are gathered into a small
        table and the ids renumbered into it (the same table and ids as from all sentences:
        repeated sentences add no row).
        """
        wv = self.vectors
        lengths = np.fromiter(map(len, distinct), np.int64, len(distinct))
        flat = np.concatenate(distinct).astype(np.int64) if distinct else np.empty(0, np.int64)
        if self.sif is None and (flat.size == 0 or flat.max() < len(wv)):
            table, weights, renumbered = wv.vectors, None, distinct
        else:
            used, inverse = np.unique(flat, return_inverse=True)
            table = self.vectors.vectors_for(used)
            if table.shape[0] == 0:
                table = np.zeros((1, self.vectors.dim), dtype=np.float64)
            weights = (
                self._sif_weights(self.sif, used) if self.sif is not None and used.size else None
            )
            bounds = np.cumsum(lengths).tolist()
            inverse = inverse.reshape(-1)
            renumbered = [inverse[a:b] for a, b in zip([0, *bounds[:-1]], bounds)]
        return table, weights, [list(map(renumbered.__getitem__, i.tolist())) for i in indices]

    def _sif_weights(self, sif: SIFWeights, rows: NDArray[np.int64]) -> NDArray[np.float64]:
        missing = [int(row) for row in rows.tolist() if row not in self._sif_cache]
        if missing:
            values = sif.weights(self.vectors.words_for(missing))
            self._sif_cache.update(zip(missing, values.tolist()))
        return np.array([self._sif_cache[int(row)] for row in rows.tolist()], dtype=np.float64)

    # ------------------------------------------------------------------ plain-Python entry point
    def score(self, sentences1: Sequence[str], sentences2: Sequence[str]) -> NDArray[np.float64]:
        """Similarity of each pair ``(sentences1[i], sentences2[i])`` as a float64 array.

        Out-of-vocabulary tokens are dropped (one :class:`~sts_extras.vectors.OOVWarning` per
        call, counting the tokens of every sentence); a pair with an empty side scores 0. Each
        distinct sentence of the call is tokenised and looked up once.
        """
        first = as_sentence_list(sentences1, "sentences1")
        second = as_sentence_list(sentences2, "sentences2")
        if len(first) != len(second):
            raise UserInputError(
                "`sentences1` and `sentences2` must have the same length, got "
                f"{len(first)} and {len(second)}."
            )
        # each distinct sentence is tokenised and looked up once (STS sets repeat sentences)
        tokens = self._tokenize(first + second)
        index = tokens.sentence_index
        table, weights, (ids1, ids2) = self._compact(
            tokens.distinct_ids, index[: len(first)], index[len(first) :]
        )
        return self._score_ids(ids1, ids2, table, weights)

    def _score_ids(
        self,
        ids1: list[NDArray[np.int64]],
        ids2: list[NDArray[np.int64]],
        table: NDArray[np.floating],
        weights: NDArray[np.float64] | None,
    ) -> NDArray[np.float64]:
        raise NotImplementedError

    # ------------------------------------------------------------------ MTEB EncoderProtocol
    def _collect_texts(
        self, inputs: DataLoader[BatchedInput] | Sequence[str], show_progress_bar: bool | None
    ) -> TokenizedSentences:
        if isinstance(inputs, str):
            raise UserInputTypeError(
                "`inputs` must be MTEB's DataLoader or a list of sentences, got a single string."
            )
        batches: Iterable[Any]
        if hasattr(inputs, "dataset") and hasattr(inputs, "__iter__"):
            batches, total = inputs, len(cast("Sized", inputs.dataset))
        else:
            texts = as_sentence_list(inputs, "inputs")
            batches, total = [texts[i : i + 4096] for i in range(0, len(texts), 4096)], len(texts)
        show = show_progress_bar if show_progress_bar is not None else self.show_progress_bar
        if show is None:
            show = total >= PROGRESS_BAR_THRESHOLD
        bar = None
        if show:
            from tqdm.auto import tqdm

            bar = tqdm(total=total, desc=f"Encoding ({self.method})", unit="sentence")

        def texts_of_batches() -> Iterable[list[str]]:
            for batch in batches:
                texts = _texts_of(batch)
                yield texts
                if bar is not None:  # the batch has been tokenised when the next one is asked for
                    bar.update(len(texts))

        try:
            # one call over all batches: a sentence repeated across batches is tokenised once
            tokens = self.vectors.encode_batches(texts_of_batches(), warn=False)
        finally:
            if bar is not None:
                bar.close()
        # The warning points at the caller of encode(): _collect_texts <- encode <- caller.
        self.vectors.report_oov(tokens, stacklevel=4)
        return tokens

    def encode(
        self,
        inputs: DataLoader[BatchedInput] | Sequence[str],
        *,
        task_metadata: TaskMetadata | None = None,
        hf_split: str | None = None,
        hf_subset: str | None = None,
        prompt_type: PromptType | None = None,
        show_progress_bar: bool | None = None,
        **kwargs: object,  # MTEB's other encode arguments (batch_size, ...), ignored
    ) -> NDArray[np.float64]:
        """Encode MTEB's DataLoader of ``{"text": [...]}`` batches (or a list of sentences).

        Returns a float64 ``(n, dim)`` array; see :mod:`sts_extras.integrations.mteb.models` for
        what it holds for each model. ``task_metadata``, ``hf_split``, ``hf_subset``,
        ``prompt_type`` and other MTEB keyword arguments (``batch_size``, ...) are accepted and
        ignored: the models use no prompts. A progress bar is shown for long encodes
        (``show_progress_bar``).

        When ``task_metadata`` names a main score that MTEB computes from the embeddings alone
        (``cosine_*``, ``euclidean_*``, ``manhattan_*``) and that is not this model's similarity
        (DynaMax, MaxPool-Jaccard), a :class:`MainScoreWarning` says to read ``pearson`` and
        ``spearman`` instead -- once per model object and main-score key.
        """
        self._warn_if_main_score_is_not_own(task_metadata)
        tokens = self._collect_texts(inputs, show_progress_bar)
        distinct = np.arange(len(tokens.distinct_ids), dtype=np.int64)
        table, weights, (ids,) = self._compact(tokens.distinct_ids, distinct)
        # embed each distinct sentence once; equal sentences get the same (bitwise) row
        return self._embed(ids, table, weights, tokens)[tokens.sentence_index]

    def _embed(
        self,
        ids: list[NDArray[np.int64]],
        table: NDArray[np.floating],
        weights: NDArray[np.float64] | None,
        tokens: TokenizedSentences,
    ) -> NDArray[np.float64]:
        """The embedding of each distinct sentence of ``tokens`` (``ids``: its compact ids)."""
        raise NotImplementedError

    def similarity(self, embeddings1: ArrayLike, embeddings2: ArrayLike) -> NDArray[np.float64]:
        """``(n1, n2)`` matrix of the model's similarity between two sets of encode outputs."""
        raise NotImplementedError

    def similarity_pairwise(
        self, embeddings1: ArrayLike, embeddings2: ArrayLike
    ) -> NDArray[np.float64]:
        """Similarity of row ``i`` of ``embeddings1`` with row ``i`` of ``embeddings2``."""
        raise NotImplementedError

    def _warn_if_main_score_is_not_own(self, task_metadata: TaskMetadata | None) -> None:
        key = getattr(task_metadata, "main_score", None)
        if (
            not isinstance(key, str)
            or not key.startswith(GENERIC_SCORE_PREFIXES)
            or (self._own_generic_prefix is not None and key.startswith(self._own_generic_prefix))
            or key in self._warned_main_scores
        ):
            return
        self._warned_main_scores.add(key)
        task = getattr(task_metadata, "name", "this task")
        family = key.split("_", 1)[0]
        warnings.warn(
            f"{self.name}: the main score of {task} (and of MTEB's STS tasks) is {key!r}, which "
            f"MTEB computes from the {family} of encode() outputs ({self._generic_meaning(family)})"
            f", not from {self.method}. {self.method}'s own scores are 'spearman' and 'pearson' "
            "in each TaskResult's scores; read those. (Shown once per model and main score.)",
            MainScoreWarning,
            stacklevel=3,
        )

    def _generic_meaning(self, family: str) -> str:
        """What MTEB's ``<family>_*`` keys measure for this model (for the warning)."""
        return f"{family} between this model's embeddings"

    @property
    def mteb_model_meta(self) -> ModelMeta:
        """An ``mteb.models.ModelMeta`` whose name is unique per method and vectors.

        It cites the method's paper, and names the model the vectors were adapted from with its
        training datasets, languages and licence when they are known (see
        :mod:`sts_extras.integrations.mteb.models.metadata`).
        """
        if self._meta is None:
            self._meta = self._describe()
        return self._meta

    @mteb_model_meta.setter
    def mteb_model_meta(self, meta: ModelMeta) -> None:
        # MTEB's get_model assigns the registered metadata after loading; the fields that describe
        # the vectors actually loaded (size, revision, provenance) come from this model.
        if getattr(meta, "loader", None) is not None and str(meta.name).startswith("sts-extras/"):
            meta = self._describe(name=meta.name, loader=meta.loader).model_copy(
                update={
                    "loader_kwargs": meta.loader_kwargs,
                    "experiment_kwargs": meta.experiment_kwargs,
                }
            )
        self._meta = meta

    @property
    def identity(self) -> str | None:
        """What this model's scores depend on, as a JSON string without any path or name: its
        class, method, the vectors' :attr:`~sts_extras.vectors.WordVectors.identity` and the SIF
        weights' identity. None when the vectors have no identity (a custom tokeniser)."""
        vectors = self.vectors.identity
        if vectors is None:
            return None
        return json.dumps(
            {
                "class": type(self).__name__,
                "method": self.method,
                "vectors": vectors,
                "sif": None if self.sif is None else self.sif.identity,
            },
            sort_keys=True,
        )

    def _describe(self, *, name: str | None = None, loader: Loader | None = None) -> ModelMeta:
        wv = self.vectors
        # the revision names the vectors and settings by content (a label: 12 hex digits)
        label = self.identity or json.dumps(
            [wv.fingerprint, self.method, None if self.sif is None else self.sif.identity]
        )
        revision = content_hash(label, digits=12)
        return model_meta(
            wv,
            method=self.method,
            sif=self.sif is not None,
            similarity_fn=self._similarity_fn,
            revision=revision,
            loader=loader,
            name=name,
        )
