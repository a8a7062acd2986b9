"""DSCS and STSS-131 for Hugging Face ``datasets``: builders, the offline loader, Hub folders.

* :mod:`~sts_extras.integrations.datasets.builders` -- the ``GeneratorBasedBuilder`` classes;
* :mod:`~sts_extras.integrations.datasets.loading` -- :func:`load_dataset` (with its cache check)
  and :func:`dataset_path`;
* :mod:`~sts_extras.integrations.datasets.hub_folder` -- the Hub-ready folders (card + data;
  ``python -m sts_extras.integrations.datasets.hub_folder dataset_scripts`` writes them).

The tables themselves are core: :mod:`sts_extras.benchmark_tables`.
"""

from __future__ import annotations

from typing import Any

from sts_extras.benchmark_tables import DATASETS, DatasetSpec, get_spec, read_rows
from sts_extras.integrations.datasets.loading import DatasetCacheError, dataset_path, load_dataset

__all__ = [
    "BUILDERS",
    "DATASETS",
    "DSCS",
    "STSS131",
    "DatasetCacheError",
    "DatasetSpec",
    "dataset_path",
    "get_spec",
    "load_dataset",
    "read_rows",
]


def __getattr__(name: str) -> Any:  # a builder class or BUILDERS, typed in `builders`
    """The builder classes (``DSCS``, ``STSS131``, ``BUILDERS``), made on first use."""
    if name in ("BUILDERS", "DSCS", "STSS131"):
        from sts_extras.integrations.datasets import builders

        return getattr(builders, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
