#!/usr/bin/env python3
"""Counts .ci/run in test cases: "N passed, N failed, N skipped", and lists what skipped and why.

Each phase of .ci/run (one bazel invocation, the fuzzers, the external app) is recorded right after it ran:
its log holds Bazel's summary lines ("//pkg:name   (cached) PASSED in 0.1s", "//pkg:name[asan]  FAILED ...")
or lines in the same form ("//tests/fuzzers:NAME   SKIPPED (why)"). For each test target the test cases
come from its test.xml under that phase's testlogs directory (`bazel info bazel-testlogs` with the phase's
flags), one file per shard, so a suite whose cases all GTEST_SKIP counts as skipped, not passed. A line with no readable XML (a fuzzer, the external app,
a target that did not build, a target run --runs_per_test times) counts as one case. A target that did not pass counts at least one failure.
`report` exits 1 when anything failed.
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

LINE = re.compile(r"^(//[^ \[]+)(?:\[([a-z0-9_]+)\])? +(?:\(cached\) )?"
                  r"(PASSED|SKIPPED|FAILED TO BUILD|FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FLAKY)\b(.*)$")


def xml_files(testlogs, label):
    """The target's test.xml files (one per shard), or [] where it ran several times or has none."""
    if not testlogs:
        return []
    pkg, name = label[2:].split(":", 1)
    base = os.path.join(testlogs, pkg, name)
    if glob.glob(os.path.join(base, "run_*_of_*")):
        return []
    single = os.path.join(base, "test.xml")
    if os.path.isfile(single):
        return [single]
    return sorted(glob.glob(os.path.join(base, "shard_*_of_*", "test.xml")))


def skip_reason(case):
    skipped = case.find("skipped")
    text = ""
    if skipped is not None:
        text = skipped.get("message") or (skipped.text or "")
    # GoogleTest writes "file:line\nreason"; the reason is what a reader needs.
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    if len(lines) > 1 and re.match(r"^\S+:\d+$", lines[0]):
        lines = lines[1:]
    reason = " ".join(lines) or "no reason given"
    return reason if len(reason) <= 240 else reason[:240] + "..."  # device lists can run for lines


def cases_of(path):
    """(passed, failed, [(case, reason)] skipped) read from one test.xml."""
    root = ET.parse(path).getroot()
    passed, failed, skipped = 0, 0, []
    for case in root.iter("testcase"):
        name = (case.get("classname", "") + "." + case.get("name", "")).strip(".")
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.get("result") == "skipped" or case.find("skipped") is not None or case.get("status") == "notrun":
            skipped.append((name, skip_reason(case)))
        else:
            passed += 1
    return passed, failed, skipped


def count(log_lines, testlogs):
    passed, failed, skipped = 0, 0, []  # skipped: (label, case, reason)
    for line in log_lines:
        m = LINE.match(line.rstrip("\n"))
        if not m:
            continue
        label, config, status, rest = m.group(1), m.group(2) or "", m.group(3), m.group(4)
        shown = label + (f"[{config}]" if config else "")
        if status == "SKIPPED":
            skipped.append((shown, "", rest.strip(" ()") or "no reason given"))
            continue
        files = [] if status in ("FAILED TO BUILD", "NO STATUS", "INCOMPLETE") else xml_files(testlogs, label)
        p, f, s = 0, 0, []
        for path in files:
            try:
                dp, df, ds = cases_of(path)
            except ET.ParseError:
                dp, df, ds = 0, 1, []
            p, f, s = p + dp, f + df, s + ds
        if status != "PASSED":
            f = max(f, 1)
        elif files and p + f + len(s) == 0:
            s = [("", "ran no test case")]
        elif not files:
            p = 1
        passed, failed = passed + p, failed + f
        skipped += [(shown, case, reason) for case, reason in s]
    return passed, failed, skipped


def record(log_path, testlogs, tally_path):
    """Counts one phase's log against the testlogs directory it wrote, appending to the tally file."""
    with open(log_path, errors="replace") as f:
        passed, failed, skipped = count(f, testlogs)
    with open(tally_path, "a") as out:
        out.write(f"counts\t{passed}\t{failed}\n")
        for label, case, reason in skipped:
            out.write("skip\t" + "\t".join(x.replace("\t", " ").replace("\n", " ") for x in (label, case, reason)) + "\n")


def report(tally_path):
    """Lists the skips, grouped by target and reason, then prints the closing line."""
    passed, failed, groups = 0, 0, {}
    with open(tally_path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if parts[0] == "counts":
                passed, failed = passed + int(parts[1]), failed + int(parts[2])
            elif parts[0] == "skip" and len(parts) == 4:
                groups.setdefault((parts[1], parts[3]), []).append(parts[2])
    skipped = sum(len(cases) for cases in groups.values())
    if skipped:
        print(f"ci: what skipped and why ({skipped} cases):")
        for (label, reason), cases in sorted(groups.items()):
            named = [c for c in cases if c]
            which = f" {len(cases)} cases ({', '.join(named[:3])}{', ...' if len(named) > 3 else ''})" if len(cases) > 1 else (
                f" {named[0]}" if named else "")
            print(f"  {label}{which}: {reason}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


USAGE = """usage: tools/ci_summary.py record LOG TESTLOGS_DIR TALLY   (after each bazel or fuzzer phase)
       tools/ci_summary.py report TALLY                       (the closing line)"""


def main(argv):
    if len(argv) == 5 and argv[1] == "record":
        record(argv[2], argv[3], argv[4])
        return 0
    if len(argv) == 3 and argv[1] == "report":
        return report(argv[2])
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
