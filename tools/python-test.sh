#!/usr/bin/env bash
# The Python package's tests (python/tests) against a build: installs the package into the test
# environment the way an offline GPU machine would (pip install --no-build-isolation --no-deps),
# then runs pytest with the build's libgemmtune.so and gemmtune CLI. Tests marked `gpu` skip
# themselves without a CUDA device. ctest runs this as `python.tests` (label `python`).
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

# A copy of the package sources: setuptools writes build/ and *.egg-info beside them.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$repo/python" "$work/src"
"$py" -m pip --disable-pip-version-check -q install --no-build-isolation --no-deps --force-reinstall "$work/src"
"$py" -c 'import gemmtune, sys; assert "site-packages" in gemmtune.__file__, gemmtune.__file__' ||
  { echo "python-test: the package did not install" >&2; exit 1; }

# From a scratch folder, so that `import gemmtune` finds the installed package, not python/.
cd "$work"
export GEMMTUNE_LIBRARY="$lib" GEMMTUNE_CLI="$build/tools/gemmtune" GEMMTUNE_EXPECT_INSTALLED=1
export GEMMTUNE_DB="$work/tuning.db"  # never the user's database
status=0
"$py" -m pytest -q -rs -p no:cacheprovider "$repo/python/tests" "$@" || status=$?
exit $status
