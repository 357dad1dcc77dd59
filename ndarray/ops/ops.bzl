"""mx_op_package: the targets of one op subpackage of ndarray/ops (layout: ndarray/ops/BUILD)."""

load("//tools/build_defs:mx.bzl", "mx_cc_benchmark", "mx_cc_library", "mx_cc_test")

_NOT_SRCS = ["*_cases.cc", "*_test.cc", "*_benchmark.cc"]

def mx_op_package(name, deps = [], visibility = [], cases_visibility = [], test_deps = [], exclude = []):
    """Declares the targets of the op subpackage //ndarray/ops/<name>.

    :<name>  every .cc/.h of the folder but *_cases.cc, *_test.cc, *_benchmark.cc and `exclude`
             (registrations are static initializers, so alwayslink); visible to //ndarray/ops and
             its subpackages and to `visibility`.
    :cases   the MX_OP_TEST_CASEs (*_cases.cc; testonly, alwayslink), gathered by
             //ndarray/ops:all_cases for //ndarray:all_ops_test; visible as above plus
             `cases_visibility`.
    <f>_test per *_test.cc (reference data: //ndarray/ops:testdata), <f>_benchmark per
             *_benchmark.cc (all ops linked).

    Args:
      name: the folder's name (core, elemwise, reduce, ...).
      deps: the op packages whose headers the library includes.
      visibility: packages outside ndarray/ops that use the library directly.
      cases_visibility: packages outside ndarray/ops that link the test cases.
      test_deps: op packages the cases and tests include or run by name (the ops of the family the
        tests came from, so a test links what it did before the split); tests also link their
        :cases, as a test that checks every registered op of a kind has a case needs them.
      exclude: globs of files that belong to another target of the folder.
    """
    mx_cc_library(
        name = name,
        srcs = native.glob(["*.cc"], exclude = _NOT_SRCS + exclude),
        hdrs = native.glob(["*.h"], exclude = exclude),
        visibility = ["//ndarray/ops:__subpackages__"] + visibility,
        alwayslink = True,
        deps = [
            "//base:cpu_isa",
            "//ndarray:core",
            "//ndarray/backends/onednn",
            "//third_party:dnnl",  # nn_rnn.cc's dnnl::sgemm (no engine)
        ] + deps,
    )
    mx_cc_library(
        name = "cases",
        testonly = True,
        srcs = native.glob(["*_cases.cc"], allow_empty = True),
        visibility = ["//ndarray/ops:__subpackages__"] + cases_visibility,
        alwayslink = True,
        deps = [
            ":" + name,
            "//ndarray:op_testing",
        ] + test_deps,
    )
    for f in native.glob(["*_test.cc"], allow_empty = True):
        mx_cc_test(
            name = f[:-len(".cc")],
            srcs = [f],
            data = ["//ndarray/ops:testdata"],
            deps = [
                ":" + name,
                ":cases",
                "//ndarray/backends",
                "//ndarray:op_testing",
                "//ndarray:ref_json",
                "//third_party:json",
            ] + test_deps + [d + ":cases" for d in test_deps],
        )
    for f in native.glob(["*_benchmark.cc"], allow_empty = True):
        mx_cc_benchmark(
            name = f[:-len(".cc")],
            srcs = [f],
            deps = ["//ndarray/ops"],
        )
