"""Statistics for STS evaluation, in plain numpy/scipy.

- :mod:`~sts_extras.stats.correlation`: scaled Pearson (Atoum 2019) and Fisher-z pooling.
- :mod:`~sts_extras.stats.ranking`: top-rank-weighted ρ_w / τ_w (Lombardo et al. 2020).
- :mod:`~sts_extras.stats.dependent`: Steiger-family tests of dependent correlations, Fisher's
  r-to-z test, one correlation against a group, Holm adjustment.
- :mod:`~sts_extras.stats.bootstrap`: fast paired BCa / percentile bootstrap of r1 − r2.
"""

from sts_extras.stats.bootstrap import *  # noqa: F403
from sts_extras.stats.bootstrap import __all__ as _bootstrap_all
from sts_extras.stats.correlation import *  # noqa: F403
from sts_extras.stats.correlation import __all__ as _correlation_all
from sts_extras.stats.dependent import *  # noqa: F403
from sts_extras.stats.dependent import __all__ as _dependent_all
from sts_extras.stats.ranking import *  # noqa: F403
from sts_extras.stats.ranking import __all__ as _ranking_all

__all__ = [*_correlation_all, *_ranking_all, *_dependent_all, *_bootstrap_all]
