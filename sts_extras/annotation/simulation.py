"""Simulated vote-collection campaigns: uniform vs adaptive (Lombardo et al., 2020, §4.2).

Each repetition draws one panel of voters (:func:`~sts_extras.annotation.voters.sample_voters`),
lets it vote in a uniform campaign and in an adaptive one (the same panel for both, as in the
paper, where every simulation resamples all voters' parameters), ranks the items as
:func:`~sts_extras.annotation.scoring.score_votes` does, and compares the estimated ranking with
the theoretical one (by :math:`|z_i|` for relatedness) through
:func:`sts_extras.stats.ranking.weighted_rank_correlation`: :math:`\\rho_w`, :math:`\\tau_w`
(:math:`n_0 = 2`), Spearman's :math:`\\rho` and Kendall's :math:`\\tau` (Table 2 of [1]_).

Choices that follow the authors' published simulation where the paper is silent: the uniform
baseline gets :math:`M_{unif} = \\mathrm{round}(2 N_{comp} / N_{items})` votes per item (40 for
the paper's design, 19 800 pairs against the adaptive 19 660), and equal Borda scores are
ordered at random, so the estimated ranking reaching the coefficients is a permutation.

What reproduces Table 2. By default everything follows the paper's text: Eq. 11 with
:math:`\\sigma_v(z) = \\sigma^*_v(1 - z^2)`, :math:`\\sigma^*_v \\in [0.02, 0.2]`, and Eq. 5-6 with
selection by :math:`\\bar y`. The published table was made by the authors' code, whose voters
are much less noisy (amplitude :math:`\\sigma^*_v z(1 - z)`, :math:`\\sigma^*_v \\in [0.01, 0.1]`)
and whose score update differs (see :data:`sts_extras.annotation.scoring.UPDATES`);
``simulate_campaigns(..., **PUBLISHED_CODE_SETTINGS)`` switches to those and matches every
Power-law cell and the Exponential :math:`\\tau_w` within a fraction of the paper's standard
deviations. The paper's Exponential :math:`\\rho_w`, :math:`\\rho` and :math:`\\tau` cannot be
matched by a correct computation: the authors correlate an item -> theoretical-rank list with
a position -> item list, element by element, which is harmless only when the theoretical
ranking is the item order (power law). Only the correctly aligned comparison is implemented.

References
----------
.. [1] P. Lombardo, A. Boiardi, L. Colombo, A. Schiavone and N. Tamagnone, "Top-Rank-Focused
   Adaptive Vote Collection for the Evaluation of Domain-Specific Semantic Models", Proc. EMNLP
   2020, pp. 3081-3093.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import (
    check_choice,
    check_count,
    check_positive_int,
    check_seed,
    check_work,
)
from sts_extras.annotation.design import (
    CampaignPlan,
    draw_pair_indices,
    plan_adaptive,
    plan_uniform,
)
from sts_extras.annotation.scoring import UPDATES, BallotScorer
from sts_extras.annotation.voters import (
    DISTRIBUTIONS,
    VoterPanel,
    as_similarities,
    sample_voters,
    simulate_votes,
    underlying_similarity,
)
from sts_extras.errors import UserInputError
from sts_extras.limits import MAX_CAMPAIGN_REPS, MAX_PAIRS, MAX_SIMULATED_PAIRS
from sts_extras.progress import progress_bar

__all__ = [
    "APPROACHES",
    "DEFAULT_N_ITEMS",
    "METRICS",
    "PUBLISHED_CODE_SETTINGS",
    "TABLE2",
    "BallotTrace",
    "CampaignSimulationResult",
    "simulate_campaigns",
    "trace_adaptive_campaign",
]

APPROACHES = ("uniform", "adaptive")
#: Items of a simulated campaign without ``z``: the paper's 990 (§4.1.1).
DEFAULT_N_ITEMS = 990
METRICS = ("rho_w", "tau_w", "spearman", "kendall")

#: Table 2 of Lombardo et al. (2020): (mean, sd) over 50 simulations. The Exponential row's
#: rho_w, spearman and kendall come from a misaligned comparison in the authors' code (an
#: item -> rank list correlated with a position -> item list), harmless only when the
#: theoretical ranking is the item order, as for the power law; see the module docs.
TABLE2: dict[str, dict[str, dict[str, tuple[float, float]]]] = {
    "exponential": {
        "uniform": {
            "rho_w": (0.778, 0.058),
            "tau_w": (-0.11, 0.20),
            "spearman": (0.8097, 0.0088),
            "kendall": (0.6265, 0.0091),
        },
        "adaptive": {
            "rho_w": (0.9452, 0.0028),
            "tau_w": (0.66, 0.17),
            "spearman": (0.8015, 0.0087),
            "kendall": (0.6330, 0.0098),
        },
    },
    "power_law": {
        "uniform": {
            "rho_w": (0.800, 0.062),
            "tau_w": (-0.11, 0.20),
            "spearman": (0.9713, 0.0013),
            "kendall": (0.8491, 0.0035),
        },
        "adaptive": {
            "rho_w": (0.9800, 0.0014),
            "tau_w": (0.63, 0.18),
            "spearman": (0.9632, 0.0019),
            "kendall": (0.8406, 0.0040),
        },
    },
}


#: Settings of the authors' published simulation where it departs from the paper's text:
#: nonconformity amplitude sigma*_v z (1 - z) with sigma*_v in [0.01, 0.1] (the paper: (1 - z^2),
#: [0.02, 0.2]) and their score update (see ``sts_extras.annotation.scoring.UPDATES``). With
#: them, ``simulate_campaigns`` reproduces the trustworthy cells of Table 2.
PUBLISHED_CODE_SETTINGS: dict[str, Any] = {
    "sigma_form": "z(1-z)",
    "sigma_range": (0.01, 0.1),
    "update": "published-code",
}


def _theoretical_scores(z: NDArray[np.float64], relatedness: bool) -> NDArray[np.float64]:
    """Scores whose ranking (rank 1 = highest) is the theoretical one (§4.1.1-4.1.2)."""
    return np.abs(z) if relatedness else z


def _vote_ballot(
    scorer: BallotScorer,
    ballot_items: NDArray[np.intp],
    m: int,
    panel: VoterPanel,
    rng: np.random.Generator,
) -> None:
    pairs = ballot_items[draw_pair_indices(ballot_items.size, m, rng)]
    votes = simulate_votes(panel, pairs, seed=rng)
    scorer.add_ballot(pairs[:, 0], pairs[:, 1], votes.points_a)


def run_uniform(
    plan: CampaignPlan,
    panel: VoterPanel,
    tiebreak: NDArray[np.integer],
    rng: np.random.Generator,
    update: str = "paper",
) -> BallotScorer:
    """Vote and score a uniform campaign: one ballot, every item ``plan.m`` times."""
    scorer = BallotScorer(plan.n_items, tiebreak, update)
    _vote_ballot(scorer, np.arange(plan.n_items), plan.m, panel, rng)
    return scorer


def run_adaptive(
    plan: CampaignPlan,
    panel: VoterPanel,
    tiebreak: NDArray[np.integer],
    rng: np.random.Generator,
    update: str = "paper",
) -> BallotScorer:
    """Vote and score an adaptive campaign: each ballot holds the items the last one selected."""
    if plan.alpha is None:
        raise UserInputError("`plan` must come from plan_adaptive; a uniform plan has no alpha.")
    scorer = BallotScorer(plan.n_items, tiebreak, update)
    ballot_items = np.arange(plan.n_items)
    for _ in range(plan.n_ballots):
        _vote_ballot(scorer, ballot_items, plan.m, panel, rng)
        ballot_items = scorer.select(plan.alpha)
    return scorer


def _estimated_rank(scorer: BallotScorer) -> NDArray[np.int64]:
    """Rank of every item (1 = best) under the scorer's ranking, a permutation of 1..N."""
    rank = np.empty(scorer.n_items, dtype=np.int64)
    rank[scorer.ranking()] = np.arange(1, scorer.n_items + 1)
    return rank


