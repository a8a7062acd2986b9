"""Votes are identified by what they say, never by the bytes of their file (issue 33, item 3).

The same votes written differently -- LF or CRLF, with or without a byte-order mark, JSON keys
in any order, ids as ``7``, ``7.0``, ``"7"`` or ``{"id": 7, ...}``, MTurk statuses in any
letter case, rows in any order, cells padded with spaces -- are the same votes: reading them
gives the same table, and giving both files counts each vote once. Attacks of the third hostile
run that failed before: a vote CSV without ``worker_id`` given again with CRLF counted twice;
Label Studio's ``completed_by`` as ``7`` and as ``{"id": 7, ...}`` counted twice; MTurk
``rejected`` / ``REJECTED`` assignments were counted.
"""

from __future__ import annotations

import json
import tempfile
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sts_extras.annotation.votes import DuplicateVotesWarning, read_vote_files
from sts_extras.cli import main
from sts_extras.errors import UserInputError

ITEMS = ("p1", "p2", "p3", "p4")
ANSWERS = {"a": "Pair A", "b": "Pair B", "tie": "Equally similar"}
_SETTINGS = settings(max_examples=40, deadline=None)

# one vote: (worker number, ballot, item_a, item_b, answer "a" | "b" | "tie")
_votes = st.lists(
    st.tuples(
        st.integers(1, 3),
        st.integers(1, 2),
        st.sampled_from(ITEMS),
        st.sampled_from(ITEMS),
        st.sampled_from(sorted(ANSWERS)),
    ).filter(lambda vote: vote[2] != vote[3]),
    min_size=1,
    max_size=12,
)


def _winner(vote: tuple[int, int, str, str, str]) -> str:
    return {"a": vote[2], "b": vote[3], "tie": "tie"}[vote[4]]


def _read(*texts: str | bytes, strict: bool = False) -> pd.DataFrame:
    """``read_vote_files`` of files holding ``texts`` (bytes written as they are)."""
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for number, text in enumerate(texts):
            first = text[:1] if isinstance(text, str) else text.lstrip()[:1]
            suffix = ".json" if first in ("[", b"[", "\ufeff", b"\xef") else ".csv"
            path = Path(folder) / f"votes{number}{suffix}"
            path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
            paths.append(path)
        return read_vote_files(paths, strict=strict)


def _read_quietly(*texts: str | bytes) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DuplicateVotesWarning)
        return _read(*texts)


def _counts(frame: pd.DataFrame) -> Counter[tuple[str, ...]]:
    """The votes of a table as a multiset (order does not matter)."""
    return Counter(map(tuple, frame.astype(str).to_numpy().tolist()))


def _bytes(text: str, *, crlf: bool, bom: bool) -> bytes:
    text = text.replace("\n", "\r\n") if crlf else text
    return ("\ufeff" if bom else "").encode("utf-8") + text.encode("utf-8")


# --------------------------------------------------------------------------------------------
# Our CSV
# --------------------------------------------------------------------------------------------
def _our_csv(
    votes: Sequence[tuple[int, int, str, str, str]],
    *,
    worker: bool,
    pad: str = "",
    ballot_form: Callable[[int], str] = str,
) -> str:
    header = "item_a,item_b,winner,ballot" + (",worker_id" if worker else "")
    lines = [header]
    for vote in votes:
        cells = [vote[2], vote[3], _winner(vote), ballot_form(vote[1])]
        if worker:
            cells.append(f"w{vote[0]}")
        lines.append(",".join(pad + cell + pad for cell in cells))
    return "\n".join(lines) + "\n"


_variant = st.fixed_dictionaries(
    {
        "crlf": st.booleans(),
        "bom": st.booleans(),
        "pad": st.sampled_from(["", " ", "  "]),
        "ballot_form": st.sampled_from([str, lambda b: f"{b}.0", lambda b: f"0{b}"]),
    }
)


