#!/usr/bin/env bash
# Dynamic token counts: how much of per-M tuning the dispatcher keeps when a language-model layer
# (one N x K, layout nt: y = x W^T) is called with many M but its database holds a few. On a
# machine with a GPU, from a build made elsewhere (like tools/gpu-bench.sh).
#   usage: tools/gpu-dynamic-m.sh BUILD_DIR BUDGET_S [--few M,M,...] [NxK ...]
#     BUDGET_S  sweep seconds per problem, the same for both databases
#     --few     the token counts few.db is tuned at (default 1,16,128,1024,4096)
#     NxK       the layers (default: 4096x4096 11008x4096)
#   For each layer: sweeps the --few M into few.db and every M of the list below
#   into each.db (no shipped file: GEMMTUNE_NO_SHIPPED=1), benches all the M from both, and writes
#   $OUT (default BUILD_DIR/gpu-dynamic-m)/dynamic-m.json and a table: per M, the time from few.db
#   over the time from each.db (1: as fast as tuning that M itself).
set -uo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
build=$1 budget=$2
shift 2
few_m=(1 16 128 1024 4096)
if [ "${1:-}" = --few ]; then
  IFS=, read -r -a few_m <<<"${2:?--few needs a list such as 1,16,128}"
  shift 2
fi
layers=("$@")
[ ${#layers[@]} -gt 0 ] || layers=(4096x4096 11008x4096)
out=${OUT:-$build/gpu-dynamic-m}
mkdir -p "$out"
source "$(dirname "$0")/cuda-libs.sh"
export LD_LIBRARY_PATH="$cuda_libs${LD_LIBRARY_PATH:-}" GEMMTUNE_NO_SHIPPED=1
gemmtune="$build/tools/gemmtune"
# 32 token counts from 1 to 4096: powers of two, odd counts and the ones between.
all_m=(1 2 3 5 7 8 12 16 17 24 31 32 48 64 77 96 128 160 200 256 333 384 512 640 768 1000 1024
       1500 2048 2500 3072 4096)
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for layer in "${layers[@]}"; do
  n=${layer%x*} k=${layer#*x}
  for set in few each; do
    if [ $set = few ]; then ms=("${few_m[@]}"); else ms=("${all_m[@]}"); fi
    csv="$out/$layer-$set.csv"
    echo "m,n,k,layout" >"$csv"
    for m in "${ms[@]}"; do echo "$m,$n,$k,nt" >>"$csv"; done
    db="$out/$layer-$set.db"
    rm -f "$db"
    start=$(date +%s)
    "$gemmtune" sweep --db "$db" --budget "$budget" --file "$csv" >"$out/$layer-$set-sweep.log" 2>&1 ||
      { echo "gpu-dynamic-m: the sweep of $layer ($set) failed: $out/$layer-$set-sweep.log" >&2; exit 1; }
    echo "$layer $set: ${#ms[@]} problems swept in $(($(date +%s) - start)) s"
  done
  all_csv="$out/$layer-all.csv"
  echo "m,n,k,layout" >"$all_csv"
  for m in "${all_m[@]}"; do echo "$m,$n,$k,nt" >>"$all_csv"; done
  for set in few each; do
    "$gemmtune" bench --db "$out/$layer-$set.db" --file "$all_csv" --out "$out/$layer-$set-bench.json" \
      >"$out/$layer-$set-bench.log" 2>&1 ||
      { echo "gpu-dynamic-m: the bench of $layer ($set) failed: $out/$layer-$set-bench.log" >&2; exit 1; }
  done
done
FEW_M="${few_m[*]}" python3 - "$out" "${layers[@]}" <<'EOF'
import json, math, os, sys
out, layers = sys.argv[1], sys.argv[2:]
tuned = {int(m) for m in os.environ["FEW_M"].split()}
report = {}
for layer in layers:
    few = {p["m"]: p for p in json.load(open(f"{out}/{layer}-few-bench.json"))["problems"]}
    each = {p["m"]: p for p in json.load(open(f"{out}/{layer}-each-bench.json"))["problems"]}
    rows = []
    print(f"layer {layer} nt: M, time from few.db / time from each.db (ms), ratio, config from few.db")
    for m in sorted(each):
        ratio = each[m]["gemmtune_ms"] / few[m]["gemmtune_ms"]
        rows.append({"m": m, "few_ms": few[m]["gemmtune_ms"], "each_ms": each[m]["gemmtune_ms"],
                     "ratio": ratio, "few_config": few[m]["config"], "few_source": few[m]["source"],
                     "cublas_ms": each[m]["cublas_ms"]})
        print(f"  {m:5d}  {few[m]['gemmtune_ms']:.4f} / {each[m]['gemmtune_ms']:.4f}  {ratio:.3f}  "
              f"{few[m]['source']} {few[m]['config']}")
    ratios = [r["ratio"] for r in rows]
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"  geometric mean {geo:.3f}, lowest {min(ratios):.3f}")
    between = [r["ratio"] for r in rows if r["m"] not in tuned]
    geo_between = math.exp(sum(map(math.log, between)) / len(between)) if between else None
    if between:
        print(f"  the {len(between)} M few.db was not tuned at: geometric mean {geo_between:.3f}, "
              f"lowest {min(between):.3f}")
    report[layer] = {"rows": rows, "geomean": geo, "lowest": min(ratios),
                     "few_m": sorted(tuned), "geomean_untuned_m": geo_between}
json.dump(report, open(f"{out}/dynamic-m.json", "w"), indent=1)
EOF
