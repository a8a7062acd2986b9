"""All-pairs comparison of many models on one task, rank intervals and win probabilities.

For m models scored on the same n items of a task, :func:`compare_models` draws one paired
bootstrap of the items, shared by all models (every model's correlation is computed on the same
resampled item sets), and derives from it

* for every pair of models, Δr with its BCa interval, plus the dependent-correlation test of
  :mod:`sts_extras.stats.dependent` and p-values adjusted over all pairs of the task;
* each model's rank interval and the matrix of win probabilities P(r_i > r_j).

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
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._deprecation import deprecated_property, renamed_keywords, warn_renamed
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
    warn_few_resamples,
)
from sts_extras.stats.dependent import (
    ALTERNATIVES,
    DEPENDENT_METHODS,
    dependent_correlation_test,
)
from sts_extras.stats.multiple import ADJUST_METHODS, adjust_pvalues
from sts_extras.stats.power import minimal_detectable_delta
from sts_extras.stats.resampling import CORRELATION_ENGINES, bootstrap_intervals, resample_counts
from sts_extras.stats.results import ArrayConfidenceInterval, ConfidenceInterval

__all__ = [
    "MeanRankResult",
    "ModelComparisonResult",
    "PairComparison",
    "check_comparison_size",
    "compare_models",
    "mean_rank_across_tasks",
    "top_model_detectable_deltas",
]

# Pairs per block of the vectorised BCa step: bounds the (pairs x resamples) work arrays.
_PAIR_BLOCK_ELEMENTS = 1 << 21


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
        BCa interval ``(low, high)`` of r1 - r2 (NaN where BCa is undefined, see ``error``).
    significant : bool
        0 lies outside the interval.
    statistic, pvalue : float
        The test statistic and p-value of the dependent-correlation test (NaN where it is
        undefined, see ``error``).
    pvalue_adjusted : float
        ``pvalue`` adjusted over all pairs of the task with a defined p-value.
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
    error: str | None = None

    ci_low = deprecated_property(
        "ci_low", "confidence_interval.low", lambda self: self.confidence_interval.low
    )
    ci_high = deprecated_property(
        "ci_high", "confidence_interval.high", lambda self: self.confidence_interval.high
    )


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
        Bootstrap percentile interval of each model's rank (integers, ``confidence_level``).
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
        ``"pearson"`` or ``"spearman"`` (``statistic`` in sts-extras 0.2).
    method, alternative, adjust : str
        The dependent-correlation test, its alternative and the p-value adjustment.
    confidence_level : float
    bootstrap_ranks : numpy.ndarray
        (n_resamples x m) rank of every model in every resample, for
        :func:`mean_rank_across_tasks`.
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
    bootstrap_ranks: NDArray[np.int32] = field(repr=False, compare=False)

    @property
    def statistic(self) -> NDArray[np.float64]:
        """The estimates: each model's correlation with the references (the array ``r``).

        In sts-extras 0.2 this was the name of the correlation, now ``correlation``.
        """
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

    ci_low = deprecated_property(
        "ci_low", "confidence_interval.low", lambda self: self.confidence_interval.low
    )
    ci_high = deprecated_property(
        "ci_high", "confidence_interval.high", lambda self: self.confidence_interval.high
    )


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


def _rank_interval(
    ranks: NDArray[np.int32], confidence_level: float
) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    """Percentile interval of integer ranks (``inverted_cdf`` keeps the end points integers)."""
    alpha = (1.0 - confidence_level) / 2.0
    low, high = np.quantile(ranks, [alpha, 1.0 - alpha], axis=0, method="inverted_cdf")
    return low.astype(np.int32), high.astype(np.int32)


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


def _predictions_first(predictions: object, references: object) -> tuple[object, object]:
    """(predictions, references), accepting sts-extras 0.2's order (references, predictions).

    The types tell the orders apart: the predictions are a mapping of model name to scores, the
    references an array of gold scores.
    """
    if not isinstance(predictions, Mapping) and isinstance(references, Mapping):
        warn_renamed(
            "compare_models(references, predictions)",
            "compare_models(predictions, references)",
            where="compare_models()",
            stacklevel=5,  # user -> wrapper -> compare_models -> here -> warn_renamed
        )
        return references, predictions
    return predictions, references


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
            "`predictions` must be a mapping from model name to scores, got "
            f"{type(predictions).__name__}."
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
        method=check_choice(method, "method", DEPENDENT_METHODS),
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


def _pair_intervals(
    boot: _Bootstrap, confidence_level: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(low, high, bias correction) of the BCa interval of r_i - r_j of every pair i < j."""
    m, n_resamples = boot.observed.size, boot.resampled.shape[0]
    by_model = np.ascontiguousarray(boot.resampled.T)  # (m x B)
    first, second = np.triu_indices(m, 1)
    n_pairs = first.size
    low, high, z0 = (np.empty(n_pairs) for _ in range(3))
    block = max(1, _PAIR_BLOCK_ELEMENTS // n_resamples)
    for start in range(0, n_pairs, block):
        left, right = first[start : start + block], second[start : start + block]
        intervals = bootstrap_intervals(
            by_model[left] - by_model[right],
            boot.observed[left] - boot.observed[right],
            confidence_level=confidence_level,
            jackknife=boot.jackknife[left] - boot.jackknife[right],
        )
        low[start : start + block] = intervals.low
        high[start : start + block] = intervals.high
        z0[start : start + block] = intervals.bias_correction
    return low, high, z0


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
        stacklevel=4,  # user -> wrapper -> compare_models -> here
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


def _pairs(
    names: Sequence[str],
    observed: NDArray[np.float64],
    correlations: NDArray[np.float64],
    intervals: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
    tests: tuple[NDArray[np.float64], NDArray[np.float64], list[str | None]],
    adjusted: NDArray[np.float64],
) -> tuple[PairComparison, ...]:
    """One :class:`PairComparison` per pair i < j, from the arrays of the steps above."""
    low, high, z0 = intervals
    statistics, pvalues, errors = tests
    first, second = np.triu_indices(len(names), 1)
    pairs = []
    for index, (i, j) in enumerate(zip(first.tolist(), second.tolist())):
        error = errors[index]
        if not np.isfinite(z0[index]):
            error = (
                "BCa interval undefined: every bootstrap delta lies on one side of the observed "
                "delta (infinite bias correction)." + (f" {error}" if error else "")
            )
        ci_low, ci_high = float(low[index]), float(high[index])
        pairs.append(
            PairComparison(
                model1=names[i],
                model2=names[j],
                r1=float(observed[i]),
                r2=float(observed[j]),
                r12=float(correlations[i + 1, j + 1]),
                delta=float(observed[i] - observed[j]),
                confidence_interval=ConfidenceInterval(ci_low, ci_high),
                significant=bool(ci_low > 0.0 or ci_high < 0.0),
                statistic=float(statistics[index]),
                pvalue=float(pvalues[index]),
                pvalue_adjusted=float(adjusted[index]),
                error=error,
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


@renamed_keywords(statistic="correlation")
def compare_models(
    predictions: Mapping[str, ArrayLike],
    references: ArrayLike,
    *,
    correlation: str = "pearson",
    method: str = "meng1992",
    alternative: str = "two-sided",
    adjust: str = "holm",
    n_resamples: int = 10000,
    confidence_level: float = 0.95,
    seed: int | np.random.Generator | None = 0,
    progress: bool = False,
) -> ModelComparisonResult:
    r"""Compare every pair of models on one task, and rank the models with bootstrap intervals.

    Parameters
    ----------
    predictions : mapping of str to array_like of float
        Each model's scores for the task's n items (at least 2 models).
    references : array_like of float
        Gold scores of the same items. (sts-extras 0.2 took ``(references, predictions)``; that
        order still works until 0.4, with a ``DeprecationWarning``: the mapping is recognised.)
    correlation : {"pearson", "spearman"}, default "pearson"
        Correlation with the references (bootstrap, ranks and the dependent test). The old
        keyword ``statistic=`` still works until sts-extras 0.4, with a ``DeprecationWarning``.
    method : str, default "meng1992"
        Dependent-correlation test, one of
        :data:`~sts_extras.stats.dependent.DEPENDENT_METHODS`.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        Alternative of the test (``"greater"``: model1's r is higher).
    adjust : str, default "holm"
        p-value adjustment over all pairs of the task, one of
        :data:`~sts_extras.stats.multiple.ADJUST_METHODS`.
    n_resamples : int, default 10000
        At most :data:`~sts_extras.limits.MAX_RESAMPLES`; ``n_resamples * n`` at most
        :data:`~sts_extras.limits.MAX_RESAMPLED_ITEMS` and ``n_resamples * models`` at most
        :data:`~sts_extras.limits.MAX_BOOTSTRAP_VALUES` (checked before any work).
    confidence_level : float, default 0.95
        Level of the BCa intervals of Δr and of the rank intervals.
    seed : None, int or numpy.random.Generator, default 0
        The resamples are those of ``bootstrap_correlation_difference(..., seed=seed)``.
    progress : bool, default False
        Show a progress bar over the resamples (stderr).

    Returns
    -------
    ModelComparisonResult

    Raises
    ------
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
    (Efron 1987). The rank of model k in resample b is :math:`1 + \#\{l: r^*_{bl} > r^*_{bk}\}`;
    its interval is the percentile interval of those ranks (Hall & Miller 2009), and
    :math:`P(i \succ j) = (\#\{b: r^*_{bi} > r^*_{bj}\} + \tfrac12 \#\{b: r^*_{bi} = r^*_{bj}\})/B`.

    Examples
    --------
    >>> import numpy as np
    >>> from sts_extras.stats.model_comparison import compare_models
    >>> rng = np.random.default_rng(0)
    >>> gold = rng.uniform(0, 5, 200)
    >>> models = {f"m{k}": gold + rng.normal(0, 1 + k / 8, 200) for k in range(3)}
    >>> res = compare_models(models, gold, n_resamples=2000, seed=1)
    >>> res.rank.tolist(), res.rank_low.tolist(), res.rank_high.tolist()
    ([1, 2, 3], [1, 1, 2], [2, 3, 3])
    >>> round(float(res.win_probability[0, 1]), 3)
    0.621
    >>> pair = res.pair("m0", "m1")
    >>> low, high = pair.confidence_interval
    >>> round(pair.delta, 3), round(low, 3), round(high, 3)
    (0.01, -0.04, 0.073)
    """
    scores, gold = _predictions_first(predictions, references)
    checked = _compare_models_iv(
        scores, gold, correlation, method, alternative, adjust, confidence_level
    )
    n, names = checked.references.size, checked.names
    n_resamples = check_comparison_size(n_resamples, n, len(names))
    # user -> wrapper of renamed_keywords -> compare_models -> warn_few_resamples
    warn_few_resamples(n_resamples, stacklevel=3)
    rng = check_seed(seed)

    boot = _bootstrap_models(checked, n_resamples, rng, progress=progress)
    intervals = _pair_intervals(boot, checked.confidence_level)
    resampled = _defined_resamples(boot.resampled, n_resamples, n)
    ranks = _ranks(resampled)
    rank_low, rank_high = _rank_interval(ranks, checked.confidence_level)
    correlations = correlation_matrix(
        np.vstack([checked.references, checked.predictions]), checked.correlation
    )
    tests = _pair_tests(correlations, n, checked.method, checked.alternative, checked.correlation)
    adjusted = _adjusted(tests[1], checked.adjust)
    return ModelComparisonResult(
        models=tuple(names),
        r=_readonly(boot.observed.copy()),
        rank=_readonly(_ranks(boot.observed[None, :])[0]),
        rank_low=_readonly(rank_low),
        rank_high=_readonly(rank_high),
        win_probability=_readonly(_win_probabilities(resampled)),
        model_correlations=_readonly(correlations[1:, 1:].copy()),
        pairs=_pairs(names, boot.observed, correlations, intervals, tests, adjusted),
        n=n,
        n_resamples=int(resampled.shape[0]),
        correlation=checked.correlation,
        method=checked.method,
        alternative=checked.alternative,
        adjust=checked.adjust,
        confidence_level=checked.confidence_level,
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
        Test; default the one ``result`` used.
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
            method=result.method if method is None else method,
            alpha=alpha,
            alternative=alternative,
        )
    return out
