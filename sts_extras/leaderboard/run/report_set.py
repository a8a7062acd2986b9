"""The report set of a leaderboard run: staged, then swapped into the output whole.

One run, one report set. Everything a run writes (MTEB's result files, the predictions, the
reports, the figures, the cells) goes to a staging folder inside the output directory, with a
manifest of every file's size and digest (:data:`~sts_extras.integrity.MANIFEST_FILE`, named in
``leaderboard.md``). The swap is journalled (:func:`commit`): a journal inside the output
(:data:`COMMIT_JOURNAL`) lists every move first, then the files of the previous set that the new
one replaces or lacks (if unchanged since written) are moved aside into the staging folder and the
new files renamed in, the report files and the manifest last. A user's own files are never
touched, and nothing is written outside the output folder.

The guarantee: the output holds the whole previous set or the whole new set. A move that fails
(a read-only sub-folder, a full disk) rolls every move made so far back (:func:`_backward`), and
the error says "the previous report set is restored"; only once every move is made is the journal
removed, so an error after that point says "the new report set is complete". Both directions are
idempotent (a move is made only when its source is there and its destination is not yet), so a
run killed during the swap or its rollback leaves the journal, and the next run (or
:func:`recover_output`) carries it to the end in the direction it records first. Ctrl-C and
SIGTERM are held during the swap.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator

from sts_extras.errors import UserInputError
from sts_extras.integrity import (
    MANIFEST_FILE,
    Manifest,
    atomic_write_text,
    folder_digests,
)
from sts_extras.io.content import CONTENT_HASH, file_digest
from sts_extras.io.paths import (
    UnsafePathError,
    check_file_name,
    check_relative_path,
    confined_path,
)
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
#: The folder of the staging folder that holds the previous set's files during a swap.
_ASIDE = ".sts-extras-previous"
#: The report files, renamed in last (in this order), after MTEB's files and the figures.
_LAST = (
    "leaderboard.csv",
    "leaderboard.tex",
    "leaderboard.html",
    "leaderboard.json",
    "leaderboard.md",
    MANIFEST_FILE,
)
KEPT = "the previous report set is kept"
RESTORED = "the previous report set is restored"
COMPLETE = "the new report set is complete"


def _staging_name(name: str) -> str:
    check_file_name(name, "the staging folder")
    if not name.startswith(STAGING_PREFIX):
        raise ValueError(f"{name!r} is not a staging folder of sts-extras")
    return name


class CommitJournal(Record):
    """The journal of a swap (:data:`COMMIT_JOURNAL`), as read back from an output folder that
    others may have written to.

    ``staging`` is the staging folder (one plain name inside the output); ``files`` the new set,
    in the order its files are renamed in; ``aside`` the files of the output moved into the
    staging folder's :data:`_ASIDE` first (the previous set's files that the new set replaces or
    lacks); ``made`` the folders the swap creates (removed again by a rollback); ``direction``
    where an interrupted swap is carried on.
    """

    staging: Annotated[str, AfterValidator(_staging_name)]
    direction: Literal["forward", "back"]
    files: tuple[RelativeName, ...]
    aside: tuple[RelativeName, ...]
    made: tuple[RelativeName, ...]


class OutputWriteError(UserInputError):
    """A file of the report set could not be written (a full disk, a read-only folder): the
    message names the path and says which report set the output holds."""


def _shown(output: Path, path: str | os.PathLike[str] | None) -> str:
    """``path`` as the user knows it: a file in a staging folder of ``output`` (or set aside in
    one) as the file of ``output`` it stands for, never a temporary path."""
    if path is None:
        return str(output)
    text = os.fsdecode(path)
    pattern = re.escape(str(output)) + "/" + re.escape(STAGING_PREFIX) + r"[^/]*(/" + _ASIDE + ")?"
    return re.sub(pattern, lambda _: str(output), text)


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError):
        return error.strerror or type(error).__name__
    return str(error).rstrip(".")


@contextlib.contextmanager
def output_errors(output: Path) -> Iterator[None]:
    """Turn an ``OSError`` raised while a report set is staged into ``output`` (a full disk, a
    quota, a read-only folder) into one :class:`OutputWriteError` naming the path.

    Such an error comes before the swap (:func:`commit` reports its own), so the previous set is
    kept: the staging folder is removed by :func:`staging_folder`.
    """
    try:
        yield
    except UserInputError:
        raise  # already names what is wrong (a UserFileNotFoundError is an OSError too)
    except OSError as error:
        raise OutputWriteError(
            f"--output {str(output)!r}: cannot write {_shown(output, error.filename)!r} "
            f"({_reason(error)}); {KEPT}. Free some space (or fix the permissions) and run again."
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
    needs it. An error that names a file in it names the file of ``output`` it stands for."""
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=output))
    try:
        with _lock(staging):
            yield staging
    except UserInputError as error:
        error.args = tuple(_shown(output, a) if isinstance(a, str) else a for a in error.args)
        raise
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
    except (OSError, ValueError):
        return {}  # no earlier set of ours (or an unreadable record): nothing is removed
    if manifest.hash != CONTENT_HASH:
        return {}  # a set of before 0.4: its digests cannot show a file is still as written
    listed = {}
    for name, entry in manifest.files.items():
        with contextlib.suppress(UserInputError):  # a name leading out is left alone
            confined_path(output, name, "the report set's manifest")
            listed[name] = entry
    return listed


