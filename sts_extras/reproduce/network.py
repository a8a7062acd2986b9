"""Run the rows that need the network when what they need is reachable, and fill in ``ours``.

A row of :mod:`sts_extras.reproduce` that needs vectors or a model this machine may not have
prints the ``sts-extras leaderboard`` command that reproduces it; when it also carries a
:class:`~sts_extras.reproduce.rows.LeaderboardReading`, ``sts-extras reproduce`` runs that
command when the user says the source is reachable:

* ``--source NAME=PATH``: the word ``NAME`` of the commands (a gensim-downloader name, a Hub id,
  a file name or a placeholder) is replaced by the local ``PATH``;
* ``--online``: the commands of the rows that need the network run as printed (their loading
  code downloads).

Each distinct command runs once (a run gives the Pearson and the Spearman rows of several
methods), into a folder of its own, and its ``leaderboard.json`` is read through a validated
record (:class:`~sts_extras.io.records.Record`). A command that fails leaves its rows as they
were and gives one note saying why; nothing here raises past the report but a malformed
``--source``.

A command is run as the library call it stands for: its options are read into the inputs and
the :class:`~sts_extras.leaderboard.LeaderboardSettings` of
:func:`~sts_extras.leaderboard.run_leaderboard` (:func:`leaderboard_call`; the rows' commands use
only the options it knows), and the call runs in this process. So ``reproduce`` does not go
through the command line (it sits below it), it does not pay a second interpreter's start and
imports (torch, MTEB) per command, and it needs no ``sts-extras`` executable on ``PATH``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import shlex
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ConfigDict

from sts_extras.errors import UserInputError
from sts_extras.io.records import Record, read_record
from sts_extras.optional import MissingExtraError
from sts_extras.reproduce.rows import ReproducedRow, computed_row

__all__ = [
    "SOURCE_OPTION",
    "check_source_names",
    "fill_network_rows",
    "leaderboard_call",
    "parse_sources",
]

SOURCE_OPTION = "--source"
#: The options of ``sts-extras leaderboard`` that the rows' commands use, by what they set:
#: repeatable inputs of :func:`~sts_extras.leaderboard.run_leaderboard` ...
_LIST_OPTIONS = {"--model": "models", "--vectors": "vectors", "--task": "tasks"}
#: ... flags of its settings (field, value when given) ...
_FLAG_OPTIONS = {
    "--sif": ("sif", True),
    "--no-figures": ("figures", False),
    "--no-progress": ("progress", False),
}
#: ... and valued settings (field, the type of each of its values, how many).
_VALUE_OPTIONS: dict[str, tuple[str, type, int]] = {
    "--output": ("output", str, 1),
    "--bins": ("bins", int, 1),
    "--score-range": ("score_range", float, 2),
}


class _LeaderboardResult(Record):
    """One model on one task in ``leaderboard.json`` (only the fields read here)."""

    model_config = ConfigDict(extra="ignore")
    task: str
    model: str
    pearson: float | None
    spearman: float | None
    error: str | None = None


class _LeaderboardFile(Record):
    """``leaderboard.json`` as written by ``sts-extras leaderboard``: its per-model results."""

    model_config = ConfigDict(extra="ignore")
    results: tuple[_LeaderboardResult, ...]


def parse_sources(values: Sequence[str] | None) -> dict[str, Path]:
    """``--source NAME=PATH`` values as ``{NAME: PATH}``, each PATH existing.

    Raises
    ------
    sts_extras.errors.UserInputError
        A value without ``=``, with an empty side, a NAME given twice or a PATH that does not
        exist (the message names ``--source``).
    """
    sources: dict[str, Path] = {}
    for value in values or ():
        name, equals, path = value.partition("=")
        name, path = name.strip(), path.strip()
        if not equals or not name or not path:
            raise UserInputError(
                f"{SOURCE_OPTION} {value!r}: expected NAME=PATH (a name the printed commands "
                "use, e.g. word2vec-google-news-300, and a local file or folder)."
            )
        if name in sources:
            raise UserInputError(f"{SOURCE_OPTION}: {name!r} is given twice.")
        where = Path(path).expanduser()
        if not where.exists():
            raise UserInputError(f"{SOURCE_OPTION} {value!r}: no such file or directory: {path}")
        sources[name] = where
    return sources


def source_names(rows: Sequence[ReproducedRow]) -> tuple[str, ...]:
    """The names ``--source`` can replace in these rows' commands, sorted."""
    return tuple(sorted({row.reading.source for row in rows if row.reading is not None}))


