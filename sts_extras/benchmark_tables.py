"""The DSCS and STSS-131 tables shipped in the package: their specs and their typed rows.

The one copy of each table is ``sts_extras/data/<name>.csv`` (package data). Everything else
derives from it: the ``datasets`` builders and the Hub-ready folders
(:mod:`sts_extras.integrations.datasets`), the MTEB tasks, ``describe`` and ``reproduce``. This
module needs neither ``datasets`` nor ``pyarrow``: reading a table is plain ``csv``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from sts_extras.errors import UserInputError

if TYPE_CHECKING:  # pragma: no cover
    import datasets

__all__ = [
    "DATASETS",
    "DSCS_SPEC",
    "STSS131_SPEC",
    "ConfigSpec",
    "DatasetSpec",
    "get_spec",
    "read_rows",
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


def _data_bytes(spec: DatasetSpec) -> bytes:
    # one name per joinpath(): Traversable.joinpath takes a single one on Python 3.10
    return resources.files("sts_extras").joinpath("data").joinpath(spec.data_file).read_bytes()


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
