"""The numbers of Atoum (2019), "Scaled Pearson's correlation coefficient", recomputed offline.

What the paper prints, and what of it can be recomputed here:

* Its scaled-Pearson examples print **no inputs**: Figure 2's toy systems
  (perfect_for_low / _medium / _high / _all) and Figures 3-4 (LSA and Li et al. on STSS-65, r =
  0.84 and 0.81) are plots whose points are not listed, and Tables 1-2 (Pearson and scaled
  Pearson of GSE, InferSent, SIF, WMD and Li et al. on STS-B and SICK) need those systems'
  outputs, which neither the paper nor any public source gives. None of them is rebuilt here:
  inventing the points would test nothing. :func:`sts_extras.stats.scaled_pearson` is checked
  on its own worked examples and against numpy in ``tests/test_scaled_pearson.py``.
* What can be checked from the printed tables is: the usability study (Table 3's totals and
  average SUS score, Table 4's mean and standard deviation), the text's summary of Tables 1-2
  ("almost 30% lower") and the share of zero-rated pairs in §4.3. These rows are only
  arithmetic on numbers the paper prints (basis ``"arithmetic on printed numbers"``): they test
  the paper's consistency with itself, not sts-extras' code.
* §4.3's bin coverage of STS-B (the share of pairs per bin of the gold scale) needs the data:
  those rows print the ``sts-extras leaderboard`` command whose per-bin counts give it. SICK's
  bins are its entailment labels, which no MTEB STS task carries, so they are not listed.

One printed number does not add up: Table 3 gives question 10's total as 40, but its Total
(Even) of 101 and its Average SUS of 72.5 both need 17 there; the row says so. The Average SUS
row uses the printed Total (Even), 101; from the printed question totals (Total (Even) 124) it
would be 66.75, and the row says that too. "Almost 30% lower" fits the drop in points of r
(29.6), not the relative drop (41.6%): the row compares the first reading and shows both.
"""

from __future__ import annotations

import numpy as np

from sts_extras.reproduce.rows import (
    ReproducedRow,
    RowBasis,
    RowStatus,
    computed_row,
    network_row,
)

__all__ = [
    "BIN_COVERAGE",
    "CITATION",
    "PAPER",
    "PARTICIPANT_SUS",
    "SUS_QUESTION_TOTALS",
    "TABLE1_PEARSON",
    "TABLE2_SCALED_PEARSON",
    "rows",
]

PAPER = "scaled-pearson"
CITATION = (
    "I. Atoum (2019). Scaled Pearson's Correlation Coefficient for Evaluating Text Similarity "
    "Measures. Modern Applied Science 13(10):26-38."
)

#: Table 3: the column "Total" of the ten SUS questions (sum over the 10 participants' 1-5
#: answers), as printed; question 10 reads 40 (see the module docstring).
SUS_QUESTION_TOTALS = (40, 24, 38, 18, 33, 23, 40, 19, 40, 40)
#: Table 3's printed summary lines.
SUS_TOTAL_EVEN, SUS_TOTAL_ODD, SUS_AVERAGE = 101, 191, 72.5
#: Table 4: the SUS score of each participant, p1 .. p10.
PARTICIPANT_SUS = (72.5, 72.5, 65.0, 75.0, 70.0, 82.5, 72.5, 77.5, 72.5, 65.0)
#: §4.4: "a standard deviation of 5.3" of Table 4's scores.
PARTICIPANT_SD = 5.3

