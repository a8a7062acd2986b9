"""MTEB's result folders read through the trust boundary: one validated score per model and task.

Two layouts hold MTEB results, and both are read here:

* the public results repository (``embeddings-benchmark/results``):
  ``results/<org>__<model>/<revision>/<Task>.json`` beside the revision's ``model_meta.json``,
  with an ``external/`` folder for results contributed from outside MTEB's runs and
  ``no_revision_available/`` for old runs that recorded no revision;
* MTEB's local cache (``mteb.ResultCache``, written by ``mteb.evaluate``):
  ``<cache>/results/<org>__<model>/<revision>/<Task>.json`` beside ``model_meta.json`` and
  ``run_settings.jsonl``.

The result files were written by MTEB 0.0.2 to 2.x in three shapes: ``scores`` by split, a list
of entries by ``hf_subset`` (MTEB >= 1.11); the split at the top level with the metrics nested
as ``cos_sim: {pearson, spearman}`` (MTEB < 1.11), per subset for the multilingual tasks; and
entries of the first shape that still nest ``cos_sim``. Metric names changed too
(``cos_sim_spearman`` became ``cosine_spearman``) and some correlations are ``[statistic,
p-value]`` pairs. Every file is parsed once into a validated record (pydantic, strict types,
finite numbers) and either gives one :class:`TaskScore` or is refused with a :class:`Refusal`
that names the file and the field. Nothing is guessed: the metric, split, English subset, model
name and revision each follow a stated rule (:data:`RULES`), and every :class:`ModelScores`
lists the rules that applied to it. A model with several revision folders (``external/``
included) is read by one of two stated rules (``revisions=``): ``"one"`` keeps one revision folder
per model; ``"join"`` takes each task's score from the model's revision folders in the order
MTEB's own ``BenchmarkResults.join_revisions`` uses (the one its leaderboard shows), and every
:class:`TaskScore` names the revision it came from.

MTEB is not imported: the tasks' main score, split, English subset and number of test pairs
are the constant table :data:`TASK_INFO`, which a test checks against MTEB's own task metadata
(``mteb.get_task(name).metadata``, offline in the package).
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any

from packaging.version import InvalidVersion, Version
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from sts_extras.errors import UserFileNotFoundError, UserInputError
from sts_extras.limits import MAX_RESULT_FILE_BYTES, MAX_RESULT_FILES

__all__ = [
    "REVISION_RULES",
    "RULES",
    "STS_TASKS",
    "TASK_INFO",
    "ModelScores",
    "PublishedResults",
    "Refusal",
    "SetAside",
    "TaskInfo",
    "TaskScore",
    "read_mteb_results",
]

#: The ten English STS tasks of MTEB, in MTEB's order.
STS_TASKS: tuple[str, ...] = (
    "STS12",
    "STS13",
    "STS14",
    "STS15",
    "STS16",
    "STSBenchmark",
    "SICK-R",
    "BIOSSES",
    "STS17",
    "STS22",
)


@dataclass(frozen=True)
class TaskInfo:
    """What MTEB's metadata says about one task: where its English score is and how many pairs
    it rests on."""

    #: MTEB's main score of the task (``TaskMetadata.main_score``).
    main_score: str
    #: The evaluation split (``TaskMetadata.eval_splits``: the one split of each STS task).
    split: str
    #: The subset whose languages are all English (``eng-Latn``).
    subset: str
    #: Pairs of that split and subset (MTEB's descriptive statistics, ``num_samples``).
    n_pairs: int


#: The ten tasks as MTEB 2.x describes them (``tests/test_rank_results.py`` checks every value
#: against ``mteb.get_task(name).metadata`` and its descriptive statistics).
TASK_INFO: Mapping[str, TaskInfo] = MappingProxyType(
    {
        "STS12": TaskInfo("cosine_spearman", "test", "default", 3108),
        "STS13": TaskInfo("cosine_spearman", "test", "default", 1500),
        "STS14": TaskInfo("cosine_spearman", "test", "default", 3750),
        "STS15": TaskInfo("cosine_spearman", "test", "default", 3000),
        "STS16": TaskInfo("cosine_spearman", "test", "default", 1186),
        "STSBenchmark": TaskInfo("cosine_spearman", "test", "default", 1379),
        "SICK-R": TaskInfo("cosine_spearman", "test", "default", 9927),
        "BIOSSES": TaskInfo("cosine_spearman", "test", "default", 100),
        "STS17": TaskInfo("cosine_spearman", "test", "en-en", 250),
        "STS22": TaskInfo("cosine_spearman", "test", "en", 197),
    }
)

#: Largest difference allowed between two fields of one file that hold the same main score
#: (``cosine_spearman``, ``cos_sim_spearman``, ``cos_sim.spearman``, ``main_score``): MTEB 2.x
#: rounds the scores it writes to 6 decimals.
SAME_SCORE_TOLERANCE = 1e-6

#: Rule name -> the rule, in one sentence. :attr:`ModelScores.rules` names the ones applied.
RULES: Mapping[str, str] = MappingProxyType(
    {
        "main-score": (
            "A task's score is MTEB's main score of the task, cosine_spearman (Spearman's "
            "correlation between the cosine similarities and the gold scores), read from the "
            "field cosine_spearman or, in files without it, from the names earlier MTEB versions "
            "used (cos_sim_spearman, cos_sim.spearman) or from main_score; all of these that a "
            "file has must agree to 1e-6, a [statistic, p-value] pair counts as its statistic, "
            "and the field spearman (the model's own similarity function) is never used."
        ),
        "test-split": (
            "The split is test, the one evaluation split MTEB's metadata gives each of the ten "
            "tasks (STS17 and STS22 included); other splits in a file are not used."
        ),
        "english-subset": (
            "The subset is the one whose languages are all English (eng-Latn) in MTEB's "
            "metadata: default for the monolingual tasks (the split itself in files of MTEB < "
            "1.11), en-en for STS17 and en for STS22; a file without it is refused."
        ),
        "n-pairs": (
            "A score's n is the number of test pairs of the English subset in MTEB's descriptive "
            "statistics of the task (mteb 2.x), whatever dataset revision the file names."
        ),
        "task-from-file-name": (
            "A file <Task>.json holds the task <Task>; a task name inside the file (task_name, "
            "or mteb_dataset_name before MTEB 1.11) must be the same, or the file is refused."
        ),
        "name-from-model-meta": (
            "The model's name is the name field of the revision folder's model_meta.json "
            "(validated; a refused model_meta.json refuses the folder's result files)."
        ),
        "name-from-folder": (
            "Where the revision folder has no model_meta.json (or its name is null), the model's "
            "name is its folder's name with __ read as /, as MTEB's ResultCache reads it."
        ),
        "revision-from-model-meta": (
            "The revision is the revision field of the folder's model_meta.json."
        ),
        "revision-from-folder": (
            "Where model_meta.json is absent or its revision is null, the revision is the "
            "revision folder's name (external and no_revision_available included)."
        ),
        "external-as-revision": (
            "An external/ folder (results contributed outside MTEB's own runs) is one more "
            "revision of the model, named external, and competes under the revision rule."
        ),
        "revision-only-one": "The model has one revision folder, which is used.",
        "revision-most-tasks": (
            "Of several revision folders of one model (across all folders read), the one with "
            "the most selected tasks with a usable score is used and the others are set aside."
        ),
        "revision-newest-mteb": (
            "Between revision folders with equally many usable tasks, the one whose newest file "
            "was written by the newest MTEB version (mteb_version; null counts as oldest) is "
            "used: result files hold no reliable run date (evaluation_time is a duration, date "
            "appears only from MTEB 2.10 and is often null)."
        ),
        "revision-last-name": (
            "Between revision folders still tied, the one whose revision, then folder path, comes "
            "last in sorted order is used (a fixed order, not a judgement of which is better)."
        ),
        "layout": (
            "A folder that holds results/ is read through it (the results repository, a "
            "ResultCache folder); below that, files are read only at <model>/<revision>/<file> "
            "and any other file, or a link leading out of the folder, is refused."
        ),
        "revisions-joined": (
            "Each selected task's score is taken from the model's revision folders (external/ "
            "included, across all folders read) in the order of MTEB's own join of revisions "
            "(mteb 2.x BenchmarkResults.join_revisions, which its leaderboard shows): a file "
            "whose mteb_version is a valid version (PEP 440) goes first, then a file of a named "
            "revision (not external, no_revision_available or a null revision in "
            "model_meta.json), then the newest mteb_version; where MTEB leaves the order to the "
            "file system, the folder with the most usable selected tasks, then the revision, then "
            "folder path, last in sorted order, is used. Files not taken are set aside; a "
            "refused file (e.g. without the English subset) does not compete, where MTEB's join "
            "would take it and show no score."
        ),
        "revision-main": (
            "With revisions joined and main revisions given (MTEB's model registry, "
            "ModelMeta.revision), a file of the model's main revision goes before all others, as "
            "in MTEB's join."
        ),
        "not-selected": (
            "Files <Task>.json of tasks not selected, MTEB's run_settings.jsonl and files in "
            "experiments/ folders (which MTEB's ResultCache also skips by default) are counted "
            "as not selected, and not read."
        ),
    }
)

#: The values of ``revisions=`` of :func:`read_mteb_results`: the rule for a model's revisions.
REVISION_RULES: tuple[str, ...] = ("one", "join")

_META_FILE = "model_meta.json"
_RESULTS_FOLDER = "results"
_EXTERNAL = "external"
#: Revisions MTEB's join of revisions treats as unnamed (with a null revision).
_UNNAMED_REVISIONS = frozenset({_EXTERNAL, "no_revision_available"})
#: Companion files of MTEB's ResultCache, not results.
_COMPANION_FILES = frozenset({"run_settings.jsonl"})
#: Folders of MTEB's ResultCache inside a revision folder that hold variants of the model.
_EXPERIMENTS = "experiments"


# --------------------------------------------------------------------------------------------
# public records
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TaskScore:
    """One model's main score on one task, with where it came from."""

    task: str
    #: MTEB's main score of the task on the English subset of the test split.
    score: float
    #: The metric (MTEB's main score of the task, ``cosine_spearman``).
    metric: str
    split: str
    subset: str
    #: Test pairs behind the score (:data:`TASK_INFO`, from MTEB's metadata).
    n_pairs: int
    #: The result file.
    file: str
    #: The MTEB version that wrote the file (None: the file does not say).
    mteb_version: str | None
    #: Where in the file the score was read (e.g. ``scores.test[3].cosine_spearman``).
    field: str = ""
    #: The dataset revision the file names (None: it names none).
    dataset_revision: str | None = None
    #: The model revision of the folder the file is in (:data:`RULES` ``revision-from-*``).
    revision: str = ""


