"""Specification of ``sts-extras reproduce dynamax``: Zhelezniak et al. (2019)'s numbers.

Offline: §2's example (two sentences without a shared word score 0 under every set similarity),
Table 1's cells as the mean of Table 6's subtask correlations, and Appendix D's count of
significant wins from Table 6's intervals -- each checked against an independent computation.
Tables 1, 2 and 5 on STS12-16 need the network: their rows print a ``sts-extras leaderboard``
command that the real parser accepts, over MTEB task names that exist.
"""

from __future__ import annotations

import math
import shlex
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sts_extras.cli.dispatch import build_parser
from sts_extras.reproduce import dynamax
from sts_extras.reproduce.dynamax import STS_TASKS, TABLE1, TABLE6, TABLE6_SUBTASKS, rows
from sts_extras.similarity import maxpool_similarity

ROWS = rows()
OFFLINE = [row for row in ROWS if row.ours is not None]
NETWORK = [row for row in ROWS if row.ours is None]


def _row(start: str):
    (found,) = [row for row in OFFLINE if row.quantity.startswith(start)]
    return found


def test_the_module_names_its_paper():
    assert dynamax.PAPER == "dynamax"
    assert "Zhelezniak" in dynamax.CITATION and "2019" in dynamax.CITATION
    assert all(row.paper == "dynamax" for row in ROWS)


@pytest.mark.parametrize("row", OFFLINE, ids=[row.quantity for row in OFFLINE])
def test_each_offline_row_is_within_its_tolerance_or_explains_why_not(row):
    assert row.tolerance_reason
    within = abs(row.ours - row.paper_value) <= row.tolerance
    assert row.status == ("match" if within else "differs (explained)")
    # the one cell that differs is the one whose Table 6 input repeats another subtask's value
    assert within == (not row.quantity.startswith("Table 1, GloVe DynaMax, STS15"))
    if not within:
        assert "79.30" in row.why_may_differ


def test_offline_rows_name_their_basis():
    # §2 runs maxpool_similarity; Table 1 from Table 6 and Appendix D only add up printed numbers
    for row in OFFLINE:
        expected = (
            "recomputed" if row.quantity.startswith("§2,") else "arithmetic on printed numbers"
        )
        assert row.basis == expected, row.quantity
    assert sum(row.basis == "arithmetic on printed numbers" for row in OFFLINE) == 28 + 6


def test_section2_sets_share_no_word_so_every_measure_is_0():
    a, b = {"he", "has", "a", "cat"}, {"she", "had", "one", "dog"}
    assert len(a & b) / len(a | b) == 0  # classical Jaccard
    for measure in ("Jaccard", "Otsuka", "Dice"):
        assert _row(f"§2, {measure}(").ours == 0.0


@settings(max_examples=50, deadline=None)
@given(
    st.sets(st.integers(0, 11), min_size=1),
    st.sets(st.integers(0, 11), min_size=1),
)
def test_max_pooled_one_hot_vectors_give_the_classical_measures(a, b):
    # the premise of the §2 rows: with one-hot word vectors, Eq. 3-4's fuzzy BoW is the set
    one_hot = np.eye(12)
    x, y = np.array(sorted(a)), np.array(sorted(b))
    shared = len(a & b)
    expected = {
        "jaccard": shared / len(a | b),
        "otsuka": shared / math.sqrt(len(a) * len(b)),
        "dice": 2 * shared / (len(a) + len(b)),
    }
    for measure, value in expected.items():
        got = maxpool_similarity([x], [y], vectors=one_hot, measure=measure)[0]
        assert got == pytest.approx(value, abs=1e-12)


def test_table6_transcription_agrees_with_its_own_intervals():
    # each printed difference lies in its printed 95% BCa interval, except the repeated value
    outside = []
    for year, by_vectors in TABLE6.items():
        for vectors, cells in by_vectors.items():
            assert len(cells) == len(TABLE6_SUBTASKS[year])
            for subtask, (dynamax_r, avg_r, (low, high)) in zip(TABLE6_SUBTASKS[year], cells):
                if dynamax_r is not None and not low <= dynamax_r - avg_r <= high:
                    outside.append((year, vectors, subtask))
    assert outside == [("STS15", "GloVe", "headlines")]


def test_table1_cells_are_means_of_table6_columns():
    glove_sts12 = [49.41, 71.92, 48.43, 69.86, 51.47]  # DynaMax-J, GloVe, STS12 subtasks
    row = _row("Table 1, GloVe DynaMax, STS12")
    assert row.ours == pytest.approx(statistics.mean(glove_sts12))
    assert round(row.ours, 1) == TABLE1["GloVe"]["DynaMax"][0] == 58.2
    recomputed = [row for row in OFFLINE if row.quantity.startswith("Table 1,")]
    assert len(recomputed) == 30 - 2  # two cells lost a subtask value in our copy


def test_appendix_d_counts_from_the_intervals():
    wins = losses = ties = 0
    for by_vectors in TABLE6.values():
        for cells in by_vectors.values():
            for _, _, (low, high) in cells:
                if low > 0:
                    wins += 1
                elif high < 0:
                    losses += 1
                else:
                    ties += 1
    assert (wins, losses, ties) == (56, 1, 15)
    assert _row("Appendix D, DynaMax outperforms (").ours == wins
    assert _row("Appendix D, DynaMax underperforms (").ours == losses
    assert _row("Appendix D, DynaMax no difference (").ours == ties
    assert _row("Appendix D, DynaMax outperforms:").ours == pytest.approx(100 * 56 / 72)


@pytest.mark.parametrize("row", NETWORK, ids=[row.quantity for row in NETWORK])
def test_network_rows_print_a_command_the_parser_accepts(row):
    assert row.status == "needs network" and row.command and row.why_may_differ
    words = shlex.split(row.command)
    assert words[0] == "sts-extras"
    args = build_parser().parse_args(words[1:])
    assert args.command == "leaderboard"
    assert args.task == list(STS_TASKS)
    assert args.vectors == [dynamax.VECTOR_SOURCES[row.quantity.split(", ")[1].split(" ")[0]]]
    assert args.sif == row.quantity.startswith("Table 2")


def test_network_rows_cover_the_headline_cells():
    # per vector set and year, avg-cos and DynaMax-Jaccard (Table 1); SIF variants (Table 2)
    quantities = {row.quantity for row in NETWORK}
    for vectors, methods in TABLE1.items():
        for method in methods:
            for task in STS_TASKS:
                assert f"Table 1, {vectors} {method}, {task} (mean Pearson r × 100)" in quantities
    assert len(NETWORK) == 50 + 20 + 5  # Table 1: 5 vector sets; Table 2: 2; Table 5: 1


def test_network_commands_name_mteb_sts_tasks():
    from sts_extras.integrations.mteb.internals import task_registry

    registry = task_registry()
    assert all(task in registry for task in STS_TASKS)
