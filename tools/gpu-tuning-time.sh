#!/usr/bin/env bash
# Times `gemmtune sweep` as a user meets it, on a machine with a GPU, from a build made elsewhere
# (like tools/gpu-check.sh): the quick preset and single problems of every class, each cold
# (fresh database, so an empty binary cache; NVRTC's disk cache off) and then warm (the same
# database again with --force: every binary cached, everything re-measured).
#   usage: tools/gpu-tuning-time.sh BUILD_DIR [SWEEP_OPTIONS...]   e.g. --strategy halving
#   Writes $OUT/tuning-time.csv (case,state,seconds,measurements,best config,best ms) and
#   $OUT/tuning-time.log (every sweep's output).
set -uo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,8p' "$0" >&2
  exit 2
fi
build=$1
shift
out=${OUT:-$build/gpu-tuning-time}
mkdir -p "$out"
source "$(dirname "$0")/cuda-libs.sh"
export LD_LIBRARY_PATH="$cuda_libs${LD_LIBRARY_PATH:-}"
export CUDA_CACHE_DISABLE=1
gemmtune="$build/tools/gemmtune"
work=$(mktemp -d)
csv="$out/tuning-time.csv" log="$out/tuning-time.log"
echo "case,state,seconds,measurements" >"$csv"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

# One sweep: its wall time and measurement count as a CSV row.
sweep() {
  local name=$1 state=$2 db=$3
  shift 3
  local start end
  start=$(date +%s.%N)
  "$gemmtune" sweep --db "$db" "$@" >"$work/sweep.log" 2>&1
  end=$(date +%s.%N)
  { echo "== $name $state: $*"; cat "$work/sweep.log"; } >>"$log"
  local n
  n=$(grep -oE '^[0-9]+ measurements recorded' "$work/sweep.log" | grep -oE '^[0-9]+' || echo 0)
  printf '%s,%s,%.1f,%s\n' "$name" "$state" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "$n" | tee -a "$csv"
  grep -E 'in all;' "$work/sweep.log"
}

# Cold, then warm, into a fresh database.
case_of() {
  local name=$1
  shift
  local db="$work/$name.db"
  sweep "$name" cold "$db" "$@"
  sweep "$name" warm "$db" --force "$@"
}

case_of quick "$@"
for shape in 2999x3001x2003:nn 1x4096x4096:tn 4096x1x4096:tn 1x1x100000:nn 64x64x262144:nn \
  8192x17x8191:nn 7x9x13:tn 32x4096x4096:nn 1000x1000x1000:nn 1024x50257x768:nt; do
  case_of "${shape/:/-}" --shape "${shape%%:*}" --layout "${shape##*:}" "$@"
done
case_of batched-512x64x512 --shape 512x64x512 --batch 64 "$@"
# The best found per problem, to compare with the exhaustive fixture.
for db in "$work"/*.db; do
  "$gemmtune" db best --db "$db" 2>/dev/null | tail -n +3
done | sort -u >"$out/best.txt"
rm -rf "$work"
