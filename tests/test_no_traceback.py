"""Validate before work, never a traceback (issue 33, item 5; item 3's repeated vector words).

Each class of hostile input ends with the correct answer, or with one line naming the input and
a non-zero exit: no traceback, no temporary path.

* numbers beyond the float range (``1e309``, a 401-digit integer) are "out of range", from the
  one strict reader :mod:`sts_extras.io.numbers`, in every door (tables, leaderboard JSON,
  options);
* every JSON field ``power --leaderboard`` reads is checked for its type (a list where a task
  name belongs gave ``TypeError: unhashable``);
* a name with a control character (``--vectors`` file, ``--model`` display name) is refused
  naming the option before any model runs (it crashed after every cell had run, or was blamed
  on an internal ``plan.json``);
* degenerate inputs (all-zero vectors, constant scores) are named, and no NaN is written into a
  cell record;
* a closed output pipe (``| head -1``) ends the command quietly;
* a word repeated in a vector file keeps its first vector in every format, with a warning naming
  the word and both lines (refusing would reject published files such as GloVe 840B).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import pytest

from sts_extras._validation import MAX_SAMPLE_SIZE, as_float_vector, check_correlation, check_name
from sts_extras.cli import main
from sts_extras.errors import UserInputError
from sts_extras.io.numbers import NumberOutOfRangeError, json_number, parse_integer, parse_number

WORDS = ["a", "man", "woman", "is", "dancing", "exercising", "cat", "dog", "runs", "sits", "the",
         "on", "mat", "park", "child", "plays"]  # fmt: skip
HUGE = int("9" * 401)


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STS_EXTRAS_CACHE", str(tmp_path / "sts-cache"))


def _one_line(capsys, command: str) -> str:
    """The one error line of ``command`` on stderr (fails on a traceback or anything else)."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.strip().splitlines() if "Warning" not in line]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"sts-extras {command}: error: "), err
    assert "staging" not in lines[0] and tempfile.gettempdir() + "/sts-extras" not in lines[0]
    return lines[0]


def _vectors(path, rows: dict[str, list[float]] | None = None) -> str:
    rng = np.random.default_rng(0)
    rows = rows or {word: rng.normal(size=5).round(4).tolist() for word in WORDS}
    path.write_text(
        "".join(f"{word} {' '.join(map(str, vector))}\n" for word, vector in rows.items()),
        encoding="utf-8",
    )
    return str(path)


def _task(path) -> str:
    rng = np.random.default_rng(1)
    rows = ["sentence1,sentence2,score"]
    for _ in range(30):
        first, second = (" ".join(rng.choice(WORDS, 4)) for _ in range(2))
        rows.append(f"{first},{second},{rng.uniform(0, 5):.2f}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return str(path)


def _leaderboard(*argv: str) -> int:
    return main(["leaderboard", *argv, "--no-progress", "--no-figures", "--n-resamples", "200"])


# --------------------------------------------------------------------------------------------
# numbers too large for a float: "out of range", from io/numbers.py
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "read",
    [
        lambda: parse_number("1e309", "f, row 2: `score`"),
        lambda: parse_number(" -1E+400 ", "f, row 2: `score`"),
        lambda: parse_number("9" * 401, "f, row 2: `score`"),
        lambda: json_number(HUGE, "f, row 2: `score`"),
        lambda: json_number(-HUGE, "f, row 2: `score`"),
        lambda: json_number(json.loads("1e309"), "f, row 2: `score`"),  # JSON's overflow: inf
        lambda: json_number(10**5000, "f, row 2: `score`"),  # beyond int -> str's limit too
    ],
    ids=["1e309", "-1E+400", "401-digits-text", "401-digit-int", "negative", "json-1e309", "5001"],
)
def test_a_number_beyond_the_float_range_is_out_of_range_not_not_a_number(read):
    with pytest.raises(NumberOutOfRangeError) as caught:
        read()
    message = str(caught.value)
    assert message.startswith("f, row 2: `score`: ") and "out of range" in message
    assert "not a number" not in message and len(message) < 200  # cut, not 401 digits


