#!/usr/bin/env bash
# The Python package on a GPU machine (python3 with PyTorch; nothing installed: the wheel that
# tools/python-wheel.sh built on the build machine, unpacked into a scratch folder):
#   tests    python/tests, the `gpu` ones included (mm/bmm against float64, torch.compile, ...)
#   example  examples/python/transformer_block.py end to end: capture its products, tune them with
#            `gemmtune sweep` into a fresh database, then time and check gemmtune against
#            torch.matmul (TF32 off) and print the table
#   bench    python/benchmarks/torch_ops.py: capture the example block's products (forward and
#            backward), tune them (an ieee and an fp32 sweep, $GEMMTUNE_BENCH_BUDGET seconds a
#            problem, default 8) into $GEMMTUNE_BENCH_DB (default: a fresh scratch database;
#            a database tuned by an earlier run is reused), then run the benchmark with
#            $GEMMTUNE_BENCH_ARGS (default: --quick --skip-compile); tables and JSON to $OUT
#   usage: tools/gpu-python.sh BUILD_DIR [tests|example|bench|all]   (default: all = tests and example)
# BUILD_DIR is a build folder or a copy of its parts: python/gemmtune-*.whl (the operator library
# built against the same PyTorch version, with libgemmtune.so inside) and tools/gemmtune. Without a
# wheel there it builds one here (needs a C++ compiler and the CUDA headers), from BUILD_DIR's
# runtime/libgemmtune.so. Logs and the example's table go to $OUT (else BUILD_DIR/gpu-python).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: tools/gpu-python.sh BUILD_DIR [tests|example|bench|all]"
build=$(cd "${1:?$usage}" && pwd)
what=${2:-all}
case "$what" in tests | example | bench | all) ;; *) echo "$usage" >&2; exit 2 ;; esac
py=${GEMMTUNE_PYTHON:-python3}
case "$py" in */*) py="$(cd "$(dirname "$py")" && pwd)/$(basename "$py")" ;; esac  # the tests run elsewhere
log_dir=${OUT:-$build/gpu-python}
mkdir -p "$log_dir"

cli="$build/tools/gemmtune"
[ -x "$cli" ] || { echo "gpu-python: no $cli" >&2; exit 1; }

# The Python process uses PyTorch's CUDA libraries (libgemmtune.so finds NVRTC among them); the
# CLI, built against the toolkit, finds its libraries there.
source "$(dirname "$0")/cuda-libs.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
wheel=$(ls "$build"/python/gemmtune-*.whl 2>/dev/null | head -1)
if [ -z "$wheel" ]; then
  echo "gpu-python: no prebuilt wheel in $build/python: building one here (tools/python-wheel.sh)"
  GEMMTUNE_PYTHON="$py" "$repo/tools/python-wheel.sh" "$build" || exit 1
  wheel=$(ls "$build"/python/gemmtune-*.whl | head -1)
fi
echo "gpu-python: $wheel"
"$py" -m zipfile -e "$wheel" "$scratch/site" || exit 1
# The tests run the CLI through this, so that only the CLI sees the toolkit's library path.
printf '#!/bin/sh\nLD_LIBRARY_PATH="%s${LD_LIBRARY_PATH:-}" exec "%s" "$@"\n' "$cuda_libs" "$cli" > "$scratch/gemmtune"
chmod +x "$scratch/gemmtune"
export GEMMTUNE_CLI="$scratch/gemmtune" PYTHONPATH="$scratch/site${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export GEMMTUNE_DB="$scratch/tests.db"  # never the user's database
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
"$py" -m gemmtune info || exit 1

status=0
summary=()
if [ "$what" = tests ] || [ "$what" = all ]; then
  echo "== python/tests (pytest)"
  if (cd "$scratch" && "$py" -m pytest -q -rs -p no:cacheprovider "$repo/python/tests") 2>&1 | tee "$log_dir/tests.log"; then
    summary+=("PASS  python/tests: $(tail -1 "$log_dir/tests.log")")
  else
    summary+=("FAIL  python/tests (log: $log_dir/tests.log)")
    status=1
  fi
fi

run_example() {
  local csv="$scratch/block.csv" db="$scratch/block.db"
  echo "== example: capture"
  "$py" -m gemmtune capture "$repo/examples/python/transformer_block.py:build" -o "$csv" || return 1
  echo "== example: gemmtune sweep --file block.csv (a fresh database; log: $log_dir/sweep.log)"
  "$GEMMTUNE_CLI" sweep --file "$csv" --db "$db" > "$log_dir/sweep.log" 2>&1 ||
    { tail -20 "$log_dir/sweep.log"; return 1; }
  tail -n 12 "$log_dir/sweep.log"
  echo "== example: gemmtune against torch.matmul"
  "$py" "$repo/examples/python/transformer_block.py" --db "$db" --csv "$csv" | tee "$log_dir/example.txt"
}
if [ "$what" = example ] || [ "$what" = all ]; then
  if run_example; then
    summary+=("PASS  example (table: $log_dir/example.txt)")
  else
    summary+=("FAIL  example (logs in $log_dir)")
    status=1
  fi
fi

run_bench() {
  local bench="$repo/python/benchmarks/torch_ops.py" db=${GEMMTUNE_BENCH_DB:-$scratch/bench.db}
  local args
  read -ra args <<< "${GEMMTUNE_BENCH_ARGS---quick --skip-compile}"
  # The marker is written once both sweeps finished: a run cut short tunes again (the sweep
  # skips what it already measured).
  if [ -f "$db.tuned" ]; then
    echo "== bench: the database $db was tuned by an earlier run ($(cat "$db.tuned"))"
  else
    echo "== bench: capture and tune into $db (log: $log_dir/bench-tune.log)"
    mkdir -p "$(dirname "$db")"
    local start=$SECONDS
    "$py" "$bench" --db "$db" --csv "$log_dir/bench.csv" --tune-only --tune-precision ieee,fp32 \
      --budget "${GEMMTUNE_BENCH_BUDGET:-8}" > "$log_dir/bench-tune.log" 2>&1 ||
      { tail -20 "$log_dir/bench-tune.log"; return 1; }
    grep -E '^(== tuning|sweep \()' "$log_dir/bench-tune.log"
    echo "tuned in $((SECONDS - start)) s, $(date -u '+%Y-%m-%d %H:%M UTC')" > "$db.tuned"
  fi
  echo "== bench: torch_ops.py ${args[*]} (log: $log_dir/bench.txt)"
  "$py" "$bench" --db "$db" "${args[@]}" --json "$log_dir/bench.json" 2>&1 | tee "$log_dir/bench.txt"
}
if [ "$what" = bench ]; then
  if run_bench; then
    summary+=("PASS  bench (tables: $log_dir/bench.txt, figures: $log_dir/bench.json)")
  else
    summary+=("FAIL  bench (logs in $log_dir)")
    status=1
  fi
fi
echo
echo "GPU Python summary:"
printf '  %s\n' "${summary[@]}"
exit $status
