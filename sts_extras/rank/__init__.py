"""Where a model stands among MTEB's published results on the English STS tasks.

:mod:`sts_extras.rank.results` reads MTEB result folders (the public results repository and
MTEB's local ``ResultCache``) into one validated score per model and task, with the rules it
applied; :mod:`sts_extras.rank.own_runs` reads a ``sts-extras leaderboard`` output into the same
shape, with its per-pair predictions; :mod:`sts_extras.rank.pipeline` ranks the models across
tasks (:func:`rank_models`, the door of ``sts-extras rank``), and
:mod:`sts_extras.rank.reports` and :mod:`sts_extras.rank.figures` write the reports.
"""

from sts_extras.rank.own_runs import OwnRuns, is_leaderboard_output, read_leaderboard_output
from sts_extras.rank.pipeline import rank_models
from sts_extras.rank.ranking import LeftOut, RankedModel, Ranking
from sts_extras.rank.results import (
    RULES,
    STS_TASKS,
    TASK_INFO,
    ModelScores,
    PublishedResults,
    Refusal,
    SetAside,
    TaskInfo,
    TaskScore,
    read_mteb_results,
)

__all__ = [
    "RULES",
    "STS_TASKS",
    "TASK_INFO",
    "LeftOut",
    "ModelScores",
    "OwnRuns",
    "PublishedResults",
    "RankedModel",
    "Ranking",
    "Refusal",
    "SetAside",
    "TaskInfo",
    "TaskScore",
    "is_leaderboard_output",
    "rank_models",
    "read_leaderboard_output",
    "read_mteb_results",
]
