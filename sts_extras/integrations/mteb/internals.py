"""The one module that touches MTEB internals.

Everything sts-extras needs from MTEB beyond ``mteb.evaluate``, ``mteb.get_task(s)`` and
``mteb.ResultCache`` lives here, so that an MTEB release that moves a private name breaks one
module, and ``tests/test_integrations_mteb.py`` says which:

* the in-process task registry (``mteb.get_tasks._TASKS_REGISTRY`` and ``TASK_LIST``), which has
  no plugin entry point, so :func:`register_task` adds a task to it;
* the model registry (``MODEL_REGISTRY``), for known model metadata and close-match hints, and
  the models it loads with ``mteb.get_model`` (their prompts, loader arguments and revision);
* the moment MTEB is imported (:func:`when_mteb_is_imported`), so that importing
  :mod:`sts_extras.integrations.mteb.models` registers our models without importing MTEB (seconds)
  itself;
* the sentence-transformers and embedding-cache wrappers (``SentenceTransformerEncoderWrapper``,
  ``CachedEmbeddingWrapper``) and the embedding cache's files (``NumpyCache``), which
  :func:`cached_encoder` checks against a manifest before MTEB reads them;
* the per-pair prediction files ``mteb.evaluate(prediction_folder=...)`` writes, and the scores
  and errors of the ``ModelResult`` it returns;
* the loggers and warnings of MTEB's harmless chatter, silenced by :func:`quiet_mteb`.

MTEB itself is imported inside the functions: importing this module is free.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.abc
import importlib.util
import logging
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from importlib import metadata
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray
from pydantic import ConfigDict, Field

if TYPE_CHECKING:  # pragma: no cover -- MTEB is imported inside the functions, never here
    from mteb import ResultCache
    from mteb.models import EncoderProtocol, ModelMeta
    from mteb.models.cache_wrappers import CachedEmbeddingWrapper
    from mteb.results import ModelResult, TaskResult

    # MTEB's encoder inputs, re-exported for the type hints of our encoders (models/base.py)
    from mteb.types import BatchedInput as BatchedInput
    from mteb.types import PromptType as PromptType
    from sentence_transformers import SentenceTransformer

from sts_extras.errors import CacheError
from sts_extras.integrity import discard, verify_manifest, write_manifest
from sts_extras.io.records import Record, parse_record
from sts_extras.io.text import read_json

__all__ = [
    "COSINE_SCORES_KEY",
    "MODEL_META_FILE",
    "PREDICTION_FILE_SUFFIX",
    "PredictionMeta",
    "PredictionScores",
    "ScoreEntry",
    "TaskResultFile",
    "QUIET_MODULES",
    "RUN_SETTINGS_FILE",
    "SIMILARITY_SCORES_KEY",
    "SUPPORTED_MTEB_VERSIONS",
    "cached_encoder",
    "cached_sentence_transformer",
    "evaluated_tasks",
    "failed_tasks",
    "find_registered_model",
    "is_supported_mteb_version",
    "load_from_registry",
    "merge_run_settings",
    "prediction_file",
    "quiet_mteb",
    "read_mteb_json",
    "read_prediction",
    "read_prediction_scores",
    "register_model",
    "register_task",
    "registered_model_meta",
    "registered_model_names",
    "registered_task",
    "reported_pearson",
    "result_files",
    "run_settings_of",
    "task_registry",
    "when_mteb_is_imported",
]

#: The MTEB releases these adapters are written and tested for: (lowest supported, first
#: unsupported), compared on (major, minor). setup.cfg's ``mteb`` extra says the same (a test
#: holds them equal); ``.ci/mteb-lowest`` runs the MTEB-facing tests on the lowest release (2.14.5:
#: 2.13 was never released, and 2.12 lacks the run-settings file and loads registry models
#: differently).
SUPPORTED_MTEB_VERSIONS = ((2, 14), (2, 27))

#: ``mteb.evaluate(prediction_folder=F)`` writes ``F/<task name><suffix>`` for each task.
PREDICTION_FILE_SUFFIX = "_predictions.json"
#: Key of one (subset, split) entry of a prediction file: the model's own similarity (None when
#: the model has none) ...
SIMILARITY_SCORES_KEY = "similarity_scores"
#: ... and the cosine of the embeddings, which MTEB falls back to.
COSINE_SCORES_KEY = "cosine_scores"

#: (logger and warning module, warning category) of MTEB's harmless chatter while a model is
#: wrapped and evaluated: its embedding cache warns about repeated sentences (DSCS reuses sentences
#: across pairs) and a new cache; its metadata helper about parameter counts it cannot infer and a
#: renamed sentence-transformers method.
QUIET_MODULES: tuple[tuple[str, type[Warning]], ...] = (
    ("mteb.models.cache_wrappers", UserWarning),
    ("mteb.models.model_meta", FutureWarning),
)


# --------------------------------------------------------------------------------------------
# MTEB's files: the parts sts-extras reads, as validated records
# --------------------------------------------------------------------------------------------
class _MTEBRecord(Record):
    """A part of one of MTEB's files, read from folders anyone may have written: strict types,
    finite numbers; the fields not named here are MTEB's business and are ignored (MTEB adds
    fields between releases)."""

    # MTEB's own field is ``model_name``: pydantic < 2.10 reserves the ``model_`` prefix
    model_config = ConfigDict(extra="ignore", protected_namespaces=())


_Name = Field(min_length=1, max_length=1000, pattern=r"^[^\x00-\x1f\x7f]+$")


class PredictionMeta(_MTEBRecord):
    """``mteb_model_meta`` of a prediction file: the model's name and revision."""

    model_name: str = _Name
    #: Becomes a folder name of MTEB's results (checked as one where it is used); None: unknown.
    revision: str | None = Field(
        default=None, min_length=1, max_length=1000, pattern=r"^[^\x00-\x1f\x7f]+$"
    )


