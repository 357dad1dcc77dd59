"""Project macros: every C++ target goes through these so flags, sanitizers and tags stay uniform."""

# Warnings are errors on our own code (third-party headers come in as system headers).
MX_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
    "-Wno-sign-compare",
    "-Wno-missing-field-initializers",
    "-fopenmp",
    "-Wno-restrict",  # GCC 12 false positives in libstdc++ string code at -O3
]

def mx_cc_library(name, copts = [], **kwargs):
    """A C++ library of the project (C++20, -Werror)."""
    native.cc_library(name = name, copts = MX_COPTS + copts, **kwargs)

def mx_cc_binary(name, copts = [], **kwargs):
    """A C++ program of the project."""
    native.cc_binary(name = name, copts = MX_COPTS + copts, **kwargs)

def mx_cc_test(name, copts = [], deps = [], gtest_main = True, size = "small", **kwargs):
    """A GoogleTest test beside the code it tests (foo_test.cc next to foo.cc)."""
    extra = ["//third_party:gtest_main"] if gtest_main else ["//third_party:gtest"]
    native.cc_test(name = name, copts = MX_COPTS + copts, deps = deps + extra, size = size, **kwargs)

def mx_isa_test(name, test, isa, args = [], size = "medium", **kwargs):
    """Runs the test binary `test` (a label) again with the CPU instruction set capped to `isa`
    (SSE41, AVX2, AVX512_CORE, ...) for oneDNN (ONEDNN_MAX_CPU_ISA) and our own dispatched kernels
    (MXNET_MAX_CPU_ISA, base/cpu_isa.h): a machine with AVX-512 also tests the paths an older CPU
    takes. Reuses the built binary (no second compile); `args` go to it (e.g. --gtest_filter),
    shard_count etc. pass through."""
    native.sh_test(
        name = name,
        size = size,
        srcs = ["//tools/build_defs:run_test.sh"],
        args = ["$(rootpath %s)" % test] + args,
        data = [test],
        env = {"ONEDNN_MAX_CPU_ISA": isa, "MXNET_MAX_CPU_ISA": isa},
        **kwargs
    )

def mx_cc_benchmark(name, copts = [], deps = [], tags = [], **kwargs):
    """A Google Benchmark program (foo_benchmark.cc beside the kernel).

    Built by `bazel build //...` so it cannot rot, never run by `bazel test`:
    `./bazelw run -c opt --config=bench //pkg:foo_benchmark`.
    """
    native.cc_binary(
        name = name,
        copts = MX_COPTS + copts,
        deps = deps + ["//third_party:benchmark_main"],
        tags = tags + ["benchmark"],
        **kwargs
    )

def mx_cuda_library(name, srcs, hdrs = [], deps = [], nvcc_flags = [], **kwargs):
    """Compiles .cu sources with /usr/local/cuda/bin/nvcc (an nvcc genrule per source plus a
    cc_library over the objects), linked against libcudart. Only under --config=cuda; without it
    the target is incompatible and `//...` skips it."""
    compat = select({
        "//third_party/cuda:enabled": [],
        "//conditions:default": ["@platforms//:incompatible"],
    })
    objs = []
    for src in srcs:
        obj = name + "_" + src.replace("/", "_").replace(".cu", ".pic.o")
        native.genrule(
            name = obj + "_nvcc",
            srcs = [src] + hdrs + kwargs.get("textual_hdrs", []),
            outs = [obj],
            cmd = ("/usr/local/cuda/bin/nvcc -std=c++20 -O2 -Xcompiler -fPIC -I. -I$(GENDIR) " +
                   "--expt-relaxed-constexpr -gencode arch=compute_80,code=sm_80 " +
                   "-gencode arch=compute_90,code=sm_90 " + " ".join(nvcc_flags) +
                   " -c $(location " + src + ") -o $@"),
            target_compatible_with = compat,
        )
        objs.append(obj)
    native.cc_library(
        name = name,
        srcs = objs,
        hdrs = hdrs,
        deps = deps + ["@local_cuda//:cudart"],
        target_compatible_with = compat,
        **kwargs
    )

def mx_cc_proto_library(name, src, deps = [], **kwargs):
    """C++ code from one .proto with Debian's protoc (no rules_proto download)."""
    base = src[:-len(".proto")]
    native.genrule(
        name = name + "_protoc",
        srcs = [src],
        outs = [base + ".pb.h", base + ".pb.cc"],
        cmd = "/usr/bin/protoc --cpp_out=$(GENDIR) $(location " + src + ")",
    )
    native.cc_library(
        name = name,
        srcs = [base + ".pb.cc"],
        hdrs = [base + ".pb.h"],
        deps = deps + ["//third_party:protobuf"],
        **kwargs
    )
