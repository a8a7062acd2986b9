"""Paired bootstrap confidence interval of the difference of two correlations, r1 - r2.

The DynaMax paper (Zhelezniak et al., 2019, Appendix D) compares two STS systems A and B on the
same human scores H with a bias-corrected and accelerated (BCa) bootstrap interval (Efron, 1987)
of Delta = r(A, H) - r(B, H), resampling the triplets (h_i, a_i, b_i) with replacement.

Why not ``scipy.stats.bootstrap``: it materialises every resample and evaluates the statistic on
copies of the data, and its BCa jackknife builds an n x (n - 1) array per sample. Here a resample
is a vector of counts ``w`` (how often each item was drawn), and

* Pearson: a correlation of a resample is a function of weighted sums sum(w x), sum(w x y), ...,
  so a whole chunk of resamples is one matrix product ``counts @ [h, a, b, h^2, a^2, b^2, ha, hb]``;
  the leave-one-out jackknife is O(n) from the total sums minus each item;
* Spearman: the average ranks of a resample follow from a cumulative sum of the counts along the
  items sorted once by value (an item drawn w times is a tie block of size w), so no sorting per
  resample; Spearman's rho is then the count-weighted Pearson correlation of those ranks.

Both give exactly the numbers one gets by materialising the resample (tested). Memory is bounded by
processing the resamples in chunks; the random stream does not depend on the chunk size.

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
from typing import Any

import numpy as np
from scipy import special

from sts_extras._validation import (
    as_paired_vectors,
    check_choice,
    check_not_constant,
    check_open_unit_interval,
    check_positive_int,
    check_seed,
)

__all__ = [
    "BOOTSTRAP_METHODS",
    "BOOTSTRAP_STATISTICS",
    "BootstrapDifferenceResult",
    "bootstrap_correlation_difference",
]

BOOTSTRAP_STATISTICS = ("pearson", "spearman")
BOOTSTRAP_METHODS = ("BCa", "percentile")
#: Below this many resamples the BCa end points are unstable (Efron & Tibshirani 1993, ch. 14).
MIN_RECOMMENDED_RESAMPLES = 1000
# Upper bound on the number of float64 elements of one (chunk x n) working array (512 KiB): small
# enough to stay in cache, which makes the rank arithmetic several times faster than large
# chunks. The results do not depend on it (the generator's stream is the same whether drawn at
# once or in chunks), up to the last bits of the matrix products.
_CHUNK_ELEMENTS = 1 << 16
# A resample whose (standardised) variance falls below this is checked exactly for constancy.
_DEGENERATE_VARIANCE = 1e-9


@dataclass(frozen=True)
class BootstrapDifferenceResult:
    """Bootstrap confidence interval of r1 - r2.

    Attributes
    ----------
    delta : float
        Observed difference r1 - r2 (r1 = r(predictions1, references), r2 likewise).
    ci_low, ci_high : float
        Interval end points.
    significant : bool
        True when 0 lies outside [ci_low, ci_high].
    bias_correction : float
        BCa's z0 = Phi^-1(share of bootstrap deltas below delta, ties counted half).
    acceleration : float or None
        BCa's acceleration from the leave-one-out jackknife; ``None`` for ``method="percentile"``.
    n_resamples : int
        Number of bootstrap resamples used (resamples where a variable is constant are dropped,
        with a warning).
    r1, r2 : float
        Observed correlations.
    n : int
        Number of items.
    statistic, method : str
    confidence_level : float
    bootstrap_distribution : numpy.ndarray
        The bootstrap deltas (read-only), in the order drawn.
    """

    delta: float
    ci_low: float
    ci_high: float
    significant: bool
    bias_correction: float
    acceleration: float | None
    n_resamples: int
    r1: float
    r2: float
    n: int
    statistic: str
    method: str
    confidence_level: float
    bootstrap_distribution: np.ndarray = field(repr=False, compare=False)

    def confidence_interval(self) -> tuple[float, float]:
        """``(ci_low, ci_high)``."""
        return self.ci_low, self.ci_high


# --------------------------------------------------------------------------------------------
# Resampling by counts
# --------------------------------------------------------------------------------------------
def _chunks(n_resamples: int, n: int):
    size = max(1, min(n_resamples, _CHUNK_ELEMENTS // n))
    for start in range(0, n_resamples, size):
        yield min(size, n_resamples - start)


def _draw_counts(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """Counts (rows x n, float64) of n draws with replacement from n items, one row per resample.

    Same draws as indexing the data with ``rng.integers(0, n, size=(rows, n))``.
    """
    indices = rng.integers(0, n, size=(rows, n))
    indices += (np.arange(rows) * n)[:, None]
    counts = np.bincount(indices.ravel(), minlength=rows * n)
    return counts.reshape(rows, n).astype(np.float64)


def _pearson_from_sums(count, sx, sy, sxx, syy, sxy):
    """Pearson r from (weighted) sums; ``count`` = total weight. Works on arrays."""
    cov = count * sxy - sx * sy
    var_x = count * sxx - sx * sx
    var_y = count * syy - sy * sy
    with np.errstate(invalid="ignore", divide="ignore"):
        return cov / np.sqrt(var_x * var_y), var_x, var_y


def _standardise(x: np.ndarray) -> np.ndarray:
    # Correlations are invariant to affine maps; unit scale keeps the one-pass sums accurate.
    return (x - x.mean()) / x.std()


def _is_constant_rows(counts: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Exact check, per row of ``counts``, that all drawn items have the same value of ``x``."""
    drawn = counts > 0
    high = np.where(drawn, x, -np.inf).max(axis=1)
    low = np.where(drawn, x, np.inf).min(axis=1)
    return high == low