@dataclass(frozen=True)
class ModelScores:
    """One model: its score on each selected task and the revision folders they came from."""

    #: The model's name (e.g. ``"sentence-transformers/all-MiniLM-L6-v2"``).
    model: str
    #: The revision kept (``revisions="one"``) or, with revisions joined, the revision that gave
    #: the most selected tasks, ties to the last in sorted order (:attr:`TaskScore.revision` names
    #: each task's).
    revision: str
    #: Task -> score, for the selected tasks the revision has a usable score of.
    scores: Mapping[str, TaskScore]
    #: Names of the :data:`RULES` that applied to this model.
    rules: tuple[str, ...]
    #: ``"published"``: scores read from result files, without per-pair predictions.
    source: str = "published"
    #: The folder of :attr:`revision`.
    folder: str = ""
    #: Selected tasks without a usable score (in the revision kept; with revisions joined, in
    #: any revision of the model).
    missing: tuple[str, ...] = ()
    #: Every revision a score came from, in the order of :attr:`revision`.
    revisions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Refusal:
    """A file that was not used, and why (the field and what was expected)."""

    file: str
    reason: str
    #: A short category of the reason, for counting (e.g. ``"no English subset"``).
    kind: str = ""


@dataclass(frozen=True)
class SetAside:
    """Valid files of a revision folder that the revision rule did not use: the whole folder
    (``revisions="one"``) or, with revisions joined, its tasks taken from another revision."""

    model: str
    revision: str
    reason: str
    folder: str = ""
    #: Valid files of that folder set aside (results and model_meta.json when no file of the
    #: folder is used).
    files: int = 0
    #: The selected tasks whose usable files in that folder were set aside.
    tasks: tuple[str, ...] = ()


