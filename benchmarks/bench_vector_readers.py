"""Our vector-file readers against gensim's ``KeyedVectors.load_word2vec_format``, same file.

Issue 32 (item 10): the hand-written readers of ``sts_extras.vectors.formats`` stay only while
they are faster than the well-kept library (2.7x on GloVe text when the issue was filed). Both
read the same files, written here from the packaged GloVe 6B 50-d vectors (the ``glove`` extra):
the first ``--words`` rows as GloVe text (no header line) and as word2vec text (a header line).
Ours: ``WordVectors.load(path)`` (the checked parse, the table identity included); gensim's:
``load_word2vec_format(path, binary=False, no_header=...)``. Best of ``--repeat`` each, page cache
warm, and a check that both read the same matrix.

Run from the repository root::

    python benchmarks/bench_vector_readers.py                 # 100 000 words, best of 3
    python benchmarks/bench_vector_readers.py --words 400000
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def best_of(repeat: int, load: Callable[[], object]) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = load()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from gensim.models import KeyedVectors

    from sts_extras.vectors import WordVectors

    glove = WordVectors.load("glove-6b-50d")
    words = list(glove.words)[: args.words]
    matrix = np.asarray(glove.vectors)[: args.words]
    folder = Path(tempfile.mkdtemp(prefix="bench-vector-readers-"))
    body = "".join(
        word + " " + " ".join(f"{value:.6g}" for value in row) + "\n"
        for word, row in zip(words, matrix.tolist())
    )
    files = {
        "GloVe text": (folder / "vectors.txt", body, True),
        "word2vec text": (
            folder / "vectors.w2v.txt",
            f"{len(words)} {matrix.shape[1]}\n" + body,
            False,
        ),
    }
    print(f"{len(words)} words x {matrix.shape[1]}; load average {os.getloadavg()[0]:.2f}")
    print("| file | ours | gensim | gensim / ours |\n|---|---:|---:|---:|")
    for label, (path, text, no_header) in files.items():
        path.write_text(text, encoding="utf-8")
        ours_time, ours = best_of(args.repeat, lambda p=path: WordVectors.load(str(p)))
        gensim_time, theirs = best_of(
            args.repeat,
            lambda p=path, h=no_header: KeyedVectors.load_word2vec_format(
                str(p), binary=False, no_header=h
            ),
        )
        assert list(ours.words) == list(theirs.index_to_key)  # type: ignore[attr-defined]
        np.testing.assert_allclose(
            np.asarray(ours.vectors),  # type: ignore[attr-defined]
            theirs.vectors,  # type: ignore[attr-defined]
            rtol=1e-6,
        )
        print(
            f"| {label} | {ours_time:.2f} s | {gensim_time:.2f} s | "
            f"{gensim_time / ours_time:.1f}x |"
        )


if __name__ == "__main__":
    main()
