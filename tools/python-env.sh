#!/usr/bin/env bash
# Makes the Python environment of the Python package's tests (tools/python-test.sh): a venv with
# PyTorch from PyPI and pytest. Quiet and quick when it is already there.
#   usage: tools/python-env.sh [VENV]        (default: build-python/venv; $PYTHON: the interpreter,
#                                             default python3)
#
# PyPI's Linux PyTorch wheel depends on ~3 GB of NVIDIA CUDA wheels (a full install took 2 min 7 s
# and 4.6 GB here). The tests need no GPU, and the CUDA Toolkit that gemmtune builds with already
# holds most of the libraries libtorch_cuda.so links, so this installs the torch wheel alone, its
# pure-Python requirements, and only the three CUDA wheels the toolkit lacks (cuFile, cuSPARSELt,
# NVSHMEM): 1.5 GB. If torch still does not import, it falls back to the full install.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
venv=$(realpath -m "${1:-$repo/build-python/venv}")
cd "$repo"
# The GPU machines' PyTorch (CUDA 13, like the toolkit gemmtune builds with).
torch_version=2.11.0

ready='import sys, torch, pytest, setuptools; sys.exit(tuple(map(int, setuptools.__version__.split(".")[:2])) < (70, 1))'
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$ready" 2>/dev/null; then
  exit 0
fi
echo "python-env: making $venv (PyTorch $torch_version from PyPI, pytest)"
python=${PYTHON:-python3}
if ! "$python" -m venv "$venv" 2>/dev/null; then
  source tools/ensure-packages.sh
  ensure_packages python-env python3-venv
  "$python" -m venv "$venv"
fi
py="$venv/bin/python"
# pip's output only when it fails (torch's CUDA requirements left out on purpose make it complain).
pip() {
  local out
  out=$("$py" -m pip --disable-pip-version-check -q "$@" 2>&1) || { echo "$out" >&2; return 1; }
}
pip install --no-deps "torch==$torch_version"
# torch's requirements, from its own metadata: the pure-Python ones, and the CUDA wheels the
# toolkit lacks (cuFile comes through the cuda-toolkit metapackage's `cufile` extra).
requirements() {
  "$py" - "$1" <<'EOF'
import importlib.metadata, re, sys
for r in importlib.metadata.requires("torch") or []:
    if "extra ==" in r:
        continue
    r = r.split(";")[0].strip()
    name = re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower()
    if sys.argv[1] == "python" and not name.startswith(("nvidia-", "triton", "cuda-")):
        print(r)
    elif sys.argv[1] == "cuda" and name.startswith(("nvidia-cusparselt", "nvidia-nvshmem")):
        print(r)
    elif sys.argv[1] == "cuda" and name == "cuda-toolkit":
        print(re.sub(r"\[.*\]", "[cufile]", r))
EOF
}
mapfile -t python_requirements < <(requirements python)
mapfile -t cuda_requirements < <(requirements cuda)
pip install "${python_requirements[@]}" numpy pytest "setuptools>=70.1"  # 70.1: bdist_wheel built in
pip install "${cuda_requirements[@]}"
if ! "$py" -c 'import torch' 2>/dev/null; then
  echo "python-env: torch $torch_version does not import with this machine's CUDA libraries; installing all of its CUDA wheels"
  pip install "torch==$torch_version"
fi
"$py" -c 'import torch; print(f"python-env: PyTorch {torch.__version__} in '"$venv"'")'
