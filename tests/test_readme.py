"""The README's Python examples run as written (doctest), from the repository root."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "metrics").glob("*/README.md"))]


@pytest.mark.slow
@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(REPO)))
def test_examples_in_document_run(document, monkeypatch, tmp_path):
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path))
    result = doctest.testfile(
        str(document),
        module_relative=False,
        verbose=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted > 0, "no runnable (>>>) example found"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
