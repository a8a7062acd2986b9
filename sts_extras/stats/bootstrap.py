"""Paired bootstrap confidence interval of the difference of two correlations, r1 - r2.

The DynaMax paper (Zhelezniak et al., 2019, Appendix D) compares two STS systems A and B on the
same human scores H with a bias-corrected and accelerated (BCa) bootstrap interval (Efron, 1987)
of Delta = r(A, H) - r(B, H), resampling the triplets (h_i, a_i, b_i) with replacement.

Why not ``scipy.stats.bootstrap``: it materialises every resample and evaluates the statistic on
copies of the data, and its BCa jackknife builds an n x (n - 1) array per sample. Here a resample
is a vector of counts (how often each item was drawn): Pearson's r of a whole chunk of resamples is
one matrix product of the counts with the data's sums, and Spearman's average ranks of a resample
follow from a cumulative sum of the counts. The machinery, shared with the all-pairs comparison of
many systems, is in :mod:`sts_extras.stats.resampling`; both give exactly the numbers one gets by
materialising the resample (tested), with the resamples ``scipy.stats.bootstrap`` draws.

References
----------
.. [1] Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.
.. [2] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall,
       ch. 14.3 (BCa) and eq. 14.15 (acceleration from the jackknife).
.. [3] Zhelezniak, V., Savkov, A., Shen, A., Moramarco, F., Flann, J. & Hammerla, N. Y. (2019).
       Don't settle for average, go for the max: fuzzy sets and max-pooled word vectors.
       ICLR 2019, Appendix D.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import (
    as_paired_vectors,
    check_choice,
    check_count,
    check_not_constant,
    check_open_unit_interval,
    check_seed,
    check_work,
)
from sts_extras.errors import UserInputError
from sts_extras.limits import MAX_RESAMPLED_ITEMS, MAX_RESAMPLES
from sts_extras.progress import progress_bar
from sts_extras.stats._common import check_not_copies, correlation_matrix
from sts_extras.stats.calibration import (
    MeasuredLevel,
    choose_method,
    for_family,
    measured_for_data,
    warn_if_uncalibrated,
)
from sts_extras.stats.intervals import (
    DIFFERENCE_METHODS,
    acceleration,
    bias_correction,
    difference_intervals,
    difference_pvalues,
    difference_statistics,
    hc4_standard_errors,
    twopov_standard_errors,
)
from sts_extras.stats.resampling import (
    PearsonDelta,
    SpearmanDelta,
    resample_counts,
)
from sts_extras.stats.results import ConfidenceInterval

__all__ = [
    "BOOTSTRAP_CORRELATIONS",
    "BOOTSTRAP_METHODS",
    "BootstrapDifferenceResult",
    "bootstrap_correlation_difference",
    "check_resample_count",
]

#: The correlations a bootstrap compares (the values of ``correlation=``).
BOOTSTRAP_CORRELATIONS = ("pearson", "spearman")
#: ``method=`` of the interval: ``"auto"`` (the calibration suite's choice) or one of
#: :data:`~sts_extras.stats.intervals.DIFFERENCE_METHODS`.
BOOTSTRAP_METHODS = ("auto", *DIFFERENCE_METHODS)
#: Below this many resamples the BCa end points are unstable (Efron & Tibshirani 1993, ch. 14).
MIN_RECOMMENDED_RESAMPLES = 1000


@dataclass(frozen=True)
class BootstrapDifferenceResult:
    """Bootstrap confidence interval of r1 - r2.

    Attributes
    ----------
    statistic : float
        The estimate: the observed difference r1 - r2 (r1 = r(predictions1, references), r2
        likewise); also available as ``delta``.
    confidence_interval : ConfidenceInterval
        The interval ``(low, high)`` of r1 - r2 by ``method``.
    pvalue : float
        Two-sided p-value of rho1 = rho2, the exact inverse of the interval: ``pvalue < 1 -
        confidence_level`` exactly when 0 lies outside ``confidence_interval``.
    significant : bool
        True when 0 lies outside the interval.
    bias_correction : float
        BCa's z0 = Phi^-1(share of bootstrap deltas below delta, ties counted half).
    acceleration : float or None
        BCa's acceleration from the leave-one-out jackknife; ``None`` for the other methods.
    n_resamples : int
        Number of bootstrap resamples used (resamples where a variable is constant are dropped,
        with a warning).
    r1, r2 : float
        Observed correlations.
    n : int
        Number of items.
    correlation : str
        ``"pearson"`` or ``"spearman"``.
    method : str
        The interval method used (``method="auto"`` says here which one it chose).
    confidence_level : float
    calibration : MeasuredLevel or None
        What the calibration suite measured for ``method`` at the grid n nearest to ``n``
        (worst type-I error and coverage over its data cells; ``calibration.calibrated``);
        ``None`` where the suite did not measure it (see ``docs/calibration.md``).
    bootstrap_distribution : numpy.ndarray
        The bootstrap deltas (read-only), in the order drawn.
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    pvalue: float
    significant: bool
    bias_correction: float
    acceleration: float | None
    n_resamples: int
    r1: float
    r2: float
    n: int
    correlation: str
    method: str
    confidence_level: float
    calibration: MeasuredLevel | None
    bootstrap_distribution: NDArray[np.float64] = field(repr=False, compare=False)

    @property
    def delta(self) -> float:
        """r1 - r2, the same number as ``statistic``."""
        return self.statistic