#: Table 1 (Pearson r) and Table 2 (scaled Pearson r), per dataset and method: (Dev, Test).
TABLE1_PEARSON: dict[str, dict[str, tuple[float, float]]] = {
    "SICK": {
        "GSE": (0.84, 0.82),
        "INF": (0.77, 0.76),
        "SIF+W2V": (0.73, 0.73),
        "SIF+GLOVE": (0.70, 0.72),
        "WMD+GLOVE": (0.64, 0.64),
        "WMD+W2V": (0.64, 0.64),
        "Li": (0.62, 0.62),
    },
    "STS": {
        "GSE": (0.79, 0.76),
        "INF": (0.78, 0.71),
        "SIF+W2V": (0.77, 0.69),
        "SIF+GLOVE": (0.76, 0.68),
        "WMD+W2V": (0.72, 0.66),
        "WMD+GLOVE": (0.71, 0.62),
        "Li": (0.70, 0.59),
    },
}
TABLE2_SCALED_PEARSON: dict[str, dict[str, tuple[float, float]]] = {
    "SICK": {
        "GSE": (0.50, 0.42),
        "INF": (0.44, 0.41),
        "SIF+W2V": (0.42, 0.41),
        "SIF+GLOVE": (0.51, 0.35),
        "WMD+GLOVE": (0.46, 0.50),
        "WMD+W2V": (0.46, 0.50),
        "Li": (0.46, 0.40),
    },
    "STS": {
        "GSE": (0.46, 0.46),
        "INF": (0.45, 0.38),
        "SIF+W2V": (0.41, 0.36),
        "SIF+GLOVE": (0.41, 0.37),
        "WMD+W2V": (0.39, 0.35),
        "WMD+GLOVE": (0.38, 0.32),
        "Li": (0.29, 0.25),
    },
}
#: §4.3: share of the pairs in each bin of the gold scale (< 1.66, 1.66-3.33, > 3.33).
BIN_COVERAGE = {"STS-TEST": (0.295, 0.318, 0.387), "STS-DEV": (0.355, 0.344, 0.301)}
#: §4.3: pairs of the 1,500-pair STS development set scored 0 by humans and overestimated by GSE.
ZERO_RATED_PAIRS, DEV_PAIRS, ZERO_RATED_PERCENT = 139, 1500, 9

_PARTICIPANTS = len(PARTICIPANT_SUS)
_HALF_LAST_DIGIT = "the paper prints one decimal: half a unit of the last digit"


def _sus_from_totals(total_odd: float, total_even: float, participants: int) -> float:
    """Mean SUS score from the answer totals of the odd and the even questions (Brooke, 1996).

    Each respondent's score is 2.5 times the sum of (answer - 1) over the five odd questions and
    (5 - answer) over the five even ones (answers 1-5), so the mean over ``participants`` is
    ``2.5 * ((total_odd - 5 p) + (25 p - total_even)) / p``. A one-line formula: no library
    needed.
    """
    return 2.5 * ((total_odd - 5 * participants) + (25 * participants - total_even)) / participants


_PRINTED: RowBasis = "arithmetic on printed numbers"


def _usability_rows() -> list[ReproducedRow]:
    totals = np.asarray(SUS_QUESTION_TOTALS, dtype=np.float64)
    scores = np.asarray(PARTICIPANT_SUS, dtype=np.float64)
    exact = "sums of printed integers: exact"
    even_from_questions = float(totals[1::2].sum())
    average_from_questions = _sus_from_totals(
        float(totals[0::2].sum()), even_from_questions, _PARTICIPANTS
    )
    return [
        computed_row(
            PAPER,
            "Table 3, Total (Odd): sum of questions 1, 3, 5, 7, 9",
            SUS_TOTAL_ODD,
            float(totals[0::2].sum()),
            tolerance=0.0,
            tolerance_reason=exact,
            basis=_PRINTED,
        ),
        computed_row(
            PAPER,
            "Table 3, Total (Even): sum of questions 2, 4, 6, 8, 10",
            SUS_TOTAL_EVEN,
            float(totals[1::2].sum()),
            tolerance=0.0,
            tolerance_reason=exact,
            why_may_differ=(
                "Question 10's total reads 40 in our copy of the paper; a total of 17 gives the "
                "printed 101, which is also what the printed Average SUS of 72.5 needs (next "
                "row): question 10's total is misprinted (in the paper or in the copy)."
            ),
            basis=_PRINTED,
        ),
        computed_row(
            PAPER,
            f"Table 3, Average SUS from the printed Total (Odd) {SUS_TOTAL_ODD} and Total (Even) "
            f"{SUS_TOTAL_EVEN}, 10 participants",
            SUS_AVERAGE,
            _sus_from_totals(SUS_TOTAL_ODD, SUS_TOTAL_EVEN, _PARTICIPANTS),
            tolerance=0.05,
            tolerance_reason=_HALF_LAST_DIGIT,
            why_may_differ=(
                f"Ours uses the printed Total (Even), {SUS_TOTAL_EVEN}. The printed question "
                f"totals add up to {even_from_questions:g} instead (question 10 reads 40, "
                "previous row), and with that total the Average SUS would be "
                f"{average_from_questions:g}, not the printed {SUS_AVERAGE:g}."
            ),
            basis=_PRINTED,
        ),
        computed_row(
            PAPER,
            "Table 4, mean of the participants' SUS scores (= Table 3's average)",
            SUS_AVERAGE,
            float(scores.mean()),
            tolerance=0.05,
            tolerance_reason=_HALF_LAST_DIGIT,
            basis=_PRINTED,
        ),
        computed_row(
            PAPER,
            "§4.4, standard deviation of Table 4's SUS scores (n − 1)",
            PARTICIPANT_SD,
            float(scores.std(ddof=1)),
            tolerance=0.05,
            tolerance_reason=f"{_HALF_LAST_DIGIT} (the population sd, 5.0, would not match)",
            basis=_PRINTED,
        ),
    ]


