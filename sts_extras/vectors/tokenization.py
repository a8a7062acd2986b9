"""Tokenisation for word-vector tables: text to tokens to table rows.

Word-level vectors are tokenised with a regular expression (:data:`DEFAULT_TOKEN_PATTERN`); each
token is looked up as written first, then lower-cased, then -- for hyphenated or apostrophised
compounds -- part by part. Subword vectors (model2vec) use their own Hugging Face ``tokenizers``
tokenizer, imported only when a saved vocabulary holds one.

STS sets repeat sentences (every sentence scored against several others; MTEB hands a model each
sentence once per pair), so :meth:`Vocabulary.encode` tokenises each *distinct* text of a call
once, looks each distinct token up once, and indexes the rows back to every sentence with
numpy. The rows and out-of-vocabulary counts are those of tokenising every sentence on its own.
"""

from __future__ import annotations

import copy as _copy
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, count, filterfalse
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

from sts_extras._validation import as_sentence_list
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.io.records import Record, parse_record
from sts_extras.optional import requires_extra

if TYPE_CHECKING:
    from tokenizers import Encoding, Tokenizer

__all__ = [
    "DEFAULT_TOKEN_PATTERN",
    "RegexTokenizer",
    "TokenizedSentences",
    "Vocabulary",
    "strip_subword_marker",
]