@_SETTINGS
@given(votes=_votes, worker=st.booleans(), variant=_variant, order=st.randoms())
def test_our_csv_written_any_way_holds_the_same_votes_and_counts_them_once(
    votes, worker, variant, order
):
    plain = _our_csv(votes, worker=worker)
    shuffled = list(votes)
    order.shuffle(shuffled)
    other = _bytes(
        _our_csv(shuffled, worker=worker, pad=variant["pad"], ballot_form=variant["ballot_form"]),
        crlf=variant["crlf"],
        bom=variant["bom"],
    )
    once = _read(plain)
    assert _counts(_read(other)) == _counts(once)
    # the same votes given again, however written, count once and say so
    with pytest.warns(DuplicateVotesWarning, match=r"^\d+ vote\(s\) given twice"):
        both = _read(plain, other)
    assert _counts(both) == _counts(once)
    with pytest.raises(UserInputError, match="--strict refuses them"):
        _read(plain, other, strict=True)


def test_attack_a_vote_csv_without_worker_id_given_again_with_crlf_counts_once():
    votes = [(1, 1, "p1", "p2", "a"), (1, 1, "p2", "p3", "b"), (1, 1, "p1", "p2", "a")]
    lf = _our_csv(votes, worker=False)
    crlf = lf.replace("\n", "\r\n")
    with pytest.warns(DuplicateVotesWarning) as caught:
        both = _read(lf, crlf)
    assert len(both) == 3  # a vote may repeat within a file: both copies stay
    message = str(caught[0].message)
    assert message.startswith("3 vote(s) given twice")
    assert "votes1.csv holds the votes of votes file" in message and "votes0.csv" in message


def test_anonymous_votes_in_two_different_files_all_count_with_a_note_when_one_holds_the_other():
    small = _our_csv([(1, 1, "p1", "p2", "a")], worker=False)
    large = _our_csv([(1, 1, "p1", "p2", "a"), (1, 1, "p2", "p3", "b")], worker=False)
    with pytest.warns(DuplicateVotesWarning, match="without a worker_id column"):
        both = _read(small, large)
    assert len(both) == 3  # cannot be told apart: counted, and the user is told


def test_a_true_duplicate_names_both_sources():
    first = _our_csv([(1, 1, "p1", "p2", "a"), (2, 1, "p1", "p2", "b")], worker=True)
    second = _our_csv([(2, 1, "p1", "p2", "b"), (3, 1, "p3", "p4", "a")], worker=True)
    with pytest.warns(DuplicateVotesWarning) as caught:
        both = _read(first, second)
    assert len(both) == 3
    message = str(caught[0].message)
    assert "1 vote(s) given twice" in message
    assert "votes1.csv: row 1 (line 2) repeats votes file" in message
    assert "votes0.csv: row 2 (line 3)" in message


def test_a_conflict_same_annotator_pair_and_ballot_with_another_answer_is_refused():
    first = _our_csv([(1, 1, "p1", "p2", "a")], worker=True)
    second = _our_csv([(1, 1, "p1", "p2", "b")], worker=True)
    with pytest.raises(UserInputError) as error:
        _read(first, second)
    message = str(error.value)
    assert "votes1.csv: row 1 (line 2): annotator w1 answers the comparison p1 / p2" in message
    assert "of ballot 1 with 'p2'" in message
    assert "votes0.csv: row 1 (line 2) answers it with 'p1'" in message
    assert "give only the latest export" in message
    # another ballot, or another annotator, is another vote: no conflict
    other_ballot = _our_csv([(1, 2, "p1", "p2", "b")], worker=True)
    other_worker = _our_csv([(2, 1, "p1", "p2", "b")], worker=True)
    assert len(_read(first, other_ballot, other_worker)) == 3


