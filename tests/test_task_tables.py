"""Task tables: a CSV file without a header line, a task named after MTEB's with local data, and a
pair given twice (in either order) warned about with both rows named, or refused on request."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from sts_extras.annotation.tables import DuplicatePairWarning, read_sts_table
from sts_extras.errors import UserInputError

STSB_TEST = Path(__file__).resolve().parents[2] / "shared" / "data" / "stsb-en" / "test.csv"
needs_stsb = pytest.mark.skipif(not STSB_TEST.is_file(), reason="needs ../shared/data/stsb-en")


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@needs_stsb
def test_stsb_test_file_without_header_is_read_whole_and_the_reversed_pair_is_named() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = read_sts_table(STSB_TEST, "--task")
    assert len(table.frame) == 1379  # the first line is data, not a header
    assert table.frame.iloc[0].tolist() == [
        "A girl is styling her hair.",
        "A girl is brushing her hair.",
        2.5,
    ]
    messages = [str(w.message) for w in caught if w.category is DuplicatePairWarning]
    expected = (
        f"--task {STSB_TEST}: the pair 'A man is dancing.' / 'A woman is exercising.' appears "
        "twice: row 180 (line 180) with score 0.4 and row 181 (line 181), reversed, with score "
        "0.25; both rows are kept, as MTEB keeps them (duplicate_pairs='refuse' refuses such a "
        "file)."
    )
    assert expected in messages
    # every row is kept, in file order, as MTEB keeps them
    assert table.frame["score"].iloc[179:181].tolist() == [0.4, 0.25]


@needs_stsb
def test_duplicate_pairs_refuse_makes_the_repeated_pair_an_error() -> None:
    with pytest.raises(UserInputError, match=r"row 10 \(line 10\).*row 11 \(line 11\)"):
        read_sts_table(STSB_TEST, "--task", duplicate_pairs="refuse")


def test_a_pair_in_either_order_with_spacing_differences_is_one_pair(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "t.csv",
        "sentence1,sentence2,score\nA cat.,A  dog.,1\nRain.,Sun.,0\nA dog.,A cat.,3\nHi.,Yo.,5\n",
    )
    with pytest.warns(DuplicatePairWarning, match=r"row 1 \(line 2\) with score 1 and row 3 "):
        table = read_sts_table(path)
    assert len(table.frame) == 4
    with pytest.raises(UserInputError, match="appears twice"):
        read_sts_table(path, duplicate_pairs="refuse")
    with pytest.raises(UserInputError, match="duplicate_pairs"):
        read_sts_table(path, duplicate_pairs="ignore")


def test_header_rule_names_columns_or_starts_with_a_number(tmp_path: Path) -> None:
    rows = "A cat.,A dog.,2\nRain.,Sun.,0\nHi.,Hello.,5\n"
    with_header = read_sts_table(_write(tmp_path / "h.csv", "sentence1,sentence2,score\n" + rows))
    without = read_sts_table(_write(tmp_path / "n.csv", rows))
    assert with_header.frame.equals(without.frame)
    # a first row of three cells whose third is not a number is a header: named wrongly, refused
    wrong = _write(tmp_path / "w.csv", "s1,s2,similarity\n" + rows)
    with pytest.raises(UserInputError, match="missing column"):
        read_sts_table(wrong)
    # without a header every row has three cells; the row is named by its line
    short = _write(tmp_path / "s.csv", rows + "Only one,2\n")
    with pytest.raises(UserInputError, match=r"row 4 \(line 4\): 2 cells"):
        read_sts_table(short)
    bad = _write(tmp_path / "b.csv", rows + "x,y,lots\n")
    with pytest.raises(UserInputError, match=r"row 4 \(line 4\): `score`"):
        read_sts_table(bad)


def test_name_equals_file_makes_mteb_task_with_local_data(tmp_path: Path) -> None:
    from sts_extras.integrations.mteb.tasks import from_csv
    from sts_extras.leaderboard.run.resolve import resolve_tasks

    path = _write(tmp_path / "bio.csv", "A cat.,A dog.,2\nRain.,Sun.,0\nHi.,Hello.,4\n")
    task = from_csv(path, mteb_task="biosses")
    assert task.metadata.name == "BIOSSES"
    assert task.metadata.main_score == "cosine_spearman"
    assert (task.min_score, task.max_score) == (0.0, 5.0)  # MTEB's range, not the file's
    assert task.metadata.dataset["path"] == str(path.resolve())
    (resolved,) = resolve_tasks([f"BIOSSES={path}"])
    assert resolved.metadata.name == "BIOSSES"
    assert resolved.dataset is not None and len(resolved.dataset["test"]) == 3
    # any other name names a plain file task
    (plain,) = resolve_tasks([f"mine={path}"])
    assert (plain.metadata.name, plain.metadata.main_score) == ("mine", "pearson")
    with pytest.raises(UserInputError, match="subsets"):
        from_csv(path, mteb_task="STS17")
    with pytest.raises(UserInputError, match="score range"):
        from_csv(path, mteb_task="BIOSSES", score_range=(0, 4))
    with pytest.raises(UserInputError, match="is not an MTEB STS task"):
        from_csv(path, mteb_task="NoSuchTask")
