"""The leaderboard beyond one process: the same cells run serially, on a local Dask cluster, or as
two shards collected later give the same ``leaderboard.json``; ``collect`` refuses outputs it
cannot combine (missing cells, mixed settings or task data, damaged files), names what is wrong,
and builds a report from a plain ``mteb.evaluate`` prediction folder."""

from __future__ import annotations

import contextlib
import io
import json
import shutil

import pytest
from scipy.stats import pearsonr

from sts_extras.benchmark_tables import read_rows
from sts_extras.cli import main
from sts_extras.errors import UserInputError
from sts_extras.integrity import MANIFEST_FILE
from sts_extras.io.content import file_digest
from sts_extras.leaderboard import ModelTaskFailure
from sts_extras.leaderboard.run.cells import parse_shard, shard_cells
from sts_extras.leaderboard.run.collect import collect_leaderboard
from sts_extras.leaderboard.settings import LeaderboardSettings

N_RESAMPLES = 200


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["leaderboard", *argv])
    return code, out.getvalue(), err.getvalue()


def _options(model_dir, vectors, output, *extra):
    return (
        "--model",
        f"{model_dir}=tiny-st",
        "--vectors",
        str(vectors),
        "--n-resamples",
        str(N_RESAMPLES),
        "--seed",
        "3",
        "--no-figures",
        "--no-progress",
        "--output",
        str(output),
        *extra,
    )


@pytest.fixture(scope="module")
def runs(env, tiny_model_dir, vectors_file, tmp_path_factory):
    """The same plan four ways: serial; --workers 2; shards 1/2 and 2/2 then collect."""
    root = tmp_path_factory.mktemp("runs")
    codes = {}
    codes["serial"] = _cli(*_options(tiny_model_dir, vectors_file, root / "serial"))[0]
    codes["workers"] = _cli(
        *_options(tiny_model_dir, vectors_file, root / "workers", "--workers", "2")
    )[0]
    for index in (1, 2):
        codes[f"shard{index}"] = _cli(
            *_options(tiny_model_dir, vectors_file, root / f"shard{index}", "--shard", f"{index}/2")
        )[0]
    codes["collect"] = _cli(
        "collect",
        str(root / "shard1"),
        str(root / "shard2"),
        "--output",
        str(root / "collected"),
        "--no-figures",
        "--no-progress",
    )[0]
    return root, codes


def test_serial_workers_and_collected_shards_give_the_same_leaderboard(runs):
    root, codes = runs
    assert codes == {"serial": 0, "workers": 0, "shard1": 0, "shard2": 0, "collect": 0}
    serial = (root / "serial" / "leaderboard.json").read_bytes()
    reports = json.loads(serial)
    assert len(reports["models"]) == 4 and len(reports["results"]) == 8
    for name in ("workers", "collected"):
        other = json.loads((root / name / "leaderboard.json").read_bytes())
        assert other.keys() == reports.keys()
        for field in reports:  # field by field, for a readable failure
            assert other[field] == reports[field], (name, field)
        assert (root / name / "leaderboard.json").read_bytes() == serial
        assert (root / name / "leaderboard.csv").read_bytes() == (
            root / "serial" / "leaderboard.csv"
        ).read_bytes()


def test_a_shard_writes_only_its_cells_and_no_report(runs):
    root, _ = runs
    for index in (1, 2):
        shard = root / f"shard{index}"
        assert not (shard / "leaderboard.json").exists()
        plan = json.loads((shard / "cells" / "plan.json").read_text(encoding="utf-8"))
        assert plan["shards"] == [f"{index}/2"]
        records = sorted(p.relative_to(shard / "cells") for p in (shard / "cells").glob("*/*.json"))
        records = [r for r in records if r.parts[0] != "tasks"]
        assert len(records) == 4  # half of 4 models × 2 tasks
    first = {p.relative_to(root / "shard1") for p in (root / "shard1" / "predictions").rglob("*")}
    second = {p.relative_to(root / "shard2") for p in (root / "shard2" / "predictions").rglob("*")}
    assert not {p for p in first & second if p.suffix == ".json"}


