"""Run models × tasks through ``mteb.evaluate`` and collect the per-pair scores MTEB used.

Each model is built and evaluated on all tasks with ``mteb.evaluate`` (MTEB's normal result files
go to ``<output>/mteb_results``, its per-pair predictions to ``<output>/predictions/<model>/``);
then the per-pair scores are read back from MTEB's prediction files, so every statistic is
computed on exactly the scores MTEB's own ``pearson`` was computed on. A model that fails is
recorded as a failure on the tasks it could not run, and the others go on.

Caching. MTEB's result cache skips a model entirely when a result exists, but it keeps no per-pair
scores, so the leaderboard asks MTEB to evaluate (``overwrite_strategy="always"``) and caches the
expensive parts underneath: sentence-transformer encodings (MTEB's embedding cache, keyed by a
fingerprint of the model files) and distilled static vectors
(:meth:`sts_extras.vectors.WordVectors.from_sentence_transformer`). A model whose every task was
evaluated before with the same model files, data and versions is not evaluated again: the files
MTEB wrote then are copied back (:mod:`~sts_extras.leaderboard.evaluation_store`), so a re-run
neither loads the model nor imports sentence-transformers. All of it lives under
``$STS_EXTRAS_CACHE`` (default ``~/.cache/sts_extras``). Encodings and stored evaluations are
checked against their manifests before they are read (:mod:`sts_extras.integrity`): one that fails
is discarded with a :class:`~sts_extras.integrity.CacheDiscardedWarning` and rebuilt, so a damaged
cache costs time, never a different number.

Scores. Every model is scored by its own similarity: the ``similarity_scores`` of MTEB's
prediction files (for DynaMax, DynaMax itself), on every STS task, whatever the task's main score
(most MTEB STS tasks name ``cosine_spearman``). Only where a file has none is ``cosine_scores``
read; which key each model × unit used is returned with the scores.
"""

from __future__ import annotations

import re
import shutil
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sts_extras.integrations.hub import one_line
from sts_extras.leaderboard.evaluation_store import EvaluationStore, StoredTask, model_key, task_key
from sts_extras.leaderboard.resolve import ModelEntry
from sts_extras.leaderboard.scoring import TaskScores

__all__ = ["Unit", "evaluate_models", "slug", "task_units"]


def slug(name: str) -> str:
    """``name`` as a file or folder name: runs of other characters than ``A-Za-z0-9._+-`` -> _."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", name).strip("_") or "model"


@dataclass(frozen=True)
class Unit:
    """One scored unit: a task, one of its subsets and one eval split, with its gold scores."""

    label: str
    task_name: str
    subset: str
    split: str
    gold: np.ndarray
    score_range: tuple[float, float]


def task_units(task: Any) -> list[Unit]:
    """The (subset, split) units of a loaded task, with their gold scores in MTEB's order."""
    units = []
    pairs = _subsets_and_splits(task)
    for subset, split in pairs:
        data = _split_data(task, subset, split)
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


def _subsets_and_splits(task: Any) -> list[tuple[str, str]]:
    return [(subset, split) for subset in task.hf_subsets for split in task.eval_splits]


def _split_data(task: Any, subset: str, split: str) -> Any:
    if subset == "default" and subset not in task.dataset:  # as AbsTask.evaluate does
        return task.dataset[split]
    return task.dataset[subset][split]


def _task_key(task: Any) -> str:
    """The store key of a loaded task: its name and every column of every evaluated split."""
    return task_key(
        task.metadata.name,
        (
            (subset, split, _split_data(task, subset, split).to_dict())
            for subset, split in _subsets_and_splits(task)
        ),
    )


