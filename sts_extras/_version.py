"""The package version, in a core module of its own so the command line can print it without
importing the public facade (:mod:`sts_extras`)."""

__version__ = "0.4.0"
