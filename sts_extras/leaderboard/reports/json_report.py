"""The JSON report of the leaderboard: everything of the run, so every number can be recomputed.

The settings, the tasks with their gold scores and, per task, the procedure of its pair decisions
(``"method"``, ``"auto"`` resolved; ``"adjust"``; ``"confidence_level"``, the family's level) with
what the calibration suite measured for it at the task's n (``"calibration"``:
``method, grid_n, measured_size, measured_coverage, measured_real_coverage, calibrated,
outside_band`` (each cell outside the band: ``cell, real, size, coverage, direction``),
``samples``, or null where it was not measured) and every pair of models (``"pairwise"``, each with
its one decision: ``significant`` exactly when ``ci_low``/``ci_high``, at the pair's own
``confidence_level``, excludes 0); per result row the statistics with the rank interval
(``"rank_low"``/``"rank_high"``), the per-pair scores and the key of MTEB's prediction file they
were read from (``"score_key"``: ``"similarity_scores"``, the model's own similarity, or
``"cosine_scores"``); the comparisons with the baseline and the mean rank. Full precision;
non-finite numbers are written as ``null``. Written through a temporary file and a rename.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sts_extras.integrity import atomic_write_text
from sts_extras.leaderboard.reports.tables import ScoreKeys, result_record, tied_gold_values
from sts_extras.leaderboard.scoring import ComparisonStats, LeaderboardResult, TaskScores

if TYPE_CHECKING:
    from sts_extras.stats.model_comparison import ModelComparisonResult, PairComparison

__all__ = [
    "comparison_record",
    "pair_record",
    "pairwise_records",
    "to_json_dict",
    "write_json",
]


def comparison_record(item: ComparisonStats) -> dict[str, Any]:
    """One comparison with the baseline as a flat record for ``leaderboard.json``: its fields in
    order, its interval as ``ci_low``/``ci_high`` (the keys the leaderboard's readers rely
    on)."""
    low, high = item.confidence_interval or (None, None)
    return {
        "task": item.task,
        "model": item.model,
        "baseline": item.baseline,
        "delta": item.delta,
        "ci_low": low,
        "ci_high": high,
        "significant": item.significant,
        "statistic": item.statistic,
        "pvalue": item.pvalue,
        "pvalue_adjusted": item.pvalue_adjusted,
        "confidence_level": item.confidence_level,
        "method": item.method,
        "r12": item.r12,
        "error": item.error,
    }


def pair_record(pair: PairComparison, method: str | None = None) -> dict[str, Any]:
    """One pair of :attr:`LeaderboardResult.pairwise` as a flat record for ``leaderboard.json``.

    The pair's fields in order, its interval as
    ``ci_low``/``ci_high`` (what the leaderboard's readers rely on); then the interval's per-pair
    ``confidence_level`` (the level that matches the adjustment, so that ``significant`` is
    exactly "the interval excludes 0") and ``method``, the procedure of the comparison (the
    ``method`` of its :class:`~sts_extras.stats.model_comparison.ModelComparisonResult`).
    """
    low, high = pair.confidence_interval
    return {
        "model1": pair.model1,
        "model2": pair.model2,
        "r1": pair.r1,
        "r2": pair.r2,
        "r12": pair.r12,
        "delta": pair.delta,
        "ci_low": low,
        "ci_high": high,
        "significant": pair.significant,
        "statistic": pair.statistic,
        "pvalue": pair.pvalue,
        "pvalue_adjusted": pair.pvalue_adjusted,
        "error": pair.error,
        "confidence_level": pair.confidence_level,
        "method": method,
    }


def _jsonable(value: Any) -> Any:  # any object, as its JSON value (non-finite floats: None)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    return value


def _with_score_key(record: Mapping[str, object], key: str | None) -> dict[str, object]:
    """``record`` with ``"score_key"`` after ``"mteb_pearson"``."""
    out: dict[str, object] = {}
    for name, value in record.items():
        out[name] = value
        if name == "mteb_pearson":
            out["score_key"] = key
    return out


def to_json_dict(
    result: LeaderboardResult,
    *,
    models: Mapping[str, Mapping[str, object]] | None = None,
    extra: Mapping[str, object] | None = None,
    score_keys: ScoreKeys | None = None,
    run_settings: Mapping[str, object] | None = None,
) -> dict[str, Any]:  # a JSON object
    """Everything of the run as plain Python: settings, tasks with gold scores, per-model
    statistics with the per-pair scores (and ``"score_key"``, from ``score_keys``; None when
    unknown or failed), comparisons.

    ``"settings"`` starts with ``run_settings``, the record of the run's
    :class:`~sts_extras.leaderboard.settings.LeaderboardSettings` (the settings that change the
    numbers, as the cells record them), followed by the rest of ``result.settings`` (the
    baseline, the confidence level, the names of the bootstrap and the tests ...).

    Raises
    ------
    ValueError
        ``run_settings`` and ``result.settings`` hold different values of one setting.
    """
    keys = score_keys or {}
    return _jsonable(
        {
            **(extra or {}),
            "settings": _settings(result, run_settings or {}),
            "models": [{"name": name, **(models or {}).get(name, {})} for name in result.models],
            "tasks": [
                {
                    "name": task.name,
                    "n": int(task.gold.size),
                    "score_range": list(task.score_range),
                    "gold": task.gold.tolist(),
                    **_decision_record(result, task),
                    **_pairwise_record(result, task.name),
                }
                for task in result.tasks
            ],
            "results": [
                _with_score_key(result_record(row), keys.get(row.task, {}).get(row.model))
                for row in result.stats
            ],
            "comparisons": [comparison_record(item) for item in result.comparisons],
            "mean_rank": _mean_rank_record(result),
        }
    )


def _settings(result: LeaderboardResult, run_settings: Mapping[str, object]) -> dict[str, object]:
    """The run's settings record, then the result's other settings (the same value where both
    name one)."""
    for name, value in result.settings.items():
        if name in run_settings and _jsonable(value) != _jsonable(run_settings[name]):
            raise ValueError(
                f"the run's settings give {name} = {run_settings[name]!r} but the result was "
                f"computed with {value!r}"
            )
    rest = {name: value for name, value in result.settings.items() if name not in run_settings}
    return {**run_settings, **rest}


def pairwise_records(
    comparison: ModelComparisonResult, alpha: float | None = None
) -> list[dict[str, Any]]:
    """One record per pair of models: the pair's fields with its interval's level and the
    method (:func:`pair_record`), P(model1 has the
    higher r) and ``adjusted_significant``: the pair's decision, the same as ``significant``
    (the key of before 0.3, kept); with ``alpha``, whether the adjusted p-value is below it
    instead."""
    index = {name: k for k, name in enumerate(comparison.models)}
    return [
        {
            **pair_record(pair, comparison.method),
            "win_probability": float(
                comparison.win_probability[index[pair.model1], index[pair.model2]]
            ),
            "adjusted_significant": bool(
                pair.significant if alpha is None else pair.pvalue_adjusted < alpha
            ),
        }
        for pair in comparison.pairs
    ]


def _decision_record(result: LeaderboardResult, task: TaskScores) -> dict[str, object]:
    """The procedure of a task's pair decisions and its measured level at the task's n."""
    comparison = result.pairwise.get(task.name)
    distinct = tied_gold_values(task.gold)
    if comparison is None:
        return {
            "method": None,
            "adjust": None,
            "confidence_level": None,
            "calibration": None,
            "heavy_ties": distinct is not None,
        }
    measured = comparison.calibration
    return {
        "method": comparison.method,
        "adjust": comparison.adjust,
        "confidence_level": comparison.confidence_level,
        "calibration": None if measured is None else measured.as_dict(),
        "heavy_ties": distinct is not None,
    }


def _pairwise_record(result: LeaderboardResult, task: str) -> dict[str, object]:
    comparison = result.pairwise.get(task)
    if comparison is None:
        return {
            "models_compared": [],
            "pairwise": [],
            "pairwise_error": result.pairwise_errors.get(task),
            "not_separable": [],
            "min_detectable_delta": None,
        }
    return {
        "models_compared": list(comparison.models),
        "pairwise": pairwise_records(comparison),
        "pairwise_error": None,
        "not_separable": [list(group) for group in result.not_separable(task)],
        "min_detectable_delta": {
            "model": comparison.models[int(comparison.r.argmax())],
            "power": result.settings.get("detectable_power"),
            "against": dict(result.detectable.get(task, {})),
        },
    }


def _mean_rank_record(result: LeaderboardResult) -> list[dict[str, object]] | None:
    mean = result.mean_rank
    if mean is None:
        return None
    return [
        {
            "model": name,
            "mean_rank": float(mean.mean_rank[k]),
            "ci_low": float(mean.confidence_interval.low[k]),
            "ci_high": float(mean.confidence_interval.high[k]),
        }
        for k, name in enumerate(mean.models)
    ]


def write_json(result: LeaderboardResult, path: Path, **kwargs: Any) -> Path:  # to_json_dict's
    """Write :func:`to_json_dict` (``kwargs`` go to it) to ``path`` (atomically)."""
    atomic_write_text(
        path, json.dumps(to_json_dict(result, **kwargs), indent=1, ensure_ascii=False)
    )
    return path
