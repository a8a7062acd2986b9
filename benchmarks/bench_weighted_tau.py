"""τ_w and the four rank statistics: sts_extras vs the scipy route and vs before, in one process.

The scipy route for τ_w (equal to ours, ties included) is

    scipy.stats.weightedtau(x, y, rank=np.arange(n), weigher=lambda i: w[i], additive=False)

with ``w`` the normalised additive top-rank weights of Lombardo et al. (2020, eq. 9). On the same
``x``, ``y``, ``w`` the script times, best of ``repeats``:

* ``weighted_kendall_tau(x, y, w)`` (τ_w alone) against the scipy route, and checks both values
  against an extended-precision (long double) evaluation by an independent merge-count route;
* the four-statistic route ``weighted_rank_correlation`` (ranks, weights, ρ_w, τ_w, plain Spearman
  and Kendall τ-b) against the scipy route for τ_w alone, and against the code before (commit
  9b49557 by default, ``--baseline``; its ``ranking.py`` read with ``git show``, see
  ``baseline_module.py``), whose four values must agree
  with the new ones (the largest difference is printed; 0 means identical to the bit);
* the peak memory of ``weighted_kendall_tau`` (tracemalloc, numpy allocations);
* at the largest size, the ``evaluate`` module's ``compute`` against the direct library call, for
  the module as it is and as it was before (same core), split by a profile into Arrow encoding of
  the batch (``Features.encode_batch``), the rest of evaluate's Arrow round trip (write, read back,
  format) and our ``_compute``.

Targets: at n = 10⁶, τ_w alone and the four-statistic route each at least 5x faster than the
scipy route for τ_w alone, and τ_w in at most 60 bytes per item (it was 111-121; scipy's route
needs 32-39).

Usage::

    python benchmarks/bench_weighted_tau.py                      # n = 10^4 and 10^6
    python benchmarks/bench_weighted_tau.py --sizes 100000 --repeats 3 --baseline HEAD~1
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from baseline_module import module_at
from scipy import stats

from sts_extras.stats.ranking import (
    top_rank_weights,
    weighted_kendall_tau,
    weighted_rank_correlation,
)

#: the last commit before the four statistics shared their sorts (the baseline by default)
BEFORE_SHARED_SORTS = "9b495570ad19f4d6d7f982366c3c629c95cc6d69"
TARGET_RATIO = 5.0
TARGET_SIZE = 1_000_000
TARGET_BYTES_PER_ITEM = 60
TOLERANCE = 1e-12
STATISTICS = ("rho_w", "tau_w", "spearman", "kendall")


def load_average():
    """The 1, 5 and 15 minute load averages (the machine is shared: read ratios with them)."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def best_times(functions, repeats):
    """Smallest wall time over ``repeats`` calls of each function, and its last value.

    The calls are interleaved (one round calls every function once), so that a change in the
    load of the shared machine reaches all of them alike.
    """
    best = dict.fromkeys(functions, float("inf"))
    values = {}
    for _ in range(repeats):
        for name, function in functions.items():
            start = time.perf_counter()
            values[name] = function()
            best[name] = min(best[name], time.perf_counter() - start)
    return best, values


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


def run(n, ties, repeats, seed, baseline):
    rng = np.random.default_rng(seed)
    x, y = make_data(n, ties, rng)
    w = top_rank_weights(y, x)

    def scipy_route():
        return stats.weightedtau(
            x, y, rank=np.arange(n), weigher=lambda i: w[i], additive=False
        ).statistic

    def ours():
        return weighted_kendall_tau(x, y, w)

    times, values = best_times(
        {
            "scipy": scipy_route,
            "ours": ours,
            "full": lambda: weighted_rank_correlation(y, x),
            "old": lambda: baseline.weighted_rank_correlation(y, x),
        },
        repeats,
    )
    scipy_time, our_time, full_time, old_time = (
        times[name] for name in ("scipy", "ours", "full", "old")
    )
    scipy_value, our_value, full, old = (values[name] for name in ("scipy", "ours", "full", "old"))
    change = max(abs(getattr(full, name) - getattr(old, name)) for name in STATISTICS)

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
        f"n = {n:>9,} ({label:9s})  τ_w: scipy {scipy_time:7.3f} s  ours {our_time:7.3f} s  "
        f"ratio {scipy_time / our_time:5.1f}x  |ours - scipy| {difference:.1e}  "
        f"error vs long double: ours {our_error:.1e}, scipy {scipy_error:.1e}  "
        f"peak mem {peak / n:4.0f} B/item"
    )
    print(
        f"{'':24s}ρ_w+τ_w+ρ+τ: {full_time:6.3f} s, scipy τ_w alone / this "
        f"{scipy_time / full_time:5.1f}x; before {old_time:6.3f} s, before / new "
        f"{old_time / full_time:4.2f}x; largest change of the four values {change:.1e}"
    )
    assert abs(full.tau_w - our_value) <= TOLERANCE
    return {
        "ratio": scipy_time / our_time,
        "full_ratio": scipy_time / full_time,
        "speedup": old_time / full_time,
        "change": change,
        "difference": difference,
        "our_error": our_error,
        "scipy_error": scipy_error,
        "bytes": peak / n,
    }


# --------------------------------------------------------------------------------------------
# the evaluate module's door
# --------------------------------------------------------------------------------------------

METRIC_FILE = "metrics/weighted_rank_correlation/weighted_rank_correlation.py"


