"""The one build setting setup.cfg cannot express: ship ``metrics/`` and ``dataset_scripts/``
inside the package.

Everything else is in setup.cfg. The repository's ``metrics/<name>/`` folders (one ``evaluate``
module each: script, card, ``requirements.txt``, Space ``app.py``) are the only copy of the modules;
``package_dir`` maps them to ``sts_extras.metrics.<name>``, so the wheel carries each file once and
an editable install points at the repository's folders. ``packages = find:`` in setup.cfg cannot add
a package that lives outside ``sts_extras/``, hence this file.

The same way, the Hub-ready dataset folders of ``dataset_scripts/`` (card + data files, generated
from ``sts_extras/data/*.csv`` and checked against it by a test) ship as
``sts_extras/dataset_folders/<name>/``: data only, found by ``sts_extras.dataset_path(name)``.
"""

from pathlib import Path

from setuptools import find_packages, setup

# pip and build run this file from the project root
METRIC_FOLDERS = sorted(path.parent.name for path in Path("metrics").glob("*/requirements.txt"))

setup(
    packages=[
        *find_packages(include=["sts_extras*"]),
        "sts_extras.metrics",
        *(f"sts_extras.metrics.{name}" for name in METRIC_FOLDERS),
        "sts_extras.dataset_folders",
    ],
    package_dir={"sts_extras.metrics": "metrics", "sts_extras.dataset_folders": "dataset_scripts"},
)
