"""DSCS and STSS-131 as Hugging Face ``datasets`` builders, loadable offline.

The one copy of each table is ``sts_extras/data/<name>.csv`` (shipped as package data). Everything
else derives from it: the builders read it, and the Hub-ready folders under ``dataset_scripts/``
(dataset card with YAML front matter + data files, for ``datasets`` 5.x, which refuses loading
scripts) are written by :func:`~sts_extras.integrations.datasets.hub_folder.write_hub_folder` and
checked against it by a test.
The build ships those folders inside the package too (``setup.py`` maps them to
``sts_extras/dataset_folders/``), so :func:`dataset_path` gives plain ``datasets.load_dataset`` a
local folder after ``pip install``, offline::

    import datasets, sts_extras
    datasets.load_dataset(sts_extras.dataset_path("dscs"), split="test")
    datasets.load_dataset(sts_extras.dataset_path("stss131"), "all", split="test")

The ``datasets`` library is imported only when a builder is used (:func:`load_dataset`,
:class:`~sts_extras.datasets.DSCS`, :class:`~sts_extras.datasets.STSS131`, ``BUILDERS``), so
reading the tables stays light.

:func:`load_dataset` checks the prepared Arrow cache against the package table on every load (a
hash of each split in a canonical form; a few milliseconds), so an edited or damaged cache never
changes a result: it is discarded with one :class:`~sts_extras.integrity.CacheDiscardedWarning`
and prepared again.

Examples
--------
>>> from sts_extras.integrations.datasets.loading import load_dataset
>>> ds = load_dataset("stss131", "all")
>>> ds["test"].num_rows, ds["test"].column_names
(66, ['id', 'sentence1', 'sentence2', 'score', 'sd', 'calibration'])
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sts_extras.benchmark_tables import get_spec, read_rows
from sts_extras.errors import CacheError, UserInputTypeError
from sts_extras.integrations.datasets.builders import _READ_ERRORS, _SPLITS, _builders, _first_line
from sts_extras.integrity import discard
from sts_extras.io.content import content_hash
from sts_extras.io.locations import package_root

if TYPE_CHECKING:  # pragma: no cover
    import datasets
    import pyarrow

__all__ = ["DatasetCacheError", "dataset_path", "load_dataset"]


#: Where the build puts the Hub-ready folders inside the package (``setup.py``).
_SHIPPED_FOLDERS = "dataset_folders"


def _folders_root() -> Path:
    """``sts_extras/dataset_folders`` of an install; the repository's ``dataset_scripts/`` in a
    checkout (an editable install imports the source folder, where the build has not run)."""
    package = package_root()
    shipped = package / _SHIPPED_FOLDERS
    if shipped.is_dir():
        return shipped
    checkout = package.parent / "dataset_scripts"
    if (package.parent / "setup.py").is_file() and checkout.is_dir():
        return checkout
    raise RuntimeError(f"{shipped} is missing; reinstall sts-extras.")


def dataset_path(name: str) -> str:
    """The local Hub-style folder of a benchmark, for plain ``datasets.load_dataset``.

    The folder (dataset card with the ``configs`` in its YAML header, and the data files) ships
    inside the package, so ``datasets.load_dataset(dataset_path("dscs"), split="test")`` works
    after ``pip install``, offline and from any directory (``datasets`` 5 refuses loading
    scripts; a data folder needs none). It is the folder a maintainer pushes to the Hub.

    Parameters
    ----------
    name : {"dscs", "stss131"}
        The benchmark ("STSS-131" and "stss_131" are accepted too).

    Returns
    -------
    str
        The folder's absolute path (a ``str``, as ``datasets.load_dataset`` takes). Its
        configurations are those of :func:`load_dataset`: ``"default"``, and for STSS-131
        ``"all"`` (``datasets.load_dataset(path, "all", split="test")``).

    Raises
    ------
    sts_extras.errors.UserInputError
        A ``ValueError`` for an unknown name; the message lists the valid ones.

    Examples
    --------
    >>> import datasets, sts_extras
    >>> datasets.load_dataset(sts_extras.dataset_path("dscs"), split="test").num_rows
    50
    """
    spec = get_spec(name)
    folder = _folders_root() / spec.name
    if not (folder / "README.md").is_file():  # a broken install, not a user error
        raise RuntimeError(f"The dataset card is missing from {folder}; reinstall sts-extras.")
    return str(folder)


class DatasetCacheError(CacheError):
    """The ``datasets`` cache of DSCS or STSS-131 still differs from the package after a rebuild."""


def _table_digest(table: pyarrow.Table) -> str:
    """The content hash (:data:`~sts_extras.io.content.CONTENT_HASH`) of a table in a canonical
    form: each column's name, Arrow type and values as JSON.

    Independent of chunking, buffer layout and schema metadata; floats are written with
    ``repr``, which round-trips, so any changed value changes the digest.
    """
    canonical = [
        [name, str(column.type), column.to_pylist()]
        for name, column in zip(table.column_names, table.columns)
    ]
    return content_hash(json.dumps(canonical))


def _rows_digest(name: str, config_name: str, features: datasets.Features) -> str:
    """:func:`_table_digest` of the package rows of a configuration, typed by ``features``."""
    import pyarrow

    rows = [features.encode_example(row) for row in read_rows(name, config_name)]
    return _table_digest(pyarrow.Table.from_pylist(rows, schema=features.arrow_schema))


@cache
def _packaged_digest(name: str, config_name: str) -> str:
    """:func:`_rows_digest` with the configuration's own features, computed once per process."""
    return _rows_digest(name, config_name, get_spec(name).features(config_name))


