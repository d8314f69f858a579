#!/usr/bin/env bash
# `tg` command line: help exits 0, an unknown command prints usage and exits 2, and `tg devices`
# lists the CPU and null plugins from the runfiles with their status and reason.
set -uo pipefail
tg="$1"
fail() { echo "FAIL: $*"; exit 1; }

grep -q "usage: tg" <<<"$("$tg" --help)" || fail "--help"
"$tg" frobnicate >/dev/null 2>"$TEST_TMPDIR/err"; rc=$?
[ "$rc" -eq 2 ] || fail "unknown command exited $rc, not 2"
grep -q "usage: tg" "$TEST_TMPDIR/err" || fail "unknown command printed no usage"

out=$(TG_CACHE_DIR="$TEST_TMPDIR" "$tg" devices) || fail "tg devices exited $?"
echo "$out"
grep -Eq "^CPU .*ABI 1\.[0-9]+  \[ok\]" <<<"$out" || fail "no CPU plugin row"
grep -q "arch x86_64-.*vector width [0-9]*, [0-9]* compute units" <<<"$out" || fail "no CPU device row"
grep -q "^NULL .*\[no devices\]" <<<"$out" || fail "no NULL plugin row"
grep -q "reason: the null plugin is a template" <<<"$out" || fail "no NULL reason"
echo ok
