"""Scaled Pearson correlation (Atoum, 2019) as an `evaluate` metric.

A thin adapter: all numerics live in :func:`sts_extras.stats.correlation.scaled_pearson`.
"""

from typing import Any

import evaluate
from numpy.typing import ArrayLike

# sts-extras is not on PyPI yet: install it from a checkout (`pip install .`) or a built wheel (`pip install sts_extras-0.4.0-py3-none-any.whl`).  # noqa: E501
from sts_extras.integrations.evaluate.columns import ScoreFeatures
from sts_extras.integrations.evaluate.modules import RealScoreColumns
from sts_extras.stats import correlation

_DESCRIPTION = """
The scaled Pearson correlation (Atoum, 2019) splits the sentence pairs into K segments by their
gold (reference) score - e.g. dissimilar, moderately similar and similar pairs - computes Pearson's
r between predictions and references inside each segment, and averages the segment values. A
system that only gets the coarse order of the bands right scores high on plain Pearson but low on
the scaled value; the per-segment r shows in which band it fails.

Segments are K equal-width bins of the reference scale (default, as in Atoum's paper), K segments
holding equal numbers of pairs (Nikolic et al.'s original scaled correlation), or explicit score
edges. A segment with fewer than 3 pairs or a constant side has no r: it is left out of the mean,
listed in `skipped`, and a warning is raised.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `float`): System similarity scores, one per sentence pair.
    references (`list` of `float`): Gold similarity scores of the same pairs (they define the
        segments).
    bins (`int` or `list` of `float`, defaults to 3): Number of segments K, or the K + 1 explicit
        segment edges on the reference scale (strictly increasing, covering all references), e.g.
        Atoum's `[0, 1.66, 3.33, 5]`.
    score_range (`list` of two `float`, *optional*): Scale (low, high) cut into K equal-width
        segments; defaults to the observed min and max of the references. Only with an int `bins`
        and `strategy="width"`.
    strategy (`str`, defaults to `"width"`): For an int `bins`: `"width"` (equal-width segments
        of the scale) or `"count"` (equal numbers of pairs sorted by reference; tied references stay
        together). Ignored for explicit edges.
    closed (`str`, defaults to `"left"`): `"left"`: segments [e0, e1), ..., [e(K-1), eK];
        `"right"`: [e0, e1], (e1, e2], ..., (e(K-1), eK].

Returns:
    scaled_pearson (`float`): Mean of the per-segment Pearson r over the valid segments, in [-1, 1].
    pearson (`float`): Plain Pearson r over all pairs, in [-1, 1].
    segment_r (`list` of `float` or `None`): Pearson r of each segment (lowest scores first);
        `None` where the segment was skipped.
    segment_sizes (`list` of `int`): Number of pairs per segment.
    edges (`list` of `float`): The K + 1 segment edges.
    skipped (`list` of `int`): Indices of the skipped segments.

Examples:

    Three equal-width segments of the 0-5 scale:

    >>> scaled_pearson = evaluate.load("metrics/scaled_pearson")
    >>> results = scaled_pearson.compute(
    ...     predictions=[0.5, 0.4, 1.0, 2.8, 2.2, 2.9, 4.0, 3.9, 4.6],
    ...     references=[0.2, 0.9, 1.4, 2.0, 2.6, 3.1, 3.6, 4.2, 4.8],
    ...     score_range=[0, 5],
    ... )
    >>> round(results["scaled_pearson"], 4), round(results["pearson"], 4)
    (0.5288, 0.9587)
    >>> [round(r, 4) for r in results["segment_r"]], results["segment_sizes"]
    ([0.7139, 0.0799, 0.7924], [3, 3, 3])

    Explicit edges; the middle segment has only two pairs and is skipped:

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     results = scaled_pearson.compute(
    ...         predictions=[0.1, 0.3, 0.2, 2.5, 2.0, 4.1, 4.4, 4.2],
    ...         references=[0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 4.5, 5.0],
    ...         bins=[0, 1.66, 3.33, 5],
    ...     )
    >>> round(results["scaled_pearson"], 4), results["segment_r"][1], results["skipped"]
    (0.4137, None, [1])
"""

_CITATION = """
@article{atoum2019scaled,
  title   = {Scaled Pearson's Correlation Coefficient for Evaluating Text Similarity Measures},
  author  = {Atoum, Issa},
  journal = {Modern Applied Science},
  volume  = {13},
  number  = {10},
  pages   = {26--38},
  year    = {2019},
  doi     = {10.5539/mas.v13n10p26}
}
@article{nikolic2012scaled,
  title   = {Scaled correlation analysis: a better way to compute a cross-correlogram},
  author  = {Nikoli{\\'c}, Danko and Mure{\\c{s}}an, Raul C. and Feng, Weijia and Singer, Wolf},
  journal = {European Journal of Neuroscience},
  volume  = {35},
  number  = {5},
  pages   = {742--762},
  year    = {2012},
  doi     = {10.1111/j.1460-9568.2011.07987.x}
}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ScaledPearson(RealScoreColumns, evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=ScoreFeatures.of("predictions", "references"),
            reference_urls=["https://doi.org/10.5539/mas.v13n10p26"],
        )

    def _compute(
        self,
        predictions: ArrayLike,
        references: ArrayLike,
        bins: int | ArrayLike = 3,
        score_range: tuple[float, float] | None = None,
        strategy: str = "width",
        closed: str = "left",
    ) -> dict[str, Any]:
        result = correlation.scaled_pearson(
            predictions,
            references,
            bins=bins,
            score_range=score_range,
            strategy=strategy,
            closed=closed,
        )
        return {
            "scaled_pearson": result.statistic,
            "pearson": result.pearson,
            "segment_r": list(result.segment_r),
            "segment_sizes": list(result.segment_sizes),
            "edges": list(result.edges),
            "skipped": list(result.skipped),
        }
