"""Redraw the figures only when what they show changed.

Drawing the PNGs (and importing matplotlib) is the largest part of a re-run whose scores come
from the caches. The figures are a function of the :class:`LeaderboardResult`, the plotting code
and matplotlib, so a key of the three is kept in ``<output>/.figures.json`` with the name, size
and modification time of every PNG written; when the key and the files are unchanged, the figures
are left as they are. A result that cannot be pickled has no key and is always drawn.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from importlib import metadata
from pathlib import Path

from sts_extras.leaderboard.evaluation_store import code_stamp
from sts_extras.leaderboard.scoring import LeaderboardResult

__all__ = ["STAMP_FILE", "figures_key", "write_figures_if_changed"]

#: The record of the figures last drawn in an output directory.
STAMP_FILE = ".figures.json"


def figures_key(result: LeaderboardResult) -> str | None:
    """Names the figures of ``result``: its content, the sts-extras sources and matplotlib."""
    try:
        content = pickle.dumps(result, protocol=5)
    except Exception:  # noqa: BLE001 -- not picklable: no key, the figures are drawn
        return None
    digest = hashlib.blake2b(content, digest_size=16)
    digest.update(repr((code_stamp(), metadata.version("matplotlib"))).encode())
    return digest.hexdigest()


def _file_stamp(path: Path) -> list[object]:
    info = path.stat()
    return [path.name, info.st_size, info.st_mtime_ns]


def write_figures_if_changed(result: LeaderboardResult, output: Path) -> list[Path]:
    """Write the figures of ``result`` to ``output`` unless the same ones are there; the paths."""
    key = figures_key(result)
    stamp = output / STAMP_FILE
    if key is not None:
        try:
            record = json.loads(stamp.read_text(encoding="utf-8"))
            paths = [output / name for name, _, _ in record["files"]]
            if record["key"] == key and [_file_stamp(p) for p in paths] == record["files"]:
                return paths
        except (OSError, ValueError, KeyError, TypeError):  # none yet, or changed: draw
            pass
    from sts_extras.leaderboard.figures import write_figures

    stamp.unlink(missing_ok=True)  # no stale record while drawing
    paths = write_figures(result, output)
    if key is not None:
        record = {"key": key, "files": [_file_stamp(path) for path in paths]}
        stamp.write_text(json.dumps(record), encoding="utf-8")
    return paths
