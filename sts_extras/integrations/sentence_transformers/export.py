"""A :class:`~sts_extras.vectors.Vocabulary` as a Hugging Face ``tokenizers`` pipeline.

:meth:`sts_extras.integrations.mteb.models.MeanPooled.to_sentence_transformer` builds a plain
sentence-transformers
``StaticEmbedding`` from it, which reloads with ``SentenceTransformer(path)`` without sts-extras.
``tokenizers`` is imported inside the functions.

Word-level vocabularies become a ``WordLevel`` model behind a regex ``Split`` pre-tokenizer that
keeps the word tokens. Our lookup (as written, then lower-cased, then compound parts) becomes:

* lower-case fallback: a ``Lowercase`` normaliser when every word of the vocabulary is lower-case
  (exact); otherwise extra vocabulary entries for the Capitalised, Title and UPPER forms of each
  lower-case word (other mixed-case forms, e.g. "iPHONE", are not found);
* compound splitting: a second ``Split`` on hyphens and apostrophes when no word of the vocabulary
  contains one (exact); otherwise compounds stay whole and an unknown compound is dropped instead
  of being looked up part by part;
* unknown tokens and stop words map to an all-zero row: the mean embedding shrinks but its
  direction, hence every cosine, is unchanged.

``tokenizers`` matches ``\\w`` with Oniguruma, which also counts combining marks as word
characters (Python's ``re`` does not), and lower-cases with Rust's Unicode tables; text with
decomposed accents can therefore tokenise differently. Words known only through fastText subword
n-grams get no vector. model2vec vocabularies keep their own tokenizer (exact).
"""

from __future__ import annotations

import copy
import json
import re
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from sts_extras.errors import UserInputError
from sts_extras.vectors import RegexTokenizer, Vocabulary
from sts_extras.vectors.tokenization import strip_subword_marker

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["COMPOUND_SEPARATORS", "static_embedding_parts"]

#: The characters our lookup splits unknown compounds on (hyphen and apostrophes).
COMPOUND_SEPARATORS = "['\u2019-]"


def static_embedding_parts(
    vocabulary: Vocabulary, table: NDArray[np.floating]
) -> tuple[Tokenizer, NDArray[np.float32]]:
    """A ``tokenizers.Tokenizer`` and the float32 embedding table its ids index.

    Parameters
    ----------
    vocabulary : Vocabulary
        The tokenisation to reproduce.
    table : numpy.ndarray, shape (len(vocabulary), dim)
        One (already weighted) vector per vocabulary row.
    """
    if vocabulary.hf_tokenizer is not None:
        return _source_tokenizer(vocabulary.hf_tokenizer, vocabulary, table)
    return _word_level_tokenizer(vocabulary, table)


def _source_tokenizer(
    source: Tokenizer, vocabulary: Vocabulary, table: NDArray[np.floating]
) -> tuple[Tokenizer, NDArray[np.float32]]:
    tokenizer = copy.deepcopy(source)
    tokenizer.no_truncation()
    tokenizer.no_padding()
    weights = np.array(table, dtype=np.float32)
    model = json.loads(tokenizer.to_str()).get("model", {})
    unk = model.get("unk_token")
    unk_id = tokenizer.token_to_id(unk) if unk is not None else model.get("unk_id")
    if unk_id is not None and 0 <= int(unk_id) < len(weights):
        weights[int(unk_id)] = 0.0  # our lookup drops the unknown token
    if vocabulary.stop_words is not None:
        for row, token in enumerate(vocabulary.words):
            if strip_subword_marker(token).lower() in vocabulary.stop_words:
                weights[row] = 0.0
    return tokenizer, weights


def _word_level_tokenizer(
    vocabulary: Vocabulary, table: NDArray[np.floating]
) -> tuple[Tokenizer, NDArray[np.float32]]:
    from tokenizers import Regex, Tokenizer, normalizers, pre_tokenizers
    from tokenizers.models import WordLevel

    if not isinstance(vocabulary.tokenizer, RegexTokenizer):
        raise UserInputError(
            "Only the default or a RegexTokenizer tokenisation can become a sentence-transformers "
            f"tokenizer; got {vocabulary.tokenizer!r}."
        )
    words = vocabulary.words
    stop = vocabulary.stop_words or frozenset()
    entries: dict[str, int] = {}
    for row, word in enumerate(words):
        if word.lower() not in stop:
            entries.setdefault(word, row)
    all_lower = all(word == word.lower() for word in words)
    if vocabulary.lowercase and not all_lower:
        for word, row in list(entries.items()):
            if word != word.lower():
                continue
            for alias in (word.capitalize(), word.title(), word.upper()):
                if alias not in entries and alias.lower() == word:
                    entries[alias] = row
    unk = "[UNK]"
    while unk in entries:
        unk = f"[{unk}]"
    entries[unk] = len(words)  # the all-zero row
    tokenizer = Tokenizer(WordLevel(entries, unk_token=unk))
    if vocabulary.lowercase and all_lower:
        tokenizer.normalizer = normalizers.Lowercase()
    splitters = [
        pre_tokenizers.Split(Regex(vocabulary.tokenizer.pattern), behavior="removed", invert=True)
    ]
    separator = re.compile(COMPOUND_SEPARATORS)
    if vocabulary.split_compounds and not any(separator.search(word) for word in words):
        splitters.append(pre_tokenizers.Split(Regex(COMPOUND_SEPARATORS), behavior="removed"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(splitters)
    weights = np.zeros((len(words) + 1, table.shape[1]), dtype=np.float32)
    weights[: len(words)] = table
    return tokenizer, weights
