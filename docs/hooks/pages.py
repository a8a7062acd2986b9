"""MkDocs hook: the site's generated pages and its navigation, so nothing is copied by hand.

* **Guide**: ``README.md`` split at its ``## `` headings (outside code fences): the text before
  the first one is the home page, each section a page under ``guide/`` with its headings raised
  one level. Links into the README (``#anchor``) point to the page that now holds the heading;
  ``docs/...`` images and ``metrics/<name>/README.md`` cards are rewritten to their place in the
  site; a relative link to any other file of the repository becomes plain text (the site does
  not carry the source tree), and a link to a file or heading that does not exist is a warning,
  so ``mkdocs build --strict`` fails on it.
* **API reference**: one page per public module listed under ``extra.api_reference`` in
  ``mkdocs.yml``. The page shows the module's docstring, then every name of its ``__all__``
  (read statically by griffe, as mkdocstrings reads it), grouped by the module that defines it,
  each with its own ``:::`` directive. A name added to ``__all__`` gets its entry with no edit here.
* **Metrics**: each ``metrics/<name>/README.md`` card (its Hub front matter dropped).

The navigation (``nav``) is built here too, in that order, with the hand-written pages of
``docs/`` (``api-conventions.md``, ``calibration.md``, the example leaderboard report) in their
places.
"""

from __future__ import annotations

import importlib.util
import logging
import posixpath
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

_log = logging.getLogger("mkdocs.hooks.pages")

ROOT = Path(__file__).resolve().parents[2]
HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.+?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(
    r"(?P<bang>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)"
)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def _load_roles() -> Any:
    """The griffe extension beside this hook (it owns the rule for a module's public names)."""
    name = "sts_extras_docs_sphinx_roles"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).with_name("sphinx_roles.py")
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


# -- the README as pages -------------------------------------------------------------------------


def _slugify(config: Any) -> Any:
    toc = config["mdx_configs"].get("toc", {})
    return toc.get("slugify") or (lambda text, sep: re.sub(r"[^\w]+", sep, text.lower()).strip(sep))


def _file_slug(title: str) -> str:
    """An ASCII file name for a section title (its anchor keeps GitHub's slug)."""
    ascii_title = unicodedata.normalize("NFKD", _heading_text(title)).encode("ascii", "ignore")
    return re.sub(r"[^a-z0-9]+", "-", ascii_title.decode().lower()).strip("-")


def _heading_text(markdown: str) -> str:
    """A heading's text as the toc extension slugifies it (code spans and emphasis unwrapped)."""
    return re.sub(r"[`*]", "", markdown)


def split_readme(text: str) -> list[tuple[str, list[str]]]:
    """``(title, lines)`` of the README's intro (title ``""``) and of each ``## `` section."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    fenced = False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else HEADING.match(line)
        if heading and len(heading["hashes"]) == 2:
            sections.append((heading["text"], []))
        sections[-1][1].append(line)
    return sections


def _raise_headings(lines: list[str]) -> list[str]:
    """``## `` becomes ``# `` and so on, outside code fences (the section is now a page)."""
    out, fenced = [], False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else HEADING.match(line)
        if heading and len(heading["hashes"]) >= 2:
            line = f"{heading['hashes'][1:]} {heading['text']}"
        out.append(line)
    return out


def _rewrite_links(text: str, page: str, source: str, anchors: dict[str, str]) -> str:
    """Links of ``source`` (a repository file) fixed for the site page ``page``."""
    page_dir = posixpath.dirname(page)
    source_dir = posixpath.dirname(source)
    fenced = False
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
        if not fenced:
            lines[i] = LINK.sub(
                lambda m: _link(m, page, page_dir, source, source_dir, anchors), line
            )
    return "\n".join(lines)


def _link(
    m: re.Match[str],
    page: str,
    page_dir: str,
    source: str,
    source_dir: str,
    anchors: dict[str, str],
) -> str:
    target = m["target"]
    if EXTERNAL.match(target):
        return m[0]
    path, _, anchor = target.partition("#")
    if not path:  # a heading of the README
        if source != "README.md":
            return m[0]
        if anchor not in anchors:
            _log.warning(f"{source}: link to #{anchor}, a heading that does not exist")
            return m[0]
        where = anchors[anchor]
        if where == page:
            return m[0]
        return f"{m['bang']}[{m['text']}]({posixpath.relpath(where, page_dir)}#{anchor})"
    repo_path = posixpath.normpath(posixpath.join(source_dir, path))
    if not (ROOT / repo_path).exists():
        _log.warning(f"{source}: link to {path}, a file that does not exist")
        return m[0]
    card = re.fullmatch(r"metrics/([^/]+)/README\.md", repo_path)
    if repo_path.startswith("docs/"):
        site_path = repo_path[len("docs/") :]
    elif card:
        site_path = f"metrics/{card[1]}.md"
    else:  # a source file: the site does not carry the repository
        return f"{m['text']} (`{repo_path}`)" if not m["bang"] else m["text"]
    new = posixpath.relpath(site_path, page_dir) + (f"#{anchor}" if anchor else "")
    return f"{m['bang']}[{m['text']}]({new}{m['title'] or ''})"


