"""The word-vector models through their public API: ``score`` and ``mteb.evaluate``.

Targets (sentence-level reuse in the models): the public ``DynaMax.score`` and
``mteb.evaluate(DynaMax(...), [task])`` at least 10x the per-pair numpy loop on re-paired STS
sentences, and no slower than the models before the change on a large random vocabulary. Scores
are checked against the loop (to 1e-12) and against the old models (bit for bit).

Measured (six runs, shared 2-core machine, load average 2.1-5.1, so ranges): on the re-paired
STS sentences the public ``DynaMax.score`` runs 16-25x the per-pair loop (7.5-10.8x the old
models), MaxPool-Jaccard 5.3-11x (5.4-11x the old), avg-cos 5.0-6.1x (4.9-5.4x the old);
``mteb.evaluate`` (five runs) takes 0.50-1.11 s against 1.07-1.75 s for the loop alone
(1.3-2.2x) and 1.55-2.79 s before (2.2-3.1x), of which 0.21-0.48 s in the model's ``encode``
(including iterating MTEB's DataLoader) and ``similarity_pairwise``: the rest is MTEB's own work.
On the Zipfian data, today's ``score`` takes the time of the old one (wall 0.8-1.2x, noisy; CPU
time, last three runs, 1.01-1.15x in its favour). Every score equals the old models' bit for bit.

Everything runs in one process, BLAS on one thread (as ``bench_dynamax.py``), best of
``--repeats`` with the runs interleaved, so background load hits all alike; the first line gives
the load average. The old models are those of commit ``PRE_REUSE_COMMIT``
(``baseline_models.py``: ``git show``), which tokenised and looked up every sentence of a call
one token at a time.

Run from the repository root::

    python benchmarks/bench_model_api.py                  # 20,000 pairs, d = 300
    python benchmarks/bench_model_api.py --pairs 5000 --repeats 2 --no-mteb

Data sets:

* **sts**: the sentences of DSCS and STSS-131 re-paired at random into ``--pairs`` pairs, one
  random float64 vector per lower-cased word (as ``bench_dynamax.make_sts_data`` builds them),
  given to the models as text. The per-pair loops get the token ids (their tokenisation is not
  timed: a generous baseline).
* **zipf**: the 50,000-word Zipfian data of ``bench_dynamax.make_data`` written out as text
  (word ``i`` is ``"w<i>"``), 5-40 words a sentence, nearly every sentence distinct: what a
  model gains from repeated sentences is absent, what it pays for finding them is not.

Measured per data set and model: pairs per second of today's public ``score``, of the old one
(and the ratio of their process CPU times, steadier than wall time on a busy machine) and of
the per-pair loop (``per_pair_loop`` and ``maxpool_loop`` of ``bench_dynamax.py``, and an
avg-cos loop written here for MeanPooled), and their ratios. With MTEB installed, also
``mteb.evaluate`` on a task over the re-paired sentences
(``sts_extras.integrations.mteb.tasks.from_csv``), today's model against the old one and the loop;
MTEB's own work (data loading, its metrics, the result files) is part of that time.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from baseline_models import PRE_REUSE_COMMIT, models_at, vectors_tokenised_as_at
from bench_dynamax import _time, make_data, maxpool_loop, per_pair_loop

from sts_extras.integrations.mteb.models import DynaMax, MaxPool, MeanPooled
from sts_extras.vectors import WordVectors


def mean_cosine_loop(table, first, second):
    """avg-cos pair by pair: cosine of the averaged word vectors, 0 for an empty side."""
    out = np.empty(len(first))
    for index, (a, b) in enumerate(zip(first, second)):
        x = table[a].astype(np.float64).mean(axis=0) if a.size else np.zeros(table.shape[1])
        y = table[b].astype(np.float64).mean(axis=0) if b.size else np.zeros(table.shape[1])
        norm = np.linalg.norm(x) * np.linalg.norm(y)
        out[index] = x @ y / norm if norm > 0 else 0.0
    return out


def sts_texts(pairs: int, dim: int, seed: int = 0):
    """DSCS + STSS-131 sentences re-paired at random, and random vectors for their words."""
    from sts_extras.benchmark_tables import read_rows

    texts = sorted(
        {
            row[column]
            for name in ("dscs", "stss131")
            for row in read_rows(name)
            for column in ("sentence1", "sentence2")
        }
    )
    words = sorted({word for text in texts for word in re.findall(r"\w+", text.lower())})
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((len(words), dim)) * rng.uniform(0.3, 3.0, (len(words), 1))
    chosen = rng.integers(0, len(texts), size=(2, pairs))
    first = [texts[i] for i in chosen[0]]
    second = [texts[i] for i in chosen[1]]
    about = f"{len(texts)} sentences, vocabulary {len(words)}"
    return WordVectors.from_arrays(words, table, name="sts-random"), first, second, about


def zipf_texts(pairs: int, dim: int):
    """bench_dynamax's 50,000-word Zipfian pairs as text."""
    table, first, second = make_data(pairs, dim)
    words = np.array([f"w{i}" for i in range(table.shape[0])], dtype=object)
    join = " ".join
    texts1 = [join(words[ids]) for ids in first]
    texts2 = [join(words[ids]) for ids in second]
    about = f"{len(set(texts1 + texts2))} distinct sentences, vocabulary {table.shape[0]}"
    return WordVectors.from_arrays(list(words), table, name="zipf"), texts1, texts2, about


