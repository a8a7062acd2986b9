"""Evaluate one model × task cell with ``mteb.evaluate`` and return the files MTEB wrote.

The cell is the unit of work of the leaderboard, wherever it runs (this process, a Dask worker,
one job of a SLURM array): :func:`evaluate_cell` builds the model (once per process, see
:class:`BuiltModels`), runs ``mteb.evaluate`` on one task in a scratch folder and returns MTEB's
files as bytes (the per-pair prediction file, the task result, the model metadata), with the
``pearson`` MTEB reported and the model's description. The caller writes them into the output
(:mod:`~sts_extras.leaderboard.run.cells`); the statistics are later computed on exactly the
per-pair scores of those files. A model or task that fails is returned as the cell's error, and the
other cells go on.

Caching. MTEB's result cache skips a model entirely when a result exists, but it keeps no per-pair
scores, so the leaderboard asks MTEB to evaluate (``overwrite_strategy="always"``) and caches the
expensive parts underneath: sentence-transformer encodings (MTEB's embedding cache, keyed by a
fingerprint of the model files) and distilled static vectors
(:meth:`sts_extras.vectors.WordVectors.from_sentence_transformer`). A cell evaluated before with
the same model files, data and versions is not evaluated again: the files MTEB wrote then are
returned (:mod:`~sts_extras.leaderboard.run.evaluation_store`), so a re-run neither loads the model
nor imports sentence-transformers. All of it lives under ``$STS_EXTRAS_CACHE`` (default
``~/.cache/sts_extras``). Encodings and stored evaluations are checked against their manifests
before they are read (:mod:`sts_extras.integrity`): one that fails is discarded with a
:class:`~sts_extras.integrity.CacheDiscardedWarning` and rebuilt, so a damaged cache costs time,
never a different number.

Scores. Every model is scored by its own similarity: the ``similarity_scores`` of MTEB's
prediction files (for DynaMax, DynaMax itself), on every STS task, whatever the task's main score
(most MTEB STS tasks name ``cosine_spearman``). Only where a file has none is ``cosine_scores``
read; which key each model × unit used is reported with the scores.
"""

from __future__ import annotations

import math
import shutil
import tempfile
import warnings
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from sts_extras.io.model_sources import one_line
from sts_extras.io.paths import file_name
from sts_extras.leaderboard.run.evaluation_store import EvaluationStore, StoredTask, task_key
from sts_extras.leaderboard.run.evaluation_store import model_key as store_model_key
from sts_extras.leaderboard.run.resolve import ModelEntry

if TYPE_CHECKING:  # pragma: no cover -- MTEB is imported inside the functions, never here
    from datasets import Dataset
    from mteb import ResultCache, TaskResult
    from mteb.abstasks.sts import AbsTaskSTS
    from mteb.models import EncoderProtocol

__all__ = [
    "ENCODE_KWARGS",
    "BuiltModels",
    "CellOutcome",
    "Unit",
    "loaded_task_key",
    "evaluate_cell",
    "model_description",
    "slug",
    "task_units",
]


def slug(name: str) -> str:
    """``name`` as a file or folder name (:func:`sts_extras.io.paths.file_name`): runs of other
    characters than ``A-Za-z0-9._+-`` become ``_``, no leading dot, never empty."""
    return file_name(name)


@dataclass(frozen=True)
class Unit:
    """One scored unit: a task, one of its subsets and one eval split, with its gold scores."""

    label: str
    task_name: str
    subset: str
    split: str
    gold: np.ndarray
    score_range: tuple[float, float]


def task_units(task: AbsTaskSTS) -> list[Unit]:
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


def _subsets_and_splits(task: AbsTaskSTS) -> list[tuple[str, str]]:
    return [(subset, split) for subset in task.hf_subsets for split in task.eval_splits]


def _split_data(task: AbsTaskSTS, subset: str, split: str) -> Dataset:
    dataset = cast("dict[str, Any]", task.dataset)  # loaded: a DatasetDict per subset, or one
    if subset == "default" and subset not in dataset:  # as AbsTask.evaluate does
        return dataset[split]
    return dataset[subset][split]


def loaded_task_key(task: AbsTaskSTS) -> str:
    """The store key of a loaded task: its name and every column of every evaluated split."""
    return task_key(
        task.metadata.name,
        (
            (subset, split, _split_data(task, subset, split).to_dict())
            for subset, split in _subsets_and_splits(task)
        ),
    )


class BuiltModels:
    """The model most recently built in this process, kept for the next cell of the same model.

    Cells are run model by model, so one slot is enough; it keeps a single model in memory. A
    model that failed to build is not built again for its other cells: the same error is raised.
    """

    def __init__(self) -> None:
        self._key: Hashable = None
        self._model: EncoderProtocol | None = None
        self._error: BaseException | None = None

    def get(self, key: Hashable, entry: ModelEntry) -> EncoderProtocol:
        """The built model of ``entry`` (``key`` names it within the run); built when new."""
        if self._key != key:
            self.clear()
            self._key = key
            try:
                self._model = entry.build()
            except Exception as error:
                self._error = error
                raise
        if self._error is not None:
            raise self._error
        return cast("EncoderProtocol", self._model)  # built: no error, so not None

    def clear(self) -> None:
        """Let the model's memory go back."""
        self._key = self._model = self._error = None


