#!/usr/bin/env bash
# Runs a test program on N ranks on this machine, as CI does:
#   mpirun.sh N program [args...]
# As root (CI is root): --allow-run-as-root. Loopback only: the byte transfer layer (btl) and mpirun's
# own out-of-band channel (oob) use lo, so nothing leaves the machine. --oversubscribe: 2 cores may host
# more ranks than cores. The whole run is bounded by `timeout`, so a hang fails the test instead of
# blocking CI (exit 124).
set -uo pipefail
np="$1"
shift
# OpenMPI puts its session directory under TMPDIR; the test's own is writable inside the sandbox.
export TMPDIR="${TEST_TMPDIR:-${TMPDIR:-/tmp}}"
export OMPI_MCA_plm_rsh_agent=false   # a single-node run never needs ssh; fail fast instead of trying it
exec timeout --kill-after=10 "${MPIRUN_TIMEOUT:-200}" mpirun --allow-run-as-root --oversubscribe --bind-to none \
  -np "$np" --mca btl self,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo "$@"
