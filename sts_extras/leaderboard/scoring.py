"""The statistics of the leaderboard, from per-pair scores: numpy/scipy over ``sts_extras.stats``.

Nothing here knows about MTEB: :func:`score_leaderboard` takes, for every evaluation unit (a task,
or a subset/split of a multilingual MTEB task), the gold scores and each model's per-pair scores,
and returns every number the reports show. :mod:`sts_extras.leaderboard.run.evaluation` only gathers
those scores from ``mteb.evaluate``.

The inference of a unit comes from one call of
:func:`~sts_extras.stats.model_comparison.compare_models` over the models scored on it: one paired
bootstrap shared by all models gives the rank intervals and the win probabilities, and every pair
of models gets ONE decision: the ``method``'s p-value adjusted over all pairs of the unit, shown
as the pair's interval of Δr at the per-pair level that matches the adjustment, so that the
interval excludes 0 exactly when the pair is significant. The comparisons with the baseline, the
groups the unit cannot separate, the heat map's marks and every report read that same decision
off the same pairs.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import as_float_vector, check_not_constant, check_open_unit_interval
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.leaderboard.settings import RunSettings
from sts_extras.stats.results import ConfidenceInterval

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from sts_extras.stats.model_comparison import (
        MeanRankResult,
        ModelComparisonResult,
    )
    from sts_extras.stats.ranking import WeightedRankCorrelationResult

#: A dataclass type, for :func:`_replace` (which returns the type it was given).
_DataclassT = TypeVar("_DataclassT", bound="DataclassInstance")

__all__ = [
    "ComparisonStats",
    "LeaderboardResult",
    "ModelTaskFailure",
    "ModelTaskRow",
    "ModelTaskStats",
    "TaskScores",
    "inseparable_groups",
    "score_leaderboard",
]

#: Decimals the STSS-131 guidance asks for (round system scores before r, and r itself).
ROUND_DECIMALS = 3
#: Power at which the reports give the minimal detectable Δr of the top model.
DETECTABLE_POWER = 0.8


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
    per-pair scores every statistic was computed on; ``rank_low``/``rank_high`` is the rank set
    among the models scored on the unit that the unit's family-wise pair decisions leave
    (``compare_models``; Mogstad, Romano, Shaikh & Wilhelm 2024; both equal ``rank`` when it is
    the only one).
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
    rank_low: int | None = None
    rank_high: int | None = None

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

    Everything is the unit's pair (model, baseline) of :attr:`LeaderboardResult.pairwise`,
    oriented model − baseline, with its one decision: ``delta`` is Δr, and
    ``confidence_interval`` (``.low``/``.high``; ``ci_low``/``ci_high`` in ``leaderboard.json``)
    the pair's interval of Δr by ``method`` at the per-pair level ``confidence_level`` that
    matches the adjustment over all pairs of the unit (``settings["adjust"]``), None where it is
    undefined; ``significant`` says that it excludes 0, which is the same as
    ``pvalue_adjusted < 1 - settings["confidence_level"]``.
    ``statistic``/``pvalue`` are the method's statistic (the estimate Δr for a bootstrap
    interval, t for ``"jackknife-t"``, z or t for a dependent-correlation test; positive: the
    model correlates better) and unadjusted p-value; ``method`` is the procedure the unit used
    (``"auto"`` resolved). ``error`` says why a value is missing.
    """

    task: str
    model: str
    baseline: str
    delta: float | None = None
    confidence_interval: ConfidenceInterval | None = None
    significant: bool | None = None
    statistic: float | None = None
    pvalue: float | None = None
    pvalue_adjusted: float | None = None
    confidence_level: float | None = None
    method: str | None = None
    r12: float | None = None
    error: str | None = None


