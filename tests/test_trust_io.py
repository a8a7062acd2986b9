"""The trust boundary (sts_extras.io): confined paths, strict numbers, text, records, digests.

Every reader and writer of files from outside goes through these helpers, so their properties are
checked here for any input hypothesis can think of, not only for the attacks we know.
"""

from __future__ import annotations

import json
import math
import os
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sts_extras.errors import UserInputError, UserInputTypeError
from sts_extras.io import (
    Record,
    RecordError,
    TextDecodeError,
    UnsafePathError,
    check_distinct_file_names,
    check_file_name,
    confined_path,
    content_digest,
    file_name,
    folder_content_digest,
    json_count,
    json_number,
    parse_number,
    parse_record,
    read_json,
    read_text,
)

FAST = settings(
    max_examples=200,
    deadline=None,
    # the fixtures are read-only folders: sharing them between examples is what is wanted
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
# path pieces an attacker would try: traversal, separators, NUL, look-alikes of dots and slashes
HOSTILE = st.sampled_from(
    ["..", ".", "/", "\\", "\x00", "\n", "．．", "\u2215", "\u2024\u2024", "~", "", "a", "b.json"]
    # the links of the root_with_links fixture
    + ["out", "up", "inside", "inner"]
)


def _inside(path: Path, root: Path) -> bool:
    real, real_root = Path(os.path.realpath(path)), Path(os.path.realpath(root))
    return real == real_root or real_root in real.parents


# --------------------------------------------------------------------------------------------
# confined_path
# --------------------------------------------------------------------------------------------
@pytest.fixture
def root_with_links(tmp_path: Path) -> Path:
    """A root holding a folder, a link leading out of it, and a link staying inside."""
    root = tmp_path / "root"
    (root / "inner").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "out").symlink_to(outside)
    (root / "up").symlink_to("..")
    (root / "inside").symlink_to("inner")
    (root / "inner" / "file.json").write_text("{}", encoding="utf-8")
    return root


@pytest.mark.parametrize(
    "name",
    [
        "../evil.pth",
        "a/../../evil.pth",
        "/etc/passwd",
        "out/evil.pth",
        "up/evil.pth",
        "inner/../../evil",
        "a//b",
        "./a",
        "a/./b",
        "a\\..\\b",
        "a\x00b",
        "",
        "a/",
        "con.json",
    ],
)
def test_a_name_leaving_the_root_is_refused(root_with_links: Path, name: str) -> None:
    with pytest.raises(UnsafePathError, match="cell record"):
        confined_path(root_with_links, name, "cell record")


def test_a_plain_name_and_a_link_inside_the_root_are_accepted(root_with_links: Path) -> None:
    root = root_with_links
    assert confined_path(root, "inner/file.json", "x") == root / "inner" / "file.json"
    assert confined_path(root, "inside/file.json", "x") == root / "inside" / "file.json"
    assert confined_path(root, "new/folder/file.json", "x") == root / "new/folder/file.json"


def test_non_strings_are_refused(tmp_path: Path) -> None:
    for value in (None, 3, b"a", ["a"], Path("a")):
        with pytest.raises(UnsafePathError, match="expected a relative path"):
            confined_path(tmp_path, value, "x")


@FAST
@given(parts=st.lists(st.one_of(HOSTILE, st.text(min_size=0, max_size=6)), max_size=5))
def test_whatever_the_name_an_accepted_path_stays_inside(
    root_with_links: Path, parts: list[str]
) -> None:
    name = "/".join(parts)
    try:
        path = confined_path(root_with_links, name, "x")
    except UnsafePathError:
        return
    assert _inside(path, root_with_links)
    # and writing there stays inside too (what collect and write_cell do)
    assert ".." not in path.relative_to(root_with_links).parts


