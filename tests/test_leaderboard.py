"""`sts-extras leaderboard`: one run over both tasks with a tiny sentence-transformer and a tiny
word-vector set built here; every number in its reports must equal the library functions applied
to the per-pair scores MTEB used; bad input fails before any model runs."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import pearsonr, spearmanr

from sts_extras.benchmark_tables import read_rows
from sts_extras.cli import main
from sts_extras.leaderboard import (
    LeaderboardSettings,
    ModelTaskStats,
    TaskScores,
    run_leaderboard,
    score_leaderboard,
)
from sts_extras.leaderboard.reports.tables import method_name
from sts_extras.leaderboard.settings import RunSettings
from sts_extras.stats.bootstrap import bootstrap_correlation_difference
from sts_extras.stats.correlation import scaled_pearson
from sts_extras.stats.model_comparison import compare_models
from sts_extras.stats.ranking import weighted_rank_correlation

SEED = 7
N_RESAMPLES = 2000
TASKS = {"DSCS": ("dscs", (0.0, 5.0)), "STSS131": ("stss131", (0.0, 4.0))}


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["leaderboard", *argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def board(env, vectors_file, tiny_model_dir, tmp_path_factory):
    """One CLI run: the tiny transformer + the three static models over the tiny vectors."""
    output = tmp_path_factory.mktemp("board") / "out"
    code, stdout, stderr = _cli(
        "--model",
        str(tiny_model_dir),
        "--vectors",
        str(vectors_file),
        "--output",
        str(output),
        "--seed",
        str(SEED),
        "--n-resamples",
        str(N_RESAMPLES),
        "--no-progress",
    )
    assert code == 0, stderr
    data = json.loads((output / "leaderboard.json").read_text(encoding="utf-8"))
    with (output / "leaderboard.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return {"output": output, "stdout": stdout, "json": data, "csv": rows}


def _gold(task: str) -> np.ndarray:
    return np.asarray([row["score"] for row in read_rows(TASKS[task][0])])


def test_run_writes_every_report_and_prints_the_table(board):
    output = board["output"]
    for name in (
        "leaderboard.md",
        "leaderboard.csv",
        "leaderboard.json",
        "scatter_DSCS.png",
        "scatter_STSS131.png",
        "forest.png",
    ):
        assert (output / name).stat().st_size > 0, name
    for task in TASKS:  # MTEB's own result files, one per model and task
        assert len(list((output / "mteb_results" / "results").glob(f"*/*/{task}.json"))) == 4
    markdown = (output / "leaderboard.md").read_text(encoding="utf-8")
    assert board["stdout"].strip() == markdown.strip()
    assert "## DSCS — 50 pairs, gold 0–5" in markdown
    assert "## STSS131 — 64 pairs, gold 0–4" in markdown
    assert "## Legend" in markdown
    models = [model["name"] for model in board["json"]["models"]]
    assert models == [
        "tiny-static",
        "avg-cos (tiny)",
        "MaxPool-Jaccard (tiny)",
        "DynaMax-Jaccard (tiny)",
    ]
    assert board["json"]["settings"]["baseline"] == "avg-cos (tiny)"
    assert len(board["csv"]) == 8 and not any(row["error"] for row in board["csv"])


def test_table_numbers_equal_the_library_functions_on_the_same_scores(board):
    data, markdown = board["json"], (board["output"] / "leaderboard.md").read_text("utf-8")
    csv_rows = {(row["task"], row["model"]): row for row in board["csv"]}
    baseline = data["settings"]["baseline"]
    for task, (_dataset, score_range) in TASKS.items():
        gold = _gold(task)
        stored_gold = next(item["gold"] for item in data["tasks"] if item["name"] == task)
        assert_allclose(stored_gold, gold, rtol=0)
        results = {r["model"]: r for r in data["results"] if r["task"] == task}
        scores = {model: np.asarray(result["scores"]) for model, result in results.items()}
        pearsons = {}
        for model, result in results.items():
            x = scores[model]
            row = csv_rows[(task, model)]
            expected_scaled = scaled_pearson(
                x, gold, bins=3, score_range=score_range, strategy="width"
            )
            expected_weighted = weighted_rank_correlation(x, gold, n0=2)
            expected = {
                "pearson": pearsonr(x, gold).statistic,
                "spearman": spearmanr(x, gold).statistic,
                "scaled_pearson": expected_scaled.statistic,
                "rho_w": expected_weighted.rho_w,
                "tau_w": expected_weighted.tau_w,
            }
            for key, value in expected.items():
                assert_allclose(float(row[key]), value, rtol=1e-12, err_msg=f"{task} {model} {key}")
                assert_allclose(result[key], value, rtol=1e-12)
            assert result["bin_r"] == pytest.approx(list(expected_scaled.segment_r), rel=1e-12)
            assert result["bin_sizes"] == list(expected_scaled.segment_sizes)
            assert_allclose(
                result["bin_edges"],
                [0, score_range[1] / 3, 2 * score_range[1] / 3, score_range[1]],
                rtol=1e-12,
            )
            pearsons[model] = expected["pearson"]
            # The Markdown shows the same numbers to 3 decimals.
            assert (
                f"| {expected['pearson']:.3f} | {expected['spearman']:.3f} | "
                f"{expected['scaled_pearson']:.3f} |" in markdown
            )
        # Ranks follow Pearson r.
        order = sorted(pearsons, key=pearsons.get, reverse=True)  # type: ignore[arg-type]  # no None
        assert [csv_rows[(task, model)]["rank"] for model in order] == [
            str(rank) for rank in range(1, len(order) + 1)
        ]
        # Comparisons with the baseline: the pairs of compare_models over the task's models (the
        # same seed, the default method and Holm over all pairs), one decision each; a pair's
        # interval is the paired bootstrap's at the pair's own level (same seed, same method).
        shared = compare_models(
            {model: scores[model] for model in order},
            gold,
            n_resamples=N_RESAMPLES,
            seed=SEED,
        )
        others = [model for model in results if model != baseline]
        for model in others:
            pair = shared.pair(model, baseline)
            sign = 1.0 if pair.model1 == model else -1.0
            low, high = sorted(sign * np.asarray(pair.confidence_interval))
            row = csv_rows[(task, model)]
            assert_allclose(
                [float(row["delta_r"]), float(row["ci_low"]), float(row["ci_high"])],
                [sign * pair.delta, low, high],
                rtol=1e-12,
            )
            assert row["significant"] == str(pair.significant) == str(bool(low > 0 or high < 0))
            assert row["method"] == shared.method and row["adjust"] == "holm"
            assert_allclose(float(row["confidence_level"]), pair.confidence_level, rtol=1e-12)
            assert_allclose(
                [float(row["pvalue"]), float(row["pvalue_adjusted"])],
                [pair.pvalue, pair.pvalue_adjusted],
                rtol=1e-12,
            )
            if shared.method in ("adjusted-percentile", "percentile", "BCa"):
                boot = bootstrap_correlation_difference(  # in the pair's order, better first
                    scores[pair.model1],
                    scores[pair.model2],
                    gold,
                    n_resamples=N_RESAMPLES,
                    confidence_level=pair.confidence_level,
                    method=shared.method,
                    seed=SEED,
                )
                assert_allclose(
                    pair.confidence_interval, boot.confidence_interval, rtol=1e-9, atol=1e-12
                )
            mark = " †" if pair.significant else ""
            assert f"{sign * pair.delta:+.3f} [{low:+.3f}, {high:+.3f}]{mark} |" in markdown
        assert csv_rows[(task, baseline)]["is_baseline"] == "True"
        assert csv_rows[(task, baseline)]["delta_r"] == ""


def test_scores_are_the_ones_mteb_used(board):
    output, data = board["output"], board["json"]
    for model in data["models"]:
        folder = (
            output
            / "mteb_results"
            / "results"
            / model["mteb_name"].replace("/", "__")
            / model["mteb_revision"]
        )
        slug = re.sub(r"[^A-Za-z0-9._+-]+", "_", model["name"]).strip("_")
        for task in TASKS:
            result = next(
                r for r in data["results"] if r["task"] == task and r["model"] == model["name"]
            )
            scores = np.asarray(result["scores"])
            predictions = json.loads(
                (output / "predictions" / slug / f"{task}_predictions.json").read_text(
                    encoding="utf-8"
                )
            )
            assert_allclose(scores, predictions["default"]["test"]["similarity_scores"], rtol=0)
            mteb_file = json.loads((folder / f"{task}.json").read_text(encoding="utf-8"))
            mteb_pearson = mteb_file["scores"]["test"][0]["pearson"]  # MTEB keeps 6 decimals
            assert_allclose(pearsonr(scores, _gold(task)).statistic, mteb_pearson, atol=5e-7)
            assert_allclose(result["mteb_pearson"], result["pearson"], rtol=1e-12)


def test_static_models_are_the_library_encoders(board, vectors_file):
    """The per-pair scores of the vector models are `model.score` of the models package."""
    from sts_extras.integrations.mteb.models import DynaMax, MaxPool, MeanPooled
    from sts_extras.vectors import WordVectors

    vectors = WordVectors.load(str(vectors_file))
    models = {
        "avg-cos": MeanPooled(vectors),
        "MaxPool-Jaccard": MaxPool(vectors, measure="jaccard"),
        "DynaMax-Jaccard": DynaMax(vectors, measure="jaccard"),
    }
    for task, (dataset, _) in TASKS.items():
        rows = read_rows(dataset)
        s1, s2 = [row["sentence1"] for row in rows], [row["sentence2"] for row in rows]
        for method, model in models.items():
            stored = next(
                r["scores"]
                for r in board["json"]["results"]
                if r["task"] == task and r["model"] == f"{method} (tiny)"
            )
            assert_allclose(stored, model.score(s1, s2), rtol=1e-6, atol=1e-9)


def test_encodings_are_cached(board, env, tiny_model_dir, run_on_dscs, tmp_path, monkeypatch):
    """The run above kept the tiny model's encodings; a second run reads them and encodes
    nothing (no forward pass of the model), with the same scores. With an empty cache the same
    run does encode: the counter sees the encoder."""
    import shutil

    from sentence_transformers import SentenceTransformer

    embeddings = env / "sts_extras" / "embeddings"
    assert len(list(embeddings.glob("local__tiny-static/*/DSCS/vectors.npy"))) == 1
    forward_passes = []
    forward = SentenceTransformer.forward

    def counted(self, *args, **kwargs):
        forward_passes.append(1)
        return forward(self, *args, **kwargs)

    monkeypatch.setattr(SentenceTransformer, "forward", counted)
    # only the encodings: without the stored evaluations of the first run, MTEB evaluates again
    cache = tmp_path / "cache"
    shutil.copytree(embeddings, cache / "embeddings")
    second, discarded = run_on_dscs(cache, tmp_path / "second", models=[str(tiny_model_dir)])
    assert forward_passes == [] and discarded == []
    [first_scores] = [
        row["scores"]
        for row in board["json"]["results"]
        if row["task"] == "DSCS" and row["model"] == "tiny-static"
    ]
    [second_scores] = [row["scores"] for row in second["results"] if row["task"] == "DSCS"]
    assert_allclose(second_scores, first_scores, rtol=0, atol=0)

    run_on_dscs(tmp_path / "empty", tmp_path / "third", models=[str(tiny_model_dir)])
    assert forward_passes


# -------------------------------------------------------------------------------------------
# bad input: one clear line, exit status 2, and nothing run
# -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--task", "DSC"], r"--task 'DSC' is neither .* Close matches: DSCS"),
        (["--task", "STSBenchmrk"], r"Close matches: .*STSBenchmark"),
        # each task once (ours are in MTEB's registry too), spelt as its name: not STSS131 twice
        (["--task", "sts131"], r"Close matches: STSS131, STS13, (?!.*STSS131)"),
        (["--task", "Banking77Classification"], r"is an MTEB Classification task"),
        (["--model", "all-MiniLM-L6-v3"], r"not found .* Close matches: .*all-MiniLM-L6-v2"),
        (["--model", "./no/such/model"], r"--model './no/such/model': no such directory"),
        (["--vectors", "no/such/vectors.txt"], r"--vectors 'no/such/vectors.txt': no such file"),
        (["--n-resamples", "0"], r"--n-resamples must be at least 1, got 0"),
        (["--seed", "-1"], r"--seed must be at least 0, got -1"),
    ],
)
def test_bad_names_fail_before_any_work(argv, message, tmp_path, env):
    output = tmp_path / "out"
    code, stdout, stderr = _cli(*argv, "--output", str(output), "--no-progress")
    assert code == 2
    assert stderr.startswith("sts-extras leaderboard: error: ")
    assert re.search(message, stderr), stderr
    assert not (output / "mteb_results").exists() and not (output / "leaderboard.md").exists()


def test_unparsable_vectors_fail_before_any_work(tmp_path, env):
    bad = tmp_path / "broken.txt"
    bad.write_text("3 4\nword 0.1 0.2 not-a-number 0.4\n", encoding="utf-8")
    code, _, stderr = _cli(
        "--vectors", str(bad), "--output", str(tmp_path / "out"), "--no-progress"
    )
    assert code == 2
    assert "--vectors" in stderr and "broken.txt" in stderr and "could not be read" in stderr
    assert not (tmp_path / "out" / "mteb_results").exists()


def test_unwritable_output_fails_before_any_work(tmp_path, env):
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    code, _, stderr = _cli("--output", str(blocker), "--no-progress")
    assert code == 2 and "exists and is not a directory" in stderr
    code, _, stderr = _cli("--output", str(blocker / "sub"), "--no-progress")
    assert code == 2 and "cannot be written" in stderr


def test_unknown_baseline_lists_the_models(tmp_path, env, tiny_model_dir):
    code, _, stderr = _cli(
        "--model",
        str(tiny_model_dir),
        "--baseline",
        "tiny-statik",
        "--output",
        str(tmp_path / "out"),
        "--no-progress",
    )
    assert code == 2
    assert "--baseline 'tiny-statik' is not one of the models" in stderr
    assert "Close matches: tiny-static" in stderr


# -------------------------------------------------------------------------------------------
# a model failing on one task keeps its other results (smoke test with the real MiniLM)
# -------------------------------------------------------------------------------------------
def test_a_model_failing_on_one_task_keeps_the_others(tmp_path, env, tiny_model_dir):
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper
    from sentence_transformers import SentenceTransformer

    class FailsOnSTSS131(SentenceTransformerEncoderWrapper):
        def encode(self, inputs, *, task_metadata, **kwargs):
            if task_metadata.name == "STSS131":
                raise RuntimeError("out of memory on purpose")
            return super().encode(inputs, task_metadata=task_metadata, **kwargs)

    flaky = FailsOnSTSS131(SentenceTransformer(str(tiny_model_dir), device="cpu"))
    flaky.mteb_model_meta = flaky.mteb_model_meta.model_copy(
        update={"name": "test/flaky", "revision": "1"}
    )
    result = run_leaderboard(
        models=["all-MiniLM-L6-v2", flaky],
        settings=LeaderboardSettings(
            output=tmp_path / "out", n_resamples=1000, figures=False, progress=False
        ),
    )
    rows: dict[tuple[str, str], Any] = {(row.task, row.model): row for row in result.stats}
    assert rows[("DSCS", "flaky")].ok and rows[("DSCS", "all-MiniLM-L6-v2")].ok
    assert not rows[("STSS131", "flaky")].ok
    assert "out of memory on purpose" in rows[("STSS131", "flaky")].error
    assert rows[("STSS131", "all-MiniLM-L6-v2")].pearson > 0.8  # MiniLM still scored
    assert result.comparison("DSCS", "flaky").delta is not None  # type: ignore[union-attr]  # the comparison exists
    assert result.comparison("STSS131", "flaky").error  # type: ignore[union-attr]  # the comparison exists
    markdown = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "| – | flaky | failed: " in markdown and "out of memory on purpose" in markdown


# -------------------------------------------------------------------------------------------
# the scoring core on synthetic scores
# -------------------------------------------------------------------------------------------
def _synthetic(round_to: int | None = None) -> TaskScores:
    rng = np.random.default_rng(1)
    gold = rng.uniform(0, 5, 60)
    good = gold + rng.normal(0, 1.0, 60)
    weak = gold + rng.normal(0, 3.0, 60)
    return TaskScores(
        name="toy",
        gold=gold,
        score_range=(0.0, 5.0),
        predictions={"good": good / 7.123456, "weak": weak / 7.123456, "flat": np.full(60, 0.5)},
        failures={"gone": "RuntimeError: boom"},
    )


def test_score_leaderboard_ranks_flags_degenerate_and_failed_models():
    result = score_leaderboard(
        [_synthetic()],
        ["weak", "good", "flat", "gone"],
        baseline="weak",
        settings=RunSettings(n_resamples=1000, seed=0),
    )
    rows: dict[str, Any] = {row.model: row for row in result.stats}
    assert rows["good"].rank == 1 and rows["weak"].rank == 2
    assert rows["flat"].rank is None and "constant" in rows["flat"].error
    assert rows["gone"].error == "RuntimeError: boom"
    assert [row.model for row in result.stats_for("toy")] == ["good", "weak", "flat", "gone"]
    assert result.comparison("toy", "good").delta > 0  # type: ignore[union-attr, operator]  # it exists
    assert result.comparison("toy", "flat").error and result.comparison("toy", "gone").error  # type: ignore[union-attr]  # the comparison exists
    assert result.comparison("toy", "weak") is None  # the baseline


def test_a_comparison_the_scores_cannot_support_is_a_failure_naming_the_unit_and_models():
    """3 test pairs: each model has r, but no comparison (it needs 4); the failure names the
    unit (task and split) and the models, in the unit's notes and in the baseline row."""
    task = TaskScores(
        name="tiny (test)",
        gold=np.array([0.0, 1.0, 2.0]),
        score_range=(0.0, 5.0),
        predictions={"a": np.array([0.0, 1.0, 3.0]), "b": np.array([1.0, 0.0, 2.0])},
    )
    result = score_leaderboard(
        [task], ["a", "b"], baseline="b", settings=RunSettings(n_resamples=1000)
    )
    assert all(row.ok for row in result.stats)
    message = result.pairwise_errors["tiny (test)"]
    assert message.startswith("tiny (test): no comparison of a, b: ")
    assert "at least 4 pairs, got 3" in message
    assert result.comparison("tiny (test)", "a").error == message  # type: ignore[union-attr]


