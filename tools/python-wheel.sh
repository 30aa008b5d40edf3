#!/usr/bin/env bash
# Builds the Python package as a wheel: the operator library (python/csrc) compiled against the
# PyTorch of the Python environment and linked with BUILD_DIR's libgemmtune.so, which the wheel
# carries (gemmtune/lib/), with the shipped tuning databases (BUILD_DIR/share/gemmtune/tuning,
# copied from db/shipped/ at configure time) in gemmtune/lib/tuning/. The wheel is abi3: one file serves Python 3.9+ with that PyTorch, so a
# build folder copied to a GPU machine carries it there (tools/gpu-python.sh installs it).
#   usage: tools/python-wheel.sh BUILD_DIR      writes BUILD_DIR/python/gemmtune-*.whl
#   The environment: $GEMMTUNE_PYTHON if set, else build-python/venv (tools/python-env.sh).
#   Exits 77 when there is none.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: tools/python-wheel.sh BUILD_DIR}" && pwd)
py=${GEMMTUNE_PYTHON:-$repo/build-python/venv/bin/python}
if [ ! -x "$py" ]; then
  echo "python-wheel: no Python environment at $repo/build-python/venv: run tools/python-env.sh" \
       "(or set GEMMTUNE_PYTHON to a python with torch and setuptools)" >&2
  exit 77
fi
[ -e "$build/runtime/libgemmtune.so" ] ||
  { echo "python-wheel: $build/runtime/libgemmtune.so not built (cmake --build $build --target gemmtune_shared)" >&2; exit 1; }

# A copy of the package sources (setuptools writes build/ and *.egg-info beside them), without
# what an in-place build left there.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$repo/python" "$work/src"
rm -rf "$work/src/build" "$work/src/gemmtune/lib" "$work/src"/gemmtune/_C*.so
mkdir -p "$build/python"
rm -f "$build"/python/gemmtune-*.whl
GEMMTUNE_ROOT="$build" MAX_JOBS=${MAX_JOBS:-2} "$py" -m pip --disable-pip-version-check -q wheel \
  --no-build-isolation --no-deps -w "$build/python" "$work/src"
ls "$build"/python/gemmtune-*.whl
