"""Untrusted inputs: votes counted once, bounded work, strict readers.

Each regression test below failed on the code before the fix (commit a74d4aa):
* votes - a partial and a later full Label Studio export (or one export twice) counted the
  shared annotations twice, with no word;
* work - ``n_resamples=10**12``, ``n_simulations=10**12``, ``--simulations 10**12`` and
  ``--n-resamples 10**12`` started work that ran until killed;
* readers - an ``--items`` file with a byte-order mark kept it in the first label, a JSON
  Lines score ``true`` was read as 1 and a CSV score ``1_000`` as 1000.
The property tests state the readers' contract: a reader returns exactly the numbers written,
or raises :class:`~sts_extras.errors.UserInputError` naming the file - never another exception.
"""

from __future__ import annotations

import json
import math
import string
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sts_extras import limits
from sts_extras.annotation.scoring import score_votes
from sts_extras.annotation.tables import read_sts_table
from sts_extras.annotation.votes import DuplicateVotesWarning, read_vote_files
from sts_extras.cli import main
from sts_extras.errors import UserInputError
from sts_extras.io.numbers import parse_number

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "campaign"
_DECIMAL = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_FILE_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _scores(votes) -> dict[str, float]:
    result = score_votes(votes, alpha=None)
    return dict(zip(result.table["item"].astype(str), result.table["score"].astype(float)))


