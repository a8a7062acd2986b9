"""`sts_extras.integrations.mteb.internals` against the installed MTEB: every private name and file
key it relies on still exists and means what it assumes. A failure here after an MTEB upgrade names
the adapter to fix (and `SUPPORTED_MTEB_VERSIONS` to update)."""

from __future__ import annotations

import importlib
import json
import logging
from importlib import metadata

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import pearsonr

mteb = pytest.importorskip("mteb")

from sts_extras.integrations.datasets.loading import read_rows  # noqa: E402
from sts_extras.integrations.mteb.internals import (  # noqa: E402
    QUIET_MODULES,
    SUPPORTED_MTEB_VERSIONS,
    cached_sentence_transformer,
    evaluated_tasks,
    failed_tasks,
    is_supported_mteb_version,
    prediction_file,
    quiet_mteb,
    read_prediction_scores,
    registered_model_meta,
    registered_model_names,
    registered_task,
    reported_pearson,
    task_registry,
)
from sts_extras.integrations.mteb.tasks import DSCS, register  # noqa: E402
from sts_extras.io.model_sources import DEFAULT_MODEL  # noqa: E402


def test_installed_mteb_is_in_the_supported_range():
    assert is_supported_mteb_version(), metadata.version("mteb")
    (low_major, low_minor), (high_major, high_minor) = SUPPORTED_MTEB_VERSIONS
    assert is_supported_mteb_version(f"{low_major}.{low_minor}.0")
    assert not is_supported_mteb_version(f"{high_major}.{high_minor}.0")
    assert not is_supported_mteb_version(f"{low_major}.{low_minor - 1}.99")


def test_task_registry_is_what_get_task_looks_up():
    registry = task_registry()
    assert registry["BIOSSES"] is type(mteb.get_task("BIOSSES"))
    assert registered_task("BIOSSES") is registry["BIOSSES"]
    assert registered_task("NoSuchTask") is None


def test_registering_our_tasks_makes_get_task_and_get_tasks_find_them():
    register()
    assert registered_task("DSCS") is DSCS
    assert isinstance(mteb.get_task("DSCS"), DSCS)
    sts_names = {task.metadata.name for task in mteb.get_tasks(task_types=["STS"])}
    assert {"DSCS", "STSS131", "BIOSSES"} <= sts_names


def test_model_registry_knows_the_default_model():
    assert DEFAULT_MODEL in registered_model_names()
    meta = registered_model_meta(DEFAULT_MODEL)
    assert meta is not None and meta.name == DEFAULT_MODEL
    assert registered_model_meta("no-org/no-such-model") is None


def test_quiet_mteb_silences_real_modules_and_restores_their_loggers():
    for module, category in QUIET_MODULES:
        importlib.import_module(module)  # the module whose chatter is silenced exists
        assert issubclass(category, Warning)
    loggers = [logging.getLogger(module) for module, _ in QUIET_MODULES]
    before = [logger.level for logger in loggers]
    with quiet_mteb():
        assert all(logger.level == logging.ERROR for logger in loggers)
    assert [logger.level for logger in loggers] == before


def _evaluate(encoder, tmp_path):
    register()
    with quiet_mteb():
        return mteb.evaluate(
            encoder,
            [mteb.get_task("DSCS")],
            cache=mteb.ResultCache(tmp_path / "results"),
            overwrite_strategy="always",
            prediction_folder=tmp_path / "predictions",
            raise_error=False,
            co2_tracker=False,
            show_progress_bar=False,
        )


def test_evaluate_writes_predictions_our_reader_reads_with_mtebs_own_pearson(
    tiny_sentence_transformer, tmp_path
):
    encoder = cached_sentence_transformer(
        tiny_sentence_transformer, name="local/tiny", revision="r1", cache_root=tmp_path / "emb"
    )
    assert encoder.mteb_model_meta is not None
    assert (encoder.mteb_model_meta.name, encoder.mteb_model_meta.revision) == ("local/tiny", "r1")
    result = _evaluate(encoder, tmp_path)
    assert failed_tasks(result) == {}
    evaluated = evaluated_tasks(result)
    assert set(evaluated) == {"DSCS"}
    path = prediction_file(tmp_path / "predictions", "DSCS")
    assert path.is_file()
    scores = read_prediction_scores(path, "default", "test")
    gold = np.asarray([row["score"] for row in read_rows("dscs")])
    assert scores.shape == gold.shape
    pearson = reported_pearson(evaluated["DSCS"], "default", "test")
    assert pearson is not None
    assert_allclose(pearsonr(scores, gold).statistic, pearson, rtol=0, atol=1e-12)
    assert_allclose(pearson, evaluated["DSCS"].get_score(), rtol=0, atol=1e-12)
    assert reported_pearson(evaluated["DSCS"], "no-such-subset", "test") is None
    # the encodings are cached under <root>/<model name as path>/<revision>/<task>
    assert list((tmp_path / "emb" / "local__tiny" / "r1").glob("DSCS/*"))


def test_a_task_error_is_reported_not_raised(tiny_sentence_transformer, tmp_path, monkeypatch):
    encoder = cached_sentence_transformer(
        tiny_sentence_transformer, name="local/tiny", revision="r1", cache_root=tmp_path / "emb"
    )

    def fail(*args, **kwargs):
        raise RuntimeError("encoder broke on purpose")

    monkeypatch.setattr(encoder, "encode", fail)
    errors = failed_tasks(_evaluate(encoder, tmp_path))
    assert set(errors) == {"DSCS"} and "encoder broke on purpose" in errors["DSCS"]


