"""DSCS and STSS-131 as Hugging Face ``datasets`` builders, loadable offline.

The one copy of each table is ``sts_extras/data/<name>.csv`` (shipped as package data). Everything
else derives from it: the builders below read it, and the Hub-ready folders under
``dataset_scripts/`` (dataset card with YAML front matter + data files, for ``datasets`` 5.x, which
refuses loading scripts) are written by :func:`write_hub_folder` and checked against it by a test.
The build ships those folders inside the package too (``setup.py`` maps them to
``sts_extras/dataset_folders/``), so :func:`dataset_path` gives plain ``datasets.load_dataset`` a
local folder after ``pip install``, offline::

    import datasets, sts_extras
    datasets.load_dataset(sts_extras.dataset_path("dscs"), split="test")
    datasets.load_dataset(sts_extras.dataset_path("stss131"), "all", split="test")

The ``datasets`` library is imported only when a builder is used (:func:`load_dataset`,
:class:`DSCS`, :class:`STSS131`, ``BUILDERS``), so reading the tables stays light.

:func:`load_dataset` checks the prepared Arrow cache against the package table on every load (a
hash of each split in a canonical form; a few milliseconds), so an edited or damaged cache never
changes a result: it is discarded with one :class:`~sts_extras.integrity.CacheDiscardedWarning`
and prepared again.

Examples
--------
>>> from sts_extras.datasets import load_dataset
>>> ds = load_dataset("stss131", "all")
>>> ds["test"].num_rows, ds["test"].column_names
(66, ['id', 'sentence1', 'sentence2', 'score', 'sd', 'calibration'])
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sts_extras.errors import CacheError, UserInputError, UserInputTypeError
from sts_extras.integrity import discard

if TYPE_CHECKING:  # pragma: no cover
    import datasets
    import pyarrow

__all__ = [
    "DATASETS",
    "DSCS",
    "STSS131",
    "DatasetCacheError",
    "dataset_path",
    "DatasetSpec",
    "hub_folder_files",
    "load_dataset",
    "read_rows",
    "write_hub_folder",
]

_COLUMN_TYPES = {
    "id": "int32",
    "sentence1": "string",
    "sentence2": "string",
    "score": "float64",
    "sd": "float64",
    "calibration": "bool",
}
_CONVERTERS: dict[str, Callable[[str], Any]] = {
    "int32": int,
    "string": str,
    "float64": float,
    "bool": lambda text: {"True": True, "False": False}[text],
}


@dataclass(frozen=True)
class ConfigSpec:
    """One configuration of a dataset: which columns, and whether calibration pairs are kept."""

    name: str
    description: str
    columns: tuple[str, ...]
    keep_calibration: bool = True


@dataclass(frozen=True)
class DatasetSpec:
    """Everything known about one benchmark: the single source for builder, card and MTEB task."""

    name: str
    pretty_name: str
    data_file: str
    description: str
    citation: str
    homepage: str
    license_note: str
    score_range: tuple[float, float]
    annotation: str
    configs: tuple[ConfigSpec, ...] = field(default=())
    # Hub card vocabulary (datasets' creators.json): who wrote the texts, who rated the pairs
    language_creators: tuple[str, ...] = ("other",)
    annotations_creators: tuple[str, ...] = ("other",)

    def config(self, config_name: str | None) -> ConfigSpec:
        """Return the named configuration (None = the first, the default)."""
        if config_name is None:
            return self.configs[0]
        for config in self.configs:
            if config.name == config_name:
                return config
        valid = ", ".join(repr(config.name) for config in self.configs)
        raise UserInputError(
            f"Unknown config {config_name!r} for dataset {self.name!r}; valid configs: {valid}."
        )

    def features(self, config_name: str | None = None) -> datasets.Features:
        """The ``datasets.Features`` of a configuration."""
        import datasets

        return datasets.Features(
            {
                column: datasets.Value(_COLUMN_TYPES[column])
                for column in self.config(config_name).columns
            }
        )


_PAIR_COLUMNS = ("id", "sentence1", "sentence2", "score")

DSCS_SPEC = DatasetSpec(
    name="dscs",
    pretty_name="DSCS: Domain-Specific Complex Sentences",
    data_file="dscs.csv",
    description=(
        "Domain-Specific Complex Sentences (DSCS): 50 pairs of computer-science definitions "
        "(Wikipedia, Simple Wikipedia, Merriam-Webster), each rated for semantic similarity "
        "on a 0-5 scale by 15 annotators (5 graduate students, 10 Mechanical Turk workers); the "
        "score is the weighted average of the ratings (Eq. 2-3 of the paper). The sentences are "
        "longer and harder to read than those of STS-B and SICK (Sec. 4.2). Transcribed from "
        "Table 5 (Appendix A) of Chandrasekaran & Mago (2020), sentences and scores as printed."
    ),
    citation=(
        "@article{chandrasekaran2020dscs,\n"
        "  title   = {Domain Specific Complex Sentence (DCSC) Semantic Similarity Dataset},\n"
        "  author  = {Chandrasekaran, Dhivya and Mago, Vijay},\n"
        "  journal = {arXiv preprint arXiv:2010.12637},\n"
        "  year    = {2020}\n"
        "}"
    ),
    homepage="https://arxiv.org/abs/2010.12637",
    license_note=(
        "The paper states no license for the dataset. The table is redistributed here for "
        "research evaluation with attribution; check with the authors before other uses."
    ),
    score_range=(0.0, 5.0),
    annotation="expert-annotated (graduate students) and crowdsourced (Mechanical Turk)",
    language_creators=("found",),  # definitions from Wikipedia and Merriam-Webster
    annotations_creators=("expert-generated", "crowdsourced"),
    configs=(ConfigSpec("default", "All 50 pairs.", _PAIR_COLUMNS),),
)

STSS131_SPEC = DatasetSpec(
    name="stss131",
    pretty_name="STSS-131: Short Text Semantic Similarity benchmark",
    data_file="stss131.csv",
    description=(
        "STSS-131 (O'Shea, Bandar & Crockett, 2013): 64 pairs of conversational short texts "
        "(SP66-SP131 without the calibration pairs), built from grammar, dialogue-act and "
        "cognitive-science resources for conversational agents. `score` is the mean human "
        "rating on a 0.00-4.00 scale and `sd` its standard deviation. Transcribed from Table 1 "
        "of the authors' report with the errata of the born-digital report applied (SP85, "
        "SP115, SP116, SP121-SP124, SP126, SP130, SP131). The `all` configuration adds the "
        "two calibration pairs borrowed from STSS-65 (SP99, SP129), flagged by `calibration`; "
        "the authors say they must not be used in calculations."
    ),
    citation=(
        "@article{oshea2013stss131,\n"
        "  title   = {A New Benchmark Dataset with Production Methodology for Short Text "
        "Semantic Similarity Algorithms},\n"
        "  author  = {O'Shea, James and Bandar, Zuhair and Crockett, Keeley},\n"
        "  journal = {ACM Transactions on Speech and Language Processing},\n"
        "  volume  = {10},\n"
        "  number  = {4},\n"
        "  pages   = {19:1--19:63},\n"
        "  year    = {2013},\n"
        "  doi     = {10.1145/2537046}\n"
        "}"
    ),
    homepage="https://doi.org/10.1145/2537046",
    license_note=(
        "The report states no license for the dataset. The table is redistributed here for "
        "research evaluation with attribution (the authors ask to cite the ACM TSLP paper); "
        "check with the authors before other uses."
    ),
    score_range=(0.0, 4.0),
    annotation=(
        "human-annotated: `score` is the mean and `sd` the standard deviation of the ratings "
        "a panel of participants gave in controlled trials (see the paper for the procedure)"
    ),
    language_creators=("expert-generated",),  # written by the authors from dialogue resources
    annotations_creators=("other",),  # participants rating in controlled trials, not a platform
    configs=(
        ConfigSpec(
            "default",
            "The 64 usable pairs (calibration pairs SP99 and SP129 removed).",
            (*_PAIR_COLUMNS, "sd"),
            keep_calibration=False,
        ),
        ConfigSpec(
            "all",
            "All 66 pairs, with the calibration pairs SP99 and SP129 flagged in `calibration`.",
            (*_PAIR_COLUMNS, "sd", "calibration"),
        ),
    ),
)

DATASETS: dict[str, DatasetSpec] = {spec.name: spec for spec in (DSCS_SPEC, STSS131_SPEC)}


def get_spec(name: str) -> DatasetSpec:
    """Return the :class:`DatasetSpec` of ``name``; :class:`UserInputError` lists the valid ones."""
    key = name.lower().replace("-", "").replace("_", "") if isinstance(name, str) else name
    if key not in DATASETS:
        valid = ", ".join(repr(known) for known in DATASETS)
        raise UserInputError(f"Unknown dataset {name!r}; valid names: {valid}.")
    return DATASETS[key]


#: Where the build puts the Hub-ready folders inside the package (``setup.py``).
_SHIPPED_FOLDERS = "dataset_folders"


def _folders_root() -> Path:
    """``sts_extras/dataset_folders`` of an install; the repository's ``dataset_scripts/`` in a
    checkout (an editable install imports the source folder, where the build has not run)."""
    package = Path(__file__).resolve().parent
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


def _data_bytes(spec: DatasetSpec) -> bytes:
    return resources.files("sts_extras").joinpath("data", spec.data_file).read_bytes()


@cache
def _table(name: str) -> tuple[dict[str, Any], ...]:
    spec = get_spec(name)
    reader = csv.DictReader(io.StringIO(_data_bytes(spec).decode("utf-8")))
    rows = []
    for line_number, raw in enumerate(reader, start=2):
        try:
            rows.append(
                {column: _CONVERTERS[_COLUMN_TYPES[column]](text) for column, text in raw.items()}
            )
        except (KeyError, ValueError) as error:  # a corrupted package data file
            raise ValueError(
                f"{spec.data_file} line {line_number}: cannot parse {raw!r} ({error})."
            ) from None
    return tuple(rows)


def read_rows(name: str, config_name: str | None = None) -> list[dict[str, Any]]:
    """Return the rows of a dataset configuration as typed dicts, straight from the package data.

    Parameters
    ----------
    name : {"dscs", "stss131"}
        The dataset.
    config_name : str, optional
        The configuration; None selects the default one.
    """
    spec = get_spec(name)
    config = spec.config(config_name)
    return [
        {column: row[column] for column in config.columns}
        for row in _table(spec.name)
        if config.keep_calibration or not row.get("calibration", False)
    ]


# --------------------------------------------------------------------------------------------
# Builders. They subclass `datasets.GeneratorBasedBuilder`, so they are made on first use
# (module `__getattr__` below): reading the tables and `sts-extras --help` never import `datasets`.

_BUILDER_ATTRIBUTES = {"DSCS": "dscs", "STSS131": "stss131"}
# Declared for type checkers and `__all__` only; the values come from `__getattr__`.
DSCS: type[datasets.GeneratorBasedBuilder]
STSS131: type[datasets.GeneratorBasedBuilder]
BUILDERS: dict[str, type[datasets.GeneratorBasedBuilder]]


@cache
def _builders() -> dict[str, type[datasets.GeneratorBasedBuilder]]:
    """``{dataset name: builder class}``, made once so that each class keeps one identity."""
    import datasets

    class PackagedSTSBuilder(datasets.GeneratorBasedBuilder):
        """A builder whose data is the CSV shipped inside the package (no download)."""

        SPEC: DatasetSpec
        VERSION = datasets.Version("1.0.0")

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            # `datasets` names a builder after its module, which both builders share: name it
            # explicitly, and hash the data so an edited table never reuses a stale cache.
            kwargs.setdefault("dataset_name", self.SPEC.name)
            kwargs.setdefault("hash", hashlib.sha256(_data_bytes(self.SPEC)).hexdigest()[:16])
            try:
                super().__init__(*args, **kwargs)
            except _READ_ERRORS as error:
                # `datasets` reads the cached dataset_info.json here; the folder is known by now
                folder = getattr(self, "cache_dir", None)
                if folder is None or not Path(folder).is_dir():
                    raise
                discard(Path(folder), f"{folder} is unreadable ({_first_line(error)})")
                super().__init__(*args, **kwargs)

        def _info(self) -> datasets.DatasetInfo:
            config = self.SPEC.config(self.config.name)
            return datasets.DatasetInfo(
                description=f"{self.SPEC.description}\n\nConfig {config.name!r}: "
                f"{config.description}",
                features=self.SPEC.features(config.name),
                citation=self.SPEC.citation,
                homepage=self.SPEC.homepage,
                license=self.SPEC.license_note,
            )

        def _split_generators(self, dl_manager: Any) -> list[datasets.SplitGenerator]:
            return [datasets.SplitGenerator(name=name) for name in _SPLITS]

        def _generate_examples(self):
            for row in read_rows(self.SPEC.name, self.config.name):
                yield row["id"], row

    def builder_configs(spec: DatasetSpec) -> list[datasets.BuilderConfig]:
        return [
            datasets.BuilderConfig(
                name=config.name, version=datasets.Version("1.0.0"), description=config.description
            )
            for config in spec.configs
        ]

    # `__qualname__` as if defined at module level: repr and pickle name sts_extras.datasets.DSCS
    class DSCS(PackagedSTSBuilder):
        """DSCS (Chandrasekaran & Mago, 2020): 50 domain-specific complex sentence pairs, 0-5."""

        __qualname__ = "DSCS"
        SPEC = DSCS_SPEC
        BUILDER_CONFIGS = builder_configs(DSCS_SPEC)
        DEFAULT_CONFIG_NAME = "default"

    class STSS131(PackagedSTSBuilder):
        """STSS-131 (O'Shea, Bandar & Crockett, 2013): 64 usable short-text pairs, scores 0-4.

        Configs: ``default`` (64 pairs, with ``sd``) and ``all`` (66 pairs, plus ``calibration``).
        """

        __qualname__ = "STSS131"
        SPEC = STSS131_SPEC
        BUILDER_CONFIGS = builder_configs(STSS131_SPEC)
        DEFAULT_CONFIG_NAME = "default"

    return {"dscs": DSCS, "stss131": STSS131}


def __getattr__(name: str) -> Any:
    """``DSCS``, ``STSS131`` (the builder classes) and ``BUILDERS`` (name -> class), on demand."""
    if name == "BUILDERS":
        return _builders()
    if name in _BUILDER_ATTRIBUTES:
        return _builders()[_BUILDER_ATTRIBUTES[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The splits every builder prepares (the papers publish one test set each).
_SPLITS = ("test",)
# What reading a damaged cache raises: OSError and ValueError cover pyarrow's ArrowIOError and
# ArrowInvalid, json's JSONDecodeError and datasets' feature mismatches.
_READ_ERRORS = (OSError, ValueError, KeyError, TypeError)


class DatasetCacheError(CacheError):
    """The ``datasets`` cache of DSCS or STSS-131 still differs from the package after a rebuild."""


def _first_line(error: BaseException) -> str:
    """``"<type>: <first line of the message>"``: some errors span a screen."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


def _table_digest(table: pyarrow.Table) -> str:
    """BLAKE2b of a table in a canonical form: each column's name, Arrow type and values as JSON.

    Independent of chunking, buffer layout and schema metadata; floats are written with
    ``repr``, which round-trips, so any changed value changes the digest.
    """
    canonical = [
        [name, str(column.type), column.to_pylist()]
        for name, column in zip(table.column_names, table.columns)
    ]
    return hashlib.blake2b(json.dumps(canonical).encode("utf-8"), digest_size=16).hexdigest()


def _rows_digest(name: str, config_name: str, features: datasets.Features) -> str:
    """:func:`_table_digest` of the package rows of a configuration, typed by ``features``."""
    import pyarrow

    rows = [features.encode_example(row) for row in read_rows(name, config_name)]
    return _table_digest(pyarrow.Table.from_pylist(rows, schema=features.arrow_schema))


@cache
def _packaged_digest(name: str, config_name: str) -> str:
    """:func:`_rows_digest` with the configuration's own features, computed once per process."""
    return _rows_digest(name, config_name, get_spec(name).features(config_name))


def _splits_problem(prepared: Any, expected: str, source: str, folder: str) -> str | None:
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
    storage_options: dict[str, Any] | None = None,
    **builder_kwargs: Any,
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

    def checked(builder: datasets.DatasetBuilder) -> tuple[Any, str | None]:
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


# --------------------------------------------------------------------------------------------
# Hub-ready folders (dataset card + data files), derived from the package table.


def _csv_text(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(
            f"{row[c]:.2f}" if _COLUMN_TYPES[c] == "float64" else row[c] for c in columns
        )
    return buffer.getvalue()


def _hub_data_path(spec: DatasetSpec, config: ConfigSpec) -> str:
    return "data/test.csv" if len(spec.configs) == 1 else f"data/{config.name}/test.csv"


def _card(spec: DatasetSpec) -> str:
    import yaml

    front_matter = {
        "pretty_name": spec.pretty_name,
        "language": ["en"],
        # the papers state no license: "other" with the note, linking to the paper
        "license": "other",
        "license_name": "unspecified",
        "license_link": spec.homepage,
        "license_details": spec.license_note,
        "annotations_creators": list(spec.annotations_creators),
        "language_creators": list(spec.language_creators),
        "multilinguality": ["monolingual"],
        "source_datasets": ["original"],
        "task_categories": ["sentence-similarity"],
        "task_ids": ["semantic-similarity-scoring"],
        "size_categories": ["n<1K"],
        "tags": ["sts", "semantic-textual-similarity", "benchmark"],
        "configs": [
            {
                "config_name": config.name,
                "data_files": [{"split": "test", "path": _hub_data_path(spec, config)}],
                **({"default": True} if index == 0 else {}),
            }
            for index, config in enumerate(spec.configs)
        ],
        "dataset_info": [
            {
                "config_name": config.name,
                "features": [{"name": c, "dtype": _COLUMN_TYPES[c]} for c in config.columns],
            }
            for config in spec.configs
        ],
    }
    yaml_text = yaml.safe_dump(front_matter, sort_keys=False, allow_unicode=True, width=100)
    config_lines = "\n".join(
        f"- `{config.name}` ({len(read_rows(spec.name, config.name))} pairs): {config.description}"
        for config in spec.configs
    )
    low, high = spec.score_range
    column_docs = {
        "id": "the pair number used in the paper",
        "sentence1": "the first text, as printed",
        "sentence2": "the second text, as printed",
        "score": f"the gold similarity, from {low:g} (unrelated) to {high:g} (same meaning)",
        "sd": "standard deviation of the human ratings",
        "calibration": "true for the calibration pairs; exclude them from evaluation",
    }
    column_lines = "\n".join(
        f"- `{column}` ({_COLUMN_TYPES[column]}): {column_docs[column]}."
        for column in spec.configs[-1].columns
    )
    usage = "\n".join(
        f'load_dataset("dataset_scripts/{spec.name}"'
        + ("" if config.name == "default" else f', "{config.name}"')
        + ')["test"]'
        for config in spec.configs
    )
    generated_note = (
        "<!-- Generated by `python -m sts_extras.datasets` from "
        f"sts_extras/data/{spec.data_file}; do not edit. -->"
    )
    return f"""---
{yaml_text}---

# {spec.pretty_name}

{generated_note}

{spec.description}

## Configurations
{config_lines}

## Columns
{column_lines}

## Usage
```python
from datasets import load_dataset
{usage}
```
Installed package (`pip install sts-extras`), offline, from any directory: this folder ships inside
the package, at `sts_extras.dataset_path("{spec.name}")`:
```python
import datasets, sts_extras
datasets.load_dataset(sts_extras.dataset_path("{spec.name}"), split="test")
```
or through the package's builder: `sts_extras.load_dataset("{spec.name}")`.

## Annotation
{spec.annotation}.

## License
{spec.license_note}

## Citation
```bibtex
{spec.citation}
```
"""


def hub_folder_files(name: str) -> dict[str, str]:
    """Return ``{relative path: text}`` of the Hub-ready folder of a dataset (card + data)."""
    spec = get_spec(name)
    files = {"README.md": _card(spec)}
    for config in spec.configs:
        files[_hub_data_path(spec, config)] = _csv_text(
            read_rows(spec.name, config.name), config.columns
        )
    return files


def write_hub_folder(name: str, root: str | Path) -> Path:
    """Write the Hub-ready folder of ``name`` under ``root/<name>/`` and return its path."""
    folder = Path(root) / get_spec(name).name
    for relative, text in hub_folder_files(name).items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return folder


if __name__ == "__main__":  # regenerate dataset_scripts/ from the package tables
    import sys

    destination = sys.argv[1] if len(sys.argv) > 1 else "dataset_scripts"
    for dataset_name in DATASETS:
        print(write_hub_folder(dataset_name, destination))
