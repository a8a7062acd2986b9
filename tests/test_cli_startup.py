"""``sts-extras --help`` and every ``--help`` below it import nothing heavy.

A test of what is imported, not of how long it takes (``benchmarks/bench_cli_startup.py`` times
it): building the parsers must load argparse and :mod:`sts_extras.cli.choices` only; numpy,
scipy, pandas, pydantic and the ecosystem libraries are imported when a command runs. The name
lists the parsers show are light copies of the heavy modules' own, held equal here.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from typing import Any

import pytest

from sts_extras.cli import choices

# top-level packages `--help` must not import (pydantic too: the trust boundary's records load
# it, and no parser needs them)
HEAVY = (
    "numpy",
    "scipy",
    "pandas",
    "pydantic",
    "torch",
    "transformers",
    "sentence_transformers",
    "model2vec",
    "mteb",
    "datasets",
    "evaluate",
    "matplotlib",
    "gensim",
    "tqdm",
    "textstat",
    "statsmodels",
    "dask",
    "distributed",
)

COMMANDS = [
    [],
    ["leaderboard"],
    ["leaderboard", "collect"],
    ["annotate"],
    ["annotate", "plan"],
    ["annotate", "score"],
    ["annotate", "simulate"],
    ["power"],
    ["describe"],
    ["reproduce"],
]


def _help_in_subprocess(argv: list[str]) -> dict[str, Any]:
    """Run ``main([*argv, "--help"])`` in a fresh interpreter; its output and what it imported."""
    code = (
        "import contextlib, io, json, sys\n"
        "from sts_extras.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    try:\n"
        f"        main({[*argv, '--help']!r})\n"
        "    except SystemExit as exit:\n"
        "        code = exit.code\n"
        "shown = {'code': code, 'help': out.getvalue(), 'modules': sorted(sys.modules)}\n"
        "print(json.dumps(shown))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: " ".join(["sts-extras", *argv]))
def test_help_imports_nothing_heavy(argv):
    shown = _help_in_subprocess(argv)
    assert shown["code"] == 0
    assert str(shown["help"]).startswith(f"usage: sts-extras {' '.join(argv)}".rstrip())
    loaded = {name.split(".")[0] for name in shown["modules"]}
    assert sorted(loaded & set(HEAVY)) == []
    # nor the modules that do the work (they import the heavy ones)
    work = {
        "sts_extras.leaderboard",
        "sts_extras.annotation",
        "sts_extras.stats",
        "sts_extras.io",
        "sts_extras.cli.power_run",
        "sts_extras.cli.describe_run",
        "sts_extras.integrations.datasets.loading",
        "sts_extras.reproduce",
    }
    assert sorted(work & set(shown["modules"])) == []


def test_the_console_script_help_lists_every_command():
    result = subprocess.run(
        [sys.executable, "-m", "sts_extras.cli", "--help"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    for command in ("describe", "leaderboard", "annotate", "power", "reproduce"):
        assert command in result.stdout


# light copy -> (heavy module, name there) of its source
SOURCES = {
    "DEPENDENT_METHODS": ("sts_extras.stats.dependent", "DEPENDENT_METHODS"),
    "ALTERNATIVES": ("sts_extras.stats.dependent", "ALTERNATIVES"),
    "INTERVAL_METHODS": ("sts_extras.stats.intervals", "DIFFERENCE_METHODS"),
    "COMPARISON_METHODS": ("sts_extras.stats.model_comparison", "COMPARISON_METHODS"),
    "ADJUST_METHODS": ("sts_extras.stats.multiple", "ADJUST_METHODS"),
    "DATASET_NAMES": ("sts_extras.benchmark_tables", "DATASETS"),
    "DEFAULT_OUTPUT": ("sts_extras.leaderboard.settings", "DEFAULT_OUTPUT"),
    "MIN_RESAMPLES": ("sts_extras.leaderboard.settings", "MIN_RESAMPLES"),
    "FIGURE_FORMATS": ("sts_extras.leaderboard.settings", "FIGURE_FORMATS"),
    "VOTE_FORMATS": ("sts_extras.annotation.votes", "VOTE_FORMATS"),
    "DEFAULT_MIN_AGREEMENT": ("sts_extras.annotation.agreement", "DEFAULT_MIN_AGREEMENT"),
    "UPDATES": ("sts_extras.annotation.scoring", "UPDATES"),
    "DISTRIBUTIONS": ("sts_extras.annotation.voters", "DISTRIBUTIONS"),
    "PAPER_NAMES": ("sts_extras.reproduce.papers", "PAPERS"),
}


def test_every_light_copy_names_its_source():
    assert sorted(SOURCES) == sorted(choices.__all__)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_the_light_copy_equals_its_source(name):
    module, attribute = SOURCES[name]
    source = getattr(importlib.import_module(module), attribute)
    if isinstance(source, dict):  # DATASETS, PAPERS: the names are their keys, in order
        source = tuple(source)
    assert getattr(choices, name) == source


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["leaderboard"], choices.DEPENDENT_METHODS + choices.ADJUST_METHODS),
        (["power"], choices.DEPENDENT_METHODS),
        (["describe"], choices.DATASET_NAMES),
        (["annotate", "score"], choices.VOTE_FORMATS),
        (["reproduce"], choices.PAPER_NAMES),
    ],
    ids=["leaderboard", "power", "describe", "annotate score", "reproduce"],
)
def test_help_lists_the_names_the_command_takes(argv, names):
    text = " ".join(str(_help_in_subprocess(argv)["help"]).split())
    for name in names:
        assert name in text, name
