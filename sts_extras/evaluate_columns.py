"""Deprecated: moved to :mod:`sts_extras.integrations.evaluate.columns` (removed in 0.4)."""

from __future__ import annotations

from sts_extras._deprecation import warn_moved
from sts_extras.integrations.evaluate.columns import *  # noqa: F403
from sts_extras.integrations.evaluate.columns import __all__  # noqa: F401

warn_moved("sts_extras.evaluate_columns", "sts_extras.integrations.evaluate.columns")
