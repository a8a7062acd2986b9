"""What a run of the calibration suite writes: the JSON table, the docs page and the figure.

* :func:`write_table` -- ``sts_extras/data/calibration.json``, the table
  :mod:`sts_extras.stats.calibration` reads (one row per correlation, method, n and cell);
* :func:`write_page` -- ``docs/calibration.md``: the settings, the two replicates and the rule
  behind ``calibrated`` (quoted from :mod:`sts_extras.stats.calibration`), the worst size and
  coverage of every method at every n (synthetic cells, evaluation replicate), the real-data
  cells, the cells themselves and the method ``choose_method`` picks, with its margins;
* :func:`write_figure` -- ``docs/img/calibration.png``: size and coverage against n.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from benchmarks.calibration.suite import (
    ALPHA,
    CONFIDENCE_LEVEL,
    METHODS,
    CellResult,
    SuiteResult,
    standard_error,
)
from sts_extras.stats.calibration import COVERAGE_BAND, SIZE_BAND, band_direction
from sts_extras.stats.dependent import DEPENDENT_METHODS
from sts_extras.stats.intervals import DIFFERENCE_METHODS, METHOD_SOURCES

__all__ = [
    "COMMAND",
    "COVERAGE_BAND",
    "FIGURE_METHODS",
    "SIZE_BAND",
    "packaged_table_path",
    "summary_text",
    "timing_lines",
    "use_table",
    "worst",
    "write_figure",
    "write_key",
    "write_page",
    "write_section",
    "write_table",
]

ROOT = Path(__file__).resolve().parents[2]
COMMAND = "python -m benchmarks.calibration"
#: Methods drawn in the figure.
FIGURE_METHODS = (*DIFFERENCE_METHODS, "steiger1980", "meng1992")
#: Methods of the by-family tables.
FAMILY_METHODS = (*DIFFERENCE_METHODS, "steiger1980", "meng1992", "williams1959")
#: Order of the synthetic families in the tables.
FAMILY_ORDER = ("normal", "heteroscedastic", "heavy-tailed", "skewed", "sts-like")
#: Smallest n at which the band is required.
BAND_FROM_N = 50


def _format_rate(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def worst(
    results: Iterable[CellResult], correlation: str, method: str, n: int, *, real: bool = False
) -> tuple[float | None, float | None, int]:
    """Worst (largest) size and worst (smallest) coverage over the matching cells, and min S."""
    sizes, coverages, samples = [], [], []
    for result in results:
        if result.correlation != correlation or result.n != n or result.cell.real != real:
            continue
        size = result.size[method]
        if size is not None:
            sizes.append(size)
        coverages.append(result.coverage[method])
        samples.append(result.samples_by_method[method])
    return (
        max(sizes) if sizes else None,
        min(coverages) if coverages else None,
        min(samples) if samples else 0,
    )


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------
def table_document(selection: SuiteResult, evaluation: SuiteResult) -> dict[str, Any]:
    """The JSON document of a run: the rows of both replicates, each tagged with its
    ``replicate`` (``"selection"``: ``method="auto"`` chooses on it; ``"evaluation"``: the
    printed levels come from it)."""
    rows = [
        {**row, "replicate": name}
        for name, result in (("selection", selection), ("evaluation", evaluation))
        for row in result.rows()
    ]
    return {
        "format": 2,
        "generated_by": COMMAND,
        "alpha": ALPHA,
        "confidence_level": CONFIDENCE_LEVEL,
        "resamples": evaluation.config.resamples,
        "seed": {"selection": selection.config.seed, "evaluation": evaluation.config.seed},
        "methods": {
            **METHOD_SOURCES,
            **{
                method: "the paper's statistic, as R's cocor computes it, with Zou's (2007) "
                "interval; for Spearman on the Spearman correlation matrix (ours)"
                for method in DEPENDENT_METHODS
            },
        },
        "rows": rows,
    }


def write_table(selection: SuiteResult, evaluation: SuiteResult, path: Path) -> Path:
    """Write ``calibration.json`` (atomically: a temporary file renamed into place).

    Top-level keys of an existing file that this suite does not write (e.g. ``"families"``,
    the family-wise rows of ``benchmarks/calibration/families.py``) are kept as they were.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    document = table_document(selection, evaluation)
    try:
        previous = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        previous = {}
    if isinstance(previous, dict):
        for key, value in previous.items():
            document.setdefault(key, value)
    _write_document(document, path)
    return path


