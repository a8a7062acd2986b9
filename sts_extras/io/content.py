"""Files, folders and values identified by their full content: the package's one content hash.

Every cache key, fingerprint, revision label and manifest digest of sts-extras is
:data:`CONTENT_HASH` (XXH3-128), through :func:`content_hash` (bytes or text),
:func:`content_hasher` (content streamed in), :func:`file_digest` (a file, read whole) or
:func:`content_digest` (a file, memoised).

A cache entry built from a model folder or a vectors file is keyed by a hash of every byte of it
(:func:`content_digest`, :func:`folder_content_digest`), never by its path, size or a sample of
it: the same content in two environments shares one entry, and a change of any byte makes a new
one. The hash is XXH3-128 (the ``xxhash`` package): all-MiniLM-L6-v2's 92 MB take 0.010 s,
6% of loading the model (0.17 s, without the imports), where SHA-256 takes 0.060 s (36%) and
BLAKE2b 0.108 s (``benchmarks/bench_content_hash.py``). It is not a cryptographic hash: it
detects any change (accident, damage, an edited file), which is what a cache key needs; a file
made on purpose to collide could only poison a cache of the person who made it.

Hashing a large file on every run would still cost, so a digest is memoised on disk under
``<cache>/content-digests/``, keyed by the file's (real path, device, inode, size, mtime_ns,
ctime_ns): an unchanged file is read once per machine, and any write to it changes its ctime
(which no user call can set back), so a changed file is always hashed again.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from pathlib import Path

import xxhash

from sts_extras.io.locations import default_cache_dir

__all__ = [
    "CONTENT_HASH",
    "content_digest",
    "content_hash",
    "content_hasher",
    "file_digest",
    "folder_content_digest",
]

#: The name of the content hash, the prefix of content identities (``"xxh3-128:<32 hex>"``).
CONTENT_HASH = "xxh3-128"
_CHUNK = 1 << 20
_HEX = re.compile(r"[0-9a-f]{32}")
_MEMO: dict[tuple[object, ...], str] = {}
_LOCK = threading.Lock()


def content_hasher() -> xxhash.xxh3_128:
    """A new :data:`CONTENT_HASH` object (``update``, ``hexdigest``) for content streamed in."""
    return xxhash.xxh3_128()


def content_hash(data: bytes | str, *, digits: int = 32) -> str:
    """:data:`CONTENT_HASH` of ``data`` as hex digits.

    Parameters
    ----------
    data : bytes or str
        The content; a string is hashed as UTF-8 (lone surrogates kept, so any ``str`` has one).
    digits : int, default 32
        How many hex digits to keep (1 to 32): fewer make a short label (a revision shown in a
        file name), never a cache key.
    """
    if not 1 <= digits <= 32:
        raise ValueError(f"`digits` must be 1 to 32, got {digits}.")
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return xxhash.xxh3_128_hexdigest(data)[:digits]


def _stat_key(path: Path) -> tuple[object, ...]:
    info = os.stat(path)
    return (
        CONTENT_HASH,
        os.path.realpath(path),
        info.st_dev,
        info.st_ino,
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
    )


def _memo_file(memo_dir: Path, key: tuple[object, ...]) -> Path:
    return memo_dir / content_hash(repr(key))


def file_digest(path: str | os.PathLike[str]) -> str:
    """:data:`CONTENT_HASH` (32 hex digits) of every byte of the file ``path``, read in 1 MiB
    chunks each time (not memoised: what checks a cache entry reads it)."""
    digest = content_hasher()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def content_digest(path: str | os.PathLike[str], *, memo_dir: Path | None = None) -> str:
    """:data:`CONTENT_HASH` (32 hex digits) of every byte of the file ``path``, memoised by its
    stat (see above).

    Parameters
    ----------
    path : path
        A file (symlinks are followed).
    memo_dir : pathlib.Path, optional
        Where digests are memoised; ``<cache>/content-digests`` by default. A memo that cannot
        be read or written is ignored (the file is hashed).
    """
    file = Path(path)
    key = _stat_key(file)
    with _LOCK:
        known = _MEMO.get(key)
    if known is not None:
        return known
    memo = _memo_file(memo_dir or default_cache_dir() / "content-digests", key)
    try:
        stored = memo.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        stored = ""
    if _HEX.fullmatch(stored) is None:
        stored = file_digest(file)
        if _stat_key(file) == key:  # not written to while it was read
            _remember(memo, stored)
    with _LOCK:
        _MEMO[key] = stored
    return stored


def _remember(memo: Path, digest: str) -> None:
    # a plain write: a reader takes only a whole 32-digit memo (a torn or concurrent write reads
    # as a shorter string and the file is hashed again), and every writer of a memo writes the
    # same digest; a read-only cache only costs the hash next time
    with contextlib.suppress(OSError):
        memo.parent.mkdir(parents=True, exist_ok=True)
        memo.write_text(digest, encoding="ascii")


def folder_content_digest(folder: str | os.PathLike[str], *, memo_dir: Path | None = None) -> str:
    """:data:`CONTENT_HASH` (hex) over the relative name and :func:`content_digest` of every
    file below ``folder`` (symlinks followed, as in a Hub snapshot); names starting with ``.``
    (``.git``, ``.cache``, sts-extras' manifests) are left out."""
    root = Path(folder)
    digest = content_hasher()
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts) or not path.is_file():
            continue
        name = relative.as_posix().encode("utf-8", "surrogatepass")
        digest.update(len(name).to_bytes(4, "big") + name)
        digest.update(bytes.fromhex(content_digest(path, memo_dir=memo_dir)))
    return digest.hexdigest()