def _summary_rows() -> list[ReproducedRow]:
    pearson = np.array([pair for table in TABLE1_PEARSON.values() for pair in table.values()])
    scaled = np.array(
        [
            TABLE2_SCALED_PEARSON[dataset][method]
            for dataset, table in TABLE1_PEARSON.items()
            for method in table
        ]
    )
    drop_points = 100 * float(np.mean(pearson - scaled))
    relative = 100 * float(np.mean(1 - scaled / pearson))
    tolerance = 5.0
    relative_fits = abs(relative - 30) <= tolerance
    return [
        computed_row(
            PAPER,
            "§4.3, scaled Pearson 'almost 30% lower', read as points of r × 100 (mean of "
            f"Table 1 − Table 2, 28 cells; as a relative drop: {relative:.1f}%)",
            30,
            drop_points,
            tolerance=tolerance,
            tolerance_reason="a round 'almost 30': half a unit of its tens digit",
            why_may_differ=(
                "Two readings of '30% lower'. In points of r × 100 (ours, compared here) the "
                f"tables give {drop_points:.1f}, within ±{tolerance:g} of 30: this reading "
                f"{'passes' if abs(drop_points - 30) <= tolerance else 'fails'}. As a relative "
                f"drop, the mean of 1 − scaled/Pearson over the 28 cells, they give "
                f"{relative:.1f}%: that reading {'passes' if relative_fits else 'fails'}."
            ),
            basis=_PRINTED,
        ),
        computed_row(
            PAPER,
            "§4.3, 139 of the 1,500 STS development pairs scored 0, 'around 9%'",
            ZERO_RATED_PERCENT,
            100 * ZERO_RATED_PAIRS / DEV_PAIRS,
            tolerance=0.5,
            tolerance_reason="a whole percentage: half a unit",
            basis=_PRINTED,
        ),
    ]


def _coverage_rows() -> list[ReproducedRow]:
    """§4.3's bin coverage of STS-B: the leaderboard's "r per bin (n)" column gives the counts."""
    bins = ("< 1.66", "1.66-3.33", "> 3.33")
    common = (
        "Read the n of each bin in the column 'r per bin (n)' of leaderboard.md and divide by "
        "the task's pairs (any model will do). --bins 3 cuts at 5/3 and 10/3, the paper at 1.66 "
        "and 3.33: a gold score between the two cuts would change bins."
    )
    sources: dict[str, tuple[RowStatus, str, str]] = {
        "STS-TEST": (
            "needs network",
            "sts-extras leaderboard --task STSBenchmark --vectors distilled --bins 3 "
            "--output atoum-sts-test --no-figures",
            "MTEB's STSBenchmark is STS-B's test split (1,379 pairs).",
        ),
        "STS-DEV": (
            "needs data",
            "sts-extras leaderboard --task stsb-dev.csv --score-range 0 5 --vectors distilled "
            "--bins 3 --output atoum-sts-dev --no-figures",
            "Save STS-B's validation split (1,500 pairs, e.g. mteb/stsbenchmark-sts) as "
            "stsb-dev.csv with the columns sentence1, sentence2, score.",
        ),
    }
    out = []
    for split, coverage in BIN_COVERAGE.items():
        status, command, where = sources[split]
        for label, share in zip(bins, coverage):
            out.append(
                network_row(
                    PAPER,
                    f"§4.3, {split} bin coverage, gold {label}",
                    share,
                    command=command,
                    why_may_differ=f"{where} {common}",
                    status=status,
                )
            )
    return out


def rows(*, progress: bool = False) -> list[ReproducedRow]:
    """Every number of the paper that can be recomputed offline (see the module docstring).

    Parameters
    ----------
    progress : bool, default False
        Unused: the rows take well under a second.

    Returns
    -------
    list of ReproducedRow
    """
    del progress
    return _usability_rows() + _summary_rows() + _coverage_rows()