def _write_document(document: dict[str, Any], path: Path) -> None:
    """The one layout of ``calibration.json`` (compact, one row per line: readable diffs),
    written atomically (a temporary file renamed into place)."""
    text = json.dumps(document, indent=None, separators=(",", ":"))
    text = text.replace('"rows":[{', '"rows":[\n{').replace("},{", "},\n{")
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        partial.write_text(text + "\n", encoding="utf-8")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def write_key(table: Path, key: str, value: Any) -> None:
    """Put ``value`` under ``key`` of the written table (the family-wise, cross-task and rank
    cells); the rest is left as it is."""
    document = json.loads(table.read_text(encoding="utf-8"))
    document[key] = value
    _write_document(document, table)


def timing_lines(seconds: float | None, cpu_seconds: float | None) -> list[str]:
    """The closing line of a section that says how long its part of the run took."""
    if seconds is None:
        return []
    cpu = "" if cpu_seconds is None else f" ({cpu_seconds:.0f} s of CPU time)"
    return ["", f"This part took {seconds:.0f} s of the run{cpu}."]


def write_section(page: Path, heading: str, section: str) -> None:
    """Replace the page's section that starts with ``heading`` by ``section``, or append it."""
    text = page.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(heading) + r".*?(?=\n## |\Z)", re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _: section.rstrip("\n"), text).rstrip("\n") + "\n"
    else:
        text = text.rstrip("\n") + "\n\n" + section
    page.write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------
def _rate_text(value: float | None, outside: bool, n: int) -> str:
    text = _format_rate(value)
    if value is not None and outside:
        text = f"**{text}**" if n >= BAND_FROM_N else f"*{text}*"
    return text


def _cell_text(
    size: float | None, coverage: float | None, n: int, samples: int, cells_outside: int = 0
) -> str:
    """``size / coverage`` in percent, a value outside the band by the rule (band_direction,
    with its Monte Carlo allowance) in bold (italics below n = 50), and how many cells at that
    n lie outside the band, either way, when any does."""
    parts = [
        _rate_text(size, band_direction(size, None, samples) is not None, n),
        _rate_text(coverage, band_direction(None, coverage, samples) is not None, n),
    ]
    text = " / ".join(parts)
    return text + (f" ({cells_outside})" if cells_outside else "")


def _cells_outside(results: Iterable[CellResult], method: str) -> int:
    """How many of ``results`` lie outside the band by the rule for ``method``."""
    return sum(
        band_direction(r.size[method], r.coverage[method], r.samples_by_method[method]) is not None
        for r in results
    )


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _n_values(result: SuiteResult, correlation: str) -> list[int]:
    return sorted({r.n for r in result.results if r.correlation == correlation})


def _samples_text(result: SuiteResult, correlation: str, n: int) -> int:
    """Data sets per cell of the bootstrap methods (the fewest) at this n."""
    found = [
        r.samples_by_method["percentile"]
        for r in result.results
        if r.correlation == correlation and r.n == n
    ]
    return min(found) if found else 0


def _synthetic_table(result: SuiteResult, correlation: str) -> list[str]:
    ns = _n_values(result, correlation)
    header = ["method", *[f"n = {n}" for n in ns]]
    rows = []
    for method in METHODS:
        row = [f"`{method}`"]
        for n in ns:
            size, coverage, samples = worst(result.results, correlation, method, n)
            at_n = [r for r in result.results if r.correlation == correlation and r.n == n]
            row.append(_cell_text(size, coverage, n, samples, _cells_outside(at_n, method)))
        rows.append(row)
    return _table(header, rows)


_SHORT = {
    "normal": "normal",
    "heteroscedastic": "hetero",
    "heavy-tailed": "t3",
    "skewed": "skewed",
    "sts-like": "sts-like",
}


