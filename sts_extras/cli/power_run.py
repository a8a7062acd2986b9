"""``sts-extras power``: power, sample size and minimal detectable Δr of a dependent test.

Three questions, told apart by which of ``--n`` and ``--target-power`` are given:

* ``--n`` only: the power at n (prints ``"power"``);
* ``--target-power`` only: the smallest n reaching it (prints ``"n"``);
* both: the minimal detectable Δr = r1 - r2 at n (prints ``"min_detectable_delta"``; r2 is not
  needed).

The correlations come from ``--r1 --r2 --r12`` or from a leaderboard JSON
(``--leaderboard FILE --task T --model1 A [--model2 B]``: the two models' Pearson r on the task,
the Pearson r between their scores and, unless ``--target-power`` is given alone, the task's n);
explicit values win. ``--simulate`` adds a seeded Monte-Carlo check of the power.
The options are defined in :mod:`sts_extras.cli.power`, which imports nothing heavy and imports
this module when the command starts (never the other way round); nothing heavy is imported here
until :func:`run`.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from sts_extras.errors import UserFileNotFoundError, UserInputError
from sts_extras.io.numbers import json_count, json_number
from sts_extras.io.text import read_json

__all__ = ["run"]


def _from_leaderboard(args: argparse.Namespace) -> dict[str, Any]:
    """r1, r2, r12 and n of two models on one task of a leaderboard JSON.

    Every field read is checked for its JSON type (a name is a string, a score a finite number,
    n a whole number) and named with the file, so a hand-edited or hostile file gives one line,
    never a ``TypeError``.
    """
    import numpy as np

    from sts_extras._validation import MAX_SAMPLE_SIZE

    path: Path = args.leaderboard
    if path.is_dir():
        raise UserInputError(
            f"--leaderboard {str(path)!r} is a directory; give its leaderboard.json."
        )
    if not path.is_file():
        raise UserFileNotFoundError(f"--leaderboard: no such file: {path}")
    data = read_json(path, "--leaderboard")
    results = data.get("results") if isinstance(data, dict) else None
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(results, list) or not isinstance(tasks, list):
        results = tasks = None  # refused just below
    if results is None or tasks is None or not _list_of_objects(results + tasks):
        raise UserInputError(
            f"--leaderboard: {path} is not a leaderboard JSON (its 'results' and 'tasks' must "
            "be lists of objects); give a leaderboard.json written by `sts-extras leaderboard`."
        )
    if not args.task or not args.model1:
        raise UserInputError("--leaderboard needs --task and --model1.")
    settings = data.get("settings")
    if settings is not None and not isinstance(settings, dict):
        raise UserInputError(
            f"--leaderboard {path}: `settings` must be an object, got {type(settings).__name__}."
        )
    model2 = args.model2
    if not model2 and isinstance(settings, dict) and settings.get("baseline") is not None:
        model2 = _text(settings["baseline"], f"--leaderboard {path}: settings: `baseline`")
    if not model2:
        raise UserInputError("--leaderboard: give --model2 (the file names no baseline).")
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    first: dict[tuple[str, str], int] = {}
    for index, row in enumerate(results):
        where = f"--leaderboard {path}: results[{index}]"
        key = (
            _text(row.get("task"), f"{where}: `task`"),
            _text(row.get("model"), f"{where}: `model`"),
        )
        if key in first:
            raise UserInputError(
                f"{where} repeats model {key[1]!r} on task {key[0]!r} of results[{first[key]}]; "
                "a leaderboard holds one row per model and task."
            )
        first[key], rows[key] = index, row
    pearson, scores = [], []
    for model in (args.model1, model2):
        row = rows.get((args.task, model))
        if row is None or row.get("pearson") is None or not row.get("scores"):
            raise UserInputError(
                f"--leaderboard: no scores of model {model!r} on task {args.task!r}."
            )
        where = f"--leaderboard {path}: model {model!r} on task {args.task!r}:"
        r = json_number(row["pearson"], f"{where} `pearson`")
        if not -1.0 < r < 1.0:
            raise UserInputError(
                f"{where} `pearson` must lie strictly between -1 and 1 (the tests are undefined "
                f"at |r| = 1), got {r}."
            )
        pearson.append(r)
        values = row["scores"]
        if not isinstance(values, list):
            raise UserInputError(f"{where} `scores` is not a list of numbers.")
        column = np.array(
            [json_number(value, f"{where} `scores`[{i}]") for i, value in enumerate(values)]
        )
        if column.size < 2 or np.all(column == column[0]):
            raise UserInputError(
                f"{where} `scores` are constant ({column.size} equal values): their correlation "
                "with the other model's, r12, is undefined."
            )
        scores.append(column)
    if scores[0].shape != scores[1].shape:
        raise UserInputError(
            f"--leaderboard {path}: the scores of {args.model1!r} and {model2!r} on task "
            f"{args.task!r} differ in length."
        )
    n = None
    for index, task in enumerate(tasks):
        name = _text(task.get("name"), f"--leaderboard {path}: tasks[{index}]: `name`")
        if name == args.task and task.get("n") is not None:
            n = json_count(
                task["n"],
                f"--leaderboard {path}: the n of task {args.task!r}",
                low=1,
                high=MAX_SAMPLE_SIZE,
            )
            break
    r12 = float(np.corrcoef(scores[0], scores[1])[0, 1])
    if not -1.0 < r12 < 1.0:
        raise UserInputError(
            f"--leaderboard {path}: the scores of {args.model1!r} and {model2!r} on task "
            f"{args.task!r} correlate perfectly (r12 = {r12:g}); a test comparing the two is "
            "undefined."
        )
    return {"r1": pearson[0], "r2": pearson[1], "r12": r12, "n": n}


def _text(value: object, what: str) -> str:
    """A name field of the leaderboard JSON: a string, else one line naming the field."""
    if not isinstance(value, str):
        shown = type(value).__name__ if isinstance(value, (list, dict)) else repr(value)
        raise UserInputError(f"{what}: expected a name (a string), got {shown}.")
    return value


def _list_of_objects(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


def _format_text(output: dict[str, Any]) -> str:
    def show(value: object) -> str:
        if isinstance(value, float):
            return "NaN" if math.isnan(value) else f"{value:.6g}"
        return str(value)

    return "\n".join(f"{key}: {show(value)}" for key, value in output.items())


#: ``--simulations`` when --simulate is given alone.
_DEFAULT_SIMULATIONS = 10000


def _check_counts(args: argparse.Namespace) -> None:
    """``--simulations`` (and ``--simulations`` x ``--n``) within the ceilings of
    :mod:`sts_extras.limits`, named as options, before anything is read or computed."""
    from sts_extras.stats.power import check_simulation_count

    if args.simulations is not None and not args.simulate:
        raise UserInputError(
            "--simulations sets the samples of the simulation check: add --simulate (a count "
            "that would be ignored is refused, not dropped)."
        )
    if args.simulate:
        args.simulations = _DEFAULT_SIMULATIONS if args.simulations is None else args.simulations
        check_simulation_count(args.simulations, args.n or 1, name="--simulations")


def _check_simulations(simulations: int, n: object) -> None:
    from sts_extras.stats.power import check_simulation_count

    if isinstance(n, int) and not isinstance(n, bool) and n >= 1:  # a bad n is named later
        check_simulation_count(simulations, n, name="--simulations")


#: The argument names of :mod:`sts_extras.stats.power` -> the options that set them.
_OPTIONS = {
    "r1": "--r1",
    "r2": "--r2",
    "r12": "--r12",
    "n": "--n",
    "power": "--target-power",
    "alpha": "--alpha",
    "method": "--method",
    "alternative": "--alternative",
    "n_simulations": "--simulations",
    "seed": "--seed",
}


def run(args: argparse.Namespace) -> int:
    """Answer the question the options ask; print it as text or JSON.

    An error of :mod:`sts_extras.stats.power` names its argument (`` `r1` ``); here it names the
    option typed (``--r1``), or the leaderboard file when the value came from it.
    """
    try:
        return _run(args)
    except UserInputError as error:
        from_file = {"r1", "r2", "r12"} if args.leaderboard is not None else set()
        if args.leaderboard is not None and args.n is None:
            from_file.add("n")
        message = str(error)
        for name, option in _OPTIONS.items():
            if name in from_file and getattr(args, name, None) is None:
                option = f"{name} of --leaderboard {args.leaderboard}"
            message = message.replace(f"`{name}`", option)
        message = message.replace("`--simulations`", "--simulations")
        if message == str(error):
            raise
        raise type(error)(message) from None


def _run(args: argparse.Namespace) -> int:
    from sts_extras.stats import power as power_module

    _check_counts(args)
    values = {"r1": args.r1, "r2": args.r2, "r12": args.r12}
    n = args.n
    if args.leaderboard is not None:
        observed = _from_leaderboard(args)
        values = {key: observed[key] if value is None else value for key, value in values.items()}
        if n is None and args.target_power is None:
            n = observed["n"]
    elif args.task or args.model1 or args.model2:
        raise UserInputError("--task, --model1 and --model2 need --leaderboard.")
    if n is None and args.target_power is None:
        raise UserInputError("Give --n (power at n), --target-power (smallest n) or both (min Δr).")
    mode = (
        "delta"
        if n is not None and args.target_power is not None
        else "n"
        if n is None
        else "power"
    )
    needed = ("r1", "r12") if mode == "delta" else ("r1", "r2", "r12")
    missing = [f"--{key}" for key in needed if values[key] is None]
    if missing:
        raise UserInputError(f"Missing {', '.join(missing)} (or take them from --leaderboard).")
    options = {"method": args.method, "alpha": args.alpha, "alternative": args.alternative}
    if args.simulate and n is not None:  # n from --leaderboard: checked before any work too
        _check_simulations(args.simulations, n)

    output: dict[str, Any] = {}
    r1, r2, r12 = values["r1"], values["r2"], values["r12"]
    if mode == "power":
        output["power"] = power_module.dependent_test_power(r1, r2, r12, n, **options).power
    elif mode == "n":
        n = power_module.required_sample_size(r1, r2, r12, power=args.target_power, **options)
        output["n"] = n
        output["power"] = power_module.dependent_test_power(r1, r2, r12, n, **options).power
    else:
        delta = power_module.minimal_detectable_delta(
            r1, r12, n, power=args.target_power, **options
        )
        output["min_detectable_delta"] = delta
        # The r2 at which the test reaches the target power (None when no r2 does).
        r2 = None if math.isnan(delta) else r1 + (delta if args.alternative == "less" else -delta)
        output["r2_detectable"] = r2
    output.update({"n": n, "r1": r1, "r2": r2, "r12": r12, "target_power": args.target_power})
    output.update(options)
    if args.simulate and r2 is not None:
        _check_simulations(args.simulations, n)  # n found by required_sample_size
        simulated = power_module.simulate_power(
            r1,
            r2,
            r12,
            n,
            n_simulations=args.simulations,
            seed=args.seed,
            progress=args.progress,
            **options,
        )
        output["simulated_power"] = simulated.power
        output["simulated_power_se"] = simulated.standard_error
        output["simulations"] = simulated.n_simulations
        output["seed"] = args.seed
    if args.format == "json":
        print(json.dumps(output, indent=2))
    else:
        print(_format_text(output))
    return 0
