"""The report of ``sts-extras annotate score``: the ranking and the annotators' agreement."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from sts_extras.annotation.agreement import AnnotatorAgreement
    from sts_extras.annotation.scoring import VoteScoresResult

__all__ = ["format_agreement", "print_score"]


def print_score(
    result: VoteScoresResult,
    agreement: AnnotatorAgreement | None,
    *,
    output_format: str = "text",
    top: int = 20,
    n_votes: int,
    excluded: bool = False,
) -> None:
    """Print the ranking (``text``, ``csv`` or ``json``) and, if any, the agreement report.

    The CSV's text cells that begin with ``= + - @``, tab or CR carry a leading ``'`` (OWASP's
    rule against formula injection, :mod:`sts_extras.io.csv_cells`); numbers stay numbers.

    ``n_votes`` is the number of votes scored; ``excluded`` says whether the flagged
    annotators were left out of the scores.
    """
    if output_format == "csv":
        from sts_extras.annotation.tables import csv_text  # text cells spreadsheet-safe

        sys.stdout.write(csv_text(result.table))
        return
    if output_format == "json":
        payload = {
            "ballot_sizes": list(result.ballot_sizes),
            "slopes": list(result.slopes),
            "next_items": list(result.next_items),
            "ranking": json.loads(result.table.to_json(orient="records")),
        }
        if agreement is not None:
            payload["agreement"] = {**agreement.to_dict(), "excluded": excluded}
        print(json.dumps(payload, indent=2))
        return
    sizes = ", ".join(map(str, result.ballot_sizes))
    print(f"{len(result.table)} items ranked from {n_votes} votes; ballot sizes: {sizes}")
    if result.slopes:
        print("rescaling slopes b (Eq. 6): " + ", ".join(f"{b:.4f}" for b in result.slopes))
    print(result.table.head(top).to_string(index=False, float_format="{:.4f}".format))
    if result.next_items:
        print(f"next ballot: {len(result.next_items)} items selected")
    if agreement is not None:
        print(format_agreement(agreement, excluded=excluded))


def format_agreement(agreement: AnnotatorAgreement, *, excluded: bool = False) -> str:
    """The agreement report: overall agreement, Krippendorff's alpha, one row per annotator."""
    alpha = (
        f"Krippendorff's alpha {agreement.alpha:.3f} over the {agreement.n_repeated} "
        "comparisons judged by 2+ annotators"
        if agreement.alpha is not None
        else "Krippendorff's alpha undefined (no comparison judged by 2+ annotators)"
    )
    lines = [
        "",
        f"annotators: {len(agreement.table)}; agreement with the leave-one-annotator-out "
        f"consensus {agreement.overall:.3f}; {alpha}",
        agreement.table.to_string(index=False, float_format="{:.3f}".format),
    ]
    if agreement.flagged:
        action = (
            "left out of the scores (--exclude-flagged)"
            if excluded
            else "kept (--exclude-flagged leaves them out)"
        )
        lines.append(
            f"flagged (agreement < {agreement.min_agreement:g}): "
            f"{', '.join(agreement.flagged)}; {action}"
        )
    else:
        lines.append(f"no annotator below --min-agreement {agreement.min_agreement:g}")
    return "\n".join(lines)
