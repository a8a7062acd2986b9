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
    """r1, r2, r12 and n of two models on one task of a leaderboard JSON."""
    import numpy as np

    path: Path = args.leaderboard
    if path.is_dir():
        raise UserInputError(
            f"--leaderboard {str(path)!r} is a directory; give its leaderboard.json."
        )
    if not path.is_file():
        raise UserFileNotFoundError(f"--leaderboard: no such file: {path}")
    data = read_json(path, "--leaderboard")
    try:
        results, tasks = data["results"], data["tasks"]
    except (KeyError, TypeError) as error:
        raise UserInputError(
            f"--leaderboard: {path} is not a leaderboard JSON (no {error})."
        ) from None
    if not _list_of_objects(results) or not _list_of_objects(tasks):
        raise UserInputError(
            f"--leaderboard: {path} is not a leaderboard JSON (its 'results' and 'tasks' must "
            "be lists of objects); give a leaderboard.json written by `sts-extras leaderboard`."
        )
    if not args.task or not args.model1:
        raise UserInputError("--leaderboard needs --task and --model1.")
    settings = data.get("settings")
    model2 = args.model2 or (settings.get("baseline") if isinstance(settings, dict) else None)
    if not model2:
        raise UserInputError("--leaderboard: give --model2 (the file names no baseline).")
    rows = {(row.get("task"), row.get("model")): row for row in results}
    found = []
    for model in (args.model1, model2):
        row = rows.get((args.task, model))
        if row is None or row.get("pearson") is None or not row.get("scores"):
            raise UserInputError(
                f"--leaderboard: no scores of model {model!r} on task {args.task!r}."
            )
        found.append(row)
    pearson, scores = [], []
    for model, row in zip((args.model1, model2), found):
        where = f"--leaderboard {path}: model {model!r} on task {args.task!r}:"
        pearson.append(json_number(row["pearson"], f"{where} `pearson`"))
        values = row["scores"]
        if not isinstance(values, list):
            raise UserInputError(f"{where} `scores` is not a list of numbers.")
        scores.append(np.array([json_number(value, f"{where} `scores`") for value in values]))
    if scores[0].shape != scores[1].shape:
        raise UserInputError(
            f"--leaderboard {path}: the scores of {args.model1!r} and {model2!r} on task "
            f"{args.task!r} differ in length."
        )
    n = next((task.get("n") for task in tasks if task.get("name") == args.task), None)
    if n is not None:
        n = json_count(n, f"--leaderboard {path}: the n of task {args.task!r}", low=1)
    r12 = float(np.corrcoef(scores[0], scores[1])[0, 1])
    return {"r1": pearson[0], "r2": pearson[1], "r12": r12, "n": n}


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


def run(args: argparse.Namespace) -> int:
    """Answer the question the options ask; print it as text or JSON."""
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
