#!/usr/bin/env bash
# Runs the CTS on one plugin and checks its exit code and JSON report.
#   run_cts.sh CTS PLUGIN EXPECTED_EXIT [CHECK...] [-- CTS_ARGS...]
# A CHECK is TIER.FIELD=N, TIER.FIELD>=N (TIER: T0..T4 or totals; FIELD: pass fail skip xfail
# xpass), case:NAME=RESULT or detail:NAME~TEXT (TEXT is in the case's detail, as the report escapes
# it). xfail lists are verified: an unexpected pass fails the run.
set -uo pipefail
cts="$1" plugin="$2" want_rc="$3"
shift 3
checks=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do checks+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift

report="${TEST_TMPDIR:-/tmp}/cts_report.json"
export TG_CACHE_DIR="${TEST_TMPDIR:-/tmp}/tg_cache"  # the CPU plugin's kernel cache
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-${TEST_TMPDIR:-/tmp}/pocl}"  # PoCL's, for the OpenCL plugin
export TG_CTS_VERIFY_XFAILS=1
"$cts" "$plugin" --report "$report" "$@"
rc=$?
fail() { echo "FAIL: $*"; exit 1; }
[ "$rc" -eq "$want_rc" ] || fail "the CTS exited $rc, expected $want_rc"
[ -s "$report" ] || fail "no report at $report"

count() {  # count TIER FIELD: the number in the report
  local key="\"$1\": {"
  [ "$1" = totals ] && key='"totals": {'
  grep -o "$key[^}]*}" "$report" | head -1 | grep -o "\"$2\": [0-9]*" | grep -o '[0-9]*$'
}
for c in "${checks[@]}"; do
  case "$c" in
    case:*)
      name="${c#case:}"; name="${name%=*}"; want="${c##*=}"
      got=$(grep -o "\"name\": \"$name\", \"tier\": [0-9], \"result\": \"[A-Z]*\"" "$report" | grep -o '[A-Z]*"$' | tr -d '"')
      [ "$got" = "$want" ] || fail "case $name is '${got:-missing}', expected $want" ;;
    detail:*)
      name="${c#detail:}"; name="${name%%~*}"; want="${c#*~}"
      line=$(grep -F "\"name\": \"$name\", " "$report" | head -1)
      [ -n "$line" ] || fail "case $name is missing"
      case "$line" in *"$want"*) ;; *) fail "case $name's detail lacks '$want': $line" ;; esac ;;
    *">="*)
      key="${c%%>=*}"; want="${c##*>=}"; got=$(count "${key%%.*}" "${key#*.}")
      [ -n "$got" ] && [ "$got" -ge "$want" ] || fail "$key is '${got}', expected >= $want" ;;
    *=*)
      key="${c%%=*}"; want="${c##*=}"; got=$(count "${key%%.*}" "${key#*.}")
      [ "$got" = "$want" ] || fail "$key is '${got}', expected $want" ;;
    *) fail "bad check '$c'" ;;
  esac
done
echo "ok: exit $rc, ${#checks[@]} report checks passed"
