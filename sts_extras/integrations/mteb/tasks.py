"""DSCS and STSS-131 as MTEB STS tasks, loaded offline from the data shipped with sts-extras.

A task is data (as in MTEB's own ``mteb/tasks/sts/eng/*.py``): a :class:`~mteb.TaskMetadata` plus
the score range. Every field is derived from the one
:class:`sts_extras.benchmark_tables.DatasetSpec` of the benchmark, so the dataset card,
the ``datasets`` builder and the task cannot drift apart. The one behaviour we change is
:meth:`DSCS.load_data`: the pairs come from the package through
:func:`sts_extras.integrations.datasets.loading.load_dataset`, never from the Hub.

Importing this module registers the two tasks with MTEB, as importing MTEB's own task modules
does (MTEB keeps its registry in a module-level dict and has no plugin entry point, so
:func:`register` adds them to it; it stays, idempotent, for code written before), and imports
:mod:`sts_extras.integrations.mteb.models`, which registers our models
(``mteb.get_model("sts-extras/avg-cos")``)::

    >>> import mteb
    >>> import sts_extras.integrations.mteb.tasks
    >>> [task.metadata.name for task in mteb.get_tasks(tasks=["DSCS", "STSS131"])]
    ['DSCS', 'STSS131']
    >>> mteb.get_task("STSS131").metadata.main_score
    'pearson'

:func:`from_csv` makes a task of your own file (CSV, JSON Lines or Parquet with the columns
``sentence1``, ``sentence2`` and ``score``), e.g. the dataset of an annotation campaign.

The main score is ``pearson``, MTEB's Pearson r between the gold scores and the model's own
similarity function: both papers report Pearson's r (STSS-131 asks for it explicitly), and for
models that are not plain embedders (DynaMax) only the model-similarity scores are meaningful.
"""

from __future__ import annotations

import os
import re
from importlib import resources
from pathlib import Path
from typing import Any

from sts_extras.benchmark_tables import DatasetSpec, get_spec
from sts_extras.integrations.mteb.internals import register_task, registered_task
from sts_extras.io.content import content_hash
from sts_extras.optional import requires_extra

with requires_extra("mteb"):
    from mteb.abstasks.sts import AbsTaskSTS
    from mteb.abstasks.task_metadata import SampleCreationMethod, TaskDomain, TaskMetadata

__all__ = ["DSCS", "STSS131", "TASKS", "from_csv", "register"]


def _english_sts_fields() -> dict[str, Any]:  # TaskMetadata keywords, of several types
    """The metadata fields every task of ours shares: an English STS test split scored by
    Pearson, annotated by people."""
    return {
        "type": "STS",
        "category": "t2t",
        "modalities": ["text"],
        "eval_splits": ["test"],
        "eval_langs": ["eng-Latn"],
        "main_score": "pearson",
        "task_subtypes": [],
        "annotations_creators": "human-annotated",
        "dialect": [],
    }


def _revision(spec: DatasetSpec) -> str:
    """The dataset revision MTEB records: the content hash of the packaged table (32 hex digits
    of :data:`~sts_extras.io.content.CONTENT_HASH`).

    A content hash instead of a Git commit: the data ships inside the package, so an edited table
    gets a new revision automatically and never reuses results computed on the old one.
    """
    # one name per joinpath(): Traversable.joinpath takes a single one on Python 3.10
    data = resources.files("sts_extras").joinpath("data").joinpath(spec.data_file).read_bytes()
    return content_hash(data)


def _metadata(
    spec: DatasetSpec,
    *,
    name: str,
    date: tuple[str, str],
    domains: list[TaskDomain],
    sample_creation: SampleCreationMethod,
) -> TaskMetadata:
    return TaskMetadata(
        name=name,
        # The Hub-ready folder of this repository (`datasets.load_dataset` accepts it from a
        # checkout); the task itself reads the package copy in `load_data`.
        dataset={
            "path": f"dataset_scripts/{spec.name}",
            "revision": _revision(spec),
            "name": spec.configs[0].name,
        },
        description=f"{spec.description} License: {spec.license_note}",
        reference=spec.homepage,
        date=date,
        domains=domains,
        license="not specified",
        **_english_sts_fields(),
        sample_creation=sample_creation,
        bibtex_citation=spec.citation,
    )


class _PackagedSTSTask(AbsTaskSTS):
    """An ``AbsTaskSTS`` whose test split is read from the sts-extras package (no download)."""

    _dataset_name: str

    def load_data(self, num_proc: int | None = None, **kwargs: object) -> None:
        """Load the ``test`` split from the package (MTEB's default would query the Hub)."""
        if self.data_loaded:
            return
        from sts_extras.integrations.datasets.loading import load_dataset

        self.dataset = load_dataset(self._dataset_name, self.metadata.dataset.get("name"))
        self.dataset_transform(num_proc=num_proc)
        self.data_loaded = True


_DSCS_SPEC = get_spec("dscs")
_STSS131_SPEC = get_spec("stss131")