@FAST
@given(name=st.text(max_size=40))
def test_a_checked_file_name_is_one_plain_component(name: str) -> None:
    try:
        checked = check_file_name(name, "x")
    except UnsafePathError:
        return
    assert checked == name
    assert Path(name).name == name
    assert name not in ("", ".", "..")
    assert not set(name) & {"/", "\\", "\x00"}


@FAST
@given(text=st.text(max_size=60))
def test_file_name_always_gives_a_safe_component(text: str) -> None:
    check_file_name(file_name(text), "x")


def test_names_sharing_a_file_name_are_refused_before_any_work() -> None:
    check_distinct_file_names(["bert base", "bert-base", "DynaMax"], "--model")
    with pytest.raises(UserInputError, match=r"'bert base' and 'bert/base'.*--model PATH=NAME"):
        check_distinct_file_names(["bert base", "bert/base"], "--model")
    with pytest.raises(UserInputError, match="share the file name"):
        check_distinct_file_names(["Model", "model"], "--model")  # one file on macOS/Windows


@FAST
@given(names=st.lists(st.text(max_size=12), max_size=8))
def test_distinct_file_names_accepted_means_distinct_files(names: list[str]) -> None:
    unique = list(dict.fromkeys(names))
    try:
        check_distinct_file_names(unique, "x")
    except UserInputError:
        return
    assert len({file_name(name).casefold() for name in unique}) == len(unique)


# --------------------------------------------------------------------------------------------
# numbers
# --------------------------------------------------------------------------------------------
DECIMALS = st.from_regex(
    r"\A[+-]?([0-9]{1,12}(\.[0-9]{0,8})?|\.[0-9]{1,8})([eE][+-]?[0-9]{1,2})?\Z"
)


@FAST
@given(text=DECIMALS)
def test_a_plain_decimal_reads_as_float_does(text: str) -> None:
    assert parse_number(f" {text}\t", "x") == float(text)


@FAST
@given(text=st.text(max_size=12))
def test_only_the_decimal_grammar_is_accepted(text: str) -> None:
    try:
        value = parse_number(text, "score")
    except UserInputError as error:
        assert "score" in str(error)
        return
    assert math.isfinite(value)
    stripped = text.strip(" \t")
    assert set(stripped) <= set(string.digits + "+-.eE")
    assert value == float(stripped)


@pytest.mark.parametrize(
    "text", ["1_000", "0x10", "inf", "-Infinity", "nan", "true", "1,5", "\u0661", "", "1e999"]
)
def test_spellings_float_accepts_or_misreads_are_refused(text: str) -> None:
    with pytest.raises(UserInputError, match="score"):
        parse_number(text, "score")


def test_json_numbers_are_never_booleans_or_strings() -> None:
    assert json_number(3, "x") == 3.0
    assert json_number(0.25, "x") == 0.25
    value: object
    for value in (True, False, "1", None, [1]):
        with pytest.raises(UserInputTypeError):
            json_number(value, "x")
    with pytest.raises(UserInputError):
        json_number(float("nan"), "x")
    assert json_count(5, "x", high=5) == 5
    for value in (True, 5.0, "5"):
        with pytest.raises(UserInputTypeError):
            json_count(value, "x")
    with pytest.raises(UserInputError, match="at most 5"):
        json_count(6, "--n", high=5)


# --------------------------------------------------------------------------------------------
# text and JSON
# --------------------------------------------------------------------------------------------
@FAST
@given(text=st.text(max_size=50), bom=st.booleans())
def test_utf8_reads_the_same_with_or_without_a_byte_order_mark(
    tmp_path_factory: pytest.TempPathFactory, text: str, bom: bool
) -> None:
    assume(not text.startswith("\ufeff"))
    path = tmp_path_factory.mktemp("text") / "f.txt"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8", "surrogatepass"))
    try:
        read = read_text(path, "--items")
    except TextDecodeError:
        assert any(0xD800 <= ord(c) <= 0xDFFF for c in text)  # lone surrogates are not UTF-8
        return
    assert read == text