@dataclass(frozen=True)
class PublishedResults:
    """What :func:`read_mteb_results` found: the models, and every file it did not use.

    Every file found under the folders is counted once: ``files_found == used_files +
    len(refused) + set_aside_files + not_selected``.
    """

    models: tuple[ModelScores, ...]
    refused: tuple[Refusal, ...]
    set_aside: tuple[SetAside, ...]
    #: Files whose content is in :attr:`models` (result files and model_meta.json files).
    used_files: int
    #: All rules (name -> sentence); each model names the ones applied to it.
    rules: Mapping[str, str]
    #: The selected tasks.
    tasks: tuple[str, ...] = STS_TASKS
    files_found: int = 0
    #: Valid files in revision folders set aside (see :attr:`set_aside`).
    set_aside_files: int = 0
    #: Files of tasks not selected, MTEB's run_settings.jsonl, experiment folders: not read.
    not_selected: int = 0
    #: The rule for a model's revisions, one of :data:`REVISION_RULES`.
    revisions: str = "one"

    def refused_by_kind(self) -> dict[str, int]:
        """Refused files counted by :attr:`Refusal.kind`, most frequent first."""
        return dict(Counter(item.kind for item in self.refused).most_common())

    def complete(self) -> tuple[ModelScores, ...]:
        """The models with a usable score on every selected task."""
        return tuple(model for model in self.models if not model.missing)


# --------------------------------------------------------------------------------------------
# the records of MTEB's files (the parts read; the rest is MTEB's business)
# --------------------------------------------------------------------------------------------
class _Refused(Exception):
    """A file cannot be used: ``kind`` (for counting) and ``reason`` (naming the field)."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def _statistic(value: object) -> object:
    """A ``[statistic, p-value]`` pair (MTEB 1.x wrote scipy's result so) as its statistic."""
    if isinstance(value, list):
        if len(value) != 2:
            raise ValueError(f"expected a number or a [statistic, p-value] pair, got {value!r:.80}")
        statistic, p_value = value
        if (
            isinstance(p_value, bool)
            or not isinstance(p_value, (int, float))
            or not 0.0 <= p_value <= 1.0
        ):
            raise ValueError(f"the p-value of the pair {value!r:.80} is not a number in [0, 1]")
        return statistic
    return value


#: A correlation as MTEB wrote it: a number or a [statistic, p-value] pair.
_Stat = Annotated[float, BeforeValidator(_statistic)]
_Text = Annotated[str, Field(min_length=1, max_length=1000, pattern=r"^[^\x00-\x1f\x7f]+$")]


class _Part(BaseModel):
    """A part of one of MTEB's files: strict types, finite numbers, unknown fields ignored (MTEB
    adds fields between releases). ``None`` stands for JSON ``null`` and for MTEB's ``NaN``."""

    model_config = ConfigDict(
        frozen=True,
        extra="ignore",
        strict=True,
        allow_inf_nan=False,
        hide_input_in_errors=True,
        protected_namespaces=(),
    )


class _ModelMeta(_Part):
    """``model_meta.json``: the model's name and revision."""

    name: _Text | None = None
    revision: _Text | None = None


class _CosSim(_Part):
    """``cos_sim: {pearson, spearman}`` (MTEB < 1.11 and some later entries)."""

    spearman: _Stat | None = None


class _Entry(_Part):
    """One subset's scores in one split (MTEB >= 1.11)."""

    hf_subset: _Text
    cosine_spearman: _Stat | None = None
    cos_sim_spearman: _Stat | None = None
    main_score: _Stat | None = None
    cos_sim: _CosSim | None = None


class _Header(_Part):
    """The top level of a result file, both shapes: what it names."""

    task_name: _Text | None = None
    mteb_dataset_name: _Text | None = None
    mteb_version: _Text | None = None
    dataset_revision: _Text | None = None


class _ScoresFile(_Header):
    """A result file of MTEB >= 1.11: ``scores`` by split, a list of entries by subset."""

    scores: dict[str, list[_Entry]]


class _SplitFile(_Header):
    """A result file of MTEB < 1.11: the split at the top level."""

    test: dict[str, Any]


class _OldScores(_Part):
    """The metrics of one subset (or of the split, for a monolingual task) before MTEB 1.11."""

    cos_sim: _CosSim | None = None


def _where(location: Sequence[int | str]) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _validate(schema: type[Any], data: object, prefix: Sequence[int | str] = ()) -> Any:
    try:
        return schema.model_validate(data)
    except ValidationError as error:
        problems = []
        for item in error.errors()[:2]:
            location = [part for part in item["loc"] if not _is_type_tag(part)]
            message = re.sub(r" or instance of \w+", "", item["msg"].removeprefix("Value error, "))
            problems.append(f"{_where([*prefix, *location])}: {message}")
        more = error.error_count() - len(problems)
        raise _Refused(
            "invalid field", "; ".join(problems) + (f"; and {more} more" if more > 0 else "")
        ) from None


def _is_type_tag(part: int | str) -> bool:
    # pydantic names the member of a union it tried (``float``, ``list[...]``, ``function-...``)
    return isinstance(part, str) and (
        "[" in part or part.startswith("function-") or part in ("float", "int", "str")
    )


# --------------------------------------------------------------------------------------------
# one file -> one score
# --------------------------------------------------------------------------------------------
def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"the key {key!r} appears twice in one object")
            seen.add(key)
    return found