def test_the_collected_output_can_be_collected_again(runs, tmp_path):
    root, _ = runs
    collect_leaderboard(
        [root / "collected"],
        settings=LeaderboardSettings(output=tmp_path / "again", figures=False, progress=False),
    )
    assert (tmp_path / "again" / "leaderboard.json").read_bytes() == (
        root / "serial" / "leaderboard.json"
    ).read_bytes()


def test_a_missing_cell_is_named(runs, tmp_path):
    root, _ = runs
    code, _, err = _cli(
        "collect", str(root / "shard1"), "--output", str(tmp_path / "out"), "--no-progress"
    )
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "4 of 8 cells are in none of the directories" in err
    plan = json.loads((root / "shard1" / "cells" / "plan.json").read_text(encoding="utf-8"))
    second_half = [f"{model} on {task}" for model in plan["models"][2:] for task in plan["tasks"]]
    assert all(cell in err for cell in second_half)
    assert not (tmp_path / "out" / "leaderboard.json").exists()


def test_allow_missing_reports_missing_cells_as_not_evaluated(runs, tmp_path):
    root, _ = runs
    result = collect_leaderboard(
        [root / "shard1"],
        settings=LeaderboardSettings(output=tmp_path, figures=False, progress=False),
        allow_missing=True,
    )
    failed = {(row.model, row.task) for row in result.stats if not row.ok}
    assert len(failed) == 4
    assert all(
        isinstance(row, ModelTaskFailure) and row.error == "not evaluated"
        for row in result.stats
        if not row.ok
    )


def test_shards_of_different_settings_are_refused(
    env, runs, tiny_model_dir, vectors_file, tmp_path
):
    root, _ = runs
    other = tmp_path / "shard2-seed7"
    options = list(_options(tiny_model_dir, vectors_file, other, "--shard", "2/2"))
    options[options.index("--seed") + 1] = "7"
    assert _cli(*options)[0] == 0
    code, _, err = _cli(
        "collect", str(root / "shard1"), str(other), "--output", str(tmp_path / "o")
    )
    assert code == 2 and "--seed: 3 vs 7" in err and "different runs" in err


def test_shards_of_different_task_data_are_refused(runs, tmp_path):
    root, _ = runs
    shard = shutil.copytree(root / "shard2", tmp_path / "shard2")
    record = shard / "cells" / "tasks" / "DSCS.json"
    data = json.loads(record.read_text(encoding="utf-8"))
    data["key"] = "0" * 20  # what another revision of the data gives
    record.write_text(json.dumps(data), encoding="utf-8")
    _rewrite_manifest_entry(shard, "cells/tasks/DSCS.json")
    for cell in (shard / "cells").glob("*/DSCS.json"):  # its cells record the same key
        if cell.parent.name != "tasks":
            data = json.loads(cell.read_text(encoding="utf-8"))
            data["identity"]["task"]["key"] = "0" * 20
            cell.write_text(json.dumps(data), encoding="utf-8")
            _rewrite_manifest_entry(shard, cell.relative_to(shard).as_posix())
    with pytest.raises(UserInputError, match="different data of task DSCS"):
        collect_leaderboard(
            [root / "shard1", shard],
            settings=LeaderboardSettings(output=tmp_path / "o", figures=False),
        )


def test_a_changed_prediction_file_is_refused(runs, tmp_path):
    root, _ = runs
    shard = shutil.copytree(root / "shard2", tmp_path / "shard2")
    file = next((shard / "predictions").rglob("*_predictions.json"))
    _change_first_score(file)
    code, _, err = _cli(
        "collect", str(root / "shard1"), str(shard), "--output", str(tmp_path / "o")
    )
    assert code == 2 and "was changed after it was written" in err and file.name in err


def test_a_cell_found_twice_with_other_scores_is_refused(runs, tmp_path):
    root, _ = runs
    twin = shutil.copytree(root / "shard1", tmp_path / "twin")
    file = next((twin / "predictions").rglob("*_predictions.json"))
    _change_first_score(file)
    _rewrite_manifest_entry(twin, file.relative_to(twin).as_posix())
    _agree_with_the_scores(twin, file)  # else refused as a cell that disagrees with itself
    with pytest.raises(UserInputError, match="with different results"):
        collect_leaderboard(
            [root / "shard1", twin, root / "shard2"],
            settings=LeaderboardSettings(output=tmp_path / "o", figures=False),
        )