@dataclass(frozen=True)
class CampaignSimulationResult:
    """Output of :func:`simulate_campaigns`.

    Attributes
    ----------
    distribution : str
        ``"exponential"``, ``"power_law"`` or ``"custom"`` (user-given ``z``).
    values : dict
        ``values[approach][metric]``: the value of each repetition, approach in
        :data:`APPROACHES`, metric in :data:`METRICS`.
    adaptive_plan, uniform_plan : CampaignPlan
        The two designs compared.
    n_reps : int
    seconds : dict
        Mean wall-clock seconds per repetition of each approach (voting and scoring only).
    """

    distribution: str
    values: dict[str, dict[str, tuple[float, ...]]]
    adaptive_plan: CampaignPlan
    uniform_plan: CampaignPlan
    n_reps: int
    seconds: dict[str, float]

    def summary(self) -> dict[str, dict[str, dict[str, float]]]:
        """``{approach: {metric: {"mean": ..., "sd": ...}}}``, sd with ddof = 1 (as Table 2)."""
        out: dict[str, dict[str, dict[str, float]]] = {}
        for approach, metrics in self.values.items():
            out[approach] = {}
            for metric, values in metrics.items():
                array = np.asarray(values)
                sd = float(array.std(ddof=1)) if array.size > 1 else float("nan")
                out[approach][metric] = {"mean": float(array.mean()), "sd": sd}
        return out

    def format_table(self, *, compare: bool = True) -> str:
        """Table 2 layout; with ``compare`` the paper's row (when there is one) below ours."""
        header = f"{self.distribution} ({self.n_reps} repetitions)"
        lines = [header, f"{'':10}" + "".join(f"{metric:>18}" for metric in METRICS)]
        summary = self.summary()
        paper = TABLE2.get(self.distribution) if compare else None
        for approach in APPROACHES:
            if approach not in summary:
                continue
            cells = [
                f"{summary[approach][m]['mean']:.4f} ± {summary[approach][m]['sd']:.4f}"
                for m in METRICS
            ]
            lines.append(f"{approach:10}" + "".join(f"{cell:>18}" for cell in cells))
            if paper is not None:
                cells = [
                    f"{paper[approach][m][0]:.4f} ± {paper[approach][m][1]:.4f}" for m in METRICS
                ]
                lines.append(f"{'  (paper)':10}" + "".join(f"{cell:>18}" for cell in cells))
        return "\n".join(lines)