def _where(result: CellResult) -> str:
    """A short label of a synthetic cell: family and setting number (null 1-2, effect 1-2)."""
    rho = result.cell.setting.split(",")[0]
    return f"{_SHORT.get(result.cell.family, result.cell.family)} {rho}"


def _worst_cells_table(result: SuiteResult, correlation: str) -> list[str]:
    """For the interval methods: the cell of the worst size and of the worst coverage, by n."""
    ns = _n_values(result, correlation)
    rows = []
    for method in (*DIFFERENCE_METHODS, "steiger1980"):
        row = [f"`{method}`"]
        for n in ns:
            found = [
                r
                for r in result.results
                if r.correlation == correlation and r.n == n and not r.cell.real
            ]
            nulls = [r for r in found if r.size[method] is not None]
            texts = []
            if nulls:
                texts.append(_where(max(nulls, key=lambda r: r.size[method] or 0.0)))
            if found:
                texts.append(_where(min(found, key=lambda r: r.coverage[method])))
            row.append(" / ".join(texts))
        rows.append(row)
    return _table(["method", *[f"n = {n}" for n in ns]], rows)


def _family_table(result: SuiteResult, correlation: str, methods: Sequence[str]) -> list[str]:
    """Worst size / worst coverage over n >= 50, by family (synthetic) and over the real cells."""
    families = []
    for r in result.results:
        label = "real" if r.cell.real else r.cell.family
        if label not in families:
            families.append(label)
    families.sort(key=lambda f: (f == "real", FAMILY_ORDER.index(f) if f in FAMILY_ORDER else 0))
    rows = []
    for method in methods:
        row = [f"`{method}`"]
        for family in families:
            found = [
                r
                for r in result.results
                if r.correlation == correlation
                and r.n >= BAND_FROM_N
                and ("real" if r.cell.real else r.cell.family) == family
            ]
            sizes = [r.size[method] for r in found if r.size[method] is not None]
            size = max(sizes) if sizes else None  # type: ignore[type-var]
            coverage = min(r.coverage[method] for r in found) if found else None
            samples = min((r.samples_by_method[method] for r in found), default=1)
            outside = _cells_outside(found, method)
            row.append(_cell_text(size, coverage, BAND_FROM_N, samples, outside))
        rows.append(row)
    return _table(["method", *families], rows)


def _findings(result: SuiteResult, correlation: str) -> list[str]:
    """Sentences on the cells where every interval method misses (computed from the run)."""
    heavy = [
        r
        for r in result.results
        if r.correlation == correlation
        and r.cell.family == "heavy-tailed"
        and r.cell.effect
        and r.n >= BAND_FROM_N
    ]
    if not heavy or any(_cells_outside(heavy, m) == 0 for m in DIFFERENCE_METHODS):
        return []
    ranges = ", ".join(
        f"`{m}` {_format_rate(min(r.coverage[m] for r in heavy))}-"
        f"{_format_rate(max(r.coverage[m] for r in heavy))} %"
        for m in DIFFERENCE_METHODS
    )
    lines = [
        "On the heavy-tailed cells with an effect (errors t with 3 df, n >= "
        f"{BAND_FROM_N}) no interval method lies within the band for "
        f"{correlation.capitalize()}; their coverage there: {ranges}."
        + (
            " Pearson's r has no finite fourth moments under t(3) errors, so its sampling"
            " distribution stays skewed and no interval built on its bootstrap, jackknife or"
            " HC4 spread is consistent."
            if correlation == "pearson"
            else ""
        )
        + " These cells count against `calibrated` like every other cell; a result whose"
        " farthest cell is one of them says that no method reaches the band there."
    ]
    return lines


def _real_results(result: SuiteResult, correlation: str) -> list[CellResult]:
    return [r for r in result.results if r.correlation == correlation and r.cell.real]


