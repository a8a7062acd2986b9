"""Ceilings on every count a user can set: work is bounded before it starts.

A count from a command line or a function argument (bootstrap resamples, power simulations,
simulated campaigns, voters, items, ballots, pairs) decides how long a run takes and how much
memory it holds. Each has a ceiling here, derived from memory and from time measured on the
reference machine (one core of a 2-core x86-64 VM, numpy 2, the public functions called as users
call them), chosen so that one run stays within a few minutes and about 2 GB. A count above its
ceiling is refused before any work, by :func:`sts_extras._validation.check_count`, with a
:class:`~sts_extras.errors.UserInputError` naming the argument (the command line exits with
status 2). docs/reliability.md lists these values.

Measured costs behind them (seconds per unit of work):

* Paired bootstrap of two correlations (:func:`~sts_extras.stats.bootstrap
  .bootstrap_correlation_difference`), n = 1000 items, 10^4 resamples: Pearson 0.056 s,
  Spearman 0.28 s, i.e. 5.6 ns (Pearson) and 28 ns (Spearman) per resampled item. The
  bootstrap distribution holds 8 bytes per resample and model.
* Monte-Carlo power (:func:`~sts_extras.stats.power.simulate_power`), 10^4 simulations:
  0.072 s at n = 50 and 0.92 s at n = 1000, i.e. about 6 us per simulation plus 0.09 us per
  simulated item; memory is chunked (about 25 MB whatever the count).
* Simulated campaigns (:func:`~sts_extras.annotation.simulation.simulate_campaigns`), the
  paper's setting (990 items, 19 660 pairs, 100 voters): about 0.4 s per repetition, of which
  voting and scoring 0.5 us per pair; each voter panel holds three float64 arrays of
  voters x items.
"""

from __future__ import annotations

__all__ = [
    "MAX_BALLOTS",
    "MAX_BINS",
    "MAX_BOOTSTRAP_VALUES",
    "MAX_CAMPAIGN_REPS",
    "MAX_ITEMS",
    "MAX_PAIRS",
    "MAX_RESAMPLED_ITEMS",
    "MAX_RESAMPLES",
    "MAX_RESULT_FILES",
    "MAX_RESULT_FILE_BYTES",
    "MAX_SIMULATED_ITEMS",
    "MAX_SIMULATED_PAIRS",
    "MAX_SIMULATIONS",
    "MAX_VOTER_OPINIONS",
    "max_local_workers",
]

# --- bootstrap -------------------------------------------------------------------------------
#: Most bootstrap resamples (``n_resamples``, ``--n-resamples``): 10^6. The Monte-Carlo error
#: of a 2.5 % quantile is already negligible at 10^5; 10^6 resamples hold 8 MB per model and
#: take 28 s (Spearman) at n = 1000 items.
MAX_RESAMPLES = 1_000_000
#: Most resampled items, ``n_resamples * n``: 10^10, about 4.7 min for Spearman and 1 min for
#: Pearson (28 ns and 5.6 ns per resampled item). With the default 10^4 resamples this allows
#: 10^6 items.
MAX_RESAMPLED_ITEMS = 10_000_000_000
#: Most bootstrap values held at once, ``n_resamples * models`` (the all-pairs comparison keeps
#: every model's distribution and its ranks): 10^8, i.e. 0.8 GB per float64 array.
MAX_BOOTSTRAP_VALUES = 100_000_000

#: Most equal-width or equal-count segments of the scaled Pearson (``bins``, ``--bins``): 10^6.
#: A segment needs 3 items for a correlation, so more bins than items are empty; 10^6 edges hold
#: 8 MB (an unchecked 10^12 allocated 8 TB for the edges).
MAX_BINS = 1_000_000

# --- power simulation ------------------------------------------------------------------------
#: Most simulated samples (``n_simulations``, ``--simulations``): 10^7, about 1 min at small n
#: (6 us each); the standard error of the power is then below 1.6e-4.
MAX_SIMULATIONS = 10_000_000
#: Most simulated items, ``n_simulations * n``: 2 * 10^9, about 3 min at 0.09 us per item
#: (with the default 10^4 simulations, n up to 2 * 10^5).
MAX_SIMULATED_ITEMS = 2_000_000_000

# --- annotation campaigns --------------------------------------------------------------------
#: Most pairs of one ballot (``draw_pairs``): 10^7, about 2 GB and 16 s to draw and write as
#: CSV (a real campaign, such as the paper's, has tens of thousands).
MAX_PAIRS = 10_000_000
#: Most ballots of one campaign: sizes shrink by ``alpha`` per ballot, and once rounding keeps
#: them fixed (e.g. 50 items at alpha = 0.99) more ballots repeat the same one; the paper uses 7.
MAX_BALLOTS = 10_000
#: Most items of a simulated campaign (``n_items``, ``--n-items``): 10^7 (a few float64 and
#: int64 arrays of this length, some hundred MB; the paper has 990).
MAX_ITEMS = 10_000_000
#: Most repetitions of a campaign simulation (``n_reps``, ``--reps``): 1000 (the paper uses 50;
#: a repetition of the paper's setting takes about 0.4 s, so 1000 take about 7 min; the pairs
#: ceiling below bounds larger campaigns).
MAX_CAMPAIGN_REPS = 1_000
#: Most voter opinions, ``n_voters * n_items``: 5 * 10^7, three float64 arrays of 0.4 GB each.
MAX_VOTER_OPINIONS = 50_000_000
#: Most simulated votes over all repetitions, ``n_reps * pairs of both designs``: 10^9, about
#: 8 min at 0.5 us per vote (the paper's setting with 50 repetitions is 2 * 10^6).
MAX_SIMULATED_PAIRS = 1_000_000_000


# --- MTEB result folders (sts_extras.rank.results) --------------------------------------------
#: Most files found under the folders given to ``read_mteb_results`` (``sts-extras rank DIR``):
#: 10^6. Reading costs about 0.15 ms per result file (the 2,571 files of the shared copy of
#: MTEB's results repository in 0.37 s); the whole repository (commit f4cc6c8) has about 105,000
#: files under results/, of which only the selected tasks' files are read.
MAX_RESULT_FILES = 1_000_000
#: Largest result or model_meta.json file read: 4 MiB. MTEB's STS result files hold a few KB
#: (the largest of the shared copy, a model_meta.json, 46 KB); a larger one is refused unread.
MAX_RESULT_FILE_BYTES = 4 << 20


# --- the leaderboard's local cluster ---------------------------------------------------------
def max_local_workers() -> int:
    """Most worker processes of a local Dask cluster (``workers``, ``--workers``): the CPUs of
    this machine. Each worker is a process with one thread that imports torch and MTEB and builds
    its own model (about 1 GB), so more workers than CPUs only compete for them and for memory."""
    import os

    return os.cpu_count() or 1
