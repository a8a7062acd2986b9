"""Describe an STS benchmark: size, score distribution, sentence lengths and readability.

:func:`describe_dataset` describes a packaged benchmark (``dscs``, ``stss131``),
:func:`describe_file` any CSV, JSON Lines or Parquet file with the columns ``sentence1``,
``sentence2`` and ``score``, such as the dataset written by ``sts-extras annotate score
--dataset-out``; :func:`format_description` renders either as text. ``sts-extras describe``
(:mod:`sts_extras.cli.describe_run`) prints them, and ``sts-extras reproduce dscs`` recomputes the
DSCS paper's readability numbers with :func:`describe_dataset`.

The readability analysis follows Chandrasekaran & Mago (2020), Sec. 4.2 and Fig. 4: six US
grade-level indices (Eq. 4-9 and textstat's aggregate "text standard") computed per unique sentence
with the ``textstat`` library, then averaged.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sts_extras.benchmark_tables import get_spec, read_rows
from sts_extras.errors import UserInputError
from sts_extras.optional import requires_extra

__all__ = ["READABILITY_INDICES", "describe_dataset", "describe_file", "format_description"]

# output key -> (label, textstat function name)
READABILITY_INDICES: dict[str, tuple[str, str]] = {
    "flesch_kincaid_grade": ("Flesch-Kincaid grade", "flesch_kincaid_grade"),
    "coleman_liau_index": ("Coleman-Liau index", "coleman_liau_index"),
    "automated_readability_index": ("Automated readability index", "automated_readability_index"),
    "linsear_write": ("Linsear Write", "linsear_write_formula"),
    "gunning_fog": ("Gunning fog", "gunning_fog"),
    "text_standard": ("Text standard (aggregate)", "text_standard"),
}
_HISTOGRAM_BIN_WIDTH = 0.5
#: Most half-point bins of a file's histogram (a 0-500 scale); a wider range gets ten bins.
_MAX_HALF_POINT_BINS = 1000


def _summary(values: NDArray[np.float64]) -> dict[str, float]:
    return {
        "min": float(values.min()),
        "mean": float(values.mean()),
        "median": float(np.median(values)),
        "max": float(values.max()),
        "sd": float(values.std(ddof=1)) if values.size > 1 else 0.0,
    }


def _readability(sentence: str) -> dict[str, float]:
    with requires_extra("describe"):
        import textstat

    scores = {}
    for key, (_, function_name) in READABILITY_INDICES.items():
        function = getattr(textstat, function_name)
        value = (
            function(sentence, float_output=True) if key == "text_standard" else function(sentence)
        )
        scores[key] = float(value)
    return scores


def describe_dataset(name: str, config_name: str | None = None) -> dict[str, Any]:
    """Describe a benchmark: pairs, score distribution, sentence lengths, readability.

    Parameters
    ----------
    name : {"dscs", "stss131"}
        The benchmark.
    config_name : str, optional
        Its configuration (None = default).

    Returns
    -------
    dict
        JSON-serialisable: ``dataset``, ``config``, ``n_pairs``, ``n_unique_sentences``,
        ``score`` (range, summary, histogram), ``length_words``, ``length_characters`` and
        ``readability`` (mean of each index over the unique sentences, plus
        ``share_text_standard_below_10`` as in Sec. 4.2 of the DSCS paper).
    """
    spec = get_spec(name)
    config = spec.config(config_name)
    rows = read_rows(spec.name, config.name)
    scores = np.array([row["score"] for row in rows])
    sentences = list(dict.fromkeys(s for row in rows for s in (row["sentence1"], row["sentence2"])))
    if any(not sentence.strip() for sentence in sentences):  # guards the table, not user input
        raise ValueError(f"{spec.name}: the table holds an empty sentence.")
    low, high = spec.score_range
    edges = np.arange(low, high + _HISTOGRAM_BIN_WIDTH / 2, _HISTOGRAM_BIN_WIDTH)
    return {
        "dataset": spec.name,
        "pretty_name": spec.pretty_name,
        "config": config.name,
        **_describe(scores, sentences, (low, high), edges),
    }


def describe_file(
    path: str | Path, score_range: tuple[float, float] | None = None
) -> dict[str, Any]:
    """Describe an STS file: a CSV, JSON Lines or Parquet file with sentence1, sentence2, score.

    Parameters
    ----------
    path : str or pathlib.Path
    score_range : (float, float), optional
        The rating scale; default: the lowest and highest score of the file.

    Returns
    -------
    dict
        As :func:`describe_dataset`, with ``dataset`` the file's path, ``pretty_name`` its name
        and ``config`` None. The histogram has half-point bins from the range's minimum rounded
        down to a half point (a tenth of the range when it is under 2.5 or over 500 points wide).

    Raises
    ------
    sts_extras.errors.UserInputError
        A file that is missing or unreadable, lacks a column, has a blank cell, a score that is
        not a finite number, fewer than 3 pairs, a score range that is empty, or scores so large
        that their mean or standard deviation overflows a float.
    """
    from sts_extras.annotation.tables import read_sts_table

    path = Path(path)
    table = read_sts_table(path, "describe", score_range)
    frame = table.frame
    sentences = list(dict.fromkeys([*frame["sentence1"], *frame["sentence2"]]))
    low, high = table.score_range
    scores = frame["score"].to_numpy(dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        summary = _summary(scores)
    if not all(math.isfinite(value) for value in summary.values()):
        wide = next(key for key, value in summary.items() if not math.isfinite(value))
        raise UserInputError(
            f"describe {path}: the scores' {wide} overflows a 64-bit float (the scores reach "
            f"{summary['min']:g} and {summary['max']:g}); rescale them."
        )
    return {
        "dataset": str(path),
        "pretty_name": path.name,
        "config": None,
        **_describe(scores, sentences, (low, high), _file_edges(low, high)),
    }


def _file_edges(low: float, high: float) -> NDArray[np.float64]:
    """The histogram edges of a file's score range ``[low, high]``.

    Half-point bins from ``low`` rounded down to a half point, when that gives 5 to
    :data:`_MAX_HALF_POINT_BINS` bins; otherwise ten equal bins (a range under 2.5 points, or
    one so wide that half points would be millions of bins). A range whose width overflows a
    float (``-1e308`` to ``1e308``) gets its ten edges as ``low (1 - t) + high t``, all finite.
    """
    span = high - low
    if 5 * _HISTOGRAM_BIN_WIDTH <= span <= _MAX_HALF_POINT_BINS * _HISTOGRAM_BIN_WIDTH:
        start = math.floor(low / _HISTOGRAM_BIN_WIDTH) * _HISTOGRAM_BIN_WIDTH
        stop = math.ceil(high / _HISTOGRAM_BIN_WIDTH) * _HISTOGRAM_BIN_WIDTH
        return np.linspace(start, stop, round((stop - start) / _HISTOGRAM_BIN_WIDTH) + 1)
    if math.isfinite(span):
        return np.linspace(low, high, 11)
    steps = np.linspace(0.0, 1.0, 11)
    return low * (1.0 - steps) + high * steps


def _describe(
    scores: NDArray[np.float64],
    sentences: list[str],
    score_range: tuple[float, float],
    edges: NDArray[np.float64],
) -> dict[str, Any]:
    """Everything but the dataset's name: pairs, scores, lengths and readability."""
    with requires_extra("describe"):
        import textstat

    counts, _ = np.histogram(scores, bins=edges)  # last bin closed: [4.5, 5.0]
    readability = [_readability(sentence) for sentence in sentences]
    readability_means = {
        key: float(np.mean([scores_[key] for scores_ in readability]))
        for key in READABILITY_INDICES
    }
    readability_means["share_text_standard_below_10"] = float(
        np.mean([scores_["text_standard"] < 10 for scores_ in readability])
    )
    return {
        "n_pairs": int(scores.size),
        "n_unique_sentences": len(sentences),
        "score": {
            "range": list(score_range),
            **_summary(scores),
            "histogram": {"edges": edges.tolist(), "counts": counts.tolist()},
        },
        "length_words": _summary(
            np.array([textstat.lexicon_count(s, removepunct=True) for s in sentences], float)
        ),
        "length_characters": _summary(np.array([len(s) for s in sentences], float)),
        "readability": readability_means,
    }


