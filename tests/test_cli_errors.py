"""Every error a user can cause on the command line: exit status 2, one line naming the argument
and what to do, and nothing started (no model loaded, no report written)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

from sts_extras.cli import main, power_run


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STS_EXTRAS_CACHE", str(tmp_path / "sts-cache"))


def _one_line(capsys, command: str = "leaderboard") -> str:
    """The one line the command wrote to stderr (fails on anything else)."""
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"sts-extras {command}: error: "), lines
    return lines[0]


def _leaderboard(*argv: str) -> int:
    return main(["leaderboard", *argv, "--no-progress", "--no-figures"])


def _subprocess_env(**changes: str | None) -> dict[str, str]:
    env = dict(os.environ)
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _run_cli(argv: list[str], env: dict[str, str], timeout: float = 300):
    return subprocess.run(
        [sys.executable, "-m", "sts_extras.cli", *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        env=env,
    )


# --------------------------------------------------------------------------------------------
# --output
# --------------------------------------------------------------------------------------------
def test_output_that_is_a_file_says_to_give_a_directory(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("keep me", encoding="utf-8")
    assert _leaderboard("--output", str(blocker), "--task", "no-such-task") == 2
    line = _one_line(capsys)
    assert "--output" in line and "is not a directory" in line and "give a directory" in line
    assert blocker.read_text(encoding="utf-8") == "keep me"


def test_output_with_a_parent_that_cannot_be_created_names_it(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    target = blocker / "reports" / "run1"
    assert _leaderboard("--output", str(target), "--task", "no-such-task") == 2
    line = _one_line(capsys)
    assert f"--output {str(target)!r} cannot be written: it cannot be created" in line
    assert f"{str(blocker)!r} is a file" in line  # which folder is in the way
    assert "give a directory you can write to" in line


def test_read_only_output_says_so(tmp_path, capsys):
    read_only = tmp_path / "read-only"
    read_only.mkdir()
    read_only.chmod(0o555)
    try:
        if os.access(read_only, os.W_OK):
            pytest.skip("this user writes through directory permissions (root)")
        target = read_only / "reports"
        assert _leaderboard("--output", str(target), "--task", "no-such-task") == 2
        line = _one_line(capsys)
        assert "--output" in line and "Permission denied" in line
        assert "give a directory you can write to" in line
        assert not target.exists()
    finally:
        read_only.chmod(0o755)


def test_empty_output_is_refused_not_the_current_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert _leaderboard("--output", "", "--task", "no-such-task") == 2
    line = _one_line(capsys)
    assert "--output is empty" in line and "give a directory" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (("--method", "nope"), "--method must be one of 'auto'"),
        (("--adjust", "nope"), "--adjust must be one of 'holm'"),
        (("--bins", "0"), "--bins must be at least 1, got 0"),
        (("--workers", "0"), "--workers must be at least 1, got 0"),
        (("--score-range", "3", "1"), "--score-range: the low end 3 must be below the high end 1"),
    ],
)
def test_a_bad_setting_is_named_as_the_option_typed(tmp_path, capsys, options, expected):
    """The settings object names its fields (`method`); the command line names the options."""
    output = tmp_path / "out"
    assert _leaderboard(*options, "--task", "DSCS", "--output", str(output)) == 2
    line = _one_line(capsys)
    assert expected in line, line
    assert "`" not in line.split(":", 2)[2].split()[0]  # not the field name in backquotes
    assert not output.exists()


# --------------------------------------------------------------------------------------------
# --model, --vectors, --n-resamples
# --------------------------------------------------------------------------------------------
def test_model_that_is_an_empty_directory_is_caught_up_front(tmp_path, capsys):
    empty = tmp_path / "empty-model"
    empty.mkdir()
    output = tmp_path / "out"
    assert _leaderboard("--model", str(empty), "--task", "DSCS", "--output", str(output)) == 2
    line = _one_line(capsys)
    assert f"--model {str(empty)!r}" in line and "no model" in line
    assert "modules.json" in line  # what a model folder holds
    assert not (output / "mteb_results").exists() and not (output / "leaderboard.md").exists()


@pytest.mark.parametrize("option", ["--model", "--vectors"])
def test_an_empty_model_or_vector_name_is_refused(option, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # "" must not mean the current directory
    output = tmp_path / "out"
    assert _leaderboard(option, "", "--task", "DSCS", "--output", str(output)) == 2
    line = _one_line(capsys)
    assert f"{option} is empty" in line
    assert not (output / "mteb_results").exists()


def test_too_few_resamples_is_a_usage_error_before_any_work(tmp_path, capsys):
    output = tmp_path / "out"
    assert _leaderboard("--n-resamples", "1", "--output", str(output), "--task", "nope") == 2
    line = _one_line(capsys)
    assert "--n-resamples 1 is below the minimum of 100" in line and "10000" in line
    assert not output.exists()


def test_distilled_from_an_unknown_model_blames_vectors(tmp_path, capsys):
    output = tmp_path / "out"
    code = _leaderboard("--vectors", "distilled:nope", "--task", "DSCS", "--output", str(output))
    assert code == 2
    line = _one_line(capsys)
    assert "--vectors 'distilled:nope'" in line and "--model" not in line
    assert not (output / "mteb_results").exists()


def test_pickled_vectors_need_trust_pickle(tmp_path, capsys):
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=4)
    kv.add_vectors(["cat", "dog"], [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
    path = tmp_path / "tiny.kv"
    kv.save(str(path))
    output = tmp_path / "out"
    argv = ["--vectors", str(path), "--task", "DSCS", "--output", str(output)]
    assert _leaderboard(*argv) == 2
    line = _one_line(capsys)
    assert "--vectors" in line and "--trust-pickle" in line
    # with the opt-in the file is read; the unknown baseline then stops the run before any work
    assert _leaderboard(*argv, "--trust-pickle", "--baseline", "nope") == 2
    line = _one_line(capsys)
    assert "--baseline 'nope' is not one of the models" in line and "avg-cos (tiny)" in line
    assert not (output / "mteb_results").exists()


# --------------------------------------------------------------------------------------------
# the environment: no network, read-only HOME
# --------------------------------------------------------------------------------------------
def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_unreachable_hub_is_a_fast_clear_error(tmp_path):
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    env = _subprocess_env(
        HF_HUB_OFFLINE=None,
        TRANSFORMERS_OFFLINE=None,
        HF_ENDPOINT=endpoint,
        HF_HUB_DISABLE_TELEMETRY="1",
    )
    output = tmp_path / "out"
    argv = ["leaderboard", "--model", "notamodel", "--task", "DSCS", "--output", str(output)]
    # the Hub client's retries once took 84 s before this error; the command has to give up at
    # once, so the process is stopped after 60 s (imports and the task's data included)
    try:
        result = _run_cli([*argv, "--no-progress", "--no-figures"], env, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("an unreachable Hub kept `sts-extras leaderboard` retrying for over 60 s")
    assert result.returncode == 2, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "--model 'notamodel'" in lines[0] and "could not be reached" in lines[0]
    assert "HF_HUB_OFFLINE=1" in lines[0]  # what to do
    assert not (output / "mteb_results").exists()


def test_read_only_home_is_steered_around(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    home = blocker / "home"  # nothing can be created under it, whoever runs the test
    env = _subprocess_env(
        HOME=str(home),
        XDG_CACHE_HOME=None,
        XDG_CONFIG_HOME=None,
        MTEB_CACHE=None,
        MPLCONFIGDIR=None,
        HF_DATASETS_CACHE=None,
        STS_EXTRAS_CACHE=str(tmp_path / "sts-cache"),
        HF_HOME=os.environ.get("HF_HOME") or str(tmp_path / "hf"),
    )
    result = _run_cli(["leaderboard", "--task", "no-such-task", "--output", str(tmp_path)], env)
    assert result.returncode == 2, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "--task 'no-such-task' is neither" in lines[0]  # mteb was imported and asked


# --------------------------------------------------------------------------------------------
# the dispatcher and `power`
# --------------------------------------------------------------------------------------------
def test_a_malformed_option_is_one_line_too(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["leaderboard", "--n-resamples", "many"])
    assert exited.value.code == 2
    line = _one_line(capsys)
    assert "--n-resamples: 'many' is not a whole number" in line
    assert "see sts-extras leaderboard --help" in line


def test_an_os_error_about_a_path_the_user_gave_is_a_user_error(tmp_path, monkeypatch, capsys):
    leaderboard = tmp_path / "board.json"

    def unreadable(args):
        raise PermissionError(13, "Permission denied", str(leaderboard))

    monkeypatch.setattr(power_run, "run", unreadable)
    assert main(["power", "--leaderboard", str(leaderboard), "--n", "50"]) == 2
    line = _one_line(capsys, "power")
    assert f"--leaderboard {str(leaderboard)!r}" in line and "Permission denied" in line


@pytest.mark.parametrize(
    "content",
    [
        {"results": 3, "tasks": []},
        {"results": [1, 2], "tasks": 5},
        {
            "results": [
                {"task": "T", "model": "a", "pearson": 0.5, "scores": ["x", "y", "z", "w"]},
                {"task": "T", "model": "b", "pearson": 0.4, "scores": [1, 2, 3, 4]},
            ],
            "tasks": [],
        },
    ],
    ids=["results-not-a-list", "rows-not-objects", "scores-not-numbers"],
)
def test_a_malformed_leaderboard_json_is_named(content, tmp_path, capsys):
    path = tmp_path / "board.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    argv = ["--leaderboard", str(path), "--task", "T", "--model1", "a", "--model2", "b"]
    assert main(["power", *argv, "--n", "50"]) == 2
    line = _one_line(capsys, "power")
    assert "--leaderboard" in line and str(path) in line


def test_a_leaderboard_that_is_a_directory_says_so(tmp_path, capsys):
    assert main(["power", "--leaderboard", str(tmp_path), "--task", "T", "--model1", "a"]) == 2
    assert "is a directory" in _one_line(capsys, "power")
