#!/usr/bin/env bash
# Checks the PyTorch importer and the Python API with a current torch 2.x from PyPI (CI tests
# Debian's torch 1.13 only): makes a virtual environment with PyPI's torch, torchvision and
# NumPy, then runs the importer's lit tests (test/Import, test/Python) with its interpreter.
# Needs network access to PyPI and a built build/ (scripts/build.sh); not part of CI.
#   MPT_TORCH2_VENV   the environment (default: .venv-torch2 in the repository), reused if present
#   MPT_BUILD_DIR     the build directory (default: build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MPT_BUILD_DIR:-$root/build}"
venv="${MPT_TORCH2_VENV:-$root/.venv-torch2}"

if [ ! -x "$venv/bin/python" ]; then
  # System site packages give lit (Debian's) to the environment's interpreter; the
  # environment's own torch comes first on its path.
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install --quiet torch torchvision numpy
fi
"$venv/bin/python" -c 'import torch; print("torch", torch.__version__)'
ninja -C "$build" mpt-python mpt-opt mpt-run mpt_runtime_shared > /dev/null
# lit's %python is the interpreter that runs lit.
"$venv/bin/python" /usr/lib/llvm-22/bin/lit -sv "$build/test/Import" "$build/test/Python"
