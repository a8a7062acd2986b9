"""The stamp of the sts-extras source files: what a stored evaluation or a kept figure was made by.

The evaluation store (:mod:`sts_extras.leaderboard.run.evaluation_store`) and the figure cache
(:mod:`sts_extras.leaderboard.reports.figure_cache`) both key their files by it, so an edit of the
code that made them makes them stale. It sits here, below both, so that neither imports the other.
"""

from __future__ import annotations

from functools import cache

from sts_extras.io.content import content_hash, content_hasher
from sts_extras.io.locations import package_root

__all__ = ["code_stamp", "stamped_files"]


@cache
def code_stamp(skip: tuple[str, ...] = ()) -> str:
    """Names the sts-extras source files by their relative path and full content: 32 hex digits
    of :data:`~sts_extras.io.content.CONTENT_HASH` (XXH3-128).

    Never by modification time: a fresh install of the same code keeps its stored evaluations,
    and an edit that keeps the time (a checkout, a copy with ``cp -p``) still changes the stamp.
    Reading the sources (about 1 MB) costs milliseconds, once per process.

    Parameters
    ----------
    skip : tuple of str
        Leave out the files whose path in the package starts with one of these.
    """
    package = package_root()
    digest = content_hasher()
    for name in stamped_files(skip):
        content = bytes.fromhex(content_hash((package / name).read_bytes()))
        encoded = name.encode("utf-8", "surrogatepass")
        digest.update(len(encoded).to_bytes(4, "big") + encoded + content)
    return digest.hexdigest()


def stamped_files(skip: tuple[str, ...] = ()) -> list[str]:
    """The source files :func:`code_stamp` reads: every ``.py`` of the package (paths relative to
    it, sorted) except those starting with one of ``skip``."""
    package = package_root()
    names = (file.relative_to(package).as_posix() for file in package.rglob("*.py"))
    return sorted(name for name in names if not name.startswith(skip))
