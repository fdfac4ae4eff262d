#!/usr/bin/env bash
# Create benchmarks/.venv: rankscope (editable, from this repository) and the tools it is
# compared with, installed from PyPI. Re-running upgrades nothing that is already there.
# Usage: benchmarks/setup.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
python="${PYTHON:-python3}"
if [ ! -x "$here/.venv/bin/python" ]; then
    "$python" -m venv "$here/.venv"
fi
pip=("$here/.venv/bin/python" -m pip install --quiet)
"${pip[@]}" --upgrade pip
"${pip[@]}" -e "$repo[cli]"
# The peers. ranx brings numba (its measures are JIT-compiled on first use); ir-measures
# brings pytrec-eval-terrier among its back ends.
"${pip[@]}" "pytrec-eval-terrier>=0.5.6" "ranx>=0.3.20" "ir-measures>=0.3.7" "psutil>=5.9"
"$here/.venv/bin/python" - <<'PY'
from importlib.metadata import version

for name in ("rankscope", "polars", "numpy", "pytrec-eval-terrier", "ranx", "numba",
             "ir-measures"):
    print(f"{name} {version(name)}")
PY