def evaluate_models(
    entries: Sequence[ModelEntry],
    tasks: Sequence[Any],
    output: Path,
    *,
    progress: bool = True,
    batch_size: int = 32,
    cache_dir: Path | None = None,
) -> tuple[list[TaskScores], dict[str, dict[str, Any]], dict[str, dict[str, str]]]:
    """Run every model on every task with ``mteb.evaluate``; return the scores per unit.

    With ``cache_dir``, a model (with an ``identity``) whose every task was evaluated before is
    restored from ``cache_dir/evaluations`` instead, and evaluated models are stored there.

    Returns
    -------
    units : list of TaskScores
        One per (task, subset, split), with each model's per-pair scores read from MTEB's
        prediction files (failed models listed in ``failures``).
    models : dict
        Display name -> ``{"kind", "source", "mteb_name", "mteb_revision"}``, and
        ``"trust_remote_code": True`` for a model allowed to run code from its repository.
    score_keys : dict
        Unit label -> display name -> the key of the prediction file its scores were read from:
        ``"similarity_scores"`` (the model's own similarity) or ``"cosine_scores"``.
    """
    import mteb

    from sts_extras.integrations.mteb import (
        evaluated_tasks,
        failed_tasks,
        prediction_file,
        quiet_mteb,
        read_prediction,
    )
    from sts_extras.models import MainScoreWarning

    units = [unit for task in tasks for unit in task_units(task)]
    predictions: dict[str, dict[str, np.ndarray]] = {unit.label: {} for unit in units}
    failures: dict[str, dict[str, str]] = {unit.label: {} for unit in units}
    mteb_pearson: dict[str, dict[str, float]] = {unit.label: {} for unit in units}
    score_keys: dict[str, dict[str, str]] = {unit.label: {} for unit in units}
    model_info: dict[str, dict[str, Any]] = {}
    results_cache = mteb.ResultCache(output / "mteb_results")

    encode_kwargs: Any = {"batch_size": batch_size, "show_progress_bar": False}
    task_keys = {task.metadata.name: _task_key(task) for task in tasks} if cache_dir else {}

    for entry in _bar(entries, progress):
        info: dict[str, Any] = {"kind": entry.kind, "source": entry.source}
        if entry.trust_remote_code:
            info["trust_remote_code"] = True
        model_info[entry.name] = info
        folder = output / "predictions" / slug(entry.name)
        store = (
            EvaluationStore(cache_dir / "evaluations", model_key(entry.identity, encode_kwargs))
            if cache_dir is not None and entry.identity is not None
            else None
        )
        stored = store.lookup(task_keys) if store is not None else None
        errors: dict[str, str] = {}
        reported = _restore(stored, folder, results_cache, info) if stored else None
        if reported is None:
            try:
                with quiet_mteb(), warnings.catch_warnings():
                    # ranks use the model's own similarity, never the task's main score
                    warnings.simplefilter("ignore", MainScoreWarning)
                    model = entry.build()
                    meta = model.mteb_model_meta
                    info.update(mteb_name=str(meta.name), mteb_revision=str(meta.revision))
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
                        encode_kwargs=encode_kwargs,
                    )
            except Exception as error:  # noqa: BLE001 -- one model failing must not stop the others
                for unit in units:
                    failures[unit.label][entry.name] = f"{type(error).__name__}: {one_line(error)}"
                continue
            finally:
                model = None  # its memory goes back before the next model is built
            # MTEB keeps a task's error as text
            errors = {
                name: one_line(RuntimeError(message))
                for name, message in failed_tasks(result).items()
            }
            reported = {
                name: _pearsons(task_result, name, units)
                for name, task_result in evaluated_tasks(result).items()
            }
            if store is not None:
                _store(store, task_keys, reported, errors, folder, results_cache, info)
        for unit in units:
            if unit.task_name in errors or unit.task_name not in reported:
                failures[unit.label][entry.name] = errors.get(unit.task_name, "not evaluated")
                continue
            try:
                scores, key = read_prediction(
                    prediction_file(folder, unit.task_name), unit.subset, unit.split
                )
            except (OSError, KeyError, ValueError) as error:
                failures[unit.label][entry.name] = f"no per-pair scores ({one_line(error)})"
                continue
            predictions[unit.label][entry.name] = scores
            score_keys[unit.label][entry.name] = key
            pearson = reported[unit.task_name].get((unit.subset, unit.split))
            if pearson is not None:
                mteb_pearson[unit.label][entry.name] = pearson
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
    return task_scores, model_info, score_keys


def _pearsons(
    task_result: Any, task_name: str, units: Sequence[Unit]
) -> dict[tuple[str, str], float | None]:
    """(subset, split) -> the ``pearson`` MTEB reported, for the units of one task."""
    from sts_extras.integrations.mteb import reported_pearson

    return {
        (unit.subset, unit.split): reported_pearson(task_result, unit.subset, unit.split)
        for unit in units
        if unit.task_name == task_name
    }


def _store(
    store: EvaluationStore,
    task_keys: dict[str, str],
    reported: dict[str, dict[tuple[str, str], float | None]],
    errors: dict[str, str],
    folder: Path,
    results_cache: Any,
    info: dict[str, Any],
) -> None:
    """Keep the files MTEB wrote for each task the model was scored on."""
    from sts_extras.integrations.mteb import (
        MODEL_META_FILE,
        prediction_file,
        result_files,
        run_settings_of,
    )

    name, revision = info["mteb_name"], info["mteb_revision"]
    for task_name in reported:
        if task_name in errors or task_name not in task_keys:
            continue
        result = result_files(results_cache, name, revision, task_name)
        files = [prediction_file(folder, task_name), result, result.parent / MODEL_META_FILE]
        if all(file.is_file() for file in files):
            store.save(
                task_keys[task_name],
                files,
                mteb_name=name,
                mteb_revision=revision,
                run_settings=run_settings_of(result.parent, task_name),
                pearson=reported[task_name],
            )


def _restore(
    stored: dict[str, StoredTask], folder: Path, results_cache: Any, info: dict[str, Any]
) -> dict[str, dict[tuple[str, str], float | None]] | None:
    """Copy stored evaluations back where MTEB writes them; task name -> MTEB's pearsons.

    None if a stored file cannot be read (the model is then evaluated).
    """
    from sts_extras.integrations.mteb import (
        MODEL_META_FILE,
        merge_run_settings,
        prediction_file,
        result_files,
    )

    shutil.rmtree(folder, ignore_errors=True)
    reported = {}
    try:
        folder.mkdir(parents=True)
        for task_name, task in stored.items():
            predictions = prediction_file(folder, task_name)
            shutil.copyfile(task.file(predictions.name), predictions)
            result = result_files(results_cache, task.mteb_name, task.mteb_revision, task_name)
            result.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(task.file(result.name), result)
            shutil.copyfile(task.file(MODEL_META_FILE), result.parent / MODEL_META_FILE)
            merge_run_settings(result.parent, task.run_settings)
            reported[task_name] = task.pearson
    except (OSError, ValueError):  # a damaged store entry: evaluate instead
        return None
    first = next(iter(stored.values()))
    info.update(mteb_name=first.mteb_name, mteb_revision=first.mteb_revision)
    return reported


def _bar(entries: Sequence[ModelEntry], progress: bool) -> Iterable[ModelEntry]:
    """The entries, behind a progress bar naming the model being evaluated when asked."""
    if not progress:
        yield from entries
        return
    from tqdm.auto import tqdm

    bar = tqdm(entries, desc="Evaluating models", unit="model")
    for entry in bar:
        bar.set_postfix_str(entry.name)
        yield entry
