"""The calibration suite (``benchmarks/calibration``): its fixed-seed quick slice and its engines.

The slice (``python -m benchmarks.calibration --quick``: six cells at n = 50 and 250, Pearson)
holds the package's evidence to account: the method ``choose_method`` picks at n = 50 and 250
stays within the band on the slice's synthetic cells, and the seed test steiger1980 is measured
over-rejecting on the heteroscedastic null -- both allowing for Monte Carlo error (3 standard
errors). The suite's vectorised engines give the numbers of the package's own engines, the same
seed gives the same numbers, and the table it writes reads back through
:mod:`sts_extras.stats.calibration`.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `benchmarks` is a folder of the checkout, not an installed package
    sys.path.insert(0, str(ROOT))

from benchmarks.calibration import report  # noqa: E402
from benchmarks.calibration.cells import synthetic_cells  # noqa: E402
from benchmarks.calibration.engines import (  # noqa: E402
    pearson_statistics,
    spearman_jackknife_batch,
    spearman_statistics,
    spearman_statistics_reference,
)
from benchmarks.calibration.suite import (  # noqa: E402
    ALPHA,
    METHODS,
    QUICK_N,
    SuiteConfig,
    SuiteResult,
    quick_config,
    run_suite,
)
from sts_extras.stats import calibration  # noqa: E402
from sts_extras.stats.intervals import DIFFERENCE_METHODS  # noqa: E402
from sts_extras.stats.jackknife import spearman_jackknife  # noqa: E402
from sts_extras.stats.resampling import PearsonCorrelations, draw_counts  # noqa: E402

SIZE_LIMIT, COVERAGE_LIMIT = 0.065, 0.935


def _se(rate: float, samples: int) -> float:
    return math.sqrt(rate * (1.0 - rate) / samples)


@pytest.fixture(scope="module")
def quick() -> SuiteResult:
    return run_suite(quick_config())


def _cells(name_part: str) -> list:
    return [cell for cell in synthetic_cells() if name_part in cell.name]


def test_quick_slice_shape(quick: SuiteResult) -> None:
    """Every method on every (cell, n) of the slice, with a size exactly on the null cells."""
    assert {r.n for r in quick.results} == set(QUICK_N)
    assert len(quick.results) == len(quick.config.cells) * len(QUICK_N)
    for result in quick.results:
        assert set(result.coverage) == set(METHODS)
        for method in METHODS:
            assert (result.size[method] is None) == result.cell.effect
            assert 0.0 <= result.coverage[method] <= 1.0


def test_interval_and_pvalue_agree(quick: SuiteResult) -> None:
    """On a null cell the interval excludes 0 exactly when p < alpha: size = 1 - coverage."""
    for result in quick.results:
        if result.cell.effect:
            continue
        for method in DIFFERENCE_METHODS:
            if result.undefined[method] == 0:
                size = result.size[method]
                assert size is not None
                assert size + result.coverage[method] == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("n", QUICK_N)
def test_chosen_method_holds_the_band(quick: SuiteResult, n: int) -> None:
    """``choose_method``'s pick (from the packaged table) is in the band on the slice's cells."""
    method = calibration.choose_method("pearson", n)
    assert method in DIFFERENCE_METHODS
    for result in quick.results:
        if result.n != n or result.cell.real:
            continue
        samples = result.samples_by_method[method]
        size = result.size[method]
        if size is not None:
            assert size <= SIZE_LIMIT + 3 * _se(ALPHA, samples), (result.cell.name, method)
        coverage = result.coverage[method]
        assert coverage >= COVERAGE_LIMIT - 3 * _se(ALPHA, samples), (result.cell.name, method)


def test_steiger_over_rejects_under_heteroscedasticity(quick: SuiteResult) -> None:
    """The seed test's Fisher-z variance assumes normal errors: it over-rejects clearly."""
    found = [r for r in quick.results if r.cell.family == "heteroscedastic" and not r.cell.effect]
    assert {r.n for r in found} == set(QUICK_N)
    for result in found:
        size = result.size["steiger1980"]
        assert size is not None
        assert size > SIZE_LIMIT + 3 * _se(SIZE_LIMIT, result.samples), (result.n, size)


def _tiny(seed: int, workers: int) -> SuiteConfig:
    cells = tuple(_cells("rho=0.4,r12=0.5/null")[:2])
    return SuiteConfig(
        n_values=(30,),
        correlations=("pearson", "spearman"),
        cells=cells,
        samples=120,
        resamples=199,
        seed=seed,
        workers=workers,
    )


def test_same_seed_same_numbers() -> None:
    """The numbers depend on the seed only: not on the run, nor on the number of workers."""
    first = run_suite(_tiny(seed=3, workers=1)).rows()
    assert run_suite(_tiny(seed=3, workers=1)).rows() == first
    assert run_suite(_tiny(seed=3, workers=2)).rows() == first
    assert run_suite(_tiny(seed=4, workers=1)).rows() != first


