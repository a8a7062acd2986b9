"""The ``sts-extras`` dispatcher: user errors as one line, bugs as tracebacks.

That ``--help`` imports nothing heavy: tests/test_cli_startup.py, for every command.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from sts_extras.cli import build_parser, main
from sts_extras.cli import describe_run as describe
from sts_extras.cli.annotate_run import run as run_annotate
from sts_extras.errors import UserFileNotFoundError


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=300
    )


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sts_extras.cli", *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_user_error_is_one_line_with_exit_status_2():
    result = _cli("annotate", "plan", "--n-items", "990", "--m", "20", "--alpha", "1.5")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("sts-extras annotate: error: `alpha` must lie strictly between")


def test_missing_input_file_is_a_user_error_naming_it(tmp_path, capsys):
    missing = tmp_path / "votes.csv"
    assert main(["annotate", "score", str(missing)]) == 2
    assert f"cannot read {missing}: No such file or directory" in capsys.readouterr().err
    assert main(["annotate", "plan", "--items", str(missing), "--m", "4"]) == 2
    assert str(missing) in capsys.readouterr().err
    args = build_parser().parse_args(["annotate", "score", str(missing)])
    with pytest.raises(UserFileNotFoundError):  # still a FileNotFoundError for Python callers
        run_annotate(args)


def test_unreadable_input_is_a_user_error_naming_it(tmp_path, capsys):
    assert main(["annotate", "plan", "--items", str(tmp_path), "--m", "4"]) == 2
    assert f"cannot read {tmp_path}: Is a directory" in capsys.readouterr().err


def test_unwritable_output_is_a_user_error_naming_it(tmp_path, capsys):
    votes = tmp_path / "votes.csv"
    rows = [f"i{a},i{b},i{a},1" for a in range(4) for b in range(a + 1, 4)]
    votes.write_text("item_a,item_b,winner,ballot\n" + "\n".join(rows) + "\n", encoding="utf-8")
    output = tmp_path / "no-such-dir" / "ranked.csv"
    assert main(["annotate", "score", str(votes), "--output", str(output)]) == 2
    assert f"cannot write {output}" in capsys.readouterr().err


def test_non_numeric_similarity_file_is_a_user_error(tmp_path, capsys):
    z = tmp_path / "z.txt"
    z.write_text("0.5\nhigh\n", encoding="utf-8")
    assert main(["annotate", "simulate", "--z", str(z), "--reps", "1"]) == 2
    assert "'high' is not a number" in capsys.readouterr().err


@pytest.mark.parametrize("error", [RuntimeError("a bug"), ValueError("not from validation")])
def test_other_exceptions_propagate(monkeypatch, error):
    def broken(name, config_name=None):
        raise error

    monkeypatch.setattr(describe, "describe_dataset", broken)
    with pytest.raises(type(error), match=str(error)):
        main(["describe", "dscs"])


def test_a_bug_exits_1_with_its_traceback():
    code = (
        "import sys\n"
        "from sts_extras.cli import describe_run as describe\n"
        "from sts_extras.cli import main\n"
        "def broken(name, config_name=None):\n"
        "    raise ValueError('an internal bug')\n"
        "describe.describe_dataset = broken\n"
        "sys.exit(main(['describe', 'dscs']))\n"
    )
    result = _python(code)
    assert result.returncode == 1
    assert "Traceback" in result.stderr
    assert "ValueError: an internal bug" in result.stderr
    assert "sts-extras describe: error" not in result.stderr


def test_keyboard_interrupt_exits_130(monkeypatch, capsys):
    def interrupted(name, config_name=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(describe, "describe_dataset", interrupted)
    assert main(["describe", "dscs"]) == 130
    assert "interrupted" in capsys.readouterr().err


def test_a_missing_extra_is_one_line_naming_the_pip_install_before_any_work(
    monkeypatch, tmp_path, capsys
):
    import importlib.util

    from sts_extras.cli import main

    real_find_spec = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name == "mteb" else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    output = tmp_path / "out"
    assert main(["leaderboard", "--output", str(output), "--no-progress"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0
    assert "pip install 'sts-extras[mteb]'" in error
    assert not (output / "leaderboard.json").exists()
