"""Untrusted and lying vector files.

* gensim's native files are pickles: reading one runs code stored in it, so it needs an explicit
  ``trust_pickle=True``;
* a word2vec binary header must agree with the data (count and size), and a word that is not
  UTF-8 is reported as such; a fastText ``.bin`` vocabulary must fit its file (gensim's reader
  loops forever on a file cut inside it) and may not hold a word twice (fastText never writes
  one; gensim would give the later vectors to the wrong words);
* a damaged model2vec directory is one error naming it (safetensors and tokenizers raise their
  own exception types);
* a SIF counts file may not list a word twice.
"""

from __future__ import annotations

import pathlib
import pickle
import signal
import struct
import tracemalloc

import numpy as np
import pytest
from numpy.testing import assert_allclose

from sts_extras.errors import UserInputError
from sts_extras.vectors import SIFWeights, WordVectors

WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ice", "cream", "a", "b"]


@pytest.fixture(scope="module")
def kv():
    from gensim.models import KeyedVectors

    rng = np.random.default_rng(3)
    vectors = KeyedVectors(vector_size=5)
    vectors.add_vectors(WORDS, rng.normal(size=(len(WORDS), 5)).astype(np.float32))
    return vectors


class _TouchOnUnpickle:
    """A pickle payload: unpickling it creates ``marker`` (stands for any code in the file)."""

    def __init__(self, marker: pathlib.Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.touch, (self.marker,))


# ---------------------------------------------------------------- pickles need opt-in
@pytest.mark.parametrize("suffix", [".kv", ".model"])
def test_pickle_files_run_nothing_without_trust_pickle(kv, tmp_path, suffix):
    marker = tmp_path / "payload-ran"
    evil = tmp_path / f"evil{suffix}"
    evil.write_bytes(pickle.dumps(_TouchOnUnpickle(marker)))

    for load in (
        lambda: WordVectors.load(evil),
        lambda: WordVectors.from_gensim(evil),
    ):
        with pytest.raises(
            UserInputError, match=r"evil.*pickle.*trust_pickle=True.*--trust-pickle"
        ):
            load()
        assert not marker.exists()

    # the opt-in really unpickles: the payload runs (and is then refused: not KeyedVectors)
    with pytest.raises(UserInputError, match="not a gensim KeyedVectors"):
        WordVectors.load(evil, trust_pickle=True)
    assert marker.exists()

    genuine = tmp_path / f"genuine{suffix}"
    kv.save(str(genuine))
    for loaded in (
        WordVectors.load(genuine, trust_pickle=True),
        WordVectors.from_gensim(genuine, trust_pickle=True),
    ):
        assert loaded.words == WORDS and loaded.name == "genuine"
        assert_allclose(loaded.vectors, kv.vectors)


# ---------------------------------------------------------------- lying binary headers
def _binary(kv, path, *, header=None, newline=False):
    """``kv`` as word2vec binary; ``header`` replaces line 1; ``newline`` as word2vec.c writes."""
    rows = [
        word.encode() + b" " + vector.astype("<f4").tobytes() + (b"\n" if newline else b"")
        for word, vector in zip(kv.index_to_key, kv.vectors, strict=True)
    ]
    first = header if header is not None else f"{len(rows)} {kv.vector_size}"
    path.write_bytes(first.encode() + b"\n" + b"".join(rows))
    return path


def test_binary_header_counts_must_match_the_data(kv, tmp_path):
    # word2vec.c's own layout (a newline after each vector) with a true header loads whole
    exact = WordVectors.load(_binary(kv, tmp_path / "exact.bin", newline=True))
    assert exact.words == WORDS
    assert_allclose(exact.vectors, kv.vectors)

    for newline in (False, True):
        short = _binary(kv, tmp_path / "short.bin", header="7 5", newline=newline)
        with pytest.raises(UserInputError, match=r"short\.bin.*declares 7 vectors.*holds 10"):
            WordVectors.load(short)


@pytest.mark.parametrize("header", ["99999999999 300", "5000000 5", "3 99999999999"])
def test_binary_header_promising_more_than_the_file_size_is_refused_before_allocating(
    kv, tmp_path, header
):
    path = _binary(kv, tmp_path / "huge.bin", header=header)
    count, dim = header.split()
    tracemalloc.start()
    try:
        with pytest.raises(
            UserInputError,
            match=rf"huge\.bin: the header \(line 1\) declares {count} vectors of dimension {dim}.*"
            r"only \d+ bytes",
        ):
            WordVectors.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000


def test_binary_word_that_is_not_utf8_is_reported_as_such(kv, tmp_path):
    path = _binary(kv, tmp_path / "latin.bin")
    data = path.read_bytes()
    path.write_bytes(data.replace(b"sat ", b"s\xe4t ", 1))  # latin-1 "ä", vector 3
    with pytest.raises(UserInputError, match=r"latin\.bin, vector 3.*not valid UTF-8") as caught:
        WordVectors.load(path)
    assert "truncated" not in str(caught.value)


