"""`sts-extras leaderboard --model`: models of MTEB's registry go through ``mteb.get_model`` (with
MTEB's prompts, loader arguments and revision), display names, ``--trust-remote-code``, and the
prediction key every score was read from. Everything is built here: no network."""

from __future__ import annotations

import contextlib
import io
import json
import re
import warnings
from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import pearsonr

from sts_extras.benchmark_tables import read_rows
from sts_extras.cli import main
from sts_extras.errors import UserInputError
from sts_extras.leaderboard import ModelTaskStats
from sts_extras.leaderboard.settings import RunSettings

mteb = pytest.importorskip("mteb")

TINY_REVISION = "0123456789abcdef0123456789abcdef01234567"
PROMPT = "query: "


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["leaderboard", *argv])
    return code, out.getvalue(), err.getvalue()


def _pairs(dataset: str = "stss131") -> tuple[list[str], list[str], np.ndarray]:
    rows = read_rows(dataset)
    return (
        [row["sentence1"] for row in rows],
        [row["sentence2"] for row in rows],
        np.asarray([row["score"] for row in rows], dtype=float),
    )


@pytest.fixture
def default_vectors_are_tiny(monkeypatch, vectors_file):
    """sts-extras' registry models load the tiny vectors where they would load their default
    (GloVe 6B 50-d) or distil MiniLM's."""
    from sts_extras.integrations.mteb.models.catalog import DEFAULT_VECTORS
    from sts_extras.vectors import WordVectors

    loaded = WordVectors.load(str(vectors_file))
    real_load = WordVectors.load

    def load(cls, source, *args, **kwargs):
        return loaded if source == DEFAULT_VECTORS else real_load(source, *args, **kwargs)

    monkeypatch.setattr(WordVectors, "load", classmethod(load))
    monkeypatch.setattr(WordVectors, "from_sentence_transformer", lambda *a, **k: loaded)
    return loaded


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """An empty local Hugging Face cache (offline: nothing in it can be loaded)."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    return tmp_path / "hub"


def _cache_snapshot(hub_cache, repo_id: str, revision: str) -> None:
    folder = hub_cache / f"models--{repo_id.replace('/', '--')}" / "snapshots" / revision
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}", encoding="utf-8")


@pytest.fixture
def registry_entry(monkeypatch, tiny_model_dir):
    """Put a registry entry in MTEB's registry whose loader builds the tiny model with MTEB's
    sentence-transformers wrapper; ``loader_kwargs`` as given. Returns the loader's calls."""
    from mteb.models.model_implementations import MODEL_REGISTRY
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper

    calls: list[dict] = []

    def add(name: str, **loader_kwargs):
        def loader(model_name, revision=None, device=None, **kwargs):
            calls.append({"name": model_name, "revision": revision, **kwargs})
            kwargs.pop("trust_remote_code", None)  # the tiny model has no remote code
            return SentenceTransformerEncoderWrapper(str(tiny_model_dir), device="cpu", **kwargs)

        meta = mteb.get_model_meta("sentence-transformers/all-MiniLM-L6-v2").model_copy(
            update={
                "name": name,
                "revision": TINY_REVISION,
                "loader": loader,
                "loader_kwargs": loader_kwargs,
            }
        )
        monkeypatch.setitem(MODEL_REGISTRY, name, meta)
        return meta

    add.calls = calls  # type: ignore[attr-defined]  # the fixture hands back its calls
    return add