@dataclass(frozen=True)
class LeaderboardResult:
    """All numbers of a leaderboard run: per model × unit statistics and baseline comparisons.

    Attributes
    ----------
    tasks, models, baseline, stats, comparisons, settings
        The units, the model names in run order, the baseline, one row per model × unit, one
        comparison per non-baseline model × unit and the options of the run.
    pairwise : mapping of str to ModelComparisonResult
        Unit name -> all-pairs comparison of the models scored on it, models in table order (best
        first; units with fewer than 2 scored models are missing).
    pairwise_errors : mapping of str to str
        Unit name -> why it has no all-pairs comparison although 2 models have scores.
    detectable : mapping of str to (mapping of str to float)
        Unit name -> minimal detectable Δr at :data:`DETECTABLE_POWER` of the unit's top model
        against each other scored model (NaN: no Δr reaches that power).
    mean_rank : MeanRankResult or None
        Mean rank over the units with its interval; None unless there are at least 2 units and
        every unit has scores of the same models.
    """

    tasks: tuple[TaskScores, ...]
    models: tuple[str, ...]
    baseline: str
    stats: tuple[ModelTaskRow, ...]
    comparisons: tuple[ComparisonStats, ...]
    settings: Mapping[str, Any]
    pairwise: Mapping[str, ModelComparisonResult] = field(default_factory=dict, compare=False)
    pairwise_errors: Mapping[str, str] = field(default_factory=dict, compare=False)
    detectable: Mapping[str, Mapping[str, float]] = field(default_factory=dict, compare=False)
    mean_rank: MeanRankResult | None = field(default=None, compare=False)

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

    def not_separable(self, task: str) -> list[tuple[str, ...]]:
        """Groups of models the unit cannot separate, best first (:func:`inseparable_groups`,
        by the pairs' own decisions)."""
        comparison = self.pairwise.get(task)
        if comparison is None:
            return []
        return inseparable_groups(comparison)


def inseparable_groups(
    comparison: ModelComparisonResult, *, alpha: float | None = None
) -> list[tuple[str, ...]]:
    """Groups of models that one task cannot separate (homogeneous subsets), in table order.

    Two models are *separated* when their pair is significant: by default the pair's own
    decision (``pair.significant``: its adjusted p-value below ``1 - confidence_level``, the
    same as its interval excluding 0), the one every report marks; a pair without a decision
    is not separated. A group is a maximal run of consecutive models in the order of
    ``comparison.models`` (best first) in which no two models are separated, with at least 2
    models; groups can overlap (A ~ B ~ C with A and C separated gives {A, B} and {B, C}). A
    model in no group is separated from its neighbours in the ranking.

    Parameters
    ----------
    comparison : ModelComparisonResult
    alpha : float, optional
        Separate at another level instead: adjusted p-value below ``alpha`` (the pairs'
        intervals then no longer show the decision).

    Returns
    -------
    list of tuple of str
        Groups ordered by their first model.
    """
    models = comparison.models
    index = {name: k for k, name in enumerate(models)}
    separated = np.zeros((len(models), len(models)), dtype=bool)
    for pair in comparison.pairs:
        i, j = index[pair.model1], index[pair.model2]
        decided = pair.significant if alpha is None else pair.pvalue_adjusted < alpha  # NaN: False
        separated[i, j] = separated[j, i] = bool(decided)
    groups: list[tuple[str, ...]] = []
    last_end = 0
    for start in range(len(models)):
        end = start + 1
        while end < len(models) and not separated[start:end, end].any():
            end += 1
        if end - start > 1 and end > last_end:  # not inside the previous group
            groups.append(models[start:end])
            last_end = end
    return groups


def _usable_scores(
    task: TaskScores, model: str, scores: ArrayLike, *, n0: float, round_scores: bool
) -> tuple[NDArray[np.float64], WeightedRankCorrelationResult] | ModelTaskFailure:
    """The checked (and rounded) scores of a model with their ρ_w/τ_w, or why it has none."""
    from sts_extras.stats.ranking import weighted_rank_correlation

    try:
        scores = as_float_vector(scores, f"scores of {model!r} on {task.name}")
        if scores.size != task.gold.size:
            raise UserInputError(
                f"{scores.size} scores of {model!r} on {task.name} for {task.gold.size} gold pairs"
            )
        if round_scores:
            scores = np.round(scores, ROUND_DECIMALS)
        check_not_constant(scores, f"scores of {model!r} on {task.name}", what="r")
        weighted = weighted_rank_correlation(scores, task.gold, n0=n0)
    except UserInputError as error:  # what the scores cannot support; a bug propagates
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
    scores: NDArray[np.float64],
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
    except UserInputError:  # no bin with a defined r (the message says why); a bug propagates
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


