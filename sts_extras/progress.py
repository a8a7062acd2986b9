"""Progress bars of long computations (bootstrap, power simulations, campaign simulations).

A bar is shown only when asked (``progress=True``; the command line's ``--progress``), on
stderr, through tqdm (a dependency of sts-extras). It is closed however the loop ends, so a
Ctrl-C (``KeyboardInterrupt``) leaves a clean terminal and reaches the command line, which
prints one line, ``interrupted``, and exits with status 130.

The libraries a leaderboard run calls draw bars of their own (``datasets`` generating a split,
``transformers`` loading weights, huggingface_hub downloading, model2vec distilling).
:func:`library_bars` turns them off for the duration of a command (``--no-progress``) through
each library's own switch, and restores it after.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

__all__ = ["Progress", "library_bars", "library_bars_shown", "progress_bar"]

# module -> its (is on, turn off, turn on) switch of every bar it draws; each library also
# reads an environment variable (HF_HUB_DISABLE_PROGRESS_BARS, HF_DATASETS_DISABLE_PROGRESS_BARS)
# that, when set, wins over these calls (they warn and do nothing)
_SWITCHES: dict[str, tuple[str, str, str]] = {
    "huggingface_hub.utils": (
        "are_progress_bars_disabled",  # the inverse: see _is_on
        "disable_progress_bars",
        "enable_progress_bars",
    ),
    "datasets": ("is_progress_bar_enabled", "disable_progress_bars", "enable_progress_bars"),
    "transformers.utils.logging": (
        "is_progress_bar_enabled",
        "disable_progress_bar",
        "enable_progress_bar",
    ),
}
#: Switches not worth an import of their own: transformers is heavy (a warm re-run never imports
#: it) and takes its initial state from huggingface_hub's switch when it is imported, so inside
#: the block it starts hidden; if it was imported during the block, its switch is turned back on
#: at the end (when huggingface_hub's was on).
_INHERITS_FROM_HUB = ("transformers.utils.logging",)
_shown = [True]  # what library_bars last set (model2vec has no switch: see vectors.distill)


def library_bars_shown() -> bool:
    """Whether the libraries' own bars are to be shown (False inside ``library_bars(False)``)."""
    return _shown[-1]


def _is_on(module: object, name: str) -> bool:
    value = bool(getattr(module, name)())
    return not value if name == "are_progress_bars_disabled" else value


@contextmanager
def library_bars(enabled: bool) -> Iterator[None]:
    """Show (``True``: leave as they are) or hide the bars of the libraries for the block.

    Hiding imports huggingface_hub and ``datasets`` (those installed; MTEB imports both anyway)
    to turn their switches off, and turns back on, at the end, the ones that were on.
    ``transformers`` is never imported for this: one already imported is switched like the
    others, one imported inside the block starts hidden (it copies huggingface_hub's switch) and
    is switched back on at the end. model2vec's distillation bar follows
    :func:`library_bars_shown` (:mod:`sts_extras.vectors.distill`).

    Parameters
    ----------
    enabled : bool
        False for ``--no-progress``.
    """
    restore: list[Callable[[], object]] = []
    deferred: list[str] = []
    hub_was_on = False
    _shown.append(enabled)
    try:
        if not enabled:
            for module_name, (is_on, turn_off, turn_on) in _SWITCHES.items():
                if module_name in _INHERITS_FROM_HUB and module_name not in sys.modules:
                    deferred.append(module_name)
                    continue
                if importlib.util.find_spec(module_name.split(".")[0]) is None:
                    continue  # not installed: draws no bar
                module = importlib.import_module(module_name)
                with warnings.catch_warnings():  # the user's environment variable wins, quietly
                    warnings.simplefilter("ignore")
                    if _is_on(module, is_on):
                        getattr(module, turn_off)()
                        restore.append(getattr(module, turn_on))
                        hub_was_on = hub_was_on or module_name.startswith("huggingface_hub")
        yield
    finally:
        _shown.pop()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for switch_on in reversed(restore):
                switch_on()
            for module_name in deferred:  # imported inside the block: hidden since, turn on
                imported = sys.modules.get(module_name)
                if imported is not None and hub_was_on:
                    getattr(imported, _SWITCHES[module_name][2])()


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