class DSCS(_PackagedSTSTask):
    """DSCS (Chandrasekaran & Mago, 2020): 50 computer-science definition pairs, gold 0-5."""

    _dataset_name = "dscs"
    metadata = _metadata(
        _DSCS_SPEC,
        name="DSCS",
        # The paper does not date the annotation; the range ends at its arXiv submission.
        date=("2020-01-01", "2020-10-24"),
        domains=["Academic", "Encyclopaedic", "Written"],
        # Definitions from Wikipedia, Simple Wikipedia and Merriam-Webster, paired by the authors.
        sample_creation="found",
    )
    min_score = _DSCS_SPEC.score_range[0]  # type: ignore[assignment]  # MTEB annotates int
    max_score = _DSCS_SPEC.score_range[1]  # type: ignore[assignment]  # MTEB annotates int


class STSS131(_PackagedSTSTask):
    """STSS-131 (O'Shea, Bandar & Crockett, 2013): 64 conversational short-text pairs, gold 0-4.

    The two calibration pairs (SP99, SP129) are excluded, as the authors require.
    """

    _dataset_name = "stss131"
    metadata = _metadata(
        _STSS131_SPEC,
        name="STSS131",
        # Sentences written for the benchmark; ratings collected before the 2013 publication
        # (O'Shea 2010 describes the method).
        date=("2010-01-01", "2013-12-31"),
        domains=["Spoken", "Constructed"],
        sample_creation="created",
    )
    min_score = _STSS131_SPEC.score_range[0]  # type: ignore[assignment]  # MTEB annotates int
    max_score = _STSS131_SPEC.score_range[1]  # type: ignore[assignment]  # MTEB annotates int


TASKS: dict[str, type[_PackagedSTSTask]] = {"DSCS": DSCS, "STSS131": STSS131}


def register() -> None:
    """Make ``mteb.get_task("DSCS")`` and ``mteb.get_tasks(tasks=["DSCS", "STSS131"])`` work.

    Adds the two tasks to MTEB's in-process registry (through
    :func:`sts_extras.integrations.mteb.internals.register_task`; ``get_tasks(task_types=["STS"])``
    lists them too). Idempotent.

    Raises
    ------
    ValueError
        If MTEB already has a *different* task under one of our names.
    """
    for name, cls in TASKS.items():
        known = registered_task(name)
        if known is cls:
            continue
        if known is not None:
            raise ValueError(
                f"MTEB already defines a task named {name!r} "
                f"({known.__module__}.{known.__name__}); "
                "sts-extras cannot register its own under the same name."
            )
        register_task(name, cls)


class _FileSTSTask(AbsTaskSTS):
    """An ``AbsTaskSTS`` whose test split is a table read (and checked) by :func:`from_csv`."""

    _frame: Any

    def load_data(self, num_proc: int | None = None, **kwargs: object) -> None:
        """Build the ``test`` split from the rows read when the task was made (no download)."""
        if self.data_loaded:
            return
        from datasets import Dataset, DatasetDict

        self.dataset = DatasetDict({"test": Dataset.from_pandas(self._frame, preserve_index=False)})
        self.dataset_transform(num_proc=num_proc)
        self.data_loaded = True


