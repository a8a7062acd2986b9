"""The package is fully typed, and its arrays say so.

An AST scan of every module of ``sts_extras`` (core, adapters and applications alike; which layer
a module belongs to is ``tests/test_layers.py``'s business) and of the ``evaluate`` modules in
``metrics/``. It holds three rules, the ones ``mypy`` cannot hold by itself:

* every function has a return annotation and an annotation on every parameter (what mypy's
  ``disallow_untyped_defs`` asks; this test also holds it where mypy is not run);
* no parameter whose name says it is an array (``predictions``, ``scores``, ``x``, ...) is
  annotated plain ``Any``: array inputs are ``numpy.typing.ArrayLike``;
* no parameter or return is annotated with a bare ``np.ndarray``: arrays are
  ``NDArray[<dtype>]``, so a reader sees float64 scores, int64 row ids or object labels.

``Any`` stays allowed where a value truly is any object (a parsed JSON value, a forwarded
``**options``, an untyped third-party object).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sts_extras"


#: Parameter names that hold arrays in this code base (the evaluate vocabulary, the statistics'
#: and the similarity functions' arguments).
ARRAY_NAME = re.compile(
    r"^(x|y|z|a|b|mu\d?|values|scores|weights|vectors|predictions\d?|references|"
    r"reference|prediction|pairs|table|matrix|array|sample\w*|data)$"
)


def package_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py")) + sorted((ROOT / "metrics").glob("*/*.py"))


PACKAGE_FILES = package_files()


def _file_id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    arguments = function.args
    found = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    found += [arg for arg in (arguments.vararg, arguments.kwarg) if arg is not None]
    return found


def _class_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a class body, including those under ``if TYPE_CHECKING:``/``else:``."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.If):
            yield from _class_level(statement.body)
            yield from _class_level(statement.orelse)


def _is_method(function: ast.AST, tree: ast.AST) -> bool:
    return any(
        isinstance(node, ast.ClassDef) and function in list(_class_level(node.body))
        for node in ast.walk(tree)
    )


def _is_plain_any(annotation: ast.expr | None) -> bool:
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.strip() in ("Any", "typing.Any")
    return (isinstance(annotation, ast.Name) and annotation.id == "Any") or (
        isinstance(annotation, ast.Attribute) and annotation.attr == "Any"
    )


def _has_bare_ndarray(annotation: ast.expr | None) -> bool:
    """``np.ndarray`` / ``numpy.ndarray`` / ``ndarray`` used without a subscript."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        annotation = ast.parse(annotation.value, mode="eval").body
    subscripted = {
        id(node.value) for node in ast.walk(annotation) if isinstance(node, ast.Subscript)
    }
    for node in ast.walk(annotation):
        named = (isinstance(node, ast.Attribute) and node.attr == "ndarray") or (
            isinstance(node, ast.Name) and node.id == "ndarray"
        )
        if named and id(node) not in subscripted:
            return True
    return False


def _where(path: Path, node: ast.AST) -> str:
    name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    return f"{name}:{getattr(node, 'lineno', 0)}"


def untyped_definitions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for function in _functions(tree):
        parameters = _parameters(function)
        if _is_method(function, tree) and parameters and parameters[0] in function.args.args[:1]:
            parameters = parameters[1:]  # self / cls
        missing = [arg.arg for arg in parameters if arg.annotation is None]
        # as mypy: an __init__ with an annotated parameter needs no "-> None"
        typed_init = function.name == "__init__" and len(missing) < len(parameters)
        if function.returns is None and not typed_init:
            missing.append("return")
        if missing:
            found.append(f"{_where(path, function)} {function.name}(): {', '.join(missing)}")
    return found


def arrays_typed_any(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{_where(path, arg)} {function.name}({arg.arg}: Any)"
        for function in _functions(tree)
        for arg in _parameters(function)
        if ARRAY_NAME.match(arg.arg) and _is_plain_any(arg.annotation)
    ]


def bare_ndarrays(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for function in _functions(tree):
        for arg in _parameters(function):
            if _has_bare_ndarray(arg.annotation):
                found.append(f"{_where(path, arg)} {function.name}({arg.arg})")
        if _has_bare_ndarray(function.returns):
            found.append(f"{_where(path, function)} {function.name}() -> ...")
    return found


def test_the_scan_covers_every_layer_and_the_metrics():
    files = package_files()
    assert all(path.is_file() for path in files)
    names = {path.relative_to(ROOT).as_posix() for path in files}
    assert "sts_extras/similarity/fuzzy.py" in names
    assert "sts_extras/stats/dependent.py" in names
    assert "metrics/steiger/steiger.py" in names
    assert "sts_extras/integrations/mteb/models/dynamax.py" in names
    assert "sts_extras/leaderboard/run/pipeline.py" in names


def test_the_rules_catch_what_they_name(tmp_path):
    source = tmp_path / "sample.py"
    source.write_text(
        "from typing import Any\n"
        "import numpy as np\n"
        "from numpy.typing import ArrayLike, NDArray\n"
        "def untyped(x, y: int):\n    return x\n"
        "class Made:\n    def __init__(self, n: int): ...\n"
        "def loose(scores: Any, options: Any) -> np.ndarray: ...\n"
        "def typed(scores: ArrayLike, *, label: Any = None) -> NDArray[np.float64]: ...\n"
        "class Holder:\n"
        "    def method(self, values: 'Any') -> 'np.ndarray | None': ...\n"
        "    def fine(self) -> None: ...\n",
        encoding="utf-8",
    )
    untyped = untyped_definitions(source)
    assert len(untyped) == 1 and untyped[0].endswith("untyped(): x, return")
    assert [entry.split(" ", 1)[1] for entry in arrays_typed_any(source)] == [
        "loose(scores: Any)",
        "method(values: Any)",
    ]
    assert [entry.split(" ", 1)[1] for entry in bare_ndarrays(source)] == [
        "loose() -> ...",
        "method() -> ...",
    ]


@pytest.mark.parametrize("path", PACKAGE_FILES, ids=_file_id)
def test_every_function_is_fully_annotated(path):
    assert untyped_definitions(path) == []


@pytest.mark.parametrize("path", PACKAGE_FILES, ids=_file_id)
def test_no_array_parameter_is_typed_any(path):
    assert arrays_typed_any(path) == []


@pytest.mark.parametrize("path", PACKAGE_FILES, ids=_file_id)
def test_arrays_say_their_dtype(path):
    assert bare_ndarrays(path) == []
