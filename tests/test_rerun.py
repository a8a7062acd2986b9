"""A leaderboard re-run with warm caches: byte-identical reports, and neither the model loaded
nor sentence-transformers, transformers or torch imported (each run in its own process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = ("sentence_transformers", "torch", "transformers")
RUN = f"""
import json, sys
from sts_extras.leaderboard import LeaderboardSettings, run_leaderboard

model, vectors, output = sys.argv[1:]
settings = LeaderboardSettings(output=output, n_resamples=500, seed=3, progress=False)
run_leaderboard(models=[model], vectors=[vectors], settings=settings)
print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""
REPORTS = ("leaderboard.md", "leaderboard.csv", "leaderboard.json", "*.png", "predictions/**/*")


@pytest.fixture(scope="module")
def inputs(tiny_model_dir, vectors_file):
    """A tiny sentence-transformers model (random static embeddings) and tiny word vectors."""
    return tiny_model_dir, vectors_file


def _run(inputs, output, cache) -> list[str]:
    env = dict(os.environ, STS_EXTRAS_CACHE=str(cache / "sts"), MTEB_CACHE=str(cache / "mteb"))
    completed = subprocess.run(
        [sys.executable, "-c", RUN, *map(str, inputs), str(output)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_warm_rerun_is_identical_without_loading_the_model(inputs, tmp_path):
    cache = tmp_path / "cache"
    first = _run(inputs, tmp_path / "first", cache)
    assert "sentence_transformers" in first  # the cold run did load the model

    assert _run(inputs, tmp_path / "second", cache) == []

    names = sorted(
        {
            path.relative_to(tmp_path / "first")
            for pattern in REPORTS
            for path in (tmp_path / "first").glob(pattern)
            if path.is_file()
        }
    )
    assert len(names) >= 7  # 3 reports, figures, 2 models × 2 tasks of predictions
    for name in names:
        assert (tmp_path / "first" / name).read_bytes() == (
            tmp_path / "second" / name
        ).read_bytes(), name