# -------------------------------------------------------------------------------------------
# MTEB's registry: mteb.get_model, with MTEB's prompts and revision
# -------------------------------------------------------------------------------------------
def test_registry_model_gets_mteb_prompts_and_revision(
    env, tmp_path, registry_entry, hub_cache, tiny_model_dir
):
    from sentence_transformers import SentenceTransformer

    registry_entry("test-org/tiny-prompted", model_prompts={"STS": PROMPT})
    _cache_snapshot(hub_cache, "test-org/tiny-prompted", TINY_REVISION)
    output = tmp_path / "out"
    code, stdout, stderr = _cli(
        "--model",
        "test-org/tiny-prompted",
        "--model",
        f"{tiny_model_dir}=plain",
        "--task",
        "STSS131",
        "--n-resamples",
        "1000",
        "--output",
        str(output),
        "--no-figures",
        "--no-progress",
    )
    assert code == 0, stderr
    (call,) = registry_entry.calls
    assert call == {
        "name": "test-org/tiny-prompted",
        "revision": TINY_REVISION,
        "model_prompts": {"STS": PROMPT},
    }
    data = json.loads((output / "leaderboard.json").read_text(encoding="utf-8"))
    models = {model["name"]: model for model in data["models"]}
    assert models["tiny-prompted"]["kind"] == "mteb-registry"
    assert models["tiny-prompted"]["mteb_name"] == "test-org/tiny-prompted"
    assert models["tiny-prompted"]["mteb_revision"] == TINY_REVISION
    assert models["plain"]["kind"] == "sentence-transformers"
    assert "trust_remote_code" not in models["plain"]
    # the registry's prompt reached the encoder: the scores are the cosine of prompted sentences
    s1, s2, _ = _pairs()
    encoder = SentenceTransformer(str(tiny_model_dir), device="cpu")

    def cosine(first, second):
        a, b = encoder.encode(first), encoder.encode(second)
        return np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)

    rows = {row["model"]: row for row in data["results"]}
    prompted = cosine([PROMPT + s for s in s1], [PROMPT + s for s in s2])
    assert_allclose(rows["tiny-prompted"]["scores"], prompted, rtol=1e-5, atol=1e-6)
    assert_allclose(rows["plain"]["scores"], cosine(s1, s2), rtol=1e-5, atol=1e-6)
    assert not np.allclose(prompted, cosine(s1, s2), atol=1e-3)
    assert {row["score_key"] for row in data["results"]} == {"similarity_scores"}
    # embeddings are cached per revision and loader settings
    cached = env / "sts_extras" / "embeddings" / "test-org__tiny-prompted" / TINY_REVISION
    assert list(cached.glob("*/STSS131"))


def test_sts_extras_registry_model_runs_through_mteb_get_model(
    env, tmp_path, monkeypatch, default_vectors_are_tiny
):
    from sts_extras.integrations.mteb.models import DynaMax

    names = []
    get_model = mteb.get_model

    def spy(name, *args, **kwargs):
        names.append(name)
        return get_model(name, *args, **kwargs)

    monkeypatch.setattr(mteb, "get_model", spy)
    output = tmp_path / "out"
    code, stdout, stderr = _cli(
        "--model",
        "sts-extras/DynaMax-Jaccard",
        "--model",
        "STS-EXTRAS/avg-cos=averaged",  # any letter case; a display name
        "--task",
        "STSS131",
        "--n-resamples",
        "1000",
        "--output",
        str(output),
        "--no-figures",
        "--no-progress",
    )
    assert code == 0, stderr
    assert names == ["sts-extras/DynaMax-Jaccard", "sts-extras/avg-cos"]
    data = json.loads((output / "leaderboard.json").read_text(encoding="utf-8"))
    assert [(m["name"], m["kind"], m["mteb_name"]) for m in data["models"]] == [
        ("DynaMax-Jaccard (tiny)", "mteb-registry", "sts-extras/DynaMax-Jaccard"),
        ("averaged", "mteb-registry", "sts-extras/avg-cos"),
    ]
    s1, s2, _ = _pairs()
    row = next(r for r in data["results"] if r["model"] == "DynaMax-Jaccard (tiny)")
    expected = DynaMax(default_vectors_are_tiny, measure="jaccard").score(s1, s2)
    assert_allclose(row["scores"], expected, rtol=1e-6, atol=1e-9)
    assert row["score_key"] == "similarity_scores"
    assert (output / "predictions" / "averaged" / "STSS131_predictions.json").is_file()


def test_the_packaged_default_loses_nothing_by_not_going_through_mteb_get_model(env):
    """MTEB's entry of all-MiniLM-L6-v2 has no prompts or loader arguments; the packaged copy is
    loaded from its local files with its own revision."""
    from sts_extras.io.model_sources import DEFAULT_MODEL
    from sts_extras.leaderboard.run.resolve import resolve_models

    meta = mteb.get_model_meta(DEFAULT_MODEL)
    assert not meta.loader_kwargs
    for spec in ("all-MiniLM-L6-v2", DEFAULT_MODEL):
        (entry,) = resolve_models([spec], None)
        assert entry.kind == "sentence-transformers" and entry.name == "all-MiniLM-L6-v2"
        assert entry.identity is not None
        assert json.loads(entry.identity)["content"].startswith("xxh3-128:")  # its local files


def test_registry_model_not_cached_offline_fails_before_any_work(env, tmp_path, hub_cache):
    output = tmp_path / "out"
    code, stdout, stderr = _cli(
        "--model", "intfloat/e5-small-v2", "--output", str(output), "--no-progress"
    )
    assert code == 2 and stdout == ""
    assert stderr.count("\n") == 1
    assert "is in MTEB's model registry" in stderr and "local Hugging Face cache" in stderr
    assert not (output / "mteb_results").exists() and not (output / "leaderboard.md").exists()


