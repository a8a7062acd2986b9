"""Specification of ``sts-extras reproduce lombardo``: Table 2 of Lombardo et al. (2020).

Every mean and sd of the Exponential and Power-law rows is simulated at the paper's size (990
items, 50 repetitions) in two variants, over ten seeds: ours is the mean of the ten runs, and a
row matches when the paper's one run lies in the 99.73% prediction interval of one more run,
t(9) * s * sqrt(1 + 1/10), s the sd over the seeds (the Monte Carlo error of a run), so no single
seed decides a row. With the authors' published-code settings every trustworthy cell (all
Power-law cells, the Exponential tau_w) matches; the Exponential rho_w, rho and tau, which come
from a misaligned comparison in the authors' code, carry that explanation, and the ones the
misalignment moved differ. The paper's text model did not make the table: its rows say so. The
Embedding row prints its command.
"""

from __future__ import annotations

import math
import shlex
import statistics

import numpy as np
import pytest
from scipy import stats

from sts_extras.cli.dispatch import build_parser
from sts_extras.reproduce import lombardo

DISTRIBUTIONS = {"exponential": "Exponential", "power_law": "Power law"}
APPROACHES = ("uniform", "adaptive")
METRICS = {"rho_w": "ρ_w", "tau_w": "τ_w", "spearman": "ρ", "kendall": "τ"}
MISALIGNED = {("exponential", "rho_w"), ("exponential", "spearman"), ("exponential", "kendall")}
CELLS = [
    (distribution, approach, metric, statistic)
    for distribution in DISTRIBUTIONS
    for approach in APPROACHES
    for metric in METRICS
    for statistic in ("mean", "sd")
]


@pytest.fixture(scope="module")
def rows():
    return lombardo.rows()


def _row(rows, distribution, approach, metric, statistic, variant):
    quantity = (
        f"Table 2, {DISTRIBUTIONS[distribution]}, {approach}, {METRICS[metric]} ({variant}), "
        f"{statistic}"
    )
    (found,) = [row for row in rows if row.quantity == quantity]
    return found


def test_the_module_names_its_paper(rows):
    assert lombardo.PAPER == "lombardo"
    assert "Lombardo" in lombardo.CITATION and "2020" in lombardo.CITATION
    assert all(row.paper == "lombardo" for row in rows)
    # 2 variants x 2 distributions x 2 approaches x 4 metrics x (mean, sd), and the Embedding row
    assert len(rows) == 64 + 16


@pytest.mark.parametrize("cell", CELLS, ids=["-".join(cell) for cell in CELLS])
def test_published_code_variant(rows, cell: tuple[str, str, str, str]):
    distribution, approach, metric, statistic = cell
    row = _row(rows, *cell, "published code")
    within = abs(row.ours - row.paper_value) <= row.tolerance
    assert row.status == ("match" if within else "differs (explained)")
    if (distribution, metric) in MISALIGNED:
        assert "misaligned" in row.why_may_differ
        if metric != "rho_w":  # rho and tau: the paper's ~.81/.63 against our ~.97/.84
            assert row.status == "differs (explained)"
    else:
        assert row.status == "match"


@pytest.mark.parametrize("cell", CELLS, ids=["-".join(cell) for cell in CELLS])
def test_paper_text_variant_explains_the_other_model(rows, cell: tuple[str, str, str, str]):
    row = _row(rows, *cell, "paper's text")
    assert "published code" in row.why_may_differ and "(1 − z²)" in row.why_may_differ
    assert row.status == (
        "match" if abs(row.ours - row.paper_value) <= row.tolerance else "differs (explained)"
    )


def test_the_text_model_does_not_make_table_2(rows):
    # its voters are noisier: Spearman's rho of the power law falls well below the paper's
    for approach in APPROACHES:
        row = _row(rows, "power_law", approach, "spearman", "mean", "paper's text")
        assert row.status == "differs (explained)"
        assert row.ours < row.paper_value - 0.03


