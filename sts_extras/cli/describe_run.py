"""``sts-extras describe``: size, score distribution, sentence lengths and readability.

The command adapter over :mod:`sts_extras.describe`: a packaged benchmark (``dscs``,
``stss131``) or any CSV, JSON Lines or Parquet file with the columns ``sentence1``, ``sentence2``
and ``score``, printed as text or JSON.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sts_extras.describe import describe_dataset, describe_file, format_description
from sts_extras.errors import UserInputError

__all__ = ["run"]


def _is_file(name: str) -> bool:
    """A ``dataset`` argument naming a table file rather than a packaged benchmark."""
    from sts_extras.annotation.tables import TABLE_SUFFIXES

    return Path(name).suffix.lower() in TABLE_SUFFIXES


def run(args: argparse.Namespace) -> int:
    """CLI adapter of ``sts-extras describe``: describe the benchmark or file, print it."""
    if _is_file(args.dataset):
        if args.config is not None:
            raise UserInputError(f"--config {args.config!r}: a file has no configurations.")
        description = describe_file(args.dataset)
    else:
        description = describe_dataset(args.dataset, args.config)
    if args.format == "json":
        print(json.dumps(description, indent=2))
    else:
        print(format_description(description))
    return 0