def test_a_model_mteb_knows_keeps_its_registry_metadata(tiny_sentence_transformer, tmp_path):
    encoder = cached_sentence_transformer(
        tiny_sentence_transformer, name=DEFAULT_MODEL, revision="r2", cache_root=tmp_path
    )
    known = registered_model_meta(DEFAULT_MODEL)
    meta = encoder.mteb_model_meta
    assert known is not None and meta is not None
    assert (meta.name, meta.revision) == (DEFAULT_MODEL, "r2")
    assert meta.release_date == known.release_date and meta.license == known.license


def test_reader_falls_back_to_cosine_when_the_model_has_no_similarity(tmp_path):
    path = prediction_file(tmp_path, "Toy")
    path.write_text(
        json.dumps(
            {"first": {"test": {"similarity_scores": None, "cosine_scores": [0.1, 0.5, 0.9]}}}
        ),
        encoding="utf-8",
    )
    assert_allclose(read_prediction_scores(path, "first", "test"), [0.1, 0.5, 0.9], rtol=0)
    with pytest.raises(KeyError):
        read_prediction_scores(path, "second", "test")


# --- importing registers, as MTEB's own modules do ----------------------------------------------

# Each runs in a fresh process (the registries are per process), offline, outside the checkout.
_IMPORT_THEN_LOOK_UP = {
    "tasks": (
        "import sts_extras.integrations.mteb.tasks, mteb\n"
        "out = [type(mteb.get_task('DSCS')).__name__, type(mteb.get_task('STSS131')).__name__,\n"
        "       mteb.get_model_meta('sts-extras/DynaMax-Jaccard').name]\n"
    ),
    # the models first, MTEB later: registered when MTEB is imported, not before
    "models, then mteb": (
        "import sys, sts_extras.integrations.mteb.models\n"
        "before = sorted(m for m in ('mteb', 'torch') if m in sys.modules)\n"
        "import mteb\n"
        "out = [before, mteb.get_model_meta('sts-extras/DynaMax-Jaccard').name,\n"
        "       mteb.get_model_meta('sts-extras/avg-cos').name]\n"
    ),
    "mteb, then models": (
        "import mteb, sts_extras.integrations.mteb.models\n"
        "out = [mteb.get_model_meta('sts-extras/MaxPool-Cosine').name]\n"
    ),
    # a submodule of MTEB imported first imports MTEB itself, which registers
    "models, then an mteb submodule": (
        "import sts_extras.integrations.mteb.models\n"
        "from mteb.models.model_implementations import MODEL_REGISTRY\n"
        "out = ['sts-extras/DynaMax-Dice' in MODEL_REGISTRY]\n"
    ),
}
_EXPECTED = {
    "tasks": ["DSCS", "STSS131", "sts-extras/DynaMax-Jaccard"],
    "models, then mteb": [[], "sts-extras/DynaMax-Jaccard", "sts-extras/avg-cos"],
    "mteb, then models": ["sts-extras/MaxPool-Cosine"],
    "models, then an mteb submodule": [True],
}


@pytest.mark.parametrize("case", list(_IMPORT_THEN_LOOK_UP))
def test_importing_our_modules_registers_tasks_and_models_without_register(case, tmp_path):
    import subprocess
    import sys

    script = _IMPORT_THEN_LOOK_UP[case] + "import json; print(json.dumps(out))"
    result = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", script],
        cwd=tmp_path,
        env={
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": str(tmp_path / "hf"),
            "HOME": str(tmp_path),
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == _EXPECTED[case]


def test_a_failing_registration_warns_and_leaves_mteb_importable(tmp_path):
    import subprocess
    import sys

    script = (
        "import warnings, sys\n"
        "from sts_extras.integrations.mteb.internals import when_mteb_is_imported\n"
        "def broken(): raise KeyError('no')\n"
        "when_mteb_is_imported(broken)\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    import mteb\n"
        "print([str(w.message) for w in caught if w.category is RuntimeWarning])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"HF_HUB_OFFLINE": "1", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "sts-extras could not register with MTEB (KeyError: 'no')" in result.stdout


def test_when_mteb_is_imported_runs_at_once_once_mteb_is_imported():
    calls = []
    from sts_extras.integrations.mteb.internals import when_mteb_is_imported

    when_mteb_is_imported(lambda: calls.append(1))
    assert calls == [1]


def test_setup_cfg_declares_the_supported_mteb_range():
    from pathlib import Path

    from packaging.requirements import Requirement
    from setuptools.config.setupcfg import read_configuration

    setup_cfg = Path(__file__).resolve().parents[1] / "setup.cfg"
    extras = read_configuration(setup_cfg)["options"]["extras_require"]
    (requirement,) = [Requirement(line) for line in extras["mteb"] if line.startswith("mteb")]
    (low_major, low_minor), (high_major, high_minor) = SUPPORTED_MTEB_VERSIONS
    assert {(spec.operator, spec.version) for spec in requirement.specifier} == {
        (">=", f"{low_major}.{low_minor}"),
        ("<", f"{high_major}.{high_minor}"),
    }
