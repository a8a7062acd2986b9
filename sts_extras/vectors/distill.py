"""The on-disk cache of static vectors distilled with model2vec from sentence-transformers models.

Distilling runs every vocabulary token through the transformer once, so the result is kept under
the sts-extras cache and found again by a key of the model's files and the options. The folder is
written whole or not at all (:func:`sts_extras.integrity.atomic_directory`) with a manifest of
that key and of every file's size and hash; it is checked before each use, and a folder that fails
(a changed, truncated or missing file, a missing manifest) is discarded with one
:class:`~sts_extras.integrity.CacheDiscardedWarning` and distilled again. model2vec is imported
only when a model is distilled.

Distillation runs torch on as many threads as there are free CPUs (:func:`free_cpus`): on a
machine where another process keeps a core busy, torch's threads would otherwise wait for each
other, and two threads on one free core run slower than one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sts_extras.integrations.hub import ModelSource
from sts_extras.integrity import atomic_directory, discard, verify_manifest, write_manifest

__all__ = [
    "default_cache_dir",
    "distill_to",
    "distillation_key",
    "distilled_model_dir",
    "free_cpus",
]


def default_cache_dir() -> Path:
    """The sts-extras cache: ``$STS_EXTRAS_CACHE`` if set, else ``~/.cache/sts_extras``."""
    configured = os.environ.get("STS_EXTRAS_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "sts_extras"


def _slug(text: str) -> str:
    """``text`` as a folder name: runs of other characters than ``[A-Za-z0-9._-]`` become ``-``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "model"


def _model2vec_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("model2vec")
    except PackageNotFoundError:
        return "unknown"


def distillation_key(source: str, pca_dims: int | None) -> str:
    """12 hex digits naming one distillation: source, options, model2vec version, model files."""
    stamp: list[Any] = [source, pca_dims, "float32", _model2vec_version()]
    path = Path(source)
    if path.is_dir():
        for candidate in (
            sorted(path.glob("*.safetensors"))
            + sorted(path.glob("pytorch_model.bin"))
            + [path / "tokenizer.json"]
        ):
            if candidate.is_file():
                info = candidate.stat()
                stamp.append((candidate.name, info.st_size, info.st_mtime_ns))
    return hashlib.blake2b(repr(stamp).encode(), digest_size=6).hexdigest()


def _manifest_key(source: str, pca_dims: int | None) -> dict[str, Any]:
    """What the manifest of a distilled folder records it was built from."""
    return {
        "distillation": distillation_key(source, pca_dims),
        "source": source,
        "pca_dims": pca_dims,
        "model2vec": _model2vec_version(),
    }


def free_cpus() -> int:
    """CPUs this process may use minus the load of the others: at least 1.

    The usable CPUs are ``os.sched_getaffinity(0)`` (``os.cpu_count()`` where that does not
    exist); the load is the 1-minute load average, rounded to whole busy CPUs.
    """
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count() or 1
    try:
        busy = round(os.getloadavg()[0])
    except (AttributeError, OSError):  # Windows: no load average
        busy = 0
    return max(1, min(usable, usable - busy))


@contextlib.contextmanager
def _torch_threads(count: int) -> Iterator[None]:
    """Run torch on ``count`` threads, then restore its setting."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def distill_to(source: str, target: Path, pca_dims: int | None) -> None:
    """Distil ``source`` (a model directory or Hub id) with model2vec and save it at ``target``.

    The folder appears whole, with its manifest, or not at all: a concurrent reader or a killed
    run never sees half of it.
    """
    try:
        from model2vec.distill import distill
    except ImportError as error:
        raise ImportError(
            "Distilling static vectors needs model2vec's distill extra: "
            f"pip install 'model2vec[distill]' ({error})."
        ) from None
    with _torch_threads(free_cpus()):
        model = distill(source, pca_dims=pca_dims, quantize_to="float32")
    with atomic_directory(target) as staging:
        model.save_pretrained(str(staging))
        write_manifest(staging, _manifest_key(source, pca_dims))


def distilled_model_dir(
    model: ModelSource, *, cache_dir: str | os.PathLike | None, pca_dims: int | None
) -> Path:
    """The cached model2vec directory distilled from ``model``, distilling it on first use.

    The folder is ``<cache_dir>/<model>-model2vec-<key>`` (``cache_dir`` defaults to
    ``<cache>/vectors``, see :func:`default_cache_dir`); the key changes with the model's files,
    ``pca_dims`` and the model2vec version, so a stale copy is never read. A folder that does
    not match its manifest is discarded (one
    :class:`~sts_extras.integrity.CacheDiscardedWarning`) and distilled again.
    """
    root = (
        Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir() / "vectors"
    )
    source = model.location
    target = root / f"{_slug(model.display)}-model2vec-{distillation_key(source, pca_dims)}"
    if os.path.lexists(target):
        reason = verify_manifest(target, _manifest_key(source, pca_dims))
        if reason is None:
            return target
        discard(target, reason)
    distill_to(source, target, pca_dims)
    return target
