#!/usr/bin/env bash
# docs/cluster.md's compile array and merge, run as written on this machine: a one-node Slurm
# (tools/local-slurm.sh) runs tools/slurm/compile.sbatch as a 3-task array over a small problem
# list, then tools/slurm/merge.sbatch. The merged database must hold a binary for exactly the
# configs one `gemmtune compile` of the same list stores, pass `db check`, and stay the same when
# one task is rerun alone after its file was lost. Where Slurm cannot run here, the test says why
# and runs the same scripts as plain processes, with the variables Slurm would set.
#   compile_array.sh GEMMTUNE SOURCE_DIR WORK_DIR
set -euo pipefail
gemmtune=$(realpath "$1")
src=$(realpath "$2")
work=$3
rm -rf "$work"
mkdir -p "$work/out" "$work/tmp" "$work/logs"
work=$(realpath "$work")
export GEMMTUNE=$gemmtune OUT=$work/out TMPDIR=$work/tmp PROBLEMS=$work/problems.csv
# Dot products: small candidate sets in the reduced space (28 configs in all), so that the whole
# test compiles about 70 configs.
cat >"$PROBLEMS" <<'CSV'
m,n,k,layout
1,1,1024,nn
1,1,4096,nn
1,1,8192,nn
CSV
export ARCH=sm_90 SMS=132
unset GEMMTUNE_DB SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT SHARD

fail() { echo "FAIL: $*" >&2; exit 1; }
# The binaries stored, by cache key. Not their bytes: NVRTC does not always compile a config to the
# same code (seen here for `_o2` reduction configs: 96 or 104 registers, one config in 56, when
# several compiles ran at once), and each binary's hash is checked by `db check`.
binaries() { sqlite3 "$1" 'SELECT key, config_name FROM binaries ORDER BY key'; }

# The reference: one process compiles everything.
"$gemmtune" compile --file "$PROBLEMS" --arch $ARCH --sms $SMS -j "$(nproc)" --db "$work/single.db" | tee "$work/logs/single.log"
expected=$(binaries "$work/single.db" | wc -l)
[ "$expected" -ge 3 ] || fail "the single compile stored $expected binaries"

slurm_dir=$work/slurm
use_slurm=0
if why=$("$src/tools/local-slurm.sh" start "$slurm_dir" 2>&1); then
  eval "$(echo "$why" | tail -n 1)"  # export SLURM_CONF=...
  use_slurm=1
  trap '"$src/tools/local-slurm.sh" stop "$slurm_dir"' EXIT
  echo "Slurm: started slurmctld and slurmd on $(hostname -s) ($SLURM_CONF)"
else
  echo "SLURM NOT RUN: tools/local-slurm.sh could not start a one-node cluster here:"
  echo "$why" | sed 's/^/  /'
  echo "running the same tasks as plain processes instead"
fi

# Waits for job $1 to leave the queue; fails unless it COMPLETED.
wait_job() {
  local job=$1 state=""
  for _ in $(seq 600); do
    state=$(scontrol show job "$job" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort -u | tr '\n' ' ')
    case "$state" in *PENDING* | *RUNNING* | *CONFIGURING* | *COMPLETING* | "") sleep 1 ;; *) break ;; esac
  done
  echo "job $job: $state"
  [ "$state" = "JobState=COMPLETED " ] || { tail -n 20 "$work"/logs/*.out >&2; fail "job $job ended $state"; }
}

# Task $1 of the 3-task compile array (a rerun alone when $2 is "rerun").
compile_task() {
  if [ $use_slurm = 1 ]; then
    local args=(--array="$1")
    [ "${2:-}" = rerun ] && args=(--array="$1" --export=ALL,SHARD="$1/3")
    sbatch --parsable --cpus-per-task=1 --output="$work/logs/compile-%a.out" "${args[@]}" "$src/tools/slurm/compile.sbatch"
  else
    SLURM_JOB_ID=$$$1 SLURM_ARRAY_TASK_ID=$1 SLURM_ARRAY_TASK_COUNT=3 SLURM_CPUS_PER_TASK=1 \
      bash "$src/tools/slurm/compile.sbatch" >"$work/logs/compile-$1.out" 2>&1 || { cat "$work/logs/compile-$1.out"; fail "task $1"; }
  fi
}
merge() {
  if [ $use_slurm = 1 ]; then
    local job
    job=$(sbatch --parsable ${1:+--dependency=afterok:$1} --output="$work/logs/merge.out" "$src/tools/slurm/merge.sbatch")
    wait_job "$job"
  else
    bash "$src/tools/slurm/merge.sbatch" >"$work/logs/merge.out" 2>&1 || { cat "$work/logs/merge.out"; fail "merge"; }
  fi
  cat "$work/logs/merge.out"
}

# The array, then the merge once all of its tasks succeeded.
if [ $use_slurm = 1 ]; then
  array=$(sbatch --parsable --array=0-2 --cpus-per-task=1 --output="$work/logs/compile-%a.out" "$src/tools/slurm/compile.sbatch")
  merge "$array"
  cat "$work"/logs/compile-*.out
else
  for t in 0 1 2; do compile_task $t; done
  merge
fi

merged=$OUT/compile.db
[ -f "$merged" ] || fail "no merged database $merged"
for t in 0 1 2; do grep -q "^shard $t/3: " "$work/logs/compile-$t.out" || fail "task $t did not run shard $t/3"; done
# Each config was compiled by one task: the tasks' files hold disjoint parts of the whole.
sum=0
for t in 0 1 2; do sum=$((sum + $(binaries "$OUT/compile-$t.db" | wc -l))); done
[ "$sum" -eq "$expected" ] || fail "the 3 tasks stored $sum binaries, one process $expected: work was repeated or lost"
diff <(binaries "$work/single.db") <(binaries "$merged") || fail "the merged binaries differ from one process's"
"$gemmtune" db check --db "$merged" || fail "db check of the merged database"
echo "merged: $expected binaries, the same as one process's; db check passed"

# Task 1 failed and lost its file: it is rerun alone, and merged again. Nothing changes.
before=$(sqlite3 "$merged" 'SELECT key, content_hash, created_at FROM binaries ORDER BY key' | sha256sum)
rm "$OUT/compile-1.db"
if [ $use_slurm = 1 ]; then
  wait_job "$(compile_task 1 rerun)"
else
  compile_task 1 rerun
fi
grep -q "^shard 1/3: " "$work/logs/compile-1.out" || fail "the rerun did not run shard 1/3"
merge
grep -q "nothing new in $OUT/compile-1.db" "$work/logs/merge.out" || fail "the rerun task's file brought something new"
after=$(sqlite3 "$merged" 'SELECT key, content_hash, created_at FROM binaries ORDER BY key' | sha256sum)
[ "$before" = "$after" ] || fail "rerunning task 1 and merging again changed the merged database"
"$gemmtune" db check --db "$merged" >/dev/null || fail "db check after the rerun"
echo "rerun of task 1 alone, merged again: nothing changed"
[ $use_slurm = 1 ] && echo "PASS (real Slurm)" || echo "PASS (plain processes: Slurm could not run here, see above)"
