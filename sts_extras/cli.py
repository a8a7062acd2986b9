"""The ``sts-extras`` command line.

Each subcommand lives in the module that owns the feature; that module exposes
``add_arguments(parser)`` and ``run(args) -> int``. Heavy libraries are imported inside ``run``,
so ``sts-extras --help`` stays fast.

A :class:`~sts_extras.errors.UserInputError` (bad option, missing file, unknown name) is printed
as one line with exit status 2; any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from sts_extras.errors import UserInputError
from sts_extras.optional import MissingExtraError

# subcommand -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "describe": ("sts_extras.describe", "Summarise a benchmark: scores, lengths, readability."),
    "leaderboard": ("sts_extras.leaderboard.cli", "Run models x tasks and report every statistic."),
    "annotate": (
        "sts_extras.annotation.cli",
        "Plan, score and simulate adaptive pairwise vote collection.",
    ),
    "power": (
        "sts_extras.power_cli",
        "Power, sample size and minimal detectable difference of a dependent-correlation test.",
    ),
}


def build_parser() -> argparse.ArgumentParser:
    """The ``sts-extras`` parser, one subparser per entry of :data:`SUBCOMMANDS`."""
    from sts_extras import __version__

    parser = argparse.ArgumentParser(
        prog="sts-extras",
        description="Harder STS benchmarks and sounder statistics for HF / MTEB.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command, (module_name, help_text) in SUBCOMMANDS.items():
        module = importlib.import_module(module_name)
        subparser = subparsers.add_parser(command, help=help_text, description=help_text)
        module.add_arguments(subparser)
        subparser.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``sts-extras``; return the exit status (0, 2 for a user error, 130 if interrupted)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except (UserInputError, MissingExtraError) as error:  # fix the input / install the extra
        print(f"sts-extras {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
