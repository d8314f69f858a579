#!/usr/bin/python3
"""Generates ONNX's backend node tests (model.onnx + test_data_set_0/*.pb per case) with Debian's python3-onnx.

Usage: tests/onnx/make_node_tests.py [OUT_DIR]
OUT_DIR defaults to $TG_ONNX_NODE_TESTS, else ~/.cache/tinygrad-cc/onnx-node-tests. The data lives outside the
repository (it is ~900 generated cases) and is made once: a second run finds the stamp file and does nothing.
tools/setup.sh runs this so CI has the data; tests only read it and never generate or download anything.
"""
import os
import sys


def default_dir():
    if os.environ.get("TG_ONNX_NODE_TESTS"):
        return os.environ["TG_ONNX_NODE_TESTS"]
    return os.path.join(os.path.expanduser("~"), ".cache", "tinygrad-cc", "onnx-node-tests")


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else default_dir())
    stamp = os.path.join(out, ".complete")
    if os.path.exists(stamp):
        print(f"onnx node tests: already in {out}")
        return 0
    import numpy as np
    # python3-onnx 1.12 still spells these numpy aliases, which numpy 1.24 removed.
    for name, builtin in [("float", float), ("int", int), ("bool", bool), ("object", object),
                          ("complex", complex), ("str", str)]:
        if not hasattr(np, name):
            setattr(np, name, builtin)
    from onnx.backend.test.cmd_tools import generate_data

    os.makedirs(out, exist_ok=True)
    # generate-data writes <out>/node/<case>/...; node cases are the conformance suite we run.
    generate_data(type("Args", (), {"output": out, "clean": False, "diff": False, "op_type": None})())
    count = len(os.listdir(os.path.join(out, "node")))
    open(stamp, "w").write(f"{count}\n")
    print(f"onnx node tests: {count} cases in {os.path.join(out, 'node')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
