"""Text from outside (model, task and file names, error messages) in the reports we write.

A name comes from a user's file or option: a vector file ``<img src=x onerror=alert(1)>.txt``,
a ``--model`` display name, a task file, the ``model_name`` of an MTEB prediction file. Every
report prints it as the text it is, never as markup, and never lets it break the report's
structure. This module is the one place for the rules that are not the format's own library's:

* :func:`show_controls`: control characters made **visible**, never removed (so that two
  names differing only by one stay distinct in the report): every character of Unicode
  category ``Cc`` (C0, DEL, C1, so tab, CR and LF too), the line and paragraph separators
  (``Zl``, ``Zp``), lone surrogates (``Cs``: undecodable bytes of a file name, which no UTF-8
  file can hold) and the bidirectional formatting characters (which can reorder what a name
  shows, "Trojan Source") become ``<U+XXXX>``, their code point. Used by the Markdown and
  LaTeX reports; a table cell cannot break across lines.
* :func:`escape_markdown`: a text as literal Markdown, in a table cell or in a sentence. HTML
  (``& < > " '``) becomes character references, so no tag, entity or autolink of the name is
  ever rendered (Markdown passes raw HTML through, and pandas' ``to_markdown`` escapes
  nothing); the Markdown metacharacters ``\\ ` * _ { } [ ] # ! | $`` are backslash-escaped
  (``|`` so a cell cannot split the table row, ``$`` so the docs' math extension renders no
  formula), ``~`` becomes ``&#126;``, and a leading ``-``, ``+`` or ``1.`` cannot start a list.
  ``(`` and ``)`` are left as they are: with ``[``/``]`` escaped no link can form, and mkdocs'
  ``pymdownx.arithmatex`` would read ``\\(...\\)`` as a formula. Every escape renders as the
  character itself both under CommonMark/GFM (GitHub) and under Python-Markdown (mkdocs).
* :func:`unescape_markdown` reads the text back (the exact inverse of :func:`escape_markdown`
  for a text without control characters).

HTML is escaped with :func:`html.escape`, LaTeX by
:func:`sts_extras.leaderboard.reports.latex.escape`, JSON by :mod:`json`, and report CSVs by
:mod:`sts_extras.io.csv_cells` (text cells beginning with a formula character, OWASP).
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["escape_markdown", "show_controls", "unescape_markdown"]

#: The bidirectional formatting characters (embeddings, overrides, isolates, marks).
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: Markdown metacharacters escaped with a backslash: every one renders as itself after a
#: backslash in both CommonMark and Python-Markdown (with its ``tables`` extension).
_BACKSLASHED = "\\`*_{}[]#!|$"
_METACHARACTER = re.compile("[" + re.escape(_BACKSLASHED) + "]")
#: What would start a list at the start of a line: ``-`` or ``+``, or digits, a dot and a space
#: (``1. ``).
_LEADING_DASH = re.compile(r"^([-+])")
_LEADING_ORDINAL = re.compile(r"^(\d+)\.(?= |$)")
_ESCAPED = re.compile(r"\\([" + re.escape(_BACKSLASHED + "-+.") + r"])")


def _is_control(character: str) -> bool:
    return unicodedata.category(character) in ("Cc", "Cs", "Zl", "Zp") or character in _BIDI


def show_controls(text: str) -> str:
    """``text`` with every control character shown as its code point, ``<U+XXXX>``.

    Parameters
    ----------
    text : str
        A name or message from outside.

    Returns
    -------
    str
        ``text`` where each character of Unicode category ``Cc`` (C0 controls, tab, CR, LF,
        DEL, C1 controls), ``Cs`` (lone surrogates), ``Zl`` or ``Zp`` (line and paragraph
        separators), and each
        bidirectional formatting character (U+061C, U+200E, U+200F, U+202A-U+202E,
        U+2066-U+2069), is replaced by ``<U+`` its code point in 4+ upper-case hex digits ``>``;
        every other character unchanged. The result holds no line break.

    Examples
    --------
    >>> show_controls("a\\nb\\tc")
    'a<U+000A>b<U+0009>c'
    >>> show_controls("plain name")
    'plain name'
    """
    if text.isprintable():  # the common case; every control above is non-printable
        return text
    return "".join(
        f"<U+{ord(character):04X}>" if _is_control(character) else character for character in text
    )


def escape_markdown(text: str) -> str:
    """``text`` as literal Markdown (a table cell or a sentence), which renders as ``text``.

    Parameters
    ----------
    text : str
        A name or message from outside (a model, task or file name, an error message).

    Returns
    -------
    str
        :func:`show_controls` of ``text``, then the Markdown metacharacters
        ``\\ ` * _ { } [ ] # ! | $`` escaped with a backslash (and a leading ``-`` or ``+``,
        and the dot of a leading ``1.``), then ``& < > " '`` as HTML character references and
        ``~`` as ``&#126;``. The result holds no raw ``<``, ``>`` or line break, and no
        unescaped ``|``. Readable where it is plain: ``glove.6B.300d`` or ``model (v2)`` are
        unchanged.

    Examples
    --------
    >>> escape_markdown("<img src=x onerror=alert(1)>")
    '&lt;img src=x onerror=alert(1)&gt;'
    >>> escape_markdown("a|b*c_d")
    'a\\\\|b\\\\*c\\\\_d'
    >>> escape_markdown("glove.6B.300d")
    'glove.6B.300d'
    """
    shown = show_controls(text)
    escaped = _METACHARACTER.sub(lambda match: "\\" + match.group(0), shown)
    escaped = _LEADING_DASH.sub(r"\\\1", escaped)
    escaped = _LEADING_ORDINAL.sub(r"\1\\.", escaped)
    return html.escape(escaped, quote=True).replace("~", "&#126;")


def unescape_markdown(text: str) -> str:
    """The text :func:`escape_markdown` was given (for a text without control characters).

    Examples
    --------
    >>> unescape_markdown(escape_markdown("<b>*x*</b> | ~y"))
    '<b>*x*</b> | ~y'
    """
    return _ESCAPED.sub(r"\1", html.unescape(text))
