"""Redraw the figures only when what they show changed.

Drawing the figures (and importing matplotlib) is the largest part of a re-run whose scores come
from the caches. The figures are a function of the :class:`LeaderboardResult`, the formats asked
for, the plotting code and matplotlib, so a key of the four is kept in ``<output>/.figures.json``
with the formats and the name, size and digest of every file written (each figure in every
format); key and digests are :data:`~sts_extras.io.content.CONTENT_HASH` (XXH3-128). When the key
is unchanged and every file still has its recorded bytes, the figures are kept (copied when the
run writes to a new folder); a damaged or replaced file, or a record of before 0.4 (another hash),
makes them all be drawn again. A result that cannot be pickled has no key and is always drawn.
"""

from __future__ import annotations

import json
import pickle
import shutil
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from sts_extras.errors import UserInputError
from sts_extras.integrity import atomic_write_text
from sts_extras.io.content import content_hasher, file_digest
from sts_extras.io.paths import check_file_name
from sts_extras.io.records import Record, read_record
from sts_extras.leaderboard.scoring import LeaderboardResult
from sts_extras.leaderboard.settings import DEFAULT_FIGURE_FORMATS
from sts_extras.leaderboard.sources import code_stamp

__all__ = ["STAMP_FILE", "figures_key", "write_figures_if_changed"]

#: The record of the figures last drawn in an output directory.
STAMP_FILE = ".figures.json"


def figures_key(
    result: LeaderboardResult, formats: Sequence[str] = DEFAULT_FIGURE_FORMATS
) -> str | None:
    """Names the figures of ``result`` in ``formats``: its content, the formats, the sts-extras
    sources and matplotlib: 32 hex digits of :data:`~sts_extras.io.content.CONTENT_HASH`."""
    try:
        content = pickle.dumps(result, protocol=5)
    except Exception:  # noqa: BLE001 -- not picklable: no key, the figures are drawn
        return None
    digest = content_hasher()
    digest.update(content)
    digest.update(repr((tuple(formats), code_stamp(), metadata.version("matplotlib"))).encode())
    return digest.hexdigest()


class FiguresStamp(Record):
    """``.figures.json`` as read back: the key, the formats, and each figure file's name, size
    and digest. It lies in an output folder anyone may have edited, so it is checked as a
    record from outside."""

    key: str
    formats: tuple[str, ...]
    files: tuple[tuple[str, int, str], ...]


def _file_stamp(path: Path) -> list[str | int]:
    return [path.name, path.stat().st_size, file_digest(path)]


def _figure_path(folder: Path, name: str, formats: Sequence[str]) -> Path:
    """``folder / name`` for a figure file: one plain name with a figure suffix, not a link."""
    check_file_name(name, STAMP_FILE)
    path = folder / name
    if path.suffix.lstrip(".") not in formats or path.is_symlink():
        raise UserInputError(f"{STAMP_FILE}: {name!r} is not a figure file")
    return path


def _kept(key: str, source: Path, output: Path) -> list[Path] | None:
    """The figures recorded in ``source`` under ``key``, in ``output`` with the recorded bytes;
    None when there is no such record or a file differs from it."""
    try:
        record = read_record(FiguresStamp, source / STAMP_FILE, "the figures' record")
        if record.key != key:
            return None
        paths = []
        for name, size, digest in record.files:
            path = _figure_path(output, name, record.formats)
            if source != output:
                shutil.copyfile(_figure_path(source, name, record.formats), path)
            if _file_stamp(path) != [name, size, digest]:
                return None
            paths.append(path)
    except (OSError, UserInputError):  # none yet, changed, or not ours: draw
        return None
    if source != output:
        atomic_write_text(output / STAMP_FILE, json.dumps(record.model_dump()))
    return paths


def write_figures_if_changed(
    result: LeaderboardResult,
    output: Path,
    *,
    reuse_from: Path | None = None,
    formats: Sequence[str] = DEFAULT_FIGURE_FORMATS,
) -> list[Path]:
    """Write the figures of ``result`` to ``output`` in each of ``formats`` unless the same ones
    are there; the paths.

    ``reuse_from`` is the folder whose figures may be kept (default ``output`` itself): the run
    writes a new report set into a staging folder and keeps the figures of the set it replaces.
    """
    formats = tuple(formats)
    key = figures_key(result, formats)
    stamp = output / STAMP_FILE
    if key is not None:
        kept = _kept(key, output if reuse_from is None else reuse_from, output)
        if kept is not None:
            return kept
    from sts_extras.leaderboard.reports.figures import write_figures

    stamp.unlink(missing_ok=True)  # no stale record while drawing
    paths = write_figures(result, output, formats)
    if key is not None:
        record = {
            "key": key,
            "formats": list(formats),
            "files": [_file_stamp(path) for path in paths],
        }
        atomic_write_text(stamp, json.dumps(record))
    return paths
