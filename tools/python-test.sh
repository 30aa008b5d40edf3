#!/usr/bin/env bash
# The Python package's tests (python/tests) against a build: builds the package's wheel (its
# operator library against the environment's PyTorch and the build's libgemmtune.so:
# tools/python-wheel.sh, into BUILD_DIR/python/), installs it into the test environment, then runs
# pytest with the build's gemmtune CLI. Tests marked `gpu` skip themselves without a CUDA device.
# ctest runs this as `python.tests` (label `python`).
#   usage: tools/python-test.sh BUILD_DIR [pytest arguments]
#   The environment: $GEMMTUNE_PYTHON if set (a python with torch and pytest), else
#   build-python/venv (made by tools/python-env.sh, which tools/setup.sh --test runs; outside
#   build/, so that copying a build folder to a GPU machine leaves its 1.6 GB behind).
#   Exits 77 (ctest: skipped) when neither exists.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: tools/python-test.sh BUILD_DIR [pytest arguments]}" && pwd)
shift
py=${GEMMTUNE_PYTHON:-$repo/build-python/venv/bin/python}
if [ ! -x "$py" ]; then
  echo "python-test: no Python test environment at $repo/build-python/venv: run tools/python-env.sh" \
       "(or set GEMMTUNE_PYTHON to a python with torch and pytest); skipped" >&2
  exit 77
fi
lib="$build/runtime/libgemmtune.so"
[ -e "$lib" ] || { echo "python-test: $lib not built (cmake --build $build --target gemmtune_shared)" >&2; exit 1; }

"$repo/tools/python-wheel.sh" "$build" >/dev/null
"$py" -m pip --disable-pip-version-check -q install --no-deps --force-reinstall "$build"/python/gemmtune-*.whl
"$py" -c 'import gemmtune, sys; assert "site-packages" in gemmtune.__file__, gemmtune.__file__' ||
  { echo "python-test: the package did not install" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# From a scratch folder, so that `import gemmtune` finds the installed package, not python/.
cd "$work"
export GEMMTUNE_CLI="$build/tools/gemmtune" GEMMTUNE_EXPECT_INSTALLED=1
export GEMMTUNE_DB="$work/tuning.db"  # never the user's database
status=0
"$py" -m pytest -q -rs -p no:cacheprovider "$repo/python/tests" "$@" || status=$?
exit $status
