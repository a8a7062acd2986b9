"""sts-extras reached through each ecosystem's own door, after a plain ``pip install``.

The evaluate modules ship inside the wheel (each file once) and load from any directory offline;
their ``requirements.txt`` and evaluate's import hint name an installable sts-extras; the core
install is light and every import is declared; a missing extra names the ``pip install`` to run.
The wheel carries LICENSE and NOTICE, every version string agrees, and the install instructions
say the same thing everywhere (sts-extras is not on PyPI yet).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from setuptools.config.setupcfg import read_configuration

import sts_extras
from sts_extras._version import __version__
from sts_extras.errors import UserInputError
from sts_extras.integrations.evaluate.modules import METRICS
from sts_extras.optional import EXTRAS, MissingExtraError, import_optional, requires_extra

REPO = Path(__file__).resolve().parents[1]
OPTIONS = read_configuration(REPO / "setup.cfg")["options"]
CORE = {canonicalize_name(Requirement(line).name) for line in OPTIONS["install_requires"]}
EXTRAS_REQUIRE = {
    extra: [Requirement(line) for line in lines]
    for extra, lines in OPTIONS["extras_require"].items()
}
HEAVY = ("torch", "mteb", "sentence-transformers", "transformers", "gensim", "model2vec")
# runs `evaluate.load(metric_path(...))` for every module, offline, in a fresh process (the path
# as it is: evaluate.load fails inside on a pathlib.Path), and plain `datasets.load_dataset` on
# the shipped dataset folders
LOAD_ALL_MODULES = """
import json, evaluate, sts_extras
a, b, gold = [1, 2, 3, 5, 4, 6], [2, 1, 3, 4, 6, 5], [1, 3, 2, 4, 5, 6]
out = {
    "scaled_pearson": evaluate.load(sts_extras.metric_path("scaled_pearson")).compute(
        predictions=a, references=gold, bins=1),
    "weighted_rank_correlation": evaluate.load(
        sts_extras.metric_path("weighted_rank_correlation")).compute(
        predictions=a, references=gold),
    "steiger": sts_extras.load_metric("steiger").compute(
        predictions1=a, predictions2=b, references=gold),
    "bca_bootstrap": sts_extras.load_metric("bca_bootstrap", seed=0).compute(
        predictions1=a, predictions2=b, references=gold, n_resamples=200),
}
out["paths"] = [sts_extras.metric_path(name) for name in sorted(out)]
import datasets
out["datasets"] = {
    name: datasets.load_dataset(sts_extras.dataset_path(name), config, split="test").num_rows
    for name, config in [("dscs", None), ("stss131", "all"), ("stss131", None)]
}
out["dataset_paths"] = [sts_extras.dataset_path(name) for name in ("dscs", "stss131")]
out["version"] = sts_extras.__version__
print(json.dumps(out, default=str))
"""


def _offline_env(home: Path) -> dict[str, str]:
    return {
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HOME": str(home / "hf"),
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
    }


def _run(python: str, script: str, cwd: Path) -> dict:
    result = subprocess.run(
        [python, "-c", script],
        cwd=cwd,
        env=_offline_env(cwd),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


# --- the evaluate modules, installed ---------------------------------------------------------


def test_metric_path_and_load_metric_work_from_any_directory_offline(tmp_path):
    out = _run(sys.executable, LOAD_ALL_MODULES, tmp_path)
    assert out["steiger"]["n"] == 6
    assert out["datasets"] == {"dscs": 50, "stss131": 64}
    assert set(out["weighted_rank_correlation"]) >= {"rho_w", "tau_w"}
    for path in out["paths"]:
        assert Path(path, Path(path).name + ".py").is_file()
        assert not path.startswith(str(tmp_path))


def test_metric_path_is_the_folder_evaluate_loads_from_a_checkout():
    for name in METRICS:
        path = sts_extras.metric_path(name)
        assert type(path) is str  # what evaluate.load takes as it is
        assert Path(path).resolve() == (REPO / "metrics" / name).resolve()


def test_unknown_module_name_lists_the_four():
    with pytest.raises(UserInputError, match="valid names: 'scaled_pearson', "):
        sts_extras.metric_path("pearson")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the sources (the build writes into its source tree)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("setup.py", "setup.cfg", "pyproject.toml", "README.md", "LICENSE", "NOTICE"):
        shutil.copy2(REPO / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for folder in ("sts_extras", "metrics", "dataset_scripts"):
        shutil.copytree(REPO / folder, source / folder, ignore=ignore)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(out), str(source)],
        check=True,
        capture_output=True,
    )
    return next(out.glob("sts_extras-*.whl"))


def test_wheel_carries_every_module_file_exactly_once(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert len(names) == len(set(names))
    for folder in (path.parent for path in (REPO / "metrics").glob("*/requirements.txt")):
        for file in ("README.md", "requirements.txt", "app.py", f"{folder.name}.py"):
            assert f"sts_extras/metrics/{folder.name}/{file}" in names
    assert not [name for name in names if name.startswith("metrics/")]


def test_wheel_carries_each_hub_dataset_folder_as_generated(wheel):
    from sts_extras.benchmark_tables import DATASETS
    from sts_extras.integrations.datasets.hub_folder import hub_folder_files

    archive = zipfile.ZipFile(wheel)
    for name in DATASETS:
        for relative, text in hub_folder_files(name).items():
            shipped = archive.read(f"sts_extras/dataset_folders/{name}/{relative}")
            assert shipped.decode("utf-8") == text
    assert not [n for n in archive.namelist() if n.startswith("dataset_scripts/")]


def test_wheel_carries_the_licence_and_the_notice_and_says_its_version_and_python(wheel):
    archive = zipfile.ZipFile(wheel)
    assert wheel.name == f"sts_extras-{__version__}-py3-none-any.whl"
    info = f"sts_extras-{__version__}.dist-info"
    for name in ("LICENSE", "NOTICE"):
        assert archive.read(f"{info}/licenses/{name}") == (REPO / name).read_bytes()
    fields = archive.read(f"{info}/METADATA").decode("utf-8").split("\n\n", 1)[0].splitlines()
    assert f"Version: {__version__}" in fields and "Requires-Python: >=3.11" in fields
    assert {"License-File: LICENSE", "License-File: NOTICE"} <= set(fields)


def test_modules_load_from_a_non_editable_install(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # the dependencies come from this interpreter's site-packages, after the venv's own
    Path(site, "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)  # what pip does for a pure-Python wheel
    work = tmp_path / "elsewhere"
    work.mkdir()
    out = _run(python, LOAD_ALL_MODULES, work)
    assert all(path.startswith(site) for path in out["paths"] + out["dataset_paths"])
    assert out["version"] == __version__
    assert out["steiger"]["n"] == 6
    assert out["datasets"] == {"dscs": 50, "stss131": 64}


# --- requirements.txt and evaluate's hint ----------------------------------------------------


@pytest.mark.parametrize("name", sorted(METRICS))
def test_space_requirements_and_evaluate_hint_name_an_installable_sts_extras(name):
    from evaluate.loading import get_imports

    folder = REPO / "metrics" / name
    requirements = [
        Requirement(line)
        for line in (folder / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    ours = [req for req in requirements if req.name == "sts-extras"]
    # the distribution name, as pip resolves it (no guessed repository address)
    assert len(ours) == 1 and ours[0].url is None
    assert {req.name for req in requirements} == {"evaluate", "sts-extras"}
    # evaluate's "pip install ..." hint for a missing sts_extras names the same distribution
    hints = {path for kind, module, path, _ in get_imports(str(folder / f"{name}.py"))
             if kind == "library" and module == "sts_extras"}  # fmt: skip
    assert {hint.replace("_", "-") for hint in hints} == {"sts-extras"}


# --- light install ---------------------------------------------------------------------------


def test_core_install_is_light():
    assert {"numpy", "scipy", "datasets", "evaluate", "statsmodels", "pyyaml"} <= CORE
    assert not CORE & set(HEAVY) and "matplotlib" not in CORE and "textstat" not in CORE


def test_extras_exist_and_aggregate():
    assert set(EXTRAS_REQUIRE) >= {*EXTRAS, "all", "test"}
    (everything,) = EXTRAS_REQUIRE["all"]
    assert everything.name == "sts-extras" and set(everything.extras) >= set(EXTRAS)
    assert "all" in next(req.extras for req in EXTRAS_REQUIRE["test"] if req.name == "sts-extras")


def _runtime_nodes(tree: ast.AST):
    """Every node of ``tree`` except the bodies of ``if TYPE_CHECKING:`` (they never run: a name
    imported there for annotations needs no install)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            for child in node.orelse:
                yield child
                yield from _runtime_nodes(child)
            continue
        yield node
        yield from _runtime_nodes(node)


