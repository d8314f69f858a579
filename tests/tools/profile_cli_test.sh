#!/usr/bin/env bash
# PROFILE=1 through real processes: the trace is written at exit to TG_PROFILE_OUT (or tg_profile_<pid>.json,
# named on stderr), `tg profile` reads it and writes the timeline page, and with PROFILE unset no file appears.
set -euo pipefail
program="$PWD/$1"
tg="$PWD/$2"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$TEST_TMPDIR"

PROFILE=1 TG_PROFILE_OUT="$TEST_TMPDIR/step.json" "$program" >/dev/null 2>err.txt || fail "the profiled program failed: $(cat err.txt)"
grep -q "PROFILE: .* events written to $TEST_TMPDIR/step.json" err.txt || fail "no 'written to' line: $(cat err.txt)"
[[ -s step.json ]] || fail "no trace at TG_PROFILE_OUT"

"$tg" profile step.json --html step.html >out.txt 2>&1 || fail "tg profile failed: $(cat out.txt)"
for want in "time split" "device" "compile" "top kernels" "timeline: step.html"; do
  grep -q "$want" out.txt || fail "tg profile printed no '$want': $(cat out.txt)"
done
grep -q "tgRendered" step.html || fail "the page has no drawing script"

mkdir -p default && cd default
PROFILE=1 "$program" >/dev/null 2>err.txt
written=$(ls tg_profile_*.json 2>/dev/null | head -1)
[[ -n "$written" ]] || fail "no tg_profile_<pid>.json in the working directory"
grep -q "written to $written" err.txt || fail "the default name was not printed: $(cat err.txt)"
cd ..

mkdir -p off && cd off
"$program" >/dev/null 2>err.txt
[[ -z "$(ls)" || "$(ls)" == "err.txt" ]] || fail "PROFILE unset wrote: $(ls)"
! grep -q "PROFILE" err.txt || fail "PROFILE unset printed: $(cat err.txt)"

"$tg" profile missing.json >/dev/null 2>&1 && fail "a missing trace was accepted"
rc=0
"$tg" profile >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "no arguments should exit 2, not $rc"
echo PASS
