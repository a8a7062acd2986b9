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

Answers in Label Studio and MTurk files are ``Pair A`` / ``Pair B`` / ``Equally similar``
(:data:`~sts_extras.annotation.ballots.CHOICES`), or ``A`` / ``B`` / ``tie`` (any letter case;
the tie label also counts as a tie).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sts_extras.annotation.ballots import CHOICE_A, CHOICE_B, CHOICE_TIE
from sts_extras.errors import UserFileNotFoundError, UserInputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["VOTE_FORMATS", "detect_format", "read_vote_files", "read_votes"]

#: Values of ``--votes-format``; ``auto`` looks at the file's content.
VOTE_FORMATS = ("auto", "csv", "label-studio", "mturk")
_OUR_COLUMNS = ("item_a", "item_b", "winner")
_MTURK_ANSWERS = ("Answer.choice", "Answer.choice.label")


def _fail(path: Path, message: str) -> UserInputError:
    return UserInputError(f"votes file {path}: {message}")


def _read_text(path: Path) -> str:
    if not path.exists():
        raise UserFileNotFoundError(f"votes file: cannot read {path}: No such file or directory")
    if path.is_dir():
        raise UserInputError(f"votes file: cannot read {path}: Is a directory; give a file")
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise UserInputError(f"votes file: cannot read {path}: {reason}") from None


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
    import io

    import pandas as pd

    try:
        # every cell as text, a blank one as "" (score_votes calls it a missing label)
        return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        raise _fail(
            path,
            "is empty; expected a CSV file with the header line item_a,item_b,winner (and "
            "optionally ,ballot and ,worker_id) and one vote per line.",
        ) from None
    except ValueError as error:  # pandas' report of a malformed CSV
        raise _fail(path, f"cannot read it as CSV: {' '.join(str(error).split())}") from None


def _winner(answer: Any, item_a: str, item_b: str, tie_label: str) -> str | None:
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


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _annotator(completed_by: Any) -> str:
    if isinstance(completed_by, dict):
        return _text(completed_by.get("email") or completed_by.get("id"))
    return _text(completed_by)


def _choice(annotation: dict[str, Any]) -> Any:
    """The answer of one Label Studio annotation (None if it has no choice)."""
    results = [
        entry
        for entry in annotation.get("result") or []
        if isinstance(entry, dict) and entry.get("type") == "choices"
    ]
    if len(results) > 1:
        results = [entry for entry in results if entry.get("from_name") == "choice"]
    if not results:
        return None
    choices = (results[0].get("value") or {}).get("choices") or []
    return choices[0] if len(choices) == 1 else None


def _read_label_studio(path: Path, text: str, tie_label: str) -> pd.DataFrame:
    import pandas as pd

    try:
        tasks = json.loads(text)
    except json.JSONDecodeError as error:
        raise _fail(path, f"is not valid JSON (line {error.lineno}: {error.msg}).") from None
    if not isinstance(tasks, list):
        raise _fail(path, "a Label Studio JSON export is a list of tasks; this is not a list.")
    rows = []
    for number, task in enumerate(tasks, start=1):
        data = task.get("data") if isinstance(task, dict) else None
        where = (
            f"task {number} (id {task.get('id')})" if isinstance(task, dict) else f"task {number}"
        )
        if (
            not isinstance(data, dict)
            or not _text(data.get("item_a"))
            or not _text(data.get("item_b"))
        ):
            raise _fail(
                path,
                f"{where}: `data` lacks item_a/item_b; import the tasks written by "
                "`annotate plan --label-studio-out` (or score --label-studio-out).",
            )
        item_a, item_b = _text(data["item_a"]), _text(data["item_b"])
        for annotation in task.get("annotations") or []:
            if not isinstance(annotation, dict) or annotation.get("was_cancelled"):
                continue
            worker = _annotator(annotation.get("completed_by"))
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
            if "ballot" in data:
                row["ballot"] = _text(data["ballot"])
            rows.append(row)
    if not rows:
        raise _fail(path, "holds no submitted annotation.")
    return pd.DataFrame(rows, dtype=object).fillna("")


def _read_mturk(path: Path, text: str, tie_label: str) -> pd.DataFrame:
    import pandas as pd

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
    if "AssignmentStatus" in frame.columns:
        frame = frame[frame["AssignmentStatus"].str.strip() != "Rejected"]
    if frame.empty:
        raise _fail(path, "holds no assignment that was not rejected.")
    rows = []
    for index, row in frame.iterrows():
        line = f"row {int(str(index)) + 1} (line {int(str(index)) + 2})"
        item_a, item_b = row["Input.item_a"].strip(), row["Input.item_b"].strip()
        winner = _winner(row[answer], item_a, item_b, tie_label)
        if winner is None:
            raise _fail(
                path, f"{line}: {answer} {row[answer]!r} is not an answer; {_answers_hint()}."
            )
        if not row["WorkerId"].strip():
            raise _fail(path, f"{line}: WorkerId is blank.")
        vote = {"item_a": item_a, "item_b": item_b, "winner": winner}
        vote["worker_id"] = row["WorkerId"].strip()
        if "Input.ballot" in frame.columns:
            vote["ballot"] = row["Input.ballot"]
        rows.append(vote)
    return pd.DataFrame(rows, dtype=object)


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
        missing column or field, an answer that is not one of the choices, a blank annotator.
    """
    path = Path(path)
    text = _read_text(path)
    if vote_format == "auto":
        vote_format = detect_format(path, text)
    if vote_format == "label-studio":
        return _read_label_studio(path, text, tie_label)
    if vote_format == "mturk":
        return _read_mturk(path, text, tie_label)
    frame = _read_csv(path, text)
    missing = [column for column in _OUR_COLUMNS if column not in frame.columns]
    if missing:
        raise _fail(
            path,
            f"lacks column(s) {', '.join(missing)}; expected item_a, item_b, winner and "
            f"optionally ballot and worker_id (found: {', '.join(map(str, frame.columns))}); "
            "Label Studio exports and MTurk batch results are recognised by their content.",
        )
    if "worker_id" in frame.columns:
        blank = frame.index[frame["worker_id"].str.strip() == ""]
        if len(blank):
            raise _fail(path, f"row {blank[0]} (line {blank[0] + 2}): `worker_id` is blank.")
    return frame


def read_vote_files(
    paths: list[Path], vote_format: str = "auto", tie_label: str = "tie"
) -> pd.DataFrame:
    """Read and stack several votes files (rows in the order given).

    Either every file has ``ballot`` (``worker_id``) or none has; otherwise an error names the
    file that lacks it.
    """
    import pandas as pd

    frames = [read_votes(path, vote_format, tie_label) for path in paths]
    for column in ("ballot", "worker_id"):
        having = [column in frame.columns for frame in frames]
        if any(having) and not all(having):
            lacking = paths[having.index(False)]
            raise UserInputError(
                f"votes file {lacking}: has no `{column}` while another votes file has one; "
                "give every file the column, or none."
            )
    if len(frames) == 1:
        return frames[0]
    return pd.concat(frames, ignore_index=True)
