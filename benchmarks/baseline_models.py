"""The word-vector models (and their tokenisation) as they were at an earlier commit.

Used by ``bench_model_api.py`` and ``tests/test_sentence_reuse.py`` to run today's models and
the models before sentence-level reuse in one process. The old ``base``, ``registry``,
``dynamax`` and ``pooled`` modules are read with ``git show`` (:func:`baseline_module.module_at`);
while the old ``dynamax`` and ``pooled`` are imported, ``sts_extras.models.base`` and
``sts_extras.models.registry`` (their names then) name the old modules, so the old classes
subclass the old base, and ``sts_extras.models.metadata`` / ``st_export`` name today's modules
(now under ``sts_extras.integrations``). Everything else they import (the similarity core,
vectors) is today's.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from baseline_module import module_at

#: The commit the sentence-level reuse started from: its models tokenised every sentence.
PRE_REUSE_COMMIT = "9b495570ad19f4d6d7f982366c3c629c95cc6d69"


@contextlib.contextmanager
def _modules_replaced(replacements: dict[str, ModuleType]) -> Iterator[None]:
    saved = {name: sys.modules.get(name) for name in replacements}
    sys.modules.update(replacements)
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def models_at(commit: str = PRE_REUSE_COMMIT) -> dict[str, Any]:
    """``Vocabulary``, ``DynaMax``, ``MaxPool`` and ``MeanPooled`` as they were at ``commit``."""
    tag = commit[:7]

    def load(path: str, name: str, **replacements: ModuleType) -> ModuleType:
        with _modules_replaced(replacements):
            return module_at(commit, path, f"{name}_{tag}")

    tokenization = load("sts_extras/vectors/tokenization.py", "tokenization")
    # moved since: the old modules import them by their old names
    moved = {
        "sts_extras.models.metadata": importlib.import_module(
            "sts_extras.integrations.mteb.models.metadata"
        ),
        "sts_extras.models.st_export": importlib.import_module(
            "sts_extras.integrations.sentence_transformers.export"
        ),
    }
    registry = load("sts_extras/models/registry.py", "registry", **moved)
    base = load("sts_extras/models/base.py", "base", **moved)
    old_base = {"sts_extras.models.base": base, "sts_extras.models.registry": registry, **moved}
    dynamax = load("sts_extras/models/dynamax.py", "dynamax", **old_base)
    pooled = load("sts_extras/models/pooled.py", "pooled", **old_base)
    return {
        "Vocabulary": tokenization.Vocabulary,
        "DynaMax": dynamax.DynaMax,
        "MaxPool": pooled.MaxPool,
        "MeanPooled": pooled.MeanPooled,
    }


def vectors_tokenised_as_at(models: dict[str, Any], wv: Any) -> Any:
    """A copy of the ``WordVectors`` ``wv`` (same table, its own subword rows) whose
    tokenisation is the old ``Vocabulary`` of :func:`models_at`, with the same settings."""
    vocabulary = wv.vocabulary
    old = wv.with_tokenization()
    old.vocabulary = models["Vocabulary"](
        vocabulary.words,
        tokenizer=vocabulary.tokenizer,
        hf_tokenizer=copy.deepcopy(vocabulary.hf_tokenizer),
        lowercase=vocabulary.lowercase,
        split_compounds=vocabulary.split_compounds,
        stop_words=vocabulary.stop_words,
    )
    return old
