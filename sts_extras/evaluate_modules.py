"""Deprecated: moved to :mod:`sts_extras.integrations.evaluate.modules` (removed in 0.4)."""

from __future__ import annotations

from sts_extras._deprecation import warn_moved
from sts_extras.integrations.evaluate.modules import *  # noqa: F403
from sts_extras.integrations.evaluate.modules import __all__  # noqa: F401

warn_moved("sts_extras.evaluate_modules", "sts_extras.integrations.evaluate.modules")
