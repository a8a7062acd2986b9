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

One module per job: :mod:`~sts_extras.models.base` (tokenisation, vector tables and the MTEB
interface shared by all models), :mod:`~sts_extras.models.dynamax`,
:mod:`~sts_extras.models.pooled` (MaxPool and MeanPooled), :mod:`~sts_extras.models.registry`
(DynaMax's map from encoded rows to tokens) and :mod:`~sts_extras.models.st_tokenizer` (the
sentence-transformers tokenizer of :meth:`MeanPooled.to_sentence_transformer`).
"""

from __future__ import annotations

from sts_extras.models.base import PROGRESS_BAR_THRESHOLD
from sts_extras.models.dynamax import DynaMax
from sts_extras.models.pooled import MaxPool, MeanPooled

__all__ = ["PROGRESS_BAR_THRESHOLD", "DynaMax", "MaxPool", "MeanPooled"]
