"""Import a module of sts-extras as it was at an earlier commit, for a benchmark's baseline.

Benchmarks compare the code with its own past in the same run; the old module is read with
``git show`` and imported under another name, so both versions live in one process.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType


def module_at(commit: str, path: str, name: str) -> ModuleType:
    """The file ``path`` (relative to the repository) at ``commit``, imported as ``name``."""
    root = Path(__file__).resolve().parents[1]
    source = subprocess.run(
        ["git", "show", f"{commit}:{path}"], cwd=root, check=True, capture_output=True, text=True
    ).stdout
    file = Path(tempfile.mkdtemp()) / f"{name}.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module
