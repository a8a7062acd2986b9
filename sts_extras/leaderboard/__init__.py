"""``sts-extras leaderboard``: run models × STS tasks through MTEB and report every statistic.

For each model × task: Pearson r, Spearman ρ, the scaled Pearson over equal-width bins of the
gold scale with the r of each bin (Atoum 2019), and the top-rank-weighted ρ_w and τ_w (Lombardo
et al. 2020); for every pair of models of a task (and so for each model against a baseline): Δr
with ONE decision, the calibrated method's (``method="auto"``) p-value Holm-adjusted over the
task's pairs and the interval at the matching per-pair level, which excludes 0 exactly when the
pair is significant (†); each task says which method it used and what the calibration suite
measured for it at the task's n.
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
* :mod:`~sts_extras.leaderboard.reports.writers` -- the outputs, one module per format
  (:mod:`~sts_extras.leaderboard.reports.markdown`,
  :mod:`~sts_extras.leaderboard.reports.csv_report`,
  :mod:`~sts_extras.leaderboard.reports.json_report`,
  :mod:`~sts_extras.leaderboard.reports.latex`,
  :mod:`~sts_extras.leaderboard.reports.html_report`,
  :mod:`~sts_extras.leaderboard.reports.figures`; the table cells they share in
  :mod:`~sts_extras.leaderboard.reports.tables`);
* :mod:`~sts_extras.leaderboard.settings` -- :class:`LeaderboardSettings`, every setting of a run
  as one frozen, checked object;
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
from sts_extras.leaderboard.settings import LeaderboardSettings, RunSettings

__all__ = [
    "ComparisonStats",
    "LeaderboardResult",
    "LeaderboardSettings",
    "ModelTaskFailure",
    "ModelTaskRow",
    "ModelTaskStats",
    "RunSettings",
    "ShardSummary",
    "TaskScores",
    "collect_leaderboard",
    "run_leaderboard",
    "run_shard",
    "score_leaderboard",
]
