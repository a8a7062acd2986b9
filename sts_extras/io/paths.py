"""Paths that come from outside, confined to the folder they belong to.

A cell record lists its files by relative name, a plain MTEB prediction file names a model and a
revision that become folders, a display name becomes a folder: each such name is untrusted. One
helper, :func:`confined_path`, turns a name into a path below its root for reading and for
writing, and refuses absolute names, ``..``, NUL and backslashes, and any symlink on the way that
leads out of the root. :func:`file_name` maps a free text (a model's display name) to one safe
path component, and :func:`check_distinct_file_names` refuses two names that would share one.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from sts_extras.errors import UserInputError

__all__ = [
    "UnsafePathError",
    "check_distinct_file_names",
    "check_file_name",
    "check_relative_path",
    "confined_path",
    "file_name",
]

# one path component: no separators, no NUL, no control characters
_COMPONENT = re.compile(r"[^\x00-\x1f\x7f/\\]+")
# Windows device names: refused as a component anywhere (a folder may be shared with Windows)
_RESERVED = re.compile(r"(?i)(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?")
_MAX_COMPONENT_BYTES = 255


class UnsafePathError(UserInputError):
    """A path taken from a file or a name would leave its root (or is not a plain name)."""


def check_file_name(name: object, what: str) -> str:
    """``name`` if it is one safe path component; :class:`UnsafePathError` naming ``what``.

    A safe component is a non-empty ``str`` of at most 255 UTF-8 bytes, without ``/``, ``\\``,
    NUL or control characters, not ``.`` or ``..``, not a Windows device name, and in Unicode
    normal form NFC (so two spellings of one name cannot become two folders that look alike).
    """
    if not isinstance(name, str):
        raise UnsafePathError(
            f"{what}: expected a file name (a string), got {type(name).__name__}."
        )
    if (
        not name
        or name in (".", "..")
        or _COMPONENT.fullmatch(name) is None
        or _RESERVED.fullmatch(name) is not None
        or len(name.encode("utf-8", "surrogatepass")) > _MAX_COMPONENT_BYTES
        or unicodedata.normalize("NFC", name) != name
        or name != name.strip()
    ):
        raise UnsafePathError(f"{what}: {name!r} is not a plain file name.")
    return name


def check_relative_path(relative: object, what: str) -> tuple[str, ...]:
    """The components of ``relative`` if it is a plain POSIX relative path; else
    :class:`UnsafePathError` naming ``what``.

    Plain: a non-empty ``str``, not absolute, no backslash, no empty, ``.`` or ``..``
    component, no trailing ``/``, and every component passes :func:`check_file_name`. This is
    the string check only; :func:`confined_path` adds the check of the file system (symlinks).
    """
    if not isinstance(relative, str):
        raise UnsafePathError(
            f"{what}: expected a relative path (a string), got {type(relative).__name__}."
        )
    if not relative or relative.startswith("/") or "\\" in relative:
        raise UnsafePathError(f"{what}: {relative!r} is not a relative path.")
    parts = PurePosixPath(relative).parts
    if "/".join(parts) != relative.rstrip("/") or relative.endswith("/"):
        raise UnsafePathError(f"{what}: {relative!r} is not a plain relative path.")
    for part in parts:
        try:
            check_file_name(part, what)
        except UnsafePathError:
            raise UnsafePathError(
                f"{what}: {relative!r} is not a plain relative path ({part!r})."
            ) from None
    return parts


def confined_path(root: str | os.PathLike[str], relative: object, what: str) -> Path:
    """``root / relative``, refused unless it stays inside ``root`` (for reading or writing).

    ``relative`` must be a POSIX relative path (``a/b/c.json``) whose every component passes
    :func:`check_file_name`. Every part of it that exists must be a real folder or file inside
    ``root`` once symlinks are followed, so neither a ``..`` nor a symlink planted beside the
    files can move a read or a write elsewhere. Parts that do not exist yet are fine (a file
    about to be written), as long as nothing on the way leaves the root.

    Parameters
    ----------
    root : path
        The folder the path must stay in (an output folder, a shard, a cache entry).
    relative : str
        The name as found in a record.
    what : str
        Names the record and field in the error message.

    Raises
    ------
    UnsafePathError
        An absolute name, ``..``, an empty or unsafe component, or a symlink leaving ``root``.
    """
    parts = check_relative_path(relative, what)
    base = Path(root)
    real_root = Path(os.path.realpath(base))
    path = base.joinpath(*parts)
    # follow every existing prefix: each must resolve inside the root
    current = base
    for part in parts:
        current = current / part
        if not os.path.lexists(current):
            break
        if not _inside(Path(os.path.realpath(current)), real_root):
            raise UnsafePathError(
                f"{what}: {relative!r} leads out of {root} (through the link {current})."
            )
    return path


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def file_name(text: str, *, empty: str = "model") -> str:
    """``text`` as one safe path component: runs of other characters than ``A-Za-z0-9._+-``
    become ``_``; leading dots and underscores are dropped (no hidden or ``..`` names), and a
    Windows device name (``con``, ``lpt1``) gets a leading ``_``."""
    name = re.sub(r"[^A-Za-z0-9._+-]+", "_", text).strip("_").lstrip(".")[:200] or empty
    return f"_{name}" if _RESERVED.fullmatch(name) else name


def check_distinct_file_names(names: Iterable[str], what: str, *, empty: str = "model") -> None:
    """Refuse two different ``names`` that :func:`file_name` maps to one file name.

    Compared case-insensitively, as on macOS and Windows file systems. Called before any work,
    so a collision costs nothing (rather than failing after every model has run).
    """
    seen: dict[str, str] = {}
    for name in names:
        key = file_name(name, empty=empty).casefold()
        other = seen.setdefault(key, name)
        if other != name:
            raise UserInputError(
                f"{what}: {other!r} and {name!r} would share the file name "
                f"{file_name(name, empty=empty)!r}; give them names that differ in letters or "
                "digits (e.g. --model PATH=NAME)."
            )
