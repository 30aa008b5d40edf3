#!/bin/sh
# CI: install the current gemmtune build into a scratch prefix, then configure and build examples/
# against the installed package, as a user would. Usage: ci-build.sh BUILD_DIR SCRATCH_DIR [C_COMPILER CXX_COMPILER]
set -eu
build=$1
scratch=$2
here=$(cd "$(dirname "$0")" && pwd)
c_compiler=${3:-cc}
c_given=${3:-}
cxx_given=${4:-}
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
test -f "$scratch/build/libpublic_headers_checked.a"
test -x "$scratch/build/sgemm_example_shared"
test -x "$scratch/build/sgemm_example_own_cudart"
# One static archive serves both static targets (an archive holds no CUDA runtime).
lib=$(ls -d "$scratch"/prefix/lib* | head -n 1)
test -f "$lib/libgemmtune.a"
if [ -e "$lib/libgemmtune_no_cudart.a" ]; then
  echo "libgemmtune_no_cudart.a is installed: the static targets should share libgemmtune.a" >&2
  exit 1
fi
# The shared library asks for no SQLite: a program of it configures without SQLite's files.
mkdir -p "$scratch/shared-only"
printf '%s\n' 'cmake_minimum_required(VERSION 3.25)' 'project(shared_only LANGUAGES C CXX)' \
  'find_package(gemmtune REQUIRED)' "add_executable(shared_only \"$here/sgemm_example_c.c\")" \
  'target_link_libraries(shared_only PRIVATE gemmtune::gemmtune_shared)' >"$scratch/shared-only/CMakeLists.txt"
cmake -S "$scratch/shared-only" -B "$scratch/shared-only/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" \
      -DCMAKE_DISABLE_FIND_PACKAGE_SQLite3=ON ${c_given:+-DCMAKE_C_COMPILER="$c_given"} \
      ${cxx_given:+-DCMAKE_CXX_COMPILER="$cxx_given"} >/dev/null
cmake --build "$scratch/shared-only/build"
test -x "$scratch/shared-only/build/shared_only"
# Only the public headers are installed.
installed=$(cd "$scratch/prefix/include/gemmtune" && LC_ALL=C ls | tr '\n' ' ')
expected="device.hpp error.hpp explanation.hpp gemmtune.h gemmtune.hpp log.hpp precision.hpp problem.hpp version.h workspace_allocator.hpp "
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
  # The CUDA Toolkit's folder is a variable another machine sets.
  elsewhere=$(PKG_CONFIG_PATH="$libdir" pkg-config --define-variable=cuda_home=/opt/elsewhere --cflags --libs gemmtune)
  case "$elsewhere" in
    *"-I/opt/elsewhere/include"*"-L/opt/elsewhere/lib64"*) ;;
    *) echo "gemmtune.pc ignores cuda_home: $elsewhere" >&2; exit 1 ;;
  esac
else
  echo "pkg-config not found: the gemmtune.pc check is skipped"
fi
echo "examples built against the installed package in $scratch/prefix"
