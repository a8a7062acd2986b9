"""Throughput of the batched DynaMax core against a per-pair numpy loop, same process.

Target (issue 5): 20,000 pairs, 5-40 tokens per sentence, d = 300: at least 20x the throughput
of a straightforward per-pair loop written from Algorithm 1, identical scores to 1e-9, and how
far the batched version is from the arithmetic bound of its matrix products on this machine.

Run from the repository root::

    python benchmarks/bench_dynamax.py                  # 20,000 pairs, d = 300
    python benchmarks/bench_dynamax.py --pairs 5000 --repeats 2

Data: a 50,000-word table of float32 vectors (normal, with per-word norms between 0.3 and 3, as
raw word vectors have), token ids drawn from a Zipf(1) distribution over the vocabulary (so
frequent words repeat, as in text), sentence lengths uniform in 5..40.

Baseline: the authors' formulation of Algorithm 1 (``fuzzify`` in babylonhealth/fuzzymax):
per pair, ``U = vstack(X, Y)``, ``max(0, max(X U^T))``, ``max(0, max(Y U^T))``, fuzzy Jaccard --
two BLAS matrix products per pair, in float64. For context, a word-by-word translation of
Algorithm 1 (one vector-matrix product ``x_i U^T`` per word) is timed on the first 2,000 pairs.

A second data set copies each token of the second sentence from the first with probability
``--overlap`` (0.5), as STS pairs share words; the batched version computes each distinct word of
a pair once (exactly: a repeated word only repeats a column of the universe).

Both run with the same BLAS thread setting. Printed per setting: pairs per second (best of
``--repeats``, runs interleaved so background load hits both alike), the ratio, the largest
absolute score difference, and the arithmetic bound: the floating-point operations of the
matrix products (Gram matrices 2 K^2 d per pair, K = k + l; half that if symmetry were
exploited) divided by the rate of one large float64 matrix product on this machine.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from sts_extras.similarity.fuzzy import dynamax_similarity


def make_data(pairs: int, dim: int, vocab: int = 50_000, seed: int = 0, overlap: float = 0.0):
    """Random pairs; with ``overlap`` > 0 each token of the second sentence is, with that
    probability, a token of the first (STS pairs share words)."""
    rng = np.random.default_rng(seed)
    table = (rng.standard_normal((vocab, dim)) * rng.uniform(0.3, 3.0, (vocab, 1))).astype(
        np.float32
    )
    zipf = 1.0 / np.arange(1, vocab + 1)
    tokens = rng.choice(vocab, size=pairs * 2 * 40, p=zipf / zipf.sum())
    lengths = rng.integers(5, 41, size=(2, pairs))
    cuts = np.cumsum(lengths.ravel())
    sentences = np.split(tokens[: cuts[-1]], cuts[:-1])
    first, second = sentences[:pairs], sentences[pairs:]
    if overlap > 0:
        for a, b in zip(first, second):
            shared = rng.random(b.size) < overlap
            b[shared] = rng.choice(a, size=int(shared.sum()))
    return table, first, second


def per_pair_loop(table, first, second):
    """Algorithm 1, pair by pair (the reference code's formulation)."""
    out = np.empty(len(first))
    for index, (a, b) in enumerate(zip(first, second)):
        x = table[a].astype(np.float64)
        y = table[b].astype(np.float64)
        u = np.vstack((x, y))
        mx = np.maximum(np.max(x @ u.T, axis=0), 0)
        my = np.maximum(np.max(y @ u.T, axis=0), 0)
        union = np.maximum(mx, my).sum()
        out[index] = np.minimum(mx, my).sum() / union if union > 0 else 0.0
    return out


def literal_loop(table, first, second):
    """Algorithm 1 word by word: z = MAX_POOL(x_1 U^T, ..., x_k U^T, 0), likewise for Y."""
    out = np.empty(len(first))
    for index, (a, b) in enumerate(zip(first, second)):
        x = table[a].astype(np.float64)
        y = table[b].astype(np.float64)
        u = np.vstack((x, y))
        mx = np.zeros(u.shape[0])
        for word in x:
            mx = np.maximum(mx, word @ u.T)
        my = np.zeros(u.shape[0])
        for word in y:
            my = np.maximum(my, word @ u.T)
        union = np.maximum(mx, my).sum()
        out[index] = np.minimum(mx, my).sum() / union if union > 0 else 0.0
    return out


def gemm_rate(dim: int, repeats: int = 3) -> float:
    """FLOP/s of one large float64 product (2000 x dim) @ (dim x 2000) under current settings."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2000, dim))
    b = rng.standard_normal((dim, 2000))
    a @ b
    best = min(_time(lambda: a @ b) for _ in range(repeats))
    return 2 * 2000 * 2000 * dim / best


def _time(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def run(table, first, second, repeats: int, workers: int, label: str) -> None:
    n = len(first)
    dim = table.shape[1]
    k = np.array([a.size + b.size for a, b in zip(first, second)], dtype=np.float64)
    flops_full = float((2 * k**2 * dim).sum())
    baseline_times, batched_times = [], []
    expected = per_pair_loop(table, first, second)
    got = dynamax_similarity(first, second, vectors=table, workers=workers)
    for _ in range(repeats):
        baseline_times.append(_time(lambda: per_pair_loop(table, first, second)))
        batched_times.append(
            _time(lambda: dynamax_similarity(first, second, vectors=table, workers=workers))
        )
    base, ours = min(baseline_times), min(batched_times)
    rate = gemm_rate(dim)
    bound_full = flops_full / rate
    print(f"--- {label} ---")
    print(f"large float64 GEMM rate          : {rate / 1e9:7.1f} GFLOP/s")
    print(
        f"per-pair loop (Algorithm 1)      : {n / base:9.0f} pairs/s  ({base:.2f} s, "
        f"{flops_full / base / 1e9:.1f} GFLOP/s in its products)"
    )
    print(
        f"batched dynamax_similarity       : {n / ours:9.0f} pairs/s  ({ours:.2f} s, "
        f"{flops_full / ours / 1e9:.1f} GFLOP/s; workers={workers})"
    )
    print(f"throughput ratio                 : {base / ours:9.2f} x")
    print(
        f"max |score difference|           : {np.abs(got - expected).max():.2e}  (target <= 1e-9)"
    )
    print(
        f"arithmetic bound, full Gram       : {n / bound_full:9.0f} pairs/s -> batched at "
        f"{bound_full / ours:.0%} of it; best possible ratio {base / bound_full:.1f} x"
    )
    print(
        f"arithmetic bound, symmetric Gram  : {2 * n / bound_full:9.0f} pairs/s -> best possible "
        f"ratio {2 * base / bound_full:.1f} x"
    )
    print(
        f"all runs (s): loop {[round(t, 2) for t in baseline_times]}, "
        f"batched {[round(t, 2) for t in batched_times]}"
    )
    subset = min(n, 2000)
    literal = _time(lambda: literal_loop(table, first[:subset], second[:subset]))
    print(
        f"word-by-word Algorithm 1 loop    : {subset / literal:9.0f} pairs/s  "
        f"(first {subset} pairs) "
        f"-> batched is {subset / literal and (n / ours) / (subset / literal):.1f} x faster"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--overlap",
        type=float,
        default=0.5,
        help="share of second-sentence tokens copied from the first, for the "
        "STS-like run (default 0.5)",
    )
    args = parser.parse_args()

    table, first, second = make_data(args.pairs, args.dim)
    tokens = sum(a.size + b.size for a, b in zip(first, second))
    print(
        f"{args.pairs} pairs, d = {args.dim}, {tokens / args.pairs / 2:.1f} tokens per sentence "
        f"on average, {os.cpu_count()} CPUs"
    )
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is not None:
        with threadpool_limits(limits=1, user_api="blas"):
            run(table, first, second, args.repeats, 1, "BLAS pinned to 1 thread, batched workers=1")
            shared = make_data(args.pairs, args.dim, overlap=args.overlap)
            run(
                *shared,
                args.repeats,
                1,
                f"BLAS pinned to 1 thread, pairs sharing {args.overlap:.0%} of their words",
            )
    run(
        table, first, second, args.repeats, 1, "default BLAS threads (as a user runs it), workers=1"
    )
    cores = os.cpu_count() or 1
    if cores > 1:
        run(
            table,
            first,
            second,
            args.repeats,
            cores,
            f"default BLAS threads, batched workers={cores}",
        )


if __name__ == "__main__":
    main()
