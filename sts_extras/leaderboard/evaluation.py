"""Run models × tasks through ``mteb.evaluate`` and collect the per-pair scores MTEB used.

Each model is built and evaluated on all tasks with ``mteb.evaluate`` (MTEB's normal result files
go to ``<output>/mteb_results``, its per-pair predictions to ``<output>/predictions/<model>/``);
then the per-pair scores are read back from MTEB's prediction files, so every statistic is
computed on exactly the scores MTEB's own ``pearson`` was computed on. A model that fails is
recorded as a failure on the tasks it could not run, and the others go on.

Caching. MTEB's result cache skips a model entirely when a result exists, but it keeps no per-pair
scores, so the leaderboard always asks MTEB to evaluate (``overwrite_strategy="always"``) and
caches the expensive parts underneath: sentence-transformer encodings (MTEB's embedding cache,
keyed by a fingerprint of the model files) and distilled static vectors
(:meth:`sts_extras.vectors.WordVectors.from_sentence_transformer`). Both live under
``$STS_EXTRAS_CACHE`` (default ``~/.cache/sts_extras``).
"""

from __future__ import annotations

import gc
import re
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sts_extras.integrations.hub import one_line
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

    from sts_extras.integrations.mteb import (
        evaluated_tasks,
        failed_tasks,
        prediction_file,
        quiet_mteb,
        read_prediction_scores,
        reported_pearson,
    )

    units = [unit for task in tasks for unit in task_units(task)]
    predictions: dict[str, dict[str, np.ndarray]] = {unit.label: {} for unit in units}
    failures: dict[str, dict[str, str]] = {unit.label: {} for unit in units}
    mteb_pearson: dict[str, dict[str, float]] = {unit.label: {} for unit in units}
    model_info: dict[str, dict[str, str]] = {}
    results_cache = mteb.ResultCache(output / "mteb_results")

    for entry in _bar(entries, progress):
        info = {"kind": entry.kind, "source": entry.source}
        model_info[entry.name] = info
        folder = output / "predictions" / slug(entry.name)
        try:
            with quiet_mteb():
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
                    encode_kwargs={"batch_size": batch_size, "show_progress_bar": False},
                )
        except Exception as error:  # noqa: BLE001 -- one model failing must not stop the others
            for unit in units:
                failures[unit.label][entry.name] = f"{type(error).__name__}: {one_line(error)}"
            continue
        finally:
            model = None
            gc.collect()
        # MTEB keeps a task's error as text
        errors = {
            name: one_line(RuntimeError(message)) for name, message in failed_tasks(result).items()
        }
        reported = evaluated_tasks(result)
        for unit in units:
            if unit.task_name in errors or unit.task_name not in reported:
                failures[unit.label][entry.name] = errors.get(unit.task_name, "not evaluated")
                continue
            try:
                scores = read_prediction_scores(
                    prediction_file(folder, unit.task_name), unit.subset, unit.split
                )
            except (OSError, KeyError, ValueError) as error:
                failures[unit.label][entry.name] = f"no per-pair scores ({one_line(error)})"
                continue
            predictions[unit.label][entry.name] = scores
            pearson = reported_pearson(reported[unit.task_name], unit.subset, unit.split)
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
    return task_scores, model_info


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
