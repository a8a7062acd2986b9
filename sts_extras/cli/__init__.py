"""The ``sts-extras`` command line (:mod:`sts_extras.cli.dispatch`), one module per command."""

from sts_extras.cli.dispatch import SUBCOMMANDS, build_parser, main, steer_home_caches

__all__ = ["SUBCOMMANDS", "build_parser", "main", "steer_home_caches"]
