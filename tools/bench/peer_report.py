#!/usr/bin/python3
"""Merges the peers' JSON reports (../shared/peers/common.py's format: {"peer", "meta", "rows"}) into one report
in tg bench's format ({"context", "results": [{name, device, metric, value | skipped, unit}]}), which
`tg bench --peers` reads to put the peers beside our figures in one table. A row key's thread suffix becomes part
of the device: torch's "W1_matmul_1024_2T" is W1_matmul_1024 on "torch 2T", its untagged default is "torch".
A peer that could not run at all is a file {"peer": P, "skipped": reason}: one record named "*".

  tools/bench/peer_report.py OUT.json PEER.json [PEER.json ...]
"""
import json
import re
import sys
import time


def records(report):
    peer = report["peer"]
    if "skipped" in report:
        yield {"name": "*", "device": peer, "metric": "median", "unit": "", "skipped": report["skipped"]}
        return
    for key, row in report.get("rows", {}).items():
        m = re.fullmatch(r"(.+?)_(\d+)T", key)
        name, device = (m[1], f"{peer} {m[2]}T") if m else (key, peer)
        if "skipped" in row:
            yield {"name": name, "device": device, "metric": "median", "unit": row.get("unit", ""),
                   "skipped": row["skipped"]}
            continue
        yield {"name": name, "device": device, "metric": "median", "value": row["value"], "unit": row["unit"]}
        if "first_s" in row:
            yield {"name": name, "device": device, "metric": "first", "value": row["first_s"] * 1e3, "unit": "ms"}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    context = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    results = []
    for path in sys.argv[2:]:
        with open(path) as f:
            report = json.load(f)
        for k, v in report.get("meta", {}).items():
            context[f"{report['peer']} {k}"] = v if isinstance(v, str) else json.dumps(v)
        results.extend(records(report))
    with open(sys.argv[1], "w") as f:
        json.dump({"suite": "peers", "context": context, "results": results}, f, indent=1)
    print(f"peer_report: {len(results)} records from {len(sys.argv) - 2} peer reports -> {sys.argv[1]}")


if __name__ == "__main__":
    main()
