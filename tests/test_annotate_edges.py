"""Edge inputs of ``sts-extras annotate``: named errors, exit 2.

Every user error below must exit with status 2 and one line on stderr that names the argument or
the file, before anything is printed or written.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sts_extras.annotation import draw_pairs, score_votes, simulate_campaigns
from sts_extras.cli import main
from sts_extras.errors import UserInputError

pytestmark = pytest.mark.filterwarnings("ignore::sts_extras.annotation.design.DesignWarning")


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def _votes(tmp_path, name="votes.csv"):
    rows = "".join(f"i{a},i{b},i{a},1\n" for a in range(6) for b in range(a + 1, 6))
    return _write(tmp_path / name, "item_a,item_b,winner,ballot\n" + rows)


def _user_error(capsys, argv):
    """Run ``argv``; assert exit 2, nothing on stdout and one line on stderr; return that line."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


# -- votes files, options and output paths --------------------------------------------------
def test_blank_cells_are_missing_labels_named_with_file_and_row(tmp_path, capsys):
    path = _write(tmp_path / "blank.csv", "item_a,item_b,winner\na,b,a\n,b,b\nc,a,c\n")
    err = _user_error(capsys, ["annotate", "score", str(path), "--no-selection"])
    assert str(path) in err and "row 1" in err and "line 3" in err and "`item_a` is missing" in err
    path = _write(tmp_path / "blank.csv", "item_a,item_b,winner\na,b,a\nc,b,  \n")
    err = _user_error(capsys, ["annotate", "score", str(path), "--no-selection"])
    assert str(path) in err and "row 1" in err and "`winner` is missing" in err
    with pytest.raises(UserInputError, match=r"row 0 .*`item_b` is missing"):
        score_votes({"item_a": ["a"], "item_b": [" "], "winner": ["a"]}, alpha=None)


def test_whitespace_around_item_names_is_stripped_everywhere(tmp_path, capsys):
    votes = {"item_a": [" a ", "a", "c"], "item_b": ["b", "b ", " a"], "winner": ["a", " a", "c "]}
    table = score_votes(votes, alpha=None, items=[" c", "a", "b"]).table
    assert table["item"].tolist() == ["c", "a", "b"]
    assert table["votes"].tolist() == [1, 3, 2]
    path = _write(tmp_path / "ws.csv", "item_a,item_b,winner\n a ,b, a \na,b,a\n")
    assert main(["annotate", "score", str(path), "--no-selection", "--format", "csv"]) == 0
    ranked = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))  # type: ignore[attr-defined]  # io.StringIO
    assert ranked["item"].tolist() == ["a", "b"]
    with pytest.raises(UserInputError, match="distinct"):
        draw_pairs(["a", " a"], 2, seed=0)


def test_an_item_named_like_the_tie_label_is_refused(tmp_path, capsys):
    path = _write(tmp_path / "tie.csv", "item_a,item_b,winner\ntie,b,tie\na,b,tie\n")
    err = _user_error(capsys, ["annotate", "score", str(path), "--no-selection"])
    assert str(path) in err and "'tie'" in err and "--tie-label" in err
    assert main(["annotate", "score", str(path), "--no-selection", "--tie-label", "="]) == 2
    capsys.readouterr()  # "tie" is now an item, and "tie" in row 1 is neither item nor "="
    with pytest.raises(UserInputError, match=r"tie label 'draw'"):
        score_votes({"item_a": ["draw"], "item_b": ["b"], "winner": ["b"]}, tie_label="draw")


def test_an_empty_votes_file_is_named(tmp_path, capsys):
    path = _write(tmp_path / "empty.csv", "")
    err = _user_error(capsys, ["annotate", "score", str(path)])
    assert str(path) in err and "is empty" in err and "item_a,item_b,winner" in err
    path = _write(tmp_path / "header.csv", "item_a,item_b,winner\n")
    err = _user_error(capsys, ["annotate", "score", str(path)])
    assert str(path) in err and "no rows" in err


def test_nothing_is_written_when_a_later_option_is_wrong(tmp_path, capsys):
    votes = _votes(tmp_path)
    output, following = tmp_path / "ranked.csv", tmp_path / "next.csv"
    argv = [
        "annotate",
        "score",
        str(votes),
        "--output",
        str(output),
        "--next-pairs",
        str(following),
    ]
    err = _user_error(capsys, argv)  # no --m
    assert "--next-pairs" in err and "--m" in err
    assert not output.exists() and not following.exists()
    err = _user_error(capsys, [*argv, "--m", "4", "--no-selection"])
    assert "--next-pairs" in err and "--no-selection" in err
    assert not output.exists() and not following.exists()


def test_output_may_not_overwrite_the_votes_or_another_output(tmp_path, capsys):
    votes = _votes(tmp_path)
    before = votes.read_bytes()
    err = _user_error(capsys, ["annotate", "score", str(votes), "--output", str(votes)])
    assert "--output" in err and "votes" in err
    assert votes.read_bytes() == before
    same = tmp_path / "same.csv"
    argv = ["annotate", "score", str(votes), "--output", str(same), "--next-pairs", str(same),
            "--m", "2"]  # fmt: skip
    err = _user_error(capsys, argv)
    assert "--output" in err and "--next-pairs" in err and not same.exists()


