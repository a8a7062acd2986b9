"""The package's layers and the absence of import cycles, read from its import graph.

The rules are import-linter contracts in ``.importlinter`` at the repository root: the layers
(facades over applications over adapters over core over foundation, and the order inside
``integrations``, ``cli``, ``reproduce`` and ``leaderboard``), the independence of the numerical
engines, what facades and the evaluate modules may import, and no cycle between the siblings of
any package. :func:`test_the_import_contracts_hold` runs ``lint-imports`` over them, so a broken
contract fails the tests (CI runs the same command).

Kept here, each because import-linter cannot express it:

* no cycle at all between modules (:func:`test_no_two_modules_import_each_other`):
  ``acyclic_siblings`` compares siblings only, not a package's ``__init__`` with its children;
* facades and ``__init__.py`` files hold only re-exports: a rule about their statements, not
  their imports;
* exactly one module touches MTEB internals: registries, private names and prediction-file keys
  are attributes and strings, not imports;
* core and adapters name no application module in a string: an ``importlib.import_module`` by
  name is no import statement, so no import graph sees it;
* every ``metrics/<name>/`` folder is a root package of the contracts: in the checkout they are
  namespace packages, each listed by hand in ``.importlinter``.
"""

from __future__ import annotations

import ast
import configparser
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "sts_extras"
CONTRACTS = REPO / ".importlinter"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

#: The public entry points: re-exports only, never imported by the package's own modules.
FACADE_MODULES = frozenset(
    {"sts_extras", "sts_extras.datasets", "sts_extras.mteb_tasks", "sts_extras.models"}
)
#: The applications: nothing in core or adapters names them, not even in a string.
APPLICATIONS = ("sts_extras.cli", "sts_extras.leaderboard", "sts_extras.reproduce")

# MTEB's public surface: what the rest of the package may import from MTEB. MTEB's own task and
# model definitions import the same (abstasks, task_metadata, ModelMeta).
MTEB_PUBLIC = frozenset(
    {
        "mteb",
        "mteb.abstasks.sts",
        "mteb.abstasks.task_metadata",
        "mteb.models",
        "mteb.models.model_meta",
    }
)
# MTEB's registries, by the names they have in MTEB
MTEB_REGISTRY_NAMES = frozenset({"_TASKS_REGISTRY", "TASK_LIST", "MODEL_REGISTRY"})
# the keys of the per-pair prediction files mteb.evaluate(prediction_folder=...) writes
MTEB_PREDICTION_KEYS = frozenset({"similarity_scores", "cosine_scores"})
MTEB_INTERNALS_MODULE = "sts_extras.integrations.mteb.internals"

needs_lint_imports = pytest.mark.skipif(
    not LINT_IMPORTS.exists(), reason="import-linter is not installed (the test extra)"
)


