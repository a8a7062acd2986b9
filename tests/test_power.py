"""Specification of `sts_extras.stats.power` and the `sts-extras power` command."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

import numpy as np
import pytest

from sts_extras.cli import power_run as power_cli
from sts_extras.errors import UserFileNotFoundError, UserInputError
from sts_extras.stats.power import (
    dependent_test_power,
    minimal_detectable_delta,
    required_sample_size,
    simulate_power,
)


@pytest.mark.parametrize("n", [200, 800])
@pytest.mark.parametrize(
    ("method", "alternative"),
    [("meng1992", "two-sided"), ("meng1992", "greater"), ("williams1959", "two-sided")],
)
def test_analytic_power_agrees_with_a_seeded_simulation(n, method, alternative):
    analytic = dependent_test_power(0.5, 0.4, 0.6, n, method=method, alternative=alternative)
    simulated = simulate_power(
        0.5, 0.4, 0.6, n, method=method, alternative=alternative, n_simulations=20000, seed=11
    )
    assert simulated.n_undefined == 0
    assert abs(analytic.power - simulated.power) < 4 * simulated.standard_error


def test_power_under_the_null_is_about_alpha():
    # Meng's z has the true null variance to first order; the others are close to it.
    assert dependent_test_power(0.5, 0.5, 0.6, 300).power == pytest.approx(0.05, abs=1e-6)
    for method in ("steiger1980", "williams1959", "olkin1967"):
        power = dependent_test_power(0.5, 0.5, 0.6, 300, method=method).power
        assert power == pytest.approx(0.05, abs=0.005)


def test_meng_power_is_the_textbook_formula_to_first_order():
    # Meng et al. (1992): z = (z1 - z2) sqrt((n - 3) / (2 (1 - r12) h)); power ~ Phi(z - 1.96).
    from scipy.stats import norm

    r1, r2, r12, n = 0.5, 0.4, 0.6, 400
    r2_mean = (r1**2 + r2**2) / 2
    f = min(1.0, (1 - r12) / (2 * (1 - r2_mean)))
    h = (1 - f * r2_mean) / (1 - r2_mean)
    z = (math.atanh(r1) - math.atanh(r2)) * math.sqrt((n - 3) / (2 * (1 - r12) * h))
    textbook = norm.cdf(z - norm.isf(0.025)) + norm.cdf(-z - norm.isf(0.025))
    assert dependent_test_power(r1, r2, r12, n).power == pytest.approx(textbook, abs=0.01)


@pytest.mark.parametrize(
    ("r1", "r2", "r12", "target", "alternative", "method"),
    [
        (0.5, 0.4, 0.6, 0.8, "two-sided", "meng1992"),
        (0.8, 0.75, 0.9, 0.9, "greater", "steiger1980"),
        (0.3, 0.45, 0.2, 0.7, "less", "williams1959"),
    ],
)
def test_required_sample_size_is_the_smallest_n_reaching_the_target(
    r1, r2, r12, target, alternative, method
):
    options = {"method": method, "alternative": alternative}
    n = required_sample_size(r1, r2, r12, power=target, **options)
    assert dependent_test_power(r1, r2, r12, n, **options).power >= target
    assert dependent_test_power(r1, r2, r12, n - 1, **options).power < target


def test_required_sample_size_fails_clearly_when_unreachable():
    with pytest.raises(UserInputError, match="No sample size"):
        required_sample_size(0.5, 0.5, 0.6)
    with pytest.raises(UserInputError, match="must exceed alpha"):
        required_sample_size(0.5, 0.4, 0.6, power=0.01)


def test_minimal_detectable_delta_reaches_the_target_power_and_no_less():
    delta = minimal_detectable_delta(0.5, 0.6, 200, power=0.8)
    assert dependent_test_power(0.5, 0.5 - delta, 0.6, 200).power >= 0.8
    assert dependent_test_power(0.5, 0.5 - delta + 1e-5, 0.6, 200).power < 0.8
    up = minimal_detectable_delta(0.5, 0.6, 200, power=0.8, alternative="less")
    assert dependent_test_power(0.5, 0.5 + up, 0.6, 200, alternative="less").power >= 0.8
    # Tiny n: no valid r2 is detectable.
    assert math.isnan(minimal_detectable_delta(0.1, 0.99, 5, power=0.99))


def test_invalid_correlations_are_user_errors():
    with pytest.raises(UserInputError, match="not a valid correlation matrix"):
        dependent_test_power(0.9, -0.9, 0.9, 100)
    with pytest.raises(UserInputError, match="r1"):
        dependent_test_power(1.0, 0.4, 0.6, 100)
    with pytest.raises(UserInputError, match="method"):
        dependent_test_power(0.5, 0.4, 0.6, 100, method="nope")


# --------------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------------
def _run(capsys, *argv: str) -> dict:
    parser = argparse.ArgumentParser()
    power_cli.add_arguments(parser)
    assert power_cli.run(parser.parse_args([*argv, "--format", "json"])) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_contract(capsys):
    base = ("--r1", "0.5", "--r2", "0.4", "--r12", "0.6")
    out = _run(capsys, *base, "--n", "200", "--method", "meng1992", "--alpha", "0.05")
    assert out["power"] == pytest.approx(dependent_test_power(0.5, 0.4, 0.6, 200).power)
    out = _run(capsys, *base, "--target-power", "0.8")
    assert out["n"] == required_sample_size(0.5, 0.4, 0.6, power=0.8)
    out = _run(capsys, *base, "--n", "200", "--target-power", "0.8")
    assert out["min_detectable_delta"] == pytest.approx(minimal_detectable_delta(0.5, 0.6, 200))
    out = _run(capsys, *base, "--n", "300", "--simulate", "--simulations", "2000", "--seed", "3")
    expected = simulate_power(0.5, 0.4, 0.6, 300, n_simulations=2000, seed=3)
    assert out["simulated_power"] == expected.power
    assert abs(out["power"] - out["simulated_power"]) < 4 * out["simulated_power_se"]


def test_cli_text_output_and_user_errors(capsys):
    parser = argparse.ArgumentParser()
    power_cli.add_arguments(parser)
    args = parser.parse_args(["--r1", ".5", "--r2", ".4", "--r12", ".6", "--n", "200"])
    assert power_cli.run(args) == 0
    assert capsys.readouterr().out.startswith("power: 0.43")
    for argv, message in [
        (["--r1", ".5", "--r2", ".4", "--r12", ".6"], "Give --n"),
        (["--r1", ".5", "--n", "100"], "Missing --r2, --r12"),
        (["--task", "DSCS", "--n", "100"], "need --leaderboard"),
        (["--r1", ".5", "--r2", ".4", "--r12", ".6", "--n", "100", "--alternative", "x"], "alt"),
    ]:
        with pytest.raises(UserInputError, match=message):
            power_cli.run(parser.parse_args(argv))
    with pytest.raises(UserFileNotFoundError):
        power_cli.run(parser.parse_args(["--leaderboard", "/nonexistent.json", "--n", "50"]))


def test_cli_reads_observed_values_from_a_leaderboard_json(tmp_path, capsys):
    rng = np.random.default_rng(0)
    gold = rng.uniform(0, 5, 80)
    a, b = gold + rng.normal(0, 1, 80), gold + rng.normal(0, 1.5, 80)
    data: dict[str, Any] = {
        "settings": {"baseline": "B"},
        "tasks": [{"name": "T", "n": 80, "gold": gold.tolist()}],
        "results": [
            {
                "task": "T",
                "model": "A",
                "pearson": float(np.corrcoef(gold, a)[0, 1]),
                "scores": a.tolist(),
            },
            {
                "task": "T",
                "model": "B",
                "pearson": float(np.corrcoef(gold, b)[0, 1]),
                "scores": b.tolist(),
            },
        ],
    }
    path = tmp_path / "leaderboard.json"
    path.write_text(json.dumps(data))
    out = _run(capsys, "--leaderboard", str(path), "--task", "T", "--model1", "A")
    r12 = float(np.corrcoef(a, b)[0, 1])
    assert out["n"] == 80 and out["r12"] == pytest.approx(r12)
    expected = dependent_test_power(
        data["results"][0]["pearson"], data["results"][1]["pearson"], r12, 80
    )
    assert out["power"] == pytest.approx(expected.power)
    with pytest.raises(UserInputError, match="no scores of model 'C'"):
        _run(capsys, "--leaderboard", str(path), "--task", "T", "--model1", "C")