def test_rows_average_ten_seeds_of_a_fresh_simulation(rows):
    from sts_extras.annotation.simulation import PUBLISHED_CODE_SETTINGS, simulate_campaigns

    # seed 2 is the seed that, alone, turned the Power-law adaptive rho_w sd under the old rule
    result = simulate_campaigns("power_law", n_reps=50, seed=2, **PUBLISHED_CODE_SETTINGS)
    values = np.asarray(result.values["adaptive"]["kendall"])
    mean_row = _row(rows, "power_law", "adaptive", "kendall", "mean", "published code")
    sd_row = _row(rows, "power_law", "adaptive", "kendall", "sd", "published code")
    assert tuple(range(10)) == lombardo.SEEDS
    assert len(mean_row.replicates) == len(sd_row.replicates) == 10
    assert mean_row.replicates[2] == pytest.approx(values.mean(), rel=1e-12)
    assert sd_row.replicates[2] == pytest.approx(values.std(ddof=1), rel=1e-12)
    for row in (mean_row, sd_row):
        runs = row.replicates
        assert row.ours == pytest.approx(statistics.fmean(runs), rel=1e-12)
        assert row.standard_error == pytest.approx(statistics.stdev(runs) / math.sqrt(10))
        # the 99.73% prediction interval of one run (the paper's) from 10 runs: t with 9 df
        t9 = stats.t.ppf(1 - 0.0027 / 2, 9)
        assert row.tolerance == pytest.approx(t9 * statistics.stdev(runs) * math.sqrt(1.1))


@pytest.mark.parametrize("variant", ["published code", "paper's text"])
def test_every_simulated_row_is_decided_by_the_interval_over_the_seeds(rows, variant):
    t9 = stats.t.ppf(1 - 0.0027 / 2, 9)
    for cell in CELLS:
        row = _row(rows, *cell, variant)
        assert len(row.replicates) == 10 and row.basis == "recomputed"
        interval = t9 * statistics.stdev(row.replicates) * math.sqrt(1.1)
        within = abs(row.paper_value - statistics.fmean(row.replicates)) <= interval
        assert row.status == ("match" if within else "differs (explained)")
        # the row text states the tolerance and where it comes from
        for words in ("seeds 0-9", "t(9)", "√(1 + 1/10) = 4.29 s", "prediction interval"):
            assert words in row.why_may_differ
        assert (
            "sd over 10 seeds" in row.tolerance_reason and "standard error" in row.tolerance_reason
        )


def test_the_row_seed_2_turned_now_matches_over_the_seeds(rows):
    # with seed 0 alone the row matched and with seed 2 alone it did not: one seed decided it
    row = _row(rows, "power_law", "adaptive", "rho_w", "sd", "published code")
    assert len(set(row.replicates)) == 10  # every seed is its own run
    assert abs(row.paper_value - row.ours) <= row.tolerance and row.status == "match"


def test_misalignment_is_harmless_only_for_the_power_law():
    # relatedness ranks items by |z_i| (§4.1.2); the authors' comparison assumed item order
    n = 990
    position = np.arange(1, n + 1) / n
    by_relatedness = {
        "power_law": np.argsort(-np.abs(2 / (1 + np.sqrt(position)) - 1), kind="stable"),
        "exponential": np.argsort(-np.abs(2 * np.exp(-position) - 1), kind="stable"),
    }
    assert np.array_equal(by_relatedness["power_law"], np.arange(n))
    first_mismatch = np.flatnonzero(by_relatedness["exponential"] != np.arange(n))[0]
    assert 400 < first_mismatch < 500  # the top ~450 ranks agree, the rest do not


def test_embedding_row_prints_a_command_the_parser_accepts(rows):
    embedding = [row for row in rows if row.quantity.startswith("Table 2, Embedding")]
    assert len(embedding) == 16
    for row in embedding:
        assert row.ours is None and row.status == "needs data"
        assert "underlying_sim_samearea.csv" in row.why_may_differ
        words = shlex.split(row.command)
        args = build_parser().parse_args(words[1:])
        assert words[0] == "sts-extras" and args.command == "annotate"
        assert args.published_code and args.reps == 50 and str(args.z) == "underlying_sim.txt"
    assert {row.paper_value for row in embedding} >= {0.9146, 0.73, 0.5463}