def _check_campaign_work(plan: CampaignPlan, n_reps: int, designs: int) -> None:
    """Refuse, before any vote is drawn, a ballot above :data:`~sts_extras.limits.MAX_PAIRS`
    pairs or more than :data:`~sts_extras.limits.MAX_SIMULATED_PAIRS` votes in all."""
    check_work(
        {"pairs of ballot 1": plan.pairs_per_ballot[0]},
        MAX_PAIRS,
        what="pairs drawn at once",
        name="m",
    )
    check_work(
        {"n_reps": n_reps, "designs": designs, "pairs per campaign": plan.n_comparisons},
        MAX_SIMULATED_PAIRS,
        what="simulated votes",
        name="n_reps",
    )


def _setup(
    distribution: str, z: ArrayLike | None, n_items: int | None
) -> tuple[str, NDArray[np.float64]]:
    """Name and underlying similarities of a campaign: the user's ``z`` or a §4.1.1 law."""
    if z is not None:
        z = as_similarities(z)
        if n_items is not None and n_items != z.size:
            raise UserInputError(
                f"`n_items` = {n_items!r} disagrees with the {z.size} similarities of `z`; "
                "leave it out (it is then len(z))."
            )
        return "custom", z
    check_choice(distribution, "distribution", DISTRIBUTIONS)
    n_items = DEFAULT_N_ITEMS if n_items is None else n_items
    return distribution, underlying_similarity(n_items, distribution)