def _failing(error: Exception) -> Any:
    def fail(*args: object, **kwargs: object) -> Any:
        raise error

    return fail


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("sts_extras.stats.model_comparison", "compare_models"),
        ("sts_extras.stats.ranking", "weighted_rank_correlation"),
        ("sts_extras.stats.correlation", "scaled_pearson"),
    ],
)
def test_an_unexpected_error_in_scoring_propagates(monkeypatch, module, name):
    """A ValueError that is not a UserInputError is a bug: it is not turned into a result."""
    import importlib

    monkeypatch.setattr(
        importlib.import_module(module), name, _failing(ValueError("a bug, not the data"))
    )
    with pytest.raises(ValueError, match="a bug, not the data"):
        score_leaderboard(
            [_synthetic()],
            ["weak", "good"],
            baseline="weak",
            settings=RunSettings(n_resamples=1000),
        )


def test_scores_of_the_wrong_length_are_a_failed_row_naming_model_and_task():
    task = _synthetic()
    short = TaskScores(
        name=task.name,
        gold=task.gold,
        score_range=task.score_range,
        predictions={**task.predictions, "short": task.predictions["good"][:50]},
    )
    result = score_leaderboard(
        [short], ["weak", "good", "short"], baseline="weak", settings=RunSettings(n_resamples=1000)
    )
    rows: dict[str, Any] = {row.model: row for row in result.stats}
    assert not rows["short"].ok
    assert rows["short"].error == "50 scores of 'short' on toy for 60 gold pairs"


