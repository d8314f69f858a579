#!/usr/bin/env bash
# tools/bench/peer_report.py: the peers' reports (thread-tagged keys, a skipped row, a peer that could not
# run) become one tg bench report whose devices carry the thread setting; skips keep their reason, no value.
set -uo pipefail
script="$PWD/$1"  # runfiles-relative; the test then works in TEST_TMPDIR
fail() { echo "FAIL: $*"; exit 1; }
cd "$TEST_TMPDIR" || fail "no TEST_TMPDIR"

cat >torch.json <<'JSON'
{"peer": "torch", "meta": {"torch": "1.13"},
 "rows": {"W1_matmul_1024": {"value": 150.0, "unit": "GFLOP/s", "first_s": 0.05, "median_s": 0.01},
          "W1_matmul_1024_2T": {"value": 160.0, "unit": "GFLOP/s"},
          "W3a_sum_64M": {"value": 24.0, "unit": "GB/s"}}}
JSON
cat >ort.json <<'JSON'
{"peer": "ort", "meta": {}, "rows": {"W11_ocr_det_1T": {"unit": "ms", "skipped": "onnxruntime-node not installed"}}}
JSON
echo '{"peer": "node", "skipped": "node is not installed"}' >gone.json

/usr/bin/python3 "$script" out.json torch.json ort.json gone.json || fail "peer_report.py exited $?"
/usr/bin/python3 - <<'PY' || fail "merged report is wrong"
import json
r = json.load(open("out.json"))
got = {(x["name"], x["device"], x["metric"]): x for x in r["results"]}
assert got[("W1_matmul_1024", "torch", "median")]["value"] == 150.0, got
assert got[("W1_matmul_1024", "torch", "first")] == {"name": "W1_matmul_1024", "device": "torch", "metric": "first",
                                                     "value": 50.0, "unit": "ms"}, got
assert got[("W1_matmul_1024", "torch 2T", "median")]["value"] == 160.0, got
assert ("W3a_sum_64M", "torch", "median") in got, got  # "64M" is not a thread tag
skip = got[("W11_ocr_det", "ort 1T", "median")]
assert "value" not in skip and skip["skipped"] == "onnxruntime-node not installed", skip
assert got[("*", "node", "median")]["skipped"] == "node is not installed", got
assert r["context"]["torch torch"] == "1.13", r["context"]
PY
echo ok
