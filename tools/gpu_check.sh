#!/usr/bin/env bash
# tools/gpu_check.sh: everything a GPU machine can prove about our GPU plugins, in one run.
#
#   tools/gpu_check.sh [--dry-run] [--no-opt] [REPORT_DIR]      (REPORT_DIR defaults to $OUT)
#
# Builds with -c opt, then for every GPU plugin that finds a device (`tg devices`: CUDA and HIP
# devices, and any other plugin's device of type gpu or accelerator) runs the plugin conformance
# suite, the golden op suites, the GPU kernel suites (group reduces through local memory, matmuls
# on tensor cores against the host) and the differential fuzzer with TG_DEVICE set to that device,
# and the benchmark suite on it with short reps. Writes REPORT_DIR/gpu_check.json and gpu_check.md,
# and each step's log under REPORT_DIR/logs/.
#
# Every step has its own timeout, and the steps after the build share a budget (GPU_CHECK_BUDGET_S,
# 470 s: with a warm Bazel cache the run stays under 8 minutes); a step that would start past the
# budget is recorded "skipped". The build has its own limit (GPU_CHECK_BUILD_S, 300 s; a cold
# -c opt build of the whole tree may need more on a small machine).
# Only "pass" is a pass: a step that failed, timed out, was skipped, or ran but tested nothing (a
# suite whose tests all skipped, a fuzzer that compared no program, a CTS run that passed no
# program case) makes the verdict "fail". Exit 0 on "pass", "no-gpu" and "dry-run"; 1 otherwise.
#
# On a machine with no GPU (no /dev/nvidia*, /dev/kfd or /dev/dri/renderD*) it prints one line
# and exits 0 without building. GPU_CHECK_DEVICES="CUDA OPENCL:1" names the devices instead of
# finding them (GPU_CHECK_DEVICES=CPU runs the whole pipeline on the CPU, to test this script).
# --dry-run builds and runs nothing and writes the report of the plan, every step "not-run".
# --no-opt builds in Bazel's default mode instead of -c opt (quicker where the cache has it).
#
# Knobs: GPU_CHECK_GOLDEN (families, default all seven), GPU_CHECK_FUZZ_S (45),
# GPU_CHECK_BENCH_FILTER (regex over "<workload>/<device>", default all), GPU_CHECK_BENCH_REPS (2).
set -u -o pipefail

DRY=0 OPT=(-c opt)
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY=1; shift ;;
    --no-opt) OPT=(); shift ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    -*) echo "gpu_check: unknown flag $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
REPORT_DIR="${1:-${OUT:-}}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT" || exit 2
BAZEL="$ROOT/bazelw"
BUDGET_S="${GPU_CHECK_BUDGET_S:-470}"
BUILD_S="${GPU_CHECK_BUILD_S:-300}"
GOLDEN_FAMILIES="${GPU_CHECK_GOLDEN:-creation math binary reduce nn movement processing}"
FUZZ_S="${GPU_CHECK_FUZZ_S:-45}"
BENCH_FILTER="${GPU_CHECK_BENCH_FILTER:-}"
BENCH_REPS="${GPU_CHECK_BENCH_REPS:-2}"
START_S=$SECONDS

# ---- Is there a GPU at all? (before any build: a machine without one answers at once) --------
gpu_signals() {
  local s=""
  compgen -G "/dev/nvidia[0-9]*" >/dev/null && s+="nvidia "
  [ -e /dev/kfd ] && s+="amd "
  compgen -G "/dev/dri/renderD*" >/dev/null && s+="dri "
  echo "${s% }"
}
SIGNALS="$(gpu_signals)"
if [ -z "${GPU_CHECK_DEVICES:-}" ] && [ -z "$SIGNALS" ] && [ "$DRY" = 0 ]; then
  line="no GPU on this machine (no /dev/nvidia*, /dev/kfd or /dev/dri/renderD*): nothing to check"
  echo "gpu_check: $line"
  if [ -n "$REPORT_DIR" ] && mkdir -p "$REPORT_DIR"; then  # a report that says so, not a pass
    printf '{"verdict": "no-gpu", "detail": "%s", "steps": []}\n' "$line" >"$REPORT_DIR/gpu_check.json"
    printf '# GPU check: NO-GPU\n\n%s. Nothing ran, so nothing passed.\n' "${line^}" >"$REPORT_DIR/gpu_check.md"
  fi
  exit 0