def profile_split(module, predictions, references):
    """Seconds of one profiled ``compute``: Arrow encoding, the rest of evaluate, our _compute.

    The profiler inflates per-item Python work, so this is a split, not a timing.
    """
    profile = cProfile.Profile()
    profile.enable()
    module.compute(predictions=predictions, references=references)
    profile.disable()
    cumulative = {}
    for (_, _, function), row in pstats.Stats(profile).stats.items():
        if function in ("encode_batch", "_compute", "compute"):
            cumulative[function] = max(cumulative.get(function, 0.0), row[3])
    encode, ours = cumulative.get("encode_batch", 0.0), cumulative["_compute"]
    return encode, cumulative["compute"] - encode - ours, ours


def evaluate_door(n, repeats, seed, baseline):
    """Time the evaluate module's compute (as it is and at ``baseline``) against the direct call."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    import evaluate

    from sts_extras import metric_path

    references, predictions = make_data(n, True, np.random.default_rng(seed))
    # the earlier module, imported from a temporary file by module_at; evaluate.load takes the
    # file's path. Both scripts call this checkout's sts_extras, so they differ only as adapters.
    old_script = module_at(baseline, METRIC_FILE, "weighted_rank_correlation").__file__
    modules = {
        "new": evaluate.load(metric_path("weighted_rank_correlation")),
        baseline: evaluate.load(str(Path(old_script))),
    }
    inputs = {
        "ndarray": (predictions, references),
        "list": (predictions.tolist(), references.tolist()),
    }
    calls = {}
    for kind, (p, r) in inputs.items():
        calls["direct", kind] = lambda p=p, r=r: weighted_rank_correlation(p, r)
        for label, module in modules.items():
            calls[label, kind] = lambda m=module, p=p, r=r: m.compute(predictions=p, references=r)
    times, values = best_times(calls, repeats)
    print(f"evaluate module at n = {n:,} (with ties), against the direct call on the same input:")
    for kind, (p, r) in inputs.items():
        direct_time = times["direct", kind]
        direct = values["direct", kind]
        expected = {name: getattr(direct, name) for name in STATISTICS}
        overheads = {}
        for label, module in modules.items():
            assert values[label, kind] == expected, (label, kind, values[label, kind], expected)
            seconds = times[label, kind]
            overheads[label] = seconds - direct_time
            encode, arrow, ours = profile_split(module, p, r)
            print(
                f"  {label:>5s} module, {kind:7s}: compute {seconds:6.3f} s, direct call "
                f"{direct_time:6.3f} s, overhead {seconds - direct_time:6.3f} s "
                f"({seconds / direct_time:4.1f}x the direct call)  profile: encode {encode:5.2f} s,"
                f" rest of evaluate {arrow:5.2f} s, _compute {ours:5.2f} s"
            )
        before, after = overheads[baseline], overheads["new"]
        print(
            f"  {kind} input: overhead {before:6.3f} s -> {after:6.3f} s "
            f"({before / max(after, 1e-3):4.1f}x less), outputs identical to the direct call"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=3, help="best of this many calls")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--baseline", default=BEFORE_SHARED_SORTS, help="commit of the code to compare with"
    )
    parser.add_argument("--no-evaluate", action="store_true", help="skip the evaluate module")
    args = parser.parse_args(argv)
    baseline = module_at(args.baseline, "sts_extras/stats/ranking.py", "ranking_baseline")

    print(f"load average at start: {load_average()}")
    results = {}
    for n in args.sizes:
        for ties in (False, True):
            results[n, ties] = run(n, ties, args.repeats, args.seed, baseline)
    if not args.no_evaluate:
        evaluate_door(max(args.sizes), args.repeats, args.seed, args.baseline)

    for n in args.sizes:
        tau = min(results[n, ties]["ratio"] for ties in (False, True))
        four = min(results[n, ties]["full_ratio"] for ties in (False, True))
        speedup = min(results[n, ties]["speedup"] for ties in (False, True))
        for what, ratio in (("τ_w alone", tau), ("ρ_w+τ_w+ρ+τ", four)):
            if n >= TARGET_SIZE:
                verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
                verdict = f"{verdict} the {TARGET_RATIO:g}x target"
            else:
                verdict = f"(the target is set at n = {TARGET_SIZE:,})"
            print(f"n = {n:,}: {what} vs scipy's τ_w, slowest {ratio:.1f}x - {verdict}")
        print(f"n = {n:,}: ρ_w+τ_w+ρ+τ, before / new (slowest case) {speedup:.2f}x")
    values = results.values()
    most_bytes = max(result["bytes"] for result in values)
    verdict = "meets" if most_bytes <= TARGET_BYTES_PER_ITEM else "MISSES"
    print(
        f"largest peak memory {most_bytes:.0f} B/item - {verdict} the "
        f"{TARGET_BYTES_PER_ITEM} B/item target"
    )
    accurate = all(result["our_error"] <= TOLERANCE for result in values)
    agree = all(result["difference"] <= TOLERANCE for result in values)
    scipy_worst = max(result["scipy_error"] for result in values)
    change = max(result["change"] for result in values)
    print(f"ours within {TOLERANCE:g} of the long-double reference: {accurate}")
    print(
        f"ours within {TOLERANCE:g} of scipy: {agree} (scipy's own largest error vs long double: "
        f"{scipy_worst:.1e})"
    )
    print(f"largest change of ρ_w, τ_w, ρ, τ against {args.baseline}: {change:.1e}")
    print(f"load average at end: {load_average()}")
    return 0 if accurate and change <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