def test_the_checks_of_the_library_say_out_of_range_too():
    with pytest.raises(NumberOutOfRangeError, match="`r1` is out of range"):
        check_correlation(HUGE, "r1")
    with pytest.raises(NumberOutOfRangeError, match="`x` holds a number out of range"):
        as_float_vector([1, HUGE, 2], "x")
    assert parse_integer(" 12 ", "n") == 12
    for text in ("1_000", "١٢", "1.0", "9" * 4001):
        with pytest.raises(UserInputError, match="^n: "):
            parse_integer(text, "n")


@pytest.mark.parametrize("value", ["1e39", "1e309", "-" + "9" * 401])
def test_a_vector_value_beyond_float32_is_out_of_range_naming_the_line(tmp_path, value):
    from sts_extras.vectors.formats import read_text_vectors

    path = tmp_path / "v.txt"
    path.write_text(f"a 1 2\nb {value} 2\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning on the way
        with pytest.raises(UserInputError, match="line 2: the vector of 'b' holds a value out of"):
            read_text_vectors(path, header=False)


@pytest.mark.parametrize("score", [str(HUGE), "1e309", str(-HUGE)])
def test_describe_names_the_file_row_and_column_of_a_huge_json_lines_score(tmp_path, capsys, score):
    path = tmp_path / "x.jsonl"
    rows = ['{"sentence1": "A.", "sentence2": "B.", "score": 1}',
            f'{{"sentence1": "C.", "sentence2": "D.", "score": {score}}}',
            '{"sentence1": "E.", "sentence2": "F.", "score": 2}']  # fmt: skip
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["describe", str(path)]) == 2
    line = _one_line(capsys, "describe")
    assert str(path) in line and "row 2" in line and "`score`" in line and "out of range" in line


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--r1", "1e309"], "argument --r1: '1e309' is out of range"),
        (["--r12", "-1e400"], "argument --r12: '-1e400' is out of range"),
        (["--r1", "nan"], "argument --r1: 'nan' is not a number"),
        (["--alpha", "inf"], "argument --alpha: 'inf' is not a number"),
        (["--n", "1_000"], "argument --n: '1_000' is not a whole number"),
        (["--seed", "9" * 5000], "argument --seed: '99999999999999999999'... (5000 characters)"),
    ],
)
def test_a_number_option_is_read_strictly_and_named(capsys, argv, expected):
    base = {"--r1": "0.6", "--r2": "0.5", "--r12": "0.5", "--n": "50"}
    base.update(dict(zip(argv[::2], argv[1::2])))
    with pytest.raises(SystemExit) as caught:  # --r12=-1e400: argparse takes -1e400 for an option
        main(["power", *(f"{option}={value}" for option, value in base.items())])
    assert caught.value.code == 2
    line = _one_line(capsys, "power")
    assert expected in line


def test_a_sample_size_beyond_what_a_float_holds_is_refused_by_name(capsys):
    argv = ["power", "--r1", "0.6", "--r2", "0.5", "--r12", "0.5", "--n", str(10**30)]
    assert main(argv) == 2
    assert f"--n must be at most 2**53 = {MAX_SAMPLE_SIZE}" in _one_line(capsys, "power")
    argv[-1] = str(MAX_SAMPLE_SIZE)  # the largest allowed still answers
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("power: 1")


# --------------------------------------------------------------------------------------------
# power --leaderboard: every JSON field checked for its type
# --------------------------------------------------------------------------------------------
def _board() -> dict:
    rng = np.random.default_rng(2)
    gold = rng.normal(size=30)
    a, b = gold + rng.normal(size=30), gold + rng.normal(size=30)
    return {
        "settings": {"baseline": "B"},
        "tasks": [{"name": "T", "n": 30}],
        "results": [
            {"task": "T", "model": "A", "pearson": 0.6, "scores": a.round(6).tolist()},
            {"task": "T", "model": "B", "pearson": 0.5, "scores": b.round(6).tolist()},
        ],
    }


def _set(path: tuple, value):
    def change(board: dict) -> None:
        target = board
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


