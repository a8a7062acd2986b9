"""Rank models across MTEB's English STS tasks: published results and your own runs together.

:func:`rank_models` is the Python door of ``sts-extras rank``. It reads each folder (an MTEB
results folder through :func:`~sts_extras.rank.results.read_mteb_results`, a ``sts-extras
leaderboard`` output through :func:`~sts_extras.rank.own_runs.read_leaderboard_output`), keeps
the models with a score on every selected task (or, with ``incomplete=True``, on at least two),
and computes, with the task as the unit (:mod:`sts_extras.stats.cross_task`):

* each model's mean score and rank, and its rank confidence sets (Mogstad, Romano, Shaikh &
  Wilhelm 2024): the marginal set (``rank_low``/``rank_high``: holds this model's true rank with
  probability 0.95) and the simultaneous sets (all hold all true ranks with probability 0.95), and
  the confidence set of the best model. The tasks are resampled with replacement and, within each
  task, the items: the per-pair bootstrap for the models of a leaderboard output (item-level
  treatment), a normal draw of Fisher's z with the variance the task's n gives for the published
  models (task-level treatment: their per-pair predictions are not published);
* Friedman's test with Nemenyi's critical difference (the CD diagram, as autorank draws it) and
  the Bayesian signed-rank test with a region of practical equivalence (as baycomp computes it),
  over the models with every selected task; from both, how many adjacent pairs of the ranking are
  separable (the question of MTEB's own analysis, 176 of 180 not separable);
* each score's interval within its task: the percentile interval of the per-pair bootstrap for
  the item-level models, the Fisher-z interval from n (Bonett & Wright 2000) for the others.

The reports (``ranking.json``, ``.csv``, ``.md``, ``.tex``, ``.html`` and the figures) are
written as one set: into a staging folder inside the output, then swapped in whole by the
leaderboard's journalled swap (:func:`sts_extras.leaderboard.run.report_set.commit`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sts_extras.errors import UserFileNotFoundError, UserInputError, UserInputTypeError
from sts_extras.rank.own_runs import OWN_RUN_RULES, OwnRuns, is_leaderboard_output
from sts_extras.rank.ranking import ITEM_LEVEL, TASK_LEVEL, LeftOut, RankedModel, Ranking
from sts_extras.rank.results import STS_TASKS, TASK_INFO, ModelScores, Refusal

__all__ = ["FIGURE_FORMATS", "rank_models"]

#: Figure formats (as the leaderboard's).
FIGURE_FORMATS = ("pdf", "png", "svg")
#: Version of the ``ranking.json`` format.
FORMAT = 1

_RANKING_RULES: Mapping[str, str] = MappingProxyType(
    {
        "ranked-complete": (
            "By default a model is ranked when it has a score on every selected task; the others "
            "are listed in left_out with the tasks they lack (incomplete=True ranks every model "
            "with at least two selected tasks, its differences taken over each pair's common "
            "tasks)."
        ),
        "rank-by-mean": (
            "A model's rank is 1 + the number of ranked models with a higher mean score over the "
            "selected tasks (ties share a rank)."
        ),
        "own-run-name": (
            "A model of a leaderboard output whose name is also that of another ranked model "
            "(published, or of another output) is shown as '<name> (own run)' (then '#2', ...)."
        ),
        "complete-for-tests": (
            "Friedman's test, the Nemenyi groups, the CD diagram and the adjacent-pair counts "
            "use the ranked models with every selected task (the tests need complete blocks)."
        ),
    }
)


# --------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------
def _check_fraction(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)):
        raise UserInputTypeError(f"`{name}` must be a number in (0, 1), got {value!r}.")
    number = float(value)
    if not 0.0 < number < 1.0:
        raise UserInputError(f"`{name}` must lie strictly between 0 and 1, got {value!r}.")
    return number


def _check_count(value: object, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise UserInputTypeError(f"`{name}` must be a whole number, got {value!r}.")
    if not low <= int(value) <= high:
        raise UserInputError(f"`{name}` must be between {low} and {high}, got {value!r}.")
    return int(value)


def _check_settings(
    *,
    tasks: object,
    seed: object,
    n_resamples: object,
    alpha: object,
    rope: object,
    threshold: object,
    figure_top: object,
    figure_formats: object,
) -> dict[str, Any]:
    if isinstance(tasks, str):
        tasks = [part for part in tasks.split(",")]
    if not isinstance(tasks, Sequence) or not tasks:
        raise UserInputError(
            f"`tasks` must name at least one of the tasks {', '.join(STS_TASKS)}, got {tasks!r}."
        )
    by_lower = {task.lower(): task for task in STS_TASKS}
    chosen: list[str] = []
    for raw in tasks:
        name = by_lower.get(str(raw).strip().lower()) if isinstance(raw, str) else None
        if name is None:
            raise UserInputError(
                f"--tasks: {raw!r} is not one of MTEB's English STS tasks ({', '.join(STS_TASKS)})."
            )
        if name in chosen:
            raise UserInputError(f"--tasks: {name} is named twice.")
        chosen.append(name)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or int(seed) < 0:
        raise UserInputError(f"--seed must be a whole number >= 0, got {seed!r}.")
    if isinstance(rope, bool) or not isinstance(rope, (int, float)) or not 0 <= float(rope) < 1:
        raise UserInputError(f"--rope must be a number in [0, 1), got {rope!r}.")
    if isinstance(figure_formats, str):
        figure_formats = (figure_formats,)
    if not isinstance(figure_formats, Sequence):
        raise UserInputTypeError(
            f"`figure_formats` must be a sequence of names, got {figure_formats!r}."
        )
    formats = tuple(figure_formats)
    for name in formats:
        if name not in FIGURE_FORMATS:
            raise UserInputError(
                f"--figure-format {name!r}: choose among {', '.join(FIGURE_FORMATS)}."
            )
    return {
        "tasks": tuple(chosen),
        "seed": int(seed),
        "n_resamples": _check_count(n_resamples, "n_resamples", 100, 1_000_000),
        "alpha": _check_fraction(alpha, "alpha"),
        "rope": float(rope),
        "threshold": _check_fraction(threshold, "threshold"),
        "figure_top": _check_count(figure_top, "figure_top", 2, 10_000),
        "figure_formats": tuple(dict.fromkeys(formats)) or ("png",),
    }


def _check_revisions(value: object) -> str:
    from sts_extras.rank.results import REVISION_RULES

    if not isinstance(value, str) or value not in REVISION_RULES:
        raise UserInputError(
            f"--revisions {value!r}: choose {' or '.join(REVISION_RULES)} (one revision folder "
            "per model, or each task from the model's revisions as MTEB joins them)."
        )
    return value


def _classify(
    folders: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
) -> tuple[list[Path], list[Path]]:
    """(MTEB results folders, leaderboard outputs); a folder that is neither is refused."""
    if isinstance(folders, (str, os.PathLike)):
        folders = [folders]
    if not folders:
        raise UserInputError(
            "DIR: give at least one folder (MTEB results or a leaderboard output)."
        )
    published: list[Path] = []
    own: list[Path] = []
    for raw in folders:
        path = Path(raw).expanduser()
        if any(path.resolve() == seen.resolve() for seen in published + own):
            continue  # the same folder twice is read once
        if not path.exists():
            raise UserFileNotFoundError(f"DIR {str(raw)!r}: no such folder.")
        if not path.is_dir():
            raise UserInputError(f"DIR {str(raw)!r} is a file; give a folder.")
        if is_leaderboard_output(path):
            own.append(path)
        elif _looks_like_results(path):
            published.append(path)
        else:
            raise UserInputError(
                f"DIR {str(raw)!r} is neither an MTEB results folder (results/<org>__<model>/"
                "<revision>/<Task>.json, or the <org>__<model> folders themselves) nor a "
                "sts-extras leaderboard output (cells/plan.json)."
            )
    return published, own


def _looks_like_results(path: Path) -> bool:
    """A folder with MTEB result files at ``[results/]<model>/<revision>/<file>.json``."""
    base = path / "results" if (path / "results").is_dir() else path
    return next(base.glob("*/*/*.json"), None) is not None


# --------------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------------
def _item_draws(
    own: Sequence[OwnRuns],
    names: Sequence[str],
    sources: Mapping[str, tuple[int, str]],
    tasks: Sequence[str],
    n_resamples: int,
    seed: int,
) -> tuple[NDArray[np.float64] | None, dict[tuple[str, str], tuple[float, float]]]:
    """Per-pair bootstrap replicates of every item-level score, (B, n_tasks, n_models), NaN for
    the task-level models; and each item-level score's 95% percentile interval.

    Within one output and task, every model is resampled on the same pairs (one count vector per
    replicate, :func:`~sts_extras.stats.resampling.resample_counts`), so the replicates keep the
    correlation of the models' errors; Spearman's rho of a resample is computed with its ties
    (:class:`~sts_extras.stats.resampling.SpearmanCorrelations`).
    """
    from sts_extras.stats.resampling import SpearmanCorrelations, resample_counts

    columns = {name: k for k, name in enumerate(names)}
    draws = None
    intervals: dict[tuple[str, str], tuple[float, float]] = {}
    rng = np.random.default_rng([seed, 1])
    for index, run in enumerate(own):
        members = [name for name in names if sources.get(name, (-1, ""))[0] == index]
        for t, task in enumerate(tasks):
            have = [name for name in members if task in run.predictions[sources[name][1]]]
            if not have:
                continue
            if draws is None:
                draws = np.full((n_resamples, len(tasks), len(names)), np.nan)
            gold = np.asarray(run.gold[task], dtype=np.float64)
            engine = SpearmanCorrelations(
                gold, np.vstack([run.predictions[sources[name][1]][task] for name in have])
            )
            values = np.vstack(
                [engine.correlations(c) for c in resample_counts(rng, n_resamples, gold.size)]
            )
            # a resample on which a correlation is undefined (the gold scores or a model's
            # scores constant in it) is left out for every model of the output, and the defined
            # ones are reused in order to keep n_resamples rows
            defined = values[np.isfinite(values).all(axis=1)]
            if defined.shape[0] < 2:
                raise UserInputError(
                    f"{run.folder}: the per-pair bootstrap of {task} is undefined (its gold "
                    "scores or a model's scores are nearly constant)."
                )
            values = np.resize(defined, values.shape)
            for k, name in enumerate(have):
                draws[:, t, columns[name]] = values[:, k]
                low, high = np.percentile(values[:, k], [2.5, 97.5])
                intervals[name, task] = (float(low), float(high))
    return draws, intervals


@dataclass
class _Table:
    """The ranked models' scores as a (task x model) matrix and what each column is."""

    names: list[str]
    entries: list[ModelScores]
    scores: NDArray[np.float64]


