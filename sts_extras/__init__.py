"""sts-extras: harder STS benchmarks and sounder statistics for the Hugging Face / MTEB ecosystem.

The core (``sts_extras.stats``, ``sts_extras.similarity``, ``sts_extras.annotation``) is plain
numpy/scipy. Adapters to ``datasets``, ``evaluate``, ``mteb`` and ``sentence-transformers`` import
those libraries only when used, so ``import sts_extras`` stays light: the submodules below,
:func:`load_dataset` and :func:`dataset_path` (from :mod:`sts_extras.datasets`),
:func:`metric_path` and :func:`load_metric` (from :mod:`sts_extras.evaluate_modules`) are imported
on first access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from sts_extras.datasets import dataset_path, load_dataset
    from sts_extras.evaluate_modules import load_metric, metric_path

__version__ = "0.1.0"

__all__ = ["__version__", "dataset_path", "load_dataset", "load_metric", "metric_path"]

# public name -> the module that defines it
_LAZY_FUNCTIONS = {
    "dataset_path": "sts_extras.datasets",
    "load_dataset": "sts_extras.datasets",
    "load_metric": "sts_extras.evaluate_modules",
    "metric_path": "sts_extras.evaluate_modules",
}
_LAZY_SUBMODULES = {
    "annotation",
    "datasets",
    "evaluate_modules",
    "leaderboard",
    "models",
    "mteb_tasks",
    "similarity",
    "stats",
    "vectors",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY_FUNCTIONS:
        return getattr(importlib.import_module(_LAZY_FUNCTIONS[name]), name)
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"sts_extras.{name}")
    raise AttributeError(f"module 'sts_extras' has no attribute {name!r}")
