"""``sts-extras annotate plan | score | simulate`` through the real dispatcher."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from sts_extras.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::sts_extras.annotation.design.DesignWarning")


def test_plan_reports_eq2_to_eq4(capsys):
    assert main(["annotate", "plan", "--n-items", "990", "--m", "20"]) == 0
    out = capsys.readouterr().out
    assert "990, 495, 248, 124, 62, 31, 16" in out
    assert "19660 pairs = 39320 item-comparisons" in out
    assert "M_top (Eq. 4): 140" in out


def test_plan_json_warnings_and_first_ballot(tmp_path, capsys):
    items = tmp_path / "items.txt"
    items.write_text("\n".join(f"pair-{i}" for i in range(40)) + "\n", encoding="utf-8")
    pairs = tmp_path / "ballot1.csv"
    argv = ["annotate", "plan", "--items", str(items), "--m", "10", "--n-ballots", "3",
            "--pairs-out", str(pairs), "--seed", "1", "--format", "json"]  # fmt: skip
    assert main(argv) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["items_per_ballot"] == [40, 20, 10]
    assert any("M_top = n_b * M = 30 < 100" in text for text in plan["advice"])
    ballot = pd.read_csv(pairs, dtype=str)
    assert list(ballot.columns) == ["item_a", "item_b", "ballot"]
    assert len(ballot) == 200
    assert pd.concat([ballot.item_a, ballot.item_b]).value_counts().eq(10).all()


def test_plan_errors_exit_2(capsys):
    assert main(["annotate", "plan", "--n-items", "990", "--m", "20", "--alpha", "1.5"]) == 2
    assert "alpha" in capsys.readouterr().err
    assert main(["annotate", "plan", "--n-items", "990", "--m", "20", "--n-ballots", "1"]) == 2
    assert "n_ballots" in capsys.readouterr().err


def _votes(tmp_path):
    rows = [(f"i{a}", f"i{b}", f"i{min(a, b)}", 1) for a in range(8) for b in range(a + 1, 8)]
    path = tmp_path / "votes.csv"
    pd.DataFrame(rows, columns=["item_a", "item_b", "winner", "ballot"]).to_csv(path, index=False)
    return path


def test_score_ranks_and_draws_the_next_ballot(tmp_path, capsys):
    path = _votes(tmp_path)
    out_csv, next_csv = tmp_path / "ranked.csv", tmp_path / "next.csv"
    argv = ["annotate", "score", str(path), "--output", str(out_csv), "--next-pairs",
            str(next_csv), "--m", "4", "--seed", "0", "--format", "json"]  # fmt: skip
    assert main(argv) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [row["item"] for row in payload["ranking"]] == [f"i{k}" for k in range(8)]
    assert payload["next_items"] == ["i0", "i1", "i2", "i3"]  # round(0.5 * 8)
    assert pd.read_csv(out_csv)["rank"].tolist() == list(range(1, 9))
    following = pd.read_csv(next_csv, dtype=str)
    assert set(following["ballot"]) == {"2"}
    counts = pd.concat([following.item_a, following.item_b]).value_counts()
    assert counts.to_dict() == {f"i{k}": 4 for k in range(4)}


def test_score_text_and_bad_votes(tmp_path, capsys):
    path = _votes(tmp_path)
    assert main(["annotate", "score", str(path), "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "8 items ranked from 28 votes" in out and "next ballot: 4 items selected" in out
    frame = pd.read_csv(path, dtype=str)
    frame.loc[5, "winner"] = "i7"
    frame.to_csv(path, index=False)
    assert main(["annotate", "score", str(path)]) == 2
    err = capsys.readouterr().err
    assert "row 5" in err and "line 7" in err and "'i7' is neither" in err


def test_simulate_json_and_figure(tmp_path, capsys):
    figure = tmp_path / "fig4.png"
    argv = ["annotate", "simulate", "--reps", "2", "--seed", "3", "--distribution", "power_law",
            "--n-items", "100", "--m", "8", "--n-ballots", "4", "--format", "json",
            "--figure", str(figure)]  # fmt: skip
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert set(summary) == {"uniform", "adaptive"}
    assert set(summary["adaptive"]) == {"rho_w", "tau_w", "spearman", "kendall"}
    assert set(summary["adaptive"]["tau_w"]) == {"mean", "sd"}
    assert figure.stat().st_size > 0


def test_simulate_text_compares_with_the_paper(capsys):
    argv = ["annotate", "simulate", "--reps", "3", "--published-code"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "exponential (3 repetitions)" in out
    assert "(paper)" in out and "compare tau_w only" in out