HOSTILE_BOARDS = {
    "task-is-a-list": (_set(("results", 0, "task"), ["T"]), "results[0]: `task`: expected a name"),
    "model-is-an-object": (_set(("results", 1, "model"), {"a": 1}), "results[1]: `model`"),
    "task-name-is-a-list": (_set(("tasks", 0, "name"), ["T"]), "tasks[0]: `name`"),
    "baseline-is-a-list": (_set(("settings", "baseline"), ["B"]), "settings: `baseline`"),
    "settings-is-a-list": (_set(("settings",), [1]), "`settings` must be an object"),
    "score-401-digits": (_set(("results", 0, "scores", 3), HUGE), "`scores`[3]: 99999"),
    "pearson-401-digits": (_set(("results", 0, "pearson"), HUGE), "`pearson`: 99999"),
    "pearson-above-1": (_set(("results", 0, "pearson"), 2.0), "`pearson` must lie strictly"),
    "n-401-digits": (_set(("tasks", 0, "n"), HUGE), "the n of task 'T': expected at least 1"),
    "n-is-a-list": (_set(("tasks", 0, "n"), [30]), "the n of task 'T': expected a whole number"),
    "constant-scores": (_set(("results", 1, "scores"), [0.5] * 30), "`scores` are constant"),
    "scores-a-string": (_set(("results", 1, "scores"), "0.5"), "`scores` is not a list"),
    "row-twice": (lambda board: board["results"].append(dict(board["results"][0])), "repeats"),
}


@pytest.mark.parametrize("name", list(HOSTILE_BOARDS))
def test_power_reads_every_leaderboard_field_by_its_type(tmp_path, capsys, name):
    change, expected = HOSTILE_BOARDS[name]
    board = _board()
    change(board)
    path = tmp_path / "leaderboard.json"
    path.write_text(json.dumps(board), encoding="utf-8")
    argv = ["power", "--leaderboard", str(path), "--task", "T", "--model1", "A"]
    assert main(argv) == 2
    line = _one_line(capsys, "power")
    assert str(path) in line and expected in line, line


def test_power_answers_from_the_untouched_leaderboard(tmp_path, capsys):
    path = tmp_path / "leaderboard.json"
    path.write_text(json.dumps(_board()), encoding="utf-8")
    assert main(["power", "--leaderboard", str(path), "--task", "T", "--model1", "A"]) == 0
    assert "n: 30" in capsys.readouterr().out


def test_a_1e309_written_in_the_leaderboard_is_out_of_range(tmp_path, capsys):
    path = tmp_path / "leaderboard.json"
    path.write_text(json.dumps(_board()).replace('"pearson": 0.6', '"pearson": 1e309'), "utf-8")
    assert main(["power", "--leaderboard", str(path), "--task", "T", "--model1", "A"]) == 2
    assert "`pearson`: a number that overflows to infinity is out of range" in _one_line(
        capsys, "power"
    )


# --------------------------------------------------------------------------------------------
# names: checked before any model runs
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("char", ["\x01", "\x1b", "\x7f", "\x85", "\u2028", "\t", "\n"])
def test_check_name_refuses_every_control_character(char):
    with pytest.raises(UserInputError, match=f"U\\+{ord(char):04X}"):
        check_name(f"bad{char}name", "--vectors 'x'")
    assert check_name("avg-cos (glove) <b>ü</b> =1", "x") == "avg-cos (glove) <b>ü</b> =1"


@pytest.mark.parametrize("char", ["\x01", "\x1b", "\x85"])
def test_a_vector_file_name_with_a_control_character_is_refused_before_any_model_runs(
    tmp_path, capsys, char
):
    vectors = _vectors(tmp_path / f"bad{char}name.txt")
    output = tmp_path / "out"
    assert _leaderboard("--vectors", vectors, "--task", _task(tmp_path / "t.csv"),
                        "--output", str(output)) == 2  # fmt: skip
    line = _one_line(capsys, "leaderboard")
    assert f"--vectors {vectors!r}" in line and f"U+{ord(char):04X}" in line
    assert not (output / "cells").exists() and not (output / "leaderboard.json").exists()


