"""Public entry point: DSCS and STSS-131 as Hugging Face ``datasets`` (re-exports only).

The code lives in :mod:`sts_extras.integrations.datasets` (the ``datasets`` adapter) and
:mod:`sts_extras.benchmark_tables` (the tables); this module keeps the public names
``sts_extras.datasets.DSCS``, ``STSS131``, :func:`load_dataset` and :func:`dataset_path`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sts_extras.integrations.datasets import (
    DATASETS,
    DatasetCacheError,
    DatasetSpec,
    dataset_path,
    get_spec,
    load_dataset,
    read_rows,
)
from sts_extras.integrations.datasets.hub_folder import hub_folder_files, write_hub_folder

if TYPE_CHECKING:  # pragma: no cover
    from sts_extras.integrations.datasets.builders import BUILDERS, DSCS, STSS131

__all__ = [
    "BUILDERS",
    "DATASETS",
    "DSCS",
    "STSS131",
    "DatasetCacheError",
    "DatasetSpec",
    "dataset_path",
    "get_spec",
    "hub_folder_files",
    "load_dataset",
    "read_rows",
    "write_hub_folder",
]


def __getattr__(name: str) -> Any:
    """The builder classes (``DSCS``, ``STSS131``, ``BUILDERS``), made on first use."""
    from sts_extras import integrations

    return getattr(integrations.datasets, name)