fi
if [ -z "$REPORT_DIR" ]; then
  echo "gpu_check: give a report directory as the argument or set OUT" >&2
  exit 2
fi
mkdir -p "$REPORT_DIR/logs" || exit 2
REPORT_DIR="$(cd "$REPORT_DIR" && pwd)"
STEPS="$REPORT_DIR/steps.tsv"
: >"$STEPS"

# ---- Recording steps ---------------------------------------------------------------------------
# record NAME DEVICE STATUS SECONDS DETAIL LOG: one row of the report (tabs stripped from DETAIL).
record() {
  local detail="${5//$'\t'/ }"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${detail//$'\n'/ }" "$6" >>"$STEPS"
  printf 'gpu_check: %-8s %-10s %-8s %4ss  %s\n' "$1" "${2:--}" "$3" "$4" "${detail//$'\n'/ }"
}

# run_step NAME DEVICE TIMEOUT_S CMD...: runs CMD under a timeout (cut to what the budget has
# left), logs to logs/NAME-DEVICE.log, and leaves STATUS (pass, fail, timeout, skipped, not-run),
# STEP_S and LOG set for the caller to refine and record.
run_step() {
  local name="$1" device="$2" limit="$3"
  shift 3
  LOG="logs/${name}-${device:-all}.log"
  LOG="${LOG//:/_}"
  STEP_S=0
  if [ "$DRY" = 1 ]; then
    STATUS=not-run
    printf '%q ' "$@" >"$REPORT_DIR/$LOG"
    return
  fi
  local left=$((BUDGET_S - (SECONDS - START_S)))
  [ "$name" = build ] && left=$limit  # the build has its own limit, outside the budget
  if [ "$left" -lt 10 ]; then
    STATUS=skipped
    echo "not started: the run's budget of ${BUDGET_S}s was spent" >"$REPORT_DIR/$LOG"
    return
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local t0=$SECONDS rc
  timeout --kill-after=15 "$limit" "$@" >"$REPORT_DIR/$LOG" 2>&1
  rc=$?
  STEP_S=$((SECONDS - t0))
  case "$rc" in
    0) STATUS=pass ;;
    124 | 137) STATUS=timeout ;;
    *) STATUS=fail ;;
  esac
}

# After run_step: records a step that did not run (dry run, or the budget was spent) and returns
# 0, so the caller does not read results that are not this run's.
recorded_unrun() {
  case "$STATUS" in
    not-run) record "$1" "$2" not-run 0 "planned: the command is in the log" "$LOG" ;;
    skipped) record "$1" "$2" skipped 0 "not started: the run's budget of ${BUDGET_S}s was spent" "$LOG" ;;
    *) return 1 ;;
  esac
}

# ---- Build ---------------------------------------------------------------------------------------
TARGETS=(//tools:tg //tools:fuzz_programs //tools/bench:bench //plugins/cts //plugins:all)
GOLDEN_TARGETS=()
for f in $GOLDEN_FAMILIES; do GOLDEN_TARGETS+=("//tests/golden:golden_${f}_test"); done
KERNEL_TARGETS=(//tests/compiler:group_reduce_test_opencl //tests/compiler:tensor_core_numerics_test)

run_step build "" "$BUILD_S" "$BAZEL" build "${OPT[@]}" "${TARGETS[@]}" "${GOLDEN_TARGETS[@]}" "${KERNEL_TARGETS[@]}"
record build "" "$STATUS" "$STEP_S" "bazel build ${OPT[*]:-(default mode)} (${#TARGETS[@]} tools, ${#GOLDEN_TARGETS[@]} golden suites)" "$LOG"
BUILT=$STATUS
START_S=$SECONDS  # the budget is for what runs on the device

# ---- Which devices -------------------------------------------------------------------------------
# The .so of a plugin, by its name in `tg devices`.
plugin_so() {
  case "$1" in
    CPU) echo plugins/cpu/libtg_cpu.so ;;
    CUDA) echo plugins/cuda/libtg_cuda.so ;;
    HIP) echo plugins/hip/libtg_hip.so ;;
    OPENCL) echo plugins/opencl/libtg_opencl.so ;;
    *) echo "" ;;
  esac
}

