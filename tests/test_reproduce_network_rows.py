"""`sts-extras reproduce --source NAME=PATH / --online`: the rows that need the network are run.

Offline: the stand-in for gensim's ``word2vec-google-news-300`` is a tiny word2vec text file of
random vectors over the words of the packaged DSCS sentences, written here. The expected values
are computed here from that file with numpy/scipy (mean of the word vectors, cosine, Pearson and
Spearman with the DSCS scores), tokenised as :class:`~sts_extras.vectors.WordVectors` does.
"""

from __future__ import annotations

import json
import shlex

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sts_extras.benchmark_tables import read_rows
from sts_extras.cli import main
from sts_extras.errors import UserInputError
from sts_extras.leaderboard.run.resolve import VECTOR_METHODS
from sts_extras.reproduce import PAPERS, reproduce
from sts_extras.reproduce import network as network_module
from sts_extras.reproduce.rows import LeaderboardReading, network_row

# the stand-in file leaves one DSCS word out on purpose: the runs warn that it was dropped
pytestmark = pytest.mark.filterwarnings("ignore::sts_extras.vectors.word_vectors.OOVWarning")

W2V = "word2vec-google-news-300"
W2V_ROW = f"Table 4, word2vec ({W2V}), {{}}, DSCS (%) [unsupervised]"


def _tokenizer():
    from sts_extras.vectors import WordVectors

    # the tokenisation of vectors read from a word2vec file (the defaults)
    return WordVectors(["x"], np.zeros((1, 2)), name="x").tokenize


@pytest.fixture(scope="module")
def dscs_pairs():
    table = read_rows("dscs")
    gold = np.array([row["score"] for row in table])
    return [row["sentence1"] for row in table], [row["sentence2"] for row in table], gold


