"""The settings of a leaderboard run as one object: ``LeaderboardSettings`` is frozen and checked
field by field, goes to JSON and back, is what the command line builds and what
``run_leaderboard``/``run_shard``/``collect_leaderboard`` take; its record (the settings that
change the numbers) is what every cell, the plan and ``leaderboard.json`` hold, and ``collect``
refuses cells whose records differ. The keyword arguments of before still work, with a warning."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sts_extras.cli.dispatch import build_parser
from sts_extras.cli.leaderboard_run import settings_from_args
from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.io.records import RecordError, parse_record
from sts_extras.leaderboard import (
    LeaderboardSettings,
    RunSettings,
    collect_leaderboard,
    run_leaderboard,
    run_shard,
)
from sts_extras.leaderboard.run import pipeline
from sts_extras.leaderboard.settings import MIN_RESAMPLES, RUN_SETTINGS
from sts_extras.limits import MAX_BINS, MAX_RESAMPLES, max_local_workers
from sts_extras.stats.dependent import DEPENDENT_METHODS
from sts_extras.stats.intervals import DIFFERENCE_METHODS
from sts_extras.stats.model_comparison import COMPARISON_METHODS
from sts_extras.stats.multiple import ADJUST_METHODS

N_RESAMPLES = 200


# --------------------------------------------------------------------------------------------
# one frozen, checked object
# --------------------------------------------------------------------------------------------
def test_the_defaults_are_those_of_a_run():
    settings = LeaderboardSettings()
    assert settings.output == Path("leaderboard")
    assert (settings.seed, settings.n_resamples, settings.bins) == (0, 10000, 3)
    assert (settings.method, settings.adjust) == ("auto", "holm")
    assert settings.figure_formats == ("pdf", "png")
    assert settings.figures and settings.progress and not settings.uses_dask


def test_settings_are_frozen_hashable_and_compared_by_value():
    settings = LeaderboardSettings(seed=3, output="board")
    with pytest.raises(ValueError, match="frozen"):
        settings.seed = 4  # type: ignore[misc]  # deliberately: the field is frozen
    assert settings.seed == 3
    assert settings == LeaderboardSettings(output=Path("board"), seed=3)
    assert len({settings, LeaderboardSettings(seed=3, output="board")}) == 1


def test_values_are_normalised_once():
    # str and list values, normalised by the validators (the constructor's types say so)
    settings = LeaderboardSettings(
        output="out",
        figure_formats="SVG, png",
        score_range=[0, 5],
        cache_dir="c",
    )
    assert settings.output == Path("out") and settings.cache_dir == Path("c")
    assert settings.figure_formats == ("svg", "png")
    assert settings.score_range == (0.0, 5.0)


@pytest.mark.parametrize(
    ("values", "error", "message"),
    [
        ({"seed": -1}, UserInputError, r"`seed` must be at least 0, got -1"),
        ({"seed": True}, UserInputTypeError, r"`seed` must be an integer"),
        ({"seed": 1.0}, UserInputTypeError, r"`seed` must be an integer"),
        ({"n_resamples": MIN_RESAMPLES - 1}, UserInputError, r"`n_resamples` 99 is below"),
        ({"n_resamples": MAX_RESAMPLES + 1}, UserInputError, r"`n_resamples` \d+ is above"),
        ({"n_resamples": "1000"}, UserInputTypeError, r"`n_resamples` must be an integer"),
        ({"bins": 0}, UserInputError, r"`bins` must be at least 1, got 0"),
        ({"bins": MAX_BINS + 1}, UserInputError, r"`bins` must be at most 1000000"),
        (
            {"method": "meng"},
            UserInputError,
            r"`method` must be one of 'auto', 'twopov', 'adjusted-percentile'",
        ),
        ({"adjust": "holmes"}, UserInputError, r"`adjust` must be one of 'holm'"),
        ({"round_scores": 1}, UserInputTypeError, r"`round_scores` must be True or False"),
        ({"sif": "yes"}, UserInputTypeError, r"`sif` must be True or False"),
        ({"figures": None}, UserInputTypeError, r"`figures` must be True or False"),
        ({"score_range": (5, 0)}, UserInputError, r"`score_range`: the low end 5"),
        ({"score_range": (0, 1, 2)}, UserInputError, r"`score_range` must be two numbers"),
        ({"score_range": ("0", "5")}, UserInputTypeError, r"`score_range` must hold real"),
        ({"score_range": (0, float("inf"))}, UserInputError, r"`score_range` must be finite"),
        ({"figure_formats": "gif"}, UserInputError, r"`figure_formats`: unknown figure format"),
        ({"figure_formats": 3}, UserInputTypeError, r"`figure_formats` must be a comma"),
        ({"output": ""}, UserInputError, r"`output` is empty"),
        ({"output": 3}, UserInputTypeError, r"`output` must be a path"),
        ({"cache_dir": " "}, UserInputError, r"`cache_dir` is empty"),
        ({"workers": 0}, UserInputError, r"`workers` must be at least 1"),
        ({"workers": max_local_workers() + 1}, UserInputError, r"`workers` must be at most"),
        ({"dask_scheduler": ""}, UserInputError, r"`dask_scheduler` must be a scheduler"),
        ({"workers": 1, "dask_scheduler": "tcp://h:1"}, UserInputError, r"not both"),
        ({"gpu_per_cell": True}, UserInputError, r"`gpu_per_cell` needs Dask"),
        ({"test": "meng1992"}, UserInputTypeError, r"no field 'test'\.$"),
        ({"n_resample": 1000}, UserInputTypeError, r"no field 'n_resample'.*`n_resamples`"),
    ],
)
def test_each_bad_field_is_refused_naming_it(values, error, message):
    with pytest.raises(error, match=message):
        LeaderboardSettings(**values)


def test_type_errors_are_type_errors_and_value_errors_are_value_errors():
    with pytest.raises(TypeError):
        LeaderboardSettings(bins="3")  # type: ignore[arg-type]  # deliberately wrong type
    with pytest.raises(ValueError):
        LeaderboardSettings(bins=0)


@given(st.integers(min_value=-(10**13), max_value=10**13))
def test_n_resamples_is_taken_within_its_bounds_only(value):
    if MIN_RESAMPLES <= value <= MAX_RESAMPLES:
        assert LeaderboardSettings(n_resamples=value).n_resamples == value
    else:
        with pytest.raises(UserInputError, match="n_resamples"):
            LeaderboardSettings(n_resamples=value)


@given(st.integers(min_value=-(10**9), max_value=10**9))
def test_bins_is_taken_within_its_bounds_only(value):
    if 1 <= value <= MAX_BINS:
        assert LeaderboardSettings(bins=value).bins == value
    else:
        with pytest.raises(UserInputError, match="`bins`"):
            LeaderboardSettings(bins=value)


@given(st.integers(min_value=-100, max_value=100_000))
def test_workers_is_taken_within_the_cpus_of_this_machine_only(value):
    if 1 <= value <= max_local_workers():
        assert LeaderboardSettings(workers=value).workers == value
    else:
        with pytest.raises(UserInputError, match="`workers`"):
            LeaderboardSettings(workers=value)


@given(st.integers(min_value=-(10**20), max_value=10**20))
def test_seed_is_any_non_negative_integer(value):
    if value >= 0:
        assert LeaderboardSettings(seed=value).seed == value
    else:
        with pytest.raises(UserInputError, match="`seed`"):
            LeaderboardSettings(seed=value)


def test_replace_checks_again_and_keeps_the_given_fields():
    settings = LeaderboardSettings(seed=3)
    assert settings.replace(bins=4) == LeaderboardSettings(seed=3, bins=4)
    assert settings.replace(bins=4).model_fields_set == {"seed", "bins"}
    with pytest.raises(UserInputError, match="`bins` must be at least 1"):
        settings.replace(bins=0)


# --------------------------------------------------------------------------------------------
# to JSON and back
# --------------------------------------------------------------------------------------------
_SETTINGS = st.builds(
    LeaderboardSettings,
    output=st.sampled_from(["leaderboard", "out/board", "~/runs/a b"]),
    seed=st.integers(min_value=0, max_value=2**63),
    n_resamples=st.integers(min_value=MIN_RESAMPLES, max_value=MAX_RESAMPLES),
    bins=st.integers(min_value=1, max_value=MAX_BINS),
    method=st.sampled_from(COMPARISON_METHODS),
    adjust=st.sampled_from(ADJUST_METHODS),
    round_scores=st.booleans(),
    score_range=st.none()
    | st.tuples(
        st.floats(min_value=-1e6, max_value=0, allow_nan=False),
        st.floats(min_value=0.5, max_value=1e6, allow_nan=False),
    ),
    sif=st.booleans(),
    figures=st.booleans(),
    figure_formats=st.lists(st.sampled_from(["pdf", "png", "svg"]), min_size=1, unique=True),
    progress=st.booleans(),
    cache_dir=st.none() | st.just("cache"),
    trust_remote_code=st.booleans(),
    trust_pickle=st.booleans(),
)


@given(_SETTINGS)
def test_settings_go_to_json_and_back_unchanged(settings):
    text = json.dumps(settings.as_dict())
    assert LeaderboardSettings.from_dict(json.loads(text)) == settings


@given(_SETTINGS)
def test_the_record_holds_the_settings_that_change_the_numbers_and_parses_back(settings):
    record = settings.to_record()
    assert tuple(type(record).model_fields) == RUN_SETTINGS
    assert {name: getattr(record, name) for name in RUN_SETTINGS} == {
        name: getattr(settings, name) for name in RUN_SETTINGS
    }
    parsed = parse_record(RunSettings, record.model_dump(mode="json"), "a record")
    assert parsed == record


def test_from_dict_checks_like_the_constructor():
    data = LeaderboardSettings().as_dict()
    with pytest.raises(UserInputError, match="`bins` must be at least 1"):
        LeaderboardSettings.from_dict({**data, "bins": 0})
    with pytest.raises(UserInputTypeError, match="`round_scores` must be True or False"):
        LeaderboardSettings.from_dict({**data, "round_scores": "false"})
    with pytest.raises(UserInputTypeError, match="needs a mapping"):
        LeaderboardSettings.from_dict([("seed", 1)])  # type: ignore[arg-type]  # deliberately wrong type


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"n_resamples": 10**12}, "n_resamples"),  # a plan cannot ask collect for 10^12
        ({"n_resamples": True}, "n_resamples"),
        ({"method": "nope"}, "method"),
        ({"adjust": "nope"}, "adjust"),
        ({"bins": 0}, "bins"),
        ({"seed": -1}, "seed"),
        ({"score_range": [5, 0]}, "score_range"),
        ({"test": "meng1992"}, "test"),  # the name of format 2 is not read as format 3's
    ],
)
def test_a_record_from_outside_is_checked_by_the_same_rules(change, message):
    data = {**LeaderboardSettings().to_record().model_dump(mode="json"), **change}
    with pytest.raises(RecordError, match=message):
        parse_record(RunSettings, data, "the settings of a plan")


@pytest.mark.parametrize("method", COMPARISON_METHODS)
def test_every_method_of_the_pair_decisions_is_a_setting_and_a_record(method):
    settings = LeaderboardSettings(method=method, adjust="bonferroni")
    record = settings.to_record().model_dump(mode="json")
    assert (record["method"], record["adjust"]) == (method, "bonferroni")
    assert parse_record(RunSettings, record, "a plan's settings") == settings.to_record()


def test_a_plan_of_before_the_calibrated_default_still_parses():
    """Format-3 records written before ``method="auto"`` name a dependent test (the default was
    meng1992); they parse unchanged, so old outputs can still be collected."""
    old = {
        "seed": 0,
        "n_resamples": 10000,
        "bins": 3,
        "method": "meng1992",
        "adjust": "holm",
        "round_scores": False,
        "score_range": None,
    }
    assert parse_record(RunSettings, old, "an old plan").method == "meng1992"


def test_the_command_lines_copy_of_the_methods_is_the_statistics_own():
    """``--method`` lists the methods without importing numpy (``sts_extras.cli.choices``)."""
    from sts_extras.cli import choices

    assert choices.INTERVAL_METHODS == DIFFERENCE_METHODS
    assert choices.COMPARISON_METHODS == COMPARISON_METHODS
    assert set(DEPENDENT_METHODS) < set(COMPARISON_METHODS)


# --------------------------------------------------------------------------------------------
# the command line builds the same object
# --------------------------------------------------------------------------------------------
def _parsed(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["leaderboard", *argv])


def test_the_command_line_builds_the_settings_of_the_python_call():
    args = _parsed(
        "--output", "board", "--seed", "3", "--n-resamples", "2000", "--bins", "4",
        "--method", "williams1959", "--adjust", "bonferroni", "--round-scores",
        "--score-range", "0", "5", "--sif", "--no-figures", "--figure-format", "svg",
        "--no-progress", "--trust-remote-code", "--trust-pickle", "--workers", "1",
        "--gpu-per-cell",
    )  # fmt: skip
    assert settings_from_args(args) == LeaderboardSettings(
        output="board",
        seed=3,
        n_resamples=2000,
        bins=4,
        method="williams1959",
        adjust="bonferroni",
        round_scores=True,
        score_range=(0, 5),
        sif=True,
        figures=False,
        figure_formats=("svg",),
        progress=False,
        trust_remote_code=True,
        trust_pickle=True,
        workers=1,
        gpu_per_cell=True,
    )
    assert settings_from_args(_parsed()) == LeaderboardSettings()


def test_collect_options_set_only_what_was_given():
    args = _parsed("collect", "a", "b", "--seed", "4", "--output", "o", "--no-figures")
    settings = settings_from_args(args)
    assert settings == LeaderboardSettings(output="o", seed=4, figures=False)
    assert {"seed", "output"} <= settings.model_fields_set
    assert not {"n_resamples", "bins", "method", "adjust", "round_scores"} & (
        settings.model_fields_set
    )


def test_the_command_line_names_the_options_it_checks_first():
    with pytest.raises(UserInputError, match="--n-resamples 1 is below the minimum"):
        settings_from_args(_parsed("--n-resamples", "1"))
    with pytest.raises(UserInputError, match="--figure-format: unknown figure format"):
        settings_from_args(_parsed("--figure-format", "gif"))


# --------------------------------------------------------------------------------------------
# one shape of the settings: a LeaderboardSettings, nothing else
# --------------------------------------------------------------------------------------------
class _Stop(Exception):
    pass


@pytest.fixture
def prepared(monkeypatch):
    """The settings ``run_leaderboard``/``run_shard`` hand to the run, without running it."""
    seen = []

    def stop(models, vectors, tasks, baseline, settings):
        seen.append(settings)
        raise _Stop

    monkeypatch.setattr(pipeline, "_prepare", stop)
    return seen


@pytest.mark.parametrize("entry", ["run_leaderboard", "run_shard"])
def test_the_settings_reach_the_run_unchanged(entry, prepared):
    call = run_leaderboard if entry == "run_leaderboard" else lambda **kw: run_shard("1/2", **kw)
    new = LeaderboardSettings(output="o", seed=3, method="williams1959", figure_formats="svg")
    with pytest.raises(_Stop):
        call(vectors=["v.txt"], settings=new)
    with pytest.raises(_Stop):
        call(vectors=["v.txt"])
    assert prepared[0] is new and prepared[1] == LeaderboardSettings()


def test_settings_as_keywords_or_of_another_type_are_refused(prepared):
    with pytest.raises(TypeError, match="unexpected keyword argument 'seed'"):
        run_leaderboard(seed=3)  # type: ignore[call-arg]  # deliberately wrong
    with pytest.raises(TypeError, match="`settings` must be a LeaderboardSettings"):
        run_leaderboard(settings={"seed": 3})  # type: ignore[arg-type]  # deliberately wrong type
    with pytest.raises(TypeError, match="unexpected keyword argument 'output'"):
        collect_leaderboard(["x"], output="o")  # type: ignore[call-arg]  # deliberately wrong
    with pytest.raises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
        _parsed("--test", "williams1959")  # --method only
    assert prepared == []


# --------------------------------------------------------------------------------------------
# runs: cells, plan and leaderboard.json hold the record; collect compares records
# --------------------------------------------------------------------------------------------
def _settings(output: Path, **values) -> LeaderboardSettings:
    return LeaderboardSettings(
        output=output, n_resamples=N_RESAMPLES, figures=False, progress=False, **values
    )


@pytest.fixture(scope="module")
def board(env, vectors_file, tmp_path_factory):
    """A whole run, and its two shards (seed 5, Williams's test), of the three static models on
    DSCS."""
    root = tmp_path_factory.mktemp("settings")
    settings = _settings(root / "whole", seed=5, method="williams1959")
    run_leaderboard(vectors=[str(vectors_file)], tasks=["DSCS"], settings=settings)
    for index in (1, 2):
        run_shard(
            f"{index}/2",
            vectors=[str(vectors_file)],
            tasks=["DSCS"],
            settings=settings.replace(output=root / f"shard{index}"),
        )
    return root, settings


def _json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_cells_plan_and_leaderboard_json_hold_the_settings_record(board):
    root, settings = board
    record = settings.to_record().model_dump(mode="json")
    assert record["method"] == "williams1959" and record["seed"] == 5
    plan = _json(root / "whole" / "cells" / "plan.json")
    assert plan["settings"] == record
    cells = [p for p in (root / "whole" / "cells").glob("*/DSCS.json") if p.parent.name != "tasks"]
    assert len(cells) == 3
    for cell in cells:
        assert _json(cell)["identity"]["settings"] == record
    reported = _json(root / "whole" / "leaderboard.json")["settings"]
    assert {name: reported[name] for name in RUN_SETTINGS} == record
    assert list(reported)[: len(RUN_SETTINGS)] == list(RUN_SETTINGS)  # the record comes first
    # the statistics as scored stay beside it, with the same values: the record names the method
    # and the adjustment once (no second name of the test), and each task the method it used
    assert (reported["method"], reported["adjust"]) == ("williams1959", "holm")
    assert not {"dependent_test", "multiple_comparisons", "bootstrap"} & set(reported)
    assert reported["baseline"] and reported["confidence_level"] == 0.95
    tasks = _json(root / "whole" / "leaderboard.json")["tasks"]
    assert [(task["method"], task["adjust"]) for task in tasks] == [("williams1959", "holm")]
    assert parse_record(RunSettings, {n: reported[n] for n in RUN_SETTINGS}, "json") == (
        settings.to_record()
    )


def test_collect_takes_the_plans_settings_unless_one_is_set(board, tmp_path):
    root, _ = board
    shards = [root / "shard1", root / "shard2"]
    collect_leaderboard(shards, settings=_settings(tmp_path / "a"))  # seed and method not set
    whole = (root / "whole" / "leaderboard.json").read_bytes()
    assert (tmp_path / "a" / "leaderboard.json").read_bytes() == whole
    collect_leaderboard(shards, settings=_settings(tmp_path / "b", seed=5))  # set, and equal
    assert (tmp_path / "b" / "leaderboard.json").read_bytes() == whole
    with pytest.raises(UserInputError, match=r"--method 'meng1992': the cells were planned"):
        collect_leaderboard(shards, settings=_settings(tmp_path / "c", method="meng1992"))
    assert not (tmp_path / "c" / "leaderboard.json").exists()


def test_cells_with_other_settings_are_not_merged(board, vectors_file, tmp_path):
    root, settings = board
    other = settings.replace(output=tmp_path / "shard2-bins4", bins=4)
    run_shard("2/2", vectors=[str(vectors_file)], tasks=["DSCS"], settings=other)
    with pytest.raises(UserInputError, match=r"different runs, --bins: 3 vs 4"):
        collect_leaderboard(
            [root / "shard1", tmp_path / "shard2-bins4"], settings=_settings(tmp_path / "o")
        )
    # nor into one output: a shard of other settings is refused before any model runs
    with pytest.raises(UserInputError, match=r"another plan \(--bins: 3 there, 4 here\)"):
        run_shard(
            "2/2",
            vectors=[str(vectors_file)],
            tasks=["DSCS"],
            settings=other.replace(output=root / "shard1"),
        )


def test_the_settings_a_run_takes_are_the_ones_it_writes(board):
    """leaderboard.json of the run = the record of ``settings``: the report follows the object,
    not defaults."""
    root, settings = board
    data = _json(root / "whole" / "leaderboard.json")
    assert data["settings"]["n_resamples"] == N_RESAMPLES == settings.n_resamples
    assert not os.path.exists(root / "whole" / "forest.png")  # figures=False was followed


def test_the_typed_constructor_lists_exactly_the_fields():
    """settings.py spells out the constructor's input types for type checkers (under
    TYPE_CHECKING); a field added or removed without it would go unchecked."""
    import ast
    import inspect

    import sts_extras.leaderboard.settings as module

    tree = ast.parse(inspect.getsource(module))
    settings_class = next(
        node
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.name == "LeaderboardSettings"
    )
    typed_inits = [
        node
        for branch in settings_class.body
        if isinstance(branch, ast.If)
        for node in branch.body
        if isinstance(node, ast.FunctionDef) and node.name == "__init__"
    ]
    assert len(typed_inits) == 1
    keywords = [argument.arg for argument in typed_inits[0].args.kwonlyargs]
    assert keywords == list(LeaderboardSettings.model_fields)
