"""Specification of ``sts-extras reproduce scaled-pearson``: Atoum (2019)'s printed numbers.

The paper prints no inputs for its scaled-Pearson examples (its figures are plots, its tables
need the systems' outputs), so what is recomputed is what its tables determine: the usability
study (Tables 3-4) and two statements of §4.3. Each row is checked here against an independent
computation (per-question SUS contributions, ``statistics``), and the rows that need STS-B print
a command the real parser accepts.
"""

from __future__ import annotations

import shlex
import statistics

import pytest

from sts_extras.cli.dispatch import build_parser
from sts_extras.reproduce import scaled_pearson
from sts_extras.reproduce.scaled_pearson import (
    PARTICIPANT_SUS,
    SUS_QUESTION_TOTALS,
    TABLE1_PEARSON,
    TABLE2_SCALED_PEARSON,
    rows,
)

ROWS = rows()
COMPUTED = [row for row in ROWS if row.ours is not None]
NETWORK = [row for row in ROWS if row.ours is None]


def _row(start: str):
    (found,) = [row for row in ROWS if row.quantity.startswith(start)]
    return found


def test_the_module_names_its_paper():
    assert scaled_pearson.PAPER == "scaled-pearson"
    assert "Atoum" in scaled_pearson.CITATION and "2019" in scaled_pearson.CITATION
    assert all(row.paper == "scaled-pearson" for row in ROWS)


@pytest.mark.parametrize("row", COMPUTED, ids=[row.quantity for row in COMPUTED])
def test_each_computed_row_is_within_its_tolerance_or_explains_why_not(row):
    assert row.tolerance_reason
    within = abs(row.ours - row.paper_value) <= row.tolerance
    assert row.status == ("match" if within else "differs (explained)")
    if not within:
        assert row.why_may_differ
    # only question 10's misprint keeps a row from matching
    assert within == (not row.quantity.startswith("Table 3, Total (Even)"))


def test_sus_average_from_per_question_contributions():
    # Brooke (1996): an odd question contributes (answer - 1), an even one (5 - answer); summed
    # over 10 participants a question contributes total - 10 (odd) or 50 - total (even).
    n = len(PARTICIPANT_SUS)
    totals = list(SUS_QUESTION_TOTALS)
    totals[9] = 17  # the value the printed Total (Even) and Average SUS need
    contributions = [
        total - n if number % 2 else 5 * n - total for number, total in enumerate(totals, start=1)
    ]
    assert sum(totals[1::2]) == 101
    assert sum(totals[0::2]) == 191
    assert 2.5 * sum(contributions) / n == 72.5 == _row("Table 3, Average SUS").ours
    # as printed (question 10 = 40) the even total is 124 and the average would be 66.75
    assert _row("Table 3, Total (Even)").ours == 24 + 18 + 23 + 19 + 40


def test_average_sus_row_says_it_uses_the_printed_total_not_the_question_totals():
    n = len(PARTICIPANT_SUS)
    odd, even = sum(SUS_QUESTION_TOTALS[0::2]), sum(SUS_QUESTION_TOTALS[1::2])
    from_questions = 2.5 * ((odd - 5 * n) + (25 * n - even)) / n
    assert (odd, even, from_questions) == (191, 124, 66.75)
    row = _row("Table 3, Average SUS")
    assert "printed" in row.quantity and "101" in row.quantity
    assert "101" in row.why_may_differ and "124" in row.why_may_differ
    assert "66.75" in row.why_may_differ


def test_table4_mean_and_sample_sd():
    assert _row("Table 4, mean").ours == pytest.approx(statistics.mean(PARTICIPANT_SUS))
    sd_row = _row("§4.4, standard deviation")
    assert sd_row.ours == pytest.approx(statistics.stdev(PARTICIPANT_SUS))
    assert round(statistics.stdev(PARTICIPANT_SUS), 1) == sd_row.paper_value == 5.3
    assert round(statistics.pstdev(PARTICIPANT_SUS), 1) == 5.0  # the population sd would not do


def test_almost_30_percent_is_the_drop_in_points_of_r():
    drops = [
        pearson - scaled
        for dataset, table in TABLE1_PEARSON.items()
        for method, pairs in table.items()
        for pearson, scaled in zip(pairs, TABLE2_SCALED_PEARSON[dataset][method])
    ]
    assert len(drops) == 28
    row = _row("§4.3, scaled Pearson 'almost 30% lower'")
    assert row.ours == pytest.approx(100 * statistics.mean(drops))
    assert 25 <= row.ours <= 30 and row.status == "match"
    # the relative reading, which does not fit: the mean of 1 - scaled / Pearson
    relative = 100 * statistics.mean(
        1 - scaled / pearson
        for dataset, table in TABLE1_PEARSON.items()
        for method, pairs in table.items()
        for pearson, scaled in zip(pairs, TABLE2_SCALED_PEARSON[dataset][method])
    )
    assert round(relative, 1) == 41.6 and abs(relative - 30) > row.tolerance
    assert "points of r" in row.quantity and "relative drop: 41.6%" in row.quantity
    assert "this reading passes" in row.why_may_differ
    assert "41.6%: that reading fails" in row.why_may_differ


def test_every_computed_row_is_arithmetic_on_printed_numbers():
    # sums, means, Brooke's formula and a share of printed numbers: nothing of sts-extras runs
    assert {row.basis for row in COMPUTED} == {"arithmetic on printed numbers"}


def test_share_of_zero_rated_pairs():
    assert _row("§4.3, 139 of the 1,500").ours == pytest.approx(139 / 1500 * 100)


@pytest.mark.parametrize("row", NETWORK, ids=[row.quantity for row in NETWORK])
def test_bin_coverage_rows_print_a_command_the_parser_accepts(row):
    assert row.status in ("needs network", "needs data")
    words = shlex.split(row.command)
    assert words[0] == "sts-extras"
    args = build_parser().parse_args(words[1:])
    assert args.command == "leaderboard"
    assert args.bins == 3
    assert row.why_may_differ


def test_bin_coverage_rows_hold_the_papers_shares():
    for split in ("STS-TEST", "STS-DEV"):
        shares = [row.paper_value for row in NETWORK if f"{split} bin" in row.quantity]
        assert len(shares) == 3
        assert sum(shares) == pytest.approx(1.0, abs=1e-9)