def test_round_scores_follows_the_stss131_guidance():
    task = _synthetic()
    result = score_leaderboard(
        [task],
        ["weak", "good"],
        baseline="weak",
        settings=RunSettings(n_resamples=1000, round_scores=True),
    )
    good = next(row for row in result.stats if row.model == "good")
    assert isinstance(good, ModelTaskStats)
    rounded = np.round(task.predictions["good"], 3)
    assert_allclose(good.scores, rounded, rtol=0)
    assert_allclose(good.pearson, pearsonr(rounded, task.gold).statistic, rtol=1e-12)
    assert good.pearson != pearsonr(task.predictions["good"], task.gold).statistic


def test_score_leaderboard_is_reproducible_and_checks_the_baseline():
    first = score_leaderboard(
        [_synthetic()],
        ["weak", "good"],
        baseline="weak",
        settings=RunSettings(n_resamples=1000, seed=3),
    )
    second = score_leaderboard(
        [_synthetic()],
        ["weak", "good"],
        baseline="weak",
        settings=RunSettings(n_resamples=1000, seed=3),
    )
    assert first.comparisons == second.comparisons
    with pytest.raises(ValueError, match="`baseline` must be one of the models"):
        score_leaderboard([_synthetic()], ["weak", "good"], baseline="best")


