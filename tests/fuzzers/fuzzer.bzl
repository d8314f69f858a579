"""tg_fuzzer: one libFuzzer target that also builds and tests without clang.

`tg_fuzzer(name, srcs, deps, corpus, test_size)` declares
  - `name`: the fuzzer. Under `--config=fuzz` (clang, -fsanitize=fuzzer,address,undefined) it is a real
    libFuzzer binary; otherwise it links replay_main.cc and replays files/directories given as arguments.
  - `name_replay_test`: a plain cc_test replaying the checked-in seed corpus plus deterministic truncations
    and byte flips of each seed, so `//...` without the config still exercises every entry point.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_test")

def tg_fuzzer(name, srcs, deps = [], corpus = None, test_size = "small", **kwargs):
    corpus = corpus or native.glob(["corpus/" + name + "/*"])
    cc_binary(
        name = name,
        srcs = srcs,
        deps = deps + select({
            "//tests/fuzzers:fuzzing": [],
            "//conditions:default": ["//tests/fuzzers:replay_main"],
        }),
        linkopts = select({
            "//tests/fuzzers:fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        testonly = True,
        **kwargs
    )
    cc_test(
        name = name + "_replay_test",
        size = test_size,
        srcs = srcs,
        deps = deps + ["//tests/fuzzers:replay_main"],
        data = corpus,
        args = ["--mutate"] + ["$(location %s)" % f for f in corpus],
        **kwargs
    )
