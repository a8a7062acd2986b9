"""``sts-extras reproduce``: the seed papers' published numbers beside ours.

An application layer: the paper modules (:mod:`~sts_extras.reproduce.dscs`,
:mod:`~sts_extras.reproduce.stss131`, :mod:`~sts_extras.reproduce.scaled_pearson`,
:mod:`~sts_extras.reproduce.lombardo`, :mod:`~sts_extras.reproduce.dynamax`) recompute what can
be recomputed offline through the library, check the packaged datasets and the arithmetic of the
papers' printed numbers (each row names which: its ``basis``), and list the rest with the command
that reproduces it;
:mod:`~sts_extras.reproduce.report` gathers and renders them, and
:mod:`~sts_extras.reproduce.network` runs the commands whose sources the user makes reachable
(``--source NAME=PATH``, ``--online``) and fills their rows. Nothing in the library imports
this package.
"""

from sts_extras.reproduce.papers import ALL, PAPERS, paper_keys, paper_module
from sts_extras.reproduce.report import (
    PaperRows,
    ReproductionReport,
    format_markdown,
    format_readme_section,
    format_text,
    report_json,
    reproduce,
    write_report,
)
from sts_extras.reproduce.rows import (
    LeaderboardReading,
    ReproducedRow,
    RowBasis,
    RowStatus,
    computed_row,
    monte_carlo_row,
    network_row,
)

__all__ = [
    "ALL",
    "PAPERS",
    "LeaderboardReading",
    "PaperRows",
    "ReproducedRow",
    "ReproductionReport",
    "RowBasis",
    "RowStatus",
    "computed_row",
    "format_markdown",
    "format_readme_section",
    "format_text",
    "monte_carlo_row",
    "network_row",
    "paper_keys",
    "paper_module",
    "report_json",
    "reproduce",
    "write_report",
]
