"""Public entry point: DynaMax, MaxPool and MeanPooled as MTEB encoders (re-exports only).

Importing this package registers the models with MTEB's model registry (when MTEB is imported).
The code lives in :mod:`sts_extras.integrations.mteb.models`.
"""

from __future__ import annotations

from sts_extras.integrations.mteb.models import (
    PROGRESS_BAR_THRESHOLD,
    REGISTERED_MODELS,
    DynaMax,
    MainScoreWarning,
    MaxPool,
    MeanPooled,
    register,
)

__all__ = [
    "PROGRESS_BAR_THRESHOLD",
    "REGISTERED_MODELS",
    "DynaMax",
    "MainScoreWarning",
    "MaxPool",
    "MeanPooled",
    "register",
]
