"""Earlier model × task evaluations kept under the cache, so a re-run need not call MTEB again.

``mteb.evaluate`` imports sentence-transformers (and with it torch and transformers) on every
call, whatever the model, and a sentence-transformers model is loaded before MTEB's embedding
cache is asked: together most of a re-run. So after a model is evaluated, the files MTEB wrote for
each task it scored (the per-pair prediction file, the task result and the model metadata) and
the task's run settings are copied to ``<cache>/evaluations/<model key>/<task key>/``. When every
task of a model is there, they are copied back into the output instead of evaluating: the
per-pair scores, and so every report, are byte-identical to those of the run that stored them.

Each task's folder is written whole or not at all (:func:`sts_extras.integrity.atomic_directory`)
with a manifest of the size and hash of every file and the (model key, task key) it was stored
under. A lookup checks it: a changed, missing or unlisted file, a folder without a manifest or
stored under other keys is discarded with one
:class:`~sts_extras.integrity.CacheDiscardedWarning`, and the model is evaluated again.

The keys name everything the files depend on, by content, never by a path or a modification
time; every hash in them is :data:`~sts_extras.io.content.CONTENT_HASH` (XXH3-128), and each key
is 32 hex digits of it. The model key: the model's identity
(:func:`sts_extras.leaderboard.run.resolve.model_identity`: a sentence-transformers folder by the
content hash of every byte of its files and
``trust_remote_code``, a Hub model by its commit; a model of MTEB's registry by its name, the
revision MTEB pins, and the loader and loader arguments MTEB builds it with; a static model by the
content hash of its whole vector table, words and tokenisation, its method and SIF weights), the
encode options, the versions of sts-extras, MTEB and sentence-transformers, and the stamp of the
sts-extras source files that shape an evaluation
(:func:`~sts_extras.leaderboard.sources.code_stamp`; :data:`NOT_EVALUATION_CODE` lists those that
do not), so an edited model never reads stale scores. The task key: the task's name, its data
(every column of every evaluated split) and MTEB's version. A folder stored by an sts-extras of
before 0.4 (keys of 20 hex digits, of another hash) is never looked up again: it costs only its
disk space. Models passed as ready objects have no identity and are always evaluated.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from sts_extras.integrity import atomic_directory, discard, verify_manifest, write_manifest
from sts_extras.io.content import content_hash, content_hasher
from sts_extras.io.records import Record, parse_record
from sts_extras.io.text import read_json
from sts_extras.leaderboard.sources import code_stamp

__all__ = [
    "NOT_EVALUATION_CODE",
    "EvaluationStore",
    "StoredTask",
    "model_key",
    "task_key",
]

# the store's own files in a task's folder, beside MTEB's
_RECORD = "stored.json"


def _digest(value: object) -> str:
    return content_hash(repr(value))


@cache  # importlib.metadata reads the installed files on every call; asked once per cell
def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


#: sts-extras sources that cannot change what MTEB writes for a model (statistics, reports,
#: other commands); an edit of any other source file makes the stored evaluations stale.
NOT_EVALUATION_CODE = (
    "annotation/",
    "stats/",
    "leaderboard/reports/",
    "leaderboard/scoring.py",
    "leaderboard/run/cells.py",
    "leaderboard/run/collect.py",
    "leaderboard/run/distributed.py",
    "leaderboard/run/pipeline.py",
    "leaderboard/run/records.py",
    "leaderboard/run/report_set.py",
    "leaderboard/settings.py",
    "cli/",
    "reproduce/",
    "progress.py",
)


def model_key(identity: str, display_name: str, encode_options: Mapping[str, object]) -> str:
    """The store key of a model: identity, display name, encode options, package versions,
    source stamp.

    The display name is part of it because MTEB's files name the model (a local folder is
    ``local/<display name>`` in MTEB's results): the same files under another name are evaluated
    under that name, not restored with the first one's.
    """
    versions = [_version(p) for p in ("sts-extras", "mteb", "sentence-transformers")]
    stamp = code_stamp(NOT_EVALUATION_CODE)
    return _digest((identity, display_name, sorted(encode_options.items()), versions, stamp))


def task_key(
    task_name: str, splits: Iterable[tuple[str, str, Mapping[str, Sequence[object]]]]
) -> str:
    """The store key of a task: its name, MTEB's version and each (subset, split, columns)."""
    digest = content_hasher()
    digest.update(repr((task_name, _version("mteb"))).encode())
    for subset, split, columns in splits:
        digest.update(json.dumps([subset, split, columns], sort_keys=True, default=str).encode())
    return digest.hexdigest()