@dataclass(frozen=True)
class _ComparisonFailure:
    """A unit whose all-pairs comparison the scores cannot support (a ``UserInputError`` of
    :func:`~sts_extras.stats.model_comparison.compare_models`), named by unit and models."""

    task: str
    models: tuple[str, ...]
    error: str

    @property
    def message(self) -> str:
        """One line naming the unit, the models and why."""
        return f"{self.task}: no comparison of {', '.join(self.models)}: {self.error}"


def _compare_task(
    task: TaskScores,
    rows: Mapping[str, ModelTaskRow],
    *,
    method: str,
    adjust: str,
    n_resamples: int,
    confidence_level: float,
    seed: int,
) -> ModelComparisonResult | _ComparisonFailure | None:
    """All-pairs comparison of the models scored on the unit, in table order (best first).

    None with fewer than 2 scored models; a :class:`_ComparisonFailure` if the scores cannot
    support the comparison (a ``UserInputError``); any other error is a bug and propagates.
    Failed models are left out, so they do not change the others' ranks or p-values.
    """
    from sts_extras.stats.model_comparison import compare_models

    scored = sorted(
        (row for row in rows.values() if isinstance(row, ModelTaskStats)), key=lambda r: r.rank
    )
    if len(scored) < 2:
        return None
    try:
        return compare_models(
            {row.model: np.asarray(row.scores) for row in scored},
            task.gold,
            correlation="pearson",
            method=method,
            adjust=adjust,
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            seed=seed,
        )
    except UserInputError as error:
        return _ComparisonFailure(task.name, tuple(row.model for row in scored), str(error))


def _with_rank_interval(
    row: ModelTaskRow, comparison: ModelComparisonResult | None
) -> ModelTaskRow:
    if not isinstance(row, ModelTaskStats):
        return row
    if comparison is None:  # the only scored model: its rank is certain
        return _replace(row, rank_low=row.rank, rank_high=row.rank)
    k = comparison.models.index(row.model)
    return _replace(
        row, rank_low=int(comparison.rank_low[k]), rank_high=int(comparison.rank_high[k])
    )


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _baseline_comparison(
    task: TaskScores,
    model: ModelTaskRow,
    baseline: ModelTaskRow,
    comparison: ModelComparisonResult | _ComparisonFailure | None,
) -> ComparisonStats:
    """The pair (model, baseline) of the unit's all-pairs comparison, oriented model − baseline,
    with the pair's one decision (adjusted over all pairs of the unit)."""
    base: dict[str, Any] = dict(task=task.name, model=model.model, baseline=baseline.model)
    if isinstance(model, ModelTaskFailure) or isinstance(baseline, ModelTaskFailure):
        failed = model if isinstance(model, ModelTaskFailure) else baseline
        return ComparisonStats(**base, error=f"{failed.model} has no scores on {task.name}")
    if comparison is None or isinstance(comparison, _ComparisonFailure):  # both scored
        return ComparisonStats(**base, error=comparison.message if comparison else "no comparison")
    pair = comparison.pair(model.model, baseline.model)
    # Pairs run best model first; Δr, its interval and the test statistic change sign with the
    # order, the two-sided p-value does not.
    sign = 1.0 if pair.model1 == model.model else -1.0
    pair_low, pair_high = pair.confidence_interval
    low, high = (pair_low, pair_high) if sign > 0 else (-pair_high, -pair_low)
    interval = np.isfinite(low) and np.isfinite(high)
    return ComparisonStats(
        **base,
        delta=sign * pair.delta,
        confidence_interval=ConfidenceInterval(float(low), float(high)) if interval else None,
        significant=bool(pair.significant) if interval else None,
        statistic=_finite(sign * pair.statistic),
        pvalue=_finite(pair.pvalue),
        pvalue_adjusted=_finite(pair.pvalue_adjusted),
        confidence_level=_finite(pair.confidence_level),
        method=comparison.method,
        r12=pair.r12,
        error=pair.error,
    )