@pytest.fixture(scope="module")
def stand_in_vectors(tmp_path_factory, dscs_pairs):
    """A word2vec text file over the DSCS words but one (dropped as unknown), and its vectors."""
    tokenize = _tokenizer()
    left, right, _ = dscs_pairs
    words = sorted({token for sentence in left + right for token in tokenize(sentence)})
    # leave out one word that has no lower-cased or compound form in the file: it is unknown
    unknown = next(w for w in words if w.isalpha() and w.islower() and w.title() not in words)
    words.remove(unknown)
    table = np.random.default_rng(7).normal(size=(len(words), 6)).round(5)
    path = tmp_path_factory.mktemp("vectors") / "stand-in-w2v.txt"
    lines = [f"{len(words)} {table.shape[1]}"]
    lines += [
        f"{word} {' '.join(f'{value:.5f}' for value in row)}" for word, row in zip(words, table)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, dict(zip(words, table))


def _avg_cos_correlations(vectors, dscs_pairs):
    """Pearson and Spearman × 100 of the cosine of mean word vectors with the DSCS scores."""
    tokenize = _tokenizer()
    left, right, gold = dscs_pairs

    def mean_vector(sentence):
        return np.mean([vectors[t] for t in tokenize(sentence) if t in vectors], axis=0)

    a = np.array([mean_vector(s) for s in left])
    b = np.array([mean_vector(s) for s in right])
    cosine = np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return 100 * stats.pearsonr(cosine, gold).statistic, 100 * stats.spearmanr(
        cosine, gold
    ).statistic


def _rows_by_quantity(data):
    return {row["quantity"]: row for paper in data["papers"] for row in paper["rows"]}


@pytest.fixture(scope="module")
def run_with_source(tmp_path_factory, stand_in_vectors):
    """One ``reproduce dscs --source word2vec-google-news-300=<stand-in> --output DIR`` run."""
    path, _ = stand_in_vectors
    output = tmp_path_factory.mktemp("reproduce")
    status = main(
        ["reproduce", "dscs", "--no-progress", "--source", f"{W2V}={path}", "--output", str(output)]
    )
    return status, output


# --------------------------------------------------------------------------------------------
# a source given: its rows are run and filled
# --------------------------------------------------------------------------------------------
def test_the_word2vec_rows_hold_the_avg_cos_correlations_of_the_given_file(
    run_with_source, stand_in_vectors, dscs_pairs
):
    status, output = run_with_source
    assert status == 0
    rows = _rows_by_quantity(json.loads((output / "reproduce.json").read_text()))
    expected = _avg_cos_correlations(stand_in_vectors[1], dscs_pairs)
    for name, value in zip(("Pearson", "Spearman"), expected, strict=True):
        row = rows[W2V_ROW.format(name)]
        # the library keeps vectors in float32, this test in float64: agreement to ~1e-7
        assert row["ours"] == pytest.approx(value, rel=1e-5)
        assert row["difference"] == pytest.approx(row["ours"] - row["paper_value"], abs=1e-9)
        assert row["tolerance"] == 0.005  # the paper prints 2 decimals
        within = abs(row["ours"] - row["paper_value"]) <= row["tolerance"]
        assert row["status"] == ("match" if within else "differs (explained)")
        assert row["why_may_differ"]
        assert str(stand_in_vectors[0]) in row["command"]  # the command that ran
        assert str(stand_in_vectors[0]) in row["vectors"]


def test_only_the_rows_of_the_given_source_are_filled(run_with_source):
    _, output = run_with_source
    data = json.loads((output / "reproduce.json").read_text())
    rows = _rows_by_quantity(data)
    plain = {row.quantity: row for row in reproduce("dscs").rows}
    assert rows.keys() == plain.keys()
    changed = {quantity for quantity, row in plain.items() if rows[quantity]["ours"] != row.ours}
    assert changed == {W2V_ROW.format("Pearson"), W2V_ROW.format("Spearman")}
    assert data["notes"] == []
    assert (
        data["counts"]["needs network"]
        == sum(row.status == "needs network" for row in plain.values()) - 2
    )


def test_the_run_is_kept_under_output_and_the_markdown_shows_the_numbers(run_with_source):
    _, output = run_with_source
    board = output / "runs" / f"reproduce-dscs-{W2V}" / "leaderboard.json"
    results = json.loads(board.read_text())["results"]
    [avg_cos] = [r for r in results if r["model"].startswith("avg-cos (")]
    markdown = (output / "reproduce.md").read_text()
    [line] = [line for line in markdown.splitlines() if W2V_ROW.format("Pearson") in line]
    assert f"{100 * avg_cos['pearson']:.6g}" in line
    assert "stand-in-w2v.txt" in markdown  # the vectors used


# --------------------------------------------------------------------------------------------
# a command that fails
# --------------------------------------------------------------------------------------------
def test_a_file_that_is_not_vectors_leaves_the_rows_and_says_why(tmp_path, capsys):
    not_vectors = tmp_path / "notes.txt"
    not_vectors.write_text("these are not word vectors\n")
    output = tmp_path / "out"
    status = main(
        [
            "reproduce",
            "dscs",
            "--no-progress",
            "--source",
            f"{W2V}={not_vectors}",
            "--output",
            str(output),
        ]
    )
    assert status == 0
    out = capsys.readouterr().out
    data = json.loads((output / "reproduce.json").read_text())
    rows = _rows_by_quantity(data)
    for name in ("Pearson", "Spearman"):
        assert rows[W2V_ROW.format(name)]["ours"] is None
        assert rows[W2V_ROW.format(name)]["status"] == "needs network"
    [note] = data["notes"]
    assert str(not_vectors) in note and "--vectors" in note
    assert f"note: {note}" in out.splitlines()
    assert note in (output / "reproduce.md").read_text()


def test_a_command_that_raises_is_a_note_not_a_crash(monkeypatch, tmp_path):
    def no_network(**call):
        raise ConnectionError("no route to huggingface.co")

    monkeypatch.setattr("sts_extras.leaderboard.run_leaderboard", no_network)
    report = reproduce("dscs", online=True, output=tmp_path)
    assert report.notes and all("ConnectionError: no route" in note for note in report.notes)
    assert all(row.ours is None for row in report.rows if row.reading is not None)


# --------------------------------------------------------------------------------------------
# what runs
# --------------------------------------------------------------------------------------------
@pytest.fixture
def recorded_runs(monkeypatch):
    """Replace running a command by recording it (and failing, so no rows change)."""
    calls = []

    def record(argv, *, progress):
        calls.append(argv)
        return "not run in this test"

    monkeypatch.setattr(network_module, "_run", record)
    return calls


@pytest.mark.parametrize("paper", ["dscs", "dynamax", "all"])
def test_without_source_or_online_nothing_runs(recorded_runs, paper, capsys):
    assert main(["reproduce", paper, "--no-progress"]) == 0
    assert recorded_runs == []
    assert "note:" not in capsys.readouterr().out


def test_online_runs_each_network_command_once_and_no_placeholder(recorded_runs, tmp_path):
    report = reproduce("dscs", online=True, output=tmp_path)
    expected = {
        row.command
        for row in report.rows
        if row.reading is not None and row.status == "needs network"
    }
    assert len(recorded_runs) == len(expected) == len(report.notes) > 0
    ran = {" ".join(argv[: argv.index("--output")]) for argv in recorded_runs}
    assert ran == {c.removeprefix("sts-extras ").split(" --output")[0] for c in expected}  # type: ignore[union-attr]  # a network row has a command
    assert not any("CS_CORPUS" in " ".join(argv) for argv in recorded_runs)


def test_a_placeholder_of_unpublished_vectors_runs_with_a_source(recorded_runs, tmp_path):
    given = tmp_path / "cs-vectors.txt"
    given.write_text("1 2\nword 0.1 0.2\n")
    reproduce("dscs", sources={"GLOVE_CS_CORPUS_VECTORS_FILE": given}, output=tmp_path)
    [argv] = recorded_runs
    assert argv[argv.index("--vectors") + 1] == str(given)
    assert argv[argv.index("--output") + 1] == str(tmp_path / "runs/reproduce-dscs-glove-cs-corpus")


# --------------------------------------------------------------------------------------------
# --source errors: exit 2, one line naming the option, nothing run
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value, says",
    [
        ("word2vec-google-news-300", "NAME=PATH"),
        ("=somewhere", "NAME=PATH"),
        (f"{W2V}=/no/such/file.bin", "no such file"),
        ("not-a-name-of-any-row={existing}", W2V),  # lists the names the rows use
    ],
)
def test_a_malformed_source_exits_2_naming_the_option(recorded_runs, tmp_path, capsys, value, says):
    existing = tmp_path / "vectors.txt"
    existing.write_text("1 2\nword 0.1 0.2\n")
    status = main(
        ["reproduce", "dscs", "--no-progress", "--source", value.format(existing=existing)]
    )
    assert status == 2
    captured = capsys.readouterr()
    assert len(captured.err.strip().splitlines()) == 1
    assert "--source" in captured.err and says in captured.err
    assert recorded_runs == []


