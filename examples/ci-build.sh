#!/bin/sh
# CI: install the current gemmtune build into a scratch prefix, then configure and build examples/
# against the installed package, as a user would. Usage: ci-build.sh BUILD_DIR SCRATCH_DIR [C_COMPILER CXX_COMPILER]
set -eu
build=$1
scratch=$2
here=$(cd "$(dirname "$0")" && pwd)
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
echo "examples built against the installed package in $scratch/prefix"