# -------------------------------------------------------------------------------------------
# --trust-remote-code
# -------------------------------------------------------------------------------------------
def test_trust_remote_code_reaches_sentence_transformers(env, monkeypatch, tiny_model_dir):
    import sentence_transformers

    from sts_extras.leaderboard.run.resolve import resolve_models

    seen = []
    original: Any = sentence_transformers.SentenceTransformer  # Any: subclassed below

    class Recording(original):
        def __init__(self, *args, **kwargs):
            seen.append(kwargs)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(sentence_transformers, "SentenceTransformer", Recording)
    (plain,) = resolve_models([str(tiny_model_dir)], None)
    (trusted,) = resolve_models([str(tiny_model_dir)], None, trust_remote_code=True)
    plain.build()
    trusted.build()
    assert seen == [{}, {"trust_remote_code": True}]
    assert not plain.trust_remote_code and trusted.trust_remote_code
    assert plain.identity != trusted.identity  # stored evaluations are kept apart


def test_registry_model_needing_remote_code_needs_the_option(
    env, tmp_path, registry_entry, hub_cache
):
    from sts_extras.leaderboard.run.resolve import resolve_models

    registry_entry("test-org/remote", trust_remote_code=True)
    _cache_snapshot(hub_cache, "test-org/remote", TINY_REVISION)
    code, stdout, stderr = _cli(
        "--model", "test-org/remote", "--output", str(tmp_path / "out"), "--no-progress"
    )
    assert code == 2 and "pass --trust-remote-code" in stderr
    (entry,) = resolve_models(["test-org/remote"], None, trust_remote_code=True)
    entry.build()
    assert registry_entry.calls[-1]["trust_remote_code"] is True
    assert entry.trust_remote_code
    output = tmp_path / "run"
    code, _, stderr = _cli(
        "--model",
        "test-org/remote",
        "--trust-remote-code",
        "--task",
        "STSS131",
        "--n-resamples",
        "1000",
        "--output",
        str(output),
        "--no-figures",
        "--no-progress",
    )
    assert code == 0, stderr
    (model,) = json.loads((output / "leaderboard.json").read_text(encoding="utf-8"))["models"]
    assert model["trust_remote_code"] is True


# -------------------------------------------------------------------------------------------
# display names
# -------------------------------------------------------------------------------------------
def test_path_equals_name_sets_the_display_name(env, tiny_model_dir):
    from sts_extras.leaderboard.run.resolve import resolve_models

    named, same = resolve_models([f"{tiny_model_dir}=mine", str(tiny_model_dir)], None)
    assert (named.name, named.source) == ("mine", str(tiny_model_dir))
    assert same.name == "tiny-static"
    assert named.identity == same.identity  # the name does not change the scores


@pytest.mark.parametrize(
    ("specs", "message"),
    [
        (["{tiny}=same", "{tiny}=same"], r"'same' is also that of --model '.*=same'"),
        (["{tiny}=tiny-static", "{tiny}"], r"'tiny-static' is also that of the model from"),
        (["{tiny}="], r"write NAME_OR_PATH=DISPLAY_NAME with both parts"),
    ],
)
def test_display_names_must_be_unique_and_complete(env, tmp_path, tiny_model_dir, specs, message):
    argv = []
    for spec in specs:
        argv += ["--model", spec.format(tiny=tiny_model_dir)]
    output = tmp_path / "out"
    code, _, stderr = _cli(*argv, "--output", str(output), "--no-progress")
    assert code == 2 and stderr.count("\n") == 1, stderr
    assert re.search(message, stderr), stderr
    assert not (output / "mteb_results").exists()


