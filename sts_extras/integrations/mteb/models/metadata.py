"""What MTEB is told about a static-vector model: its paper, its source vectors, its licence.

:func:`model_meta` builds the ``mteb.models.ModelMeta`` of a
:class:`~sts_extras.integrations.mteb.models.base.StaticVectorModel`: the method's own paper
(Zhelezniak et al., 2019 for DynaMax and MaxPool; Mitchell & Lapata, 2008 for averaged vectors;
Arora et al., 2017 added for SIF weights), and what :func:`vector_provenance` can tell about the
word vectors -- the model they were adapted from, its training data, languages and licence.

Provenance is read from :attr:`WordVectors.source <sts_extras.vectors.WordVectors.source>`:

* vectors distilled from a sentence-transformers model
  (:meth:`~sts_extras.vectors.WordVectors.from_sentence_transformer`) are adapted from that model;
  when MTEB knows it, its training datasets, languages and licence carry over (distillation only
  re-encodes the teacher's vocabulary, so the teacher's training data is the vectors' too);
* a named source (``WordVectors.load("glove-6b-50d")``) carries its own description,
  :attr:`WordVectors.provenance <sts_extras.vectors.WordVectors.provenance>`: the release it was
  adapted from (``stanfordnlp/glove``), its paper (cited beside the method's), its training code
  and licence (GloVe: PDDL 1.0, given as the licence's URL, since MTEB's list of licence names
  has no PDDL);
* gensim-downloader vectors (``"glove-wiki-gigaword-300"``, ...) are adapted from that name, with
  the licence and language gensim-data lists;
* anything else (a local file, a model2vec directory) is left unknown (None).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sts_extras.optional import requires_extra
from sts_extras.vectors import VectorSetInfo, WordVectors

if TYPE_CHECKING:  # pragma: no cover -- MTEB is imported when a ModelMeta is made
    from mteb.models import ModelMeta

#: MTEB's ``ModelMeta.loader``: builds the model from its name (returns an MTEB model; Any, as
#: our loaders return our own encoders, which MTEB's protocols describe only structurally).
Loader = Callable[..., Any]

__all__ = [
    "AVERAGE_CITATION",
    "DYNAMAX_CITATION",
    "MODEL2VEC_CITATION",
    "SIF_CITATION",
    "VectorProvenance",
    "catalog_meta",
    "distilled_provenance",
    "model_meta",
    "packaged_provenance",
    "vector_provenance",
]

#: DynaMax, MaxPool-Jaccard and the fuzzy bag-of-words (Zhelezniak et al., ICLR 2019).
DYNAMAX_CITATION = """@inproceedings{zhelezniak2019dont,
  title={Don't Settle for Average, Go for the Max: Fuzzy Sets and Max-Pooled Word Vectors},
  author={Zhelezniak, Vitalii and Savkov, Aleksandar and Shen, April and
          Moramarco, Francesco and Flann, Jack and Hammerla, Nils Y.},
  booktitle={International Conference on Learning Representations},
  year={2019},
  url={https://openreview.net/forum?id=SkxXg2C5FX}
}"""
DYNAMAX_URL = "https://openreview.net/forum?id=SkxXg2C5FX"
#: Additive composition of word vectors, the averaged-vector (avg-cos) baseline.
AVERAGE_CITATION = """@inproceedings{mitchell2008vector,
  title={Vector-based Models of Semantic Composition},
  author={Mitchell, Jeff and Lapata, Mirella},
  booktitle={Proceedings of ACL-08: HLT},
  pages={236--244},
  year={2008},
  url={https://aclanthology.org/P08-1028}
}"""
AVERAGE_URL = "https://aclanthology.org/P08-1028"
#: Smooth inverse frequency weights a / (a + p(w)).
SIF_CITATION = """@inproceedings{arora2017simple,
  title={A Simple but Tough-to-Beat Baseline for Sentence Embeddings},
  author={Arora, Sanjeev and Liang, Yingyu and Ma, Tengyu},
  booktitle={International Conference on Learning Representations},
  year={2017},
  url={https://openreview.net/forum?id=SyK00v5xx}
}"""
#: model2vec, which distils the static vectors of a sentence-transformers model.
MODEL2VEC_CITATION = """@software{minishlab2024model2vec,
  author={Tulkens, Stephan and {van Dongen}, Thomas},
  title={Model2Vec: Fast State-of-the-Art Static Embeddings},
  year={2024},
  url={https://github.com/MinishLab/model2vec}
}"""

# WordVectors.from_sentence_transformer sets source to "<location> (model2vec, cached at ...)".
_DISTILLED_SOURCE = re.compile(r"^(?P<location>.+) \(model2vec, cached at .+\)$")
_DOWNLOADER_PREFIX = "gensim-downloader:"
# Licences and languages of gensim-data's word vectors, as its catalogue lists them.
_GENSIM_DATA = {
    "glove-": ("https://opendatacommons.org/licenses/pddl/", ["eng-Latn"]),
    "word2vec-google-news-300": ("apache-2.0", ["eng-Latn"]),
    "fasttext-wiki-news-subwords-300": ("cc-by-sa-3.0", ["eng-Latn"]),
    "conceptnet-numberbatch-": ("cc-by-sa-4.0", None),
}


@dataclass(frozen=True)
class VectorProvenance:
    """Where word vectors come from, as far as it is known (None: unknown).

    Attributes
    ----------
    adapted_from : str or None
        The model (Hub id) or vector set the vectors were made from.
    training_datasets : set of str or None
        MTEB dataset names the source model was trained on.
    languages : list of str or None
        ISO 639-3 + script codes (``"eng-Latn"``).
    license : str or None
        An MTEB licence name or a URL.
    distilled : bool
        Whether the vectors were distilled with model2vec.
    citation : str or None
        BibTeX of the vectors' own paper, cited after the method's.
    training_code : str or None
        Where the code that trained the vectors is (MTEB's ``public_training_code``).
    public_training_data : bool or None
        Whether all the training data is public (MTEB's ``public_training_data``).
    """

    adapted_from: str | None = None
    training_datasets: set[str] | None = None
    languages: list[str] | None = None
    license: str | None = None
    distilled: bool = False
    citation: str | None = None
    training_code: str | None = None
    public_training_data: bool | None = None


def vector_provenance(vectors: WordVectors) -> VectorProvenance:
    """What is known of the origin of ``vectors`` (see the module docstring for the rules)."""
    if vectors.provenance is not None:
        return packaged_provenance(vectors.provenance)
    source = vectors.source or ""
    distilled = _DISTILLED_SOURCE.match(source)
    if distilled:
        return distilled_provenance(_hub_name(distilled["location"]))
    if source.startswith(_DOWNLOADER_PREFIX):
        name = source[len(_DOWNLOADER_PREFIX) :]
        for prefix, (licence, languages) in _GENSIM_DATA.items():
            if name == prefix or (prefix.endswith("-") and name.startswith(prefix)):
                return VectorProvenance(adapted_from=name, languages=languages, license=licence)
        return VectorProvenance(adapted_from=name)
    return VectorProvenance()


def packaged_provenance(info: VectorSetInfo) -> VectorProvenance:
    """Provenance of a named source (:mod:`sts_extras.vectors.packaged`) from its description
    (its training corpus is no MTEB dataset: ``training_datasets`` stays None)."""
    return VectorProvenance(
        adapted_from=info.adapted_from,
        languages=list(info.languages),
        license=info.license_url,
        citation=info.citation,
        training_code=info.training_code,
        public_training_data=info.training_data_public,
    )


def distilled_provenance(teacher: str) -> VectorProvenance:
    """Provenance of vectors distilled from ``teacher``, with what MTEB knows of the teacher."""
    from sts_extras.integrations.mteb.internals import registered_model_meta

    known = registered_model_meta(teacher)
    if known is None:
        return VectorProvenance(adapted_from=teacher, distilled=True)
    return VectorProvenance(
        adapted_from=teacher,
        training_datasets=set(known.training_datasets)
        if known.training_datasets is not None
        else None,
        languages=list(known.languages) if known.languages is not None else None,
        license=known.license,
        distilled=True,
    )


def _hub_name(location: str) -> str:
    """The Hub id of a distillation source: the packaged default's id for its local copy."""
    from sts_extras.io.model_sources import DEFAULT_MODEL, packaged_default_model

    packaged = packaged_default_model()
    path = Path(location)
    if packaged is not None and path.is_dir() and path.resolve() == packaged.resolve():
        return DEFAULT_MODEL
    if path.is_dir():
        return f"local/{path.name}"
    return location


def _citation(fuzzy: bool, sif: bool, provenance: VectorProvenance) -> str:
    papers = [DYNAMAX_CITATION if fuzzy else AVERAGE_CITATION]
    if sif:
        papers.append(SIF_CITATION)
    if provenance.distilled:
        papers.append(MODEL2VEC_CITATION)
    if provenance.citation:
        papers.append(provenance.citation)
    return "\n\n".join(papers)


def model_meta(
    vectors: WordVectors,
    *,
    method: str,
    sif: bool,
    similarity_fn: str,
    revision: str,
    loader: Loader | None = None,
    name: str | None = None,
) -> ModelMeta:
    """The ``mteb.models.ModelMeta`` of a static-vector model.

    Parameters
    ----------
    vectors : WordVectors
        The model's word vectors (size, provenance).
    method : str
        The display name of the method (``"DynaMax-Jaccard-SIF"``); picks the paper.
    sif : bool
        Whether words are SIF-weighted (adds Arora et al., 2017).
    similarity_fn : str
        MTEB's ``ScoringFunction`` value (``"cosine"`` or ``"custom"``).
    revision : str
        Names the exact vectors and settings.
    loader : callable, optional
        MTEB's loader, for a registered name (see
        :mod:`sts_extras.integrations.mteb.models.catalog`).
    name : str, optional
        The MTEB name; default ``"sts-extras/<method>-<vectors name>"``.
    """
    provenance = vector_provenance(vectors)
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", vectors.name).strip("-")
    n_parameters = int(len(vectors) * vectors.dim)
    return _static_model_meta(
        method=method,
        sif=sif,
        similarity_fn=similarity_fn,
        provenance=provenance,
        loader=loader,
        name=name or f"sts-extras/{method}-{slug}",
        revision=revision,
        n_parameters=n_parameters,
        memory_usage_mb=round(vectors.vectors.nbytes / 2**20, 2),
        embed_dim=vectors.dim,
    )


def catalog_meta(
    name: str,
    *,
    method: str,
    similarity_fn: str,
    loader: Loader | None,
    embed_dim: int,
    provenance: VectorProvenance,
) -> ModelMeta:
    """The ``ModelMeta`` MTEB's registry holds for a registered name, before anything is loaded.

    Size fields the vectors alone determine (parameters, memory) are None here; the model
    :func:`mteb.get_model` returns fills them from the vectors it loaded.
    """
    return _static_model_meta(
        method=method,
        sif=False,
        similarity_fn=similarity_fn,
        provenance=provenance,
        loader=loader,
        name=name,
        revision=None,
        n_parameters=None,
        memory_usage_mb=None,
        embed_dim=embed_dim,
    )


def _static_model_meta(
    *,
    method: str,
    sif: bool,
    similarity_fn: str,
    provenance: VectorProvenance,
    loader: Loader | None,
    name: str,
    revision: str | None,
    n_parameters: int | None,
    memory_usage_mb: float | None,
    embed_dim: int,
) -> ModelMeta:
    """The ``ModelMeta`` of a static-vector model from what sets it apart; the rest is common."""
    with requires_extra("mteb"):
        from mteb.models import ModelMeta
        from mteb.models.model_meta import ScoringFunction

    fuzzy = method.startswith(("DynaMax", "MaxPool"))
    return ModelMeta(
        loader=loader,
        name=name,
        revision=revision,
        release_date=None,
        languages=provenance.languages,
        n_parameters=n_parameters,
        n_embedding_parameters=n_parameters,
        memory_usage_mb=memory_usage_mb,
        max_tokens=float("inf"),
        embed_dim=embed_dim,
        license=provenance.license,
        open_weights=True,
        public_training_code=provenance.training_code,
        public_training_data=provenance.public_training_data,
        framework=["NumPy"],
        reference=DYNAMAX_URL if fuzzy else AVERAGE_URL,
        similarity_fn_name=ScoringFunction(similarity_fn),
        use_instructions=False,
        training_datasets=provenance.training_datasets,
        adapted_from=provenance.adapted_from,
        modalities=["text"],
        model_type=["dense"],
        citation=_citation(fuzzy, sif, provenance),
    )
