"""The schemas of every file the leaderboard reads back: one validated parse per format.

A leaderboard output holds ``cells/plan.json`` (:class:`PlanFile`), one
``cells/tasks/<task>.json`` per task (:class:`TaskFile`) and one ``cells/<model>/<task>.json``
per cell (:class:`CellFile`); ``collect`` reads these from folders written on other machines, by
other people, and plain MTEB folders: the parts of MTEB's ``<task>_predictions.json``
(:class:`PredictionMeta`, :class:`PredictionScores`) and of its task-result JSON
(:class:`TaskResultFile`) that it uses (defined in :mod:`sts_extras.integrations.mteb.internals`,
the one module that knows MTEB's file keys, and re-exported here). Each is a
:class:`~sts_extras.io.records.Record`: strict types (no booleans or strings for numbers),
ranges (a correlation in [-1, 1], a score range of two finite numbers, low < high), names that
are not empty, and relative file names that stay in their folder. Code that uses them reads
typed attributes, never raw dictionaries.

The formats sts-extras writes forbid unknown fields, and their run settings must name every
setting (:data:`StoredSettings`: code that makes a
:class:`~sts_extras.leaderboard.settings.RunSettings` has defaults, a record read back has none);
MTEB's files are read for the fields named here only (MTEB adds fields between releases).

Our own records never hold NaN or an infinity: :func:`checked_record` refuses one before a record
is written (naming the record and the field: a correlation of constant scores is undefined, and
such a cell is recorded as failed), and the JSON reader refuses one when a record is read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from typing import Annotated, Literal, TypeVar

from pydantic import AfterValidator, BeforeValidator, Field, model_validator

from sts_extras._validation import first_control_character
from sts_extras.integrations.mteb.internals import (
    PREDICTION_FILE_SUFFIX,
    PredictionMeta,
    PredictionScores,
    ScoreEntry,
    TaskResultFile,
)
from sts_extras.io.paths import check_relative_path
from sts_extras.io.records import Record, RecordError, parse_record
from sts_extras.leaderboard.settings import RUN_SETTINGS, RunSettings

__all__ = [
    "FORMAT",
    "MTEB_PREDICTION_SUFFIX",
    "CellFile",
    "CellIdentity",
    "CellInfo",
    "PlanFile",
    "PredictionMeta",
    "PredictionScores",
    "RunSettings",
    "ScoreEntry",
    "StoredSettings",
    "TaskFile",
    "TaskIdentity",
    "TaskResultFile",
    "UnitRecord",
    "VectorsInfo",
    "check_relative_name",
    "checked_record",
    "shard_label",
]

#: Version of the formats of :class:`PlanFile`, :class:`TaskFile` and :class:`CellFile`
#: (2: cells carry their identity, plans their score range and the shards they hold; 3: the
#: settings are the record of :class:`~sts_extras.leaderboard.settings.LeaderboardSettings`,
#: whose dependent-correlation test is ``method``, once ``test``; 4: every digest and key is
#: :data:`~sts_extras.io.content.CONTENT_HASH`, XXH3-128, before 0.4 another hash). A record of
#: another format is refused as made by another version of sts-extras
#: (:func:`~sts_extras.leaderboard.run.cells.read_cells`), never compared digest by digest.
FORMAT = 4
#: ``mteb.evaluate(prediction_folder=F)`` writes ``F/<task name><suffix>``.
MTEB_PREDICTION_SUFFIX = PREDICTION_FILE_SUFFIX


def _no_control(text: str) -> str:
    if first_control_character(text) is not None:  # the rule of check_name at the doors
        raise ValueError("control characters are not allowed")
    return text


#: A display, task, subset or split name: not empty, no control characters, at most 1000 chars.
Name = Annotated[str, Field(min_length=1, max_length=1000), AfterValidator(_no_control)]
#: A digest or store key written by sts-extras: lower-case hexadecimal.
Hex = Annotated[str, Field(pattern=r"^[0-9a-f]{8,128}$")]
#: A finite number (JSON int or float; never a boolean: the base record is strict).
Finite = float
#: A Pearson correlation as MTEB reports it.
Correlation = Annotated[float, Field(ge=-1.0, le=1.0)]


def _score_range(value: tuple[float, float]) -> tuple[float, float]:
    if not value[0] < value[1]:
        raise ValueError(f"the low end {value[0]} must be below the high end {value[1]}")
    return value


#: The gold-score range of a task: two finite numbers, low < high.
ScoreRange = Annotated[tuple[Finite, Finite], AfterValidator(_score_range)]


def shard_label(text: str) -> str:
    """``text`` if it is ``"K/N"`` with 1 <= K <= N (no spaces, no leading zeros)."""
    match = re.fullmatch(r"([1-9][0-9]{0,8})/([1-9][0-9]{0,8})", text)
    if match is None or int(match.group(1)) > int(match.group(2)):
        raise ValueError(f"{text!r} is not a shard K/N with 1 <= K <= N")
    return text


def check_relative_name(name: str) -> str:
    """``name`` if it is a relative POSIX path of plain components
    (:func:`~sts_extras.io.paths.check_relative_path`); the folder it is resolved in confines it
    further (:func:`~sts_extras.io.paths.confined_path`, which also follows symlinks)."""
    check_relative_path(name, "a listed file")
    return name


RelativeName = Annotated[str, AfterValidator(check_relative_name)]
ShardLabel = Annotated[str, AfterValidator(shard_label)]


def _unique(values: Sequence[str], what: str) -> None:
    seen = set()
    for value in values:
        if value in seen:
            raise ValueError(f"{what} {value!r} is listed twice")
        seen.add(value)


def _every_setting(value: object) -> object:
    """``value`` if, as a JSON object, it names every field of :class:`RunSettings`."""
    if isinstance(value, dict):
        missing = [name for name in RUN_SETTINGS if name not in value]
        if missing:
            names = ", ".join(f"`{name}`" for name in missing)
            raise ValueError(
                f"{names} {'is' if len(missing) == 1 else 'are'} missing (a stored record names "
                "every setting; none is taken from a default)"
            )
    return value


#: The run settings as a record stores them: every field written, so a record read back never
#: takes a default (the defaults of :class:`RunSettings` are for code that makes one); each field
#: is then checked as in :class:`RunSettings`.
StoredSettings = Annotated[RunSettings, BeforeValidator(_every_setting)]

#: A model's identity (opaque: a content hash and loader settings); None for a model object.
ModelIdentity = Annotated[str, Field(min_length=1, max_length=100_000)] | None


class PlanFile(Record):
    """``cells/plan.json``: models × tasks, the baseline, the settings (the record of the run's
    :class:`~sts_extras.leaderboard.settings.LeaderboardSettings`) and the shards held."""

    format: Literal[4]
    models: tuple[Name, ...] = Field(min_length=1)
    tasks: tuple[Name, ...] = Field(min_length=1)
    baseline: Name
    settings: StoredSettings
    #: Display name -> the model's identity (what its cells' ``identity.model`` must be).
    identities: dict[Name, ModelIdentity]
    #: The shards whose cells the folder holds (``"K/N"``, sorted; ``"1/1"`` for a whole run).
    shards: tuple[ShardLabel, ...]

    @model_validator(mode="after")
    def _consistent(self) -> PlanFile:
        if sorted(self.identities) != sorted(self.models):
            raise ValueError("identities must name each model once")
        _unique(self.models, "model")
        _unique(self.tasks, "task")
        _unique(self.shards, "shard")
        if self.baseline not in self.models:
            raise ValueError(f"the baseline {self.baseline!r} is not one of the models")
        return self


class UnitRecord(Record):
    """One (subset, split) of a task with its gold scores."""

    label: Name
    subset: Name
    split: Name
    score_range: ScoreRange
    gold: tuple[Finite, ...] = Field(min_length=1)


class TaskFile(Record):
    """``cells/tasks/<task>.json``: a task's units, its data key and the digest of its gold."""

    format: Literal[4]
    task: Name
    key: Hex
    units: tuple[UnitRecord, ...] = Field(min_length=1)
    gold: Hex

    @model_validator(mode="after")
    def _consistent(self) -> TaskFile:
        _unique([unit.label for unit in self.units], "unit")
        return self


