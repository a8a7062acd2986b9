"""Old names that still work for one minor version, with a ``DeprecationWarning`` naming the new.

Used by the statistics functions whose arguments were renamed to the one vocabulary of
``docs/api-conventions.md`` and by the modules that moved when the package was split into core,
adapters and applications.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

__all__ = [
    "REMOVED_IN",
    "deprecated_property",
    "renamed_keywords",
    "warn_keywords_replaced",
    "warn_moved",
    "warn_renamed",
]

_Function = TypeVar("_Function", bound=Callable[..., Any])

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


def warn_keywords_replaced(
    old: Sequence[str], new: str, *, where: str, stacklevel: int = 3
) -> None:
    """Warn once that the keyword arguments ``old`` of ``where`` are replaced by ``new`` (e.g.
    ``settings=LeaderboardSettings(...)``)."""
    listed = ", ".join(f"{name}=" for name in old)
    warnings.warn(
        f"{where}: the keyword arguments {listed} are deprecated and will be removed in "
        f"sts-extras {REMOVED_IN}; use {new}.",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def renamed_keywords(**renames: str) -> Callable[[_Function], _Function]:
    """Decorator: accept the old keyword names ``old=new`` of a function, warning once each.

    The wrapped function keeps its signature (``inspect.signature`` shows the new names); a call
    with an old keyword gets a ``DeprecationWarning`` naming the new one and runs exactly as the
    call with the new keyword. Giving both the old and the new name is a ``TypeError``, as
    Python's own duplicate-argument error.

    Examples
    --------
    >>> @renamed_keywords(r_jk="r1")
    ... def f(r1):
    ...     return r1
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     f(r_jk=0.3)
    0.3
    """

    def decorate(function: _Function) -> _Function:
        where = f"{function.__name__}()"

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old in [name for name in kwargs if name in renames]:
                new = renames[old]
                if new in kwargs:
                    raise TypeError(
                        f"{where} got both {old!r} (deprecated) and {new!r}; pass only {new!r}."
                    )
                warn_renamed(old, new, where=where, stacklevel=3)
                kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def deprecated_property(old: str, new: str, getter: Callable[[Any], Any]) -> property:
    """A read-only property ``old`` that warns (naming ``new``) and returns ``getter(self)``.

    For result attributes renamed to the one vocabulary, e.g. ``ci_low`` ->
    ``confidence_interval.low``.
    """

    def get(self: Any) -> Any:
        warn_renamed(old, new, where=type(self).__name__, stacklevel=3)
        return getter(self)

    get.__name__ = old
    get.__doc__ = f"Deprecated: use ``{new}`` (removed in sts-extras {REMOVED_IN})."
    return property(get)