def test_a_name_given_twice_exits_2(recorded_runs, tmp_path, capsys):
    existing = tmp_path / "vectors.txt"
    existing.write_text("1 2\nword 0.1 0.2\n")
    source = f"{W2V}={existing}"
    assert main(["reproduce", "dscs", "--source", source, "--source", source]) == 2
    assert "given twice" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# every reading fits its command
# --------------------------------------------------------------------------------------------
METHODS = {name for name, _, _ in VECTOR_METHODS}


@pytest.mark.parametrize("paper", list(PAPERS))
def test_every_reading_names_a_source_task_and_method_of_its_command(paper):
    readings = 0
    for row in reproduce(paper).rows:
        if row.reading is None:
            continue
        readings += 1
        assert row.command is not None
        words = shlex.split(row.command)
        argv = network_module._argv(row.command, {}, network_module.Path("/tmp"), False)
        assert argv[0] == "leaderboard" and words.count(row.reading.source) == 1
        tasks = {words[i + 1] for i, word in enumerate(words) if word == "--task"}
        assert row.reading.task in tasks
        if row.reading.model is not None:
            assert words[words.index(row.reading.source) - 1] == "--vectors"
            sif = "--sif" in words
            assert row.reading.model.removesuffix("-SIF") in METHODS
            assert row.reading.model.endswith("-SIF") == sif
    if paper in ("dscs", "dynamax"):
        assert readings > 0