class PredictionScores(_MTEBRecord):
    """One (subset, split) entry of a prediction file: the per-pair scores."""

    similarity_scores: tuple[float, ...] | None = None
    cosine_scores: tuple[float, ...] | None = None


class ScoreEntry(_MTEBRecord):
    """One subset's scores in a task result."""

    hf_subset: str = _Name
    pearson: float | None = Field(default=None, ge=-1.0, le=1.0)


class TaskResultFile(_MTEBRecord):
    """The parts of MTEB's task result (``<task>.json``) sts-extras reads."""

    task_name: str = _Name
    dataset_revision: str | None = None
    scores: dict[str, tuple[ScoreEntry, ...]] = Field(default_factory=dict)


# --------------------------------------------------------------------------------------------
# version
# --------------------------------------------------------------------------------------------
def is_supported_mteb_version(version: str | None = None) -> bool:
    """Is ``version`` (default: the installed MTEB) within :data:`SUPPORTED_MTEB_VERSIONS`?"""
    text = version if version is not None else metadata.version("mteb")
    major, minor = (int(part) for part in text.split(".")[:2])
    low, high = SUPPORTED_MTEB_VERSIONS
    return low <= (major, minor) < high


# --------------------------------------------------------------------------------------------
# task registry
# --------------------------------------------------------------------------------------------
def _get_tasks_module() -> Any:  # a module: Any, as its private names are read and set by name
    # `mteb.get_tasks` is also a function, which shadows the module as an attribute of `mteb`.
    return importlib.import_module("mteb.get_tasks")


def task_registry() -> MutableMapping[str, type]:
    """MTEB's in-process task registry: task name -> task class (what ``get_task`` looks up)."""
    return _get_tasks_module()._TASKS_REGISTRY


def registered_task(name: str) -> type | None:
    """The task class MTEB has under ``name`` (exact spelling), or None."""
    return task_registry().get(name)