def _two_pass_correlations(counts: np.ndarray, h: np.ndarray, a: np.ndarray, b: np.ndarray):
    """Weighted r(h, a) and r(h, b) by the centred (two-pass) formula, for a few rows."""
    total = counts.sum(axis=1, keepdims=True)
    ch, ca, cb = (v[None, :] - (counts @ v)[:, None] / total for v in (h, a, b))
    shh, saa, sbb = ((counts * c * c).sum(axis=1) for c in (ch, ca, cb))
    with np.errstate(invalid="ignore", divide="ignore"):
        r_ha = (counts * ch * ca).sum(axis=1) / np.sqrt(shh * saa)
        r_hb = (counts * ch * cb).sum(axis=1) / np.sqrt(shh * sbb)
    return r_ha, r_hb


class _PearsonDelta:
    """r(h, a) and r(h, b) for count-weighted resamples, and the leave-one-out jackknife."""

    def __init__(self, h: np.ndarray, a: np.ndarray, b: np.ndarray):
        self.columns = (_standardise(h), _standardise(a), _standardise(b))
        hs, as_, bs = self.columns
        # Design matrix of the eight sums a resample needs.
        self.design = np.column_stack([hs, as_, bs, hs * hs, as_ * as_, bs * bs, hs * as_, hs * bs])
        self.n = h.size

    @staticmethod
    def _from_sums(count, sums):
        sh, sa, sb, shh, saa, sbb, sha, shb = (sums[..., k] for k in range(8))
        r_ha, var_h, var_a = _pearson_from_sums(count, sh, sa, shh, saa, sha)
        r_hb, _, var_b = _pearson_from_sums(count, sh, sb, shh, sbb, shb)
        return r_ha, r_hb, np.minimum(np.minimum(var_h, var_a), var_b)

    def correlations(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(r_ha, r_hb) per row of ``counts``; NaN where a variable is constant in the resample."""
        r_ha, r_hb, smallest = self._from_sums(float(self.n), counts @ self.design)
        # One-pass sums lose accuracy when a resample's variance is tiny: redo those rows by
        # the two-pass formula, and mark truly constant resamples (no correlation) as NaN.
        suspicious = ~(smallest > _DEGENERATE_VARIANCE * float(self.n) ** 2)
        if suspicious.any():
            rows = counts[suspicious]
            constant = np.zeros(rows.shape[0], dtype=bool)
            for column in self.columns:
                constant |= _is_constant_rows(rows, column)
            fixed_ha, fixed_hb = _two_pass_correlations(rows, *self.columns)
            fixed_ha[constant] = np.nan
            r_ha[suspicious] = fixed_ha
            r_hb[suspicious] = fixed_hb
        return r_ha, r_hb

    def jackknife(self) -> np.ndarray:
        """Leave-one-out deltas in O(n): total sums minus each item's own terms."""
        leave_one_out = self.design.sum(axis=0)[None, :] - self.design
        r_ha, r_hb, _ = self._from_sums(float(self.n - 1), leave_one_out)
        return r_ha - r_hb


class _SpearmanDelta:
    """rho(h, a) and rho(h, b) with ranks recomputed inside every resample (average ranks)."""

    def __init__(self, h: np.ndarray, a: np.ndarray, b: np.ndarray):
        self.n = h.size
        self.values = (h, a, b)
        self.plans = [self._plan(v) for v in self.values]

    @staticmethod
    def _plan(x: np.ndarray):
        """Sort order and tie groups of ``x``, computed once."""
        order = np.argsort(x, kind="stable")
        sorted_x = x[order]
        new_group = np.empty(x.size, dtype=bool)
        new_group[0] = True
        new_group[1:] = sorted_x[1:] != sorted_x[:-1]
        if new_group.all():
            return order, None, None
        group_of = np.cumsum(new_group) - 1  # group index of each sorted position
        group_end = np.append(np.flatnonzero(new_group)[1:], x.size) - 1  # last position per group
        return order, group_of, group_end

    @staticmethod
    def _doubled_ranks(counts: np.ndarray, plan) -> np.ndarray:
        """2 x (average rank) of every item in each count-weighted resample, in item order.

        An item drawn w times forms, with the items tied to it, one tie block; its average rank is
        (#draws below the block) + (block size + 1) / 2. Doubled ranks are integers, so the sums
        below are exact in float64 for n up to several thousand.
        """
        order, group_of, group_end = plan
        in_order = counts[:, order]
        cumulative = np.cumsum(in_order, axis=1)
        if group_of is None:
            doubled_sorted = 2.0 * cumulative - in_order + 1.0
        else:
            ends = cumulative[:, group_end]
            before = np.zeros_like(ends)
            before[:, 1:] = ends[:, :-1]
            doubled_sorted = (before + ends + 1.0)[:, group_of]
        doubled = np.empty_like(doubled_sorted)
        doubled[:, order] = doubled_sorted
        return doubled

    @staticmethod
    def _from_ranks(weights, count, rh, ra, rb):
        weighted_h = weights * rh
        sh = weighted_h.sum(axis=1)
        sa = np.einsum("ij,ij->i", weights, ra)
        sb = np.einsum("ij,ij->i", weights, rb)
        shh = np.einsum("ij,ij->i", weighted_h, rh)
        sha = np.einsum("ij,ij->i", weighted_h, ra)
        shb = np.einsum("ij,ij->i", weighted_h, rb)
        saa = np.einsum("ij,ij->i", weights * ra, ra)
        sbb = np.einsum("ij,ij->i", weights * rb, rb)
        r_ha, var_h, var_a = _pearson_from_sums(count, sh, sa, shh, saa, sha)
        r_hb, _, var_b = _pearson_from_sums(count, sh, sb, shh, sbb, shb)
        return r_ha, r_hb, np.minimum(np.minimum(var_h, var_a), var_b)

    def correlations(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rho_ha, rho_hb) per row of ``counts``; NaN where a variable is constant."""
        ranks = [self._doubled_ranks(counts, plan) for plan in self.plans]
        r_ha, r_hb, smallest = self._from_ranks(counts, float(self.n), *ranks)
        # A non-constant resample has doubled-rank variance >= ~n^3; a constant one gives 0 up to
        # rounding. Check the candidates exactly on the drawn values.
        suspicious = ~(smallest > _DEGENERATE_VARIANCE * float(self.n) ** 4)
        if suspicious.any():
            rows = counts[suspicious]
            constant = np.zeros(rows.shape[0], dtype=bool)
            for column in self.values:
                constant |= _is_constant_rows(rows, column)
            r_ha[np.flatnonzero(suspicious)[constant]] = np.nan
        return r_ha, r_hb

    def jackknife(self) -> np.ndarray:
        """Leave-one-out deltas, exact: O(n^2) work in O(chunk x n) memory.

        Removing item i lowers the average rank of every item above it by 1 and of every item
        tied with it by 1/2, so 2 R'_j = 2 R_j - (sign(x_j - x_i) + 1) for j != i.
        """
        n = self.n
        full = [self._doubled_ranks(np.ones((1, n)), plan)[0] for plan in self.plans]
        out = np.empty(n)
        size = max(1, _CHUNK_ELEMENTS // n)
        for start in range(0, n, size):
            rows = np.arange(start, min(n, start + size))
            ranks = [
                doubled[None, :] - (np.sign(x[None, :] - x[rows, None]) + 1.0)
                for doubled, x in zip(full, self.values)
            ]
            weights = np.ones((rows.size, n))
            weights[np.arange(rows.size), rows] = 0.0
            r_ha, r_hb, _ = self._from_ranks(weights, float(n - 1), *ranks)
            out[rows] = r_ha - r_hb
        return out


# --------------------------------------------------------------------------------------------
# Public function
# --------------------------------------------------------------------------------------------
def _bootstrap_iv(
    predictions1, predictions2, references, statistic, n_resamples, confidence_level, method, seed
):
    p1, p2, ref = as_paired_vectors(
        4, predictions1=predictions1, predictions2=predictions2, references=references
    )
    for array, name in ((p1, "predictions1"), (p2, "predictions2"), (ref, "references")):
        check_not_constant(array, name, what="the correlation")
    statistic = check_choice(statistic, "statistic", BOOTSTRAP_STATISTICS)
    if isinstance(method, str) and method.lower() == "bca":
        method = "BCa"
    method = check_choice(method, "method", BOOTSTRAP_METHODS)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    if n_resamples < MIN_RECOMMENDED_RESAMPLES:
        warnings.warn(
            f"n_resamples={n_resamples} is below {MIN_RECOMMENDED_RESAMPLES}: the interval's end "
            "points (especially BCa's) will be noisy; 10000 is the usual choice.",
            UserWarning,
            stacklevel=3,
        )
    confidence_level = check_open_unit_interval(confidence_level, "confidence_level")
    rng = check_seed(seed)
    return p1, p2, ref, statistic, n_resamples, confidence_level, method, rng


def _acceleration(jackknife: np.ndarray) -> float:
    """Efron & Tibshirani (1993), eq. 14.15: skewness of the jackknife values / 6."""
    u = jackknife.mean() - jackknife
    denominator = float(np.sum(u * u)) ** 1.5
    if denominator == 0.0:  # e.g. identical systems: every jackknife delta is the same
        return 0.0
    return float(np.sum(u**3) / (6.0 * denominator))


def bootstrap_correlation_difference(
    predictions1: Any,
    predictions2: Any,
    references: Any,
    *,
    statistic: str = "pearson",
    n_resamples: int = 10000,
    confidence_level: float = 0.95,
    method: str = "BCa",
    seed: int | np.random.Generator | None = None,
) -> BootstrapDifferenceResult:
    r"""Paired bootstrap interval of r(predictions1, references) - r(predictions2, references).

    Resamples the items (the triplets (h_i, a_i, b_i)) with replacement, computes the difference
    of the two correlations in every resample and returns Efron's (1987) BCa interval (or the
    percentile interval). Zero outside the interval means the two systems differ significantly.

    Parameters
    ----------
    predictions1, predictions2 : array_like of float
        Scores of system 1 (A) and system 2 (B) for the same items.
    references : array_like of float
        Gold scores H.
    statistic : {"pearson", "spearman"}, default "pearson"
        Correlation coefficient. For Spearman the ranks are recomputed inside every resample
        (an item drawn several times is a tie; ties get average ranks).
    n_resamples : int, default 10000
        Number of bootstrap resamples (a ``UserWarning`` below 1000).
    confidence_level : float, default 0.95
    method : {"BCa", "percentile"}, default "BCa"
    seed : None, int or numpy.random.Generator
        Same seed, same data -> same interval.

    Returns
    -------
    BootstrapDifferenceResult
        ``delta``, ``ci_low``, ``ci_high``, ``significant``, ``bias_correction``,
        ``acceleration``, ``n_resamples``, ...

    Raises
    ------
    ValueError
        On length mismatch, NaN/inf, fewer than 4 items, constant input, unknown ``statistic`` or
        ``method``, ``n_resamples < 1``, ``confidence_level`` outside (0, 1); or when the BCa
        bias correction is infinite (every bootstrap delta on one side of the observed one).

    Warns
    -----
    UserWarning
        ``n_resamples < 1000``.
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
    >>> round(res.delta, 3), round(res.ci_low, 3), round(res.ci_high, 3), res.significant
    (0.102, 0.038, 0.184, True)
    """
    p1, p2, ref, statistic, n_resamples, confidence_level, method, rng = _bootstrap_iv(
        predictions1,
        predictions2,
        references,
        statistic,
        n_resamples,
        confidence_level,
        method,
        seed,
    )
    n = ref.size
    engine = (_PearsonDelta if statistic == "pearson" else _SpearmanDelta)(ref, p1, p2)
    # The observed sample is the resample with every count 1: same arithmetic, so a resample
    # equal to the sample ties exactly with it (BCa counts ties half).
    r1, r2 = (float(v[0]) for v in engine.correlations(np.ones((1, n))))
    delta = r1 - r2
    deltas = []
    for rows in _chunks(n_resamples, n):
        r_ha, r_hb = engine.correlations(_draw_counts(rng, rows, n))
        deltas.append(r_ha - r_hb)
    deltas = np.concatenate(deltas)
    dropped = int(np.isnan(deltas).sum())
    if dropped:
        deltas = deltas[~np.isnan(deltas)]
        if deltas.size == 0:
            raise ValueError(
                "Every bootstrap resample had a constant variable; the data have too few "
                f"distinct values (n = {n}) for a bootstrap of a correlation."
            )
        warnings.warn(
            f"{dropped} of {n_resamples} bootstrap resamples had a constant variable (no "
            "correlation) and were dropped.",
            RuntimeWarning,
            stacklevel=2,
        )
    used = int(deltas.size)

    # Share of bootstrap deltas below the observed one, ties counted half.
    below = np.count_nonzero(deltas < delta) + np.count_nonzero(deltas <= delta)
    share_below = below / (2.0 * used)
    bias_correction = float(special.ndtri(share_below))
    alpha = (1.0 - confidence_level) / 2.0
    acceleration = None
    if method == "BCa":
        if not math.isfinite(bias_correction):
            raise ValueError(
                "The BCa interval is undefined: every bootstrap delta lies on one side of the "
                f"observed delta ({delta:.6g}), so the bias correction is infinite. Use "
                "method='percentile' or check the data."
            )
        acceleration = _acceleration(engine.jackknife())
        z_alpha = special.ndtri(alpha)
        levels = []
        for z in (z_alpha, -z_alpha):
            shifted = bias_correction + z
            adjusted = bias_correction + shifted / (1.0 - acceleration * shifted)
            levels.append(float(special.ndtr(adjusted)))
    else:
        levels = [alpha, 1.0 - alpha]
    ci_low, ci_high = (float(v) for v in np.quantile(deltas, levels))
    deltas.flags.writeable = False
    return BootstrapDifferenceResult(
        delta=float(delta),
        ci_low=ci_low,
        ci_high=ci_high,
        significant=bool(ci_low > 0.0 or ci_high < 0.0),
        bias_correction=bias_correction,
        acceleration=acceleration,
        n_resamples=used,
        r1=r1,
        r2=r2,
        n=n,
        statistic=statistic,
        method=method,
        confidence_level=confidence_level,
        bootstrap_distribution=deltas,
    )