# -------------------------------------------------------------------------------------------
# which prediction key: the model's own similarity on any STS task
# -------------------------------------------------------------------------------------------
def test_dynamax_is_ranked_by_its_own_similarity_on_an_mteb_style_task(
    env, tmp_path, default_vectors_are_tiny
):
    """MTEB's STS tasks name ``cosine_spearman`` as main score: the ranks still use DynaMax."""
    from datasets import Dataset, DatasetDict
    from mteb.abstasks.sts import AbsTaskSTS
    from mteb.abstasks.task_metadata import TaskMetadata

    from sts_extras.integrations.mteb.models import DynaMax, MainScoreWarning
    from sts_extras.leaderboard import LeaderboardSettings, run_leaderboard

    rows = read_rows("dscs")

    class CosineMainScoreSTS(AbsTaskSTS):
        metadata = TaskMetadata(
            name="CosineMainScoreSTS",
            dataset={"path": "local/toy", "revision": "1"},
            description="DSCS with MTEB's usual STS main score.",
            type="STS",
            category="t2t",
            eval_splits=["test"],
            eval_langs=["eng-Latn"],
            main_score="cosine_spearman",
        )
        min_score, max_score = 0, 5

        def load_data(self, **kwargs):  # type: ignore[override]  # loads rows, not a dataset
            self.dataset = {"default": DatasetDict({"test": Dataset.from_list(rows)})}
            self.data_loaded = True

    with warnings.catch_warnings():
        warnings.simplefilter("error", MainScoreWarning)
        result = run_leaderboard(
            models=["sts-extras/DynaMax-Jaccard", "sts-extras/DynaMax-Cosine"],
            tasks=[CosineMainScoreSTS()],
            settings=LeaderboardSettings(
                output=tmp_path / "out", n_resamples=1000, figures=False, progress=False
            ),
        )
    s1, s2, gold = _pairs("dscs")
    row = next(r for r in result.stats if r.model == "DynaMax-Jaccard (tiny)")
    assert isinstance(row, ModelTaskStats)
    own = DynaMax(default_vectors_are_tiny).score(s1, s2)
    assert_allclose(row.pearson, pearsonr(own, gold).statistic, rtol=1e-9)
    data = json.loads((tmp_path / "out" / "leaderboard.json").read_text(encoding="utf-8"))
    assert {r["score_key"] for r in data["results"]} == {"similarity_scores"}
    assert "cosine_scores" not in (tmp_path / "out" / "leaderboard.md").read_text("utf-8")


def test_read_prediction_says_which_key_it_read(tmp_path):
    from sts_extras.integrations.mteb.internals import read_prediction, read_prediction_scores

    path = tmp_path / "T_predictions.json"
    path.write_text(
        json.dumps(
            {
                "default": {
                    "test": {"similarity_scores": [0.3, 0.1], "cosine_scores": [0.9, 0.8]},
                    "dev": {"similarity_scores": None, "cosine_scores": [0.9, 0.8]},
                }
            }
        ),
        encoding="utf-8",
    )
    scores, key = read_prediction(path, "default", "test")
    assert key == "similarity_scores" and scores.tolist() == [0.3, 0.1]
    scores, key = read_prediction(path, "default", "dev")
    assert key == "cosine_scores" and scores.tolist() == [0.9, 0.8]
    assert read_prediction_scores(path, "default", "dev").tolist() == [0.9, 0.8]


def test_report_names_the_models_ranked_by_cosine_and_only_then():
    from sts_extras.leaderboard import TaskScores, score_leaderboard
    from sts_extras.leaderboard.reports.json_report import to_json_dict
    from sts_extras.leaderboard.reports.markdown import to_markdown

    rng = np.random.default_rng(0)
    gold = rng.uniform(0, 5, 40)
    task = TaskScores(
        name="toy",
        gold=gold,
        score_range=(0.0, 5.0),
        predictions={"own": gold + rng.normal(0, 1, 40), "cos": gold + rng.normal(0, 2, 40)},
    )
    result = score_leaderboard(
        [task], ["own", "cos"], baseline="cos", settings=RunSettings(n_resamples=1000)
    )
    own_only = {"toy": {"own": "similarity_scores", "cos": "similarity_scores"}}
    assert to_markdown(result, score_keys=own_only) == to_markdown(result)
    mixed = {"toy": {"own": "similarity_scores", "cos": "cosine_scores"}}
    markdown = to_markdown(result, score_keys=mixed)
    (line,) = [line for line in markdown.splitlines() if line.startswith("- **Scores**")]
    assert line.endswith("(`cosine_scores`): cos on toy.")
    records = {r["model"]: r for r in to_json_dict(result, score_keys=mixed)["results"]}
    assert records["cos"]["score_key"] == "cosine_scores"
    assert records["own"]["score_key"] == "similarity_scores"
    assert list(records["own"])[list(records["own"]).index("mteb_pearson") + 1] == "score_key"
    assert to_json_dict(result)["results"][0]["score_key"] is None


def test_bad_registry_spellings_fail_with_close_matches(env, tmp_path):
    from sts_extras.leaderboard.run.resolve import resolve_models

    with pytest.raises(UserInputError, match=r"Close matches: .*sts-extras/DynaMax-Jaccard"):
        resolve_models(["sts-extras/DynaMax-Jacard"], None)
