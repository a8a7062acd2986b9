"""The sts-extras models MTEB can find by name: ``mteb.get_model("sts-extras/DynaMax-Jaccard")``.

Importing :mod:`sts_extras.integrations.mteb.models` registers them, as MTEB's own model modules
register theirs: at once if MTEB is imported, else right after ``import mteb`` (importing MTEB takes
seconds, so this module does not do it itself; see
:func:`sts_extras.integrations.mteb.internals.when_mteb_is_imported`). :func:`register` stays,
idempotent, for code written before. MTEB's model registry then holds one ``ModelMeta`` per name of
:data:`REGISTERED_MODELS`, with a loader that builds the model over the default vectors,
:data:`DEFAULT_VECTORS` -- Stanford's GloVe 6B 50-d, the named source the ``glove`` extra
installs (no network; loaded in about half a second). Loader keyword arguments choose other
vectors or SIF weights::

    mteb.get_model("sts-extras/DynaMax-Jaccard")                       # GloVe 6B 50-d
    mteb.get_model("sts-extras/DynaMax-Jaccard", vectors="distilled")  # distilled from MiniLM
    mteb.get_model("sts-extras/avg-cos", vectors="glove.6B.300d.txt", sif=True)

``vectors="distilled"`` distils static vectors with model2vec from the packaged all-MiniLM-L6-v2
(once, into ``$STS_EXTRAS_CACHE/vectors``), ``"distilled:MODEL"`` from another model.

MTEB records such keyword arguments as the model's ``experiment_kwargs``; the loaded model's
metadata describes the vectors actually loaded (size, revision, provenance).

Each method is registered a second time over every named source of
:data:`~sts_extras.vectors.PACKAGED_VECTORS` (:data:`PACKAGED_VECTOR_MODELS`):
``sts-extras/<method>-glove-6b-50d`` is ``sts-extras/<method>`` with ``vectors="glove-6b-50d"``
(the default vectors, named), the same name a model built directly over those vectors has
(``DynaMax(WordVectors.load("glove-6b-50d")).mteb_model_meta.name``). Their metadata describes
GloVe before anything is loaded: Stanford's release, its paper, its licence (PDDL 1.0).
"""

from __future__ import annotations

from typing import Any

from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.integrations.mteb.internals import when_mteb_is_imported
from sts_extras.integrations.mteb.models.base import StaticVectorModel
from sts_extras.integrations.mteb.models.dynamax import DynaMax
from sts_extras.integrations.mteb.models.metadata import (
    VectorProvenance,
    catalog_meta,
    packaged_provenance,
)
from sts_extras.integrations.mteb.models.pooled import MaxPool, MeanPooled
from sts_extras.vectors import PACKAGED_VECTORS, WordVectors

__all__ = [
    "DEFAULT_VECTORS",
    "PACKAGED_VECTOR_MODELS",
    "REGISTERED_MODELS",
    "load_registered_model",
    "register",
]

#: Registered name -> (model class, its keyword arguments).
REGISTERED_MODELS: dict[str, tuple[type[StaticVectorModel], dict[str, Any]]] = {
    "sts-extras/DynaMax-Jaccard": (DynaMax, {"measure": "jaccard"}),
    "sts-extras/DynaMax-Otsuka": (DynaMax, {"measure": "otsuka"}),
    "sts-extras/DynaMax-Dice": (DynaMax, {"measure": "dice"}),
    "sts-extras/DynaMax-Cosine": (DynaMax, {"measure": "cosine"}),
    "sts-extras/MaxPool-Jaccard": (MaxPool, {"measure": "jaccard"}),
    "sts-extras/MaxPool-Cosine": (MaxPool, {"measure": "cosine"}),
    "sts-extras/avg-cos": (MeanPooled, {}),
}
#: Registered name over a named vector source -> (the name over the default vectors, the source):
#: ``"sts-extras/DynaMax-Jaccard-glove-6b-50d"`` -> ``("sts-extras/DynaMax-Jaccard",
#: "glove-6b-50d")``.
PACKAGED_VECTOR_MODELS: dict[str, tuple[str, str]] = {
    f"{name}-{source}": (name, source) for source in PACKAGED_VECTORS for name in REGISTERED_MODELS
}
#: The vectors of a registered name without ``vectors=``: a name of
#: :data:`~sts_extras.vectors.PACKAGED_VECTORS` (GloVe 6B 50-d, as the leaderboard's default run).
DEFAULT_VECTORS = "glove-6b-50d"
_DISTILLED = "distilled"


