#!/bin/sh
# CI: install the current gemmtune build into a scratch prefix, then configure and build examples/
# against the installed package, as a user would. Usage: ci-build.sh BUILD_DIR SCRATCH_DIR [C_COMPILER CXX_COMPILER]
set -eu
build=$1
scratch=$2
here=$(cd "$(dirname "$0")" && pwd)
c_compiler=${3:-cc}
rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix"
set -- -S "$here" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" -DCMAKE_BUILD_TYPE=Release \
       ${3:+-DCMAKE_C_COMPILER="$3"} ${4:+-DCMAKE_CXX_COMPILER="$4"}
cmake "$@"
cmake --build "$scratch/build" -j2
test -x "$scratch/build/sgemm_example"
test -x "$scratch/build/sgemm_example_c"
test -x "$scratch/build/cublas_port"
test -x "$scratch/build/sgemm_example_shared"
test -x "$scratch/build/sgemm_example_own_cudart"
# Only the public headers are installed.
installed=$(cd "$scratch/prefix/include/gemmtune" && LC_ALL=C ls | tr '\n' ' ')
expected="choice.hpp config.hpp device.hpp error.hpp gemmtune.h gemmtune.hpp knobs.hpp log.hpp problem.hpp version.h "
if [ "$installed" != "$expected" ]; then
  echo "installed headers: $installed; expected: $expected" >&2
  exit 1
fi
# pkg-config, from a plain compiler command line (the C example with the shared library).
if command -v pkg-config >/dev/null; then
  libdir=$(ls -d "$scratch"/prefix/lib*/pkgconfig | head -n 1)
  flags=$(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs gemmtune)
  "$c_compiler" "$here/sgemm_example_c.c" -o "$scratch/build/sgemm_example_pkgconfig" $flags
  test -x "$scratch/build/sgemm_example_pkgconfig"
else
  echo "pkg-config not found: the gemmtune.pc check is skipped"
fi
echo "examples built against the installed package in $scratch/prefix"
