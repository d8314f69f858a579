#!/usr/bin/env bash
# Runs a test program on N ranks on this machine, as CI does:
#   mpirun.sh N [-x NAME=VALUE ...] program [args...]
# As root (CI is root): --allow-run-as-root. Loopback only: the byte transfer layer (btl) and mpirun's
# own out-of-band channel (oob) use lo, so nothing leaves the machine. --oversubscribe: 2 cores may host
# more ranks than cores. The whole run is bounded by `timeout`, so a hang fails the test instead of
# blocking CI (exit 124). Bazel gives the test one XML_OUTPUT_FILE; ranks writing it at once leave it
# unreadable, so only rank 0 is handed it (the others' results still fail the run through mpirun's exit
# status and print to the log).
set -uo pipefail
np="$1"
shift
mpirun_options=()  # mpirun's own "-OPTION VALUE" pairs (such as -x NAME=VALUE), before the program
while [ "$#" -ge 2 ] && [[ "$1" == -* ]]; do
  mpirun_options+=("$1" "$2")
  shift 2
done
# Under --config=asan: OpenMPI's MCA components leak at MPI_Finalize and are dlclose()d before LeakSanitizer
# reports, so their frames cannot even be named in a suppression; leaks stay checked everywhere else, and
# every access of the ranks is still checked by ASan and UBSan.
case "${ASAN_OPTIONS:-}" in *detect_leaks=1*) export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" ;; esac
# OpenMPI puts its session directory under TMPDIR; the test's own is writable inside the sandbox.
export TMPDIR="${TEST_TMPDIR:-${TMPDIR:-/tmp}}"
export OMPI_MCA_plm_rsh_agent=false   # a single-node run never needs ssh; fail fast instead of trying it
exec timeout --kill-after=10 "${MPIRUN_TIMEOUT:-200}" mpirun --allow-run-as-root --oversubscribe --bind-to none \
  -np "$np" --mca btl self,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo \
  "${mpirun_options[@]}" bash -c '[ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ] || unset XML_OUTPUT_FILE GTEST_OUTPUT; exec "$@"' rank "$@"
