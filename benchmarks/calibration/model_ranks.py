"""Calibration of ``compare_models``' rank intervals on one task: ties, near-ties, separation.

Through the public API (:func:`sts_extras.stats.compare_models` with its defaults:
``method="auto"``, ``adjust="holm"``, ``confidence_level=0.95``; only ``n_resamples`` is smaller,
1,000 by default, to fit the run), on tasks of 3, 5 and 10 models at n = 50, 64 and 250 items.
The true rank of model j is ``1 + #{k : rho_k > rho_j}`` (ties share the best rank), rho the
population correlation with the gold scores. Four configurations of the models:

* ``equal``: every model equally good (every true rank is 1);
* ``two groups``: two tied groups (the first ceil(m / 2) models better; true ranks 1 and
  ceil(m / 2) + 1);
* ``near ties``: distinct but close correlations (ranks 1..m, differences far below what n
  items can show);
* ``separated``: correlations spread widely (ranks 1..m, neighbours a few standard errors apart).

Data, per configuration:

* synthetic ``normal``: gold h ~ N(0, 1), model k = h + s_k e_k with independent e_k ~ N(0, 1),
  so rho_k = 1 / sqrt(1 + s_k^2): equal s_k are exact ties, and the true ranks follow the s_k;
* synthetic ``heteroscedastic``: the same with error s_k (0.2 + |h|) e_k (rho_k still decreases
  with s_k, ties exact);
* real ``stsb`` plasmodes: the 1,379 pairs of the STS Benchmark test set with the scores of five
  real systems (:mod:`benchmarks.calibration.real_scores`) are the population. Model k is a
  mixture: for each item drawn (with replacement) it takes the score of one real system drawn
  from its own probabilities over the systems, independently per item and model. Models with the
  same probabilities share one population distribution (exact ties); every true rank comes from
  the population correlation of the mixture over the whole test set.

Measured per cell: the marginal coverage of ``rank_low..rank_high`` (the worst model's share of
replications whose interval holds its true rank), the simultaneous coverage (every interval at
once) and the median interval size (ranks in the interval, over models and replications); beside
them the same for the old interval, the 2.5 % and 97.5 % percentiles of
``result.bootstrap_ranks`` (``inverted_cdf``), which Hall & Miller (2009) show is inconsistent
under ties. Target: coverage >= 95 % - 2 SE, SE = sqrt(0.05 x 0.95 / replications).

Every replication's random stream is keyed by (seed, cell name, models, n, replication), so a
cell gives the same numbers whatever else runs. Run it alone with
``python -m benchmarks.calibration.model_ranks`` (``--quick``: a slice in under a minute that
prints and writes nothing); it writes its rows under ``"model_ranks"`` of
``sts_extras/data/calibration.json`` and its section of ``docs/calibration.md``, leaving every
other row as it is.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from benchmarks.calibration import report
from benchmarks.calibration.cells import cell_key
from benchmarks.calibration.suite import one_thread
from sts_extras.stats import compare_models
from sts_extras.stats.calibration import UncalibratedWarning

__all__ = [
    "CONFIGURATIONS",
    "DATA",
    "ModelRankRow",
    "markdown",
    "run_model_ranks",
    "write_rows",
    "write_section",
]

ROOT = Path(__file__).resolve().parents[2]
#: The configurations of the models, in the order of the table.
CONFIGURATIONS = ("equal", "two groups", "near ties", "separated")
#: The data of the cells: two synthetic families and the real plasmodes.
DATA = ("normal", "heteroscedastic", "stsb")
MODELS = (3, 5, 10)
NS = (50, 64, 250)
DEFAULT_SAMPLES = 130
DEFAULT_RESAMPLES = 1000
QUICK_SAMPLES = 25
LEVEL = 0.95
_SECTION = "## Rank intervals of compare_models: ties, near-ties and separated models"
#: Real systems of the plasmodes, as named by real_scores.MODEL_NAMES (population Pearson r
#: on the 1,379 test pairs: minilm .827, maxpool .583, overlap .570, dynamax .486, avgcos .369).
_SYSTEMS = ("minilm", "maxpool-glove50", "overlap", "dynamax-glove50", "avgcos-glove50")


@dataclass(frozen=True)
class ModelRankRow:
    """One cell: coverage and size of the rank intervals, beside the bootstrap percentile's."""

    configuration: str
    data: str
    models: int
    n: int
    samples: int
    resamples: int
    marginal: float
    simultaneous: float
    median_size: float
    bootstrap_marginal: float
    bootstrap_simultaneous: float
    bootstrap_median_size: float
    se: float
    target: float
    methods: str
    true_ranks: str

    @property
    def holds(self) -> bool:
        """Both coverages of the rank intervals at least the target minus 2 SE."""
        return min(self.marginal, self.simultaneous) >= self.target - 2.0 * self.se


