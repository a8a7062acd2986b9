"""A sentence-transformers ``WordTokenizer`` that tokenises like a ``WordVectors``.

The tokenisation is that of :class:`sts_extras.vectors.WordVectors`, rebuilt from its config.

Models saved by earlier versions of
:meth:`sts_extras.integrations.mteb.models.MeanPooled.to_sentence_transformer` name this class and
reload with ``trust_remote_code=True``; new ones use a plain ``StaticEmbedding`` instead
(:mod:`sts_extras.integrations.sentence_transformers.export`). This module imports
sentence-transformers at import time; nothing else in sts-extras imports it eagerly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable

from sentence_transformers.sentence_transformer.modules.tokenizer import WordTokenizer

from sts_extras.io.text import read_json
from sts_extras.vectors import Vocabulary

__all__ = ["WordVectorsTokenizer"]

CONFIG_FILE = "sts_extras_vocabulary.json"


class WordVectorsTokenizer(WordTokenizer):
    """Map text to rows of the embedding table with a :class:`~sts_extras.vectors.Vocabulary`.

    Tokens without a vector are dropped, as in
    :class:`~sts_extras.integrations.mteb.models.MeanPooled`; stop words are removed only if the
    vocabulary was built with ``stop_words``.
    """

    def __init__(self, vocabulary: Vocabulary) -> None:
        if not isinstance(vocabulary, Vocabulary):
            raise TypeError(
                "`vocabulary` must be a sts_extras.vectors.Vocabulary, got "
                f"{type(vocabulary).__name__}."
            )
        self.vocabulary = vocabulary

    def set_vocab(self, vocab: Iterable[str]) -> None:
        old = self.vocabulary
        self.vocabulary = Vocabulary(
            list(vocab),
            tokenizer=old.tokenizer,
            hf_tokenizer=old.hf_tokenizer,
            lowercase=old.lowercase,
            split_compounds=old.split_compounds,
            stop_words=old.stop_words,
        )

    def get_vocab(self, vocab: Iterable[str] | None = None) -> list[str]:
        return self.vocabulary.words

    def tokenize(self, text: str, **kwargs: object) -> list[int]:  # kwargs: ignored
        return self.vocabulary.encode([text]).ids[0].tolist()

    def save(self, output_path: str) -> None:
        with open(os.path.join(output_path, CONFIG_FILE), "w", encoding="utf-8") as handle:
            json.dump(self.vocabulary.to_config(), handle)

    @staticmethod
    def load(input_path: str) -> WordVectorsTokenizer:
        config = read_json(os.path.join(input_path, CONFIG_FILE), "the word-vector tokenizer")
        return WordVectorsTokenizer(Vocabulary.from_config(config))
