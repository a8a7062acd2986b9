"""Griffe extension: the package's reStructuredText docstring markup, as checked Markdown.

Ours because no maintained griffe/mkdocstrings extension on PyPI renders numpydoc's Sphinx roles.

The docstrings are numpydoc with Sphinx roles (``:func:`~sts_extras.stats.scaled_pearson```),
which mkdocstrings does not understand. Once the whole package is loaded, every docstring is
rewritten before it is rendered:

* a role (``:func:``, ``:class:``, ``:meth:``, ``:attr:``, ``:data:``, ``:mod:``, ``:exc:``,
  ``:obj:``) is resolved as Sphinx's Python domain does -- first in the scope of the object that
  carries the docstring (its class, its module, the packages above it), then as a full path -- and
  becomes an autorefs cross-reference to the object's canonical path. A target that resolves to
  nothing, or to a re-export of a name that no longer exists, is logged as a warning, so
  ``mkdocs build --strict`` fails on it. A name outside the package (``numpy.ndarray``,
  ``ValueError``) must be importable or a builtin, and is shown as code;
* the cross-reference is *required* when the target is public (no ``_`` in its path) and sits in a
  module the API reference documents (the ``documented`` option): autorefs then fails the strict
  build if no page renders it. References to internals (private helpers, application modules the
  reference does not cover) are *optional*: linked when some page renders them, code otherwise;
* a pydantic model gets the signature pydantic gives it (one keyword per field), so the
  ``Parameters`` section of its docstring is checked against its fields;
* ``:math:`x``` and ``.. math::`` blocks become arithmatex ``$x$`` / ``$$ ... $$``, ``::``
  literal blocks become fenced code, and numpydoc citations ``[1]_`` / ``.. [1]`` plain ``[1]``.
"""

from __future__ import annotations

import builtins
import html
import importlib.util
import re
from typing import Any

import griffe
from griffe import Alias, AliasResolutionError, CyclicAliasError, Object

_logger = griffe.get_logger("sts_extras.docs.sphinx_roles")

ROLE = re.compile(
    r":(?:py:)?(?P<role>func|class|meth|attr|data|mod|exc|obj|const):"
    r"`(?P<body>[^`]+)`"
)
EXPLICIT_TITLE = re.compile(r"^(?P<title>.+?)\s*<(?P<target>[^<>]+)>$")
MATH_ROLE = re.compile(r":math:`(?P<tex>[^`]+)`")
CITATION = re.compile(r"(\[\d+\])_")
CITATION_TARGET = re.compile(r"^(?P<indent>\s*)\.\. (?P<label>\[\d+\])")
DIRECTIVE = re.compile(r"^(?P<indent>\s*)\.\. (?P<name>[a-z-]+)::\s*(?P<arg>.*)$")


class _External:
    """A name outside the package that exists (importable module, builtin, unloaded alias)."""

    def __init__(self, path: str) -> None:
        self.path = path


