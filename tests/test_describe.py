"""`sts-extras describe`: counts, score distribution, lengths, readability, JSON, errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sts_extras.cli import main
from sts_extras.describe import READABILITY_INDICES, describe_dataset


def test_describe_dscs_counts_and_scores():
    description = describe_dataset("dscs")
    assert description["n_pairs"] == 50
    assert description["n_unique_sentences"] == 52  # the 52 sentences of Sec. 4.2
    assert description["score"]["min"] == 0.13 and description["score"]["max"] == 4.33
    assert sum(description["score"]["histogram"]["counts"]) == 50
    assert description["score"]["histogram"]["edges"][0] == 0.0
    assert description["score"]["histogram"]["edges"][-1] == 5.0


def test_describe_stss131_uses_its_0_to_4_scale():
    description = describe_dataset("stss131")
    assert description["n_pairs"] == 64
    assert description["score"]["range"] == [0.0, 4.0]
    assert description["score"]["histogram"]["edges"][-1] == 4.0
    assert sum(description["score"]["histogram"]["counts"]) == 64


def test_dscs_needs_a_12th_grade_reader_and_stss131_much_less():
    """Sec. 4.2 of the DSCS paper: DSCS needs about a 12th-grade reader."""
    dscs = describe_dataset("dscs")["readability"]
    stss = describe_dataset("stss131")["readability"]
    assert set(READABILITY_INDICES) <= set(dscs)
    assert 11.0 <= dscs["text_standard"] <= 14.0
    assert stss["text_standard"] < dscs["text_standard"] - 4
    assert dscs["share_text_standard_below_10"] < 0.3 < stss["share_text_standard_below_10"]


def test_cli_text_report(capsys):
    assert main(["describe", "dscs"]) == 0
    out = capsys.readouterr().out
    assert "pairs: 50" in out and "score histogram:" in out and "Gunning fog" in out


def test_cli_json_report_is_machine_readable(capsys):
    assert main(["describe", "stss131", "--config", "all", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["n_pairs"] == 66 and payload["config"] == "all"


def test_cli_unknown_dataset_exits_nonzero_with_the_valid_names_and_no_traceback():
    result = subprocess.run(
        [sys.executable, "-m", "sts_extras.cli", "describe", "sick"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "Unknown dataset 'sick'; valid names: 'dscs', 'stss131'." in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("config", ["all"])
def test_cli_unknown_config_for_dscs_is_an_error(config, capsys):
    assert main(["describe", "dscs", "--config", config]) == 2
    assert "valid configs: 'default'" in capsys.readouterr().err


def _scores_file(tmp_path, *scores: str):
    path = tmp_path / "wide.csv"
    rows = [f"s{index}a,s{index}b,{score}" for index, score in enumerate(scores)]
    path.write_text("sentence1,sentence2,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_score_range_too_wide_for_half_points_gets_ten_bins(tmp_path):
    """0 to 10^9 in half points would be 2 x 10^9 bins (16 GB of edges): ten bins instead."""
    from sts_extras.describe import describe_file

    histogram = describe_file(_scores_file(tmp_path, "0", "5", "1e9"))["score"]["histogram"]
    assert len(histogram["edges"]) == 11 and histogram["edges"][-1] == 1e9
    assert sum(histogram["counts"]) == 3


@pytest.mark.parametrize("scores", [("1e308", "-1e308", "0"), ("1e308", "1e308", "0")])
def test_scores_whose_statistics_overflow_a_float_are_one_error(tmp_path, capsys, scores):
    """-1e308 .. 1e308 are finite, but their range, mean or sd is not: an error naming the
    file (once an OverflowError traceback from the histogram)."""
    path = _scores_file(tmp_path, *scores)
    assert main(["describe", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert f"describe {path}: the scores'" in err and "overflows a 64-bit float" in err
