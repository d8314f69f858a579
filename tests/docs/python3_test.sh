#!/bin/sh
# Runs a Python test with the system's python3 (Bazel 4's py_test stub wants a `python` on PATH).
exec python3 "$@"