MODELS = [
    ("DynaMax-Jaccard", DynaMax, "DynaMax", per_pair_loop),
    ("MaxPool-Jaccard", MaxPool, "MaxPool", maxpool_loop),
    ("avg-cos", MeanPooled, "MeanPooled", mean_cosine_loop),
]


def compare_scores(old, wv, first, second, repeats: int, label: str) -> None:
    """Today's and the old public ``score`` against the per-pair loop on the token ids."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ids1, ids2 = wv.encode(first).ids, wv.encode(second).ids
        old_wv = vectors_tokenised_as_at(old, wv)
        print(f"--- {label} ({len(first)} pairs) ---")
        for name, new_class, old_name, loop in MODELS:
            new_model, old_model = new_class(wv), old[old_name](old_wv)
            new_scores = new_model.score(first, second)
            same = np.array_equal(new_scores, old_model.score(first, second))
            error = np.abs(new_scores - loop(wv.vectors, ids1, ids2)).max()
            times: dict[str, list[float]] = {"loop": [], "old": [], "new": []}
            runs = {
                "loop": lambda loop=loop: loop(wv.vectors, ids1, ids2),
                "old": lambda model=old_model: model.score(first, second),
                "new": lambda model=new_model: model.score(first, second),
            }
            cpu: dict[str, list[float]] = {"old": [], "new": []}
            for _ in range(repeats):
                for key, run in runs.items():
                    start = time.process_time()
                    times[key].append(_time(run))
                    if key in cpu:
                        cpu[key].append(time.process_time() - start)
            best = {key: min(values) for key, values in times.items()}
            n = len(first)
            print(
                f"{name:16s} score: {n / best['new']:9.0f} pairs/s | before {n / best['old']:9.0f}"
                f" | per-pair loop {n / best['loop']:9.0f} -> {best['loop'] / best['new']:5.1f} x"
                f" the loop, {best['old'] / best['new']:5.1f} x before (CPU time "
                f"{min(cpu['old']) / min(cpu['new']):.2f} x); bitwise as before: {same}; max |diff|"
                f" vs loop {error:.1e}"
            )


def compare_mteb(old, wv, first, second, repeats: int) -> None:
    """``mteb.evaluate`` of today's and the old DynaMax on a task over the pairs, and the loop."""
    import logging

    import mteb

    from sts_extras.integrations.mteb.tasks import from_csv

    logging.getLogger("mteb").setLevel(logging.ERROR)
    folder = Path(tempfile.mkdtemp(prefix="bench-model-api-"))
    gold = np.random.default_rng(1).uniform(0, 5, len(first))
    with (folder / "repaired.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sentence1", "sentence2", "score"])
        writer.writerows(zip(first, second, gold.round(3)))
    task = from_csv(folder / "repaired.csv", name="RepairedSTS")
    ids1, ids2 = wv.encode(first, warn=False).ids, wv.encode(second, warn=False).ids
    old_wv = vectors_tokenised_as_at(old, wv)

    inside: dict[str, list[list[float]]] = {"old": [], "new": []}  # s in encode + similarity

    def timed(model, key: str):
        spent = [0.0]
        inside[key].append(spent)
        for name in ("encode", "similarity_pairwise"):
            method = getattr(model, name)

            def wrapper(*args, _method=method, **kwargs):
                start = time.perf_counter()
                try:
                    return _method(*args, **kwargs)
                finally:
                    spent[0] += time.perf_counter() - start

            setattr(model, name, wrapper)
        return model

    def evaluate(model) -> dict:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = mteb.evaluate(
                model,
                [task],
                cache=None,
                co2_tracker=False,
                show_progress_bar=False,
                raise_error=True,
            )
        return result.task_results[0].scores["test"][0]

    # a fresh model per run: nothing carries over from one evaluate to the next
    evaluate(DynaMax(wv))  # MTEB's imports and the task's data are loaded once, not timed
    times: dict[str, list[float]] = {"loop": [], "old": [], "new": []}
    for _ in range(repeats):
        times["loop"].append(_time(lambda: per_pair_loop(wv.vectors, ids1, ids2)))
        times["old"].append(_time(lambda: evaluate(timed(old["DynaMax"](old_wv), "old"))))
        times["new"].append(_time(lambda: evaluate(timed(DynaMax(wv), "new"))))
    new_metrics, old_metrics = evaluate(DynaMax(wv)), evaluate(old["DynaMax"](old_wv))
    best = {key: min(values) for key, values in times.items()}
    n = len(first)
    print(f"--- mteb.evaluate(DynaMax, [RepairedSTS]) ({n} pairs, whole evaluate) ---")
    print(
        f"DynaMax-Jaccard evaluate: {best['new']:.2f} s | before {best['old']:.2f} s | per-pair "
        f"loop alone {best['loop']:.2f} s -> {best['loop'] / best['new']:.1f} x the loop, "
        f"{best['old'] / best['new']:.1f} x before; same metrics as before: "
        f"{new_metrics == old_metrics}"
    )
    model_time = {key: min(spent[0] for spent in values) for key, values in inside.items()}
    print(
        f"  of which in the model (encode, including MTEB's DataLoader, and similarity_pairwise)"
        f": {model_time['new']:.2f} s | before {model_time['old']:.2f} s -> "
        f"{best['loop'] / model_time['new']:.1f} x the loop; the rest is MTEB's own work"
    )
    print("all runs (s): " + ", ".join(f"{k} {[round(t, 3) for t in v]}" for k, v in times.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", default=PRE_REUSE_COMMIT, help="commit of the old models")
    parser.add_argument("--no-mteb", action="store_true", help="skip the mteb.evaluate runs")
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"{args.pairs} pairs, d = {args.dim}, {os.cpu_count()} CPUs, BLAS pinned to 1 thread, "
        f"old models from {args.baseline[:7]}, load average {load}"
    )
    old = models_at(args.baseline)
    with threadpool_limits(limits=1, user_api="blas"):
        wv, first, second, about = sts_texts(args.pairs, args.dim)
        compare_scores(old, wv, first, second, args.repeats, f"sts: DSCS + STSS-131 ({about})")
        if not args.no_mteb:
            compare_mteb(old, wv, first, second, args.repeats)
        wv, first, second, about = zipf_texts(args.pairs, args.dim)
        compare_scores(old, wv, first, second, args.repeats, f"zipf ({about})")
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"load average at the end: {load}")


if __name__ == "__main__":
    main()
