#!/usr/bin/env bash
# Makes (or remakes) the shipped tuning database of this machine's GPU model, db/shipped/<model>.db
# (db/shipped/README.md): tunes the problems of db/shipped/shapes.csv on every GPU of the machine
# into a scratch database, then `gemmtune db ship` reduces it to what the dispatcher reads (results
# only, each problem's fastest configs), checks it and puts it in place in one rename.
#
#   usage: tools/ship-tuning.sh BUILD_DIR [--gpus 0,1,...] [--scratch FILE] [--time-limit S]
#                               [--new-only] [--only ROWS_CSV] [sweep options...]
#     --gpus        the GPUs to tune on, one worker each (default: every GPU; all of one model)
#     --scratch     the sweep's database (default: BUILD_DIR/ship-tuning/<model>.sweep.db)
#     --time-limit  stop the sweep after S seconds (as Ctrl-C does) and ship what it measured
#     --new-only    tune only the problems the scratch database holds no result of (a run after
#                   one cut short by --time-limit then moves on to the rest, rather than timing
#                   more configs of the problems a budget already ended)
#     --only        tune only the rows of ROWS_CSV, each a row of db/shipped/shapes.csv (to re-tune
#                   some classes at a larger budget; the shipped file is made from all the scratch
#                   database holds, as always)
#     the rest goes to `gemmtune sweep` (e.g. --budget 20 --precision fp32)
#
# Resumable: the sweep records every measurement as it goes, and a sweep run again on its
# database skips what was measured. Stopped half-way (Ctrl-C, a lost machine), run the same
# command again: it continues where it stopped. The scratch database is kept afterwards, so that
# a later run with a larger budget builds on it. The problems are tuned in one fixed interleaved
# order (tools/ship-order.py; not the file's, which is grouped by class), so that a run cut short
# has covered every class a little rather than the first classes wholly.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: tools/ship-tuning.sh BUILD_DIR [--gpus 0,1,...] [--scratch FILE] [sweep options...]"
[ $# -ge 1 ] && [ "${1#-}" = "$1" ] || { echo "$usage" >&2; exit 2; }
build=$(cd "$1" && pwd) || { echo "ship-tuning: no build folder '$1'" >&2; exit 2; }
shift
cli=$build/tools/gemmtune
[ -x "$cli" ] || { echo "ship-tuning: $cli not built (cmake --build $build --target gemmtune_cli)" >&2; exit 2; }

gpus="" scratch="" time_limit="" new_only=0 only=() sweep_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --gpus) gpus=${2:?--gpus needs a list such as 0,1}; shift 2 ;;
    --gpus=*) gpus=${1#--gpus=}; shift ;;
    --scratch) scratch=${2:?--scratch needs a file}; shift 2 ;;
    --scratch=*) scratch=${1#--scratch=}; shift ;;
    --time-limit) time_limit=${2:?--time-limit needs seconds}; shift 2 ;;
    --time-limit=*) time_limit=${1#--time-limit=}; shift ;;
    --new-only) new_only=1; shift ;;
    --only) only=(--only "${2:?--only needs a CSV of rows of db/shipped/shapes.csv}"); shift 2 ;;
    --only=*) only=(--only "${1#--only=}"); shift ;;
    --db|--db=*|--file|--file=*|--shape|--shape=*|--preset|--preset=*)
      echo "ship-tuning: $1 is this script's to set: the problems are db/shipped/shapes.csv, the" \
           "sweep's database is --scratch" >&2; exit 2 ;;
    *) sweep_args+=("$1"); shift ;;
  esac
done

if [ -n "$time_limit" ] && ! [[ $time_limit =~ ^[1-9][0-9]*$ ]]; then
  echo "ship-tuning: --time-limit takes whole seconds, not '$time_limit'" >&2
  exit 2
fi

# The GPUs, from `gemmtune info`: "GPU 0         NVIDIA H200, compute capability 9.0 (sm_90)".
info=$("$cli" info)
all_gpus=$(sed -n 's/^GPU \([0-9][0-9]*\)  *.*/\1/p' <<<"$info" | paste -sd, -)
[ -n "$all_gpus" ] || { echo "ship-tuning: no GPU found:" >&2; echo "$info" >&2; exit 3; }
gpus=${gpus:-$all_gpus}
models=$(for g in ${gpus//,/ }; do
  sed -n "s/^GPU $g  *\(.*\), compute capability.*/\1/p" <<<"$info"
done | sort -u)
[ -n "$models" ] || { echo "ship-tuning: --gpus $gpus names no GPU of this machine ($all_gpus)" >&2; exit 2; }
if [ "$(wc -l <<<"$models")" -ne 1 ]; then
  echo "ship-tuning: GPUs $gpus are of several models; a shipped database holds one:" >&2
  echo "$models" >&2
  exit 2
fi
model=$models
scratch=${scratch:-$build/ship-tuning/$(tr -c 'A-Za-z0-9\n' '-' <<<"$model").sweep.db}
mkdir -p "$(dirname "$scratch")"

order=$(mktemp)
trap 'rm -f "$order" "$order.tuned"' EXIT
if [ "$new_only" -eq 1 ] && [ -e "$scratch" ]; then
  # The problems with a best in the scratch database leave the list.
  "$cli" db best --db "$scratch" --format json >"$order.tuned"
  python3 "$repo/tools/ship-order.py" "$repo/db/shipped/shapes.csv" "$order.tuned" \
    ${only[@]+"${only[@]}"} >"$order"
else
  python3 "$repo/tools/ship-order.py" "$repo/db/shipped/shapes.csv" ${only[@]+"${only[@]}"} >"$order"
fi
problems=$(($(wc -l <"$order") - 1))
echo "ship-tuning: [1/2] tuning $problems problems of db/shipped/shapes.csv on $model (GPUs $gpus)"
echo "ship-tuning:       into $scratch$([ -e "$scratch" ] && echo " (resuming: measured configs are skipped)")"
if [ "$(wc -l <"$order")" -le 1 ]; then
  echo "ship-tuning: every problem has a result in $scratch: nothing left to tune"
  nothing_left=1
fi
status=0
timeout_cmd=()
[ -n "$time_limit" ] && timeout_cmd=(timeout --preserve-status -k 60 -s INT "$time_limit")
if [ -z "${nothing_left:-}" ]; then
  ${timeout_cmd[@]+"${timeout_cmd[@]}"} "$cli" sweep --file "$order" --gpus "$gpus" --db "$scratch" \
    ${sweep_args[@]+"${sweep_args[@]}"} || status=$?
fi
if [ -n "$time_limit" ] && [ "$status" -eq 130 ]; then
  echo "ship-tuning: the time limit ($time_limit s) stopped the sweep: shipping what it measured;" \
       "run the same command again to continue it"
elif [ "$status" -ne 0 ]; then
  echo "ship-tuning: the sweep stopped (exit status $status): run the same command again to" \
       "continue it; nothing was written to db/shipped/" >&2
  exit "$status"
fi

echo "ship-tuning: [2/2] reducing $scratch to what the dispatcher reads"
"$cli" db ship --db "$scratch" --out "$repo/db/shipped"
echo "ship-tuning: done; commit it (git add db/shipped/*.db) and give its size and date in db/shipped/README.md"