def check_source_names(sources: Mapping[str, Path], rows: Sequence[ReproducedRow]) -> None:
    """Refuse a ``--source`` NAME that no row's command uses (the message lists those that do)."""
    known = source_names(rows)
    unknown = [name for name in sources if name not in known]
    if unknown:
        raise UserInputError(
            f"{SOURCE_OPTION}: {', '.join(map(repr, unknown))} is not a name the rows use; "
            f"expected one of: {', '.join(known) or '(none: these papers run nothing)'}."
        )


def _runs(row: ReproducedRow, sources: Mapping[str, Path], online: bool) -> bool:
    """Is this row's command run: its source is given, or it needs only the network and
    ``--online`` says the network is there (placeholders of unpublished data need a source)."""
    if row.reading is None or row.ours is not None or row.command is None:
        return False
    return row.reading.source in sources or (online and row.status == "needs network")


def _argv(
    command: str, sources: Mapping[str, Path], work_dir: Path | None, progress: bool
) -> list[str]:
    """The command's arguments after ``sts-extras``: sources replaced, ``--output`` moved under
    ``work_dir`` (the folder name kept; None: left as printed), ``--no-progress`` added unless
    bars are wanted."""
    words = shlex.split(command)
    if words[:2] != ["sts-extras", "leaderboard"] or "--output" not in words[:-1]:
        raise ValueError(f"not an `sts-extras leaderboard ... --output DIR` command: {command}")
    argv = [str(sources[word]) if word in sources else word for word in words[1:]]
    at = argv.index("--output") + 1
    if work_dir is not None:
        argv[at] = str(work_dir / Path(argv[at]).name)
    if not progress and "--no-progress" not in argv:
        argv.append("--no-progress")
    return argv


def leaderboard_call(argv: Sequence[str]) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """The library call an ``sts-extras leaderboard`` command of a row stands for.

    Parameters
    ----------
    argv : sequence of str
        The command's words after ``sts-extras``: ``leaderboard`` and its options.

    Returns
    -------
    inputs : dict
        ``models``, ``vectors`` and ``tasks`` as given (each option repeatable, in order).
    settings : dict
        The :class:`~sts_extras.leaderboard.LeaderboardSettings` fields the options set.

    Raises
    ------
    ValueError
        Not a leaderboard command, or an option no row uses (a bug of the row, not user input).
    """
    if not argv or argv[0] != "leaderboard":
        raise ValueError(f"not an `sts-extras leaderboard` command: {shlex.join(argv)}")
    inputs: dict[str, list[str]] = {}
    settings: dict[str, Any] = {}
    words = list(argv[1:])
    while words:
        option = words.pop(0)
        if option in _LIST_OPTIONS and words:
            inputs.setdefault(_LIST_OPTIONS[option], []).append(words.pop(0))
        elif option in _FLAG_OPTIONS:
            field, value = _FLAG_OPTIONS[option]
            settings[field] = value
        elif option in _VALUE_OPTIONS and len(words) >= _VALUE_OPTIONS[option][2]:
            field, kind, count = _VALUE_OPTIONS[option]
            values = [kind(words.pop(0)) for _ in range(count)]
            settings[field] = values[0] if count == 1 else tuple(values)
        else:
            raise ValueError(
                f"{option!r} of `sts-extras {shlex.join(argv)}` is not an option the rows use"
            )
    return inputs, settings


def _run(argv: list[str], *, progress: bool) -> str | None:
    """Run the leaderboard ``sts-extras ARGV`` stands for, here; None if it ran, else why not
    (one line). A model that failed on a task is not a failure of the run: its results say why.

    Nothing goes to stdout (the reproduce table is what stdout shows); the run's stderr (the
    bars of a long run, warnings) goes on to stderr only when ``progress``.
    """
    from sts_extras.io.model_sources import one_line
    from sts_extras.leaderboard import LeaderboardSettings, run_leaderboard

    inputs, fields = leaderboard_call(argv)
    quiet = contextlib.nullcontext() if progress else contextlib.redirect_stderr(io.StringIO())
    try:
        with contextlib.redirect_stdout(io.StringIO()), quiet:
            run_leaderboard(
                models=inputs.get("models"),
                vectors=inputs.get("vectors"),
                tasks=inputs.get("tasks"),
                settings=LeaderboardSettings(**fields),
            )
    except (UserInputError, MissingExtraError) as error:  # a bad --source file, a missing extra
        return one_line(error)
    except Exception as error:  # noqa: BLE001 - any failure of one run (the network, a file)
        return f"{type(error).__name__}: {one_line(error)}"
    return None


