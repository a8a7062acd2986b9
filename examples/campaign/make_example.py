"""Regenerate the example campaign of this folder (deterministic: every draw is seeded).

30 everyday sentence pairs, each with a latent similarity z chosen by hand, go through a
3-ballot adaptive campaign (M = 6, alpha = 0.5) run with the real commands:

1. ``sts-extras annotate plan --pairs pairs.csv ...`` writes ballot 1 (CSV and Label Studio);
2. nine simulated annotators vote on every comparison of the ballot in three groups of three
   (so each comparison gets three votes), with the voter model of sts-extras
   (:func:`sts_extras.annotation.sample_voters`, Eq. 11 of Lombardo et al., 2020); annotator
   ``w03`` votes at random instead;
3. ``sts-extras annotate score votes_ballot1.csv ... --exclude-flagged --next-pairs ...`` draws
   the next ballot from the scores without the flagged annotators; and so on.

The votes are written in our CSV (one file per ballot), and the votes of ballot 1 also in the
two other formats ``annotate score`` reads: a Label Studio JSON export and MTurk-style batch
results (kept to ballot 1 so that the folder stays small). Last, ``annotate score ...
--dataset-out my_sts.csv`` writes the dataset.

Run ``python examples/campaign/make_example.py`` from the repository root.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from sts_extras.annotation import VoterPanel, sample_voters, simulate_votes
from sts_extras.cli import main

SEED = 2026
M = 6
N_BALLOTS = 3
#: Annotators: three groups of three; every comparison is judged once by each group.
GROUPS = (("w01", "w02", "w03"), ("w04", "w05", "w06"), ("w07", "w08", "w09"))
RANDOM_ANNOTATOR = "w03"

#: (sentence1, sentence2, latent similarity z in [0, 1]), written for this example.
PAIRS = (
    ("The bus was late this morning.", "This morning the bus arrived late.", 0.95),
    ("She bought a loaf of bread at the bakery.", "She got some bread from the bakery.", 0.92),
    ("It will probably rain tomorrow.", "Rain is likely tomorrow.", 0.90),
    ("He forgot his keys at home.", "He left his keys in the house.", 0.87),
    ("The children are playing in the garden.", "The kids are playing outside in the yard.", 0.84),
    ("Please turn off the lights when you leave.", "Switch the lights off before you go.", 0.82),
    ("The coffee is too hot to drink.", "The tea is too hot to drink.", 0.74),
    ("My phone battery died during the call.", "My phone ran out of power while I talked.", 0.80),
    ("We watched a film at the cinema last night.", "Last night we went to see a movie.", 0.78),
    ("The shop closes at six on Sundays.", "On Sundays the store shuts at six.", 0.91),
    ("She is learning to play the guitar.", "She is taking piano lessons.", 0.60),
    ("The train to the city was crowded.", "The bus to town was full of people.", 0.58),
    ("He cooked pasta for dinner.", "He made soup for lunch.", 0.48),
    ("The cat is sleeping on the sofa.", "The dog is lying on the couch.", 0.55),
    ("I need to buy new running shoes.", "My old running shoes are worn out.", 0.52),
    ("The library opens at nine.", "The museum is free on Mondays.", 0.28),
    ("They painted the kitchen yellow.", "The kitchen needs a new coat of paint.", 0.45),
    ("The meeting was moved to Thursday.", "Thursday's weather looks sunny.", 0.20),
    ("She waters the plants every morning.", "The plants on the balcony need sunlight.", 0.36),
    ("He walks his dog after work.", "She rides her bike to work.", 0.31),
    ("The soup needs more salt.", "The car needs new tyres.", 0.10),
    ("Our neighbours are moving to another city.", "The city built a new bridge.", 0.15),
    ("I lost my umbrella on the train.", "The umbrella kept me dry in the storm.", 0.34),
    ("The baby laughed at the puppet.", "The printer is out of ink.", 0.02),
    ("We planted tomatoes in the spring.", "The tomatoes were ripe by August.", 0.50),
    ("The bedroom window is stuck.", "The bedroom window will not open.", 0.88),
    ("He practises the violin every evening.", "The concert tickets sold out quickly.", 0.18),
    ("She wrote a letter to her grandmother.", "Her grandmother lives by the sea.", 0.30),
    ("The match was cancelled because of snow.", "Snow caused the game to be called off.", 0.93),
    ("The oven takes ten minutes to heat up.", "Mountains are covered in snow in winter.", 0.04),
)


def _run(*argv: str) -> str:
    """Run ``sts-extras ARGV``; its standard output (a failure stops the script)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    if code != 0:
        raise SystemExit(f"sts-extras {' '.join(argv)} failed with status {code}")
    return out.getvalue()


def _vote(ballot: pd.DataFrame, z_index: dict[str, int], panel: VoterPanel, seed: int) -> list:
    """Three votes per comparison (one per group); ``RANDOM_ANNOTATOR`` flips a coin."""
    rng = np.random.default_rng(seed)
    pairs = np.array([[z_index[a], z_index[b]] for a, b in zip(ballot.item_a, ballot.item_b)])
    votes = []
    for number, group in enumerate(GROUPS):
        members = np.arange(3 * number, 3 * number + 3)
        sub = VoterPanel(
            opinions=panel.opinions[members],
            sigma_star=panel.sigma_star[members],
            epsilon=panel.epsilon[members],
            relatedness=panel.relatedness,
        )
        simulated = simulate_votes(sub, pairs, seed=rng)
        coin = rng.integers(0, 2, len(pairs)).astype(float)
        for row, (voter, points) in enumerate(zip(simulated.voter, simulated.points_a)):
            worker = group[voter]
            if worker == RANDOM_ANNOTATOR:
                points = coin[row]
            choice = "A" if points == 1.0 else "B" if points == 0.0 else "tie"
            votes.append((row, worker, choice))
    return votes


