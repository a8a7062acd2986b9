"""The CSV report of the leaderboard: one row per model × unit, at full precision.

Empty cells for missing values; the columns of the test and the adjustment are named after the
ones that were run (:func:`csv_header`). Written through a temporary file and a rename.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path

from sts_extras.integrity import atomic_write_text
from sts_extras.leaderboard.reports.scoring import ComparisonStats, LeaderboardResult
from sts_extras.leaderboard.reports.tables import result_record

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
    "bca_significant",
    "z_meng1992",
    "p",
    "p_holm",
    "holm_significant",
    "error",
)


def _join(values: tuple[object, ...]) -> str:
    return ";".join("" if value is None else repr(value) for value in values)


def _csv_value(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return value


def csv_header(settings: Mapping[str, object]) -> tuple[str, ...]:
    """:data:`CSV_COLUMNS` with the test and adjustment actually used in their column names.

    The defaults (meng1992, holm) give :data:`CSV_COLUMNS` itself; ``--test williams1959`` names
    the statistic column ``z_williams1959``, so a column never claims a test that was not run.
    """
    test = str(settings.get("dependent_test", "meng1992"))
    adjust = str(settings.get("multiple_comparisons", "holm"))
    renamed = {
        "z_meng1992": f"z_{test}",
        "p_holm": f"p_{adjust}",
        "holm_significant": f"{adjust}_significant",
    }
    return tuple(renamed.get(column, column) for column in CSV_COLUMNS)


def write_csv(result: LeaderboardResult, path: Path) -> Path:
    """One row per model × unit (full precision; empty cells for missing values), written
    atomically."""
    with io.StringIO(newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(csv_header(result.settings))
        for task in result.tasks:
            for row in result.stats_for(task.name):
                item = result.comparison(task.name, row.model)
                comparison = item or ComparisonStats(
                    task=task.name, model=row.model, baseline=result.baseline
                )
                values = result_record(row)
                record = (
                    values["task"],
                    values["rank"],
                    values["rank_low"],
                    values["rank_high"],
                    values["model"],
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
                    comparison.ci_low,
                    comparison.ci_high,
                    comparison.bca_significant,
                    comparison.statistic,
                    comparison.pvalue,
                    comparison.pvalue_holm,
                    comparison.holm_significant,
                    values["error"] or comparison.error,
                )
                writer.writerow([_csv_value(value) for value in record])
        atomic_write_text(path, handle.getvalue())
    return path