def _vectors(spec: object) -> WordVectors:
    """The vectors a loader keyword names: None (:data:`DEFAULT_VECTORS`),
    ``"distilled[:MODEL]"`` or a source."""
    if spec is None:
        return WordVectors.load(DEFAULT_VECTORS)
    if not isinstance(spec, str):
        raise UserInputTypeError(
            "`vectors` must be a vector file, directory or gensim-downloader name (a string, which "
            "MTEB can record), or 'distilled[:MODEL]'; for a WordVectors object build the model "
            f"directly, e.g. DynaMax(wv). Got {type(spec).__name__}."
        )
    if spec == _DISTILLED or spec.startswith(_DISTILLED + ":"):
        return WordVectors.from_sentence_transformer(spec.partition(":")[2] or None)
    return WordVectors.load(spec)


def load_registered_model(
    model_name: str,
    revision: str | None = None,
    *,
    vectors: str | None = None,
    sif: bool = False,
    device: str | None = None,
    **options: Any,  # forwarded to the model class
) -> StaticVectorModel:
    """MTEB's loader of the registered names (``ModelMeta.loader``).

    Parameters
    ----------
    model_name : str
        A name of :data:`REGISTERED_MODELS` or :data:`PACKAGED_VECTOR_MODELS`.
    revision : str, optional
        Ignored: the revision of a loaded model names its vectors and settings.
    vectors : str, optional
        Vector source for :meth:`WordVectors.load <sts_extras.vectors.WordVectors.load>` (a
        file, a directory, a named source such as ``"glove-6b-50d"``), or
        ``"distilled[:MODEL]"`` (distilled from the packaged all-MiniLM-L6-v2, or from MODEL);
        default :data:`DEFAULT_VECTORS` (GloVe 6B 50-d, needs the ``glove`` extra). A name of
        :data:`PACKAGED_VECTOR_MODELS` has its vectors in its name and takes no other.
    sif : bool
        SIF-weight the words.
    device : str, optional
        Ignored (the models run on NumPy).
    **options
        Further keyword arguments of the model class (``workers``, ``chunk_pairs``, ...).
    """
    packaged = PACKAGED_VECTOR_MODELS.get(model_name)
    if packaged is not None:
        base, source = packaged
        if vectors is not None and vectors != source:
            raise UserInputError(
                f"{model_name!r} runs over {source!r}; for other vectors use {base!r} with "
                f"vectors={vectors!r}."
            )
        model_name, vectors = base, source
    entry = REGISTERED_MODELS.get(model_name)
    if entry is None:
        known = [*REGISTERED_MODELS, *PACKAGED_VECTOR_MODELS]
        raise UserInputError(
            f"{model_name!r} is not an sts-extras model; known: {', '.join(known)}."
        )
    cls, arguments = entry
    return cls(_vectors(vectors), sif=sif, **arguments, **options)


def register() -> None:
    """Add :data:`REGISTERED_MODELS` and :data:`PACKAGED_VECTOR_MODELS` to MTEB's model registry
    (idempotent; loads nothing)."""
    from sts_extras.integrations.mteb.internals import register_model

    over: dict[str, tuple[str, VectorProvenance, int]] = {}
    for name, (base, source) in [
        *((name, (name, DEFAULT_VECTORS)) for name in REGISTERED_MODELS),
        *PACKAGED_VECTOR_MODELS.items(),
    ]:
        packaged = PACKAGED_VECTORS[source]
        over[name] = (base, packaged_provenance(packaged.info), packaged.shape[1])
    for name, (base, provenance, dim) in over.items():
        cls, arguments = REGISTERED_MODELS[base]
        cosine = cls is MeanPooled or (cls is MaxPool and arguments.get("measure") == "cosine")
        register_model(
            catalog_meta(
                name,
                method=base.split("/", 1)[1],
                similarity_fn="cosine" if cosine else "custom",
                loader=load_registered_model,
                embed_dim=dim,
                provenance=provenance,
            )
        )


# Importing the models registers them, as importing MTEB's own model modules does.
when_mteb_is_imported(register)