class VectorsInfo(Record):
    """A named vector source as a cell records it (``VectorSetInfo.as_dict`` of
    :mod:`sts_extras.vectors.packaged`): what the vectors are, their paper and licence."""

    name: Name
    title: Name
    paper: Name
    training_data: Name
    training_data_public: bool
    reference: Name
    license: Name
    license_url: Name
    languages: list[Name]
    adapted_from: Name
    training_code: Name
    distribution: Name
    distribution_version: Name | None = None


class CellInfo(Record):
    """The model's description a cell records (shown in the reports)."""

    kind: Name
    source: Annotated[str, Field(max_length=4096), AfterValidator(_no_control)]
    mteb_name: Name | None = None
    #: Becomes a folder name of MTEB's results: one plain file name.
    mteb_revision: Annotated[str, AfterValidator(check_relative_name)] | None = None
    trust_remote_code: Literal[True] | None = None
    #: The model's word vectors, when they are a named source (``--vectors glove-6b-50d``).
    vectors: VectorsInfo | None = None

    @model_validator(mode="after")
    def _plain_revision(self) -> CellInfo:
        if self.mteb_revision is not None and "/" in self.mteb_revision:
            raise ValueError(f"mteb_revision {self.mteb_revision!r} is not a plain folder name")
        return self


