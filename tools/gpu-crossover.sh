#!/usr/bin/env bash
# The CPU/GPU crossover, on a machine with a GPU, from a build made elsewhere (like tools/gpu-bench.sh):
# `gemmtune bench --cpu` over a ladder of n x n x n problems in every layout: OpenBLAS on all cores,
# the dispatcher's kernel alone, and the kernel with A and B copied up and C copied back.
#   usage: tools/gpu-crossover.sh BUILD_DIR [--db FILE] [SIZE...]
#     --db FILE  the tuning database the dispatcher uses (default: gemmtune's default database; on a
#                fresh machine there is none and the dispatcher runs its built-in choices)
#     SIZE       the ladder's n (default: 16 32 64 96 128 192 256 384 512 768 1024 1536 2048 3072 4096)
#   Writes to $OUT (default BUILD_DIR/gpu-crossover): crossover.json (for gemmtune report --bench),
#   crossover.log, and cpu.txt (lscpu: what the CPU side ran on).
#   Draw it where matplotlib is: gemmtune report --db DB --bench crossover.json --out DIR
set -uo pipefail
if [ $# -lt 1 ] || [ ! -x "$1/tools/gemmtune" ]; then
  sed -n '2,11p' "$0" >&2
  [ $# -ge 1 ] && echo "gpu-crossover: no executable $1/tools/gemmtune" >&2
  exit 2
fi
build=$1
shift
db_args=()
if [ "${1:-}" = "--db" ]; then
  [ -f "${2:-}" ] || { echo "gpu-crossover: no database at '${2:-}'" >&2; exit 2; }
  db_args=(--db "$2")
  shift 2
fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(16 32 64 96 128 192 256 384 512 768 1024 1536 2048 3072 4096)
shapes=()
for n in "${sizes[@]}"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "gpu-crossover: '$n' is not a size" >&2; exit 2; }
  shapes+=(--shape "${n}x${n}x${n}")
done
out=${OUT:-$build/gpu-crossover}
mkdir -p "$out"
source "$(dirname "$0")/cuda-libs.sh"
export LD_LIBRARY_PATH="$cuda_libs${LD_LIBRARY_PATH:-}"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
{ lscpu 2>/dev/null || cat /proc/cpuinfo; } > "$out/cpu.txt"
echo "gpu-crossover: $(nproc) cores; ${#sizes[@]} sizes x 4 layouts"
start=$(date +%s)
"$build/tools/gemmtune" bench --cpu --layout all "${db_args[@]}" "${shapes[@]}" --out "$out/crossover.json" 2>&1 |
  tee "$out/crossover.log"
status=${PIPESTATUS[0]}
echo "gpu-crossover: $(($(date +%s) - start)) s, exit $status; results in $out"
exit "$status"
