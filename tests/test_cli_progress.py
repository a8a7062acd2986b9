"""``--no-progress`` hides every bar of a run, the libraries' too; the distillation bar says what
it does.

A first run is what a new user sees: ``datasets`` generating the task's split, ``transformers``
loading weights, model2vec distilling static vectors. Each run here starts with empty caches, so
all of them happen.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sts_extras.progress import library_bars, library_bars_shown

#: What a tqdm bar leaves on stderr, and the labels the libraries give theirs.
BAR_MARKS = ("it/s", "%|", "█", "\r", "Encoding tokens", "Loading weights", "Generating")


@pytest.fixture(autouse=True)
def _needs_model2vec():
    pytest.importorskip("model2vec.distill")


def _first_run(tmp_path, tiny_bert, *options: str) -> subprocess.CompletedProcess[str]:
    """The leaderboard with a distilled and a transformer model, every cache empty."""
    env = dict(os.environ)
    env.update(
        STS_EXTRAS_CACHE=str(tmp_path / "sts-cache"),
        HF_HOME=str(tmp_path / "hf"),
        MTEB_CACHE=str(tmp_path / "mteb"),
    )
    env.pop("HF_DATASETS_CACHE", None)
    argv = [
        "leaderboard",
        "--vectors",
        f"distilled:{tiny_bert}",
        "--model",
        f"{tiny_bert}=bert",
        "--task",
        "DSCS",
        "--n-resamples",
        "100",
        "--no-figures",
        "--output",
        str(tmp_path / "out"),
        *options,
    ]
    result = subprocess.run(
        [sys.executable, "-m", "sts_extras.cli", *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env=env,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    distilled = list((tmp_path / "sts-cache" / "vectors").glob("model2vec-*"))
    assert len(distilled) == 1  # a first distillation did happen in this run
    return result


def test_no_progress_hides_every_bar_of_a_first_run(tmp_path, tiny_bert):
    stderr = _first_run(tmp_path, tiny_bert, "--no-progress").stderr
    shown = [mark for mark in BAR_MARKS if mark in stderr]
    assert shown == [], stderr[-3000:]


def test_the_distillation_bar_says_what_it_does(tmp_path, tiny_bert):
    stderr = _first_run(tmp_path, tiny_bert).stderr
    # the model by its name, not the path of its folder
    label = Path(tiny_bert).name
    assert f"distilling static vectors from {label} (once per machine)" in stderr
    assert f"distilling static vectors from {tiny_bert}" not in stderr
    assert "Encoding tokens" not in stderr


def test_library_bars_are_switched_back_on_after_the_block():
    hub = pytest.importorskip("huggingface_hub.utils")
    datasets = pytest.importorskip("datasets")
    logging = pytest.importorskip("transformers.utils.logging")

    def states():
        return (
            not hub.are_progress_bars_disabled(),
            datasets.is_progress_bar_enabled(),
            logging.is_progress_bar_enabled(),
        )

    before = states()
    with library_bars(False):
        assert states() == (False, False, False)
        assert not library_bars_shown()
        with library_bars(True):  # nested: leaves them as they are
            assert states() == (False, False, False)
            assert library_bars_shown()
        assert not library_bars_shown()
    assert states() == before
    assert library_bars_shown()


def test_hiding_the_bars_does_not_import_transformers(tmp_path):
    """A warm re-run never loads a model, so it must not import transformers (seconds) just to
    switch its bars off; imported inside the block, it starts hidden and is switched back on."""
    code = (
        "import sys\n"
        "from sts_extras.progress import library_bars\n"
        "with library_bars(False):\n"
        "    assert 'transformers' not in sys.modules\n"
        "    from transformers.utils import logging\n"
        "    assert not logging.is_progress_bar_enabled()\n"
        "assert logging.is_progress_bar_enabled()\n"
    )
    pytest.importorskip("transformers")
    env = {k: v for k, v in os.environ.items() if "PROGRESS_BARS" not in k}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr[-2000:]


def test_bars_switched_off_before_stay_off():
    datasets = pytest.importorskip("datasets")
    datasets.disable_progress_bars()
    try:
        with library_bars(False):
            pass
        assert not datasets.is_progress_bar_enabled()  # not ours to turn on
    finally:
        datasets.enable_progress_bars()
