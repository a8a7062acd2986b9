"""``sts-extras leaderboard``: run models × STS tasks through MTEB and report every statistic.

For each model × task: Pearson r, Spearman ρ, the scaled Pearson over equal-width bins of the
gold scale with the r of each bin (Atoum 2019), and the top-rank-weighted ρ_w and τ_w (Lombardo
et al. 2020); for each model against a baseline: Δr with a BCa bootstrap interval and Meng,
Rosenthal & Rubin's (1992) dependent-correlation z test, Holm-adjusted within each task.
Writes ``leaderboard.md``, ``leaderboard.csv``, ``leaderboard.json`` and PNG figures, plus MTEB's
own result files.

The parts, one job each:

* :mod:`~sts_extras.leaderboard.resolve` -- checks every name the user gave before any work;
* :mod:`~sts_extras.leaderboard.evaluation` -- runs ``mteb.evaluate``, reads the per-pair scores;
* :mod:`~sts_extras.leaderboard.scoring` -- the statistics (numpy/scipy only);
* :mod:`~sts_extras.leaderboard.report` and :mod:`~sts_extras.leaderboard.figures` -- outputs;
* :mod:`~sts_extras.leaderboard.pipeline` -- :func:`run_leaderboard`, the Python entry point;
* :mod:`~sts_extras.leaderboard.cli` -- the ``sts-extras leaderboard`` options.

Importing this package loads neither MTEB nor torch.
"""

from sts_extras.leaderboard.cli import add_arguments, run
from sts_extras.leaderboard.pipeline import run_leaderboard
from sts_extras.leaderboard.scoring import (
    ComparisonStats,
    LeaderboardResult,
    ModelTaskFailure,
    ModelTaskRow,
    ModelTaskStats,
    TaskScores,
    score_leaderboard,
)

__all__ = [
    "ComparisonStats",
    "LeaderboardResult",
    "ModelTaskFailure",
    "ModelTaskRow",
    "ModelTaskStats",
    "TaskScores",
    "add_arguments",
    "run",
    "run_leaderboard",
    "score_leaderboard",
]
