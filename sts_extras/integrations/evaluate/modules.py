"""The four ``evaluate`` modules of sts-extras, found wherever the package is installed.

The repository's ``metrics/<name>/`` folders are the one copy of each module (script, card,
``requirements.txt``, Space ``app.py``); the build packages them as ``sts_extras/metrics/<name>/``
(``setup.py``), so ``evaluate.load`` finds them after ``pip install``, from any working directory
and offline. An editable install maps ``sts_extras.metrics`` to the repository's folder itself.

>>> from sts_extras.integrations.evaluate.modules import METRICS, metric_path
>>> sorted(METRICS)
['bca_bootstrap', 'scaled_pearson', 'steiger', 'weighted_rank_correlation']
>>> import evaluate
>>> evaluate.load(metric_path("steiger")).name  # a str, as evaluate.load takes it
'steiger'
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from numpy.typing import ArrayLike

from sts_extras._validation import check_real_columns
from sts_extras.errors import UserInputError
from sts_extras.io.locations import package_root
from sts_extras.stats.calibration import MeasuredLevel, UncalibratedWarning

if TYPE_CHECKING:  # pragma: no cover
    import evaluate

__all__ = [
    "METRICS",
    "RealScoreColumns",
    "SeedFromLoad",
    "level_in_output",
    "load_metric",
    "measured_keys",
    "metric_path",
]

# module name -> evaluate module type (comparisons take predictions1/predictions2/references)
METRICS: dict[str, str] = {
    "scaled_pearson": "metric",
    "weighted_rank_correlation": "metric",
    "steiger": "comparison",
    "bca_bootstrap": "comparison",
}
_PACKAGE = "sts_extras.metrics"


def _modules_root() -> Path:
    """``sts_extras/metrics`` of an install; the repository's ``metrics/`` in a source checkout.

    Run from a checkout (``python -m pytest`` puts the checkout first on ``sys.path``), the
    ``sts_extras`` package imported is the source folder, which has no ``metrics`` subpackage:
    the build maps it from the repository's ``metrics/``, so read that folder itself.
    """
    try:
        return Path(str(resources.files(_PACKAGE)))
    except ModuleNotFoundError:
        checkout = package_root().parent / "metrics"
        if (checkout / "__init__.py").is_file():
            return checkout
        raise


def metric_path(name: str) -> str:
    """The folder of an installed ``evaluate`` module, for ``evaluate.load(path)``.

    Parameters
    ----------
    name : {"scaled_pearson", "weighted_rank_correlation", "steiger", "bca_bootstrap"}
        The module (``-`` is accepted for ``_``).

    Returns
    -------
    str
        The absolute path of ``.../sts_extras/metrics/<name>``, holding ``<name>.py`` and its
        card ``README.md``. A ``str``, because ``evaluate.load`` takes one (it calls
        ``str.replace`` on its argument, so a ``pathlib.Path`` fails inside it).

    Raises
    ------
    sts_extras.errors.UserInputError
        A ``ValueError`` for an unknown name; the message lists the four modules.
    """
    key = name.replace("-", "_") if isinstance(name, str) else name
    if key not in METRICS:
        valid = ", ".join(repr(known) for known in METRICS)
        raise UserInputError(f"Unknown evaluate module {name!r}; valid names: {valid}.")
    folder = _modules_root() / key
    if not (folder / f"{key}.py").is_file():  # a broken install, not a user error
        raise RuntimeError(f"{key}.py is missing from {folder}; reinstall sts-extras.")
    return str(folder)


def load_metric(name: str, **kwargs: Any) -> evaluate.EvaluationModule:  # evaluate.load's options
    """``evaluate.load`` one of the four modules from the installed package (offline).

    Parameters
    ----------
    name : {"scaled_pearson", "weighted_rank_correlation", "steiger", "bca_bootstrap"}
        The module.
    **kwargs
        Passed to ``evaluate.load`` (e.g. ``seed``, ``keep_in_memory``, ``experiment_id``);
        ``module_type`` is set from the module.

    Returns
    -------
    evaluate.EvaluationModule
        An ``evaluate.Metric`` or, for ``steiger`` and ``bca_bootstrap``, an
        ``evaluate.Comparison``.

    Examples
    --------
    >>> from sts_extras import load_metric
    >>> steiger = load_metric("steiger")
    >>> result = steiger.compute(predictions1=[1, 2, 3, 4, 6], predictions2=[2, 1, 4, 3, 5],
    ...                          references=[1, 2, 3, 4, 5])
    >>> round(result["r1"], 3), result["n"]
    (0.986, 5)
    """
    import evaluate

    path = metric_path(name)
    return evaluate.load(path, module_type=METRICS[Path(path).name], **kwargs)


class RealScoreColumns:
    """Mixin for our ``evaluate`` modules: refuse booleans, complex numbers and strings on input.

    The modules declare float64 features, and Arrow would parse ``"0.5"`` and turn ``True`` into
    1.0 before the statistics see them, so ``add`` and ``add_batch`` check the columns first.
    Put it before ``evaluate.Metric`` / ``evaluate.Comparison`` in the bases.
    """

    def add_batch(self, **columns: ArrayLike | None) -> None:
        """Add a batch of scores; booleans, complex numbers and strings are refused."""
        check_real_columns(**columns)
        return super().add_batch(**columns)  # type: ignore[misc]

    def add(self, **columns: ArrayLike | None) -> None:
        """Add the scores of one item; booleans, complex numbers and strings are refused."""
        check_real_columns(**columns)
        return super().add(**columns)  # type: ignore[misc]


class SeedFromLoad:
    """Mixin for our comparison modules: one seed default, that of the library (0).

    ``compute(seed=None)`` uses the seed given to ``evaluate.load(..., seed=...)`` and, without
    one, 0, the default of every random procedure of :mod:`sts_extras.stats` (evaluate itself
    would draw a fresh seed at load time, so the same call could give another interval). A seed
    given to ``compute`` wins. Put it before ``evaluate.Comparison`` in the bases.
    """

    def __init__(self, *args: Any, seed: int | None = None, **kwargs: Any) -> None:
        self._seed_from_load = seed
        super().__init__(*args, seed=seed, **kwargs)  # type: ignore[call-arg]

    def compute_seed(self, seed: int | None) -> int:
        """``seed`` if given, else the seed of ``evaluate.load``, else 0."""
        if seed is not None:
            return seed
        return 0 if self._seed_from_load is None else self._seed_from_load


@contextlib.contextmanager
def level_in_output() -> Iterator[None]:
    """Silence :class:`~sts_extras.stats.calibration.UncalibratedWarning` inside: a comparison
    module reports the measured level in its output (:func:`measured_keys`) instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UncalibratedWarning)
        yield


def measured_keys(method: str, calibration: MeasuredLevel | None) -> dict[str, Any]:
    """The keys a comparison module adds: the method used and what the calibration suite measured
    for it at the grid n nearest to the data's n (``None`` where it was not measured)."""
    return {
        "method": method,
        "measured_size": None if calibration is None else calibration.size,
        "measured_coverage": None if calibration is None else calibration.coverage,
        "calibrated": None if calibration is None else calibration.calibrated,
        "outside_band": None
        if calibration is None
        else [cell.cell for cell in calibration.outside_band],
    }