def test_figure_directory_is_refused_and_the_real_path_printed(tmp_path, capsys):
    argv = ["annotate", "simulate", "--reps", "1", "--n-items", "40", "--m", "4",
            "--n-ballots", "3", "--seed", "0"]  # fmt: skip
    err = _user_error(capsys, [*argv, "--figure", str(tmp_path)])
    assert "--figure" in err and "directory" in err
    assert list(tmp_path.iterdir()) == []
    err = _user_error(capsys, [*argv, "--figure", str(tmp_path / "fig.nope")])
    assert "--figure" in err and "'nope'" in err
    assert main([*argv, "--figure", str(tmp_path / "fig4")]) == 0
    written = tmp_path / "fig4.png"
    assert f"figure written to {written}" in capsys.readouterr().out
    assert written.stat().st_size > 0
    assert not (tmp_path / "fig4").exists()


def test_n_items_that_disagrees_with_z_is_an_error(tmp_path, capsys):
    z = _write(tmp_path / "z.txt", "0.1\n0.5\n0.9\n0.3\n0.7\n0.2\n")
    argv = ["annotate", "simulate", "--reps", "1", "--z", str(z), "--m", "4", "--n-ballots", "2"]
    err = _user_error(capsys, [*argv, "--n-items", "500"])
    assert "--n-items 500" in err and "6" in err and "--z" in err
    assert main([*argv, "--n-items", "6", "--format", "json"]) == 0
    capsys.readouterr()
    with pytest.raises(UserInputError, match="n_items"):
        simulate_campaigns(z=np.linspace(-0.5, 0.5, 6), n_items=500, n_reps=1, m=4, n_ballots=2)


def test_a_huge_pair_list_is_a_named_error_before_allocating(tmp_path, capsys):
    items = _write(tmp_path / "items.txt", "\n".join(f"p{i}" for i in range(100)) + "\n")
    pairs = tmp_path / "ballot1.csv"
    argv = ["annotate", "plan", "--items", str(items), "--m", "1000000", "--n-ballots", "3",
            "--pairs-out", str(pairs)]  # fmt: skip
    err = _user_error(capsys, argv)
    assert "50000000 pairs" in err and not pairs.exists()
    with pytest.raises(UserInputError, match="50000000 pairs"):
        draw_pairs(100, 10**6)


def _path_cases(tmp_path):
    votes = _votes(tmp_path)
    items = _write(tmp_path / "items.txt", "\n".join(f"i{k}" for k in range(6)) + "\n")
    folder = tmp_path / "folder"
    folder.mkdir()
    plan = ["annotate", "plan", "--items", str(items), "--m", "2", "--n-ballots", "2"]
    score = ["annotate", "score", str(votes), "--no-selection"]
    return {
        "votes directory": (["annotate", "score", str(folder)], "votes"),
        "votes missing": (["annotate", "score", str(tmp_path / "none.csv")], "votes"),
        "score --items directory": ([*score, "--items", str(folder)], "--items"),
        "plan --items directory": ([*plan[:3], str(folder), *plan[4:]], "--items"),
        "simulate --z directory": (["annotate", "simulate", "--z", str(folder)], "--z"),
        "--pairs-out directory": ([*plan, "--pairs-out", str(folder)], "--pairs-out"),
        "--output directory": ([*score, "--output", str(folder)], "--output"),
        "--output empty": ([*score, "--output", ""], "--output"),
        "--output under a file": ([*score, "--output", str(votes / "x.csv")], "--output"),
        "--output missing parent": (
            [*score, "--output", str(tmp_path / "no" / "x.csv")],
            "--output",
        ),  # fmt: skip
        "--next-pairs directory": (
            [*score[:3], "--next-pairs", str(folder), "--m", "2"],
            "--next-pairs",
        ),  # fmt: skip
    }


@pytest.mark.parametrize(
    "case",
    ["votes directory", "votes missing", "score --items directory", "plan --items directory",
     "simulate --z directory", "--pairs-out directory", "--output directory", "--output empty",
     "--output under a file", "--output missing parent", "--next-pairs directory"],
)  # fmt: skip
def test_path_arguments_exit_2_naming_the_argument(tmp_path, capsys, case):
    argv, option = _path_cases(tmp_path)[case]
    before = sorted(tmp_path.rglob("*"))
    err = _user_error(capsys, argv)
    assert option in err, err
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only folder")
def test_output_in_a_read_only_folder_exits_2(tmp_path, capsys):
    votes = _votes(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        argv = ["annotate", "score", str(votes), "--output", str(locked / "x.csv")]
        err = _user_error(capsys, argv)
        assert "--output" in err and "not writable" in err
    finally:
        locked.chmod(0o755)


def test_output_in_a_folder_the_user_cannot_write_exits_2(tmp_path, capsys, monkeypatch):
    # the same check as above where the tests run as root (who may write anywhere)
    votes = _votes(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir()
    access = os.access
    monkeypatch.setattr(
        os, "access", lambda path, mode: Path(path) != locked and access(path, mode)
    )
    err = _user_error(capsys, ["annotate", "score", str(votes), "--output", str(locked / "x.csv")])
    assert "--output" in err and "not writable" in err
    assert list(locked.iterdir()) == []


@pytest.mark.parametrize("command", ["plan", "simulate"])
def test_a_huge_n_ballots_is_refused_up_front(capsys, command):
    """Before: --n-ballots 1000000000 looped a billion times before any error."""
    extra = ["--n-items", "20", "--m", "4"] if command == "plan" else ["--reps", "1"]
    assert main(["annotate", command, "--n-ballots", "1000000000", *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "n_ballots" in err[0] and "10000" in err[0]
