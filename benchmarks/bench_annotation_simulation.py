"""Runtime of the Table 2 simulation of Lombardo et al. (2020), §4.2.

Runs, in one process:
1. a plain-Python, vote-by-vote baseline of one repetition (uniform + adaptive campaign, the
   way the protocol reads: loop over voters and items for the opinions, over pairs for the
   votes, dictionaries for the Borda counts) and our vectorised repetition, and prints the
   ratio;
2. the whole Table 2 (2 distributions x 2 approaches x 50 repetitions, scoring included) with
   the paper's text model and with the published-code settings, and prints the tables.

The paper reports 30.9 s (adaptive) and 33.2 s (uniform) per simulation on an i7-7700HQ.

Usage: python benchmarks/bench_annotation_simulation.py [--reps 50]
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np

from sts_extras.annotation.design import draw_pair_indices, plan_adaptive, plan_uniform
from sts_extras.annotation.scoring import BallotScorer
from sts_extras.annotation.simulation import (
    PUBLISHED_CODE_SETTINGS,
    run_adaptive,
    run_uniform,
    simulate_campaigns,
)
from sts_extras.annotation.voters import sample_voters, underlying_similarity


def baseline_repetition(z: list[float], seed: int) -> tuple[list[int], list[int]]:
    """One repetition, vote by vote in pure Python (same model, same plans)."""
    rnd = random.Random(seed)
    n = len(z)
    voters = []
    for _ in range(100):
        sigma, epsilon = rnd.uniform(0.02, 0.2), rnd.uniform(0.005, 0.05)
        opinions = [
            abs(max(-1.0, min(1.0, zi + sigma * (1 - zi * zi) * rnd.gauss(0, 1)))) for zi in z
        ]
        voters.append((epsilon, opinions))

    def ballot(items: list[int], m: int) -> dict[int, float]:
        pairs = []
        for _ in range(m // 2):
            order = items[:]
            rnd.shuffle(order)
            pairs += [(order[j], order[(j + 1) % len(order)]) for j in range(len(order))]
        wins: dict[int, float] = {}
        seen: dict[int, int] = {}
        for index, (a, b) in enumerate(pairs):
            epsilon, opinions = voters[index % 100]
            winner = a if opinions[a] > opinions[b] else b
            if rnd.random() < epsilon:
                winner = b if winner == a else a
            wins[winner] = wins.get(winner, 0) + 1
            seen[a] = seen.get(a, 0) + 1
            seen[b] = seen.get(b, 0) + 1
        return {item: wins.get(item, 0) / seen[item] for item in seen}

    uniform_scores = ballot(list(range(n)), 40)
    uniform = sorted(uniform_scores, key=lambda item: -uniform_scores[item])
    mean: dict[int, float] = {}
    items = list(range(n))
    for k in range(1, 8):
        x = ballot(items, 20)
        if k == 1:
            mean.update(x)
        else:
            num = sum((1 - x[i]) * (1 - mean[i]) for i in x)
            den = sum((1 - x[i]) ** 2 for i in x)
            slope = num / den
            for i in x:
                mean[i] = ((k - 1) * mean[i] + 1 - slope + slope * x[i]) / k
        items = sorted(x, key=lambda item: -mean[item])[: math.floor(0.5 * len(x) + 0.5)]
    adaptive = sorted(mean, key=lambda item: -mean[item])
    return uniform, adaptive


def vectorised_repetition(z: np.ndarray, seed: int) -> tuple[BallotScorer, BallotScorer]:
    rng = np.random.default_rng(seed)
    adaptive = plan_adaptive(z.size, m=20)
    uniform = plan_uniform(z.size, n_comparisons=adaptive.n_comparisons)
    panel = sample_voters(z, seed=rng)
    tiebreak = rng.permutation(z.size)
    return (
        run_uniform(uniform, panel, tiebreak, rng),
        run_adaptive(adaptive, panel, tiebreak, rng),
    )


def best_of(function, repeats: int) -> float:
    times = []
    for index in range(repeats):
        start = time.perf_counter()
        function(index)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=50)
    args = parser.parse_args()
    draw_pair_indices(10, 2, np.random.default_rng(0))  # warm-up

    z = underlying_similarity(990, "exponential")
    base = best_of(lambda s: baseline_repetition(z.tolist(), s), 3)
    ours = best_of(lambda s: vectorised_repetition(z, s), 10)
    print("one repetition (uniform + adaptive voting and scoring, 990 items, 39 460 votes)")
    print(
        f"  plain-Python baseline {base:.3f} s, vectorised {ours:.4f} s, ratio {base / ours:.0f}x"
    )

    for label, settings in (("paper text", {}), ("published code", PUBLISHED_CODE_SETTINGS)):
        start = time.perf_counter()
        for distribution in ("exponential", "power_law"):
            result = simulate_campaigns(distribution, n_reps=args.reps, seed=0, **settings)
            print(f"\n[{label}] " + result.format_table())
        total = time.perf_counter() - start
        print(
            f"[{label}] whole table (2 distributions x 2 approaches x {args.reps} repetitions, "
            f"with rho_w/tau_w/rho/tau): {total:.1f} s"
        )


if __name__ == "__main__":
    main()