def register_task(name: str, cls: type) -> None:
    """Add ``cls`` under ``name`` to MTEB's registry and to the list ``get_tasks`` filters."""
    module = _get_tasks_module()
    module._TASKS_REGISTRY[name] = cls
    module.TASK_LIST = (*module.TASK_LIST, cls)


# --------------------------------------------------------------------------------------------
# models
# --------------------------------------------------------------------------------------------
def registered_model_names() -> list[str]:
    """Names of the models in MTEB's model registry (for close-match hints)."""
    from mteb.models.model_implementations import MODEL_REGISTRY

    return list(MODEL_REGISTRY)


def registered_model_meta(name: str) -> ModelMeta | None:
    """MTEB's ``ModelMeta`` of a model it knows by ``name`` (a Hub id), or None."""
    from mteb.models.model_implementations import MODEL_REGISTRY

    return MODEL_REGISTRY.get(name)


def find_registered_model(name: str) -> str | None:
    """The name under which MTEB's model registry holds ``name``, or None.

    The spelling may differ in letter case, and a sentence-transformers model may be named
    without its organisation (``"all-mpnet-base-v2"``), as ``SentenceTransformer`` accepts.
    """
    from mteb.models.model_implementations import MODEL_REGISTRY

    by_lower = {key.lower(): key for key in MODEL_REGISTRY}
    lowered = name.lower()
    found = by_lower.get(lowered)
    if found is None and "/" not in lowered:
        found = by_lower.get(f"sentence-transformers/{lowered}")
    return found


def load_from_registry(name: str, **loader_kwargs: Any) -> EncoderProtocol:
    """``mteb.get_model(name, revision=<MTEB's pinned revision>, **loader_kwargs)``.

    The model is built by the loader MTEB's registry names, with the registry's loader arguments
    (prompts, ``trust_remote_code``, ...) and at the revision it pins; ``loader_kwargs`` are added
    to them (MTEB records them as the model's ``experiment_kwargs``).
    """
    import mteb

    meta = registered_model_meta(name)
    if meta is None:
        raise KeyError(f"{name!r} is not in MTEB's model registry")
    # the registry holds encoders only here (STS tasks): not MTEB's cross-encoders or searchers
    return cast("EncoderProtocol", mteb.get_model(name, revision=meta.revision, **loader_kwargs))


#: Rows MTEB's embedding cache starts with (it doubles them when full): small, as every file is
#: hashed after each write and before each first read (MTEB's default, 100 000, is 150 MB at
#: 384 dimensions).
_EMBEDDING_ROWS = 1024


def cached_encoder(
    model: EncoderProtocol, folder: Path, *, identity: str | None = None
) -> CachedEmbeddingWrapper:
    """Wrap an MTEB encoder so that its embeddings are cached on disk under ``folder``.

    ``folder`` must name everything the embeddings depend on (model, revision, loader settings):
    the cache is kept per task and prompt type below it, each folder with a manifest
    (:mod:`sts_extras.integrity`) holding the model's name and revision, the folder's path below
    ``folder`` (the task) and the size and hash of every file. Before MTEB first reads a folder
    it is checked against its manifest; a changed, missing or unlisted file, a folder without a
    manifest (a crash while writing, or an older sts-extras) or one built for other settings is
    discarded with one :class:`~sts_extras.integrity.CacheDiscardedWarning` and encoded again.
    After each write MTEB makes, the manifest is written anew. A folder is checked with all
    below it: STS tasks encode without a prompt type, so each is a leaf; a task with prompt
    types (MTEB keeps their caches below the plain one) is re-encoded, never misread.

    ``identity`` (the model's full content identity, e.g. ``"xxh3-128:<hex>"`` of its folder) is
    kept in the manifest too: the revision in ``folder`` is a short label of it, and two models
    whose labels agree would find each other's folder discarded, never read.

    Raises
    ------
    sts_extras.errors.CacheError
        When MTEB first reads a folder that failed its check and cannot be removed (the message
        names it and says to delete it).
    """
    from mteb.models.cache_wrappers import CachedEmbeddingWrapper

    meta = getattr(model, "mteb_model_meta", None)
    key = {
        "model": None if meta is None else str(meta.name),
        "revision": None if meta is None else str(meta.revision),
    }
    if identity is not None:  # absent from older manifests: those of models without one match
        key["identity"] = identity
    backend: Any = functools.partial(_verified_numpy_cache(), root=Path(folder), key=key)
    # typed as a class, but MTEB only calls it with the folder: a partial with our arguments fits
    return CachedEmbeddingWrapper(model, folder, cache_backend=backend)


