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
from typing import Any

import numpy as np

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
from sts_extras.stats.bootstrap import (
    BOOTSTRAP_STATISTICS,
    MIN_RECOMMENDED_RESAMPLES,
    check_resample_count,
)
from sts_extras.stats.dependent import (
    ALTERNATIVES,
    DEPENDENT_METHODS,
    check_not_perfect,
    correlation_matrix,
    dependent_correlation_test,
)
from sts_extras.stats.multiple import ADJUST_METHODS, adjust_pvalues
from sts_extras.stats.power import minimal_detectable_delta
from sts_extras.stats.resampling import CORRELATION_ENGINES, bootstrap_intervals, resample_counts

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
    ci_low, ci_high : float
        BCa interval of r1 - r2 (NaN where BCa is undefined, see ``error``).
    significant : bool
        0 lies outside [ci_low, ci_high].
    statistic, pvalue : float
        The dependent-correlation test (NaN where it is undefined, see ``error``).
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
    ci_low: float
    ci_high: float
    significant: bool
    statistic: float
    pvalue: float
    pvalue_adjusted: float
    error: str | None = None


@dataclass(frozen=True)
class ModelComparisonResult:
    """All-pairs comparison of the models of one task (arrays in the order of ``models``).

    Attributes
    ----------
    models : tuple of str
    r : numpy.ndarray
        Each model's correlation with the references.
    rank : numpy.ndarray
        Observed rank (1 = highest r; ties share the best rank).
    rank_low, rank_high : numpy.ndarray
        Bootstrap percentile interval of each model's rank (integers, ``confidence_level``).
    win_probability : numpy.ndarray
        (m x m) share of resamples in which model i has a higher r than model j (ties count
        half, so P[i, j] + P[j, i] = 1; the diagonal is 0.5).
    model_correlations : numpy.ndarray
        (m x m) correlations between the models' predictions (``statistic``).
    pairs : tuple of PairComparison
        Every pair (i < j in model order), model i as ``model1``.
    n, n_resamples : int
        Items, and resamples used for the ranks (resamples where a model has no correlation are
        dropped).
    statistic, method, alternative, adjust : str
    confidence_level : float
    bootstrap_ranks : numpy.ndarray
        (n_resamples x m) rank of every model in every resample, for
        :func:`mean_rank_across_tasks`.
    """

    models: tuple[str, ...]
    r: np.ndarray
    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    win_probability: np.ndarray
    model_correlations: np.ndarray
    pairs: tuple[PairComparison, ...]
    n: int
    n_resamples: int
    statistic: str
    method: str
    alternative: str
    adjust: str
    confidence_level: float
    bootstrap_ranks: np.ndarray = field(repr=False, compare=False)

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
        Mean over the tasks of the observed ranks.
    ci_low, ci_high : numpy.ndarray
        Percentile interval of the mean rank (tasks resampled independently).
    n_tasks, n_resamples : int
    confidence_level : float
    """

    models: tuple[str, ...]
    mean_rank: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n_tasks: int
    n_resamples: int
    confidence_level: float


def _readonly(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _ranks(r: np.ndarray) -> np.ndarray:
    """1 + number of models with a strictly higher r, per row of ``r`` (rows x m)."""
    ranks = np.empty(r.shape, dtype=np.int32)
    for k in range(r.shape[1]):
        ranks[:, k] = 1 + np.count_nonzero(r > r[:, k : k + 1], axis=1)
    return ranks


def _win_probabilities(r: np.ndarray) -> np.ndarray:
    m = r.shape[1]
    wins = np.empty((m, m))
    for k in range(m):
        column = r[:, k : k + 1]
        wins[k] = np.count_nonzero(column > r, axis=0) + 0.5 * np.count_nonzero(column == r, axis=0)
    return wins / r.shape[0]


def _rank_interval(ranks: np.ndarray, confidence_level: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of integer ranks (``inverted_cdf`` keeps the end points integers)."""
    alpha = (1.0 - confidence_level) / 2.0
    low, high = np.quantile(ranks, [alpha, 1.0 - alpha], axis=0, method="inverted_cdf")
    return low.astype(np.int32), high.astype(np.int32)


def _compare_models_iv(references, predictions, statistic, method, alternative, adjust, level):
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
    return (
        names,
        vectors[0],
        np.vstack(vectors[1:]),
        check_choice(statistic, "statistic", BOOTSTRAP_STATISTICS),
        check_choice(method, "method", DEPENDENT_METHODS),
        check_choice(alternative, "alternative", ALTERNATIVES),
        check_choice(adjust, "adjust", ADJUST_METHODS),
        check_open_unit_interval(level, "confidence_level"),
    )


def _pair_tests(matrix, n, method, alternative, statistic):
    """Dependent-correlation test of every pair i < j (models are rows/columns 1.. of matrix)."""
    m = matrix.shape[0] - 1
    first, second = np.triu_indices(m, 1)
    statistics = np.full(first.size, np.nan)
    pvalues = np.full(first.size, np.nan)
    errors: list[str | None] = [None] * first.size
    for index, (i, j) in enumerate(zip(first.tolist(), second.tolist())):
        r_jk, r_jh, r_kh = matrix[0, i + 1], matrix[0, j + 1], matrix[i + 1, j + 1]
        try:
            check_not_perfect(r_jk, r_jh, r_kh, statistic)
            test = dependent_correlation_test(
                float(r_jk), float(r_jh), float(r_kh), n, method=method, alternative=alternative
            )
        except UserInputError as error:
            errors[index] = str(error)
            continue
        statistics[index], pvalues[index] = test.statistic, test.pvalue
    return first, second, statistics, pvalues, errors


