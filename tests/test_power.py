"""Specification of `sts_extras.stats.power` and the `sts-extras power` command."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

import numpy as np
import pytest

from sts_extras.cli import power as power_options
from sts_extras.cli import power_run as power_cli
from sts_extras.errors import UserFileNotFoundError, UserInputError
from sts_extras.stats.power import (
    dependent_test_power,
    minimal_detectable_delta,
    required_sample_size,
    simulate_power,
)


@pytest.mark.parametrize(
    ("method", "alternative"),
    [("meng1992", "two-sided"), ("meng1992", "greater"), ("williams1959", "two-sided")],
)
def test_analytic_power_agrees_with_a_seeded_simulation(method, alternative):
    n = 200
    analytic = dependent_test_power(0.5, 0.4, 0.6, n, method=method, alternative=alternative)
    simulated = simulate_power(
        0.5, 0.4, 0.6, n, method=method, alternative=alternative, n_simulations=5000, seed=11
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


# --------------------------------------------------------------------------------------------
# The minimal detectable delta against an independent simulation
# --------------------------------------------------------------------------------------------
#: Draws per simulated power: the binomial standard error is 0.0063 at power 0.8, 0.0034 at 0.05.
DRAWS = 4000


def _rejection_rate(r1, r2, r12, n, *, method, alternative, seed, alpha=0.05):
    """The test of :mod:`sts_extras.stats.dependent` run on ``DRAWS`` samples of n items from
    the trivariate normal with correlations (references-system 1, references-system 2,
    system 1-system 2) = (r1, r2, r12); the share of samples it rejects at ``alpha``.

    Written here from numpy and scipy alone (samples, correlations, p-values from N(0, 1), or
    from Student's t with n - 3 df for the t tests), not from :mod:`sts_extras.stats.power`."""
    from scipy import stats

    from sts_extras.stats.dependent import (
        T_METHODS,
        dependent_correlation_test,
        dependent_statistic,
    )

    rng = np.random.default_rng(seed)
    cov = np.array([[1.0, r1, r2], [r1, 1.0, r12], [r2, r12, 1.0]])
    samples = rng.multivariate_normal(np.zeros(3), cov, size=(DRAWS, n))
    samples -= samples.mean(axis=1, keepdims=True)
    scatter = np.einsum("sni,snj->sij", samples, samples)
    scale = np.sqrt(np.einsum("sii->si", scatter))
    corr = scatter / (scale[:, :, None] * scale[:, None, :])
    triples = [
        (float(a), float(b), float(c))
        for a, b, c in zip(corr[:, 0, 1], corr[:, 0, 2], corr[:, 1, 2])
    ]
    statistic = np.array([dependent_statistic(method, a, b, c, n) for a, b, c in triples])
    null = stats.t(n - 3) if method in T_METHODS else stats.norm
    pvalue = {
        "two-sided": 2 * null.sf(np.abs(statistic)),
        "greater": null.sf(statistic),
        "less": null.cdf(statistic),
    }[alternative]
    for (a, b, c), p in zip(triples[:3], pvalue[:3]):  # the public test gives the same p-values
        public = dependent_correlation_test(a, b, c, n, method=method, alternative=alternative)
        assert public.pvalue == pytest.approx(p, rel=1e-9, abs=1e-12)
    return float(np.mean(pvalue < alpha))


MDE_CASES = [
    ("meng1992", "two-sided", 0.5, 0.6, 200),
    ("steiger1980", "greater", 0.7, 0.8, 120),
    ("williams1959", "two-sided", 0.4, 0.3, 150),
    ("meng1992", "less", 0.5, 0.6, 60),
]


@pytest.mark.parametrize(("method", "alternative", "r1", "r12", "n"), MDE_CASES)
def test_samples_at_the_minimal_detectable_delta_are_rejected_80_percent_of_the_time(
    method, alternative, r1, r12, n
):
    """Power 0.8 at the MDE, within 3.5 binomial standard errors (0.022) of 4000 simulated
    data sets. The delta method behind the MDE is an approximation: 10^5 draws put the true
    power at these four settings at 0.799, 0.800, 0.805 and 0.803."""
    delta = minimal_detectable_delta(r1, r12, n, power=0.8, method=method, alternative=alternative)
    assert 0.05 < delta < 0.3
    r2 = r1 + delta if alternative == "less" else r1 - delta
    rate = _rejection_rate(r1, r2, r12, n, method=method, alternative=alternative, seed=n)
    assert abs(rate - 0.8) < 3.5 * math.sqrt(0.8 * 0.2 / DRAWS), rate


@pytest.mark.parametrize(("method", "alternative", "r1", "r12", "n"), MDE_CASES)
def test_samples_without_a_difference_are_rejected_at_alpha(method, alternative, r1, r12, n):
    """At Δ = 0 the power is the test's size: 0.05 within 3.5 standard errors (0.012)."""
    rate = _rejection_rate(r1, r1, r12, n, method=method, alternative=alternative, seed=n + 1)
    assert abs(rate - 0.05) < 3.5 * math.sqrt(0.05 * 0.95 / DRAWS), rate


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
    power_options.add_arguments(parser)
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
    power_options.add_arguments(parser)
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


R = ["--r1", "0.6", "--r2", "0.5"]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([*R, "--r12", "1", "--n", "50"], "--r12 must lie strictly between -1 and 1"),
        ([*R, "--r12", "0.5", "--n", "3"], "--n must be at least 4"),
        ([*R, "--r12", "0.5", "--target-power", "1"], "--target-power must lie strictly"),
        ([*R, "--r12", "0.5", "--n", "50", "--alpha", "1.5"], "--alpha must lie strictly"),
        ([*R, "--r12", "0.5", "--n", "50", "--method", "x"], "--method must be one of"),
        ([*R, "--r12", "0.5", "--n", "50", "--simulate", "--simulations", "0"],
         "--simulations must be at least 1"),
    ],
)  # fmt: skip
def test_cli_errors_name_the_option_typed_not_the_argument(argv, expected):
    """The power functions name `r12`; the command line names --r12, as it was typed."""
    parser = argparse.ArgumentParser()
    power_options.add_arguments(parser)
    with pytest.raises(UserInputError) as caught:
        power_cli.run(parser.parse_args(argv))
    assert str(caught.value).startswith(expected)


