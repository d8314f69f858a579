#!/usr/bin/env bash
# A rank that dies or hangs ends the whole 2-rank job with a clear message and a non-zero status, never
# a hang. Each run is bounded by mpirun.sh's timeout (exit 124 = it hung: a failure).
set -uo pipefail
mpirun_sh="$1"
program="$2"

expect_failure() {  # expect_failure NAME PATTERN -- command...
  local name="$1" pattern="$2"
  shift 3
  local out status start end
  out="$(mktemp)"
  start=$(date +%s)
  "$@" >"$out" 2>&1
  status=$?
  end=$(date +%s)
  echo "---- $name: exit status $status after $((end - start)) s"
  cat "$out"
  if [ "$status" -eq 0 ]; then echo "FAIL $name: the job succeeded; the failure was not noticed"; exit 1; fi
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then echo "FAIL $name: the job hung until the timeout"; exit 1; fi
  if ! grep -qE "$pattern" "$out"; then echo "FAIL $name: no message matching '$pattern'"; exit 1; fi
  echo "ok $name"
}

# Rank 1 exits without MPI_Finalize: mpirun notices the exit and ends the job, naming the rank.
expect_failure "rank exits" "rank 1 .*exit|exited|non-zero status" -- \
  env MPIRUN_TIMEOUT=120 "$mpirun_sh" 2 "$program" exit
# Rank 1 stops answering: rank 0's allreduce gives up after TG_DIST_TIMEOUT with a tg::Error, and its
# abort ends the job.
expect_failure "rank hangs" "got no answer from the other ranks within 5 s" -- \
  env MPIRUN_TIMEOUT=120 "$mpirun_sh" 2 -x TG_DIST_TIMEOUT=5 "$program" hang
echo "rank_failure_test: both failures ended the job with a message"
