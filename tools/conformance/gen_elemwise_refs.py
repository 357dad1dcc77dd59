#!/usr/bin/env python3
"""Reference values of the elemwise op family from real MXNet 1.9.1.

Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_elemwise_refs.py [OUT_DIR]   # default: ndarray/ops/testdata/elemwise

Writes small JSON files read by ndarray/ops/elemwise/elemwise_test.cc:
  registry.json   every op of the family: its MXNet names (canonical + aliases) and attributes
  unary.json      unary math on float32 (values + gradients), edge values, integer/float16 inputs
  binary.json     broadcast_* and same-shape ops (values + gradients), NaN/sign/integer rules
  scalar.json     *_scalar ops (values + gradients), is_int and dtype rules
  misc.json       clip, where, cast, smooth_l1, add_n, BlockGrad, make_loss
  np.json         the NumPy-interface ops _npi_*/_npx_* (refs_np_elemwise.py)

Each case: {"name", "op", "attrs", "inputs": [array], "outputs": [array],
            optional "head_grads": [array], "grads": [array | null]}
with array = {"shape": [...], "dtype": "float32", "data": [...]} (row-major). Non-finite values
are written as the strings "nan", "inf", "-inf". Deterministic: fixed seeds, sorted keys.
"""
import ctypes
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")  # numpy 1.23 DeprecationWarning for np.bool inside mxnet
import numpy as np
import mxnet as mx
from mxnet.base import _LIB, OpHandle, c_str, check_call, mx_uint, py_str

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "ndarray", "ops", "testdata", "elemwise")
nd = mx.nd


def num(v, dtype):
    """One element as JSON: integers exactly, floats by the shortest text of their own dtype."""
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == int(v) and abs(v) < 2**53 and not (v == 0 and np.signbit(v)):
        return int(v)
    if dtype in (np.float32, np.float16):
        return float(str(dtype(v)))
    return v


def arr(a):
    a = a.asnumpy() if isinstance(a, mx.nd.NDArray) else np.asarray(a)
    dt = a.dtype.name if a.dtype != np.bool_ else "bool"
    return {"shape": list(a.shape), "dtype": dt,
            "data": [num(v, a.dtype.type) for v in a.reshape(-1).tolist()]}


def make(data, dtype="float32", shape=None):
    a = np.array(data, dtype=np.float64)
    if shape is not None:
        a = a.reshape(shape)
    if dtype == "bool":
        return nd.array(a, dtype="float32").astype("bool")
    return nd.array(a, dtype=dtype)


def rand(shape, lo, hi, seed, dtype="float32"):
    rng = np.random.RandomState(seed)
    return make(np.round(rng.uniform(lo, hi, size=shape), 4), dtype)


def call(op, inputs, attrs):
    fn = getattr(nd, op, None) or getattr(nd._internal, op)
    return fn(*inputs, **attrs)


def case(name, op, inputs, attrs=None, grad=False, seed=0):
    """Runs op in MXNet; with grad, also the gradients for random head gradients."""
    attrs = attrs or {}
    c = {"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
         "inputs": [arr(x) for x in inputs]}
    if grad:
        xs = [x.copy() for x in inputs]
        for x in xs:
            x.attach_grad()
        with mx.autograd.record():
            y = call(op, xs, attrs)
        hg = rand(y.shape, -1, 1, seed + 1000, y.dtype.__name__ if hasattr(y.dtype, "__name__") else "float32")
        y.backward(hg)
        c["outputs"] = [arr(y)]
        c["head_grads"] = [arr(hg)]
        c["grads"] = [arr(x.grad) for x in xs]
    else:
        y = call(op, inputs, attrs)
        y.wait_to_read()
        c["outputs"] = [arr(y)]
    return c


def write(name, cases, extra=None):
    doc = {"generator": "tools/conformance/gen_elemwise_refs.py", "mxnet_version": mx.__version__,
           "cases": cases}
    if extra:
        doc.update(extra)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")


