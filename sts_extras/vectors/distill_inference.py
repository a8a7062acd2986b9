"""Encode a vocabulary with a transformer for distillation: the mean of the last hidden state.

model2vec's ``distill`` spends most of its time in ``create_embeddings`` (50 of 63 s for
all-MiniLM-L6-v2 on a loaded machine; building the tokenizer, PCA and saving take 3 s, importing
it 8 s): one forward pass per vocabulary token (``[CLS] token [SEP]`` for a BERT tokenizer's own
vocabulary, 29,525 of them for all-MiniLM-L6-v2). Its loop runs batches of 256 sequences, builds
each batch from one tensor per sequence, pads to the longest of the batch and collects one numpy
row per sequence in a Python list (it does sort by length and run under ``inference_mode``).
:func:`encode_vocabulary` computes the same numbers (model2vec's MEAN pooling) with:

* length-sorted batches in which every sequence has the same length, as many sequences as
  :data:`TOKENS_PER_BATCH` allows: no padding, so a token's vector never depends on its batch
  neighbours, and few large matrix products instead of many small ones;
* one ``int64`` id matrix per length built with numpy, not one tensor per token;
* ``torch.inference_mode`` over the whole loop, the rows written into one preallocated array.

The transformer's kernels are the ones model2vec runs (same attention implementation, same
``attention_mask``/``token_type_ids``, the same ``bmm`` pooling), so the rows equal model2vec's to
1e-6 and, for all-MiniLM-L6-v2, bit for bit; a matrix product over a few rows can take another
path than over hundreds and differ in the last bit, which is why the distillation cache key names
this encoder and :data:`TOKENS_PER_BATCH` (:func:`sts_extras.vectors.distill.distillation_key`).
A different attention kernel (``eager`` instead of ``sdpa``) changes the rows by ~1e-6, which
model2vec's PCA turns into ~1e-4 in the saved vectors, so the kernels are left as they are.

The forward passes are compute-bound (about 130 GFLOP/s on two cores, ~1.9 TFLOP for
all-MiniLM-L6-v2's vocabulary: about 15 s on an idle 2-core machine): what is left to gain is
the thread count (:func:`sts_extras.vectors.distill.free_cpus`) and fewer waits between threads
on a shared machine (the batching above), not less arithmetic.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from sts_extras.progress import Progress

if TYPE_CHECKING:
    from transformers import PreTrainedModel

__all__ = ["TOKENS_PER_BATCH", "encode_vocabulary"]

#: Token positions per forward pass (sequences x length). Measured on all-MiniLM-L6-v2's vocabulary
#: (3 tokens a sequence) against model2vec's batches of 256 sequences: on two threads of an
#: otherwise idle 2-core machine every size from 768 to 16,384 runs at 0.9-1.0x their speed (the
#: matrix products already run near the cores' peak), larger ones falling behind as their
#: activations outgrow the cache; on two threads sharing the cores with other processes (load
#: average 4) 3,072 and 8,192 ran 2.4x, as an operation's threads wait for each other at its end
#: and larger passes are fewer; on one thread every size is the same. A pass then holds about
#: 25 MB of all-MiniLM-L6-v2's activations (its 1536-wide feed-forward layer).
TOKENS_PER_BATCH = 4096


def _length_groups(lengths: NDArray[np.int64]) -> list[NDArray[np.intp]]:
    """Indices of the sequences of each length, shortest length first (stable within one)."""
    order = np.argsort(lengths, kind="stable")
    sorted_lengths = lengths[order]
    starts = np.flatnonzero(np.r_[True, sorted_lengths[1:] != sorted_lengths[:-1]])
    return np.split(order, starts[1:])


def encode_vocabulary(
    model: PreTrainedModel,
    token_ids: Sequence[Sequence[int]],
    *,
    tokens_per_batch: int | None = None,
    bar: Progress | None = None,
) -> NDArray[np.float32]:
    """The mean over positions of ``model``'s last hidden state for each id sequence.

    What model2vec's ``create_embeddings`` with MEAN pooling computes (the static vector of a
    token before PCA and SIF weighting; Tulkens & van Dongen, model2vec, 2024), as float32,
    NaN and infinities replaced as ``np.nan_to_num`` does.

    Parameters
    ----------
    model : transformers.PreTrainedModel
        The transformer, on the CPU; put in eval mode here.
    token_ids : sequence of sequences of int
        One id sequence per vocabulary entry, special tokens included (model2vec's
        ``turn_tokens_into_ids``).
    tokens_per_batch : int or None
        Token positions per forward pass (default :data:`TOKENS_PER_BATCH`); a batch holds
        sequences of one length only.
    bar : tqdm-like or None
        Advanced by the number of sequences after each batch.

    Returns
    -------
    numpy.ndarray
        ``(len(token_ids), hidden size)`` float32, in the order of ``token_ids``.
    """
    import torch

    model = model.eval()
    takes_token_types = "token_type_ids" in inspect.getfullargspec(model.forward).args
    lengths = np.fromiter((len(ids) for ids in token_ids), dtype=np.int64, count=len(token_ids))
    out = np.empty((len(token_ids), model.config.hidden_size), dtype=np.float32)
    if not len(token_ids):
        return out
    with torch.inference_mode():
        for group in _length_groups(lengths):
            length = int(lengths[group[0]])
            ids = np.array([token_ids[i] for i in group], dtype=np.int64).reshape(-1, length)
            step = max(1, (tokens_per_batch or TOKENS_PER_BATCH) // max(length, 1))
            for start in range(0, len(group), step):
                batch = torch.from_numpy(ids[start : start + step])
                inputs = {"input_ids": batch, "attention_mask": torch.ones_like(batch)}
                if takes_token_types:
                    inputs["token_type_ids"] = torch.zeros_like(batch)
                hidden = model(**inputs).last_hidden_state.float()
                # the mean as model2vec takes it (weights 1/length, one bmm), for the same bits
                weights = torch.ones(len(batch), 1, length) / max(length, 1)
                out[group[start : start + step]] = torch.bmm(weights, hidden).squeeze(1).numpy()
                if bar is not None:
                    bar.update(len(batch))
    return np.nan_to_num(out)