def _unique_names(
    published: Sequence[ModelScores], own: Sequence[OwnRuns]
) -> tuple[list[tuple[str, ModelScores]], dict[str, tuple[int, str]]]:
    """Every model with its display name; own runs renamed on a clash (rule own-run-name)."""
    named = [(entry.model, entry) for entry in published]
    taken = {entry.model for entry in published}
    sources: dict[str, tuple[int, str]] = {}
    for index, run in enumerate(own):
        for entry in run.models:
            name = entry.model
            if name in taken:
                name = f"{entry.model} (own run)"
                count = 1
                while name in taken:
                    count += 1
                    name = f"{entry.model} (own run #{count})"
            taken.add(name)
            sources[name] = (index, entry.model)
            named.append((name, entry))
    return named, sources


def _left_out_reason(
    entry: ModelScores, tasks: Sequence[str], incomplete: bool, elsewhere: set[str]
) -> str | None:
    """Why ``entry`` is not ranked, or None; ``elsewhere``: its tasks in revision folders set
    aside by the one-revision rule (``--revisions join`` would take them)."""
    missing = [task for task in tasks if task not in entry.scores]
    if not missing:
        return None
    join = [task for task in missing if task in elsewhere]
    if join and not incomplete:
        return (
            f"missing {len(missing)} of the {len(tasks)} selected tasks in its revision "
            f"{entry.revision!r}: {', '.join(missing)}; {', '.join(join)} "
            f"{'is' if len(join) == 1 else 'are'} in another revision folder of the model "
            "(rank it with --revisions join, as MTEB's leaderboard joins revisions)"
        )
    have = len(tasks) - len(missing)
    if incomplete and have >= 2:
        return None
    listed = ", ".join(missing)
    if incomplete:
        return (
            f"has {have} of the {len(tasks)} selected tasks (missing {listed}); at least 2 needed"
        )
    return (
        f"missing {len(missing)} of the {len(tasks)} selected tasks: {listed} (rank it with "
        "--incomplete, or choose --tasks)"
    )


