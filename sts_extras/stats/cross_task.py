"""Ranking many models across tasks when only task-level scores exist.

A published leaderboard gives one correlation per model and task, and nothing per pair of
sentences. This module gives what such a table supports, in two levels:

* **Within a task**, a score's sampling uncertainty follows from the task's n alone (Fisher's z;
  Bonett & Wright (2000) for Spearman): :func:`task_score_uncertainty`. The difference of two
  models on one task also depends on the correlation between the two estimates' errors, which the
  table does not hold: :func:`task_difference` states the assumption it uses and the smallest
  error correlation at which the difference would be significant.
* **Across tasks**, the task is the unit: the Friedman test with the Nemenyi critical difference
  and its groups (Demšar 2006; as ``autorank`` draws them), :func:`friedman_nemenyi`; the Bayesian
  signed-rank test with a region of practical equivalence (Benavoli et al. 2014, 2017; as
  ``baycomp``'s ``SignedRankTest``), :func:`bayesian_signed_rank`, vectorised over many pairs;
  simultaneous rank confidence sets and the confidence set of the best model (Mogstad, Romano,
  Shaikh & Wilhelm 2024), :func:`rank_confidence_sets`, which resample the tasks and optionally
  the items within each task; and the count of separable adjacent pairs of a ranking,
  :func:`adjacent_separability`.

Missing tasks (incomplete blocks): :func:`rank_confidence_sets` compares each pair of models on
the tasks both have (a difference of means over the common tasks, resampled with the tasks), and
:func:`bayesian_signed_rank` takes NaN for a task a pair does not share. The Friedman test needs
complete blocks.

References
----------
.. [1] Bonett, D. G. & Wright, T. A. (2000). Sample size requirements for estimating Pearson,
       Kendall and Spearman correlations. Psychometrika 65(1), 23-28.
.. [2] Zou, G. Y. (2007). Toward using confidence intervals to compare correlations.
       Psychological Methods 12(4), 399-413.
.. [3] Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. JMLR 7,
       1-30.
.. [4] Benavoli, A., Corani, G., Mangili, F., Zaffalon, M. & Ruggeri, F. (2014). A Bayesian
       Wilcoxon signed-rank test based on the Dirichlet process. ICML, PMLR 32, 1026-1034.
.. [5] Benavoli, A., Corani, G., Demšar, J. & Zaffalon, M. (2017). Time for a change: a tutorial
       for comparing multiple classifiers through Bayesian analysis. JMLR 18(77), 1-36.
.. [6] Hall, P. (1992). The Bootstrap and Edgeworth Expansion. Springer.
.. [7] Romano, J. P. & Wolf, M. (2005). Exact and approximate stepdown methods for multiple
       hypothesis testing. JASA 100(469), 94-108.
.. [8] Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks with
       applications to mobility across neighbourhoods and academic achievement across countries.
       Review of Economic Studies 91(1), 476-518.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from sts_extras._validation import (
    as_real_array,
    check_choice,
    check_count,
    check_open_unit_interval,
    check_seed,
)
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.stats._common import fisher_limits, fisher_z_variance, mover_difference_limits
from sts_extras.stats.results import ArrayConfidenceInterval

__all__ = [
    "AdjacentPair",
    "AdjacentSeparability",
    "BayesianSignedRankResult",
    "FriedmanNemenyiResult",
    "RankSetsResult",
    "TaskDifference",
    "TaskScoreUncertainty",
    "adjacent_separability",
    "bayesian_signed_rank",
    "friedman_nemenyi",
    "rank_confidence_sets",
    "task_difference",
    "task_score_uncertainty",
]

_CORRELATIONS = ("spearman", "pearson")
_UNCERTAINTIES = ("auto", "across-tasks", "within-task")
#: Most resamples / posterior samples one call may draw (bounded memory and time).
_MAX_RESAMPLES = 100_000
_MAX_POSTERIOR_SAMPLES = 1_000_000
#: Elements of one block of resampled differences (chunk x models x models): 32 MB in float64.
_BLOCK_ELEMENTS = 4_000_000
#: Resampled t statistics kept between step-down passes: at most 48M float32 (192 MB), e.g.
#: 1,000 resamples of 180 models (32M); above it each pass recomputes them.
_CACHE_ELEMENTS = 48_000_000


def _readonly(values: Any) -> NDArray[Any]:
    array = np.asarray(values)  # a 0-d result of scalar arithmetic becomes an array
    array.flags.writeable = False
    return array


def _finite_or_missing(values: object, name: str, *, ndim: int, allow_nan: bool) -> NDArray[Any]:
    array = np.asarray(as_real_array(values, name), dtype=np.float64)
    if array.ndim != ndim:
        raise UserInputError(
            f"`{name}` must be a {ndim}-D array, got shape {array.shape}"
            + (" (n_tasks, n_models)" if ndim == 2 else "")
            + "."
        )
    if np.isinf(array).any() or (not allow_nan and np.isnan(array).any()):
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        kind = "infinite or NaN" if not allow_nan else "infinite"
        raise UserInputError(f"`{name}` holds an {kind} value at index {where}.")
    return array


def _check_scores(
    scores: object, *, allow_nan: bool = False, min_tasks: int = 2
) -> NDArray[np.float64]:
    array = _finite_or_missing(scores, "scores", ndim=2, allow_nan=allow_nan)
    n_tasks, n_models = array.shape
    if n_tasks < min_tasks:
        raise UserInputError(
            f"`scores` needs at least 2 tasks (rows), got {n_tasks}: across tasks the task is the "
            "unit of replication."
        )
    if n_models < 2:
        raise UserInputError(f"`scores` needs at least 2 models (columns), got {n_models}.")
    return array


def _model_names(models: Sequence[str] | None, n_models: int) -> tuple[str, ...]:
    if models is None:
        return tuple(str(index) for index in range(n_models))
    if isinstance(models, str):
        raise UserInputTypeError("`models` must be a sequence of names, got a string.")
    names = tuple(str(name) for name in models)
    if len(names) != n_models:
        raise UserInputError(
            f"`models` has {len(names)} names but `scores` has {n_models} columns (models)."
        )
    if len(set(names)) != len(names):
        raise UserInputError("`models` holds a name twice; each model needs its own name.")
    return names


def _check_n(n: object, shape: tuple[int, ...], name: str = "n") -> NDArray[np.float64]:
    array = np.asarray(as_real_array(n, name), dtype=np.float64)
    if not np.isfinite(array).all() or (array != np.round(array)).any() or (array < 4).any():
        raise UserInputError(
            f"`{name}` must hold whole numbers of test pairs, at least 4 each (Fisher's z "
            "divides by n - 3)."
        )
    try:
        return np.broadcast_to(array, shape)
    except ValueError:
        raise UserInputError(
            f"`{name}` has shape {array.shape}, which does not match the scores' {shape}."
        ) from None


def _check_correlations(values: object, name: str) -> NDArray[np.float64]:
    array = np.asarray(as_real_array(values, name), dtype=np.float64)
    if not np.isfinite(array).all() or (np.abs(array) >= 1.0).any():
        raise UserInputError(
            f"`{name}` must hold correlations strictly between -1 and 1 (on the 0-1 scale, "
            "not 0-100); Fisher's z is infinite at +-1."
        )
    return array


# --------------------------------------------------------------------------------------------
# Within one task: the uncertainty of a published score from n
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskScoreUncertainty:
    """The sampling uncertainty of correlation scores from their task's n (Fisher's z).

    Attributes
    ----------
    score, n : numpy.ndarray
        The correlations and their numbers of test pairs (broadcast to one shape).
    z, z_standard_error : numpy.ndarray
        ``atanh(score)`` and its standard error, ``sqrt(1 / (n - 3))`` (Pearson) or
        ``sqrt((1 + score^2 / 2) / (n - 3))`` (Spearman; Bonett & Wright 2000, eq. 3).
    standard_error : numpy.ndarray
        The standard error of the score itself (delta method: ``z_standard_error (1 - score^2)``).
    confidence_interval : ArrayConfidenceInterval
        ``tanh(z -+ q z_standard_error)``, with q the normal quantile of the level.
    correlation : str
    confidence_level : float
    """

    score: NDArray[np.float64]
    n: NDArray[np.float64]
    z: NDArray[np.float64]
    z_standard_error: NDArray[np.float64]
    standard_error: NDArray[np.float64]
    confidence_interval: ArrayConfidenceInterval
    correlation: str
    confidence_level: float


def task_score_uncertainty(
    scores: object,
    n: object,
    *,
    correlation: str = "spearman",
    confidence_level: float = 0.95,
) -> TaskScoreUncertainty:
    """Standard error and interval of published correlation scores from the task's n alone.

    Fisher's z of a Pearson correlation has variance ``1 / (n - 3)``; for Spearman's rho
    Bonett & Wright (2000, eq. 3) give ``(1 + r^2 / 2) / (n - 3)``, which holds well for
    ``|r| <= 0.9`` under near-normal data. The interval is ``tanh(z -+ q se_z)``.

    Parameters
    ----------
    scores : array_like
        Correlations in (-1, 1) (MTEB's main scores on the 0-1 scale), any shape.
    n : array_like
        Test pairs of each score's task, broadcastable to ``scores`` (e.g. shape ``(n_tasks, 1)``
        against ``(n_tasks, n_models)``); whole numbers >= 4.
    correlation : {"spearman", "pearson"}
    confidence_level : float, default 0.95

    Returns
    -------
    TaskScoreUncertainty

    Raises
    ------
    UserInputError
        A score outside (-1, 1), a NaN, an ``n`` below 4 or not whole, shapes that do not match.
    """
    correlation = check_choice(correlation, "correlation", _CORRELATIONS)
    level = check_open_unit_interval(confidence_level, "confidence_level")
    r = _check_correlations(scores, "scores")
    counts = _check_n(n, np.broadcast_shapes(np.shape(r), np.shape(np.asarray(n))))
    r = np.broadcast_to(r, counts.shape).astype(np.float64)
    z = np.arctanh(r)
    se_z = np.sqrt(fisher_z_variance(r, counts, correlation))
    low, high = fisher_limits(r, counts, level, correlation)
    return TaskScoreUncertainty(
        score=_readonly(r),
        n=_readonly(np.array(counts, dtype=np.float64)),
        z=_readonly(z),
        z_standard_error=_readonly(se_z),
        standard_error=_readonly(se_z * (1.0 - r**2)),
        confidence_interval=ArrayConfidenceInterval(_readonly(low), _readonly(high)),
        correlation=correlation,
        confidence_level=level,
    )


@dataclass(frozen=True)
class TaskDifference:
    """The difference of two models' scores on one task, under a stated error correlation.

    Without per-pair predictions the correlation between the two estimates' sampling errors,
    rho_e = corr(z1, z2) over repeated samples of the task's items, is unknown. Two models scored
    on the same items against the same gold have positively correlated errors (rho_e > 0 as a
    rule), and a larger rho_e makes the difference *more* precise; rho_e = 0 (independent
    samples) gives the widest interval of that range, hence the default.

    Attributes
    ----------
    difference : numpy.ndarray
        ``score1 - score2``.
    confidence_interval : ArrayConfidenceInterval
        Zou's (2007, eq. 12-13) interval of the difference at ``error_correlation``.
    pvalue : numpy.ndarray
        Two-sided p-value of ``(z1 - z2) / sqrt(v1 + v2 - 2 rho_e sqrt(v1 v2))``.
    error_correlation : numpy.ndarray
        The assumed rho_e.
    critical_error_correlation : numpy.ndarray
        The smallest rho_e at which the z test is significant at ``1 - confidence_level``:
        ``(v1 + v2 - ((z1 - z2) / q)^2) / (2 sqrt(v1 v2))``. At most 0: significant even for
        independent errors; at least 1: significant for no rho_e. This is what the table cannot
        settle: the difference is significant if and only if the models' errors correlate more.
    correlation : str
    confidence_level : float
    """

    difference: NDArray[np.float64]
    confidence_interval: ArrayConfidenceInterval
    pvalue: NDArray[np.float64]
    error_correlation: NDArray[np.float64]
    critical_error_correlation: NDArray[np.float64]
    correlation: str
    confidence_level: float


def task_difference(
    score1: object,
    score2: object,
    n: object,
    *,
    correlation: str = "spearman",
    error_correlation: object = 0.0,
    confidence_level: float = 0.95,
) -> TaskDifference:
    """Interval of ``score1 - score2`` on one task when only the two scores and n are known.

    The variance of ``z1 - z2`` is ``v1 + v2 - 2 rho_e sqrt(v1 v2)`` (``v`` from
    :func:`task_score_uncertainty`), with rho_e the correlation between the two estimates'
    sampling errors. The table does not give rho_e: it is an explicit argument (default 0, the
    widest interval among rho_e >= 0), and ``critical_error_correlation`` gives the value of
    rho_e above which the difference becomes significant. The interval is Zou's (2007)
    combination of the two single-score intervals with correlation rho_e.

    Parameters
    ----------
    score1, score2 : array_like
        Correlations in (-1, 1), broadcastable to one shape.
    n : array_like
        Test pairs of the task(s), whole numbers >= 4, broadcastable.
    correlation : {"spearman", "pearson"}
    error_correlation : float or array_like, default 0.0
        The assumed rho_e in [-1, 1].
    confidence_level : float, default 0.95

    Returns
    -------
    TaskDifference
    """
    correlation = check_choice(correlation, "correlation", _CORRELATIONS)
    level = check_open_unit_interval(confidence_level, "confidence_level")
    r1 = _check_correlations(score1, "score1")
    r2 = _check_correlations(score2, "score2")
    rho = np.asarray(as_real_array(error_correlation, "error_correlation"), dtype=np.float64)
    if not np.isfinite(rho).all() or (np.abs(rho) > 1.0).any():
        raise UserInputError("`error_correlation` must lie in [-1, 1].")
    try:
        shape = np.broadcast_shapes(r1.shape, r2.shape, rho.shape, np.shape(np.asarray(n)))
    except ValueError:
        raise UserInputError(
            f"`score1` {r1.shape}, `score2` {r2.shape}, `n` and `error_correlation` do not "
            "broadcast to one shape."
        ) from None
    counts = _check_n(n, shape)
    r1, r2, rho = (np.broadcast_to(a, shape) for a in (r1, r2, rho))
    one = task_score_uncertainty(r1, counts, correlation=correlation, confidence_level=level)
    two = task_score_uncertainty(r2, counts, correlation=correlation, confidence_level=level)
    l1, u1 = one.confidence_interval
    l2, u2 = two.confidence_interval
    d = r1 - r2
    low, high = mover_difference_limits(r1, l1, u1, r2, l2, u2, rho)  # Zou (2007), eq. 12-13
    v1, v2 = one.z_standard_error**2, two.z_standard_error**2
    dz = one.z - two.z
    var = np.maximum(v1 + v2 - 2 * rho * np.sqrt(v1 * v2), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(var > 0, np.abs(dz) / np.sqrt(var), np.where(dz == 0, 0.0, np.inf))
    q = stats.norm.ppf(0.5 + level / 2.0)
    critical = (v1 + v2 - (dz / q) ** 2) / (2.0 * np.sqrt(v1 * v2))
    return TaskDifference(
        difference=_readonly(np.array(d)),
        confidence_interval=ArrayConfidenceInterval(_readonly(low), _readonly(high)),
        pvalue=_readonly(np.array(2.0 * stats.norm.sf(t))),
        error_correlation=_readonly(np.array(rho, dtype=np.float64)),
        critical_error_correlation=_readonly(np.array(critical)),
        correlation=correlation,
        confidence_level=level,
    )


# --------------------------------------------------------------------------------------------
# Across tasks: Friedman and Nemenyi (Demšar 2006)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FriedmanNemenyiResult:
    """Friedman's test over tasks and Nemenyi's critical difference (Demšar 2006, §3.2.2).

    Attributes
    ----------
    models : tuple of str
    mean_rank : numpy.ndarray
        Each model's rank averaged over the tasks (1 = the highest score; ties share the mean
        rank), in the order of ``models``.
    statistic, pvalue : float
        Friedman's chi-square (with the tie correction scipy applies) on k - 1 degrees of
        freedom, and its p-value (Demšar 2006, eq. 1).
    iman_davenport, iman_davenport_pvalue : float
        Iman & Davenport's F = (N - 1) chi2 / (N (k - 1) - chi2) on (k - 1, (k - 1)(N - 1))
        degrees of freedom (Demšar 2006, eq. 2), less conservative than the chi-square.
    critical_difference : float
        ``q_alpha sqrt(k (k + 1) / (6 N))``, q_alpha the studentized range quantile (k means,
        infinite df) over sqrt(2) (Demšar 2006, §3.2.2).
    separable : numpy.ndarray
        (k, k) booleans: the two mean ranks differ by more than the critical difference (the
        Nemenyi test rejects equal performance). Demšar runs the post-hoc test only when the
        Friedman test rejects; :func:`adjacent_separability` applies that gate.
    groups : tuple of tuple of str
        The critical-difference groups, as ``autorank`` draws them: in the order of mean rank,
        each maximal run of at least two models whose mean ranks lie within the critical
        difference of the run's first model.
    n_tasks, n_models : int
    alpha : float
    """

    models: tuple[str, ...]
    mean_rank: NDArray[np.float64]
    statistic: float
    pvalue: float
    iman_davenport: float
    iman_davenport_pvalue: float
    critical_difference: float
    separable: NDArray[np.bool_]
    groups: tuple[tuple[str, ...], ...]
    n_tasks: int
    n_models: int
    alpha: float


def _nemenyi_q(alpha: float, k: int) -> float:
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def friedman_nemenyi(
    scores: object, *, alpha: float = 0.05, models: Sequence[str] | None = None
) -> FriedmanNemenyiResult:
    """Friedman's test and Nemenyi's critical difference, the task as the unit (Demšar 2006).

    Parameters
    ----------
    scores : array_like, shape (n_tasks, n_models)
        Higher is better; complete (no NaN), at least 2 tasks and 2 models.
    alpha : float, default 0.05
    models : sequence of str, optional
        Names of the columns (default ``"0"``, ``"1"``, ...).

    Returns
    -------
    FriedmanNemenyiResult

    Examples
    --------
    Demšar (2006, §3.2.2): with k = 4 methods on N = 14 data sets the critical difference at
    alpha = 0.05 is 2.569 sqrt(4 * 5 / (6 * 14)) = 1.25.
    """
    level = check_open_unit_interval(alpha, "alpha")
    data = _check_scores(scores)
    n_tasks, k = data.shape
    names = _model_names(models, k)
    ranks = stats.rankdata(-data, axis=1)
    mean_rank = ranks.mean(axis=0)
    sum_sq = float(np.sum(ranks.sum(axis=0) ** 2))
    chi2 = 12.0 / (n_tasks * k * (k + 1)) * sum_sq - 3.0 * n_tasks * (k + 1)
    ties = 0.0
    for row in data:
        _, counts = np.unique(row, return_counts=True)
        ties += float(np.sum(counts**3 - counts))
    correction = 1.0 - ties / (n_tasks * k * (k * k - 1))
    chi2 = chi2 / correction if correction > 0 else 0.0
    pvalue = float(stats.chi2.sf(chi2, k - 1))
    denominator = n_tasks * (k - 1) - chi2
    if denominator > 0:
        f_stat = (n_tasks - 1) * chi2 / denominator
        f_p = float(stats.f.sf(f_stat, k - 1, (k - 1) * (n_tasks - 1)))
    else:  # every task ranks the models identically
        f_stat, f_p = float("inf"), 0.0
    cd = _nemenyi_q(level, k) * float(np.sqrt(k * (k + 1) / (6.0 * n_tasks)))
    separable = np.abs(mean_rank[:, None] - mean_rank[None, :]) > cd
    order = np.argsort(mean_rank, kind="stable")
    sorted_ranks = mean_rank[order]
    groups: list[tuple[str, ...]] = []
    reach = -1
    for i in range(k):
        last = int(np.searchsorted(sorted_ranks, sorted_ranks[i] + cd, side="right")) - 1
        if last > i and last > reach:
            reach = last
            groups.append(tuple(names[j] for j in order[i : last + 1]))
    return FriedmanNemenyiResult(
        models=names,
        mean_rank=_readonly(mean_rank),
        statistic=float(chi2),
        pvalue=pvalue,
        iman_davenport=float(f_stat),
        iman_davenport_pvalue=f_p,
        critical_difference=cd,
        separable=_readonly(separable),
        groups=tuple(groups),
        n_tasks=n_tasks,
        n_models=k,
        alpha=level,
    )


# --------------------------------------------------------------------------------------------
# Across tasks: the Bayesian signed-rank test (Benavoli et al. 2014, 2017)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BayesianSignedRankResult:
    """Posterior of the Bayesian signed-rank test for one or many pairs of models.

    Attributes
    ----------
    p_left, p_rope, p_right : numpy.ndarray
        Posterior probabilities that the first model (``x``) is better by more than the rope,
        that the two are practically equivalent, and that the second (``y``) is better, one per
        pair (0-d arrays for one pair). As in ``baycomp``: the share of posterior samples in
        which that region has the largest mass (Benavoli et al. 2017, §5). With ``rope=0`` the
        rope is empty and ``p_rope`` is 0.
    n_tasks : numpy.ndarray
        The tasks each pair was compared on (not NaN in either model).
    rope, prior : float
    nsamples : int
    """

    p_left: NDArray[np.float64]
    p_rope: NDArray[np.float64]
    p_right: NDArray[np.float64]
    n_tasks: NDArray[np.int64]
    rope: float
    prior: float
    nsamples: int

    def separable(self, threshold: float = 0.95) -> NDArray[np.bool_]:
        """Pairs whose posterior puts more than ``threshold`` on one side outside the rope."""
        return np.asarray(np.maximum(self.p_left, self.p_right) > threshold)


def _heaviside(values: NDArray[np.float64], threshold: float) -> NDArray[np.float64]:
    return (values > threshold) + 0.5 * (values == threshold)


def bayesian_signed_rank(
    x: object,
    y: object,
    *,
    rope: float = 0.01,
    prior: float = 0.5,
    nsamples: int = 50_000,
    seed: Any = 0,
) -> BayesianSignedRankResult:
    """Bayesian signed-rank test with a rope, for one pair or many at once (``baycomp``'s).

    The differences ``d = y - x`` over tasks, with one prior pseudo-observation at 0 of weight
    ``prior``, get a Dirichlet-process posterior: weights ``w ~ Dirichlet(prior, 1, ..., 1)``,
    and per posterior sample the masses ``sum_ij w_i w_j H(d_i + d_j - 2 rope)`` (``y`` better),
    the same with ``-d`` (``x`` better), and the rest (the rope), H the Heaviside step with
    H(0) = 1/2 (Benavoli et al. 2014, eq. 9; 2017, §5). The Dirichlet draws (normalised gamma
    variables) are shared by all pairs; a task missing for a pair (NaN) drops out of that pair's
    weights, which is exactly the Dirichlet over the tasks it has.

    Parameters
    ----------
    x, y : array_like, shape (n_tasks,) or (n_pairs, n_tasks)
        The two models' scores on the same tasks; NaN where a pair lacks a task.
    rope : float, default 0.01
        Half-width of the region of practical equivalence, in the scores' units (0.01 = one
        point of MTEB's 0-100 display). 0: no rope.
    prior : float, default 0.5
        Weight of the pseudo-observation at 0 (``baycomp``'s default).
    nsamples : int, default 50000
        Posterior samples (the Monte Carlo error of a probability is at most 0.5/sqrt(nsamples)).
    seed : None, int or numpy.random.Generator, default 0

    Returns
    -------
    BayesianSignedRankResult
        ``p_left`` is the probability that ``x`` is the better model, as in ``baycomp``.
    """
    first = np.asarray(as_real_array(x, "x"), dtype=np.float64)
    second = np.asarray(as_real_array(y, "y"), dtype=np.float64)
    if first.shape != second.shape or first.ndim not in (1, 2):
        raise UserInputError(
            f"`x` {first.shape} and `y` {second.shape} must have one shape, (n_tasks,) or "
            "(n_pairs, n_tasks)."
        )
    if np.isinf(first).any() or np.isinf(second).any():
        raise UserInputError("`x` and `y` must be finite (NaN marks a missing task).")
    if isinstance(rope, bool) or not isinstance(rope, (int, float)) or not rope >= 0:
        raise UserInputError(f"`rope` must be a number >= 0, got {rope!r}.")
    if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not prior > 0:
        raise UserInputError(f"`prior` must be a number > 0, got {prior!r}.")
    count = check_count(nsamples, "nsamples", _MAX_POSTERIOR_SAMPLES, minimum=100)
    rng = check_seed(seed)
    single = first.ndim == 1
    d = np.atleast_2d(second - first)
    present = ~np.isnan(d)
    n_tasks = present.sum(axis=1)
    if (n_tasks < 2).any():
        bad = int(np.argmax(n_tasks < 2))
        raise UserInputError(
            f"pair {bad} of `x` and `y` has {int(n_tasks[bad])} task(s) without NaN; the "
            "signed-rank test needs at least 2."
        )
    n_pairs, width = d.shape
    # The pseudo-observation 0 first, then the tasks; missing tasks get weight 0.
    diffs = np.hstack([np.zeros((n_pairs, 1)), np.nan_to_num(d)])
    mask = np.hstack([np.ones((n_pairs, 1)), present.astype(np.float64)])
    gammas = np.empty((count, width + 1))
    gammas[:, 0] = rng.gamma(prior, size=count)
    gammas[:, 1:] = rng.standard_exponential(size=(count, width))
    # The walsh-average indicators of every pair, flattened for one matrix product per block of
    # samples: sum_ij w_i w_j A_ij = rowsum((G A) * G) / (sum_i w_i)^2, in float32 (the decision
    # compares masses, whose rounding error is far below the Monte Carlo error).
    sums = diffs[:, :, None] + diffs[:, None, :]
    pair_mask = mask[:, :, None] * mask[:, None, :]
    sides = [
        np.ascontiguousarray(
            (_heaviside(sign * sums, 2.0 * rope) * pair_mask)
            .transpose(1, 0, 2)
            .reshape(width + 1, -1),
            dtype=np.float32,
        )
        for sign in (-1.0, 1.0)  # x better (left), y better (right)
    ]
    mask32 = mask.T.astype(np.float32)
    wins = np.zeros((3, n_pairs))
    step = max(1, _BLOCK_ELEMENTS // (n_pairs * (width + 1)))
    for start in range(0, count, step):
        block = gammas[start : start + step].astype(np.float32)
        totals = (block @ mask32) ** 2
        left, right = (
            np.einsum("spj,sj->sp", (block @ side).reshape(len(block), n_pairs, width + 1), block)
            / totals
            for side in sides
        )
        if rope > 0:
            winner = np.argmax(np.stack([left, 1.0 - left - right, right]), axis=0)
            for index in range(3):
                wins[index] += np.count_nonzero(winner == index, axis=0)
        else:
            wins[2] += np.count_nonzero(right > left, axis=0)
    if rope == 0:
        wins[0] = count - wins[2]
    p = wins / count

    def shaped(values: NDArray[Any]) -> NDArray[Any]:
        return _readonly(np.array(values[0] if single else values))

    return BayesianSignedRankResult(
        p_left=shaped(p[0]),
        p_rope=shaped(p[1]),
        p_right=shaped(p[2]),
        n_tasks=shaped(n_tasks.astype(np.int64)),
        rope=float(rope),
        prior=float(prior),
        nsamples=count,
    )


# --------------------------------------------------------------------------------------------
# Across tasks: simultaneous rank confidence sets (Mogstad, Romano, Shaikh & Wilhelm 2024)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankSetsResult:
    """Confidence sets for the ranks of many models (Mogstad, Romano, Shaikh & Wilhelm 2024).

    Rank 1 is the best (highest) model. Each set is an interval ``[low, high]`` of ranks:
    ``low = 1 + #{k : theta_k - theta_j significantly > 0}`` and
    ``high = n_models - #{k : theta_k - theta_j significantly < 0}`` (MRSW 2024, §3), the
    differences tested with bootstrap-t max-|t| critical values refined step-down (their
    Algorithm 3.1; Romano & Wolf 2005).

    Attributes
    ----------
    models : tuple of str
    estimate : numpy.ndarray
        Each model's mean score over its tasks (the ordering statistic).
    rank : numpy.ndarray
        1 + the number of models with a higher ``estimate``.
    marginal_low, marginal_high : numpy.ndarray
        For each model on its own: the set holds its true rank with probability >= 1 - alpha
        (MRSW §3.1: the n - 1 differences of that model, simultaneously).
    simultaneous_low, simultaneous_high : numpy.ndarray
        All sets together hold all true ranks with probability >= 1 - alpha (MRSW §3.2: all
        n(n - 1)/2 differences simultaneously). Each contains the marginal set.
    best_set : tuple of str
        The confidence set of the tau-best (MRSW §3.3): it holds every model of true rank
        <= tau with probability >= 1 - alpha. ``tau = 1``: the models whose own one-sided
        family (is any other model better?) rejects nothing, step-down; only the true best's
        family has to hold. ``tau > 1``: the models with fewer than ``tau`` models shown better
        by the one-sided family over all ordered pairs (all tau-best at once).
    tau : int
    n_tasks, n_resamples : int
    alpha : float
    within_task : str
        The within-task noise added to the task bootstrap: ``"none"``, ``"fisher-z"`` (a normal
        draw of atanh(score) with variance from n), ``"bootstrap"`` (the per-pair bootstrap
        replicates given) or ``"bootstrap+fisher-z"`` (both, per model).
    pairwise_tasks : bool
        True when ``scores`` had missing tasks: each difference is then the mean difference over
        the pair's common tasks (incomplete blocks).
    uncertainty : str
        ``"across-tasks"`` (the task is the unit, each difference studentised by its spread over
        the tasks) or ``"within-task"`` (one task: each difference studentised by the standard
        deviation of its within-task draws). With ``"within-task"``, ``within_task`` reads
        ``"fisher-z (independent)"`` for published scores: their draws are independent, which
        makes the sets conservative when the models' errors correlate positively.
    """

    models: tuple[str, ...]
    estimate: NDArray[np.float64]
    rank: NDArray[np.int64]
    marginal_low: NDArray[np.int64]
    marginal_high: NDArray[np.int64]
    simultaneous_low: NDArray[np.int64]
    simultaneous_high: NDArray[np.int64]
    best_set: tuple[str, ...]
    tau: int
    n_tasks: int
    n_resamples: int
    alpha: float
    within_task: str
    pairwise_tasks: bool
    uncertainty: str = "across-tasks"


def _check_draws(
    within_task_draws: object, data: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The validated ``within_task_draws`` and which (task, model) cells have draws."""
    n_tasks, n_models = data.shape
    boot = np.asarray(as_real_array(within_task_draws, "within_task_draws"), dtype=np.float64)
    if boot.ndim != 3 or boot.shape[1:] != data.shape or boot.shape[0] < 2:
        raise UserInputError(
            f"`within_task_draws` must have shape (n_draws >= 2, {n_tasks}, {n_models}) "
            f"(bootstrap replicates of each score), got {boot.shape}."
        )
    if np.isinf(boot).any():
        raise UserInputError("`within_task_draws` holds an infinite value.")
    have = ~np.isnan(boot)
    if (have.any(axis=0) != have.all(axis=0)).any():
        raise UserInputError(
            "`within_task_draws` must hold, for each task and model, either all draws or "
            "none (NaN: that model has no per-pair predictions)."
        )
    have_cell = have[0]
    if (have_cell & np.isnan(data)).any():
        raise UserInputError("`within_task_draws` has draws where `scores` is missing (NaN).")
    return boot, have_cell


def _check_fisher_scores(data: NDArray[np.float64]) -> None:
    present = data[~np.isnan(data)]
    if (np.abs(present) >= 1.0).any():
        raise UserInputError(
            "`scores` must be correlations strictly between -1 and 1 when `n` is given "
            "(the Fisher-z draw); MTEB's 0-100 display scale must be divided by 100."
        )


def _resampled_scores(
    data: NDArray[np.float64],
    n: object,
    within_task_draws: object,
    correlation: str,
    n_resamples: int,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], str]:
    """(B, n_tasks, n_models) resampled leaderboards, plus the within-task noise.

    Complete scores: T pseudo-tasks drawn from N(theta, Sigma) with Sigma the tasks' sample
    covariance, as Gaussian combinations of the centred tasks (a parametric bootstrap of the
    task-level t statistics: their heavy tails with ten tasks are kept, and no resample
    degenerates to a few repeated tasks). Missing tasks: the tasks drawn with replacement.
    The within-task noise of task t is added to (pseudo-)task t.
    """
    n_tasks, n_models = data.shape
    if np.isnan(data).any():
        slots = rng.integers(0, n_tasks, size=(n_resamples, n_tasks))
        draws = data[slots]  # (B, T, M); NaN stays NaN (a missing task)
    else:
        slots = np.broadcast_to(np.arange(n_tasks), (n_resamples, n_tasks))
        mean = data.mean(axis=0)
        weights = rng.standard_normal((n_resamples, n_tasks, n_tasks)) / np.sqrt(n_tasks - 1)
        draws = mean + weights @ (data - mean)
    needs_z: Any = np.zeros(n_models, dtype=bool)
    kinds = []
    if within_task_draws is not None:
        boot, have_cell = _check_draws(within_task_draws, data)
        rows = rng.integers(0, boot.shape[0], size=(n_resamples, n_tasks))
        picked = boot[rows, slots]  # (B, T, M)
        use = have_cell[slots]
        draws = draws + np.where(use, picked - data[slots], 0.0)
        kinds.append("bootstrap")
        needs_z = ~have_cell.all(axis=0) & (~np.isnan(data) & ~have_cell).any(axis=0)
        z_cells = ~have_cell
    else:
        z_cells = np.ones(data.shape, dtype=bool)
    if n is not None:
        counts = _check_n(n, (n_tasks,))
        _check_fisher_scores(data)
        r = np.nan_to_num(data[slots])
        var = fisher_z_variance(r, counts[slots][:, :, None], correlation)
        noise = rng.standard_normal(draws.shape) * np.sqrt(var)
        perturbed = np.tanh(np.arctanh(r) + noise) - r
        draws = draws + np.where(z_cells[slots], perturbed, 0.0)
        if (z_cells & ~np.isnan(data)).any():
            kinds.append("fisher-z")
    elif within_task_draws is not None and needs_z.any():
        model = int(np.argmax(needs_z))
        raise UserInputError(
            f"`within_task_draws` has no draws for model {model} (column) on some task, and no "
            "`n` was given for its Fisher-z draw: pass `n` (test pairs per task)."
        )
    return draws, "+".join(kinds) if kinds else "none"


def _pair_moments(values: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(..., T, M) scores (NaN: missing) -> the mean of score_j - score_k over the pair's common
    tasks and its standard error sd / sqrt(n_jk), each (..., M, M); NaN where undefined.

    With P the presence mask and X the scores (0 where missing): n = P'P, the sums of the
    differences X'P - (X'P)', their squares (X^2)'P + ((X^2)'P)' - 2 X'X.
    """
    present = (~np.isnan(values)).astype(np.float64)
    filled = np.nan_to_num(values)
    swap = np.swapaxes
    count = swap(present, -1, -2) @ present
    sums = swap(filled, -1, -2) @ present
    squares = swap(filled**2, -1, -2) @ present
    cross = swap(filled, -1, -2) @ filled
    total = sums - swap(sums, -1, -2)
    total_sq = squares + swap(squares, -1, -2) - 2.0 * cross
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, total / count, np.nan)
        variance = np.maximum(total_sq - count * mean**2, 0.0) / (count - 1.0)
        error = np.where(count >= 2, np.sqrt(variance / count), np.nan)
    return np.asarray(mean), np.asarray(error)


class _Differences:
    """Studentised resampled differences, block by block (the bootstrap-t of every pair).

    For resample b and pair (j, k): t*_jk = (D*_jk - D_jk) / se*_jk, with D the mean difference
    over the pair's common tasks and se* the resample's own standard error (sd over its tasks /
    sqrt(n)). Studentising each resample carries the heavy tails of a t statistic on ten tasks
    into the critical values, which a fixed standard error does not (Hall 1992, §3.10). The
    scores are centred per model first (exact for differences, better conditioned). Values are
    float32 with +-inf (a resample whose tasks agree exactly) clipped to +-1e6.
    """

    def __init__(self, draws: NDArray[np.float64], centre: NDArray[np.float64]) -> None:
        n_resamples, _, n_models = draws.shape
        self.draws = draws
        self.centre = centre
        #: Pairs so alike (the same model under two names) that C_jj + C_kk - 2 C_jk cancels:
        #: their resampled t statistics come from their explicit per-task differences.
        self.fragile: tuple[NDArray[np.intp], NDArray[np.intp]] = (
            np.zeros(0, dtype=np.intp),
            np.zeros(0, dtype=np.intp),
        )
        self.step = max(1, _BLOCK_ELEMENTS // (n_models * n_models))
        self.n_resamples = n_resamples
        self.cache: list[NDArray[np.float32]] | None = None

    def observed(self, data: NDArray[np.float64]) -> tuple[Any, Any]:
        """The observed mean differences and standard errors, from the per-task differences
        themselves (no cancellation for two nearly identical models)."""
        values = data - self.centre
        differences = values[:, :, None] - values[:, None, :]  # (T, M, M)
        count = np.sum(~np.isnan(differences), axis=0)
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # pairs without common tasks
            mean = np.nanmean(differences, axis=0)
            sd = np.nanstd(differences, axis=0, ddof=1)
            error = np.where(count >= 2, sd / np.sqrt(count), np.nan)
            spread = np.nanstd(values, axis=0)
            exposure = sd / (spread[:, None] + spread[None, :])
        rows, cols = np.nonzero(np.triu(exposure < 1e-3, k=1))
        self.fragile = (np.concatenate([rows, cols]), np.concatenate([cols, rows]))
        return mean, error

    def blocks(self, estimate: NDArray[np.float64]) -> Any:
        """The blocks of t*, kept after the first pass when they fit in :data:`_CACHE_ELEMENTS`
        (the step-down passes then cost a maximum each, not a covariance each)."""
        if self.cache is not None:
            yield from self.cache
            return
        n_models = self.draws.shape[2]
        keep = self.n_resamples * n_models * n_models <= _CACHE_ELEMENTS
        kept = []
        for block in self._blocks(estimate):
            if keep:
                block.flags.writeable = False
                kept.append(block)
            yield block
        if keep:
            self.cache = kept

    def _blocks(self, estimate: NDArray[np.float64]) -> Any:
        complete = not np.isnan(self.draws).any()
        for start in range(0, self.n_resamples, self.step):
            values = self.draws[start : start + self.step] - self.centre
            if complete:
                # Var(mean_j - mean_k) = (C_jj + C_kk - 2 C_jk) / T, C the tasks' covariance
                # (in float64: two nearly identical models would cancel to noise in float32).
                n_tasks = values.shape[1]
                mean = values.mean(axis=1)
                centred = values - mean[:, None, :]
                cov = np.swapaxes(centred, 1, 2) @ centred
                diag = np.diagonal(cov, axis1=1, axis2=2)
                var = diag[:, :, None] + diag[:, None, :] - 2.0 * cov
                var /= n_tasks * (n_tasks - 1)
                t64 = mean[:, :, None] - mean[:, None, :] - estimate
                with np.errstate(invalid="ignore", divide="ignore"):
                    t64 /= np.sqrt(np.maximum(var, 0.0, out=var), out=var)
                rows, cols = self.fragile
                if rows.size:
                    pair = values[:, :, rows] - values[:, :, cols]  # (chunk, T, pairs)
                    with np.errstate(invalid="ignore", divide="ignore"):
                        t64[:, rows, cols] = (pair.mean(axis=1) - estimate[rows, cols]) / (
                            pair.std(axis=1, ddof=1) / np.sqrt(n_tasks)
                        )
                t = t64.astype(np.float32)
            else:
                mean64, error = _pair_moments(values)
                with np.errstate(invalid="ignore", divide="ignore"):
                    t = ((mean64 - estimate) / error).astype(np.float32)
            yield np.nan_to_num(t, nan=0.0, posinf=1e6, neginf=-1e6)


def _within_task_scores(
    data: NDArray[np.float64],
    n: object,
    within_task_draws: object,
    correlation: str,
    n_resamples: int,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], str]:
    """(B, n_tasks, n_models) draws of every score from its own sampling distribution within
    its task, and their label (``uncertainty="within-task"``: no task is resampled).

    A model with per-pair predictions takes its bootstrap replicates (one row of
    ``within_task_draws`` for all such models of a task: they keep the shared items); the
    others a Fisher-z draw, tanh(atanh(r) + N(0, Var)), Var = (1 + r^2/2)/(n - 3) for Spearman
    (Bonett & Wright 2000), independent across models.
    """
    n_tasks, n_models = data.shape
    draws = np.full((n_resamples, n_tasks, n_models), np.nan)
    have_cell = np.zeros(data.shape, dtype=bool)
    kinds = []
    if within_task_draws is not None:
        boot, have_cell = _check_draws(within_task_draws, data)
        if boot.shape[0] == n_resamples:
            picked = boot
        else:  # rows drawn with replacement, one row per task for all its models
            rows = rng.integers(0, boot.shape[0], size=(n_resamples, n_tasks))
            picked = boot[rows, np.arange(n_tasks)]
        draws = np.where(have_cell, picked, draws)
        if have_cell.any():
            kinds.append("bootstrap")
    if (~have_cell).any():
        if n is None:
            model = int(np.argmax((~have_cell).any(axis=0)))
            raise UserInputError(
                f"the within-task rank sets need `n` (test pairs per task) for the Fisher-z "
                f"draw of model {model} (column), which has no `within_task_draws`."
            )
        counts = _check_n(n, (n_tasks,))
        _check_fisher_scores(data)
        var = fisher_z_variance(data, counts[:, None], correlation)
        noise = rng.standard_normal(draws.shape) * np.sqrt(var)
        draws = np.where(have_cell, draws, np.tanh(np.arctanh(data) + noise))
        kinds.append("fisher-z (independent)")
    return draws, "+".join(kinds)


class _WithinDifferences:
    """The max-|t| resamples when the draws are the sampling distribution itself.

    For draw b and pair (j, k): t*_jk = ((m*_j - m*_k) - (mbar_j - mbar_k)) / s_jk, m* the draw's
    mean over the tasks, mbar its average over the draws and s_jk the draws' standard deviation
    of m*_j - m*_k (from their covariance, so the joint draws of own runs keep their
    correlation). Centring at the draws' own mean keeps a bootstrap's bias out of the spread.
    """

    def __init__(self, draws: NDArray[np.float64]) -> None:
        means = draws.mean(axis=1)  # (B, M)
        self.deviations = means - means.mean(axis=0)
        cov = np.cov(means, rowvar=False).reshape(means.shape[1], means.shape[1])
        diag = np.diagonal(cov)
        var = np.maximum(diag[:, None] + diag[None, :] - 2.0 * cov, 0.0)
        # exact zero for a pair whose draws coincide (the same model under two names)
        scale = 1e-12 * (diag[:, None] + diag[None, :])
        self.error = np.where(var <= scale, 0.0, np.sqrt(var))
        n_models = means.shape[1]
        self.step = max(1, _BLOCK_ELEMENTS // (n_models * n_models))

    def blocks(self, estimate: NDArray[np.float64]) -> Any:
        """Blocks of t* (chunk, M, M) as float32; ``estimate`` is not needed (the centre is the
        draws' own mean)."""
        del estimate
        with np.errstate(invalid="ignore", divide="ignore"):
            inverse = np.where(self.error > 0, 1.0 / self.error, 0.0)
        inverse32 = inverse.astype(np.float32)
        deviations = self.deviations.astype(np.float32)
        for start in range(0, deviations.shape[0], self.step):
            chunk = deviations[start : start + self.step]
            t = chunk[:, :, None] - chunk[:, None, :]
            t *= inverse32
            yield t


def _quantile(maxima: list[NDArray[np.float32]], level: float) -> Any:
    """The bootstrap critical value: the ceil(level B)-th order statistic of the maxima."""
    return np.quantile(np.concatenate(maxima), level, axis=0, method="inverted_cdf")


def _stepdown(
    differences: _Differences | _WithinDifferences,
    centred: NDArray[np.float64],
    t_obs: NDArray[np.float64],
    testable: NDArray[np.bool_],
    alpha: float,
) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
    """Step-down max-t rejections of four families of hypotheses about the differences.

    ``t_obs[j, k]`` is (theta_j - theta_k) / se. Returns, as (n, n) booleans:

    * marginal: per row j, two-sided over {(j, k)}: the sign of theta_j - theta_k is known;
    * simultaneous: two-sided over all pairs;
    * one-sided: over all ordered pairs, [j, k] True when theta_j > theta_k is shown;
    * better: per row j, one-sided over {(j, k)}, [j, k] True when theta_k > theta_j is shown
      (the test of "j is the best", MRSW §3.3 with tau = 1).

    A family's critical value is recomputed, over its hypotheses not yet rejected, only after
    it rejected something new (Romano & Wolf 2005, Algorithm 2.1; MRSW 2024, Algorithm 3.1).
    ``centred`` is the observed difference of the centred scores, around which the resamples
    are studentised.
    """
    level = 1.0 - alpha
    varying = testable & np.isfinite(t_obs)
    # A pair whose difference is the same on every task (se 0) is decided outright.
    exact = testable & ~np.isfinite(t_obs)
    rejected = {
        "m": exact.copy(),
        "s": exact.copy(),
        "o": exact & (t_obs > 0),
        "b": exact & (t_obs < 0),
    }
    t_obs = np.where(varying, t_obs, 0.0)
    if not varying.any():
        return rejected["m"], rejected["s"], rejected["o"], rejected["b"]
    # The statistic each family rejects on, and whether its family is one row (True) or all.
    observed = {"m": np.abs(t_obs), "s": np.abs(t_obs), "o": t_obs, "b": -t_obs}
    per_row = {"m": True, "s": False, "o": False, "b": True}
    crit: dict[str, Any] = {}
    # First step, every family over all varying pairs: as t*_kj = -t*_jk, one masked array
    # gives them all (row maxima R, column maxima C): marginal max(R, C), better-than C,
    # simultaneous and one-sided the largest of all.
    rows_max, cols_max = [], []
    mask = varying & ~exact
    for t in differences.blocks(centred):
        masked = np.where(mask, t, np.float32(-1e7))
        rows_max.append(np.max(masked, axis=2))
        cols_max.append(np.max(masked, axis=1))
    whole = [np.max(r, axis=1) for r in rows_max]
    crit["m"] = _quantile([np.maximum(r, c) for r, c in zip(rows_max, cols_max)], level)
    crit["b"] = _quantile(cols_max, level)
    crit["s"] = crit["o"] = _quantile(whole, level)
    todo: set[str] = set()
    for name in rejected:
        bound = crit[name][:, None] if per_row[name] else crit[name]
        new = varying & ~rejected[name] & (observed[name] > bound)
        if new.any():
            rejected[name] |= new
            todo.add(name)
    while todo:
        maxima: dict[str, list[NDArray[np.float32]]] = {name: [] for name in todo}
        active = {name: (varying & ~rejected[name]).astype(np.float32) for name in todo}
        for t in differences.blocks(centred):
            magnitude = np.abs(t)
            for name in todo:
                value = {"m": magnitude, "s": magnitude, "o": t, "b": -t}[name]
                # Inactive pairs count as -1e7, below any t (clipped at +-1e6).
                masked = np.where(active[name] > 0, value, np.float32(-1e7))
                row = np.max(masked, axis=2)
                maxima[name].append(row if per_row[name] else np.max(row, axis=1))
        for name in todo:
            crit[name] = _quantile(maxima[name], level)
        todo = set()
        for name in rejected:
            bound = crit[name][:, None] if per_row[name] else crit[name]
            new = varying & ~rejected[name] & (observed[name] > bound)
            if new.any():
                rejected[name] |= new
                todo.add(name)
    return rejected["m"], rejected["s"], rejected["o"], rejected["b"]


def rank_bounds(
    decided: NDArray[np.bool_], difference: NDArray[np.float64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The rank interval of every model that a set of pairwise decisions leaves (MRSW 2024, §3).

    ``decided[j, k]`` is True when the sign of ``difference[j, k] = theta_j - theta_k`` (the
    estimate) is decided. Rank 1 is the best: ``low_j = 1 + #{k decided, difference[j, k] < 0}``
    (models shown better) and ``high_j = n_models - #{k decided, difference[j, k] > 0}`` (models
    shown worse). When every decision is right, the interval holds the true rank
    ``1 + #{k : theta_k > theta_j}``, ties included. One home for this rule: the rank sets of
    :func:`rank_confidence_sets` and of :func:`~sts_extras.stats.model_comparison.compare_models`.
    """
    low = 1 + np.count_nonzero(decided & (difference < 0), axis=1)
    high = decided.shape[0] - np.count_nonzero(decided & (difference > 0), axis=1)
    return low.astype(np.int64), high.astype(np.int64)


def rank_confidence_sets(
    scores: object,
    *,
    n: object = None,
    within_task_draws: object = None,
    alpha: float = 0.05,
    n_resamples: int = 1000,
    seed: Any = 0,
    correlation: str = "spearman",
    models: Sequence[str] | None = None,
    tau: int = 1,
    uncertainty: str = "auto",
) -> RankSetsResult:
    """Marginal and simultaneous rank confidence sets and the tau-best set, tasks resampled.

    The estimate of model j is its mean score over the tasks, theta_j. The joint distribution of
    all differences theta_j - theta_k is approximated with the task as the unit: T pseudo-tasks
    drawn from a normal distribution with the tasks' sample covariance (Gaussian combinations
    of the centred tasks; with missing tasks, the tasks drawn with replacement), plus
    optionally the items within each task: the per-pair bootstrap replicates of a score where
    they exist (``within_task_draws``), else a normal draw of Fisher's z with variance from the
    task's n (``n``) -- the item-within-task plus task-level
    bootstrap. Each difference is studentised by its standard error over the tasks (sd of the
    per-task differences / sqrt(T)), and each resampled difference by the resample's own
    (the bootstrap-t: with ten tasks a t statistic has heavy tails, which a fixed standard
    error would miss: the calibration suite measured a fixed-se version separating equal
    models in 42 % to 100 % of leaderboards of 10 to 100 models). The (1 - alpha) quantile of
    the largest |t| over a family of differences gives simultaneous intervals, refined
    step-down (Romano & Wolf 2005) as MRSW (2024, Algorithm 3.1) do:

    * marginal (MRSW §3.1): for model j, the family {theta_j - theta_k, k != j};
    * simultaneous (MRSW §3.2): all pairs;
    * tau-best (MRSW §3.3): one-sided; for ``tau = 1`` each model's own family (is any model
      better?), for ``tau > 1`` all ordered pairs; the set holds the models with fewer than
      ``tau`` models shown better.

    Parameters
    ----------
    scores : array_like, shape (n_tasks, n_models)
        Higher is better. NaN marks a task a model lacks: each pair is then compared on its
        common tasks (a pair with fewer than 2 is never separated).
    n : array_like, shape (n_tasks,), optional
        Test pairs per task: adds the Fisher-z within-task draw (scores must then be
        correlations in (-1, 1)); draws are independent across models. See the Notes: the
        task-level spread already holds the within-task noise, so these draws change the shape
        of the resampled t statistics, not their scale.
    within_task_draws : array_like, shape (n_draws, n_tasks, n_models), optional
        Bootstrap replicates of each score from per-pair predictions (NaN for a model without
        them, which then gets the Fisher-z draw and needs ``n``). Replicates of one row share
        the resampled items across models, so their correlation is kept.
    alpha : float, default 0.05
    n_resamples : int, default 1000
    seed : None, int or numpy.random.Generator, default 0
    correlation : {"spearman", "pearson"}
        The variance of the Fisher-z draw.
    models : sequence of str, optional
    tau : int, default 1
    uncertainty : {"auto", "across-tasks", "within-task"}, default "auto"
        Where the uncertainty of a difference comes from. ``"auto"``: ``"within-task"`` for one
        task, else ``"across-tasks"``. ``"within-task"`` (complete scores only) resamples no
        task: see the Notes.

    Returns
    -------
    RankSetsResult

    Notes
    -----
    The task is the unit: a model's observed score on a task is its true score plus the
    task's item-sampling noise, so the spread of the per-task differences, which studentises
    every difference, already holds the within-task noise. The within-task draws (``n``,
    ``within_task_draws``) enter each resample and its own standard error alike; they make the
    resampled t statistics' distribution reflect item-level noise, but do not widen the sets
    the way adding a variance term would (that would count the noise twice). See
    ``docs/calibration.md`` for the coverage and size measured at 10 tasks (10 to 100 models);
    the sets are conservative by construction.

    **One task** (``uncertainty="within-task"``): there is no spread over tasks, so each score's
    sampling distribution within its task is drawn directly: the per-pair bootstrap replicates
    of an own run (``within_task_draws``; the runs of one output share the resampled items, so
    their joint draws keep the correlation of their errors), and for a published score a normal
    draw of Fisher's z with variance (1 + r^2/2)/(n - 3) (Bonett & Wright 2000). With several
    tasks the draw of the mean score is the mean of the tasks' draws. Each difference
    theta_j - theta_k is studentised by the standard deviation of its draws, and the step-down
    max-|t| of MRSW (Algorithm 3.1) takes its critical values from the draws, centred at their
    own mean. The Fisher-z draws of different published models are **independent**: without
    per-pair predictions their error correlation is unknown, and independence overstates the
    variance of a difference when the errors correlate positively, as they do between real STS
    models on the same pairs, so these sets are **conservative** (too wide, never too narrow
    on that account); ``within_task`` says ``"fisher-z (independent)"``.
    """
    level = check_open_unit_interval(alpha, "alpha")
    data = _check_scores(scores, allow_nan=True, min_tasks=1)
    n_tasks, n_models = data.shape
    names = _model_names(models, n_models)
    correlation = check_choice(correlation, "correlation", _CORRELATIONS)
    count = check_count(n_resamples, "n_resamples", _MAX_RESAMPLES, minimum=20)
    best = check_count(tau, "tau", n_models)
    rng = check_seed(seed)
    unit = check_choice(uncertainty, "uncertainty", _UNCERTAINTIES)
    if unit == "auto":
        unit = "within-task" if n_tasks == 1 else "across-tasks"
    missing = np.isnan(data)
    if missing.all(axis=0).any():
        raise UserInputError(f"model {names[int(np.argmax(missing.all(axis=0)))]!r} has no task.")
    complete = not missing.any()
    estimate_mean = np.nanmean(data, axis=0)
    differences: _Differences | _WithinDifferences
    if unit == "within-task":
        if not complete:
            raise UserInputError(
                "`scores` has missing tasks (NaN): uncertainty='within-task' needs every model "
                "on every task."
            )
        draws, within = _within_task_scores(data, n, within_task_draws, correlation, count, rng)
        differences = _WithinDifferences(draws)
        estimate = estimate_mean[:, None] - estimate_mean[None, :]
        centred, error = estimate, differences.error
        testable = ~np.eye(n_models, dtype=bool)
    else:
        if n_tasks < 2:
            raise UserInputError(
                "`scores` has one task: uncertainty='across-tasks' needs at least two (the task "
                "is the unit); use uncertainty='within-task' (or 'auto')."
            )
        draws, within = _resampled_scores(data, n, within_task_draws, correlation, count, rng)
        differences = _Differences(draws, estimate_mean)
        centred, error = differences.observed(data)
        # theta_j - theta_k on the pair's common tasks = centred difference + the centres'
        # difference
        estimate = centred + (estimate_mean[:, None] - estimate_mean[None, :])
        common = (~missing).astype(np.float64).T @ (~missing).astype(np.float64)
        testable = (common >= 2) & ~np.eye(n_models, dtype=bool)
    estimate = np.where(testable, estimate, np.nan)
    tolerance = 1e-12 * (1.0 + np.abs(np.nan_to_num(estimate)))
    error = np.where(error <= tolerance, 0.0, error)
    with np.errstate(invalid="ignore", divide="ignore"):
        t_obs = np.where(
            error > 0, estimate / error, np.where(np.nan_to_num(estimate) == 0, 0.0, np.inf)
        )
    t_obs = np.where(testable & (np.nan_to_num(estimate) < 0) & np.isinf(t_obs), -np.inf, t_obs)
    t_obs = np.where(testable, t_obs, 0.0)
    marginal, simultaneous, one_sided, better_than = _stepdown(
        differences, np.nan_to_num(centred), t_obs, testable, level
    )

    def bounds(rejected: NDArray[np.bool_]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        low, high = rank_bounds(rejected, np.nan_to_num(estimate))
        return _readonly(low), _readonly(high)

    m_low, m_high = bounds(marginal)
    s_low, s_high = bounds(simultaneous)
    # tau = 1: j is in the set unless its own family shows a better model (only the true
    # best's family must hold, MRSW §3.3). tau > 1: every tau-best at once, so the one-sided
    # family over all ordered pairs (one_sided[k, j]: theta_k > theta_j; j counts its column).
    if best == 1:
        one_low = 1 + np.count_nonzero(better_than, axis=1)
    else:
        one_low = 1 + np.count_nonzero(one_sided, axis=0)
    rank = 1 + np.count_nonzero(estimate_mean[None, :] > estimate_mean[:, None], axis=1)
    return RankSetsResult(
        models=names,
        estimate=_readonly(estimate_mean),
        rank=_readonly(rank.astype(np.int64)),
        marginal_low=m_low,
        marginal_high=m_high,
        simultaneous_low=s_low,
        simultaneous_high=s_high,
        best_set=tuple(names[j] for j in np.flatnonzero(one_low <= best)),
        tau=best,
        n_tasks=n_tasks,
        n_resamples=count,
        alpha=level,
        within_task=within,
        pairwise_tasks=not complete,
        uncertainty=unit,
    )


# --------------------------------------------------------------------------------------------
# The count MTEB's analysis asked for: separable adjacent pairs of a ranking
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AdjacentPair:
    """One adjacent pair of the ranking by mean score (``upper`` ranked just above ``lower``).

    Attributes
    ----------
    upper, lower : str
    mean_difference : float
        Mean score of ``upper`` minus that of ``lower`` (>= 0).
    rank_difference : float
        Friedman mean rank of ``lower`` minus that of ``upper``.
    nemenyi_separable : bool
        The Friedman test rejects at alpha and the mean ranks differ by more than the critical
        difference.
    p_left, p_rope, p_right : float
        Bayesian signed-rank posterior: ``upper`` better, equivalent, ``lower`` better.
    bayes_separable : bool
        ``max(p_left, p_right) > threshold``.
    """

    upper: str
    lower: str
    mean_difference: float
    rank_difference: float
    nemenyi_separable: bool
    p_left: float
    p_rope: float
    p_right: float
    bayes_separable: bool


@dataclass(frozen=True)
class AdjacentSeparability:
    """How many adjacent pairs of a ranking by mean score the cross-task tests separate.

    Attributes
    ----------
    models : tuple of str
        In the order of the ranking (best first).
    pairs : tuple of AdjacentPair
    n_pairs, n_separable_nemenyi, n_separable_bayes, n_separable_either : int
    friedman : FriedmanNemenyiResult
    alpha, rope, threshold : float
    """

    models: tuple[str, ...]
    pairs: tuple[AdjacentPair, ...]
    n_pairs: int
    n_separable_nemenyi: int
    n_separable_bayes: int
    n_separable_either: int
    friedman: FriedmanNemenyiResult
    alpha: float
    rope: float
    threshold: float


def adjacent_separability(
    scores: object,
    *,
    alpha: float = 0.05,
    rope: float = 0.01,
    threshold: float = 0.95,
    nsamples: int = 20_000,
    seed: Any = 0,
    models: Sequence[str] | None = None,
) -> AdjacentSeparability:
    """Count the adjacent pairs of the ranking by mean score that are separable.

    The question of MTEB's own analysis (176 of 180 adjacent ranks of its leaderboard not
    separable): order the models by mean score over the tasks; a pair of neighbours is
    separable (a) by the Nemenyi post-hoc test at ``alpha`` after a Friedman test that rejects
    at ``alpha`` (Demšar 2006), and (b) by the Bayesian signed-rank test when the posterior puts
    more than ``threshold`` on one side outside the rope (Benavoli et al. 2017).

    Parameters
    ----------
    scores : array_like, shape (n_tasks, n_models)
        Complete (no NaN), higher is better.
    alpha : float, default 0.05
    rope : float, default 0.01
    threshold : float, default 0.95
    nsamples : int, default 20000
        Posterior samples of the Bayesian test (Monte Carlo error of a probability near the
        threshold: sqrt(0.95 x 0.05 / 20000) = 0.0015); 180 models take about 0.7 s.
    seed : None, int or numpy.random.Generator, default 0
    models : sequence of str, optional

    Returns
    -------
    AdjacentSeparability
    """
    level = check_open_unit_interval(threshold, "threshold")
    friedman = friedman_nemenyi(scores, alpha=alpha, models=models)
    data = np.asarray(scores, dtype=np.float64)
    means = data.mean(axis=0)
    order = np.lexsort((np.arange(means.size), -means))
    upper, lower = order[:-1], order[1:]
    bayes = bayesian_signed_rank(
        data[:, upper].T, data[:, lower].T, rope=rope, nsamples=nsamples, seed=seed
    )
    rejects = friedman.pvalue < friedman.alpha
    names = friedman.models
    pairs = []
    for index, (i, j) in enumerate(zip(upper, lower)):
        p_left, p_rope, p_right = (
            float(bayes.p_left[index]),
            float(bayes.p_rope[index]),
            float(bayes.p_right[index]),
        )
        pairs.append(
            AdjacentPair(
                upper=names[i],
                lower=names[j],
                mean_difference=float(means[i] - means[j]),
                rank_difference=float(friedman.mean_rank[j] - friedman.mean_rank[i]),
                nemenyi_separable=bool(rejects and friedman.separable[i, j]),
                p_left=p_left,
                p_rope=p_rope,
                p_right=p_right,
                bayes_separable=max(p_left, p_right) > level,
            )
        )
    nemenyi = sum(pair.nemenyi_separable for pair in pairs)
    bayes_count = sum(pair.bayes_separable for pair in pairs)
    either = sum(pair.nemenyi_separable or pair.bayes_separable for pair in pairs)
    return AdjacentSeparability(
        models=tuple(names[i] for i in order),
        pairs=tuple(pairs),
        n_pairs=len(pairs),
        n_separable_nemenyi=nemenyi,
        n_separable_bayes=bayes_count,
        n_separable_either=either,
        friedman=friedman,
        alpha=friedman.alpha,
        rope=float(rope),
        threshold=level,
    )