# ---------------------------------------------------------------- registry
UNARY = {  # op: (lo, hi) domain for values and gradients
    "exp": (-2, 2), "log": (0.5, 3), "log2": (0.5, 3), "log10": (0.5, 3), "log1p": (-0.5, 2),
    "expm1": (-2, 2), "sqrt": (0.5, 3), "rsqrt": (0.5, 3), "cbrt": (0.5, 3), "rcbrt": (0.5, 3),
    "square": (-2, 2), "reciprocal": (0.5, 2), "abs": (-2, 2), "sign": (-2, 2), "floor": (-3, 3),
    "ceil": (-3, 3), "round": (-3, 3), "rint": (-3, 3), "fix": (-3, 3), "trunc": (-3, 3),
    "logical_not": (-1, 1), "sin": (-3, 3), "cos": (-3, 3), "tan": (-1.2, 1.2),
    "arcsin": (-0.9, 0.9), "arccos": (-0.9, 0.9), "arctan": (-3, 3), "degrees": (-3, 3),
    "radians": (-180, 180), "sinh": (-2, 2), "cosh": (-2, 2), "tanh": (-2, 2),
    "arcsinh": (-3, 3), "arccosh": (1.2, 3), "arctanh": (-0.9, 0.9), "erf": (-2, 2),
    "erfinv": (-0.9, 0.9), "gamma": (0.5, 3), "gammaln": (0.5, 3), "relu": (-1, 1),
    "sigmoid": (-3, 3), "softsign": (-3, 3), "BlockGrad": (-1, 1), "make_loss": (-1, 1),
}
BROADCAST = ["broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div", "broadcast_mod",
             "broadcast_power", "broadcast_maximum", "broadcast_minimum", "broadcast_hypot",
             "broadcast_equal", "broadcast_not_equal", "broadcast_greater", "broadcast_greater_equal",
             "broadcast_lesser", "broadcast_lesser_equal", "broadcast_logical_and",
             "broadcast_logical_or", "broadcast_logical_xor"]
SAME = ["_mod", "_power", "_maximum", "_minimum", "_hypot", "_equal", "_not_equal", "_greater",
        "_greater_equal", "_lesser", "_lesser_equal", "_logical_and", "_logical_or", "_logical_xor"]
SCALAR = ["_power_scalar", "_rpower_scalar", "_maximum_scalar", "_minimum_scalar", "_mod_scalar",
          "_rmod_scalar", "_hypot_scalar", "_equal_scalar", "_not_equal_scalar", "_greater_scalar",
          "_greater_equal_scalar", "_lesser_scalar", "_lesser_equal_scalar", "_logical_and_scalar",
          "_logical_or_scalar", "_logical_xor_scalar"]
MISC = ["clip", "where", "cast", "smooth_l1", "add_n"]
POSITIVE = {"broadcast_div", "broadcast_mod", "broadcast_power", "_mod", "_power"}


def registry():
    plist = ctypes.POINTER(ctypes.c_char_p)()
    size = ctypes.c_uint()
    check_call(_LIB.MXListAllOpNames(ctypes.byref(size), ctypes.byref(plist)))
    names = [py_str(plist[i]) for i in range(size.value)]
    by_handle = {}
    for n in names:
        h = OpHandle()
        check_call(_LIB.NNGetOpHandle(c_str(n), ctypes.byref(h)))
        by_handle.setdefault(h.value, []).append(n)
    ops = {}
    for op in list(UNARY) + BROADCAST + SAME + SCALAR + MISC:
        h = OpHandle()
        check_call(_LIB.NNGetOpHandle(c_str(op), ctypes.byref(h)))
        name, desc, key_var, ret = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p()
        n_args = mx_uint()
        a_names, a_types, a_descs = (ctypes.POINTER(ctypes.c_char_p)() for _ in range(3))
        check_call(_LIB.MXSymbolGetAtomicSymbolInfo(
            h, ctypes.byref(name), ctypes.byref(desc), ctypes.byref(n_args), ctypes.byref(a_names),
            ctypes.byref(a_types), ctypes.byref(a_descs), ctypes.byref(key_var), ctypes.byref(ret)))
        args = [[py_str(a_names[i]), py_str(a_types[i])] for i in range(n_args.value)]
        ops[op] = {"names": sorted(by_handle[h.value]),
                   "attrs": [a for a in args if not a[1].startswith("NDArray-or-Symbol")],
                   "inputs": [a[0] for a in args if a[1].startswith("NDArray-or-Symbol")]}
    return ops


# ---------------------------------------------------------------- unary
EDGE = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, -1.0]


