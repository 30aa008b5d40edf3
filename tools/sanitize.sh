#!/usr/bin/env bash
# The unit tests under AddressSanitizer and UndefinedBehaviorSanitizer (no GPU needed), built in
# ./build-sanitize. .ci/run calls it after tools/setup.sh --test, which installs what it needs.
# Any report fails the run: UBSan does not recover, ASan aborts on its first error.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined -Wl,--as-needed" >/dev/null
# --as-needed: the sanitizer runtimes turn it off for what follows them, and the programs would
# then need libcuda.so.1, which a machine without a GPU driver does not have.
cmake --build build-sanitize -j"$jobs" 2>&1 | grep -E 'error|warning|Error' || true
# The install test links a program without the sanitizers against these libraries: not this job's.
# The cluster test runs NVRTC compiles through Slurm: its C++ is the unit tests', so it runs once,
# in tools/setup.sh --test. So do the three slowest under the sanitizers (a third of this job's
# time in CI): two that compile hundreds of kernels (NVRTC's time, its allocations intercepted;
# the other Compile tests take our compile path here) and the name round trip over the whole
# space (the config-name fuzzer and the sampled round trips cover that code here).
slow='Compile\.SampleOfTheFamilyCompilesForSm90|Compile\.NarrowedAccessesCompileForSm90|Config\.NamesRoundTripAndAreUniqueOverTheSpace'
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-sanitize -L unit -E "example_builds_against_install|^cluster\.|$slow" --output-on-failure -j"$jobs"