def _real_table(result: SuiteResult, correlation: str) -> list[str]:
    real = _real_results(result, correlation)
    if not real:
        return ["No real-data cells in this run (the STS Benchmark was not found)."]
    ns = _n_values(result, correlation)
    null_cells = sorted({r.cell.name for r in real if not r.cell.effect})
    effect_cells = sorted({r.cell.name for r in real if r.cell.effect}, key=_real_order(real))
    by_key = {(r.cell.name, r.n): r for r in real}
    header = ["method", *[f"n = {n}" for n in ns]]
    rows = []
    for method in METHODS:
        row = [f"`{method}`"]
        for n in ns:
            parts = []
            for name in null_cells:
                found = by_key.get((name, n))
                size = None if found is None else found.size[method]
                samples = 1 if found is None else found.samples_by_method[method]
                parts.append(_rate_text(size, band_direction(size, None, samples) is not None, 50))
            coverages = []
            for name in effect_cells:
                found = by_key.get((name, n))
                coverage = None if found is None else found.coverage[method]
                samples = 1 if found is None else found.samples_by_method[method]
                outside = band_direction(None, coverage, samples) is not None
                coverages.append(_rate_text(coverage, outside, 50))
            row.append(" / ".join([*parts, " · ".join(coverages)]))
        rows.append(row)
    legend = (
        "Each entry: size on the symmetrised null cell (pairs "
        + ", ".join(f"`{name.split('/')[1]}`" for name in null_cells)
        + ") / coverage on the pairs "
        + ", ".join(f"`{name.split('/')[1]}`" for name in effect_cells)
        + " (in that order), in percent; bold: outside the band at any n (the real cells are"
        " the hard ones; no band is promised on them)."
    )
    return [legend, "", *_table(header, rows)]


def _real_order(real: Sequence[CellResult]) -> Callable[[str], int]:
    names = []
    for r in real:
        if r.cell.name not in names:
            names.append(r.cell.name)
    return names.index


def _cells_table(result: SuiteResult) -> list[str]:
    correlations = result.config.correlations
    header = ["cell", *[f"{c}: rho1, rho2, r12 (Delta)" for c in correlations]]
    rows = []
    for cell in result.config.cells:
        row = [f"`{cell.name}`"]
        for correlation in correlations:
            values = result.populations.get((cell.name, correlation))
            if values is None:
                row.append("-")
                continue
            rho1, rho2, r12 = values
            delta = rho1 - rho2 if cell.effect else 0.0
            row.append(f"{rho1:.3f}, {rho2:.3f}, {r12:.3f} ({delta:+.3f})")
        rows.append(row)
    return _table(header, rows)


def _choice_table(result: SuiteResult) -> list[str]:
    """``method="auto"``'s choice at every grid n, for one pair and for an adjusted family, with
    its summed band violation, the best method there and the margin (percentage points)."""
    from sts_extras.stats.calibration import choice_table

    rows = []
    for correlation in result.config.correlations:
        for family in (False, True):
            cells = []
            for choice in choice_table(correlation, family):
                text = f"`{choice.method}` {100 * choice.violation:.1f}"
                if choice.carried != choice.method:
                    text += (
                        f" (from `{choice.carried}` {100 * choice.carried_violation:.1f}, "
                        f"margin {100 * choice.margin:.1f})"
                    )
                elif choice.best != choice.method:
                    text += (
                        f" (best `{choice.best}` {100 * choice.best_violation:.1f}, "
                        f"margin {100 * choice.margin:.1f})"
                    )
                cells.append(text)
            what = "several pairs, adjusted" if family else "one pair"
            rows.append([f"{correlation}, {what}", *cells])
    ns = [choice.n for choice in choice_table(result.config.correlations[0])]
    return _table(["correlation", *[f"n = {n}" for n in ns]], rows)


