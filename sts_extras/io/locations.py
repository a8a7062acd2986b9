"""Where sts-extras keeps its caches (``$STS_EXTRAS_CACHE``, else ``~/.cache/sts_extras``)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["default_cache_dir"]


def default_cache_dir() -> Path:
    """The root of sts-extras' caches: ``$STS_EXTRAS_CACHE``, else ``~/.cache/sts_extras``."""
    configured = os.environ.get("STS_EXTRAS_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "sts_extras"
