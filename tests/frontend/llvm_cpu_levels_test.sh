#!/usr/bin/env bash
# Generated code must compile for any x86-64 CPU, not only this one. Runs suites through the CPU plugin's
# llvm-ir dialect (on this host: the kernels it supports also run), keeps every kernel the renderer wrote
# (DEBUG=4; TG_TIER=1, so every kernel is compiled llvm-ir, none interpreted), then compiles each with LLVM 15's -O2 pipeline and x86 back end for x86-64-v2, -v3, -v4 and
# the AVX512-FP16/AMX (sapphirerapids) and AVX512-BF16 (cooperlake) CPUs, without running them. A back-end abort
# ("Cannot select", as bfloat16 casts once hit on AVX512-FP16) fails the test with the kernel and the CPU.
#   llvm_cpu_levels_test.sh SUITE_BINARY...     (device_cc_test binaries; run from the runfiles root)
set -uo pipefail
opt="$(command -v opt-15 || true)" llc="$(command -v llc-15 || true)"
if [ -z "$opt" ] || [ -z "$llc" ]; then
  echo "SKIP: opt-15 / llc-15 missing (Debian's llvm-15, tools/setup.sh)"
  [ -n "${XML_OUTPUT_FILE:-}" ] && cat >"$XML_OUTPUT_FILE" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1"><testsuite name="llvm_cpu_levels" tests="1" skipped="1"><testcase name="llvm_cpu_levels" status="run" result="skipped"><skipped message="opt-15 / llc-15 missing (Debian's llvm-15, tools/setup.sh)"/></testcase></testsuite></testsuites>
XML
  exit 0
fi
work="${TEST_TMPDIR:-$(mktemp -d)}"
mkdir -p "$work/kernels"
for suite in "$@"; do
  name="$(basename "$suite")"
  DEBUG=4 TG_TIER=1 TG_CACHE_DIR="$work/cache_$name" "$suite" --device=CPU --cpu-dialect=llvm-ir >"$work/$name.log" 2>&1 ||
    { tail -40 "$work/$name.log"; echo "FAIL: $name does not pass on this host"; exit 1; }
  # Each kernel is printed after "--- NAME on CPU ---", up to its "*** " timing line or, when the next
  # kernel of the same schedule is generated before this one runs, up to that one's "NAME opts: ..." line.
  awk -v dir="$work/kernels" -v suite="$name" '
    /^--- [^ ]+ on CPU ---$/ { n++; file = sprintf("%s/%s_%04d_%s.ll", dir, suite, n, $2); next }
    /^\*\*\* / || /^[^ ]+ opts: / { file = "" }
    file != "" { print > file }' "$work/$name.log"
done
kernels=("$work"/kernels/*.ll)
[ -e "${kernels[0]}" ] || { echo "FAIL: no kernel was printed (DEBUG=4 output changed?)"; exit 1; }
fails=0
for cpu in x86-64-v2 x86-64-v3 x86-64-v4 cooperlake sapphirerapids; do
  for k in "${kernels[@]}"; do
    if ! "$opt" -O2 -mtriple=x86_64-unknown-linux-gnu -mcpu="$cpu" "$k" -o "$work/k.bc" 2>"$work/err" ||
       ! "$llc" -O2 -mtriple=x86_64-unknown-linux-gnu -mcpu="$cpu" -filetype=obj "$work/k.bc" -o /dev/null 2>>"$work/err"; then
      echo "FAIL: $(basename "$k") for $cpu: $(grep -m1 -E 'Cannot select|error|LLVM ERROR' "$work/err")"
      fails=$((fails + 1))
    fi
  done
done
echo "${#kernels[@]} kernels x 5 CPUs, $fails failed"
[ "$fails" -eq 0 ]
