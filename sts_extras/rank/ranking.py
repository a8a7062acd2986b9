"""The result of a ranking: :class:`Ranking`, its :class:`RankedModel` rows and :class:`LeftOut`
models (made by :func:`sts_extras.rank.pipeline.rank_models`, written by
:mod:`sts_extras.rank.reports` and :mod:`sts_extras.rank.figures`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sts_extras.rank.results import Refusal, SetAside

__all__ = ["ITEM_LEVEL", "TASK_LEVEL", "LeftOut", "RankedModel", "Ranking"]

#: Treatment of a model with per-pair predictions (a leaderboard output): per-pair bootstrap.
ITEM_LEVEL = "item-level"
#: Treatment of a published model: its uncertainty within a task from the task's n alone.
TASK_LEVEL = "task-level"


@dataclass(frozen=True)
class RankedModel:
    """One ranked model.

    Attributes
    ----------
    model, revision : str
        The model and its revision (with revisions joined: the one that gave the most tasks).
    revisions : tuple of str
        Every revision a score came from (one, unless revisions are joined).
    source : str
        ``"published"`` (an MTEB results folder) or ``"leaderboard"`` (a leaderboard output).
    treatment : str
        :data:`ITEM_LEVEL` (per-pair bootstrap within each task) or :data:`TASK_LEVEL` (Fisher-z
        from the task's n).
    scores : mapping of str to float
        Task -> MTEB's main score (``cosine_spearman``) used.
    task_intervals : mapping of str to (float, float)
        Task -> the score's 95% interval within the task (by the model's treatment).
    mean_score : float
        Mean over its tasks.
    rank : int
        1 + the number of ranked models with a higher mean score.
    rank_low, rank_high : int
        The marginal rank confidence set (MRSW 2024 §3.1).
    simultaneous_rank_low, simultaneous_rank_high : int
        The simultaneous rank confidence set (MRSW 2024 §3.2).
    in_best_set : bool
        In the confidence set of the best model (MRSW 2024 §3.3).
    friedman_mean_rank : float or None
        Mean rank over the tasks among the models with every task (None for a model without).
    folder : str
        The revision folder (published) or output folder (leaderboard) the scores come from.
    rules : tuple of str
        Names of the rules that applied to the model (see :attr:`Ranking.rules`).
    """

    model: str
    revision: str
    revisions: tuple[str, ...]
    source: str
    treatment: str
    scores: Mapping[str, float]
    task_intervals: Mapping[str, tuple[float, float]]
    mean_score: float
    rank: int
    rank_low: int
    rank_high: int
    simultaneous_rank_low: int
    simultaneous_rank_high: int
    in_best_set: bool
    friedman_mean_rank: float | None
    folder: str
    rules: tuple[str, ...]


@dataclass(frozen=True)
class LeftOut:
    """A model not ranked, and why."""

    model: str
    revision: str
    reason: str


@dataclass(frozen=True)
class Ranking:
    """The result of :func:`rank_models` (also written to ``ranking.json``).

    Attributes
    ----------
    models : tuple of RankedModel
        Best first (by rank, then name).
    left_out : tuple of LeftOut
    refused : tuple of Refusal
        Every file not used, with the reason.
    set_aside : tuple of SetAside
        Revision folders of a model that the revision rule did not choose.
    tasks : tuple of str
    settings : mapping
        The settings of the statistics.
    rules : mapping of str to str
        Every rule (name -> sentence); each model names the ones that applied to it.
    separable : mapping
        The adjacent pairs of the ranking (models with every task) and how many each test
        separates: ``n_pairs``, ``nemenyi``, ``bayesian``, ``either`` (None with fewer than two).
    record : mapping
        ``ranking.json`` as written.
    output : pathlib.Path
    """

    models: tuple[RankedModel, ...]
    left_out: tuple[LeftOut, ...]
    refused: tuple[Refusal, ...]
    set_aside: tuple[SetAside, ...]
    tasks: tuple[str, ...]
    settings: Mapping[str, Any]
    rules: Mapping[str, str]
    separable: Mapping[str, Any] | None
    record: Mapping[str, Any] = field(repr=False)
    output: Path = field(default=Path("."))

    def model(self, name: str) -> RankedModel:
        """The ranked model called ``name``; ``KeyError`` if it is not ranked."""
        for entry in self.models:
            if entry.model == name:
                return entry
        raise KeyError(name)