def test_multi_subset_tasks_give_one_table_per_subset(tmp_path, env, tiny_model_dir):
    """A user's own AbsTaskSTS with two subsets (as MTEB's multilingual tasks have)."""
    from datasets import Dataset, DatasetDict
    from mteb.abstasks.sts import AbsTaskSTS
    from mteb.abstasks.task_metadata import TaskMetadata

    rows = read_rows("dscs")

    class TwoSubsetToySTS(AbsTaskSTS):
        metadata = TaskMetadata(
            name="TwoSubsetToySTS",
            dataset={"path": "local/toy", "revision": "1"},
            description="DSCS split in two subsets.",
            type="STS",
            category="t2t",
            eval_splits=["test"],
            eval_langs={"first": ["eng-Latn"], "second": ["eng-Latn"]},
            main_score="pearson",
        )
        min_score, max_score = 0, 5

        def load_data(self, **kwargs):  # type: ignore[override]  # loads rows, not a dataset
            self.dataset = {
                "first": DatasetDict({"test": Dataset.from_list(rows[:20])}),
                "second": DatasetDict({"test": Dataset.from_list(rows[20:])}),
            }
            self.data_loaded = True

    result = run_leaderboard(
        models=[str(tiny_model_dir)],
        tasks=[TwoSubsetToySTS()],
        settings=LeaderboardSettings(output=tmp_path / "out", n_resamples=1000, progress=False),
    )
    assert [task.name for task in result.tasks] == [
        "TwoSubsetToySTS (first, test)",
        "TwoSubsetToySTS (second, test)",
    ]
    gold = np.asarray([row["score"] for row in rows])
    for task, part in zip(result.tasks, (slice(0, 20), slice(20, 50))):
        assert_allclose(task.gold, gold[part], rtol=0)
        (row,) = result.stats_for(task.name)
        assert isinstance(row, ModelTaskStats) and row.mteb_pearson is not None
        assert_allclose(row.pearson, pearsonr(row.scores, gold[part]).statistic, rtol=1e-12)
        assert_allclose(row.mteb_pearson, row.pearson, rtol=1e-12)
    assert (tmp_path / "out" / "scatter_TwoSubsetToySTS_first_test.png").exists()


