"""Run the cells of a leaderboard: in this process, or on a ``dask.distributed`` cluster.

Serial: the cells run model by model, each model built once. Dask: every cell is one task
submitted to the scheduler (``--dask-scheduler ADDRESS``) or to a ``LocalCluster`` of worker
processes started here (``--workers N``). Each worker builds its own models (kept for the next
cell of the same model, :class:`~sts_extras.leaderboard.run.evaluation.BuiltModels`), evaluates the
cell in a scratch folder and sends MTEB's files back as bytes, so workers need no shared file
system with the client; the client writes them into the output. Cells are submitted model by
model, so a worker mostly runs consecutive cells of one model. With ``gpu_per_cell`` each cell
asks for the worker resource ``GPU=1`` (start workers with ``--resources GPU=1``, one per GPU).

Which worker ran a cell, and in which order, changes nothing in the report: the cells are
written to fixed places and the statistics read them back in plan order.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from sts_extras.errors import UserInputError
from sts_extras.io.model_sources import one_line
from sts_extras.leaderboard.run.evaluation import (
    BuiltModels,
    CellOutcome,
    evaluate_cell,
    model_description,
)
from sts_extras.leaderboard.run.resolve import ModelEntry
from sts_extras.optional import check_installed

if TYPE_CHECKING:  # pragma: no cover -- dask and MTEB are imported on use
    from dask.distributed import Client
    from mteb.abstasks.sts import AbsTaskSTS
    from tqdm import tqdm

__all__ = ["CellJob", "connect", "run_dask", "run_serial"]

#: Seconds to wait for a scheduler at ``--dask-scheduler`` before giving up.
CONNECT_TIMEOUT = 15


@dataclass(frozen=True)
class CellJob:
    """One cell to run: a model entry, a loaded task and the task's store key."""

    entry: ModelEntry
    task: Any  # a loaded AbsTaskSTS; Any, as tests hand in stand-ins
    task_key: str

    @property
    def label(self) -> str:
        return f"{self.entry.name} × {self.task.metadata.name}"


def _bar(total: int, progress: bool) -> contextlib.AbstractContextManager[tqdm[NoReturn] | None]:
    if not progress:
        return contextlib.nullcontext(None)
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="Cells", unit="cell")


def run_serial(
    jobs: Sequence[CellJob], *, cache_dir: Path | None, progress: bool = True
) -> Iterator[CellOutcome]:
    """Run the cells here, one after the other, and yield their outcomes in order."""
    models = BuiltModels()
    try:
        with _bar(len(jobs), progress) as bar:
            for job in jobs:
                if bar is not None:
                    bar.set_postfix_str(job.label)
                yield evaluate_cell(
                    job.entry,
                    job.task,
                    task_key=job.task_key,
                    cache_dir=cache_dir,
                    models=models,
                    model_key=job.entry.name,
                )
                if bar is not None:
                    bar.update()
    finally:
        models.clear()


# --------------------------------------------------------------------------------------------
# Dask
# --------------------------------------------------------------------------------------------
#: The models a worker process built, kept between the cells it runs.
_WORKER_MODELS = BuiltModels()


def _worker_cell(
    entry: ModelEntry, task: AbsTaskSTS, task_key: str, cache_dir: Path | None, run: str
) -> CellOutcome:
    """What a Dask worker runs for one cell (a module-level function, so it pickles by name)."""
    return evaluate_cell(
        entry,
        task,
        task_key=task_key,
        cache_dir=cache_dir,
        models=_WORKER_MODELS,
        model_key=(run, entry.name),
    )


@contextlib.contextmanager
def connect(
    *, scheduler: str | None = None, workers: int | None = None, gpu_per_cell: bool = False
) -> Iterator[Client]:
    """A ``dask.distributed.Client`` of the scheduler at ``scheduler`` or of a new
    ``LocalCluster`` of ``workers`` processes (one thread each); closed at the end.

    Raises
    ------
    UserInputError
        The scheduler cannot be reached within :data:`CONNECT_TIMEOUT` seconds.
    """
    check_installed("distributed", extra="distributed")
    from dask.distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as error:
            raise UserInputError(
                f"--dask-scheduler {scheduler!r}: no scheduler answered within "
                f"{CONNECT_TIMEOUT} s ({type(error).__name__}: {one_line(error)})."
            ) from None
        with client:
            yield client
        return
    resources = {"GPU": 1} if gpu_per_cell else None
    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            resources=resources,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def _send(client: Client, value: object, what: str) -> Any:  # a dask Future (typed Any by dask)
    """``value`` scattered to the cluster once; ``UserInputError`` if it cannot be pickled."""
    try:
        return client.scatter(value, hash=False)
    except Exception as error:  # noqa: BLE001 -- pickling raises many types
        raise UserInputError(
            f"The {what} cannot be sent to the Dask workers ({type(error).__name__}: "
            f"{one_line(error)}); give it by name, or run without --workers/--dask-scheduler."
        ) from None


def run_dask(
    jobs: Sequence[CellJob],
    client: Client,
    *,
    cache_dir: Path | None,
    gpu_per_cell: bool = False,
    progress: bool = True,
) -> Iterator[CellOutcome]:
    """Submit every cell to ``client``'s cluster; yield the outcomes as they finish.

    A cell whose worker failed or died becomes a failed cell; the others go on.
    """
    from dask.distributed import as_completed

    run = uuid.uuid4().hex
    # each model and task is sent to the cluster once, not with every cell
    entries = {job.entry.name: job.entry for job in jobs}
    tasks = {job.task.metadata.name: job.task for job in jobs}
    sent_entries = {
        name: _send(client, entry, f"model {name!r}") for name, entry in entries.items()
    }
    sent_tasks = {name: _send(client, task, f"task {name!r}") for name, task in tasks.items()}
    resources = {"GPU": 1} if gpu_per_cell else None
    futures = {}
    for job in jobs:
        future = client.submit(
            _worker_cell,
            sent_entries[job.entry.name],
            sent_tasks[job.task.metadata.name],
            job.task_key,
            cache_dir,
            run,
            pure=False,
            resources=resources,
        )
        futures[future] = job
    with _bar(len(jobs), progress) as bar:
        for future in as_completed(futures):
            job = futures[future]
            try:
                outcome = future.result()
            except Exception as error:  # noqa: BLE001 -- a lost worker fails its cell only
                outcome = CellOutcome(
                    job.entry.name,
                    job.task.metadata.name,
                    model_description(job.entry),
                    error=f"{type(error).__name__}: {one_line(error)}",
                )
            if bar is not None:
                bar.set_postfix_str(job.label)
                bar.update()
            yield outcome