def check_resample_count(n_resamples: object, n: int, name: str = "n_resamples") -> int:
    """``n_resamples`` if it is an int in [1, :data:`~sts_extras.limits.MAX_RESAMPLES`] and
    ``n_resamples * n`` stays within :data:`~sts_extras.limits.MAX_RESAMPLED_ITEMS`; checked
    before any resample is drawn (a :class:`~sts_extras.errors.UserInputError` otherwise)."""
    n_resamples = check_count(
        n_resamples, name, MAX_RESAMPLES, why="more add no precision and hold 8 bytes each"
    )
    check_work({name: n_resamples, "n": n}, MAX_RESAMPLED_ITEMS, what="resampled items", name=name)
    return n_resamples


def warn_few_resamples(n_resamples: int, *, stacklevel: int) -> None:
    """``UserWarning`` when ``n_resamples`` is below :data:`MIN_RECOMMENDED_RESAMPLES`."""
    if n_resamples < MIN_RECOMMENDED_RESAMPLES:
        warnings.warn(
            f"n_resamples={n_resamples} is below {MIN_RECOMMENDED_RESAMPLES}: the interval's end "
            "points (especially BCa's) will be noisy; 10000 is the usual choice.",
            UserWarning,
            stacklevel=stacklevel + 1,
        )


@dataclass(frozen=True)
class _BootstrapInput:
    """The checked arguments of :func:`bootstrap_correlation_difference`."""

    predictions1: NDArray[np.float64]
    predictions2: NDArray[np.float64]
    references: NDArray[np.float64]
    correlation: str
    n_resamples: int
    confidence_level: float
    method: str
    rng: np.random.Generator


def _bootstrap_iv(
    predictions1: ArrayLike,
    predictions2: ArrayLike,
    references: ArrayLike,
    correlation: object,
    n_resamples: object,
    confidence_level: object,
    method: object,
    seed: object,
) -> _BootstrapInput:
    p1, p2, ref = as_paired_vectors(
        4, predictions1=predictions1, predictions2=predictions2, references=references
    )
    for array, name in ((p1, "predictions1"), (p2, "predictions2"), (ref, "references")):
        check_not_constant(array, name, what="the correlation")
    correlation = check_choice(correlation, "correlation", BOOTSTRAP_CORRELATIONS)
    if isinstance(method, str) and method.lower() == "bca":
        method = "BCa"
    method = check_choice(method, "method", BOOTSTRAP_METHODS)
    n_resamples = check_resample_count(n_resamples, ref.size)
    # user -> bootstrap_correlation_difference -> _bootstrap_iv
    warn_few_resamples(n_resamples, stacklevel=3)
    return _BootstrapInput(
        p1,
        p2,
        ref,
        correlation,
        n_resamples,
        check_open_unit_interval(confidence_level, "confidence_level"),
        method,
        check_seed(seed),
    )


def _resampled_deltas(
    engine: PearsonDelta, rng: np.random.Generator, n_resamples: int, n: int, *, progress: bool
) -> NDArray[np.float64]:
    """r1 - r2 in each of ``n_resamples`` paired resamples, in the order drawn (NaN: undefined)."""
    with progress_bar(n_resamples, "Bootstrap", unit="resample", enabled=progress) as bar:
        parts = []
        for counts in resample_counts(rng, n_resamples, n):
            parts.append(np.subtract(*engine.correlations(counts)))
            bar.update(counts.shape[0])
    return np.concatenate(parts)