def _replicate_agreement(selection: SuiteResult, evaluation: SuiteResult) -> list[str]:
    """How far the two replicates' rates lie apart, against their Monte Carlo error."""
    differences = []
    for first, second in zip(selection.results, evaluation.results):
        for method in DIFFERENCE_METHODS:
            pairs = [(first.coverage[method], second.coverage[method])]
            size_a, size_b = first.size[method], second.size[method]
            if size_a is not None and size_b is not None:
                pairs.append((size_a, size_b))
            samples = first.samples_by_method[method]
            for a, b in pairs:
                edge = 0.05 if min(a, b) < 0.5 else 0.95
                error = math.sqrt(2 * edge * (1 - edge) / samples)
                differences.append((abs(a - b), abs(a - b) / error))
    if not differences:
        return []
    largest = max(d for d, _ in differences)
    beyond = sum(1 for _, z in differences if z > 2)
    return [
        f"The two replicates (seeds {selection.config.seed} and {evaluation.config.seed}) differ "
        f"by at most {100 * largest:.1f} points on one rate of an interval method; "
        f"{beyond} of {len(differences)} rates ({100 * beyond / len(differences):.1f} %) differ "
        "by more than 2 standard errors of a difference (about 5 % expected by chance).",
    ]


def _samples_table(result: SuiteResult) -> list[str]:
    """S drawn / bootstrapped per correlation and n, and the standard error at 5 %."""
    correlations = result.config.correlations
    ns = sorted({r.n for r in result.results})
    rows = []
    for correlation in correlations:
        row = [correlation]
        for n in ns:
            found = [r for r in result.results if r.correlation == correlation and r.n == n]
            if not found:
                row.append("-")
                continue
            drawn = min(r.samples for r in found)
            booted = min(r.samples_by_method["percentile"] for r in found)
            if drawn == booted:
                row.append(f"{drawn} (SE {100 * standard_error(ALPHA, drawn):.2f})")
            else:
                errors = " / ".join(
                    f"{100 * standard_error(ALPHA, k):.2f}" for k in (drawn, booted)
                )
                row.append(f"{drawn} / {booted} (SE {errors})")
        rows.append(row)
    return _table(["S (SE, points)", *[f"n = {n}" for n in ns]], rows)


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min ({seconds:.0f} s)"


