"""The STSS-131 report's numbers: its pair counts, calibration pairs and worked Steiger test.

O'Shea, Bandar & Crockett (2013) give, in part A, per sentence pair the mean and standard deviation
of the human ratings (Table 1, SP66-SP131, with two calibration pairs borrowed from STSS-65, SP99
and SP129, "for reference only"), and in part B a worked comparison of STASIS (r = 0.636 with the
human ratings) and LSA (0.693), which correlate 0.52 with each other over "n=64 (64 Sentence Pairs
without the two calibration pairs)": three "Steiger's Z" values with one-sided and two-sided
p-values.

Checked here: part B's 64 usable pairs and part A's two calibration pairs against the packaged
table (:func:`sts_extras.benchmark_tables.read_rows`; the seed text is an OCR copy, and the
package follows the born-digital report's values where the two disagree), the calibration pairs'
printed values against that table, and the worked comparison recomputed through
:func:`sts_extras.stats.dependent.dependent_correlation_test`. The printed z values are those of
Meng, Rosenthal & Rubin (1992), not of Steiger's (1980) pooled-r formula that R's cocor calls
``steiger1980`` (it gives -0.6768, 1.4823, 2.1349).

The sums of the 64 means (129.48) and of the 64 standard deviations (45.32) are not rows: the
report prints neither; they are a checksum of the package's own copy of the table
(:data:`CHECKSUM`, tested with the data, not reported as a paper figure).
"""

from __future__ import annotations

from sts_extras.benchmark_tables import read_rows
from sts_extras.reproduce.rows import ReproducedRow, computed_row
from sts_extras.stats.dependent import dependent_correlation_test

__all__ = ["CHECKSUM", "CITATION", "PAPER", "SP129_SD_READINGS", "STEIGER_EXAMPLE", "rows"]

PAPER = "stss131"
CITATION = (
    "O'Shea, J., Bandar, Z. & Crockett, K. (2013). A New Benchmark Dataset with Production "
    "Methodology for Short Text Semantic Similarity Algorithms. ACM TSLP 10(4); report extract "
    "'STSS-131'."
)

#: The report's inputs (Table IV of the paper; n = 64 pairs without the calibration pairs).
R_STASIS_HUMAN = 0.636
R_LSA_HUMAN = 0.693
R_STASIS_LSA = 0.52
N_PAIRS = 64
#: Sums of the 64 usable pairs' means and standard deviations in the package's copy of Table 1:
#: a checksum of that copy (DESIGN.md), not a number the report prints.
CHECKSUM = {"score": 129.48, "sd": 45.32}
#: SP129's sd as our OCR copy of Table 1 prints it, on each of the pair's lines: (first, second).
SP129_SD_READINGS = (0.42, 0.43)
#: The worked comparisons of part B: (label, r1, r2, r12, printed difference, printed z,
#: printed p (H1: r1 > r2), printed left p, printed two-sided p). r1 and r2 share one variable
#: (the report's j: r_jk, r_jh); r12 (r_kh) is the correlation of the other two.
STEIGER_EXAMPLE = (
    (
        "STASIS-human vs LSA-human",
        R_STASIS_HUMAN,
        R_LSA_HUMAN,
        R_STASIS_LSA,
        -0.057,
        -0.677,
        0.7507,
        0.2493,
        0.4986,
    ),
    (
        "STASIS-human vs STASIS-LSA",
        R_STASIS_HUMAN,
        R_STASIS_LSA,
        R_LSA_HUMAN,
        0.116,
        1.48,
        0.0695,
        0.9305,
        0.139,
    ),
    (
        "LSA-human vs LSA-STASIS",
        R_LSA_HUMAN,
        R_STASIS_LSA,
        R_STASIS_HUMAN,
        0.173,
        2.126,
        0.0167,
        0.9833,
        0.0334,
    ),
)
_METHOD = "meng1992"
_METHOD_NOTE = (
    "The report calls it Steiger's Z; its values are Meng, Rosenthal & Rubin's (1992) z "
    "(method meng1992), not cocor's pooled-r steiger1980."
)
_COUNT = "a count: exact"


def _half_unit(printed: float) -> tuple[float, str]:
    """Half a unit of the last printed digit of ``printed``, and the reason in words."""
    text = f"{printed:.6f}".rstrip("0")
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0**-decimals, f"printed to {decimals} decimals: half a unit of the last digit"


