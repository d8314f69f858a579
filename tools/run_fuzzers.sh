#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzzers for a fixed time (default 30 s) from its checked-in seed corpus
# and prints one Bazel-style result line per fuzzer ("//tests/fuzzers:NAME   PASSED in 30s (...)" / "FAILED"),
# which .ci/run counts. Where clang or libFuzzer (libclang-rt-14-dev) is missing, each line says SKIPPED and
# why (exit 0), and .ci/run counts it as a skip.
#
# Two ways to build, neither touching the shared Bazel server or its outputs:
#  - standalone targets (a parser and abseil, no runtime) are compiled with clang directly;
#  - targets that need the runtime or the front end are built by Bazel with --config=fuzz in an output base
#    of their own ($TG_FUZZ_OUTPUT_BASE, default ~/.cache/tinygrad-cc-fuzz), whose server exits when idle.
#    Compiles are shared through the disk cache, so later runs are incremental.
#
#   tools/run_fuzzers.sh [SECONDS] [NAME...]       (NAME: e.g. onnx_fuzzer; default: all)
#   FUZZ_ARGS="-runs=1000000" tools/run_fuzzers.sh 0 idx_fuzzer   # a long run: extra libFuzzer flags
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
secs="${1:-30}"
shift || true
cxx="$(command -v clang++-14 || command -v clang++ || true)"
rt="$(ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null | head -1)"

flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I.)
absl_libs="$(pkg-config --libs absl_status absl_statusor absl_strings)"
declare -A standalone_srcs=(
  [envelope_fuzzer]="tests/fuzzers/envelope_fuzzer.cc plugins/cpu/binary_envelope.cc"
  [idx_fuzzer]="tests/fuzzers/idx_fuzzer.cc apps/idx_reader.cc frontend/load_budget.cc ir/env.cc"
  [bpe_tokenizer_fuzzer]="tests/fuzzers/bpe_tokenizer_fuzzer.cc apps/bpe_tokenizer.cc frontend/load_budget.cc ir/env.cc"
)
declare -A standalone_libs=([envelope_fuzzer]="" [idx_fuzzer]="$absl_libs -lz" [bpe_tokenizer_fuzzer]="$absl_libs")
bazel_targets=(safetensors_fuzzer gguf_fuzzer llm_tokenizer_fuzzer disk_cache_fuzzer onnx_fuzzer hostile_plugin_fuzzer)
all=(envelope_fuzzer idx_fuzzer bpe_tokenizer_fuzzer "${bazel_targets[@]}")
names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")
# Without clang or libFuzzer nothing can run: every fuzzer is a counted skip, not a silent pass.
if [ -z "$cxx" ] || [ -z "$rt" ]; then
  for name in "${names[@]}"; do
    echo "//tests/fuzzers:$name   SKIPPED (clang++ or libclang_rt.fuzzer missing; apt-get install clang libclang-rt-14-dev)"
  done
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fuzz_base="${TG_FUZZ_OUTPUT_BASE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tinygrad-cc-fuzz}"
fuzz_bazel() { bazel --output_base="$fuzz_base" --max_idle_secs=60 "$@"; }

# Prints the fuzzer binary's path, or fails with its build log on stdout.
build() {
  local name="$1"
  if [ -n "${standalone_srcs[$name]:-}" ]; then
    # shellcheck disable=SC2086
    "$cxx" "${flags[@]}" ${standalone_srcs[$name]} -o "$work/$name" ${standalone_libs[$name]} \
      >"$work/$name.build.log" 2>&1 || { cat "$work/$name.build.log"; return 1; }
    echo "$work/$name"
  else
    fuzz_bazel build --config=fuzz "//tests/fuzzers:$name" >"$work/$name.build.log" 2>&1 \
      || { tail -60 "$work/$name.build.log"; return 1; }
    echo "$(fuzz_bazel info --config=fuzz bazel-bin 2>/dev/null)/tests/fuzzers/$name"
  fi
}

rc=0
for name in "${names[@]}"; do
  if ! bin="$(build "$name")"; then
    echo "$bin"
    echo "//tests/fuzzers:$name   FAILED TO BUILD"
    rc=1
    continue
  fi
  mkdir -p "$work/corpus_$name" "$work/cache_$name"
  cp tests/fuzzers/corpus/$name/* "$work/corpus_$name/"
  start=$SECONDS
  limit=(-max_total_time="$secs")
  [ "$secs" -gt 0 ] || limit=()
  # CC=clang: the CPU plugin instruments generated kernels like the host, and a kernel built by gcc with
  # -fsanitize=address would bring gcc's ASan runtime into clang's ("incompatible ASan runtimes").
  # halt_on_error: the Bazel-built targets compile UBSan recoverable; any report must still fail the run.
  # shellcheck disable=SC2086
  if CC="$(command -v clang-14 || command -v clang)" UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     TG_CACHE_DIR="$work/cache_$name" TEST_TMPDIR="$work" "$bin" "${limit[@]}" -rss_limit_mb=2048 -timeout=20 \
       -print_final_stats=1 ${FUZZ_ARGS:-} "$work/corpus_$name" >"$work/$name.log" 2>&1; then
    runs="$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$work/$name.log" | tail -1)"
    cov="$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$work/$name.log" | tail -1)"
    echo "//tests/fuzzers:$name   PASSED in $((SECONDS - start))s (${runs:-$(tail -1 "$work/$name.log")}; $cov)"
  else
    tail -60 "$work/$name.log"
    echo "//tests/fuzzers:$name   FAILED in $((SECONDS - start))s (the crashing input is printed above as base64)"
    rc=1
  fi
done
exit $rc
