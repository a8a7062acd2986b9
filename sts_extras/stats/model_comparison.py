"""All-pairs comparison of many models on one task, rank intervals and win probabilities.

For m models scored on the same n items of a task, :func:`compare_models` draws one paired
bootstrap of the items, shared by all models (every model's correlation is computed on the same
resampled item sets), and derives from it

* for every pair of models, Δr with its BCa interval, plus the dependent-correlation test of
  :mod:`sts_extras.stats.dependent` and p-values adjusted over all pairs of the task;
* each model's rank interval, the ranks that those pair decisions leave possible (Mogstad,
  Romano, Shaikh & Wilhelm 2024), and the matrix of win probabilities P(r_i > r_j).

The correlations of all models in a resample come from one matrix product of the resample counts
(:mod:`sts_extras.stats.resampling`), and the resamples are those that
:func:`~sts_extras.stats.bootstrap.bootstrap_correlation_difference` draws with the same seed, so a
pair's interval equals the one that function gives for that pair. :func:`mean_rank_across_tasks`
pools several tasks (resampled independently within each task).

References
----------
.. [1] Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.
.. [2] Hall, P., Miller, H. (2009). Using the bootstrap to quantify the authority of an empirical
       ranking. Annals of Statistics 37(6B), 3929-3959.
.. [3] Meng, X.-L., Rosenthal, R. & Rubin, D. B. (1992). Comparing correlated correlation
       coefficients. Psychological Bulletin 111(1), 172-175.
.. [4] Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks with
       applications to mobility across neighbourhoods and academic achievement across
       countries. Review of Economic Studies 91(1), 476-518.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import (
    as_paired_vectors,
    check_choice,
    check_not_constant,
    check_open_unit_interval,
    check_seed,
    check_work,
)
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.limits import MAX_BOOTSTRAP_VALUES
from sts_extras.progress import progress_bar
from sts_extras.stats._common import check_not_perfect, correlation_matrix
from sts_extras.stats.bootstrap import (
    BOOTSTRAP_CORRELATIONS,
    check_resample_count,
    resolve_method,
    warn_few_resamples,
)
from sts_extras.stats.calibration import MeasuredLevel, measured_for_data, warn_if_uncalibrated
from sts_extras.stats.cross_task import rank_bounds
from sts_extras.stats.dependent import (
    ALTERNATIVES,
    DEPENDENT_METHODS,
    dependent_correlation_test,
    zou_dependent_interval,
)
from sts_extras.stats.intervals import (
    DIFFERENCE_METHODS,
    difference_intervals,
    difference_pvalues,
    difference_statistics,
    hc4_standard_errors,
    twopov_standard_errors,
)
from sts_extras.stats.multiple import ADJUST_METHODS, FAMILYWISE_ADJUSTMENTS, adjust_pvalues
from sts_extras.stats.power import minimal_detectable_delta
from sts_extras.stats.resampling import CORRELATION_ENGINES, resample_counts
from sts_extras.stats.results import ArrayConfidenceInterval, ConfidenceInterval

__all__ = [
    "COMPARISON_METHODS",
    "MeanRankResult",
    "ModelComparisonResult",
    "PairComparison",
    "check_comparison_size",
    "compare_models",
    "mean_rank_across_tasks",
    "top_model_detectable_deltas",
]

# Pairs per block of the vectorised interval step: bounds the (pairs x resamples) work arrays.
_PAIR_BLOCK_ELEMENTS = 1 << 21
#: ``method=`` of :func:`compare_models`: ``"auto"`` (the calibration suite's choice), an interval
#: method of r1 - r2, or a closed-form dependent-correlation test (its interval is Zou's).
COMPARISON_METHODS = ("auto", *DIFFERENCE_METHODS, *DEPENDENT_METHODS)


@dataclass(frozen=True)
class PairComparison:
    """One pair of models on one task: model1 against model2.

    Attributes
    ----------
    model1, model2 : str
    r1, r2 : float
        Their correlations with the references; ``r12`` the correlation between the two models.
    delta : float
        r1 - r2.
    confidence_interval : ConfidenceInterval
        The interval ``(low, high)`` of r1 - r2 by the comparison's method, at the per-pair
        level ``confidence_level`` that matches the adjustment over the task's pairs, so that
        it excludes 0 exactly when the adjusted decision is significant (NaN where undefined,
        see ``error``).
    significant : bool
        The one decision: ``pvalue_adjusted < 1 - family level``, the same as 0 lying outside
        ``confidence_interval``.
    statistic, pvalue : float
        The method's statistic (the estimate r1 - r2 for a bootstrap method, t for
        ``"jackknife-t"``, z or t for a closed-form test) and its unadjusted two-sided p-value.
    pvalue_adjusted : float
        ``pvalue`` adjusted over all pairs of the task with a defined p-value.
    confidence_level : float
        The level of this pair's interval: ``1 - alpha * pvalue / pvalue_adjusted`` (for
        Bonferroni ``1 - alpha / pairs``; for Holm the level at which its step-down tested the
        pair), the family's level when nothing is adjusted.
    error : str or None
        Why an interval or test is missing.
    """

    model1: str
    model2: str
    r1: float
    r2: float
    r12: float
    delta: float
    confidence_interval: ConfidenceInterval
    significant: bool
    statistic: float
    pvalue: float
    pvalue_adjusted: float
    confidence_level: float = math.nan
    error: str | None = None


@dataclass(frozen=True)
class ModelComparisonResult:
    """All-pairs comparison of the models of one task (arrays in the order of ``models``).

    Attributes
    ----------
    models : tuple of str
    r : numpy.ndarray
        Each model's correlation with the references (also ``statistic``: the estimates).
    rank : numpy.ndarray
        Observed rank (1 = highest r; ties share the best rank).
    rank_low, rank_high : numpy.ndarray
        Each model's rank set (integers): the true ranks (1 + the number of models with a
        higher population correlation; ties share the best rank) that the pair decisions leave
        possible, ``rank_low = 1 + #{models significantly better}`` and
        ``rank_high = m - #{models significantly worse}``, the direction of a decision being the
        sign of its ``delta`` (Mogstad, Romano, Shaikh & Wilhelm 2024, §3). Simultaneous at the
        family's level: the decisions used control the family-wise error over all pairs (the
        pairs' own ``significant`` with ``adjust="holm"`` or ``"bonferroni"``; with another
        ``adjust``, those of them that Holm's step-down on the same p-values makes too), so all
        sets hold all true ranks at once unless a decision is wrong. They never leave out a rank
        that the pairs' ``significant`` leaves possible.
    win_probability : numpy.ndarray
        (m x m) share of resamples in which model i has a higher r than model j (ties count
        half, so P[i, j] + P[j, i] = 1; the diagonal is 0.5).
    model_correlations : numpy.ndarray
        (m x m) correlations between the models' predictions (``correlation``).
    pairs : tuple of PairComparison
        Every pair (i < j in model order), model i as ``model1``.
    n, n_resamples : int
        Items, and resamples used for the ranks (resamples where a model has no correlation are
        dropped).
    correlation : str
        ``"pearson"`` or ``"spearman"``.
    method : str
        The procedure of the pair decisions (``method="auto"`` says here which one it chose).
    alternative, adjust : str
        The alternative of a closed-form test, and the adjustment over the task's pairs.
    confidence_level : float
        The family's level: one minus the alpha of the adjusted pair decisions, and the rank
        sets' simultaneous level.
    calibration : MeasuredLevel or None
        What the calibration suite measured for ``method`` at the grid n nearest to ``n`` (one
        pair; the adjusted family is measured in ``docs/calibration.md`` too).
    bootstrap_ranks : numpy.ndarray
        (n_resamples x m) rank of every model in every resample, for
        :func:`mean_rank_across_tasks` (not the rank sets: a percentile interval of these ranks
        leaves out tied models' shared rank, Hall & Miller 2009).
    """

    models: tuple[str, ...]
    r: NDArray[np.float64]
    rank: NDArray[np.int32]
    rank_low: NDArray[np.int32]
    rank_high: NDArray[np.int32]
    win_probability: NDArray[np.float64]
    model_correlations: NDArray[np.float64]
    pairs: tuple[PairComparison, ...]
    n: int
    n_resamples: int
    correlation: str
    method: str
    alternative: str
    adjust: str
    confidence_level: float
    calibration: MeasuredLevel | None
    bootstrap_ranks: NDArray[np.int32] = field(repr=False, compare=False)

    @property
    def statistic(self) -> NDArray[np.float64]:
        """The estimates: each model's correlation with the references (the array ``r``)."""
        return self.r

    def pair(self, model1: str, model2: str) -> PairComparison:
        """The comparison of ``model1`` with ``model2`` (in either order of the two names)."""
        for item in self.pairs:
            if {item.model1, item.model2} == {model1, model2} and model1 != model2:
                return item
        raise UserInputError(f"No comparison of {model1!r} with {model2!r}.")


@dataclass(frozen=True)
class MeanRankResult:
    """Mean rank of each model over several tasks, with its bootstrap interval.

    Attributes
    ----------
    models : tuple of str
    mean_rank : numpy.ndarray
        Mean over the tasks of the observed ranks (also ``statistic``).
    confidence_interval : ArrayConfidenceInterval
        Percentile interval ``(low, high)`` of each model's mean rank (tasks resampled
        independently), arrays in the order of ``models``.
    n_tasks, n_resamples : int
    confidence_level : float
    """

    models: tuple[str, ...]
    mean_rank: NDArray[np.float64]
    confidence_interval: ArrayConfidenceInterval
    n_tasks: int
    n_resamples: int
    confidence_level: float

    @property
    def statistic(self) -> NDArray[np.float64]:
        """The estimates: each model's mean rank (the array ``mean_rank``)."""
        return self.mean_rank


#: Any array: ``_readonly`` hands back the dtype it was given.
_Array = TypeVar("_Array", bound=NDArray[Any])


def _readonly(array: _Array) -> _Array:
    array.flags.writeable = False
    return array


def _ranks(r: NDArray[np.float64]) -> NDArray[np.int32]:
    """1 + number of models with a strictly higher r, per row of ``r`` (rows x m)."""
    ranks = np.empty(r.shape, dtype=np.int32)
    for k in range(r.shape[1]):
        ranks[:, k] = 1 + np.count_nonzero(r > r[:, k : k + 1], axis=1)
    return ranks


def _win_probabilities(r: NDArray[np.float64]) -> NDArray[np.float64]:
    m = r.shape[1]
    wins = np.empty((m, m))
    for k in range(m):
        column = r[:, k : k + 1]
        wins[k] = np.count_nonzero(column > r, axis=0) + 0.5 * np.count_nonzero(column == r, axis=0)
    return wins / r.shape[0]


# --------------------------------------------------------------------------------------------
# compare_models, step by step: arguments, bootstrap, intervals, ranks, tests, assembly
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _ComparisonInput:
    """The checked arguments of :func:`compare_models`."""

    names: list[str]
    references: NDArray[np.float64]
    predictions: NDArray[np.float64]  # (m x n)
    correlation: str
    method: str
    alternative: str
    adjust: str
    confidence_level: float


def _compare_models_iv(
    predictions: object,
    references: object,
    correlation: object,
    method: object,
    alternative: object,
    adjust: object,
    level: object,
) -> _ComparisonInput:
    if not isinstance(predictions, Mapping):
        raise UserInputTypeError(
            "`predictions` (the first argument) must be a mapping from model name to scores, "
            f"got {type(predictions).__name__}; the order is compare_models(predictions, "
            "references)."
        )
    if len(predictions) < 2:
        raise UserInputError(f"`predictions` needs at least 2 models, got {len(predictions)}.")
    names = [str(name) for name in predictions]
    if len(set(names)) != len(names):
        raise UserInputError("`predictions` has model names that are equal as strings.")
    # Same checks as the per-pair functions: finite, same length, >= 4 items, not constant.
    vectors = as_paired_vectors(
        4,
        references=references,
        **{f"predictions[{name!r}]": v for name, v in zip(names, predictions.values())},
    )
    for array, name in zip(vectors, ["references", *(f"predictions[{n!r}]" for n in names)]):
        check_not_constant(array, name, what="the correlation")
    return _ComparisonInput(
        names=names,
        references=vectors[0],
        predictions=np.vstack(vectors[1:]),
        correlation=check_choice(correlation, "correlation", BOOTSTRAP_CORRELATIONS),
        method=check_choice(method, "method", COMPARISON_METHODS),
        alternative=check_choice(alternative, "alternative", ALTERNATIVES),
        adjust=check_choice(adjust, "adjust", ADJUST_METHODS),
        confidence_level=check_open_unit_interval(level, "confidence_level"),
    )


@dataclass(frozen=True)
class _Bootstrap:
    """Observed, resampled and leave-one-out correlations of every model."""

    observed: NDArray[np.float64]  # (m,)
    resampled: NDArray[np.float64]  # (B x m), NaN where a variable is constant
    jackknife: NDArray[np.float64]  # (m x n)


def _bootstrap_models(
    checked: _ComparisonInput, n_resamples: int, rng: np.random.Generator, *, progress: bool
) -> _Bootstrap:
    """One paired bootstrap shared by all models: the correlations of each in each resample."""
    n = checked.references.size
    engine = CORRELATION_ENGINES[checked.correlation](checked.references, checked.predictions)
    observed = engine.correlations(np.ones((1, n)))[0]
    with progress_bar(n_resamples, "Bootstrap", unit="resample", enabled=progress) as bar:
        parts = []
        for counts in resample_counts(rng, n_resamples, n):
            parts.append(engine.correlations(counts))
            bar.update(counts.shape[0])
    return _Bootstrap(observed, np.concatenate(parts), engine.jackknife().T)


def _pair_blocks(
    m: int, n_resamples: int
) -> list[tuple[NDArray[np.intp], NDArray[np.intp], slice]]:
    """The pairs i < j in blocks that bound the (pairs x resamples) work arrays."""
    first, second = np.triu_indices(m, 1)
    block = max(1, _PAIR_BLOCK_ELEMENTS // max(1, n_resamples))
    return [
        (first[start : start + block], second[start : start + block], slice(start, start + block))
        for start in range(0, first.size, block)
    ]


def _pair_inputs(
    boot: _Bootstrap, standard_errors: NDArray[np.float64] | None
) -> Iterator[tuple[slice, NDArray[np.float64], dict[str, Any]]]:
    """Per block of pairs i < j: where they go, their observed r_i - r_j, and the inputs of the
    interval methods (bootstrap and leave-one-out differences, standard errors)."""
    m = boot.observed.size
    by_model = np.ascontiguousarray(boot.resampled.T)  # (m x B)
    for left, right, where in _pair_blocks(m, by_model.shape[1]):
        inputs = {
            "deltas": by_model[left] - by_model[right],
            "jackknife": boot.jackknife[left] - boot.jackknife[right],
            "standard_error": None if standard_errors is None else standard_errors[where],
        }
        yield where, boot.observed[left] - boot.observed[right], inputs


def _interval_pvalues(
    boot: _Bootstrap, method: str, n: int, standard_errors: NDArray[np.float64] | None
) -> NDArray[np.float64]:
    """The unadjusted p-value of ``method`` (an interval method) for every pair i < j."""
    m = boot.observed.size
    pvalues = np.empty(m * (m - 1) // 2)
    for where, observed, inputs in _pair_inputs(boot, standard_errors):
        pvalues[where] = difference_pvalues(method, observed, n=n, **inputs)
    return pvalues


def _interval_ends(
    boot: _Bootstrap,
    method: str,
    n: int,
    alphas: NDArray[np.float64],
    standard_errors: NDArray[np.float64] | None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The interval of ``method`` of every pair i < j, each at its own level 1 - alphas[k]."""
    low, high = (np.empty(alphas.size) for _ in range(2))
    for where, observed, inputs in _pair_inputs(boot, standard_errors):
        low[where], high[where] = difference_intervals(
            method, observed, alpha=alphas[where], n=n, **inputs
        )
    return low, high


def _twopov_standard_errors(
    checked: _ComparisonInput, observed: NDArray[np.float64], correlations: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The ``"twopov"`` standard error of r_i - r_j of every pair i < j (HC4 per model)."""
    se = hc4_standard_errors(
        checked.predictions, checked.references, correlation=checked.correlation
    )
    first, second = np.triu_indices(observed.size, 1)
    between = correlations[1:, 1:][first, second]
    return twopov_standard_errors(se[first], se[second], observed[first], observed[second], between)


def _pair_alphas(
    pvalues: NDArray[np.float64], adjusted: NDArray[np.float64], alpha: float, adjust: str
) -> NDArray[np.float64]:
    """Per-pair alpha at which the pair's own interval matches the adjusted decision.

    ``alpha * p / p_adjusted``: then ``p < alpha_k`` exactly when ``p_adjusted < alpha``
    (Bonferroni gives alpha / pairs; Holm the level of the step that tested the pair). Where
    both are 0 (every resample on one side), Bonferroni's alpha / pairs is used: the interval
    excludes 0 at any level then.
    """
    if adjust == "none":
        return np.full(pvalues.shape, alpha)
    with np.errstate(invalid="ignore", divide="ignore"):
        alphas = np.where(adjusted > 0.0, alpha * pvalues / adjusted, np.nan)
    tested = max(1, int(np.count_nonzero(~np.isnan(pvalues))))
    return np.where(np.isfinite(alphas), alphas, alpha / tested)


def _defined_resamples(
    resampled: NDArray[np.float64], n_resamples: int, n: int
) -> NDArray[np.float64]:
    """The resamples in which every model has a correlation (the others dropped, warned)."""
    defined = ~np.isnan(resampled).any(axis=1)
    if defined.all():
        return resampled
    if not defined.any():
        raise UserInputError(
            "Every bootstrap resample had a constant variable; the data have too few "
            f"distinct values (n = {n}) for a bootstrap of a correlation."
        )
    warnings.warn(
        f"{int((~defined).sum())} of {n_resamples} bootstrap resamples had a constant "
        "variable (no correlation) and were dropped.",
        RuntimeWarning,
        stacklevel=3,  # user -> compare_models -> here
    )
    return resampled[defined]


def _pair_tests(
    matrix: NDArray[np.float64], n: int, method: str, alternative: str, correlation: str
) -> tuple[NDArray[np.float64], NDArray[np.float64], list[str | None]]:
    """Dependent-correlation test of every pair i < j (models are rows/columns 1.. of matrix).

    Returns the statistics, the p-values (NaN where the test is undefined) and why.
    """
    m = matrix.shape[0] - 1
    first, second = np.triu_indices(m, 1)
    statistics = np.full(first.size, np.nan)
    pvalues = np.full(first.size, np.nan)
    errors: list[str | None] = [None] * first.size
    for index, (i, j) in enumerate(zip(first.tolist(), second.tolist())):
        r1, r2, r12 = matrix[0, i + 1], matrix[0, j + 1], matrix[i + 1, j + 1]
        try:
            check_not_perfect(r1, r2, r12, correlation)
            test = dependent_correlation_test(
                float(r1), float(r2), float(r12), n, method=method, alternative=alternative
            )
        except UserInputError as error:
            errors[index] = str(error)
            continue
        statistics[index], pvalues[index] = test.statistic, test.pvalue
    return statistics, pvalues, errors


def _adjusted(pvalues: NDArray[np.float64], adjust: str) -> NDArray[np.float64]:
    """``pvalues`` adjusted over the pairs that have one (NaN stays NaN)."""
    tested = ~np.isnan(pvalues)
    adjusted = np.full(pvalues.size, np.nan)
    if tested.any():
        adjusted[tested] = adjust_pvalues(pvalues[tested], adjust)
    return adjusted


@dataclass(frozen=True)
class _Decisions:
    """Per pair i < j: statistic, p-value, adjusted p-value, interval, its level, errors."""

    statistics: NDArray[np.float64]
    pvalues: NDArray[np.float64]
    adjusted: NDArray[np.float64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    levels: NDArray[np.float64]
    errors: list[str | None]


def _pair_decisions(
    boot: _Bootstrap,
    checked: _ComparisonInput,
    method: str,
    correlations: NDArray[np.float64],
) -> _Decisions:
    """The one decision of every pair: p-values of ``method``, adjusted over the task's pairs,
    and each pair's interval at the per-pair level that matches its adjusted decision."""
    n = checked.references.size
    alpha = 1.0 - checked.confidence_level
    if method in DEPENDENT_METHODS:
        statistics, pvalues, errors = _pair_tests(
            correlations, n, method, checked.alternative, checked.correlation
        )
    else:
        standard_errors = None
        if method == "twopov":
            standard_errors = _twopov_standard_errors(checked, boot.observed, correlations)
        pvalues = _interval_pvalues(boot, method, n, standard_errors)
        first, second = np.triu_indices(boot.observed.size, 1)
        statistics = difference_statistics(
            method,
            boot.observed[first] - boot.observed[second],
            jackknife=boot.jackknife[first] - boot.jackknife[second],
            standard_error=standard_errors,
        )
        errors = []
        for k, (i, j) in enumerate(zip(first.tolist(), second.tolist())):
            try:
                check_not_perfect(
                    correlations[0, i + 1],
                    correlations[0, j + 1],
                    correlations[i + 1, j + 1],
                    checked.correlation,
                )
            except UserInputError as error:
                errors.append(str(error))
                pvalues[k] = np.nan
                continue
            errors.append(None if np.isfinite(pvalues[k]) else f"{method} undefined here.")
    adjusted = _adjusted(pvalues, checked.adjust)
    alphas = _pair_alphas(pvalues, adjusted, alpha, checked.adjust)
    if method in DEPENDENT_METHODS:
        first, second = np.triu_indices(boot.observed.size, 1)
        low, high = np.full(alphas.size, np.nan), np.full(alphas.size, np.nan)
        for k, (i, j) in enumerate(zip(first.tolist(), second.tolist())):
            if errors[k] is None:
                low[k], high[k] = zou_dependent_interval(
                    float(correlations[0, i + 1]),
                    float(correlations[0, j + 1]),
                    float(correlations[i + 1, j + 1]),
                    n,
                    1.0 - float(alphas[k]),
                    checked.correlation,
                )
    else:
        low, high = _interval_ends(boot, method, n, alphas, standard_errors)
        # a pair without a test (e.g. one model a copy of the other) has no interval either:
        # no decision, and no rank set relies on it
        failed = np.array([error is not None for error in errors], dtype=bool)
        low[failed], high[failed] = np.nan, np.nan
    return _Decisions(statistics, pvalues, adjusted, low, high, 1.0 - alphas, errors)


def _significant(decisions: _Decisions) -> NDArray[np.bool_]:
    """Each pair's one decision: its interval excludes 0 (NaN ends decide nothing)."""
    return np.asarray((decisions.low > 0.0) | (decisions.high < 0.0))


def _rank_sets(
    observed: NDArray[np.float64], decisions: _Decisions, adjust: str, alpha: float
) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    """Each model's rank set from the pair decisions (Mogstad, Romano, Shaikh & Wilhelm 2024).

    The decisions used control the family-wise error over all pairs and are a subset of the
    pairs' own ``significant``: the call's own with ``adjust`` in
    :data:`~sts_extras.stats.multiple.FAMILYWISE_ADJUSTMENTS`, else those that Holm's step-down
    on the same unadjusted p-values makes too. A decision's direction is the sign of the
    observed r_i - r_j.
    """
    decided = _significant(decisions)
    if adjust not in FAMILYWISE_ADJUSTMENTS:
        with np.errstate(invalid="ignore"):
            decided &= _adjusted(decisions.pvalues, "holm") < alpha  # NaN: not decided
    m = observed.size
    first, second = np.triu_indices(m, 1)
    matrix = np.zeros((m, m), dtype=bool)
    matrix[first, second] = matrix[second, first] = decided
    low, high = rank_bounds(matrix, observed[:, None] - observed[None, :])
    return low.astype(np.int32), high.astype(np.int32)


def _pairs(
    names: Sequence[str],
    observed: NDArray[np.float64],
    correlations: NDArray[np.float64],
    decisions: _Decisions,
    alpha: float,
) -> tuple[PairComparison, ...]:
    """One :class:`PairComparison` per pair i < j, from the arrays of the steps above."""
    first, second = np.triu_indices(len(names), 1)
    significant = _significant(decisions)
    pairs = []
    for index, (i, j) in enumerate(zip(first.tolist(), second.tolist())):
        ci_low, ci_high = float(decisions.low[index]), float(decisions.high[index])
        adjusted = float(decisions.adjusted[index])
        pairs.append(
            PairComparison(
                model1=names[i],
                model2=names[j],
                r1=float(observed[i]),
                r2=float(observed[j]),
                r12=float(correlations[i + 1, j + 1]),
                delta=float(observed[i] - observed[j]),
                confidence_interval=ConfidenceInterval(ci_low, ci_high),
                significant=bool(significant[index]),
                statistic=float(decisions.statistics[index]),
                pvalue=float(decisions.pvalues[index]),
                pvalue_adjusted=adjusted,
                confidence_level=float(decisions.levels[index]),
                error=decisions.errors[index],
            )
        )
    return tuple(pairs)


def check_comparison_size(
    n_resamples: object, n_items: int, n_models: int, name: str = "n_resamples"
) -> int:
    """``n_resamples`` if a comparison of ``n_models`` models on ``n_items`` items with it stays
    within the ceilings of :mod:`sts_extras.limits` (resamples, resampled items, bootstrap
    values held at once); a :class:`~sts_extras.errors.UserInputError` naming ``name``
    otherwise. :func:`compare_models` calls it first, and the leaderboard before any model runs.
    """
    n_resamples = check_resample_count(n_resamples, n_items, name)
    check_work(
        {name: n_resamples, "models": n_models},
        MAX_BOOTSTRAP_VALUES,
        what="bootstrap values held at once",
        name=name,
    )
    return n_resamples


def compare_models(
    predictions: Mapping[str, ArrayLike],
    references: ArrayLike,
    *,
    correlation: str = "pearson",
    method: str = "auto",
    alternative: str = "two-sided",
    adjust: str = "holm",
    n_resamples: int = 10000,
    confidence_level: float = 0.95,
    seed: int | np.random.Generator | None = 0,
    progress: bool = False,
) -> ModelComparisonResult:
    r"""Compare every pair of models on one task, and rank the models with the rank sets they leave.

    Parameters
    ----------
    predictions : mapping of str to array_like of float
        Each model's scores for the task's n items (at least 2 models).
    references : array_like of float
        Gold scores of the same items.
    correlation : {"pearson", "spearman"}, default "pearson"
        Correlation with the references (bootstrap, ranks and the dependent test).
    method : str, default "auto"
        The procedure of the pair decisions, one of :data:`COMPARISON_METHODS`: ``"auto"``
        (the calibration suite's choice at this n, by its stated margin rule,
        :data:`~sts_extras.stats.calibration.CHOICE_RULE` -- for several pairs with an
        adjustment, among those whose measured family-wise error is at most 5 %;
        ``result.method`` names it), an interval method of :mod:`sts_extras.stats.intervals`
        (``"twopov"``, ``"adjusted-percentile"``, ``"jackknife-t"``, ``"percentile"``,
        ``"BCa"``), or a closed-form test of
        :data:`~sts_extras.stats.dependent.DEPENDENT_METHODS` (``"meng1992"``, ...; its
        interval is Zou's, and it assumes normal data: see ``docs/calibration.md``).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        Alternative of a closed-form test (``"greater"``: model1's r is higher); the interval
        methods are two-sided.
    adjust : str, default "holm"
        Adjustment over all pairs of the task, one of
        :data:`~sts_extras.stats.multiple.ADJUST_METHODS`. Each pair's ``significant`` is the
        adjusted decision, and its interval is at the per-pair level that matches it.
    n_resamples : int, default 10000
        At most :data:`~sts_extras.limits.MAX_RESAMPLES`; ``n_resamples * n`` at most
        :data:`~sts_extras.limits.MAX_RESAMPLED_ITEMS` and ``n_resamples * models`` at most
        :data:`~sts_extras.limits.MAX_BOOTSTRAP_VALUES` (checked before any work).
    confidence_level : float, default 0.95
        The family's level: one minus the alpha of the adjusted pair decisions, and the
        simultaneous level of the rank sets.
    seed : None, int or numpy.random.Generator, default 0
        The resamples are those of ``bootstrap_correlation_difference(..., seed=seed)``.
    progress : bool, default False
        Show a progress bar over the resamples (stderr).

    Returns
    -------
    ModelComparisonResult

    Raises
    ------
    UserInputTypeError
        If ``predictions`` is not a mapping (e.g. the arguments in the wrong order) or
        ``references`` is one.
    UserInputError
        On fewer than 2 models, length mismatch, NaN/inf, fewer than 4 items, constant scores or
        an unknown option.

    Warns
    -----
    UserWarning
        ``n_resamples < 1000``.
    RuntimeWarning
        Resamples in which a variable is constant (tiny or heavily tied data) are dropped.

    Notes
    -----
    One set of B resample counts (a B x n matrix, drawn in chunks) gives the B x m matrix of
    correlations :math:`r^*_{bk}`; the BCa interval of pair (i, j) uses
    :math:`\Delta^*_b = r^*_{bi} - r^*_{bj}` and the jackknife :math:`r_{(l)i} - r_{(l)j}`
    (Efron 1987). The rank set of model j comes from the pair decisions D (pairs whose
    difference is significant, signed by :math:`r_i - r_j`) that control the family-wise error:
    the pairs' own decisions under Holm or Bonferroni, else the intersection of the pairs'
    decisions with Holm's on the same p-values,

    .. math::

        \text{rank\_low}_j = 1 + \#\{k: (k \succ j) \in D\}, \qquad
        \text{rank\_high}_j = m - \#\{k: (j \succ k) \in D\}

    (the simultaneous rank sets of Mogstad, Romano, Shaikh & Wilhelm 2024, §3, with their
    max-t step-down replaced by the pairs' own adjusted decisions). They hold every true rank
    :math:`1 + \#\{k: \rho_k > \rho_j\}` at once whenever no decision of D is wrong, ties
    included (``docs/calibration.md`` measures them on tied, nearly tied and separated models).
    A percentile interval of the bootstrap ranks is inconsistent under ties and
    near-ties (Hall & Miller 2009): an outside audit measured it holding the worst of four
    equal models' true rank 77-80 % of the time, all four at once 52-54 %, and it could print
    [2, 4] where no pair differed significantly. The rank of model k in resample b
    is :math:`1 + \#\{l: r^*_{bl} > r^*_{bk}\}` (``bootstrap_ranks``), and
    :math:`P(i \succ j) = (\#\{b: r^*_{bi} > r^*_{bj}\} + \tfrac12 \#\{b: r^*_{bi} = r^*_{bj}\})/B`.

    References
    ----------
    .. [1] Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.
    .. [2] Hall, P., Miller, H. (2009). Using the bootstrap to quantify the authority of an
           empirical ranking. Annals of Statistics 37(6B), 3929-3959.
    .. [3] Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks
           with applications to mobility across neighbourhoods and academic achievement across
           countries. Review of Economic Studies 91(1), 476-518.

    Examples
    --------
    >>> import numpy as np
    >>> from sts_extras.stats.model_comparison import compare_models
    >>> rng = np.random.default_rng(0)
    >>> gold = rng.uniform(0, 5, 200)
    >>> models = {f"m{k}": gold + rng.normal(0, 1 + k / 8, 200) for k in range(3)}
    >>> res = compare_models(models, gold, n_resamples=2000, seed=1)
    >>> res.rank.tolist(), res.rank_low.tolist(), res.rank_high.tolist()  # no pair decided
    ([1, 2, 3], [1, 1, 1], [3, 3, 3])
    >>> round(float(res.win_probability[0, 1]), 3)
    0.621
    >>> res.method  # "auto": the suite's choice for Holm-adjusted pairs at n = 200
    'jackknife-t'
    >>> pair = res.pair("m0", "m1")
    >>> low, high = pair.confidence_interval
    >>> round(pair.delta, 3), round(low, 3), round(high, 3), pair.significant
    (0.01, -0.048, 0.068, False)
    """
    checked = _compare_models_iv(
        predictions, references, correlation, method, alternative, adjust, confidence_level
    )
    n, names = checked.references.size, checked.names
    n_resamples = check_comparison_size(n_resamples, n, len(names))
    # user -> compare_models -> warn_few_resamples
    warn_few_resamples(n_resamples, stacklevel=2)
    rng = check_seed(seed)

    # user -> compare_models -> resolve_method or warn_if_uncalibrated
    if checked.method in DEPENDENT_METHODS:
        method = checked.method
        level = measured_for_data(
            method, checked.correlation, checked.references, checked.confidence_level
        )
        warn_if_uncalibrated(level, method, n, stacklevel=2)
    else:
        if checked.alternative != "two-sided":
            raise UserInputError(
                f"method={checked.method!r} gives two-sided intervals and p-values; "
                f"alternative={checked.alternative!r} needs a closed-form test of "
                "DEPENDENT_METHODS."
            )
        pairs = len(names) * (len(names) - 1) // 2
        method, level = resolve_method(
            checked.method,
            checked.correlation,
            n,
            checked.references,
            stacklevel=2,
            family=pairs > 1 and checked.adjust != "none",
            adjust=checked.adjust,
            confidence_level=checked.confidence_level,
        )
    boot = _bootstrap_models(checked, n_resamples, rng, progress=progress)
    resampled = _defined_resamples(boot.resampled, n_resamples, n)
    ranks = _ranks(resampled)
    correlations = correlation_matrix(
        np.vstack([checked.references, checked.predictions]), checked.correlation
    )
    decisions = _pair_decisions(boot, checked, method, correlations)
    alpha = 1.0 - checked.confidence_level
    rank_low, rank_high = _rank_sets(boot.observed, decisions, checked.adjust, alpha)
    return ModelComparisonResult(
        models=tuple(names),
        r=_readonly(boot.observed.copy()),
        rank=_readonly(_ranks(boot.observed[None, :])[0]),
        rank_low=_readonly(rank_low),
        rank_high=_readonly(rank_high),
        win_probability=_readonly(_win_probabilities(resampled)),
        model_correlations=_readonly(correlations[1:, 1:].copy()),
        pairs=_pairs(names, boot.observed, correlations, decisions, alpha),
        n=n,
        n_resamples=int(resampled.shape[0]),
        correlation=checked.correlation,
        method=method,
        alternative=checked.alternative,
        adjust=checked.adjust,
        confidence_level=checked.confidence_level,
        calibration=level,
        bootstrap_ranks=_readonly(ranks),
    )


def mean_rank_across_tasks(
    results: Sequence[ModelComparisonResult], *, confidence_level: float = 0.95
) -> MeanRankResult:
    """Mean rank of each model over tasks, with a bootstrap percentile interval.

    The b-th bootstrap mean rank averages the ranks of the b-th resample of every task; as each
    task was resampled on its own (within the task), this resamples within each task
    independently. Tasks with different numbers of usable resamples are cut to the smallest.

    Parameters
    ----------
    results : sequence of ModelComparisonResult
        One per task, all with the same set of models (in any order).
    confidence_level : float, default 0.95

    Returns
    -------
    MeanRankResult
        Models in the order of the first task.

    Raises
    ------
    UserInputError
        If ``results`` is empty or the tasks do not have the same models.
    """
    level = check_open_unit_interval(confidence_level, "confidence_level")
    results = list(results)
    if not results:
        raise UserInputError("`results` needs at least one task.")
    models = results[0].models
    columns = []
    for index, result in enumerate(results):
        if set(result.models) != set(models) or len(result.models) != len(models):
            raise UserInputError(
                f"Task {index} compares models {sorted(result.models)}, task 0 compares "
                f"{sorted(models)}; a mean rank needs the same models in every task."
            )
        columns.append([result.models.index(name) for name in models])
    size = min(result.bootstrap_ranks.shape[0] for result in results)
    total = np.zeros((size, len(models)))
    observed = np.zeros(len(models))
    for result, order in zip(results, columns):
        total += result.bootstrap_ranks[:size, order]
        observed += result.rank[order]
    means = total / len(results)
    alpha = (1.0 - level) / 2.0
    ci_low, ci_high = np.quantile(means, [alpha, 1.0 - alpha], axis=0)
    return MeanRankResult(
        models=models,
        mean_rank=_readonly(observed / len(results)),
        confidence_interval=ArrayConfidenceInterval(_readonly(ci_low), _readonly(ci_high)),
        n_tasks=len(results),
        n_resamples=size,
        confidence_level=level,
    )


def top_model_detectable_deltas(
    result: ModelComparisonResult,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    method: str | None = None,
    alternative: str = "two-sided",
) -> dict[str, float]:
    """Minimal detectable Δr of the task's top model against each other model.

    For the model with the highest r (the first one on ties) and each other model, the smallest
    r_top - r2 that the dependent-correlation test detects with ``power`` at the task's n, holding
    r_top and the observed correlation between the two models fixed
    (:func:`~sts_extras.stats.power.minimal_detectable_delta`).

    Parameters
    ----------
    result : ModelComparisonResult
    power : float, default 0.8
    alpha : float, default 0.05
    method : str, optional
        Closed-form test whose power is computed (:data:`~sts_extras.stats.dependent.
        DEPENDENT_METHODS`); default the one ``result`` used when it is one, else
        ``"meng1992"`` (a normal-theory approximation of the resampling methods' power;
        ``docs/calibration.md`` compares it with simulated power).
    alternative : str, default "two-sided"

    Returns
    -------
    dict of str to float
        Other model's name -> minimal detectable Δr (NaN where none reaches the power, or where
        the two models are perfectly correlated).
    """
    top = int(np.argmax(result.r))
    out = {}
    for k, name in enumerate(result.models):
        if k == top:
            continue
        r12 = float(result.model_correlations[top, k])
        if abs(r12) >= 1.0 - 1e-12:
            out[name] = float("nan")
            continue
        out[name] = minimal_detectable_delta(
            float(result.r[top]),
            r12,
            result.n,
            power=power,
            method=method
            if method is not None
            else (result.method if result.method in DEPENDENT_METHODS else "meng1992"),
            alpha=alpha,
            alternative=alternative,
        )
    return out
