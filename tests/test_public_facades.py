"""The public entry points: the names users import still resolve, to the very objects of the
modules that define them, and each name has one place (no moved-module shims).

``sts_extras``, ``sts_extras.datasets``, ``sts_extras.mteb_tasks`` and ``sts_extras.models`` are
facades (re-exports only, see ``tests/test_layers.py``); the code lives in the adapters of
``sts_extras.integrations``. A facade that made its own copy of a class (a subclass, a wrapper)
would pass an ``isinstance`` test and still split MTEB's registry or ``datasets``' cache in two,
hence ``is`` below. Import-time behaviour (registration with MTEB) is checked in a fresh
process, so that an earlier import in this session cannot hide it.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import sts_extras

# facade -> the adapter package it re-exports
FACADES = {
    "sts_extras.datasets": "sts_extras.integrations.datasets",
    "sts_extras.mteb_tasks": "sts_extras.integrations.mteb.tasks",
    "sts_extras.models": "sts_extras.integrations.mteb.models",
}
NEEDS_MTEB = {"sts_extras.mteb_tasks", "sts_extras.models"}

# (public name, module that defines it)
DEFINED_IN = [
    ("sts_extras.datasets.DSCS", "sts_extras.integrations.datasets.builders"),
    ("sts_extras.datasets.STSS131", "sts_extras.integrations.datasets.builders"),
    ("sts_extras.datasets.BUILDERS", "sts_extras.integrations.datasets.builders"),
    ("sts_extras.datasets.load_dataset", "sts_extras.integrations.datasets.loading"),
    ("sts_extras.datasets.dataset_path", "sts_extras.integrations.datasets.loading"),
    ("sts_extras.datasets.read_rows", "sts_extras.benchmark_tables"),
    ("sts_extras.mteb_tasks.DSCS", "sts_extras.integrations.mteb.tasks"),
    ("sts_extras.mteb_tasks.STSS131", "sts_extras.integrations.mteb.tasks"),
    ("sts_extras.mteb_tasks.from_csv", "sts_extras.integrations.mteb.tasks"),
    ("sts_extras.mteb_tasks.register", "sts_extras.integrations.mteb.tasks"),
    ("sts_extras.models.DynaMax", "sts_extras.integrations.mteb.models.dynamax"),
    ("sts_extras.models.MaxPool", "sts_extras.integrations.mteb.models.pooled"),
    ("sts_extras.models.MeanPooled", "sts_extras.integrations.mteb.models.pooled"),
    ("sts_extras.models.register", "sts_extras.integrations.mteb.models.catalog"),
    ("sts_extras.load_dataset", "sts_extras.integrations.datasets.loading"),
    ("sts_extras.dataset_path", "sts_extras.integrations.datasets.loading"),
    ("sts_extras.metric_path", "sts_extras.integrations.evaluate.modules"),
    ("sts_extras.load_metric", "sts_extras.integrations.evaluate.modules"),
]


def _resolve(dotted: str) -> object:
    module, name = dotted.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize(("public", "home"), DEFINED_IN, ids=[p for p, _ in DEFINED_IN])
def test_public_name_is_the_object_its_module_defines(public, home):
    if public.split(".")[:2] in (["sts_extras", "mteb_tasks"], ["sts_extras", "models"]):
        pytest.importorskip("mteb")
    name = public.rsplit(".", 1)[1]
    real = getattr(importlib.import_module(home), name)
    assert _resolve(public) is real
    if isinstance(real, type) or callable(real):
        assert real.__module__ == home  # defined there, not re-exported from a third place


@pytest.mark.parametrize("facade", sorted(FACADES))
def test_facade_reexports_the_public_api_of_its_adapter(facade):
    if facade in NEEDS_MTEB:
        pytest.importorskip("mteb")
    public, adapter = importlib.import_module(facade), importlib.import_module(FACADES[facade])
    assert set(adapter.__all__) <= set(public.__all__)
    for name in adapter.__all__:
        assert getattr(public, name) is getattr(adapter, name), name


FACADE_NAMES = ["sts_extras", *sorted(FACADES)]


@pytest.mark.parametrize("facade", FACADE_NAMES)
def test_every_name_a_facade_lists_is_defined_elsewhere(facade):
    # each class or function of a facade's __all__ is the object of the module that defines it,
    # and that module is not a facade (facades define nothing)
    if facade in NEEDS_MTEB:
        pytest.importorskip("mteb")
    public = importlib.import_module(facade)
    for name in public.__all__:
        value = getattr(public, name)
        home = getattr(value, "__module__", None)
        if not (isinstance(value, type) or callable(value)) or home is None:
            continue  # a constant: no home module to compare with
        assert home not in FACADE_NAMES and home.startswith("sts_extras."), (name, home)
        assert getattr(importlib.import_module(home), name) is value, (name, home)


def test_every_name_of_the_root_package_resolves():
    for name in sts_extras.__all__:
        assert getattr(sts_extras, name) is not None, name
    # the lazy submodules are the modules themselves
    assert sts_extras.stats is importlib.import_module("sts_extras.stats")
    assert sts_extras.datasets is importlib.import_module("sts_extras.datasets")
    with pytest.raises(AttributeError, match="no_such_name"):
        sts_extras.no_such_name  # noqa: B018


def test_datasets_facade_refuses_unknown_names():
    import sts_extras.datasets

    with pytest.raises(AttributeError, match="NoSuchBuilder"):
        sts_extras.datasets.NoSuchBuilder  # noqa: B018


def test_the_public_loaders_work_through_the_facades():
    # not only the same objects: the calls users make, offline
    assert Path(sts_extras.metric_path("steiger")).is_dir()
    assert Path(sts_extras.dataset_path("dscs")).is_dir()
    datasets_facade = importlib.import_module("sts_extras.datasets")
    assert datasets_facade.DSCS.__name__ == "DSCS"
    assert len(datasets_facade.read_rows("dscs")) == 50


# --- in a fresh process ----------------------------------------------------------------------


def _run_script(tmp_path: Path, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` as the file ``user.py`` in ``tmp_path`` (outside the checkout, offline, no
    warning filters from the environment), with a process timeout."""
    (tmp_path / "user.py").write_text(script, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, *args, "user.py"],
        cwd=tmp_path,
        env={
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": str(tmp_path / "hf"),
            "HOME": str(tmp_path),
            "MPLBACKEND": "Agg",
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def _last_json(result: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(result.stdout.strip().splitlines()[-1])


IMPORTING_REGISTERS = {
    "mteb_tasks": (
        "import sts_extras.mteb_tasks as ours, mteb\n"
        "out = [type(mteb.get_task('DSCS')) is ours.DSCS,\n"
        "       type(mteb.get_task('STSS131')) is ours.STSS131]\n"
    ),
    "models": (
        "import sts_extras.models, mteb\n"
        "out = [mteb.get_model_meta('sts-extras/DynaMax-Jaccard').name\n"
        "       == 'sts-extras/DynaMax-Jaccard', 'sts-extras/avg-cos' in\n"
        "       {meta.name for meta in mteb.get_model_metas()}]\n"
    ),
}


@pytest.mark.parametrize("facade", sorted(IMPORTING_REGISTERS))
def test_importing_the_facade_registers_with_mteb(facade, tmp_path):
    pytest.importorskip("mteb")
    script = IMPORTING_REGISTERS[facade] + "import json; print(json.dumps(out))\n"
    assert _last_json(_run_script(tmp_path, script)) == [True, True]


def test_without_importing_the_facade_mteb_does_not_know_our_tasks(tmp_path):
    # the control for the test above: registration comes from the import, not from MTEB itself
    pytest.importorskip("mteb")
    script = (
        "import json, mteb\n"
        "try:\n    mteb.get_task('DSCS'); found = True\n"
        "except (KeyError, ValueError):\n    found = False\n"
        "print(json.dumps(found))\n"
    )
    assert _last_json(_run_script(tmp_path, script)) is False


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("sts_extras", "evaluate_modules"),
        ("sts_extras", "evaluate_columns"),
        ("sts_extras.annotation", "plot_ballot_scores"),
    ],
)
def test_moved_names_live_in_one_place_only(module, name):
    # one name per thing: the old module paths and the old place of plot_ballot_scores are gone
    with pytest.raises((ModuleNotFoundError, AttributeError)):
        getattr(importlib.import_module(module), name)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"{module}.{name}")
