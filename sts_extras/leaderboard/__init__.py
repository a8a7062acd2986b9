"""``sts-extras leaderboard``: run models × STS tasks through MTEB and report every statistic.

For each model × task: Pearson r, Spearman ρ, the scaled Pearson over equal-width bins of the
gold scale with the r of each bin (Atoum 2019), and the top-rank-weighted ρ_w and τ_w (Lombardo
et al. 2020); for every pair of models of a task (and so for each model against a baseline): Δr
with ONE decision, the suite-chosen method's (``method="auto"``) p-value Holm-adjusted over the
task's pairs and the interval at the matching per-pair level, which excludes 0 exactly when the
pair is significant (†); each task says which method it used and what the calibration suite
measured for it at the task's n.
Writes ``leaderboard.md``, ``.csv``, ``.json``, ``.tex`` (booktabs tables) and ``.html`` (one
offline page), the figures (PDF and PNG by default), MTEB's own result files and the cell records
(``cells/``) that ``sts-extras leaderboard collect`` reads.

The parts, one job each, each importing only the ones below it:

* :mod:`~sts_extras.leaderboard.settings` -- :class:`LeaderboardSettings`, every setting of a run
  as one frozen object, checked once when it is made, and its record :class:`RunSettings` (the
  settings that change the numbers), passed down unchanged;
* :mod:`~sts_extras.leaderboard.scoring` -- the statistics (numpy/scipy over
  :mod:`sts_extras.stats`), :func:`score_leaderboard`;
* :mod:`~sts_extras.leaderboard.reports` -- the outputs of a result, formatting only, one module
  per format (:mod:`~sts_extras.leaderboard.reports.markdown`,
  :mod:`~sts_extras.leaderboard.reports.csv_report`,
  :mod:`~sts_extras.leaderboard.reports.json_report`,
  :mod:`~sts_extras.leaderboard.reports.latex`,
  :mod:`~sts_extras.leaderboard.reports.html_report`,
  :mod:`~sts_extras.leaderboard.reports.figures`; the table cells they share in
  :mod:`~sts_extras.leaderboard.reports.tables`; all of them written by
  :mod:`~sts_extras.leaderboard.reports.writers`);
* :mod:`~sts_extras.leaderboard.run` -- the run: :mod:`~sts_extras.leaderboard.run.resolve`
  checks every name the user gave before any work, :mod:`~sts_extras.leaderboard.run.evaluation`
  runs one model × task cell with ``mteb.evaluate``, :mod:`~sts_extras.leaderboard.run.distributed`
  runs the cells here or on a Dask cluster, :mod:`~sts_extras.leaderboard.run.cells` keeps them on
  disk (plan, shards) and reads them back as scores, :mod:`~sts_extras.leaderboard.run.collect`
  reports cells evaluated elsewhere, and :mod:`~sts_extras.leaderboard.run.pipeline` strings it
  together (:func:`run_leaderboard`, :func:`run_shard`): scoring, then the report writers;
* :mod:`~sts_extras.cli.leaderboard` -- the ``sts-extras leaderboard`` options, and
  :mod:`~sts_extras.cli.leaderboard_run`, which turns them into a :class:`LeaderboardSettings`.

Importing this package loads neither MTEB nor torch.
"""

from sts_extras.leaderboard.run.collect import collect_leaderboard
from sts_extras.leaderboard.run.pipeline import ShardSummary, run_leaderboard, run_shard
from sts_extras.leaderboard.scoring import (
    ComparisonStats,
    LeaderboardResult,
    ModelTaskFailure,
    ModelTaskRow,
    ModelTaskStats,
    TaskScores,
    score_leaderboard,
)
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
