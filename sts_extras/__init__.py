"""sts-extras: harder STS benchmarks and sounder statistics for the Hugging Face / MTEB ecosystem.

The core (``sts_extras.stats``, ``sts_extras.similarity``, ``sts_extras.annotation``) is plain
numpy/scipy. Adapters to ``datasets``, ``evaluate``, ``mteb`` and ``sentence-transformers`` import
those libraries only when used, so ``import sts_extras`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

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


def load_dataset(name: str, config_name: str | None = None, **kwargs: Any):
    """Load DSCS or STSS-131 offline from the data shipped with the package.

    A thin wrapper over :func:`sts_extras.datasets.load_dataset`; see there for details.

    Examples
    --------
    >>> import sts_extras
    >>> sts_extras.load_dataset("dscs")["test"].num_rows
    50
    """
    from sts_extras.datasets import load_dataset as _load_dataset

    return _load_dataset(name, config_name, **kwargs)


def __getattr__(name: str) -> Any:
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"sts_extras.{name}")
    raise AttributeError(f"module 'sts_extras' has no attribute {name!r}")
