#!/usr/bin/env bash
# tools/gpu_check.sh without a GPU: the one-line answer and exit 0; the dry run's report, in which
# nothing that did not run counts as a pass; a bad flag is a usage error.
set -uo pipefail
script="$PWD/$1"
fail() { echo "FAIL: $*"; exit 1; }
verdict() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$1"; }

"$script" --no-such-flag >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown flag must exit 2"

if ! compgen -G "/dev/nvidia[0-9]*" >/dev/null && [ ! -e /dev/kfd ] && ! compgen -G "/dev/dri/renderD*" >/dev/null; then
  out="$("$script" "$TEST_TMPDIR/none")" || fail "no GPU must exit 0, got $?"
  [ "$(wc -l <<<"$out")" -eq 1 ] || fail "no GPU must print one line, got: $out"
  grep -q "no GPU" <<<"$out" || fail "the line must say there is no GPU: $out"
  [ "$(verdict "$TEST_TMPDIR/none/gpu_check.json")" = no-gpu ] || fail "the report must say no-gpu"
  out="$(OUT="$TEST_TMPDIR/from_out" "$script")" || fail "no GPU with \$OUT must exit 0"
  [ -s "$TEST_TMPDIR/from_out/gpu_check.md" ] || fail "\$OUT is the report directory when no argument is given"
else
  echo "this machine has a GPU: the no-GPU answer is not tested here"
fi

dry="$TEST_TMPDIR/dry"
"$script" --dry-run "$dry" >"$TEST_TMPDIR/dry.out" 2>&1 || fail "the dry run must exit 0: $(cat "$TEST_TMPDIR/dry.out")"
[ -s "$dry/gpu_check.md" ] || fail "no Markdown report"
python3 - "$dry/gpu_check.json" <<'PY' || fail "the dry run's report is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "dry-run", r["verdict"]
steps = {(s["step"], s["device"]) for s in r["steps"]}
for step in ["cts", "golden", "kernels", "fuzz", "bench"]:
    assert (step, "CUDA") in steps and (step, "HIP") in steps, (step, steps)
assert ("build", "") in steps, steps
assert all(s["status"] == "not-run" for s in r["steps"]), r["steps"]
assert r["counts"]["pass"] == 0, r["counts"]
PY
grep -q -- "-c opt" "$dry/logs/build-all.log" || fail "the build must be -c opt: $(cat "$dry/logs/build-all.log")"
grep -q -- "--device=CUDA" "$dry/logs/golden-CUDA.log" || fail "the golden suites must run on the device"
grep -q -- "tensor_core_numerics_test" "$dry/logs/kernels-CUDA.log" || fail "the tensor core suite must run on the device"
echo "ok"
