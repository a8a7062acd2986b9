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
:mod:`sts_extras.similarity.fuzzy`; the models only tokenise, gather vectors and adapt.

What ``encode`` returns: for :class:`DynaMax`, the summed word vectors of each sentence (DynaMax
scores a pair, so its own similarity looks each row's tokens up again; MTEB's ``cosine_*`` is then
avg-cos); for :class:`MaxPool`, the max-pooled fuzzy set; for :class:`MeanPooled`, the averaged
vector.

MTEB's own STS tasks report ``main_score = cosine_spearman``, computed from ``encode`` outputs:
for DynaMax and MaxPool-Jaccard that is not the model's similarity, so ``encode`` warns once
(:class:`MainScoreWarning`) and the model's own scores are ``pearson`` / ``spearman``.
Importing this package makes ``mteb.get_model("sts-extras/DynaMax-Jaccard")`` (and the other names
of :data:`~sts_extras.integrations.mteb.models.catalog.REGISTERED_MODELS`) work, without importing
MTEB itself (the names are added when MTEB is imported); :func:`register` does the same explicitly
(idempotent).

One module per job: :mod:`~sts_extras.integrations.mteb.models.base` (tokenisation, vector tables
and the MTEB interface shared by all models), :mod:`~sts_extras.integrations.mteb.models.dynamax`,
:mod:`~sts_extras.integrations.mteb.models.pooled` (MaxPool and MeanPooled),
:mod:`~sts_extras.integrations.mteb.models.registry` (DynaMax's map from encoded rows to tokens),
:mod:`~sts_extras.integrations.mteb.models.metadata` (MTEB's
``ModelMeta``: papers and vector provenance), :mod:`~sts_extras.integrations.mteb.models.catalog`
(the names MTEB can load), :mod:`~sts_extras.integrations.sentence_transformers.export` (the
``tokenizers`` pipeline
of :meth:`MeanPooled.to_sentence_transformer`) and
:mod:`~sts_extras.integrations.sentence_transformers.tokenizer` (the tokenizer of models saved by
earlier versions, which reload with ``trust_remote_code``).
"""

from __future__ import annotations

from sts_extras.integrations.mteb.models.base import PROGRESS_BAR_THRESHOLD, MainScoreWarning
from sts_extras.integrations.mteb.models.catalog import REGISTERED_MODELS, register
from sts_extras.integrations.mteb.models.dynamax import DynaMax
from sts_extras.integrations.mteb.models.pooled import MaxPool, MeanPooled

__all__ = [
    "PROGRESS_BAR_THRESHOLD",
    "REGISTERED_MODELS",
    "DynaMax",
    "MainScoreWarning",
    "MaxPool",
    "MeanPooled",
    "register",
]