def page_text(
    result: SuiteResult,
    *,
    selection: SuiteResult | None = None,
    figure: str | None = "img/calibration.png",
    machine: str = "",
) -> str:
    """The Markdown of ``docs/calibration.md`` for a run: ``result`` is the evaluation
    replicate (every table of rates), ``selection`` the replicate ``method="auto"`` chose on
    (with it, the choice table and the agreement of the two)."""
    from sts_extras.stats.calibration import CALIBRATION_RULE, CHOICE_RULE

    config = result.config
    seconds = result.seconds + (0.0 if selection is None else selection.seconds)
    cpu_seconds = result.cpu_seconds + (0.0 if selection is None else selection.cpu_seconds)
    samples = config.samples
    families = sorted({c.family for c in config.cells if not c.real})
    n_synthetic = sum(1 for c in config.cells if not c.real)
    n_real = sum(1 for c in config.cells if c.real)
    n_null = sum(1 for c in config.cells if not c.real and not c.effect)
    lines = [
        "# Calibration of the intervals and tests of r1 - r2",
        "",
        "<!-- Generated by `python -m benchmarks.calibration`: do not edit by hand. -->",
        "",
        "How often does each method of the package reject a true null (its **size**, or type-I",
        "error, at alpha = 0.05, two-sided) and how often does its 95 % interval of the",
        "difference of two dependent correlations r1 - r2 = r(gold, a) - r(gold, b) contain the",
        "true difference (its **coverage**)? The calibration suite in `benchmarks/calibration/`",
        "measures both for every method, on simulated data sets of many shapes and on samples",
        "of real STS Benchmark scores, and writes `sts_extras/data/calibration.json`, which",
        "`sts_extras.stats.calibration` reads (`measured_level`, `choose_method`).",
        "",
        "## Rerun",
        "",
        "<!-- no-test: long -->",
        "```bash",
        f"{COMMAND}            # the full grid: this page, the figure and the JSON table",
        f"{COMMAND} --quick    # the fixed-seed slice the tests run (prints a summary)",
        "```",
        "",
        f"Options: `--samples S` (default {samples}), `--resamples B` (default "
        f"{config.resamples}), `--seed K` (default 0: the selection replicate; the evaluation "
        "replicate uses K + 1), `--workers W` (default 2).",
        "The same seed gives the same table: every random stream is keyed by the seed, the",
        "cell, n and the correlation, whatever the order of the work or the number of workers.",
        f"This run: seeds {'' if selection is None else f'{selection.config.seed} and '}"
        f"{config.seed}, {config.workers} worker(s), **{_minutes(seconds)}**"
        f" wall-clock" + (f" on {machine}" if machine else "") + f"; the work took "
        f"{_minutes(cpu_seconds)} of CPU time, i.e. "
        f"{_minutes(cpu_seconds / max(1, config.workers))} on {config.workers} idle "
        "core(s) (the wall-clock time is longer when other work shares the machine).",
        "",
        "## What is measured",
        "",
        f"* **Methods**: the interval methods {', '.join(f'`{m}`' for m in DIFFERENCE_METHODS)}",
        "  (`sts_extras.stats.intervals.difference_intervals` / `difference_pvalues`, whose",
        "  interval excludes 0 exactly when p < alpha), and the seed tests",
        f"  {', '.join(f'`{m}`' for m in DEPENDENT_METHODS)}",
        "  (`dependent_statistic` with the p-value of `dependent_correlation_test`; their",
        "  coverage is that of the Zou (2007) interval they all report). For Spearman the seed",
        "  tests run on the Spearman correlation matrix, as",
        '  `compare_dependent_correlations(correlation="spearman")` does.',
        f"* **Grid**: n in {{{', '.join(str(n) for n in sorted(config.n_values))}}};"
        f" {n_synthetic} synthetic cells ({n_null} null, {n_synthetic - n_null} with an effect;",
        f"  families {', '.join(families)}) and {n_real} real-data cells;"
        f" {' and '.join(c.capitalize() for c in config.correlations)}.",
        "* **Monte Carlo**: S data sets per cell (drawn / bootstrapped: the bootstrap",
        "  methods are measured on the first ones, jackknife-t and the seed tests on all drawn);",
        f"  B = {config.resamples} bootstrap resamples per data set. One count matrix is drawn",
        "  per cell and shared by its data sets (valid: the resampled indices are independent",
        "  of the data). Spearman's bootstrap costs O(B n) or O(B n^2) per data set, so Spearman",
        "  gets fewer data sets at some n; the standard error of a rate near 5 % (or 95 %) is",
        "  sqrt(0.05 x 0.95 / S):",
        "",
        *_samples_table(result),
        "",
        "Entries: data sets drawn / bootstrapped, and the standard errors in points. A rate is",
        "measured to about +-2 standard errors; keep that in mind near the band's edges.",
        "",
        "## Two replicates, one rule",
        "",
        'The suite runs twice, with independent random streams: `method="auto"` chooses on the',
        "**selection** replicate, and every printed level (`result.calibration`, the reports,",
        "every table on this page) comes from the **evaluation** replicate, which the choice did",
        "not see. The rule behind `calibrated`, quoted from `sts_extras.stats.calibration."
        "CALIBRATION_RULE`:",
        "",
        f"> {CALIBRATION_RULE}",
        "",
        "Below, each entry is the **largest size / smallest coverage** in percent over the",
        "synthetic cells at that n (the liberal ends), **bold** where that rate lies outside",
        "the band by the rule (with its Monte Carlo allowance) at n >= 50, *italics* below;",
        "in brackets, how many cells at that n lie outside the band either way (a result's",
        "`outside_band`: a conservative cell, too few rejections or too much coverage, counts",
        "too). *Liberal* means rejecting too often or covering too little; *conservative* the",
        "reverse. A result names every cell outside the band and its `UncalibratedWarning`",
        "the farthest.",
        "",
        *([] if selection is None else [*_replicate_agreement(selection, result), ""]),
    ]
    if figure:
        lines += [f"![Size and coverage against n]({figure})", ""]
    for correlation in config.correlations:
        title = (
            f"## {correlation.capitalize()}: synthetic cells (largest size / smallest coverage, "
            "cells outside the band)"
        )
        lines += [title, ""]
        lines += _synthetic_table(result, correlation)
        lines += [
            "",
            "Where the largest size and the smallest coverage occur (their cells;",
            "the setting's rho, or rho1 for an effect cell):",
            "",
            *_worst_cells_table(result, correlation),
            "",
            f"By family, largest size / smallest coverage over n >= {BAND_FROM_N} (cells outside "
            "the band; `real`: the STS Benchmark cells):",
            "",
            *_family_table(result, correlation, FAMILY_METHODS),
            "",
            *_findings(result, correlation),
            "",
        ]
    for correlation in config.correlations:
        lines += [f"## {correlation.capitalize()}: real STS Benchmark cells", ""]
        lines += _real_table(result, correlation)
        lines.append("")
    if selection is not None:
        lines += [
            "## The method `choose_method` picks",
            "",
            "`sts_extras.stats.calibration.choose_method(correlation, n)` (the method",
            '`method="auto"` uses), quoted from `sts_extras.stats.calibration.CHOICE_RULE`:',
            "",
            f"> {CHOICE_RULE}",
            "",
            "Each entry: the method chosen and its summed band violation on the selection",
            "replicate, in points; where the choice switched, the method it left and that",
            "method's violation there; where another method was best but by less than the",
            "margin, that method, its violation and the margin it did not beat.",
            "",
            *_choice_table(result),
            "",
        ]
    lines += [
        "## The cells",
        "",
        "Population correlations of each cell (synthetic Pearson values are exact by",
        "construction except for `sts-like`, whose setting names latent values; the others come",
        "from a 2,000,000-row sample with a fixed seed, 400,000 rows for the null cells, whose",
        "values are only shown; real cells: the full STS Benchmark test set, 1,379 pairs,",
        "sampled with replacement). Null cells are symmetric in a and b, so their true",
        "difference is exactly 0; Delta is the true difference the coverage is measured at.",
        "",
        *_cells_table(result),
        "",
        "Families: `normal` (trivariate normal); `heteroscedastic` (error sd 0.2 + |gold -",
        "mean|); `heavy-tailed` (bivariate t errors, 3 df); `skewed` (gamma(2) gold,",
        "chi-square(4) errors); `sts-like` (gold the mean of 5 integer votes on 0-5, systems",
        "tanh of latent scores, cosine-like in (-1, 1)); `stsb-test` (real: the STS Benchmark",
        "test set scored by the package's models, `benchmarks/calibration/real_scores.py`).",
        "",
    ]
    undefined = [
        (r, m, k)
        for r in result.results
        for m, k in r.undefined.items()
        if k and m in DIFFERENCE_METHODS
    ]
    if undefined:
        lines += ["Undefined intervals (NaN, counted as not covering):", ""]
        lines += [
            f"* `{m}`, {r.correlation}, `{r.cell.name}`, n = {r.n}: {k} of {r.samples}"
            for r, m, k in undefined[:20]
        ]
        lines.append("")
    return "\n".join(lines)


