"""Adaptive pairwise vote collection and its stochastic voter model (Lombardo et al., 2020).

Plan a campaign (:func:`plan_adaptive`, :func:`plan_uniform`, :func:`draw_pairs`), score the
votes (:func:`score_votes`), and simulate it before paying for it (:func:`sample_voters`,
:func:`simulate_campaigns`), as in §2 and §4 of

    P. Lombardo, A. Boiardi, L. Colombo, A. Schiavone and N. Tamagnone, "Top-Rank-Focused
    Adaptive Vote Collection for the Evaluation of Domain-Specific Semantic Models", EMNLP 2020.

Plain numpy; pandas is imported by :func:`score_votes` and matplotlib by
:func:`plot_ballot_scores` only when called.
"""

from __future__ import annotations

from sts_extras.annotation.design import (
    CampaignPlan,
    DesignWarning,
    ballot_sizes,
    draw_pairs,
    plan_adaptive,
    plan_uniform,
)
from sts_extras.annotation.plotting import plot_ballot_scores
from sts_extras.annotation.scoring import (
    UPDATES,
    RescaledScores,
    VoteScoresResult,
    rescale_scores,
    score_votes,
)
from sts_extras.annotation.simulation import (
    PUBLISHED_CODE_SETTINGS,
    TABLE2,
    BallotTrace,
    CampaignSimulationResult,
    simulate_campaigns,
    trace_adaptive_campaign,
)
from sts_extras.annotation.voters import (
    DISTRIBUTIONS,
    SIGMA_FORMS,
    SimulatedVotes,
    VoterPanel,
    sample_voters,
    simulate_votes,
    underlying_similarity,
)

__all__ = [
    "DISTRIBUTIONS",
    "PUBLISHED_CODE_SETTINGS",
    "SIGMA_FORMS",
    "TABLE2",
    "UPDATES",
    "BallotTrace",
    "CampaignPlan",
    "CampaignSimulationResult",
    "DesignWarning",
    "RescaledScores",
    "SimulatedVotes",
    "VoteScoresResult",
    "VoterPanel",
    "ballot_sizes",
    "draw_pairs",
    "plan_adaptive",
    "plan_uniform",
    "plot_ballot_scores",
    "rescale_scores",
    "sample_voters",
    "score_votes",
    "simulate_campaigns",
    "simulate_votes",
    "trace_adaptive_campaign",
    "underlying_similarity",
]
