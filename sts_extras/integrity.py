"""Write files atomically and check what is read back from a cache.

Every cache entry sts-extras writes (encodings, distilled vectors, stored evaluations, ...) is a
folder or a file written through :func:`atomic_write_bytes` / :func:`atomic_directory`, so a
crash leaves the old entry or none, never half of one. A folder entry carries a manifest
(:data:`MANIFEST_FILE`) with the key it was built from, the name of the content hash and the size
and :data:`~sts_extras.io.content.CONTENT_HASH` (XXH3-128) digest of each file;
:func:`verify_manifest` checks it before use, and a caller that finds a problem calls
:func:`discard`, which removes the entry with one :class:`CacheDiscardedWarning`, then rebuilds. A
manifest written with another hash (BLAKE2b, before 0.4) is such a problem: its entry is rebuilt,
never read with digests of another kind.

Hand-written because the standard library has no atomic-write helper, and a cache library
(``diskcache``, ``joblib.Memory``) would not check entries written by MTEB or model2vec.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from sts_extras.errors import InputWarning, UserInputError
from sts_extras.io.content import CONTENT_HASH, file_digest
from sts_extras.io.paths import confined_path
from sts_extras.io.records import Record, read_record

__all__ = [
    "MANIFEST_FILE",
    "CacheDiscardedWarning",
    "Manifest",
    "atomic_directory",
    "atomic_write_bytes",
    "atomic_write_text",
    "discard",
    "folder_digests",
    "verify_listed",
    "verify_manifest",
    "write_manifest",
]

#: Name of the manifest file inside a cache folder.
MANIFEST_FILE = ".sts-extras-manifest.json"


class CacheDiscardedWarning(InputWarning):
    """A cache entry failed its check and was removed; it is rebuilt from the source."""


class Manifest(Record):
    """A manifest as read from disk: the key an entry was built for, the content hash of its
    digests (:data:`~sts_extras.io.content.CONTENT_HASH`; empty in a manifest of before 0.4,
    whose digests were BLAKE2b), and each file's size and digest (``{relative path: [size,
    hex]}``)."""

    key: Any  # any JSON value: what write_manifest was given
    hash: str = ""
    files: dict[str, tuple[int, str]]


class _SymlinkInEntry(OSError):
    """A cache entry or output folder holds a symbolic link (sts-extras never writes one)."""


def folder_digests(folder: Path) -> dict[str, list[int | str]]:
    """``{relative path: [size, digest]}`` of every file below ``folder`` but the manifest.

    Symbolic links are never followed: one inside ``folder`` raises an ``OSError`` naming it
    (sts-extras writes none, so one there was planted, and following it would read elsewhere).
    """
    found: dict[str, list[int | str]] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            raise _SymlinkInEntry(0, "a symbolic link", str(path))
        if path.is_file() and path.name != MANIFEST_FILE:
            found[path.relative_to(folder).as_posix()] = [path.stat().st_size, file_digest(path)]
    return found


def _read_manifest(folder: Path) -> Manifest | str:
    """The manifest of ``folder``, or why it cannot be read."""
    path = folder / MANIFEST_FILE
    if path.is_symlink():
        return f"{path} is a symbolic link"
    try:
        manifest = read_record(Manifest, path, "manifest")
    except FileNotFoundError:
        return f"{path} is missing"
    except UserInputError as error:
        return f"{path} is unreadable ({error})"
    if manifest.hash != CONTENT_HASH:
        return (
            f"{path} lists digests of another content hash ({manifest.hash or 'BLAKE2b'}, not "
            f"{CONTENT_HASH}); it was written by an older sts-extras"
        )
    return manifest


def _fsync(path: Path) -> None:
    with contextlib.suppress(OSError):
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    A reader sees the old file or the whole new one; a crash leaves no partial ``path``.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor, staging = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(staging, 0o644)  # mkstemp makes it private
        os.replace(staging, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staging)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """:func:`atomic_write_bytes` for UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"))


@contextlib.contextmanager
def atomic_directory(target: Path) -> Iterator[Path]:
    """Yield an empty staging folder beside ``target``; on success it replaces ``target`` whole.

    An existing ``target`` is moved aside first and removed after the swap, so a reader never
    sees a mix of the two. On an exception the staging folder is removed and ``target`` is left
    as it was.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.staging-", dir=target.parent))
    try:
        yield staging
        os.chmod(staging, 0o755)  # mkdtemp makes it private
        for path in staging.rglob("*"):
            if path.is_file():
                _fsync(path)
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
            os.replace(target, old / "entry")
        os.replace(staging, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def write_manifest(folder: Path, key: Mapping[str, object] | str) -> None:
    """Record ``key`` and the size and digest of every file of ``folder`` in its manifest."""
    manifest = {"key": key, "hash": CONTENT_HASH, "files": folder_digests(folder)}
    atomic_write_text(folder / MANIFEST_FILE, json.dumps(manifest, sort_keys=True, default=str))


def verify_manifest(folder: Path, key: Mapping[str, object] | str | None = None) -> str | None:
    """Why ``folder`` cannot be trusted, or None when it matches its manifest.

    Checks that the manifest exists and parses, that its key equals ``key`` (when given), and
    that the folder holds exactly the files it lists with the listed sizes and digests.
    """
    manifest = _read_manifest(folder)
    if isinstance(manifest, str):
        return manifest
    # the recorded key is parsed JSON already; the given one is normalised the way it was written
    if key is not None and json.loads(json.dumps(key, default=str)) != manifest.key:
        return f"{folder} was built for other settings"
    try:
        present = folder_digests(folder)
    except _SymlinkInEntry as error:
        return f"{error.filename} is a symbolic link"
    except OSError as error:
        return f"{folder} is unreadable ({error.strerror or type(error).__name__})"
    listed = {name: list(entry) for name, entry in manifest.files.items()}
    for name in sorted(set(listed) | set(present)):
        if name not in present:
            return f"{folder / name} is missing"
        if name not in listed:
            return f"{folder / name} is not in the manifest"
        if present[name] != listed[name]:
            return f"{folder / name} was changed after it was written"
    return None


def verify_listed(folder: Path, names: Iterable[str]) -> str | None:
    """Why some of the files ``names`` (relative to ``folder``) cannot be trusted, or None.

    Unlike :func:`verify_manifest`, other files of ``folder`` are allowed (an output directory
    may hold the user's own files): each named file must be listed in the manifest with the
    size and digest it has now. A name that leads out of ``folder`` (``..``, an absolute path, a
    symbolic link) is refused, as is a named file that is itself a symbolic link.
    """
    manifest = _read_manifest(folder)
    if isinstance(manifest, str):
        return manifest
    for name in names:
        try:
            file = confined_path(folder, name, "a listed file")
        except UserInputError as error:
            return str(error).rstrip(".")
        if name not in manifest.files:
            return f"{file} is not in the manifest"
        if file.is_symlink():
            return f"{file} is a symbolic link"
        try:
            present = (file.stat().st_size, file_digest(file))
        except FileNotFoundError:
            return f"{file} is missing"
        except OSError as error:
            return f"{file} is unreadable ({error.strerror or type(error).__name__})"
        if present != manifest.files[name]:
            return f"{file} was changed after it was written"
    return None


def discard(entry: Path, reason: str) -> None:
    """Remove a cache file or folder that failed its check, with one warning naming why."""
    warnings.warn(
        f"Discarding a cache entry that failed its check and rebuilding it: {reason}.",
        CacheDiscardedWarning,
        stacklevel=2,
    )
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            entry.unlink()
