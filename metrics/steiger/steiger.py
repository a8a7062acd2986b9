# Copyright 2025 The sts-extras Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""Steiger-family tests of two dependent correlations sharing the references (comparison)."""

from typing import Any

import evaluate
from numpy.typing import ArrayLike

# sts-extras is not on PyPI yet: install it from a checkout (`pip install .`) or a built wheel (`pip install sts_extras-0.4.0-py3-none-any.whl`).  # noqa: E501
from sts_extras.integrations.evaluate.columns import ScoreFeatures
from sts_extras.integrations.evaluate.modules import (
    RealScoreColumns,
    SeedFromLoad,
    level_in_output,
    measured_keys,
)
from sts_extras.stats import dependent

_DESCRIPTION = """
Is system 1 really better than system 2 on this benchmark? Both systems are scored against the same
human ratings, so their correlations with the ratings are dependent: they share one variable. This
comparison computes r1 = r(predictions1, references), r2 = r(predictions2, references) and
r12 = r(predictions1, predictions2) (Pearson or Spearman) and tests H0: rho1 = rho2 with one of
the classical tests for overlapping dependent correlations, as implemented in R's cocor: Steiger's
(1980) z with the pooled r (default, "steiger1980"), Meng, Rosenthal & Rubin's (1992) z
("meng1992", which reproduces the numbers printed in the STSS-131 report), Williams' (1959) t
("williams1959"), Hittner, May & Silver's (2003) z ("hittner2003"), Dunn & Clark's (1969) z
("dunn1969"), Hotelling's (1940) t ("hotelling1940"), and "hendrickson1970", "olkin1967",
"pearson1898". A positive statistic means system 1 correlates better. It also returns Zou's (2007)
confidence interval of r1 - r2.
"""


_KWARGS_DESCRIPTION = """
Args:
    predictions1 (`list` of `float`): Scores of system 1, one per item.
    predictions2 (`list` of `float`): Scores of system 2 for the same items.
    references (`list` of `float`): Gold (human) scores of the items.
    method (`str`): Test; one of "steiger1980" (default), "meng1992", "williams1959", "hittner2003",
        "dunn1969", "hotelling1940", "hendrickson1970", "olkin1967", "pearson1898"; or "auto",
        the best-measured method of sts-extras (an interval method chosen by its calibration
        suite: the closed-form tests assume normal data and reach about 23 % type-I error for a
        nominal 5 % under heteroscedastic errors at n = 50), or one of its interval methods
        "twopov" (Wilcox 2009), "adjusted-percentile" (a variant of sts-extras),
        "jackknife-t", "percentile", "BCa".
    n_resamples (`int`): Resamples of the resampling methods. Defaults to 10000.
    seed (`int`): Seed of the resampling methods; `None` (default) takes the seed given to
        `evaluate.load(..., seed=...)`, and without one 0 (the library's default).
    correlation (`str`): "pearson" (default) or "spearman".
    alternative (`str`): "two-sided" (default), "greater" (system 1 better) or "less".
    confidence_level (`float`): Level of Zou's interval of r1 - r2. Defaults to 0.95.

Returns:
    r1 (`float`): Correlation of predictions1 with the references.
    r2 (`float`): Correlation of predictions2 with the references.
    r12 (`float`): Correlation of the two systems' predictions.
    n (`int`): Number of items.
    statistic (`float`): z (t for williams1959, hotelling1940, hendrickson1970); > 0 when r1 > r2.
    pvalue (`float`): p-value for `alternative`.
    ci_low (`float`): Lower end of Zou's (2007) interval of r1 - r2 (of the method's own
        interval for the resampling methods).
    ci_high (`float`): Upper end of that interval.
    method (`str`): The method used ("auto" resolved).
    measured_size (`float`): The method's type-I error at alpha = 0.05 measured by the
        calibration suite: the worst data cell at the grid n nearest to n (None if unmeasured).
    measured_coverage (`float`): Its worst measured coverage of a 95 % interval there.
    calibrated (`bool`): Every cell of the suite at that n lies within the band (size in
        [3.5, 6.5] %, coverage in [93.5, 96.5] %, up to 2 Monte Carlo standard errors).
    outside_band (`list` of `str`): The suite's cells at that n outside the band, worst first.

Examples:
    >>> steiger = evaluate.load("metrics/steiger")
    >>> results = steiger.compute(
    ...     predictions1=[0.2, 0.5, 0.3, 0.9, 0.5, 0.8, 0.1, 0.6],
    ...     predictions2=[0.3, 0.2, 0.6, 0.7, 0.4, 0.9, 0.5, 0.3],
    ...     references=[0.1, 0.4, 0.35, 0.8, 0.6, 0.9, 0.2, 0.5],
    ... )
    >>> for key, value in results.items():
    ...     print(key, round(value, 4) if isinstance(value, (int, float)) else value)
    r1 0.9337
    r2 0.6618
    r12 0.4736
    n 8
    statistic 1.5936
    pvalue 0.111
    ci_low -0.0544
    ci_high 1.0021
    method steiger1980
    measured_size ...
    measured_coverage ...
    calibrated ...

    A one-sided test with Meng, Rosenthal & Rubin's z on Spearman correlations:
    >>> results = steiger.compute(
    ...     predictions1=[0.2, 0.5, 0.3, 0.9, 0.5, 0.8, 0.1, 0.6],
    ...     predictions2=[0.3, 0.2, 0.6, 0.7, 0.4, 0.9, 0.5, 0.3],
    ...     references=[0.1, 0.4, 0.35, 0.8, 0.6, 0.9, 0.2, 0.5],
    ...     method="meng1992", correlation="spearman", alternative="greater",
    ... )
    >>> print(round(results["statistic"], 4), round(results["pvalue"], 4))
    1.6089 0.0538
"""