def test_undefined_scaled_pearson_keeps_the_other_statistics():
    """Gold scores all in one bin: no per-bin r beyond that bin, r and ρ still reported."""
    rng = np.random.default_rng(2)
    gold = np.r_[rng.uniform(4.0, 5.0, 30), 0.0, 2.0]  # bins 1 and 2 hold one pair each
    task = TaskScores(
        name="lopsided",
        gold=gold,
        score_range=(0.0, 5.0),
        predictions={"a": gold + rng.normal(0, 0.5, 32), "b": gold + rng.normal(0, 1.0, 32)},
    )
    result = score_leaderboard(
        [task], ["a", "b"], baseline="b", settings=RunSettings(n_resamples=1000)
    )
    row = next(row for row in result.stats if row.model == "a")
    assert isinstance(row, ModelTaskStats)
    assert row.ok and row.bin_r[:2] == (None, None) and row.bin_sizes == (1, 1, 30)
    assert row.scaled_pearson is not None and row.bin_r[2] is not None
    assert_allclose(row.scaled_pearson, row.bin_r[2], rtol=1e-12)
    constant_bins = TaskScores(
        name="flat-bins",
        gold=np.repeat([0.5, 2.5, 4.5], 5),
        score_range=(0.0, 5.0),
        predictions={"a": np.arange(15.0), "b": np.arange(15.0) ** 2},
    )
    result = score_leaderboard(
        [constant_bins], ["a", "b"], baseline="b", settings=RunSettings(n_resamples=1000)
    )
    row = next(row for row in result.stats if row.model == "a")
    assert isinstance(row, ModelTaskStats)
    assert row.ok and row.scaled_pearson is None and row.pearson is not None