def simulate_campaigns(
    distribution: str = "exponential",
    *,
    z: ArrayLike | None = None,
    n_reps: int = 50,
    n_items: int | None = None,
    m: int = 20,
    alpha: float = 0.5,
    n_ballots: int = 7,
    n_voters: int = 100,
    sigma_range: tuple[float, float] = (0.02, 0.2),
    epsilon_range: tuple[float, float] = (0.005, 0.05),
    relatedness: bool = True,
    sigma_form: str = "1-z^2",
    update: str = "paper",
    n0: float = 2,
    seed: int | None = 0,
    progress: bool = False,
) -> CampaignSimulationResult:
    """Simulate uniform and adaptive campaigns and score their rankings (Table 2, §4.2).

    The defaults are the paper's: 990 items, adaptive design with M = 20, alpha = 0.5,
    n_b = 7 (19 660 pairs; the paper's "N_comp = 39000" counts item-comparisons), the uniform
    baseline with the same budget (40 votes per item), 100 voters with
    :math:`\\sigma^*_v \\in [0.02, 0.2]` and :math:`\\epsilon_v \\in [0.005, 0.05]`,
    relatedness-driven votes and 50 repetitions.

    Parameters
    ----------
    distribution : {"exponential", "power_law"}, default "exponential"
        Underlying similarity of §4.1.1 (ignored when ``z`` is given).
    z : array_like, optional
        Your own underlying similarities in [-1, 1] (e.g. cosine similarities of your items);
        ``n_items`` is then ``len(z)``, and another ``n_items`` is an error.
    n_reps : int, default 50
        Repetitions; each resamples every voter's :math:`\\sigma^*_v`, :math:`\\epsilon_v`,
        :math:`\\eta^{(v)}_i`, the pairs and the votes.
    n_items : int, optional
        Items of the §4.1.1 law (default 990, the paper's); ``len(z)`` when ``z`` is given.
    m, alpha, n_ballots : see :func:`~sts_extras.annotation.design.plan_adaptive`.
    n_voters, sigma_range, epsilon_range, relatedness, sigma_form :
        See :func:`~sts_extras.annotation.voters.sample_voters`.
    update : {"paper", "published-code"}, default "paper"
        Score-update rule, see :data:`sts_extras.annotation.scoring.UPDATES`.
        ``**PUBLISHED_CODE_SETTINGS`` switches this, ``sigma_form`` and ``sigma_range`` to the
        authors' published simulation.
    n0 : float, default 2
        Offset of the weights of :math:`\\rho_w` and :math:`\\tau_w`.
    seed : int or None, default 0
        Same seed, same numbers; repetition ``r`` uses the ``r``-th child of
        ``numpy.random.SeedSequence(seed)``.
    progress : bool, default False
        Show a progress bar over the repetitions (stderr).

    Raises
    ------
    UserInputError
        An option out of range, or work above a ceiling of :mod:`sts_extras.limits`
        (``n_reps`` above ``MAX_CAMPAIGN_REPS``, ``n_items`` above ``MAX_ITEMS``, voters x items
        above ``MAX_VOTER_OPINIONS``, a ballot above ``MAX_PAIRS`` pairs, more than
        ``MAX_SIMULATED_PAIRS`` votes in all), checked before any vote is drawn.

    Returns
    -------
    CampaignSimulationResult

    Examples
    --------
    >>> result = simulate_campaigns("power_law", n_reps=2, n_items=100, m=8, n_ballots=4)
    >>> result.adaptive_plan.items_per_ballot, result.uniform_plan.m
    ((100, 50, 25, 13), 15)
    >>> sorted(result.summary()["adaptive"])
    ['kendall', 'rho_w', 'spearman', 'tau_w']
    """
    from sts_extras.stats.ranking import weighted_rank_correlation

    n_reps = check_count(n_reps, "n_reps", MAX_CAMPAIGN_REPS, why="the paper uses 50")
    name, z = _setup(distribution, z, n_items)
    if seed is not None:
        check_positive_int(seed, "seed", minimum=0)
    check_choice(update, "update", UPDATES)
    adaptive = plan_adaptive(z.size, alpha=alpha, n_ballots=n_ballots, m=m)
    uniform = plan_uniform(z.size, n_comparisons=adaptive.n_comparisons)
    _check_campaign_work(adaptive, n_reps, designs=2)
    _check_campaign_work(uniform, n_reps, designs=2)
    theoretical = _theoretical_scores(z, relatedness)
    runners = {"uniform": (run_uniform, uniform), "adaptive": (run_adaptive, adaptive)}
    values: dict[str, dict[str, list[float]]] = {a: {m_: [] for m_ in METRICS} for a in APPROACHES}
    seconds = dict.fromkeys(APPROACHES, 0.0)
    with progress_bar(n_reps, "Simulating campaigns", unit="rep", enabled=progress) as bar:
        for child in np.random.SeedSequence(seed).spawn(n_reps):
            rng = np.random.default_rng(child)
            panel = sample_voters(
                z,
                n_voters=n_voters,
                sigma_range=sigma_range,
                epsilon_range=epsilon_range,
                relatedness=relatedness,
                sigma_form=sigma_form,
                seed=rng,
            )
            tiebreak = rng.permutation(z.size)  # equal scores in random order
            for approach in APPROACHES:
                run, plan = runners[approach]
                start = time.perf_counter()
                scorer = run(plan, panel, tiebreak, rng, update)
                seconds[approach] += time.perf_counter() - start
                result = weighted_rank_correlation(-_estimated_rank(scorer), theoretical, n0=n0)
                for metric in METRICS:
                    values[approach][metric].append(float(getattr(result, metric)))
            bar.update(1)
    return CampaignSimulationResult(
        distribution=name,
        values={a: {m_: tuple(v) for m_, v in metrics.items()} for a, metrics in values.items()},
        adaptive_plan=adaptive,
        uniform_plan=uniform,
        n_reps=n_reps,
        seconds={approach: total / n_reps for approach, total in seconds.items()},
    )