def cached_sentence_transformer(
    model: SentenceTransformer,
    *,
    name: str,
    revision: str,
    cache_root: Path,
    identity: str | None = None,
) -> CachedEmbeddingWrapper:
    """Wrap a ``SentenceTransformer`` as an MTEB encoder whose embeddings are cached on disk.

    Parameters
    ----------
    model : sentence_transformers.SentenceTransformer
        The loaded model.
    name : str
        The model's name in MTEB's results (a Hub id, or ``"local/<name>"``). A model MTEB knows
        keeps its registry metadata, under this name and ``revision``.
    revision : str
        Names the exact model files (MTEB's results and the cache are kept per revision).
    cache_root : pathlib.Path
        The embeddings go to ``cache_root/<name as path>/<revision>/<task>/``, checked as
        :func:`cached_encoder` says.
    identity : str, optional
        The model's full content identity, kept in each folder's manifest (see
        :func:`cached_encoder`).

    Returns
    -------
    mteb.models.cache_wrappers.CachedEmbeddingWrapper
    """
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper

    wrapper = SentenceTransformerEncoderWrapper(model)
    known = registered_model_meta(name)
    meta = known if known is not None else wrapper.mteb_model_meta
    wrapper.mteb_model_meta = meta.model_copy(update={"name": name, "revision": revision})
    folder = cache_root / wrapper.mteb_model_meta.model_name_as_path() / revision
    return cached_encoder(wrapper, folder, identity=identity)


@functools.cache
def _verified_numpy_cache() -> type:
    """MTEB's ``NumpyCache``, checked against a manifest before it loads and after it saves."""
    from mteb.models.cache_wrappers.cache_backends import NumpyCache

    class VerifiedNumpyCache(NumpyCache):
        """``NumpyCache`` in a folder verified by its manifest.

        Parameters
        ----------
        directory : path
            The folder MTEB chose for one task (and prompt type) below ``root``.
        root : pathlib.Path
            The folder given to :func:`cached_encoder`.
        key : dict
            The model's name and revision; the folder's path below ``root`` is added.
        """

        def __init__(
            self, directory: str | Path, *, root: Path, key: dict[str, str | None]
        ) -> None:
            directory = Path(directory)
            self.manifest_key = {**key, "entry": directory.relative_to(root).as_posix()}
            _discard_unverified(directory, self.manifest_key)
            super().__init__(directory, initial_vectors=_EMBEDDING_ROWS)

        def save(self) -> None:
            super().save()
            write_manifest(self.directory, self.manifest_key)

    return VerifiedNumpyCache


def _discard_unverified(directory: Path, key: dict[str, str | None]) -> None:
    """Remove an embedding cache folder that fails its check, before MTEB reads it."""
    if not directory.is_dir() or not any(path.is_file() for path in directory.rglob("*")):
        return  # nothing cached yet
    reason = verify_manifest(directory, key)
    if reason is None:
        return
    discard(directory, reason)
    if directory.exists():
        raise CacheError(
            f"The embedding cache {directory} failed its check ({reason}) and could not be "
            f"removed; delete the folder {directory} and run again."
        )


