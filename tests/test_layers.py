"""The package's three layers, read from its import graph.

Every module of ``sts_extras`` (and the ``evaluate`` modules of ``metrics/``, which ``setup.py``
installs as ``sts_extras.metrics``) is placed in a layer by its path:

* **core** (plain numpy/scipy): ``stats``, ``similarity``, ``vectors``, ``annotation``, ``io`` and
  the foundation modules ``_validation``, ``_deprecation``, ``errors``, ``integrity``, ``limits``,
  ``optional``, ``progress``, ``benchmark_tables``;
* **adapters** (one ecosystem each): ``integrations`` and ``metrics``;
* **applications** (commands and reports): ``cli``, ``leaderboard``, ``reproduce``;
* **facades** (the public entry points, re-exports only): ``sts_extras`` itself, ``datasets``,
  ``mteb_tasks``, ``models`` and the deprecated shims ``evaluate_modules``, ``evaluate_columns``.

The rules held here:

1. imports run downward only: core imports core; adapters import core and adapters;
   applications import anything but facades;
2. no module except a facade imports a facade (it imports the module that defines the name);
   facades re-export the library (core and adapters), never an application;
3. a facade, and every package's ``__init__.py``, holds only imports, ``__all__``, a docstring,
   literal tables and a lazy ``__getattr__`` (the deprecated shims: one ``warn_moved`` call too);
4. every module is in a layer: a new top-level module has to be placed in one below;
5. exactly one module touches MTEB internals (its registries, private names, prediction-file
   keys): :mod:`sts_extras.integrations.mteb.internals`.

What counts as an import: every ``import`` and ``from ... import`` statement, at module level or
inside a function, including those under ``if TYPE_CHECKING:`` (they do not run, but an
annotation naming a class of a higher layer is the same dependency; the message marks them
"type-only"). ``from package import name`` where ``package.name`` is a module counts as an import
of that module. The parent packages Python runs on the way (``import a.b.c`` runs ``a`` and
``a.b``) are not counted: the root package is a lazy facade and every other ``__init__.py`` is in
its folder's layer. Imports by name at run time (``importlib.import_module("...")``) are not
import statements and are not read; the one such import that names a higher layer is listed in
:data:`BY_NAME_EXCEPTIONS` and pinned by :func:`test_core_and_adapters_name_no_higher_module`.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "sts_extras"

CORE, ADAPTERS, APPLICATIONS, FACADES = "core", "adapters", "applications", "facades"
# how high a layer sits: a module may import its own layer and the ones below
RANK: dict[str | None, int] = {CORE: 0, ADAPTERS: 1, APPLICATIONS: 2}  # layer_of may be None

FACADE_MODULES = frozenset(
    {
        "sts_extras",
        "sts_extras.datasets",
        "sts_extras.mteb_tasks",
        "sts_extras.models",
        "sts_extras.evaluate_modules",
        "sts_extras.evaluate_columns",
    }
)
DEPRECATED_SHIMS = frozenset({"sts_extras.evaluate_modules", "sts_extras.evaluate_columns"})
# a module or package and everything under it -> its layer
LAYER_PREFIXES = {
    **{
        f"sts_extras.{name}": CORE
        for name in (
            "stats",
            "similarity",
            "vectors",
            "annotation",
            "io",
            "_validation",
            "_deprecation",
            "_version",
            "errors",
            "integrity",
            "limits",
            "optional",
            "progress",
            "benchmark_tables",
        )
    },
    "sts_extras.integrations": ADAPTERS,
    "sts_extras.metrics": ADAPTERS,  # metrics/ in the checkout, sts_extras.metrics installed
    **{f"sts_extras.{name}": APPLICATIONS for name in ("cli", "leaderboard", "reproduce")},
}

# Imports by name (a string, not an import statement) of a higher layer: (module, target, why).
BY_NAME_EXCEPTIONS = frozenset(
    {
        (
            "sts_extras.annotation",
            "sts_extras.cli.annotate_plot",
            "the deprecated `sts_extras.annotation.plot_ballot_scores` (moved to the applications"
            " layer; removed in 0.4) is looked up by name in a lazy __getattr__, on use only",
        ),
    }
)

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


# --- reading the graph ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` at ``path:line``; ``type_only`` under ``if TYPE_CHECKING:``."""

    source: str
    target: str
    path: str
    line: int
    type_only: bool = False

    def __str__(self) -> str:
        kind = " (type-only)" if self.type_only else ""
        return (
            f"{self.path}:{self.line}: {self.source} [{layer_of(self.source)}] -> "
            f"{self.target} [{layer_of(self.target)}]{kind}"
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


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement of ``tree`` (in functions too), and whether it is type-only."""

    def visit(node: ast.AST, type_only: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        child: ast.AST
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, type_only
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                yield from visit(child, True)
            for child in node.orelse:
                yield from visit(child, type_only)
            return
        for child in ast.iter_child_nodes(node):
            yield from visit(child, type_only)

    yield from visit(tree, False)


def imports_of(module: str, path: Path, source: str, modules: Iterable[str]) -> list[Edge]:
    """The edges from ``module`` (``source`` is its text) to modules of the package."""
    known = set(modules)
    is_package = path.name == "__init__.py"
    shown = path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else str(path)
    edges = []
    for node, type_only in _import_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:  # relative: resolved against the module's own package
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join([*package, *([base] if base else [])])
            # `from package import name` imports the module package.name if there is one
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        for target in dict.fromkeys(targets):
            if target == PACKAGE or target.startswith(PACKAGE + "."):
                edges.append(Edge(module, target, shown, node.lineno, type_only))
    return edges


def import_graph(files: dict[str, Path]) -> list[Edge]:
    """Every import edge between the modules of ``files`` (name -> path)."""
    return [
        edge
        for module, path in files.items()
        for edge in imports_of(module, path, path.read_text(encoding="utf-8"), files)
    ]


# --- the rules -----------------------------------------------------------------------------------


def layer_of(module: str) -> str | None:
    """The layer of ``module`` by its name, None if it is in none."""
    if module in FACADE_MODULES:
        return FACADES
    for prefix, layer in LAYER_PREFIXES.items():
        if module == prefix or module.startswith(prefix + "."):
            return layer
    return None


def edge_violation(edge: Edge) -> str | None:
    """Why ``edge`` breaks a layer rule, or None."""
    source, target = layer_of(edge.source), layer_of(edge.target)
    if source is None or target is None:
        return "imports across an unclassified module"
    if source == FACADES:
        return "a facade re-exports an application" if target == APPLICATIONS else None
    if target == FACADES:
        return "imports a public facade instead of the module that defines the name"
    if RANK[target] > RANK[source]:
        return f"{source} imports {target} (upward)"
    return None


def violations(edges: Iterable[Edge]) -> list[str]:
    """One line per edge that breaks a rule: where, what, and why."""
    found = []
    for edge in edges:
        reason = edge_violation(edge)
        if reason is not None:
            found.append(f"{edge}: {reason}")
    return found


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


def _calls(node: ast.stmt, name: str) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == name
    )


# what a lazy __getattr__ may hold: look-ups and imports, no loops, definitions or blocks
_GETATTR_STATEMENTS = (ast.If, ast.Return, ast.Raise, ast.Import, ast.ImportFrom, ast.Assign)


def _is_reexport(node: ast.stmt, *, deprecated_shim: bool) -> bool:
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
            isinstance(child, _GETATTR_STATEMENTS) or _calls(child, "warn_moved")
            for statement in node.body
            if statement not in docstring
            for child in ast.walk(statement)
            if isinstance(child, ast.stmt)
        )
    return deprecated_shim and _calls(node, "warn_moved")


def reexport_violations(source: str, *, deprecated_shim: bool = False) -> list[str]:
    """What in a re-export-only module's ``source`` is not a re-export (line: statement)."""
    body = ast.parse(source).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return [
        f"line {node.lineno}: {ast.unparse(node).splitlines()[0]}"
        for node in body
        if not _is_reexport(node, deprecated_shim=deprecated_shim)
    ]


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


def modules_named_by_string(module: str, source: str, modules: Iterable[str]) -> set[str]:
    """The package's modules that ``source`` names in a string of its own (a whole string that
    is a module name, as ``importlib.import_module`` takes), other than itself."""
    known = set(modules)
    return {
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and node.value in known and node.value != module
    }


# --- the package as it is ------------------------------------------------------------------------

FILES = module_files()
GRAPH = import_graph(FILES)


def test_the_graph_is_read_from_every_module():
    # a few edges known to exist: module level, inside a function, and under TYPE_CHECKING
    assert len(FILES) > 100
    found = {(edge.source, edge.target, edge.type_only) for edge in GRAPH}
    assert ("sts_extras.mteb_tasks", "sts_extras.integrations.mteb.tasks", False) in found
    assert ("sts_extras", "sts_extras.integrations.datasets.loading", True) in found
    assert "sts_extras.metrics.steiger.steiger" in FILES
    lazy = [edge for edge in GRAPH if edge.source == "sts_extras.leaderboard.run.resolve"]
    assert "sts_extras.integrations.mteb.tasks" in {edge.target for edge in lazy}


def test_every_module_is_in_a_layer():
    unplaced = sorted(module for module in FILES if layer_of(module) is None)
    assert not unplaced, (
        "modules in no layer (place them in LAYER_PREFIXES or FACADE_MODULES of "
        f"tests/test_layers.py): {unplaced}"
    )


def test_imports_run_downward_and_only_facades_import_facades():
    found = violations(GRAPH)
    assert not found, "imports that break the layers:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "module",
    sorted(
        FACADE_MODULES | {module for module, path in FILES.items() if path.name == "__init__.py"}
    ),
)
def test_facades_and_package_inits_only_reexport(module):
    source = FILES[module].read_text(encoding="utf-8")
    found = reexport_violations(source, deprecated_shim=module in DEPRECATED_SHIMS)
    assert not found, f"{FILES[module]} holds more than re-exports:\n" + "\n".join(found)


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


