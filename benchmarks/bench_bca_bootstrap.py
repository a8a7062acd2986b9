"""Speed of `bootstrap_correlation_difference`: against sts-extras 0.1 and `scipy.stats.bootstrap`.

Issue 16 ("fast where users wait"), in one process:

* per call, today's code against the 0.1 implementation (``git show 04b08c7:...bootstrap.py``,
  loaded as a module), at n = 1k / 10k / 50k, 10,000 resamples, Pearson and Spearman: wall and
  CPU time, minor page faults (``getrusage``) and a check that both give identical results;
* the shared draw: a task with k comparisons against one baseline, as k calls of
  ``bootstrap_correlation_difference`` (each draws the same resamples again) against one
  ``compare_models`` call (one draw for all models), with the intervals checked equal.

Issue 4: n = 5000, 10000 resamples, Pearson, BCa: at least 10x faster than
``scipy.stats.bootstrap((h, a, b), statistic, paired=True, vectorized=True, method="BCa")``, with
intervals within Monte-Carlo error of scipy's (``--scipy``).

Run from the repository root (a git checkout, for the 0.1 baseline)::

    python benchmarks/bench_bca_bootstrap.py                       # 0.1 vs today, shared draw
    python benchmarks/bench_bca_bootstrap.py --sizes 1000 10000 --no-spearman
    python benchmarks/bench_bca_bootstrap.py --scipy --n 5000      # against scipy (issue 4)

What ``--scipy`` prints, per statistic:
* wall time of ours (best of ``--repeats``) and of scipy (one run; it is slow), and the ratio;
* both intervals computed with *different* seeds, and the Monte-Carlo spread of the end points
  (standard deviation over ``--mc-seeds`` runs of ours), so "within Monte-Carlo error" is a number;
* with the *same* seed both draw the same resamples (scipy's ``rng.integers(0, n, (B, n))``), so the
  intervals must agree to rounding: printed as ``same-seed max |diff|``.
"""

from __future__ import annotations

import argparse
import functools
import resource
import time

import numpy as np
from baseline_module import module_at
from scipy import stats

from sts_extras.stats.bootstrap import bootstrap_correlation_difference
from sts_extras.stats.model_comparison import compare_models

#: The commit of sts-extras 0.1's bootstrap (before the engines moved to stats.resampling).
BASELINE_COMMIT = "04b08c7"
RESULT_FIELDS = ("delta", "ci_low", "ci_high", "bias_correction", "acceleration", "r1", "r2")