def _drop_undefined(deltas: NDArray[np.float64], n_resamples: int, n: int) -> NDArray[np.float64]:
    """The deltas without the resamples that had a constant variable (warned), or an error."""
    dropped = int(np.isnan(deltas).sum())
    if not dropped:
        return deltas
    deltas = deltas[~np.isnan(deltas)]
    if deltas.size == 0:
        raise UserInputError(
            "Every bootstrap resample had a constant variable; the data have too few "
            f"distinct values (n = {n}) for a bootstrap of a correlation."
        )
    warnings.warn(
        f"{dropped} of {n_resamples} bootstrap resamples had a constant variable (no "
        "correlation) and were dropped.",
        RuntimeWarning,
        # user -> bootstrap_correlation_difference or compare_dependent_correlations
        # -> paired_difference -> here
        stacklevel=4,
    )
    return deltas


def _undefined_bca(delta: float) -> UserInputError:
    return UserInputError(
        "The BCa interval is undefined: every bootstrap delta lies on one side of the "
        f"observed delta ({delta:.6g}), so the bias correction is infinite. Use "
        "method='auto' (the calibrated default) or check the data."
    )


def resolve_method(
    method: str,
    correlation: str,
    n: int,
    references: NDArray[np.float64],
    *,
    stacklevel: int,
    family: bool = False,
    adjust: str = "holm",
    confidence_level: float = 0.95,
) -> tuple[str, MeasuredLevel | None]:
    """The interval method to run (``"auto"`` resolved from the calibration table) and what the
    calibration suite measured for it at n; warns (``UncalibratedWarning``) when that is outside
    the calibrated band, or the references are heavily tied. ``family``: the decisions are
    adjusted (by ``adjust``) over several pairs (see
    :func:`~sts_extras.stats.calibration.choose_method`)."""
    chosen = choose_method(correlation, n, family=family) if method == "auto" else method
    level = measured_for_data(chosen, correlation, references, confidence_level)
    if family:
        level = for_family(level, chosen, n, adjust)
    warn_if_uncalibrated(level, chosen, n, stacklevel=stacklevel + 1)
    return chosen, level


