#!/usr/bin/env bash
# Runs the `gpu` tests of a build folder on a machine with a GPU and prints a summary.
# The build may come from a machine without one (static CUDA runtime; NVRTC/cuBLAS from the
# toolkit here). ctest's files hold the build machine's paths, so the test executables are run
# directly.
#   usage: tools/gpu-check.sh [--sanitize] [--suites LIST] [BUILD_DIR] [gtest filter]
#          (default: build, every suite, all tests)
#   --sanitize also runs the KernelSanitizer tests under compute-sanitizer memcheck and racecheck.
#   --suites runs only the named suites, e.g. runtime,dispatch (of tests/gpu: runtime, dispatch,
#            tuner, family), so that a check split over several shorter runs covers each suite once.
set -uo pipefail
sanitize=0
suites=""
while [ $# -gt 0 ]; do
  case $1 in
    --sanitize) sanitize=1; shift ;;
    --suites) suites=${2:?--suites needs a list such as runtime,dispatch}; shift 2 ;;
    -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
for suite in ${suites//,/ }; do
  case $suite in runtime | dispatch | tuner | family) ;;
    *) echo "gpu-check: unknown suite '$suite' (runtime, dispatch, tuner, family)" >&2; exit 2 ;;
  esac
done
build=${1:-build}
filter=${2:-*}
log_dir=${OUT:-$build/gpu-check}
mkdir -p "$log_dir"
source "$(dirname "$0")/cuda-libs.sh"
export LD_LIBRARY_PATH="$cuda_libs${LD_LIBRARY_PATH:-}"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
"$build/tools/gemmtune" info || true

# Test binaries were built elsewhere: point them at this machine's scratch dir and CLI.
export GEMMTUNE_TEST_TMP="$log_dir/tmp" GEMMTUNE_TEST_CLI="$(cd "$build" && pwd)/tools/gemmtune"
mkdir -p "$GEMMTUNE_TEST_TMP"
status=0
summary=()
for exe in "$build"/tests/gemmtune_gpu_*_tests; do
  [ -x "$exe" ] || continue
  name=$(basename "$exe")
  suite=${name#gemmtune_gpu_}
  suite=${suite%_tests}
  if [ -n "$suites" ] && [[ ",$suites," != *",$suite,"* ]]; then continue; fi
  echo "== $name"
  if "$exe" --gtest_filter="$filter" 2>&1 | tee "$log_dir/$name.log"; then
    summary+=("PASS  $name")
  else
    summary+=("FAIL  $name (log: $log_dir/$name.log)")
    status=1
  fi
done
if [ $sanitize -eq 1 ] && { [ -z "$suites" ] || [[ ",$suites," == *",runtime,"* ]]; }; then
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer --tool $tool (KernelSanitizer.*)"
    if compute-sanitizer --tool $tool --error-exitcode 3 "$build/tests/gemmtune_gpu_runtime_tests" \
        --gtest_filter='KernelSanitizer.*' > "$log_dir/sanitizer-$tool.log" 2>&1; then
      summary+=("PASS  compute-sanitizer $tool: $(grep -h -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log_dir/sanitizer-$tool.log" | tail -1)")
    else
      summary+=("FAIL  compute-sanitizer $tool (log: $log_dir/sanitizer-$tool.log)")
      tail -30 "$log_dir/sanitizer-$tool.log"
      status=1
    fi
  done
fi
echo
echo "GPU check summary:"
printf '  %s\n' "${summary[@]}"
grep -h -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log_dir"/*.log | sort | uniq -c
exit $status