def test_text_errors_name_the_argument(tmp_path: Path) -> None:
    (tmp_path / "latin1.csv").write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(TextDecodeError, match="--pairs.*not UTF-8"):
        read_text(tmp_path / "latin1.csv", "--pairs")
    with pytest.raises(UserInputError, match="--pairs.*does not exist"):
        read_text(tmp_path / "missing.csv", "--pairs")
    with pytest.raises(UserInputError, match="a folder"):
        read_text(tmp_path, "--pairs")
    (tmp_path / "big").write_bytes(b"x" * 11)
    with pytest.raises(TextDecodeError, match="larger than 10 bytes"):
        read_text(tmp_path / "big", "x", limit=10)


@pytest.mark.parametrize(
    "text", ['{"a": NaN}', '{"a": Infinity}', '{"a": 1, "a": 2}', "{", '{"a": -Infinity}']
)
def test_json_is_read_strictly(tmp_path: Path, text: str) -> None:
    (tmp_path / "r.json").write_text(text, encoding="utf-8")
    with pytest.raises(TextDecodeError, match="cell record"):
        read_json(tmp_path / "r.json", "cell record")


# --------------------------------------------------------------------------------------------
# records
# --------------------------------------------------------------------------------------------
class _Cell(Record):
    model: str
    pearson: float | None
    files: tuple[str, ...]


def test_a_record_is_parsed_strictly() -> None:
    cell = parse_record(_Cell, {"model": "m", "pearson": 0.5, "files": ["a"]}, "cell")
    assert cell.files == ("a",)
    bad: object
    for bad in (
        {"model": "m", "pearson": True, "files": []},  # a boolean is no number
        {"model": "m", "pearson": "0.5", "files": []},  # nor is a string
        {"model": "m", "pearson": float("nan"), "files": []},
        {"model": "m", "pearson": 0.5, "files": [], "extra": 1},  # unknown field
        {"model": 3, "pearson": 0.5, "files": []},
        {"pearson": 0.5, "files": []},
        [],
    ):
        with pytest.raises(RecordError, match="cells/m/t.json is not a valid record"):
            parse_record(_Cell, bad, "cells/m/t.json")
    with pytest.raises(Exception, match="frozen"):
        cell.model = "other"  # type: ignore[misc]  # deliberately: the field is frozen


@FAST
@given(
    value=st.one_of(
        st.booleans(),
        st.text(max_size=5),
        st.none(),
        st.floats(),
        st.integers(),
        st.lists(st.integers(), max_size=2),
    )
)
def test_a_record_field_is_either_valid_or_refused(value: object) -> None:
    data = {"model": "m", "pearson": value, "files": []}
    try:
        cell = parse_record(_Cell, json.loads(json.dumps(data)), "cell")
    except (RecordError, ValueError):
        return
    assert cell.pearson is None or (
        not isinstance(value, bool) and math.isfinite(cell.pearson) and cell.pearson == float(value)  # type: ignore[arg-type]
    )


# --------------------------------------------------------------------------------------------
# content digests
# --------------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    data=st.binary(min_size=1, max_size=4096), where=st.integers(min_value=0), bit=st.integers(0, 7)
)
def test_any_changed_byte_changes_the_digest(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, where: int, bit: int
) -> None:
    folder = tmp_path_factory.mktemp("digest")
    path = folder / "model.safetensors"
    path.write_bytes(data)
    before = content_digest(path, memo_dir=folder / "memo")
    changed = bytearray(data)
    changed[where % len(data)] ^= 1 << bit
    path.write_bytes(bytes(changed))
    assert content_digest(path, memo_dir=folder / "memo") != before