def bootstrap_correlation_difference(
    predictions1: ArrayLike,
    predictions2: ArrayLike,
    references: ArrayLike,
    *,
    correlation: str = "pearson",
    n_resamples: int = 10000,
    confidence_level: float = 0.95,
    method: str = "auto",
    seed: int | np.random.Generator | None = 0,
    progress: bool = False,
) -> BootstrapDifferenceResult:
    r"""Paired bootstrap interval of r(predictions1, references) - r(predictions2, references).

    Resamples the items (the triplets (h_i, a_i, b_i)) with replacement, computes the difference
    of the two correlations in every resample and returns the interval of ``method`` with its
    p-value. Zero outside the interval (``pvalue < 1 - confidence_level``) means the two systems
    differ significantly.

    The default, ``method="auto"``, is the method the repository's calibration suite measured
    best at this n (``docs/calibration.md``: type-I error and coverage on normal,
    heteroscedastic, heavy-tailed, skewed and STS-like data and on real STS Benchmark samples);
    ``result.method`` names it and ``result.calibration`` gives its measured level. The DynaMax
    paper's BCa interval (Appendix D) stays available as ``method="BCa"``; the suite measured it
    over-rejecting (type-I error for a nominal 5 % at n = 50: 9.3 % on normal data, 15 % under
    heteroscedastic errors, 15 % under t(3) errors, 5.3 % on real STS Benchmark samples; still
    13 % under t(3) errors at n = 250), and the percentile interval at 5.5-9.2 % at n = 50
    (the evaluation replicate of the suite).

    Parameters
    ----------
    predictions1, predictions2 : array_like of float
        Scores of system 1 (A) and system 2 (B) for the same items.
    references : array_like of float
        Gold scores H.
    correlation : {"pearson", "spearman"}, default "pearson"
        Correlation coefficient. For Spearman the ranks are recomputed inside every resample
        (an item drawn several times is a tie; ties get average ranks).
    n_resamples : int, default 10000
        Number of bootstrap resamples (a ``UserWarning`` below 1000), at most
        :data:`~sts_extras.limits.MAX_RESAMPLES`, with ``n_resamples * n`` at most
        :data:`~sts_extras.limits.MAX_RESAMPLED_ITEMS` (checked before any work).
    confidence_level : float, default 0.95
    method : {"auto", "adjusted-percentile", "jackknife-t", "percentile", "BCa"}, default "auto"
        The interval (:mod:`sts_extras.stats.intervals`); ``"auto"`` picks from the
        calibration table (:func:`~sts_extras.stats.calibration.choose_method`).
    seed : None, int or numpy.random.Generator, default 0
        Same seed, same data -> same interval; a Generator is used (and advanced) as it is,
        ``None`` draws fresh entropy from the operating system.
    progress : bool, default False
        Show a progress bar over the resamples (stderr).

    Returns
    -------
    BootstrapDifferenceResult
        ``statistic`` (the estimate r1 - r2, also ``delta``), ``confidence_interval``
        (``.low``, ``.high``), ``pvalue``, ``significant``, ``method`` (the one used),
        ``calibration``, ``bias_correction``, ``acceleration``, ``n_resamples``, ...

    Raises
    ------
    ValueError
        On length mismatch, NaN/inf, fewer than 4 items, constant input, unknown ``correlation``
        or ``method``, ``n_resamples`` below 1 or above its ceiling, ``confidence_level`` outside
        (0, 1); or when the BCa bias correction is infinite (every bootstrap delta on one side
        of the observed one).

    Warns
    -----
    UserWarning
        ``n_resamples < 1000``.
    UncalibratedWarning
        The method's measured type-I error or coverage at this n is outside the calibrated band
        (or the references are heavily tied); ``result.calibration`` has the numbers.
    RuntimeWarning
        Resamples in which one variable is constant (possible for tiny or heavily tied data)
        have no correlation; they are dropped and counted out of ``n_resamples``.

    Notes
    -----
    BCa (Efron 1987; Efron & Tibshirani 1993, eqs. 14.9-14.15): with
    :math:`\hat z_0 = \Phi^{-1}\big((\#\{\Delta^*_b < \hat\Delta\} + \tfrac12\#\{\Delta^*_b =
    \hat\Delta\}) / B\big)` and :math:`\hat a = \sum_i U_i^3 / (6 (\sum_i U_i^2)^{3/2})`,
    :math:`U_i = \bar\Delta_{(\cdot)} - \Delta_{(i)}` from the leave-one-out jackknife, the
    interval is the :math:`\alpha_1, \alpha_2` quantiles (linear interpolation) of the bootstrap
    deltas, :math:`\alpha_{1,2} = \Phi(\hat z_0 + (\hat z_0 + z_{\alpha})/(1 - \hat a(\hat z_0 +
    z_{\alpha})))` with :math:`z_\alpha = \Phi^{-1}((1 \mp \text{level})/2)` — the same
    estimator as ``scipy.stats.bootstrap(..., paired=True, method="BCa")``, computed without
    materialising the resamples (see the module docstring).

    References
    ----------
    .. [1] Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.
    .. [2] Zhelezniak, V. et al. (2019). Don't settle for average, go for the max. ICLR,
           Appendix D.

    Examples
    --------
    >>> import numpy as np
    >>> from sts_extras.stats.bootstrap import bootstrap_correlation_difference
    >>> rng = np.random.default_rng(0)
    >>> gold = rng.uniform(0, 5, 200)
    >>> system_a = gold + rng.normal(0, 1.0, 200)
    >>> system_b = gold + rng.normal(0, 1.5, 200)
    >>> res = bootstrap_correlation_difference(system_a, system_b, gold, seed=1)
    >>> low, high = res.confidence_interval
    >>> res.method, round(res.statistic, 3), round(low, 3), round(high, 3), res.significant
    ('jackknife-t', 0.102, 0.029, 0.175, True)
    >>> res.pvalue < 0.05, res.calibration.calibrated  # (and an UncalibratedWarning says why)
    (True, False)
    >>> [cell.cell for cell in res.calibration.outside_band]  # no method reaches this cell
    ['heavy-tailed/rho1=0.9,rho2=0.85,r12=0.95/effect']
    """
    checked = _bootstrap_iv(
        predictions1,
        predictions2,
        references,
        correlation,
        n_resamples,
        confidence_level,
        method,
        seed,
    )
    n = checked.references.size
    # a copy of the other system (r12 = +-1): its r1 - r2 is rounding noise, which the bootstrap
    # would call significant
    predictions = np.vstack([checked.predictions1, checked.predictions2])
    check_not_copies(
        correlation_matrix(predictions, checked.correlation)[0, 1], checked.correlation
    )
    # user -> bootstrap_correlation_difference -> resolve_method
    method, level = resolve_method(
        checked.method,
        checked.correlation,
        n,
        checked.references,
        stacklevel=2,
        confidence_level=checked.confidence_level,
    )
    found = paired_difference(
        checked.predictions1,
        checked.predictions2,
        checked.references,
        correlation=checked.correlation,
        method=method,
        n_resamples=checked.n_resamples,
        confidence_level=checked.confidence_level,
        rng=checked.rng,
        progress=progress,
    )
    return BootstrapDifferenceResult(
        statistic=found.delta,
        confidence_interval=ConfidenceInterval(found.low, found.high),
        pvalue=found.pvalue,
        significant=bool(found.low > 0.0 or found.high < 0.0),
        bias_correction=found.bias_correction,
        acceleration=found.acceleration,
        n_resamples=int(found.deltas.size),
        r1=found.r1,
        r2=found.r2,
        n=n,
        correlation=checked.correlation,
        method=method,
        confidence_level=checked.confidence_level,
        calibration=level,
        bootstrap_distribution=found.deltas,
    )