def write_page(result: SuiteResult, path: Path, **options: Any) -> Path:
    """Write the docs page (see :func:`page_text` for the options)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page_text(result, **options), encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# Figure
# --------------------------------------------------------------------------------------------
def write_figure(result: SuiteResult, path: Path) -> Path:
    """Size and coverage against n, one line per method, Pearson and Spearman panels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    correlations = result.config.correlations
    has_real = any(r.cell.real for r in result.results)
    panels = [
        ("worst size, synthetic null cells", "size", False, SIZE_BAND),
        ("worst coverage, synthetic cells", "coverage", False, COVERAGE_BAND),
    ]
    if has_real:
        panels += [
            ("size, real null cell (STS Benchmark)", "size", True, SIZE_BAND),
            ("worst coverage, real cells (STS Benchmark)", "coverage", True, COVERAGE_BAND),
        ]
    figure, axes = plt.subplots(
        len(panels),
        len(correlations),
        figsize=(5.2 * len(correlations), 3.2 * len(panels)),
        squeeze=False,
        sharex=True,
    )
    palette = plt.get_cmap("tab10")
    colours = [palette(i) for i in range(10)]
    styles = {m: ("-" if m in DIFFERENCE_METHODS else "--") for m in FIGURE_METHODS}
    for column, correlation in enumerate(correlations):
        ns = _n_values(result, correlation)
        for row, (title, what, real, band) in enumerate(panels):
            axis = axes[row][column]
            axis.axhspan(band[0] * 100, band[1] * 100, color="0.88", zorder=0)
            axis.axhline((band[0] + band[1]) * 50, color="0.5", linewidth=0.8, zorder=1)
            for index, method in enumerate(FIGURE_METHODS):
                values = []
                for n in ns:
                    size, coverage, _ = worst(result.results, correlation, method, n, real=real)
                    value = size if what == "size" else coverage
                    values.append(math.nan if value is None else 100 * value)
                axis.plot(
                    ns,
                    values,
                    styles[method],
                    marker="o",
                    markersize=3,
                    color=colours[index % len(colours)],
                    label=method,
                )
            axis.set_xscale("log")
            axis.set_xticks(ns)
            axis.set_xticklabels([str(n) for n in ns])
            axis.minorticks_off()
            axis.set_title(f"{correlation.capitalize()}: {title}", fontsize=9)
            axis.set_ylabel("percent")
            if what == "size":
                axis.set_ylim(0, max(20.0, axis.get_ylim()[1]))
            else:
                axis.set_ylim(min(80.0, axis.get_ylim()[0]), 100)
            if row == len(panels) - 1:
                axis.set_xlabel("n")
    axes[0][0].legend(fontsize=7, ncol=2)
    figure.suptitle(
        "Calibration of r1 - r2 (band shaded: 5 % +- 1.5 and 95 % +- 1.5 points)", fontsize=10
    )
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