def test_table_round_trips(quick: SuiteResult, tmp_path: Path) -> None:
    """The JSON the suite writes reads back through sts_extras.stats.calibration."""
    # the quick slice as both replicates (a real run draws the second with seed + 1)
    path = report.write_table(quick, quick, tmp_path / "calibration.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == 2
    assert document["generated_by"] == "python -m benchmarks.calibration"
    assert document["alpha"] == ALPHA and document["resamples"] == quick.config.resamples
    keys = {"correlation", "method", "n", "cell", "family", "real", "effect", "size"}
    keys |= {"coverage", "samples", "replicate"}
    assert all(set(row) == keys for row in document["rows"])
    assert {row["replicate"] for row in document["rows"]} == {"selection", "evaluation"}
    with report.use_table(path):
        for n in QUICK_N:
            for method in METHODS:
                level = calibration.measured_level(method, "pearson", n)
                assert level is not None and level.grid_n == n
                size, coverage, samples = report.worst(quick.results, "pearson", method, n)
                assert level.size == round(size, 4)  # type: ignore[arg-type]
                assert level.coverage == round(coverage, 4)  # type: ignore[arg-type]
                assert level.samples == samples
            assert calibration.choose_method("pearson", n) in DIFFERENCE_METHODS
        assert calibration.measured_level("adjusted-percentile", "spearman", 50) is None
    # Back on the packaged table afterwards.
    assert calibration.measured_level("adjusted-percentile", "spearman", 50) is not None


def test_packaged_table_covers_the_grid() -> None:
    """The packaged table (the full grid) has every method, both correlations, every n."""
    for correlation in ("pearson", "spearman"):
        for method in METHODS:
            for n in (20, 30, 50, 64, 100, 250, 1000):
                level = calibration.measured_level(method, correlation, n)
                assert level is not None and level.grid_n == n, (correlation, method, n)


# --------------------------------------------------------------------------------------------
# The vectorised engines give the package's numbers
# --------------------------------------------------------------------------------------------
def _draw(name: str, samples: int, n: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    (cell,) = [c for c in synthetic_cells() if c.name == name]
    return cell.draw(np.random.default_rng(seed), samples, n)


@pytest.mark.parametrize("n", [20, 64])
def test_pearson_engine_matches_the_package(n: int) -> None:
    h, a, b = _draw("heteroscedastic/rho=0.7,r12=0.8/null", 5, n)
    counts = draw_counts(np.random.default_rng(1), 300, n)
    found = pearson_statistics(h, a, b, counts)
    for s in range(h.shape[0]):
        engine = PearsonCorrelations(h[s], np.vstack([a[s], b[s]]))
        r = engine.correlations(counts)
        np.testing.assert_allclose(found.deltas[s], r[:, 0] - r[:, 1], rtol=0, atol=1e-12)
        loo = engine.jackknife()
        np.testing.assert_allclose(found.jackknife[s], loo[:, 0] - loo[:, 1], atol=1e-12)
        matrix = np.corrcoef(np.vstack([h[s], a[s], b[s]]))
        np.testing.assert_allclose(
            [found.r1[s], found.r2[s], found.r12[s]],
            [matrix[0, 1], matrix[0, 2], matrix[1, 2]],
            atol=1e-12,
        )


@pytest.mark.parametrize(
    ("name", "n"),
    [
        ("normal/rho=0.7,r12=0.8/null", 30),  # rank matrices, ranks of h shared
        ("sts-like/rho=0.7,r12=0.8/null", 30),  # rank matrices, tied gold
        ("normal/rho1=0.5,rho2=0.3,r12=0.6/effect", 150),  # O(B n), no ties
        ("sts-like/rho1=0.5,rho2=0.3,r12=0.6/effect", 150),  # rank matrices with ties
        ("sts-like/rho=0.4,r12=0.5/null", 260),  # the package's engine (ties, n > 250)
    ],
)
def test_spearman_engine_matches_the_package(name: str, n: int) -> None:
    """Bit for bit the package's SpearmanCorrelations; the jackknife to rounding."""
    h, a, b = _draw(name, 4, n)
    counts = draw_counts(np.random.default_rng(2), 200, n)
    found = spearman_statistics(h, a, b, counts)
    expected = spearman_statistics_reference(h, a, b, counts)
    np.testing.assert_array_equal(found.deltas, expected.deltas)
    np.testing.assert_allclose(found.jackknife, expected.jackknife, atol=1e-12)
    np.testing.assert_allclose(found.r1, expected.r1, atol=1e-15)


def test_spearman_jackknife_batch_matches_the_package() -> None:
    h, a, b = _draw("sts-like/rho1=0.9,rho2=0.85,r12=0.95/effect", 3, 40)
    a = np.round(a, 1)  # ties in the systems too
    found = spearman_jackknife_batch(h, a, b)
    for s in range(3):
        loo = spearman_jackknife(np.vstack([a[s], b[s]]), h[s])
        np.testing.assert_allclose(found[s], loo[:, 0] - loo[:, 1], atol=1e-12)