def from_csv(
    path: str | os.PathLike,
    name: str | None = None,
    score_range: tuple[float, float] | None = None,
    *,
    mteb_task: str | None = None,
    duplicate_pairs: str = "warn",
) -> AbsTaskSTS:
    """An MTEB STS task whose test split is your file.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.csv``, ``.jsonl`` or ``.parquet`` file with the columns ``sentence1``,
        ``sentence2`` and ``score`` (other columns are ignored), such as the dataset written by
        ``sts-extras annotate score --dataset-out``. A CSV file may have no header line (a first
        row of three cells whose third is a number: see
        :func:`sts_extras.annotation.tables.read_sts_table`).
    name : str, optional
        The task's name in MTEB's results (default: the file name without its suffix).
    score_range : (float, float), optional
        The rating scale (``min_score``, ``max_score``); default: the lowest and highest score
        of the file.
    mteb_task : str, optional
        The name of an MTEB STS task with one subset (e.g. ``"STSBenchmark"``) whose data the
        file holds: the task then *is* that task with local data -- its name, main score
        (``cosine_spearman``), split, languages and score range (``min_score``/``max_score``,
        0-5) are MTEB's, so its results sit beside MTEB's published ones as the same task; only
        the dataset (this file and its content hash as revision) differs. ``name`` and a
        ``score_range`` other than MTEB's are refused with it.
    duplicate_pairs : {"warn", "refuse"}, default "warn"
        A pair given twice in the file (in either order): a warning naming both rows, every row
        kept as MTEB keeps them, or an error.

    Returns
    -------
    mteb.abstasks.sts.AbsTaskSTS
        A task object (not registered by name), with main score ``pearson`` and language
        ``eng-Latn`` (or, with ``mteb_task``, MTEB's metadata of that task). Its dataset revision
        is the content hash (32 hex digits of :data:`~sts_extras.io.content.CONTENT_HASH`) of the
        file's bytes, so MTEB's result cache and sts-extras' caches tell an edited file from the
        old one. The file is read and checked now; later edits do not change the task.

    Raises
    ------
    sts_extras.errors.UserInputError
        A file that is missing or unreadable, lacks a column, has a blank cell, a score that is
        not a finite number, fewer than 3 pairs or an empty score range; a blank ``name``; an
        ``mteb_task`` that is not an MTEB STS task with one subset; with
        ``duplicate_pairs="refuse"``, a pair given twice.

    Warns
    -----
    sts_extras.annotation.tables.DuplicatePairWarning
        A pair given twice (``duplicate_pairs="warn"``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "mini.csv").write_text(
    ...     "sentence1,sentence2,score\\nA cat.,A dog.,2\\nRain.,Sun.,0\\nHi.,Hello.,5\\n")
    >>> task = from_csv(folder / "mini.csv")
    >>> task.metadata.name, task.min_score, task.max_score
    ('mini', 0.0, 5.0)
    >>> task = from_csv(folder / "mini.csv", mteb_task="STSBenchmark")
    >>> task.metadata.name, task.metadata.main_score, task.min_score, task.max_score
    ('STSBenchmark', 'cosine_spearman', 0.0, 5.0)
    """
    from sts_extras.annotation.tables import read_sts_table
    from sts_extras.errors import UserInputError

    path = Path(path)
    template = None if mteb_task is None else _mteb_sts_task(mteb_task, path)
    if template is not None:
        mteb_range = (float(template.min_score), float(template.max_score))
        if name is not None and str(name).strip() != template.metadata.name:
            raise UserInputError(
                f"--task {mteb_task}={path}: the task is MTEB's {template.metadata.name}; it "
                f"cannot also be named {name!r}."
            )
        if score_range is not None and tuple(float(end) for end in score_range) != mteb_range:
            raise UserInputError(
                f"--score-range {score_range[0]:g} {score_range[1]:g}: the task "
                f"{template.metadata.name} has MTEB's score range {mteb_range[0]:g}-"
                f"{mteb_range[1]:g}; leave --score-range out."
            )
        score_range = mteb_range
    table = read_sts_table(path, "--task", score_range, duplicate_pairs=duplicate_pairs)
    revision = content_hash(path.read_bytes())
    low, high = table.score_range
    if template is not None:
        metadata = template.metadata.model_copy(
            update={
                "dataset": {"path": str(path.resolve()), "revision": revision},
                "description": f"{template.metadata.description} (local data: {path.name})",
            }
        )
        task_name = metadata.name
    else:
        task_name = path.stem if name is None else str(name).strip()
        if not task_name:
            raise UserInputError(f"--task {path}: the task name is blank; give a name.")
        metadata = TaskMetadata(
            name=task_name,
            dataset={"path": str(path.resolve()), "revision": revision},
            description=f"Sentence pairs with similarity scores ({low:g}-{high:g}) from "
            f"{path.name}.",
            reference=None,
            date=None,
            domains=None,
            license=None,
            **_english_sts_fields(),
            sample_creation=None,
            bibtex_citation="",
        )
    class_name = "FileSTS_" + re.sub(r"\W", "_", task_name)
    attributes = {"metadata": metadata, "min_score": low, "max_score": high, "_frame": table.frame}
    return type(class_name, (_FileSTSTask,), attributes)()


def _mteb_sts_task(name: str, path: Path) -> AbsTaskSTS:
    """MTEB's STS task ``name`` (any letter case), whose metadata a file task takes over."""
    import mteb

    from sts_extras.errors import UserInputError
    from sts_extras.integrations.mteb.internals import task_registry

    by_lower = {known.lower(): known for known in task_registry()}
    found = by_lower.get(str(name).strip().lower())
    if found is None or found in TASKS:
        raise UserInputError(
            f"--task {name}={path}: {name!r} is not an MTEB STS task; write NAME=FILE with the "
            "name of one (e.g. STSBenchmark), or give the file alone."
        )
    task = mteb.get_task(found)
    if not isinstance(task, AbsTaskSTS) or task.metadata.type != "STS":
        raise UserInputError(f"--task {name}={path}: {found} is not an MTEB STS task.")
    if len(task.hf_subsets) != 1 or len(task.metadata.eval_splits) != 1:
        raise UserInputError(
            f"--task {name}={path}: {found} has {len(task.hf_subsets)} subsets and "
            f"{len(task.metadata.eval_splits)} splits; a file gives one (use an MTEB STS task "
            "with one subset, e.g. STSBenchmark)."
        )
    return task


# Importing the tasks registers them (and, through sts_extras.integrations.mteb.models, our models),
# as importing MTEB's own task modules does.
register()
import sts_extras.integrations.mteb.models  # noqa: E402, F401
