#!/usr/bin/env bash
# Compares two builds of the tuner on a machine with a GPU: each sweeps the same problems into a
# fresh database and benchmarks them against cuBLAS (a tools/gpu-bench.sh run each), the two taking
# turns (A B, then B A, ...) after a short warm-up sweep whose results are dropped. Run once
# each, the build that went first on a freshly started machine measured fewer configs in the
# same budget (H200 and H100, docs/PERFORMANCE.md, entries of 2026-11-25 and 2026-11-28).
#   usage: tools/gpu-ab.sh [--rounds N] BUDGET_S CLI_A CLI_B PROBLEM_ARGS...
#     BUDGET_S      sweep seconds per problem
#     CLI_A, CLI_B  the two builds' gemmtune executables (a FILE.gz is unpacked first), e.g.
#                   stripped and gzipped so that both travel to the GPU machine
#     --rounds N    sweeps of each build (default 2)
#     PROBLEM_ARGS  gemmtune problem options, e.g. --preset users, or --file problems.csv
#   Writes to $OUT (default ./gpu-ab): a1/, b1/, ... (each a tools/gpu-bench.sh output: sweep and
#   bench logs, bench.json, tuning.db), warmup.log, and runs.json: every round's bench.json in one
#   file ({"a": [...], "b": [...]}), for copying back where only a few files may travel; prints
#   per problem each build's speedups over cuBLAS, round by round, and the ratio of their
#   medians, then each round's geometric means.
set -uo pipefail
usage() { sed -n '7,17p' "$0" | sed 's/^# //' >&2; }
rounds=2
if [ "${1:-}" = "--rounds" ]; then
  rounds=${2:-}
  shift 2 || true
fi
if [ $# -lt 4 ] || ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
  usage
  exit 2
fi
budget=$1 cli_a=$2 cli_b=$3
shift 3
for f in "$cli_a" "$cli_b"; do
  [ -f "$f" ] || { echo "gpu-ab: no such file: $f (give the path of a gemmtune executable)" >&2; exit 2; }
done
out=${OUT:-gpu-ab}
mkdir -p "$out"
tools=$(cd "$(dirname "$0")" && pwd)
source "$tools/cuda-libs.sh"
export LD_LIBRARY_PATH="$cuda_libs${LD_LIBRARY_PATH:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Each build as the folder tools/gpu-bench.sh takes (BUILD/tools/gemmtune), unpacked if gzipped.
unpack() {
  local exe="$work/$2/tools/gemmtune"
  mkdir -p "$work/$2/tools"
  case "$1" in
    *.gz) gunzip -c "$1" > "$exe" || exit 1 ;;
    *) cp "$1" "$exe" || exit 1 ;;
  esac
  chmod +x "$exe"
}
unpack "$cli_a" a
unpack "$cli_b" b
# A build mistake can send the same executable twice (a CMake target that did not relink the
# CLI): say so, since the comparison then measures only noise.
cmp -s "$work/a/tools/gemmtune" "$work/b/tools/gemmtune" && echo "gpu-ab: note: A and B are the same executable; this run measures noise only" >&2

"$work/a/tools/gemmtune" sweep --db "$work/warmup.db" --budget 1 --preset quick > "$out/warmup.log" 2>&1 ||
  { echo "gpu-ab: the warm-up sweep failed (log: $out/warmup.log)" >&2; tail -5 "$out/warmup.log" >&2; exit 1; }
for ((round = 1; round <= rounds; ++round)); do
  order="a b"
  [ $((round % 2)) -eq 0 ] && order="b a"
  for v in $order; do
    start=$(date +%s)
    if ! OUT="$out/$v$round" "$tools/gpu-bench.sh" "$work/$v" "$budget" "$@" > "$out/$v$round.log" 2>&1; then
      echo "gpu-ab: build $v failed in round $round (logs: $out/$v$round/)" >&2
      exit 1
    fi
    echo "round $round, build $v: sweep and bench $(($(date +%s) - start)) s"
  done
done

python3 - "$out" "$rounds" <<'EOF'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
runs = {v: [json.load(open(f"{out}/{v}{r}/bench.json")) for r in range(1, rounds + 1)] for v in "ab"}
json.dump(runs, open(f"{out}/runs.json", "w"))
def label(p):
    batch = f" b{p['batch']}" if p["batch"] > 1 else ""
    return f"{p['m']}x{p['n']}x{p['k']} {p['layout']}{batch}"
print("speedup over cuBLAS per round; B/A: ratio of the medians")
print(f"{'problem':28} {'A':>{7 * rounds}} {'B':>{7 * rounds}}    B/A")
for i, p in enumerate(runs["a"][0]["problems"]):
    a = [run["problems"][i]["speedup"] for run in runs["a"]]
    b = [run["problems"][i]["speedup"] for run in runs["b"]]
    cells = lambda s: "".join(f"{x:7.3f}" for x in s)
    print(f"{label(p):28} {cells(a)} {cells(b)}  {statistics.median(b) / statistics.median(a):5.3f}")
for v in "ab":
    print(f"geometric mean, {v.upper()}: " + ", ".join(f"{run['geomean_speedup']:.3f}" for run in runs[v]))
EOF
