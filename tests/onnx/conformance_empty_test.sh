#!/usr/bin/env bash
# onnx_conformance must fail, not score 100%, when it counts no case: an empty directory, and a filter
# that matches none of the cases of a directory that has one.
set -uo pipefail
runner="$1"
empty="$TEST_TMPDIR/empty"
mkdir -p "$empty/test_nothing"
out="$("$runner" "$empty" --device CPU 2>&1)"
rc=$?
[ "$rc" -eq 1 ] || { echo "empty directory: exit $rc, want 1"; echo "$out"; exit 1; }
grep -q "FAILED: no counted case" <<<"$out" || { echo "empty directory: no FAILED line"; echo "$out"; exit 1; }
out="$("$runner" "$empty" --filter no_such_case --min-pass-rate 0 2>&1)"
rc=$?
[ "$rc" -eq 1 ] || { echo "filter matching nothing: exit $rc, want 1"; echo "$out"; exit 1; }
echo PASS
