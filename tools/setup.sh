#!/usr/bin/env bash
# Installs every Debian package the build, the tests and the apps need. Idempotent: installs only
# what is missing, so a second run is a no-op. Run by ./bazelw when something is missing.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap pkg-config build-essential
  libgtest-dev libgmock-dev libbenchmark-dev libabsl-dev libeigen3-dev libhwy-dev
  opencl-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo
  libamdhip64-dev rocm-device-libs
  llvm-15-dev clang-15 clang
  libclang-rt-14-dev
  libsqlite3-dev nlohmann-json3-dev zlib1g-dev
  dataset-fashion-mnist
  python3-torch python3-threadpoolctl libopenblas0-pthread
  libonnx-dev libprotobuf-dev python3-onnx python3-numpy
)

missing_packages() {
  local pkg
  for pkg in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || echo "$pkg"
  done
}

main() {
  local missing
  missing=$(missing_packages)
  if [ -z "$missing" ]; then
    [ "${1:-}" = "--quiet" ] || echo "setup: all ${#PACKAGES[@]} packages are installed."
    return 0
  fi
  echo "setup: installing missing Debian packages:" $missing >&2
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo="sudo"
    else
      echo "setup: not root and no sudo. As root, run: apt-get install -y --no-install-recommends" $missing >&2
      return 1
    fi
  fi
  $sudo apt-get update -q
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
}

# ONNX backend node tests (issue 7): generated once from Debian's python3-onnx into a cache outside the
# repository, so tests/onnx's conformance tests have data without ever downloading. Idempotent.
onnx_node_tests() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  [ -x /usr/bin/python3 ] || return 0
  /usr/bin/python3 "$root/tests/onnx/make_node_tests.py" >/dev/null 2>&1 ||
    echo "setup: generating the ONNX node tests failed; run tests/onnx/make_node_tests.py to see why" >&2
}

main "$@"
onnx_node_tests
