#!/usr/bin/env bash
# Runs the PyTorch peer (../shared/peers/bench_torch.py) the way BENCHMARKS.md measured it, for a
# same-session comparison with `bazel run --config=bench //tools/bench`.
#   tools/bench/run_peer.sh [out.json] [extra bench_torch.py args, e.g. --threads default,2]
# Needs python3-torch, python3-threadpoolctl and OpenBLAS (libopenblas0-pthread): without OpenBLAS,
# torch's matmuls fall back to the reference BLAS and W1/W5/W6 come out ~50x slower than BENCHMARKS.md.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
peers="${TG_PEERS_DIR:-$here/../../../shared/peers}"
out="${1:-/tmp/torch.json}"
shift || true

if [ ! -f "$peers/bench_torch.py" ]; then
  echo "run_peer: $peers/bench_torch.py not found (set TG_PEERS_DIR)" >&2
  exit 2
fi
# The machine image sets these for OpenBLAS's core detection; BENCHMARKS.md measured without them.
exec env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 "$peers/bench_torch.py" --json "$out" "$@"