def _summary_line(label: str, summary: dict[str, float]) -> str:
    return (
        f"{label:<26} min {summary['min']:6.2f}  mean {summary['mean']:6.2f}  "
        f"median {summary['median']:6.2f}  max {summary['max']:6.2f}  sd {summary['sd']:5.2f}"
    )


def format_description(description: dict[str, Any], *, bar_width: int = 40) -> str:
    """Render :func:`describe_dataset` output as a human-readable report."""
    score = description["score"]
    histogram = score["histogram"]
    largest = max(histogram["counts"]) or 1
    source = (
        f"{description['pretty_name']} (config {description['config']!r}, split 'test')"
        if description["config"] is not None
        else f"{description['pretty_name']} ({description['dataset']})"
    )
    lines = [
        source,
        f"pairs: {description['n_pairs']}    unique sentences: {description['n_unique_sentences']}",
        "",
        _summary_line(f"score ({score['range'][0]:g}-{score['range'][1]:g})", score),
        _summary_line("sentence length, words", description["length_words"]),
        _summary_line("sentence length, chars", description["length_characters"]),
        "",
        "score histogram:",
    ]
    edges = histogram["edges"]
    for index, count in enumerate(histogram["counts"]):
        closing = "]" if index == len(histogram["counts"]) - 1 else ")"
        bar = "#" * round(bar_width * count / largest)
        lines.append(f"  [{edges[index]:4.1f}, {edges[index + 1]:4.1f}{closing} {count:4d} {bar}")
    lines += ["", "readability (US grade level, mean over unique sentences; textstat):"]
    readability = description["readability"]
    for key, (label, _) in READABILITY_INDICES.items():
        lines.append(f"  {label:<28} {readability[key]:6.2f}")
    lines.append(
        f"  {'share with text standard < 10':<28} "
        f"{100 * readability['share_text_standard_below_10']:5.1f}%"
    )
    return "\n".join(lines)
