"""``sts-extras leaderboard``: run models × STS tasks through MTEB and report every statistic.

For each model × task: Pearson r, Spearman ρ, the scaled Pearson over equal-width bins of the
gold scale with the r of each bin (Atoum 2019), and the top-rank-weighted ρ_w and τ_w (Lombardo
et al. 2020); for each model against a baseline: Δr with a BCa bootstrap interval and Meng,
Rosenthal & Rubin's (1992) dependent-correlation z test, Holm-adjusted within each task.
Writes ``leaderboard.md``, ``.csv``, ``.json``, ``.tex`` (booktabs tables) and ``.html`` (one
offline page), the figures (PDF and PNG by default), MTEB's own result files and the cell records
(``cells/``) that ``sts-extras leaderboard collect`` reads.

The parts, one job each:

* :mod:`~sts_extras.leaderboard.run.resolve` -- checks every name the user gave before any work;
* :mod:`~sts_extras.leaderboard.run.evaluation` -- runs one model × task cell with
  ``mteb.evaluate``;
* :mod:`~sts_extras.leaderboard.run.distributed` -- runs the cells here or on a Dask cluster;
* :mod:`~sts_extras.leaderboard.run.cells` -- the cells on disk (plan, shards), read back as scores;
* :mod:`~sts_extras.leaderboard.run.collect` -- the report of cells evaluated elsewhere;
* :mod:`~sts_extras.leaderboard.reports.scoring` -- the statistics (numpy/scipy only);
* :mod:`~sts_extras.leaderboard.reports.writers` (:mod:`~sts_extras.leaderboard.reports.report`,
  :mod:`~sts_extras.leaderboard.reports.figures`) -- the outputs;
* :mod:`~sts_extras.leaderboard.run.pipeline` -- :func:`run_leaderboard` and :func:`run_shard`;
* :mod:`~sts_extras.cli.leaderboard_run` -- the ``sts-extras leaderboard`` options.

Importing this package loads neither MTEB nor torch.
"""

from sts_extras.leaderboard.reports.scoring import (
    ComparisonStats,
    LeaderboardResult,
    ModelTaskFailure,
    ModelTaskRow,
    ModelTaskStats,
    TaskScores,
    score_leaderboard,
)
from sts_extras.leaderboard.run.collect import collect_leaderboard
from sts_extras.leaderboard.run.pipeline import ShardSummary, run_leaderboard, run_shard

__all__ = [
    "ComparisonStats",
    "LeaderboardResult",
    "ModelTaskFailure",
    "ModelTaskRow",
    "ModelTaskStats",
    "ShardSummary",
    "TaskScores",
    "collect_leaderboard",
    "run_leaderboard",
    "run_shard",
    "score_leaderboard",
]
