"""DSCS and STSS-131: transcription facts, builders, Hub-ready folders, offline loading."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
from numpy.testing import assert_allclose

import sts_extras
from sts_extras.benchmark_tables import read_rows
from sts_extras.integrations.datasets.builders import DSCS, STSS131
from sts_extras.integrations.datasets.hub_folder import hub_folder_files
from sts_extras.integrations.datasets.loading import load_dataset

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("hf_cache"))


# --- the tables -------------------------------------------------------------------------------


def test_dscs_has_the_50_pairs_of_table_5_with_scores_summing_to_134_82():
    rows = read_rows("dscs")
    assert [row["id"] for row in rows] == list(range(1, 51))
    assert_allclose(sum(row["score"] for row in rows), 134.82, rtol=0, atol=1e-9)
    assert all(0.0 <= row["score"] <= 5.0 for row in rows)


def test_dscs_rows_are_transcribed_as_printed():
    rows = {row["id"]: row for row in read_rows("dscs")}
    assert rows[1]["sentence1"] == "The study of computation and information."
    assert rows[1]["score"] == 3.60
    # Pair 41 prints "(cloud storage)" where pair 40 does not: kept as printed.
    assert "data storage (cloud storage) and" in rows[41]["sentence1"]
    assert rows[50]["sentence2"] == (
        "A statistical observation that is markedly different in value from the others "
        "of the sample"
    )
    assert rows[50]["score"] == 4.13


def test_stss131_default_config_has_the_64_usable_pairs():
    rows = read_rows("stss131")
    ids = [row["id"] for row in rows]
    assert ids == [i for i in range(66, 132) if i not in (99, 129)]
    assert_allclose(sum(row["score"] for row in rows), 129.48, rtol=0, atol=1e-9)
    assert_allclose(sum(row["sd"] for row in rows), 45.32, rtol=0, atol=1e-9)
    assert all(0.0 <= row["score"] <= 4.0 for row in rows)
    assert "calibration" not in rows[0]


def test_stss131_all_config_flags_exactly_the_two_calibration_pairs():
    rows = read_rows("stss131", "all")
    assert [row["id"] for row in rows] == list(range(66, 132))
    assert {row["id"] for row in rows if row["calibration"]} == {99, 129}


@pytest.mark.parametrize(
    ("pair", "score", "sd"),
    [
        (85, 1.71, 1.03),
        (115, 0.88, 0.75),
        (121, 2.83, 0.90),
        (122, 0.12, 0.28),
        (123, 3.83, 0.34),
        (124, 0.74, 0.76),
        (126, 0.11, 0.31),
        (130, 0.16, 0.34),
    ],
)
def test_stss131_errata_of_the_born_digital_report_are_applied(pair, score, sd):
    row = {row["id"]: row for row in read_rows("stss131")}[pair]
    assert (row["score"], row["sd"]) == (score, sd)


def test_stss131_text_errata_are_applied():
    rows = {row["id"]: row for row in read_rows("stss131")}
    assert (
        rows[116]["sentence2"]
        == "Make that wet hound get off my white couch \u2013 I only just bought it."
    )
    assert rows[130]["sentence1"] == "I bought a new guitar today, do you like it?"
    assert rows[130]["sentence2"] == "The weapon choice reflects the personality of the carrier."
    assert rows[131]["sentence1"] == "I am so hungry I could eat a whole horse plus dessert."


@pytest.mark.parametrize(("name", "config"), [("dscs", None), ("stss131", "all")])
def test_no_sentence_is_empty_or_padded(name, config):
    for row in read_rows(name, config):
        for column in ("sentence1", "sentence2"):
            assert row[column].strip() == row[column] != ""


# --- builders ---------------------------------------------------------------------------------


@pytest.mark.parametrize("builder", [DSCS, STSS131])
def test_builders_are_generator_based_with_full_metadata(builder, cache_dir):
    assert issubclass(builder, datasets.GeneratorBasedBuilder)
    info = builder(cache_dir=cache_dir).info
    assert info.citation.startswith("@article{")
    assert info.homepage.startswith("https://")
    assert "states no license" in info.license
    assert {"id", "sentence1", "sentence2", "score"} <= set(info.features)


def test_load_dataset_returns_typed_test_split(cache_dir):
    dscs = load_dataset("dscs", cache_dir=cache_dir)
    assert list(dscs) == ["test"]
    assert dscs["test"].features == datasets.Features(
        {
            "id": datasets.Value("int32"),
            "sentence1": datasets.Value("string"),
            "sentence2": datasets.Value("string"),
            "score": datasets.Value("float64"),
        }
    )
    stss_all = load_dataset("stss131", "all", cache_dir=cache_dir)["test"]
    assert stss_all.features["calibration"] == datasets.Value("bool")
    assert stss_all.num_rows == 66


def test_builders_do_not_share_a_cache(cache_dir):
    first = load_dataset("dscs", cache_dir=cache_dir)["test"]
    second = load_dataset("stss131", cache_dir=cache_dir)["test"]
    assert (first.num_rows, second.num_rows) == (50, 64)
    assert first.cache_files[0]["filename"] != second.cache_files[0]["filename"]


def test_top_level_load_dataset_accepts_the_papers_spelling(cache_dir):
    assert sts_extras.load_dataset("STSS-131", cache_dir=cache_dir)["test"].num_rows == 64


@pytest.mark.parametrize(
    ("name", "config", "message"),
    [
        ("sick", None, "valid names: 'dscs', 'stss131'"),
        ("stss131", "usable", "valid configs: 'default', 'all'"),
        ("dscs", "all", "valid configs: 'default'"),
    ],
)
def test_unknown_dataset_or_config_lists_the_valid_names(name, config, message):
    with pytest.raises(ValueError, match=message):
        load_dataset(name, config)


def test_load_dataset_works_offline_from_any_working_directory(tmp_path):
    script = (
        "import json, sts_extras; d = sts_extras.load_dataset('stss131', 'all', cache_dir='cache');"
        "print(json.dumps([d['test'].num_rows, sts_extras.__file__]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
        },
        check=False,
    )
    assert result.returncode == 0, result.stderr
    rows, module_file = json.loads(result.stdout.strip().splitlines()[-1])
    assert rows == 66
    assert not module_file.startswith(str(tmp_path))


# --- plain `datasets.load_dataset` on the shipped folders (sts_extras.dataset_path) -------------

# Loads each (dataset, config) with plain `datasets`, in a fresh process, offline, from `cwd`.
_PLAIN_LOAD = """
import json, sys, datasets, sts_extras
name, config = sys.argv[1], (sys.argv[2] or None)
path = sts_extras.dataset_path(name)
test = datasets.load_dataset(path, config, split="test")
print(json.dumps([path, test.num_rows, test.column_names, list(test["id"])]))
"""


def _plain_load(python: str, name: str, config: str | None, cwd: Path, hf_home: Path) -> list:
    result = subprocess.run(
        [python, "-c", _PLAIN_LOAD, name, config or ""],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": str(hf_home),
            "PATH": "/usr/bin:/bin",
            "HOME": str(cwd),
        },
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_dataset_path_is_an_absolute_str_naming_the_hub_folder():
    for name in ("dscs", "stss131", "STSS-131"):
        path = sts_extras.dataset_path(name)
        assert type(path) is str and Path(path).is_absolute()
        assert Path(path, "README.md").is_file()
    # in a checkout, the generated folders themselves (the test above holds them to the table)
    assert Path(sts_extras.dataset_path("dscs")) == REPO / "dataset_scripts" / "dscs"


def test_dataset_path_refuses_unknown_names_listing_the_valid_ones():
    with pytest.raises(ValueError, match="valid names: 'dscs', 'stss131'"):
        sts_extras.dataset_path("sts-b")


def test_plain_datasets_loads_dataset_path_offline_outside_the_checkout_with_a_warm_cache(
    tmp_path,
):
    # A name instead of a path made `datasets` look in the Hub cache, where both configs of
    # stss131 were found ("multiple configurations in the cache: default, all"); the path of a
    # local folder never does. Default, then all, then default again, each in a new process.
    work, hf_home = tmp_path / "elsewhere", tmp_path / "hf"
    work.mkdir()
    default_ids = [row["id"] for row in read_rows("stss131")]
    for config, rows, ids in [
        (None, 64, default_ids),
        ("all", 66, list(range(66, 132))),
        (None, 64, default_ids),
        ("default", 64, default_ids),
    ]:
        path, num_rows, columns, loaded_ids = _plain_load(
            sys.executable, "stss131", config, work, hf_home
        )
        assert (num_rows, loaded_ids) == (rows, ids)
        assert ("calibration" in columns) == (config == "all")
        assert not path.startswith(str(work))
    assert _plain_load(sys.executable, "dscs", None, work, hf_home)[1] == 50


# --- Hub-ready folders ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["dscs", "stss131"])
def test_hub_folder_is_exactly_what_the_package_table_generates(name):
    folder = REPO / "dataset_scripts" / name
    generated = hub_folder_files(name)
    on_disk = {
        path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
        for path in folder.rglob("*")
        if path.is_file()
    }
    assert on_disk == generated, (
        "run `python -m sts_extras.integrations.datasets.hub_folder dataset_scripts` to regenerate"
    )


@pytest.mark.parametrize(
    ("name", "config"), [("dscs", None), ("stss131", None), ("stss131", "all")]
)
def test_plain_datasets_loads_the_hub_folder_like_the_builder(name, config, cache_dir):
    folder = str(REPO / "dataset_scripts" / name)
    args = (folder,) if config is None else (folder, config)
    from_folder = datasets.load_dataset(*args, cache_dir=cache_dir)["test"]
    from_builder = load_dataset(name, config, cache_dir=cache_dir)["test"]
    assert from_folder.features == from_builder.features
    assert from_folder.to_list() == from_builder.to_list()


def test_hub_card_declares_configs_features_license_and_citation():
    card = hub_folder_files("stss131")["README.md"]
    front_matter = card.split("---\n")[1]
    import yaml

    meta = yaml.safe_load(front_matter)
    assert [c["config_name"] for c in meta["configs"]] == ["default", "all"]
    assert meta["license"] == "other" and "no license" in meta["license_details"]
    assert meta["task_categories"] == ["sentence-similarity"]
    assert meta["pretty_name"].startswith("STSS-131")
    assert "doi     = {10.1145/2537046}" in card


# --- datasets.load_dataset's keywords, passed through -----------------------------------------


def test_split_returns_the_dataset_like_datasets_does(cache_dir):
    test = load_dataset("dscs", split="test", cache_dir=cache_dir)
    assert isinstance(test, datasets.Dataset) and test.num_rows == 50
    assert load_dataset("stss131", "all", split="test[:5]", cache_dir=cache_dir)["id"] == list(
        range(66, 71)
    )


def test_streaming_gives_iterable_datasets(cache_dir):
    streamed = load_dataset("stss131", streaming=True, cache_dir=cache_dir)
    assert isinstance(streamed, datasets.IterableDatasetDict)
    rows = list(load_dataset("dscs", split="test", streaming=True, cache_dir=cache_dir))
    assert rows == load_dataset("dscs", split="test", cache_dir=cache_dir).to_list()


def test_other_datasets_keywords_pass_through(cache_dir):
    test = load_dataset(
        "dscs",
        config=None,
        split="test",
        cache_dir=cache_dir,
        keep_in_memory=True,
        download_mode="force_redownload",
        verification_mode="no_checks",
    )
    assert test.num_rows == 50 and not test.cache_files  # in memory


def test_keywords_that_pick_another_source_are_refused():
    with pytest.raises(TypeError, match="does not take data_files"):
        load_dataset("dscs", data_files="x.csv")


# --- Hub dataset cards --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["dscs", "stss131"])
def test_hub_card_has_the_fields_the_hub_asks_for(name):
    # `DatasetCard.validate` posts the card to the Hub (network); offline, huggingface_hub parses
    # it and the values are checked against the vocabularies shipped with `datasets`.
    from importlib import resources

    from huggingface_hub import DatasetCard

    card = DatasetCard((REPO / "dataset_scripts" / name / "README.md").read_text(encoding="utf-8"))
    data = card.data.to_dict()
    vocab = resources.files("datasets.utils.resources")
    creators = json.loads(vocab.joinpath("creators.json").read_text())
    multilinguality = json.loads(vocab.joinpath("multilingualities.json").read_text())
    sizes = json.loads(vocab.joinpath("size_categories.json").read_text())
    languages = json.loads(vocab.joinpath("languages.json").read_text())
    assert data["annotations_creators"] and set(data["annotations_creators"]) <= set(
        creators["annotations"]
    )
    assert data["language_creators"] and set(data["language_creators"]) <= set(creators["language"])
    assert data["multilinguality"] and set(data["multilinguality"]) <= set(multilinguality)
    assert data["source_datasets"] == ["original"]
    assert set(data["size_categories"]) <= set(sizes) and set(data["language"]) <= set(languages)
    # license "other" needs a name and a link on the Hub; the papers state none, and say so
    assert data["license"] == "other" and data["license_name"] and data["license_link"]
    assert data["license_link"].startswith("https://")