def unary_cases():
    cs = []
    for i, (op, (lo, hi)) in enumerate(UNARY.items()):
        cs.append(case(op, op, [rand((2, 3), lo, hi, 10 + i)], grad=True, seed=i))
        if op not in ("BlockGrad", "make_loss"):
            cs.append(case(op + " edge", op, [make(EDGE)]))
    ints = [-3, -2, -1, 0, 1, 2, 3, 7]
    for op in ["exp", "log", "sqrt", "square", "abs", "sign", "sin", "floor", "round", "relu",
               "sigmoid", "logical_not", "reciprocal", "degrees", "gamma", "cbrt", "rsqrt",
               "softsign", "tanh", "erf"]:
        pos = op in ("log", "sqrt", "rsqrt", "reciprocal", "gamma")
        vals = [v for v in ints if v > 0] if pos else ints
        cs.append(case(op + " int32", op, [make(vals, "int32")]))
        cs.append(case(op + " uint8", op, [make([0, 1, 2, 3, 100, 200] if not pos else [1, 2, 3, 100, 200], "uint8")]))
    for op in ["square", "degrees", "abs", "exp"]:
        cs.append(case(op + " int8 wrap", op, [make([-128, -3, 3, 20, 100, 127], "int8")]))
    for op in ["exp", "sqrt", "relu", "sigmoid", "tanh", "round", "log"]:
        cs.append(case(op + " float16", op, [make([0.1, 0.5, 1.5, 2.5, 3.3, 7.0], "float16")]))
    for op in ["exp", "sin", "erf", "gammaln"]:
        cs.append(case(op + " float64", op, [rand((5,), 0.5, 3, 77, "float64")]))
    return cs


# ---------------------------------------------------------------- binary
def binary_cases():
    cs = []
    shapes = [((2, 1, 3), (4, 3)), ((3,), (2, 1)), ((2, 3), (2, 3)), ((1,), (2, 2))]
    for i, op in enumerate(BROADCAST):
        lo, hi = (0.5, 2) if op in POSITIVE else (-1, 1)
        for j, (sa, sb) in enumerate(shapes):
            a, b = rand(sa, lo, hi, 100 + 7 * i + j), rand(sb, lo, hi, 200 + 7 * i + j)
            if op in ("broadcast_equal", "broadcast_not_equal", "broadcast_greater_equal", "broadcast_lesser_equal"):
                b = make(np.round(b.asnumpy() * 2) / 2)  # coarse values: some ties
                a = make(np.round(a.asnumpy() * 2) / 2)
            cs.append(case(f"{op} {sa}x{sb}", op, [a, b], grad=True, seed=50 + 7 * i + j))
        ia = make([7, -7, 7, -7, 0, 5, 3, 1], "int32")
        ib = make([2, 2, -2, -2, 3, 3, 3, 4], "int32")
        cs.append(case(op + " int32", op, [ia, ib]))
    for i, op in enumerate(SAME):
        lo, hi = (0.5, 2) if op in POSITIVE else (-1, 1)
        a, b = rand((2, 3), lo, hi, 300 + i), rand((2, 3), lo, hi, 400 + i)
        if op in ("_equal", "_not_equal", "_greater_equal", "_lesser_equal"):
            b = make(np.concatenate([a.asnumpy()[:1], b.asnumpy()[1:]]))  # first row ties
        cs.append(case(op, op, [a, b], grad=True, seed=80 + i))
    # NaN, zero divisors, signs.
    na = make([float("nan"), 1, float("nan"), 2, -0.0, 0.0, float("inf"), -1.5])
    nb = make([1, float("nan"), float("nan"), 1, 0.0, -0.0, 1.0, 0.0])
    for op in ["broadcast_maximum", "broadcast_minimum", "broadcast_equal", "broadcast_not_equal",
               "broadcast_logical_and", "broadcast_logical_xor", "broadcast_hypot", "broadcast_div",
               "broadcast_mod", "broadcast_power", "broadcast_greater"]:
        cs.append(case(op + " nan/zero", op, [na, nb]))
    fa = make([7, -7, 7, -7, 0, 5, -1.5, 5.5, 4, -4])
    fb = make([2, 2, -2, -2, 3, 0, 2, -0.5, -2, 2])
    cs.append(case("broadcast_mod signs", "broadcast_mod", [fa, fb]))
    cs.append(case("_mod signs", "_mod", [fa, fb]))
    cs.append(case("broadcast_div int32 trunc", "broadcast_div",
                   [make([7, -7, 1, -1, 9], "int32"), make([2, 2, 3, 3, -4], "int32")]))
    cs.append(case("broadcast_power int32 neg", "broadcast_power",
                   [make([2, 3, 2, -2], "int32"), make([-1, 2, 0, 3], "int32")]))
    cs.append(case("broadcast_power uint8 wrap", "broadcast_power",
                   [make([2, 3, 16], "uint8"), make([9, 2, 2], "uint8")]))
    cs.append(case("broadcast_add int8 wrap", "broadcast_add",
                   [make([100, -100, 127], "int8"), make([100, -100, 1], "int8")]))
    cs.append(case("broadcast_mul float16", "broadcast_mul",
                   [make([0.1, 1.5, 300], "float16"), make([3, 0.3, 300], "float16")]))
    cs.append(case("broadcast_greater float64", "broadcast_greater",
                   [make([0.1, 1.5, 3], "float64"), make([[1.0], [2.0]], "float64")]))
    return cs


