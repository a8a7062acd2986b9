"""The package finds its own files wherever a module sits in it.

Modules moved between subpackages (core, adapters, applications); a path computed from a module's
own ``__file__`` then silently points elsewhere: the evaluation store's code stamp covered only
``leaderboard/``, and a checkout lost its ``metrics/``. One function knows where the package is
(:func:`sts_extras.io.locations.package_root`); these tests hold it and what relies on it.
"""

from __future__ import annotations

import ast
from importlib import resources
from pathlib import Path

import pytest

import sts_extras
from sts_extras.integrations.evaluate import modules
from sts_extras.io.locations import package_root
from sts_extras.leaderboard.run.evaluation_store import NOT_EVALUATION_CODE
from sts_extras.leaderboard.sources import code_stamp, stamped_files

PACKAGE = Path(sts_extras.__file__).resolve().parent


def test_package_root_is_the_folder_of_the_package():
    assert package_root() == PACKAGE


def test_only_the_locations_module_derives_paths_from_its_own_file():
    users = []
    for file in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(file.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.Name) and node.id == "__file__" for node in ast.walk(tree)):
            users.append(file.relative_to(PACKAGE).as_posix())
    assert users == ["io/locations.py"], users


def test_the_code_stamp_reads_the_code_that_shapes_an_evaluation():
    stamped = stamped_files(NOT_EVALUATION_CODE)
    for name in (
        "similarity/fuzzy.py",
        "vectors/word_vectors.py",
        "integrations/mteb/models/dynamax.py",
        "integrations/mteb/internals.py",
        "leaderboard/run/evaluation.py",
    ):
        assert name in stamped
    assert not any(name.startswith(NOT_EVALUATION_CODE) for name in stamped)
    assert set(stamped_files()) >= set(stamped)
    assert code_stamp() != code_stamp(NOT_EVALUATION_CODE)


@pytest.mark.parametrize("prefix", NOT_EVALUATION_CODE)
def test_every_left_out_path_names_existing_code(prefix):
    """A stale entry (a module that moved) would leave its new place stamped: say so instead."""
    assert any(name.startswith(prefix) for name in stamped_files()), prefix


def test_a_checkout_finds_the_repository_metrics_folder(monkeypatch):
    """Run from a checkout, ``sts_extras.metrics`` does not exist (the build maps ``metrics/``)."""
    repository_metrics = PACKAGE.parent / "metrics"
    if not (repository_metrics / "__init__.py").is_file():
        pytest.skip("not a source checkout")

    def no_metrics_package(name: str) -> object:
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(resources, "files", no_metrics_package)
    assert modules._modules_root() == repository_metrics
