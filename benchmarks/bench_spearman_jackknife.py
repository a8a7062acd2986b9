"""Speed of the Spearman BCa jackknife: the former O(n^2) one against the O(n log n) one.

Both in one process. The baseline is ``SpearmanCorrelations.jackknife`` of the
commit before the change (``git show 6f0cdda:sts_extras/stats/resampling.py``, loaded as a
module); "new" is today's.

* The jackknife alone (both Spearman terms of Delta = rho(h, a) - rho(h, b)): wall time of old
  and new, and max |difference| of the leave-one-out deltas. Old is run up to ``--old-max-n``;
  above that its time is extrapolated as ~n^2 from the largest n measured, and marked ``~``.
* The whole BCa call, ``bootstrap_correlation_difference(..., correlation="spearman")``: new is
  measured end to end; its jackknife time is timed inside the call, so the rest (drawing and
  ranking the resamples, identical code in both) is known, and old = rest + old jackknife
  (measured, or extrapolated ``~``). The interval from old's jackknife values is computed by
  the same call with the engine's jackknife replaced by old's values, and compared (must agree
  to 1e-12).

Run from the repository root (a git checkout, for the baseline)::

    python benchmarks/bench_spearman_jackknife.py                 # the issue's table
    python benchmarks/bench_spearman_jackknife.py --sizes 3000 10000 --bca 10000:1000 \\
        --old-max-n 10000                                          # a quick run
"""

from __future__ import annotations

import argparse
import functools
import time
import warnings
from unittest import mock

import numpy as np
from baseline_module import module_at

from sts_extras.stats import resampling
from sts_extras.stats.bootstrap import bootstrap_correlation_difference

#: The last commit with the O(n^2) Spearman jackknife.
BASELINE_COMMIT = "6f0cdda"


def make_data(n: int, seed: int = 0):
    """Gold scores on a 0-5 scale with ties (rounded to 0.2), and two noisy systems."""
    rng = np.random.default_rng(seed)
    gold = np.round(rng.uniform(0, 5, n) * 5) / 5
    system_a = gold + rng.normal(0, 1.0, n)
    system_b = 0.5 * gold + rng.normal(0, 0.8, n) + 0.3 * rng.standard_t(3, n)
    return gold, system_a, system_b


def load_baseline():
    """The baseline ``resampling`` module, from git."""
    return module_at(BASELINE_COMMIT, "sts_extras/stats/resampling.py", "resampling_baseline")


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def delta_jackknife(engine_module, gold, system_a, system_b):
    """Leave-one-out rho(h, a) - rho(h, b) by the module's Spearman engine."""
    values = engine_module.SpearmanCorrelations(gold, np.vstack([system_a, system_b])).jackknife()
    return values[:, 0] - values[:, 1]


def jackknife_table(baseline, sizes, old_max_n: int) -> dict[int, tuple[float, np.ndarray]]:
    """Old and new jackknife per n; returns old's (time, values) where it was run."""
    print("--- jackknife alone (both terms of Delta), Spearman")
    print("        n |     old s |    new s | speed-up | max |old - new|")
    old_runs: dict[int, tuple[float, np.ndarray]] = {}
    for n in sizes:
        data = make_data(n)
        new_time, new = timed(functools.partial(delta_jackknife, resampling, *data))
        if n <= old_max_n:
            old_time, old = timed(functools.partial(delta_jackknife, baseline, *data))
            old_runs[n] = (old_time, old)
            shown, difference = f"{old_time:9.2f}", f"{np.max(np.abs(old - new)):.1e}"
        else:
            old_time, difference = extrapolated(old_runs, n), "-"
            shown = f"~{old_time:8.0f}"
        print(
            f"{n:>9} | {shown} | {new_time:8.3f} | {old_time / new_time:7.0f}x | {difference}",
            flush=True,
        )
    return old_runs


def extrapolated(old_runs: dict[int, tuple[float, np.ndarray]], n: int) -> float:
    """Old jackknife time at n, as ~n^2 from the largest n measured."""
    if not old_runs:
        raise SystemExit("--sizes needs one n <= --old-max-n to extrapolate the baseline from")
    measured = max(old_runs)
    return old_runs[measured][0] * (n / measured) ** 2


def bca_table(old_runs, cases) -> None:
    """Whole BCa calls: new measured, old = the same call's other work + old's jackknife."""
    print("--- bootstrap_correlation_difference, Spearman, BCa 95%")
    print(
        "        n | resamples |    new s (jackknife) |       old s | speed-up | "
        "max |interval diff|"
    )
    original = resampling.SpearmanDelta.jackknife
    for n, resamples in cases:
        gold, system_a, system_b = make_data(n)
        call = functools.partial(
            bootstrap_correlation_difference,
            system_a,
            system_b,
            gold,
            correlation="spearman",
            n_resamples=resamples,
            seed=11,
        )
        spent: list[float] = []

        def timed_jackknife(self, spent=spent):
            took, values = timed(lambda: original(self))
            spent.append(took)
            return values

        with mock.patch.object(resampling.SpearmanDelta, "jackknife", timed_jackknife):
            total, new = timed(call)
        rest = total - spent[0]
        if n in old_runs:
            old_time, old_values = old_runs[n]
            shown = f"{rest + old_time:11.2f}"
            with mock.patch.object(
                resampling.SpearmanDelta, "jackknife", lambda self, v=old_values: v
            ):
                old = call()
            difference = max(
                abs(old_end - new_end)
                for old_end, new_end in zip(old.confidence_interval, new.confidence_interval)
            )
            difference = f"{difference:.1e}"
        else:
            old_time, difference = extrapolated(old_runs, n), "-"
            shown = f"~{rest + old_time:10.0f}"
        print(
            f"{n:>9} | {resamples:>9} | {total:10.2f} ({spent[0]:8.3f}) | {shown} | "
            f"{(rest + old_time) / total:7.1f}x | {difference}",
            flush=True,
        )


def main() -> None:
    # Fewer resamples than recommended is the issue's own case (100): no warning for it.
    warnings.filterwarnings("ignore", "n_resamples=", UserWarning)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3000, 10000, 30000, 100000, 10**6])
    parser.add_argument(
        "--bca",
        nargs="+",
        default=["100000:100", "100000:1000", "1000000:100", "1000000:1000"],
        help="n:resamples of the whole BCa calls",
    )
    parser.add_argument(
        "--old-max-n", type=int, default=100000, help="largest n the O(n^2) baseline is run at"
    )
    args = parser.parse_args()
    cases = [tuple(int(v) for v in case.split(":")) for case in args.bca]
    old_runs = jackknife_table(load_baseline(), sorted(args.sizes), args.old_max_n)
    bca_table(old_runs, cases)


if __name__ == "__main__":
    main()