class StoredRecord(Record):
    """The store's own record of a stored task (:data:`_RECORD`), as read back."""

    mteb_name: str
    mteb_revision: str
    run_settings: tuple[dict[str, Any], ...]
    pearson: tuple[tuple[str, str, float | None], ...]


@dataclass(frozen=True)
class StoredTask:
    """One stored model × task evaluation.

    Attributes
    ----------
    folder : pathlib.Path
        Holds copies of the files MTEB wrote (prediction file, task result, model metadata).
    mteb_name, mteb_revision : str
        The model's name and revision in MTEB's results.
    run_settings : list of dict
        The task's entries of MTEB's run settings.
    pearson : dict
        (subset, split) -> the ``pearson`` MTEB reported, unrounded (its result file rounds).
    """

    folder: Path
    mteb_name: str
    mteb_revision: str
    run_settings: list[dict[str, Any]]
    pearson: dict[tuple[str, str], float | None]

    def file(self, name: str) -> Path:
        """The stored copy of the file MTEB wrote under ``name``."""
        return self.folder / name


class EvaluationStore:
    """The stored evaluations of one model.

    Parameters
    ----------
    root : pathlib.Path
        ``<cache>/evaluations``.
    key : str
        The model's :func:`model_key`.
    """

    def __init__(self, root: Path, key: str) -> None:
        self.key = key
        self.folder = root / key

    def _manifest_key(self, task_key: str) -> dict[str, str]:
        return {"model": self.key, "task": task_key}

    def lookup(self, task_keys: Mapping[str, str]) -> dict[str, StoredTask] | None:
        """Every task's stored evaluation (task name -> task key), or None if one is missing.

        A stored task that fails its check is discarded (with a warning) and counts as missing.
        """
        found = {}
        for name, key in task_keys.items():
            folder = self.folder / key
            if not folder.exists():
                return None
            reason = verify_manifest(folder, self._manifest_key(key))
            if reason is None:
                try:
                    what = f"the stored evaluation {folder / _RECORD}"
                    # MTEB's pearson is NaN for constant scores: read as None, as in the cells
                    data = read_json(folder / _RECORD, what, non_finite_as_null=True)
                    record = parse_record(StoredRecord, data, what)
                    found[name] = StoredTask(
                        folder,
                        record.mteb_name,
                        record.mteb_revision,
                        [dict(entry) for entry in record.run_settings],
                        {(subset, split): value for subset, split, value in record.pearson},
                    )
                    continue
                except (OSError, ValueError) as error:
                    reason = f"{folder / _RECORD} is unreadable ({type(error).__name__})"
            discard(folder, reason)
            return None
        return found

    def save(
        self,
        task_key: str,
        files: Iterable[Path],
        *,
        mteb_name: str,
        mteb_revision: str,
        run_settings: list[dict[str, Any]],
        pearson: Mapping[tuple[str, str], float | None],
    ) -> None:
        """Keep copies of the files MTEB wrote for one task, with their manifest.

        A crash leaves the previous entry or none, never a partial one.
        """
        record = {
            "mteb_name": mteb_name,
            "mteb_revision": mteb_revision,
            "run_settings": run_settings,
            "pearson": [[subset, split, value] for (subset, split), value in pearson.items()],
        }
        try:
            with atomic_directory(self.folder / task_key) as staging:
                for file in files:
                    shutil.copyfile(file, staging / file.name)
                (staging / _RECORD).write_text(json.dumps(record), encoding="utf-8")
                write_manifest(staging, self._manifest_key(task_key))
        except OSError:
            pass  # a store that cannot be written costs a re-run its speed, nothing else
