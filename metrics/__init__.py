"""The ``evaluate`` modules of sts-extras, one folder each (script, card, Space files).

Load one from a checkout with ``evaluate.load("metrics/<name>")``. Installed, this folder is the
package ``sts_extras.metrics`` (see ``setup.py``), found by ``sts_extras.metric_path(name)``.
"""
