"""Public entry point: DSCS and STSS-131 as MTEB ``AbsTaskSTS`` tasks (re-exports only).

Importing this module registers the tasks with MTEB, as importing MTEB's own task modules does.
The code lives in :mod:`sts_extras.integrations.mteb.tasks`.
"""

from __future__ import annotations

from sts_extras.integrations.mteb.tasks import DSCS, STSS131, TASKS, from_csv, register

__all__ = ["DSCS", "STSS131", "TASKS", "from_csv", "register"]
