"""Writers for the leaderboard: Markdown (ranked tables + legend), CSV and JSON.

The Markdown rounds correlations to 3 decimals (the STSS-131 guidance for reporting r); the CSV
and JSON keep full precision, and the JSON also holds the gold and per-pair model scores, so every
number can be recomputed from it. Per task the JSON has every pair of models (``"pairwise"``) and
each result row its rank interval (``"rank_low"``/``"rank_high"``) and the key of MTEB's
prediction file its scores were read from (``"score_key"``: ``"similarity_scores"``, the model's
own similarity, or ``"cosine_scores"``); the Markdown legend names the models that fell back to
the cosine, if any did.

Each file is written through a temporary file and a rename, so a reader never sees half of one;
:func:`~sts_extras.leaderboard.run.pipeline.run_leaderboard` writes the whole set to a staging
folder and swaps it in at the end. Given a run id, the Markdown names it and the manifest listing
every file of the run.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sts_extras.integrations.mteb.internals import COSINE_SCORES_KEY, SIMILARITY_SCORES_KEY
from sts_extras.integrity import MANIFEST_FILE, atomic_write_text
from sts_extras.leaderboard.reports.scoring import (
    ComparisonStats,
    LeaderboardResult,
    ModelTaskFailure,
    ModelTaskRow,
    ModelTaskStats,
)

if TYPE_CHECKING:
    from sts_extras.stats.model_comparison import ModelComparisonResult

__all__ = [
    "CSV_COLUMNS",
    "adjust_name",
    "bin_ranges",
    "files_line",
    "mean_rank_rows",
    "mean_rank_table",
    "pairwise_lines",
    "pairwise_records",
    "result_record",
    "score_key_line",
    "table_header",
    "table_rows",
    "task_table",
    "test_letter",
    "test_name",
    "to_json_dict",
    "to_markdown",
    "write_csv",
    "write_json",
    "write_markdown",
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


def _r(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def _p(value: float | None) -> str:
    if value is None:
        return "—"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _edge(value: float) -> str:
    return f"{value:.3g}"


def _bins(row: ModelTaskStats) -> str:
    if not row.bin_r:
        return "—"
    return " / ".join(f"{_r(r)} ({n})" for r, n in zip(row.bin_r, row.bin_sizes))


def bin_ranges(edges: tuple[float, ...]) -> str:
    """The gold-score bins as intervals, e.g. ``[0, 1.67) / [1.67, 3.33) / [3.33, 5]``."""
    parts = []
    for index in range(len(edges) - 1):
        closing = "]" if index == len(edges) - 2 else ")"
        parts.append(f"[{_edge(edges[index])}, {_edge(edges[index + 1])}{closing}")
    return " / ".join(parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


#: Authors of the tests of two dependent correlations, for the legend.
_TEST_NAMES = {
    "steiger1980": "Steiger's (1980) z",
    "meng1992": "Meng, Rosenthal & Rubin's (1992) z",
    "williams1959": "Williams's (1959) t",
    "hittner2003": "Hittner, May & Silver's (2003) z",
    "dunn1969": "Dunn & Clark's (1969) z",
    "hotelling1940": "Hotelling's (1940) t",
    "hendrickson1970": "Hendrickson, Stanley & Hills's (1970) t",
    "olkin1967": "Olkin's (1967) z",
    "pearson1898": "Pearson & Filon's (1898) z",
}
_ADJUST_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "sidak": "Šidák",
    "holm-sidak": "Holm–Šidák",
    "simes-hochberg": "Hochberg",
    "hommel": "Hommel",
    "fdr_bh": "BH",
    "fdr_by": "BY",
    "none": "unadjusted",
}


def test_name(settings: Any) -> str:
    """The authors and statistic of the dependent-correlation test of ``settings``."""
    test = settings.get("dependent_test", "meng1992")
    return _TEST_NAMES.get(test, test)


def test_letter(settings: Any) -> str:
    """'t' for the tests with a t statistic, else 'z'."""
    from sts_extras.stats.dependent import T_METHODS

    return "t" if settings.get("dependent_test", "meng1992") in T_METHODS else "z"


def adjust_name(settings: Any) -> str:
    """The name of the p-value adjustment of ``settings`` (e.g. "Holm")."""
    method = settings.get("multiple_comparisons", "holm")
    return _ADJUST_NAMES.get(method, method)


def _rank_cell(row: ModelTaskStats) -> str:
    if row.rank_low is None or row.rank_high is None:
        return str(row.rank)
    return f"{row.rank} [{row.rank_low}, {row.rank_high}]"


def _comparison_cells(
    item: ComparisonStats | None, is_baseline: bool, escape: Callable[[str], str]
) -> list[str]:
    if is_baseline:
        return ["baseline", "", ""]
    if item is None or item.delta is None or item.ci_low is None or item.ci_high is None:
        reason = item.error if item is not None and item.error else "no comparison"
        return [f"— ({escape(reason)})", "—", "—"]
    mark = " †" if item.bca_significant else ""
    star = " *" if item.holm_significant else ""
    interval = f"{_signed(item.delta)} [{_signed(item.ci_low)}, {_signed(item.ci_high)}]{mark}"
    statistic = "—" if item.statistic is None else f"{item.statistic:.2f}"
    return [interval, statistic, f"{_p(item.pvalue_holm)}{star}"]


def result_record(row: ModelTaskRow) -> dict[str, Any]:
    """One model × unit as a flat record: the same keys, in the same order, for a failure."""
    if isinstance(row, ModelTaskStats):
        values = dataclasses.asdict(row)
        ordered = {}
        for key, value in values.items():  # the rank interval next to the rank
            if key not in ("rank_low", "rank_high"):
                ordered[key] = value
            if key == "rank":
                ordered.update(rank_low=row.rank_low, rank_high=row.rank_high)
        return {**ordered, "error": None}
    return {
        "task": row.task,
        "model": row.model,
        "n": row.n,
        "rank": None,
        "rank_low": None,
        "rank_high": None,
        "pearson": None,
        "spearman": None,
        "scaled_pearson": None,
        "bin_edges": (),
        "bin_r": (),
        "bin_sizes": (),
        "rho_w": None,
        "tau_w": None,
        "mteb_pearson": row.mteb_pearson,
        "scores": row.scores,
        "error": row.error,
    }


def table_header(result: LeaderboardResult) -> list[str]:
    """The column names of a unit's ranked table (the test's statistic and the adjustment
    named, the confidence level if not 95%)."""
    level = result.settings.get("confidence_level", 0.95)
    shown = "95%" if level == 0.95 else f"{level:.0%}"
    return [
        "#",
        "Model",
        "r",
        "ρ",
        "scaled r",
        "r per bin (n)",
        "ρ_w",
        "τ_w",
        f"rank [{shown}]",
        f"Δr vs baseline [{shown} BCa]",
        test_letter(result.settings),
        f"p ({adjust_name(result.settings)})",
    ]


def table_rows(
    result: LeaderboardResult, task: str, escape: Callable[[str], str] = _cell
) -> list[list[str]]:
    """The cells of a unit's ranked table, best first (failed models last), as in the Markdown:
    3 decimals, † on a BCa interval excluding 0, * on an adjusted p at most ``alpha``. Model
    names and error messages go through ``escape`` (default: Markdown's)."""
    rows = []
    for row in result.stats_for(task):
        is_baseline = row.model == result.baseline
        name = escape(row.model)  # the Δr column says "baseline"
        if isinstance(row, ModelTaskFailure):
            rows.append(["–", name, f"failed: {escape(row.error)}", *[""] * 9])
            continue
        rows.append(
            [
                str(row.rank),
                name,
                _r(row.pearson),
                _r(row.spearman),
                _r(row.scaled_pearson),
                _bins(row),
                _r(row.rho_w),
                _r(row.tau_w),
                _rank_cell(row),
                *_comparison_cells(result.comparison(task, row.model), is_baseline, escape),
            ]
        )
    return rows


def task_table(result: LeaderboardResult, task: str) -> str:
    """The ranked Markdown table of one unit."""
    lines = [
        "| " + " | ".join(table_header(result)) + " |",
        "|--:|:--|--:|--:|--:|:--|--:|--:|:--|:--|--:|--:|",
    ]
    lines += ["| " + " | ".join(cells) + " |" for cells in table_rows(result, task)]
    return "\n".join(lines)


def _group(names: tuple[str, ...]) -> str:
    return "{" + ", ".join(_cell(name) for name in names) + "}"


def pairwise_lines(result: LeaderboardResult, task: str) -> list[str]:
    """The lines under a unit's table: failed models left out, groups the unit cannot separate,
    and the minimal detectable Δr of the top model."""
    settings = result.settings
    alpha = settings.get("alpha", 0.05)
    lines = []
    failed = [row.model for row in result.stats_for(task) if isinstance(row, ModelTaskFailure)]
    if failed:
        lines.append(
            "Left out of the comparisons and rank intervals (no usable scores): "
            + ", ".join(_cell(name) for name in failed)
            + "."
        )
    if task in result.pairwise_errors:
        lines.append(f"No comparisons: {_cell(result.pairwise_errors[task])}")
    comparison = result.pairwise.get(task)
    if comparison is None:
        return lines
    groups = result.not_separable(task)
    lines.append(
        f"Not separable at {1 - alpha:.0%} ({adjust_name(settings)}-adjusted p > {alpha:g} "
        "over all pairs): "
        + (", ".join(_group(group) for group in groups) if groups else "none, every pair differs")
        + "."
    )
    deltas = result.detectable.get(task, {})
    if deltas:
        top = comparison.models[int(comparison.r.argmax())]
        parts = []
        for name, value in deltas.items():
            pair = comparison.pair(top, name)
            observed = pair.delta if pair.model1 == top else -pair.delta
            shown = "—" if not math.isfinite(value) else f"{value:.3f}"
            parts.append(f"{_cell(name)} {shown} (observed {_signed(observed)})")
        lines.append(
            f"Minimal detectable Δr at {settings.get('detectable_power', 0.8):.0%} power "
            f"({settings.get('dependent_test', 'meng1992')} test, α = {alpha:g}, "
            f"n = {comparison.n}) of "
            f"{_cell(top)} against: " + "; ".join(parts) + "."
        )
    return lines


def mean_rank_rows(result: LeaderboardResult) -> list[list[str]]:
    """The rows of the mean-rank table, best mean rank first: model name (raw), mean rank with
    its interval, the rank on each unit; empty if the mean rank was not computed."""
    mean = result.mean_rank
    if mean is None:
        return []
    ranks = {(row.task, row.model): row.rank for row in result.stats}
    return [
        [
            mean.models[k],
            f"{mean.mean_rank[k]:.2f} [{mean.ci_low[k]:.2f}, {mean.ci_high[k]:.2f}]",
            *(str(ranks[(task.name, mean.models[k])]) for task in result.tasks),
        ]
        for k in sorted(range(len(mean.models)), key=lambda k: (mean.mean_rank[k], k))
    ]


def mean_rank_table(result: LeaderboardResult) -> str:
    """Markdown table of the mean rank over the units (empty string if not computed)."""
    if result.mean_rank is None:
        return ""
    level = result.settings.get("confidence_level", 0.95)
    lines = [
        f"| Model | mean rank [{level:.0%}] | "
        + " | ".join(_cell(t.name) for t in result.tasks)
        + " |",
        "|:--|:--|" + "--:|" * len(result.tasks),
    ]
    for name, *cells in mean_rank_rows(result):
        lines.append("| " + " | ".join([_cell(name), *cells]) + " |")
    return "\n".join(lines)


#: Unit label -> model -> the prediction-file key its scores were read from.
ScoreKeys = Mapping[str, Mapping[str, str]]


def score_key_line(result: LeaderboardResult, score_keys: ScoreKeys | None) -> str | None:
    """The legend line naming the models ranked by the cosine of their embeddings, if any."""
    fallbacks = [
        f"{_cell(model)} on {_cell(task.name)}"
        for task in result.tasks
        for model, key in (score_keys or {}).get(task.name, {}).items()
        if key == COSINE_SCORES_KEY
    ]
    if not fallbacks:
        return None
    return (
        f"- **Scores**: each model is ranked by its own similarity (MTEB's "
        f"`{SIMILARITY_SCORES_KEY}`), except where MTEB's prediction file held none, by the "
        f"cosine of its embeddings (`{COSINE_SCORES_KEY}`): " + "; ".join(fallbacks) + "."
    )


def files_line(run_id: str) -> str:
    """The legend line naming the run and the manifest of its files."""
    return (
        f"- **Files**: run `{run_id}` (the BLAKE2b digest of `leaderboard.json`). "
        f"`{MANIFEST_FILE}` lists every file of this run (these reports, the figures, "
        "`mteb_results/`, `predictions/` and the cell records `cells/`) with its size and BLAKE2b "
        "digest. A run writes its "
        "files to a staging folder and swaps them in at the end, so an interrupted run leaves "
        "the previous set."
    )


def to_markdown(
    result: LeaderboardResult, *, score_keys: ScoreKeys | None = None, run_id: str | None = None
) -> str:
    """The whole report: a section per unit (ranked table), the mean rank and a legend.

    ``score_keys`` (unit label -> model -> prediction key, as
    :func:`~sts_extras.leaderboard.run.cells.task_scores` returns them) adds a legend line
    when some model was scored by the cosine of its embeddings instead of its own similarity;
    ``run_id`` adds one naming the run and its manifest (:func:`files_line`).
    """
    settings = result.settings
    out = ["# STS leaderboard", ""]
    out.append(f"Models ranked by Pearson r on each task. Baseline: **{_cell(result.baseline)}**.")
    if settings.get("round_scores"):
        out.append(
            "System scores were rounded to 3 decimals before every statistic (STSS-131 guidance)."
        )
    for task in result.tasks:
        low, high = task.score_range
        out += ["", f"## {task.name} — {task.gold.size} pairs, gold {low:g}–{high:g}", ""]
        out.append(task_table(result, task.name))
        edges = result.bin_edges(task.name)
        if edges:
            out += ["", f"Bins (gold score): {bin_ranges(edges)}."]
        for line in pairwise_lines(result, task.name):
            out += ["", line]
    table = mean_rank_table(result)
    if table:
        out += ["", "## Mean rank across tasks", "", table]
    elif len(result.tasks) > 1:
        out += [
            "",
            "## Mean rank across tasks",
            "",
            "Not computed: the tasks do not rank the same models (a model has no usable scores "
            "on some task).",
        ]
    level = settings.get("confidence_level", 0.95)
    alpha = settings.get("alpha", 0.05)
    test = settings.get("dependent_test", "meng1992")
    adjust = adjust_name(settings)
    fallback = score_key_line(result, score_keys)
    out += [
        "",
        "## Legend",
        "",
        "- **r**: Pearson correlation with the gold scores; **ρ**: Spearman. Correlations are "
        "shown to 3 decimals (STSS-131 guidance); the CSV/JSON keep full precision.",
        *([fallback] if fallback else []),
        f"- **scaled r**: mean of the Pearson r within {settings.get('bins', 3)} equal-width bins "
        "of the task's gold scale (Atoum 2019, Eq. 3); **r per bin**: r and number of pairs in "
        "each bin, lowest scores first; — marks a bin with fewer than 3 pairs or constant scores "
        "(left out of the mean).",
        f"- **ρ_w**, **τ_w**: top-rank-weighted Spearman and Kendall correlations (Lombardo et al. "
        f"2020, Eq. 8, n0 = {settings.get('n0', 2):g}): disagreements on the most similar pairs "
        "weigh most.",
        f"- **rank [{level:.0%}]**: rank by r and its {level:.0%} bootstrap percentile interval "
        "(Hall & Miller 2009); one paired bootstrap per task, shared by all its models "
        f"({settings.get('n_resamples')} resamples of the pairs, seed {settings.get('seed')}), "
        "gives the rank intervals, the Δr intervals and the win probabilities of "
        "`pairwise_<task>.png`.",
        f"- **Δr**: r(model) − r(baseline), with a {level:.0%} BCa bootstrap interval; **†**: the "
        "interval excludes 0.",
        f"- **{test_letter(settings)}**: {test_name(settings)} test of two dependent "
        "correlations with the same gold scores (positive: the model correlates better than the "
        f"baseline); **p ({adjust})**: its two-sided p-value, {adjust}-adjusted across the "
        f"comparisons with the baseline on the task; **\\***: p ≤ {alpha:g}.",
        f"- **Not separable**: two models are separated when their {test} p-value, "
        f"{adjust}-adjusted over all pairs of the task, is at most {alpha:g}; a group is a "
        "maximal run of consecutive models in the table with no two separated (groups may "
        "overlap; the data support no order within a group). Models without usable scores are "
        "left out of every comparison.",
        f"- **Minimal detectable Δr**: the smallest r(top) − r(other) that the {test} test "
        f"detects with {settings.get('detectable_power', 0.8):.0%} power at the task's n, holding "
        "r(top) and the correlation between the two models at their observed values.",
        "- **Mean rank**: mean over the tasks of the rank by r, with the percentile interval of "
        "the mean of the bootstrap ranks (resampled within each task).",
        "- MTEB's own result files are in `mteb_results/`, its per-pair predictions in "
        "`predictions/`; `leaderboard.json` holds every score used here and every pair of models "
        "per task.",
        *([files_line(run_id)] if run_id else []),
    ]
    return "\n".join(out) + "\n"


def write_markdown(
    result: LeaderboardResult,
    path: Path,
    *,
    score_keys: ScoreKeys | None = None,
    run_id: str | None = None,
) -> Path:
    """Write :func:`to_markdown` to ``path`` (atomically)."""
    atomic_write_text(path, to_markdown(result, score_keys=score_keys, run_id=run_id))
    return path


def _join(values: tuple[Any, ...]) -> str:
    return ";".join("" if value is None else repr(value) for value in values)


def _csv_value(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return value


def csv_header(settings: Any) -> tuple[str, ...]:
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


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    return value


def _with_score_key(record: dict[str, Any], key: str | None) -> dict[str, Any]:
    """``record`` with ``"score_key"`` after ``"mteb_pearson"``."""
    out = {}
    for name, value in record.items():
        out[name] = value
        if name == "mteb_pearson":
            out["score_key"] = key
    return out


def to_json_dict(
    result: LeaderboardResult,
    *,
    models: Mapping[str, Mapping[str, Any]] | None = None,
    extra: dict[str, Any] | None = None,
    score_keys: ScoreKeys | None = None,
) -> dict[str, Any]:
    """Everything of the run as plain Python: settings, tasks with gold scores, per-model
    statistics with the per-pair scores (and ``"score_key"``, from ``score_keys``; None when
    unknown or failed), comparisons."""
    keys = score_keys or {}
    return _jsonable(
        {
            **(extra or {}),
            "settings": dict(result.settings),
            "models": [{"name": name, **(models or {}).get(name, {})} for name in result.models],
            "tasks": [
                {
                    "name": task.name,
                    "n": int(task.gold.size),
                    "score_range": list(task.score_range),
                    "gold": task.gold.tolist(),
                    **_pairwise_record(result, task.name),
                }
                for task in result.tasks
            ],
            "results": [
                _with_score_key(result_record(row), keys.get(row.task, {}).get(row.model))
                for row in result.stats
            ],
            "comparisons": [dataclasses.asdict(item) for item in result.comparisons],
            "mean_rank": _mean_rank_record(result),
        }
    )


def pairwise_records(comparison: ModelComparisonResult, alpha: float) -> list[dict[str, Any]]:
    """One record per pair of models: the pair's fields, P(model1 has the higher r) and whether
    the adjusted p-value is at most ``alpha``."""
    index = {name: k for k, name in enumerate(comparison.models)}
    return [
        {
            **dataclasses.asdict(pair),
            "win_probability": float(
                comparison.win_probability[index[pair.model1], index[pair.model2]]
            ),
            "adjusted_significant": bool(pair.pvalue_adjusted <= alpha),
        }
        for pair in comparison.pairs
    ]


def _pairwise_record(result: LeaderboardResult, task: str) -> dict[str, Any]:
    comparison = result.pairwise.get(task)
    if comparison is None:
        return {
            "models_compared": [],
            "pairwise": [],
            "pairwise_error": result.pairwise_errors.get(task),
            "not_separable": [],
            "min_detectable_delta": None,
        }
    return {
        "models_compared": list(comparison.models),
        "pairwise": pairwise_records(comparison, result.settings.get("alpha", 0.05)),
        "pairwise_error": None,
        "not_separable": [list(group) for group in result.not_separable(task)],
        "min_detectable_delta": {
            "model": comparison.models[int(comparison.r.argmax())],
            "power": result.settings.get("detectable_power"),
            "against": dict(result.detectable.get(task, {})),
        },
    }


def _mean_rank_record(result: LeaderboardResult) -> list[dict[str, Any]] | None:
    mean = result.mean_rank
    if mean is None:
        return None
    return [
        {
            "model": name,
            "mean_rank": float(mean.mean_rank[k]),
            "ci_low": float(mean.ci_low[k]),
            "ci_high": float(mean.ci_high[k]),
        }
        for k, name in enumerate(mean.models)
    ]


def write_json(result: LeaderboardResult, path: Path, **kwargs: Any) -> Path:
    """Write :func:`to_json_dict` (``kwargs`` go to it) to ``path`` (atomically)."""
    atomic_write_text(
        path, json.dumps(to_json_dict(result, **kwargs), indent=1, ensure_ascii=False)
    )
    return path
