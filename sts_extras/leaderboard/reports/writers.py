"""Write every report file of one leaderboard result into a (staging) folder.

One place for the outputs of a run, whether its scores were evaluated here
(:func:`~sts_extras.leaderboard.run.pipeline.run_leaderboard`) or gathered from cells evaluated
elsewhere (``sts-extras leaderboard collect``): the same result gives the same files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from sts_extras.integrity import write_manifest
from sts_extras.io.content import file_digest
from sts_extras.leaderboard.reports import csv_report, json_report, markdown
from sts_extras.leaderboard.reports.html_report import write_html
from sts_extras.leaderboard.reports.latex import write_latex
from sts_extras.leaderboard.scoring import LeaderboardResult
from sts_extras.leaderboard.settings import DEFAULT_FIGURE_FORMATS

__all__ = ["write_reports"]


def write_reports(
    result: LeaderboardResult,
    folder: Path,
    *,
    model_info: Mapping[str, Mapping[str, object]],
    score_keys: Mapping[str, Mapping[str, str]],
    versions: Mapping[str, str],
    run_settings: Mapping[str, object] | None = None,
    figures: bool = True,
    figure_formats: Sequence[str] = DEFAULT_FIGURE_FORMATS,
    reuse_figures_from: Path | None = None,
) -> str:
    """Write the reports of ``result`` into ``folder`` with their manifest; return the run id.

    ``leaderboard.json``, ``.csv``, ``.md`` and ``.tex``, the figures in each of
    ``figure_formats`` (unless ``figures`` is False), then ``leaderboard.html``, which embeds
    them. The run id is the :data:`~sts_extras.io.content.CONTENT_HASH` (XXH3-128) digest of
    ``leaderboard.json`` (identical runs, identical id). ``run_settings`` (the record of the run's
    :class:`~sts_extras.leaderboard.settings.LeaderboardSettings`, as JSON) opens the
    ``"settings"`` of ``leaderboard.json``. ``reuse_figures_from`` is a folder whose figures are
    kept when they show the same thing.
    """
    json_report.write_json(
        result,
        folder / "leaderboard.json",
        models=model_info,
        extra={"versions": dict(versions)},
        score_keys=score_keys,
        run_settings=run_settings,
    )
    run_id = file_digest(folder / "leaderboard.json")
    csv_report.write_csv(result, folder / "leaderboard.csv")
    markdown.write_markdown(result, folder / "leaderboard.md", score_keys=score_keys, run_id=run_id)
    write_latex(result, folder / "leaderboard.tex")
    if figures:
        from sts_extras.leaderboard.reports.figure_cache import write_figures_if_changed

        write_figures_if_changed(
            result, folder, reuse_from=reuse_figures_from, formats=tuple(figure_formats)
        )
    # after the figures: the page embeds them
    write_html(
        result,
        folder / "leaderboard.html",
        versions=versions,
        model_info=model_info,
        run_id=run_id,
    )
    write_manifest(folder, {"run": run_id})
    return run_id
