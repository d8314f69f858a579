#!/usr/bin/python3
"""Writes tests/golden/data/<family>.golden from the case modules, with PyTorch as the reference.

Run with Debian's python3 and python3-torch:  /usr/bin/python3 tests/golden/make_golden.py [family...]
The C++ tests (tests/golden/*_test) replay the files; they never need torch. Format: README.md.
"""
import importlib
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_lib import Writer, run_case  # noqa: E402

MODULES = ["cases_creation", "cases_math", "cases_binary", "cases_reduce", "cases_nn", "cases_movement",
           "cases_processing"]


def main(argv):
  torch.set_num_threads(1)
  out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
  os.makedirs(out_dir, exist_ok=True)
  total = 0
  for module_name in MODULES:
    module = importlib.import_module(module_name)
    if len(argv) > 1 and module.FAMILY not in argv[1:]: continue
    names = [c.name for c in module.CASES]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, f"{module_name}: duplicate case names {sorted(dup)}"
    writer = Writer()
    for case in module.CASES:
      try:
        run_case(module.FAMILY, case, writer)
      except Exception as e:
        raise RuntimeError(f"{module_name}: case {case.name} failed in PyTorch: {e}") from e
    path = os.path.join(out_dir, module.FAMILY + ".golden")
    writer.write(path)
    total += len(module.CASES)
    print(f"{module.FAMILY}: {len(module.CASES)} cases, {os.path.getsize(path)} bytes -> {path}")
  print(f"total: {total} cases")


if __name__ == "__main__":
  main(sys.argv)
