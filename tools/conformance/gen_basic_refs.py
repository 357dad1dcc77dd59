#!/usr/bin/env python3
"""Reference values of the basic op family (ndarray/ops/core/basic.cc) from real MXNet 1.9.1.

The basic ops (elemwise_add/sub/mul/div, the *_scalar arithmetic, negative, _copy, zeros_like,
ones_like, broadcast_like) are what gradients are composed of; the unit tests check them by
hand and through autograd/testdata/composite.json. This file gives report.py one MXNet case
per op (values and gradients) in gen_elemwise_refs.py's format; no unit test reads it.

    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_basic_refs.py OUT_DIR      # writes OUT_DIR/basic.json
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
if len(sys.argv) != 2:
    sys.exit(__doc__)
OUT_DIR = sys.argv[1]
sys.argv = sys.argv[:1] + [OUT_DIR]  # gen_elemwise_refs reads its OUT from argv at import
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mxnet as mx  # noqa: E402
from gen_elemwise_refs import case, make, rand  # noqa: E402


def cases():
    cs = []
    for i, op in enumerate(["elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"]):
        lo = 0.5 if op == "elemwise_div" else -1
        cs.append(case(op, op, [rand((2, 3), lo, 2, 700 + i), rand((2, 3), lo, 2, 710 + i)], grad=True, seed=20 + i))
        cs.append(case(op + " int32", op, [make([7, -7, 3, 0], "int32"), make([2, 3, -2, 5], "int32")]))
    for i, op in enumerate(["_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar",
                            "_rdiv_scalar"]):
        lo = 0.5 if op == "_rdiv_scalar" else -2
        cs.append(case(op + " 1.5", op, [rand((2, 3), lo, 2, 720 + i)], {"scalar": 1.5}, grad=True, seed=30 + i))
        cs.append(case(op + " int32 scalar=2.5", op, [make([1, 2, 3, -4], "int32")], {"scalar": 2.5}))
        cs.append(case(op + " float16", op, [make([0.5, 1.5, 3], "float16")], {"scalar": 0.3}))
        # Output dtype and the scalar's conversion (NumpyBinaryScalarType; DType(scalar)):
        # integers keep their dtype with the scalar truncated (2.5 -> 2), bool gives int64,
        # is_int=False gives float64. Zeros in the input exercise _rdiv_scalar's x86 conversion
        # of inf (2 / 0) to the integer type.
        for dt, vals in [("uint8", [3, 0, 1, 200]), ("int8", [3, 0, -2, 127]),
                         ("int32", [7, 0, -3, 2147483647]), ("int64", [5, 0, -6, 2**40])]:
            cs.append(case(op + " %s scalar=2.5" % dt, op, [make(vals, dt)], {"scalar": 2.5}))
        cs.append(case(op + " int32 scalar=-1.5", op, [make([7, 1, -3, 4], "int32")], {"scalar": -1.5}))
        cs.append(case(op + " int32 scalar=2.5 is_int=False", op, [make([7, 1, -3, 4], "int32")],
                       {"scalar": 2.5, "is_int": False}))
        cs.append(case(op + " bool scalar=2.5", op, [make([1, 0, 1], "bool")], {"scalar": 2.5}))
        cs.append(case(op + " bool scalar=2.5 is_int=False", op, [make([1, 0, 1], "bool")],
                       {"scalar": 2.5, "is_int": False}))
    for i, op in enumerate(["negative", "_copy", "zeros_like", "ones_like"]):
        cs.append(case(op, op, [rand((3, 2), -2, 2, 740 + i)], grad=True, seed=40 + i))
        cs.append(case(op + " int8", op, [make([-128, 0, 5, 127], "int8")]))
    cs.append(case("broadcast_like", "broadcast_like", [rand((2, 1), -1, 1, 750), rand((2, 3), -1, 1, 751)],
                   grad=True, seed=50))
    cs.append(case("broadcast_like axes", "broadcast_like", [rand((1, 3, 1), -1, 1, 752), rand((2, 4), -1, 1, 753)],
                   {"lhs_axes": "(0, 2)", "rhs_axes": "(0, 1)"}, grad=True, seed=51))
    return cs


os.makedirs(OUT_DIR, exist_ok=True)
with open(os.path.join(OUT_DIR, "basic.json"), "w") as f:
    json.dump({"generator": "tools/conformance/gen_basic_refs.py", "mxnet_version": mx.__version__,
               "cases": cases()}, f, sort_keys=True, separators=(",", ":"))
    f.write("\n")
print("wrote", os.path.join(OUT_DIR, "basic.json"), file=sys.stderr)