@contextlib.contextmanager
def quiet_mteb() -> Iterator[None]:
    """Silence MTEB's harmless log messages and warnings while wrapping and evaluating a model."""
    loggers = [logging.getLogger(module) for module, _ in QUIET_MODULES]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            for module, category in QUIET_MODULES:
                warnings.filterwarnings(
                    "ignore", category=category, module=module.replace(".", r"\.")
                )
            yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


# --------------------------------------------------------------------------------------------
# results of mteb.evaluate
# --------------------------------------------------------------------------------------------
def prediction_file(folder: Path, task_name: str) -> Path:
    """Where ``mteb.evaluate(prediction_folder=folder)`` writes the per-pair scores of a task."""
    return folder / f"{task_name}{PREDICTION_FILE_SUFFIX}"


def read_prediction(path: Path, subset: str, split: str) -> tuple[NDArray[np.float64], str]:
    """The per-pair scores of one subset and split of an STS prediction file, and their key.

    MTEB correlates the model's own similarity scores (:data:`SIMILARITY_SCORES_KEY`) with the
    gold scores, or the cosine of the embeddings (:data:`COSINE_SCORES_KEY`) when the model has
    no similarity function; so does this, and says which it read. The file is parsed through
    :class:`PredictionScores`: every score a finite JSON number
    (no booleans, strings, ``NaN`` or ``null`` among them).

    Raises
    ------
    OSError, KeyError, ValueError
        The file is missing, lacks the subset/split, or is not valid JSON; a
        :class:`~sts_extras.io.records.RecordError` (a ``ValueError``) for scores that are not
        finite numbers.
    """
    stored = read_mteb_json(path, "a prediction file")
    if not isinstance(stored, dict) or not isinstance(stored.get(subset), dict):
        raise KeyError(subset)
    entry = stored[subset].get(split)
    if entry is None:
        raise KeyError(split)
    scores = parse_record(PredictionScores, entry, f"{path} ({subset}, {split})")
    own = scores.similarity_scores is not None
    values = scores.similarity_scores if own else scores.cosine_scores
    if values is None:
        raise KeyError(COSINE_SCORES_KEY)
    return np.asarray(values, dtype=np.float64), SIMILARITY_SCORES_KEY if own else COSINE_SCORES_KEY


def read_mteb_json(path: Path, what: str) -> Any:  # any parsed JSON value
    """One of MTEB's JSON files (a prediction file, a task result): UTF-8, no duplicate keys;
    MTEB's ``NaN``/``Infinity`` are read as ``null`` (a schema then refuses them where a number
    is required)."""
    return read_json(path, what, non_finite_as_null=True)


def read_prediction_scores(path: Path, subset: str, split: str) -> NDArray[np.float64]:
    """The per-pair scores of :func:`read_prediction`, without their key."""
    return read_prediction(path, subset, split)[0]


def failed_tasks(model_result: ModelResult) -> dict[str, str]:
    """Task name -> error message, for the tasks ``mteb.evaluate`` caught an exception on."""
    return {item.task_name: str(item.exception) for item in model_result.exceptions or ()}


def evaluated_tasks(model_result: ModelResult) -> dict[str, TaskResult]:
    """Task name -> ``TaskResult``, for the tasks ``mteb.evaluate`` has scores of."""
    return {task_result.task_name: task_result for task_result in model_result.task_results}


def reported_pearson(task_result: TaskResult, subset: str, split: str) -> float | None:
    """The ``pearson`` a ``TaskResult`` holds for one subset and split (None if it has none)."""
    scores: Mapping[str, list[Mapping[str, Any]]] = task_result.scores
    for item in scores.get(split, []):
        if item.get("hf_subset") == subset and "pearson" in item:
            return float(item["pearson"])
    return None


# --------------------------------------------------------------------------------------------
# model registry (appended: sts-extras models findable by name)
# --------------------------------------------------------------------------------------------
class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when ``mteb`` is about to be imported, it lets the next finders find
    it and has the module's loader run the pending callbacks once ``mteb/__init__`` has run."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname != "mteb":
            return None
        sys.meta_path.remove(self)  # one-shot, and the search below must not find this finder
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        run_module = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run_module(module)
            _run_pending()

        # on this loader instance only (each module gets its own), so nothing else changes
        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


