#!/usr/bin/env bash
# mpirun.sh starts N copies of a GoogleTest program under one Bazel test, and Bazel gives them one
# XML_OUTPUT_FILE. Ranks that all write it at once leave a file of one rank's XML followed by the tail of
# another's, which no XML reader accepts. Checks that exactly one rank is handed the file.
#   mpirun_xml_test.sh MPIRUN_SH
set -uo pipefail
mpirun_sh="$1"
work="${TEST_TMPDIR:-$(mktemp -d)}"
probe="$work/probe.sh"
cat >"$probe" <<'PROBE'
#!/usr/bin/env bash
echo "rank ${OMPI_COMM_WORLD_RANK:-?} xml=${XML_OUTPUT_FILE:+set}"
PROBE
chmod +x "$probe"
out="$(XML_OUTPUT_FILE="$work/test.xml" "$mpirun_sh" 3 "$probe" 2>&1)" || { echo "$out"; echo "FAIL: mpirun.sh failed"; exit 1; }
echo "$out"
with_xml="$(grep -c 'xml=set' <<<"$out")"
ranks="$(grep -c '^rank ' <<<"$out")"
[ "$ranks" -eq 3 ] || { echo "FAIL: expected 3 ranks to run, saw $ranks"; exit 1; }
[ "$with_xml" -eq 1 ] || { echo "FAIL: $with_xml ranks were handed XML_OUTPUT_FILE, expected exactly 1 (rank 0)"; exit 1; }
grep -q '^rank 0 xml=set' <<<"$out" || { echo "FAIL: rank 0 must be the one that writes the XML"; exit 1; }
echo "PASS: only rank 0 writes the test XML"
