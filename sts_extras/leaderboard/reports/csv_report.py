"""The CSV report of the leaderboard: one row per model × unit, at full precision.

Empty cells for missing values. The comparison with the baseline is the pair's one decision:
``ci_low``/``ci_high`` is the pair's interval of Δr at its per-pair ``confidence_level`` (the
level that matches the adjustment over all pairs of the task), ``significant`` is True exactly
when it excludes 0 (the reports' †), which is ``pvalue_adjusted < 1 - 0.95``; ``method`` is the
procedure the task used (``auto`` resolved) and ``adjust`` the adjustment. Each row also carries
what the calibration suite measured for the task's method at its n (``measured_size``,
``measured_coverage``, ``calibrated``, ``outside_band``: the suite's cells outside the band;
empty where it was not measured). Written through a
temporary file and a rename.

Safe to open in a spreadsheet: the text cells (``task``, ``model``, ``method``, ``adjust``,
``error``) that begin with ``= + - @``, tab or CR carry a leading ``'`` (OWASP's rule against
formula injection, :func:`~sts_extras.io.csv_cells.neutralise_cell`; read one back with
:func:`~sts_extras.io.csv_cells.restore_cell`). Numbers, a negative Δr included, and the
``;``-joined lists of numbers (``bin_r``) are written as they are.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path
from typing import cast

from sts_extras.integrity import atomic_write_text
from sts_extras.io.csv_cells import neutralise_cell
from sts_extras.leaderboard.reports.tables import result_record
from sts_extras.leaderboard.scoring import ComparisonStats, LeaderboardResult, TaskScores

__all__ = [
    "CSV_COLUMNS",
    "csv_header",
    "write_csv",
]


CSV_COLUMNS = (
    "task",
    "rank",
    "rank_low",
    "rank_high",
    "model",
    "is_baseline",
    "n",
    "pearson",
    "spearman",
    "scaled_pearson",
    "bin_edges",
    "bin_r",
    "bin_sizes",
    "rho_w",
    "tau_w",
    "mteb_pearson",
    "delta_r",
    "ci_low",
    "ci_high",
    "significant",
    "confidence_level",
    "method",
    "adjust",
    "statistic",
    "pvalue",
    "pvalue_adjusted",
    "measured_size",
    "measured_coverage",
    "calibrated",
    "outside_band",
    "error",
)


def _join(values: tuple[object, ...]) -> str:
    return ";".join("" if value is None else repr(value) for value in values)


def _text(value: str | None) -> str | None:
    """A text cell (a name, a message): spreadsheet-safe."""
    return None if value is None else neutralise_cell(value)


def _csv_value(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return value


def csv_header(settings: Mapping[str, object]) -> tuple[str, ...]:
    """The columns of the CSV: :data:`CSV_COLUMNS`, whatever the settings.

    (Before 0.3's one decision per pair the columns of the test and the adjustment were named
    after them, ``z_meng1992``, ``p_holm``; the method and the adjustment are now columns of
    their own, since ``method="auto"`` can choose another method per task.)
    """
    return CSV_COLUMNS


def _calibration(
    result: LeaderboardResult, task: TaskScores
) -> tuple[object, object, object, object]:
    """(measured size, measured coverage, calibrated, the cells outside the band joined by
    ";") of the task's method: empty without a comparison; calibrated False (and no numbers)
    where the suite did not measure it."""
    comparison = result.pairwise.get(task.name)
    if comparison is None:
        return None, None, None, None
    measured = comparison.calibration
    if measured is None:
        return None, None, False, None
    outside = ";".join(cell.cell for cell in measured.outside_band)
    return measured.size, measured.coverage, measured.calibrated, _text(outside)


def write_csv(result: LeaderboardResult, path: Path) -> Path:
    """One row per model × unit (full precision; empty cells for missing values), written
    atomically."""
    with io.StringIO(newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(csv_header(result.settings))
        for task in result.tasks:
            size, coverage, calibrated, outside = _calibration(result, task)
            for row in result.stats_for(task.name):
                item = result.comparison(task.name, row.model)
                comparison = item or ComparisonStats(
                    task=task.name, model=row.model, baseline=result.baseline
                )
                values = result_record(row)
                low, high = comparison.confidence_interval or (None, None)
                record = (
                    _text(values["task"]),
                    values["rank"],
                    values["rank_low"],
                    values["rank_high"],
                    _text(values["model"]),
                    row.model == result.baseline,
                    values["n"],
                    values["pearson"],
                    values["spearman"],
                    values["scaled_pearson"],
                    _join(values["bin_edges"]),
                    _join(values["bin_r"]),
                    _join(values["bin_sizes"]),
                    values["rho_w"],
                    values["tau_w"],
                    values["mteb_pearson"],
                    comparison.delta,
                    low,
                    high,
                    comparison.significant,
                    comparison.confidence_level,
                    _text(comparison.method),
                    _text(cast(str, result.settings.get("adjust")) if comparison.method else None),
                    comparison.statistic,
                    comparison.pvalue,
                    comparison.pvalue_adjusted,
                    size,
                    coverage,
                    calibrated,
                    outside,
                    _text(values["error"] or comparison.error),
                )
                writer.writerow([_csv_value(value) for value in record])
        atomic_write_text(path, handle.getvalue())
    return path
