"""Old names that still work for one minor version, with a ``DeprecationWarning`` naming the new.

Used by the statistics functions whose arguments were renamed to the one vocabulary of
``docs/api-conventions.md`` and by the modules that moved when the package was split into core,
adapters and applications.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

__all__ = ["REMOVED_IN", "renamed_arguments", "warn_moved", "warn_renamed"]

#: The release that removes the old names.
REMOVED_IN = "0.4"


def warn_renamed(old: str, new: str, *, where: str, stacklevel: int = 3) -> None:
    """Warn that ``old`` (an argument, attribute or option of ``where``) is now ``new``."""
    warnings.warn(
        f"{where}: {old!r} is deprecated and will be removed in sts-extras {REMOVED_IN}; "
        f"use {new!r}.",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def warn_moved(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn that the module or name ``old`` now lives at ``new``."""
    warnings.warn(
        f"{old} moved to {new}; the old name will be removed in sts-extras {REMOVED_IN}.",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def renamed_arguments(
    given: Mapping[str, Any], renames: Mapping[str, str], *, where: str
) -> dict[str, Any]:
    """Map deprecated keyword arguments in ``given`` to their new names, warning once each.

    Parameters
    ----------
    given : mapping
        The keyword arguments a caller passed under old names (``**deprecated`` of the function).
    renames : mapping
        Old name -> new name.
    where : str
        The function's public name, for the messages.

    Returns
    -------
    dict
        The same values under the new names.

    Raises
    ------
    TypeError
        For a keyword that is neither current nor a known old name, as Python would.
    """
    unknown = sorted(set(given) - set(renames))
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument {unknown[0]!r}")
    out: dict[str, Any] = {}
    for old, value in given.items():
        warn_renamed(old, renames[old], where=f"{where}()", stacklevel=4)
        out[renames[old]] = value
    return out