def _read(folder: Path) -> _LeaderboardFile:
    return read_record(_LeaderboardFile, folder / "leaderboard.json", "leaderboard.json")


def _filled(
    row: ReproducedRow, board: _LeaderboardFile, ran: str, vectors: str | None
) -> ReproducedRow | str:
    """``row`` with ``ours`` read from ``board``, or why it cannot be read."""
    reading = row.reading
    assert reading is not None
    found = [r for r in board.results if r.task == reading.task and reading.selects(r.model)]
    what = f"{reading.model or 'the model'} on {reading.task}"
    if len(found) != 1:
        return f"{len(found)} results of {what} in its leaderboard.json, expected 1"
    value = getattr(found[0], reading.statistic)
    if value is None:
        return f"no {reading.statistic} of {what} ({found[0].error or 'no scores'})"
    filled = computed_row(
        row.paper,
        row.quantity,
        row.paper_value,
        reading.scale * value,
        tolerance=reading.tolerance,
        tolerance_reason=reading.tolerance_reason,
        why_may_differ=reading.why_may_differ,
        vectors=vectors,
    )
    return dataclasses.replace(filled, command=ran, reading=reading)


def _vectors(row: ReproducedRow, sources: Mapping[str, Path]) -> str | None:
    """What the row's ``--vectors`` were (None for a ``--model`` run)."""
    assert row.reading is not None and row.command is not None
    words = shlex.split(row.command)
    name = row.reading.source
    if words[words.index(name) - 1] != "--vectors":
        return None
    where = f"the file {sources[name]}" if name in sources else "as the command loads it"
    return f"{name}: {where} (--vectors of `sts-extras leaderboard`)"


@contextlib.contextmanager
def _folder(output: Path | None) -> Iterator[Path]:
    if output is not None:
        folder = output / "runs"
        folder.mkdir(parents=True, exist_ok=True)
        yield folder
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="sts-extras-reproduce-") as temporary:
        yield Path(temporary)


def fill_network_rows(
    rows: Sequence[ReproducedRow],
    *,
    sources: Mapping[str, Path],
    online: bool = False,
    output: Path | None = None,
    progress: bool = False,
) -> tuple[list[ReproducedRow], list[str]]:
    """Run the commands of the rows that can run now, and fill those rows.

    Parameters
    ----------
    rows : sequence of ReproducedRow
        Every row of the report; those with a reading whose source is in ``sources`` (or that
        need only the network, with ``online``) are run, the others returned unchanged.
    sources : mapping of str to Path
        ``--source``: name in the commands -> local file or folder (:func:`parse_sources`).
    online : bool, default False
        Run the commands of the rows that need the network as printed.
    output : Path, optional
        Each command writes its leaderboard into ``output/runs/<its --output name>``; without
        it, into a temporary folder removed afterwards.
    progress : bool, default False
        Let the commands show their progress bars (on stderr).

    Returns
    -------
    rows : list of ReproducedRow
        In the order given; a row read from a run is a computed row (``match`` or
        ``differs (explained)``) whose ``command`` is the command that ran.
    notes : list of str
        One line per command that failed (or whose file lacked a row's number), saying why;
        its rows are left as they were.
    """
    out = list(rows)
    groups: dict[str, list[int]] = {}
    for index, row in enumerate(out):
        if _runs(row, sources, online):
            assert row.command is not None
            groups.setdefault(row.command, []).append(index)
    if not groups:
        return out, []
    notes = []
    with _folder(output) as work_dir:
        for command, indices in groups.items():
            argv = _argv(command, sources, work_dir, progress)
            # the command as a reader reruns it: a temporary folder is gone, show the printed one
            shown = argv if output is not None else _argv(command, sources, None, progress)
            ran = shlex.join(["sts-extras", *shown])
            failure = _run(argv, progress=progress)
            board = None
            if failure is None:
                try:
                    board = _read(Path(argv[argv.index("--output") + 1]))
                except UserInputError as error:  # a missing or malformed file
                    failure = str(error)
            if board is None:
                notes.append(f"`{ran}` failed, its {len(indices)} rows are not filled: {failure}")
                continue
            unread = []
            for index in indices:
                filled = _filled(out[index], board, ran, _vectors(out[index], sources))
                if isinstance(filled, str):
                    unread.append(f"{out[index].quantity}: {filled}")
                else:
                    out[index] = filled
            if unread:
                notes.append(f"`{ran}`: not filled: {'; '.join(unread)}")
    return out, notes