# --------------------------------------------------------------------------------------------
# The models of a configuration: error sds (synthetic) or probabilities over real systems
# --------------------------------------------------------------------------------------------
def _sds(configuration: str, m: int) -> NDArray[np.float64]:
    """Error sds of the synthetic models (a smaller sd is a better model)."""
    if configuration == "equal":
        return np.full(m, 0.8)
    if configuration == "two groups":
        first = math.ceil(m / 2)
        return np.r_[np.full(first, 0.6), np.full(m - first, 1.0)]
    if configuration == "near ties":
        return np.linspace(0.78, 0.82, m)
    return np.linspace(0.3, 1.5, m)


def _mixtures(configuration: str, m: int) -> NDArray[np.float64]:
    """(m x systems) probabilities over :data:`_SYSTEMS` of the real plasmodes."""
    mix = np.zeros((m, len(_SYSTEMS)))
    if configuration == "equal":
        mix[:, [1, 2]] = 0.5  # maxpool and overlap, each half the time
    elif configuration == "two groups":
        first = math.ceil(m / 2)
        mix[:first, [0, 1]] = 0.5  # minilm or maxpool
        mix[first:, [2, 3]] = 0.5  # overlap or dynamax
    else:
        # minilm with probability w_k, else avgcos: close w (near ties) or spread w
        w = np.linspace(0.55, 0.45, m) if configuration == "near ties" else np.linspace(1, 0, m)
        mix[:, 0], mix[:, 4] = w, 1.0 - w
    return mix


def _true_ranks(rho: NDArray[np.float64]) -> NDArray[np.int64]:
    return 1 + np.count_nonzero(rho[None, :] > rho[:, None], axis=1)


