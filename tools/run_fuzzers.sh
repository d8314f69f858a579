#!/usr/bin/env bash
# Runs each libFuzzer target for a fixed time (default 30 s) and prints one Bazel-style result line per
# fuzzer ("//tests/fuzzers:NAME  PASSED in 30s" / "FAILED"), which .ci/run counts. Skips (exit 0, one
# "skip" line) when clang or libFuzzer (Debian: libclang-rt-14-dev) is missing.
# Standalone targets (no core library deps) are compiled with clang directly, so CI never switches the
# shared Bazel server's C++ toolchain; targets that need the whole runtime (safetensors, disk cache) use
# `./bazelw build --config=fuzz` by hand (README "Hardening").
#   tools/run_fuzzers.sh [SECONDS]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
secs="${1:-30}"
cxx="$(command -v clang++-14 || command -v clang++ || true)"
rt="$(ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null | head -1)"
if [ -z "$cxx" ] || [ -z "$rt" ]; then
  echo "fuzzers: skip (clang++ or libclang_rt.fuzzer missing; apt-get install clang libclang-rt-14-dev)"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I.)
declare -A srcs=(
  [envelope_fuzzer]="tests/fuzzers/envelope_fuzzer.cc plugins/cpu/binary_envelope.cc"
  [idx_fuzzer]="tests/fuzzers/idx_fuzzer.cc apps/idx_reader.cc"
)
declare -A libs=([envelope_fuzzer]="" [idx_fuzzer]="$(pkg-config --libs absl_status absl_statusor absl_strings) -lz")
rc=0
for name in envelope_fuzzer idx_fuzzer; do
  # shellcheck disable=SC2086
  if ! "$cxx" "${flags[@]}" ${srcs[$name]} -o "$work/$name" ${libs[$name]} 2>"$work/$name.build.log"; then
    cat "$work/$name.build.log"
    echo "//tests/fuzzers:$name   FAILED TO BUILD"
    rc=1
    continue
  fi
  mkdir -p "$work/corpus_$name"
  cp tests/fuzzers/corpus/$name/* "$work/corpus_$name/"
  if "$work/$name" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 "$work/corpus_$name" >"$work/$name.log" 2>&1; then
    echo "//tests/fuzzers:$name   PASSED in ${secs}s ($(grep -oE 'Done [0-9]+ runs' "$work/$name.log" || tail -1 "$work/$name.log"))"
  else
    tail -40 "$work/$name.log"
    echo "//tests/fuzzers:$name   FAILED in ${secs}s"
    rc=1
  fi
done
exit $rc