def test_a_model_that_cannot_load_is_reported_and_the_exit_status_is_1(
    tmp_path, env, tiny_model_dir
):
    broken = tmp_path / "broken-model"
    broken.mkdir()
    (broken / "modules.json").write_text("[not json", encoding="utf-8")
    output = tmp_path / "out"
    code, stdout, stderr = _cli(
        "--model",
        str(tiny_model_dir),
        "--model",
        str(broken),
        "--output",
        str(output),
        "--n-resamples",
        "1000",
        "--no-figures",
        "--no-progress",
    )
    assert code == 1
    assert "2 model × task run(s) failed: broken-model on DSCS; broken-model on STSS131" in stderr
    rows = list(csv.DictReader((output / "leaderboard.csv").open(encoding="utf-8")))
    by_model = {(row["task"], row["model"]): row for row in rows}
    for task in TASKS:
        assert (
            by_model[(task, "tiny-static")]["pearson"]
            and not by_model[(task, "tiny-static")]["error"]
        )
        assert by_model[(task, "broken-model")]["error"]
    assert "| – | broken-model | failed: " in stdout


def test_sif_names_the_static_models_and_changes_their_scores(vectors_file, env):
    from sts_extras.leaderboard.run.resolve import resolve_models

    plain = resolve_models(None, [str(vectors_file)])
    weighted = resolve_models(None, [str(vectors_file)], sif=True)
    assert [entry.name for entry in weighted] == [
        "avg-cos-SIF (tiny)",
        "MaxPool-Jaccard-SIF (tiny)",
        "DynaMax-Jaccard-SIF (tiny)",
    ]
    rows = read_rows("stss131")
    s1, s2 = [row["sentence1"] for row in rows], [row["sentence2"] for row in rows]
    assert not np.allclose(plain[2].build().score(s1, s2), weighted[2].build().score(s1, s2))


