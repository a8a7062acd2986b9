"""Adapters to third-party internals: the only code that knows how other libraries work inside.

* :mod:`~sts_extras.integrations.mteb.internals` -- MTEB's task and model registries and the keys of
  its prediction files (pinned to the installed MTEB by ``tests/test_integrations_mteb.py``);
* :mod:`~sts_extras.io.model_sources` -- resolving sentence-transformers model names and paths
  (the packaged default, local directories, Hugging Face Hub ids).
"""
