"""The API reference site (mkdocs.yml, docs/hooks/): what it covers, what its strict build checks.

No site is built here (CI runs ``mkdocs build --strict`` after the tests); these tests read the
package statically with griffe, as the build does, and need the ``docs`` extra
(``pip install ".[docs]"``): without it they skip.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
griffe = pytest.importorskip("griffe", reason="the docs extra: pip install '.[docs]'")
yaml: Any = pytest.importorskip("yaml")  # Any: its classes are subclassed below


def _load(name: str) -> Any:
    """A module of docs/hooks/, by path (it is not a package)."""
    spec = importlib.util.spec_from_file_location(
        f"_docs_{name}", ROOT / "docs" / "hooks" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _api_modules() -> list[str]:
    # mkdocs.yml holds a !!python tag (the toc slugifier): read past it
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda *_: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    return list(config["extra"]["api_reference"])


@pytest.fixture(scope="module")
def package() -> Any:
    return griffe.load("sts_extras", search_paths=[str(ROOT)], docstring_parser="numpy")


@pytest.mark.parametrize("dotted", _api_modules())
def test_api_page_lists_every_name_of_all(dotted: str, package: Any) -> None:
    """Each API page renders exactly the module's ``__all__`` (as Python computes it).

    The page generator reads ``__all__`` statically; a computed ``__all__`` it cannot read, or a
    name that does not resolve, would drop names from the reference without a warning.
    """
    roles = _load("sphinx_roles")
    module = package if dotted == "sts_extras" else package[dotted.removeprefix("sts_extras.")]
    on_page = roles.public_names(module)
    assert sorted(on_page) == sorted(importlib.import_module(dotted).__all__)
    for name in on_page:
        member = module.members[name]
        if member.is_alias:
            member.final_target  # noqa: B018 -- raises if the re-export does not resolve


def test_every_public_module_has_a_page() -> None:
    """The public facades and the core packages each have an API page."""
    import sts_extras

    listed = set(_api_modules())
    lazy = {f"sts_extras.{name}" for name in sts_extras._LAZY_SUBMODULES}
    not_public_api = {
        "sts_extras.benchmark_tables",  # tables behind sts_extras.datasets
        "sts_extras.cli",  # the command line: the README documents it
        "sts_extras.integrations",  # adapters, re-exported by the facades
    }
    assert lazy - not_public_api <= listed
    assert "sts_extras.errors" in listed


def _roles_on(source: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> str:
    """The converted docstring of ``pkg.mod.f`` in a throwaway package holding ``source``."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('__all__ = ["f", "g"]\nfrom pkg.mod import f, g\n')
    (pkg / "mod.py").write_text(textwrap.dedent(source))
    roles = _load("sphinx_roles")
    extension = roles.SphinxRoles(documented=["pkg"])
    with caplog.at_level(logging.WARNING):
        loaded = griffe.load(
            "pkg", search_paths=[str(tmp_path)], extensions=griffe.load_extensions(extension)
        )
    return loaded["mod.f"].docstring.value


def test_a_reference_to_a_missing_name_is_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A moved or misspelt target is logged as a warning, so the strict build fails on it."""
    _roles_on(
        '''
        def f():
            """See :func:`~pkg.mod.gone` and :class:`NoSuchClass`."""

        def g():
            """A documented function."""
        ''',
        tmp_path,
        caplog,
    )
    warned = " ".join(r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)
    assert "pkg.mod.gone" in warned and "NoSuchClass" in warned


def test_references_become_checked_links(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A rendered target gets a required link; a third-party one is code; math becomes $...$."""
    text = _roles_on(
        '''
        def f():
            """Like :func:`g` and :func:`~numpy.mean`, with :math:`\\\\rho_w` [1]_.

            References
            ----------
            .. [1] A paper.
            """

        def g():
            """A documented function."""
        ''',
        tmp_path,
        caplog,
    )
    assert '<autoref identifier="pkg.mod.g"><code>g</code></autoref>' in text
    assert "<code>mean</code>" in text and "numpy.mean" not in text
    assert "$\\rho_w$ [1]." in text and "- [1] A paper." in text
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_pydantic_model_is_documented_by_its_fields(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Its ``Parameters`` are checked against the fields, not against ``**data``."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text(
        textwrap.dedent(
            '''
            from pydantic import BaseModel

            class Settings(BaseModel):
                """Settings.

                Parameters
                ----------
                seed : int
                    A seed.
                typo : int
                    Not a field.
                """

                seed: int = 0

                @property
                def twice(self) -> int:
                    return 2 * self.seed
            '''
        )
    )
    extension = _load("sphinx_roles").SphinxRoles(documented=["pkg"])
    with caplog.at_level(logging.WARNING):
        loaded = griffe.load(
            "pkg",
            search_paths=[str(tmp_path)],
            docstring_parser="numpy",
            extensions=griffe.load_extensions(extension),
        )
        cls = loaded["mod.Settings"]
        assert [p.name for p in cls.parameters] == ["self", "seed"]
        cls.docstring.parsed  # noqa: B018 -- parsing is what warns
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("typo" in w for w in warned) and not any("seed" in w for w in warned)


def test_readme_sections_cover_the_whole_readme() -> None:
    """The Guide pages are the README cut at its ``## `` headings: nothing lost, none in code."""
    pytest.importorskip("mkdocs")
    pages = _load("pages")
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    sections = pages.split_readme(text)
    assert "\n".join(line for _, lines in sections for line in lines) == text
    titles = [title for title, _ in sections[1:]]
    assert "Running the tests" in titles
    # the report's "## DSCS — ..." lines inside the README's code blocks do not start pages
    assert not any(title.startswith("DSCS —") for title in titles)
