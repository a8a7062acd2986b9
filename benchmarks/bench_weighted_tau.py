"""τ_w speed: sts_extras vs the scipy route, in one process, same inputs.

The scipy route (equal to our τ_w, ties included) is

    scipy.stats.weightedtau(x, y, rank=np.arange(n), weigher=lambda i: w[i], additive=False)

with ``w`` the normalised additive top-rank weights of Lombardo et al. (2020, eq. 9). Ours is
``sts_extras.stats.ranking.weighted_kendall_tau(x, y, w)`` on the same ``x``, ``y``, ``w``. The
script compares both values with each other and with an extended-precision (long double)
evaluation by an independent merge-count route, prints the best-of-``repeats`` wall time of
each and the ratio, the time of the full ``weighted_rank_correlation`` (ranks, weights, ρ_w, τ_w,
plain Spearman and Kendall), and the peak memory of ours (tracemalloc, numpy allocations).

Targets: at n = 10⁶, at least 5x faster than the scipy route (issue 3), in at most 60 bytes per
item (issue 16; it was 111-121, scipy's route needs 32-39).

Usage::

    python benchmarks/bench_weighted_tau.py                      # n = 10^4 and 10^6
    python benchmarks/bench_weighted_tau.py --sizes 100000 --repeats 3
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc

import numpy as np
from scipy import stats

from sts_extras.stats.ranking import (
    top_rank_weights,
    weighted_kendall_tau,
    weighted_rank_correlation,
)

TARGET_RATIO = 5.0
TARGET_BYTES_PER_ITEM = 60
TOLERANCE = 1e-12


def best_time(function, repeats):
    """Smallest wall time over ``repeats`` calls, and the last value."""
    best, value = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def extended_precision_tau(x, y, w):
    """τ_w in long double by an independent O(n log² n) route: a bottom-up merge count.

    Items are ordered by (x, y); at each width, every item of the right half of a block of
    2 * width positions is charged the weight of the left-half items with a larger y code, found
    by sorting each block by (y code, left before right). All sums run in ``numpy.longdouble``
    (64-bit mantissa on x86-64), so this is a reference for the rounding of both float64 routes.
    """
    n = x.size
    order = np.lexsort((y, x))
    x_sorted, y_sorted = x[order], y[order]
    weights = w[order].astype(np.longdouble)
    codes = np.unique(y_sorted, return_inverse=True)[1].astype(np.int64)
    position = np.arange(n, dtype=np.int64)
    discordant = np.longdouble(0)
    width = 1
    while width < n:
        block = position // (2 * width)
        right = (position // width) % 2
        by_block = np.argsort(block * (2 * n + 2) + 2 * codes + right, kind="stable")
        block_sorted, right_sorted = block[by_block], right[by_block]
        left_weight = np.where(right_sorted == 1, 0, weights[by_block])
        cumulative = np.cumsum(left_weight)
        starts = np.flatnonzero(np.r_[True, block_sorted[1:] != block_sorted[:-1]])
        block_left = np.add.reduceat(left_weight, starts)
        before = np.r_[np.longdouble(0), np.cumsum(block_left)[:-1]]
        index = np.cumsum(np.r_[True, block_sorted[1:] != block_sorted[:-1]]) - 1
        larger = block_left[index] - (cumulative - before[index])
        discordant += np.sum(np.where(right_sorted == 1, weights[by_block] * larger, 0))
        width *= 2

    def squared_group_sums(sorted_weights, new_group):
        sums = np.add.reduceat(sorted_weights, np.flatnonzero(new_group))
        return np.sum(sums * sums)

    new_x = np.r_[True, x_sorted[1:] != x_sorted[:-1]]
    new_xy = new_x | np.r_[True, y_sorted[1:] != y_sorted[:-1]]
    y_order = np.argsort(y_sorted, kind="stable")
    new_y = np.r_[True, y_sorted[y_order][1:] != y_sorted[y_order][:-1]]
    square = np.sum(weights) ** 2
    tied_x = squared_group_sums(weights, new_x)
    tied_y = squared_group_sums(weights[y_order], new_y)
    tied_xy = squared_group_sums(weights, new_xy)
    untied_both = (square - tied_x - tied_y + tied_xy) / 2
    denominator = np.sqrt((square - tied_x) / 2 * ((square - tied_y) / 2))
    return (untied_both - 2 * discordant) / denominator


def make_data(n, ties, rng):
    """STS-like scores: gold, and a noisy system; with ``ties``, rounded to a 0-5 grid of 0.2."""
    references = rng.uniform(0.0, 5.0, size=n)
    predictions = references + rng.normal(scale=1.0, size=n)
    if ties:
        references = np.round(references * 5) / 5
        predictions = np.round(predictions * 5) / 5
    return references, predictions


def run(n, ties, repeats, seed):
    rng = np.random.default_rng(seed)
    x, y = make_data(n, ties, rng)
    w = top_rank_weights(y, x)

    def scipy_route():
        return stats.weightedtau(
            x, y, rank=np.arange(n), weigher=lambda i: w[i], additive=False
        ).statistic

    def ours():
        return weighted_kendall_tau(x, y, w)

    scipy_time, scipy_value = best_time(scipy_route, repeats)
    our_time, our_value = best_time(ours, repeats)
    full_time, full = best_time(lambda: weighted_rank_correlation(y, x), repeats)

    tracemalloc.start()
    weighted_kendall_tau(x, y, w)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    reference = extended_precision_tau(x, y, w)
    difference = abs(our_value - scipy_value)
    our_error = abs(float(our_value - reference))
    scipy_error = abs(float(scipy_value - reference))
    label = "with ties" if ties else "no ties"
    print(
        f"n = {n:>9,} ({label:9s})  scipy {scipy_time:7.3f} s  ours {our_time:7.3f} s  "
        f"ratio {scipy_time / our_time:5.1f}x  |ours - scipy| {difference:.1e}  "
        f"error vs long double: ours {our_error:.1e}, scipy {scipy_error:.1e}  "
        f"full ρ_w+τ_w+ρ+τ {full_time:6.3f} s  peak mem {peak / n:4.0f} B/item"
    )
    assert abs(full.tau_w - our_value) <= TOLERANCE
    return scipy_time / our_time, difference, our_error, scipy_error, peak / n


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=3, help="best of this many calls")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    worst = {}
    agree, accurate, scipy_worst, most_bytes = True, True, 0.0, 0.0
    for n in args.sizes:
        for ties in (False, True):
            ratio, difference, our_error, scipy_error, per_item = run(
                n, ties, args.repeats, args.seed
            )
            most_bytes = max(most_bytes, per_item)
            worst[n] = min(worst.get(n, float("inf")), ratio)
            agree &= difference <= TOLERANCE
            accurate &= our_error <= TOLERANCE
            scipy_worst = max(scipy_worst, scipy_error)
    for n, ratio in worst.items():
        verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
        print(f"n = {n:,}: slowest ratio {ratio:.1f}x - {verdict} the {TARGET_RATIO:g}x target")
    verdict = "meets" if most_bytes <= TARGET_BYTES_PER_ITEM else "MISSES"
    print(
        f"largest peak memory {most_bytes:.0f} B/item - {verdict} the "
        f"{TARGET_BYTES_PER_ITEM} B/item target"
    )
    print(f"ours within {TOLERANCE:g} of the long-double reference: {accurate}")
    print(
        f"ours within {TOLERANCE:g} of scipy: {agree} (scipy's own largest error vs long double: "
        f"{scipy_worst:.1e})"
    )
    return 0 if accurate else 1


if __name__ == "__main__":
    sys.exit(main())
