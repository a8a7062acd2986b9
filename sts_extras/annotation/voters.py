"""A Thurstonian model of voters comparing pairs of items (Lombardo et al., 2020, §4.1).

Voter ``v`` perceives item ``i`` as

.. math::

    o^{(v)}_i = F\\left(z_i + \\sigma_v(z_i)\\, \\eta^{(v)}_i\\right), \\qquad
    \\sigma_v(z) = \\sigma^*_v (1 - z^2), \\qquad F(x) = \\max(-1, \\min(1, x))

(Eq. 11), with :math:`\\eta^{(v)}_i \\sim N(0, 1)` drawn once per voter and item, votes for the
item it perceives higher, and with probability :math:`\\epsilon_v` (oversight) for the other
one. For relatedness-driven comparisons (§4.1.2) the opinion is :math:`|o^{(v)}_i|` and the
theoretical ranking follows :math:`|z_i|`.

The authors' published simulation uses another amplitude, :math:`\\sigma^*_v z (1 - z)` with
:math:`\\sigma^*_v \\in [0.01, 0.1]` instead of the paper's :math:`[0.02, 0.2]`; it is available
as ``sigma_form="z(1-z)"`` because it, not the text's model, produced Table 2 of the paper.

References
----------
.. [1] P. Lombardo, A. Boiardi, L. Colombo, A. Schiavone and N. Tamagnone, "Top-Rank-Focused
   Adaptive Vote Collection for the Evaluation of Domain-Specific Semantic Models", Proc. EMNLP
   2020, pp. 3081-3093.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sts_extras._validation import (
    as_float_vector,
    check_choice,
    check_count,
    check_positive_int,
    check_seed,
    check_work,
)
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.limits import MAX_ITEMS, MAX_VOTER_OPINIONS

__all__ = [
    "DISTRIBUTIONS",
    "SIGMA_FORMS",
    "SimulatedVotes",
    "VoterPanel",
    "as_similarities",
    "sample_voters",
    "simulate_votes",
    "underlying_similarity",
]

DISTRIBUTIONS = ("exponential", "power_law")
SIGMA_FORMS = ("1-z^2", "z(1-z)")


def underlying_similarity(n_items: int, distribution: str = "exponential") -> NDArray[np.float64]:
    """Underlying similarities :math:`z_i` of §4.1.1 (items ``i = 1 .. N_items``).

    Parameters
    ----------
    n_items : int
        :math:`N_{items}`.
    distribution : {"exponential", "power_law"}
        ``exponential``: :math:`z_i = 2 e^{-i/N_{items}} - 1`;
        ``power_law``: :math:`z_i = 2 / (1 + \\sqrt{i/N_{items}}) - 1`.

    Returns
    -------
    numpy.ndarray
        Decreasing in ``i``. The exponential one turns negative after
        :math:`i = N \\ln 2`, so its relatedness ranking (by :math:`|z_i|`) is not the item order.

    Examples
    --------
    >>> underlying_similarity(4, "power_law").round(4).tolist()
    [0.3333, 0.1716, 0.0718, 0.0]
    """
    n_items = check_count(n_items, "n_items", MAX_ITEMS, minimum=2, why="the paper has 990")
    check_choice(distribution, "distribution", DISTRIBUTIONS)
    position = np.arange(1, n_items + 1) / n_items
    if distribution == "exponential":
        return 2.0 * np.exp(-position) - 1.0
    return 2.0 / (1.0 + np.sqrt(position)) - 1.0


@dataclass(frozen=True)
class VoterPanel:
    """A sampled panel of voters (§4.1).

    Attributes
    ----------
    opinions : numpy.ndarray
        Shape ``(n_voters, n_items)``: :math:`o^{(v)}_i` of Eq. 11 (absolute value when
        ``relatedness``).
    sigma_star : numpy.ndarray
        :math:`\\sigma^*_v`, nonconformity level of each voter.
    epsilon : numpy.ndarray
        :math:`\\epsilon_v`, oversight probability of each voter.
    relatedness : bool
        Whether opinions are relatedness-driven (§4.1.2).
    """

    opinions: NDArray[np.float64]
    sigma_star: NDArray[np.float64]
    epsilon: NDArray[np.float64]
    relatedness: bool

    @property
    def n_voters(self) -> int:
        return int(self.opinions.shape[0])

    @property
    def n_items(self) -> int:
        return int(self.opinions.shape[1])


def _check_range(
    value: Iterable[float], name: str, *, upper: float | None = None
) -> tuple[float, float]:
    try:
        low, high = (float(bound) for bound in value)
    except (TypeError, ValueError):
        raise UserInputTypeError(
            f"`{name}` must be a pair (low, high) of numbers, got {value!r}."
        ) from None
    if not (np.isfinite(low) and np.isfinite(high) and 0.0 <= low <= high):
        raise UserInputError(f"`{name}` must satisfy 0 <= low <= high, got ({low}, {high}).")
    if upper is not None and high >= upper:
        raise UserInputError(f"`{name}` must stay below {upper}, got ({low}, {high}).")
    return low, high


def as_similarities(z: ArrayLike, name: str = "z") -> NDArray[np.float64]:
    """Validate user-given underlying similarities: finite, in [-1, 1], at least 2 items."""
    z = as_float_vector(z, name, min_size=2)
    outside = np.flatnonzero(np.abs(z) > 1.0)
    if outside.size:
        raise UserInputError(
            f"`{name}` must lie in [-1, 1] (§4.1.1); {outside.size} value(s) do not, the first "
            f"at index {outside[0]} ({z[outside[0]]})."
        )
    return z


def sample_voters(
    z: ArrayLike,
    *,
    n_voters: int = 100,
    sigma_range: tuple[float, float] = (0.02, 0.2),
    epsilon_range: tuple[float, float] = (0.005, 0.05),
    relatedness: bool = True,
    sigma_form: str = "1-z^2",
    seed: int | np.random.Generator | None = None,
) -> VoterPanel:
    """Draw a panel of voters and their opinions of every item (Eq. 11 in Lombardo et al.).

    Parameters
    ----------
    z : array_like
        Underlying similarities :math:`z_i \\in [-1, 1]`, e.g. from
        :func:`underlying_similarity` or from a model or embedding of your own items.
    n_voters : int, default 100
        :math:`N_{voters}`.
    sigma_range : (float, float), default (0.02, 0.2)
        :math:`\\sigma^*_v` is uniform on this interval (§4.2).
    epsilon_range : (float, float), default (0.005, 0.05)
        :math:`\\epsilon_v` is uniform on this interval (§4.2).
    relatedness : bool, default True
        Relatedness-driven opinions :math:`|o^{(v)}_i|` (§4.1.2) instead of similarity-driven.
    sigma_form : {"1-z^2", "z(1-z)"}, default "1-z^2"
        Shape of the nonconformity amplitude: the paper's
        :math:`\\sigma_v(z) = \\sigma^*_v (1 - z^2)` (§4.1.1), or
        :math:`\\sigma^*_v z (1 - z)`, the one in the authors' published simulation, which
        they ran with :math:`\\sigma^*_v \\in [0.01, 0.1]` and which reproduces their Table 2
        (see :data:`sts_extras.annotation.simulation.PUBLISHED_CODE_SETTINGS`). Near
        :math:`z = 0.5` the published-code voters are about six times less noisy.
    seed : int, numpy.random.Generator or None

    Returns
    -------
    VoterPanel

    Notes
    -----
    .. math::

        o^{(v)}_i = F\\left(z_i + \\sigma^*_v (1 - z_i^2)\\, \\eta^{(v)}_i\\right)

    (Eq. 11 with :math:`\\sigma_v(z) = \\sigma^*_v (1 - z^2)`, §4.1.1 of [1]_).

    References
    ----------
    .. [1] Lombardo et al., "Top-Rank-Focused Adaptive Vote Collection for the Evaluation of
       Domain-Specific Semantic Models", EMNLP 2020.

    Examples
    --------
    >>> panel = sample_voters([0.9, 0.5, -0.7], n_voters=2, sigma_range=(0, 0), seed=0)
    >>> panel.opinions.tolist()
    [[0.9, 0.5, 0.7], [0.9, 0.5, 0.7]]
    """
    z = as_similarities(z)
    n_voters = check_positive_int(n_voters, "n_voters")
    check_work(
        {"n_voters": n_voters, "items": z.size},
        MAX_VOTER_OPINIONS,
        what="voter opinions (float64 arrays of voters x items)",
        name="n_voters",
    )
    sigma_low, sigma_high = _check_range(sigma_range, "sigma_range")
    epsilon_low, epsilon_high = _check_range(epsilon_range, "epsilon_range", upper=0.5)
    check_choice(sigma_form, "sigma_form", SIGMA_FORMS)
    rng = check_seed(seed)
    sigma_star = rng.uniform(sigma_low, sigma_high, n_voters)
    epsilon = rng.uniform(epsilon_low, epsilon_high, n_voters)
    eta = rng.standard_normal((n_voters, z.size))
    amplitude = 1.0 - z**2 if sigma_form == "1-z^2" else z * (1.0 - z)
    opinions = np.clip(z + sigma_star[:, None] * amplitude * eta, -1.0, 1.0)
    if relatedness:
        opinions = np.abs(opinions)
    return VoterPanel(
        opinions=opinions, sigma_star=sigma_star, epsilon=epsilon, relatedness=bool(relatedness)
    )


@dataclass(frozen=True)
class SimulatedVotes:
    """Output of :func:`simulate_votes`.

    Attributes
    ----------
    points_a : numpy.ndarray
        1.0 when the first item of the pair won, 0.0 when the second did, 0.5 for a tie (both
        opinions equal, e.g. both clipped at 1).
    voter : numpy.ndarray
        Index of the voter who judged each pair.
    oversight : numpy.ndarray
        Whether the voter voted against its own opinion (probability :math:`\\epsilon_v`).
    """

    points_a: NDArray[np.float64]
    voter: NDArray[np.int64]
    oversight: NDArray[np.bool_]


def simulate_votes(
    panel: VoterPanel, pairs: ArrayLike, *, seed: int | np.random.Generator | None = None
) -> SimulatedVotes:
    """Let a panel vote on a list of pairs (§4.1): one voter per pair, voters equally loaded.

    Parameters
    ----------
    panel : VoterPanel
    pairs : array_like of int, shape (n_pairs, 2)
        Item indices (columns of ``panel.opinions``).
    seed : int, numpy.random.Generator or None
        Draws which voter judges which pair (each voter gets ``n_pairs // n_voters`` or one
        more) and the oversights.

    Returns
    -------
    SimulatedVotes

    Examples
    --------
    >>> panel = sample_voters([0.9, 0.5, 0.1], n_voters=3, sigma_range=(0, 0),
    ...                       epsilon_range=(0, 0), seed=0)
    >>> simulate_votes(panel, [[0, 1], [2, 1], [2, 0]], seed=0).points_a.tolist()
    [1.0, 0.0, 0.0]
    """
    if not isinstance(panel, VoterPanel):
        raise UserInputTypeError(f"`panel` must be a VoterPanel, got {type(panel).__name__}.")
    pairs = np.asarray(pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or not np.issubdtype(pairs.dtype, np.integer):
        raise UserInputError(
            f"`pairs` must be an integer array of shape (n_pairs, 2), got dtype {pairs.dtype} "
            f"and shape {pairs.shape}."
        )
    if pairs.size and (pairs.min() < 0 or pairs.max() >= panel.n_items):
        raise UserInputError(
            f"`pairs` must index the panel's {panel.n_items} items (0 .. {panel.n_items - 1}), "
            f"got values from {pairs.min()} to {pairs.max()}."
        )
    rng = check_seed(seed)
    n_pairs = pairs.shape[0]
    voter = rng.permutation(np.arange(n_pairs) % panel.n_voters)
    opinion_a = panel.opinions[voter, pairs[:, 0]]
    opinion_b = panel.opinions[voter, pairs[:, 1]]
    points = np.where(opinion_a > opinion_b, 1.0, np.where(opinion_a < opinion_b, 0.0, 0.5))
    oversight = (rng.random(n_pairs) < panel.epsilon[voter]) & (points != 0.5)
    points = np.where(oversight, 1.0 - points, points)
    return SimulatedVotes(points_a=points, voter=voter, oversight=oversight)
