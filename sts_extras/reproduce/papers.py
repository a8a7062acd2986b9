"""Which papers ``sts-extras reproduce`` knows, and the module that recomputes each one's numbers.

Every paper module of this package exposes ``PAPER`` (its key below), ``CITATION`` (one line:
authors, year, title, venue) and ``rows(*, progress=False) -> list[ReproducedRow]``. The modules
are imported only when their paper is asked for: ``scaled-pearson`` needs nothing beyond scipy,
``dscs`` loads word vectors and textstat, ``lombardo`` simulates vote campaigns.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from sts_extras._validation import check_choice

__all__ = ["ALL", "PAPERS", "paper_keys", "paper_module"]

#: paper key -> the module that recomputes its numbers (seed papers in the order of the README)
PAPERS: dict[str, str] = {
    "dscs": "sts_extras.reproduce.dscs",
    "stss131": "sts_extras.reproduce.stss131",
    "scaled-pearson": "sts_extras.reproduce.scaled_pearson",
    "lombardo": "sts_extras.reproduce.lombardo",
    "dynamax": "sts_extras.reproduce.dynamax",
}
#: The name that selects every paper.
ALL = "all"


def paper_keys(paper: str = ALL) -> tuple[str, ...]:
    """The keys ``paper`` selects: every key of :data:`PAPERS` for ``"all"``, else ``(paper,)``.

    Raises
    ------
    sts_extras.errors.UserInputError
        ``paper`` is neither a key of :data:`PAPERS` nor ``"all"``.

    Examples
    --------
    >>> paper_keys("stss131")
    ('stss131',)
    >>> paper_keys()
    ('dscs', 'stss131', 'scaled-pearson', 'lombardo', 'dynamax')
    """
    check_choice(paper, "paper", (*PAPERS, ALL))
    return tuple(PAPERS) if paper == ALL else (paper,)


def paper_module(key: str) -> ModuleType:
    """The module of paper ``key`` (imported now), checked to expose the paper interface."""
    check_choice(key, "paper", tuple(PAPERS))
    module = importlib.import_module(PAPERS[key])
    missing = [name for name in ("PAPER", "CITATION", "rows") if not hasattr(module, name)]
    if missing or key != module.PAPER:  # a bug in the package, not a user error
        raise RuntimeError(
            f"{PAPERS[key]} does not implement paper {key!r} (missing {missing}, "
            f"PAPER = {getattr(module, 'PAPER', None)!r})."
        )
    return module