@dataclass(frozen=True)
class CellOutcome:
    """What one model × task cell produced.

    Attributes
    ----------
    model, task : str
        The model's display name and the task's name.
    info : dict
        The model's description for the reports: ``kind``, ``source``, and when it was built or
        restored ``mteb_name`` and ``mteb_revision`` (``trust_remote_code`` when allowed).
    files : dict of str to bytes
        Path relative to the output -> content: the prediction file
        (``predictions/<model>/<task>_predictions.json``), MTEB's task result and model metadata
        (``mteb_results/...``). Empty when the cell failed.
    run_settings : list of dict
        The cell's entries of MTEB's run-settings file (merged into the output's).
    pearson : dict
        ``"subset/split"`` -> the unrounded ``pearson`` MTEB reported (None if it had none).
    error : str or None
        Why the cell has no scores.
    """

    model: str
    task: str
    info: dict[str, Any]  # JSON values, read by key (info["mteb_name"] is a str)
    files: dict[str, bytes] = field(default_factory=dict)
    run_settings: list[dict[str, Any]] = field(default_factory=list)
    pearson: dict[str, float | None] = field(default_factory=dict)
    error: str | None = None


def model_description(entry: ModelEntry) -> dict[str, Any]:  # JSON values
    """The description of a model in the reports before it is built."""
    info: dict[str, Any] = {"kind": entry.kind, "source": entry.source}
    if entry.trust_remote_code:
        info["trust_remote_code"] = True
    if entry.vectors is not None:  # a named vector source: what it is, its licence
        info["vectors"] = dict(entry.vectors)
    return info


#: Encode options of every evaluation (part of the store's model key).
ENCODE_KWARGS: dict[str, Any] = {"batch_size": 32, "show_progress_bar": False}


def evaluate_cell(
    entry: ModelEntry,
    task: AbsTaskSTS,
    *,
    task_key: str,
    cache_dir: Path | None,
    models: BuiltModels,
    model_key: Hashable,
) -> CellOutcome:
    """Evaluate ``entry`` on one loaded task; never raises for a model or task failure.

    Parameters
    ----------
    entry : ModelEntry
        The model.
    task : mteb AbsTaskSTS
        The task, its data loaded.
    task_key : str
        The task's :func:`loaded_task_key`.
    cache_dir : pathlib.Path, optional
        The cache: with it, a cell evaluated before (same model key and task data) is returned
        from ``cache_dir/evaluations`` and a new evaluation is stored there.
    models : BuiltModels
        Where the built model is kept for the next cell of the same model.
    model_key : hashable
        Names ``entry`` within the run (the key of ``models``).
    """
    import mteb

    from sts_extras.integrations.mteb.internals import evaluated_tasks, failed_tasks, quiet_mteb
    from sts_extras.integrations.mteb.models import MainScoreWarning

    info = model_description(entry)
    encode_kwargs: Any = dict(ENCODE_KWARGS)
    task_name = task.metadata.name
    store = (
        EvaluationStore(
            cache_dir / "evaluations", store_model_key(entry.identity, entry.name, ENCODE_KWARGS)
        )
        if cache_dir is not None and entry.identity is not None
        else None
    )
    scratch = Path(tempfile.mkdtemp(prefix="sts-extras-cell-"))
    try:
        folder = scratch / "predictions" / slug(entry.name)
        results_cache = mteb.ResultCache(scratch / "mteb_results")
        stored = store.lookup({task_name: task_key}) if store is not None else None
        reported = (
            _restore(stored[task_name], task_name, folder, results_cache, info) if stored else None
        )
        if reported is None:
            try:
                with quiet_mteb(), warnings.catch_warnings():
                    # ranks use the model's own similarity, never the task's main score
                    warnings.simplefilter("ignore", MainScoreWarning)
                    model = models.get(model_key, entry)
                    meta = model.mteb_model_meta
                    info.update(mteb_name=str(meta.name), mteb_revision=str(meta.revision))
                    result = mteb.evaluate(
                        model,
                        [task],
                        cache=results_cache,
                        overwrite_strategy="always",
                        prediction_folder=folder,
                        raise_error=False,
                        co2_tracker=False,
                        show_progress_bar=False,
                        encode_kwargs=encode_kwargs,
                    )
            except Exception as error:  # noqa: BLE001 -- one model failing must not stop the others
                return CellOutcome(
                    entry.name, task_name, info, error=f"{type(error).__name__}: {one_line(error)}"
                )
            failed = failed_tasks(result)
            if task_name in failed:  # MTEB keeps a task's error as text
                return CellOutcome(
                    entry.name, task_name, info, error=one_line(RuntimeError(failed[task_name]))
                )
            evaluated = evaluated_tasks(result)
            if task_name not in evaluated:
                return CellOutcome(entry.name, task_name, info, error="not evaluated")
            reported = _pearsons(evaluated[task_name], task)
            undefined = _undefined_pearson(entry.name, task_name, reported)
            if undefined is not None:  # never a NaN in a record, nor in the store
                return CellOutcome(entry.name, task_name, info, error=undefined)
            if store is not None:
                _store(store, task_name, task_key, reported, folder, results_cache, info)
        return _outcome(entry.name, task_name, info, reported, scratch, folder, results_cache)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _outcome(
    model: str,
    task_name: str,
    info: dict[str, Any],
    reported: dict[tuple[str, str], float | None],
    scratch: Path,
    folder: Path,
    results_cache: ResultCache,
) -> CellOutcome:
    """The files MTEB wrote for one cell, read from the scratch folder."""
    from sts_extras.integrations.mteb.internals import (
        MODEL_META_FILE,
        prediction_file,
        result_files,
        run_settings_of,
    )

    predictions = prediction_file(folder, task_name)
    if not predictions.is_file():
        return CellOutcome(model, task_name, info, error="no per-pair scores (no prediction file)")
    result = result_files(results_cache, info["mteb_name"], info["mteb_revision"], task_name)
    files = {
        path.relative_to(scratch).as_posix(): path.read_bytes()
        for path in (predictions, result, result.parent / MODEL_META_FILE)
        if path.is_file()
    }
    return CellOutcome(
        model,
        task_name,
        info,
        files=files,
        run_settings=run_settings_of(result.parent, task_name),
        pearson={f"{subset}/{split}": value for (subset, split), value in reported.items()},
    )