#: Default word tokens: runs of word characters, with internal hyphens or apostrophes kept
#: ("state-of-the-art", "don't"); punctuation and whitespace are not tokens.
DEFAULT_TOKEN_PATTERN = r"\w+(?:['\u2019-]\w+)*"
_COMPOUND_SPLIT = re.compile(r"['\u2019-]")
# subword markers stripped before a frequency lookup (WordPiece, SentencePiece, byte-level BPE)
_SUBWORD_MARKERS = ("##", "\u2581", "\u0120")


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
            raise UserInputTypeError(
                f"`pattern` must be a regular expression string, got {type(pattern).__name__}."
            )
        try:
            self._regex = re.compile(pattern)
        except re.error as error:
            raise UserInputError(
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
        One int64 array of row ids per sentence (unknown tokens dropped, repeats kept). From
        :meth:`Vocabulary.encode`, equal sentences share one read-only array.
    n_tokens : int
        Tokens produced by the tokenizer (after stop-word removal), counted per sentence: a
        sentence given twice counts twice.
    n_dropped : int
        Tokens dropped because no vector was found (counted as ``n_tokens``).
    n_subword : int
        Out-of-vocabulary tokens that received a vector from subword n-grams (fastText).
    n_empty : int
        Sentences left with no token at all.
    distinct_ids : list of numpy.ndarray, optional
        The row ids of each distinct sentence text, in order of first occurrence (default: one
        entry per sentence, ``ids`` itself).
    sentence_index : numpy.ndarray, optional
        int64, for each sentence its entry of ``distinct_ids``: ``ids[i]`` is
        ``distinct_ids[sentence_index[i]]`` (default: ``0, 1, ..., len(ids) - 1``).
    """

    ids: list[NDArray[np.int64]]
    n_tokens: int
    n_dropped: int
    n_subword: int
    n_empty: int
    distinct_ids: list[NDArray[np.int64]] = field(default=None, repr=False)  # type: ignore[arg-type]
    sentence_index: NDArray[np.int64] = field(default=None, repr=False)  # type: ignore[arg-type]

    def __post_init__(self) -> None:
        if self.distinct_ids is None or self.sentence_index is None:  # every sentence its own
            object.__setattr__(self, "distinct_ids", self.ids)
            object.__setattr__(self, "sentence_index", np.arange(len(self.ids), dtype=np.int64))

    @property
    def dropped_share(self) -> float:
        """Share of tokens dropped (0 when there are no tokens)."""
        return self.n_dropped / self.n_tokens if self.n_tokens else 0.0


class VocabularyConfig(Record):
    """A :class:`Vocabulary` as saved by :meth:`Vocabulary.to_config` (the tokenizer config of a
    saved word-vector model), read back as a validated record."""

    words: tuple[str, ...]
    pattern: str | None = None
    hf_tokenizer: str | None = None
    lowercase: bool = True
    split_compounds: bool = True
    stop_words: tuple[str, ...] | None = None


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
        hf_tokenizer: Tokenizer | None = None,
        lowercase: bool = True,
        split_compounds: bool = True,
        stop_words: Iterable[str] | None = None,
    ) -> None:
        if tokenizer is not None and not callable(tokenizer):
            raise UserInputTypeError(
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
        if self.tokenizer is None:  # then hf_tokenizer is set (__init__)
            hf_tokenizer = cast("Tokenizer", self.hf_tokenizer)
            tokens = hf_tokenizer.encode(text, add_special_tokens=False).tokens
        else:
            tokens = list(self.tokenizer(text))
        if self.stop_words is not None:
            tokens = [
                token
                for token in tokens
                if strip_subword_marker(token).lower() not in self.stop_words
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
        """Row ids of each text (unknown tokens dropped) with out-of-vocabulary counts.

        Each distinct text is tokenised once and each distinct token looked up once; the result
        is the same as encoding every text on its own (see :meth:`encode_batches`).
        """
        return self.encode_batches([texts], on_missing=on_missing)

    def encode_batches(
        self,
        batches: Iterable[Sequence[str]],
        *,
        on_missing: Callable[[str], int | None] | None = None,
    ) -> TokenizedSentences:
        """:meth:`encode` for texts arriving in batches (an MTEB DataLoader), as one call.

        A text seen earlier in the call, in any batch, is not tokenised again. Tokens are looked
        up once per distinct token at the end, in order of first occurrence (so fastText subword
        rows are numbered as when every text is encoded in turn); the counts of the result are
        per sentence, as if every text had been encoded on its own. Each batch is tokenised as
        it is read, so a progress bar over the batches follows the work.
        """
        number: dict[str, int] = {}  # distinct text -> its position among the distinct texts
        indices: list[NDArray[np.int64]] = []
        pieces: list[Any] = []  # per distinct text: its tokens, or its hf ids
        hf_route = self.tokenizer is None and self.stop_words is None
        for batch in batches:
            texts = as_sentence_list(batch, "texts")
            # dict and map iterate in C: no per-sentence Python code for repeated texts
            fresh = list(filterfalse(number.__contains__, dict.fromkeys(texts)))
            number.update(zip(fresh, count(len(number))))
            indices.append(np.fromiter(map(number.__getitem__, texts), np.int64, len(texts)))
            if hf_route:
                if fresh:
                    hf_tokenizer = cast("Tokenizer", self.hf_tokenizer)  # set: no `tokenizer`
                    pieces.extend(hf_tokenizer.encode_batch(fresh, add_special_tokens=False))
            else:
                pieces.extend(map(self.tokenize, fresh))
        index = np.concatenate(indices) if indices else np.empty(0, dtype=np.int64)
        if hf_route:
            rows, per_text = self._rows_of_hf_encodings(pieces)
        else:
            rows, per_text = self._rows_of_tokens(pieces, on_missing)
        return _expand_distinct(rows, per_text, index)

    def _rows_of_tokens(
        self, token_lists: list[list[str]], on_missing: Callable[[str], int | None] | None
    ) -> tuple[list[NDArray[np.int64]], NDArray[np.int64]]:
        """Rows of each distinct text and its (tokens, dropped, subword) counts, looking each
        distinct token up once."""
        codes, distinct_tokens = _number_tokens(list(chain.from_iterable(token_lists)))
        found = [self.lookup(token, on_missing) for token in distinct_tokens]
        widths = np.fromiter(map(len, found), np.int64, len(found))  # rows per token, 0 = OOV
        found_rows = np.fromiter(chain.from_iterable(found), np.int64, int(widths.sum()))
        first_rows = np.cumsum(widths) - widths
        subword = np.zeros(len(found), dtype=bool)
        subword[widths > 0] = found_rows[first_rows[widths > 0]] >= len(self.words)
        # each token instance expands to its rows; sentences are runs of token instances
        token_counts = np.fromiter(map(len, token_lists), np.int64, len(token_lists))
        text_of_token = np.repeat(np.arange(len(token_lists), dtype=np.int64), token_counts)
        instance_widths = widths[codes]
        starts = np.repeat(
            first_rows[codes] - (np.cumsum(instance_widths) - instance_widths), instance_widths
        )
        flat = found_rows[starts + np.arange(starts.size, dtype=np.int64)]
        n_texts = len(token_lists)
        lengths = np.bincount(text_of_token, weights=instance_widths, minlength=n_texts)
        dropped = np.bincount(text_of_token, weights=instance_widths == 0, minlength=n_texts)
        subwords = np.bincount(text_of_token, weights=subword[codes], minlength=n_texts)
        per_text = np.stack([token_counts, dropped.astype(np.int64), subwords.astype(np.int64)])
        return _split(flat, lengths.astype(np.int64)), per_text

    def _rows_of_hf_encodings(
        self, encodings: list[Encoding]
    ) -> tuple[list[NDArray[np.int64]], NDArray[np.int64]]:
        """Rows of each distinct text from its Hugging Face encoding, the unknown token dropped."""
        ids = [np.asarray(encoding.ids, dtype=np.int64) for encoding in encodings]
        n_tokens = np.fromiter(map(len, ids), np.int64, len(ids))
        if self._unk_id is not None:
            ids = [item[item != self._unk_id] for item in ids]
        kept = np.fromiter(map(len, ids), np.int64, len(ids))
        flat = np.concatenate(ids) if ids else np.empty(0, dtype=np.int64)
        per_text = np.stack([n_tokens, n_tokens - kept, np.zeros_like(kept)])
        return _split(flat, kept), per_text

    # persistence (used by the sentence-transformers tokenizer adapter)
    def to_config(self) -> dict[str, Any]:
        """A JSON-serialisable description; only regex or source tokenizers can be saved."""
        if self.tokenizer is not None and not isinstance(self.tokenizer, RegexTokenizer):
            raise UserInputError(
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
    def from_config(cls, config: Mapping[str, object]) -> Vocabulary:
        """Inverse of :meth:`to_config`; the config (read from a model folder, which may come
        from anyone) is parsed as a :class:`VocabularyConfig` record first."""
        checked = parse_record(VocabularyConfig, config, "the word-vector tokenizer's config")
        hf_tokenizer = None
        if checked.hf_tokenizer:
            with requires_extra("vectors"):
                from tokenizers import Tokenizer

            hf_tokenizer = Tokenizer.from_str(checked.hf_tokenizer)
        return cls(
            list(checked.words),
            tokenizer=RegexTokenizer(checked.pattern) if checked.pattern is not None else None,
            hf_tokenizer=hf_tokenizer,
            lowercase=checked.lowercase,
            split_compounds=checked.split_compounds,
            stop_words=None if checked.stop_words is None else list(checked.stop_words),
        )


#: Token instances from which pandas' factorize numbers them (below, its fixed cost dominates).
_FACTORIZE_FROM = 4096


def _number_tokens(tokens: list[str]) -> tuple[NDArray[np.int64], list[str]]:
    """Number the distinct tokens in order of first occurrence: each instance's number (int64)
    and the distinct tokens. One pass in C: a dict for a few tokens, else pandas' factorize (a
    hash table over the instances, 2x the dict's speed on 10^6 tokens); both number alike."""
    if len(tokens) < _FACTORIZE_FROM:
        number = dict(zip(dict.fromkeys(tokens), count()))
        return np.fromiter(map(number.__getitem__, tokens), np.int64, len(tokens)), list(number)
    import pandas as pd

    instances = np.empty(len(tokens), dtype=object)
    instances[:] = tokens
    codes, distinct = pd.factorize(instances, use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), distinct.tolist()


def _split(flat: NDArray[np.int64], lengths: NDArray[np.int64]) -> list[NDArray[np.int64]]:
    """``flat`` cut into consecutive read-only pieces of the given lengths."""
    flat.flags.writeable = False  # pieces are shared by every sentence with the same text
    bounds = np.cumsum(lengths).tolist()
    return [flat[a:b] for a, b in zip([0, *bounds[:-1]], bounds)]


def _expand_distinct(
    rows: list[NDArray[np.int64]], per_text: NDArray[np.int64], index: NDArray[np.int64]
) -> TokenizedSentences:
    """The result for every sentence from the rows and counts of the distinct texts.

    ``per_text`` holds, per distinct text, its tokens, dropped and subword tokens; the totals
    weight each by how often the text occurs, as encoding every sentence on its own counts them.
    """
    occurrences = np.bincount(index, minlength=len(rows))
    n_tokens, n_dropped, n_subword = (per_text @ occurrences).tolist() if rows else (0, 0, 0)
    lengths = np.fromiter(map(len, rows), np.int64, len(rows))
    n_empty = int(occurrences[lengths == 0].sum())
    return TokenizedSentences(
        ids=list(map(rows.__getitem__, index.tolist())),
        n_tokens=int(n_tokens),
        n_dropped=int(n_dropped),
        n_subword=int(n_subword),
        n_empty=n_empty,
        distinct_ids=rows,
        sentence_index=index,
    )


def strip_subword_marker(token: str) -> str:
    """``token`` without a leading subword marker (``##``, ``▁``, ``Ġ``)."""
    for marker in _SUBWORD_MARKERS:
        if token.startswith(marker):
            return token[len(marker) :]
    return token


def _unk_token_id(tokenizer: Tokenizer) -> int | None:
    model = json.loads(tokenizer.to_str()).get("model", {})
    unk = model.get("unk_token")
    if unk is not None:
        return tokenizer.token_to_id(unk)
    unk_id = model.get("unk_id")
    return int(unk_id) if unk_id is not None else None