@pytest.mark.parametrize("spec", ["all-MiniLM-L6-v2=bad\x07name", "all-MiniLM-L6-v2=a\u2029b"])
def test_a_model_display_name_with_a_control_character_names_the_option_not_plan_json(
    tmp_path, capsys, spec
):
    output = tmp_path / "out"
    assert _leaderboard("--model", spec, "--task", _task(tmp_path / "t.csv"),
                        "--output", str(output)) == 2  # fmt: skip
    line = _one_line(capsys, "leaderboard")
    assert f"--model {spec!r}" in line and "control character" in line
    assert "plan.json" not in line
    assert not (output / "cells").exists() and not (output / "leaderboard.json").exists()


# --------------------------------------------------------------------------------------------
# degenerate inputs: named, never a NaN in a record
# --------------------------------------------------------------------------------------------
def test_all_zero_vectors_are_refused_naming_the_file(tmp_path, capsys):
    vectors = _vectors(tmp_path / "zero.txt", {word: [0.0] * 5 for word in WORDS})
    output = tmp_path / "out"
    assert _leaderboard("--vectors", vectors, "--task", _task(tmp_path / "t.csv"),
                        "--output", str(output)) == 2  # fmt: skip
    line = _one_line(capsys, "leaderboard")
    assert f"--vectors {vectors!r}" in line and "every vector is zero" in line
    assert not (output / "cells").exists()


def test_constant_scores_fail_their_cells_by_name_and_the_records_read_back(tmp_path, capsys):
    """Every word has the same vector: every cosine is 1, MTEB's Pearson r is NaN. The cells fail
    with an error naming model and task; no NaN reaches a record, so the run reads back."""
    from sts_extras.leaderboard.run.cells import read_cells

    vectors = _vectors(tmp_path / "same.txt", {word: [1.0, 2.0, 3.0, 4.0, 5.0] for word in WORDS})
    output = tmp_path / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = _leaderboard("--vectors", vectors, "--task", _task(tmp_path / "t.csv"),
                            "--output", str(output))  # fmt: skip
    captured = capsys.readouterr()
    assert code == 1 and "Traceback" not in captured.err
    assert "failed: avg-cos (same) on t" in captured.err
    results = json.loads((output / "leaderboard.json").read_text("utf-8"))["results"]
    errors = {row["model"]: row["error"] for row in results}
    assert "model 'avg-cos (same)' on task 't'" in errors["avg-cos (same)"]
    assert "constant or not numbers" in errors["avg-cos (same)"]
    assert "NaN" not in "".join(p.read_text("utf-8") for p in (output / "cells").rglob("*.json"))
    read_cells(output)  # the records of a run with failed cells read back


def test_an_undefined_pearson_is_a_named_cell_error():
    from sts_extras.leaderboard.run.evaluation import _undefined_pearson

    assert _undefined_pearson("m", "t", {("default", "test"): 0.5, ("x", "y"): None}) is None
    error = _undefined_pearson("m", "t", {("default", "test"): float("nan")})
    assert error is not None and error.startswith("model 'm' on task 't' (default/test)")


# --------------------------------------------------------------------------------------------
# a repeated word: the first vector, in every format, with a warning naming both lines
# --------------------------------------------------------------------------------------------
def _word2vec_binary(path, rows: list[tuple[str, list[float]]]) -> None:
    data = f"{len(rows)} 3\n".encode()
    for word, vector in rows:
        data += word.encode() + b" " + np.asarray(vector, dtype="<f4").tobytes() + b"\n"
    path.write_bytes(data)