def _change_first_score(file):
    """Change the first per-pair score a prediction file holds (the one the report reads)."""
    data = json.loads(file.read_text(encoding="utf-8"))
    scores = data["default"]["test"]
    key = "similarity_scores" if scores.get("similarity_scores") else "cosine_scores"
    scores[key][0] = 0.123
    file.write_text(json.dumps(data), encoding="utf-8")


def _agree_with_the_scores(folder, file):
    """Make the cell record and MTEB's result file of the cell whose scores ``file`` holds say
    the r of those scores (6 decimals in the result file, as MTEB writes), as a whole run on
    other scores would have."""
    data = json.loads(file.read_text(encoding="utf-8"))["default"]["test"]
    scores = data.get("similarity_scores") or data["cosine_scores"]
    name = file.name.removesuffix("_predictions.json")
    task = json.loads((folder / f"cells/tasks/{name}.json").read_text(encoding="utf-8"))
    r = float(pearsonr(scores, task["units"][0]["gold"]).statistic)
    listed = file.relative_to(folder).as_posix()
    for cell in (folder / "cells").glob(f"*/{name}.json"):
        record = json.loads(cell.read_text(encoding="utf-8"))
        if listed in record.get("files", []):  # (not the task record)
            record["pearson"]["default/test"] = r
            cell.write_text(json.dumps(record), encoding="utf-8")
            _rewrite_manifest_entry(folder, cell.relative_to(folder).as_posix())
            result = next(f for f in record["files"] if f.endswith(f"/{name}.json"))
            found = json.loads((folder / result).read_text(encoding="utf-8"))
            found["scores"]["test"][0]["pearson"] = round(r, 6)
            (folder / result).write_text(json.dumps(found), encoding="utf-8")
            _rewrite_manifest_entry(folder, result)


def _rewrite_manifest_entry(folder, name):
    """As if another run had written the file: its manifest entry matches its new bytes."""
    manifest = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    path = folder / name
    manifest["files"][name] = [path.stat().st_size, file_digest(path)]
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest), encoding="utf-8")


def test_collect_of_a_plain_mteb_prediction_folder(env, tiny_model_dir, tmp_path):
    import mteb
    from sentence_transformers import SentenceTransformer

    from sts_extras.integrations.mteb.tasks import register

    register()
    task = mteb.get_task("DSCS")
    predictions, results = tmp_path / "predictions", tmp_path / "results"
    mteb.evaluate(
        SentenceTransformer(str(tiny_model_dir), device="cpu"),
        [task],
        prediction_folder=predictions,
        cache=mteb.ResultCache(results),
        co2_tracker=False,
        show_progress_bar=False,
    )
    code, out, err = _cli(
        "collect",
        str(predictions),
        str(results),
        "--output",
        str(tmp_path / "report"),
        "--n-resamples",
        str(N_RESAMPLES),
        "--no-figures",
        "--no-progress",
    )
    assert code == 0, err
    report = json.loads((tmp_path / "report" / "leaderboard.json").read_text(encoding="utf-8"))
    (row,) = report["results"]
    stored = json.loads(next(predictions.glob("DSCS_predictions.json")).read_text("utf-8"))
    scores = stored["default"]["test"]
    own = scores.get("similarity_scores") or scores["cosine_scores"]
    gold = [float(r["score"]) for r in read_rows("dscs")]
    assert row["task"] == "DSCS" and row["pearson"] == pytest.approx(pearsonr(gold, own)[0])
    assert row["mteb_pearson"] == pytest.approx(row["pearson"], abs=1e-6)  # MTEB rounds to 6
    assert report["models"][0]["kind"] == "mteb-predictions"
    assert "DSCS" in out


