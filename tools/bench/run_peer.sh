#!/usr/bin/env bash
# Runs every peer of the suite and writes their figures as one tg bench report (tools/bench/peer_report.py),
# which `tg bench --peers OUT.json` puts beside ours in one table:
#   PyTorch  W1-W7   ../shared/peers/bench_torch.py, the way the figures in RESULTS.md were measured
#   PyTorch  W9-W10, W8a/b/e  tools/bench/peers_torch.py (same timing, threads and format; W8 in fresh processes)
#   PyTorch  W12     tools/bench/peer_llm.py (the same; skipped without make_w12_model.py's model)
#   ONNX Runtime W11, W8c/d  tools/bench/peer_ort.mjs (onnxruntime-node, installed by tools/setup.sh)
#
#   tools/bench/run_peer.sh [OUT.json] [extra PyTorch peer args, e.g. --threads default,2]
#
# REPS=N sets the PyTorch peers' timed runs (common.py; 5, W5/W6/W9/W10 at least their own counts).
# TG_MODEL_DIR moves W12's model folder as for the bench.
# A peer that cannot run (no torch, no node, no shared peers directory) becomes a "skipped" record saying why;
# the others still run. Needs python3-torch, python3-threadpoolctl and OpenBLAS (libopenblas0-pthread): without
# OpenBLAS torch's matmuls fall back to the reference BLAS and W1/W5/W6 come out ~50x slower.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
peers="${TG_PEERS_DIR:-$here/../../../shared/peers}"
out="${1:-/tmp/peers.json}"
shift || true
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

skipped() {  # skipped FILE PEER REASON
  echo "run_peer: $2 skipped: $3" >&2
  /usr/bin/python3 -c 'import json, sys; json.dump({"peer": sys.argv[2], "skipped": sys.argv[3]}, open(sys.argv[1], "w"))' \
    "$1" "$2" "$3"
}

# The machine image sets these for OpenBLAS's core detection; the peer figures are measured without them.
torch_py=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3)
if ! "${torch_py[@]}" -c 'import torch' 2>/dev/null; then
  skipped "$tmp/torch.json" torch "python3-torch is not importable by /usr/bin/python3 (tools/setup.sh installs it)"
elif [ ! -f "$peers/bench_torch.py" ]; then
  skipped "$tmp/torch.json" torch "$peers/bench_torch.py not found (set TG_PEERS_DIR)"
else
  "${torch_py[@]}" "$peers/bench_torch.py" --json "$tmp/torch.json" "$@" ||
    skipped "$tmp/torch.json" torch "bench_torch.py failed (status $?)"
  TG_PEERS_DIR="$peers" "${torch_py[@]}" "$here/peers_torch.py" --json "$tmp/torch_apps.json" "$@" ||
    skipped "$tmp/torch_apps.json" torch "peers_torch.py failed (status $?)"
  TG_PEERS_DIR="$peers" "${torch_py[@]}" "$here/peer_llm.py" --json "$tmp/torch_llm.json" "$@" ||
    skipped "$tmp/torch_llm.json" torch "peer_llm.py failed (status $?)"
fi

if ! command -v node >/dev/null 2>&1; then
  skipped "$tmp/ort.json" ort "node is not installed"
else
  node "$here/peer_ort.mjs" --json "$tmp/ort.json" || skipped "$tmp/ort.json" ort "peer_ort.mjs failed (status $?)"
fi

reports=()
for f in torch torch_apps torch_llm ort; do [ -f "$tmp/$f.json" ] && reports+=("$tmp/$f.json"); done
/usr/bin/python3 "$here/peer_report.py" "$out" "${reports[@]}"
