#!/usr/bin/env bash
# Records the strategy tests' fixture on a machine with a GPU: an exhaustive sweep (every
# candidate of the reduced space timed) of tests/fixtures/replay-problems.csv, from a build made
# elsewhere (like tools/gpu-check.sh). The sweep stops cleanly after SECONDS and a rerun resumes
# where it stopped, so a long recording fits into several calls of a few minutes.
#   usage: tools/gpu-record.sh BUILD_DIR DB SECONDS
#   Writes $OUT/fixture.tar.xz: DB without its binary cache (h200-exhaustive.db), which replaces
#   tests/fixtures/h200-exhaustive.tar.xz once every candidate is measured, and from which a rerun
#   on a fresh machine can go on (extract it to DB first).
set -uo pipefail
if [ $# -ne 3 ]; then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
build=$1 db=$2 seconds=$3
out=${OUT:-$build/gpu-record}
mkdir -p "$out" "$(dirname "$db")"
source "$(dirname "$0")/cuda-libs.sh"
export LD_LIBRARY_PATH="$cuda_libs${LD_LIBRARY_PATH:-}"
gemmtune="$build/tools/gemmtune"
problems=tests/fixtures/replay-problems.csv
# SIGINT: the sweep finishes the candidate in flight and marks the sweep interrupted.
timeout -s INT "$seconds" "$gemmtune" sweep --db "$db" --strategy exhaustive --file "$problems" \
  --seed 1 >>"$out/record.log" 2>&1
status=$?
tail -45 "$out/record.log"
left=$("$gemmtune" sweep --db "$db" --file "$problems" --dry-run | tail -1)
echo "$left"
case "$left" in
  "total "*) ;;
  *) exit 1 ;;
esac
read -r _ total _ measured _ <<<"$left"
fixture="$out/h200-exhaustive.db"
rm -f "$fixture"
python3 - "$db" "$fixture" <<'EOF'
import sqlite3, sys
con = sqlite3.connect(sys.argv[2])
sqlite3.connect(sys.argv[1]).backup(con)  # a consistent copy, WAL included
con.execute("PRAGMA journal_mode=DELETE")
con.execute("DELETE FROM binaries")
con.commit()
con.execute("VACUUM")
EOF
tar -C "$out" -cJf "$out/fixture.tar.xz" h200-exhaustive.db && rm "$fixture"
ls -la "$out"
if [ "$total" != "$measured" ]; then
  echo "record: $measured of $total candidates measured; run again to go on"
  exit 3
fi
echo "record: complete"
