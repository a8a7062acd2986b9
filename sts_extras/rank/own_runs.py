"""A ``sts-extras leaderboard`` output as ranking input: MTEB's main score, per-pair predictions.

A leaderboard output is recognised by its plan, ``cells/plan.json``, and read through the
leaderboard's own validated records (:func:`sts_extras.leaderboard.run.cells.read_cells`: every
record parsed through its schema, every file confined to the folder and checked against the
folder's manifest). Its models become :class:`~sts_extras.rank.results.ModelScores` with
``source="leaderboard"``, beside the published ones, and keep what the published ones lack: the
gold scores and each model's per-pair scores, so their uncertainty within a task is measured on
the pairs (the item-level bootstrap) rather than approximated from the task's size.

A task of the run is one of MTEB's tasks when it carries the task's name (e.g. a run with
``--task STSBenchmark=test.csv``, which takes MTEB's metadata of STSBenchmark with the file's
data) and has MTEB's number of test pairs in MTEB's English subset and split
(:data:`~sts_extras.rank.results.TASK_INFO`); other tasks of the run are not selected, and a
task under MTEB's name with another number of pairs is refused (it is not the same data). The
score is computed exactly as MTEB computes its main score, ``cosine_spearman``: Spearman's rho
between the gold scores and the cosine similarities of the pair's embeddings, read from MTEB's
own prediction file of the cell (``cosine_scores``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import numpy as np
from numpy.typing import NDArray

from sts_extras.errors import UserInputError
from sts_extras.integrations.mteb.internals import (
    COSINE_SCORES_KEY,
    PredictionScores,
    read_mteb_json,
)
from sts_extras.io.records import RecordError, parse_record
from sts_extras.leaderboard.run.cells import PLAN_FILE, CellRecord, read_cells
from sts_extras.rank.results import STS_TASKS, TASK_INFO, ModelScores, Refusal, TaskScore

__all__ = [
    "OWN_RUN_RULES",
    "OwnRuns",
    "is_leaderboard_output",
    "read_leaderboard_output",
]

#: The rules that apply to the models of a leaderboard output (name -> the rule, one sentence).
OWN_RUN_RULES: Mapping[str, str] = MappingProxyType(
    {
        "own-run-task": (
            "A task of a leaderboard run is MTEB's task of the same name (e.g. --task "
            "STSBenchmark=test.csv) when its English subset and test split hold MTEB's number of "
            "pairs; a task under MTEB's name with another number of pairs is refused, and the "
            "run's other tasks are not selected."
        ),
        "own-run-score": (
            "A run's score on a task is computed as MTEB computes cosine_spearman: Spearman's "
            "rho between the gold scores and the cosine similarities (cosine_scores of MTEB's "
            "prediction file of the cell), to full precision."
        ),
        "own-run-revision": (
            "A run's model is its display name in the run, with the revision MTEB recorded for "
            "it (e.g. local-<content hash> for a local model)."
        ),
    }
)


@dataclass(frozen=True, eq=False)  # holds arrays: compared by identity
class OwnRuns:
    """The models of one leaderboard output, with their per-pair scores.

    Attributes
    ----------
    folder : str
        The output folder.
    models : tuple of ModelScores
        One per model of the run (``source="leaderboard"``), in run order; ``missing`` lists
        the selected tasks it has no usable score on.
    gold : mapping of str to numpy.ndarray
        Task -> gold scores of its English test pairs, in MTEB's order.
    predictions : mapping of str to mapping of str to numpy.ndarray
        Model -> task -> the cosine similarity of each pair (the scores of its main score).
    refused : tuple of Refusal
        Tasks and cells that could not be used, naming the file and the reason.
    """

    folder: str
    models: tuple[ModelScores, ...]
    gold: Mapping[str, NDArray[np.float64]]
    predictions: Mapping[str, Mapping[str, NDArray[np.float64]]]
    refused: tuple[Refusal, ...] = field(default=())


def is_leaderboard_output(folder: str | os.PathLike[str]) -> bool:
    """True when ``folder`` holds a leaderboard plan (``cells/plan.json``), the marker of a
    ``sts-extras leaderboard`` output; its records are validated when it is read."""
    return (Path(folder) / PLAN_FILE).is_file()


def _cosine_scores(cell: CellRecord, subset: str, split: str) -> NDArray[np.float64]:
    """The cosine similarities of one (subset, split) of a cell's prediction file, parsed through
    MTEB's validated prediction record (:class:`PredictionScores`: finite JSON numbers)."""
    path = cell.prediction_file()
    if path is None:
        raise KeyError("no prediction file")
    stored = read_mteb_json(path, "a prediction file")
    entry = stored.get(subset, {}).get(split) if isinstance(stored, dict) else None
    if not isinstance(entry, dict):
        raise KeyError(f"{subset}/{split}")
    scores = parse_record(PredictionScores, entry, f"{path} ({subset}, {split})")
    values = getattr(scores, COSINE_SCORES_KEY)  # the record's field is named after the key
    if values is None:
        raise KeyError(COSINE_SCORES_KEY)
    return np.asarray(values, dtype=np.float64)