def test_core_and_adapters_name_no_higher_module():
    named = {
        (module, target)
        for module, path in FILES.items()
        if layer_of(module) in (CORE, ADAPTERS)
        for target in modules_named_by_string(module, path.read_text(encoding="utf-8"), FILES)
        if layer_of(target) in RANK and RANK[layer_of(target)] > RANK[layer_of(module)]
    }
    allowed = {(module, target) for module, target, _ in BY_NAME_EXCEPTIONS}
    assert named == allowed, f"named by string: {sorted(named)}; listed: {sorted(allowed)}"


# --- the checker itself fails on bad imports -----------------------------------------------------


@pytest.mark.parametrize(
    ("source", "target", "reason"),
    [
        ("sts_extras.stats.power", "sts_extras.integrations.mteb.tasks", "core imports adapters"),
        ("sts_extras.vectors.sif", "sts_extras.cli.dispatch", "core imports applications"),
        ("sts_extras.integrations.datasets.loading", "sts_extras.leaderboard", "adapters imports"),
        ("sts_extras.metrics.steiger.steiger", "sts_extras.reproduce.papers", "adapters imports"),
        ("sts_extras.cli.power", "sts_extras.models", "imports a public facade"),
        ("sts_extras.stats.power", "sts_extras", "imports a public facade"),
        ("sts_extras.mteb_tasks", "sts_extras.cli.leaderboard", "a facade re-exports"),
        ("sts_extras.stats.power", "sts_extras.new_module", "unclassified"),
    ],
)
def test_a_bad_edge_is_a_violation(source, target, reason):
    (message,) = violations([Edge(source, target, "sts_extras/x.py", 7)])
    assert reason in message and "sts_extras/x.py:7" in message


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("sts_extras.stats.power", "sts_extras.stats.dependent"),
        ("sts_extras.vectors.word_vectors", "sts_extras.io.model_sources"),
        ("sts_extras.integrations.mteb.models.dynamax", "sts_extras.similarity.fuzzy"),
        ("sts_extras.integrations.mteb.tasks", "sts_extras.integrations.mteb.internals"),
        ("sts_extras.metrics.steiger.steiger", "sts_extras.integrations.evaluate.modules"),
        ("sts_extras.cli.leaderboard_run", "sts_extras.leaderboard.run.pipeline"),
        ("sts_extras.reproduce.dscs", "sts_extras.integrations.datasets.loading"),
        ("sts_extras.leaderboard.run.resolve", "sts_extras.stats.ranking"),
        ("sts_extras.models", "sts_extras.integrations.mteb.models"),
        ("sts_extras", "sts_extras.datasets"),
    ],
)
def test_a_downward_edge_is_not_a_violation(source, target):
    assert violations([Edge(source, target, "sts_extras/x.py", 1)]) == []


