"""The on-disk cache of static vectors distilled with model2vec from sentence-transformers models.

Distilling runs every vocabulary token through the transformer once, so the result is kept under
the sts-extras cache and found again by a key of the full content of the model's files (never
their path) and the options. The folder is
written whole or not at all (:func:`sts_extras.integrity.atomic_directory`) with a manifest of
that key and of every file's size and hash; it is checked before each use, and a folder that fails
(a changed, truncated or missing file, a missing manifest) is discarded with one
:class:`~sts_extras.integrity.CacheDiscardedWarning` and distilled again. model2vec is imported
only when a model is distilled.

model2vec builds the static tokenizer, post-processes (PCA, SIF weighting) and saves; the one
slow step, a forward pass of the transformer per vocabulary token, is done by
:func:`sts_extras.vectors.distill_inference.encode_vocabulary` (large batches of equal-length
sequences under ``torch.inference_mode``; model2vec's vectors to 1e-6, bit for bit on
all-MiniLM-L6-v2) in place of model2vec's ``create_embeddings``, which runs batches of 256 built
one tensor per token. Distillation runs on the CPU.

Distillation runs torch on as many threads as there are free CPUs (:func:`free_cpus`): on a
machine where another process keeps a core busy, torch's threads would otherwise wait for each
other, and two threads on one free core run slower than one.

The progress bar over the vocabulary says what it is for ("distilling static vectors from MODEL
(once per machine)"), and is hidden with the other libraries' bars under
:func:`sts_extras.progress.library_bars` ``(False)`` (``--no-progress``); model2vec's own bar,
when its step runs, is relabelled the same way.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from sts_extras.errors import UserInputError
from sts_extras.integrity import atomic_directory, discard, verify_manifest, write_manifest
from sts_extras.io.content import content_hash
from sts_extras.io.locations import default_cache_dir
from sts_extras.io.model_sources import ModelSource, snapshot_dir, source_identity
from sts_extras.progress import library_bars_shown, progress_bar
from sts_extras.vectors.distill_inference import TOKENS_PER_BATCH

__all__ = [
    "default_cache_dir",
    "distill_to",
    "distillation_description",
    "distillation_key",
    "distillation_name",
    "distilled_model_dir",
    "free_cpus",
]


# files of a Hub model that neither transformers nor model2vec read
_OTHER_FORMATS = ["onnx/*", "openvino/*", "*.onnx", "*.h5", "*.msgpack", "*.ot", "tf_model*"]


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


def _files(model: ModelSource) -> tuple[str, str]:
    """(the model's content identity, what to hand to model2vec) for ``model``.

    A Hub model is distilled from its local snapshot (exactly the files its commit names); one
    not downloaded yet is fetched first (without its ONNX, OpenVINO, TensorFlow, Flax and Rust
    copies), so that it has an identity before it is distilled.
    """
    identity = source_identity(model)
    if identity is None:  # a Hub model not in the local cache (online: resolve checked the Hub)
        import huggingface_hub

        huggingface_hub.snapshot_download(model.name, ignore_patterns=_OTHER_FORMATS)
        identity = source_identity(model)
        if identity is None:
            raise UserInputError(f"{model.name}: its files could not be downloaded.")
    local = model.local if model.local is not None else snapshot_dir(model.name)
    return identity, str(local) if local is not None else model.name


def distillation_key(identity: str, pca_dims: int | None) -> dict[str, str | int | None]:
    """What one distillation is made of: the model's content identity, options, and the code
    whose arithmetic made the vectors.

    The saved bytes depend on the kernels that ran, not only on the model and the options:
    model2vec's own encoding step and :func:`~sts_extras.vectors.distill_inference.
    encode_vocabulary` agree to 1e-6 but can differ in the last bit of a row (matrix products
    over a few rows take another path than over thousands), and model2vec's PCA carries such a
    bit into the saved vectors. So the key names the encoder and its batch size, and the
    versions of model2vec, torch and transformers: a folder written by other code is never read
    as this code's. Distillation always runs on the CPU (:func:`distill_to`), so the key holds
    for every machine.

    Parameters
    ----------
    identity : str
        The model's :func:`~sts_extras.io.model_sources.source_identity` (never a path: the same
        files installed in two environments make one distillation).
    pca_dims : int or None
        model2vec's PCA dimension.
    """
    return {
        "model": identity,
        "pca_dims": pca_dims,
        "dtype": "float32",
        "encoder": f"sts_extras encode_vocabulary, {TOKENS_PER_BATCH} tokens a pass, CPU",
        "model2vec": _version("model2vec"),
        "torch": _version("torch"),
        "transformers": _version("transformers"),
    }


def distillation_name(key: Mapping[str, object]) -> str:
    """The cache folder of a distillation: ``model2vec-<its key's content hash, 32 hex digits>``
    (:data:`~sts_extras.io.content.CONTENT_HASH`)."""
    return f"model2vec-{content_hash(json.dumps(key, sort_keys=True))}"


#: Seconds over which :func:`free_cpus` watches what the other processes use.
_WATCH_SECONDS = 0.25


def _machine_busy_seconds() -> float:
    """CPU seconds the machine spent busy since boot: every state of ``/proc/stat``'s ``cpu``
    line but idle and I/O wait (Python's standard library has no call for it)."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = [int(value) for value in stat.readline().split()[1:9]]
    idle = fields[3] + fields[4]
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def _own_busy_seconds() -> float:
    """CPU seconds this process has used (user and system)."""
    times = os.times()
    return times.user + times.system


def _cpus_busy_elsewhere(window: float = _WATCH_SECONDS) -> float | None:
    """CPUs the other processes kept busy during ``window`` seconds, or None off Linux: the
    machine's busy time minus this process's own, per second of the window."""
    try:
        start = (time.monotonic(), _machine_busy_seconds(), _own_busy_seconds())
        time.sleep(window)
        end = (time.monotonic(), _machine_busy_seconds(), _own_busy_seconds())
    except (OSError, ValueError, IndexError):  # no /proc (not Linux), or another layout
        return None
    elapsed = max(end[0] - start[0], 1e-9)
    return max(0.0, ((end[1] - start[1]) - (end[2] - start[2])) / elapsed)


def free_cpus() -> int:
    """CPUs this process may use minus those the other processes keep busy: at least 1.

    The usable CPUs are ``os.sched_getaffinity(0)`` (``os.cpu_count()`` where that does not
    exist). The busy ones are measured over a quarter of a second (:func:`_cpus_busy_elsewhere`)
    and rounded; where that cannot be measured, the 1-minute load average stands in. The load
    average counts this process too (after a minute of its own work on two threads it reads
    1-2 on an otherwise idle 2-core machine, and a distillation that followed would run on one
    thread of two) and lags a minute behind the others.
    """
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count() or 1
    busy = _cpus_busy_elsewhere()
    if busy is None:
        try:
            busy = os.getloadavg()[0]
        except (AttributeError, OSError):  # Windows: no load average
            busy = 0.0
    return max(1, min(usable, usable - round(busy)))


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


def distillation_description(source: str) -> str:
    """What the distillation bar says: ``"distilling static vectors from <source> (once per
    machine)"``."""
    return f"distilling static vectors from {source} (once per machine)"


@contextlib.contextmanager
def _replacing(
    module: str, name: str, replacement: Callable[[Callable[..., object]], Callable[..., object]]
) -> Iterator[None]:
    """Within the block, ``module.name`` is ``replacement(original)``; restored after.

    model2vec offers no argument for what is replaced here (its bar's label, its encoding step),
    only module-level names its ``distill`` looks up at call time. If a model2vec release has no
    such module or name, it is left alone and model2vec does what it does itself.
    """
    try:
        target = importlib.import_module(module)
    except ImportError:
        yield
        return
    original = getattr(target, name, None)
    if original is None:
        yield
        return
    setattr(target, name, replacement(original))
    try:
        yield
    finally:
        setattr(target, name, original)


def _distillation_bar(source: str) -> contextlib.AbstractContextManager[None]:
    """Relabel model2vec's bar over the vocabulary, or hide it (:func:`library_bars_shown`).

    model2vec has no progress switch and no description argument: its ``distill`` draws
    ``tqdm(..., desc="Encoding tokens")`` through the name ``tqdm`` of
    ``model2vec.distill.inference``, which is replaced for the block by a tqdm with our label
    (and ``disable=True`` when bars are hidden). If a model2vec release moves that name, its bar
    shows as model2vec draws it (``tests/test_cli_progress.py`` would then fail).
    """
    hidden = not library_bars_shown()
    description = distillation_description(source)

    def relabel(original: Callable[..., object]) -> Callable[..., object]:
        def relabelled(*args: object, **kwargs: object) -> object:
            kwargs["desc"] = description
            if hidden:
                kwargs["disable"] = True
            return original(*args, **kwargs)

        return relabelled

    return _replacing("model2vec.distill.inference", "tqdm", relabel)


def _vocabulary_encoder(source: str) -> contextlib.AbstractContextManager[None]:
    """Have model2vec's ``distill`` encode the vocabulary with our encoder.

    The encoder is :func:`~sts_extras.vectors.distill_inference.encode_vocabulary`. model2vec has
    no argument for its encoding step: ``distill_from_model`` calls the name
    ``create_embeddings`` of ``model2vec.distill.distillation``, which is replaced for the block
    by one with the same parameters that runs ours on the CPU with MEAN pooling (what
    :func:`distill_to` asks for) and model2vec's own otherwise. If a model2vec release moves that
    name, its own step runs (vectors equal to 1e-6, more slowly); the model2vec version in
    :func:`distillation_key` then keeps its folders apart.
    """

    def ours_on_the_cpu(original: Callable[..., object]) -> Callable[..., object]:
        from sts_extras.vectors.distill_inference import encode_vocabulary

        def create_embeddings(
            model: Any,  # a transformers PreTrainedModel, whose stubs mistype its .to()
            tokenized: list[list[int]],
            device: str,
            pad_token_id: int,
            pooling: object = "mean",  # model2vec's PoolingMode (a str enum) or a str
        ) -> object:
            if str(device) != "cpu" or str(getattr(pooling, "value", pooling)) != "mean":
                return original(model, tokenized, device, pad_token_id, pooling)
            described = distillation_description(source)
            with progress_bar(
                len(tokenized), described, unit=" tokens", enabled=library_bars_shown()
            ) as bar:
                return encode_vocabulary(model.to("cpu"), tokenized, bar=bar)

        return create_embeddings

    return _replacing("model2vec.distill.distillation", "create_embeddings", ours_on_the_cpu)


def distill_to(
    source: str,
    target: Path,
    pca_dims: int | None,
    *,
    key: Mapping[str, object],
    label: str | None = None,
) -> None:
    """Distil ``source`` (a model directory or Hub id) with model2vec and save it at ``target``.

    Always on the CPU (model2vec would pick a GPU when there is one), so that the vectors are
    those :func:`distillation_key` names on every machine. The folder appears whole, with its
    manifest (holding ``key``, see :func:`distillation_key`), or not at all: a concurrent reader
    or a killed run never sees half of it. ``label`` names the model in the progress bar
    (default ``source``).
    """
    try:
        from model2vec.distill import distill
    except ImportError as error:
        raise ImportError(
            "Distilling static vectors needs model2vec's distill extra: "
            f"pip install 'model2vec[distill]' ({error})."
        ) from None
    shown = label or source
    with _torch_threads(free_cpus()), _distillation_bar(shown), _vocabulary_encoder(shown):
        model = distill(source, device="cpu", pca_dims=pca_dims, quantize_to="float32")
    with atomic_directory(target) as staging:
        model.save_pretrained(str(staging))
        write_manifest(staging, key)


def distilled_model_dir(
    model: ModelSource, *, cache_dir: str | os.PathLike | None, pca_dims: int | None
) -> Path:
    """The cached model2vec directory distilled from ``model``, distilling it on first use.

    The folder is ``<cache_dir>/model2vec-<key>`` (``cache_dir`` defaults to ``<cache>/vectors``,
    see :func:`default_cache_dir`), where the key is the content hash of
    :func:`distillation_key`: the full content of the model's files (never their path: every
    virtual environment that installs the same model shares one distillation), ``pca_dims`` and
    the code that ran. A changed
    byte of the model makes a new key, so a stale copy is never read. A folder that does not
    match its manifest (which holds the whole key) is discarded (one
    :class:`~sts_extras.integrity.CacheDiscardedWarning`) and distilled again.
    """
    root = (
        Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir() / "vectors"
    )
    identity, source = _files(model)
    key = distillation_key(identity, pca_dims)
    target = root / distillation_name(key)
    if os.path.lexists(target):
        reason = verify_manifest(target, key)
        if reason is None:
            return target
        discard(target, reason)
    distill_to(source, target, pca_dims, key=key, label=model.display)
    return target