def _field(result, name):
    """A field of a 0.1 result, or the same number of a current one (``confidence_interval``)."""
    if name in ("ci_low", "ci_high") and isinstance(result.confidence_interval, tuple):
        return result.confidence_interval[0 if name == "ci_low" else 1]
    return getattr(result, name)


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
            system_a,
            system_b,
            gold,
            correlation=statistic,
            n_resamples=resamples,
            seed=11,
            method="BCa",
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
                system_a,
                system_b,
                gold,
                correlation=statistic,
                n_resamples=resamples,
                seed=100 + k,
                method="BCa",
            ).confidence_interval
            for k in range(mc_seeds)
        ]
    )
    mc_sd = ends.std(axis=0, ddof=1)
    low, high = theirs.confidence_interval
    diff = np.abs(
        np.array([ours.confidence_interval.low - low, ours.confidence_interval.high - high])
    )
    # Two independent runs differ with sd sqrt(2) * mc_sd; allow 3 of those.
    within = bool(np.all(diff <= 3 * np.sqrt(2) * mc_sd))

    # Same seed, same resamples: agreement to rounding.
    same = bootstrap_correlation_difference(
        system_a,
        system_b,
        gold,
        correlation=statistic,
        n_resamples=resamples,
        seed=22,
        method="BCa",
    )
    same_diff = max(
        abs(same.confidence_interval.low - low), abs(same.confidence_interval.high - high)
    )

    print(f"--- {statistic}: n = {n}, {resamples} resamples, BCa 95%")
    print(
        f"ours : {ours_time:8.3f} s  interval [{ours.confidence_interval.low:.5f}, "
        f"{ours.confidence_interval.high:.5f}]  "
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


def load_baseline():
    """The 0.1 ``bootstrap`` module, from git."""
    return module_at(BASELINE_COMMIT, "sts_extras/stats/bootstrap.py", "bootstrap_0_1")


def measured(function):
    """(wall s, CPU s, minor page faults, result) of one call."""
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    cpu, wall = time.process_time(), time.perf_counter()
    result = function()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults, result


def best_of(function, repeats: int):
    runs = [measured(function) for _ in range(repeats)]
    return min(run[0] for run in runs), min(run[1] for run in runs), runs[-1][2], runs[-1][3]


def against_baseline(baseline, sizes, statistics, resamples: int, repeats: int) -> bool:
    """Per-call time of 0.1 and of today's code, alternating, and identity of the results."""
    print(f"--- per call, {resamples} resamples, BCa 95%: sts-extras 0.1 vs today")
    print("    n  statistic  |  0.1 wall    cpu   faults |  now wall    cpu  faults | speed-up")
    identical = True
    for n in sizes:
        gold, system_a, system_b = make_data(n)
        for statistic in statistics:
            calls = {}
            for name, function, keyword in (
                ("0.1", baseline.bootstrap_correlation_difference, "statistic"),
                ("now", bootstrap_correlation_difference, "correlation"),
            ):
                call = functools.partial(
                    function,
                    system_a,
                    system_b,
                    gold,
                    **{keyword: statistic},
                    n_resamples=resamples,
                    seed=11,
                )
                calls[name] = best_of(
                    call,
                    1 if n * resamples > 2 * 10**8 and statistic == "spearman" else repeats,
                )
            old, new = calls["0.1"][3], calls["now"][3]
            same = all(_field(old, f) == _field(new, f) for f in RESULT_FIELDS)
            same &= np.array_equal(old.bootstrap_distribution, new.bootstrap_distribution)
            identical &= same
            print(
                f"{n:>6}  {statistic:9s}  | {calls['0.1'][0]:7.2f} {calls['0.1'][1]:7.2f} "
                f"{calls['0.1'][2]:8d} | {calls['now'][0]:7.2f} {calls['now'][1]:7.2f} "
                f"{calls['now'][2]:6d} | {calls['0.1'][0] / calls['now'][0]:5.1f}x wall "
                f"{calls['0.1'][1] / calls['now'][1]:5.1f}x cpu  identical: {same}",
                flush=True,
            )
    return identical


def shared_draw(n: int, comparisons, statistic: str, resamples: int, repeats: int) -> bool:
    """k comparisons against a baseline: k per-comparison calls vs one shared draw."""
    print(f"--- shared draw, n = {n}, {resamples} resamples, {statistic}")
    rng = np.random.default_rng(5)
    gold = np.round(rng.uniform(0, 5, n) * 5) / 5
    equal = True
    for k in comparisons:
        models = {f"model-{j}": gold + rng.normal(0, 1.0 + j / 8, n) for j in range(k + 1)}
        baseline = models.pop("model-0")

        def per_comparison(models=models, baseline=baseline):
            return {
                name: bootstrap_correlation_difference(
                    scores,
                    baseline,
                    gold,
                    correlation=statistic,
                    n_resamples=resamples,
                    seed=3,
                )
                for name, scores in models.items()
            }

        def one_draw(models=models, baseline=baseline):
            return compare_models(
                {**models, "baseline": baseline},
                gold,
                correlation=statistic,
                n_resamples=resamples,
                seed=3,
            )

        loop_wall, loop_cpu, _, loop = best_of(per_comparison, repeats)
        shared_wall, shared_cpu, _, shared = best_of(one_draw, repeats)
        worst = max(
            abs(
                shared.pair(name, "baseline").confidence_interval[end]
                - loop[name].confidence_interval[end]
            )
            for name in models
            for end in (0, 1)
        )
        # A wider design matrix may change the last bits of the matrix products.
        equal &= worst <= 1e-12
        print(
            f"k = {k:>2} comparisons: per-comparison calls {loop_wall:6.2f} s wall "
            f"({loop_cpu:6.2f} s cpu); one compare_models draw {shared_wall:6.2f} s "
            f"({shared_cpu:6.2f} s cpu): {loop_wall / shared_wall:4.1f}x wall, "
            f"{loop_cpu / shared_cpu:4.1f}x cpu; max |interval difference| {worst:.1e}",
            flush=True,
        )
    return equal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each; best time reported")
    parser.add_argument("--comparisons", type=int, nargs="+", default=[3, 10])
    parser.add_argument("--shared-n", type=int, default=10000, help="items of the shared draw")
    parser.add_argument("--no-spearman", action="store_true")
    parser.add_argument("--scipy", action="store_true", help="compare with scipy (issue 4)")
    parser.add_argument("--n", type=int, default=5000, help="items, with --scipy")
    parser.add_argument("--mc-seeds", type=int, default=5, help="with --scipy")
    args = parser.parse_args()
    statistics = ("pearson",) if args.no_spearman else ("pearson", "spearman")
    if args.scipy:
        for statistic in statistics:
            run(statistic, args.n, args.resamples, args.repeats, args.mc_seeds)
        return
    identical = against_baseline(
        load_baseline(), args.sizes, statistics, args.resamples, args.repeats
    )
    print(f"today's results identical to 0.1's (every field, every bootstrap value): {identical}")
    equal = shared_draw(args.shared_n, args.comparisons, "pearson", args.resamples, args.repeats)
    print(f"shared-draw intervals equal the per-comparison ones (to 1e-12): {equal}")


if __name__ == "__main__":
    main()