def _splits_problem(
    prepared: datasets.DatasetDict, expected: str, source: str, folder: str
) -> str | None:
    """Why the ``DatasetDict`` read from ``folder`` is not the package table, or None."""
    for split in _SPLITS:
        if split not in prepared:
            return f"{folder} has no {split!r} split"
        if _table_digest(prepared[split].data.table) != expected:
            return f"the {split!r} split in {folder} differs from the packaged {source}"
    return None


# `datasets.load_dataset` keywords that pick the data itself: ours ships inside the package
_FIXED_SOURCE_KEYWORDS = ("data_dir", "data_files", "revision", "token")


def load_dataset(
    name: str,
    config: str | None = None,
    *,
    split: str | datasets.Split | list[str] | None = None,
    streaming: bool = False,
    cache_dir: str | None = None,
    features: datasets.Features | None = None,
    download_config: datasets.DownloadConfig | None = None,
    download_mode: datasets.DownloadMode | str | None = None,
    verification_mode: datasets.VerificationMode | str | None = None,
    keep_in_memory: bool | None = None,
    num_proc: int | None = None,
    storage_options: dict[str, Any] | None = None,  # fsspec's options, of any type
    **builder_kwargs: Any,  # forwarded to the builder
) -> (
    datasets.DatasetDict
    | datasets.Dataset
    | datasets.IterableDatasetDict
    | datasets.IterableDataset
):
    """Load DSCS or STSS-131 through its builder, offline, like ``datasets.load_dataset``.

    The first call prepares the Arrow cache (``download_and_prepare``); later calls reuse it. The
    keywords are those of ``datasets.load_dataset`` and mean the same.

    Parameters
    ----------
    name : {"dscs", "stss131"}
        The benchmark ("STSS-131" and "stss_131" are accepted too).
    config : str, optional
        ``None``/``"default"``; for STSS-131 also ``"all"`` (adds the calibration pairs).
    split : str, optional
        ``"test"`` (the one split), or a slice such as ``"test[:10]"``; None returns the
        ``DatasetDict``.
    streaming : bool
        Return an ``IterableDataset`` (``IterableDatasetDict`` without ``split``), read lazily.
    cache_dir, features, download_config, download_mode, verification_mode, keep_in_memory, \
num_proc, storage_options
        As in ``datasets.load_dataset``.
    **builder_kwargs
        Passed to the builder (``datasets.load_dataset``'s ``**config_kwargs``).

    Returns
    -------
    datasets.DatasetDict or datasets.Dataset or datasets.IterableDatasetDict or \
datasets.IterableDataset
        As ``datasets.load_dataset`` returns for the same ``split`` and ``streaming``.

    Raises
    ------
    sts_extras.errors.UserInputError
        A ``ValueError``: for an unknown dataset or config name (the message lists the valid ones).
    sts_extras.errors.UserInputTypeError
        A ``TypeError``: for ``data_dir``, ``data_files``, ``revision`` or ``token``, which choose
        another source (the tables ship inside the package).
    DatasetCacheError
        If the prepared cache still differs from the package table after it was rebuilt.

    Warns
    -----
    sts_extras.integrity.CacheDiscardedWarning
        When the prepared cache (Arrow files, ``dataset_info.json``) is unreadable or holds other
        rows than the package table: it is removed and prepared again (``force_redownload``).

    Notes
    -----
    Every split of the prepared cache is checked on each (non-streaming) load, whatever
    ``split`` selects: its canonical hash must equal that of the package rows typed by
    ``features``. Streaming reads the package table directly, not the Arrow cache.

    Examples
    --------
    >>> import sts_extras  # re-exports this function as sts_extras.load_dataset
    >>> sts_extras.load_dataset("dscs")["test"].num_rows
    50
    >>> sts_extras.load_dataset("dscs", split="test[:3]")["id"][:]
    [1, 2, 3]
    >>> next(iter(sts_extras.load_dataset("stss131", "all", split="test", streaming=True)))["id"]
    66
    """
    import datasets
    from datasets.utils.info_utils import is_small_dataset

    fixed = sorted(set(builder_kwargs) & set(_FIXED_SOURCE_KEYWORDS))
    if fixed:
        raise UserInputTypeError(
            f"load_dataset() does not take {', '.join(fixed)}: the {name!r} table ships inside "
            "sts-extras (use datasets.load_dataset for other sources)."
        )
    spec = get_spec(name)
    config_name = spec.config(config).name

    def prepared(mode: datasets.DownloadMode | None) -> datasets.DatasetBuilder:
        builder = _builders()[spec.name](
            config_name=config_name,
            cache_dir=cache_dir,
            features=features,
            storage_options=storage_options,
            **builder_kwargs,
        )
        if mode is not None:
            builder.download_and_prepare(
                download_config=download_config,
                download_mode=mode,
                verification_mode=verification_mode,
                num_proc=num_proc,
                storage_options=storage_options,
            )
        return builder

    if streaming:  # reads the package table itself, not the Arrow cache
        return prepared(None).as_streaming_dataset(split=split)
    expected = (
        _packaged_digest(spec.name, config_name)
        if features is None
        else _rows_digest(spec.name, config_name, features)
    )

    def checked(
        builder: datasets.DatasetBuilder,
    ) -> tuple[datasets.DatasetDict | datasets.Dataset | None, str | None]:
        """What ``as_dataset`` returns, or None and why the cache cannot be used."""
        try:
            in_memory = (
                is_small_dataset(builder.info.dataset_size)  # datasets' own default
                if keep_in_memory is None
                else keep_in_memory
            )
            # every split is checked, whatever `split` selects: a slice needs the whole split
            whole = builder.as_dataset(in_memory=in_memory and split is None)
            problem = _splits_problem(whole, expected, spec.data_file, builder.cache_dir)
        except _READ_ERRORS as error:
            return None, f"{builder.cache_dir} is unreadable ({_first_line(error)})"
        if problem:
            return None, problem
        # outside the `try`: an unknown split name is the caller's error, as in `datasets`
        return (whole if split is None else builder.as_dataset(split, in_memory=in_memory)), None

    builder = prepared(datasets.DownloadMode(download_mode or "reuse_dataset_if_exists"))
    loaded, problem = checked(builder)
    if problem is not None:
        discard(Path(builder.cache_dir), problem)
        builder = prepared(datasets.DownloadMode.FORCE_REDOWNLOAD)
        loaded, problem = checked(builder)
        if problem is not None:
            raise DatasetCacheError(
                f"The datasets cache of {spec.name!r} is still wrong after a rebuild: {problem}. "
                f"Remove {builder.cache_dir} and run again."
            )
    return loaded