@pytest.fixture(scope="module")
def fasttext_bin(tmp_path_factory):
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    corpus = [["the", "cat", "sat", "on", "the", "mat"], ["the", "dog", "ran"]] * 3
    model = FastText(vector_size=4, min_count=1, min_n=2, max_n=3, bucket=50, seed=1, workers=1)
    model.build_vocab(corpus_iterable=corpus)
    model.train(corpus_iterable=corpus, total_examples=len(corpus), epochs=1)
    path = tmp_path_factory.mktemp("fasttext") / "tiny.bin"
    save_facebook_model(model, str(path))
    return path.read_bytes()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (
            "cut",
            r"cut\.bin: the fastText header declares \d+ vocabulary entries, but the file ends",
        ),
        ("size", r"size\.bin: the fastText header declares 2000000000 vocabulary entries"),
        (
            "latin",
            r"latin\.bin, vocabulary entry \d+ of \d+: the word b'c\\xe4t' is not valid UTF-8",
        ),
        (  # gensim would give the vectors after the repeat to the wrong words
            "twice",
            r"twice\.bin: the word 'dog' is vocabulary entries \d+ and \d+; fastText never "
            r"writes a word twice, so the file is corrupt",
        ),
    ],
)
def test_fasttext_bin_whose_vocabulary_lies_is_refused_not_hung(
    fasttext_bin, tmp_path, damage, message
):
    if damage == "cut":  # ends inside the vocabulary: gensim's reader loops forever
        data = fasttext_bin[: fasttext_bin.index(b"cat\0") + 2]
    elif damage == "size":
        data = fasttext_bin[:64] + struct.pack("@i", 2_000_000_000) + fasttext_bin[68:]
    elif damage == "twice":
        data = fasttext_bin.replace(b"cat\0", b"dog\0", 1)
    else:  # gensim silently replaces the bytes
        data = fasttext_bin.replace(b"cat\0", b"c\xe4t\0", 1)
    path = tmp_path / f"{damage}.bin"
    path.write_bytes(data)

    def hung(*_):
        raise TimeoutError("the fastText reader hung")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        with pytest.raises(UserInputError, match=message):
            WordVectors.load(path)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------- model2vec directories
@pytest.mark.parametrize(
    ("files", "reason"),
    [
        ({"model.safetensors": b"not safetensors", "tokenizer.json": b'{"model": [1]}'}, "header"),
        ({"tokenizer.json": b"[]"}, "expected struct Tokenizer"),
    ],
    ids=["damaged-safetensors", "tokenizer-is-a-list"],
)
def test_a_damaged_model2vec_directory_is_one_error_naming_it(tmp_path, files, reason):
    """safetensors and tokenizers raise their own exception types (a bare ``Exception``): each
    becomes an error naming the directory, never a traceback."""
    from safetensors.numpy import save_file

    folder = tmp_path / "m2v"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "model2vec"}', encoding="utf-8")
    save_file({"embeddings": np.ones((3, 4), dtype=np.float32)}, str(folder / "model.safetensors"))
    for name, data in files.items():
        (folder / name).write_bytes(data)
    with pytest.raises(UserInputError, match=f"{folder}: not a readable model2vec model") as caught:
        WordVectors.load(folder)
    assert reason in str(caught.value)


# ---------------------------------------------------------------- SIF counts
def test_sif_counts_file_listing_a_word_twice_is_refused(tmp_path):
    path = tmp_path / "counts.txt"
    path.write_text("the 90\ncat 5\nthe 10\n", encoding="utf-8")
    with pytest.raises(UserInputError, match=r"counts\.txt, line 3: 'the' is listed again.*line 1"):
        SIFWeights(counts=path)
    path.write_text("the 90\ncat 5\nThe 10\n", encoding="utf-8")  # case matters, as in lookups
    assert SIFWeights(counts=path).weights(["the", "The"]).round(4).tolist() == [0.0012, 0.0104]


@pytest.mark.parametrize("count", ["1_000", "0x10", "inf", "nan", "true", "-1"])
def test_sif_counts_are_read_by_the_strict_number_parser(tmp_path, count):
    path = tmp_path / "counts.txt"
    path.write_text(f"the 90\ncat {count}\n", encoding="utf-8")
    with pytest.raises(UserInputError, match=r"counts\.txt, line 2"):
        SIFWeights(counts=path)


def test_sif_counts_file_with_a_byte_order_mark_reads_its_first_word(tmp_path):
    path = tmp_path / "counts.txt"
    path.write_bytes(b"\xef\xbb\xbfthe 90\ncat 10\n")
    assert SIFWeights(counts=path).frequency("the") == 0.9
