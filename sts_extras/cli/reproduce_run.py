"""``sts-extras reproduce``: print the papers' numbers beside ours, optionally write them to files.

The command adapter over :func:`sts_extras.reproduce.report.reproduce`: the table goes to stdout,
``--output DIR`` also writes ``reproduce.md`` and ``reproduce.json`` there. The exit status is 0:
every computed row either matches within its tolerance or says why it differs (a row that does
neither is refused when it is built, as a bug), and the rows that need the network print the
command that reproduces them. ``--source NAME=PATH`` (repeatable) and ``--online`` run those
commands for the rows they make reachable (:mod:`sts_extras.reproduce.network`); a command that
fails adds a note and leaves its rows as they were. A malformed ``--source`` exits 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sts_extras.reproduce.report import format_text, reproduce, write_report

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    """Run ``sts-extras reproduce PAPER [--output DIR] [--source NAME=PATH]... [--online]
    [--no-progress]``."""
    from sts_extras.reproduce.network import parse_sources

    sources = parse_sources(args.source)  # a bad --source fails before any paper is computed
    output = None if args.output is None else Path(args.output).expanduser()
    if output is not None:  # a bad folder fails now, not after the papers are computed
        output.mkdir(parents=True, exist_ok=True)
    report = reproduce(
        args.paper, progress=args.progress, sources=sources, online=args.online, output=output
    )
    print(format_text(report))
    if args.output is not None:
        written = write_report(report, args.output)
        print(f"\nwrote {', '.join(str(path) for path in written)}")
    return 0