# --------------------------------------------------------------------------------------------
# One home per formula (issue 39): the covariance of the Fisher z's is the shared Pearson-Filon
# psi, and a simulated sample is undefined only for a stated reason.
# --------------------------------------------------------------------------------------------
def test_z_covariance_is_the_shared_pearson_filon_covariance():
    from sts_extras.stats._common import overlap_correlation
    from sts_extras.stats.power import _z_covariance

    r1, r2, r12 = 0.636, 0.693, 0.52
    c = _z_covariance(r1, r2, r12)
    np.testing.assert_allclose(c, c.T, rtol=1e-14)
    np.testing.assert_allclose(np.diag(c), 1.0, rtol=1e-14)  # Var(sqrt(n) z) = 1
    # The two correlations with the references share j (Zou 2007, p. 409; Steiger 1980, eq. 12).
    np.testing.assert_allclose(c[0, 1], overlap_correlation(r1, r2, r12), rtol=1e-14)
    # r_jk and r_kh share k: the same formula with k as the shared variable.
    np.testing.assert_allclose(c[0, 2], overlap_correlation(r1, r12, r2), rtol=1e-14)
    # r_jh and r_kh share h: Dunn & Clark's (1969) eq. 8, written out by hand.
    psi = r1 * (1 - r2**2 - r12**2) - 0.5 * r2 * r12 * (1 - r2**2 - r12**2 - r1**2)
    np.testing.assert_allclose(c[1, 2], psi / ((1 - r2**2) * (1 - r12**2)), rtol=1e-13)


def test_simulation_lets_an_unexpected_error_propagate(monkeypatch):
    import sts_extras.stats.power as power

    def broken(*args: object) -> float:
        raise ValueError("a bug, not an undefined variance")

    monkeypatch.setattr(power, "dependent_statistic", broken)
    with pytest.raises(ValueError, match="a bug"):
        simulate_power(0.5, 0.4, 0.6, 50, n_simulations=10, seed=0)


def test_simulation_counts_an_undefined_variance_as_undefined(monkeypatch):
    import sts_extras.stats.power as power

    def undefined(*args: object) -> float:
        raise UserInputError("the estimated variance of the difference is 0")

    monkeypatch.setattr(power, "dependent_statistic", undefined)
    result = simulate_power(0.5, 0.4, 0.6, 50, n_simulations=10, seed=0)
    assert result.n_undefined == 10
