"""Where sts-extras keeps its caches (``$STS_EXTRAS_CACHE``, else ``~/.cache/sts_extras``), and
where its own source folder is."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["default_cache_dir", "package_root"]


def package_root() -> Path:
    """The ``sts_extras`` package folder (installed, or the source folder of a checkout).

    The one place that turns this file's location into the package's, so a module that moves
    between subpackages cannot silently point somewhere else
    (``tests/test_package_locations.py`` holds it).
    """
    return Path(__file__).resolve().parent.parent


def default_cache_dir() -> Path:
    """The root of sts-extras' caches: ``$STS_EXTRAS_CACHE``, else ``~/.cache/sts_extras``."""
    configured = os.environ.get("STS_EXTRAS_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "sts_extras"
