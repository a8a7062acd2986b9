"""Every code block of README.md runs as written, each on its own in a fresh Python interpreter.

This module holds the runner that tests/test_docs.py uses for the pages of docs/ too:

* A fenced block's language says what it is. ``python`` and ``bash`` blocks are code and run;
  ``text``, ``latex`` and ``bibtex`` blocks show output or a file and do not (:data:`SHOWN`). A
  block with any other language, or none, fails the test: say what it is.
* A ``python`` block with ``>>>`` lines is a doctest (``ELLIPSIS``, ``NORMALIZE_WHITESPACE``);
  any other ``python`` block is executed. Either way it runs alone, in a new interpreter, so it
  must import and define everything it uses.
* A ``bash`` block runs with ``bash -euo pipefail``. If its lines start with ``$ `` it is a
  transcript: each command (with its ``\\`` continuation lines) runs, and what it prints must be
  the lines shown under it.
* Blocks run where a reader who installed the package stands: in a new temporary folder outside
  the checkout, which holds copies of the files the pages name as inputs (:data:`INPUTS`:
  ``docs/leaderboard/`` and ``examples/campaign/``).
* A block that needs the network, or a long run (minutes, a cluster), says so on the line just
  before its fence: ``<!-- no-test: network -->`` or ``<!-- no-test: long -->`` (:data:`NO_TEST`).
  Only those blocks are left out, and the reason must be one of these two.

The blocks that run a model, a leaderboard or every paper are marked ``slow`` (:data:`SLOW`);
like everything, they run by default, as in CI.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
METRIC_CARDS = sorted((REPO / "metrics").glob("*/README.md"))
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
#: languages of blocks that are code and run
RUN = ("python", "bash")
#: languages of blocks that show output or a file, and do not run
SHOWN = ("text", "latex", "bibtex")
#: why a block may be left out; the mark is the line just before its fence
NO_TEST = {"network": "needs the network", "long": "a long run: minutes, or a cluster"}
#: files the pages name as inputs, copied into each block's folder (relative to the checkout)
INPUTS = ("docs/leaderboard", "examples/campaign")
#: a block that does any of these takes seconds to minutes: marked slow
SLOW = re.compile(
    r"sts-extras (leaderboard|reproduce|annotate simulate)|mteb\.evaluate|run_leaderboard|"
    r"mteb\.get_model\(|from_sentence_transformer|glove-6b-50d|simulate_campaigns"
)
#: seconds one block may take
TIMEOUT = 900
#: blocks run this many at a time, each in its own process (the docs' blocks are minutes)
PARALLEL = min(2, os.cpu_count() or 1)

_FENCE = re.compile(r"^```([\w-]*)[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_MARK = re.compile(r"^<!--\s*no-test:\s*([a-z-]+)\s*-->\s*$")

#: run in the fresh interpreter: a block's file as a doctest, or executed
_PYTHON_RUNNER = """
import doctest, sys
path = sys.argv[1]
source = open(path, encoding="utf-8").read()
if any(line.lstrip().startswith(">>>") for line in source.splitlines()):
    test = doctest.DocTestParser().get_doctest(source, {"__name__": "__main__"}, path, path, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    sys.exit(1 if runner.failures else 0)
exec(compile(source, path, "exec"), {"__name__": "__main__"})
"""


@dataclass(frozen=True)
class Block:
    """One fenced block of a Markdown file."""

    path: Path
    line: int  # 1-based line of its opening fence
    language: str
    source: str
    no_test: str | None  # the reason of a ``<!-- no-test: ... -->`` mark, if any

    @property
    def where(self) -> str:
        path = self.path.relative_to(REPO) if self.path.is_relative_to(REPO) else self.path
        return f"{path}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.language in RUN and self.no_test is None

    @property
    def slow(self) -> bool:
        return bool(SLOW.search(self.source))


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, with the mark before each."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    found = []
    for match in _FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = lines[line - 2] if line >= 2 else ""
        mark = _MARK.match(before)
        found.append(Block(path, line, match[1], match[2], mark[1] if mark else None))
    return found


def _workdir(tmp_path: Path) -> Path:
    """A folder outside the checkout holding copies of the files the pages name as inputs."""
    work = tmp_path / "reader"
    for name in INPUTS:
        shutil.copytree(REPO / name, work / name)
    # the pages name the outside data as `../shared/data/...`, beside the checkout (not copied)
    shared = REPO.parent / "shared"
    if shared.is_dir():
        (tmp_path / "shared").symlink_to(shared, target_is_directory=True)
    return work


def _commands(source: str) -> list[tuple[str, list[str]]]:
    """A transcript's ``(command, printed lines)``, continuation lines joined."""
    out: list[tuple[str, list[str]]] = []
    lines = source.rstrip("\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            out[-1][1].append(line)
            i += 1
            continue
        command = line[2:]
        while command.endswith("\\"):
            i += 1
            command = command[:-1] + " " + lines[i].strip()
        out.append((command, []))
        i += 1
    return out


def run_block(block: Block, tmp_path: Path) -> None:
    """Run one block alone, as described in the module docstring; fail with its output."""
    work = _workdir(tmp_path)
    env = {**os.environ, "PYTHONPATH": "", "MPLBACKEND": "Agg"}
    bin_dir = str(Path(sys.executable).parent)  # this environment's sts-extras first
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")

    def run(*command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command, cwd=work, env=env, capture_output=True, text=True, timeout=TIMEOUT
        )

    if block.language == "python":
        file = tmp_path / "block.py"
        file.write_text(block.source, encoding="utf-8")
        done = run(sys.executable, "-c", _PYTHON_RUNNER, str(file))
        assert done.returncode == 0, f"{block.where} failed:\n{done.stdout}\n{done.stderr}"
        return
    assert block.language == "bash"
    if not block.source.lstrip().startswith("$ "):
        done = run("bash", "-euo", "pipefail", "-c", block.source)
        assert done.returncode == 0, f"{block.where} failed:\n{done.stdout}\n{done.stderr}"
        return
    for command, shown in _commands(block.source):
        done = run("bash", "-euo", "pipefail", "-c", command)
        assert done.returncode == 0, f"{block.where}: {command}\n{done.stdout}\n{done.stderr}"
        printed = [line.rstrip() for line in done.stdout.rstrip("\n").split("\n")]
        assert printed == [line.rstrip() for line in shown], (
            f"{block.where}: `{command}` printed\n" + "\n".join(printed)
        )


#: what running each block gave (None: it passed), by :attr:`Block.where`
_OUTCOMES: dict[str, Exception | None] = {}


def _run_collected_blocks(session: pytest.Session, folders: pytest.TempPathFactory) -> None:
    """Run the block of every collected block test not run yet, :data:`PARALLEL` at a time."""
    collected = (getattr(item, "callspec", None) for item in session.items)
    found = (spec.params.get("block") for spec in collected if spec is not None)
    pending = {
        block.where: block
        for block in found
        if isinstance(block, Block) and block.where not in _OUTCOMES
    }

    def outcome(block: Block) -> Exception | None:
        try:
            run_block(block, folders.mktemp("block"))
        except (AssertionError, subprocess.TimeoutExpired, OSError) as error:  # its test reports it
            return error
        return None

    with ThreadPoolExecutor(PARALLEL) as pool:
        _OUTCOMES.update(zip(pending, pool.map(outcome, pending.values())))


def check_block_ran(block: Block, session: pytest.Session, folders: pytest.TempPathFactory) -> None:
    """Fail as :func:`run_block` would on ``block``; the first call runs every collected block,
    :data:`PARALLEL` at a time (the ``block_runs`` fixture of conftest.py)."""
    if block.where not in _OUTCOMES:
        _run_collected_blocks(session, folders)
    outcome = _OUTCOMES[block.where]
    if outcome is not None:
        raise outcome


def check_blocks_say_what_they_are(path: Path) -> None:
    """Each block has a known language; a mark has a known reason and sits on code."""
    for block in blocks(path):
        assert block.language in RUN + SHOWN, (
            f"{block.where}: a block of language {block.language!r}; "
            f"use one of {RUN + SHOWN} (code runs, the others show output)"
        )
        if block.no_test is not None:
            assert block.no_test in NO_TEST, f"{block.where}: no-test reason {block.no_test!r}"
            assert block.language in RUN, (
                f"{block.where}: a no-test mark on a block that never runs"
            )


def params(paths: list[Path]) -> list:
    """pytest parameters: every block of ``paths`` that runs, the slow ones marked."""
    return [
        pytest.param(block, id=block.where, marks=[pytest.mark.slow] if block.slow else [])
        for path in paths
        for block in blocks(path)
        if block.runs
    ]


# -- the runner itself ---------------------------------------------------------------------------


def test_the_parser_reads_languages_marks_and_transcripts(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "x\n```python\n>>> 1\n1\n```\n"
        "<!-- no-test: network -->\n```bash\ncurl x\n```\n"
        "```text\nout\n```\n"
    )
    found = blocks(page)
    assert [(b.line, b.language, b.no_test, b.runs) for b in found] == [
        (2, "python", None, True),
        (7, "bash", "network", False),
        (10, "text", None, False),
    ]
    assert _commands("$ a \\\n    --b c\nout 1\nout 2\n$ d\n") == [
        ("a  --b c", ["out 1", "out 2"]),
        ("d", []),
    ]


def test_a_failing_block_fails(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```python\n>>> 1 + 1\n3\n```\n```bash\n$ echo hi\nho\n```\n")
    with pytest.raises(AssertionError):
        run_block(blocks(page)[0], tmp_path / "a")
    with pytest.raises(AssertionError, match="printed"):
        run_block(blocks(page)[1], tmp_path / "b")


def test_a_block_runs_alone_outside_the_checkout(tmp_path):
    """No name leaks from one block to the next, and the folder is not the checkout."""
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nx = 1\n```\n"
        "```python\n"
        "import os, pathlib\n"
        "assert 'x' not in globals()\n"
        "assert not pathlib.Path('setup.cfg').exists()\n"
        "assert pathlib.Path('docs/leaderboard/leaderboard.json').is_file()\n"
        "```\n"
    )
    first, second = blocks(page)
    run_block(first, tmp_path / "a")
    run_block(second, tmp_path / "b")


# -- README.md -----------------------------------------------------------------------------------


def test_readme_blocks_say_what_they_are():
    assert blocks(README), "no block found"
    check_blocks_say_what_they_are(README)


@pytest.mark.parametrize("block", params([README]))
def test_readme_block_runs(block, block_runs):
    block_runs(block)


@pytest.mark.slow
@pytest.mark.parametrize("document", METRIC_CARDS, ids=lambda path: str(path.relative_to(REPO)))
def test_examples_in_metric_cards_run(document, monkeypatch, tmp_path):
    """The cards are Hub Space cards (and pages of the site): their doctests run."""
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path))
    result = doctest.testfile(
        str(document), module_relative=False, verbose=False, optionflags=OPTIONS
    )
    assert result.attempted > 0, "no runnable (>>>) example found"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
