"""Calibration of the family-wise claims: adjusted decisions, mean ranks, power.

Through the public API, on simulated tasks of five models scored against the same gold scores:

* **family-wise error**: five or ten models, all equally good (10 or 45 pairs under the null);
  the share of tasks in which ``compare_models`` (Holm over the pairs, each interval method in
  turn) calls any pair significant. Conservative by design: at most 5 %; ``method="auto"`` on
  several pairs picks among the methods that meet it at both sizes;
* (the rank sets ``rank_low``..``rank_high`` of ``compare_models`` have their own cells, with
  ties: :mod:`benchmarks.calibration.model_ranks`);
* **mean rank across tasks**: three tasks (n, 1.28 n and 2 n items) of the same five models; the
  share whose ``mean_rank_across_tasks`` interval holds each model's true mean rank (the worst);
* **power**: the analytic power (``dependent_test_power``) of Meng's test against its simulated
  rejection rate on trivariate normal data, and the simulated power of the default.

Data: gold h ~ N(0, 1); model k is h + s_k g(h) e_k with e_k correlated 0.6 between models (normal,
or heteroscedastic: g(h) = 0.2 + |h|). True correlations are those of a 1,000,000-row sample.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from sts_extras.stats import compare_models, dependent_test_power, mean_rank_across_tasks
from sts_extras.stats.calibration import UncalibratedWarning
from sts_extras.stats.dependent import compare_dependent_correlations
from sts_extras.stats.intervals import DIFFERENCE_METHODS

__all__ = ["FamilyRow", "run_family_claims", "run_family_errors"]

#: Error sds of the five models: equal under the null, distinct for the rank cells.
_NULL_SDS = (0.8, 0.8, 0.8, 0.8, 0.8)
#: Models per null family: a family-wise error grows with the number of pairs.
_NULL_MODELS = (5, 10)
_RANKED_SDS = (0.6, 0.7, 0.8, 0.95, 1.15)
#: The interval methods whose adjusted family decisions are measured (``method="auto"`` picks
#: among them for a family: ``sts_extras.stats.calibration.choose_method(family=True)``).
FAMILY_METHODS = DIFFERENCE_METHODS
_ERROR_CORRELATION = 0.6


@dataclass(frozen=True)
class FamilyRow:
    """One measured cell: ``kind`` (fwer, mean-rank, power)."""

    kind: str
    family: str
    method: str
    n: int
    value: float
    target: float | None
    samples: int
    detail: str
    correlation: str = "pearson"


def _models(rng: np.random.Generator, n: int, sds: tuple[float, ...], hetero: bool):
    h = rng.standard_normal(n)
    m = len(sds)
    cov = np.full((m, m), _ERROR_CORRELATION) + (1 - _ERROR_CORRELATION) * np.eye(m)
    errors = rng.multivariate_normal(np.zeros(m), cov, n).T
    scale = (0.2 + np.abs(h)) if hetero else 1.0
    return h, {f"m{k}": h + s * scale * errors[k] for k, s in enumerate(sds)}


def _true_ranks(sds: tuple[float, ...], hetero: bool) -> np.ndarray:
    h, models = _models(np.random.default_rng(2024), 1_000_000, sds, hetero)
    r = np.array([np.corrcoef(h, x)[0, 1] for x in models.values()])
    return 1 + np.array([np.count_nonzero(r > value) for value in r])


def _compare(
    models: dict[str, np.ndarray],
    gold: np.ndarray,
    resamples: int,
    seed: int,
    method: str = "auto",
    correlation: str = "pearson",
):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UncalibratedWarning)
        return compare_models(
            models,
            gold,
            n_resamples=resamples,
            seed=seed,
            method=method,
            correlation=correlation,
        )


def run_family_errors(
    samples: int = 300,
    resamples: int = 1000,
    seed: int = 0,
    ns: tuple[int, ...] = (50, 250),
    correlation: str = "pearson",
) -> list[FamilyRow]:
    """The family-wise error of every interval method's Holm-adjusted decisions (each method
    forced, so the rows do not depend on the packaged table) for ``correlation``; ``samples``
    tasks per cell."""
    rows: list[FamilyRow] = []
    rng = np.random.default_rng([seed, 0])
    for family, hetero in (("normal", False), ("heteroscedastic", True)):
        for n in ns:
            for size in _NULL_MODELS:
                sds = (_NULL_SDS[0],) * size
                tasks = [_models(rng, n, sds, hetero) for _ in range(samples)]
                what = f"{size} equal models, {size * (size - 1) // 2} pairs, Holm"
                for method in FAMILY_METHODS:
                    rejections = 0
                    for i, (gold, models) in enumerate(tasks):
                        result = _compare(models, gold, resamples, seed + i, method, correlation)
                        rejections += any(pair.significant for pair in result.pairs)
                    value = rejections / samples
                    rows.append(
                        FamilyRow(
                            "fwer", family, method, n, value, 0.05, samples, what, correlation
                        )
                    )
    return rows


def run_family_claims(
    samples: int = 300, resamples: int = 1000, seed: int = 0, ns: tuple[int, ...] = (50, 250)
) -> list[FamilyRow]:
    """The claims of the defaults (``method="auto"``, which reads the packaged table: run
    :func:`run_family_errors` and write its rows first): mean-rank coverage and power."""
    rows: list[FamilyRow] = []
    rng = np.random.default_rng([seed, 1])
    for family, hetero in (("normal", False), ("heteroscedastic", True)):
        truth = _true_ranks(_RANKED_SDS, hetero)
        for n in ns:
            mean_covered = np.zeros(len(truth))
            sizes = (n, int(1.28 * n), 2 * n)
            for i in range(samples):
                results = []
                for size in sizes:
                    gold, models = _models(rng, size, _RANKED_SDS, hetero)
                    results.append(_compare(models, gold, resamples, seed + i))
                low, high = mean_rank_across_tasks(results).confidence_interval
                mean_covered += (low <= truth) & (truth <= high)
            worst = "worst of 5 models with close correlations"
            rows += [
                FamilyRow(
                    "mean-rank", family, "auto", n, float(mean_covered.min() / samples), 0.95,
                    samples, f"3 tasks of n = {sizes[0]}, {sizes[1]}, {sizes[2]}; {worst}",
                ),
            ]  # fmt: skip
    rows += _power_rows(rng, samples, resamples, seed)
    return rows


def _power_rows(
    rng: np.random.Generator, samples: int, resamples: int, seed: int
) -> list[FamilyRow]:
    """Analytic power of meng1992 against its simulated power, and the default's, at r1 = 0.8,
    r2 = 0.7, r12 = 0.8 on trivariate normal data."""
    r1, r2, r12 = 0.8, 0.7, 0.8
    cov = np.array([[1.0, r1, r2], [r1, 1.0, r12], [r2, r12, 1.0]])
    rows = []
    for n in (50, 100, 250):
        predicted = dependent_test_power(r1, r2, r12, n, method="meng1992").power
        meng = default = 0
        for i in range(samples):
            h, a, b = rng.multivariate_normal(np.zeros(3), cov, n).T
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UncalibratedWarning)
                meng += compare_dependent_correlations(a, b, h, method="meng1992").pvalue < 0.05
                default += (
                    compare_dependent_correlations(
                        a, b, h, n_resamples=resamples, seed=seed + i
                    ).pvalue
                    < 0.05
                )
        rows += [
            FamilyRow(
                "power",
                "normal",
                "meng1992",
                n,
                meng / samples,
                predicted,
                samples,
                f"meng1992 simulated vs analytic {predicted:.3f} (r1 .8, r2 .7, r12 .8)",
            ),  # fmt: skip
            FamilyRow(
                "power",
                "normal",
                "auto",
                n,
                default / samples,
                predicted,
                samples,
                "the default (method='auto') simulated, vs meng1992's analytic power",
            ),  # fmt: skip
        ]
    return rows


def markdown(rows: list[FamilyRow]) -> str:
    """The family-wise section of ``docs/calibration.md``."""
    lines = [
        "| measure | method | correlation | data | n | measured | target | data sets | what |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    names = {
        "fwer": "family-wise error of the adjusted pair decisions",
        "mean-rank": "coverage of the mean-rank interval",
        "power": "power",
    }
    for row in rows:
        target = "–" if row.target is None else f"{row.target:.1%}"
        if row.kind == "fwer":
            target = f"≤ {target}"
        elif row.kind == "mean-rank":
            target = f"≥ {target}"
        lines.append(
            f"| {names[row.kind]} | {row.method} | {row.correlation} | {row.family} | {row.n} | "
            f"{row.value:.1%} | "
            f"{target} | {row.samples} | {row.detail} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import time

    start = time.perf_counter()
    measured = run_family_errors(samples=100) + run_family_claims(samples=100)
    print(markdown(measured))
    print(f"{time.perf_counter() - start:.0f} s")
