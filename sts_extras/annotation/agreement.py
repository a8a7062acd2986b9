"""Quality control of annotators: agreement with the others' consensus, and Krippendorff's α.

In a pairwise campaign an annotator rarely sees the same comparison as another, so agreement is
measured against a consensus that needs no repeated comparison. For each vote of annotator
``w`` on items ``a`` and ``b`` in ballot ``k``, the consensus is given by the Borda win ratios
(Eq. 1 of Lombardo et al., 2020, ties counting half) of ``a`` and ``b`` in ballot ``k`` computed
from every vote *except* ``w``'s (leave one annotator out). The vote agrees when it picks the
item with the higher consensus ratio. Ties (in the vote or in the consensus) and items no other
annotator voted on in that ballot are not counted. A careful annotator agrees well above 1/2,
one who votes at random near 1/2.

Krippendorff's α (nominal) is computed over the comparisons that two or more annotators judged
(units: a ballot and an unordered pair of items; values: which item won, or a tie), through the
``krippendorff`` package; it is undefined when every comparison was judged once.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from sts_extras._validation import check_open_unit_interval
from sts_extras.errors import UserInputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["DEFAULT_MIN_AGREEMENT", "AnnotatorAgreement", "annotator_agreement"]

#: Default threshold of ``--min-agreement``: an annotator who agrees with the others' consensus
#: on fewer than 60% of the votes that can be compared is flagged (chance is 50%).
DEFAULT_MIN_AGREEMENT = 0.6


@dataclass(frozen=True)
class AnnotatorAgreement:
    """Output of :func:`annotator_agreement`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per annotator, in order of first vote: ``worker_id``, ``votes``, ``compared``
        (votes with a decisive vote and consensus), ``agreement`` (share of those that agree;
        NaN when none) and ``flagged`` (``agreement < min_agreement``; never when NaN).
    overall : float
        Share of all compared votes that agree with their leave-one-annotator-out consensus.
    alpha : float or None
        Krippendorff's α over the comparisons judged by two or more annotators; None if there
        are none (or all their votes are equal, where α is undefined).
    n_repeated : int
        Comparisons judged by two or more annotators.
    min_agreement : float
    """

    table: pd.DataFrame
    overall: float
    alpha: float | None
    n_repeated: int
    min_agreement: float

    @property
    def flagged(self) -> tuple[str, ...]:
        """The flagged annotators."""
        return tuple(self.table.loc[self.table["flagged"], "worker_id"].tolist())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        import json

        return {
            "overall_agreement": self.overall,
            "krippendorff_alpha": self.alpha,
            "n_repeated_comparisons": self.n_repeated,
            "min_agreement": self.min_agreement,
            "annotators": json.loads(self.table.to_json(orient="records")),
        }


def _points(frame: pd.DataFrame, tie_label: Hashable) -> NDArray[np.float64]:
    """1 when item_a won, 0 when item_b did, 0.5 for a tie (votes checked by score_votes)."""
    winner = frame["winner"].to_numpy(dtype=object)
    is_a = winner == frame["item_a"].to_numpy(dtype=object)
    is_b = winner == frame["item_b"].to_numpy(dtype=object)
    return np.where(is_a, 1.0, np.where(is_b, 0.0, 0.5))


def _krippendorff(
    units: NDArray[np.int64], workers: NDArray[np.generic], values: NDArray[np.float64]
) -> tuple[float | None, int]:
    """Nominal α over the units with two or more values; (None, n) if undefined."""
    import krippendorff

    unit_codes, unit_index = np.unique(units, return_inverse=True)
    worker_codes, worker_index = np.unique(workers, return_inverse=True)
    # one value per (unit, worker): of a worker judging a unit twice (the pair repeated in the
    # ballot) the last vote counts; a unit is repeated when two *workers* judged it
    cell = unit_index.astype(np.int64) * worker_codes.size + worker_index
    last = cell.size - 1 - np.unique(cell[::-1], return_index=True)[1]
    unit_index, worker_index, values = unit_index[last], worker_index[last], values[last]
    judged = np.bincount(unit_index, minlength=unit_codes.size)
    repeated = np.flatnonzero(judged >= 2)
    if repeated.size == 0:
        return None, 0
    keep = np.isin(unit_index, repeated)
    column = np.searchsorted(repeated, unit_index[keep])
    kept_workers, row = np.unique(worker_index[keep], return_inverse=True)
    data = np.full((kept_workers.size, repeated.size), np.nan)
    data[row, column] = values[keep]
    if np.unique(values[keep]).size < 2:  # one value only: α is 0/0
        return None, int(repeated.size)
    alpha = float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    return (alpha if np.isfinite(alpha) else None), int(repeated.size)


def annotator_agreement(
    votes: pd.DataFrame,
    *,
    min_agreement: float = DEFAULT_MIN_AGREEMENT,
    tie_label: Hashable = "tie",
) -> AnnotatorAgreement:
    """Agreement of every annotator with the leave-one-annotator-out consensus (module docs).

    Parameters
    ----------
    votes : pandas.DataFrame
        Votes already checked by :func:`~sts_extras.annotation.scoring.score_votes` (labels
        stripped): ``item_a``, ``item_b``, ``winner``, ``worker_id`` and optionally ``ballot``.
    min_agreement : float, default 0.6
        Annotators agreeing on a smaller share of their compared votes are flagged.
    tie_label : object, default "tie"

    Returns
    -------
    AnnotatorAgreement

    Examples
    --------
    >>> import pandas as pd
    >>> votes = pd.DataFrame({
    ...     "item_a": ["x", "x", "y", "x", "x", "y"],
    ...     "item_b": ["y", "z", "z", "y", "z", "z"],
    ...     "winner": ["x", "x", "y", "y", "z", "z"],
    ...     "worker_id": ["w1", "w1", "w1", "w2", "w2", "w2"],
    ... })
    >>> result = annotator_agreement(votes)
    >>> result.table[["worker_id", "votes", "compared", "agreement"]]
      worker_id  votes  compared  agreement
    0        w1      3         3        0.0
    1        w2      3         3        0.0
    """
    import pandas as pd

    min_agreement = check_open_unit_interval(min_agreement, "min_agreement")
    if "worker_id" not in votes.columns:
        raise UserInputError(
            "the votes have no annotator ids (a `worker_id` column, Label Studio's "
            "`completed_by`, MTurk's `WorkerId`); agreement needs them."
        )
    workers = votes["worker_id"].astype(str).str.strip().to_numpy(dtype=object)
    ballots = (
        votes["ballot"].astype(str).str.strip().to_numpy(dtype=object)
        if "ballot" in votes.columns
        else np.full(len(votes), "1", dtype=object)
    )
    item_a = votes["item_a"].to_numpy(dtype=object)
    item_b = votes["item_b"].to_numpy(dtype=object)
    points = _points(votes, tie_label)

    # (ballot, item) and (worker, ballot, item) codes of both sides of every vote
    keys = pd.MultiIndex.from_arrays(
        [np.concatenate([ballots, ballots]), np.concatenate([item_a, item_b])]
    )
    cell_codes, _ = pd.factorize(keys)
    cell_a, cell_b = cell_codes[: len(votes)], cell_codes[len(votes) :]
    worker_codes, worker_names = pd.factorize(workers)
    n_cells, n_workers = int(cell_codes.max()) + 1, len(worker_names)
    both_cells = np.concatenate([cell_a, cell_b])
    both_points = np.concatenate([points, 1.0 - points])
    both_workers = np.concatenate([worker_codes, worker_codes])
    wins = np.bincount(both_cells, weights=both_points, minlength=n_cells)
    seen = np.bincount(both_cells, minlength=n_cells).astype(float)
    flat = both_workers * n_cells + both_cells
    own_wins = np.bincount(flat, weights=both_points, minlength=n_workers * n_cells)
    own_seen = np.bincount(flat, minlength=n_workers * n_cells).astype(float)

    def others(cells: NDArray[np.int64]) -> NDArray[np.float64]:
        own = worker_codes * n_cells + cells
        rest = seen[cells] - own_seen[own]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(rest > 0, (wins[cells] - own_wins[own]) / rest, np.nan)

    consensus_a, consensus_b = others(cell_a), others(cell_b)
    compared = (
        (points != 0.5)
        & np.isfinite(consensus_a)
        & np.isfinite(consensus_b)
        & (consensus_a != consensus_b)
    )
    agrees = compared & ((points == 1.0) == (consensus_a > consensus_b))
    n_votes = np.bincount(worker_codes, minlength=n_workers)
    n_compared = np.bincount(worker_codes, weights=compared, minlength=n_workers)
    n_agree = np.bincount(worker_codes, weights=agrees, minlength=n_workers)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n_compared > 0, n_agree / n_compared, np.nan)
    table = pd.DataFrame(
        {
            "worker_id": list(worker_names),
            "votes": n_votes,
            "compared": n_compared.astype(np.int64),
            "agreement": share,
            "flagged": np.nan_to_num(share, nan=1.0) < min_agreement,
        }
    )
    overall = float(agrees.sum() / compared.sum()) if compared.any() else float("nan")

    # Krippendorff: unit = ballot + unordered pair; value = lower id won (0), other (1), tie (2)
    swap = item_a.astype(str) > item_b.astype(str)
    low = np.where(swap, item_b, item_a)
    high = np.where(swap, item_a, item_b)
    units = pd.factorize(pd.MultiIndex.from_arrays([ballots, low, high]))[0]
    low_won = np.where(swap, 1.0 - points, points)
    values = np.where(points == 0.5, 2.0, np.where(low_won == 1.0, 0.0, 1.0))
    alpha, n_repeated = _krippendorff(units, worker_codes, values)
    return AnnotatorAgreement(
        table=table, overall=overall, alpha=alpha, n_repeated=n_repeated,
        min_agreement=min_agreement,
    )  # fmt: skip