def rank_models(
    folders: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    output: str | os.PathLike[str],
    tasks: Sequence[str] | str = STS_TASKS,
    seed: int = 0,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    rope: float = 0.01,
    threshold: float = 0.95,
    incomplete: bool = False,
    figures: bool = True,
    figure_formats: Sequence[str] = ("png",),
    figure_top: int = 30,
    revisions: str = "one",
) -> Ranking:
    """Rank models across MTEB's STS tasks and write the reports to ``output``.

    Parameters
    ----------
    folders : path or sequence of paths
        MTEB results folders (a copy of MTEB's results repository, its ``results/`` folder, or a
        ``ResultCache`` folder) and/or ``sts-extras leaderboard`` outputs (recognised by their
        ``cells/plan.json``). A folder that is neither is refused.
    output : path
        The folder of the reports (created if missing): ``ranking.json``, ``ranking.csv``,
        ``ranking.md``, ``ranking.tex``, ``ranking.html`` and, with ``figures``, the CD diagram
        ``cd_diagram.*`` and the rank-interval figure ``rank_intervals.*``.
    tasks : sequence of str or str, default the ten English STS tasks
        The selected tasks (a comma-separated string is accepted, as ``--tasks``).
    seed : int, default 0
        Seed of every random draw (the bootstraps and the Bayesian posterior samples).
    n_resamples : int, default 1000
        Bootstrap resamples of the tasks for the rank sets, and per-pair bootstrap replicates
        of each item-level score.
    alpha : float, default 0.05
        Level of the rank sets, of Friedman's and Nemenyi's tests (1 - the confidence level).
    rope : float, default 0.01
        Half-width of the region of practical equivalence of the Bayesian signed-rank test, on
        the score scale (0.01: one point of MTEB's 0-100 display).
    threshold : float, default 0.95
        Posterior probability above which the Bayesian test separates a pair.
    incomplete : bool, default False
        Also rank the models with at least two of the selected tasks (incomplete blocks: each
        pair compared on its common tasks). Friedman, Nemenyi and the adjacent-pair counts keep
        to the models with every task.
    figures : bool, default True
        Draw the figures (needs the ``figures`` extra, matplotlib).
    figure_formats : sequence of str, default ("png",)
        Any of "png", "pdf", "svg".
    figure_top : int, default 30
        The figures show the ``figure_top`` best-ranked models plus every model of a leaderboard
        output (all ranked models when there are at most ``figure_top + 10``).
    revisions : {"one", "join"}, default "one"
        How the revision folders of a published model are read
        (:func:`~sts_extras.rank.results.read_mteb_results`): ``"one"`` keeps one revision folder
        per model (the one with the most selected tasks, then the newest MTEB version, then the
        last name); ``"join"`` takes each task from the model's revisions in the order of MTEB's
        own join of revisions (the one its leaderboard shows). ``ranking.json`` names the rule.

    Returns
    -------
    Ranking

    Raises
    ------
    UserInputError
        A folder that does not exist or is neither kind, a leaderboard output whose records
        cannot be trusted, an unknown task, a bad setting (naming it), fewer than two models to
        rank, or an output folder that cannot be written.

    Notes
    -----
    Without per-pair predictions the within-task uncertainty of a published score is known
    only through its task's n (the Fisher-z variance of Spearman's rho, Bonett & Wright 2000);
    what stays unknown is how strongly two models' errors on the same pairs correlate, which
    decides whether their difference on one task is real. Across tasks the rank sets
    (:func:`~sts_extras.stats.cross_task.rank_confidence_sets`) studentise each difference by its
    spread over the tasks, which holds the within-task noise of every model; the per-pair
    bootstrap of the item-level models and the Fisher-z draws of the others enter the resampling
    and are reported (``settings.rank_sets.within_task``). With one task there is no task to
    resample: the rank sets rest on the within-task draws alone (the published ones independent,
    hence conservative), and Friedman's test, the Bayesian test and the adjacent-pair counts are
    ``null`` with the reason under ``not_applicable``. See ``docs/rank.md``.

    Examples
    --------
    >>> from sts_extras.rank import rank_models
    >>> ranking = rank_models(  # doctest: +SKIP
    ...     ["../shared/data/mteb-sts-results"], output="ranking", figures=False)
    >>> ranking.models[0].model, ranking.separable["nemenyi"]  # doctest: +SKIP
    """
    from sts_extras.leaderboard.run.resolve import prepare_output
    from sts_extras.rank.own_runs import read_leaderboard_output
    from sts_extras.rank.results import PublishedResults, read_mteb_results

    settings = _check_settings(
        tasks=tasks,
        seed=seed,
        n_resamples=n_resamples,
        alpha=alpha,
        rope=rope,
        threshold=threshold,
        figure_top=figure_top,
        figure_formats=figure_formats,
    )
    settings["incomplete"] = bool(incomplete)
    settings["revisions"] = _check_revisions(revisions)
    chosen: tuple[str, ...] = settings["tasks"]
    if figures:  # before any work: a missing extra is said at once
        from sts_extras.optional import check_installed

        check_installed("matplotlib", extra="figures")
    mteb_folders, own_folders = _classify(folders)
    out = prepare_output(output)
    if mteb_folders:
        published = read_mteb_results(*mteb_folders, tasks=chosen, revisions=settings["revisions"])
    else:
        published = PublishedResults(
            models=(), refused=(), set_aside=(), used_files=0, rules={}, tasks=chosen
        )
    own = [read_leaderboard_output(folder, tasks=chosen) for folder in own_folders]
    named, sources = _unique_names(published.models, own)
    left_out: list[LeftOut] = []
    ranked: list[tuple[str, ModelScores]] = []
    elsewhere: dict[str, set[str]] = {}
    for folder in published.set_aside:
        elsewhere.setdefault(folder.model, set()).update(folder.tasks)
    for name, entry in named:
        reason = _left_out_reason(
            entry, chosen, settings["incomplete"], elsewhere.get(entry.model, set())
        )
        if reason is None:
            ranked.append((name, entry))
        else:
            left_out.append(LeftOut(name, entry.revision, reason))
    if len(ranked) < 2:
        raise UserInputError(
            f"{len(ranked)} model(s) to rank on {', '.join(chosen)} ({len(left_out)} left out for "
            "missing tasks); at least 2 are needed (choose fewer --tasks or add --incomplete)."
        )
    refused = [*published.refused, *(item for run in own for item in run.refused)]
    result = _rank(ranked, sources, own, chosen, settings)
    rules = {**published.rules, **OWN_RUN_RULES, **_RANKING_RULES}
    record = _record(result, left_out, refused, published, settings, rules, own_folders)
    ranking = Ranking(
        models=result.models,
        left_out=tuple(left_out),
        refused=tuple(refused),
        set_aside=tuple(published.set_aside),
        tasks=chosen,
        settings=MappingProxyType(dict(settings)),
        rules=MappingProxyType(rules),
        separable=record["separable_adjacent_pairs"],
        record=record,
        output=out,
    )
    _write(ranking, result, out, settings, figures=figures)
    return ranking


