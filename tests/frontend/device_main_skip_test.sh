#!/usr/bin/env bash
# A device suite run for a device this machine lacks must record its cases as skipped, with the reason, in
# the test XML that .ci/run counts; never as passed.
#   device_main_skip_test.sh SUITE_BINARY     (a device_cc_test binary)
set -uo pipefail
suite="$1"
work="${TEST_TMPDIR:-$(mktemp -d)}"
xml="$work/suite.xml"
XML_OUTPUT_FILE="$xml" "$suite" --device=NOSUCHDEVICE >"$work/log" 2>&1
status=$?
cat "$work/log" | tail -5
[ "$status" -eq 0 ] || { echo "FAIL: the suite exited $status for a missing device (a skip is not a failure)"; exit 1; }
[ -s "$xml" ] || { echo "FAIL: no test XML was written"; exit 1; }
python3 - "$xml" <<'PY' || exit 1
import sys, xml.etree.ElementTree as ET
cases = list(ET.parse(sys.argv[1]).getroot().iter("testcase"))
if not cases:
    sys.exit("FAIL: the XML lists no test case")
not_skipped = [c.get("name") for c in cases if c.find("skipped") is None]
if not_skipped:
    sys.exit(f"FAIL: {len(not_skipped)} of {len(cases)} cases not recorded as skipped, e.g. {not_skipped[:3]}")
reason = cases[0].find("skipped").get("message", "")
if "NOSUCHDEVICE" not in reason:
    sys.exit(f"FAIL: the skip does not name the device: {reason!r}")
print(f"PASS: {len(cases)} cases skipped: {reason}")
PY
