#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks for gemmtune (idempotent, quiet when all is there),
# then configures and builds into ./build.
#   tools/setup.sh            install + build
#   tools/setup.sh --test     install + build + run the tests (what CI runs; `gpu` tests skip without a GPU)
#   tools/setup.sh --tune     install + build + tune the quick preset on GPU 0 into the default database
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-build}

source tools/ensure-packages.sh
ensure_packages setup cmake g++ make libsqlite3-dev sqlite3 libcli11-dev libgtest-dev nlohmann-json3-dev libopenblas-dev python3-matplotlib
# `gemmtune report` draws with matplotlib.
if ! python3 -c 'import matplotlib' 2>/dev/null; then
  echo "setup: installing matplotlib (for gemmtune report)"
  python3 -m pip install -q matplotlib >/dev/null || echo "setup: matplotlib not installed; gemmtune report will not work" >&2
fi
if ! command -v nvcc >/dev/null && [ ! -d /usr/local/cuda ]; then
  echo "setup: the CUDA Toolkit (12.0 or newer) is required: install it from NVIDIA's repository" >&2
  exit 1
fi

jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs" 2>&1 | grep -E 'error|warning|Error' || true
test -x build/tools/gemmtune || { echo "setup: build failed; run: cmake --build build" >&2; exit 1; }

case "$mode" in
  build) echo "setup: built build/tools/gemmtune" ;;
  --test) ctest --test-dir build --output-on-failure -j"$jobs" ;;
  --tune) exec build/tools/gemmtune sweep --preset quick --devices 0 ;;
  *) echo "usage: tools/setup.sh [--test|--tune]" >&2; exit 2 ;;
esac