def score_leaderboard(
    tasks: Sequence[TaskScores],
    models: Sequence[str],
    *,
    baseline: str,
    settings: RunSettings | None = None,
    n0: float = 2,
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    progress: bool = False,
) -> LeaderboardResult:
    """Compute every statistic of the leaderboard from per-pair scores.

    For each unit and model: Pearson r, Spearman ρ, the scaled Pearson over ``settings.bins``
    equal-width bins of the task's scale with the per-bin r (Atoum 2019, Eq. 2-3), and the
    top-rank-weighted ρ_w and τ_w (Lombardo et al. 2020, Eq. 8-9). For each unit, one paired
    bootstrap shared by the models scored on it
    (:func:`~sts_extras.stats.model_comparison.compare_models`): every pair's Δr with ONE
    decision, ``settings.method``'s p-value adjusted (``settings.adjust``) over all pairs of the
    unit, and the pair's interval at the per-pair level that matches it (the interval excludes 0
    exactly when the pair is significant); the method used (``"auto"`` resolved) and its
    measured size and coverage at the unit's n (``pairwise[unit].method``, ``.calibration``);
    each model's rank set from those decisions, and the win probabilities; the minimal
    detectable Δr of the top model. The comparisons with ``baseline`` are those pairs with those
    decisions. Over the units: the mean rank with its interval.

    Parameters
    ----------
    tasks : sequence of TaskScores
        The units, each with gold scores and per-model scores.
    models : sequence of str
        All model display names, in run order (a model missing from a unit's ``predictions`` and
        ``failures`` is reported as failed there).
    baseline : str
        The model every other model is compared with.
    settings : RunSettings, optional
        The settings that change the numbers, checked when the record was made (default
        ``RunSettings()``): ``bins`` (equal-width bins of the scaled Pearson, 3),
        ``n_resamples`` (bootstrap resamples per unit, shared by all its models, 10000),
        ``seed`` (of every unit's bootstrap, 0: the same seed for each unit, so a pair's
        resamples are those of ``bootstrap_correlation_difference(..., seed=seed)`` for that
        pair, whichever other models were run), ``round_scores`` (round the system scores to 3
        decimals before any statistic, STSS-131 guidance 4), ``method`` (the procedure of the
        pair decisions, one of :data:`~sts_extras.stats.model_comparison.COMPARISON_METHODS`;
        ``"auto"``: the calibration suite's choice at each unit's n) and ``adjust`` (over all
        pairs of a unit, one of :data:`~sts_extras.stats.multiple.ADJUST_METHODS`, ``"holm"``).
        ``score_range`` is not used here (it shapes the tasks read from files).
    n0 : float, default 2
        Weight offset of ρ_w and τ_w.
    confidence_level : float, default 0.95
        The family's level: a pair is significant when its adjusted p-value is below
        ``1 - confidence_level``; the level of the rank intervals.
    alpha : float, default 0.05
        Level of the minimal detectable Δr (one pair, unadjusted).
    progress : bool, default False
        Show a progress bar over the units.

    Returns
    -------
    LeaderboardResult

    Raises
    ------
    UserInputError
        If ``baseline`` is not one of ``models``, or ``confidence_level`` or ``alpha`` is not in
        (0, 1).
    UserInputTypeError
        If ``settings`` is not a :class:`~sts_extras.leaderboard.settings.RunSettings`.

    Warns
    -----
    UncalibratedWarning
        For a unit where the method's measured size or coverage at its n is outside the
        calibrated band (:func:`~sts_extras.stats.model_comparison.compare_models`); the
        unit's ``pairwise[unit].calibration`` and every report say so too.
    """
    options = _check_options(
        models,
        baseline=baseline,
        settings=RunSettings() if settings is None else settings,
        n0=n0,
        confidence_level=confidence_level,
        alpha=alpha,
    )
    scored = _Scored()
    bar = _progress(len(tasks), "Comparing the models", enabled=progress)
    for task in tasks:
        _score_task(task, options, scored)
        bar.update()
    bar.close()
    return LeaderboardResult(
        tasks=tuple(tasks),
        models=options.models,
        baseline=baseline,
        stats=tuple(scored.stats),
        comparisons=tuple(scored.comparisons),
        settings=options.settings(),
        pairwise=scored.pairwise,
        pairwise_errors=scored.pairwise_errors,
        detectable=scored.detectable,
        mean_rank=_mean_rank(list(scored.pairwise.values()), len(tasks), options.confidence_level),
    )