# -------------------------------------------------------------------------------------------
# honest ranks (issue 13): all pairs, rank intervals, win probabilities, one shared bootstrap
# -------------------------------------------------------------------------------------------
def test_json_has_every_pair_and_rank_intervals_equal_to_compare_models(board):
    data = board["json"]
    # the run's settings record names the method asked for and the adjustment
    assert data["settings"]["method"] == "auto"
    assert data["settings"]["adjust"] == "holm"
    for task in data["tasks"]:
        rows = sorted(
            (r for r in data["results"] if r["task"] == task["name"]), key=lambda r: r["rank"]
        )
        m = len(rows)
        assert len(task["pairwise"]) == m * (m - 1) // 2 == 6
        expected = compare_models(
            {row["model"]: np.asarray(row["scores"]) for row in rows},
            np.asarray(task["gold"]),
            n_resamples=N_RESAMPLES,
            seed=SEED,
        )
        assert task["models_compared"] == [row["model"] for row in rows]
        # the task names the method "auto" chose and what the calibration suite measured for it
        assert task["method"] == expected.method != "auto"
        assert (task["adjust"], task["confidence_level"]) == ("holm", 0.95)
        calibration = None if expected.calibration is None else expected.calibration.as_dict()
        assert task["calibration"] == calibration
        for k, row in enumerate(rows):
            assert (row["rank_low"], row["rank_high"]) == (
                expected.rank_low[k],
                expected.rank_high[k],
            )
            assert row["rank_low"] <= row["rank"] <= row["rank_high"]
        for entry in task["pairwise"]:
            pair = expected.pair(entry["model1"], entry["model2"])
            assert (pair.model1, pair.model2) == (entry["model1"], entry["model2"])
            # leaderboard.json keeps the 0.2 keys ci_low/ci_high (docs/api-conventions.md)
            assert_allclose(
                [entry["ci_low"], entry["ci_high"]], pair.confidence_interval, rtol=1e-12
            )
            for key in ("delta", "statistic", "pvalue", "pvalue_adjusted", "confidence_level"):
                assert_allclose(entry[key], getattr(pair, key), rtol=1e-12, err_msg=key)
            assert entry["method"] == expected.method
            # one decision: significant <=> the interval shown excludes 0
            excludes = entry["ci_low"] > 0 or entry["ci_high"] < 0
            assert entry["significant"] == entry["adjusted_significant"] == excludes
            assert entry["significant"] == pair.significant
            i, j = (expected.models.index(entry[key]) for key in ("model1", "model2"))
            assert entry["win_probability"] == expected.win_probability[i, j]
        csv_row = next(
            r for r in board["csv"] if r["task"] == task["name"] and r["model"] == rows[0]["model"]
        )
        assert (csv_row["rank_low"], csv_row["rank_high"]) == (
            str(rows[0]["rank_low"]),
            str(rows[0]["rank_high"]),
        )


def test_markdown_has_rank_intervals_groups_detectable_delta_and_mean_rank(board):
    output = board["output"]
    markdown = (output / "leaderboard.md").read_text(encoding="utf-8")
    assert "| rank [95%] |" in markdown
    assert (
        markdown.count(
            "Not separable at 95% (no pair of a group is significant, †, Holm-adjusted over all "
            "pairs): "
        )
        == 2
    )
    assert markdown.count("Minimal detectable Δr at 80% power (meng1992 test") == 2
    # each task's section names its method and what the calibration suite measured at its n
    for task in board["json"]["tasks"]:
        section = markdown.split(f"## {task['name']} — ")[1].split("\n## ")[0]
        assert f"Pair decisions: {method_name(task['method'])} (chosen by method=auto)" in section
        measured = task["calibration"]
        if measured is None:
            assert "Not calibrated: the calibration suite did not measure" in section
        else:
            verdict = "Calibrated (" if measured["calibrated"] else "Not calibrated: "
            assert verdict in section
            assert (
                f"the calibration suite measured {measured['method']}'s type-I error "
                f"{measured['measured_size']:.1%}" in section
            )
            assert f"at n = {measured['grid_n']} " in section
    assert "## Mean rank across tasks" in markdown
    for task in TASKS:
        assert (output / f"pairwise_{task}.png").stat().st_size > 0
        entry = next(t for t in board["json"]["tasks"] if t["name"] == task)
        top = entry["min_detectable_delta"]["model"]
        assert top == entry["models_compared"][0]
        assert set(entry["min_detectable_delta"]["against"]) == set(entry["models_compared"][1:])
    mean = {item["model"]: item for item in board["json"]["mean_rank"]}
    for model, item in mean.items():
        ranks = [r["rank"] for r in board["json"]["results"] if r["model"] == model]
        assert_allclose(item["mean_rank"], np.mean(ranks), rtol=1e-12)
        assert item["ci_low"] <= item["mean_rank"] <= item["ci_high"]


