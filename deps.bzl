"""tinygrad_cc_dependencies(): every external repository tinygrad-cc's targets need, in one list.

tinygrad-cc's own WORKSPACE calls it, and so does any workspace that takes tinygrad-cc as an external
repository (see examples/external_app/WORKSPACE):

    load("@tinygrad_cc//:deps.bzl", "tinygrad_cc_dependencies")
    tinygrad_cc_dependencies()

System libraries come from Debian packages; tools/setup.sh installs them (the package is named beside
each). Call the macro before anything else in the WORKSPACE: its first three repositories are offline
stand-ins for what Bazel 4.2.3's built-in WORKSPACE suffix would otherwise download, and they only win
when declared first. Repositories the caller declared already are left alone, so a user can override one.
"""

def _vendored_impl(rctx):
    # The stand-ins live in this repository's third_party/. A local_repository would need their path
    # relative to the *calling* workspace, which differs per caller; resolving a label finds them
    # wherever this repository is (main repository, local_repository or http_archive).
    src = rctx.path(Label("//third_party/" + rctx.attr.dir + ":WORKSPACE")).dirname
    for child in src.readdir():
        rctx.symlink(child, child.basename)

_vendored_repository = repository_rule(
    implementation = _vendored_impl,
    attrs = {"dir": attr.string(mandatory = True)},
    local = True,
)

def _vendored(existing, name):
    if name not in existing:
        _vendored_repository(name = name, dir = name)

def _system(existing, name, path, build):
    if name not in existing:
        native.new_local_repository(name = name, path = path, build_file = str(Label("//third_party:" + build)))

def tinygrad_cc_dependencies():
    """Declares tinygrad-cc's external repositories, skipping any the caller already declared."""
    existing = native.existing_rules()

    # Offline stand-ins (third_party/<name>): with network access Bazel would download these.
    _vendored(existing, "rules_cc")
    _vendored(existing, "rules_java")
    _vendored(existing, "remote_coverage_tools")

    # System (Debian) libraries.
    _system(existing, "googletest", "/usr/include/gtest", "googletest.BUILD")  # libgtest-dev libgmock-dev
    _system(existing, "benchmark", "/usr/include/benchmark", "benchmark.BUILD")  # libbenchmark-dev
    _system(existing, "abseil", "/usr/include/absl", "abseil.BUILD")  # libabsl-dev
    _system(existing, "eigen", "/usr/include/eigen3", "eigen.BUILD")  # libeigen3-dev
    _system(existing, "highway", "/usr/include/hwy", "highway.BUILD")  # libhwy-dev
    _system(existing, "opencl", "/usr/include/CL", "opencl.BUILD")  # opencl-headers ocl-icd-opencl-dev
    _system(existing, "hip", "/usr/include/hip", "hip.BUILD")  # libamdhip64-dev
    _system(existing, "llvm15", "/usr/lib/llvm-15", "llvm15.BUILD")  # llvm-15-dev
    _system(existing, "nlohmann_json", "/usr/include/nlohmann", "nlohmann_json.BUILD")  # nlohmann-json3-dev
    _system(existing, "sqlite", "/usr/include", "sqlite.BUILD")  # libsqlite3-dev
    _system(existing, "onnx", "/usr/include/onnx", "onnx.BUILD")  # libonnx-dev libprotobuf-dev
    _system(existing, "zlib", "/usr/include", "zlib.BUILD")  # zlib1g-dev
    _system(existing, "openmpi", "/usr/lib/x86_64-linux-gnu/openmpi", "openmpi.BUILD")  # libopenmpi-dev openmpi-bin

    # CUDA toolkit: not a Debian package (/usr/local/cuda ships with some machine images). Only
    # targets tagged "manual" use it, so //... never needs it; the CUDA plugin dlopen()s the driver
    # and NVRTC.
    _system(existing, "cuda", "/usr/local/cuda", "cuda.BUILD")