def test_a_pair_repeated_in_a_ballot_may_be_answered_twice_and_a_fuller_file_adds_to_it():
    # the pair came up twice in the ballot: one file holds both answers, a partial file one
    full = _our_csv([(1, 1, "p1", "p2", "a"), (1, 1, "p1", "p2", "b")], worker=True)
    partial = _our_csv([(1, 1, "p1", "p2", "b")], worker=True)
    with pytest.warns(DuplicateVotesWarning):
        assert _counts(_read(partial, full)) == _counts(_read(full))


# --------------------------------------------------------------------------------------------
# Label Studio
# --------------------------------------------------------------------------------------------
_USER_FORMS: dict[str, Callable[[int], object]] = {
    "int": lambda user: user,
    "float": lambda user: float(user),
    "text": lambda user: str(user),
    "padded text": lambda user: f" {user} ",
    "object": lambda user: {"id": user, "first_name": "", "email": f"user{user}@example.org"},
    "object with text id": lambda user: {"id": str(user)},
    "object, keys reversed": lambda user: {"email": f"USER{user}@Example.org", "id": user},
}
_ID_FORMS: dict[str, Callable[[int], object]] = {
    "int": lambda value: value,
    "float": lambda value: float(value),
    "text": lambda value: str(value),
}


def _label_studio(
    votes: Sequence[tuple[int, int, str, str, str]],
    *,
    user: Callable[[int], object] = _USER_FORMS["int"],
    ids: Callable[[int], object] = _ID_FORMS["int"],
    ballot: Callable[[int], object] = _ID_FORMS["int"],
    reverse_keys: bool = False,
    indent: int | None = None,
    with_ids: bool = True,
) -> str:
    tasks = []
    for number, vote in enumerate(votes, start=1):
        annotation: dict[str, object] = {
            "completed_by": user(vote[0]),
            "result": [{"type": "choices", "from_name": "choice",
                        "value": {"choices": [ANSWERS[vote[4]]]}}],
        }  # fmt: skip
        task: dict[str, object] = {
            "data": {"item_a": vote[2], "item_b": vote[3], "ballot": ballot(vote[1])},
            "annotations": [annotation],
        }
        if with_ids:
            annotation["id"] = ids(100 + number)
            task["id"] = ids(number)
        tasks.append(task)

    def reverse(value: object) -> object:
        if isinstance(value, dict):
            return {key: reverse(value[key]) for key in reversed(list(value))}
        if isinstance(value, list):
            return [reverse(item) for item in value]
        return value

    return json.dumps(reverse(tasks) if reverse_keys else tasks, indent=indent) + "\n"


@_SETTINGS
@given(
    votes=_votes,
    user=st.sampled_from(sorted(_USER_FORMS)),
    ids=st.sampled_from(sorted(_ID_FORMS)),
    ballot=st.sampled_from(sorted(_ID_FORMS)),
    reverse_keys=st.booleans(),
    indent=st.sampled_from([None, 2]),
    crlf=st.booleans(),
    bom=st.booleans(),
)
def test_a_label_studio_export_written_any_way_holds_the_same_votes(
    votes, user, ids, ballot, reverse_keys, indent, crlf, bom
):
    plain = _label_studio(votes)
    other = _bytes(
        _label_studio(
            votes, user=_USER_FORMS[user], ids=_ID_FORMS[ids], ballot=_ID_FORMS[ballot],
            reverse_keys=reverse_keys, indent=indent,
        ),
        crlf=crlf,
        bom=bom,
    )  # fmt: skip
    once = _read(plain)
    assert set(once["worker_id"]) <= {"1", "2", "3"}
    assert _counts(_read(other)) == _counts(once)
    with pytest.warns(DuplicateVotesWarning):
        assert _counts(_read(plain, other)) == _counts(once)