@dataclass
class _Ranked:
    models: tuple[RankedModel, ...]
    friedman: Any
    adjacent: Any
    rank_sets: Any
    complete_names: list[str]
    own_names: set[str]


def _rank(
    ranked: Sequence[tuple[str, ModelScores]],
    sources: Mapping[str, tuple[int, str]],
    own: Sequence[OwnRuns],
    tasks: Sequence[str],
    settings: Mapping[str, Any],
) -> _Ranked:
    from sts_extras.stats.cross_task import (
        adjacent_separability,
        rank_confidence_sets,
        task_score_uncertainty,
    )

    names = [name for name, _ in ranked]
    scores = np.array(
        [
            [entry.scores[t].score if t in entry.scores else np.nan for _, entry in ranked]
            for t in tasks
        ]
    )
    n = np.array([TASK_INFO[task].n_pairs for task in tasks], dtype=np.float64)
    draws, item_intervals = _item_draws(
        own, names, sources, tasks, settings["n_resamples"], settings["seed"]
    )
    arguments = {
        "alpha": settings["alpha"],
        "n_resamples": settings["n_resamples"],
        "seed": settings["seed"],
        "correlation": "spearman",
        "models": names,
    }
    # one task: no task to resample, the rank sets rest on each score's within-task draws
    sets = rank_confidence_sets(scores, n=n, within_task_draws=draws, **arguments)
    filled = np.where(np.isnan(scores), 0.0, scores)
    fisher = task_score_uncertainty(filled, n[:, None], confidence_level=1 - settings["alpha"])
    complete = [k for k in range(len(names)) if not np.isnan(scores[:, k]).any()]
    complete_names = [names[k] for k in complete]
    adjacent = friedman = None
    if len(complete) >= 2 and len(tasks) >= 2:
        adjacent = adjacent_separability(
            scores[:, complete],
            alpha=settings["alpha"],
            rope=settings["rope"],
            threshold=settings["threshold"],
            seed=settings["seed"],
            models=complete_names,
        )
        friedman = adjacent.friedman
    mean_rank = (
        {} if friedman is None else dict(zip(friedman.models, map(float, friedman.mean_rank)))
    )
    best = set(sets.best_set)
    models = []
    for k, (name, entry) in enumerate(ranked):
        item = entry.source == "leaderboard"
        intervals = {}
        for t, task in enumerate(tasks):
            if task not in entry.scores:
                continue
            if item and (name, task) in item_intervals:
                intervals[task] = item_intervals[name, task]
            else:
                ci = fisher.confidence_interval
                intervals[task] = (float(ci.low[t, k]), float(ci.high[t, k]))
        models.append(
            RankedModel(
                model=name,
                revision=entry.revision,
                revisions=tuple(entry.revisions) or (entry.revision,),
                source=entry.source,
                treatment=ITEM_LEVEL if item else TASK_LEVEL,
                scores=MappingProxyType(
                    {t: entry.scores[t].score for t in tasks if t in entry.scores}
                ),
                task_intervals=MappingProxyType(intervals),
                mean_score=float(sets.estimate[k]),
                rank=int(sets.rank[k]),
                rank_low=int(sets.marginal_low[k]),
                rank_high=int(sets.marginal_high[k]),
                simultaneous_rank_low=int(sets.simultaneous_low[k]),
                simultaneous_rank_high=int(sets.simultaneous_high[k]),
                in_best_set=name in best,
                friedman_mean_rank=mean_rank.get(name),
                folder=entry.folder,
                rules=tuple(entry.rules)
                + (("own-run-name",) if item and name != entry.model else ()),
            )
        )
    models.sort(key=lambda m: (m.rank, m.model))
    return _Ranked(
        models=tuple(models),
        friedman=friedman,
        adjacent=adjacent,
        rank_sets=sets,
        complete_names=complete_names,
        own_names={name for name, entry in ranked if entry.source == "leaderboard"},
    )