def test_a_bad_import_in_a_package_tree_is_reported_with_file_and_line(tmp_path):
    # a tiny tree with the same layout: an upward import inside a function, a type-only one,
    # a relative one, and an import of a facade
    files = {
        "sts_extras/__init__.py": '"""Root."""\n',
        "sts_extras/models/__init__.py": "from sts_extras.integrations.mteb.models import X\n",
        "sts_extras/stats/__init__.py": "",
        "sts_extras/stats/power.py": "def f():\n    from sts_extras.cli import dispatch\n",
        "sts_extras/stats/typed.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n"
            "    from sts_extras.integrations.mteb.models import X\n"
        ),
        "sts_extras/integrations/__init__.py": "",
        "sts_extras/integrations/mteb/__init__.py": "",
        "sts_extras/integrations/mteb/models.py": "from ...leaderboard import run\nX = 1\n",
        "sts_extras/cli/__init__.py": "",
        "sts_extras/cli/dispatch.py": (
            "import sts_extras.models\nfrom sts_extras.stats import power\n"
        ),
        "sts_extras/leaderboard/__init__.py": "",
        "sts_extras/leaderboard/run.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    found = violations(import_graph(module_files(tmp_path)))
    shown = [line.replace(str(tmp_path) + "/", "") for line in found]
    assert sorted(shown) == sorted(
        [
            "sts_extras/stats/power.py:2: sts_extras.stats.power [core] -> sts_extras.cli.dispatch"
            " [applications]: core imports applications (upward)",
            "sts_extras/stats/typed.py:3: sts_extras.stats.typed [core] ->"
            " sts_extras.integrations.mteb.models [adapters] (type-only): core imports adapters"
            " (upward)",
            "sts_extras/integrations/mteb/models.py:1: sts_extras.integrations.mteb.models"
            " [adapters] -> sts_extras.leaderboard.run [applications]: adapters imports"
            " applications (upward)",
            "sts_extras/cli/dispatch.py:1: sts_extras.cli.dispatch [applications] ->"
            " sts_extras.models [facades]: imports a public facade instead of the module that"
            " defines the name",
        ]
    )


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
        ("def helper():\n    return 1\n", ["line 1: def helper():"]),
        ("class Thing:\n    pass\n", ["line 1: class Thing:"]),
        ("__all__ = list(dict.fromkeys([*_a_all, *_b_all]))\n", []),
        ("TABLE = compute()\n", ["line 1: TABLE = compute()"]),
        ("__all__ = names()\n", ["line 1: __all__ = names()"]),
        ("register()\n", ["line 1: register()"]),
        ("warn_moved('a', 'b')\n", ["line 1: warn_moved('a', 'b')"]),
        (
            "def __getattr__(name):\n    for x in range(3):\n        pass\n",
            ["line 1: def __getattr__(name):"],
        ),
    ],
)
def test_reexport_check(source, expected):
    assert reexport_violations(source) == expected


def test_a_deprecated_shim_may_warn_once():
    shim = "from a import *\nwarn_moved('a', 'b')\n"
    assert reexport_violations(shim, deprecated_shim=True) == []
    assert reexport_violations(shim) == ["line 2: warn_moved('a', 'b')"]


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
