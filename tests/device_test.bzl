"""device_cc_test: one GoogleTest suite run once per device (DESIGN §8: CPU and OPENCL agree)."""

load("@rules_cc//cc:defs.bzl", "cc_test")

_MAINS = ["@googletest//:gtest_main", "@googletest//:gmock_main"]

def device_cc_test(name, srcs, deps = [], devices = ["CPU", "OPENCL"], size = "small", **kwargs):
    """Declares `name` (CPU) and `name_<device>` for every other device in `devices`.

    Each variant passes --device=NAME to tests/device_main.cc, which points TG_DEVICE at it and
    skips the whole suite, with the reason, where that device does not exist.
    """
    deps = [d for d in deps if d not in _MAINS] + ["//tests:device_main", "@googletest//:gmock"]
    for device in devices:
        cc_test(
            name = name if device == "CPU" else name + "_" + device.lower(),
            srcs = srcs,
            deps = deps,
            args = ["--device=" + device],
            size = size,
            **kwargs
        )
