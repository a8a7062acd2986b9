"""The trust boundary: everything sts-extras reads from outside goes through this package.

Files from elsewhere (shards, cell records, MTEB folders, caches, vote exports, user tables,
items files, vector headers) are untrusted. They are read as text with :func:`read_text`
(UTF-8, with or without a byte-order mark), numbers in them are parsed by one strict parser
(:func:`parse_number`, :func:`json_number`), JSON records are parsed once into validated frozen
objects (:func:`parse_record` over a :class:`Record` schema), every path named by a record is
resolved inside its root (:func:`confined_path`), names that become file names are checked for
collisions before any work (:func:`check_distinct_file_names`), and files and values are
identified by their full content, always with the one content hash :data:`CONTENT_HASH`
(XXH3-128: :func:`content_hash`, :func:`file_digest`, :func:`content_digest`,
:func:`folder_content_digest`).
"""

from sts_extras.io.content import (
    CONTENT_HASH,
    content_digest,
    content_hash,
    file_digest,
    folder_content_digest,
)
from sts_extras.io.locations import default_cache_dir
from sts_extras.io.numbers import json_count, json_number, parse_number
from sts_extras.io.paths import (
    UnsafePathError,
    check_distinct_file_names,
    check_file_name,
    check_relative_path,
    confined_path,
    file_name,
)
from sts_extras.io.records import Record, RecordError, parse_record, read_record
from sts_extras.io.text import TextDecodeError, read_json, read_text

__all__ = [
    "CONTENT_HASH",
    "Record",
    "RecordError",
    "TextDecodeError",
    "UnsafePathError",
    "check_distinct_file_names",
    "check_file_name",
    "check_relative_path",
    "confined_path",
    "content_digest",
    "content_hash",
    "default_cache_dir",
    "file_digest",
    "file_name",
    "folder_content_digest",
    "json_count",
    "json_number",
    "parse_number",
    "parse_record",
    "read_json",
    "read_record",
    "read_text",
]
