"""The sts-extras models MTEB can find by name: ``mteb.get_model("sts-extras/DynaMax-Jaccard")``.

Importing :mod:`sts_extras.models` registers them, as MTEB's own model modules register theirs:
at once if MTEB is imported, else right after ``import mteb`` (importing MTEB takes seconds, so
this module does not do it itself; see
:func:`sts_extras.integrations.mteb.when_mteb_is_imported`). :func:`register` stays, idempotent,
for code written before. MTEB's model registry then holds one ``ModelMeta`` per name of
:data:`REGISTERED_MODELS`, with a loader that
builds the model over the default vectors -- static vectors distilled with model2vec from the
packaged all-MiniLM-L6-v2 (no network; distilled once into ``$STS_EXTRAS_CACHE/vectors``).
Loader keyword arguments choose other vectors or SIF weights::

    mteb.get_model("sts-extras/DynaMax-Jaccard")                       # default vectors
    mteb.get_model("sts-extras/avg-cos", vectors="glove.6B.300d.txt", sif=True)

MTEB records such keyword arguments as the model's ``experiment_kwargs``; the loaded model's
metadata describes the vectors actually loaded (size, revision, provenance).
"""

from __future__ import annotations

from typing import Any

from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.integrations.mteb import when_mteb_is_imported
from sts_extras.models.dynamax import DynaMax
from sts_extras.models.metadata import catalog_meta, distilled_provenance
from sts_extras.models.pooled import MaxPool, MeanPooled
from sts_extras.vectors import WordVectors

__all__ = ["DEFAULT_VECTORS_DIM", "REGISTERED_MODELS", "load_registered_model", "register"]

#: Registered name -> (model class, its keyword arguments).
REGISTERED_MODELS: dict[str, tuple[type, dict[str, Any]]] = {
    "sts-extras/DynaMax-Jaccard": (DynaMax, {"measure": "jaccard"}),
    "sts-extras/DynaMax-Otsuka": (DynaMax, {"measure": "otsuka"}),
    "sts-extras/DynaMax-Dice": (DynaMax, {"measure": "dice"}),
    "sts-extras/DynaMax-Cosine": (DynaMax, {"measure": "cosine"}),
    "sts-extras/MaxPool-Jaccard": (MaxPool, {"measure": "jaccard"}),
    "sts-extras/MaxPool-Cosine": (MaxPool, {"measure": "cosine"}),
    "sts-extras/avg-cos": (MeanPooled, {}),
}
#: Width of the default distilled vectors (model2vec's default PCA dimension).
DEFAULT_VECTORS_DIM = 256
_DISTILLED = "distilled"


def _vectors(spec: Any) -> WordVectors:
    """The vectors a loader keyword names: None (default), ``"distilled[:MODEL]"`` or a source."""
    if spec is None:
        return WordVectors.from_sentence_transformer()
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
    **options: Any,
) -> Any:
    """MTEB's loader of the registered names (``ModelMeta.loader``).

    Parameters
    ----------
    model_name : str
        A name of :data:`REGISTERED_MODELS`.
    revision : str, optional
        Ignored: the revision of a loaded model names its vectors and settings.
    vectors : str, optional
        Vector source for :meth:`WordVectors.load <sts_extras.vectors.WordVectors.load>`, or
        ``"distilled:MODEL"``; default: the distilled packaged all-MiniLM-L6-v2.
    sif : bool
        SIF-weight the words.
    device : str, optional
        Ignored (the models run on NumPy).
    **options
        Further keyword arguments of the model class (``workers``, ``chunk_pairs``, ...).
    """
    entry = REGISTERED_MODELS.get(model_name)
    if entry is None:
        raise UserInputError(
            f"{model_name!r} is not an sts-extras model; known: {', '.join(REGISTERED_MODELS)}."
        )
    cls, arguments = entry
    return cls(_vectors(vectors), sif=sif, **arguments, **options)


def register() -> None:
    """Add :data:`REGISTERED_MODELS` to MTEB's model registry (idempotent; loads nothing)."""
    from sts_extras.integrations.hub import DEFAULT_MODEL
    from sts_extras.integrations.mteb import register_model

    provenance = distilled_provenance(DEFAULT_MODEL)
    for name, (cls, arguments) in REGISTERED_MODELS.items():
        method = name.split("/", 1)[1]
        cosine = cls is MeanPooled or (cls is MaxPool and arguments.get("measure") == "cosine")
        register_model(
            catalog_meta(
                name,
                method=method,
                similarity_fn="cosine" if cosine else "custom",
                loader=load_registered_model,
                embed_dim=DEFAULT_VECTORS_DIM,
                provenance=provenance,
            )
        )


# Importing the models registers them, as importing MTEB's own model modules does.
when_mteb_is_imported(register)