def check_comparison_size(
    n_resamples: Any, n_items: int, n_models: int, name: str = "n_resamples"
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
    references: Any,
    predictions: Mapping[str, Any],
    *,
    statistic: str = "pearson",
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
    references : array_like of float
        Gold scores of the task's n items.
    predictions : mapping of str to array_like of float
        Each model's scores for the same items (at least 2 models).
    statistic : {"pearson", "spearman"}, default "pearson"
        Correlation with the references (bootstrap, ranks and the dependent test).
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
    >>> res = compare_models(gold, models, n_resamples=2000, seed=1)
    >>> res.rank.tolist(), res.rank_low.tolist(), res.rank_high.tolist()
    ([1, 2, 3], [1, 1, 2], [2, 3, 3])
    >>> round(float(res.win_probability[0, 1]), 3)
    0.621
    >>> pair = res.pair("m0", "m1")
    >>> round(pair.delta, 3), round(pair.ci_low, 3), round(pair.ci_high, 3)
    (0.01, -0.04, 0.073)
    """
    names, reference, matrix_x, statistic, method, alternative, adjust, level = _compare_models_iv(
        references, predictions, statistic, method, alternative, adjust, confidence_level
    )
    n_resamples = check_comparison_size(n_resamples, reference.size, len(names))
    if n_resamples < MIN_RECOMMENDED_RESAMPLES:
        warnings.warn(
            f"n_resamples={n_resamples} is below {MIN_RECOMMENDED_RESAMPLES}: the interval's end "
            "points (especially BCa's) will be noisy; 10000 is the usual choice.",
            UserWarning,
            stacklevel=2,
        )
    rng = check_seed(seed)
    n, m = reference.size, len(names)

    engine = CORRELATION_ENGINES[statistic](reference, matrix_x)
    observed = engine.correlations(np.ones((1, n)))[0]
    with progress_bar(n_resamples, "Bootstrap", unit="resample", enabled=progress) as bar:
        parts = []
        for counts in resample_counts(rng, n_resamples, n):
            parts.append(engine.correlations(counts))
            bar.update(counts.shape[0])
    boot = np.concatenate(parts)
    jackknife = engine.jackknife().T  # (m x n)
    by_model = np.ascontiguousarray(boot.T)  # (m x B)

    first, second = np.triu_indices(m, 1)
    n_pairs = first.size
    low, high, z0 = (np.empty(n_pairs) for _ in range(3))
    block = max(1, _PAIR_BLOCK_ELEMENTS // n_resamples)
    for start in range(0, n_pairs, block):
        left, right = first[start : start + block], second[start : start + block]
        intervals = bootstrap_intervals(
            by_model[left] - by_model[right],
            observed[left] - observed[right],
            confidence_level=level,
            jackknife=jackknife[left] - jackknife[right],
        )
        low[start : start + block] = intervals.low
        high[start : start + block] = intervals.high
        z0[start : start + block] = intervals.bias_correction

    defined = ~np.isnan(boot).any(axis=1)
    if not defined.all():
        if not defined.any():
            raise UserInputError(
                "Every bootstrap resample had a constant variable; the data have too few "
                f"distinct values (n = {n}) for a bootstrap of a correlation."
            )
        warnings.warn(
            f"{int((~defined).sum())} of {n_resamples} bootstrap resamples had a constant "
            "variable (no correlation) and were dropped.",
            RuntimeWarning,
            stacklevel=2,
        )
        boot = boot[defined]
    ranks = _ranks(boot)
    rank_low, rank_high = _rank_interval(ranks, level)

    correlations = correlation_matrix(np.vstack([reference, matrix_x]), statistic)
    _, _, statistics, pvalues, errors = _pair_tests(correlations, n, method, alternative, statistic)
    tested = ~np.isnan(pvalues)
    adjusted = np.full(n_pairs, np.nan)
    if tested.any():
        adjusted[tested] = adjust_pvalues(pvalues[tested], adjust)

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
                ci_low=ci_low,
                ci_high=ci_high,
                significant=bool(ci_low > 0.0 or ci_high < 0.0),
                statistic=float(statistics[index]),
                pvalue=float(pvalues[index]),
                pvalue_adjusted=float(adjusted[index]),
                error=error,
            )
        )
    return ModelComparisonResult(
        models=tuple(names),
        r=_readonly(observed.copy()),
        rank=_readonly(_ranks(observed[None, :])[0]),
        rank_low=_readonly(rank_low),
        rank_high=_readonly(rank_high),
        win_probability=_readonly(_win_probabilities(boot)),
        model_correlations=_readonly(correlations[1:, 1:].copy()),
        pairs=tuple(pairs),
        n=n,
        n_resamples=int(boot.shape[0]),
        statistic=statistic,
        method=method,
        alternative=alternative,
        adjust=adjust,
        confidence_level=level,
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
        ci_low=_readonly(ci_low),
        ci_high=_readonly(ci_high),
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