# ---------------------------------------------------------------- scalar
def scalar_cases():
    cs = []
    scal = {"_power_scalar": [2.5, 2, 0], "_rpower_scalar": [2, 0.5], "_maximum_scalar": [0.1],
            "_minimum_scalar": [0.1], "_mod_scalar": [0.7, -0.7], "_rmod_scalar": [1.5, -1.5],
            "_hypot_scalar": [3, 0], "_equal_scalar": [0.5], "_not_equal_scalar": [0.5],
            "_greater_scalar": [0], "_greater_equal_scalar": [0.5], "_lesser_scalar": [0],
            "_lesser_equal_scalar": [0.5], "_logical_and_scalar": [1, 0],
            "_logical_or_scalar": [0, 1], "_logical_xor_scalar": [1, 0]}
    for i, op in enumerate(SCALAR):
        for j, s in enumerate(scal[op]):
            positive = op in ("_power_scalar", "_mod_scalar", "_rmod_scalar")
            x = rand((2, 3), 0.5 if positive else -1, 2 if positive else 1, 500 + 5 * i + j)
            if op in ("_equal_scalar", "_not_equal_scalar", "_greater_equal_scalar", "_lesser_equal_scalar"):
                x = make(np.round(x.asnumpy() * 2) / 2)  # ties with 0.5
            if op == "_logical_and_scalar" or op == "_logical_or_scalar" or op == "_logical_xor_scalar":
                x = make([[0, 0.5, -1], [0, 2, 0]])
            cs.append(case(f"{op} {s}", op, [x], {"scalar": s}, grad=True, seed=90 + 5 * i + j))
        # Integer input with a fractional scalar: is_int=True (the default) truncates the scalar;
        # is_int=False computes in float64 (NumpyBinaryScalarType).
        xi = make([1, 2, 3, -2, 0, 5], "int32")
        cs.append(case(op + " int32 scalar=2.5", op, [xi], {"scalar": 2.5}))
        cs.append(case(op + " int32 scalar=2.5 is_int=False", op, [xi], {"scalar": 2.5, "is_int": False}))
        cs.append(case(op + " bool", op, [make([1, 0, 1], "bool")], {"scalar": 2}))
        # Every integer dtype with a fractional scalar (truncated to 2), bool with a fractional
        # scalar (int64 output) and with is_int=False (float64 output).
        for dt, vals in [("uint8", [1, 2, 3, 0, 5, 200]), ("int8", [1, 2, 3, -2, 0, 5]),
                         ("int64", [1, 2, 3, -2, 0, 5])]:
            cs.append(case(op + " %s scalar=2.5" % dt, op, [make(vals, dt)], {"scalar": 2.5}))
        cs.append(case(op + " bool scalar=2.5", op, [make([1, 0, 1], "bool")], {"scalar": 2.5}))
        cs.append(case(op + " bool scalar=2.5 is_int=False", op, [make([1, 0, 1], "bool")],
                       {"scalar": 2.5, "is_int": False}))
        cs.append(case(op + " float16", op, [make([1, 2, 3.5], "float16")], {"scalar": 2.5}))
    e = make([float("nan"), 1.0, -1.0, 0.0, 4.0, -4.0, float("inf")])
    for op, s in [("_maximum_scalar", 1.5), ("_maximum_scalar", float("nan")), ("_minimum_scalar", 0.0),
                  ("_mod_scalar", 0.0), ("_mod_scalar", -3.0), ("_rmod_scalar", 3.0),
                  ("_power_scalar", 0.5), ("_rpower_scalar", -2.0), ("_equal_scalar", float("nan")),
                  ("_logical_or_scalar", 0.0)]:
        cs.append(case(f"{op} edge {s}", op, [e], {"scalar": s}))
    return cs