# --------------------------------------------------------------------------------------------
# Votes are counted once
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> dict[str, Path]:
    """The example's Label Studio export, and two partial exports of it (cumulative)."""
    folder = tmp_path_factory.mktemp("exports")
    tasks = json.loads((EXAMPLE / "ballot1_label_studio_export.json").read_text("utf-8"))
    files = {
        "full": tasks,
        "first_half": tasks[: len(tasks) // 2],
        "second_third": tasks[len(tasks) // 3 : 2 * len(tasks) // 3],
    }
    paths = {}
    for name, content in files.items():
        paths[name] = folder / f"{name}.json"
        paths[name].write_text(json.dumps(content), encoding="utf-8")
    return paths


def test_a_partial_and_a_full_export_count_each_annotation_once(exports):
    full = read_vote_files([exports["full"]])
    with pytest.warns(DuplicateVotesWarning, match=r"^\d+ vote\(s\) given twice"):
        both = read_vote_files([exports["first_half"], exports["full"]])
    assert len(both) == len(full)
    assert _scores(both) == pytest.approx(_scores(full), abs=0.0)


def test_one_export_given_twice_counts_once_and_strict_refuses_it(exports, capsys):
    full = read_vote_files([exports["full"]])
    with pytest.warns(DuplicateVotesWarning):
        twice = read_vote_files([exports["full"], exports["full"]])
    assert _scores(twice) == _scores(full)
    with pytest.raises(UserInputError, match="given twice"):
        read_vote_files([exports["full"], exports["full"]], strict=True)
    path = str(exports["full"])
    code, out, err = _cli(capsys, "annotate", "score", path, path, "--no-selection")
    assert code == 0
    assert err.count("\n") == 1 and "counted once" in err
    code, out, err = _cli(capsys, "annotate", "score", path, path, "--no-selection", "--strict")
    assert code == 2 and "--strict" in err and out == ""


def test_csv_votes_with_annotators_given_twice_count_once(tmp_path):
    votes = (EXAMPLE / "votes_ballot1.csv").read_text("utf-8")
    lines = votes.splitlines()
    partial = tmp_path / "partial.csv"
    partial.write_text("\n".join(lines[: len(lines) // 2]) + "\n", encoding="utf-8")
    full = read_vote_files([EXAMPLE / "votes_ballot1.csv"])
    with pytest.warns(DuplicateVotesWarning):
        both = read_vote_files([partial, EXAMPLE / "votes_ballot1.csv"])
    assert _scores(both) == _scores(full)


def test_one_annotation_with_two_answers_is_refused(exports, tmp_path):
    tasks = json.loads(exports["first_half"].read_text("utf-8"))
    choice = tasks[0]["annotations"][0]["result"][0]["value"]["choices"]
    choice[0] = "Pair B" if choice[0] == "Pair A" else "Pair A"
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(tasks), encoding="utf-8")
    with pytest.raises(UserInputError, match="give only the latest export"):
        read_vote_files([exports["full"], changed])


@settings(max_examples=25, deadline=None)
@given(order=st.lists(st.sampled_from(["full", "first_half", "second_third"]), min_size=1,
                      max_size=5))  # fmt: skip
def test_any_interleaving_of_exports_scores_their_union(exports, order):
    union: pd.DataFrame | None
    if "full" not in order:  # the union of the partial exports, counted once
        union = read_vote_files([exports[name] for name in dict.fromkeys(order)])
        union = union if len(set(order)) == 1 else None
    else:
        union = read_vote_files([exports["full"]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DuplicateVotesWarning)
        given_votes = read_vote_files([exports[name] for name in order])
        reversed_votes = read_vote_files([exports[name] for name in reversed(order)])
    assert _scores(given_votes) == pytest.approx(_scores(reversed_votes), abs=1e-12)
    if union is not None:
        assert len(given_votes) == len(union)
        assert _scores(given_votes) == pytest.approx(_scores(union), abs=1e-12)


# --------------------------------------------------------------------------------------------
# Bounded work, checked before any work
# --------------------------------------------------------------------------------------------
_HUGE = 10**12


def _three_systems(n: int = 50):
    rng = np.random.default_rng(0)
    gold = rng.uniform(0, 5, n)
    return gold + rng.normal(0, 1, n), gold + rng.normal(0, 2, n), gold


def test_bca_bootstrap_refuses_a_trillion_resamples_before_any_work():
    from sts_extras.stats.bootstrap import bootstrap_correlation_difference

    with pytest.raises(UserInputError, match=f"at most {limits.MAX_RESAMPLES}"):
        bootstrap_correlation_difference(*_three_systems(), n_resamples=_HUGE)
    with pytest.raises(UserInputError, match="resampled items"):  # resamples x items
        bootstrap_correlation_difference(*_three_systems(200_000), n_resamples=1_000_000)


def test_compare_models_refuses_a_trillion_resamples():
    from sts_extras.stats.model_comparison import compare_models

    a, b, gold = _three_systems()
    with pytest.raises(UserInputError, match="n_resamples"):
        compare_models({"a": a, "b": b}, gold, n_resamples=_HUGE)


def test_power_simulation_refuses_a_trillion_simulations(capsys):
    from sts_extras.stats.power import simulate_power

    with pytest.raises(UserInputError, match=f"at most {limits.MAX_SIMULATIONS}"):
        simulate_power(0.5, 0.4, 0.3, 100, n_simulations=_HUGE)
    code, out, err = _cli(capsys, "power", "--r1", ".5", "--r2", ".4", "--r12", ".3", "--n",
                          "100", "--simulate", "--simulations", str(_HUGE))  # fmt: skip
    assert code == 2 and "--simulations" in err and str(limits.MAX_SIMULATIONS) in err
    # a count that would be ignored is refused, not dropped
    code, _, err = _cli(capsys, "power", "--r1", "0.5", "--r2", "0.4", "--r12", "0.3", "--n",
                        "100", "--simulations", str(_HUGE))  # fmt: skip
    assert code == 2 and "add --simulate" in err
    assert out == ""


def test_scaled_pearson_refuses_a_trillion_bins():
    from sts_extras.stats.correlation import scaled_pearson

    a, _, gold = _three_systems()
    with pytest.raises(UserInputError, match=f"`bins` must be at most {limits.MAX_BINS}"):
        scaled_pearson(a, gold, bins=_HUGE)


def test_leaderboard_refuses_a_trillion_resamples():
    from sts_extras.leaderboard.settings import check_n_resamples

    with pytest.raises(UserInputError, match=rf"--n-resamples {_HUGE} is above the ceiling"):
        check_n_resamples(_HUGE, "--n-resamples")


def test_campaign_simulation_counts_have_ceilings(capsys):
    from sts_extras.annotation.simulation import simulate_campaigns

    for options in ({"n_reps": _HUGE}, {"n_items": _HUGE}, {"n_voters": _HUGE}, {"m": _HUGE}):
        with pytest.raises(UserInputError, match="at most"):
            simulate_campaigns(**options)  # type: ignore[arg-type]  # one int keyword each
    for option in ("--reps", "--n-items", "--voters"):
        code, out, err = _cli(capsys, "annotate", "simulate", option, str(_HUGE))
        assert code == 2 and option in err and out == ""


def test_an_interrupted_command_is_one_line_and_status_130(capsys, monkeypatch):
    from sts_extras.stats import power

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(power, "simulate_power", interrupted)
    code, out, err = _cli(capsys, "power", "--r1", ".5", "--r2", ".4", "--r12", ".3", "--n",
                          "100", "--simulate")  # fmt: skip
    assert (code, out, err) == (130, "", "interrupted\n")


def test_progress_bars_do_not_change_the_numbers():
    from sts_extras.stats.bootstrap import bootstrap_correlation_difference
    from sts_extras.stats.power import simulate_power

    data = _three_systems()
    quiet = bootstrap_correlation_difference(*data, n_resamples=2000, seed=3)
    shown = bootstrap_correlation_difference(*data, n_resamples=2000, seed=3, progress=True)
    assert quiet.confidence_interval == shown.confidence_interval
    assert simulate_power(0.5, 0.4, 0.3, 60, n_simulations=500, progress=True) == simulate_power(
        0.5, 0.4, 0.3, 60, n_simulations=500
    )


# --------------------------------------------------------------------------------------------
# Readers (byte-order mark, strict numbers)
# --------------------------------------------------------------------------------------------
def test_an_items_file_with_a_byte_order_mark_is_read_without_it(tmp_path, capsys):
    items = tmp_path / "items.txt"
    items.write_bytes("\ufeffalpha\nbeta\ngamma\ndelta\n".encode())
    out_csv = tmp_path / "ballot.csv"
    options = ("--m", "2", "--n-ballots", "2", "--pairs-out", str(out_csv), "--seed", "0")
    code, out, err = _cli(capsys, "annotate", "plan", "--items", str(items), *options)
    assert code == 0, err
    written = out_csv.read_text("utf-8")
    assert "\ufeff" not in written
    assert "alpha" in written


def _sts_rows(score: str) -> list[str]:
    return ["sentence1,sentence2,score", "A.,B.,1", f"C.,D.,{score}", "E.,F.,2"]


@pytest.mark.parametrize("score", ["1_000", "0x10", "inf", "nan", "True", "１"])
def test_a_csv_score_is_a_plain_decimal(tmp_path, capsys, score):
    path = tmp_path / "task.csv"
    path.write_text("\n".join(_sts_rows(score)) + "\n", encoding="utf-8")
    code, out, err = _cli(capsys, "describe", str(path))
    assert code == 2 and str(path) in err and "row 2 (line 3)" in err and "`score`" in err


@pytest.mark.parametrize("score", ["true", "false", '"1_000"', "null", "[1]"])
def test_a_json_lines_score_true_is_refused(tmp_path, capsys, score):
    path = tmp_path / "task.jsonl"
    rows = [{"sentence1": "A.", "sentence2": "B.", "score": 1.0},
            {"sentence1": "C.", "sentence2": "D.", "score": 3.0}]  # fmt: skip
    lines = [json.dumps(row) for row in rows]
    lines.append(f'{{"sentence1": "E.", "sentence2": "F.", "score": {score}}}')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = _cli(capsys, "describe", str(path))
    assert code == 2 and str(path) in err and "row 3" in err and "`score`" in err


def test_a_similarities_file_is_read_strictly(tmp_path, capsys):
    z = tmp_path / "z.txt"
    z.write_text("0.5\n1_0\n0.2\n", encoding="utf-8")
    code, out, err = _cli(capsys, "annotate", "simulate", "--z", str(z), "--reps", "1")
    assert code == 2 and "line 2" in err and str(z) in err


def test_a_vote_export_with_a_boolean_item_or_ballot_is_refused(tmp_path):
    answer = {"type": "choices", "value": {"choices": ["A"]}}
    task = {"id": 1, "data": {"item_a": True, "item_b": "p2", "ballot": 1},
            "annotations": [{"id": 7, "completed_by": 1, "result": [answer]}]}  # fmt: skip
    path = tmp_path / "export.json"
    path.write_text(json.dumps([task]), encoding="utf-8")
    with pytest.raises(UserInputError, match="task 1"):
        read_vote_files([path])
    csv = tmp_path / "votes.csv"
    csv.write_text("item_a,item_b,winner,ballot\np1,p2,p1,1_000\n", encoding="utf-8")
    with pytest.raises(UserInputError, match="ballot"):
        read_vote_files([csv])


def test_a_vectors_header_with_a_byte_order_mark_or_look_alike_digits(tmp_path):
    from sts_extras.vectors.formats import header_counts, read_text_vectors

    path = tmp_path / "v.txt"
    path.write_bytes("\ufeff2 3\nthe 1 2 3\ncat 4 5 6\n".encode())
    words, table = read_text_vectors(path, header=True)
    assert words == ["the", "cat"] and table.shape == (2, 3)
    assert header_counts("²3 3") is None and header_counts("١ 3") is None
    path.write_text("2 3\nthe 1 2 3\ncat 1_000 5 6\n", encoding="utf-8")
    with pytest.raises(UserInputError, match="line 3"):
        read_text_vectors(path, header=True)
    path.write_bytes("\ufeffthe 1 2 3\n".encode())
    assert read_text_vectors(path, header=False)[0] == ["the"]


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(text=st.from_regex(_DECIMAL, fullmatch=True))
def test_parse_number_agrees_with_float_on_the_decimal_grammar(text):
    value = float(text)
    if math.isfinite(value):
        assert parse_number(text, "x") == value
    else:  # 1e999: a plain decimal, but out of range
        with pytest.raises(UserInputError):
            parse_number(text, "x")


_OUTSIDE = st.one_of(
    st.from_regex(r"[0-9]{1,3}_[0-9]{1,3}(\.[0-9]_?[0-9])?", fullmatch=True),
    st.sampled_from(["inf", "-inf", "+Infinity", "nan", "NaN", "-nan", "infinity"]),
    st.tuples(
        st.sampled_from(["\n", "\r", "\f", "\v", "\u2003", "\xa0", "\u3000"]),
        st.from_regex(r"[0-9]{1,4}", fullmatch=True),
    ).map("".join),  # fmt: skip
    st.from_regex(r"[０-９]{1,3}", fullmatch=True),
)


@settings(max_examples=200, deadline=None)
@given(text=_OUTSIDE)
def test_parse_number_refuses_what_float_accepts_outside_the_grammar(text):
    float(text)  # Python takes it...
    with pytest.raises(UserInputError):
        parse_number(text, "x")  # ...the trust boundary does not


_CELL = st.one_of(
    st.from_regex(_DECIMAL, fullmatch=True),
    st.sampled_from(["True", "false", "1_000", "0x10", "inf", "nan", " 2 ", "", "1,5"]),
    st.text(alphabet=string.printable + "\u00e9\u2003\u0661\uff11\ufeff", max_size=8),
    st.integers(-(10**6), 10**6).map(str),
)


def _csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


@_FILE_SETTINGS
@given(cells=st.lists(_CELL, min_size=3, max_size=6), bom=st.booleans())
def test_the_sts_table_reader_returns_the_numbers_written_or_names_the_file(tmp_path, cells, bom):
    path = tmp_path / "task.csv"
    lines = ["sentence1,sentence2,score"]
    lines += [f"s{index}a,s{index}b,{_csv_cell(cell)}" for index, cell in enumerate(cells)]
    path.write_bytes(("\ufeff" if bom else "").encode() + "\n".join(lines).encode())
    try:
        table = read_sts_table(path, "describe", score_range=(-1e300, 1e300))
    except UserInputError as error:
        assert str(path) in str(error)
        return
    expected = [float(cell.strip(" \t")) for cell in cells]
    assert table.frame["score"].tolist() == expected
    assert table.frame["sentence1"].tolist()[0] == "s0a"  # the mark is not part of a cell


_JSON_VALUE = st.one_of(
    st.booleans(), st.none(), st.integers(-10**20, 10**20),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6), _CELL,
    st.lists(st.integers(), max_size=2),
)  # fmt: skip


@_FILE_SETTINGS
@given(values=st.lists(_JSON_VALUE, min_size=3, max_size=6), bom=st.booleans())
def test_the_json_lines_reader_returns_the_numbers_written_or_names_the_file(tmp_path, values, bom):
    path = tmp_path / "task.jsonl"
    rows = [json.dumps({"sentence1": f"a{i}", "sentence2": f"b{i}", "score": value})
            for i, value in enumerate(values)]  # fmt: skip
    path.write_bytes(("\ufeff" if bom else "").encode() + "\n".join(rows).encode())
    try:
        table = read_sts_table(path, "describe", score_range=(-1e300, 1e300))
    except UserInputError as error:
        assert str(path) in str(error)
        return
    for value, read in zip(values, table.frame["score"].tolist()):
        assert not isinstance(value, bool)
        assert read == (float(value.strip(" \t")) if isinstance(value, str) else float(value))


@_FILE_SETTINGS
@given(cells=st.lists(st.tuples(_CELL, _CELL, _CELL, _CELL), min_size=1, max_size=5),
       bom=st.booleans())  # fmt: skip
def test_the_votes_reader_reads_or_names_the_file(tmp_path, cells, bom):
    path = tmp_path / "votes.csv"
    lines = ["item_a,item_b,winner,ballot"] + [",".join(map(_csv_cell, row)) for row in cells]
    path.write_bytes(("\ufeff" if bom else "").encode() + "\n".join(lines).encode())
    try:
        votes = read_vote_files([path])
    except UserInputError as error:
        assert str(path) in str(error)
        return
    assert list(votes.columns) == ["item_a", "item_b", "winner", "ballot"]
    assert votes["item_a"].tolist() == [row[0] for row in cells]


@_FILE_SETTINGS
@given(
    header=st.one_of(
        st.just("2 3"), st.sampled_from(["2 3 ", "²2 3", "2_0 3", "0x2 3", "2", "-2 3", ""]),
        st.text(alphabet=string.printable + "\u0661\uff12", max_size=6),
    ),
    cells=st.lists(_CELL, min_size=6, max_size=6),
    bom=st.booleans(),
)  # fmt: skip
def test_the_text_vectors_reader_returns_the_numbers_written_or_names_the_file(
    tmp_path, header, cells, bom
):
    """word2vec text / GloVe / fastText .vec: a header that is not two plain counts, or a value
    that is not a plain decimal, is an error naming the file; otherwise every value is read as
    written (never a `1_000` read as 1000, never a look-alike digit)."""
    from sts_extras.vectors.formats import read_text_vectors

    path = tmp_path / "vectors.txt"
    rows = [" ".join(["the", *cells[:3]]), " ".join(["cat", *cells[3:]])]
    text = "\n".join([header, *rows]) + "\n"
    path.write_bytes(("\ufeff" if bom else "").encode() + text.encode("utf-8"))
    try:
        words, table = read_text_vectors(path, header=True)
    except UserInputError as error:
        assert str(path) in str(error)
        return
    assert header.split() == ["2", "3"]
    assert words == ["the", "cat"]
    written = " ".join(cells).split()  # as the file splits them
    assert table.ravel().tolist() == [np.float32(parse_number(cell, "x")) for cell in written]