# --------------------------------------------------------------------------------------------
# Console
# --------------------------------------------------------------------------------------------
def summary_text(result: SuiteResult, methods: Sequence[str] = METHODS) -> str:
    """Plain-text tables of the worst size / coverage per method and n (synthetic, real)."""
    out = []
    for correlation in result.config.correlations:
        ns = _n_values(result, correlation)
        for real in (False, True):
            if real and not any(r.cell.real for r in result.results):
                continue
            label = "real cells" if real else "synthetic cells"
            out.append(f"{correlation}, {label}: worst size / worst coverage (%)")
            out.append(f"{'method':<16}" + "".join(f"{'n=' + str(n):>14}" for n in ns))
            for method in methods:
                cells = []
                for n in ns:
                    size, coverage, _ = worst(result.results, correlation, method, n, real=real)
                    cells.append(f"{_format_rate(size)} / {_format_rate(coverage)}")
                out.append(f"{method:<16}" + "".join(f"{c:>14}" for c in cells))
            out.append("")
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# Reading a written table through sts_extras.stats.calibration
# --------------------------------------------------------------------------------------------
class _TableRoot:
    """Stands in for ``importlib.resources.files("sts_extras")``: serves one calibration file."""

    def __init__(self, path: Path):
        self._path = path

    def joinpath(self, name: str) -> Path:
        if name != "data/calibration.json":  # pragma: no cover - only this file is read
            raise FileNotFoundError(name)
        return self._path


@contextlib.contextmanager
def use_table(path: Path) -> Iterator[None]:
    """Make :mod:`sts_extras.stats.calibration` read ``path`` instead of the packaged table.

    For a table written elsewhere than the package (``--output-dir``, the tests); the module's
    cache is cleared on entry and on exit.
    """
    from sts_extras.stats import calibration

    caches = (
        calibration._table,
        calibration._family_rows,
        calibration.choice_table,
        calibration._unreachable,
    )
    original = calibration.resources
    for cache in caches:
        cache.cache_clear()
    calibration.resources = types.SimpleNamespace(  # type: ignore[assignment]
        files=lambda package: _TableRoot(path)
    )
    try:
        yield
    finally:
        calibration.resources = original
        for cache in caches:
            cache.cache_clear()


def packaged_table_path() -> Path:
    """Where the package's ``calibration.json`` lives (this checkout's ``sts_extras/data``)."""
    import sts_extras

    return Path(sts_extras.__file__).resolve().parent / "data" / "calibration.json"