def _load_json(path: Path, root: str) -> Any:
    """The JSON value of ``path`` (UTF-8, at most :data:`MAX_RESULT_FILE_BYTES`, no duplicate
    keys; MTEB's ``NaN``/``Infinity`` read as ``null``, which a record then refuses where it
    needs a number)."""
    try:
        if os.path.islink(path) and not _inside(os.path.realpath(path), root):
            raise _Refused("link out of the folder", f"a link leading out of {root}")
        size = os.stat(path).st_size
        if size > MAX_RESULT_FILE_BYTES:
            raise _Refused(
                "too large", f"{size} bytes, more than the {MAX_RESULT_FILE_BYTES} allowed"
            )
        with open(path, "rb") as handle:
            data = handle.read(MAX_RESULT_FILE_BYTES + 1)
    except OSError as error:
        raise _Refused("unreadable", f"cannot be read ({error.strerror or error})") from None
    if len(data) > MAX_RESULT_FILE_BYTES:
        raise _Refused("too large", f"more than the {MAX_RESULT_FILE_BYTES} bytes allowed")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _Refused("not JSON", f"not UTF-8 text (byte {error.start})") from None
    try:
        return json.loads(
            text, parse_constant=lambda name: None, object_pairs_hook=_no_duplicate_keys
        )
    except (ValueError, RecursionError) as error:
        raise _Refused("not JSON", f"not valid JSON ({str(error)[:200]})") from None


def _score_of(
    values: Mapping[str, tuple[str, float | None]], task: str, where: str
) -> tuple[float, str]:
    """The main score among ``values`` (field -> (location, value)), in the order of
    :data:`RULES` ``main-score``; all present must agree."""
    if not values:
        raise _Refused(
            "no main score",
            f"{where}: no cosine_spearman (nor cos_sim_spearman, cos_sim.spearman, main_score)",
        )
    for location, value in values.values():
        if value is None:
            raise _Refused("invalid field", f"{location}: null or NaN, expected a number")
        if not -1.0 <= value <= 1.0:
            raise _Refused(
                "score out of range", f"{location}: {value!r} is not a correlation in [-1, 1]"
            )
    first_location, first = next(iter(values.values()))
    for location, value in values.values():
        assert value is not None and first is not None  # checked above
        if abs(value - first) > SAME_SCORE_TOLERANCE:
            raise _Refused(
                "scores disagree",
                f"{location} ({value!r}) differs from {first_location} ({first!r}) for {task}",
            )
    assert first is not None
    return first, first_location


def _entry_values(entry: _Entry | _OldScores, where: str) -> dict[str, tuple[str, float | None]]:
    values: dict[str, tuple[str, float | None]] = {}
    present = entry.model_fields_set
    for name in ("cosine_spearman", "cos_sim_spearman"):
        if name in present:
            values[name] = (f"{where}.{name}", getattr(entry, name))
    if "cos_sim" in present:
        if entry.cos_sim is None:
            raise _Refused("invalid field", f"{where}.cos_sim: null, expected an object")
        if "spearman" in entry.cos_sim.model_fields_set:
            values["cos_sim.spearman"] = (f"{where}.cos_sim.spearman", entry.cos_sim.spearman)
    if isinstance(entry, _Entry) and "main_score" in present:
        values["main_score"] = (f"{where}.main_score", entry.main_score)
    return values


