"""Statistics for STS evaluation, in plain numpy/scipy.

- :mod:`~sts_extras.stats.correlation`: scaled Pearson (Atoum 2019) and Fisher-z pooling.
- :mod:`~sts_extras.stats.ranking`: top-rank-weighted ρ_w / τ_w (Lombardo et al. 2020).
- :mod:`~sts_extras.stats.dependent`: Steiger-family tests of dependent correlations, Fisher's
  r-to-z test, one correlation against a group.
- :mod:`~sts_extras.stats.multiple`: Holm (and other ``statsmodels``) p-value adjustment.
- :mod:`~sts_extras.stats.resampling`: count resampling, correlation engines, BCa arithmetic.
- :mod:`~sts_extras.stats.jackknife`: the exact O(n log n) leave-one-out jackknife of Spearman's ρ.
- :mod:`~sts_extras.stats.bootstrap`: fast paired BCa / percentile bootstrap of r1 − r2.
- :mod:`~sts_extras.stats.model_comparison`: all pairs of many models on one task, rank
  intervals, win probabilities, mean rank across tasks.
- :mod:`~sts_extras.stats.cross_task`: ranking many models across tasks from task-level scores:
  a score's uncertainty from n, Friedman/Nemenyi, the Bayesian signed-rank test, rank confidence
  sets and the set of the best (Mogstad et al. 2024), separable adjacent pairs.
- :mod:`~sts_extras.stats.power`: power, sample size and minimal detectable difference of the
  dependent-correlation tests.
- :mod:`~sts_extras.stats.results`: :class:`ConfidenceInterval`, the ``(low, high)`` named tuple
  every result's ``confidence_interval`` holds.
- :mod:`~sts_extras.stats.calibration`: what the calibration suite measured for each method
  (:class:`MeasuredLevel`, one rule for ``calibrated``) and :class:`UncalibratedWarning`.

Names and arguments follow one vocabulary (``docs/api-conventions.md``): predictions before
references, ``method=`` for the procedure that produces the result (the test or the interval
method), ``correlation=`` for pearson/spearman, ``statistic`` always a number, ``pvalue``,
``confidence_interval.low/.high``, ``r1, r2, r12``, and ``seed`` (default 0) for every random
procedure.
"""

from sts_extras.stats.bootstrap import *  # noqa: F403
from sts_extras.stats.bootstrap import __all__ as _bootstrap_all
from sts_extras.stats.calibration import MeasuredLevel as MeasuredLevel
from sts_extras.stats.calibration import UncalibratedWarning as UncalibratedWarning
from sts_extras.stats.correlation import *  # noqa: F403
from sts_extras.stats.correlation import __all__ as _correlation_all
from sts_extras.stats.cross_task import *  # noqa: F403
from sts_extras.stats.cross_task import __all__ as _cross_task_all
from sts_extras.stats.dependent import *  # noqa: F403
from sts_extras.stats.dependent import __all__ as _dependent_all
from sts_extras.stats.model_comparison import *  # noqa: F403
from sts_extras.stats.model_comparison import __all__ as _model_comparison_all
from sts_extras.stats.multiple import *  # noqa: F403
from sts_extras.stats.multiple import __all__ as _multiple_all
from sts_extras.stats.power import *  # noqa: F403
from sts_extras.stats.power import __all__ as _power_all
from sts_extras.stats.ranking import *  # noqa: F403
from sts_extras.stats.ranking import __all__ as _ranking_all
from sts_extras.stats.results import *  # noqa: F403
from sts_extras.stats.results import __all__ as _results_all

# holm_adjust is in both dependent (its historical home) and multiple: list each name once.
__all__ = list(
    dict.fromkeys(
        [
            *_correlation_all,
            *_ranking_all,
            *_dependent_all,
            *_bootstrap_all,
            *_multiple_all,
            *_model_comparison_all,
            *_cross_task_all,
            *_power_all,
            *_results_all,
            "MeasuredLevel",
            "UncalibratedWarning",
        ]
    )
)
