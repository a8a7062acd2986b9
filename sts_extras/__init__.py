"""sts-extras: harder STS benchmarks and sounder statistics for the Hugging Face / MTEB ecosystem.

The core (``sts_extras.stats``, ``sts_extras.similarity``, ``sts_extras.annotation``) is plain
numpy/scipy. Adapters to ``datasets``, ``evaluate``, ``mteb`` and ``sentence-transformers`` import
those libraries only when used, so ``import sts_extras`` stays light: the submodules below and
:func:`load_dataset` (from :mod:`sts_extras.datasets`) are imported on first access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from sts_extras.datasets import load_dataset

__version__ = "0.1.0"

__all__ = ["__version__", "load_dataset"]

_LAZY_SUBMODULES = {
    "annotation",
    "datasets",
    "leaderboard",
    "models",
    "mteb_tasks",
    "similarity",
    "stats",
    "vectors",
}


def __getattr__(name: str) -> Any:
    if name == "load_dataset":
        return importlib.import_module("sts_extras.datasets").load_dataset
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"sts_extras.{name}")
    raise AttributeError(f"module 'sts_extras' has no attribute {name!r}")
