"""The command line's checks of the files it is given, and its whole-file writes.

Every check runs before any work: an input must be an existing file, an output a file that can
be written (through a temporary file and a rename, so its folder must be writable), and no two
arguments may name one file. Problems are one :class:`~sts_extras.errors.UserInputError` line
naming the option and the path.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sts_extras.errors import UserFileNotFoundError, UserInputError
from sts_extras.integrity import atomic_write_text

__all__ = ["distinct_files", "input_file", "output_file", "user_file", "write_text"]


@contextmanager
def user_file(
    action: str,
    path: Path,
    name: str,
    errors: tuple[type[Exception], ...] = (OSError, UnicodeError),
) -> Iterator[None]:
    """Turn ``errors`` raised while reading or writing the file given as ``name`` into one line."""
    try:
        yield
    except errors as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        message = f"{name}: cannot {action} {path}: {reason}"
        if isinstance(error, FileNotFoundError):
            raise UserFileNotFoundError(message) from None
        raise UserInputError(message) from None


def input_file(path: Path, name: str) -> Path:
    """``path`` (given as ``name``) if it is an existing file; checked before any work starts."""
    if not path.exists():
        raise UserFileNotFoundError(f"{name}: cannot read {path}: No such file or directory")
    if path.is_dir():
        raise UserInputError(f"{name}: cannot read {path}: Is a directory; give a file")
    return path


def output_file(path: Path, name: str) -> Path:
    """``path`` (given as ``name``) if a file can be written there; checked before any work.

    Files are written whole through a temporary file and a rename, so the folder must be
    writable, and an existing path must be a regular file (never a directory or a device).
    """
    cannot = f"{name}: cannot write {path}:"
    if path.is_dir():
        raise UserInputError(f"{cannot} Is a directory; give a file name")
    if path.exists() and not path.is_file():
        raise UserInputError(f"{cannot} it exists and is not a regular file")
    folder = path.parent
    if not folder.exists():
        raise UserFileNotFoundError(f"{cannot} folder {folder} does not exist")
    if not folder.is_dir():
        raise UserInputError(f"{cannot} {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserInputError(f"{cannot} folder {folder} is not writable")
    return path


def distinct_files(files: dict[str, Path | None]) -> None:
    """Refuse two arguments naming one file (an output would overwrite an input or another)."""
    seen: dict[Path, str] = {}
    for name, path in files.items():
        if path is None:
            continue
        key = path.resolve()
        if key in seen:
            raise UserInputError(f"{name} {path} is the same file as {seen[key]}; give another.")
        seen[key] = name


def write_text(path: Path, name: str, text: str) -> None:
    """Write ``text`` whole (temporary file + rename) to the real file behind ``path``."""
    with user_file("write", path, name):
        atomic_write_text(path.resolve(), text)
