"""Speed of `bootstrap_correlation_difference` against `scipy.stats.bootstrap`, same process.

Target (issue 4): n = 5000 items, 10000 resamples, Pearson, BCa: at least 10x faster than
``scipy.stats.bootstrap((h, a, b), statistic, paired=True, vectorized=True, method="BCa")``, with
intervals within Monte-Carlo error of scipy's. Spearman is reported too.

Run from the repository root::

    python benchmarks/bench_bca_bootstrap.py            # n=5000, 10000 resamples
    python benchmarks/bench_bca_bootstrap.py --n 1000 --resamples 2000 --no-spearman

What is printed, per statistic:
* wall time of ours (best of ``--repeats``) and of scipy (one run; it is slow), and the ratio;
* both intervals computed with *different* seeds, and the Monte-Carlo spread of the end points
  (standard deviation over ``--mc-seeds`` runs of ours), so "within Monte-Carlo error" is a number;
* with the *same* seed both draw the same resamples (scipy's ``rng.integers(0, n, (B, n))``), so the
  intervals must agree to rounding: printed as ``same-seed max |diff|``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from sts_extras.stats.bootstrap import bootstrap_correlation_difference


def _pearson(x, y, axis=-1):
    # A plain vectorised Pearson, the fastest reasonable statistic to hand to scipy.
    xm = x - x.mean(axis=axis, keepdims=True)
    ym = y - y.mean(axis=axis, keepdims=True)
    return (xm * ym).sum(axis) / np.sqrt((xm * xm).sum(axis) * (ym * ym).sum(axis))


def scipy_pearson_delta(h, a, b, axis=-1):
    return _pearson(h, a, axis) - _pearson(h, b, axis)


def scipy_spearman_delta(h, a, b, axis=-1):
    h, a, b = (stats.rankdata(v, axis=axis) for v in (h, a, b))
    return _pearson(h, a, axis) - _pearson(h, b, axis)


def make_data(n: int, seed: int = 0):
    """Gold scores on a 0-5 scale with ties (rounded to 0.2), and two noisy systems."""
    rng = np.random.default_rng(seed)
    gold = np.round(rng.uniform(0, 5, n) * 5) / 5
    system_a = gold + rng.normal(0, 1.0, n)
    system_b = 0.5 * gold + rng.normal(0, 0.8, n) + 0.3 * rng.standard_t(3, n)
    return gold, system_a, system_b


def timed(function, repeats: int):
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def run(statistic: str, n: int, resamples: int, repeats: int, mc_seeds: int) -> None:
    gold, system_a, system_b = make_data(n)
    scipy_statistic = scipy_pearson_delta if statistic == "pearson" else scipy_spearman_delta

    ours_time, ours = timed(
        lambda: bootstrap_correlation_difference(
            system_a, system_b, gold, statistic=statistic, n_resamples=resamples, seed=11
        ),
        repeats,
    )
    start = time.perf_counter()
    theirs = stats.bootstrap(
        (gold, system_a, system_b),
        scipy_statistic,
        paired=True,
        vectorized=True,
        method="BCa",
        n_resamples=resamples,
        rng=np.random.default_rng(22),
    )
    scipy_time = time.perf_counter() - start

    # Monte-Carlo spread of our end points over several seeds.
    ends = np.array(
        [
            bootstrap_correlation_difference(
                system_a, system_b, gold, statistic=statistic, n_resamples=resamples, seed=100 + k
            ).confidence_interval()
            for k in range(mc_seeds)
        ]
    )
    mc_sd = ends.std(axis=0, ddof=1)
    low, high = theirs.confidence_interval
    diff = np.abs(np.array([ours.ci_low - low, ours.ci_high - high]))
    # Two independent runs differ with sd sqrt(2) * mc_sd; allow 3 of those.
    within = bool(np.all(diff <= 3 * np.sqrt(2) * mc_sd))

    # Same seed, same resamples: agreement to rounding.
    same = bootstrap_correlation_difference(
        system_a, system_b, gold, statistic=statistic, n_resamples=resamples, seed=22
    )
    same_diff = max(abs(same.ci_low - low), abs(same.ci_high - high))

    print(f"--- {statistic}: n = {n}, {resamples} resamples, BCa 95%")
    print(
        f"ours : {ours_time:8.3f} s  interval [{ours.ci_low:.5f}, {ours.ci_high:.5f}]  "
        f"delta {ours.delta:.5f}  z0 {ours.bias_correction:.4f}  a {ours.acceleration:.5f}"
    )
    print(f"scipy: {scipy_time:8.3f} s  interval [{low:.5f}, {high:.5f}]")
    print(f"speed-up: {scipy_time / ours_time:.1f}x")
    print(
        f"Monte-Carlo sd of end points (ours, {mc_seeds} seeds): "
        f"[{mc_sd[0]:.5f}, {mc_sd[1]:.5f}]; |ours - scipy| = [{diff[0]:.5f}, {diff[1]:.5f}] "
        f"-> within 3 sd of a difference: {within}"
    )
    print(f"same-seed max |diff| of end points: {same_diff:.2e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3, help="runs of ours; best time reported")
    parser.add_argument("--mc-seeds", type=int, default=5)
    parser.add_argument("--no-spearman", action="store_true")
    args = parser.parse_args()
    for statistic in ("pearson",) if args.no_spearman else ("pearson", "spearman"):
        run(statistic, args.n, args.resamples, args.repeats, args.mc_seeds)


if __name__ == "__main__":
    main()