@dataclass(frozen=True)
class PairedDifference:
    """r1 - r2 of one pair with its interval and p-value (see :func:`paired_difference`)."""

    r1: float
    r2: float
    delta: float
    statistic: float
    low: float
    high: float
    pvalue: float
    bias_correction: float
    acceleration: float | None
    deltas: NDArray[np.float64]


def paired_difference(
    predictions1: NDArray[np.float64],
    predictions2: NDArray[np.float64],
    references: NDArray[np.float64],
    *,
    correlation: str,
    method: str,
    n_resamples: int,
    confidence_level: float,
    rng: np.random.Generator,
    progress: bool = False,
) -> PairedDifference:
    """The paired bootstrap of r1 - r2 and the interval and p-value of ``method`` (checked inputs).

    Shared by :func:`bootstrap_correlation_difference` and
    :func:`~sts_extras.stats.dependent.compare_dependent_correlations`; the interval arithmetic is
    :mod:`sts_extras.stats.intervals`. The resamples are drawn for every method (``jackknife-t``
    and ``twopov`` do not use them, but the bias correction and the bootstrap distribution are
    reported).
    """
    n = references.size
    engine = (PearsonDelta if correlation == "pearson" else SpearmanDelta)(
        references, predictions1, predictions2
    )
    # The observed sample is the resample with every count 1: same arithmetic, so a resample
    # equal to the sample ties exactly with it (BCa counts ties half).
    r1, r2 = (float(v[0]) for v in engine.correlations(np.ones((1, n))))
    delta = r1 - r2
    deltas = _resampled_deltas(engine, rng, n_resamples, n, progress=progress)
    deltas = _drop_undefined(deltas, n_resamples, n)
    inputs = {
        "deltas": deltas[None, :],
        "jackknife": engine.jackknife()[None, :] if method in ("BCa", "jackknife-t") else None,
        "standard_error": None,
    }
    if method == "twopov":
        predictions = np.vstack([predictions1, predictions2])
        se = hc4_standard_errors(predictions, references, correlation=correlation)
        r12 = correlation_matrix(predictions, correlation)[0, 1]
        standard_error = twopov_standard_errors(se[:1], se[1:], r1, r2, r12)
        inputs["standard_error"] = standard_error
        if not np.isfinite(standard_error).all():
            raise UserInputError(
                "twopov is undefined here: a system is constant but for one item (that item "
                "has leverage 1, and its HC4 standard error is 0 / 0), or a correlation lies "
                "within 1e-6 of +-1, where twopov's closed form loses its digits. Use another "
                "method."
            )
    observed = np.array([delta])
    alpha = 1.0 - confidence_level
    low, high = difference_intervals(method, observed, alpha=alpha, n=n, **inputs)
    pvalue = difference_pvalues(method, observed, n=n, **inputs)
    statistic = difference_statistics(
        method, observed, jackknife=inputs["jackknife"], standard_error=inputs["standard_error"]
    )
    jackknife = inputs["jackknife"]
    z0 = float(bias_correction(deltas[None, :], observed)[0])
    accelerated = None
    if method == "BCa":
        if not math.isfinite(z0):
            raise _undefined_bca(delta)
        assert jackknife is not None
        accelerated = float(acceleration(jackknife)[0])
    deltas.flags.writeable = False
    return PairedDifference(
        r1=r1,
        r2=r2,
        delta=delta,
        statistic=float(statistic[0]),
        low=float(low[0]),
        high=float(high[0]),
        pvalue=float(pvalue[0]),
        bias_correction=z0,
        acceleration=accelerated,
        deltas=deltas,
    )
