#!/usr/bin/env bash
# Compares two builds on named configs, on a machine with a GPU: `gemmtune try --out` of each in
# turns A B B A, then per problem and config each build's times, B / A, and every result that was
# not right. For kernel changes: the same configs, the same shapes, one process per run.
#   usage: tools/gpu-try-ab.sh CLI_A CLI_B TRY_ARGS...
#     CLI_A, CLI_B  the two builds' gemmtune executables (a FILE.gz is unpacked first), e.g.
#                   stripped and gzipped so that both travel to the GPU machine
#     TRY_ARGS      config names and --shape options, as `gemmtune try` takes them
#   Writes to $OUT (default ./gpu-try-ab): a1.json b1.json b2.json a2.json (try --out), their
#   logs, and compare.txt (the table printed). Exits 1 when either build gave a wrong result or
#   a run failed.
set -uo pipefail
if [ $# -lt 3 ]; then
  sed -n '5,11p' "$0" | sed 's/^# //' >&2
  exit 2
fi
cli_a=$1 cli_b=$2
shift 2
for f in "$cli_a" "$cli_b"; do
  [ -f "$f" ] || { echo "gpu-try-ab: no such file: $f (give the path of a gemmtune executable)" >&2; exit 2; }
done
out=${OUT:-gpu-try-ab}
mkdir -p "$out"
source "$(dirname "$0")/cuda-libs.sh"
export LD_LIBRARY_PATH="$cuda_libs${LD_LIBRARY_PATH:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unpack() {
  case "$1" in
    *.gz) gunzip -c "$1" > "$work/$2" || exit 1 ;;
    *) cp "$1" "$work/$2" || exit 1 ;;
  esac
  chmod +x "$work/$2"
}
unpack "$cli_a" a
unpack "$cli_b" b
# A build mistake can send the same executable twice (a CMake target that did not relink the
# CLI): say so, since the comparison then measures only noise.
cmp -s "$work/a" "$work/b" && echo "gpu-try-ab: note: A and B are the same executable; this run measures noise only" >&2

status=0
for run in a1 b1 b2 a2; do
  v=${run:0:1}
  start=$(date +%s)
  "$work/$v" try "$@" --out "$out/$run.json" > "$out/$run.log" 2>&1
  rc=$?
  echo "$run: status $rc, $(($(date +%s) - start)) s"
  # Status 1 with the file written: wrong results, listed below; anything else is a failed run.
  if [ $rc -ne 0 ]; then
    status=1
    [ -f "$out/$run.json" ] || { echo "gpu-try-ab: build $v failed (log: $out/$run.log)" >&2; tail -5 "$out/$run.log" >&2; exit 1; }
  fi
done

python3 - "$out" <<'PY' | tee "$out/compare.txt"
import json, sys
out = sys.argv[1]
runs = {run: json.load(open(f"{out}/{run}.json"))["results"] for run in ("a1", "b1", "b2", "a2")}
def key(r):
    return (f"{r['m']}x{r['n']}x{r['k']} {r['layout']}", r["config"])
def times(build):
    t = {}
    for run in (build + "1", build + "2"):
        for r in runs[run]:
            t.setdefault(key(r), []).append(r)
    return t
a, b = times("a"), times("b")
print(f"gpu: {json.load(open(out + '/a1.json'))['gpu']}; us, two runs each; B/A: ratio of the means")
print(f"{'problem':22} {'config':58} {'A':>26} {'B':>26}  B/A")
for k in list(dict.fromkeys(list(a) + list(b))):
    cells, means = [], []
    for rows in (a.get(k, []), b.get(k, [])):
        ok = [r["median_ms"] * 1e3 for r in rows if "median_ms" in r]
        bad = sorted({r["status"] for r in rows if r["status"] != "ok"})
        cells.append(" ".join(f"{t:7.1f}" for t in ok) + (" " + ",".join(bad) if bad else ""))
        means.append(sum(ok) / len(ok) if ok else None)
    ratio = f"{means[1] / means[0]:5.3f}" if all(means) else "  -"
    print(f"{k[0]:22} {k[1]:58} {cells[0]:>26} {cells[1]:>26}  {ratio}")
PY
exit $status