def test_method_and_adjust_options_reach_the_report(tmp_path, env, vectors_file):
    from statsmodels.stats.multitest import multipletests

    from sts_extras.stats.dependent import dependent_correlation_test

    output = tmp_path / "out"
    code, stdout, stderr = _cli(
        "--vectors",
        str(vectors_file),
        "--task",
        "STSS131",
        "--method",
        "williams1959",
        "--adjust",
        "bonferroni",
        "--n-resamples",
        "1000",
        "--output",
        str(output),
        "--no-progress",
    )
    assert code == 0, stderr
    data = json.loads((output / "leaderboard.json").read_text(encoding="utf-8"))
    assert data["settings"]["method"] == "williams1959"
    assert data["settings"]["adjust"] == "bonferroni"
    assert not {"dependent_test", "multiple_comparisons", "bootstrap"} & set(data["settings"])
    assert (output / "pairwise_STSS131.png").exists()
    assert "| CI level | p (Bonferroni) |" in stdout
    assert "Williams's (1959) t test with Zou's (2007) interval" in stdout
    (task,) = data["tasks"]
    assert (task["method"], task["adjust"]) == ("williams1959", "bonferroni")
    pairs = task["pairwise"]
    for entry in pairs:
        # the decision is Williams's p, Bonferroni-adjusted; the interval Zou's at the level
        # that matches it (1 - 0.05 / 6 where the adjusted p is not capped at 1)
        test = dependent_correlation_test(
            entry["r1"],
            entry["r2"],
            entry["r12"],
            task["n"],
            method="williams1959",
            confidence_level=entry["confidence_level"],
        )
        assert_allclose([entry["statistic"], entry["pvalue"]], [test.statistic, test.pvalue])
        assert_allclose([entry["ci_low"], entry["ci_high"]], test.confidence_interval)
        assert entry["method"] == "williams1959"
        if entry["pvalue_adjusted"] < 1.0:
            assert_allclose(entry["confidence_level"], 1 - 0.05 / len(pairs), rtol=1e-12)
        assert entry["significant"] == (entry["pvalue_adjusted"] < 0.05)
        assert entry["significant"] == (entry["ci_low"] > 0 or entry["ci_high"] < 0)
    assert_allclose(
        [entry["pvalue_adjusted"] for entry in pairs],
        multipletests([entry["pvalue"] for entry in pairs], method="bonferroni")[1],
        rtol=1e-12,
    )
    # the comparisons with the baseline are those pairs, with their decisions (one family: all
    # pairs of the task, not again over the comparisons with the baseline)
    by_pair = {frozenset((e["model1"], e["model2"])): e for e in pairs}
    for item in data["comparisons"]:
        entry = by_pair[frozenset((item["model"], item["baseline"]))]
        assert item["pvalue_adjusted"] == entry["pvalue_adjusted"]
        assert item["significant"] == entry["significant"]
        assert item["confidence_level"] == entry["confidence_level"]
        assert item["method"] == "williams1959"
        assert not {"bca_significant", "holm_significant", "pvalue_holm"} & set(item)


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        (
            "--method",
            "meng",
            r"--method must be one of 'auto', 'twopov', 'adjusted-percentile', 'jackknife-t'",
        ),
        ("--adjust", "holmes", r"--adjust must be one of 'holm', 'bonferroni'"),
    ],
)
def test_unknown_test_or_adjustment_fails_in_one_line_before_any_work(
    option, value, message, tmp_path, env
):
    output = tmp_path / "out"
    code, stdout, stderr = _cli(option, value, "--output", str(output), "--no-progress")
    assert code == 2 and stdout == ""
    assert stderr.count("\n") == 1 and stderr.startswith("sts-extras leaderboard: error: ")
    assert re.search(message, stderr), stderr
    assert not output.exists()