@pytest.mark.parametrize("paper", list(PAPERS))
def test_every_command_is_the_library_call_the_command_line_makes_of_it(paper):
    # reproduce runs a row's command as a library call (it does not go through the command
    # line): the call read from the command is the one `sts-extras leaderboard` makes of it
    from sts_extras.cli import build_parser
    from sts_extras.cli.leaderboard_run import settings_from_args
    from sts_extras.leaderboard import LeaderboardSettings

    rows = reproduce(paper).rows
    commands = {row.command for row in rows if row.reading is not None and row.command}
    for command in sorted(commands):
        argv = network_module._argv(command, {}, network_module.Path("/tmp"), False)
        inputs, fields = network_module.leaderboard_call(argv)
        args = build_parser().parse_args(argv)
        assert inputs == {
            key: value
            for key, value in {
                "models": args.model,
                "vectors": args.vectors,
                "tasks": args.task,
            }.items()
            if value is not None
        }
        assert LeaderboardSettings(**fields) == settings_from_args(args)


@pytest.mark.parametrize(
    "argv",
    [
        ["describe", "dscs"],  # not the leaderboard
        ["leaderboard", "--task", "DSCS", "--seed", "3"],  # an option no row uses
        ["leaderboard", "--task"],  # an option without its value
    ],
)
def test_a_command_the_rows_cannot_hold_is_refused_as_a_bug(argv):
    with pytest.raises(ValueError):
        network_module.leaderboard_call(argv)


def test_a_reading_whose_source_is_not_in_its_command_is_refused():
    reading = LeaderboardReading(
        source="glove-wiki-gigaword-300",
        task="DSCS",
        statistic="pearson",
        model="avg-cos",
        tolerance=0.005,
        tolerance_reason="two decimals",
        why_may_differ="tokenisation",
    )
    with pytest.raises(ValueError, match="glove-wiki-gigaword-300"):
        network_row(
            "dscs",
            "x",
            1.0,
            command=f"sts-extras leaderboard --task DSCS --vectors {W2V} --output o",
            reading=reading,
        )


@pytest.mark.parametrize(
    "model, selected",
    [
        ("avg-cos (stand-in-w2v)", True),
        ("avg-cos", True),
        ("avg-cos-SIF (stand-in-w2v)", False),
        ("DynaMax-Jaccard (avg-cos)", False),
    ],
)
def test_a_reading_selects_its_method_by_display_name(model, selected):
    reading = LeaderboardReading(
        source=W2V,
        task="DSCS",
        statistic="spearman",
        model="avg-cos",
        tolerance=0.005,
        tolerance_reason="two decimals",
        why_may_differ="tokenisation",
    )
    assert reading.selects(model) is selected


# --------------------------------------------------------------------------------------------
# reading a leaderboard.json: the method and the year of each row (a stand-in run)
# --------------------------------------------------------------------------------------------
def _stand_in_run(results):
    """A replacement for running a command that writes ``results`` as its leaderboard.json."""
    calls = []

    def run(argv, *, progress):
        calls.append(argv)
        folder = network_module.Path(argv[argv.index("--output") + 1])
        folder.mkdir(parents=True)
        (folder / "leaderboard.json").write_text(json.dumps({"settings": {}, "results": results}))
        return None

    return run, calls