def _read_result(path: Path, task: str, root: str, revision: str = "") -> TaskScore:
    """The score of the result file ``path`` of ``task``; :class:`_Refused` naming the field."""
    data = _load_json(path, root)
    if not isinstance(data, dict):
        raise _Refused("invalid field", f"(top level): expected an object, got {_json_type(data)}")
    info = TASK_INFO[task]
    header: _Header
    if "scores" in data:
        record = _validate(_ScoresFile, data)
        header = record
        entries = record.scores.get(info.split)
        if entries is None:
            raise _Refused(
                "no test split",
                f"scores: no split {info.split!r} (has {sorted(record.scores)[:5]})",
            )
        found = [i for i, entry in enumerate(entries) if entry.hf_subset == info.subset]
        if not found:
            subsets = sorted({entry.hf_subset for entry in entries})
            raise _Refused(
                "no English subset",
                f"scores.{info.split}: no entry with hf_subset {info.subset!r} "
                f"(has {', '.join(subsets[:6]) or 'none'})",
            )
        if len(found) > 1:
            raise _Refused(
                "invalid field",
                f"scores.{info.split}: hf_subset {info.subset!r} appears {len(found)} times",
            )
        where = f"scores.{info.split}[{found[0]}]"
        values = _entry_values(entries[found[0]], where)
    elif info.split in data:
        record_old = _validate(_SplitFile, data)
        header = record_old
        split_scores = record_old.test
        if info.subset == "default":
            where, part = info.split, split_scores
        elif info.subset in split_scores:
            where, part = f"{info.split}.{info.subset}", split_scores[info.subset]
        else:
            subsets = sorted(key for key in split_scores if key != "evaluation_time")
            raise _Refused(
                "no English subset",
                f"{info.split}: no subset {info.subset!r} (has {', '.join(subsets[:6]) or 'none'})",
            )
        if not isinstance(part, dict):
            raise _Refused("invalid field", f"{where}: expected an object, got {_json_type(part)}")
        old = _validate(_OldScores, part, where.split("."))
        values = _entry_values(old, where)
    else:
        raise _Refused("no test split", f"(top level): neither scores nor a {info.split!r} split")
    for name in ("task_name", "mteb_dataset_name"):
        named = getattr(header, name)
        if named is not None and named != task:
            raise _Refused(
                "task name differs", f"{name}: {named!r}, but the file is named {task}.json"
            )
    score, location = _score_of(values, task, where)
    return TaskScore(
        task=task,
        score=float(score),
        metric=info.main_score,
        split=info.split,
        subset=info.subset,
        n_pairs=info.n_pairs,
        file=str(path),
        mteb_version=header.mteb_version,
        field=location,
        dataset_revision=header.dataset_revision,
        revision=revision,
    )


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number")


