"""Top-rank-weighted rank correlations ρ_w and τ_w (Lombardo et al., 2020) as an `evaluate` metric.

A thin adapter: all numerics live in :func:`sts_extras.stats.ranking.weighted_rank_correlation`.
"""

from typing import Any

import evaluate
from numpy.typing import ArrayLike

# sts-extras is not on PyPI yet: install it from a checkout (`pip install .`) or a built wheel (`pip install sts_extras-0.4.0-py3-none-any.whl`).  # noqa: E501
from sts_extras.integrations.evaluate.columns import ScoreFeatures
from sts_extras.integrations.evaluate.modules import RealScoreColumns
from sts_extras.stats import ranking

_DESCRIPTION = """
Weighted versions of Spearman's rho and Kendall's tau that count a mistake near the top of the
ranking far more than one near the bottom (Lombardo et al., 2020, Section 3). References and
predictions each induce a ranking (rank 1 = highest score, ties get their average rank); item i
gets the weight w_i = (f(a_i) + f(b_i)) / sum_j (f(a_j) + f(b_j)) with f(n) = 1 / (n + n0)^2, so an
item counts when either ranking puts it near the top. rho_w is the weighted Pearson correlation of
the ranks; tau_w is Kendall's general Gamma with pair weights w_i * w_j (computed in O(n log n)).
Plain Spearman rho and Kendall tau-b are returned alongside, as in the paper's Table 2.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `float`): System scores, one per item (higher = ranked higher).
    references (`list` of `float`): Gold scores of the same items.
    n0 (`float`, defaults to 2): Offset of the weight function f(n) = 1 / (n + n0)^2. Smaller
        values concentrate the weight on the first ranks (n0 = 0: ~61% of a long ranking's weight
        on rank 1; n0 = 2: ~28%). `float("inf")` gives uniform weights (plain Spearman / tau-b).

Returns:
    rho_w (`float`): Top-rank-weighted Spearman rho, in [-1, 1].
    tau_w (`float`): Top-rank-weighted Kendall tau, in [-1, 1].
    spearman (`float`): Plain Spearman rho, in [-1, 1].
    kendall (`float`): Plain Kendall tau-b, in [-1, 1].

Examples:

    Swapping the two best items is a serious mistake for the weighted coefficients:

    >>> weighted_rank_correlation = evaluate.load("metrics/weighted_rank_correlation")
    >>> results = weighted_rank_correlation.compute(
    ...     predictions=[4.0, 5.0, 3.0, 2.0, 1.0], references=[5.0, 4.0, 3.0, 2.0, 1.0]
    ... )
    >>> {key: round(value, 4) for key, value in results.items()}
    {'rho_w': 0.7845, 'tau_w': 0.4053, 'spearman': 0.9, 'kendall': 0.8}

    Swapping the two worst items barely matters; n0 sets how steep the weights are:

    >>> results = weighted_rank_correlation.compute(
    ...     predictions=[5.0, 4.0, 3.0, 1.0, 2.0], references=[5.0, 4.0, 3.0, 2.0, 1.0], n0=0
    ... )
    >>> round(results["tau_w"], 4), round(results["kendall"], 4)
    (0.9901, 0.8)
"""

_CITATION = """
@inproceedings{lombardo2020toprank,
  title     = {Top-Rank-Focused Adaptive Vote Collection for the Evaluation of Domain-Specific
               Semantic Models},
  author    = {Lombardo, Pierangelo and Boiardi, Alessio and Colombo, Luca and
               Schiavone, Angelo and Tamagnone, Nicol{\\`o}},
  booktitle = {Proceedings of the 2020 Conference on Empirical Methods in Natural Language
               Processing (EMNLP)},
  pages     = {3081--3093},
  year      = {2020},
  eprint    = {2010.04486},
  archivePrefix = {arXiv}
}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class WeightedRankCorrelation(RealScoreColumns, evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # float64 columns written to Arrow in one step each and handed to _compute as Arrow
            # arrays, which numpy reads without a copy (evaluate's default format builds Python
            # lists; datasets 5.2's "numpy" format loops over rows and returns float32)
            features=ScoreFeatures.of("predictions", "references"),
            format="arrow",
            reference_urls=["https://arxiv.org/abs/2010.04486"],
        )

    def _compute(
        self, predictions: ArrayLike, references: ArrayLike, n0: float = 2
    ) -> dict[str, Any]:
        result = ranking.weighted_rank_correlation(predictions, references, n0=n0)
        return {
            "rho_w": result.rho_w,
            "tau_w": result.tau_w,
            "spearman": result.spearman,
            "kendall": result.kendall,
        }