def _unchanged(path: Path, size: int, digest: str) -> bool:
    """``path`` is a regular file (not a link) of ``size`` bytes and ``digest``."""
    if path.is_symlink() or not path.is_file():
        return False
    return path.stat().st_size == size and file_digest(path) == digest


def _check_places(output: Path, names: list[str]) -> list[str]:
    """The folders of ``output`` that renaming ``names`` in would create (parents first).

    Refused before the journal, so the previous set is kept: a symlink on the way (sts-extras
    writes none; one there was planted), a file where a folder goes, a folder where a file goes.
    A symlink in the place of a file is set aside like a file (a rename does not follow it).
    """
    made: list[str] = []
    for name in names:
        parts = Path(name).parts
        for depth in range(1, len(parts) + 1):
            path = output.joinpath(*parts[:depth])
            last = depth == len(parts)
            wrong = path.is_symlink() and not last
            wrong |= path.exists() and (path.is_dir() if last else not path.is_dir())
            if wrong:
                raise UserInputError(
                    f"--output {str(output)!r}: {str(path)!r} is in the place of a report "
                    f"{'file' if last else 'folder'}; move it and run again ({KEPT})."
                )
            folder = "/".join(parts[:depth])
            if not last and not os.path.lexists(path) and folder not in made:
                made.append(folder)
    return made


def commit(staging: Path, output: Path) -> None:
    """Swap the set staged in ``staging`` into ``output``: the whole new set, or (on an error,
    :class:`OutputWriteError` saying which) the whole previous one.

    A journal listing every move is written first (:class:`CommitJournal`), then
    :func:`_forward` makes the moves; a failed move rolls them back (:func:`_backward`). Files
    of the previous set that the new one lacks are moved aside too if still as written (a file
    changed since is the user's, and stays).
    """
    new = folder_digests(staging)
    files = sorted(new, key=lambda name: _LAST.index(name) + 1 if name in _LAST else 0)
    files.append(MANIFEST_FILE)
    made = _check_places(output, files)  # a move that would fail must fail before the journal
    lacking = [
        name
        for name, (size, digest) in _listed(output).items()
        if name not in new and name != MANIFEST_FILE and _unchanged(output / name, size, digest)
    ]
    aside = lacking + [name for name in files if os.path.lexists(output / name)]
    for name in new:  # durable before the journal points at them
        with contextlib.suppress(OSError), open(staging / name, "rb") as handle:
            os.fsync(handle.fileno())
    journal = CommitJournal(
        staging=staging.name,
        direction="forward",
        files=tuple(files),
        aside=tuple(aside),
        made=tuple(made),
    )
    with _signals_held(), _lock(output):
        try:
            atomic_write_text(output / COMMIT_JOURNAL, journal.model_dump_json())
        except OSError as error:
            raise OutputWriteError(
                f"--output {str(output)!r}: cannot write {str(output / COMMIT_JOURNAL)!r} "
                f"({_reason(error)}); {KEPT}. Free some space (or fix the permissions) and run "
                "again."
            ) from None
        _carry_out(output, journal)


