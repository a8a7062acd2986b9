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
    ``Input.ballot`` and ``AssignmentStatus`` (``Rejected`` rows are skipped), and the answer in
    ``Answer.choice`` (or ``Answer.choice.label``, as a crowd-classifier form names it).

Each file is read once into validated vote records: a Label Studio export through a pydantic
schema (:class:`LabelStudioTask`, strict types: a ``true`` is no item id), our CSV and MTurk
results through the one CSV reader of :mod:`sts_extras.annotation.tables` (UTF-8 with or
without a byte-order mark); a ``ballot`` must be a whole number written in plain decimals.

Votes given twice are counted once (:func:`read_vote_files`). Label Studio exports are
cumulative, so a partial and a later full export of one project (or one export given twice)
hold the same annotations: an annotation is identified by its id (Label Studio's annotation
``id``, MTurk's ``AssignmentId``) and by its task and annotator (Label Studio's task ``id``,
MTurk's ``HITId`` with ``WorkerId``), and a second copy of it is dropped. A row of our CSV (and
of files without those ids) is identified by its annotator, ballot, pair and answer; as one
annotator may answer one pair twice within a file (pairs can repeat within a ballot), each such
vote counts as often as in the file that holds it most often (the union of the files). Votes
without an annotator cannot be told apart, so only a whole file given twice (same content) is
dropped. The number of dropped votes is reported (:class:`DuplicateVotesWarning`), or, with
``strict=True`` (``--strict``), refused.

Answers in Label Studio and MTurk files are ``Pair A`` / ``Pair B`` / ``Equally similar``
(:data:`~sts_extras.annotation.ballots.CHOICES`), or ``A`` / ``B`` / ``tie`` (any letter case;
the tie label also counts as a tie).
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ConfigDict, Field

from sts_extras.annotation.ballots import CHOICE_A, CHOICE_B, CHOICE_TIE
from sts_extras.errors import UserInputError
from sts_extras.io.content import content_hash
from sts_extras.io.numbers import parse_number
from sts_extras.io.records import Record, RecordError, parse_record
from sts_extras.io.text import parse_json, read_text
from sts_extras.limits import MAX_BALLOTS

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "VOTE_FORMATS",
    "DuplicateVotesWarning",
    "LabelStudioTask",
    "detect_format",
    "read_vote_files",
    "read_votes",
]

#: Values of ``--votes-format``; ``auto`` looks at the file's content.
VOTE_FORMATS = ("auto", "csv", "label-studio", "mturk")
_OUR_COLUMNS = ("item_a", "item_b", "winner")
_MTURK_ANSWERS = ("Answer.choice", "Answer.choice.label")


class DuplicateVotesWarning(UserWarning):
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
    id: int | str | None = None


class _Annotation(_Export):
    id: int | str | None = None
    completed_by: int | str | _User | None = None
    was_cancelled: bool = False
    result: tuple[_ResultEntry, ...] = ()


class _TaskData(Record):
    # the ballot's columns (sentences too) come back unchanged; only these are read
    model_config = ConfigDict(extra="allow")
    item_a: str | int
    item_b: str | int
    ballot: int | str | None = None


class LabelStudioTask(_Export):
    """One task of a Label Studio JSON export of the ballots ``annotate`` writes.

    Attributes
    ----------
    id : int or str, optional
        Label Studio's task id.
    data : the ballot row: ``item_a``, ``item_b`` (text or whole numbers), ``ballot``.
    annotations : tuple
        Each with ``id``, ``completed_by``, ``was_cancelled`` and ``result``.
    """

    id: int | str | None = None
    data: _TaskData
    annotations: tuple[_Annotation, ...] = Field(default=())


@dataclass
class _Votes:
    """The votes of one file: rows, and per row its identities (for counting it once)."""

    path: Path
    rows: list[dict[str, str]]
    # per row: keys that identify the annotation uniquely (an id): a second copy is dropped
    unique: list[tuple[Hashable, ...]] = field(default_factory=list)
    # per row: a key counted as a multiset (a vote may legitimately repeat within a file)
    repeated: list[Hashable | None] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    columns: set[str] = field(default_factory=set)
    digest: str = ""


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


