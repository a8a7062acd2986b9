"""The shared base of the static word-vector models: tokens to vectors, and MTEB's interface.

:class:`StaticVectorModel` tokenises sentences with a :class:`~sts_extras.vectors.WordVectors`,
gathers the (optionally SIF-weighted) vectors a call needs, and adapts a model to MTEB's
``EncoderProtocol`` (``encode``, ``similarity``, ``similarity_pairwise``, ``mteb_model_meta``).
Subclasses (:class:`~sts_extras.models.DynaMax`, :class:`~sts_extras.models.MaxPool`,
:class:`~sts_extras.models.MeanPooled`) supply the scoring and the embedding.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from sts_extras._validation import check_positive_int
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.similarity.fuzzy import DEFAULT_CHUNK_BYTES
from sts_extras.vectors import SIFWeights, TokenizedSentences, WordVectors

__all__ = ["PROGRESS_BAR_THRESHOLD", "StaticVectorModel", "as_embedding_matrix"]

# The paper behind the models, reported in their MTEB metadata.
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


def as_embedding_matrix(embeddings: Any, name: str) -> np.ndarray:
    """``embeddings`` (numpy or torch, one row or ``(n, dim)``) as a 2-D numeric numpy array.

    Half-precision tensors are cast to float32 (numpy cannot take them directly); a 1-D input
    becomes one row. Raises :class:`~sts_extras.errors.UserInputError` naming ``name`` otherwise.
    """
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
        raise UserInputError(
            f"`{name}` must be a (n, dim) array of embeddings, got shape {array.shape}."
        )
    return array


def _texts_of(batch: Any) -> list[str]:
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

    Subclasses set ``_method`` (the display name without "-SIF") and ``_similarity_fn`` (MTEB's
    scoring function name) and implement ``_score_ids``, ``_embed``, :meth:`similarity` and
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
        weights = self._sif_weights(self.sif, used) if self.sif is not None and used.size else None
        remapped: list[list[np.ndarray]] = []
        start = 0
        inverse = inverse.reshape(-1)
        for lengths in sizes:
            bounds = np.cumsum([0, *lengths]) + start
            remapped.append([inverse[a:b] for a, b in zip(bounds[:-1], bounds[1:])])
            start = int(bounds[-1])
        return table, weights, remapped

    def _sif_weights(self, sif: SIFWeights, rows: np.ndarray) -> np.ndarray:
        missing = [int(row) for row in rows.tolist() if row not in self._sif_cache]
        if missing:
            values = sif.weights(self.vectors.words_for(missing))
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
            raise UserInputError(
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
            raise UserInputTypeError(
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
        # The warning points at the caller of encode(): _collect_texts <- encode <- caller.
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

        Returns a float64 ``(n, dim)`` array; see :mod:`sts_extras.models` for what it holds for
        each model. ``task_metadata``, ``hf_split``, ``hf_subset``, ``prompt_type`` and other
        MTEB keyword arguments (``batch_size``, ...) are accepted and ignored: the models use no
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