def _move(source: Path, target: Path) -> None:
    """One move of a swap (one rename; its own function, so tests can make it fail)."""
    os.replace(source, target)


def _inside(root: Path, name: str, what: str) -> Path:
    """``root / name``, its folders confined to ``root``
    (:func:`~sts_extras.io.paths.confined_path`); the last part is renamed, never followed, so
    it may be a link (one planted where a report file goes is set aside like a file)."""
    parts = check_relative_path(name, what)
    if len(parts) > 1:
        confined_path(root, "/".join(parts[:-1]), what)
    return root.joinpath(*parts)


def _places(output: Path, journal: CommitJournal) -> tuple[Path, Path]:
    """The staging folder and its aside folder of ``journal``, every name of it checked to stay
    inside them and ``output``: a journal planted in the folder cannot move a file elsewhere."""
    what = f"the swap journal of {output}"
    staging = confined_path(output, journal.staging, what)
    if staging.is_symlink() or not staging.is_dir():
        raise UnsafePathError(f"{what}: {journal.staging!r} is not a staging folder")
    aside = confined_path(staging, _ASIDE, what)
    for name in {*journal.files, *journal.aside, *journal.made}:
        for root in (output, staging, aside):
            _inside(root, name, what)
    return staging, aside


def _order(journal: CommitJournal) -> list[tuple[str, bool, bool]]:
    """``(name, set aside?, renamed in?)`` in the order of the moves: the files the new set
    lacks, then each file of the new set (its previous version set aside just before)."""
    moved_in = set(journal.files)
    aside = set(journal.aside)
    lacking = [(name, True, False) for name in journal.aside if name not in moved_in]
    return lacking + [(name, name in aside, True) for name in journal.files]


def _forward(output: Path, journal: CommitJournal) -> None:
    """Make the moves of ``journal``; those made already are skipped (idempotent)."""
    staging, aside = _places(output, journal)
    for name, set_aside, renamed_in in _order(journal):
        current, kept, new = output / name, aside / name, staging / name
        if set_aside and not os.path.lexists(kept) and os.path.lexists(current):
            kept.parent.mkdir(parents=True, exist_ok=True)
            _move(current, kept)
        if renamed_in and os.path.lexists(new):
            current.parent.mkdir(parents=True, exist_ok=True)
            _move(new, current)


def _backward(output: Path, journal: CommitJournal) -> None:
    """Undo the moves of ``journal`` that were made, last first (idempotent): the output then
    holds exactly the files it held before the swap."""
    staging, aside = _places(output, journal)
    for name, set_aside, renamed_in in reversed(_order(journal)):
        current, kept, new = output / name, aside / name, staging / name
        if renamed_in and not os.path.lexists(new) and os.path.lexists(current):
            _move(current, new)
        if set_aside and os.path.lexists(kept):
            current.parent.mkdir(parents=True, exist_ok=True)
            _move(kept, current)
    for folder in reversed(journal.made):  # the folders the swap made, deepest first
        with contextlib.suppress(OSError):
            (output / folder).rmdir()