def _ballot(value: int | str, path: Path, where: str) -> str:
    """A ballot number as canonical text (``"01"``, ``"1.0"`` and ``1`` are ballot ``"1"``)."""
    if isinstance(value, str):
        number = parse_number(value, f"votes file {path}: {where}: `ballot`")
    else:
        number = float(value)  # a JSON int (the schema refuses booleans and floats)
    if number != int(number) or not 1 <= number <= MAX_BALLOTS:
        raise _fail(
            path, f"{where}: `ballot` {value!r} is not a whole number from 1 to {MAX_BALLOTS}."
        )
    return str(int(number))


def _annotator(completed_by: int | str | _User | None) -> str:
    if isinstance(completed_by, _User):
        completed_by = completed_by.email or completed_by.id
    return "" if completed_by is None else str(completed_by).strip()


def _choice(annotation: _Annotation) -> str | None:
    """The answer of one Label Studio annotation (None if it has no choice)."""
    results = [entry for entry in annotation.result if entry.type == "choices"]
    if len(results) > 1:
        results = [entry for entry in results if entry.from_name == "choice"]
    if not results or results[0].value is None:
        return None
    choices = results[0].value.choices
    return choices[0] if len(choices) == 1 else None


def _read_label_studio(path: Path, text: str, tie_label: str) -> _Votes:
    data = parse_json(text, f"votes file {path}")
    if not isinstance(data, list):
        raise _fail(path, "a Label Studio JSON export is a list of tasks; this is not a list.")
    votes = _Votes(path, [])
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
        item_a, item_b = str(task.data.item_a).strip(), str(task.data.item_b).strip()
        ballot = None if task.data.ballot is None else _ballot(task.data.ballot, path, where)
        for annotation in task.annotations:
            if annotation.was_cancelled:
                continue
            worker = _annotator(annotation.completed_by)
            answer = _choice(annotation)
            winner = _winner(answer, item_a, item_b, tie_label)
            if winner is None:
                raise _fail(
                    path,
                    f"{where}, annotation by {worker or '?'}: choice {answer!r} is not an "
                    f"answer of the ballot; {_answers_hint()}.",
                )
            if not worker:
                raise _fail(path, f"{where}: an annotation has no `completed_by`.")
            row = {"item_a": item_a, "item_b": item_b, "winner": winner, "worker_id": worker}
            if "ballot" in raw["data"]:
                row["ballot"] = ballot or ""
            votes.columns.update(row)
            comparison = (ballot, item_a, item_b)
            unique: list[Hashable] = []
            if annotation.id is not None:
                unique.append(("label-studio annotation", str(annotation.id)))
            if task.id is not None:
                unique.append(("label-studio task", str(task.id), worker, *comparison))
            votes.rows.append(row)
            votes.unique.append(tuple(unique))
            votes.repeated.append(None if unique else (worker, *comparison, winner))
            votes.answers.append(winner)
    if not votes.rows:
        raise _fail(path, "holds no submitted annotation.")
    return votes


def _read_mturk(path: Path, text: str, tie_label: str) -> _Votes:
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
    votes = _Votes(path, [])
    for index, row in enumerate(frame.to_dict(orient="records")):
        line = f"row {index + 1} (line {index + 2})"
        if "AssignmentStatus" in row and row["AssignmentStatus"].strip() == "Rejected":
            continue
        item_a, item_b = row["Input.item_a"].strip(), row["Input.item_b"].strip()
        winner = _winner(row[answer], item_a, item_b, tie_label)
        if winner is None:
            raise _fail(
                path, f"{line}: {answer} {row[answer]!r} is not an answer; {_answers_hint()}."
            )
        worker = row["WorkerId"].strip()
        if not worker:
            raise _fail(path, f"{line}: WorkerId is blank.")
        vote = {"item_a": item_a, "item_b": item_b, "winner": winner, "worker_id": worker}
        ballot = None
        if "Input.ballot" in row:
            ballot = vote["ballot"] = _ballot(row["Input.ballot"], path, line)
        votes.columns.update(vote)
        unique: list[Hashable] = []
        if row.get("AssignmentId", "").strip():
            unique.append(("mturk assignment", row["AssignmentId"].strip()))
        if row.get("HITId", "").strip():
            unique.append(("mturk hit", row["HITId"].strip(), worker))
        votes.rows.append(vote)
        votes.unique.append(tuple(unique))
        votes.repeated.append(None if unique else (worker, ballot, item_a, item_b, winner))
        votes.answers.append(winner)
    if not votes.rows:
        raise _fail(path, "holds no assignment that was not rejected.")
    return votes


