#!/usr/bin/env bash
# Builds and runs the standalone probes of tools/probes on a machine with a GPU: lean kernels and
# copies, each checked against a reference and timed with the tuner's protocol beside cuBLAS
# (what they measured: docs/PERFORMANCE.md, entry of 2026-11-29). Not part of the library.
#   usage: tools/gpu-probes.sh [PROBE...]           build into $OUT (default ./gpu-probes) and run
#                                                  them: repack_copy, dot, xta (default: all three)
#          tools/gpu-probes.sh --compile-only DIR  only build them into DIR (no GPU needed; the
#                                                  unit test tools.probes_compile)
#   NVCC  the compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc); exit 77 without one.
set -uo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '5,9p' "$0" | sed 's/^# //' >&2; }
compile_only=0
out=${OUT:-gpu-probes}
if [ "${1:-}" = "--compile-only" ]; then
  [ $# -eq 2 ] || { usage; exit 2; }
  compile_only=1 out=$2
  shift 2
elif [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  usage; exit 0
fi
probes=("$@")
[ ${#probes[@]} -gt 0 ] || probes=(repack_copy dot xta)
for name in "${probes[@]}"; do
  [ -f "tools/probes/${name}_probe.cu" ] || { echo "gpu-probes: no probe '$name' (tools/probes/*_probe.cu)" >&2; usage; exit 2; }
done
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || { echo "gpu-probes: no nvcc (set NVCC): skipped" >&2; exit 77; }
mkdir -p "$out"
source tools/cuda-libs.sh
export LD_LIBRARY_PATH="$cuda_libs${LD_LIBRARY_PATH:-}"
status=0
for name in "${probes[@]}"; do
  # sm_90: the probes use thread-block clusters.
  if ! "$nvcc" -O3 -std=c++17 -arch=sm_90 -o "$out/$name" "tools/probes/${name}_probe.cu" -lcublas; then
    echo "gpu-probes: $name did not compile" >&2
    status=1
    continue
  fi
  [ $compile_only -eq 1 ] && continue
  echo "== $name"
  "$out/$name" | tee "$out/$name.txt" || status=1
done
exit $status