# --------------------------------------------------------------------------------------------
# folders
# --------------------------------------------------------------------------------------------
def _inside(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


@dataclass
class _Tally:
    """Every file found, in exactly one of: refused, not selected, or a revision folder's."""

    found: int = 0
    not_selected: int = 0
    refused: list[Refusal] = field(default_factory=list)
    where: str = ""

    def count(self, n: int = 1) -> None:
        self.found += n
        if self.found > MAX_RESULT_FILES:
            raise UserInputError(
                f"folders: more than {MAX_RESULT_FILES} files under {self.where}; "
                "pass the results folder of the models to read."
            )

    def refuse(self, path: Path | str, kind: str, reason: str) -> None:
        self.refused.append(Refusal(file=str(path), reason=reason, kind=kind))


@dataclass
class _Revision:
    """One revision folder: its identity and the scores it gave."""

    folder: Path
    model_folder: str
    meta: _ModelMeta | None
    scores: dict[str, TaskScore]
    valid_files: int

    @property
    def model(self) -> str:
        if self.meta is not None and self.meta.name is not None:
            return self.meta.name
        return self.model_folder.replace("__", "/")

    @property
    def revision(self) -> str:
        return _revision_of(self.folder, self.meta)

    @property
    def named(self) -> bool:
        """Whether MTEB's join of revisions counts the revision as named: model_meta.json's
        revision (the folder's name without one), not null, external or no_revision_available."""
        revision = self.mteb_revision()
        return revision is not None and revision not in _UNNAMED_REVISIONS

    def mteb_revision(self) -> str | None:
        """The revision as MTEB's ResultCache reads it (model_meta.json's, null kept)."""
        return self.meta.revision if self.meta is not None else self.folder.name

    def newest_mteb(self) -> tuple[int, ...]:
        return max((_version_key(s.mteb_version) for s in self.scores.values()), default=())


def _revision_of(folder: Path, meta: _ModelMeta | None) -> str:
    if meta is not None and meta.revision is not None:
        return meta.revision
    return folder.name


def _version_key(version: str | None) -> tuple[int, ...]:
    """``"1.12.75"`` -> (1, 12, 75); a version without leading numbers (or None) -> ()."""
    match = re.match(r"\d+(?:\.\d+)*", version or "")
    return tuple(int(part) for part in match.group().split(".")) if match else ()


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    with os.scandir(folder) as found:
        return sorted(found, key=lambda entry: entry.name)


def _count_beneath(folder: Path, tally: _Tally) -> list[Path]:
    """Every file under ``folder`` (links not followed), counted."""
    files = []
    for base, folders, names in os.walk(folder):
        folders.sort()
        for name in sorted(names) + [f for f in folders if os.path.islink(os.path.join(base, f))]:
            tally.count()
            files.append(Path(base, name))
    return files


def _kind(entry: os.DirEntry[str], root: str, tally: _Tally) -> str | None:
    """``"folder"`` or ``"file"``; None for a link leading out of ``root``, which is counted and
    refused here (never followed)."""
    if entry.is_symlink() and not _inside(os.path.realpath(entry.path), root):
        tally.count()
        tally.refuse(entry.path, "link out of the folder", f"a link leading out of {root}")
        return None
    return "folder" if entry.is_dir() else "file"


def _off_layout(path: Path | str, tally: _Tally) -> None:
    tally.refuse(path, "outside the layout", "not at <model>/<revision>/<file> (layout)")


def _results_root(folder: str | os.PathLike[str]) -> Path:
    path = Path(folder)
    if not path.exists():
        raise UserFileNotFoundError(f"folders: {str(path)!r} does not exist.")
    if not path.is_dir():
        raise UserInputError(f"folders: {str(path)!r} is a file, not a results folder.")
    inner = path / _RESULTS_FOLDER
    return inner if inner.is_dir() else path


def _read_revision(
    folder: Path, model_folder: str, selected: frozenset[str], root: str, tally: _Tally
) -> _Revision:
    results: list[tuple[str, Path]] = []
    meta_path: Path | None = None
    for entry in _entries(folder):
        path = Path(entry.path)
        kind = _kind(entry, root, tally)
        if kind is None:
            continue
        if kind == "folder":
            files = _count_beneath(path, tally)
            if entry.name == _EXPERIMENTS:
                tally.not_selected += len(files)
            else:
                for file in files:
                    _off_layout(file, tally)
            continue
        tally.count()
        if entry.name == _META_FILE:
            meta_path = path
        elif entry.name.endswith(".json") and entry.name[: -len(".json")] in selected:
            results.append((entry.name[: -len(".json")], path))
        elif entry.name.endswith(".json") or entry.name in _COMPANION_FILES:
            tally.not_selected += 1
        else:
            tally.refuse(path, "not a result file", "not <Task>.json nor model_meta.json")
    meta: _ModelMeta | None = None
    valid = 0
    if meta_path is not None:
        try:
            data = _load_json(meta_path, root)
            if not isinstance(data, dict):
                raise _Refused(
                    "invalid field", f"(top level): expected an object, got {_json_type(data)}"
                )
            meta = _validate(_ModelMeta, data)
            valid += 1
        except _Refused as refused:
            tally.refuse(meta_path, refused.kind, refused.reason)
            for _, path in results:
                tally.refuse(
                    path,
                    "model_meta.json refused",
                    f"its folder's {_META_FILE} is refused, so the model is unknown",
                )
            return _Revision(folder, model_folder, None, {}, 0)
    scores: dict[str, TaskScore] = {}
    revision = _revision_of(folder, meta)
    for task, path in results:
        try:
            scores[task] = _read_result(path, task, root, revision)
            valid += 1
        except _Refused as refused:
            tally.refuse(path, refused.kind, refused.reason)
    return _Revision(folder, model_folder, meta, scores, valid)


def _scan(root: Path, selected: frozenset[str], tally: _Tally) -> Iterator[_Revision]:
    real_root = os.path.realpath(root)
    tally.where = str(root)
    for model_entry in _entries(root):
        kind = _kind(model_entry, real_root, tally)
        if kind == "file":
            tally.count()
            _off_layout(model_entry.path, tally)
        if kind != "folder":
            continue
        for revision_entry in _entries(Path(model_entry.path)):
            kind = _kind(revision_entry, real_root, tally)
            if kind == "file":
                tally.count()
                _off_layout(revision_entry.path, tally)
            if kind != "folder":
                continue
            yield _read_revision(
                Path(revision_entry.path), model_entry.name, selected, real_root, tally
            )


# --------------------------------------------------------------------------------------------
# revisions="one": one revision folder per model
# --------------------------------------------------------------------------------------------
def _decider(kept: _Revision, other: _Revision) -> str:
    """The rule by which ``kept`` goes before ``other`` (:data:`RULES` ``revision-*``)."""
    if len(kept.scores) != len(other.scores):
        return "revision-most-tasks"
    if kept.newest_mteb() != other.newest_mteb():
        return "revision-newest-mteb"
    return "revision-last-name"


def _choose(candidates: list[_Revision]) -> tuple[_Revision, str]:
    """The revision kept and the rule that decided it against the runner-up."""
    if len(candidates) == 1:
        return candidates[0], "revision-only-one"

    def key(item: _Revision) -> tuple[int, tuple[int, ...], str, str]:
        return (len(item.scores), item.newest_mteb(), item.revision, str(item.folder))

    ranked = sorted(candidates, key=key, reverse=True)
    return ranked[0], _decider(ranked[0], ranked[1])


def _set_aside_reason(item: _Revision, kept: _Revision) -> str:
    rule = _decider(kept, item)
    text = (
        f"{len(item.scores)} usable selected tasks against {len(kept.scores)} in the revision "
        f"kept, {kept.revision!r}"
    )
    if rule == "revision-newest-mteb":
        text += ", written by a newer MTEB version"
    elif rule == "revision-last-name":
        text += ", which comes later in sorted order"
    return f"{text} ({rule})"


# --------------------------------------------------------------------------------------------
# revisions="join": each task from the model's revisions in MTEB's order
# --------------------------------------------------------------------------------------------
#: Stands in for a version MTEB cannot parse (compared only against another such).
_NO_VERSION = Version("0")


@functools.lru_cache(maxsize=4096)
def _pep440(version: str | None) -> Version | None:
    """``mteb_version`` as MTEB's join reads it: a PEP 440 version, or None (null, a range such
    as ``2.12.16-2.15.4``, ``mteb version not available``)."""
    if version is None:
        return None
    try:
        return Version(version)
    except InvalidVersion:
        return None


_JoinKey = tuple[bool, bool, bool, Version, int, str, str]


def _join_key(item: _Revision, task: str, main: str | None) -> _JoinKey:
    """The order of :data:`RULES` ``revision-main`` and ``revisions-joined``: largest first."""
    version = _pep440(item.scores[task].mteb_version)
    return (
        main is not None and item.mteb_revision() == main,
        version is not None,
        item.named,
        _NO_VERSION if version is None else version,
        len(item.scores),
        item.revision,
        str(item.folder),
    )


#: What decided between two files of one task, by the first differing place of :func:`_join_key`.
_JOIN_STEPS = (
    "the model's main revision",
    "a valid mteb_version",
    "a named revision",
    "a newer mteb_version",
    "more usable selected tasks in its folder",
    "later in sorted order",
    "later in sorted order",
)


def _join_step(kept: _JoinKey, other: _JoinKey) -> str:
    return next(
        (step for step, a, b in zip(_JOIN_STEPS, kept, other, strict=True) if a != b),
        _JOIN_STEPS[-1],
    )


def _join(
    candidates: list[_Revision], chosen: tuple[str, ...], main: str | None
) -> tuple[dict[str, _Revision], dict[int, dict[str, str]]]:
    """Each task's revision, and for each candidate (by ``id``) its superseded tasks -> why."""
    picks: dict[str, _Revision] = {}
    superseded: dict[int, dict[str, str]] = {id(item): {} for item in candidates}
    for task in chosen:
        having = [(_join_key(item, task, main), item) for item in candidates if task in item.scores]
        if not having:
            continue
        best_key, best = max(having, key=lambda pair: pair[0])
        picks[task] = best
        for key, item in having:
            if item is not best:
                superseded[id(item)][task] = f"{best.revision!r} ({_join_step(best_key, key)})"
    return picks, superseded


def _joined_reason(item: _Revision, tasks: Mapping[str, str], used: bool) -> str:
    by_reason: dict[str, list[str]] = {}
    for task, why in tasks.items():
        by_reason.setdefault(why, []).append(task)
    text = "; ".join(f"{', '.join(names)} taken from {why}" for why, names in by_reason.items())
    if not used:
        text += "; no task of this folder is used"
    return f"{text} (revisions-joined)"


# --------------------------------------------------------------------------------------------
# the reader
# --------------------------------------------------------------------------------------------
def _check_tasks(tasks: Sequence[str]) -> tuple[str, ...]:
    if isinstance(tasks, str):
        tasks = tasks.split(",")
    chosen = tuple(tasks)
    unknown = [task for task in chosen if task not in TASK_INFO]
    if unknown:
        raise UserInputError(
            f"tasks: {', '.join(map(repr, unknown))} is not one of the English STS tasks "
            f"({', '.join(STS_TASKS)})."
        )
    if not chosen:
        raise UserInputError(f"tasks: give at least one of {', '.join(STS_TASKS)}.")
    if len(set(chosen)) != len(chosen):
        raise UserInputError(f"tasks: {', '.join(chosen)} names a task twice.")
    return chosen


def _check_revisions(
    revisions: str, main_revisions: Mapping[str, str | None] | None
) -> dict[str, str | None] | None:
    if revisions not in REVISION_RULES:
        raise UserInputError(
            f"revisions: expected one of {', '.join(map(repr, REVISION_RULES))}, "
            f"got {revisions!r:.80}."
        )
    if main_revisions is None:
        return None
    if revisions != "join":
        raise UserInputError(
            "main_revisions: used only with revisions='join' (MTEB's join of revisions)."
        )
    if not isinstance(main_revisions, Mapping):
        raise UserInputError(
            "main_revisions: expected a mapping of model name to revision, "
            f"got {type(main_revisions).__name__}."
        )
    for model, revision in main_revisions.items():
        if not isinstance(model, str) or not (revision is None or isinstance(revision, str)):
            raise UserInputError(
                f"main_revisions: {model!r:.80} -> {revision!r:.80} is not a model name "
                "(text) mapped to a revision (text or None)."
            )
    return dict(main_revisions)


def read_mteb_results(
    *folders: str | os.PathLike[str],
    tasks: Sequence[str] = STS_TASKS,
    revisions: str = "one",
    main_revisions: Mapping[str, str | None] | None = None,
) -> PublishedResults:
    """Read MTEB result folders: one score per model and selected task, every file accounted for.

    Parameters
    ----------
    *folders : path
        Results folders: a clone or copy of MTEB's results repository, its ``results/`` folder,
        or a ``ResultCache`` folder (``~/.cache/mteb``, which holds ``results/``). A folder that
        holds ``results/`` is read through it.
    tasks : sequence of str
        The tasks to read, some of :data:`STS_TASKS` (default: all ten).
    revisions : {"one", "join"}
        The rule for a model with several revision folders (``external/`` included).
        ``"one"`` (default): the one folder with the most usable selected tasks, then the newest
        MTEB version, then the last revision in sorted order (:data:`RULES` ``revision-*``).
        ``"join"``: each task's score from the model's folders in the order of MTEB's
        ``BenchmarkResults.join_revisions`` (mteb 2.x), which its leaderboard shows: a valid
        ``mteb_version``, then a named revision, then the newest ``mteb_version``; then the folder
        with the most usable tasks, then the last in sorted order (``revisions-joined``).
    main_revisions : mapping of str to str, optional
        With ``revisions="join"`` only: model name -> the main revision of MTEB's model registry
        (``{m.name: m.revision for m in mteb.get_model_metas()}``), whose files go first, as in
        MTEB's join (``revision-main``). Without it that step is skipped.

    Returns
    -------
    PublishedResults
        The models (sorted by name), each with its scores, the revision(s) they came from and
        the :data:`RULES` that applied; the refused files with the file and field named; the
        revision folders (or, with revisions joined, their files) set aside; and the counts of
        used, set-aside and not-selected files.

    Raises
    ------
    UserInputError
        No folder, a folder that does not exist or is a file, an unknown or repeated task, an
        unknown ``revisions`` rule, ``main_revisions`` not a mapping of text or given without
        ``revisions="join"``, or more than :data:`~sts_extras.limits.MAX_RESULT_FILES` files.

    Notes
    -----
    A file that cannot be used never raises: it is a :class:`Refusal` (truncated or invalid
    JSON, a number that is not finite, a score outside [-1, 1], a wrong type, no English
    subset, a link out of the folder, a file over
    :data:`~sts_extras.limits.MAX_RESULT_FILE_BYTES`).

    MTEB's join (``mteb/results/benchmark_results.py``) sorts each model's files of a task by a
    priority (main revision 1000, a parseable ``mteb_version`` 100, a revision other than
    null, ``external`` or ``no_revision_available`` 10), then by ``mteb_version``, and takes the
    first; equal ones stay in the order the files were globbed, which the file system decides.
    The two further steps here make that order fixed.
    """
    if not folders:
        raise UserInputError("folders: give at least one results folder.")
    chosen = _check_tasks(tasks)
    mains = _check_revisions(revisions, main_revisions)
    selected = frozenset(chosen)
    roots = [_results_root(folder) for folder in folders]
    tally = _Tally()
    by_model: dict[str, list[_Revision]] = {}
    for root in roots:
        for revision in _scan(root, selected, tally):
            by_model.setdefault(revision.model, []).append(revision)

    models: list[ModelScores] = []
    set_aside: list[SetAside] = []
    used = 0
    for name in sorted(by_model):
        candidates = by_model[name]
        picks: dict[str, _Revision] = {}
        superseded: dict[int, dict[str, str]] = {}
        if revisions == "join" and len(candidates) > 1:
            picks, superseded = _join(
                candidates, chosen, None if mains is None else mains.get(name)
            )
        if picks:
            model, aside, used_files = _joined_model(name, candidates, chosen, picks, superseded)
            model_rules = ["revisions-joined"] + (["revision-main"] if mains is not None else [])
            giving = {id(item) for item in picks.values()}
            users = [item for item in candidates if id(item) in giving]
        else:  # revisions="one", one folder, or no usable file in any folder
            kept, rule = _choose(candidates)
            model, aside, used_files = _kept_model(name, candidates, chosen, kept)
            model_rules, users = [rule], [kept]
        models.append(replace(model, rules=_rules_of(users, candidates, model_rules)))
        set_aside += aside
        used += used_files
    return PublishedResults(
        models=tuple(models),
        refused=tuple(tally.refused),
        set_aside=tuple(set_aside),
        used_files=used,
        rules=dict(RULES),
        tasks=chosen,
        files_found=tally.found,
        set_aside_files=sum(item.files for item in set_aside),
        not_selected=tally.not_selected,
        revisions=revisions,
    )


def _kept_model(
    name: str, candidates: list[_Revision], chosen: tuple[str, ...], kept: _Revision
) -> tuple[ModelScores, list[SetAside], int]:
    """The model from the one folder ``kept``, the others set aside, and the files used."""
    aside = [
        SetAside(
            model=name,
            revision=item.revision,
            reason=_set_aside_reason(item, kept),
            folder=str(item.folder),
            files=item.valid_files,
            tasks=tuple(task for task in chosen if task in item.scores),
        )
        for item in candidates
        if item is not kept
    ]
    model = ModelScores(
        model=name,
        revision=kept.revision,
        scores={task: kept.scores[task] for task in chosen if task in kept.scores},
        rules=(),
        folder=str(kept.folder),
        missing=tuple(task for task in chosen if task not in kept.scores),
        revisions=(kept.revision,),
    )
    return model, aside, kept.valid_files


def _joined_model(
    name: str,
    candidates: list[_Revision],
    chosen: tuple[str, ...],
    picks: Mapping[str, _Revision],
    superseded: Mapping[int, Mapping[str, str]],
) -> tuple[ModelScores, list[SetAside], int]:
    """The model from each task's folder in ``picks``, the files not taken set aside, and the
    files used (each task's file, and the model_meta.json of every folder that gave one)."""
    taken = Counter(id(item) for item in picks.values())
    users = sorted(  # most tasks first; ties: the last in sorted order, as in the join
        (item for item in candidates if taken[id(item)]),
        key=lambda item: (taken[id(item)], item.revision, str(item.folder)),
        reverse=True,
    )
    aside: list[SetAside] = []
    used = 0
    for item in candidates:
        meta_file = item.valid_files - len(item.scores)  # 1 for a valid model_meta.json
        lost = superseded[id(item)]
        if taken[id(item)]:
            used += taken[id(item)] + meta_file
        if lost:
            aside.append(
                SetAside(
                    model=name,
                    revision=item.revision,
                    reason=_joined_reason(item, lost, bool(taken[id(item)])),
                    folder=str(item.folder),
                    files=len(lost) + (0 if taken[id(item)] else meta_file),
                    tasks=tuple(lost),
                )
            )
        elif not taken[id(item)]:  # a folder without a usable selected task
            aside.append(
                SetAside(
                    model=name,
                    revision=item.revision,
                    reason="no usable selected task in this folder (revisions-joined)",
                    folder=str(item.folder),
                    files=item.valid_files,
                )
            )
    model = ModelScores(
        model=name,
        revision=users[0].revision,
        scores={task: picks[task].scores[task] for task in chosen if task in picks},
        rules=(),
        folder=str(users[0].folder),
        missing=tuple(task for task in chosen if task not in picks),
        revisions=tuple(dict.fromkeys(item.revision for item in users)),
    )
    return model, aside, used


def _rules_of(
    users: list[_Revision], candidates: list[_Revision], revision_rules: list[str]
) -> tuple[str, ...]:
    """The :data:`RULES` that applied to a model whose scores come from the folders ``users``."""
    rules = ["main-score", "test-split"]
    if any(TASK_INFO[task].subset != "default" for item in users for task in item.scores):
        rules.append("english-subset")
    rules += ["n-pairs", "task-from-file-name", "layout"]
    for item in users:
        meta = item.meta
        rules.append(
            "name-from-model-meta"
            if meta is not None and meta.name is not None
            else "name-from-folder"
        )
        rules.append(
            "revision-from-model-meta"
            if meta is not None and meta.revision is not None
            else "revision-from-folder"
        )
    if any(item.folder.name == _EXTERNAL for item in candidates):
        rules.append("external-as-revision")
    rules += revision_rules
    return tuple(dict.fromkeys(rules))
