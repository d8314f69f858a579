"""device_cc_test: one GoogleTest suite run once per device (CPU and OPENCL agree)."""

load("@rules_cc//cc:defs.bzl", "cc_test")

_MAINS = ["@googletest//:gtest_main", "@googletest//:gmock_main"]

# Left out of --config=asan/tsan: the kernels of these variants are compiled by PoCL's or
# libLLVM's own code generators, which cannot add sanitizer instrumentation, and run on those
# runtimes' uninstrumented threads; the host code they exercise is the plain CPU variant's, which runs
# sanitized.
_UNSANITIZABLE = ["no_asan", "no_tsan"]

# A variant on another device depends on the machine (is there an OpenCL device, which driver): "external"
# keeps Bazel from ever taking its result from the cache, so a skip recorded without the device is never
# replayed as a pass once the device exists, nor a pass once it is gone.
_MACHINE_DEPENDENT = ["external"]

def device_cc_test(name, srcs, deps = [], devices = ["CPU", "OPENCL"], cpu_llvm_ir = True, tiers = False, size = "small", **kwargs):
    """Declares `name` (CPU) and `name_<device>` for every other device in `devices`.

    Each variant passes --device=NAME to tests/device_main.cc, which points TG_DEVICE at it and
    skips the whole suite, with the reason, where that device does not exist. The CPU variant renders
    the "c" dialect (--cpu-dialect=c, which sets TG_CPU_DIALECT before any plugin loads); with
    `cpu_llvm_ir`, `name_cpu_llvm_ir` runs the suite on CPU with "llvm-ir", the plugin's default, so
    both compile paths are tested and must agree.

    With `tiers` (docs/tiers.md) the two CPU variants compile every kernel before it runs (--tier=1)
    and `name_cpu_tier0` runs every kernel in the CPU's first tier, the interpreter (--tier=0), so
    each tier is tested whole; without it the CPU variants run the default, tiered.
    """
    cpu_tier = ["--tier=1"] if tiers else []
    deps = [d for d in deps if d not in _MAINS] + ["//tests:device_main", "@googletest//:gmock"]
    tags = kwargs.pop("tags", [])
    for device in devices:
        cc_test(
            name = name if device == "CPU" else name + "_" + device.lower(),
            srcs = srcs,
            deps = deps,
            args = ["--device=" + device] + (["--cpu-dialect=c"] + cpu_tier if device == "CPU" else []),
            size = size,
            tags = tags + ([] if device == "CPU" else _UNSANITIZABLE + _MACHINE_DEPENDENT),
            **kwargs
        )
    if cpu_llvm_ir and "CPU" in devices:
        cc_test(
            name = name + "_cpu_llvm_ir",
            srcs = srcs,
            deps = deps,
            args = ["--device=CPU", "--cpu-dialect=llvm-ir"] + cpu_tier,
            size = size,
            tags = tags + _UNSANITIZABLE,
            **kwargs
        )
    if tiers and "CPU" in devices:
        cc_test(
            name = name + "_cpu_tier0",
            srcs = srcs,
            deps = deps,
            args = ["--device=CPU", "--tier=0"],
            size = size,
            tags = tags,
            **kwargs
        )
