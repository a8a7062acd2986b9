"""The exception types of sts-extras.

A :class:`UserInputError` means "what you gave is wrong": a bad argument value, a file that does
not exist or cannot be parsed, an unknown name. Every check of user input raises one (the helpers
in :mod:`sts_extras._validation` do), and the command line prints it as one line and exits with
status 2. Any other exception is a bug in sts-extras or a dependency and keeps its traceback.

A :class:`CacheError` means "a cache could not be repaired": an entry failed its check and
rebuilding it did not help (or it could not be removed). Its message names the folder to delete;
the command line prints it as one line with exit status 1.

Each type also derives from the built-in exception Python users expect (``ValueError``,
``TypeError``, ``FileNotFoundError``), so ``except ValueError`` keeps working.
"""

from __future__ import annotations

__all__ = [
    "CacheError",
    "InputWarning",
    "UserFileNotFoundError",
    "UserInputError",
    "UserInputTypeError",
]


class UserInputError(ValueError):
    """An argument, option or file the user gave is invalid (CLI: one line, exit status 2)."""


class UserInputTypeError(UserInputError, TypeError):
    """An argument has the wrong type (e.g. a string where a list of sentences is expected)."""


class UserFileNotFoundError(UserInputError, FileNotFoundError):
    """A file or directory the user named does not exist."""


class CacheError(RuntimeError):
    """A damaged cache entry could not be rebuilt; the message names the folder to delete."""


class InputWarning(UserWarning):
    """Something in a file the user gave was handled by a stated rule (a repeated pair, word or
    vote; a damaged cache entry rebuilt): the command line shows it as one line
    ``sts-extras: warning: ...``, since it is about the input, not a place in the code."""