_CITATION = """
@article{steiger1980tests,
  title={Tests for comparing elements of a correlation matrix},
  author={Steiger, James H.},
  journal={Psychological Bulletin},
  volume={87},
  number={2},
  pages={245--251},
  year={1980}
}
@article{meng1992comparing,
  title={Comparing correlated correlation coefficients},
  author={Meng, Xiao-Li and Rosenthal, Robert and Rubin, Donald B.},
  journal={Psychological Bulletin},
  volume={111},
  number={1},
  pages={172--175},
  year={1992}
}
@article{zou2007toward,
  title={Toward using confidence intervals to compare correlations},
  author={Zou, Guang Yong},
  journal={Psychological Methods},
  volume={12},
  number={4},
  pages={399--413},
  year={2007}
}
@article{diedenhofen2015cocor,
  title={cocor: A comprehensive solution for the statistical comparison of correlations},
  author={Diedenhofen, Birk and Musch, Jochen},
  journal={PLoS ONE},
  volume={10},
  number={4},
  pages={e0121945},
  year={2015}
}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Steiger(RealScoreColumns, SeedFromLoad, evaluate.Comparison):
    def _info(self) -> evaluate.ComparisonInfo:
        return evaluate.ComparisonInfo(
            module_type="comparison",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=ScoreFeatures.of("predictions1", "predictions2", "references"),
            reference_urls=[
                "https://doi.org/10.1037/0033-2909.87.2.245",
                "https://doi.org/10.1037/0033-2909.111.1.172",
                "https://doi.org/10.1371/journal.pone.0121945",
            ],
        )

    def _compute(
        self,
        predictions1: ArrayLike,
        predictions2: ArrayLike,
        references: ArrayLike,
        method: str = "steiger1980",
        correlation: str = "pearson",
        alternative: str = "two-sided",
        confidence_level: float = 0.95,
        n_resamples: int = 10000,
        seed: int | None = None,
    ) -> dict[str, Any]:
        with level_in_output():  # the measured level is in the output instead
            result = dependent.compare_dependent_correlations(
                predictions1,
                predictions2,
                references,
                method=method,
                correlation=correlation,
                alternative=alternative,
                confidence_level=confidence_level,
                n_resamples=n_resamples,
                seed=self.compute_seed(seed),
            )
        ci_low, ci_high = result.confidence_interval
        return {
            "r1": result.r1,
            "r2": result.r2,
            "r12": result.r12,
            "n": result.n,
            "statistic": result.statistic,
            "pvalue": result.pvalue,
            "ci_low": ci_low,
            "ci_high": ci_high,
            **measured_keys(result.method, result.calibration),
        }