def _third_party_imports() -> set[str]:
    names = set()
    files = [*(REPO / "sts_extras").rglob("*.py"), *(REPO / "metrics").glob("*/*.py")]
    for path in files:
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"sts_extras"}


def test_imports_for_annotations_only_are_not_install_requirements():
    source = (
        "import a\nif TYPE_CHECKING:\n    import b\nelse:\n    import c\n"
        "def f():\n    import d\n    if typing.TYPE_CHECKING:\n        from e import E\n"
    )
    imported = [
        alias.name
        for node in _runtime_nodes(ast.parse(source))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    assert imported == ["a", "c", "d"]


def test_every_import_is_declared():
    declared = CORE | {req.name for reqs in EXTRAS_REQUIRE.values() for req in reqs}
    declared = {canonicalize_name(name) for name in declared}
    distributions = metadata.packages_distributions()
    undeclared = {
        module: distributions.get(module)
        for module in _third_party_imports()
        if not {canonicalize_name(d) for d in distributions.get(module, [module])} & declared
    }
    assert not undeclared, f"imported but not in setup.cfg: {undeclared}"


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_each_optional_module_comes_with_its_extra(extra):
    declared = {canonicalize_name(req.name) for req in EXTRAS_REQUIRE[extra]}
    # a module either is a declared distribution or one of their direct requirements
    provided = set(declared)
    for name in declared:
        provided |= {canonicalize_name(Requirement(r).name) for r in metadata.requires(name) or []}
    distributions = metadata.packages_distributions()
    for module in EXTRAS[extra]:
        assert {canonicalize_name(d) for d in distributions[module]} & provided, module


def test_missing_extra_names_the_pip_install(monkeypatch):
    # as if not installed, even when an earlier test imported it
    monkeypatch.setitem(sys.modules, "gensim", None)
    monkeypatch.setitem(sys.modules, "gensim.models", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'sts-extras\[vectors\]'"):
        import_optional("gensim.models", extra="vectors")
    with pytest.raises(ImportError, match="sts-extras"), requires_extra("vectors"):
        from gensim.models import KeyedVectors  # noqa: F401


# a fresh process without any extra installed: the core works, each extra says what to install
WITHOUT_EXTRAS = """
import importlib, json, sys
from sts_extras.optional import EXTRAS
# as if not installed. torch, transformers, tokenizers and threadpoolctl stay: the core's own
# dependencies (evaluate, datasets, scipy) use them when they are installed, as here.
for module in {m for modules in EXTRAS.values() for m in modules} - {
    "torch", "transformers", "tokenizers", "threadpoolctl"
}:
    sys.modules[module] = None
import sts_extras
from sts_extras.stats.dependent import compare_dependent_correlations
out = {"dscs": sts_extras.load_dataset("dscs", split="test", cache_dir="cache").num_rows}
out["steiger"] = sts_extras.load_metric("steiger").compute(
    predictions1=[1, 2, 3, 5, 4], predictions2=[2, 1, 3, 4, 6], references=[1, 3, 2, 4, 5])["n"]
out["stats"] = compare_dependent_correlations([1, 2, 3, 5, 4], [2, 1, 3, 4, 6], [1, 3, 2, 4, 5]).n
from pathlib import Path
Path("v.txt").write_text("cats 1 0\\ndogs 0 1\\n")
from sts_extras.vectors import WordVectors
WordVectors.load("v.txt")  # our own text reader: no gensim needed
errors = {}
for label, call in [
    ("mteb", lambda: __import__("sts_extras.integrations.mteb.tasks")),
    ("vectors", lambda: WordVectors.load("glove-wiki-gigaword-50")),
    ("describe", lambda: importlib.import_module("sts_extras.describe")
        .describe_dataset("dscs")),
]:
    try:
        call()
    except ImportError as error:
        errors[label] = str(error)
out["errors"] = errors
print(json.dumps(out))
"""


def test_core_works_without_the_extras_and_each_extra_names_its_install(tmp_path):
    out = _run(sys.executable, WITHOUT_EXTRAS, tmp_path)
    assert (out["dscs"], out["steiger"], out["stats"]) == (50, 5, 5)
    assert set(out["errors"]) == {"mteb", "vectors", "describe"}
    for extra, message in out["errors"].items():
        assert f"pip install 'sts-extras[{extra}]'" in message


def test_readme_set_up_installs_all_and_test_in_two_commands():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2
    assert 'pip install ".[all]"' in commands[0]
    # the test command is one script, and CI runs the same script
    assert commands[1].endswith("bash scripts/test.sh")
    assert 'pip install ".[test]"' in (REPO / "scripts" / "test.sh").read_text()
    assert os.path.exists(REPO / ".ci" / "run")
    assert "bash scripts/test.sh" in (REPO / ".ci" / "run").read_text()


# --- one version, one Python, one way to install ---------------------------------------------


def test_every_version_string_agrees():
    metadata_section = read_configuration(REPO / "setup.cfg")["metadata"]
    assert metadata_section["version"] == __version__ == sts_extras.__version__
    citation = (REPO / "CITATION.cff").read_text(encoding="utf-8")
    assert re.findall(r"^version: (\S+)$", citation, re.MULTILINE) == [__version__]
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.findall(r"^## (\S+)", changelog, re.MULTILINE)[0] == __version__
    leaderboard = json.loads((REPO / "docs" / "leaderboard" / "leaderboard.json").read_text())
    assert leaderboard["versions"]["sts-extras"] == __version__


def test_python_requires_is_the_python_ci_runs():
    assert OPTIONS["python_requires"] == ">=3.11"
    classifiers = read_configuration(REPO / "setup.cfg")["metadata"]["classifiers"]
    assert [
        c for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    ] == ["Programming Language :: Python :: 3.11"]
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'target-version = "py311"' in pyproject and 'python_version = "3.11"' in pyproject
    assert sys.version_info >= (3, 11)


NOT_ON_PYPI = (
    "sts-extras is not on PyPI yet: install it from a checkout (`pip install .`) or a built wheel "
    f"(`pip install sts_extras-{__version__}-py3-none-any.whl`)."
)


def _texts() -> dict[str, str]:
    """The files a user reads for how to install: README, docs, module and dataset cards, the
    metrics' requirements, the package's own sources and the build configuration."""
    paths = [REPO / "README.md", REPO / "setup.cfg", REPO / "CHANGELOG.md"]
    paths += [*(REPO / "docs").rglob("*.md"), *(REPO / "sts_extras").rglob("*.py")]
    paths += [*(REPO / "metrics").glob("*/*.md"), *(REPO / "metrics").glob("*/*.txt")]
    paths += [*(REPO / "dataset_scripts").glob("*/README.md")]
    return {str(path.relative_to(REPO)): path.read_text(encoding="utf-8") for path in paths}


def test_install_instructions_agree_everywhere():
    texts = _texts()
    # the same sentence (line breaks and comment marks aside) wherever the install is explained
    flat = {name: " ".join(re.sub(r"^\s*(#|//)?\s*", "", line) for line in text.splitlines())
            for name, text in texts.items()}  # fmt: skip
    for name in [
        "setup.cfg",
        "CHANGELOG.md",
        *(name for name in texts if name.startswith("dataset_scripts/")),
        *(
            name
            for name in texts
            if re.fullmatch(r"metrics/[^/]+/(README\.md|requirements\.txt)", name)
        ),
    ]:
        assert NOT_ON_PYPI in flat[name] or NOT_ON_PYPI.replace("`", "``") in flat[name], name
    # never the bare `pip install sts-extras`, which finds nothing until it is published (with
    # an extra it works once sts-extras is installed: pip adds the extra's packages)
    bare = re.compile(r"pip install [\"']?sts-extras(?![\w\[-])")
    assert not {name for name, text in texts.items() if bare.search(text)}
    # every wheel named is this version's
    wheel_name = re.compile(r"sts_extras-[0-9][^\s`)]*\.whl")
    wheels = {found for text in texts.values() for found in wheel_name.findall(text)}
    assert wheels == {f"sts_extras-{__version__}-py3-none-any.whl"}
