"""The Markdown report of the leaderboard: a ranked table per unit, the mean rank, a legend.

Correlations are rounded to 3 decimals (the STSS-131 guidance for reporting r); the CSV and JSON
keep full precision. The legend names the models that fell back to the cosine of their
embeddings, if any did, and, given a run id, the run and the manifest listing every file of it.
Written through a temporary file and a rename, so a reader never sees half of it;
:func:`~sts_extras.leaderboard.run.pipeline.run_leaderboard` writes the whole set to a staging
folder and swaps it in at the end.
"""

from __future__ import annotations

from pathlib import Path

from sts_extras.integrations.mteb.internals import COSINE_SCORES_KEY, SIMILARITY_SCORES_KEY
from sts_extras.integrity import MANIFEST_FILE, atomic_write_text
from sts_extras.io.content import CONTENT_HASH
from sts_extras.leaderboard.reports.tables import (
    MARK,
    ScoreKeys,
    adjust_name,
    adjusted_over_pairs,
    bin_ranges,
    decision_line,
    escape_markdown,
    mean_rank_rows,
    method_name,
    pairwise_lines,
    table_header,
    table_rows,
)
from sts_extras.leaderboard.scoring import LeaderboardResult

__all__ = [
    "files_line",
    "mean_rank_table",
    "score_key_line",
    "task_table",
    "to_markdown",
    "write_markdown",
]


def task_table(result: LeaderboardResult, task: str) -> str:
    """The ranked Markdown table of one unit."""
    lines = [
        "| " + " | ".join(table_header(result)) + " |",
        "|--:|:--|--:|--:|--:|:--|--:|--:|:--|:--|--:|--:|",
    ]
    lines += ["| " + " | ".join(cells) + " |" for cells in table_rows(result, task)]
    return "\n".join(lines)


def mean_rank_table(result: LeaderboardResult) -> str:
    """Markdown table of the mean rank over the units (empty string if not computed)."""
    if result.mean_rank is None:
        return ""
    level = result.settings.get("confidence_level", 0.95)
    lines = [
        f"| Model | mean rank [{level:.0%}] | "
        + " | ".join(escape_markdown(t.name) for t in result.tasks)
        + " |",
        "|:--|:--|" + "--:|" * len(result.tasks),
    ]
    for name, *cells in mean_rank_rows(result):
        lines.append("| " + " | ".join([escape_markdown(name), *cells]) + " |")
    return "\n".join(lines)


def score_key_line(result: LeaderboardResult, score_keys: ScoreKeys | None) -> str | None:
    """The legend line naming the models ranked by the cosine of their embeddings, if any."""
    fallbacks = [
        f"{escape_markdown(model)} on {escape_markdown(task.name)}"
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
        f"- **Files**: run `{run_id}` (the {CONTENT_HASH} digest of `leaderboard.json`). "
        f"`{MANIFEST_FILE}` lists every file of this run (these reports, the figures, "
        "`mteb_results/`, `predictions/` and the cell records `cells/`) with its size and "
        f"{CONTENT_HASH} digest. A run writes its "
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
    baseline = escape_markdown(result.baseline)
    out.append(f"Models ranked by Pearson r on each task. Baseline: **{baseline}**.")
    if settings.get("round_scores"):
        out.append(
            "System scores were rounded to 3 decimals before every statistic (STSS-131 guidance)."
        )
    for task in result.tasks:
        low, high = task.score_range
        heading = f"## {escape_markdown(task.name)} — {task.gold.size} pairs"
        out += ["", f"{heading}, gold {low:g}–{high:g}", ""]
        decisions = decision_line(result, task.name)  # our words: methods, numbers
        if decisions:
            out += [decisions, ""]
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
    method = str(settings.get("method", "auto"))
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
        f"- **rank [{level:.0%}]**: rank by r and its rank set, the ranks the pair decisions "
        "leave possible: from 1 + the models significantly better to m − the models "
        "significantly worse (Mogstad, Romano, Shaikh & Wilhelm 2024), counting the decisions "
        "that control the family-wise error (the pairs' own under Holm or Bonferroni, else "
        "those Holm's adjustment makes too), so all of a task's sets hold at once at "
        f"{level:.0%}; one paired bootstrap per task, shared by all its models "
        f"({settings.get('n_resamples')} resamples of the pairs, seed {settings.get('seed')}), "
        "gives the bootstrap intervals of Δr and the win probabilities of "
        f"`pairwise_<task>.png` ({MARK} there on the significant pairs).",
        f"- **Δr**: r(model) − r(baseline), with the pair's interval; **{MARK}**: the pair is "
        f"significant, its p-value {adjusted_over_pairs(settings)} below {1 - level:.2g}, which "
        f"is exactly when the interval shown excludes 0 (one decision per pair, the same in "
        f"every report, figure and file). **CI level**: the interval's own level, the one that "
        f"matches the adjustment (above {level:.0%} where the adjustment widens the interval). "
        f"**p ({adjust})**: the pair's p-value, {adjusted_over_pairs(settings)}.",
        f"- **Pair decisions**: method `{method}`"
        + (
            " picks, per task, the interval the calibration suite chose for the task's n"
            if method == "auto"
            else f" ({method_name(method)})"
        )
        + "; the line above each table names the method used and what the suite measured for "
        "it at that n (type-I error at α = 0.05 and coverage of the 95% interval, one pair), "
        "and says when it is not calibrated (docs/calibration.md).",
        f"- **Not separable**: two models are separated when their pair is significant "
        f"({MARK}); a group is a "
        "maximal run of consecutive models in the table with no two separated (groups may "
        "overlap; the data support no order within a group). Models without usable scores are "
        "left out of every comparison.",
        f"- **Minimal detectable Δr**: the smallest r(top) − r(other) that the named test "
        f"detects with {settings.get('detectable_power', 0.8):.0%} power at α = {alpha:g} for "
        "one pair (unadjusted) at the task's n, holding r(top) and the correlation between the "
        "two models at their observed values.",
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