@dataclass(frozen=True)
class BallotTrace:
    """One simulated adaptive campaign, ballot by ballot (the data of Fig. 4 in the paper).

    Attributes
    ----------
    theoretical_rank : numpy.ndarray
        Rank of every item by :math:`|z_i|` (1 = most related).
    raw_scores : tuple of numpy.ndarray
        :math:`x^{(k)}_i` of each ballot (NaN for items not in ballot ``k``).
    final_scores : numpy.ndarray
        :math:`\\bar y_i`, the running average after the item's last ballot (Eq. 5).
    estimated_rank : numpy.ndarray
        Rank of every item by ``final_scores`` (1 = best, a permutation).
    slopes : tuple of float
        :math:`\\hat b^{(k)}` of Eq. 6, ballots 2 .. n_b.
    """

    theoretical_rank: NDArray[np.int64]
    raw_scores: tuple[NDArray[np.float64], ...]
    final_scores: NDArray[np.float64]
    estimated_rank: NDArray[np.int64]
    slopes: tuple[float, ...]


def trace_adaptive_campaign(
    distribution: str = "exponential",
    *,
    z: ArrayLike | None = None,
    n_items: int | None = None,
    m: int = 20,
    alpha: float = 0.5,
    n_ballots: int = 7,
    n_voters: int = 100,
    sigma_range: tuple[float, float] = (0.02, 0.2),
    epsilon_range: tuple[float, float] = (0.005, 0.05),
    relatedness: bool = True,
    sigma_form: str = "1-z^2",
    update: str = "paper",
    seed: int | None = 0,
) -> BallotTrace:
    """Run one adaptive campaign and keep every ballot's scores (for a plot like Fig. 4).

    Parameters are those of :func:`simulate_campaigns`.

    Returns
    -------
    BallotTrace

    Examples
    --------
    >>> trace = trace_adaptive_campaign(n_items=200, m=10, n_ballots=4, seed=1)
    >>> [int((~np.isnan(x)).sum()) for x in trace.raw_scores]
    [200, 100, 50, 25]
    """
    _, z = _setup(distribution, z, n_items)
    check_choice(update, "update", UPDATES)
    plan = plan_adaptive(z.size, alpha=alpha, n_ballots=n_ballots, m=m)
    _check_campaign_work(plan, 1, designs=1)
    rng = check_seed(seed)
    panel = sample_voters(
        z,
        n_voters=n_voters,
        sigma_range=sigma_range,
        epsilon_range=epsilon_range,
        relatedness=relatedness,
        sigma_form=sigma_form,
        seed=rng,
    )
    scorer = run_adaptive(plan, panel, rng.permutation(z.size), rng, update)
    theoretical = _theoretical_scores(z, relatedness)
    theoretical_rank = np.empty(z.size, dtype=np.int64)
    theoretical_rank[np.argsort(-theoretical, kind="stable")] = np.arange(1, z.size + 1)
    return BallotTrace(
        theoretical_rank=theoretical_rank,
        raw_scores=tuple(scorer.raw),
        final_scores=scorer.mean.copy(),
        estimated_rank=_estimated_rank(scorer),
        slopes=tuple(scorer.slopes),
    )