def test_collect_refuses_folders_without_cells_and_mixed_kinds(runs, tmp_path):
    root, _ = runs
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = _cli("collect", str(empty), "--output", str(tmp_path / "o"))
    assert code == 2 and "neither an sts-extras output" in err
    code, _, err = _cli("collect", str(tmp_path / "nowhere"), "--output", str(tmp_path / "o"))
    assert code == 2 and "is not a directory" in err
    plain = tmp_path / "plain"
    shutil.copytree(root / "shard1" / "predictions", plain)
    code, _, err = _cli(
        "collect", str(root / "shard1"), str(plain), "--output", str(tmp_path / "o")
    )
    assert code == 2 and "not both at once" in err
    code, _, err = _cli("collect", str(root / "shard1"), "--output", str(root / "shard1"))
    assert code == 2 and "is one of the collected directories" in err
    code, _, err = _cli(
        "collect",
        str(root / "shard1"),
        str(root / "shard2"),
        "--seed",
        "4",
        "--output",
        str(tmp_path / "o"),
    )
    assert code == 2 and "planned with --seed 3" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (("--shard", "3/2"), "K must be between 1 and N"),
        (("--shard", "two"), "expected K/N"),
        (("--workers", "0"), "workers"),
        (("--workers", "100000"), "at most"),  # a local cluster: no more workers than CPUs
        (("--workers", "2", "--dask-scheduler", "tcp://127.0.0.1:1"), "not both"),
        (("--gpu-per-cell",), "needs Dask"),
    ],
)
def test_cluster_options_are_checked_before_any_work(argv, message, tmp_path):
    code, _, err = _cli("--output", str(tmp_path / "out"), "--no-progress", *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "cells").exists()


@pytest.mark.parametrize("count", [1, 2, 3, 7, 8, 9, 50])
def test_shards_cover_every_cell_exactly_once(count):
    cells = [(model, task) for model in range(7) for task in range(5)]
    shards = [shard_cells(cells, index, count) for index in range(1, count + 1)]
    assert [cell for shard in shards for cell in shard] == cells  # in order, each once
    sizes = [len(shard) for shard in shards]
    assert max(sizes) - min(sizes) <= 1
    assert parse_shard(f"{count}/{count}") == (count, count)


def test_a_model_that_cannot_be_sent_to_the_workers_is_a_named_error():
    from types import SimpleNamespace

    from sts_extras.leaderboard.run.distributed import CellJob, run_dask
    from sts_extras.leaderboard.run.resolve import ModelEntry

    class Client:
        def scatter(self, value, hash):
            raise TypeError("cannot pickle '_thread.lock' object")

    task = SimpleNamespace(metadata=SimpleNamespace(name="DSCS"))
    job = CellJob(ModelEntry("mine", "mteb-model", "object", lambda: None), task, "key")
    with pytest.raises(UserInputError, match="model 'mine' cannot be sent to the Dask workers"):
        list(run_dask([job], Client(), cache_dir=None, progress=False))  # type: ignore[arg-type]  # a stand-in


def test_plain_predictions_without_mteb_results_warn_that_the_revision_is_unchecked(runs, tmp_path):
    root, _ = runs
    plain = shutil.copytree(root / "shard1" / "predictions", tmp_path / "plain")
    with pytest.warns(UserWarning, match="revision of the data they were evaluated on"):
        collect_leaderboard(
            [plain],
            settings=LeaderboardSettings(
                output=tmp_path / "o", figures=False, progress=False, n_resamples=200
            ),
        )


def test_a_running_scheduler_given_by_address_gives_the_same_leaderboard(
    runs, tiny_model_dir, vectors_file, tmp_path
):
    from dask.distributed import LocalCluster

    root, _ = runs
    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        code, _, err = _cli(
            *_options(tiny_model_dir, vectors_file, tmp_path / "out", "--dask-scheduler", address)
        )
    assert code == 0, err
    assert (tmp_path / "out" / "leaderboard.json").read_bytes() == (
        root / "serial" / "leaderboard.json"
    ).read_bytes()


def test_a_scheduler_that_does_not_answer_is_a_named_error(monkeypatch):
    from sts_extras.leaderboard.run import distributed

    monkeypatch.setattr(distributed, "CONNECT_TIMEOUT", 1)
    with (
        pytest.raises(UserInputError, match="no scheduler answered within 1 s"),
        distributed.connect(scheduler="tcp://127.0.0.1:9"),
    ):
        pass
