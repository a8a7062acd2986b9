"""Smooth-inverse-frequency (SIF) word weights ``a / (a + p(w))`` (Arora et al., 2017).

``p(w)`` comes from ``wordfreq`` (imported only when a frequency is looked up) or from a counts
file or mapping.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from sts_extras.errors import UserFileNotFoundError, UserInputError
from sts_extras.io.content import CONTENT_HASH, content_hash
from sts_extras.io.numbers import parse_number
from sts_extras.io.text import read_text
from sts_extras.optional import requires_extra
from sts_extras.vectors.tokenization import strip_subword_marker

__all__ = ["SIFWeights"]


@dataclass(frozen=True)
class SIFWeights:
    """Smooth-inverse-frequency word weights ``a / (a + p(w))`` (Arora et al., 2017).

    ``p(w)`` comes from ``wordfreq`` (default, language ``lang``) or from ``counts``: a path to a
    ``word count`` file (one pair per line, the format of the DynaMax reference code) or a
    mapping word -> count. A word without a frequency gets ``p = 0``, i.e. weight 1, as in the
    reference code. Subword markers (``##``, ``▁``, ``Ġ``) are stripped before the lookup.

    Words are compared as written (``"The"`` and ``"the"`` are two words), and a counts file that
    lists a word twice is refused, naming both lines. Files in this format (word counts of a
    corpus, e.g. the English Wikipedia counts of Arora et al.) list each word once, so a repeat
    means a damaged or concatenated file; neither adding the counts nor keeping one of them is
    safe (the reference code keeps the last count but adds both to the total, a weight that
    matches neither choice).

    Parameters
    ----------
    a : float
        The smoothing constant (1e-3 in Arora et al. and in DynaMax-SIF).
    counts : str, os.PathLike or mapping, optional
        Word counts; None uses ``wordfreq``.
    lang : str
        The ``wordfreq`` language code.

    Examples
    --------
    >>> from sts_extras.vectors import SIFWeights
    >>> SIFWeights(counts={"the": 98, "cat": 2}).weights(["the", "cat", "dog"]).round(4).tolist()
    [0.001, 0.0476, 1.0]
    """

    a: float = 1e-3
    counts: str | os.PathLike | Mapping[str, float] | None = None
    lang: str = "en"
    _frequencies: Mapping[str, float] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if isinstance(self.a, bool) or not isinstance(self.a, (int, float)) or not self.a > 0:
            raise UserInputError(f"`a` must be a positive number, got {self.a!r}.")
        if self.counts is not None:
            raw = (
                self.counts if isinstance(self.counts, Mapping) else _read_counts(Path(self.counts))
            )
            total = float(sum(raw.values()))
            if total <= 0:
                raise UserInputError("`counts` must hold at least one positive count.")
            object.__setattr__(
                self, "_frequencies", {word: float(c) / total for word, c in raw.items()}
            )

    @property
    def identity(self) -> str:
        """What decides the weights, without any path: ``a`` and either the content hash
        (:data:`~sts_extras.io.content.CONTENT_HASH`) of the frequencies (from ``counts``) or
        ``wordfreq``'s language and version."""
        if self._frequencies is not None:
            table = json.dumps(sorted(self._frequencies.items()), ensure_ascii=False)
            source = f"{CONTENT_HASH}:{content_hash(table)}"
        else:
            source = f"wordfreq:{self.lang}:{_wordfreq_version()}"
        return json.dumps({"a": float(self.a), "frequencies": source}, sort_keys=True)

    def frequency(self, word: str) -> float:
        """``p(w)`` of one word."""
        word = strip_subword_marker(word)
        if self._frequencies is not None:
            return self._frequencies.get(word, 0.0)
        with requires_extra("vectors"):
            from wordfreq import word_frequency

        return float(word_frequency(word, self.lang))

    def weights(self, words: Iterable[str]) -> NDArray[np.float64]:
        """The weight of each word, as a float64 array."""
        return np.array(
            [self.a / (self.a + self.frequency(word)) for word in words], dtype=np.float64
        )


def _wordfreq_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("wordfreq")
    except PackageNotFoundError:
        return None


def _read_counts(path: Path) -> dict[str, float]:
    """``word count`` lines (UTF-8 with or without a byte-order mark; counts in plain decimals,
    read by the one strict number parser, :func:`~sts_extras.io.numbers.parse_number`)."""
    if not path.is_file():
        raise UserFileNotFoundError(f"SIF counts file not found: {path}")
    counts: dict[str, float] = {}
    first_line: dict[str, int] = {}
    for number, line in enumerate(read_text(path, "SIF counts file").splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise UserInputError(
                f"{path}, line {number}: expected 'word count', got {line.strip()!r}."
            )
        count = parse_number(parts[1], f"{path}, line {number}: the count")
        if count < 0:
            raise UserInputError(
                f"{path}, line {number}: the count must be a non-negative number, got {parts[1]}."
            )
        word = parts[0]
        if word in first_line:
            raise UserInputError(
                f"{path}, line {number}: {word!r} is listed again (first on line "
                f"{first_line[word]}); each word must appear once."
            )
        first_line[word] = number
        counts[word] = count
    return counts