@pytest.mark.parametrize("form", sorted(_USER_FORMS))
def test_attack_completed_by_as_7_and_as_an_object_counts_once(form):
    votes = [(7, 1, "p1", "p2", "a"), (7, 1, "p3", "p4", "b")]
    # without annotation ids the task id with the annotator identifies the vote
    plain = _label_studio(votes, user=_USER_FORMS["int"])
    other = _label_studio(votes, user=_USER_FORMS[form], with_ids=True)
    once = _read(plain)
    assert list(once["worker_id"]) == ["7", "7"]
    with pytest.warns(DuplicateVotesWarning, match=r"^2 vote\(s\) given twice"):
        both = _read(plain, other)
    assert _counts(both) == _counts(once)


def test_an_annotator_known_only_by_email_is_the_user_another_export_pairs_it_with():
    votes = [(7, 1, "p1", "p2", "a")]
    by_email = _label_studio(votes, user=lambda user: {"email": f"user{user}@example.org"})
    with_both = _label_studio(votes, user=_USER_FORMS["object"])
    with pytest.warns(DuplicateVotesWarning):
        both = _read(by_email, with_both)
    assert list(both["worker_id"]) == ["7"]
    assert list(_read(by_email)["worker_id"]) == ["user7@example.org"]  # nothing pairs it


def test_label_studio_votes_without_ids_are_told_apart_by_annotator():
    votes = [(7, 1, "p1", "p2", "a")]
    plain = _label_studio(votes, with_ids=False)
    other = _label_studio(votes, user=_USER_FORMS["object with text id"], with_ids=False)
    with pytest.warns(DuplicateVotesWarning):
        assert len(_read(plain, other)) == 1


def test_one_label_studio_annotation_with_two_answers_names_both_exports():
    first = _label_studio([(7, 1, "p1", "p2", "a")])
    second = _label_studio([(7, 1, "p1", "p2", "b")], user=_USER_FORMS["object"])
    with pytest.raises(UserInputError) as error:
        _read(first, second)
    message = str(error.value)
    assert "votes1.json: task 1 (id 1), annotation 101: annotator 7" in message
    assert "votes0.json: task 1 (id 1), annotation 101 answers it with 'p1'" in message


def test_a_cancelled_annotation_counts_in_no_export():
    votes = [(7, 1, "p1", "p2", "a"), (8, 1, "p1", "p3", "b")]
    earlier = _label_studio(votes)
    tasks = json.loads(earlier)
    tasks[0]["annotations"][0]["was_cancelled"] = True
    later = json.dumps(tasks)
    with pytest.warns(DuplicateVotesWarning, match="cancelled"):
        both = _read(earlier, later)
    assert list(both["worker_id"]) == ["8"]


# --------------------------------------------------------------------------------------------
# MTurk
# --------------------------------------------------------------------------------------------
def _mturk(
    votes: Sequence[tuple[int, int, str, str, str]],
    statuses: Sequence[str],
    *,
    lower_ids: bool = False,
    columns_reversed: bool = False,
) -> str:
    columns = ["HITId", "AssignmentId", "WorkerId", "AssignmentStatus", "Input.ballot",
               "Input.item_a", "Input.item_b", "Answer.choice"]  # fmt: skip
    rows = []
    for number, (vote, status) in enumerate(zip(votes, statuses), start=1):
        ids = [f"HIT{number}", f"ASG{number}", f"AW{vote[0]}"]
        ids = [value.lower() for value in ids] if lower_ids else ids
        rows.append([*ids, status, str(vote[1]), vote[2], vote[3], ANSWERS[vote[4]]])
    order = list(reversed(range(len(columns)))) if columns_reversed else list(range(len(columns)))
    lines = [",".join(columns[i] for i in order)]
    lines += [",".join(f'"{row[i]}"' for i in order) for row in rows]
    return "\n".join(lines) + "\n"


def _status_forms(status: str) -> st.SearchStrategy[str]:
    return st.builds(
        lambda case, left, right: left + case(status) + right,
        st.sampled_from([str, str.lower, str.upper, str.title, str.swapcase]),
        st.sampled_from(["", " ", "  "]),
        st.sampled_from(["", " ", "\t"]),
    )


