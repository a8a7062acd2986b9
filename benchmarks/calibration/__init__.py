"""The calibration suite: how well every interval and test of r1 - r2 holds its level.

Run it with ``python -m benchmarks.calibration`` (``--quick`` for the slice the tests run); see
``docs/calibration.md``. The Python API: :func:`run_suite` with :func:`full_config` or
:func:`quick_config`, and :mod:`benchmarks.calibration.report` for the outputs.
"""

from benchmarks.calibration.suite import (
    METHODS,
    CellResult,
    SuiteConfig,
    SuiteResult,
    full_config,
    quick_config,
    run_suite,
)

__all__ = [
    "METHODS",
    "CellResult",
    "SuiteConfig",
    "SuiteResult",
    "full_config",
    "quick_config",
    "run_suite",
]
