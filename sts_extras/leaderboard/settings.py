"""The settings of a leaderboard run as one frozen, validated object.

:class:`LeaderboardSettings` holds every setting of ``sts-extras leaderboard`` that is not the list
of models, vectors, tasks or the baseline (which names one of the models): where the reports go,
the statistics, the figures, the caches, what may be trusted and where the cells run. The command
line builds one (:func:`sts_extras.cli.leaderboard_run.settings_from_args`), and
:func:`~sts_extras.leaderboard.run.pipeline.run_leaderboard`,
:func:`~sts_extras.leaderboard.run.pipeline.run_shard` and
:func:`~sts_extras.leaderboard.run.collect.collect_leaderboard` take it. Every field is checked
when the object is made, by the checks the rest of sts-extras uses
(:mod:`sts_extras._validation`, the ceilings of :mod:`sts_extras.limits`), so a bad value fails
before any model is loaded, with a :class:`~sts_extras.errors.UserInputError` (a ``ValueError``)
or :class:`~sts_extras.errors.UserInputTypeError` (also a ``TypeError``) naming the field.

The part of the settings that changes the numbers of a report (:class:`RunSettings`: seed,
resamples, bins, the method of the pair decisions, the adjustment, rounding, score range) is its
*record* (:meth:`LeaderboardSettings.to_record`): every cell records it in its identity, the plan
of a run holds it, ``leaderboard.json`` writes it under ``"settings"``, and ``collect`` refuses to
merge cells whose records differ. The record is read back from other people's folders, so it is
parsed through its schema (a strict :class:`~sts_extras.io.records.Record`) and checked by the
same rules: each statistics setting has one validator, shared by both classes.

Both are pydantic models (the house's validated-record style, :mod:`sts_extras.io.records`):
frozen, no unknown fields, strict types (``True`` is not a count, ``"3"`` is not a number).
pydantic also remembers which fields were given (``model_fields_set``): ``collect`` compares with
the plan only the statistics the user set, and takes the others from the plan.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pydantic import (
    BeforeValidator,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from sts_extras._validation import (
    as_float_vector,
    check_choice,
    check_count,
    check_positive_int,
    short_repr,
)
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.io.records import Record
from sts_extras.limits import MAX_BINS, MAX_RESAMPLES, max_local_workers
from sts_extras.stats.model_comparison import COMPARISON_METHODS
from sts_extras.stats.multiple import ADJUST_METHODS

__all__ = [
    "DEFAULT_FIGURE_FORMATS",
    "DEFAULT_OUTPUT",
    "FIGURE_FORMATS",
    "MIN_RESAMPLES",
    "RUN_SETTINGS",
    "LeaderboardSettings",
    "RunSettings",
    "check_figure_formats",
    "check_n_resamples",
    "check_score_range",
    "option_name",
]

#: Where the reports go unless ``output`` says otherwise.
DEFAULT_OUTPUT = "leaderboard"
#: Fewest bootstrap resamples a leaderboard accepts. Each end of a 95% interval then lies at least
#: 2.5 resamples in from the extremes, and the chance that every resample falls on one side of
#: the observed difference (BCa's bias correction infinite, the interval undefined) is at most
#: 2 ** -99; with 1 resample every comparison fails. Below 1000 the end points are still noisy
#: (a warning says so; Efron & Tibshirani 1993, ch. 14 and 19).
MIN_RESAMPLES = 100
#: The file formats figures can be written in.
FIGURE_FORMATS = ("pdf", "png", "svg")
#: The formats written unless ``figure_formats`` says otherwise.
DEFAULT_FIGURE_FORMATS = ("pdf", "png")
#: JSON as :meth:`LeaderboardSettings.as_dict` gives it.
JSONValue = str | int | float | bool | None | list["JSONValue"] | dict[str, "JSONValue"]


def option_name(field: str) -> str:
    """The command-line option of a settings field (``n_resamples`` -> ``--n-resamples``)."""
    return "--" + field.replace("_", "-")


def check_score_range(value: object, name: str = "score_range") -> tuple[float, float]:
    """``value`` as (low, high): two finite real numbers, low below high."""
    ends = as_float_vector(value, name)
    if ends.size != 2:
        raise UserInputError(f"`{name}` must be two numbers (low, high), got {ends.size}.")
    low, high = float(ends[0]), float(ends[1])
    if not low < high:
        raise UserInputError(f"`{name}`: the low end {low:g} must be below the high end {high:g}.")
    return low, high


def _check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise UserInputTypeError(f"`{name}` must be True or False, got {value!r}.")
    return value


def check_n_resamples(n_resamples: object, argument: str = "`n_resamples`") -> int:
    """``n_resamples`` as an int in [:data:`MIN_RESAMPLES`, :data:`~sts_extras.limits
    .MAX_RESAMPLES`]; ``UserInputError`` otherwise, before any model runs.

    ``argument`` names it in the message. The ceiling bounds memory and time (see
    :mod:`sts_extras.limits`); the number of items, which bounds them too, is checked once the
    tasks are read.
    """
    n_resamples = check_positive_int(n_resamples, argument.strip("`"))
    if n_resamples > MAX_RESAMPLES:
        raise UserInputError(
            f"{argument} {short_repr(n_resamples)} is above the ceiling of {MAX_RESAMPLES} "
            "resamples (more "
            "add no precision to the intervals and hold 8 bytes per resample and model; see "
            "docs/reliability.md); use the default 10000."
        )
    if n_resamples < MIN_RESAMPLES:
        raise UserInputError(
            f"{argument} {n_resamples} is below the minimum of {MIN_RESAMPLES}: with so few "
            "resamples the bootstrap intervals are undefined or rest on the most extreme "
            "resamples; use the default 10000 (at least 1000 for stable BCa end points)."
        )
    return n_resamples


def check_figure_formats(
    formats: str | Sequence[str] | None, argument: str = "`figure_formats`"
) -> tuple[str, ...]:
    """The figure formats asked for, checked: a comma-separated string or a sequence of names.

    None gives :data:`DEFAULT_FIGURE_FORMATS`. Raises ``UserInputError`` naming ``argument`` for an
    unknown or empty format list.
    """
    if formats is None:
        return DEFAULT_FIGURE_FORMATS
    items = formats.split(",") if isinstance(formats, str) else list(formats)
    names = []
    for item in items:
        name = str(item).strip().lower().lstrip(".")
        if name not in FIGURE_FORMATS:
            raise UserInputError(
                f"{argument}: unknown figure format {item!r}; expected a comma-separated list "
                f"of {', '.join(FIGURE_FORMATS)}."
            )
        if name not in names:
            names.append(name)
    if not names:
        raise UserInputError(
            f"{argument}: no figure format given; expected some of {', '.join(FIGURE_FORMATS)}."
        )
    return tuple(names)


def _flag(value: object, info: ValidationInfo) -> bool:
    return _check_bool(value, str(info.field_name))


def _optional_score_range(value: object) -> tuple[float, float] | None:
    return None if value is None else check_score_range(value)


def _duplicate_pairs(value: object) -> str:
    from sts_extras.annotation.tables import DUPLICATE_PAIRS  # pandas: only when checked

    return check_choice(value, "duplicate_pairs", DUPLICATE_PAIRS)


# The statistics' settings, each checked by ONE validator, the same in RunSettings and
# LeaderboardSettings (and so in every record read back from a folder): as every function of
# sts-extras checks them.
#: Seed of the bootstrap: an int, reused by every comparison (a Generator would be shared).
Seed = Annotated[int, BeforeValidator(lambda value: check_positive_int(value, "seed", minimum=0))]
#: Bootstrap resamples per task (:func:`check_n_resamples`).
NResamples = Annotated[int, BeforeValidator(check_n_resamples)]
#: Equal-width bins of the gold scale.
Bins = Annotated[
    int,
    BeforeValidator(
        lambda value: check_count(value, "bins", MAX_BINS, why="more bins than items are empty")
    ),
]
#: The procedure of the pair decisions.
Method = Annotated[
    str, BeforeValidator(lambda value: check_choice(value, "method", COMPARISON_METHODS))
]
#: The adjustment over all pairs of a task.
Adjust = Annotated[
    str, BeforeValidator(lambda value: check_choice(value, "adjust", ADJUST_METHODS))
]
#: True or False, nothing else (``1`` is not a flag).
Flag = Annotated[bool, BeforeValidator(_flag)]
#: The gold-score range of task files, (low, high), or None.
ScoreRange = Annotated[tuple[float, float] | None, BeforeValidator(_optional_score_range)]
#: A sentence pair given twice in a task file: ``"warn"`` (both rows kept) or ``"refuse"``.
DuplicatePairs = Annotated[str, BeforeValidator(_duplicate_pairs)]


class RunSettings(Record):
    """The settings that change the numbers of a report: the record of a
    :class:`LeaderboardSettings`.

    Every cell records it in its identity
    (:class:`~sts_extras.leaderboard.run.records.CellIdentity`), the plan of a run holds it
    (``cells/plan.json``) and ``leaderboard.json`` writes it under ``"settings"``; cells whose
    records differ are never merged; :func:`~sts_extras.leaderboard.scoring.score_leaderboard`
    takes it as it is. Read back from folders other people wrote, it is checked by the same
    validators as :class:`LeaderboardSettings` (choices and ceilings included: a plan cannot ask
    ``collect`` for 10^12 resamples).

    Attributes
    ----------
    seed, n_resamples, bins, method, adjust, round_scores, score_range
        As in :class:`LeaderboardSettings`, with the same defaults for code that makes one. A
        record read back from a file (a plan, a cell) must name every field
        (:data:`~sts_extras.leaderboard.run.records.StoredSettings`): none is taken from a
        default there.

    Examples
    --------
    >>> from sts_extras.leaderboard import RunSettings
    >>> RunSettings(n_resamples=2000, method="percentile").seed
    0
    """

    seed: Seed = 0
    n_resamples: NResamples = 10000
    bins: Bins = 3
    method: Method = "auto"
    adjust: Adjust = "holm"
    round_scores: Flag = False
    #: ``score_range`` of the task files (None: read from each file).
    score_range: ScoreRange = None


#: The fields of :class:`RunSettings`, in order: the settings that change a report's numbers.
RUN_SETTINGS: tuple[str, ...] = tuple(RunSettings.model_fields)


class LeaderboardSettings(Record):
    """Every setting of a leaderboard run, except the models, vectors, tasks and baseline.

    Frozen and checked when made: a bad field raises
    :class:`~sts_extras.errors.UserInputError` (a ``ValueError``) or
    :class:`~sts_extras.errors.UserInputTypeError` (a ``TypeError``) naming it. Change one with
    :meth:`replace` (checked again); :meth:`as_dict` and :meth:`from_dict` go to and from JSON;
    :meth:`to_record` is the part that changes the numbers.

    Parameters
    ----------
    output : path, default "leaderboard"
        Directory for the reports (created if needed).
    seed : int, default 0
        Seed of the bootstrap (a non-negative integer).
    n_resamples : int, default 10000
        Bootstrap resamples per task (one resampling shared by its models), from
        :data:`MIN_RESAMPLES` to
        :data:`~sts_extras.limits.MAX_RESAMPLES`.
    bins : int, default 3
        Equal-width bins of the gold scale for the scaled Pearson (at most
        :data:`~sts_extras.limits.MAX_BINS`).
    method : str, default "auto"
        The procedure of the pair decisions of every task (CLI ``--method``), one of
        :data:`~sts_extras.stats.model_comparison.COMPARISON_METHODS`: ``"auto"`` (the method
        the calibration suite chose for the task's n; each task's result names the one
        chosen and its measured size and coverage), an interval method of r1 - r2
        (``"twopov"``, ``"adjusted-percentile"``, ``"jackknife-t"``, ``"percentile"``,
        ``"BCa"``) or a closed-form test of two dependent correlations (``"meng1992"``, ...;
        its interval is Zou's).
    adjust : str, default "holm"
        Adjustment over all pairs of models of a task (one of
        :data:`~sts_extras.stats.multiple.ADJUST_METHODS`): a pair is significant when its
        adjusted p-value is below 1 - 0.95, which is exactly when its interval, shown at the
        per-pair level that matches the adjustment, excludes 0.
    round_scores : bool, default False
        Round system scores to 3 decimals before every statistic (STSS-131 guidance).
    score_range : (float, float), optional
        The gold-score range of tasks given as files (default: read from the file).
    duplicate_pairs : {"warn", "refuse"}, default "warn"
        A sentence pair given twice (in either order) in a task file: a
        :class:`~sts_extras.annotation.tables.DuplicatePairWarning` naming both rows, every row
        kept as MTEB keeps them; or ``"refuse"``: an error.
    sif : bool, default False
        SIF-weight the words of the static-vector models.
    figures : bool, default True
        Write the figures (kept as they are when what they show did not change).
    figure_formats : str or sequence of str, optional
        Some of ``"pdf"``, ``"png"``, ``"svg"`` (a comma-separated string or a sequence; default
        :data:`DEFAULT_FIGURE_FORMATS`); kept as a tuple.
    progress : bool, default True
        Show progress bars (the libraries' own too).
    cache_dir : path, optional
        Cache of encodings, distilled vectors and earlier evaluations (default
        ``$STS_EXTRAS_CACHE`` or ``~/.cache/sts_extras``).
    trust_remote_code : bool, default False
        Let models run code from their repositories (recorded per model in ``leaderboard.json``).
    trust_pickle : bool, default False
        Read vector files in gensim's pickle-based ``.kv``/``.model`` format, which runs any code
        stored in them.
    workers : int, optional
        Run the cells on a ``dask.distributed`` ``LocalCluster`` of this many worker processes
        (at most the CPUs of this machine; needs the ``distributed`` extra).
    dask_scheduler : str, optional
        Run the cells on the running ``dask.distributed`` scheduler at this address (e.g.
        ``"tcp://10.0.0.5:8786"``). Not with ``workers``.
    gpu_per_cell : bool, default False
        With Dask: each cell asks for the worker resource ``GPU=1``.

    Raises
    ------
    UserInputError
        A value out of its range or not one of its choices; ``workers`` with ``dask_scheduler``;
        ``gpu_per_cell`` without either.
    UserInputTypeError
        A value of the wrong type (``True`` for a count, ``"3"`` for a number), or an unknown
        field.

    Examples
    --------
    >>> from sts_extras.leaderboard import LeaderboardSettings
    >>> settings = LeaderboardSettings(output="board", seed=3, method="williams1959")
    >>> settings.n_resamples, settings.figure_formats
    (10000, ('pdf', 'png'))
    >>> settings.to_record().method
    'williams1959'
    >>> LeaderboardSettings.from_dict(settings.as_dict()) == settings
    True
    >>> LeaderboardSettings(bins=0)
    Traceback (most recent call last):
    ...
    sts_extras.errors.UserInputError: `bins` must be at least 1, got 0.
    """

    output: Path = Path(DEFAULT_OUTPUT)
    seed: Seed = 0
    n_resamples: NResamples = 10000
    bins: Bins = 3
    method: Method = "auto"
    adjust: Adjust = "holm"
    round_scores: Flag = False
    score_range: ScoreRange = None
    duplicate_pairs: DuplicatePairs = "warn"
    sif: Flag = False
    figures: Flag = True
    figure_formats: tuple[str, ...] = DEFAULT_FIGURE_FORMATS
    progress: Flag = True
    cache_dir: Path | None = None
    trust_remote_code: Flag = False
    trust_pickle: Flag = False
    workers: int | None = None
    dask_scheduler: str | None = None
    gpu_per_cell: Flag = False

    if TYPE_CHECKING:
        # What the constructor takes: the field types, widened where a validator below normalises
        # the value (a path as str, the formats as one comma string, the range as any two
        # numbers). Without this, type checkers would take the stored types for the inputs.

        def __init__(
            self,
            *,
            output: str | os.PathLike[str] = ...,
            seed: int = ...,
            n_resamples: int = ...,
            bins: int = ...,
            method: str = ...,
            adjust: str = ...,
            round_scores: bool = ...,
            score_range: Sequence[float] | None = ...,
            duplicate_pairs: str = ...,
            sif: bool = ...,
            figures: bool = ...,
            figure_formats: str | list[str] | tuple[str, ...] | None = ...,
            progress: bool = ...,
            cache_dir: str | os.PathLike[str] | None = ...,
            trust_remote_code: bool = ...,
            trust_pickle: bool = ...,
            workers: int | None = ...,
            dask_scheduler: str | None = ...,
            gpu_per_cell: bool = ...,
        ) -> None: ...

    else:

        def __init__(self, **values: object) -> None:
            try:
                super().__init__(**values)
            except ValidationError as error:
                raise _user_error(error) from None

    # ---- one check per field, before pydantic's strict types -----------------------------
    @field_validator("output", "cache_dir", mode="before")
    @classmethod
    def _folder(cls, value: object, info: ValidationInfo) -> Path | None:
        if value is None and info.field_name == "cache_dir":
            return None
        if not isinstance(value, (str, os.PathLike)):
            raise UserInputTypeError(
                f"`{info.field_name}` must be a path (str or os.PathLike), got {value!r}."
            )
        if not str(os.fspath(value)).strip():
            raise UserInputError(f"`{info.field_name}` is empty; give a directory.")
        return Path(value)

    @field_validator("figure_formats", mode="before")
    @classmethod
    def _figure_formats(cls, value: object) -> tuple[str, ...]:
        if value is None:
            return DEFAULT_FIGURE_FORMATS
        if not isinstance(value, (str, list, tuple)):
            raise UserInputTypeError(
                f"`figure_formats` must be a comma-separated string or a sequence of names, "
                f"got {value!r}."
            )
        return check_figure_formats(value)

    @field_validator("workers", mode="before")
    @classmethod
    def _workers(cls, value: object) -> int | None:
        if value is None:
            return None
        return check_count(
            value,
            "workers",
            max_local_workers(),
            why="the CPUs of this machine; for more, start workers elsewhere and give "
            "`dask_scheduler`",
        )

    @field_validator("dask_scheduler", mode="before")
    @classmethod
    def _dask_scheduler(cls, value: object) -> str | None:
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise UserInputError(
                f"`dask_scheduler` must be a scheduler address such as 'tcp://host:8786', "
                f"got {value!r}."
            )
        return value

    @model_validator(mode="after")
    def _cluster(self) -> LeaderboardSettings:
        if self.workers is not None and self.dask_scheduler is not None:
            raise UserInputError(
                "Give `workers` (a local Dask cluster) or `dask_scheduler` (a running one), "
                "not both."
            )
        if self.gpu_per_cell and self.workers is None and self.dask_scheduler is None:
            raise UserInputError("`gpu_per_cell` needs Dask: give `workers` or `dask_scheduler`.")
        return self

    # ---- what the rest of the leaderboard uses -------------------------------------------
    @property
    def uses_dask(self) -> bool:
        """Whether the cells run on a Dask cluster (``workers`` or ``dask_scheduler``)."""
        return self.workers is not None or self.dask_scheduler is not None

    def to_record(self) -> RunSettings:
        """The settings that change the numbers (:class:`RunSettings`): what each cell and the
        plan record, and ``leaderboard.json`` writes under ``"settings"``."""
        return RunSettings(**{name: getattr(self, name) for name in RUN_SETTINGS})

    def as_dict(self) -> dict[str, JSONValue]:
        """Every field as JSON values (paths as strings, tuples as lists), in field order;
        :meth:`from_dict` reads it back."""
        dumped: dict[str, JSONValue] = self.model_dump(mode="json")
        return dumped

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> LeaderboardSettings:
        """The settings of ``data`` (e.g. :meth:`as_dict` read back from JSON), checked field by
        field as when made; a field left out takes its default."""
        if not isinstance(data, Mapping) or not all(isinstance(key, str) for key in data):
            raise UserInputTypeError(
                f"LeaderboardSettings.from_dict needs a mapping of field names, got "
                f"{type(data).__name__}."
            )
        return cls._checked(data)

    def replace(self, **changes: object) -> LeaderboardSettings:
        """A copy with ``changes``, checked again (pydantic's ``model_copy`` would not check).

        The fields given stay given (:attr:`model_fields_set`), with ``changes`` added.
        """
        values = {name: getattr(self, name) for name in self.model_fields_set}
        return self._checked({**values, **changes})

    @classmethod
    def _checked(cls, values: Mapping[str, object]) -> LeaderboardSettings:
        """The settings of ``values`` (field name -> value), checked as by the constructor."""
        try:
            return cls.model_validate(dict(values))
        except ValidationError as error:
            raise _user_error(error) from None


def _user_error(error: ValidationError) -> UserInputError:
    """The first problem of ``error`` as the error sts-extras raises for it, naming the field:
    the check's own error when a check of sts-extras refused the value, else one made here."""
    first = error.errors()[0]
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, UserInputError):
        return cause
    where = ".".join(str(part) for part in first["loc"])
    if first["type"] == "extra_forbidden":
        known = list(LeaderboardSettings.model_fields)
        close = difflib.get_close_matches(where, known, n=1)
        hint = f"the closest is `{close[0]}`" if close else ""
        return UserInputTypeError(
            f"LeaderboardSettings has no field {where!r}" + (f"; {hint}" if hint else "") + "."
        )
    if first["type"].endswith("_type") or first["type"] in ("is_instance_of", "model_type"):
        return UserInputTypeError(f"`{where}`: {first['msg']}.")
    return UserInputError(f"`{where}`: {first['msg']}.")