# Devices `tg devices` lists that count as GPUs: every CUDA and HIP device (their plugins may not
# state a type) and any device of type gpu or accelerator; the first of each plugin.
find_gpu_devices() {
  awk '
    /^[A-Z]/ { plugin = $1; ok = ($0 ~ /\[ok\]/); next }
    /^    [^ ]/ { device = $1; sub(/:$/, "", device); next }
    /^      arch / && ok && !(plugin in chosen) {
      if (plugin == "CUDA" || plugin == "HIP" || $0 ~ /type (gpu|accelerator),/) { chosen[plugin] = 1; print device }
    }' "$1"
}

DEVICES=()
if [ -n "${GPU_CHECK_DEVICES:-}" ]; then
  read -r -a DEVICES <<<"$GPU_CHECK_DEVICES"
  record devices "" pass 0 "given by GPU_CHECK_DEVICES: ${DEVICES[*]}" ""
elif [ "$DRY" = 1 ]; then
  DEVICES=(CUDA HIP)
  record devices "" not-run 0 "dry run: planned for CUDA and HIP (a real run asks tg devices)" ""
elif [ "$BUILT" = pass ]; then
  run_step devices "" 60 bazel-bin/tools/tg devices
  # tg devices exits 1 when no plugin has a device: that is an answer, not a failure.
  mapfile -t DEVICES < <(find_gpu_devices "$REPORT_DIR/$LOG")
  if [ "$STATUS" = timeout ]; then
    DEVICES=()
    record devices "" timeout "$STEP_S" "tg devices hung (a driver?): try tg devices --probe" "$LOG"
  elif [ "${#DEVICES[@]}" -gt 0 ]; then
    record devices "" pass "$STEP_S" "GPU devices: ${DEVICES[*]} (signals: $SIGNALS)" "$LOG"
  elif [ "$SIGNALS" = dri ]; then
    record devices "" pass "$STEP_S" "no plugin found a compute device behind /dev/dri" "$LOG"
    echo "gpu_check: /dev/dri is there but no plugin found a GPU device: nothing to check"
  else
    record devices "" fail "$STEP_S" "GPU hardware ($SIGNALS) but no plugin found a device: see the log for each plugin's reason" "$LOG"
  fi
else
  record devices "" skipped 0 "the build failed" ""
fi