_PENDING: list[Callable[[], None]] = []


def _run_pending() -> None:
    while _PENDING:
        callback = _PENDING.pop(0)
        try:
            callback()
        except Exception as error:  # noqa: BLE001 -- `import mteb` must not fail because of us
            warnings.warn(
                f"sts-extras could not register with MTEB ({type(error).__name__}: {error}); "
                "its tasks or models may be missing from mteb.get_task / mteb.get_model.",
                RuntimeWarning,
                stacklevel=2,
            )


def _is_imported(name: str) -> bool:
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None)
    return module is not None and not getattr(spec, "_initializing", False)


def when_mteb_is_imported(callback: Callable[[], None]) -> None:
    """Run ``callback`` (a registration) once MTEB is imported, without importing it.

    Now, if MTEB is imported already; right after ``import mteb`` (whoever imports it first) if
    MTEB is installed but not imported; never if it is not installed. Importing MTEB takes
    seconds, so :mod:`sts_extras.integrations.mteb.models` registers its models this way instead of
    importing it. A callback that raises leaves ``import mteb`` working and warns
    (``RuntimeWarning``).
    """
    if _is_imported("mteb"):
        callback()
        return
    if "mteb" not in sys.modules and importlib.util.find_spec("mteb") is None:
        return  # the `mteb` extra is not installed: nothing to register with
    _PENDING.append(callback)
    if not any(isinstance(finder, _AfterImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport())


def register_model(meta: ModelMeta) -> None:
    """Add ``meta`` to MTEB's model registry, so ``mteb.get_model_meta(meta.name)`` returns it and
    ``mteb.get_model(meta.name)`` loads it with ``meta.loader``.

    The registry (``MODEL_REGISTRY``) is a plain dict filled from MTEB's own model modules at
    import time, with no plugin entry point; ``get_model_meta`` reads the same dict object.
    """
    from mteb.models.model_implementations import MODEL_REGISTRY

    MODEL_REGISTRY[cast(str, meta.name)] = meta  # our metadata always has a name


# --------------------------------------------------------------------------------------------
# result files (appended: the leaderboard's store of earlier evaluations)
# --------------------------------------------------------------------------------------------
#: Files ``ResultCache`` keeps beside a model's task results: its metadata and one JSON line per
#: task of the run settings (package versions, encode options).
MODEL_META_FILE = "model_meta.json"
RUN_SETTINGS_FILE = "run_settings.jsonl"


def result_files(results_cache: ResultCache, name: str, revision: str, task_name: str) -> Path:
    """Where ``mteb.evaluate(cache=results_cache)`` saved a model's result of one task.

    :data:`MODEL_META_FILE` and :data:`RUN_SETTINGS_FILE` are in the same folder.
    """
    return Path(
        results_cache.get_task_result_path(
            task_name=task_name, model_name=name, model_revision=revision
        )
    )


def run_settings_of(results_folder: Path, task_name: str) -> list[dict[str, Any]]:  # JSON lines
    """The entries of :data:`RUN_SETTINGS_FILE` in a model's results folder about one task."""
    from mteb.results.task_result import _read_run_settings_from_file

    entries = _read_run_settings_from_file(results_folder / RUN_SETTINGS_FILE)
    return [entry for entry in entries if entry.get("task") == task_name]


def merge_run_settings(results_folder: Path, entries: list[dict[str, Any]]) -> None:  # JSON
    """Merge run-settings entries into a model's :data:`RUN_SETTINGS_FILE`, as MTEB does."""
    from mteb.results.task_result import _write_and_merge_keyed_json

    _write_and_merge_keyed_json(results_folder / RUN_SETTINGS_FILE, entries)