def _undefined_pearson(
    model: str, task_name: str, reported: Mapping[tuple[str, str], float | None]
) -> str | None:
    """The error of a cell whose MTEB Pearson r is not a number, naming model, task and split.

    MTEB reports NaN when a model's scores are constant or not numbers: all-zero (or entirely
    unknown) word vectors give a cosine of 0/0, a model returning one score for every pair has no
    correlation. Such a cell is a failure of that model on that task, recorded as an error; its
    NaN is never written into a record.
    """
    for (subset, split), value in reported.items():
        if value is not None and not math.isfinite(value):
            return (
                f"model {model!r} on task {task_name!r} ({subset}/{split}): MTEB's Pearson r is "
                f"{value} -- the model's scores are constant or not numbers (all-zero or unknown "
                "word vectors give a cosine of 0/0), so no correlation is defined."
            )
    return None


def _pearsons(task_result: TaskResult, task: AbsTaskSTS) -> dict[tuple[str, str], float | None]:
    """(subset, split) -> the ``pearson`` MTEB reported, for each evaluated split of ``task``."""
    from sts_extras.integrations.mteb.internals import reported_pearson

    return {
        (subset, split): reported_pearson(task_result, subset, split)
        for subset, split in _subsets_and_splits(task)
    }


def _store(
    store: EvaluationStore,
    task_name: str,
    task_key: str,
    reported: dict[tuple[str, str], float | None],
    folder: Path,
    results_cache: ResultCache,
    info: dict[str, Any],
) -> None:
    """Keep the files MTEB wrote for one cell."""
    from sts_extras.integrations.mteb.internals import (
        MODEL_META_FILE,
        prediction_file,
        result_files,
        run_settings_of,
    )

    name, revision = info["mteb_name"], info["mteb_revision"]
    result = result_files(results_cache, name, revision, task_name)
    files = [prediction_file(folder, task_name), result, result.parent / MODEL_META_FILE]
    if all(file.is_file() for file in files):
        store.save(
            task_key,
            files,
            mteb_name=name,
            mteb_revision=revision,
            run_settings=run_settings_of(result.parent, task_name),
            pearson=reported,
        )


def _restore(
    stored: StoredTask,
    task_name: str,
    folder: Path,
    results_cache: ResultCache,
    info: dict[str, Any],
) -> dict[tuple[str, str], float | None] | None:
    """Copy a stored evaluation back where MTEB writes it; MTEB's pearsons of its units.

    None if a stored file cannot be read (the cell is then evaluated).
    """
    from sts_extras.integrations.mteb.internals import (
        MODEL_META_FILE,
        merge_run_settings,
        prediction_file,
        result_files,
    )

    try:
        folder.mkdir(parents=True)
        predictions = prediction_file(folder, task_name)
        shutil.copyfile(stored.file(predictions.name), predictions)
        result = result_files(results_cache, stored.mteb_name, stored.mteb_revision, task_name)
        result.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(stored.file(result.name), result)
        shutil.copyfile(stored.file(MODEL_META_FILE), result.parent / MODEL_META_FILE)
        merge_run_settings(result.parent, stored.run_settings)
    except (OSError, ValueError):  # a damaged store entry: evaluate instead
        shutil.rmtree(folder, ignore_errors=True)
        return None
    info.update(mteb_name=stored.mteb_name, mteb_revision=stored.mteb_revision)
    return stored.pearson
