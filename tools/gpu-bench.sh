#!/usr/bin/env bash
# Tunes problems into a fresh database and benchmarks the dispatcher against cuBLAS on them, on a
# machine with a GPU, from a build made elsewhere (like tools/gpu-check.sh). Every performance
# figure in docs/PERFORMANCE.md comes from a run of this script.
#   usage: tools/gpu-bench.sh BUILD_DIR BUDGET_S PROBLEM_ARGS...
#          tools/gpu-bench.sh BUILD_DIR --db FILE PROBLEM_ARGS...
#          tools/gpu-bench.sh BUILD_DIR --untuned PROBLEM_ARGS...
#     BUDGET_S      sweep seconds per problem (0: no limit)
#     --db FILE     no sweep: benchmark against a database tuned earlier (e.g. the same tuned
#                   kernels before and after a change), copied to $OUT first
#     --untuned     no sweep and an empty database: what a program gets before any sweep, from
#                   the shipped database of the GPU model where one is installed (in BUILD_DIR's
#                   share/gemmtune/tuning or $GEMMTUNE_SHIPPED_DIR) and the built-in configs;
#                   GEMMTUNE_NO_SHIPPED=1 measures the built-in configs alone
#     PROBLEM_ARGS  gemmtune problem options, e.g. --preset suite, or --shape 64x64x65536 ...
#   Writes to $OUT (default BUILD_DIR/gpu-bench): sweep.log, bench.log, bench.json and
#   tuning.db (its binary cache dropped, so that it stays small enough to copy back).
set -uo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,17p' "$0" >&2
  exit 2
fi
build=$1 budget=$2 tuned_db=""
shift 2
untuned=0
if [ "$budget" = "--db" ]; then
  tuned_db=$1
  shift
elif [ "$budget" = "--untuned" ]; then
  untuned=1
fi
out=${OUT:-$build/gpu-bench}
mkdir -p "$out"
source "$(dirname "$0")/cuda-libs.sh"
export LD_LIBRARY_PATH="$cuda_libs${LD_LIBRARY_PATH:-}"
gemmtune="$build/tools/gemmtune"
db="$out/tuning.db"
rm -f "$db" "$db-wal" "$db-shm"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
if [ -n "$tuned_db" ]; then
  cp "$tuned_db" "$db" || exit 1
elif [ "$untuned" -eq 1 ]; then
  [ -d "$build/share/gemmtune/tuning" ] && export GEMMTUNE_SHIPPED_DIR=${GEMMTUNE_SHIPPED_DIR:-$build/share/gemmtune/tuning}
  echo "untuned: no sweep, an empty database; shipped: ${GEMMTUNE_NO_SHIPPED:+off}${GEMMTUNE_NO_SHIPPED:-${GEMMTUNE_SHIPPED_DIR:-the installed folder}}"
else
  start=$(date +%s)
  "$gemmtune" sweep --db "$db" --budget "$budget" "$@" > "$out/sweep.log" 2>&1
  tail -30 "$out/sweep.log"
  echo "sweep: $(($(date +%s) - start)) s"
fi
"$gemmtune" bench --db "$db" --out "$out/bench.json" "$@" 2>&1 | tee "$out/bench.log"
status=${PIPESTATUS[0]}
[ -e "$db" ] || exit "$status"  # untuned: no database was made
python3 - "$db" <<'EOF'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute("DELETE FROM binaries")
con.commit()
con.execute("VACUUM")
EOF
exit "$status"