class TaskIdentity(Record):
    """What a task's numbers depend on: its data (the store key) and its score range."""

    key: Hex
    score_range: ScoreRange


class CellIdentity(Record):
    """What produced a cell: the model, the task's data and score range, the run settings (the
    record of the run's :class:`~sts_extras.leaderboard.settings.LeaderboardSettings`).

    ``model`` is the model's identity (a content hash of its files and its loader settings, see
    :attr:`sts_extras.leaderboard.run.resolve.ModelEntry.identity`), opaque here; None when it has
    none (a ready Python object).
    """

    model: ModelIdentity
    task: TaskIdentity
    settings: StoredSettings


class CellFile(Record):
    """``cells/<model>/<task>.json``: one cell's description, identity, MTEB's pearsons, files."""

    format: Literal[4]
    model: Name
    task: Name
    info: CellInfo
    identity: CellIdentity
    #: ``"subset/split"`` -> the unrounded pearson MTEB reported (None when it had none).
    pearson: dict[Name, Correlation | None]
    files: tuple[RelativeName, ...]
    error: Annotated[str, Field(min_length=1, max_length=100_000)] | None

    @model_validator(mode="after")
    def _consistent(self) -> CellFile:
        _unique(self.files, "file")
        if self.error is not None and self.files:
            raise ValueError("a failed cell lists no files")
        if self.error is None and not self.files:
            raise ValueError("a cell without an error lists its prediction file")
        return self


_R = TypeVar("_R", bound=Record)


def _numbers(data: object, where: str = "") -> Iterator[tuple[str, float]]:
    """Every float in a JSON-like value, with its place (``pearson.default/test``)."""
    if isinstance(data, float):
        yield where or "(top level)", data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from _numbers(value, f"{where}.{key}" if where else str(key))
    elif isinstance(data, (list, tuple)):
        for index, value in enumerate(data):
            yield from _numbers(value, f"{where}[{index}]")


def checked_record(schema: type[_R], data: object, what: str) -> _R:
    """``data``, a record sts-extras is about to write, as a ``schema`` record: refused first if
    it holds a NaN or an infinity (which the record could not be read back with), then if it
    does not parse. Call it before writing, so no record of ours is unreadable.

    Raises
    ------
    RecordError
        Naming ``what`` and the field: ``the cell of M on T: pearson.default/test is nan, not a
        finite number ...``.
    """
    for where, value in _numbers(data):
        if not math.isfinite(value):
            raise RecordError(
                f"{what}: {where} is {value}, not a finite number (a correlation of constant "
                "scores, e.g. of all-zero vectors, is undefined); it is not written."
            )
    return parse_record(schema, data, what)