def _spearman(gold: NDArray[np.float64], scores: NDArray[np.float64]) -> float:
    """scipy's Spearman rho, as MTEB's ``_calculate_scores`` computes ``cosine_spearman`` (a
    linear map of the gold scores, MTEB's normalisation to [0, 1], leaves the ranks as they are)."""
    from scipy.stats import spearmanr

    return float(spearmanr(gold, scores)[0])


def read_leaderboard_output(
    folder: str | os.PathLike[str], *, tasks: Sequence[str] = STS_TASKS
) -> OwnRuns:
    """Read a ``sts-extras leaderboard`` output as ranking input.

    Parameters
    ----------
    folder : path
        The ``--output`` folder of a leaderboard run (or of ``leaderboard collect``).
    tasks : sequence of str
        The selected MTEB tasks (default: the ten English STS tasks).

    Returns
    -------
    OwnRuns

    Raises
    ------
    UserInputError
        The folder is not a leaderboard output, or its records cannot be read or trusted
        (:class:`~sts_extras.leaderboard.run.cells.UnreadableCellsError`, naming the file).
    """
    root = Path(folder).expanduser()
    if not is_leaderboard_output(root):
        raise UserInputError(f"{str(root)!r} is not a leaderboard output (it has no {PLAN_FILE}).")
    found = read_cells(root)
    plan = found.plan
    gold: dict[str, NDArray[np.float64]] = {}
    units = {}
    refused: list[Refusal] = []
    for task in plan.tasks:
        if task not in tasks:
            continue
        info = TASK_INFO[task]
        record = found.tasks[task]
        unit = next(
            (u for u in record.units if (u.subset, u.split) == (info.subset, info.split)), None
        )
        where = str(root / "cells" / "tasks")
        if unit is None:
            refused.append(
                Refusal(
                    file=where,
                    reason=f"the run's task {task} has no subset {info.subset!r} of split "
                    f"{info.split!r}, MTEB's English test data of {task}",
                    kind="not MTEB's task",
                )
            )
            continue
        if unit.gold.size != info.n_pairs:
            refused.append(
                Refusal(
                    file=where,
                    reason=f"the run's task {task} has {unit.gold.size} pairs; MTEB's {task} has "
                    f"{info.n_pairs}, so it is not the same data (name the task after your file "
                    "instead)",
                    kind="not MTEB's task",
                )
            )
            continue
        gold[task] = unit.gold
        units[task] = unit
    models: list[ModelScores] = []
    predictions: dict[str, dict[str, NDArray[np.float64]]] = {}
    for model in plan.models:
        scores: dict[str, TaskScore] = {}
        cosine: dict[str, NDArray[np.float64]] = {}
        revision = None
        for task, unit in units.items():
            cell = found.cells.get((model, task))
            if cell is None or cell.error is not None:
                continue
            revision = revision or cell.info.get("mteb_revision")
            path = cell.prediction_file()
            try:
                values = _cosine_scores(cell, unit.subset, unit.split)
            except (OSError, KeyError, ValueError, RecordError) as error:
                refused.append(
                    Refusal(
                        file=str(path),
                        reason=f"{model} on {task}: no cosine similarities per pair "
                        f"({type(error).__name__}: {error})",
                        kind="no per-pair scores",
                    )
                )
                continue
            if values.shape != unit.gold.shape:
                refused.append(
                    Refusal(
                        file=str(path),
                        reason=f"{model} on {task}: {values.size} scores for {unit.gold.size} "
                        "pairs",
                        kind="no per-pair scores",
                    )
                )
                continue
            cosine[task] = values
            scores[task] = TaskScore(
                task=task,
                score=_spearman(unit.gold, values),
                metric=TASK_INFO[task].main_score,
                split=unit.split,
                subset=unit.subset,
                n_pairs=int(unit.gold.size),
                file=str(path),
                mteb_version=None,
                field=COSINE_SCORES_KEY,
            )
        predictions[model] = cosine
        models.append(
            ModelScores(
                model=model,
                revision=str(revision or "unknown"),
                scores=MappingProxyType(scores),
                rules=tuple(OWN_RUN_RULES),
                source="leaderboard",
                folder=str(root),
                missing=tuple(task for task in tasks if task not in scores),
            )
        )
    return OwnRuns(
        folder=str(root),
        models=tuple(models),
        gold=MappingProxyType(gold),
        predictions=MappingProxyType(
            {model: MappingProxyType(values) for model, values in predictions.items()}
        ),
        refused=tuple(refused),
    )
