"""Specification of the MTEB-compatible static-vector models (DynaMax, MaxPool, MeanPooled).

``score`` must equal the similarity core; inside ``mteb.evaluate`` (offline, on a small local
AbsTaskSTS task) MTEB's ``pearson`` must equal the Pearson of ``score``; the SentenceTransformer
conversion of MeanPooled must give the same scores.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import pearsonr

from sts_extras.integrations.mteb.models import DynaMax, MaxPool, MeanPooled
from sts_extras.similarity.fuzzy import (
    average_cosine_similarity,
    dynamax_similarity,
    maxpool_similarity,
)
from sts_extras.vectors import OOVWarning, SIFWeights, WordVectors

PAIRS = [
    ("A man is playing a guitar.", "A man plays the guitar."),
    ("A woman is slicing an onion.", "A woman is cutting an onion."),
    ("The cat sits on the mat.", "A dog runs in the park."),
    ("Kids play football in the park.", "Children are playing soccer outside."),
    ("The stock market fell sharply today.", "Share prices dropped a lot today."),
    ("I love reading books at night.", "Reading at night is something I enjoy."),
    ("The train was late again.", "A bird sings in the tree."),
    ("She bought a new red car.", "She purchased a new car that is red."),
    ("The weather is cold and rainy.", "It is raining and cold outside."),
    ("He cooks pasta for dinner.", "The computer needs a new battery."),
    ("Two dogs are running on the beach.", "Two dogs run along the sand."),
    ("Nobody came to the party.", "The party had no guests at all."),
]
# OOV tokens ("nobody", "sharply") are intended here; the warning itself is tested once below.
pytestmark = pytest.mark.filterwarnings("ignore::sts_extras.vectors.OOVWarning")

GOLD = [4.8, 4.2, 0.4, 3.9, 4.0, 4.1, 0.0, 4.7, 4.3, 0.0, 4.4, 3.8]


@pytest.fixture(scope="module")
def wv():
    """Random raw vectors for every lower-cased word of PAIRS, minus a few (to exercise OOV)."""
    import re

    words = sorted(
        {word for pair in PAIRS for text in pair for word in re.findall(r"\w+", text.lower())}
    )
    words = [word for word in words if word not in {"nobody", "sharply"}]
    rng = np.random.default_rng(11)
    vectors = rng.normal(size=(len(words), 16)) * rng.uniform(0.3, 2.0, size=(len(words), 1))
    return WordVectors.from_arrays(words, vectors.astype(np.float32), name="toy vectors")


@pytest.fixture(scope="module")
def sentences():
    return [a for a, _ in PAIRS], [b for _, b in PAIRS]


def _ids(wv, texts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OOVWarning)
        return wv.encode(texts).ids


MODELS = [
    pytest.param(lambda wv: DynaMax(wv), dynamax_similarity, {}, id="DynaMax-Jaccard"),
    pytest.param(
        lambda wv: DynaMax(wv, "otsuka"),
        dynamax_similarity,
        {"measure": "otsuka"},
        id="DynaMax-Otsuka",
    ),
    pytest.param(lambda wv: MaxPool(wv), maxpool_similarity, {}, id="MaxPool-Jaccard"),
    pytest.param(
        lambda wv: MaxPool(wv, measure="cosine"),
        maxpool_similarity,
        {"measure": "cosine"},
        id="MaxPool-cos",
    ),
    pytest.param(lambda wv: MeanPooled(wv), average_cosine_similarity, {}, id="avg-cos"),
]


@pytest.mark.parametrize(("build", "core", "options"), MODELS)
def test_score_is_the_core_on_the_tokenised_sentences(wv, sentences, build, core, options):
    model = build(wv)
    with pytest.warns(OOVWarning) as record:
        scores = model.score(*sentences)
    assert len(record) == 1  # one warning per call, not per sentence
    expected = core(
        _ids(wv, sentences[0]),
        _ids(wv, sentences[1]),
        vectors=wv.vectors.astype(np.float64),
        **options,
    )
    assert scores.dtype == np.float64 and scores.shape == (len(PAIRS),)
    assert_allclose(scores, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("build", "core", "options"), MODELS)
def test_encode_then_similarity_reproduce_score(wv, sentences, build, core, options):
    model = build(wv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OOVWarning)
        expected = model.score(*sentences)
        first, second = model.encode(sentences[0]), model.encode(sentences[1])
    assert first.shape == (len(PAIRS), wv.dim)
    assert_allclose(model.similarity_pairwise(first, second), expected, rtol=0, atol=1e-12)
    matrix = model.similarity(first, second)
    assert matrix.shape == (len(PAIRS), len(PAIRS))
    assert_allclose(np.diag(matrix), expected, rtol=0, atol=1e-12)


def test_dynamax_embeddings_survive_slicing_reordering_and_float32_tensors(wv, sentences):
    import torch

    model = DynaMax(wv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OOVWarning)
        expected = model.score(*sentences)
        first, second = model.encode(sentences[0]), model.encode(sentences[1])
    order = np.arange(len(PAIRS))[::-1]
    reordered = model.similarity_pairwise(
        torch.tensor(first[order], dtype=torch.float32), second[order]
    )
    assert_allclose(reordered, expected[order], rtol=0, atol=1e-12)
    # cosine of the summed vectors is avg-cos: MTEB's cosine_* fields are the paper's baseline
    assert_allclose(
        MeanPooled(wv).similarity_pairwise(first, second),
        MeanPooled(wv).score(*sentences),
        rtol=0,
        atol=1e-12,
    )
    with pytest.raises(ValueError, match="was not produced by this model's encode"):
        model.similarity_pairwise(np.ones((1, wv.dim)), second[:1])
    with pytest.raises(ValueError, match="not produced by this model's encode"):
        DynaMax(wv).similarity_pairwise(first, second)  # another DynaMax object


def test_sif_changes_scores_as_expected():
    # "the" dominates both sentences: without SIF avg-cos is high; SIF down-weights "the" and
    # leaves the different content words, so the score drops; DynaMax-SIF is DynaMax on
    # a/(a + p(w))-scaled vectors.
    words = ["the", "cat", "dog"]
    vectors = np.array([[5.0, 5.0, 0.0], [1.0, 0.0, 0.5], [0.0, 1.0, -0.5]])
    wv = WordVectors.from_arrays(words, vectors, name="sif toy")
    sif = SIFWeights(counts={"the": 9_000, "cat": 10, "dog": 10})
    plain, weighted = (
        MeanPooled(wv).score(["the cat"], ["the dog"]),
        MeanPooled(wv, sif=sif).score(["the cat"], ["the dog"]),
    )
    assert weighted[0] < plain[0] - 0.5
    weights = sif.weights(words)
    assert_allclose(
        DynaMax(wv, sif=sif).score(["the cat"], ["the dog"]),
        dynamax_similarity([[0, 1]], [[0, 2]], vectors=vectors * weights[:, None]),
        rtol=1e-14,
    )
    assert DynaMax(wv, sif=True).method == "DynaMax-Jaccard-SIF"


def test_model_metadata_names_are_distinct(wv):
    from mteb.models import ModelMeta
    from mteb.models.models_protocols import EncoderProtocol

    models = [
        DynaMax(wv),
        DynaMax(wv, "dice"),
        MaxPool(wv),
        MaxPool(wv, "cosine"),
        MeanPooled(wv),
        MeanPooled(wv, sif=True),
    ]
    metas = [model.mteb_model_meta for model in models]
    assert all(isinstance(meta, ModelMeta) for meta in metas)
    assert all(isinstance(model, EncoderProtocol) for model in models)
    names = [meta.name for meta in metas]
    assert len(set(names)) == len(names)
    assert names[0] == "sts-extras/DynaMax-Jaccard-toy-vectors"
    assert (
        metas[2].name == "sts-extras/MaxPool-Jaccard-toy-vectors" and metas[4].embed_dim == wv.dim
    )


@pytest.fixture(scope="module")
def local_sts_task():
    from datasets import Dataset, DatasetDict
    from mteb.abstasks.sts import AbsTaskSTS
    from mteb.abstasks.task_metadata import TaskMetadata

    class ToySTS(AbsTaskSTS):
        metadata = TaskMetadata(
            name="ToySTS",
            dataset={"path": "local/toy-sts", "revision": "0" * 40},
            description="Twelve hand-written pairs for testing.",
            reference=None,
            type="STS",
            category="t2t",
            modalities=["text"],
            eval_splits=["test"],
            eval_langs=["eng-Latn"],
            main_score="pearson",
            date=None,
            domains=None,
            task_subtypes=None,
            license=None,
            annotations_creators=None,
            dialect=None,
            sample_creation=None,
            bibtex_citation="",
        )
        min_score = 0
        max_score = 5

        def load_data(self, num_proc=None, **kwargs):
            rows = {
                "sentence1": [a for a, _ in PAIRS],
                "sentence2": [b for _, b in PAIRS],
                "score": GOLD,
            }
            self.dataset = DatasetDict({"test": Dataset.from_dict(rows)})
            self.data_loaded = True

    return ToySTS


@pytest.mark.parametrize(
    "build",
    [lambda wv: DynaMax(wv), lambda wv: MaxPool(wv), lambda wv: MeanPooled(wv)],
    ids=["DynaMax", "MaxPool", "MeanPooled"],
)
def test_mteb_evaluate_pearson_is_the_pearson_of_score(wv, sentences, local_sts_task, build):
    import mteb

    model = build(wv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OOVWarning)
        result = mteb.evaluate(
            model,
            [local_sts_task()],
            cache=None,
            show_progress_bar=False,
            co2_tracker=False,
            raise_error=True,
        )
        scores = model.score(*sentences)
    (task_result,) = result.task_results
    (metrics,) = task_result.scores["test"]
    assert metrics["pearson"] == pytest.approx(pearsonr(scores, GOLD)[0], rel=1e-12, abs=1e-12)
    if isinstance(model, DynaMax):  # cosine_* of DynaMax's embeddings is avg-cos
        assert metrics["cosine_pearson"] == pytest.approx(
            pearsonr(MeanPooled(wv).score(*sentences), GOLD)[0], rel=1e-9
        )


@pytest.mark.parametrize("sif", [False, True])
def test_sentence_transformer_conversion_matches_mean_pooled(wv, sentences, tmp_path, sif):
    from sentence_transformers import SentenceTransformer

    model = MeanPooled(wv, sif=SIFWeights(counts={"the": 50, "a": 40, "is": 30}) if sif else False)
    st_model = model.to_sentence_transformer()
    first = st_model.encode(sentences[0], convert_to_tensor=True)
    second = st_model.encode(sentences[1], convert_to_tensor=True)
    converted = st_model.similarity_pairwise(first, second).numpy()
    assert_allclose(converted, model.score(*sentences), rtol=1e-5, atol=1e-6)
    assert_allclose(st_model.similarity(first, second).numpy()[1, 1], converted[1], rtol=1e-6)
    st_model.save(str(tmp_path / "st"))
    reloaded = SentenceTransformer(str(tmp_path / "st"), trust_remote_code=True, device="cpu")
    assert_allclose(reloaded.encode(sentences[0]), st_model.encode(sentences[0]), rtol=1e-6)


def test_progress_bar_on_long_encodes(wv, capsys):
    model = MeanPooled(wv, show_progress_bar=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OOVWarning)
        model.encode(["the cat sits on the mat"] * 5)
    assert "Encoding (avg-cos)" in capsys.readouterr().err
    MeanPooled(wv).encode(["the cat"])  # short encodes stay quiet by default
    assert capsys.readouterr().err == ""


def test_bad_arguments_are_named(wv):
    with pytest.raises(TypeError, match="`vectors` must be a sts_extras.vectors.WordVectors"):
        DynaMax(np.zeros((3, 2)))  # type: ignore[arg-type]  # deliberately wrong type
    with pytest.raises(ValueError, match="`measure` must be one of"):
        DynaMax(wv, "tanimoto")
    with pytest.raises(ValueError, match="`measure` must be one of"):
        MaxPool(wv, measure="max")
    with pytest.raises(TypeError, match="`sif` must be True, False or a SIFWeights"):
        MeanPooled(wv, sif="yes")  # type: ignore[arg-type]  # deliberately wrong type
    with pytest.raises(ValueError, match="same length"):
        DynaMax(wv).score(["a"], ["b", "c"])


def test_docstring_examples_run():
    import doctest

    import sts_extras.integrations.mteb.models.dynamax
    import sts_extras.integrations.mteb.models.pooled
    import sts_extras.similarity.fuzzy
    import sts_extras.vectors

    for module in (
        sts_extras.similarity.fuzzy,
        sts_extras.vectors,
        sts_extras.integrations.mteb.models.dynamax,
        sts_extras.integrations.mteb.models.pooled,
    ):
        result = doctest.testmod(
            module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
        )
        assert result.attempted > 0 and result.failed == 0, module.__name__


# ---------------------------------------------------------------- MTEB's main score
def _sts_task_with_main_score(base: Any, main_score):
    from mteb.abstasks.task_metadata import TaskMetadata

    class Task(base):
        metadata = TaskMetadata(
            **{
                **base.metadata.model_dump(),
                "name": f"ToySTS-{main_score}",
                "main_score": main_score,
            }
        )

    return Task


@pytest.mark.parametrize(
    ("build", "main_score", "warns"),
    [
        (lambda wv: DynaMax(wv), "cosine_spearman", True),
        (lambda wv: MaxPool(wv), "cosine_spearman", True),
        (lambda wv: MaxPool(wv, "cosine"), "cosine_spearman", False),
        (lambda wv: MeanPooled(wv), "cosine_spearman", False),
        (lambda wv: DynaMax(wv), "spearman", False),
    ],
    ids=["DynaMax", "MaxPool-Jaccard", "MaxPool-cos", "avg-cos", "DynaMax-own-main-score"],
)
def test_a_cosine_main_score_that_is_not_the_models_own_warns_once(
    wv, local_sts_task, build, main_score, warns
):
    import mteb

    from sts_extras.integrations.mteb.models import MainScoreWarning

    task = _sts_task_with_main_score(local_sts_task, main_score)
    model = build(wv)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for _ in range(2):  # two evaluations of the same model object: still one warning
            result = mteb.evaluate(
                model, [task()], cache=None, show_progress_bar=False, co2_tracker=False
            )
    raised = [item for item in record if issubclass(item.category, MainScoreWarning)]
    assert len(raised) == (1 if warns else 0)
    if warns:
        message = str(raised[0].message)
        assert "'spearman' and 'pearson'" in message and main_score in message
    (metrics,) = result.task_results[0].scores["test"]
    own = pearsonr(model.score([a for a, _ in PAIRS], [b for _, b in PAIRS]), GOLD)[0]
    assert metrics["pearson"] == pytest.approx(own, rel=1e-12)


# ---------------------------------------------------------------- MTEB's model metadata
def test_model_metadata_cites_the_methods_paper_and_describes_known_vectors(wv):
    dynamax, maxpool, average = (
        DynaMax(wv).mteb_model_meta,
        MaxPool(wv).mteb_model_meta,
        MeanPooled(wv, sif=True).mteb_model_meta,
    )
    assert dynamax.citation is not None and maxpool.citation is not None
    assert average.citation is not None
    assert "zhelezniak2019dont" in dynamax.citation and "zhelezniak2019dont" in maxpool.citation
    assert "zhelezniak2019dont" not in average.citation
    assert "mitchell2008vector" in average.citation and "arora2017simple" in average.citation
    assert dynamax.adapted_from is None and dynamax.license is None  # unknown arrays
    glove = WordVectors.from_arrays(
        wv.words, wv.vectors, name="glove", source="gensim-downloader:glove-wiki-gigaword-50"
    )
    meta = DynaMax(glove).mteb_model_meta
    assert meta.adapted_from == "glove-wiki-gigaword-50"
    assert meta.languages == ["eng-Latn"] and "pddl" in str(meta.license)


# ---------------------------------------------------------------- as a sentence-transformer
def _st_ids(st_model, texts):
    """Token ids of the StaticEmbedding tokenizer, minus the zero (unknown) row."""
    module = st_model[0]
    unknown = module.num_embeddings - 1
    return [
        [i for i in enc.ids if i != unknown]
        for enc in module.tokenizer.encode_batch(texts, add_special_tokens=False)
    ]


def test_sentence_transformer_is_a_plain_static_embedding_with_our_tokenisation(wv, sentences):
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding

    st_model = MeanPooled(wv).to_sentence_transformer()
    assert len(st_model) == 1 and isinstance(st_model[0], StaticEmbedding)
    texts = [*sentences[0], *sentences[1], "THE Cat sits -- on the mat!", "Kids' state-of-the-art"]
    assert _st_ids(st_model, texts) == [ids.tolist() for ids in _ids(wv, texts)]
    # a cased vocabulary with compounds: Capitalised/UPPER fall back to lower case, known
    # compounds stay whole; an unknown compound is dropped (ours splits it): the documented gap
    cased = WordVectors.from_arrays(
        ["Paris", "paris", "the", "ice", "cream", "e-mail"], np.eye(6), name="cased"
    )
    cased_st = MeanPooled(cased).to_sentence_transformer()
    assert _st_ids(cased_st, ["Paris THE The e-mail"]) == [[0, 2, 2, 5]]
    assert _ids(cased, ["ice-cream"])[0].tolist() == [3, 4]
    assert _st_ids(cased_st, ["ice-cream"]) == [[]]


@pytest.mark.parametrize("sif", [False, True])
def test_saved_sentence_transformer_reloads_without_sts_extras(wv, sentences, tmp_path, sif):
    import json
    import subprocess
    import sys

    model = MeanPooled(wv, sif=SIFWeights(counts={"the": 50, "a": 40, "is": 30}) if sif else False)
    folder = tmp_path / "st"
    model.to_sentence_transformer().save(str(folder))
    assert "sts_extras" not in "".join(p.read_text() for p in folder.rglob("*.json"))
    script = """
import json, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "sts_extras":
            raise ImportError("sts_extras is blocked")
sys.meta_path.insert(0, Block())
from sentence_transformers import SentenceTransformer
st = SentenceTransformer(sys.argv[1], device="cpu")
pairs = json.loads(sys.argv[2])
a = st.encode(pairs[0], convert_to_tensor=True)
b = st.encode(pairs[1], convert_to_tensor=True)
print(json.dumps(st.similarity_pairwise(a, b).tolist()))
"""
    done = subprocess.run(
        [sys.executable, "-c", script, str(folder), json.dumps(list(sentences))],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    reloaded = np.array(json.loads(done.stdout.strip().splitlines()[-1]))
    assert_allclose(reloaded, model.score(*sentences), rtol=1e-5, atol=1e-6)