def _our_csv(ballot: pd.DataFrame, votes: list) -> pd.DataFrame:
    rows = []
    for row, worker, choice in votes:
        a, b = ballot.item_a[row], ballot.item_b[row]
        winner = a if choice == "A" else b if choice == "B" else "tie"
        rows.append((a, b, winner, int(ballot.ballot[row]), worker))
    return pd.DataFrame(rows, columns=["item_a", "item_b", "winner", "ballot", "worker_id"])


def _label_studio_export(tasks: list, all_votes: list) -> str:
    """What Label Studio's JSON export of the imported ballots looks like after voting."""
    answers = {"A": "Pair A", "B": "Pair B", "tie": "Equally similar"}
    exported = []
    for task_id, (task, votes) in enumerate(zip(tasks, all_votes), start=1):
        annotations = [
            {
                "completed_by": int(worker[1:]),  # Label Studio's user id
                "result": [
                    {
                        "from_name": "choice",
                        "to_name": "a_sentence1",
                        "type": "choices",
                        "value": {"choices": [answers[choice]]},
                    }
                ],
            }
            for worker, choice in votes
        ]
        exported.append({"id": task_id, "data": task["data"], "annotations": annotations})
    return "[\n" + ",\n".join(json.dumps(task, ensure_ascii=False) for task in exported) + "\n]\n"


def _mturk_results(ballots: list[pd.DataFrame], all_votes: list[list]) -> pd.DataFrame:
    """MTurk-style batch results: one row per assignment, Input.<ballot column>, Answer.choice."""
    rows = []
    for ballot, votes in zip(ballots, all_votes):
        for row, worker, choice in votes:
            record = ballot.iloc[row]
            rows.append(
                {
                    "HITId": f"HIT{record.comparison_id}",
                    "WorkerId": f"A{worker.upper()}",
                    "AssignmentStatus": "Approved",
                    **{f"Input.{column}": record[column] for column in ballot.columns},
                    "Answer.choice": choice,
                }
            )
    return pd.DataFrame(rows)


def build(folder: Path) -> dict:
    """Write the example campaign into ``folder``; returns the latent z and the outputs."""
    folder.mkdir(parents=True, exist_ok=True)
    ids = [f"p{number:02d}" for number in range(1, len(PAIRS) + 1)]
    frame = pd.DataFrame(PAIRS, columns=["sentence1", "sentence2", "z"]).assign(id=ids)
    frame[["id", "sentence1", "sentence2"]].to_csv(folder / "pairs.csv", index=False)
    frame[["id", "z"]].to_csv(folder / "latent.csv", index=False)
    z_index = {pair_id: index for index, pair_id in enumerate(ids)}
    panel = sample_voters(frame["z"].to_numpy(), n_voters=9, seed=SEED)

    path = str(folder)
    _run("annotate", "plan", "--pairs", f"{path}/pairs.csv", "--m", str(M),
         "--n-ballots", str(N_BALLOTS), "--seed", "1", "--pairs-out", f"{path}/ballot1.csv",
         "--label-studio-out", f"{path}/ballot1.json")  # fmt: skip
    ballots: list[pd.DataFrame] = []
    votes: list[list] = []
    with tempfile.TemporaryDirectory() as later:  # ballots 2.. are not shipped (size)
        for k in range(1, N_BALLOTS + 1):
            ballot = pd.read_csv(Path(path if k == 1 else later) / f"ballot{k}.csv", dtype=str)
            ballots.append(ballot)
            votes.append(_vote(ballot, z_index, panel, seed=SEED + k))
            _our_csv(ballot, votes[-1]).to_csv(folder / f"votes_ballot{k}.csv", index=False)
            if k < N_BALLOTS:
                _run("annotate", "score", *(f"{path}/votes_ballot{j}.csv" for j in range(1, k + 1)),
                     "--pairs", f"{path}/pairs.csv", "--exclude-flagged", "--m", str(M),
                     "--seed", str(k + 1), "--next-pairs", f"{later}/ballot{k + 1}.csv",
                     "--label-studio-out", f"{later}/ballot{k + 1}.json")  # fmt: skip
    per_task = [
        [(worker, choice) for row_, worker, choice in sorted(votes[0]) if row_ == row]
        for row in range(len(ballots[0]))
    ]
    first_tasks = json.loads((folder / "ballot1.json").read_text(encoding="utf-8"))
    (folder / "ballot1_label_studio_export.json").write_text(
        _label_studio_export(first_tasks, per_task), encoding="utf-8"
    )
    _mturk_results(ballots[:1], votes[:1]).to_csv(folder / "ballot1_mturk_results.csv", index=False)
    report = _run("annotate", "score", *(f"{path}/votes_ballot{k}.csv" for k in range(1, 4)),
                  "--pairs", f"{path}/pairs.csv", "--exclude-flagged",
                  "--dataset-out", f"{path}/my_sts.csv", "--scale", "0", "5")  # fmt: skip
    return {"z": dict(zip(ids, frame["z"])), "report": report}


if __name__ == "__main__":
    result = build(Path(__file__).resolve().parent)
    sys.stdout.write(result["report"])
