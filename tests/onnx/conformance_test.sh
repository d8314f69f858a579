#!/usr/bin/env bash
# Runs //tools:onnx_conformance over the ONNX backend node tests (generated outside the repo by
# tests/onnx/make_node_tests.py; never downloaded here). Skips, saying how to generate them, when absent.
# Arguments: the runner, then its options (device, per-shard pass-rate floors).
set -euo pipefail
runner="$1"
shift
exec "$runner" --skip-if-missing --quiet "$@"