def test_a_digest_is_memoised_but_never_across_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sts_extras.io.content as content

    path = tmp_path / "vectors.bin"
    path.write_bytes(b"\0" * 1000)
    calls: list[Path] = []
    real = content.file_digest
    monkeypatch.setattr(
        content,
        "file_digest",
        lambda p: calls.append(p) or real(p),  # type: ignore[func-returns-value]  # a spy: append's None, then the real call
    )
    memo = tmp_path / "memo"
    first = content_digest(path, memo_dir=memo)
    content._MEMO.clear()  # a new process: only the memo on disk is left
    assert content_digest(path, memo_dir=memo) == first
    assert len(calls) == 1
    info = path.stat()
    with path.open("r+b") as handle:  # same size, then the old mtime set back
        handle.seek(500)
        handle.write(b"\1")
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert content_digest(path, memo_dir=memo) != first
    assert len(calls) == 2


def test_a_folder_digest_follows_content_not_location(tmp_path: Path) -> None:
    for where in ("a", "b"):
        (tmp_path / where / "sub").mkdir(parents=True)
        (tmp_path / where / "config.json").write_text("{}", encoding="utf-8")
        (tmp_path / where / "sub" / "w.bin").write_bytes(b"12345")
    (tmp_path / "b" / ".sts-extras-manifest.json").write_text("{}", encoding="utf-8")
    memo = tmp_path / "memo"
    assert folder_content_digest(tmp_path / "a", memo_dir=memo) == folder_content_digest(
        tmp_path / "b", memo_dir=memo
    )
    (tmp_path / "b" / "sub" / "w.bin").rename(tmp_path / "b" / "sub" / "v.bin")
    assert folder_content_digest(tmp_path / "a", memo_dir=memo) != folder_content_digest(
        tmp_path / "b", memo_dir=memo
    )


# --------------------------------------------------------------------------------------------
# manifests (caches and output folders)
# --------------------------------------------------------------------------------------------
def _entry(tmp_path: Path) -> Path:
    from sts_extras.integrity import write_manifest

    entry = tmp_path / "entry"
    entry.mkdir()
    (entry / "vectors.npy").write_bytes(b"rows")
    write_manifest(entry, {"model": "m"})
    return entry


def test_a_symlink_planted_in_a_cache_entry_fails_its_check(tmp_path: Path) -> None:
    from sts_extras.integrity import verify_manifest

    entry = _entry(tmp_path)
    assert verify_manifest(entry, {"model": "m"}) is None
    (tmp_path / "secret").write_text("elsewhere", encoding="utf-8")
    (entry / "extra").symlink_to(tmp_path / "secret")
    assert "symbolic link" in str(verify_manifest(entry, {"model": "m"}))


def test_listed_names_are_confined_and_links_are_refused(tmp_path: Path) -> None:
    from sts_extras.integrity import verify_listed

    entry = _entry(tmp_path)
    assert verify_listed(entry, ["vectors.npy"]) is None
    assert "not a plain relative path" in str(verify_listed(entry, ["../entry/vectors.npy"]))
    assert "not a relative path" in str(verify_listed(entry, [str(entry / "vectors.npy")]))
    (entry / "vectors.npy").rename(tmp_path / "moved.npy")
    (entry / "vectors.npy").symlink_to(tmp_path / "moved.npy")  # same bytes, read from elsewhere
    assert "leads out of" in str(verify_listed(entry, ["vectors.npy"]))


@pytest.mark.parametrize(
    "manifest",
    [
        '{"key": 1, "files": {"vectors.npy": [true, "x"]}}',
        '{"key": 1, "files": {"vectors.npy": ["4", "x"]}}',
        '{"key": 1, "files": {}, "extra": 2}',
        '{"files": {}}',
        "[]",
        '{"key": NaN, "files": {}}',
    ],
)
def test_a_malformed_manifest_is_unreadable_never_trusted(tmp_path: Path, manifest: str) -> None:
    from sts_extras.integrity import MANIFEST_FILE, verify_listed, verify_manifest

    entry = _entry(tmp_path)
    (entry / MANIFEST_FILE).write_text(manifest, encoding="utf-8")
    assert "unreadable" in str(verify_manifest(entry))
    assert "unreadable" in str(verify_listed(entry, ["vectors.npy"]))