def readme_pages(config: Any) -> list[tuple[str, str, str]]:
    """``(nav title, site path, markdown)`` of the home page and of each README section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    slugify = _slugify(config)
    sections = split_readme(text)
    pages: list[tuple[str, str, list[str]]] = []
    for title, lines in sections:
        if not title:
            pages.append(("Home", "index.md", lines))
        else:
            pages.append((title, f"guide/{_file_slug(title)}.md", lines))
    anchors: dict[str, str] = {}
    for _, path, lines in pages:
        fenced = False
        for line in lines:
            if FENCE.match(line):
                fenced = not fenced
            heading = None if fenced else HEADING.match(line)
            if heading:
                anchors.setdefault(slugify(_heading_text(heading["text"]), "-"), path)
    out = []
    for title, path, lines in pages:
        home = path == "index.md"
        body = _rewrite_links(
            "\n".join(lines if home else _raise_headings(lines)), path, "README.md", anchors
        )
        if home:
            body += (
                "\n\n## Contents\n\n" + "\n".join(f"- [{t}]({p})" for t, p, _ in pages[1:]) + "\n"
            )
        out.append((title, path, body))
    return out


# -- the metric cards ------------------------------------------------------------------------------


def card_pages() -> list[tuple[str, str, str]]:
    """``(name, site path, markdown)`` of each ``metrics/<name>/README.md``."""
    out = []
    for card in sorted((ROOT / "metrics").glob("*/README.md")):
        name = card.parent.name
        text = card.read_text(encoding="utf-8")
        text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.DOTALL)  # Hub Space front matter
        source = f"metrics/{name}/README.md"
        page = f"metrics/{name}.md"
        out.append((name, page, _rewrite_links(text, page, source, {})))
    return out


# -- the API reference -----------------------------------------------------------------------------


def api_pages(modules: list[str]) -> list[tuple[str, str, str]]:
    """``(module, site path, markdown)``: one page per public module, every public name on it."""
    import griffe

    roles = _load_roles()
    top = modules[0].split(".", 1)[0]
    package = griffe.load(top, search_paths=[str(ROOT)], docstring_parser="numpy")
    out = []
    for dotted in modules:
        module = package if dotted == top else package[dotted[len(top) + 1 :]]
        groups: dict[str, list[str]] = {}
        for name in roles.public_names(module):
            member = module.members[name]
            try:
                home = member.final_target.parent.path if member.is_alias else dotted
            except griffe.AliasResolutionError:
                _log.warning(f"{dotted}.__all__ lists {name}, which does not resolve")
                continue
            groups.setdefault(home, []).append(name)
        lines = [  # the module's heading (the page title, an anchor) and its docstring
            f"::: {dotted}",
            "    options:",
            "      members: false",
            "      heading_level: 1",
            "      show_root_full_path: true",
            "",
        ]
        several = len(groups) > 1
        for home, names in groups.items():
            level = 3
            if home != dotted:  # a re-export: its defining module's heading and docstring first
                lines += [
                    f"::: {home}",
                    "    options:",
                    "      members: false",
                    "      heading_level: 2",
                    "      show_root_full_path: true",
                    "",
                ]
            elif several:
                lines += ["## Defined here", ""]
            else:
                level = 2
            for name in names:
                lines += [
                    f"::: {dotted}.{name}",
                    "    options:",
                    f"      heading_level: {level}",
                    "",
                ]
        out.append((dotted, f"api/{dotted}.md", "\n".join(lines)))
    return out


# -- mkdocs events ---------------------------------------------------------------------------------

_PAGES: dict[str, list[tuple[str, str, str]]] = {}


def on_config(config: Any) -> Any:
    """Build the generated pages (kept for ``on_files``) and the navigation."""
    modules = list(config["extra"]["api_reference"])
    _PAGES["guide"] = readme_pages(config)
    _PAGES["api"] = api_pages(modules)
    _PAGES["metrics"] = card_pages()
    home, *guide = _PAGES["guide"]
    config["nav"] = [
        {"Home": home[1]},
        {"Guide": [{_heading_text(title): path} for title, path, _ in guide]},
        {"API conventions": "api-conventions.md"},
        {"Calibration": "calibration.md"},
        {"API reference": [{title: path} for title, path, _ in _PAGES["api"]]},
        {"Metric cards": [{title: path} for title, path, _ in _PAGES["metrics"]]},
        {"Example leaderboard report": "leaderboard/leaderboard.md"},
    ]
    return config


def on_files(files: Files, config: Any) -> Files:
    """Add the generated pages to the site."""
    for pages in _PAGES.values():
        for _, path, content in pages:
            files.append(File.generated(config, path, content=content))
    return files