@dataclass(frozen=True)
class _Options:
    """The checked options of :func:`score_leaderboard`: the settings record as given, and the
    scoring's own options."""

    models: tuple[str, ...]
    baseline: str
    run: RunSettings
    n0: float
    confidence_level: float
    alpha: float

    def settings(self) -> dict[str, Any]:
        """The options as :attr:`LeaderboardResult.settings` records them."""
        run = self.run
        return dict(
            baseline=self.baseline,
            bins=run.bins,
            bin_strategy="width",
            n0=self.n0,
            n_resamples=run.n_resamples,
            confidence_level=self.confidence_level,
            alpha=self.alpha,
            seed=run.seed,
            round_scores=run.round_scores,
            method=run.method,
            adjust=run.adjust,
            rank_interval="pair-decisions",
            detectable_power=DETECTABLE_POWER,
        )


def _check_options(
    models: Sequence[str],
    *,
    baseline: str,
    settings: RunSettings,
    n0: float,
    confidence_level: float,
    alpha: float,
) -> _Options:
    """Check the options of :func:`score_leaderboard` (the settings checked themselves when
    made): ``UserInputError`` naming the first bad."""
    names = tuple(models)
    if baseline not in names:
        raise UserInputError(
            f"`baseline` must be one of the models {list(names)}; got {baseline!r}."
        )
    if not isinstance(settings, RunSettings):
        raise UserInputTypeError(
            f"`settings` must be a RunSettings (LeaderboardSettings(...).to_record()), got "
            f"{type(settings).__name__}."
        )
    return _Options(
        models=names,
        baseline=baseline,
        run=settings,
        n0=n0,
        confidence_level=check_open_unit_interval(confidence_level, "confidence_level"),
        alpha=check_open_unit_interval(alpha, "alpha"),
    )


@dataclass
class _Scored:
    """What :func:`score_leaderboard` collects unit by unit."""

    stats: list[ModelTaskRow] = field(default_factory=list)
    comparisons: list[ComparisonStats] = field(default_factory=list)
    pairwise: dict[str, ModelComparisonResult] = field(default_factory=dict)
    pairwise_errors: dict[str, str] = field(default_factory=dict)
    detectable: dict[str, Mapping[str, float]] = field(default_factory=dict)


def _score_task(task: TaskScores, options: _Options, scored: _Scored) -> None:
    """One unit: the rows, the all-pairs comparison, the detectable Δr, the baseline pairs."""
    from sts_extras.stats.model_comparison import top_model_detectable_deltas

    run = options.run
    rows = _task_rows(
        task, options.models, bins=run.bins, n0=options.n0, round_scores=run.round_scores
    )
    outcome = _compare_task(
        task,
        rows,
        method=run.method,
        adjust=run.adjust,
        n_resamples=run.n_resamples,
        confidence_level=options.confidence_level,
        seed=run.seed,
    )
    comparison = None
    if isinstance(outcome, _ComparisonFailure):
        scored.pairwise_errors[task.name] = outcome.message
    elif outcome is not None:
        comparison = scored.pairwise[task.name] = outcome
        scored.detectable[task.name] = top_model_detectable_deltas(
            outcome, power=DETECTABLE_POWER, alpha=options.alpha
        )
    scored.stats.extend(
        row if isinstance(outcome, _ComparisonFailure) else _with_rank_interval(row, comparison)
        for row in rows.values()
    )
    scored.comparisons.extend(
        _baseline_comparison(task, rows[model], rows[options.baseline], outcome)
        for model in options.models
        if model != options.baseline
    )


def _mean_rank(
    results: list[ModelComparisonResult], n_tasks: int, confidence_level: float
) -> MeanRankResult | None:
    """Mean rank over the units, if there are 2 or more and all rank the same models."""
    from sts_extras.stats.model_comparison import mean_rank_across_tasks

    if n_tasks < 2 or len(results) != n_tasks:
        return None
    if any(set(result.models) != set(results[0].models) for result in results):
        return None
    return mean_rank_across_tasks(results, confidence_level=confidence_level)


def _as_tuple(values: object) -> tuple[float, ...]:
    try:
        return tuple(np.asarray(values, dtype=float).ravel().tolist())
    except (TypeError, ValueError):
        return ()


def _replace(item: _DataclassT, **changes: object) -> _DataclassT:
    import dataclasses

    return dataclasses.replace(item, **changes)


class _Bar(Protocol):
    def update(self, n: int = 1) -> object: ...

    def close(self) -> None: ...


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, description: str, *, enabled: bool) -> _Bar:
    if not enabled or total == 0:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=description, unit="task")
