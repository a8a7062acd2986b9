"""Check everything the user named before any model runs: output, tasks, models, vectors, baseline.

Each check fails with one :class:`~sts_extras.errors.UserInputError` naming the option and, for a
misspelt name, its close matches; so a typo costs seconds, not a run. Tasks are loaded and vector
files read here for the same reason.

A ``--model`` name is looked up in this order:

1. the packaged all-MiniLM-L6-v2 (``"all-MiniLM-L6-v2"``): loaded from its local files through
   sentence-transformers, as always. MTEB's registry entry of the model adds nothing to load it
   with (no prompts, no loader arguments), and its revision names the Hub's files, not the
   packaged copy, which keeps its ``local-<16 hex digits of its content hash>`` revision;
2. an existing directory: a local sentence-transformers model;
3. a name in MTEB's model registry (``sentence-transformers/all-mpnet-base-v2``, ``intfloat/...``,
   and sts-extras' own ``sts-extras/DynaMax-Jaccard`` and friends): built by ``mteb.get_model``,
   so its prompts, loader arguments and revision are MTEB's;
4. any other Hugging Face Hub id: a sentence-transformers model.

Names are checked, not loaded (:func:`sts_extras.io.model_sources.resolve_sentence_transformer`,
and for registry models :func:`sts_extras.io.model_sources.snapshot_dir`: offline their files must
be in the local cache, online a model not yet downloaded costs one short request to the Hub, so a
machine without network is told so at once); models are built one at a time by
:func:`sts_extras.leaderboard.run.evaluation.evaluate_cell`. sts-extras' own registry models run on
NumPy over vectors loaded here, so they are built here, as the ``--vectors`` models are.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from sts_extras._validation import check_name
from sts_extras.errors import UserFileNotFoundError, UserInputError, UserInputTypeError
from sts_extras.io.content import content_hash
from sts_extras.io.model_sources import (
    DEFAULT_MODEL,
    ModelSource,
    hub_model_exists,
    hub_offline,
    is_default_model,
    one_line,
    resolve_sentence_transformer,
    snapshot_dir,
    source_identity,
)

if TYPE_CHECKING:  # pragma: no cover -- the models (and MTEB) are imported on use
    from mteb.abstasks.sts import AbsTaskSTS
    from mteb.models import EncoderProtocol, ModelMeta

    from sts_extras.integrations.mteb.models.base import StaticVectorModel
    from sts_extras.vectors import WordVectors

__all__ = [
    "DEFAULT_VECTORS",
    "DISTILLED",
    "MTEB_REGISTRY",
    "VECTOR_METHODS",
    "ModelEntry",
    "ModelSpec",
    "TaskSpec",
    "cache_root",
    "model_identity",
    "prepare_output",
    "resolve_baseline",
    "resolve_models",
    "resolve_tasks",
]

#: A model as :func:`resolve_models` takes it: a name or path, or a ready MTEB encoder.
ModelSpec: TypeAlias = "str | EncoderProtocol"
#: A task as :func:`resolve_tasks` takes it: a name, a table file, or a ready MTEB STS task.
TaskSpec: TypeAlias = "str | os.PathLike[str] | AbsTaskSTS"

#: ``--vectors distilled[:MODEL]``: static vectors distilled from a sentence-transformers model.
DISTILLED = "distilled"
#: The vectors of the default run's static models: Stanford's GloVe 6B 50-d, the named source
#: the ``glove`` extra installs (loaded in about half a second; distilling MiniLM took most of a
#: first run). ``--vectors distilled`` is the explicit choice of the distilled MiniLM vectors.
DEFAULT_VECTORS = "glove-6b-50d"
#: The static-vector models built over every vector source: (method, class name, options).
VECTOR_METHODS: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("avg-cos", "MeanPooled", {}),
    ("MaxPool-Jaccard", "MaxPool", {"measure": "jaccard"}),
    ("DynaMax-Jaccard", "DynaMax", {"measure": "jaccard"}),
)
#: :attr:`ModelEntry.kind` of a model built by ``mteb.get_model`` from MTEB's model registry.
MTEB_REGISTRY = "mteb-registry"
_OUR_TASKS = ("DSCS", "STSS131")
_VECTOR_SUFFIXES = (".txt", ".vec", ".bin", ".kv", ".gz", ".bz2", ".model", ".npy", ".w2v")


def cache_root() -> Path:
    """Where sts-extras caches encodings and distilled vectors (``$STS_EXTRAS_CACHE``).

    Created if missing. Raises :class:`~sts_extras.errors.UserInputError` when it cannot be
    created or written (e.g. under a read-only HOME), naming ``STS_EXTRAS_CACHE``.
    """
    from sts_extras.vectors import default_cache_dir

    root = default_cache_dir()
    try:
        root.mkdir(parents=True, exist_ok=True)
        if not os.access(root, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied", str(root))
    except OSError as error:
        raise UserInputError(
            f"the sts-extras cache {str(root)!r} cannot be written ({_os_reason(error)}); set "
            "STS_EXTRAS_CACHE to a directory you can write to."
        ) from None
    return root


# --------------------------------------------------------------------------------------------
# output directory
# --------------------------------------------------------------------------------------------
def prepare_output(output: str | os.PathLike) -> Path:
    """Create ``output`` if needed and check it can be written; ``UserInputError`` otherwise.

    An empty name is refused: ``Path("")`` would be the current directory.
    """
    if isinstance(output, str) and not output.strip():
        raise UserInputError(
            "--output is empty; give a directory for the reports (it is created if missing)."
        )
    path = Path(output).expanduser()
    if path.exists() and not path.is_dir():
        raise UserInputError(
            f"--output {str(path)!r} exists and is not a directory; give a directory (it is "
            "created if missing)."
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        # name the folder in the way: the nearest one that exists
        existing = next((folder for folder in path.parents if folder.exists()), None)
        if existing is not None and not existing.is_dir():
            reason = f"{str(existing)!r} is a file"
        else:
            reason = f"{error.strerror or error}: {str(existing or path)!r}"
        raise UserInputError(
            f"--output {str(path)!r} cannot be written: it cannot be created ({reason}); give a "
            "directory you can write to."
        ) from None
    try:
        probe = path / ".sts-extras-write-test"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as error:
        raise UserInputError(
            f"--output {str(path)!r} cannot be written ({error.strerror or error}); give a "
            "directory you can write to."
        ) from None
    return path


def _os_reason(error: OSError) -> str:
    """``"Not a directory: '/a/file/b'"``: the reason and, if given, the path it concerns."""
    reason = error.strerror or str(error)
    return f"{reason}: {str(error.filename)!r}" if error.filename else reason


# --------------------------------------------------------------------------------------------
# tasks
# --------------------------------------------------------------------------------------------
def _normalise(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).lower()


def _named_file(raw: object, suffixes: Sequence[str]) -> tuple[str | None, Path] | None:
    """``"NAME=FILE"`` -> (NAME, FILE), a table file alone -> (None, FILE); None otherwise.

    An existing path is a file even when its name holds ``=``.
    """
    if not isinstance(raw, (str, os.PathLike)):
        return None
    text = os.fspath(raw)
    if not Path(text).expanduser().exists() and isinstance(raw, str) and "=" in raw:
        name, _, file = raw.partition("=")
        if Path(file.strip()).suffix.lower() in suffixes:
            if not name.strip():
                raise UserInputError(f"--task {raw!r}: write NAME=FILE with both parts.")
            return name.strip(), Path(file.strip()).expanduser()
    if Path(text).suffix.lower() in suffixes:
        return None, Path(text).expanduser()
    return None


def resolve_tasks(
    names: Sequence[TaskSpec] | None,
    *,
    score_range: tuple[float, float] | None = None,
    duplicate_pairs: str = "warn",
) -> list[AbsTaskSTS]:
    """Turn task names into loaded MTEB task objects; ``UserInputError`` with close matches.

    Items may also be ready ``AbsTaskSTS`` objects (a user's own task), used as given, or paths
    of ``.csv``/``.jsonl``/``.parquet`` files with the columns ``sentence1``, ``sentence2`` and
    ``score`` (a CSV file may have no header line, see
    :func:`sts_extras.annotation.tables.read_sts_table`), made into tasks by
    :func:`sts_extras.integrations.mteb.tasks.from_csv` (named after the file; score range
    ``score_range``, default the file's lowest and highest score). ``"NAME=FILE"`` names the
    task: when NAME is an MTEB STS task with one subset (``"STSBenchmark=test.csv"``), the task
    is MTEB's with the file's data (MTEB's name, main score and score range, so the run's results
    and MTEB's published ones are the same task); any other NAME is the file task's name.
    ``duplicate_pairs`` (``"warn"`` or ``"refuse"``) says what a pair given twice in a file is.

    Our tasks accept loose spellings ("dscs", "STSS-131"); MTEB STS tasks need their name (any
    letter case). The data of every task is loaded here, so a task that cannot be loaded (e.g.
    an MTEB task offline, a malformed file) fails before any model runs. ``score_range``
    without a file task is an error.
    """
    import mteb

    from sts_extras.annotation.tables import TABLE_SUFFIXES
    from sts_extras.integrations.mteb.internals import task_registry
    from sts_extras.integrations.mteb.tasks import from_csv, register

    register()
    by_lower = {name.lower(): name for name in task_registry()}
    ours = {_normalise(name): name for name in _OUR_TASKS}
    given = list(names or _OUR_TASKS)
    named_files = ((index, _named_file(raw, TABLE_SUFFIXES)) for index, raw in enumerate(given))
    files = {index: named for index, named in named_files if named is not None}
    if score_range is not None and not files:
        raise UserInputError(
            f"--score-range {score_range[0]:g} {score_range[1]:g} applies to --task files "
            "(.csv, .jsonl, .parquet); no --task names a file."
        )
    tasks: list[AbsTaskSTS] = []
    read: dict[str, Path] = {}  # task name -> the file it was read from
    for index, raw in enumerate(given):
        if isinstance(raw, (str, os.PathLike)):  # a name or file: shown and stored, so checked
            check_name(os.fspath(raw), f"--task {os.fspath(raw)!r}")
        if index in files:
            label, path = files[index]
            known = by_lower.get(label.lower()) if label is not None else None
            if known is not None and known not in _OUR_TASKS:
                file_task = from_csv(
                    path, mteb_task=known, score_range=score_range, duplicate_pairs=duplicate_pairs
                )
            else:
                file_task = from_csv(
                    path, name=label, score_range=score_range, duplicate_pairs=duplicate_pairs
                )
            file_name = file_task.metadata.name
            if file_name in read and read[file_name].resolve() == path.resolve():
                continue
            if file_name in read or any(t.metadata.name == file_name for t in tasks):
                raise UserInputError(
                    f"--task {raw}: another task is also named {file_name!r}; rename the file "
                    "or name the task (NAME=FILE)."
                )
            read[file_name] = path
            file_task.load_data()
            tasks.append(file_task)
            continue
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
            matches = _close_matches(raw, candidates)
            hint = f" Close matches: {', '.join(matches)}." if matches else ""
            raise UserInputError(
                f"--task {raw!r} is neither an sts-extras task ({', '.join(_OUR_TASKS)}) nor an "
                f"MTEB STS task.{hint}"
            )
        # an STS task (checked next): MTEB types get_task as returning any AbsTask
        task = cast("AbsTaskSTS", mteb.get_task(name))
        if task.metadata.type != "STS":
            raise UserInputError(
                f"--task {raw!r} is an MTEB {task.metadata.type} task; the leaderboard runs STS "
                "tasks (see `mteb.get_tasks(task_types=['STS'])`)."
            )
        if any(t.metadata.name == name for t in tasks):
            continue
        if name in read:
            raise UserInputError(
                f"--task {raw!r} has the name of the --task file {read[name]}; rename the file."
            )
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


def _close_matches(given: str, names: Sequence[str]) -> list[str]:
    """Up to five of ``names`` close to ``given`` in any letter case (as task names are looked
    up), each task once (ours are in MTEB's registry too), shown as spelt."""
    spelt: dict[str, str] = {}  # upper case -> the first spelling
    for name in names:
        spelt.setdefault(name.upper(), name)
    return [spelt[name] for name in difflib.get_close_matches(given.upper(), list(spelt), 5, 0.5)]


def _checked_task_object(task: object) -> AbsTaskSTS:
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
    kind: str  # "sentence-transformers", "mteb-registry", "word-vectors" or "mteb-model"
    source: str
    #: Builds the model: an MTEB encoder (:class:`mteb.models.EncoderProtocol`). Typed Any, as
    #: callers use the concrete model (e.g. a static-vector model's ``score``).
    build: Callable[[], Any]
    #: What the model's scores depend on, as a JSON object without any path or display name
    #: (:func:`model_identity`): the key of the store of earlier evaluations
    #: (:mod:`~sts_extras.leaderboard.run.evaluation_store`) and what shards must agree on.
    #: None (always evaluate): a ready Python object, a Hub model not downloaded yet.
    identity: str | None = None
    #: The model may run code from its repository (``--trust-remote-code``).
    trust_remote_code: bool = False
    #: What its word vectors are, when they are a named source (``--vectors glove-6b-50d``):
    #: :meth:`VectorSetInfo.as_dict <sts_extras.vectors.VectorSetInfo.as_dict>`, shown in the
    #: reports (``leaderboard.json``: the model's ``"vectors"``).
    vectors: Mapping[str, Any] | None = field(default=None, hash=False)


def model_identity(kind: str, **fields: object) -> str:
    """A model's identity: ``{"kind": kind, **fields}`` as compact JSON with sorted keys.

    The same model (same files, same loader settings) gives the same string on every machine
    and in every environment; it holds content hashes, commits and settings, never a path.
    """
    return json.dumps({"kind": kind, **fields}, sort_keys=True, separators=(",", ":"))


def _model_revision(source: ModelSource, identity: str | None) -> str:
    """The revision naming a sentence-transformers model's files in MTEB's results and caches:
    ``local-<16 hex digits of the folder's content hash>``, or a Hub model's commit."""
    if identity is None:  # a Hub model not yet downloaded
        return "no_revision_available"
    if source.local is not None:
        return f"local-{identity.partition(':')[2][:16]}"
    return identity.rpartition("@")[2]


def _sentence_transformer_builder(
    source: ModelSource,
    revision: str,
    cache_dir: Path,
    trust_remote_code: bool,
    identity: str | None,
) -> Callable[[], EncoderProtocol]:
    def build() -> EncoderProtocol:
        from sentence_transformers import SentenceTransformer

        from sts_extras.integrations.mteb.internals import cached_sentence_transformer

        # only when asked: the call of every other model stays sentence-transformers' default
        options: dict[str, Any] = {"trust_remote_code": True} if trust_remote_code else {}
        if source.local is None and identity is not None:
            options["revision"] = revision  # exactly the commit the identity names
        model = SentenceTransformer(source.location, **options)
        wrapper = cached_sentence_transformer(
            model,
            name=source.name,
            revision=revision,
            cache_root=cache_dir / "embeddings",
            identity=identity,
        )
        # an encoder: MTEB types its wrapper's `mteb_model_meta` as optional; ours is always set
        return cast("EncoderProtocol", wrapper)

    return build


def _sentence_transformer_entry(spec: str, cache_dir: Path, trust_remote_code: bool) -> ModelEntry:
    from sts_extras.integrations.mteb.internals import registered_model_names

    source = resolve_sentence_transformer(spec, known_names=registered_model_names())
    files = source_identity(source)  # None: a Hub model not yet downloaded has no revision
    revision = _model_revision(source, files)
    identity = (
        model_identity(
            "sentence-transformers",
            **({"content": files} if source.local is not None else {"hub": files}),
            trust_remote_code=trust_remote_code,
        )
        if files is not None
        else None
    )
    return ModelEntry(
        name=source.display,
        kind="sentence-transformers",
        source=spec,
        build=_sentence_transformer_builder(
            source, revision, cache_dir, trust_remote_code, identity
        ),
        identity=identity,
        trust_remote_code=trust_remote_code,
    )


def _registry_name(spec: str) -> str | None:
    """The name of ``spec`` in MTEB's model registry (None for the packaged default or a path)."""
    from sts_extras.integrations.mteb.internals import find_registered_model
    from sts_extras.integrations.mteb.models import register

    if is_default_model(spec) or Path(spec).expanduser().exists():
        return None
    register()  # sts-extras' own models (loads nothing)
    return find_registered_model(spec)


def _own_registry_entry(spec: str, registered: str) -> ModelEntry:
    """An sts-extras model of MTEB's registry, built now: its vectors are checked and loaded."""
    from sts_extras.integrations.mteb.internals import load_from_registry

    try:
        # an sts-extras name: MTEB's registry builds one of our static-vector models
        model = cast("StaticVectorModel", load_from_registry(registered))
    except (OSError, ValueError, ImportError) as error:
        raise UserInputError(f"--model {spec!r} could not be loaded: {one_line(error)}") from None
    model_settings = model.identity  # the vectors' content, method and SIF weights
    return ModelEntry(
        name=model.name,
        kind=MTEB_REGISTRY,
        source=spec,
        build=_returning(model),
        identity=None
        if model_settings is None
        else model_identity(MTEB_REGISTRY, registry=registered, model=json.loads(model_settings)),
        vectors=_vectors_description(model.vectors),
    )


def _vectors_description(vectors: WordVectors) -> dict[str, Any] | None:  # JSON values
    """What a named vector source is, for the reports; None for vectors of unknown origin."""
    provenance = getattr(vectors, "provenance", None)
    return None if provenance is None else provenance.as_dict()


def _registry_entry(
    spec: str, registered: str, cache_dir: Path, trust_remote_code: bool
) -> ModelEntry:
    """A model of MTEB's registry, built later by ``mteb.get_model`` at MTEB's revision.

    Its identity names the registry's loader and loader arguments (which hold
    ``trust_remote_code``) besides the revision: an MTEB release that changes a model's prompts
    makes its stored evaluations and cached embeddings stale.
    """
    from sts_extras.integrations.mteb.internals import registered_model_meta
    from sts_extras.integrations.mteb.models.catalog import (
        PACKAGED_VECTOR_MODELS,
        REGISTERED_MODELS,
    )

    if registered in REGISTERED_MODELS or registered in PACKAGED_VECTOR_MODELS:
        return _own_registry_entry(spec, registered)
    meta = cast("ModelMeta", registered_model_meta(registered))  # present: `registered` was found
    loader_kwargs = dict(meta.loader_kwargs or {})
    # MTEB's loader arguments decide; --trust-remote-code is the user's consent to them
    remote = bool(loader_kwargs.get("trust_remote_code"))
    if remote and not trust_remote_code:
        raise UserInputError(
            f"--model {spec!r}: MTEB loads {registered} with trust_remote_code=True, which runs "
            "code from the model's repository; pass --trust-remote-code to allow it."
        )
    revision = meta.revision
    # open weights come from the Hub: offline, they must be cached at the pinned revision
    if meta.open_weights is not False and snapshot_dir(registered, revision) is None:
        if hub_offline():
            pinned = f" at the revision MTEB pins ({revision})" if revision else ""
            raise UserInputError(
                f"--model {spec!r} is in MTEB's model registry, but its files{pinned} are not "
                "in the local Hugging Face cache and HF_HUB_OFFLINE is set."
            )
        # to be downloaded: a Hub that cannot be reached fails now, not after the retries
        hub_model_exists(registered, argument="--model", spec=spec)
    if revision is None:  # an unpinned entry: the cached snapshot names the files, if any
        snapshot = snapshot_dir(registered)
        revision = snapshot.name if snapshot is not None else None
    settings = (_callable_name(meta.loader), sorted(loader_kwargs.items(), key=str))
    identity = model_identity(
        MTEB_REGISTRY, registry=registered, revision=revision, loader=repr(settings)
    )
    return ModelEntry(
        name=registered.rsplit("/", 1)[-1],
        kind=MTEB_REGISTRY,
        source=spec,
        build=_registry_builder(registered, revision, cache_dir, _digest(repr(settings))),
        identity=identity if revision is not None else None,
        trust_remote_code=remote,
    )


def _callable_name(function: object) -> str:
    """A loader by its import path (and bound arguments): stable across processes."""
    inner = getattr(function, "func", function)  # a functools.partial names its function
    path = f"{getattr(inner, '__module__', '')}.{getattr(inner, '__qualname__', repr(inner))}"
    if inner is function:
        return path
    keywords = sorted(getattr(function, "keywords", {}).items(), key=str)
    return repr((path, getattr(function, "args", ()), keywords))


def _digest(text: str) -> str:
    """:data:`~sts_extras.io.content.CONTENT_HASH` of ``text``: a folder of the embedding cache."""
    return content_hash(text)


def _registry_builder(
    registered: str, revision: str | None, cache_dir: Path, settings: str
) -> Callable[[], EncoderProtocol]:
    def build() -> EncoderProtocol:
        from sts_extras.integrations.mteb.internals import cached_encoder, load_from_registry

        model = load_from_registry(registered)
        if revision is None:  # files without a name: their embeddings are not cached
            return model
        meta = model.mteb_model_meta
        # the loader settings (prompts, arguments) shape the embeddings as much as the files
        folder = cache_dir / "embeddings" / meta.model_name_as_path() / revision / settings
        # an encoder: MTEB types its wrapper's `mteb_model_meta` as optional; ours is always set
        return cast("EncoderProtocol", cached_encoder(model, folder))

    return build


def _split_display_name(spec: str) -> tuple[str, str | None]:
    """``"PATH=NAME"`` -> (PATH, NAME); a spec without ``=`` (or an existing path) has no NAME."""
    if "=" not in spec or Path(spec).expanduser().exists():
        return spec, None
    source, _, name = spec.rpartition("=")
    name = name.strip()
    if not source.strip() or not name:
        raise UserInputError(
            f"--model {spec!r}: write NAME_OR_PATH=DISPLAY_NAME with both parts, "
            "e.g. ./my-model=mine."
        )
    return source.strip(), name


def _model_entry(
    spec: str, cache_dir: Path, trust_remote_code: bool
) -> tuple[ModelEntry, str | None]:
    """The entry of one ``--model`` string and the display name the user gave it, if any."""
    source, display = spec, None
    registered = _registry_name(spec)  # registry names may hold "=": "... (embed_dim=2048)"
    if registered is None:
        source, display = _split_display_name(spec)
        registered = _registry_name(source) if display is not None else None
    if registered is not None:
        entry = _registry_entry(source, registered, cache_dir, trust_remote_code)
    else:
        entry = _sentence_transformer_entry(source, cache_dir, trust_remote_code)
    return (entry if display is None else replace(entry, name=display)), display


def _load_vectors(spec: str, cache_dir: Path, trust_pickle: bool = False) -> WordVectors:
    """Load one ``--vectors`` source now (so a bad file fails before any model runs)."""
    from sts_extras.vectors import PACKAGED_VECTORS, WordVectors

    if not spec.strip():  # Path("") is the current directory
        raise UserInputError(
            "--vectors is empty; give a vector file, a model2vec directory, a gensim-downloader "
            f"name or '{DISTILLED}[:MODEL]'."
        )
    if spec == DISTILLED or spec.startswith(DISTILLED + ":"):
        source: str | None = spec.partition(":")[2] or None
        if source is not None and is_default_model(source):
            source = None  # the packaged offline copy
        elif source is not None:
            # the model is named after the colon: errors blame --vectors, not --model
            argument = f"--vectors {spec!r}: the model"
            local = resolve_sentence_transformer(source, argument=argument).local
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
        # a named source by its name, as WordVectors.load reads it; an existing path as a Path,
        # so that "./glove-6b-50d" is that file
        named = path if path.exists() and spec not in PACKAGED_VECTORS else spec
        loaded = WordVectors.load(named, trust_pickle=trust_pickle)
    except (OSError, ValueError, UnicodeDecodeError) as error:
        # a user error's message says what to do: keep all of it
        detail = one_line(error, 1000 if isinstance(error, UserInputError) else 240)
        raise UserInputError(f"--vectors {spec!r} could not be read: {detail}") from None
    if not loaded.vectors.any():  # every sentence would be the zero vector: cosines of 0/0
        raise UserInputError(
            f"--vectors {spec!r}: every vector is zero ({len(loaded.vectors)} words), so no "
            "sentence has a direction and no similarity is defined; give trained vectors."
        )
    return loaded


def _vector_models(vectors: WordVectors, sif: bool) -> list[StaticVectorModel]:
    from sts_extras.integrations.mteb import models

    return [
        getattr(models, cls_name)(vectors, sif=sif, **options)
        for _, cls_name, options in VECTOR_METHODS
    ]


def _returning(model: EncoderProtocol) -> Callable[[], EncoderProtocol]:
    """A builder of a model that is already built."""
    return lambda: model


def _model_object_entry(model: EncoderProtocol) -> ModelEntry:
    """The entry of a ready MTEB model object, named by its sts-extras or MTEB name."""
    meta = getattr(model, "mteb_model_meta", None)
    source = getattr(meta, "name", None) or type(model).__name__
    own = getattr(model, "name", None)  # sts_extras models: "DynaMax-Jaccard (vectors)"
    name = own if isinstance(own, str) and own else source.rsplit("/", 1)[-1]
    return ModelEntry(name=name, kind="mteb-model", source=source, build=_returning(model))


def resolve_models(
    models: Sequence[ModelSpec] | None,
    vectors: Sequence[str] | None,
    *,
    sif: bool = False,
    cache_dir: Path | None = None,
    trust_remote_code: bool = False,
    trust_pickle: bool = False,
) -> list[ModelEntry]:
    """Check every model and vector source the user named and return the models of the run.

    Parameters
    ----------
    models : sequence of (str or MTEB model), optional
        Names in MTEB's model registry (built by ``mteb.get_model``), sentence-transformers names
        or paths (``"all-MiniLM-L6-v2"`` is the packaged offline copy), or ready MTEB encoder
        objects. ``"NAME_OR_PATH=DISPLAY_NAME"`` names the model in the reports.
    vectors : sequence of str, optional
        Word-vector files, model2vec directories, named sources (``"glove-6b-50d"``, see
        :data:`sts_extras.vectors.PACKAGED_VECTORS`), gensim-downloader names, or
        ``"distilled[:MODEL]"``. Each source gives three models: avg-cos, MaxPool-Jaccard and
        DynaMax-Jaccard.
    sif : bool
        SIF-weight the words of the static-vector models.
    cache_dir : pathlib.Path, optional
        Cache root (default :func:`cache_root`).
    trust_remote_code : bool
        Let models run code from their repositories: passed to sentence-transformers; registry
        models that MTEB loads with ``trust_remote_code=True`` are refused without it.
    trust_pickle : bool
        Read vector files in pickle-based formats (gensim's ``.kv``/``.model``), which run any
        code stored in them; refused without it (see :meth:`sts_extras.vectors.WordVectors.load`).

    Returns
    -------
    list of ModelEntry
        In run order; a source given twice without display names keeps both, the second named
        ``"<name> #2"``.

    Raises
    ------
    UserInputError
        A model name or path, or a vector source, that cannot be found or read; a display name
        given twice (or equal to another model's name); a registry model that needs
        ``trust_remote_code``, or (offline) whose files are not in the local cache; a vector file
        in a pickle-based format without ``trust_pickle``; online, a Hub that cannot be reached
        for a model not in the local cache.

    MissingExtraError
        The default run without the ``glove`` extra, which installs its vectors.

    When neither ``models`` nor ``vectors`` is given, the default run is all-MiniLM-L6-v2 and
    the three static-vector models over :data:`DEFAULT_VECTORS` (GloVe). ``models=
    ["all-MiniLM-L6-v2"], vectors=["distilled"]`` is the run over vectors distilled from MiniLM.
    """
    _check_spec_names(models, vectors)  # every name, before any model or file is touched
    cache_dir = cache_dir or cache_root()
    if not models and not vectors:
        _check_default_vectors()
        models, vectors = [DEFAULT_MODEL], [DEFAULT_VECTORS]
    entries: list[ModelEntry] = []
    given: dict[int, str] = {}  # entry index -> the spec that named it
    for spec in models or []:
        if not isinstance(spec, str):
            entries.append(_model_object_entry(spec))
            continue
        entry, display = _model_entry(spec, cache_dir, trust_remote_code)
        if display is not None:
            given[len(entries)] = spec
        entries.append(entry)
    loaded = [(_load_vectors(spec, cache_dir, trust_pickle), spec) for spec in vectors or []]
    for word_vectors, spec in loaded:
        for model in _vector_models(word_vectors, sif):  # cheap: the vectors are loaded
            settings = model.identity  # the vectors' content, method and SIF weights
            entries.append(
                ModelEntry(
                    name=model.name,
                    kind="word-vectors",
                    source=spec,
                    build=_returning(model),
                    identity=None
                    if settings is None
                    else model_identity("word-vectors", model=json.loads(settings)),
                    vectors=_vectors_description(word_vectors),
                )
            )
    _check_given_names(entries, given)
    for entry in entries:  # a derived name (a folder's, a model object's) as the records take it
        check_name(entry.name, f"the model from {entry.source!r}: its display name {entry.name!r}")
    seen: dict[str, int] = {}
    unique = []
    for entry in entries:  # the same source given twice: keep both, distinguishable
        count = seen.get(entry.name, 0) + 1
        seen[entry.name] = count
        unique.append(entry if count == 1 else replace(entry, name=f"{entry.name} #{count}"))
    return unique


#: Most characters of a ``--model`` or ``--vectors`` string (a path): as a cell record stores it.
_MAX_SPEC_LENGTH = 4096


def _check_spec_names(models: Sequence[ModelSpec] | None, vectors: Sequence[str] | None) -> None:
    """Every ``--model`` and ``--vectors`` string, and every display name, is a name the reports
    and records take (:func:`~sts_extras._validation.check_name`: no control characters);
    refused here, naming the option, before anything is loaded -- never after the cells ran."""
    for option, specs in (("--model", models), ("--vectors", vectors)):
        for spec in specs or []:
            if option == "--vectors" and not isinstance(spec, str):
                raise UserInputTypeError(
                    f"`vectors` items must be strings (a file, directory or name), got "
                    f"{type(spec).__name__}."
                )
            if isinstance(spec, str) and spec.strip():  # an empty one: refused with what to give
                check_name(spec, f"{option} {spec!r}", max_length=_MAX_SPEC_LENGTH)
            if option == "--model" and isinstance(spec, str) and "=" in spec:
                display = spec.rpartition("=")[2].strip()
                if display:
                    check_name(display, f"--model {spec!r}: the display name {display!r}")


def _check_default_vectors() -> None:
    """The default vectors are installed; else one line naming the extra and the alternative.

    Without the extra the default run fails rather than falling back to distilled vectors: the
    same command then gives the same models, names and numbers on every machine.
    """
    from sts_extras.io.model_sources import DEFAULT_MODEL_DISPLAY_NAME
    from sts_extras.optional import MissingExtraError
    from sts_extras.vectors import PACKAGED_VECTORS
    from sts_extras.vectors.packaged import packaged_vectors_folder

    try:
        packaged_vectors_folder(DEFAULT_VECTORS)
    except MissingExtraError:
        extra = PACKAGED_VECTORS[DEFAULT_VECTORS].extra
        raise MissingExtraError(
            f"the default run's static models use the GloVe vectors {DEFAULT_VECTORS!r}, which "
            f'come with an extra: pip install "sts-extras[{extra}]"; or run over vectors '
            f"distilled from MiniLM: --model {DEFAULT_MODEL_DISPLAY_NAME} --vectors {DISTILLED}."
        ) from None


def _check_given_names(entries: Sequence[ModelEntry], given: dict[int, str]) -> None:
    """A display name the user gave must name one model only."""
    for index, spec in given.items():
        name = entries[index].name
        for other, entry in enumerate(entries):
            if other != index and entry.name == name:
                clash = (
                    f"--model {given[other]!r}"
                    if other in given
                    else f"the model from {entry.source!r}"
                )
                raise UserInputError(
                    f"--model {spec!r}: the display name {name!r} is also that of {clash}; "
                    "display names must be unique."
                )


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