def _carry_out(output: Path, journal: CommitJournal, *, recovering: bool = False) -> None:
    """Carry ``journal`` to its end in its direction, rolling back if going forward fails;
    :class:`OutputWriteError` saying which set ``output`` holds when anything fails (but for a
    rollback of an interrupted swap that succeeds when ``recovering``: the previous set is
    whole again, and the run goes on)."""
    path = output / COMMIT_JOURNAL
    where = f"--output {str(output)!r}"
    if journal.direction == "forward":
        try:
            _forward(output, journal)
        except (OSError, UnsafePathError) as error:
            filename = getattr(error, "filename", None)
            if isinstance(error, OSError) and filename and STAGING_PREFIX in str(filename):
                filename = error.filename2 or filename
            failed = f"cannot write {_shown(output, filename)!r} ({_reason(error)})"
            journal = journal.model_copy(update={"direction": "back"})
            # if this fails, the journal still says forward: the next run completes the new set
            with contextlib.suppress(OSError):
                atomic_write_text(path, journal.model_dump_json())
            try:
                _backward(output, journal)
            except (OSError, UnsafePathError) as second:
                next_run = (
                    "restores the previous report set"
                    if _read_journal(output) == journal
                    else "completes the new report set"
                )
                raise OutputWriteError(
                    f"{where}: {failed}, and the swap could not be undone ({_reason(second)}); "
                    f"the next run {next_run} first (from {str(path)!r}). Fix the permissions "
                    "(or free some space) and run again."
                ) from None
            with contextlib.suppress(OSError):
                _finish(output, journal)  # else the next run removes the journal
            if recovering:
                return
            raise OutputWriteError(
                f"{where}: {failed}; {RESTORED}. Free some space (or fix the permissions) and "
                "run again."
            ) from None
    else:
        try:
            _backward(output, journal)
        except (OSError, UnsafePathError) as error:
            raise OutputWriteError(
                f"{where}: an interrupted swap could not be undone ({_reason(error)}); fix the "
                f"permissions of the files {str(path)!r} lists and run again."
            ) from None
    try:
        _finish(output, journal)
    except OSError as error:
        done = COMPLETE if journal.direction == "forward" else RESTORED
        raise OutputWriteError(
            f"{where}: {done}; only the swap journal {str(path)!r} could not be removed "
            f"({_reason(error)}), which the next run does."
        ) from None


def _finish(output: Path, journal: CommitJournal) -> None:
    """End a swap whose moves are all made (or all undone): remove the journal (the moment the
    swap is done), then the staging folder with the set aside, and the folders that removed
    files of the previous set leave empty."""
    (output / COMMIT_JOURNAL).unlink(missing_ok=True)
    shutil.rmtree(output / journal.staging, ignore_errors=True)
    if journal.direction == "back":
        return
    moved_in = set(journal.files)
    for name in journal.aside:
        if name in moved_in:
            continue
        for folder in (output / name).parents:
            if folder == output:
                break
            with contextlib.suppress(OSError):
                folder.rmdir()


def recover_output(output: str | os.PathLike) -> None:
    """Tidy what an interrupted run left in ``output``: carry a swap it was stopped in to its
    end (from its journal, in the direction the journal records) and remove its staging folder.
    A run calls this first; it leaves the staging folder of a run still going (locked) alone.

    Raises
    ------
    OutputWriteError
        The swap can be neither completed nor undone (naming why, and which set is there).
    """
    folder = Path(output)
    if not folder.is_dir():
        return
    with _lock(folder):
        journal_path = folder / COMMIT_JOURNAL
        if journal_path.is_file():
            journal = _read_journal(folder)
            try:
                if journal is None:
                    raise UnsafePathError("not a journal of sts-extras")
                _places(folder, journal)
            except UnsafePathError:  # not a journal we wrote, or it points out: drop it
                journal_path.unlink(missing_ok=True)
            else:
                with _signals_held():
                    _carry_out(folder, journal, recovering=True)
        pending = _journal_staging(folder)
        for leftover in folder.glob(STAGING_PREFIX + "*"):
            if leftover.is_dir() and not leftover.is_symlink() and leftover.name != pending:
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