def test_the_dynamax_rows_read_their_method_and_year(monkeypatch, tmp_path):
    methods = sorted(METHODS)
    tasks = ("STS12", "STS13", "STS14", "STS15", "STS16")
    # a distinct r per (method, year): any row reading the wrong cell gets the wrong number
    value = {
        (m, t): (10 * i + j) / 1000 for i, m in enumerate(methods) for j, t in enumerate(tasks)
    }
    results = [
        {"task": t, "model": f"{m} (crawl)", "pearson": value[m, t], "spearman": 0.0, "n": 3}
        for (m, t) in value
    ]
    run, calls = _stand_in_run(results)
    monkeypatch.setattr(network_module, "_run", run)
    given = tmp_path / "crawl.vec"
    given.write_text("1 2\nword 0.1 0.2\n")
    report = reproduce("dynamax", sources={"crawl-300d-2M.vec": given}, output=tmp_path / "out")
    assert len(calls) == 1 and report.notes == ()
    filled = [row for row in report.rows if row.reading is not None and row.ours is not None]
    labels = {"avg-cos": "avg-cos", "DynaMax": "DynaMax-Jaccard", "Max Jaccard": "MaxPool-Jaccard"}
    assert len(filled) == 15  # Table 1's two fastText rows and Table 5's, five years each
    for row in filled:
        label = row.quantity.split("fastText ")[1].split(",")[0]
        task = row.quantity.split(", ")[2].split(" ")[0]  # "Table 1, fastText avg-cos, STS12 (..."
        assert row.ours == pytest.approx(100 * value[labels[label], task])
        assert row.tolerance == 0.05  # the paper prints one decimal
        assert row.status in ("match", "differs (explained)") and "pools" in row.why_may_differ


def test_a_leaderboard_json_that_is_not_valid_is_a_note(monkeypatch, tmp_path):
    run, _ = _stand_in_run([{"task": "DSCS", "model": "avg-cos (x)", "pearson": "0.5"}])
    monkeypatch.setattr(network_module, "_run", run)
    given = tmp_path / "w2v.txt"
    given.write_text("1 2\nword 0.1 0.2\n")
    report = reproduce("dscs", sources={W2V: given}, output=tmp_path / "out")
    [note] = report.notes
    assert "leaderboard.json" in note and "not a valid record" in note
    assert all(row.ours is None for row in report.rows if row.reading is not None)


def test_a_result_that_failed_in_the_run_is_a_note(monkeypatch, tmp_path):
    failed = {"task": "DSCS", "model": "avg-cos (x)", "pearson": None, "spearman": None}
    run, _ = _stand_in_run([{**failed, "error": "out of memory"}])
    monkeypatch.setattr(network_module, "_run", run)
    given = tmp_path / "w2v.txt"
    given.write_text("1 2\nword 0.1 0.2\n")
    report = reproduce("dscs", sources={W2V: given}, output=tmp_path / "out")
    [note] = report.notes
    assert note.count("out of memory") == 2  # the Pearson and the Spearman row
    assert all(row.ours is None for row in report.rows if row.reading is not None)


# --------------------------------------------------------------------------------------------
# --source values
# --------------------------------------------------------------------------------------------
names = st.text(
    st.characters(blacklist_characters="=", blacklist_categories=("Cs",)),  # type: ignore[arg-type]  # a category name
    min_size=1,
)


@given(name=names.filter(lambda name: name.strip() != ""), other=names)
@settings(max_examples=50)
def test_a_source_is_split_at_its_first_equals_sign(tmp_path_factory, name, other):
    folder = tmp_path_factory.mktemp("source")
    path = folder / "with=equals.txt"  # a PATH may itself hold "="
    path.write_text("")
    assert network_module.parse_sources([f"{name}={path}"]) == {name.strip(): path}
    with pytest.raises(UserInputError, match="--source"):
        network_module.parse_sources([other])  # no "=" at all
