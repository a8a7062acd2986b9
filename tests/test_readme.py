"""The README's Python examples run as written (doctest).

README.md is run the way a reader who installed the package would: block by block, in order, in
one session, with the current directory OUTSIDE the repository (a temporary folder), so a block
that reads ``metrics/...``, ``dataset_scripts/...`` or ``docs/...`` relative to a checkout fails.
A block that needs the checkout or the network says so in its first line (``# needs: checkout``,
``# needs: network``, or ``>>> # needs: ...`` in a doctest block) and is skipped; every other
block runs. Plain (non-``>>>``) blocks are executed; ``>>>`` blocks are doctests.

The ``evaluate`` modules' own cards (``metrics/*/README.md``) are Hub Space cards, run from the
repository root as before.
"""

from __future__ import annotations

import doctest
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
METRIC_CARDS = sorted((REPO / "metrics").glob("*/README.md"))
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
#: What a block may say it needs (in its first line); the test skips exactly those blocks.
NEEDS = ("checkout", "network")

_FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
#: ``# needs: checkout`` or ``# needs: network, checkout``, then free text (why) if any
_NEEDS_LINE = re.compile(r"^(?:>>> )?#\s*needs:\s*([a-z]+(?:\s*,\s*[a-z]+)*)")


@dataclass(frozen=True)
class Block:
    """One fenced Python block of a Markdown file."""

    line: int  # 1-based line of its first line of code
    source: str
    needs: tuple[str, ...]

    @property
    def is_doctest(self) -> bool:
        return any(line.lstrip().startswith(">>>") for line in self.source.splitlines())


def python_blocks(text: str) -> list[Block]:
    """The ```` ```python ```` blocks of a Markdown text, with what each says it needs."""
    blocks = []
    for match in _FENCE.finditer(text):
        source = match.group(1)
        first = source.splitlines()[0] if source.strip() else ""
        needs = _NEEDS_LINE.match(first.strip())
        blocks.append(
            Block(
                line=text.count("\n", 0, match.start(1)) + 1,
                source=source,
                needs=tuple(n.strip() for n in needs.group(1).split(",")) if needs else (),
            )
        )
    return blocks


def run_blocks(path: Path) -> tuple[list[str], list[Block]]:
    """Run the blocks of ``path`` in order in one namespace; (failures, skipped blocks).

    Call with the current directory where the reader would stand (outside the checkout).
    """
    namespace: dict = {"__name__": "__readme__"}
    failures: list[str] = []
    skipped: list[Block] = []
    parser = doctest.DocTestParser()
    for block in python_blocks(path.read_text(encoding="utf-8")):
        if block.needs:
            skipped.append(block)
            continue
        where = f"{path.name} line {block.line}"
        if block.is_doctest:
            test = parser.get_doctest(block.source, namespace, where, str(path), block.line - 1)
            runner = doctest.DocTestRunner(optionflags=OPTIONS)
            report: list[str] = []
            runner.run(test, out=report.append, clear_globs=False)
            namespace.update(test.globs)  # the next block sees this one's names
            if runner.failures:
                failures.append(f"{where}: {runner.failures} example(s) failed\n" + "".join(report))
        else:
            try:
                exec(compile(block.source, where, "exec"), namespace)
            except Exception as error:  # noqa: BLE001 -- reported with the block's line
                failures.append(f"{where}: {type(error).__name__}: {error}")
    return failures, skipped


def test_blocks_say_only_what_the_test_knows_they_need():
    blocks = python_blocks(README.read_text(encoding="utf-8"))
    assert blocks, "no Python block found"
    for block in blocks:
        assert set(block.needs) <= set(NEEDS), f"README.md line {block.line}: {block.needs}"


def test_the_block_parser_reads_fences_and_needs():
    text = (
        "x\n```python\n>>> # needs: checkout\n>>> 1\n1\n```\n"
        "```python\nimport os\n```\n```bash\nls\n```\n"
        "```python\n# needs: network, checkout (MTEB's tasks)\nimport mteb\n```\n"
    )
    blocks = python_blocks(text)
    assert [(b.line, b.needs, b.is_doctest) for b in blocks] == [
        (3, ("checkout",), True),
        (8, (), False),
        (14, ("network", "checkout"), False),
    ]


@pytest.mark.slow
def test_readme_blocks_run_outside_the_checkout(monkeypatch, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "datasets-cache"))
    failures, skipped = run_blocks(README)
    assert not failures, "\n\n".join(failures)
    assert all(set(block.needs) <= set(NEEDS) for block in skipped)


@pytest.mark.slow
@pytest.mark.parametrize("document", METRIC_CARDS, ids=lambda path: str(path.relative_to(REPO)))
def test_examples_in_metric_cards_run(document, monkeypatch, tmp_path):
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path))
    result = doctest.testfile(
        str(document), module_relative=False, verbose=False, optionflags=OPTIONS
    )
    assert result.attempted > 0, "no runnable (>>>) example found"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