# --------------------------------------------------------------------------------------------
# the record and the reports
# --------------------------------------------------------------------------------------------
def _record(
    result: _Ranked,
    left_out: Sequence[LeftOut],
    refused: Sequence[Refusal],
    published: Any,
    settings: Mapping[str, Any],
    rules: Mapping[str, str],
    own_folders: Sequence[Path],
) -> dict[str, Any]:
    """``ranking.json`` as a JSON object."""
    from sts_extras._version import __version__

    sets = result.rank_sets
    friedman = result.friedman
    adjacent = result.adjacent
    separable = None
    if adjacent is not None:
        separable = {
            "n_models": len(result.complete_names),
            "n_pairs": adjacent.n_pairs,
            "nemenyi": adjacent.n_separable_nemenyi,
            "bayesian": adjacent.n_separable_bayes,
            "either": adjacent.n_separable_either,
            "alpha": adjacent.alpha,
            "rope": adjacent.rope,
            "threshold": adjacent.threshold,
            "pairs": [
                {
                    "upper": pair.upper,
                    "lower": pair.lower,
                    "mean_difference": pair.mean_difference,
                    "nemenyi_separable": pair.nemenyi_separable,
                    "p_upper_better": pair.p_left,
                    "p_rope": pair.p_rope,
                    "p_lower_better": pair.p_right,
                    "bayesian_separable": pair.bayes_separable,
                }
                for pair in adjacent.pairs
            ],
        }
    return {
        "format": FORMAT,
        "versions": {"sts-extras": __version__},
        "settings": {
            "tasks": list(settings["tasks"]),
            "seed": settings["seed"],
            "n_resamples": settings["n_resamples"],
            "alpha": settings["alpha"],
            "rope": settings["rope"],
            "threshold": settings["threshold"],
            "incomplete": settings["incomplete"],
            "revisions": settings["revisions"],
            "n_pairs": {task: TASK_INFO[task].n_pairs for task in settings["tasks"]},
            "rank_sets": {
                "method": "Mogstad, Romano, Shaikh & Wilhelm (2024), step-down max-|t| over "
                + (
                    "bootstrap resamples of the tasks"
                    if len(settings["tasks"]) > 1
                    else "the within-task draws of the one task (no task to resample), each "
                    "difference studentised by the draws' standard deviation: the own runs' "
                    "per-pair bootstrap (joint), the published scores' Fisher-z draws taken as "
                    "independent (their error correlation is unknown; positively correlated "
                    "errors make the sets conservative)"
                ),
                "within_task": sets.within_task,
                "incomplete_blocks": sets.pairwise_tasks,
                "best_set": list(sets.best_set),
            },
        },
        "rules": dict(rules),
        "treatments": {
            ITEM_LEVEL: "per-pair predictions (a leaderboard output): the pairs of each task are "
            "resampled (percentile interval of each score; item-within-task plus task-level "
            "bootstrap for the rank sets)",
            TASK_LEVEL: "published scores only: each score's uncertainty within its task from "
            "the task's n (Fisher-z, Bonett & Wright 2000), tasks resampled for the rank sets; "
            "the correlation of two models' errors on the same pairs is unknown",
        },
        "models": [
            {
                "model": m.model,
                "revision": m.revision,
                "revisions": list(m.revisions),
                "source": m.source,
                "treatment": m.treatment,
                "scores": dict(m.scores),
                "task_intervals": {task: list(ci) for task, ci in m.task_intervals.items()},
                "mean_score": m.mean_score,
                "rank": m.rank,
                "rank_low": m.rank_low,
                "rank_high": m.rank_high,
                "simultaneous_rank_low": m.simultaneous_rank_low,
                "simultaneous_rank_high": m.simultaneous_rank_high,
                "in_best_set": m.in_best_set,
                "friedman_mean_rank": m.friedman_mean_rank,
                "folder": m.folder,
                "rules": list(m.rules),
            }
            for m in result.models
        ],
        "left_out": [
            {"model": item.model, "revision": item.revision, "reason": item.reason}
            for item in left_out
        ],
        "refused": [{"file": item.file, "reason": item.reason} for item in refused],
        "set_aside": [
            {"model": item.model, "revision": item.revision, "reason": item.reason}
            for item in published.set_aside
        ],
        "files": {
            "found": published.files_found,
            "used": published.used_files,
            "refused": len(published.refused),
            "set_aside": published.set_aside_files,
            "not_selected": published.not_selected,
            "leaderboard_outputs": [str(folder) for folder in own_folders],
        },
        "not_applicable": {}
        if len(settings["tasks"]) > 1
        else {
            key: f"one task ({settings['tasks'][0]}): {what} needs at least two tasks (the task "
            "is its unit)"
            for key, what in (
                ("friedman", "Friedman's test with the Nemenyi groups"),
                ("separable_adjacent_pairs", "the adjacent-pair count (Nemenyi and Bayesian)"),
                ("friedman_mean_rank", "the Friedman mean rank"),
            )
        },
        "friedman": None
        if friedman is None
        else {
            "statistic": float(friedman.statistic),
            "pvalue": float(friedman.pvalue),
            "critical_difference": float(friedman.critical_difference),
            "n_models": friedman.n_models,
            "n_tasks": friedman.n_tasks,
            "groups": [list(group) for group in friedman.groups],
        },
        "separable_adjacent_pairs": separable,
    }


def _write(
    ranking: Ranking, result: _Ranked, output: Path, settings: Mapping[str, Any], *, figures: bool
) -> None:
    """Stage every report, then swap the set into ``output`` whole."""
    from sts_extras.integrity import write_manifest
    from sts_extras.io.content import file_digest
    from sts_extras.leaderboard.run.report_set import (
        commit,
        output_errors,
        recover_output,
        staging_folder,
    )
    from sts_extras.rank import reports

    recover_output(output)
    with output_errors(output), staging_folder(output) as staging:
        reports.write_json(ranking, staging / "ranking.json")
        run_id = file_digest(staging / "ranking.json")
        reports.write_csv(ranking, staging / "ranking.csv")
        reports.write_markdown(ranking, staging / "ranking.md", run_id=run_id)
        reports.write_latex(ranking, staging / "ranking.tex")
        drawn: list[str] = []
        if figures:
            from sts_extras.rank import figures as drawing

            drawn = drawing.write_figures(
                ranking,
                result.friedman,
                staging,
                top=settings["figure_top"],
                formats=settings["figure_formats"],
            )
        reports.write_html(ranking, staging / "ranking.html", figures=drawn, run_id=run_id)
        write_manifest(staging, {"ranking": run_id})
        commit(staging, output)