def _mixture_correlations(
    gold: NDArray[np.float64], systems: NDArray[np.float64], mix: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Population Pearson r of each mixture with the gold over the whole set (items uniform)."""
    mean = mix @ systems.mean(axis=1)
    second = mix @ (systems**2).mean(axis=1)
    cross = mix @ (systems * gold).mean(axis=1)
    covariance = cross - mean * gold.mean()
    return np.asarray(covariance / np.sqrt((second - mean**2) * gold.var()))


@dataclass(frozen=True)
class _Setting:
    """How to draw one task of a cell, and its true ranks."""

    data: str
    configuration: str
    m: int
    truth: NDArray[np.int64]
    sds: NDArray[np.float64] | None = None
    #: real plasmodes: the population's gold, the systems' scores and the models' mixtures
    real: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]] | None = None

    def draw(
        self, rng: np.random.Generator, n: int
    ) -> tuple[NDArray[np.float64], dict[str, NDArray[np.float64]]]:
        if self.sds is not None:
            h = rng.standard_normal(n)
            scale = 0.2 + np.abs(h) if self.data == "heteroscedastic" else 1.0
            errors = rng.standard_normal((self.m, n))
            return h, {f"m{k}": h + s * scale * errors[k] for k, s in enumerate(self.sds)}
        if self.real is None:
            raise ValueError("a setting needs error sds or real data")
        gold, systems, mix = self.real
        items = rng.integers(0, gold.size, n)
        models = {}
        for k in range(self.m):
            chosen = rng.choice(len(_SYSTEMS), size=n, p=mix[k])
            models[f"m{k}"] = systems[chosen, items]
        return gold[items], models


def _setting(data: str, configuration: str, m: int) -> _Setting:
    if data != "stsb":
        sds = _sds(configuration, m)
        # rho_k decreases with s_k in both families: the ranks of the sds are the true ranks.
        return _Setting(data, configuration, m, _true_ranks(-sds), sds=sds)
    from benchmarks.calibration.real_scores import stsb_scores

    gold, scores = stsb_scores("test")
    systems = np.vstack([scores[name] for name in _SYSTEMS])
    mix = _mixtures(configuration, m)
    rho = _mixture_correlations(gold, systems, mix)
    return _Setting(data, configuration, m, _true_ranks(rho), real=(gold, systems, mix))


# --------------------------------------------------------------------------------------------
# One cell
# --------------------------------------------------------------------------------------------
def _cell_name(data: str, configuration: str) -> str:
    return f"model-ranks/{data}/{configuration}"


def _cell(setting: _Setting, n: int, samples: int, resamples: int, seed: int) -> ModelRankRow:
    truth = setting.truth
    key = (cell_key(_cell_name(setting.data, setting.configuration)), setting.m, n)
    streams = np.random.SeedSequence(seed, spawn_key=key).spawn(samples)
    inside = np.zeros(setting.m)
    boot_inside = np.zeros(setting.m)
    joint = boot_joint = 0
    sizes, boot_sizes = [], []
    methods: set[str] = set()
    for stream in streams:
        data_seed, resample_seed = stream.spawn(2)
        gold, models = setting.draw(np.random.default_rng(data_seed), n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UncalibratedWarning)
            warnings.simplefilter("ignore", RuntimeWarning)  # dropped constant resamples
            result = compare_models(
                models, gold, n_resamples=resamples, seed=np.random.default_rng(resample_seed)
            )
        methods.add(result.method)
        held = (result.rank_low <= truth) & (truth <= result.rank_high)
        inside += held
        joint += bool(held.all())
        sizes.append(result.rank_high - result.rank_low + 1)
        low, high = np.quantile(
            result.bootstrap_ranks, [0.025, 0.975], axis=0, method="inverted_cdf"
        )
        boot_held = (low <= truth) & (truth <= high)
        boot_inside += boot_held
        boot_joint += bool(boot_held.all())
        boot_sizes.append(high - low + 1)
    return ModelRankRow(
        configuration=setting.configuration,
        data=setting.data,
        models=setting.m,
        n=n,
        samples=samples,
        resamples=resamples,
        marginal=float(inside.min() / samples),
        simultaneous=joint / samples,
        median_size=float(np.median(np.concatenate(sizes))),
        bootstrap_marginal=float(boot_inside.min() / samples),
        bootstrap_simultaneous=boot_joint / samples,
        bootstrap_median_size=float(np.median(np.concatenate(boot_sizes))),
        se=math.sqrt((1.0 - LEVEL) * LEVEL / samples),
        target=LEVEL,
        methods=",".join(sorted(methods)),
        true_ranks=" ".join(str(int(r)) for r in truth),
    )


def run_model_ranks(
    *,
    samples: int = DEFAULT_SAMPLES,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    data: Sequence[str] = DATA,
    configurations: Sequence[str] = CONFIGURATIONS,
    models: Sequence[int] = MODELS,
    ns: Sequence[int] = NS,
    progress: bool = False,
) -> list[ModelRankRow]:
    """Every cell of the grid; the same seed gives the same numbers, cell by cell."""
    rows = []
    with one_thread():
        for source in data:
            for configuration in configurations:
                for m in models:
                    setting = _setting(source, configuration, m)
                    for n in ns:
                        start = time.perf_counter()
                        rows.append(_cell(setting, n, samples, resamples, seed))
                        if progress:
                            print(
                                f"{source:<16} {configuration:<11} m={m:<3} n={n:<4} "
                                f"{time.perf_counter() - start:5.1f} s",
                                file=sys.stderr,
                                flush=True,
                            )
    return rows


def run_quick(*, seed: int = 0) -> list[ModelRankRow]:
    """The slice of ``--quick``: five models at n = 64, every configuration, normal and real."""
    return run_model_ranks(
        samples=QUICK_SAMPLES, seed=seed, data=("normal", "stsb"), models=(5,), ns=(64,)
    )


# --------------------------------------------------------------------------------------------
# Outputs: the rows in calibration.json, the section of docs/calibration.md
# --------------------------------------------------------------------------------------------
def markdown(
    rows: Sequence[ModelRankRow], seconds: float | None = None, cpu_seconds: float | None = None
) -> str:
    """The section of ``docs/calibration.md``."""
    samples = sorted({row.samples for row in rows})
    resamples = sorted({row.resamples for row in rows})
    se = ", ".join(f"{math.sqrt(0.05 * 0.95 / s):.1%} at {s}" for s in samples)
    missed = [row for row in rows if not row.holds]
    lines = [
        _SECTION,
        "",
        "`benchmarks/calibration/model_ranks.py` (alone: `python -m "
        "benchmarks.calibration.model_ranks`, `--quick` for a one-minute slice), through "
        "`compare_models` with its defaults "
        '(`method="auto"`, `adjust="holm"`, `confidence_level=0.95`) and '
        f"`n_resamples={'/'.join(map(str, resamples))}`. Its `rank_low`..`rank_high` is the rank "
        "set that the pair decisions leave (Mogstad, Romano, Shaikh & Wilhelm 2024): "
        "1 + the models significantly better, m − the models significantly worse. True rank "
        "= 1 + the models with a higher population correlation (ties share the best rank). "
        "Synthetic data: gold h ~ N(0, 1), model k = h + s_k e_k (normal) or h + s_k (0.2 + |h|) "
        "e_k (heteroscedastic), independent errors, so equal s_k are exact ties; real "
        "plasmodes (stsb): items drawn from the 1,379 STS Benchmark test pairs, each model "
        "taking item by item the score of a real system drawn from its own mixture of five "
        "systems (equal mixtures are exact ties; true ranks from the whole test set). "
        "Configurations: all models equal; two tied groups; near ties (distinct, close); "
        "separated. Marginal = the worst model's coverage; simultaneous = all intervals at "
        "once; size = median number of ranks in an interval. Beside them, the old interval: "
        "the 2.5–97.5 % percentiles of `bootstrap_ranks` (Hall & Miller 2009). Target: "
        f"coverage ≥ 95 % − 2 SE (SE = sqrt(0.05 × 0.95 / replications): {se}).",
        "",
        "How to read it: the rank sets are conservative by construction (a set holds every true "
        "rank whenever the directions of the decisions it relies on are right, and Holm's "
        "family-wise error bounds the chance of a wrong one), so their simultaneous coverage is "
        "the share of tasks without a wrong pair decision; ties cost them nothing. The "
        "percentile interval of the bootstrap rank undercovers wherever models tie or nearly "
        "tie: the resampled rank of a tied model spreads over the group, and its interval "
        "leaves out the shared best rank.",
        "",
        "| configuration | data | models | n | reps | marginal | simultaneous | size | "
        "bootstrap marginal | bootstrap simultaneous | bootstrap size | SE | true ranks |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        flag = "" if row.holds else " ✗"
        lines.append(
            f"| {row.configuration} | {row.data} | {row.models} | {row.n} | {row.samples} | "
            f"{row.marginal:.1%}{flag} | {row.simultaneous:.1%} | {row.median_size:g} | "
            f"{row.bootstrap_marginal:.1%} | {row.bootstrap_simultaneous:.1%} | "
            f"{row.bootstrap_median_size:g} | {row.se:.1%} | {row.true_ranks} |"
        )
    lines += [
        "",
        f"{len(rows) - len(missed)} of {len(rows)} cells meet the target in both coverages"
        + ("." if not missed else "; ✗ marks the others."),
    ]
    methods = sorted({name for row in rows for name in row.methods.split(",")})
    lines.append(f'Pair method picked by `method="auto"`: {", ".join(methods)}.')
    lines += report.timing_lines(seconds, cpu_seconds)
    return "\n".join(lines) + "\n"


def write_rows(rows: Sequence[ModelRankRow], table: Path) -> None:
    """Put the rows under ``"model_ranks"`` of the calibration table; the rest is left as it is."""
    report.write_key(table, "model_ranks", [dataclasses.asdict(row) for row in rows])


def write_section(
    rows: Sequence[ModelRankRow],
    page: Path,
    seconds: float | None = None,
    cpu_seconds: float | None = None,
) -> None:
    """Replace (or append) this section of the calibration page."""
    report.write_section(page, _SECTION, markdown(rows, seconds, cpu_seconds))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the cells and write their rows and section (``--quick``: print a slice only)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.calibration.model_ranks")
    parser.add_argument("--quick", action="store_true", help="a slice in under a minute, printed")
    parser.add_argument(
        "--samples", type=int, default=DEFAULT_SAMPLES, help="replications per cell"
    )
    parser.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap B")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--print-only", action="store_true", help="print, write nothing")
    args = parser.parse_args(argv)
    start, cpu_start = time.perf_counter(), time.process_time()
    if args.quick:
        rows = run_quick(seed=args.seed)
    else:
        rows = run_model_ranks(
            samples=args.samples, resamples=args.resamples, seed=args.seed, progress=True
        )
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    print(markdown(rows, seconds, cpu))
    if not (args.quick or args.print_only):
        write_rows(rows, ROOT / "sts_extras" / "data" / "calibration.json")
        write_section(rows, ROOT / "docs" / "calibration.md", seconds, cpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
