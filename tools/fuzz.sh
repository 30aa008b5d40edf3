#!/usr/bin/env bash
# Fuzzes the parsers (tests/fuzz): builds the libFuzzer targets with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer into ./build-fuzz, then runs each for FUZZ_SECONDS (default 45) from
# the seed corpus in tests/fuzz/corpus plus what earlier runs here found (build-fuzz/corpus).
# A crash, a sanitizer report or a failed property stops the run with a non-zero status; the input
# is saved as build-fuzz/crashes/<target>-crash-<sha1> (rerun: build-fuzz/tests/fuzz/<exe> FILE).
# .ci/run calls it. Usage: tools/fuzz.sh [TARGET...]   (shape, problems_csv, config_name, cubin)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-45}  # 4 targets x 45 s: the CI time of 3 targets x 60 s
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(shape problems_csv config_name cubin)

# clang, and libclang-rt-dev for libFuzzer and the sanitizer runtimes.
source tools/ensure-packages.sh
ensure_packages fuzz clang libclang-rt-dev

# Only the fuzzers are built here (from the sources they fuzz): no tools, no tests.
CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGEMMTUNE_FUZZ=ON \
  -DGEMMTUNE_BUILD_TOOLS=OFF -DGEMMTUNE_BUILD_TESTS=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target gemmtune_fuzzers

mkdir -p build-fuzz/crashes
for t in "${targets[@]}"; do
  exe=build-fuzz/tests/fuzz/gemmtune_fuzz_$t
  [ -x "$exe" ] || { echo "fuzz: no target '$t'" >&2; exit 2; }
  found=build-fuzz/corpus/$t  # first: where new inputs go; the seeds in the repo are read only
  mkdir -p "$found"
  dict=()
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
  log=build-fuzz/$t.log
  echo "fuzz: $t for ${seconds} s (log $log)"
  status=0
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="build-fuzz/crashes/$t-" "${dict[@]}" \
    "$found" "tests/fuzz/corpus/$t" >"$log" 2>&1 || status=$?
  grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec)' "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$log" >&2
    echo "fuzz: $t FAILED (status $status); the input is in build-fuzz/crashes/" >&2
    exit 1
  fi
done
echo "fuzz: ${targets[*]}: no crash, no sanitizer report, every property held"
