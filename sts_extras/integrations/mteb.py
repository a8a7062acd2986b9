"""The one module that touches MTEB internals.

Everything sts-extras needs from MTEB beyond its public API lives here, so that an MTEB release
that moves a private name breaks one module, and ``tests/test_integrations_mteb.py`` says which.
"""

from __future__ import annotations

__all__ = ["registered_model_names"]


def registered_model_names() -> list[str]:
    """Names of the models in MTEB's model registry (for close-match hints)."""
    from mteb.models.model_implementations import MODEL_REGISTRY

    return list(MODEL_REGISTRY)