def module_files(root: Path = REPO) -> dict[str, Path]:
    """Module name -> file, for ``sts_extras/**.py`` and ``metrics/**.py`` under ``root``."""
    files = {}
    for folder, prefix in ((root / PACKAGE, (PACKAGE,)), (root / "metrics", (PACKAGE, "metrics"))):
        for path in sorted(folder.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = [*prefix, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join(parts)] = path
    return files


FILES = module_files()


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` over the tree at ``root`` (its own ``.importlinter``), no cache."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )


# --- the contracts -------------------------------------------------------------------------------


@needs_lint_imports
def test_the_import_contracts_hold():
    run = lint_imports(REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "BROKEN" not in run.stdout and ", 0 broken." in run.stdout


def test_every_metric_folder_is_a_root_package_of_the_contracts():
    config = configparser.ConfigParser()
    config.read(CONTRACTS, encoding="utf-8")
    roots = set(config["importlinter"]["root_packages"].split())
    folders = {f"metrics.{path.parent.name}" for path in (REPO / "metrics").glob("*/*.py")}
    assert roots == {PACKAGE} | folders


@needs_lint_imports
def test_the_contracts_catch_an_upward_import_a_cycle_and_an_unplaced_module(tmp_path):
    # a copy of the tree with one of each: the contracts are not vacuous
    for name in (PACKAGE, "metrics"):
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(CONTRACTS, tmp_path / CONTRACTS.name)
    additions = {
        "sts_extras/vectors/sif.py": "def f():\n    from sts_extras.cli import dispatch\n",
        "sts_extras/cli/power_run.py": "from sts_extras.cli import power\n",
        "sts_extras/stats/ranking.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from sts_extras.similarity import kernels\n"
        ),
        "metrics/steiger/steiger.py": "from sts_extras.leaderboard import settings\n",
    }
    for name, text in additions.items():
        with open(tmp_path / name, "a", encoding="utf-8") as handle:
            handle.write("\n" + text)
    (tmp_path / "sts_extras" / "unplaced.py").write_text("X = 1\n", encoding="utf-8")
    run = lint_imports(tmp_path)
    assert run.returncode == 1
    out = re.sub(r"\s+", " ", run.stdout)
    for expected in (
        "sts_extras.vectors.sif -> sts_extras.cli.dispatch",  # core imports an application
        "sts_extras.cli.power_run -> sts_extras.cli.power",  # the cycle of a command's modules
        "No cycles are allowed in sts_extras.cli.",
        "sts_extras.stats.ranking -> sts_extras.similarity.kernels",  # type-only, engines
        "metrics.steiger.steiger -> sts_extras.leaderboard.settings",  # an adapter, upward
        "- sts_extras.unplaced",  # in no layer
    ):
        assert expected in out, expected


# --- no cycle at all -----------------------------------------------------------------------------


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """One chain ``[a, b, ..., a]`` per direct import ``a -> b`` whose ``b`` leads back to ``a``."""
    found = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                found.append([importer, *back])
    return found


def test_no_two_modules_import_each_other():
    # every module, a package's __init__ with its children too (acyclic_siblings does not)
    graph = grimp.build_graph(PACKAGE, cache_dir=None)
    assert len(graph.modules) > 100
    found = import_cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(chain) for chain in found)


def test_a_cycle_through_a_package_init_is_found():
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(module)
    graph.add_import(importer="pkg", imported="pkg.a")
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg")  # back to the package's __init__
    graph.add_import(importer="pkg.c", imported="pkg.a")
    assert import_cycles(graph) == [
        ["pkg", "pkg.a", "pkg.b", "pkg"],
        ["pkg.a", "pkg.b", "pkg", "pkg.a"],
        ["pkg.b", "pkg", "pkg.a", "pkg.b"],
    ]


# --- facades and __init__ files hold only re-exports ---------------------------------------------


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True


# what ``__all__`` may be built with: names, literals and their concatenation, de-duplication
_ALL_NODES = (ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Starred, ast.Name, ast.Load,
              ast.Attribute, ast.BinOp, ast.Add, ast.Call)  # fmt: skip
_ALL_CALLS = frozenset({"list", "tuple", "sorted", "set", "dict.fromkeys"})


def _is_name_list(node: ast.expr) -> bool:
    """Whether ``node`` only combines names and literals (``list(dict.fromkeys([*_a, *_b]))``)."""
    return all(
        isinstance(child, _ALL_NODES)
        and (not isinstance(child, ast.Call) or ast.unparse(child.func) in _ALL_CALLS)
        and (not isinstance(child, ast.Attribute) or ast.unparse(child) == "dict.fromkeys")
        for child in ast.walk(node)
    )


# what a lazy __getattr__ may hold: look-ups and imports, no loops, definitions or blocks
_GETATTR_STATEMENTS = (ast.If, ast.Return, ast.Raise, ast.Import, ast.ImportFrom, ast.Assign)


def _is_reexport(node: ast.stmt) -> bool:
    """Whether the top-level statement ``node`` belongs in a re-export-only module."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return True
    if isinstance(node, ast.If) and _is_type_checking(node.test):
        return not node.orelse and all(
            isinstance(child, ast.Import | ast.ImportFrom) for child in node.body
        )
    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = [target.id for target in targets if isinstance(target, ast.Name)]
        if names == ["__all__"]:
            return _is_name_list(node.value)
        # __version__, and private literal tables for the lazy __getattr__
        return (
            len(names) == len(targets)
            and all(name == "__version__" or name.startswith("_") for name in names)
            and _is_literal(node.value)
        )
    if isinstance(node, ast.FunctionDef) and node.name in ("__getattr__", "__dir__"):
        docstring = node.body[:1] if ast.get_docstring(node) else []
        return all(
            isinstance(child, _GETATTR_STATEMENTS)
            for statement in node.body
            if statement not in docstring
            for child in ast.walk(statement)
            if isinstance(child, ast.stmt)
        )
    return False


def reexport_violations(source: str) -> list[str]:
    """What in a re-export-only module's ``source`` is not a re-export (line: statement)."""
    body = ast.parse(source).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return [
        f"line {node.lineno}: {ast.unparse(node).splitlines()[0]}"
        for node in body
        if not _is_reexport(node)
    ]


@pytest.mark.parametrize(
    "module",
    sorted(
        FACADE_MODULES | {module for module, path in FILES.items() if path.name == "__init__.py"}
    ),
)
def test_facades_and_package_inits_only_reexport(module):
    found = reexport_violations(FILES[module].read_text(encoding="utf-8"))
    assert not found, f"{FILES[module]} holds more than re-exports:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('"""Doc."""\nfrom a import b\n__all__ = ["b"]\n', []),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from a import b\n"
            "_LAZY = {'b': 'a'}\n__version__ = '1'\n"
            "def __getattr__(name):\n    '''Lazy.'''\n    if name in _LAZY:\n"
            "        import importlib\n        return getattr(importlib.import_module('a'), name)\n"
            "    raise AttributeError(name)\n",
            [],
        ),
        ("__all__ = list(dict.fromkeys([*_a_all, *_b_all]))\n", []),
        ("def helper():\n    return 1\n", ["line 1: def helper():"]),
        ("class Thing:\n    pass\n", ["line 1: class Thing:"]),
        ("TABLE = compute()\n", ["line 1: TABLE = compute()"]),
        ("__all__ = names()\n", ["line 1: __all__ = names()"]),
        ("register()\n", ["line 1: register()"]),
        (
            "def __getattr__(name):\n    for x in range(3):\n        pass\n",
            ["line 1: def __getattr__(name):"],
        ),
    ],
)
def test_reexport_check(source, expected):
    assert reexport_violations(source) == expected


# --- exactly one module touches MTEB internals ---------------------------------------------------


def mteb_internals_touched(source: str) -> list[str]:
    """How ``source`` reaches into MTEB beyond its public surface (one line per place)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "mteb" and alias.name not in MTEB_PUBLIC:
                    found.append(f"line {node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "mteb":
            if node.module not in MTEB_PUBLIC:
                found.append(f"line {node.lineno}: from {node.module} import ...")
            for alias in node.names:
                if alias.name.startswith("_") or alias.name in MTEB_REGISTRY_NAMES:
                    found.append(f"line {node.lineno}: imports {alias.name} from {node.module}")
        elif isinstance(node, ast.Attribute) and node.attr in MTEB_REGISTRY_NAMES:
            found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Name) and node.id in MTEB_REGISTRY_NAMES:
            found.append(f"line {node.lineno}: {node.id}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in MTEB_PREDICTION_KEYS:
                found.append(f"line {node.lineno}: the prediction-file key {node.value!r}")
            elif re.fullmatch(r"mteb(\.\w+)+", node.value) and node.value not in MTEB_PUBLIC:
                found.append(f"line {node.lineno}: the MTEB module {node.value!r} by name")
    return found


def test_exactly_one_module_touches_mteb_internals():
    touching = {
        module: found
        for module, path in FILES.items()
        if (found := mteb_internals_touched(path.read_text(encoding="utf-8")))
    }
    assert set(touching) == {MTEB_INTERNALS_MODULE}, (
        "\n".join(
            f"{FILES[module]}: {'; '.join(places)}"
            for module, places in touching.items()
            if module != MTEB_INTERNALS_MODULE
        )
        or "the internals module no longer touches MTEB internals: update this test"
    )


@pytest.mark.parametrize(
    ("source", "touches"),
    [
        ("import mteb\nmteb.evaluate(model, tasks)\n", False),
        ("from mteb.abstasks.sts import AbsTaskSTS\n", False),
        ("from mteb.models import ModelMeta\n", False),
        ('"""Reads ``similarity_scores`` of a prediction file, in words only."""\n', False),
        ("from mteb.models.model_implementations import MODEL_REGISTRY\n", True),
        ("import mteb\nmteb.get_tasks._TASKS_REGISTRY['X'] = 1\n", True),
        ("from mteb.results.task_result import _read_run_settings_from_file\n", True),
        ("import importlib\nimportlib.import_module('mteb.get_tasks')\n", True),
        ("scores = prediction['similarity_scores']\n", True),
    ],
)
def test_mteb_internals_check(source, touches):
    assert bool(mteb_internals_touched(source)) is touches


# --- imports by name -----------------------------------------------------------------------------


def modules_named_by_string(module: str, source: str, modules: set[str]) -> set[str]:
    """The package's modules that ``source`` names in a string of its own (a whole string that
    is a module name, as ``importlib.import_module`` takes), other than itself."""
    return {
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and node.value in modules and node.value != module
    }


def _is_application(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in APPLICATIONS)


def test_core_and_adapters_name_no_application_module():
    named = {
        (module, target)
        for module, path in FILES.items()
        if module not in FACADE_MODULES and not _is_application(module)
        for target in modules_named_by_string(module, path.read_text(encoding="utf-8"), set(FILES))
        if _is_application(target)
    }
    assert not named, f"named by string: {sorted(named)}"


def test_strings_naming_modules_are_found():
    source = textwrap.dedent(
        """
        '''Mentions sts_extras.cli.dispatch in prose, which is not a name on its own.'''
        NEW = "sts_extras.cli.annotate_plot"
        """
    )
    modules = {"sts_extras.cli.annotate_plot", "sts_extras.cli.dispatch", "sts_extras.annotation"}
    assert modules_named_by_string("sts_extras.annotation", source, modules) == {
        "sts_extras.cli.annotate_plot"
    }
