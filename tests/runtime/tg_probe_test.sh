#!/usr/bin/env bash
# `tg devices --probe`: a plugin that dies inside initialize (SIGSEGV, abort) is listed as
# [crashed] with the signal and its last words, and the listing still completes with the plugins after
# it (the runfiles' CPU plugin and the ZETA stub), exiting 0 because devices exist.
set -uo pipefail
tg="$1"
fail() { echo "FAIL: $*"; exit 1; }
stubs="$PWD/tests/runtime"
export TG_CACHE_DIR="$TEST_TMPDIR/cache"
# PoCL/NVRTC/hiprtc are probed in children too, but they only cost time here.
export TG_DISABLE_PLUGINS=OPENCL,CUDA,HIP
export TG_PLUGIN_PATH="$stubs/libstub_segv_init.so:$stubs/libstub_abort_init.so:$stubs/libstub_fake_device.so"

out=$("$tg" devices --probe 2>"$TEST_TMPDIR/err"); rc=$?
echo "$out"
cat "$TEST_TMPDIR/err"
[ "$rc" -eq 0 ] || fail "tg devices --probe exited $rc, not 0"

block() {  # the lines of the block that starts with $1
  echo "$out" | awk -v head="$1" 'index($0, head) == 1 {on = 1; print; next} /^[^ ]/ {on = 0} on'
}
segv=$(block "libstub_segv_init.so")
grep -q "\[crashed\]" <<<"$segv" || fail "the SIGSEGV plugin is not listed as crashed"
# Plain build: killed by SIGSEGV. Under ASan/UBSan the sanitizer catches the fault and exits(1) after
# printing its report, which then is the last stderr line.
grep -qE "was killed by signal 11 \(Segmentation fault\)|exited with status [1-9][0-9]* before finishing" <<<"$segv" ||
  fail "no signal or exit status for the SIGSEGV plugin"
abrt=$(block "libstub_abort_init.so")
grep -q "\[crashed\]" <<<"$abrt" || fail "the aborting plugin is not listed as crashed"
grep -q "was killed by signal 6 (Aborted)" <<<"$abrt" || fail "no SIGABRT for the aborting plugin"
grep -q "path: $stubs/libstub_abort_init.so" <<<"$abrt" || fail "no path for the aborting plugin"

grep -Eq "^CPU .*ABI 1\.[0-9]+  \[ok\]" <<<"$out" || fail "the listing stopped before the CPU plugin"
grep -q "^ZETA .*\[ok\]" <<<"$out" || fail "the listing stopped before the ZETA stub"
grep -q "Zeta accelerator" <<<"$out" || fail "no ZETA device row"
grep -q "reason: TG_DISABLE_PLUGINS names OPENCL" <<<"$out" || fail "TG_DISABLE_PLUGINS is not honoured in the probe"
echo ok