# ---------------------------------------------------------------- misc
def misc_cases():
    cs = []
    x = rand((3, 4), -2, 2, 600)
    cs.append(case("clip", "clip", [x], {"a_min": -0.5, "a_max": 1.0}, grad=True, seed=1))
    cs.append(case("clip bounds hit", "clip", [make([-2, -1, 0, 1, 2, float("nan")])],
                   {"a_min": -1, "a_max": 1}, grad=False))
    cs.append(case("clip grad at bounds", "clip", [make([-2, -1, 0, 1, 2])], {"a_min": -1, "a_max": 1},
                   grad=True, seed=2))
    cs.append(case("clip inverted", "clip", [make([-5, 5, 0.3])], {"a_min": 1, "a_max": -1}))
    cs.append(case("clip int32", "clip", [make([-5, 5, 0, 2], "int32")], {"a_min": -1.5, "a_max": 2.7}))
    cs.append(case("clip float16", "clip", [make([0.1, 2.6, 1.0], "float16")], {"a_min": 0.3, "a_max": 2.5}))
    cond = make([[1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 0]])
    cs.append(case("where", "where", [cond, rand((3, 4), -1, 1, 601), rand((3, 4), -1, 1, 602)],
                   grad=True, seed=3))
    cs.append(case("where 1-D condition", "where",
                   [make([1, 0, 2]), rand((3, 2), -1, 1, 603), rand((3, 2), -1, 1, 604)], grad=True, seed=4))
    cs.append(case("where int32 condition", "where",
                   [make([1, 0], "int32"), make([[1, 2], [3, 4]], "int32"), make([[5, 6], [7, 8]], "int32")]))
    cs.append(case("where nan condition", "where",
                   [make([float("nan"), 0.0, -0.0]), make([1, 2, 3]), make([4, 5, 6])]))
    for dt in ["float16", "float64", "int32", "uint8", "int8", "int64", "bool", "float32"]:
        cs.append(case("cast to " + dt, "cast", [make([-1.7, 2.5, 0.0, 100.9, 0.1, 3.0])
                                                  if dt not in ("uint8",) else make([1.7, 2.5, 0.0, 100.9, 0.1, 255.0])],
                       {"dtype": dt}))
    cs.append(case("cast grad", "cast", [rand((2, 3), -1, 1, 605)], {"dtype": "float64"}, grad=True, seed=5))
    cs.append(case("cast int32 to float16", "cast", [make([1, -2, 3000], "int32")], {"dtype": "float16"}))
    cs.append(case("cast float16 to float32", "cast", [make([0.1, 65504, -3.5], "float16")], {"dtype": "float32"}))
    y = make([-2, -0.5, 0, 0.25, 0.3, 2, -0.1, 1.0])
    for s in [1.0, 2.0, 0.5]:
        cs.append(case(f"smooth_l1 {s}", "smooth_l1", [y], {"scalar": s}, grad=True, seed=6))
    cs.append(case("smooth_l1 default", "smooth_l1", [y]))
    cs.append(case("add_n", "add_n", [rand((2, 3), -1, 1, 606 + k) for k in range(3)], {"num_args": 3},
                   grad=True, seed=7))
    cs.append(case("add_n int32", "add_n", [make([1, 2], "int32"), make([3, -4], "int32")], {"num_args": 2}))
    cs.append(case("BlockGrad bool", "BlockGrad", [make([1, 0, 1], "bool")]))
    cs.append(case("make_loss grad", "make_loss", [rand((2, 2), -1, 1, 610)], grad=True, seed=8))
    return cs


def main():
    write("registry.json", [], {"ops": registry()})
    write("unary.json", unary_cases())
    write("binary.json", binary_cases())
    write("scalar.json", scalar_cases())
    write("misc.json", misc_cases())
    from refs_np_elemwise import write_np  # the _npi_/_npx_ ops: np.json
    write_np(OUT)
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {OUT} ({total} bytes)")


if __name__ == "__main__":
    main()