def _table_rows() -> list[ReproducedRow]:
    usable = read_rows(PAPER)
    every = read_rows(PAPER, "all")
    calibration = {row["id"]: row for row in every if row["calibration"]}
    rows = [
        computed_row(
            PAPER,
            "Part B: usable sentence pairs ('n=64 (64 Sentence Pairs without the two "
            "calibration pairs)')",
            N_PAIRS,
            len(usable),
            tolerance=0,
            tolerance_reason=_COUNT,
            basis="packaged data",
        ),
        computed_row(
            PAPER,
            "Part A: calibration pairs (from STSS-65)",
            2,
            len(calibration),
            tolerance=0,
            tolerance_reason=_COUNT,
            basis="packaged data",
        ),
    ]
    first, second = SP129_SD_READINGS
    sp129_sd = (
        f"Our OCR copy of Table 1 prints SP129's numbers twice: mean 0.11 and sd {first} on the "
        f"pair's first line, 0.11 and {second} on the next. DESIGN.md's errata from the "
        "born-digital report do not cover this calibration pair, so neither is confirmed there. "
        f"We use {second}, as the packaged table does: SP129's row has three lines (its second "
        f"sentence wraps) and {second} is on the middle one, where the copy puts the numbers of "
        "its other three-line rows: SP125's, and SP115's, whose born-digital values (0.88/0.75) "
        "are those of its middle line, not the 0.00/0.75 repeated below. Read as "
        f"{first}, this row would differ by {second - first:.2f}."
    )
    for pair, mean, sd in ((99, 3.96, 0.16), (129, 0.11, second)):
        for label, printed, column in (("mean", mean, "score"), ("sd", sd, "sd")):
            rows.append(
                computed_row(
                    PAPER,
                    f"Table 1: calibration pair SP{pair}, {label} (config 'all')",
                    printed,
                    calibration[pair][column],
                    tolerance=0.005,
                    tolerance_reason="printed to 2 decimals: half a unit of the last digit",
                    why_may_differ=sp129_sd if (pair, label) == (129, "sd") else "",
                    basis="packaged data",
                )
            )
    return rows


def _steiger_rows() -> list[ReproducedRow]:
    rows = []
    for label, r1, r2, r12, difference, z, p_greater, p_less, p_two in STEIGER_EXAMPLE:
        results = {
            alternative: dependent_correlation_test(
                r1, r2, r12, N_PAIRS, method=_METHOD, alternative=alternative
            )
            for alternative in ("greater", "less", "two-sided")
        }
        where = f"Part B, {label} (n = {N_PAIRS})"
        tolerance, reason = _half_unit(difference)
        rows.append(
            computed_row(
                PAPER,
                f"{where}: r difference",
                difference,
                results["greater"].difference,
                tolerance=tolerance,
                tolerance_reason=reason,
            )
        )
        tolerance, reason = _half_unit(z)
        rows.append(
            computed_row(
                PAPER,
                f"{where}: z",
                z,
                results["greater"].statistic,
                tolerance=tolerance,
                tolerance_reason=reason,
                why_may_differ=_METHOD_NOTE,
            )
        )
        for name, printed, alternative in (
            ("p", p_greater, "greater"),
            ("left p", p_less, "less"),
            ("two-sided p", p_two, "two-sided"),
        ):
            tolerance, reason = _half_unit(printed)
            doubled = 2 * min(p_greater, p_less)
            why = (
                f"The report's two-sided p is twice its rounded one-sided p (2 x "
                f"{min(p_greater, p_less):g} = {doubled:.4g}), not the rounded two-sided p."
                if alternative == "two-sided"
                else ""
            )
            rows.append(
                computed_row(
                    PAPER,
                    f"{where}: {name}",
                    printed,
                    results[alternative].pvalue,
                    tolerance=tolerance,
                    tolerance_reason=reason,
                    why_may_differ=why,
                )
            )
    return rows


def rows(*, progress: bool = False) -> list[ReproducedRow]:
    """Every published STSS-131 number this package can recompute (all of them, offline).

    Parameters
    ----------
    progress : bool, default False
        Unused: nothing here takes long enough for a bar (accepted for the paper interface).

    Returns
    -------
    list of ReproducedRow
        The counts of usable and calibration pairs, the calibration pairs' values, then the
        worked comparison of part B.
    """
    del progress
    return [*_table_rows(), *_steiger_rows()]
