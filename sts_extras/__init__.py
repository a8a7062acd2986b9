"""sts-extras: harder STS benchmarks and sounder statistics for the Hugging Face / MTEB ecosystem.

Three layers, imports only downward (``tests/test_layers.py`` holds it):

* **core**, plain numpy/scipy: :mod:`sts_extras.stats`, :mod:`sts_extras.similarity`,
  :mod:`sts_extras.vectors`, :mod:`sts_extras.annotation`, :mod:`sts_extras.benchmark_tables`,
  :mod:`sts_extras.io` and the trust boundary (:mod:`sts_extras.integrity`);
* **adapters**, one ecosystem each, in :mod:`sts_extras.integrations` (``datasets``,
  ``evaluate``, MTEB, sentence-transformers);
* **applications**: :mod:`sts_extras.leaderboard`, :mod:`sts_extras.reproduce` and the command
  line, :mod:`sts_extras.cli`.

The public entry points :mod:`sts_extras.datasets`, :mod:`sts_extras.mteb_tasks` and
:mod:`sts_extras.models` re-export the adapters. Adapters import their libraries only when used,
so ``import sts_extras`` stays light: the submodules below, :func:`load_dataset`,
:func:`dataset_path`, :func:`metric_path` and :func:`load_metric` are imported on first access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from sts_extras.integrations.datasets.loading import dataset_path, load_dataset
    from sts_extras.integrations.evaluate.modules import load_metric, metric_path

from sts_extras._version import __version__

__all__ = ["__version__", "dataset_path", "load_dataset", "load_metric", "metric_path"]

# public name -> the module that defines it
_LAZY_FUNCTIONS = {
    "dataset_path": "sts_extras.integrations.datasets.loading",
    "load_dataset": "sts_extras.integrations.datasets.loading",
    "load_metric": "sts_extras.integrations.evaluate.modules",
    "metric_path": "sts_extras.integrations.evaluate.modules",
}
_LAZY_SUBMODULES = {
    "annotation",
    "benchmark_tables",
    "cli",
    "datasets",
    "integrations",
    "leaderboard",
    "models",
    "mteb_tasks",
    "reproduce",
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
