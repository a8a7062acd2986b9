"""Adaptive pairwise vote collection and its stochastic voter model (Lombardo et al., 2020).

Plan a campaign (:func:`plan_adaptive`, :func:`plan_uniform`, :func:`draw_pairs`), score the
votes (:func:`score_votes`), and simulate it before paying for it (:func:`sample_voters`,
:func:`simulate_campaigns`), as in §2 and §4 of

    P. Lombardo, A. Boiardi, L. Colombo, A. Schiavone and N. Tamagnone, "Top-Rank-Focused
    Adaptive Vote Collection for the Evaluation of Domain-Specific Semantic Models", EMNLP 2020.

A campaign over sentence pairs: read the pairs (:func:`read_pairs`), write ballots with their
texts (:func:`ballot_table`, :func:`label_studio_tasks` with :data:`LABEL_CONFIG`), read votes
from our CSV, a Label Studio export or MTurk batch results (:func:`read_votes`), check the
annotators (:func:`annotator_agreement`) and write the STS dataset (:func:`scored_dataset`).

Plain numpy; pandas is imported by :func:`score_votes` and matplotlib by
:func:`~sts_extras.cli.annotate_plot.plot_ballot_scores` only when called.
"""

from __future__ import annotations

from sts_extras.annotation.agreement import AnnotatorAgreement, annotator_agreement
from sts_extras.annotation.ballots import LABEL_CONFIG, ballot_table, label_studio_tasks
from sts_extras.annotation.design import (
    CampaignPlan,
    DesignWarning,
    ballot_sizes,
    draw_pairs,
    plan_adaptive,
    plan_uniform,
)
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
from sts_extras.annotation.tables import read_pairs, read_sts_table, scored_dataset
from sts_extras.annotation.voters import (
    DISTRIBUTIONS,
    SIGMA_FORMS,
    SimulatedVotes,
    VoterPanel,
    sample_voters,
    simulate_votes,
    underlying_similarity,
)
from sts_extras.annotation.votes import read_vote_files, read_votes

__all__ = [
    "DISTRIBUTIONS",
    "LABEL_CONFIG",
    "PUBLISHED_CODE_SETTINGS",
    "SIGMA_FORMS",
    "TABLE2",
    "UPDATES",
    "AnnotatorAgreement",
    "BallotTrace",
    "CampaignPlan",
    "CampaignSimulationResult",
    "DesignWarning",
    "RescaledScores",
    "SimulatedVotes",
    "VoteScoresResult",
    "VoterPanel",
    "annotator_agreement",
    "ballot_sizes",
    "ballot_table",
    "draw_pairs",
    "label_studio_tasks",
    "plan_adaptive",
    "plan_uniform",
    "read_pairs",
    "read_sts_table",
    "read_vote_files",
    "read_votes",
    "rescale_scores",
    "sample_voters",
    "score_votes",
    "scored_dataset",
    "simulate_campaigns",
    "simulate_votes",
    "trace_adaptive_campaign",
    "underlying_similarity",
]
