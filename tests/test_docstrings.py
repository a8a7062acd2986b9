"""Every example in every docstring of sts_extras runs and prints what it shows.

One sweep over all modules, so an example cannot fall out of the test suite when code moves
between files.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import warnings

import pytest

import sts_extras

MODULES = sorted(info.name for info in pkgutil.walk_packages(sts_extras.__path__, "sts_extras."))


def test_the_sweep_finds_the_packages():
    for name in ("sts_extras.stats.bootstrap", "sts_extras.vectors.word_vectors"):
        assert name in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # examples may trigger documented warnings
        result = doctest.testmod(
            module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False
        )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