@pytest.mark.parametrize("layout", ["glove", "word2vec-text", "word2vec-binary", "arrays"])
def test_a_repeated_word_keeps_its_first_vector_in_every_format_with_a_warning(tmp_path, layout):
    from sts_extras.vectors import WordVectors
    from sts_extras.vectors.formats import RepeatedWordsWarning

    rows = [("cat", [1.0, 0.0, 0.0]), ("dog", [0.0, 1.0, 0.0]), ("cat", [0.0, 0.0, 1.0])]
    text = "".join(f"{word} {' '.join(map(str, vector))}\n" for word, vector in rows)
    path = tmp_path / "v.txt"
    with pytest.warns(RepeatedWordsWarning) as caught:
        if layout == "glove":
            path.write_text(text, encoding="utf-8")
            vectors = WordVectors.from_glove(path)
            where = "'cat' on lines 1 and 3"
        elif layout == "word2vec-text":
            path.write_text("3 3\n" + text, encoding="utf-8")
            vectors = WordVectors.from_word2vec(path, binary=False)
            where = "'cat' on lines 2 and 4"
        elif layout == "word2vec-binary":
            path = tmp_path / "v.bin"
            _word2vec_binary(path, rows)
            vectors = WordVectors.from_word2vec(path)
            where = "'cat' on vectors 1 and 3"
        else:
            vectors = WordVectors.from_arrays([w for w, _ in rows], np.array([v for _, v in rows]))
            where = "'cat' at 0 and 2"
    message = str(caught[0].message)
    assert len(caught) == 1 and where in message
    if layout != "arrays":
        assert message.startswith(f"{path}: 1 repeated word(s), the first vector of each kept: ")
    first = vectors.vectors_for([vectors.vocabulary.key_to_index["cat"]])[0]
    assert first.tolist() == [1.0, 0.0, 0.0]  # the first line's vector, whatever the format


def test_the_command_line_shows_the_repeated_words_warning_as_one_line(tmp_path, capsys):
    path = tmp_path / "dup.txt"
    _vectors(path)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("cat 9 9 9 9 9\n")
    # --baseline that matches nothing: the run stops after the vectors were read, before work
    assert _leaderboard("--vectors", str(path), "--task", _task(tmp_path / "t.csv"),
                        "--baseline", "nope", "--output", str(tmp_path / "out")) == 2  # fmt: skip
    err = capsys.readouterr().err
    warning = f"sts-extras: warning: {path}: 1 repeated word(s), the first vector of each kept: "
    assert f"{warning}'cat' on lines 7 and {len(WORDS) + 1}." in err
    assert "warnings.warn" not in err


# --------------------------------------------------------------------------------------------
# subprocess: a closed pipe, and the no-traceback guarantee of the real console
# --------------------------------------------------------------------------------------------
def _run(argv: list[str], **options) -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    return subprocess.run(
        [sys.executable, "-m", "sts_extras.cli", *argv],
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        timeout=300,
        env=env,
        **options,
    )


@pytest.mark.parametrize(
    ("argv", "status"),
    [
        (["power", "--r1", "0.6", "--r2", "0.5", "--r12", "0.5", "--n", "50"], 1),
        (["power", "--help"], 0),
    ],
)
def test_a_closed_output_pipe_ends_quietly(argv, status):
    """``sts-extras power ... | head -1``: the reader is gone before the first write."""
    read, write = os.pipe()
    os.close(read)
    try:
        finished = _run(argv, stdout=write)
    finally:
        os.close(write)
    assert finished.returncode == status
    assert "Traceback" not in finished.stderr and "BrokenPipe" not in finished.stderr


def test_hostile_inputs_through_the_console_end_in_one_line_and_a_non_zero_exit(tmp_path):
    board = _board()
    board["results"][0]["task"] = ["T"]
    leaderboard = tmp_path / "leaderboard.json"
    leaderboard.write_text(json.dumps(board), encoding="utf-8")
    attacks = [
        ["power", "--leaderboard", str(leaderboard), "--task", "T", "--model1", "A"],
        ["leaderboard", "--vectors", _vectors(tmp_path / "a\x01b.txt"), "--task",
         _task(tmp_path / "t.csv"), "--output", str(tmp_path / "out"), "--no-progress"],
    ]  # fmt: skip
    for argv in attacks:
        finished = _run(argv, stdout=subprocess.DEVNULL)
        assert finished.returncode == 2, (argv[0], finished.stderr)
        assert "Traceback" not in finished.stderr
        assert len(finished.stderr.strip().splitlines()) == 1, finished.stderr
        assert "staging" not in finished.stderr and "/tmp/" not in finished.stderr.replace(
            str(tmp_path), ""
        )