# ---- Per-device steps ----------------------------------------------------------------------------
json_field() {  # json_field FILE EXPR: a value of the JSON in FILE (python expression over `d`)
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

cts_step() {
  local dev="$1" plugin="${1%%:*}" ordinal=0 so
  [[ "$dev" == *:* ]] && ordinal="${dev##*:}"
  so="$(plugin_so "$plugin")"
  if [ -z "$so" ]; then
    record cts "$dev" skipped 0 "no in-tree plugin named $plugin" ""
    return
  fi
  local report="$REPORT_DIR/cts-${dev//:/_}.json"
  run_step cts "$dev" 120 bazel-bin/plugins/cts/cts "bazel-bin/$so" --device "$ordinal" --isolate --report "$report"
  recorded_unrun cts "$dev" && return
  local detail="CTS on $so device $ordinal"
  if [ "$STATUS" = pass ] || [ "$STATUS" = fail ]; then
    local counts programs
    counts="$(json_field "$report" '"%(pass)d pass, %(fail)d fail, %(skip)d skip" % d["totals"]')"
    programs="$(json_field "$report" 'd["tiers"]["T2"]["pass"]')"
    detail+=": ${counts:-no report}, T2 (programs) ${programs:-?} pass"
    if [ "$(json_field "$report" 'd["device_count"]')" = 0 ]; then
      STATUS=fail
      detail+=" (the plugin found no device: $(json_field "$report" 'd["no_device_reason"]'))"
    elif [ "$STATUS" = pass ] && [ "${programs:-0}" = 0 ]; then
      STATUS=fail
      detail+=" (no program case ran: none of the device's dialects has CTS kernels)"
    fi
  fi
  record cts "$dev" "$STATUS" "$STEP_S" "$detail" "$LOG"
}

# Sums the GoogleTest XML of the golden suites' last run: "tests failures skipped". A suite whose
# device is missing skips in its global environment (tests/device_main.cc); GoogleTest then writes
# every case as run and passed, so a log with that skip and no test run counts all its cases skipped.
golden_counts() {
  python3 - "$@" <<'PY'
import glob, os, re, sys, xml.etree.ElementTree as ET
tests = failures = skipped = 0
for target in sys.argv[1:]:
    path = "bazel-testlogs/" + target[2:].replace(":", "/")
    for xml in glob.glob(path + "/test.xml") + glob.glob(path + "/shard_*/test.xml"):
        try:
            cases = list(ET.parse(xml).getroot().iter("testcase"))
            log = open(os.path.join(os.path.dirname(xml), "test.log"), errors="replace").read()
        except (ET.ParseError, OSError):
            continue
        tests += len(cases)
        if re.search(r":\d+: Skipped$", log, re.M) and "[ RUN      ]" not in log:
            skipped += len(cases)
            continue
        for case in cases:
            if case.find("failure") is not None or case.find("error") is not None:
                failures += 1
            elif case.get("result") == "skipped" or case.find("skipped") is not None:
                skipped += 1
print(tests, failures, skipped)
PY
}

golden_step() {
  local dev="$1"
  run_step golden "$dev" 180 "$BAZEL" test "${OPT[@]}" "${GOLDEN_TARGETS[@]}" --test_arg="--device=$dev" \
    --nocache_test_results --local_test_jobs=4 --test_output=errors --strategy=TestRunner=local
  recorded_unrun golden "$dev" && return
  local counts tests failures skipped
  counts="$(golden_counts "${GOLDEN_TARGETS[@]}")"
  read -r tests failures skipped <<<"${counts:-0 0 0}"
  local detail="${#GOLDEN_TARGETS[@]} suites: $tests cases, $failures failed, $skipped skipped"
  if [ "$STATUS" = pass ] && { [ "$tests" = 0 ] || [ "$skipped" != 0 ]; }; then
    STATUS=fail
    detail+=" (skipped cases did not run on $dev)"
  fi
  record golden "$dev" "$STATUS" "$STEP_S" "$detail" "$LOG"
}

# The GPU kernel suites on the device (their targets name OPENCL; the last --device wins). A device
# without tensor cores skips those cases, saying so; a step in which nothing ran fails.
kernels_step() {
  local dev="$1"
  run_step kernels "$dev" 150 "$BAZEL" test "${OPT[@]}" "${KERNEL_TARGETS[@]}" --test_arg="--device=$dev" \
    --nocache_test_results --test_output=errors --strategy=TestRunner=local
  recorded_unrun kernels "$dev" && return
  local counts tests failures skipped
  counts="$(golden_counts "${KERNEL_TARGETS[@]}")"
  read -r tests failures skipped <<<"${counts:-0 0 0}"
  local detail="group reduces and tensor cores: $tests cases, $failures failed, $skipped skipped"
  if [ "$STATUS" = pass ] && [ "$tests" = "$skipped" ]; then
    STATUS=fail
    detail+=" (nothing ran on $dev)"
  fi
  record kernels "$dev" "$STATUS" "$STEP_S" "$detail" "$LOG"
}

fuzz_step() {
  local dev="$1"
  run_step fuzz "$dev" $((FUZZ_S + 60)) env TG_DEVICE="$dev" bazel-bin/tools/fuzz_programs --kind programs \
    --device "$dev" --seconds "$FUZZ_S" --seed 1 --keep-going
  recorded_unrun fuzz "$dev" && return
  local summary programs
  summary="$(grep -o 'fuzz_programs: [0-9]* programs.*' "$REPORT_DIR/$LOG" 2>/dev/null | tail -1)"
  programs="$(grep -o '^fuzz_programs: [0-9]*' <<<"$summary" | grep -o '[0-9]*$')"
  local detail="${summary:-no summary line}"
  if [ "$STATUS" = pass ] && [ "${programs:-0}" = 0 ]; then
    STATUS=fail
    detail+=" (no program compared)"
  fi
  record fuzz "$dev" "$STATUS" "$STEP_S" "$detail" "$LOG"
}

bench_step() {
  local dev="$1" json="$REPORT_DIR/bench-${1//:/_}.json"
  local filter=()
  [ -n "$BENCH_FILTER" ] && filter=(--filter="$BENCH_FILTER")
  run_step bench "$dev" 150 env TG_DEVICE="$dev" bazel-bin/tools/bench/bench --device="$dev" --reps="$BENCH_REPS" \
    "${filter[@]}" --json="$json"
  recorded_unrun bench "$dev" && return
  local rows skipped detail
  rows="$(json_field "$json" 'sum("skipped" not in r for r in d["results"])')"
  skipped="$(json_field "$json" '", ".join(sorted({r["name"] for r in d["results"] if "skipped" in r})) or "none"')"
  detail="${rows:-no} figures measured (workloads skipped: ${skipped:-?}), reps $BENCH_REPS${BENCH_FILTER:+, filter $BENCH_FILTER}"
  if [ "$STATUS" = pass ] && [ "${rows:-0}" = 0 ]; then
    STATUS=fail
    detail+=" (nothing measured)"
  fi
  record bench "$dev" "$STATUS" "$STEP_S" "$detail" "$LOG"
}

for dev in "${DEVICES[@]}"; do
  if [ "$BUILT" != pass ] && [ "$DRY" = 0 ]; then
    for s in cts golden kernels fuzz bench; do record "$s" "$dev" skipped 0 "the build failed" ""; done
    continue
  fi
  cts_step "$dev"
  golden_step "$dev"
  kernels_step "$dev"
  fuzz_step "$dev"
  bench_step "$dev"
done

# ---- Report --------------------------------------------------------------------------------------
python3 - "$REPORT_DIR" "$DRY" "$SIGNALS" "$((SECONDS - START_S))" <<'PY'
import datetime, json, os, platform, subprocess, sys

out, dry, signals, seconds = sys.argv[1], sys.argv[2] == "1", sys.argv[3], int(sys.argv[4])
cols = ["step", "device", "status", "seconds", "detail", "log"]
steps = []
for line in open(os.path.join(out, "steps.tsv")):
    row = dict(zip(cols, line.rstrip("\n").split("\t")))
    row["seconds"] = int(row["seconds"] or 0)
    steps.append(row)
devices = sorted({s["device"] for s in steps if s["device"]})

def sh(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception:
        return ""

if dry:
    verdict = "dry-run"
elif not devices and all(s["status"] == "pass" for s in steps):
    verdict = "no-gpu"
else:
    verdict = "pass" if devices and all(s["status"] == "pass" for s in steps) else "fail"
report = {
    "verdict": verdict,
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    "commit": sh("git", "rev-parse", "--short", "HEAD"),
    "host": platform.node(),
    "gpu_signals": signals,
    "gpus": sh("nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"),
    "seconds": seconds,
    "devices": devices,
    "counts": {k: sum(s["status"] == k for s in steps) for k in ["pass", "fail", "timeout", "skipped", "not-run"]},
    "steps": steps,
}
with open(os.path.join(out, "gpu_check.json"), "w") as f:
    json.dump(report, f, indent=2)
    f.write("\n")
md = ["# GPU check: %s" % verdict.upper(), "",
      "%s, commit %s on %s, %d s. Devices: %s. GPUs: %s." % (
          report["date"], report["commit"] or "?", report["host"], seconds, ", ".join(devices) or "none",
          report["gpus"] or signals or "none found"), "",
      "Only `pass` counts: a failed, timed-out, skipped or not-run step, or one that ran but tested nothing, "
      "makes the verdict FAIL.", "",
      "| step | device | status | s | detail | log |", "|---|---|---|---|---|---|"]
for s in steps:
    md.append("| %s | %s | %s | %d | %s | %s |" % (s["step"], s["device"] or "-", s["status"], s["seconds"],
                                                s["detail"].replace("|", "\\|"), s["log"] or "-"))
with open(os.path.join(out, "gpu_check.md"), "w") as f:
    f.write("\n".join(md) + "\n")
print("gpu_check: %s (%s); report in %s/gpu_check.{json,md}" % (
    verdict, ", ".join("%d %s" % (v, k) for k, v in report["counts"].items() if v), out))
PY
VERDICT="$(json_field "$REPORT_DIR/gpu_check.json" 'd["verdict"]')"
case "$VERDICT" in
  pass | no-gpu | dry-run) exit 0 ;;
  *) exit 1 ;;
esac
