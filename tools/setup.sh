#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks for gemmtune (idempotent, quiet when all is there),
# then configures and builds into ./build. One line of progress per step.
#   tools/setup.sh            install + build
#   tools/setup.sh --test     install + build + run the tests (what CI runs; `gpu` tests skip without a GPU),
#                             the Python package's among them (PyTorch into build-python/venv)
#   tools/setup.sh --tune     install + build + tune the quick preset on GPU 0 into the default database
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '4,6p' "$0" | sed 's/^# //' >&2; }
mode=build
case "$#:${1:-}" in
  0:) ;;
  1:--test | 1:--tune) mode=$1 ;;
  1:-h | 1:--help) usage; exit 0 ;;
  *) echo "setup: unknown arguments: $*" >&2; usage; exit 2 ;;
esac
if ! command -v nvcc >/dev/null && [ ! -d /usr/local/cuda ]; then
  echo "setup: the CUDA Toolkit (12.0 or newer) is required: install it from NVIDIA's repository" >&2
  exit 1
fi

source tools/ensure-packages.sh
echo "setup: [1/3] Debian packages (compiler, SQLite, CLI11, GoogleTest, nlohmann-json, OpenBLAS, matplotlib)"
# OpenBLAS: the CPU baseline of `gemmtune bench --cpu` (linked statically). matplotlib: `gemmtune
# report`, from Debian rather than pip, which a Debian python refuses (externally managed
# environment); the report runs /usr/bin/python3 when it has matplotlib.
ensure_packages setup cmake g++ make libsqlite3-dev sqlite3 libcli11-dev libgtest-dev nlohmann-json3-dev \
  libopenblas-dev python3-matplotlib

jobs=$(nproc)
echo "setup: [2/3] configure and build into build/ ($jobs jobs)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
# The build takes minutes: a line at every tenth of it, the errors and warnings as they come, the
# whole log in build/setup-build.log, and the build's own exit status when it fails.
build_status=0
cmake --build build -j"$jobs" 2>&1 | tee build/setup-build.log | awk '
  /^\[ *[0-9]+%\]/ {
    percent = $0; sub(/^\[ */, "", percent); sub(/%.*/, "", percent); percent += 0
    if (percent >= shown + 10) { shown = percent - percent % 10; printf "setup:   %d%% built\n", shown; fflush() }
    next
  }
  /error|warning|Error/ { print; fflush() }' || build_status=$?
if [ "$build_status" -ne 0 ] || [ ! -x build/tools/gemmtune ]; then
  echo "setup: the build failed (status $build_status); the full log is build/setup-build.log" >&2
  exit $((build_status ? build_status : 1))
fi

case "$mode" in
  build) echo "setup: [3/3] done: build/tools/gemmtune" ;;
  --test)
    # The Python package's tests need PyTorch: a venv in build-python/ (tools/python-env.sh, PyPI).
    echo "setup: [3/3] Python test environment, then the tests (ctest, $jobs jobs)"
    tools/python-env.sh || echo "setup: no Python test environment; python.tests will be skipped" >&2
    ctest --test-dir build --output-on-failure -j"$jobs"
    ;;
  --tune)
    echo "setup: [3/3] tuning the quick preset on GPU 0"
    exec build/tools/gemmtune sweep --preset quick --gpus 0
    ;;
esac
