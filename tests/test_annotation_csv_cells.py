"""CSV/TSV cells meant for spreadsheets and crowd platforms are neutralised (issue 33, item 1).

OWASP's CSV-injection rule: a text cell that begins with ``= + - @``, tab or CR gets a leading
``'``; numbers stay numbers; and our readers undo it exactly, so the rule is a bijection.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sts_extras.io.csv_cells import (
    FORMULA_CHARACTERS,
    neutralise_cell,
    neutralise_frame,
    restore_cell,
    restore_frame,
)

# texts biased towards the interesting starts: quotes, then formula characters
_starts = st.text(alphabet="'=+-@\t\r\n\"x ", max_size=6)
_texts = st.builds(lambda a, b: a + b, _starts, st.text(max_size=20))


@given(_texts)
def test_restore_inverts_neutralise_for_every_text(text: str) -> None:
    assert restore_cell(neutralise_cell(text)) == text


@given(_texts)
def test_a_neutralised_cell_never_begins_with_a_formula_character(text: str) -> None:
    written = neutralise_cell(text)
    assert not written[:1] or written[0] not in FORMULA_CHARACTERS
    # and only cells that needed it changed, by exactly one quote
    if written != text:
        assert written == "'" + text
        assert text.lstrip("'")[:1] in set(FORMULA_CHARACTERS)


@given(st.lists(_texts, min_size=1, max_size=5))
def test_neutralise_is_injective(texts: list[str]) -> None:
    assert len({neutralise_cell(t) for t in texts}) == len(set(texts))


def test_the_owasp_prefixes_and_a_users_own_quote() -> None:
    for text in ["=1+1", "+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]:
        assert neutralise_cell(text) == "'" + text
    assert neutralise_cell("'=x") == "''=x"
    assert restore_cell("''=x") == "'=x"
    assert neutralise_cell("it's =fine") == "it's =fine"
    assert restore_cell("'plain'") == "'plain'"


@given(st.lists(st.tuples(_texts, st.floats(allow_nan=False, width=32)), max_size=8))
def test_frame_round_trip_through_csv_keeps_text_and_numbers(rows: list[tuple[str, float]]) -> None:
    frame = pd.DataFrame(rows, columns=["sentence", "delta"]).astype({"delta": "float64"})
    written = neutralise_frame(frame)
    # numbers are untouched, so a negative difference is still a number in the file
    pd.testing.assert_series_equal(written["delta"], frame["delta"])
    for cell in written["sentence"]:
        assert not cell[:1] or cell[0] not in FORMULA_CHARACTERS
    assert restore_frame(written).equals(frame)


def test_negative_numbers_are_written_as_numbers() -> None:
    frame = pd.DataFrame({"model": ["-m", '=HYPERLINK("x")'], "delta_r": [-0.25, 0.5]})
    text = neutralise_frame(frame).to_csv(index=False)
    assert text.splitlines() == [
        "model,delta_r",
        "'-m,-0.25",
        '"\'=HYPERLINK(""x"")",0.5',
    ]
    back = restore_frame(pd.read_csv(io.StringIO(text)))
    assert back.equals(frame)


# --------------------------------------------------------------------------------------------
# Every annotation CSV we write is neutralised, and our readers read back what we wrote
# --------------------------------------------------------------------------------------------
_HOSTILE = {
    "=1+1": ('=HYPERLINK("http://x.example","click")', "A cat sits."),
    "-2": ("-3 degrees tonight.", "It is cold."),
    "@SUM(A1)": ("@user hi", "Hello there."),
    "+4": ("+1 for that idea.", "I agree."),
    "'=x": ("'=quoted already", "It was quoted."),
    "p6": ("A plain sentence.", "Another plain one."),
}


def _cells(path) -> list[str]:
    import csv

    with open(path, encoding="utf-8", newline="") as handle:
        return [cell for row in csv.reader(handle) for cell in row]


def test_ballots_votes_and_datasets_are_neutralised_and_read_back_exactly(tmp_path, capsys):
    import csv

    from sts_extras.annotation.tables import csv_text, read_csv_text, read_sts_table
    from sts_extras.cli import main

    # the pairs as a spreadsheet-safe writer (ours: csv_text) writes them, so that the text
    # read is exactly _HOSTILE's, a user's own leading quote included
    pairs = tmp_path / "pairs.csv"
    table = pd.DataFrame(
        [[pair_id, *texts] for pair_id, texts in _HOSTILE.items()],
        columns=["id", "sentence1", "sentence2"],
    )
    pairs.write_text(csv_text(table), encoding="utf-8")
    assert all(not cell or cell[0] not in FORMULA_CHARACTERS for cell in _cells(pairs))
    ballot = tmp_path / "ballot1.csv"
    argv = ["annotate", "plan", "--pairs", str(pairs), "--m", "4", "--uniform", "--seed", "0",
            "--pairs-out", str(ballot)]  # fmt: skip
    assert main(argv) == 0
    written = _cells(ballot)
    assert all(not cell or cell[0] not in FORMULA_CHARACTERS for cell in written)
    assert "'=1+1" in written and "''=x" in written and "'-3 degrees tonight." in written
    # an MTurk batch over the ballot echoes its cells as Input.<column>, as written
    with open(ballot, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    results = tmp_path / "results.csv"
    with open(results, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["WorkerId", "AssignmentStatus", *(f"Input.{c}" for c in rows[0]),
                         "Answer.choice"])  # fmt: skip
        for number, row in enumerate(rows):
            writer.writerow([f"AW{number % 3}", "Approved", *row.values(), "AB"[number % 2]])
    ranked, dataset = tmp_path / "ranked.csv", tmp_path / "my_sts.csv"
    argv = ["annotate", "score", str(results), "--pairs", str(pairs), "--no-selection",
            "--output", str(ranked), "--dataset-out", str(dataset)]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    for path in (ranked, dataset):
        assert all(not cell or cell[0] not in FORMULA_CHARACTERS for cell in _cells(path))
    # every id matched its pair (scoring refuses an unknown item), and reads back as given
    assert set(read_csv_text(ranked, "ranked")["item"]) == set(_HOSTILE)
    table = read_sts_table(dataset, "dataset").frame
    assert sorted(zip(table["sentence1"], table["sentence2"])) == sorted(_HOSTILE.values())
    assert (table["score"] >= 0).all()  # numbers stayed numbers


# --------------------------------------------------------------------------------------------
# The CSV field limit
# --------------------------------------------------------------------------------------------
def test_a_field_over_128_kib_is_read_and_the_limit_is_restored(tmp_path):
    import csv

    from sts_extras.annotation.tables import read_csv_text
    from sts_extras.annotation.votes import read_votes

    long = "x" * (300 << 10)
    votes = tmp_path / "votes.csv"
    votes.write_text(f"item_a,item_b,winner,note\np1,p2,p1,{long}\np2,p3,tie,\n", "utf-8")
    assert len(read_votes(votes)) == 2
    assert read_csv_text(votes, "votes")["note"][0] == long
    results = tmp_path / "results.csv"
    results.write_text(
        f"WorkerId,Input.item_a,Input.item_b,Input.a_sentence1,Answer.choice\nW1,p1,p2,{long},A\n",
        "utf-8",
    )
    assert list(read_votes(results)["winner"]) == ["p1"]
    assert csv.field_size_limit() == 128 << 10  # Python's own limit is left as it was


def test_a_field_over_the_file_limit_names_the_line_and_the_limit(monkeypatch):
    from sts_extras.errors import UserInputError
    from sts_extras.io import csv_cells

    monkeypatch.setattr(csv_cells, "MAX_TEXT_BYTES", 1000)
    text = "a,b\n1,2\n3," + "y" * 2000 + "\n"
    with pytest.raises(UserInputError) as error:
        csv_cells.csv_rows(text, "votes file v.csv")
    message = str(error.value)
    assert message.startswith("votes file v.csv: line 3: cannot read it as CSV: a field is")
    assert "longer than 1000 characters" in message


_any_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=12
)


@settings(max_examples=60, deadline=None)
@given(
    ids=st.lists(_any_text, min_size=2, max_size=4, unique=True),
    sentences=st.lists(_any_text, min_size=8, max_size=8),
)
def test_any_ballot_written_as_csv_reads_back_exactly_and_starts_no_formula(ids, sentences):
    """Hostile ids and sentences (markup, quotes, commas, line breaks, control characters,
    formula prefixes) in a ballot: the CSV starts no cell with a formula character, and our
    reader returns every cell as it was."""
    import csv

    from sts_extras.annotation.ballots import ballot_table
    from sts_extras.annotation.tables import csv_text, parse_csv_text

    texts = pd.DataFrame(
        {"id": ids, "sentence1": sentences[: len(ids)], "sentence2": sentences[4 : 4 + len(ids)]}
    )
    pairs = [[ids[i], ids[(i + 1) % len(ids)]] for i in range(len(ids))]
    table = ballot_table(pairs, 1, texts)
    text = csv_text(table)
    for row in csv.reader(io.StringIO(text, newline="")):
        assert all(not cell or cell[0] not in FORMULA_CHARACTERS for cell in row)
    back = parse_csv_text(text, Path("ballot.csv"), "ballot")
    assert back.equals(table.astype(str).astype(object))


def test_a_carriage_return_inside_a_cell_is_quoted():
    """Regression: Python's csv writer with LF line ends leaves a field holding a lone CR
    unquoted, and readers split the row there."""
    from sts_extras.io.csv_cells import csv_rows, frame_csv_text

    frame = pd.DataFrame({"id": ["a", "b"], "text": ["one\rtwo", "\r"]})
    text = frame_csv_text(frame)
    assert csv_rows(text, "t") == [["id", "text"], ["a", "one\rtwo"], ["b", "'\r"]]
    plain = pd.DataFrame({"id": ["a"], "text": ["one\ntwo"]})
    assert frame_csv_text(plain) == 'id,text\na,"one\ntwo"\n'  # LF when no cell holds a CR
