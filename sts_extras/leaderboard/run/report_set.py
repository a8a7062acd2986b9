"""The report set of a leaderboard run: staged, then swapped into the output whole.

One run, one report set. Everything a run writes (MTEB's result files, the predictions, the
reports, the figures) goes to a staging folder inside the output directory, with a manifest of
every file's size and digest (:data:`~sts_extras.integrity.MANIFEST_FILE`, named in
``leaderboard.md``). At the end a journal of the swap is written and the files are renamed into
place, the report files and the manifest last; the files the previous manifest listed that the
new set lacks are removed (if unchanged since), and nothing else is touched, so a user's own
files stay. A run interrupted before the swap leaves the previous set as it was (Ctrl-C and
SIGTERM are held during the swap); a run killed during the swap (a few renames) leaves the
journal, and the next run completes that swap before it starts (:func:`recover_output`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator

from sts_extras.errors import UserInputError
from sts_extras.integrity import (
    MANIFEST_FILE,
    Manifest,
    atomic_write_text,
    folder_digests,
)
from sts_extras.io.content import CONTENT_HASH, file_digest
from sts_extras.io.paths import check_file_name, confined_path
from sts_extras.io.records import Record, read_record
from sts_extras.leaderboard.run.records import RelativeName

__all__ = [
    "COMMIT_JOURNAL",
    "STAGING_PREFIX",
    "OutputWriteError",
    "commit",
    "output_errors",
    "recover_output",
    "staging_folder",
]

#: Name prefix of the staging folder a run writes its report set to, inside the output.
STAGING_PREFIX = ".sts-extras-staging-"
#: The record of a swap in progress, in the output directory while the set is being renamed in.
COMMIT_JOURNAL = ".sts-extras-commit.json"
#: The report files, renamed in last (in this order), after MTEB's files and the figures.
_LAST = (
    "leaderboard.csv",
    "leaderboard.tex",
    "leaderboard.html",
    "leaderboard.json",
    "leaderboard.md",
    MANIFEST_FILE,
)


def _staging_name(name: str) -> str:
    check_file_name(name, "the staging folder")
    if not name.startswith(STAGING_PREFIX):
        raise ValueError(f"{name!r} is not a staging folder of sts-extras")
    return name


class CommitJournal(Record):
    """The journal of a swap (:data:`COMMIT_JOURNAL`), as read back from an output folder that
    others may have written to: the staging folder (one plain name inside the output), the files
    to rename in, and the files of the previous set to remove if still as written."""

    staging: Annotated[str, AfterValidator(_staging_name)]
    files: tuple[RelativeName, ...]
    remove: dict[RelativeName, tuple[int, str]]


class OutputWriteError(UserInputError):
    """A file of the report set could not be written (a full disk, a read-only folder): the
    message names the path; the report set already in the output is kept."""


@contextlib.contextmanager
def output_errors(output: Path) -> Iterator[None]:
    """Turn an ``OSError`` raised while a report set is staged and swapped into ``output`` (a
    full disk, a quota, a read-only folder) into one :class:`OutputWriteError` naming the path.

    The staging folder is removed by :func:`staging_folder`, so what ``output`` held before is
    kept: the set is swapped in only once every file is written (a swap cut short by the error
    is completed by the next run, :func:`recover_output`).
    """
    try:
        yield
    except UserInputError:
        raise  # already names what is wrong (a UserFileNotFoundError is an OSError too)
    except OSError as error:
        where = error.filename or output
        reason = error.strerror or type(error).__name__
        raise OutputWriteError(
            f"--output {str(output)!r}: cannot write {str(where)!r} ({reason}); the report set "
            "already there is kept. Free some space (or fix the permissions) and run again."
        ) from None


@contextlib.contextmanager
def _lock(folder: Path, *, wait: bool = True) -> Iterator[bool | None]:
    """Hold an exclusive ``flock`` on ``folder``; yields False if another process holds it
    (``wait=False``). Without ``fcntl`` (Windows) nothing is locked and this yields None."""
    try:
        import fcntl
    except ImportError:
        yield None
        return
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        yield None
        return
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
        except OSError:  # a file system without locks
            yield None
        else:
            yield True
    finally:
        os.close(descriptor)  # releases the lock


@contextlib.contextmanager
def staging_folder(output: Path) -> Iterator[Path]:
    """A new staging folder inside ``output``, locked while the run lives (so another run's
    :func:`recover_output` leaves it alone) and removed at the end, unless a swap journal still
    needs it."""
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=output))
    try:
        with _lock(staging):
            yield staging
    finally:
        if _journal_staging(output) != staging.name:
            shutil.rmtree(staging, ignore_errors=True)


def _read_journal(output: Path) -> CommitJournal | None:
    """The swap journal of ``output``; None when there is none or it is not one of ours."""
    try:
        return read_record(CommitJournal, output / COMMIT_JOURNAL, "the swap journal")
    except (OSError, ValueError):
        return None


def _journal_staging(output: Path) -> str | None:
    journal = _read_journal(output)
    return None if journal is None else journal.staging


def _listed(output: Path) -> dict[str, tuple[int, str]]:
    """``{relative path: (size, digest)}`` of the set the manifest of ``output`` records."""
    try:
        manifest = read_record(Manifest, output / MANIFEST_FILE, "the report set's manifest")
        for name in manifest.files:
            confined_path(output, name, "the report set's manifest")
    except (OSError, ValueError):
        return {}  # no earlier set of ours (or an unreadable record): nothing is removed
    if manifest.hash != CONTENT_HASH:
        return {}  # a set of before 0.4: its digests cannot show a file is still as written
    return dict(manifest.files)


def commit(staging: Path, output: Path) -> None:
    """Rename the staged set into ``output``, the report files and the manifest last, and remove
    the files of the previous set that the new one lacks (if they are still as written)."""
    new = folder_digests(staging)
    for name in new:  # a rename that would fail must fail before the journal
        target = output / name
        folders = [path for path in target.parents if output in path.parents]
        in_the_way = [path for path in folders if path.exists() and not path.is_dir()]
        if target.is_dir() and not target.is_symlink():
            in_the_way.append(target)
        if in_the_way:
            raise UserInputError(
                f"--output {str(output)!r}: {str(in_the_way[0])!r} is in the place of a report "
                "file or folder; move it and run again."
            )
    files = sorted(new, key=lambda name: _LAST.index(name) + 1 if name in _LAST else 0)
    files.append(MANIFEST_FILE)
    remove = {name: entry for name, entry in _listed(output).items() if name not in new}
    for name in new:  # durable before the journal points at them
        with contextlib.suppress(OSError), open(staging / name, "rb") as handle:
            os.fsync(handle.fileno())
    journal = CommitJournal(staging=staging.name, files=tuple(files), remove=remove)
    with _signals_held(), _lock(output):
        atomic_write_text(output / COMMIT_JOURNAL, journal.model_dump_json())
        _finish(output, journal)


def _finish(output: Path, journal: CommitJournal) -> None:
    """Carry out a swap journal; safe to repeat after an interruption. Every name is confined to
    the output (:func:`~sts_extras.io.paths.confined_path`): a journal planted in the folder
    cannot move or remove a file elsewhere."""
    what = f"the swap journal of {output}"
    staging = confined_path(output, journal.staging, what)
    if staging.is_symlink():
        raise UserInputError(f"{what}: {journal.staging!r} is a symbolic link")
    for name in journal.files:
        source = confined_path(staging, name, what)
        target = confined_path(output, name, what)
        if source.is_file() and not source.is_symlink():  # else renamed in before
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
    for name, (size, digest) in journal.remove.items():
        path = confined_path(output, name, what)
        if not path.is_file() or path.is_symlink():
            continue
        if path.stat().st_size == size and file_digest(path) == digest:  # still ours
            path.unlink()
            for folder in path.parents:  # the folders it leaves empty
                if folder == output:
                    break
                with contextlib.suppress(OSError):
                    folder.rmdir()
    (output / COMMIT_JOURNAL).unlink()
    shutil.rmtree(staging, ignore_errors=True)


def recover_output(output: str | os.PathLike) -> None:
    """Tidy what an interrupted run left in ``output``: complete a swap it was killed in (from its
    journal) and remove its staging folder. A run calls this first; it leaves the staging folder
    of a run still going (locked) alone."""
    folder = Path(output)
    if not folder.is_dir():
        return
    with _lock(folder):
        journal_path = folder / COMMIT_JOURNAL
        if journal_path.is_file():
            journal = _read_journal(folder)
            try:
                if journal is None:
                    raise UserInputError("not a journal of sts-extras")
                _finish(folder, journal)
            except UserInputError:  # not a journal we wrote, or it points out: drop it
                journal_path.unlink(missing_ok=True)
        for leftover in folder.glob(STAGING_PREFIX + "*"):
            if leftover.is_dir() and not leftover.is_symlink():
                with _lock(leftover, wait=False) as free:
                    if free:  # its run has ended (None: cannot tell, leave it)
                        shutil.rmtree(leftover, ignore_errors=True)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) and SIGTERM until the block ends, then act on them: a swap is not cut
    in two. Only in the main thread (where Python handles signals)."""
    signums = [signal.SIGINT, signal.SIGTERM]
    previous = {signum: signal.getsignal(signum) for signum in signums}
    if threading.current_thread() is not threading.main_thread() or None in previous.values():
        yield
        return
    received: list[int] = []
    for signum in signums:
        signal.signal(signum, lambda number, frame: received.append(number))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for number in received:
            signal.raise_signal(number)
