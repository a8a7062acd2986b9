"""Check everything the user named before any model runs: output, tasks, models, vectors, baseline.

Each check fails with one :class:`~sts_extras.errors.UserInputError` naming the option and, for a
misspelt name, its close matches; so a typo costs seconds, not a run. Tasks are loaded and vector
files read here for the same reason. Sentence-transformers models are checked (not loaded) by
:func:`sts_extras.integrations.hub.resolve_sentence_transformer`; they are built one at a time by
:func:`sts_extras.leaderboard.evaluation.evaluate_models`.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sts_extras.errors import UserFileNotFoundError, UserInputError, UserInputTypeError
from sts_extras.integrations.hub import (
    DEFAULT_MODEL,
    directory_fingerprint,
    is_default_model,
    one_line,
    resolve_sentence_transformer,
    snapshot_dir,
)

__all__ = [
    "DISTILLED",
    "VECTOR_METHODS",
    "ModelEntry",
    "cache_root",
    "prepare_output",
    "resolve_baseline",
    "resolve_models",
    "resolve_tasks",
]

#: ``--vectors distilled[:MODEL]``: static vectors distilled from a sentence-transformers model.
DISTILLED = "distilled"
#: The static-vector models built over every vector source: (method, class name, options).
VECTOR_METHODS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("avg-cos", "MeanPooled", {}),
    ("MaxPool-Jaccard", "MaxPool", {"measure": "jaccard"}),
    ("DynaMax-Jaccard", "DynaMax", {"measure": "jaccard"}),
)
_OUR_TASKS = ("DSCS", "STSS131")
_VECTOR_SUFFIXES = (".txt", ".vec", ".bin", ".kv", ".gz", ".bz2", ".model", ".npy", ".w2v")


def cache_root() -> Path:
    """Where sts-extras caches encodings and distilled vectors (``$STS_EXTRAS_CACHE``)."""
    from sts_extras.vectors import default_cache_dir

    return default_cache_dir()


# --------------------------------------------------------------------------------------------
# output directory
# --------------------------------------------------------------------------------------------
def prepare_output(output: str | os.PathLike) -> Path:
    """Create ``output`` if needed and check it can be written; ``UserInputError`` otherwise."""
    path = Path(output).expanduser()
    if path.exists() and not path.is_dir():
        raise UserInputError(f"--output {str(path)!r} exists and is not a directory.")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".sts-extras-write-test"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as error:
        reason = error.strerror or str(error)
        raise UserInputError(f"--output {str(path)!r} cannot be written: {reason}.") from None
    return path


# --------------------------------------------------------------------------------------------
# tasks
# --------------------------------------------------------------------------------------------
def _normalise(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).lower()


def resolve_tasks(names: Sequence[Any] | None) -> list[Any]:
    """Turn task names into loaded MTEB task objects; ``UserInputError`` with close matches.

    Items may also be ready ``AbsTaskSTS`` objects (a user's own task), used as given.

    Our tasks accept loose spellings ("dscs", "STSS-131"); MTEB STS tasks need their name (any
    letter case). The data of every task is loaded here, so a task that cannot be loaded (e.g.
    an MTEB task offline) fails before any model runs.
    """
    import mteb

    from sts_extras.integrations.mteb import task_registry
    from sts_extras.mteb_tasks import register

    register()
    by_lower = {name.lower(): name for name in task_registry()}
    ours = {_normalise(name): name for name in _OUR_TASKS}
    tasks: list[Any] = []
    for raw in names or _OUR_TASKS:
        if not isinstance(raw, str):  # a ready task object (e.g. the user's own AbsTaskSTS)
            tasks.append(_checked_task_object(raw))
            continue
        name = ours.get(_normalise(raw)) or by_lower.get(raw.lower())
        if name is None:
            candidates = [
                *_OUR_TASKS,
                *(
                    t.metadata.name
                    for t in mteb.get_tasks(task_types=["STS"], exclude_superseded=False)
                ),
            ]
            matches = difflib.get_close_matches(
                raw, candidates, n=5, cutoff=0.5
            ) or difflib.get_close_matches(
                raw.upper(), [c.upper() for c in candidates], n=5, cutoff=0.5
            )
            hint = f" Close matches: {', '.join(matches)}." if matches else ""
            raise UserInputError(
                f"--task {raw!r} is neither an sts-extras task ({', '.join(_OUR_TASKS)}) nor an "
                f"MTEB STS task.{hint}"
            )
        task = mteb.get_task(name)
        if task.metadata.type != "STS":
            raise UserInputError(
                f"--task {raw!r} is an MTEB {task.metadata.type} task; the leaderboard runs STS "
                "tasks (see `mteb.get_tasks(task_types=['STS'])`)."
            )
        if any(t.metadata.name == name for t in tasks):
            continue
        try:
            task.load_data()
        except Exception as error:  # noqa: BLE001 -- any loader failure is a user-facing error
            raise UserInputError(
                f"--task {name}: its data could not be loaded ({type(error).__name__}: "
                f"{one_line(error)}). MTEB tasks other than DSCS and STSS131 need the network "
                "or a local Hugging Face cache."
            ) from None
        tasks.append(task)
    return tasks


def _checked_task_object(task: Any) -> Any:
    from mteb.abstasks.sts import AbsTaskSTS

    if not isinstance(task, AbsTaskSTS):
        raise UserInputTypeError(
            f"`tasks` items must be task names or mteb AbsTaskSTS objects, got "
            f"{type(task).__name__}."
        )
    if not task.data_loaded:
        task.load_data()
    return task


# --------------------------------------------------------------------------------------------
# models
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ModelEntry:
    """A model of the run: its display name, where it comes from and how to build it (lazily)."""

    name: str
    kind: str  # "sentence-transformers", "word-vectors" or "mteb-model"
    source: str
    build: Callable[[], Any]
    #: What the model's scores depend on, for the store of earlier evaluations
    #: (:mod:`~sts_extras.leaderboard.evaluation_store`); None: always evaluate.
    identity: str | None = None


def _model_revision(mteb_name: str, local: Path | None) -> str:
    """The revision naming a sentence-transformers model's files in MTEB's results and caches."""
    if local is not None:  # a local copy: name its exact files
        return f"local-{directory_fingerprint(local)}"
    snapshot = snapshot_dir(mteb_name)  # a Hub model: the snapshot folder names the commit
    return snapshot.name if snapshot is not None else "no_revision_available"


def _sentence_transformer_builder(
    mteb_name: str, local: Path | None, revision: str, cache_dir: Path
) -> Callable[[], Any]:
    def build() -> Any:
        from sentence_transformers import SentenceTransformer

        from sts_extras.integrations.mteb import cached_sentence_transformer

        model = SentenceTransformer(str(local) if local is not None else mteb_name)
        return cached_sentence_transformer(
            model, name=mteb_name, revision=revision, cache_root=cache_dir / "embeddings"
        )

    return build


def _sentence_transformer_entry(spec: str, cache_dir: Path) -> ModelEntry:
    source = resolve_sentence_transformer(spec)
    # A Hub model not yet downloaded has no revision to name its scores by.
    revision = _model_revision(source.name, source.local)
    known = revision != "no_revision_available"
    return ModelEntry(
        name=source.display,
        kind="sentence-transformers",
        source=spec,
        build=_sentence_transformer_builder(source.name, source.local, revision, cache_dir),
        identity=repr(("sentence-transformers", source.name, revision)) if known else None,
    )


def _load_vectors(spec: str, cache_dir: Path) -> Any:
    """Load one ``--vectors`` source now (so a bad file fails before any model runs)."""
    from sts_extras.vectors import WordVectors

    if spec == DISTILLED or spec.startswith(DISTILLED + ":"):
        source: str | None = spec.partition(":")[2] or None
        if source is not None and is_default_model(source):
            source = None  # the packaged offline copy
        elif source is not None:
            local = resolve_sentence_transformer(source).local  # close matches on a typo
            source = str(local) if local is not None else source
        try:
            return WordVectors.from_sentence_transformer(source, cache_dir=cache_dir / "vectors")
        except (OSError, ValueError, ImportError) as error:
            raise UserInputError(
                f"--vectors {spec!r}: could not distil static vectors: {one_line(error)}"
            ) from None
    path = Path(spec).expanduser()
    looks_like_path = (
        os.sep in spec
        or "/" in spec
        or spec.startswith((".", "~"))
        or spec.lower().endswith(_VECTOR_SUFFIXES)
    )
    if not path.exists() and looks_like_path:
        raise UserFileNotFoundError(f"--vectors {spec!r}: no such file or directory.")
    try:
        return WordVectors.load(str(path) if path.exists() else spec)
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise UserInputError(f"--vectors {spec!r} could not be read: {one_line(error)}") from None


def _vector_models(vectors: Any, sif: bool) -> list[Any]:
    from sts_extras import models

    return [
        getattr(models, cls_name)(vectors, sif=sif, **options)
        for _, cls_name, options in VECTOR_METHODS
    ]


def _returning(model: Any) -> Callable[[], Any]:
    """A builder of a model that is already built."""
    return lambda: model


def _model_object_entry(model: Any) -> ModelEntry:
    """The entry of a ready MTEB model object, named by its sts-extras or MTEB name."""
    meta = getattr(model, "mteb_model_meta", None)
    source = getattr(meta, "name", None) or type(model).__name__
    own = getattr(model, "name", None)  # sts_extras models: "DynaMax-Jaccard (vectors)"
    name = own if isinstance(own, str) and own else source.rsplit("/", 1)[-1]
    return ModelEntry(name=name, kind="mteb-model", source=source, build=_returning(model))


def resolve_models(
    models: Sequence[Any] | None,
    vectors: Sequence[str] | None,
    *,
    sif: bool = False,
    cache_dir: Path | None = None,
) -> list[ModelEntry]:
    """Check every model and vector source the user named and return the models of the run.

    Parameters
    ----------
    models : sequence of (str or MTEB model), optional
        Sentence-transformers names or paths (``"all-MiniLM-L6-v2"`` is the packaged offline
        copy), or ready MTEB encoder objects.
    vectors : sequence of str, optional
        Word-vector files, model2vec directories, gensim-downloader names, or
        ``"distilled[:MODEL]"``. Each source gives three models: avg-cos, MaxPool-Jaccard and
        DynaMax-Jaccard.
    sif : bool
        SIF-weight the words of the static-vector models.
    cache_dir : pathlib.Path, optional
        Cache root (default :func:`cache_root`).

    Returns
    -------
    list of ModelEntry
        In run order; a source given twice keeps both, the second named ``"<name> #2"``.

    Raises
    ------
    UserInputError
        A model name or path, or a vector source, that cannot be found or read.

    When neither ``models`` nor ``vectors`` is given, the default run is all-MiniLM-L6-v2 and
    the three static-vector models over vectors distilled from it.
    """
    cache_dir = cache_dir or cache_root()
    if not models and not vectors:
        models, vectors = [DEFAULT_MODEL], [DISTILLED]
    entries: list[ModelEntry] = []
    for spec in models or []:
        if not isinstance(spec, str):
            entries.append(_model_object_entry(spec))
            continue
        entries.append(_sentence_transformer_entry(spec, cache_dir))
    loaded = [(_load_vectors(spec, cache_dir), spec) for spec in vectors or []]
    for word_vectors, spec in loaded:
        for model in _vector_models(word_vectors, sif):  # cheap: the vectors are loaded
            meta = model.mteb_model_meta  # its revision is a fingerprint of vectors and method
            entries.append(
                ModelEntry(
                    name=model.name,
                    kind="word-vectors",
                    source=spec,
                    build=_returning(model),
                    identity=repr((type(model).__name__, repr(model), meta.name, meta.revision)),
                )
            )
    seen: dict[str, int] = {}
    unique = []
    for entry in entries:  # the same source given twice: keep both, distinguishable
        count = seen.get(entry.name, 0) + 1
        seen[entry.name] = count
        unique.append(entry if count == 1 else replace(entry, name=f"{entry.name} #{count}"))
    return unique


def resolve_baseline(baseline: str | None, entries: Sequence[ModelEntry]) -> str:
    """The display name of the baseline model.

    Default: the avg-cos model of the first vector source if there is one, else the first model.
    A given name matches a display name exactly (any case), or as a unique substring.
    """
    names = [entry.name for entry in entries]
    if baseline is None:
        averaged = [
            e.name
            for e in entries
            if e.kind == "word-vectors" and e.name.startswith(VECTOR_METHODS[0][0])
        ]
        return averaged[0] if averaged else names[0]
    lowered = baseline.lower()
    exact = [name for name in names if name.lower() == lowered]
    if exact:
        return exact[0]
    partial = [name for name in names if lowered in name.lower()]
    if len(partial) == 1:
        return partial[0]
    if len(partial) > 1:
        raise UserInputError(
            f"--baseline {baseline!r} matches several models: "
            f"{', '.join(partial)}; give the full name."
        )
    matches = difflib.get_close_matches(baseline, names, n=5, cutoff=0.4)
    hint = f" Close matches: {', '.join(matches)}." if matches else ""
    raise UserInputError(
        f"--baseline {baseline!r} is not one of the models of this run ({', '.join(names)}).{hint}"
    )
