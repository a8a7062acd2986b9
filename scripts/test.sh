#!/usr/bin/env bash
# The whole test command, in the active Python environment (make one first):
#
#     python3 -m venv .venv && . .venv/bin/activate && bash scripts/test.sh
#
# Installs the package with its `test` extra, then runs the linters, the type check, the layer
# contracts and the tests, exactly as CI does (.ci/run calls this script). Extra arguments go to
# pytest: `bash scripts/test.sh -x tests/test_bootstrap.py`.
set -euo pipefail
cd "$(dirname "$0")/.."
# it installs packages: never into the system's Python (a venv, or a conda environment)
[ -n "${CONDA_PREFIX:-}" ] || python -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)' || {
  echo "scripts/test.sh installs packages: activate a virtual environment first" \
    "(python3 -m venv .venv && . .venv/bin/activate)" >&2
  exit 2
}

# --- set-up -------------------------------------------------------------------------------------
# torch pinned first, so pip takes the CPU build instead of several GB of CUDA packages
python -m pip install torch==2.13.0
python -m pip install ".[test]"
# Debian's chromium (the HTML report's browser test) and pdflatex with booktabs, IEEEtran and its
# Times fonts (the LaTeX report's compile tests in one- and two-column papers), when missing and
# apt-get can install them (root); elsewhere those tests skip and say why.
{ [ -x /usr/bin/chromium ] && kpsewhich booktabs.sty IEEEtran.cls >/dev/null; } || [ "$(id -u)" != 0 ] \
  || ! command -v apt-get >/dev/null || { apt-get update -qq \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium texlive-latex-base \
     texlive-latex-recommended texlive-publishers texlive-fonts-recommended; }

# --- lint, type check, layer contracts (.importlinter), tests -----------------------------------
ruff check .
ruff format --check .
mypy
lint-imports
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
python -m pytest -p no:cacheprovider "$@"
