"""mx_fuzz_target: one fuzz target (a LLVMFuzzerTestOneInput function), built two ways.

 - Default toolchain (g++): linked with //tools/fuzz:driver, a small replay-and-mutate main, so
   `./bazelw test //...` replays the seeds and reproducers and fuzzes a few seconds (the
   `<name>_test` sh_test).
 - `--config=fuzz` (clang-14, see tools/fuzz/build.sh): linked with libFuzzer
   (-fsanitize=fuzzer) and ASan+UBSan; tools/fuzz/run_all.sh runs these.
"""

load("//tools/build_defs:mx.bzl", "MX_COPTS")

def mx_fuzz_target(name, srcs, deps, seeds = [], shared_seeds = [], dict = None, max_len = 65536,
                   seconds = 3, malloc_limit_mb = 512, **kwargs):
    """A fuzz target and its short in-suite run.

    Args:
      seeds: labels of seed files (the repo's real files) and crash reproducers.
      shared_seeds: paths under ../shared (e.g. "data/images"), used when the test gets
        MXNET_SHARED_DIR (./bazelw passes it); never copied into the repo.
      dict: a libFuzzer dictionary file (libFuzzer only).
      max_len, malloc_limit_mb: libFuzzer's -max_len and -malloc_limit_mb for this target.
      seconds: length of the in-suite mutation run.
    """
    native.cc_binary(
        name = name,
        srcs = srcs,
        copts = MX_COPTS,
        linkopts = select({
            "//tools/fuzz:libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps + ["//tools/fuzz:fuzz_check"] + select({
            "//tools/fuzz:libfuzzer": [],
            "//conditions:default": ["//tools/fuzz:driver"],
        }),
        testonly = True,
        **kwargs
    )
    native.sh_test(
        name = name + "_test",
        size = "small",
        srcs = ["//tools/fuzz:run_target_test.sh"],
        args = [
            "$(rootpath :%s)" % name,
            str(seconds),
            str(max_len),
            str(malloc_limit_mb),
            ",".join(shared_seeds) or "-",
        ] + ["$(rootpaths %s)" % s for s in seeds],
        data = [":" + name] + seeds,
    )
