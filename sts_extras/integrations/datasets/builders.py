"""DSCS and STSS-131 as ``datasets.GeneratorBasedBuilder`` subclasses, made on first use.

They subclass a ``datasets`` class, so they are built by the module ``__getattr__`` below:
reading the tables and ``sts-extras --help`` never import ``datasets``.
"""

from __future__ import annotations

__all__ = ["BUILDERS", "DSCS", "STSS131"]

from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sts_extras.benchmark_tables import (
    DSCS_SPEC,
    STSS131_SPEC,
    DatasetSpec,
    _data_bytes,
    read_rows,
)
from sts_extras.integrity import discard
from sts_extras.io.content import content_hash

if TYPE_CHECKING:  # pragma: no cover
    import datasets

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

        def __init__(self, *args: Any, **kwargs: Any) -> None:  # datasets.DatasetBuilder's
            # `datasets` names a builder after its module, which both builders share: name it
            # explicitly, and hash the data so an edited table never reuses a stale cache.
            kwargs.setdefault("dataset_name", self.SPEC.name)
            kwargs.setdefault("hash", content_hash(_data_bytes(self.SPEC), digits=16))
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

        def _split_generators(
            self, dl_manager: datasets.DownloadManager
        ) -> list[datasets.SplitGenerator]:
            return [datasets.SplitGenerator(name=name) for name in _SPLITS]

        def _generate_examples(self) -> Iterator[tuple[int, dict[str, object]]]:
            for row in read_rows(self.SPEC.name, self.config.name):
                yield row["id"], row

    def builder_configs(spec: DatasetSpec) -> list[datasets.BuilderConfig]:
        return [
            datasets.BuilderConfig(
                name=config.name, version=datasets.Version("1.0.0"), description=config.description
            )
            for config in spec.configs
        ]

    # `__qualname__` as if defined at module level: pickle finds
    # sts_extras.integrations.datasets.builders.DSCS
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


def __getattr__(
    name: str,
) -> type[datasets.GeneratorBasedBuilder] | dict[str, type[datasets.GeneratorBasedBuilder]]:
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


def _first_line(error: BaseException) -> str:
    """``"<type>: <first line of the message>"``: some errors span a screen."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