@_SETTINGS
@given(data=st.data(), votes=_votes, crlf=st.booleans(), bom=st.booleans(),
       lower_ids=st.booleans(), columns_reversed=st.booleans())  # fmt: skip
def test_mturk_results_written_any_way_hold_the_same_votes(
    data, votes, crlf, bom, lower_ids, columns_reversed
):
    statuses = data.draw(st.lists(st.sampled_from(["Approved", "Submitted", "Rejected"]),
                                  min_size=len(votes), max_size=len(votes)))  # fmt: skip
    if all(status == "Rejected" for status in statuses):
        statuses[0] = "Approved"
    forms = [data.draw(_status_forms(status)) for status in statuses]
    plain = _mturk(votes, statuses)
    other = _bytes(
        _mturk(votes, forms, lower_ids=lower_ids, columns_reversed=columns_reversed),
        crlf=crlf,
        bom=bom,
    )
    once = _read(plain)
    assert len(once) == sum(status != "Rejected" for status in statuses)
    assert _counts(_read(other)) == _counts(once)
    with pytest.warns(DuplicateVotesWarning):
        assert _counts(_read(plain, other)) == _counts(once)


@pytest.mark.parametrize("status", ["rejected", "REJECTED", " Rejected ", "Rejected\t", "rEJECTED"])
def test_attack_rejected_assignments_in_any_case_are_left_out(status):
    votes = [(1, 1, "p1", "p2", "a"), (2, 1, "p1", "p2", "b"), (3, 1, "p3", "p4", "tie")]
    read = _read(_mturk(votes, ["Approved", status, "approved "]))
    assert list(read["worker_id"]) == ["AW1", "AW3"]


@pytest.mark.parametrize("status", ["Pending", "", "Approved?", "Reject", "Accepted"])
def test_an_unknown_mturk_status_is_refused_naming_file_row_and_value(status):
    votes = [(1, 1, "p1", "p2", "a"), (2, 1, "p1", "p2", "b")]
    with pytest.raises(UserInputError) as error:
        _read(_mturk(votes, ["Approved", status]))
    message = str(error.value)
    assert "votes0.csv: row 2 (line 3): AssignmentStatus " + repr(status) in message
    assert "expected Submitted, Approved or Rejected" in message


def test_an_assignment_rejected_in_a_later_export_counts_in_no_export():
    votes = [(1, 1, "p1", "p2", "a"), (2, 1, "p1", "p3", "b")]
    earlier = _mturk(votes, ["Submitted", "Submitted"])
    later = _mturk(votes, ["Approved", "REJECTED"])
    for order in ((earlier, later), (later, earlier)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            both = _read(*order)
        assert list(both["worker_id"]) == ["AW1"]
        assert any("rejected" in str(warning.message) for warning in caught)


def test_the_cli_reports_a_duplicate_in_one_line_and_refuses_an_unknown_status(tmp_path, capsys):
    votes = [(1, 1, "p1", "p2", "a"), (2, 1, "p2", "p3", "b"), (3, 1, "p3", "p1", "a")]
    lf = tmp_path / "votes.csv"
    lf.write_text(_our_csv(votes, worker=False), encoding="utf-8")
    crlf = tmp_path / "votes_crlf.csv"
    crlf.write_bytes(_bytes(_our_csv(votes, worker=False), crlf=True, bom=True))
    code = main(["annotate", "score", str(lf), str(crlf), "--no-selection", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0 and err.count("\n") == 1 and "3 vote(s) given twice" in err
    assert sum(row["votes"] for row in json.loads(out)["ranking"]) == 2 * len(votes)
    bad = tmp_path / "results.csv"
    bad.write_text(_mturk(votes, ["Approved", "Pending", "Approved"]), encoding="utf-8")
    code = main(["annotate", "score", str(bad), "--no-selection"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"votes file {bad}: row 2 (line 3): AssignmentStatus 'Pending'" in err