def _read_our_csv(path: Path, text: str) -> _Votes:
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
    votes = _Votes(path, [], columns=set(columns))
    for index, record in enumerate(frame[columns].to_dict(orient="records")):
        row: dict[str, str] = {str(column): str(value) for column, value in record.items()}
        line = f"row {index} (line {index + 2})"
        if "worker_id" in row and not row["worker_id"].strip():
            raise _fail(path, f"{line}: `worker_id` is blank.")
        if "ballot" in row and row["ballot"].strip():
            row["ballot"] = _ballot(row["ballot"], path, line)
        worker = row["worker_id"].strip() if "worker_id" in row else None
        key = tuple(row.get(c, "").strip() for c in ("ballot", "item_a", "item_b", "winner"))
        votes.rows.append(row)
        votes.unique.append(())
        votes.repeated.append(None if worker is None else (worker, *key))
        votes.answers.append(row["winner"].strip())
    return votes


def _read(path: Path, vote_format: str, tie_label: str) -> _Votes:
    path = Path(path)
    text = read_text(path, "votes file")
    if vote_format == "auto":
        vote_format = detect_format(path, text)
    if vote_format == "label-studio":
        votes = _read_label_studio(path, text, tie_label)
    elif vote_format == "mturk":
        votes = _read_mturk(path, text, tie_label)
    else:
        votes = _read_our_csv(path, text)
    votes.digest = content_hash(text)
    return votes


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
        a ``ballot`` that is not a whole number.
    """
    return read_vote_files([path], vote_format, tie_label)


def _count_once(files: Sequence[_Votes]) -> tuple[list[dict[str, str]], int]:
    """The rows of ``files`` with every vote counted once, and how many copies were dropped."""
    kept: list[dict[str, str]] = []
    dropped = 0
    first: dict[Hashable, tuple[str, Path]] = {}  # unique key -> (answer, file)
    counted: Counter[Hashable] = Counter()  # repeated key -> copies kept so far
    digests: set[str] = set()
    for votes in files:
        if votes.digest in digests:  # the same content again: nothing new in it
            dropped += len(votes.rows)
            continue
        digests.add(votes.digest)
        in_file: Counter[Hashable] = Counter()
        for row, unique, repeated, answer in zip(
            votes.rows, votes.unique, votes.repeated, votes.answers
        ):
            seen = next((first[key] for key in unique if key in first), None)
            if seen is not None:
                if seen[0] != answer:
                    raise UserInputError(
                        f"votes files {seen[1]} and {votes.path}: the same annotation answers "
                        f"{seen[0]!r} in one and {answer!r} in the other; give only the latest "
                        "export."
                    )
                dropped += 1
                continue
            for key in unique:
                first[key] = (answer, votes.path)
            if repeated is not None:
                in_file[repeated] += 1
                if in_file[repeated] <= counted[repeated]:
                    dropped += 1
                    continue
                counted[repeated] += 1
            kept.append(row)
    return kept, dropped


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
    copies were dropped.

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
        annotation with two different answers in two files; with ``strict``, any vote given
        twice.
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
    rows, dropped = _count_once(files)
    if dropped:
        names = ", ".join(str(path) for path in paths)
        message = (
            f"{dropped} vote(s) given twice in the votes files ({names}) were counted once "
            "(the same annotation in two exports, or a file given twice)"
        )
        if strict:
            raise UserInputError(f"{message}; --strict refuses them: give each vote once.")
        warnings.warn(message + ".", DuplicateVotesWarning, stacklevel=2)
    present = set().union(*(votes.columns for votes in files))
    order = (*_OUR_COLUMNS, "ballot", "worker_id")
    return _frame(rows, [column for column in order if column in present])
