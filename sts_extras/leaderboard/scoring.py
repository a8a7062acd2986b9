"""The statistics of the leaderboard, from per-pair scores: numpy/scipy over ``sts_extras.stats``.

Nothing here knows about MTEB: :func:`score_leaderboard` takes, for every evaluation unit (a task,
or a subset/split of a multilingual MTEB task), the gold scores and each model's per-pair scores,
and returns every number the reports show. :mod:`sts_extras.leaderboard.evaluation` only gathers
those scores from ``mteb.evaluate``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from sts_extras._validation import (
    as_float_vector,
    check_not_constant,
    check_open_unit_interval,
    check_positive_int,
)
from sts_extras.errors import UserInputError

if TYPE_CHECKING:
    from sts_extras.stats.ranking import WeightedRankCorrelationResult

__all__ = [
    "ComparisonStats",
    "LeaderboardResult",
    "ModelTaskFailure",
    "ModelTaskRow",
    "ModelTaskStats",
    "TaskScores",
    "score_leaderboard",
]

#: Decimals the STSS-131 guidance asks for (round system scores before r, and r itself).
ROUND_DECIMALS = 3


@dataclass(frozen=True, eq=False)  # holds arrays: compared by identity
class TaskScores:
    """Everything one evaluation unit contributes: gold scores and each model's per-pair scores.

    Attributes
    ----------
    name : str
        Display name of the unit (the MTEB task name, plus subset/split for multi-subset tasks).
    gold : numpy.ndarray
        Gold scores, in the order MTEB evaluated the pairs.
    score_range : (float, float)
        The task's rating scale (MTEB's ``min_score``/``max_score``); the bins of the scaled
        Pearson are equal-width over it.
    predictions : mapping of str to numpy.ndarray
        Model display name -> per-pair scores (the model's own similarity, as MTEB used them).
    failures : mapping of str to str
        Model display name -> why it has no scores on this unit.
    mteb_pearson : mapping of str to float
        Model display name -> the ``pearson`` MTEB reported (a cross-check of the scores).
    """

    name: str
    gold: np.ndarray
    score_range: tuple[float, float]
    predictions: Mapping[str, np.ndarray] = field(default_factory=dict)
    failures: Mapping[str, str] = field(default_factory=dict)
    mteb_pearson: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelTaskStats:
    """The statistics of one model on one evaluation unit where it has usable scores.

    ``pearson``/``spearman`` are plain r and ρ; ``scaled_pearson`` is the mean of the per-bin r
    over the valid bins (Atoum 2019, Eq. 3), None when no bin is valid; ``bin_r``/``bin_sizes``
    list every bin (``None`` where a bin has fewer than 3 pairs or a constant side);
    ``rho_w``/``tau_w`` are Lombardo et al.'s (2020) top-rank-weighted correlations (Eq. 8,
    n0 = 2); ``rank`` orders the models of the unit by ``pearson`` (1 = best); ``scores`` are the
    per-pair scores every statistic was computed on.
    """

    task: str
    model: str
    n: int
    rank: int
    pearson: float
    spearman: float
    scaled_pearson: float | None
    bin_edges: tuple[float, ...]
    bin_r: tuple[float | None, ...]
    bin_sizes: tuple[int, ...]
    rho_w: float
    tau_w: float
    mteb_pearson: float | None
    scores: tuple[float, ...] = field(repr=False)

    @property
    def ok(self) -> bool:
        """True: the model has scores and statistics on this unit."""
        return True


@dataclass(frozen=True)
class ModelTaskFailure:
    """One model on one evaluation unit without statistics, and why.

    ``error`` says what went wrong (the model failed on the task, or its scores cannot be
    correlated, e.g. constant); ``scores`` keeps whatever per-pair scores it had.
    """

    task: str
    model: str
    n: int
    error: str
    mteb_pearson: float | None = None
    scores: tuple[float, ...] = field(default=(), repr=False)

    @property
    def ok(self) -> bool:
        """False: the model has no statistics on this unit."""
        return False

    @property
    def rank(self) -> None:
        """None: a failed model is not ranked."""
        return None


#: A row of :attr:`LeaderboardResult.stats`.
ModelTaskRow = ModelTaskStats | ModelTaskFailure


@dataclass(frozen=True)
class ComparisonStats:
    """One model against the baseline on one unit: Δr = r(model) − r(baseline).

    ``ci_low``/``ci_high`` is the BCa bootstrap interval of Δr and ``bca_significant`` says
    whether it excludes 0; ``statistic``/``pvalue`` are Meng, Rosenthal & Rubin's (1992) z test
    of the two dependent correlations, ``pvalue_holm`` its Holm (1979) adjustment across the
    comparisons of the unit and ``holm_significant`` whether that is at most ``alpha``.
    """

    task: str
    model: str
    baseline: str
    delta: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    bca_significant: bool | None = None
    statistic: float | None = None
    pvalue: float | None = None
    pvalue_holm: float | None = None
    holm_significant: bool | None = None
    r12: float | None = None
    error: str | None = None


@dataclass(frozen=True)
class LeaderboardResult:
    """All numbers of a leaderboard run: per model × unit statistics and baseline comparisons."""

    tasks: tuple[TaskScores, ...]
    models: tuple[str, ...]
    baseline: str
    stats: tuple[ModelTaskRow, ...]
    comparisons: tuple[ComparisonStats, ...]
    settings: Mapping[str, Any]

    def stats_for(self, task: str) -> list[ModelTaskRow]:
        """The rows of one unit, best first (failed models last, in run order)."""
        rows = [row for row in self.stats if row.task == task]
        return sorted(rows, key=lambda row: (row.rank is None, row.rank or 0))

    def bin_edges(self, task: str) -> tuple[float, ...]:
        """The gold-score bin edges of a unit (the same for every scored model), or ()."""
        return next(
            (
                row.bin_edges
                for row in self.stats
                if row.task == task and isinstance(row, ModelTaskStats) and row.bin_edges
            ),
            (),
        )

    def comparison(self, task: str, model: str) -> ComparisonStats | None:
        """The comparison of ``model`` with the baseline on ``task`` (None for the baseline)."""
        for item in self.comparisons:
            if item.task == task and item.model == model:
                return item
        return None


def _usable_scores(
    task: TaskScores, model: str, scores: Any, *, n0: float, round_scores: bool
) -> tuple[np.ndarray, WeightedRankCorrelationResult] | ModelTaskFailure:
    """The checked (and rounded) scores of a model with their ρ_w/τ_w, or why it has none."""
    from sts_extras.stats.ranking import weighted_rank_correlation

    try:
        scores = as_float_vector(scores, f"scores of {model!r} on {task.name}")
        if scores.size != task.gold.size:
            raise ValueError(f"{scores.size} scores for {task.gold.size} gold pairs")
        if round_scores:
            scores = np.round(scores, ROUND_DECIMALS)
        check_not_constant(scores, f"scores of {model!r} on {task.name}", what="r")
        weighted = weighted_rank_correlation(scores, task.gold, n0=n0)
    except ValueError as error:
        return ModelTaskFailure(
            task=task.name,
            model=model,
            n=int(task.gold.size),
            error=str(error),
            mteb_pearson=task.mteb_pearson.get(model),
            scores=_as_tuple(scores),
        )
    return scores, weighted


def _model_stats(
    task: TaskScores,
    model: str,
    scores: np.ndarray,
    weighted: WeightedRankCorrelationResult,
    *,
    pearson: float,
    rank: int,
    bins: int,
) -> ModelTaskStats:
    from scipy.stats import spearmanr

    from sts_extras.stats.correlation import SkippedSegmentWarning, scaled_pearson

    # The scaled Pearson can be undefined alone (no bin with 3 pairs and two distinct scores):
    # the row keeps its other statistics and shows the scaled value as missing.
    low, high = task.score_range
    score_range = (min(low, float(task.gold.min())), max(high, float(task.gold.max())))
    try:
        with warnings.catch_warnings():
            # Skipped bins are reported in the table itself.
            warnings.simplefilter("ignore", SkippedSegmentWarning)
            scaled = scaled_pearson(
                scores, task.gold, bins=bins, score_range=score_range, strategy="width"
            )
    except ValueError:
        scaled = None
    return ModelTaskStats(
        task=task.name,
        model=model,
        n=int(task.gold.size),
        rank=rank,
        pearson=pearson,
        spearman=float(spearmanr(scores, task.gold).statistic),
        scaled_pearson=None if scaled is None else float(scaled.statistic),
        bin_edges=() if scaled is None else tuple(float(edge) for edge in scaled.edges),
        bin_r=()
        if scaled is None
        else tuple(None if r is None else float(r) for r in scaled.segment_r),
        bin_sizes=() if scaled is None else tuple(int(size) for size in scaled.segment_sizes),
        rho_w=float(weighted.rho_w),
        tau_w=float(weighted.tau_w),
        mteb_pearson=task.mteb_pearson.get(model),
        scores=tuple(scores.tolist()),
    )


def _task_rows(
    task: TaskScores, models: Sequence[str], *, bins: int, n0: float, round_scores: bool
) -> dict[str, ModelTaskRow]:
    """The row of every model on one unit, in run order; ranks follow Pearson r (1 = best)."""
    from scipy.stats import pearsonr

    usable: dict[str, tuple[np.ndarray, WeightedRankCorrelationResult]] = {}
    failed: dict[str, ModelTaskFailure] = {}
    for model in models:
        if model not in task.predictions:
            reason = task.failures.get(model, "no scores")
            failed[model] = ModelTaskFailure(
                task=task.name, model=model, n=int(task.gold.size), error=reason
            )
            continue
        outcome = _usable_scores(
            task, model, task.predictions[model], n0=n0, round_scores=round_scores
        )
        if isinstance(outcome, ModelTaskFailure):
            failed[model] = outcome
        else:
            usable[model] = outcome
    pearson = {
        model: float(pearsonr(scores, task.gold).statistic) for model, (scores, _) in usable.items()
    }
    ranks = {
        model: rank for rank, model in enumerate(sorted(usable, key=lambda m: -pearson[m]), start=1)
    }
    rows: dict[str, ModelTaskRow] = {}
    for model in models:
        if model in failed:
            rows[model] = failed[model]
        else:
            scores, weighted = usable[model]
            rows[model] = _model_stats(
                task, model, scores, weighted, pearson=pearson[model], rank=ranks[model], bins=bins
            )
    return rows


def _compare(
    task: TaskScores,
    model: ModelTaskRow,
    baseline: ModelTaskRow,
    *,
    n_resamples: int,
    confidence_level: float,
    seed: int | None,
) -> ComparisonStats:
    from sts_extras.stats.bootstrap import bootstrap_correlation_difference
    from sts_extras.stats.dependent import compare_dependent_correlations

    base: dict[str, Any] = dict(task=task.name, model=model.model, baseline=baseline.model)
    if isinstance(model, ModelTaskFailure) or isinstance(baseline, ModelTaskFailure):
        failed = model if isinstance(model, ModelTaskFailure) else baseline
        return ComparisonStats(**base, error=f"{failed.model} has no scores on {task.name}")
    scores, reference = np.asarray(model.scores), np.asarray(baseline.scores)
    try:
        boot = bootstrap_correlation_difference(
            scores,
            reference,
            task.gold,
            statistic="pearson",
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            method="BCa",
            seed=seed,
        )
        test = compare_dependent_correlations(
            scores, reference, task.gold, method="meng1992", correlation="pearson"
        )
    except ValueError as error:
        return ComparisonStats(**base, error=str(error))
    return ComparisonStats(
        **base,
        delta=float(boot.delta),
        ci_low=float(boot.ci_low),
        ci_high=float(boot.ci_high),
        bca_significant=bool(boot.significant),
        statistic=float(test.statistic),
        pvalue=float(test.pvalue),
        r12=float(test.r12),
    )


def score_leaderboard(
    tasks: Sequence[TaskScores],
    models: Sequence[str],
    *,
    baseline: str,
    bins: int = 3,
    n0: float = 2,
    n_resamples: int = 10000,
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    seed: int | None = 0,
    round_scores: bool = False,
    progress: bool = False,
) -> LeaderboardResult:
    """Compute every statistic of the leaderboard from per-pair scores.

    For each unit and model: Pearson r, Spearman ρ, the scaled Pearson over ``bins`` equal-width
    bins of the task's scale with the per-bin r (Atoum 2019, Eq. 2-3), and the top-rank-weighted
    ρ_w and τ_w (Lombardo et al. 2020, Eq. 8-9). For each model against ``baseline``: Δr with a
    BCa bootstrap interval (Efron 1987) and Meng, Rosenthal & Rubin's (1992) z test of dependent
    correlations, Holm-adjusted (Holm 1979) across the comparisons of the unit.

    Parameters
    ----------
    tasks : sequence of TaskScores
        The units, each with gold scores and per-model scores.
    models : sequence of str
        All model display names, in run order (a model missing from a unit's ``predictions`` and
        ``failures`` is reported as failed there).
    baseline : str
        The model every other model is compared with.
    bins : int, default 3
        Number of equal-width bins for the scaled Pearson.
    n0 : float, default 2
        Weight offset of ρ_w and τ_w.
    n_resamples : int, default 10000
        Bootstrap resamples per comparison.
    confidence_level : float, default 0.95
        Level of the BCa intervals.
    alpha : float, default 0.05
        Level at which a Holm-adjusted p-value is marked significant.
    seed : int or None, default 0
        Seed of every bootstrap (the same seed for each comparison, so a comparison does not
        depend on which other models were run).
    round_scores : bool, default False
        Round the system scores to 3 decimals before any statistic (STSS-131 guidance 4).
    progress : bool, default False
        Show a progress bar over the comparisons.

    Returns
    -------
    LeaderboardResult

    Raises
    ------
    UserInputError
        If ``baseline`` is not one of ``models``, or an option is out of range.
    """
    models = tuple(models)
    if baseline not in models:
        raise UserInputError(
            f"`baseline` must be one of the models {list(models)}; got {baseline!r}."
        )
    bins = check_positive_int(bins, "bins")
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    confidence_level = check_open_unit_interval(confidence_level, "confidence_level")
    alpha = check_open_unit_interval(alpha, "alpha")
    if seed is not None:  # an int, reused by every comparison (a Generator would be shared)
        check_positive_int(seed, "seed", minimum=0)

    stats: list[ModelTaskRow] = []
    comparisons: list[ComparisonStats] = []
    pending = [(task, model) for task in tasks for model in models if model != baseline]
    bar = _progress(len(pending), "Comparing with the baseline", enabled=progress)
    for task in tasks:
        rows = _task_rows(task, models, bins=bins, n0=n0, round_scores=round_scores)
        stats.extend(rows.values())
        task_comparisons = []
        for model in models:
            if model == baseline:
                continue
            task_comparisons.append(
                _compare(
                    task,
                    rows[model],
                    rows[baseline],
                    n_resamples=n_resamples,
                    confidence_level=confidence_level,
                    seed=seed,
                )
            )
            bar.update()
        comparisons.extend(_holm(task_comparisons, alpha))
    bar.close()
    settings = dict(
        baseline=baseline,
        bins=bins,
        bin_strategy="width",
        n0=n0,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        alpha=alpha,
        seed=seed,
        round_scores=round_scores,
        bootstrap="BCa",
        dependent_test="meng1992",
        multiple_comparisons="holm",
    )
    return LeaderboardResult(
        tasks=tuple(tasks),
        models=models,
        baseline=baseline,
        stats=tuple(stats),
        comparisons=tuple(comparisons),
        settings=settings,
    )


def _holm(comparisons: list[ComparisonStats], alpha: float) -> list[ComparisonStats]:
    from sts_extras.stats.dependent import holm_adjust

    tested = [index for index, item in enumerate(comparisons) if item.pvalue is not None]
    if not tested:
        return comparisons
    adjusted = holm_adjust([comparisons[index].pvalue for index in tested])
    result = list(comparisons)
    for index, p_holm in zip(tested, adjusted):
        result[index] = _replace(
            result[index], pvalue_holm=float(p_holm), holm_significant=bool(p_holm <= alpha)
        )
    return result


def _as_tuple(values: Any) -> tuple[float, ...]:
    try:
        return tuple(np.asarray(values, dtype=float).ravel().tolist())
    except (TypeError, ValueError):
        return ()


def _replace(item: Any, **changes: Any) -> Any:
    import dataclasses

    return dataclasses.replace(item, **changes)


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, description: str, *, enabled: bool):
    if not enabled or total == 0:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=description, unit="comparison")
