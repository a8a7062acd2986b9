"""The ``sts-extras`` command line: the parser of every command, and the dispatcher.

Each subcommand has one module in this package, ``sts_extras.cli.<command>``, with
``add_arguments(parser)`` (argument definitions only) and ``run(args) -> int``, which imports the
module that does the work (:mod:`sts_extras.cli.leaderboard_run`,
:mod:`sts_extras.cli.annotate_run`, :mod:`sts_extras.cli.power_run`,
:mod:`sts_extras.cli.describe_run`, :mod:`sts_extras.cli.reproduce_run`) when the command starts.
Building the whole parser imports argparse and :mod:`sts_extras.cli.choices` only -- no numpy,
scipy, pandas, pydantic, torch, MTEB or
``datasets`` -- so ``sts-extras --help`` and every ``--help`` below it are fast
(``tests/test_cli_startup.py`` holds this; ``benchmarks/bench_cli_startup.py`` times it).

A :class:`~sts_extras.errors.UserInputError` (bad option, missing file, unknown name) is printed
as one line with exit status 2, and so is an ``OSError`` about a path the user gave (or a file
directly inside it): a folder where a file was expected, a read-only directory. A
:class:`~sts_extras.errors.CacheError` (a damaged cache that could not be rebuilt) is one line
naming the folder, with exit status 1; a repaired cache is one warning line. Any other exception
is a bug and keeps its traceback (exit status 1).

Output read by a program that stops early (``sts-extras power ... | head -1``) ends the command
quietly: on a broken pipe, standard output is pointed at ``os.devnull`` (so the flush at exit
cannot fail again) and the exit status is 1, as the Python documentation recommends
(:func:`_broken_pipe`); no traceback, no message.

Before a command runs, the folders that MTEB, ``datasets`` and matplotlib write under HOME by
default are moved into the sts-extras cache when they cannot be written there (a read-only HOME)
and the user has not set the variable that places them (:func:`steer_home_caches`).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from sts_extras.errors import CacheError, InputWarning, UserInputError
from sts_extras.optional import MissingExtraError

__all__ = ["SUBCOMMANDS", "build_parser", "main", "steer_home_caches"]

# subcommand -> (its module of options, one-line help); each module is light (see above)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "describe": ("sts_extras.cli.describe", "Summarise a benchmark: scores, lengths, readability."),
    "leaderboard": ("sts_extras.cli.leaderboard", "Run models x tasks and report every statistic."),
    "annotate": (
        "sts_extras.cli.annotate",
        "Plan, score and simulate adaptive pairwise vote collection.",
    ),
    "power": (
        "sts_extras.cli.power",
        "Power, sample size and minimal detectable difference of a dependent-correlation test.",
    ),
    "reproduce": (
        "sts_extras.cli.reproduce",
        "Recompute the seed papers' published numbers and print them beside ours.",
    ),
    "rank": (
        "sts_extras.cli.rank",
        "Rank models across MTEB's STS tasks: published results and your own runs, with "
        "uncertainty.",
    ),
}


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, like every other user error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``sts-extras`` parser, one subparser per entry of :data:`SUBCOMMANDS`."""
    from sts_extras._version import __version__

    parser = _Parser(
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


def _home_defaults() -> dict[str, tuple[Path, ...]]:
    """Variable -> the folders its library writes under HOME while the variable is unset."""
    home = Path.home()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache")
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    hf_home = Path(os.environ.get("HF_HOME") or cache / "huggingface").expanduser()
    return {
        "MTEB_CACHE": (home / ".cache" / "mteb",),  # created by `import mteb`
        "HF_DATASETS_CACHE": (hf_home / "datasets",),  # the Arrow tables of every task
        "MPLCONFIGDIR": (config / "matplotlib", cache / "matplotlib"),  # matplotlib's font list
    }


def _writable(folder: Path) -> bool:
    """Could ``folder`` be written to, creating it if missing (nothing is created here)?"""
    for existing in (folder, *folder.parents):
        if existing.exists():
            return existing.is_dir() and os.access(existing, os.W_OK | os.X_OK)
    return False


def steer_home_caches() -> dict[str, str]:
    """Point the caches that cannot be written under HOME into the sts-extras cache.

    For each of ``MTEB_CACHE``, ``HF_DATASETS_CACHE`` and ``MPLCONFIGDIR`` that the user has not
    set, when its library's default folder under HOME cannot be written (``import mteb`` alone
    creates ``~/.cache/mteb``), the variable is set to a folder of ``$STS_EXTRAS_CACHE`` (default
    ``~/.cache/sts_extras``), if that one can be written. A variable the user set is left alone.

    Returns
    -------
    dict
        The variables set, and their new values.
    """
    from sts_extras.io.locations import default_cache_dir

    try:
        defaults = _home_defaults()
        ours = default_cache_dir()
    except RuntimeError:  # no home directory at all: nothing to steer around
        return {}
    steered = {}
    for variable, folders in defaults.items():
        target = ours / variable.lower()
        if os.environ.get(variable) or all(_writable(folder) for folder in folders):
            continue
        if _writable(target):
            os.environ[variable] = steered[variable] = str(target)
    return steered


def _named_path(error: OSError, argv: Sequence[str]) -> str | None:
    """How the user named the path ``error`` concerns, or its folder: ``"--output 'x'"``."""
    concerned = {
        os.path.abspath(os.fspath(name))
        for name in (error.filename, error.filename2)
        if isinstance(name, (str, os.PathLike)) and os.fspath(name)
    }
    concerned |= {os.path.dirname(name) for name in concerned}  # a file directly inside it
    for index, token in enumerate(argv):
        option, equals, value = token.partition("=") if token.startswith("--") else ("", "", token)
        if (not equals and token.startswith("-")) or not value:
            continue
        if os.path.abspath(os.path.expanduser(value)) not in concerned:
            continue
        if not option and index > 0 and argv[index - 1].startswith("--"):
            option = argv[index - 1]
        return f"{option} {value!r}" if option else repr(value)
    return None


def _error(command: str, message: object) -> int:
    """Print a user error as one line (the exit status 2 it means is returned)."""
    text = re.sub(r"\s*\n\s*", " ", str(message)).strip()
    print(f"sts-extras {command}: error: {text}", file=sys.stderr)
    return 2


@contextlib.contextmanager
def _one_line_input_warnings() -> Iterator[None]:
    """Show an :class:`~sts_extras.errors.InputWarning` (a repeated pair, word or vote; a cache
    entry rebuilt) as one line, without the source line Python adds: each reports an input, not
    a place in the code."""
    show = warnings.showwarning

    def showwarning(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if issubclass(category, InputWarning):
            print(f"sts-extras: warning: {message}", file=sys.stderr)
        else:
            show(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning
    try:
        yield
    finally:
        warnings.showwarning = show


def _broken_pipe() -> int:
    """The reader of standard output has gone: send the rest to ``os.devnull``, exit quietly.

    Python flushes standard output again at exit; pointed at ``os.devnull`` that flush cannot
    fail, so no ``BrokenPipeError`` is printed there either. Returns the exit status, 1.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no file descriptor (captured in-process)
        pass
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``sts-extras``; return the exit status (0, 2 for a user error, 1 for a closed output
    pipe, 130 if interrupted)."""
    try:
        status = _main(argv)
        sys.stdout.flush()  # a broken pipe shows here, not at exit
    except BrokenPipeError:
        return _broken_pipe()
    except SystemExit:  # --help, --version, a usage error: printed by argparse
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _broken_pipe()
        raise
    return status


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)  # imports no library, so steering after it is in time
    steer_home_caches()  # before any library reads its variables
    try:
        with _one_line_input_warnings():
            return int(args._run(args) or 0)
    except (UserInputError, MissingExtraError) as error:  # fix the input / install the extra
        return _error(args.command, error)
    except CacheError as error:  # names the folder to delete: no traceback, but not exit 2
        _error(args.command, error)
        return 1
    except OSError as error:  # about a path the user gave: a user error, else a bug
        named = _named_path(error, argv)
        if named is None:
            raise
        reason = error.strerror or type(error).__name__
        where = f" ({error.filename})" if error.filename else ""
        return _error(
            args.command, f"{named}: {reason}{where}; check the path and its permissions."
        )
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
