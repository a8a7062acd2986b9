"""Speed of `compare_models` (all pairs of m models in one pass) and of today's per-pair loop.

Target (issue: all-pairs comparisons): 100 models on a 1,500-pair task with 10,000 resamples, all
4,950 pairs compared (BCa interval + meng1992 test + Holm), rank intervals and win probabilities,
in at most 60 s on the 2-core machine.

Run from the repository root::

    python benchmarks/bench_all_pairs.py                      # the target point + a small grid
    python benchmarks/bench_all_pairs.py --grid none          # the target point only
    python benchmarks/bench_all_pairs.py --statistic spearman --models 20 --grid none

What is printed:
* the wall time of ``compare_models`` for each (models, items, resamples) point of the grid;
* the per-pair baseline: ``bootstrap_correlation_difference`` + ``compare_dependent_correlations``
  for each pair, as the leaderboard does today, timed on ``--baseline-pairs`` pairs and
  extrapolated to all pairs of the target point (running all 4,950 would take many minutes);
* a check that the all-pairs intervals equal the per-pair ones on those pairs (same seed).
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from sts_extras.stats.bootstrap import bootstrap_correlation_difference
from sts_extras.stats.dependent import compare_dependent_correlations
from sts_extras.stats.model_comparison import compare_models


def make_task(n_models: int, n: int, seed: int = 0):
    """Gold scores on a 0-5 scale with ties, and models of increasing noise."""
    rng = np.random.default_rng(seed)
    gold = np.round(rng.uniform(0, 5, n) * 5) / 5
    models = {
        f"model-{k:03d}": gold + rng.normal(0, 1.0 + k / n_models, n) for k in range(n_models)
    }
    return gold, models


def time_compare(n_models: int, n: int, resamples: int, statistic: str):
    gold, models = make_task(n_models, n)
    start = time.perf_counter()
    result = compare_models(models, gold, correlation=statistic, n_resamples=resamples, seed=0)
    return time.perf_counter() - start, result, gold, models


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--n", type=int, default=1500)
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--statistic", default="pearson", choices=("pearson", "spearman"))
    parser.add_argument("--grid", default="small", choices=("small", "none"))
    parser.add_argument("--baseline-pairs", type=int, default=10)
    args = parser.parse_args()

    # Warm-up: the first call imports statsmodels (about 2 s).
    warm_gold, warm_models = make_task(3, 50)
    compare_models(warm_models, warm_gold, n_resamples=1000)

    print(f"statistic = {args.statistic}")
    print(f"{'models':>7} {'pairs':>6} {'items':>6} {'resamples':>9} {'seconds':>8}")
    points = [(args.models, args.n, args.resamples)]
    if args.grid == "small":
        points += list(itertools.product((10, 50), (500, 1500), (2000, 10000)))
    target = None
    for models, n, resamples in points:
        seconds, result, gold, scores = time_compare(models, n, resamples, args.statistic)
        if target is None:
            target = (seconds, result, gold, scores)
        print(f"{models:7d} {len(result.pairs):6d} {n:6d} {resamples:9d} {seconds:8.2f}")

    seconds, result, gold, scores = target
    pairs = result.pairs[: args.baseline_pairs]
    start = time.perf_counter()
    worst = 0.0
    for pair in pairs:
        one = bootstrap_correlation_difference(
            scores[pair.model1],
            scores[pair.model2],
            gold,
            correlation=args.statistic,
            n_resamples=args.resamples,
            seed=0,
        )
        compare_dependent_correlations(
            scores[pair.model1],
            scores[pair.model2],
            gold,
            method="meng1992",
            correlation=args.statistic,
        )
        worst = max(
            worst,
            *(abs(a - b) for a, b in zip(one.confidence_interval, pair.confidence_interval)),
        )
    per_pair = (time.perf_counter() - start) / len(pairs)
    total = per_pair * len(result.pairs)
    print(
        f"\nper-pair loop: {per_pair:.3f} s per pair on {len(pairs)} pairs -> about {total:.0f} s "
        f"for all {len(result.pairs)} pairs (no rank intervals or win probabilities); "
        f"all-pairs pass: {seconds:.1f} s ({total / seconds:.0f}x faster)"
    )
    print(f"same-seed max |interval difference| on those pairs: {worst:.2e}")


if __name__ == "__main__":
    main()
