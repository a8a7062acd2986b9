"""Votes from where annotators work: our CSV, Label Studio's JSON export, MTurk batch results.

Every reader returns one table with a row per vote and the columns ``item_a``, ``item_b``,
``winner`` (``item_a``'s id, ``item_b``'s id, or the tie label), and, when the file has them,
``ballot`` and ``worker_id``; all cells are text. What is read from each format:

``csv``
    Columns ``item_a``, ``item_b``, ``winner`` and optionally ``ballot`` and ``worker_id``.
``label-studio``
    The JSON export of the tasks written by :func:`~sts_extras.annotation.ballots
    .label_studio_tasks`: a list of tasks, each with ``data`` (``item_a``, ``item_b`` and
    ``ballot``) and ``annotations``; each annotation not ``was_cancelled`` is one vote by its
    ``completed_by`` (a user id, or an object whose ``email`` or ``id`` is used), answered by its
    ``result`` entry of ``"type": "choices"`` (``from_name`` ``choice`` if there are several).
``mturk``
    An MTurk-style batch-results CSV of a batch whose input was the ballot CSV: one row per
    assignment with ``WorkerId``, ``Input.item_a``, ``Input.item_b``, optionally
    ``Input.ballot`` and ``AssignmentStatus`` (rejected assignments are skipped), the answer in
    ``Answer.choice`` (or ``Answer.choice.label``, as a crowd-classifier form names it).

Each file is read once into validated vote records: a Label Studio export through a pydantic
schema (:class:`LabelStudioTask`, strict types: a ``true`` is no item id), our CSV and MTurk
results through the one CSV reader of :mod:`sts_extras.annotation.tables` (UTF-8 with or
without a byte-order mark); a ``ballot`` must be a whole number written in plain decimals.

Votes are identified by what they say, never by the bytes of their file, so that line endings
(LF or CRLF), a byte-order mark, JSON key order, number formatting (``7``, ``7.0``, ``"7"``),
surrounding whitespace and row order do not matter (:func:`read_vote_files`):

* an annotation that carries an id (Label Studio's annotation ``id``, MTurk's ``AssignmentId``)
  or a task id (Label Studio's task ``id``, MTurk's ``HITId``, our ballots' ``comparison_id``,
  each with the annotator and the comparison) is one vote wherever it appears: Label Studio
  exports are cumulative, so a partial and a later full export hold the same annotations;
* a vote without such ids is identified by its annotator, ballot, pair and answer; as one
  annotator may answer one pair twice within a ballot (pairs can repeat), each such vote counts
  as often as in the file that holds it most often (the union of the files);
* votes without an annotator cannot be told apart, so only a file whose votes are exactly
  another file's (the same multiset of votes) is dropped;
* an annotator is one person in every form Label Studio writes: ``completed_by`` ``7``,
  ``"7"``, ``7.0``, ``{"id": 7, ...}`` and ``{"id": "7"}`` are user ``7``, and an object with
  only an ``email`` is that user when another object of the files pairs the email with an id
  (emails are compared in lower case); MTurk's ids are compared in upper case;
* a rejected MTurk assignment or a cancelled Label Studio annotation counts nowhere, even when
  an earlier export still holds it as submitted.

A *true duplicate* (the same vote again, with the same answer) counts once, and a
:class:`DuplicateVotesWarning` names the number dropped and both sources of the first one; with
``strict=True`` (``--strict``) it is refused. A *conflict*, the same annotation (or, without
ids, the same annotator, ballot and pair) answered differently in two files, is refused with
an error naming both sources: which answer is right is for the user to decide (give only the
latest export), and counting both would give one annotator two votes. (Without ids, the answers
of one annotator to one pair in one file may be several, as the pair may repeat in a ballot:
two files conflict when neither holds all the other's answers to it.)

MTurk's ``AssignmentStatus`` is compared without letter case and surrounding spaces:
``Submitted`` and ``Approved`` assignments count, ``Rejected`` ones are skipped, and any other
value (or a blank one) is refused, naming the file, the row and the value.

Answers in Label Studio and MTurk files are ``Pair A`` / ``Pair B`` / ``Equally similar``
(:data:`~sts_extras.annotation.ballots.CHOICES`), or ``A`` / ``B`` / ``tie`` (any letter case;
the tie label also counts as a tie).
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ConfigDict, Field

from sts_extras.annotation.ballots import CHOICE_A, CHOICE_B, CHOICE_TIE
from sts_extras.errors import InputWarning, UserInputError
from sts_extras.io.numbers import parse_number
from sts_extras.io.records import Record, RecordError, parse_record
from sts_extras.io.text import parse_json, read_text
from sts_extras.limits import MAX_BALLOTS

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "MTURK_STATUSES",
    "VOTE_FORMATS",
    "DuplicateVotesWarning",
    "LabelStudioTask",
    "detect_format",
    "read_vote_files",
    "read_votes",
]

#: Values of ``--votes-format``; ``auto`` looks at the file's content.
VOTE_FORMATS = ("auto", "csv", "label-studio", "mturk")
#: MTurk's assignment statuses (compared without case and surrounding spaces): whether each
#: assignment's vote counts.
MTURK_STATUSES = {"submitted": True, "approved": True, "rejected": False}
_OUR_COLUMNS = ("item_a", "item_b", "winner")
_MTURK_ANSWERS = ("Answer.choice", "Answer.choice.label")
# a whole number as Label Studio may write an id: 7, "7", "7.0", " 07 "
_WHOLE = re.compile(r"[+-]?[0-9]+(?:\.0*)?")


class DuplicateVotesWarning(InputWarning):
    """Votes given twice (the same annotation in two files) were counted once."""


# --------------------------------------------------------------------------------------------
# Label Studio's export, as a schema: strict types, the fields Label Studio adds are ignored
# --------------------------------------------------------------------------------------------
class _Export(Record):
    model_config = ConfigDict(extra="ignore")


class _Choices(_Export):
    choices: tuple[str, ...] = ()


class _ResultEntry(_Export):
    type: str | None = None
    from_name: str | None = None
    value: _Choices | None = None


class _User(_Export):
    email: str | None = None
    id: int | float | str | None = None


class _Annotation(_Export):
    id: int | float | str | None = None
    completed_by: int | float | str | _User | None = None
    was_cancelled: bool = False
    result: tuple[_ResultEntry, ...] = ()


class _TaskData(Record):
    # the ballot's columns (sentences too) come back unchanged; only these are read
    model_config = ConfigDict(extra="allow")
    item_a: str | int | float
    item_b: str | int | float
    ballot: int | float | str | None = None
    comparison_id: str | int | float | None = None


class LabelStudioTask(_Export):
    """One task of a Label Studio JSON export of the ballots ``annotate`` writes.

    Attributes
    ----------
    id : int or str, optional
        Label Studio's task id.
    data : the ballot row: ``item_a``, ``item_b`` (text or whole numbers), ``ballot``,
        ``comparison_id``.
    annotations : tuple
        Each with ``id``, ``completed_by``, ``was_cancelled`` and ``result``.
    """

    id: int | float | str | None = None
    data: _TaskData
    annotations: tuple[_Annotation, ...] = Field(default=())


@dataclass
class _Vote:
    """One vote as read, with what identifies it (its meaning, never its file's bytes)."""

    source: str  # "votes file X: row 3 (line 4)", named in warnings and errors
    item_a: str
    item_b: str
    winner: str
    ballot: str | None
    worker: str | None  # canonical annotator id; None without one
    email: str | None = None  # Label Studio: an annotator known only by email (resolved later)
    ids: tuple[Hashable, ...] = ()  # ids of the annotation itself
    tasks: tuple[Hashable, ...] = ()  # ids of its task, unique with the annotator

    def keys(self) -> tuple[Hashable, ...]:
        """The keys that identify this annotation wherever it appears (none: no ids)."""
        comparison = (self.ballot, self.item_a, self.item_b)
        return (*self.ids, *((task, self.worker, *comparison) for task in self.tasks))

    def row(self, columns: set[str]) -> dict[str, str]:
        row = {"item_a": self.item_a, "item_b": self.item_b, "winner": self.winner}
        if "ballot" in columns:
            row["ballot"] = self.ballot or ""
        if "worker_id" in columns:
            row["worker_id"] = self.worker or ""
        return row


@dataclass
class _VoteFile:
    """The votes of one file, the columns it has, and what it says about other files' votes."""

    path: Path
    votes: list[_Vote] = field(default_factory=list)
    columns: set[str] = field(default_factory=set)
    # ids of annotations withdrawn here (rejected, cancelled): they count in no file
    withdrawn: set[Hashable] = field(default_factory=set)
    # Label Studio: email -> user id, from objects that carry both
    emails: dict[str, str] = field(default_factory=dict)


def _fail(path: Path, message: str) -> UserInputError:
    return UserInputError(f"votes file {path}: {message}")


def detect_format(path: Path, text: str) -> str:
    """``label-studio`` for JSON, ``mturk`` for a CSV with ``WorkerId``/``Input.`` columns, or
    ``csv``; decided by the content (the first character, then the header line)."""
    if text.lstrip()[:1] in ("[", "{"):
        return "label-studio"
    header = text.splitlines()[0] if text.strip() else ""
    columns = {column.strip().strip('"') for column in header.split(",")}
    if "WorkerId" in columns or any(column.startswith("Input.") for column in columns):
        return "mturk"
    return "csv"


def _read_csv(path: Path, text: str) -> pd.DataFrame:
    from sts_extras.annotation.tables import parse_csv_text

    return parse_csv_text(text, path, f"votes file {path}")


def _winner(answer: object, item_a: str, item_b: str, tie_label: str) -> str | None:
    """The winner's id (or the tie label) of an answer; None if it is none of the choices."""
    if not isinstance(answer, str):
        return None
    key = answer.strip().lower()
    if key in (CHOICE_A.lower(), "a"):
        return item_a
    if key in (CHOICE_B.lower(), "b"):
        return item_b
    if key in (CHOICE_TIE.lower(), "tie", tie_label.lower()):
        return tie_label
    return None


def _answers_hint() -> str:
    return f"expected {CHOICE_A!r}, {CHOICE_B!r} or {CHOICE_TIE!r} (or A, B, tie)"


def _ballot(value: int | float | str, path: Path, where: str) -> str:
    """A ballot number as canonical text (``"01"``, ``"1.0"``, ``1.0`` and ``1`` are ``"1"``)."""
    if isinstance(value, str):
        number = parse_number(value, f"votes file {path}: {where}: `ballot`")
    else:
        number = float(value)  # a JSON number (the schema refuses booleans, NaN and infinity)
    if number != int(number) or not 1 <= number <= MAX_BALLOTS:
        raise _fail(
            path, f"{where}: `ballot` {value!r} is not a whole number from 1 to {MAX_BALLOTS}."
        )
    return str(int(number))


def _label_studio_id(value: int | float | str) -> str:
    """A Label Studio id (user, task, annotation, item) as text: ``7``, ``7.0``, ``"7"``,
    ``" 07 "`` are ``"7"``; other text is kept, stripped."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, int):
        return str(value)
    text = value.strip()
    return str(int(text.split(".")[0])) if _WHOLE.fullmatch(text) else text


def _label_studio_item(value: int | float | str) -> str:
    """An item id of a Label Studio task: text stays as written (stripped), as the ballot wrote
    it; a JSON number (Label Studio may turn ``"7"`` into ``7``) is the whole number's text."""
    return value.strip() if isinstance(value, str) else _label_studio_id(value)


def _annotator(completed_by: int | float | str | _User | None) -> tuple[str | None, str | None]:
    """``(user id, email)`` of a Label Studio ``completed_by``, either possibly None."""
    if completed_by is None:
        return None, None
    if isinstance(completed_by, _User):
        user_id = completed_by.id
        email = (completed_by.email or "").strip().lower() or None
        identity = None if user_id is None else _label_studio_id(user_id) or None
        return identity, email
    identity = _label_studio_id(completed_by)
    if "@" in identity:  # an email given in place of the id
        return None, identity.lower()
    return identity or None, None


def _choice(annotation: _Annotation) -> str | None:
    """The answer of one Label Studio annotation (None if it has no choice)."""
    results = [entry for entry in annotation.result if entry.type == "choices"]
    if len(results) > 1:
        results = [entry for entry in results if entry.from_name == "choice"]
    if not results or results[0].value is None:
        return None
    choices = results[0].value.choices
    return choices[0] if len(choices) == 1 else None


def _read_label_studio(path: Path, text: str, tie_label: str) -> _VoteFile:
    data = parse_json(text, f"votes file {path}")
    if not isinstance(data, list):
        raise _fail(path, "a Label Studio JSON export is a list of tasks; this is not a list.")
    votes = _VoteFile(path)
    for number, raw in enumerate(data, start=1):
        task_id = raw.get("id") if isinstance(raw, dict) else None
        where = f"task {number}" + (f" (id {task_id})" if task_id is not None else "")
        if (
            not isinstance(raw, dict)
            or not isinstance(raw.get("data"), dict)
            or not all(str(raw["data"].get(key, "")).strip() for key in ("item_a", "item_b"))
        ):
            raise _fail(
                path,
                f"{where}: `data` lacks item_a/item_b; import the tasks written by "
                "`annotate plan --label-studio-out` (or score --label-studio-out).",
            )
        try:
            task = parse_record(LabelStudioTask, raw, where)
        except RecordError as error:
            raise _fail(path, str(error)) from None
        item_a, item_b = _label_studio_item(task.data.item_a), _label_studio_item(task.data.item_b)
        ballot = None if task.data.ballot is None else _ballot(task.data.ballot, path, where)
        tasks: list[Hashable] = []
        if task.id is not None:
            tasks.append(("label-studio task", _label_studio_id(task.id)))
        if task.data.comparison_id is not None:
            tasks.append(("comparison", _label_studio_id(task.data.comparison_id)))
        for position, annotation in enumerate(task.annotations, start=1):
            ids: tuple[Hashable, ...] = ()
            if annotation.id is not None:
                ids = (("label-studio annotation", _label_studio_id(annotation.id)),)
            if annotation.was_cancelled:
                votes.withdrawn.update(ids)
                continue
            worker, email = _annotator(annotation.completed_by)
            if worker is not None and email is not None:
                votes.emails.setdefault(email, worker)
            name = worker or email or "?"
            answer = _choice(annotation)
            winner = _winner(answer, item_a, item_b, tie_label)
            if winner is None:
                raise _fail(
                    path,
                    f"{where}, annotation by {name}: choice {answer!r} is not an "
                    f"answer of the ballot; {_answers_hint()}.",
                )
            if worker is None and email is None:
                raise _fail(path, f"{where}: an annotation has no `completed_by`.")
            label = f"annotation {position if annotation.id is None else annotation.id}"
            votes.votes.append(
                _Vote(
                    f"votes file {path}: {where}, {label}",
                    item_a, item_b, winner, ballot, worker, email, ids, tuple(tasks),
                )
            )  # fmt: skip
            votes.columns.update(("worker_id", *(("ballot",) if "ballot" in raw["data"] else ())))
    if not votes.votes:
        raise _fail(path, "holds no submitted annotation.")
    return votes


def _mturk_id(value: str) -> str:
    """An MTurk id (worker, assignment, HIT): upper-case letters and digits, as MTurk writes
    them; compared stripped and in upper case."""
    return value.strip().upper()


def _read_mturk(path: Path, text: str, tie_label: str) -> _VoteFile:
    frame = _read_csv(path, text)
    answer = next((column for column in _MTURK_ANSWERS if column in frame.columns), "")
    missing = [c for c in ("WorkerId", "Input.item_a", "Input.item_b") if c not in frame.columns]
    if not answer:
        missing.append(" or ".join(_MTURK_ANSWERS))
    if missing:
        raise _fail(
            path,
            f"an MTurk batch-results file needs the column(s) {', '.join(missing)} (the batch's "
            "input must be the ballot CSV and the form's answer field named `choice`).",
        )
    votes = _VoteFile(path, columns={"worker_id"})
    if "Input.ballot" in frame.columns:
        votes.columns.add("ballot")
    for index, row in enumerate(frame.to_dict(orient="records")):
        line = f"row {index + 1} (line {index + 2})"
        worker = _mturk_id(row["WorkerId"])
        ids: tuple[Hashable, ...] = ()
        if row.get("AssignmentId", "").strip():
            ids = (("mturk assignment", _mturk_id(row["AssignmentId"])),)
        tasks: list[Hashable] = []
        if row.get("HITId", "").strip():
            tasks.append(("mturk hit", _mturk_id(row["HITId"])))
        if row.get("Input.comparison_id", "").strip():
            tasks.append(("comparison", row["Input.comparison_id"].strip()))
        item_a, item_b = row["Input.item_a"].strip(), row["Input.item_b"].strip()
        ballot = None
        if "Input.ballot" in row:
            ballot = _ballot(row["Input.ballot"], path, line)
        if "AssignmentStatus" in row:
            status = row["AssignmentStatus"].strip().lower()
            if status not in MTURK_STATUSES:
                raise _fail(
                    path,
                    f"{line}: AssignmentStatus {row['AssignmentStatus']!r} is not an MTurk "
                    "assignment status; expected Submitted, Approved or Rejected (rejected "
                    "assignments are left out).",
                )
            if not MTURK_STATUSES[status]:  # its answer may be anything: it is not read
                rejected = _Vote("", item_a, item_b, "", ballot, worker, None, ids, tuple(tasks))
                votes.withdrawn.update(rejected.keys())
                continue
        winner = _winner(row[answer], item_a, item_b, tie_label)
        if winner is None:
            raise _fail(
                path, f"{line}: {answer} {row[answer]!r} is not an answer; {_answers_hint()}."
            )
        if not worker:
            raise _fail(path, f"{line}: WorkerId is blank.")
        votes.votes.append(
            _Vote(
                f"votes file {path}: {line}",
                item_a, item_b, winner, ballot, worker, None, ids, tuple(tasks),
            )
        )  # fmt: skip
    if not votes.votes:
        raise _fail(path, "holds no assignment that was not rejected.")
    return votes


def _read_our_csv(path: Path, text: str) -> _VoteFile:
    if not text.strip():
        raise _fail(
            path,
            "is empty; expected a CSV file with the header line item_a,item_b,winner (and "
            "optionally ,ballot and ,worker_id) and one vote per line.",
        )
    frame = _read_csv(path, text)
    missing = [column for column in _OUR_COLUMNS if column not in frame.columns]
    if missing:
        raise _fail(
            path,
            f"lacks column(s) {', '.join(missing)}; expected item_a, item_b, winner and "
            f"optionally ballot and worker_id (found: {', '.join(map(str, frame.columns))}); "
            "Label Studio exports and MTurk batch results are recognised by their content.",
        )
    columns = [c for c in (*_OUR_COLUMNS, "ballot", "worker_id") if c in frame.columns]
    votes = _VoteFile(path, columns=set(columns))
    ballots: dict[str, str] = {}  # as written -> canonical
    cells = {column: [str(value).strip() for value in frame[column]] for column in columns}
    blank = [""] * len(frame)
    for index, (item_a, item_b, winner, ballot, worker) in enumerate(
        zip(*(cells.get(column, blank) for column in (*_OUR_COLUMNS, "ballot", "worker_id")))
    ):
        line = f"row {index + 1} (line {index + 2})"
        if "worker_id" in cells and not worker:
            raise _fail(path, f"{line}: `worker_id` is blank.")
        if ballot and ballot not in ballots:
            ballots[ballot] = _ballot(ballot, path, line)
        votes.votes.append(
            _Vote(
                f"votes file {path}: {line}", item_a, item_b, winner,
                ballots[ballot] if ballot else None, worker if "worker_id" in cells else None,
            )
        )  # fmt: skip
    return votes


def _read(path: Path, vote_format: str, tie_label: str) -> _VoteFile:
    path = Path(path)
    text = read_text(path, "votes file")
    if vote_format == "auto":
        vote_format = detect_format(path, text)
    if vote_format == "label-studio":
        return _read_label_studio(path, text, tie_label)
    if vote_format == "mturk":
        return _read_mturk(path, text, tie_label)
    return _read_our_csv(path, text)


def _frame(rows: list[dict[str, str]], columns: list[str]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(rows, columns=columns, dtype=object).fillna("")


def read_votes(path: Path, vote_format: str = "auto", tie_label: str = "tie") -> pd.DataFrame:
    """Read one votes file into the common table (see the module docs).

    Parameters
    ----------
    path : pathlib.Path
    vote_format : {"auto", "csv", "label-studio", "mturk"}
        ``auto`` decides by the content (:func:`detect_format`).
    tie_label : str
        The ``winner`` of a tie in the returned table.

    Raises
    ------
    sts_extras.errors.UserInputError
        One line naming the file (and the task or row): unreadable, empty, not the format, a
        missing column or field, an answer that is not one of the choices, a blank annotator,
        a ``ballot`` that is not a whole number, an unknown MTurk assignment status.
    """
    return read_vote_files([path], vote_format, tie_label)


def _resolve_emails(files: Sequence[_VoteFile]) -> None:
    """Give each Label Studio annotator known only by email the user id another object pairs
    with that email (in any of the files); otherwise the email is the annotator."""
    emails: dict[str, str] = {}
    for votes in files:
        for email, user in votes.emails.items():
            emails.setdefault(email, user)
    for votes in files:
        for vote in votes.votes:
            if vote.worker is None and vote.email is not None:
                vote.worker = emails.get(vote.email, vote.email)


def _meaning(vote: _Vote) -> Hashable:
    """What a vote says (for comparing whole files)."""
    return (vote.ids, vote.tasks, vote.worker, vote.ballot, vote.item_a, vote.item_b, vote.winner)


@dataclass
class _Count:
    """Votes kept, and the copies dropped with the first example (both sources named)."""

    kept: list[_Vote] = field(default_factory=list)
    dropped: int = 0
    example: str = ""
    withdrawn: int = 0

    def drop(self, example: str) -> None:
        self.dropped += 1
        self.example = self.example or example


def _conflict(first: _Vote, second: _Vote) -> UserInputError:
    return UserInputError(
        f"{second.source}: annotator {second.worker or '?'} answers the comparison "
        f"{second.item_a} / {second.item_b}"
        + (f" of ballot {second.ballot}" if second.ballot else "")
        + f" with {second.winner!r}, but {first.source} answers it with {first.winner!r}; "
        "which is right cannot be told: give only the latest export (or correct one file)."
    )


def _answer_key(vote: _Vote) -> Hashable:
    """What a vote without ids answers: its annotator's comparison of a pair in a ballot."""
    return (vote.worker, vote.ballot, vote.item_a, vote.item_b)


def _count_once(files: Sequence[_VoteFile]) -> _Count:
    """The votes of ``files`` with every vote counted once (see the module docs)."""
    count = _Count()
    withdrawn = set().union(*(votes.withdrawn for votes in files))
    first: dict[Hashable, _Vote] = {}  # identity key -> the vote that holds it
    # votes without ids: (annotator, ballot, pair) and answer -> copies kept, the first of them,
    # and per (annotator, ballot, pair) the answers kept
    union: Counter[tuple[Hashable, str]] = Counter()
    holder: dict[tuple[Hashable, str], _Vote] = {}
    answered: dict[Hashable, list[str]] = {}
    meanings: dict[frozenset[tuple[Hashable, int]], Path] = {}
    for votes in files:
        meaning = frozenset(Counter(_meaning(vote) for vote in votes.votes).items())
        if meaning in meanings:  # the same votes again, whatever the bytes
            example = f"votes file {votes.path} holds the votes of votes file {meanings[meaning]}"
            for _ in votes.votes:
                count.drop(example)
            continue
        meanings[meaning] = votes.path
        all_keys = [vote.keys() for vote in votes.votes]
        here = Counter(
            (_answer_key(vote), vote.winner)
            for vote, keys in zip(votes.votes, all_keys)
            if not keys and vote.worker is not None
        )
        for (key, answer), copies in here.items():  # neither holds all the other's answers
            if key not in answered or copies <= union[key, answer]:
                continue
            lacking = next((a for a in answered[key] if union[key, a] > here[key, a]), None)
            if lacking is not None:
                second = next(
                    vote for vote in votes.votes
                    if vote.worker is not None and (_answer_key(vote), vote.winner) == (key, answer)
                )  # fmt: skip
                raise _conflict(holder[key, lacking], second)
        in_file: Counter[tuple[Hashable, str]] = Counter()
        for vote, keys in zip(votes.votes, all_keys):
            if any(key in withdrawn for key in keys):
                count.withdrawn += 1
                continue
            seen = next((first[key] for key in keys if key in first), None)
            if seen is not None:
                if seen.winner != vote.winner:
                    raise _conflict(seen, vote)
                count.drop(f"{vote.source} repeats {seen.source}")
                continue
            for key in keys:
                first[key] = vote
            if not keys and vote.worker is not None:
                answer_key = _answer_key(vote)
                pair = (answer_key, vote.winner)
                in_file[pair] += 1
                if in_file[pair] <= union[pair]:
                    count.drop(f"{vote.source} repeats {holder[pair].source}")
                    continue
                union[pair] += 1
                if pair not in holder:
                    holder[pair] = vote
                    answered.setdefault(answer_key, []).append(vote.winner)
            count.kept.append(vote)
    return count


def _overlap_note(files: Sequence[_VoteFile]) -> str:
    """A note when all the votes of a file without annotators appear in another such file
    (a partial export?): they cannot be told apart, so both are counted."""
    anonymous = [votes for votes in files if "worker_id" not in votes.columns]
    held = [Counter(_meaning(vote) for vote in votes.votes) for votes in anonymous]
    for i, small in enumerate(held):
        for j, large in enumerate(held):
            if i != j and small != large and not small - large:
                return (
                    f"every vote of votes file {anonymous[i].path} appears in votes file "
                    f"{anonymous[j].path} too; without a worker_id column votes cannot be told "
                    "apart, so both files are counted (give worker_id to count shared votes once)"
                )
    return ""


def read_vote_files(
    paths: Sequence[Path],
    vote_format: str = "auto",
    tie_label: str = "tie",
    *,
    strict: bool = False,
) -> pd.DataFrame:
    """Read several votes files into one table, counting every vote once (rows in file order).

    Either every file has ``ballot`` (``worker_id``) or none has; otherwise an error names the
    file that lacks it. A vote found in several files (see the module docs: Label Studio
    exports are cumulative) is kept once, with a :class:`DuplicateVotesWarning` saying how many
    copies were dropped and naming both sources of the first.

    Parameters
    ----------
    paths : sequence of pathlib.Path
    vote_format, tie_label : as for :func:`read_votes`.
    strict : bool, default False
        Refuse votes given twice (:class:`~sts_extras.errors.UserInputError`) instead.

    Raises
    ------
    sts_extras.errors.UserInputError
        As :func:`read_votes`; a file without ``ballot``/``worker_id`` beside one with it; one
        annotation (or one annotator's answer to one pair of one ballot) with two different
        answers in two files, naming both; with ``strict``, any vote given twice.

    Warns
    -----
    DuplicateVotesWarning
        Votes given twice and counted once; votes of an assignment rejected (or an annotation
        cancelled) in another file, left out; a file without annotators whose votes all appear
        in another.
    """
    files = [_read(Path(path), vote_format, tie_label) for path in paths]
    for column in ("ballot", "worker_id"):
        having = [column in votes.columns for votes in files]
        if any(having) and not all(having):
            lacking = files[having.index(False)].path
            raise UserInputError(
                f"votes file {lacking}: has no `{column}` while another votes file has one; "
                "give every file the column, or none."
            )
    _resolve_emails(files)
    count = _count_once(files)
    if count.dropped:
        names = ", ".join(str(path) for path in paths)
        message = (
            f"{count.dropped} vote(s) given twice in the votes files ({names}) were counted "
            f"once, the first: {count.example}"
        )
        if strict:
            raise UserInputError(f"{message}; --strict refuses them: give each vote once.")
        warnings.warn(message + ".", DuplicateVotesWarning, stacklevel=2)
    if count.withdrawn:
        warnings.warn(
            f"{count.withdrawn} vote(s) of assignments rejected (or annotations cancelled) in "
            "another votes file were left out.",
            DuplicateVotesWarning,
            stacklevel=2,
        )
    note = _overlap_note(files)
    if note:
        warnings.warn(note + ".", DuplicateVotesWarning, stacklevel=2)
    present = set(_OUR_COLUMNS).union(*(votes.columns for votes in files))
    order = [column for column in (*_OUR_COLUMNS, "ballot", "worker_id") if column in present]
    return _frame([vote.row(present) for vote in count.kept], order)
