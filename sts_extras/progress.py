"""Progress bars of long computations (bootstrap, power simulations, campaign simulations).

A bar is shown only when asked (``progress=True``; the command line's ``--progress``), on
stderr, through tqdm (a dependency of sts-extras). It is closed however the loop ends, so a
Ctrl-C (``KeyboardInterrupt``) leaves a clean terminal and reaches the command line, which
prints one line, ``interrupted``, and exits with status 130.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

__all__ = ["Progress", "progress_bar"]


class Progress(Protocol):
    """What a loop calls: ``update(done)`` after each piece of work."""

    def update(self, n: float | None = 1) -> bool | None: ...


class _Silent:
    def update(self, n: float | None = 1) -> bool | None:
        return None


@contextmanager
def progress_bar(total: int, description: str, *, unit: str, enabled: bool) -> Iterator[Progress]:
    """A tqdm bar over ``total`` units when ``enabled``, else one that does nothing."""
    if not enabled or total <= 0:
        yield _Silent()
        return
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=description, unit=unit, unit_scale=True, leave=False)
    try:
        yield bar
    finally:
        bar.close()
