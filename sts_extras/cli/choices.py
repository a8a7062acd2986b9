"""The names and defaults the ``sts-extras`` parsers show, without importing their sources.

``sts-extras --help`` must not import numpy, scipy, pandas or pydantic, yet the options list the
names those modules define (the dependent-correlation tests of :mod:`sts_extras.stats.dependent`,
the vote formats of :mod:`sts_extras.annotation.votes`, ...). Each constant here is a copy of one
such source, named beside it; ``tests/test_cli_startup.py`` holds every copy equal to its source,
so a name added there and not here fails a test rather than drifting.
"""

from __future__ import annotations

__all__ = [
    "ADJUST_METHODS",
    "ALTERNATIVES",
    "COMPARISON_METHODS",
    "DATASET_NAMES",
    "DEFAULT_MIN_AGREEMENT",
    "DEFAULT_OUTPUT",
    "DEPENDENT_METHODS",
    "DISTRIBUTIONS",
    "FIGURE_FORMATS",
    "INTERVAL_METHODS",
    "MIN_RESAMPLES",
    "PAPER_NAMES",
    "UPDATES",
    "VOTE_FORMATS",
]

#: :data:`sts_extras.stats.dependent.DEPENDENT_METHODS`
DEPENDENT_METHODS = (
    "steiger1980",
    "meng1992",
    "williams1959",
    "hittner2003",
    "dunn1969",
    "hotelling1940",
    "hendrickson1970",
    "olkin1967",
    "pearson1898",
)
#: :data:`sts_extras.stats.intervals.DIFFERENCE_METHODS`
INTERVAL_METHODS = ("twopov", "adjusted-percentile", "jackknife-t", "percentile", "BCa")
#: :data:`sts_extras.stats.model_comparison.COMPARISON_METHODS`
COMPARISON_METHODS = ("auto", *INTERVAL_METHODS, *DEPENDENT_METHODS)
#: :data:`sts_extras.stats.dependent.ALTERNATIVES`
ALTERNATIVES = ("two-sided", "greater", "less")
#: :data:`sts_extras.stats.multiple.ADJUST_METHODS`
ADJUST_METHODS = (
    "holm",
    "bonferroni",
    "sidak",
    "holm-sidak",
    "simes-hochberg",
    "hommel",
    "fdr_bh",
    "fdr_by",
    "none",
)
#: the keys of :data:`sts_extras.benchmark_tables.DATASETS`
DATASET_NAMES = ("dscs", "stss131")
#: the keys of :data:`sts_extras.reproduce.papers.PAPERS`
PAPER_NAMES = ("dscs", "stss131", "scaled-pearson", "lombardo", "dynamax")
#: :data:`sts_extras.leaderboard.settings.DEFAULT_OUTPUT`
DEFAULT_OUTPUT = "leaderboard"
#: :data:`sts_extras.leaderboard.settings.MIN_RESAMPLES`
MIN_RESAMPLES = 100
#: :data:`sts_extras.leaderboard.settings.FIGURE_FORMATS`
FIGURE_FORMATS = ("pdf", "png", "svg")
#: :data:`sts_extras.annotation.votes.VOTE_FORMATS`
VOTE_FORMATS = ("auto", "csv", "label-studio", "mturk")
#: :data:`sts_extras.annotation.agreement.DEFAULT_MIN_AGREEMENT`
DEFAULT_MIN_AGREEMENT = 0.6
#: :data:`sts_extras.annotation.scoring.UPDATES`
UPDATES = ("paper", "published-code")
#: :data:`sts_extras.annotation.voters.DISTRIBUTIONS`
DISTRIBUTIONS = ("exponential", "power_law")