class SphinxRoles(griffe.Extension):
    """Rewrite the reST markup of every docstring of a loaded package into checked Markdown.

    Parameters
    ----------
    documented : list of str
        The modules the API reference documents (a prefix covers its submodules); a public
        target in one of them gets a required cross-reference.
    """

    def __init__(self, documented: list[str] | None = None) -> None:
        super().__init__()
        self.documented = list(documented or ())
        self.rendered: set[str] = set()

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Rewrite the docstrings once the package (and so every name it can refer to) is loaded."""
        self.rendered = set()
        for dotted in self.documented:
            if dotted.split(".", 1)[0] != pkg.name:
                continue
            module = pkg if dotted == pkg.name else pkg[dotted[len(pkg.name) + 1 :]]
            self.rendered.add(module.path)
            for name in public_names(module):
                member = module.members[name]
                try:
                    self.rendered.add(member.canonical_path)
                except (AliasResolutionError, CyclicAliasError):
                    continue  # tests/test_docs.py reports it (the API page test)
                if member.is_alias:  # its defining module heads its group on the page
                    self.rendered.add(member.final_target.parent.path)
        for obj in _walk(pkg):
            if obj.is_class and _is_pydantic_model(obj):
                _add_pydantic_init(obj)  # type: ignore[arg-type]
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = self.convert(obj.docstring.value, obj, loader)

    # -- rewriting ---------------------------------------------------------------------------

    def convert(self, text: str, scope: Object, loader: griffe.GriffeLoader) -> str:
        """The docstring ``text`` of ``scope`` with its reST markup as Markdown."""
        text = _blocks(text)
        text = MATH_ROLE.sub(lambda m: f"${m['tex']}$", text)
        text = CITATION.sub(r"\1", text)
        return ROLE.sub(lambda m: self._role(m, scope, loader), text)

    def _role(self, match: re.Match[str], scope: Object, loader: griffe.GriffeLoader) -> str:
        body = match["body"].strip()
        explicit = EXPLICIT_TITLE.match(body)
        if explicit:
            title, target = explicit["title"], explicit["target"].strip()
        else:
            target = re.sub(r"\s+", "", body.lstrip("!"))  # a path may be wrapped over lines
            short = target.startswith("~")
            target = target.lstrip("~")
            title = target.rsplit(".", 1)[-1] if short else target
        target = target.removesuffix("()")
        found = _resolve(target, scope, loader)
        code = f"<code>{html.escape(title)}</code>"
        where = f"{scope.relative_filepath}:{scope.lineno}" if scope.lineno else scope.path
        if found is None:
            _logger.warning(
                f"{where}: {match[0]} in the docstring of {scope.path} refers to nothing "
                "(a moved, renamed or misspelt name?)"
            )
            return code
        if isinstance(found, _External):
            return code
        anchor = self._anchor(found.final_target if found.is_alias else found)
        if anchor is not None:  # on a page: a required link, autorefs checks that it lands
            return f'<autoref identifier="{anchor}">{code}</autoref>'
        # an internal (private, or in a module no page covers): linked if some page shows it
        return f'<autoref identifier="{found.canonical_path}" optional>{code}</autoref>'

    def _anchor(self, obj: Any) -> str | None:
        """The path of the rendered heading that documents ``obj``, or None if no page does.

        An exported name has its own heading; so has a public member of an exported class that
        carries a docstring (mkdocstrings hides the others: ``show_if_no_docstring: false``). An
        undocumented member, such as a dataclass field described in its class's ``Attributes``
        section, is documented under its class's heading.
        """
        if obj.canonical_path in self.rendered:
            return obj.canonical_path
        parent = obj.parent
        # a module's page section shows its docstring only: its other names have no heading
        if obj.is_module or obj.name.startswith("_") or parent is None or parent.is_module:
            return None
        parent_anchor = self._anchor(parent)
        if parent_anchor is None:
            return None
        if obj.docstring is not None and parent_anchor == parent.canonical_path:
            return obj.canonical_path
        return parent_anchor


def public_names(module: griffe.Module) -> list[str]:
    """The names of ``module.__all__``, as griffe reads it statically.

    A computed ``__all__`` (``sts_extras.stats`` joins its submodules' lists) is not readable
    without importing; then the names its ``from ... import *`` lines bring in are the public ones.
    """
    exports = [str(name) for name in (module.exports or [])]
    if exports:
        return exports
    return [
        name
        for name, member in module.members.items()
        if member.is_alias and getattr(member, "wildcard_imported", False)
    ]


PYDANTIC_MODEL = {"pydantic.BaseModel", "pydantic.main.BaseModel"}


def _external_bases(cls: griffe.Class) -> list[str]:
    """The paths of the bases of ``cls`` (and of its bases) outside the loaded packages."""
    out = []
    for base in cls.bases:
        path = base if isinstance(base, str) else base.canonical_path
        try:
            resolved = next((b for b in cls.resolved_bases if b.path == path), None)
        except (AliasResolutionError, CyclicAliasError):
            resolved = None
        if resolved is None:
            out.append(path)
    for base in cls.resolved_bases:
        out += _external_bases(base)  # type: ignore[arg-type]
    return out


def _is_pydantic_model(cls: Any) -> bool:
    try:
        return bool(PYDANTIC_MODEL & set(_external_bases(cls)))
    except (AliasResolutionError, CyclicAliasError):
        return False


def _add_pydantic_init(cls: griffe.Class) -> None:
    """Give a pydantic model the ``__init__`` pydantic makes: one keyword per field.

    griffe reads classes statically and sees only ``BaseModel.__init__(**data)`` (or the model's
    own ``__init__(self, **values)`` that passes them on), so the ``Parameters`` section of a
    model's docstring would name parameters "not in the signature", and the rendered signature
    would not show the fields (griffe does this for dataclasses).
    """
    own = cls.members.get("__init__")
    if own is not None:  # a model's own ``__init__(self, **values)`` passes the fields on
        kinds = [p.kind for p in own.parameters if p.name != "self"]  # type: ignore[union-attr]
        if kinds != [griffe.ParameterKind.var_keyword]:
            return
    fields: dict[str, griffe.Attribute] = {}
    for klass in [*reversed(cls.mro()), cls]:
        for name, member in klass.members.items():
            if (
                not member.is_alias
                and member.is_attribute
                and member.annotation is not None
                and not name.startswith("_")
                and "ClassVar" not in str(member.annotation)
                and not member.labels & {"property", "cached_property"}
            ):
                fields[name] = member  # type: ignore[assignment]
    parameters = griffe.Parameters(
        griffe.Parameter("self", kind=griffe.ParameterKind.positional_or_keyword),
        *[
            griffe.Parameter(
                name,
                annotation=field.annotation,
                kind=griffe.ParameterKind.keyword_only,
                default=field.value,
            )
            for name, field in fields.items()
        ],
    )
    if own is not None:
        own.parameters = parameters  # type: ignore[union-attr]
        return
    init = griffe.Function(
        "__init__", lineno=cls.lineno, endlineno=cls.lineno, parameters=parameters, returns="None"
    )
    cls.set_member("__init__", init)


def _walk(obj: Object) -> Any:
    """The object and every object defined (not merely imported) below it."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _walk(member)  # type: ignore[arg-type]


def _lookup(path: str, loader: griffe.GriffeLoader) -> Object | Alias | _External | None:
    """The object at the dotted ``path``, following re-exports; None when there is none."""
    first, *rest = path.split(".")
    try:
        obj: Any = loader.modules_collection[first]
    except KeyError:
        return None
    for part in rest:
        try:
            members = obj.all_members if obj.is_class else obj.members
        except (AliasResolutionError, CyclicAliasError):
            return _External(path) if _outside(obj, loader) else None
        if part not in members:
            # an attribute inherited from a third-party base (pydantic's ``model_fields_set``)
            if obj.is_class and not obj.is_alias and _external_bases(obj):
                return _External(path)
            return None
        obj = members[part]
    if obj.is_alias:
        try:
            obj.final_target  # noqa: B018 -- resolving is the check
        except (AliasResolutionError, CyclicAliasError):
            return _External(path) if _outside(obj, loader) else None
    return obj


def _outside(alias: Any, loader: griffe.GriffeLoader) -> bool:
    """Whether an unresolvable alias points outside the loaded packages (a third-party name)."""
    top = alias.target_path.split(".", 1)[0]
    return top not in loader.modules_collection.members


def _resolve(target: str, scope: Object, loader: griffe.GriffeLoader) -> Any:
    """Sphinx's lookup: the scope's class, module and parent packages, then the full path."""
    scopes: list[Object] = []
    current: Object | None = scope
    while current is not None:
        if current.is_class or current.is_module:
            scopes.append(current)
        current = current.parent
    for candidate in [f"{s.path}.{target}" for s in scopes] + [target]:
        found = _lookup(candidate, loader)
        if found is not None:
            return found
    top = target.split(".", 1)[0]
    if top in loader.modules_collection.members:
        return None  # inside the package: it must resolve
    if "." not in target and hasattr(builtins, target):
        return _External(target)
    try:
        if importlib.util.find_spec(top) is not None:
            return _External(target)
    except (ImportError, ValueError):
        pass
    return None


def _blocks(text: str) -> str:
    """``.. math::`` blocks, ``::`` literal blocks and ``.. [n]`` citation targets as Markdown."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        directive = DIRECTIVE.match(line)
        literal = line.rstrip().endswith("::") and not directive
        if directive or literal:
            indent = len(line) - len(line.lstrip())
            body, i = _indented_block(lines, i + 1, indent)
            pad = " " * indent
            if directive and directive["name"] == "math":
                # TeX ignores the indentation; Markdown would read a deep indent as code
                out += [
                    "",
                    f"{pad}$$",
                    *[f"{pad}{b.strip()}" for b in body if b.strip()],
                    f"{pad}$$",
                ]
            elif directive:  # another directive: keep its text, as a note
                out.append(f"{pad}{directive['arg']}")
                out += [f"{pad}{b}" for b in body]
            else:
                head = line.rstrip()[:-1]  # "text::" -> "text:", a lone "::" -> ""
                if head.strip():
                    out.append(head)
                out += ["", f"{pad}```"] + [f"{pad}{b}" if b else "" for b in body] + [f"{pad}```"]
            out.append("")
            continue
        citation = CITATION_TARGET.match(line)
        if citation:  # one list item per reference (their lines would run into one paragraph)
            line = f"{citation['indent']}- {citation['label']}{line[citation.end() :]}"
        out.append(line)
        i += 1
    return "\n".join(out)


def _indented_block(lines: list[str], start: int, indent: int) -> tuple[list[str], int]:
    """The lines indented deeper than ``indent`` from ``start`` (dedented), and the next index."""
    end = start
    while end < len(lines) and (
        not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
    ):
        end += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    while start < end and not lines[start].strip():
        start += 1
    block = lines[start:end]
    depth = min((len(b) - len(b.lstrip()) for b in block if b.strip()), default=0)
    return [b[depth:] for b in block], end
