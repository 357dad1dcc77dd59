"""Reference cases of MXNet 1.9.1's NumPy-interface elemwise ops (_npi_* / _npx_*).

Called by gen_elemwise_refs.py (write_np(OUT)); writes OUT/np.json, read by
ndarray/ops/elemwise/elemwise_np_test.cc and compared by tools/conformance/report.py:
  "cases"     {"name", "op", "attrs", "inputs", "outputs"[, "head_grads", "grads"]} as the
              other elemwise files (arrays {"shape", "dtype", "data"}; "nan"/"inf"/"-inf")
  "registry"  op -> {"names", "inputs", "attrs"} as MXNet registers it
  "dtypes"    [op, attrs, input dtypes, output dtype or null (MXNet rejects)] for every dtype
              (pair) of every op: NumPy type promotion as MXNet implements it
Deterministic: fixed seeds, sorted keys.
"""
import ctypes
import json
import os
import warnings

warnings.filterwarnings("ignore")
import numpy as onp
import mxnet as mx
from mxnet import np, npx
from mxnet.base import _LIB, OpHandle, c_str, check_call, mx_uint, py_str
import mxnet.ndarray.numpy._internal as _npi
import mxnet.ndarray.numpy_extension as _npx

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64"]
NAN, INF = float("nan"), float("inf")

BINARY = ["_npi_add", "_npi_subtract", "_npi_multiply", "_npi_true_divide", "_npi_mod", "_npi_power",
          "_npi_arctan2", "_npi_hypot", "_npi_copysign", "_npi_ldexp"]
INT_BINARY = ["_npi_lcm", "_npi_bitwise_and", "_npi_bitwise_or", "_npi_bitwise_xor"]
COMPARE = ["_npi_equal", "_npi_not_equal", "_npi_greater", "_npi_greater_equal", "_npi_less",
           "_npi_less_equal"]
SCALAR = ["add", "subtract", "rsubtract", "multiply", "true_divide", "rtrue_divide", "mod", "rmod",
          "power", "rpower", "arctan2", "rarctan2", "copysign", "rcopysign", "ldexp", "rldexp"]
SCALAR = ["_npi_%s_scalar" % s for s in SCALAR]
INT_SCALAR = ["_npi_lcm_scalar", "_npi_bitwise_and_scalar", "_npi_bitwise_or_scalar",
              "_npi_bitwise_xor_scalar"]
COMPARE_SCALAR = [op + "_scalar" for op in COMPARE]
UNARY = {  # op: (lo, hi) for values and gradients
    "_npi_absolute": (-2, 2), "_npi_sign": (-2, 2), "_npi_rint": (-3, 3), "_npi_ceil": (-3, 3),
    "_npi_floor": (-3, 3), "_npi_trunc": (-3, 3), "_npi_fix": (-3, 3), "_npi_square": (-2, 2),
    "_npi_sqrt": (0.5, 3), "_npi_cbrt": (0.5, 3), "_npi_exp": (-2, 2), "_npi_log": (0.5, 3),
    "_npi_log10": (0.5, 3), "_npi_log2": (0.5, 3), "_npi_log1p": (-0.5, 2), "_npi_expm1": (-2, 2),
    "_npi_sin": (-3, 3), "_npi_cos": (-3, 3), "_npi_tan": (-1.2, 1.2), "_npi_sinh": (-2, 2),
    "_npi_cosh": (-2, 2), "_npi_tanh": (-2, 2), "_npi_arcsin": (-0.9, 0.9), "_npi_arccos": (-0.9, 0.9),
    "_npi_arctan": (-3, 3), "_npi_arcsinh": (-3, 3), "_npi_arccosh": (1.2, 3), "_npi_arctanh": (-0.9, 0.9),
    "_npi_degrees": (-3, 3), "_npi_radians": (-180, 180), "_npi_reciprocal": (0.5, 2),
    "_npx_relu": (-1, 1), "_npx_sigmoid": (-3, 3), "_npi_nan_to_num": (-1, 1),
}
PREDICATES = ["_npi_isnan", "_npi_isinf", "_npi_isposinf", "_npi_isneginf", "_npi_isfinite",
              "_npi_logical_not"]
OTHER = ["_npi_bitwise_not", "_npi_around", "_npi_abs"]
WHERE = ["_npi_where", "_npi_where_lscalar", "_npi_where_rscalar", "_npi_where_scalar2", "_npi_polyval"]
# Gradients MXNet 1.9.1 gets wrong or lacks: forward only here (the unit test checks ours by
# finite differences).
NO_GRAD = {"_npi_rarctan2_scalar",  # MXNet's backward is -x/(x^2+s^2), not -s/(x^2+s^2)
           "_npi_copysign_scalar", "_npi_rcopysign_scalar",  # MXNet registers no gradient
           "_npi_where_lscalar"}  # MXNet passes the gradient where condition is true (the scalar's side)


def fn(op):
    return getattr(_npi, op[5:]) if op.startswith("_npi_") else getattr(_npx, op[5:])


def num(v, dtype):
    v = float(v)
    if onp.isnan(v):
        return "nan"
    if onp.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == int(v) and abs(v) < 2**53 and not (v == 0 and onp.signbit(v)):
        return int(v)
    if dtype in (onp.float32, onp.float16):
        return float(str(dtype(v)))
    return v


def arr(a):
    a = a.asnumpy() if hasattr(a, "asnumpy") else onp.asarray(a)
    dt = "bool" if a.dtype == onp.bool_ else a.dtype.name
    return {"shape": list(a.shape), "dtype": dt, "data": [num(v, a.dtype.type) for v in a.reshape(-1).tolist()]}


def make(data, dtype="float32", shape=None):
    a = onp.array(data, dtype=onp.float64)
    if shape is not None:
        a = a.reshape(shape)
    return np.array(a.astype(dtype), dtype=dtype)


def rand(shape, lo, hi, seed, dtype="float32"):
    rng = onp.random.RandomState(seed)
    return make(onp.round(rng.uniform(lo, hi, size=shape), 4), dtype)


def case(name, op, inputs, attrs=None, grad=False, seed=0):
    attrs = attrs or {}
    c = {"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
         "inputs": [arr(x) for x in inputs]}
    if grad and op not in NO_GRAD:
        xs = [x.copy() for x in inputs]
        for x in xs:
            x.attach_grad()
        with mx.autograd.record():
            y = fn(op)(*xs, **attrs)
        hg = rand(y.shape, -1, 1, seed + 1000, onp.dtype(y.dtype).name)
        y.backward(hg)
        c["outputs"] = [arr(y)]
        c["head_grads"] = [arr(hg)]
        c["grads"] = [arr(x.grad) for x in xs]
    else:
        c["outputs"] = [arr(fn(op)(*inputs, **attrs))]
    return c


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
    for op in BINARY + INT_BINARY + COMPARE + SCALAR + INT_SCALAR + COMPARE_SCALAR + list(UNARY) + PREDICATES + OTHER + WHERE:
        if op == "_npi_abs":
            continue  # an alias of _npi_absolute
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


def out_dtype(op, inputs, attrs):
    try:
        y = fn(op)(*inputs, **attrs)
        y.wait_to_read()
        return "bool" if y.dtype == onp.bool_ else onp.dtype(y.dtype).name
    except mx.base.MXNetError:
        return None


def dtype_rules():
    rows = []
    small = lambda d: make([1, 2, 3], d)  # noqa: E731
    for op in BINARY + INT_BINARY + COMPARE:
        for a in DTYPES:
            for b in DTYPES:
                rows.append([op, {}, [a, b], out_dtype(op, [small(a), small(b)], {})])
    for op in SCALAR + INT_SCALAR + COMPARE_SCALAR:
        for d in DTYPES:
            for is_int in ([True, False] if op not in INT_SCALAR else [True]):
                if not is_int and d == "bool" and op in COMPARE_SCALAR:
                    continue
                attrs = {"scalar": 2 if is_int else 2.5, "is_int": is_int}
                rows.append([op, {k: str(v) for k, v in attrs.items()}, [d], out_dtype(op, [small(d)], attrs)])
    for op in list(UNARY) + PREDICATES + OTHER:
        for d in DTYPES:
            rows.append([op, {}, [d], out_dtype(op, [small(d)], {})])
    cond = make([1, 0, 1], "bool")
    for a in DTYPES:
        rows.append(["_npi_polyval", {}, [a, a], out_dtype("_npi_polyval", [small(a), small(a)], {})])
        rows.append(["_npi_where_lscalar", {"scalar": "2.5"}, ["bool", a],
                     out_dtype("_npi_where_lscalar", [cond, small(a)], {"scalar": 2.5})])
        rows.append(["_npi_where_scalar2", {"x": "1", "y": "2"}, [a],
                     out_dtype("_npi_where_scalar2", [small(a)], {"x": 1, "y": 2})])
        for b in DTYPES:
            rows.append(["_npi_where", {}, ["bool", a, b], out_dtype("_npi_where", [cond, small(a), small(b)], {})])
            if a != b:
                rows.append(["_npi_polyval", {}, [a, b], out_dtype("_npi_polyval", [small(a), small(b)], {})])
    return rows


def cases():
    cs = []
    shapes = [((2, 1, 3), (4, 3)), ((), (2, 3)), ((0, 3), (1, 3)), ((3,), (3,))]
    positive = {"_npi_true_divide", "_npi_mod", "_npi_power"}
    for i, op in enumerate(BINARY + COMPARE):
        lo, hi = (0.5, 2) if op in positive else (-1, 1)
        for j, (sa, sb) in enumerate(shapes):
            a, b = rand(sa, lo, hi, 100 + 7 * i + j), rand(sb, lo, hi, 200 + 7 * i + j)
            if op in COMPARE:  # coarse values: ties
                a, b = make(onp.round(a.asnumpy() * 2) / 2, shape=sa), make(onp.round(b.asnumpy() * 2) / 2, shape=sb)
            cs.append(case("%s %s x %s" % (op, sa, sb), op, [a, b], grad=op not in COMPARE, seed=7 * i + j))
    # Mixed dtypes (values exact in every dtype): type promotion and the gradients' dtypes.
    ia, fb = make([7, -7, 3, 0, 5, 2], "int32"), make([2, 2.5, -1.5, 3, 0.5, 4], "float32")
    pairs = [("int32", "float32"), ("float32", "int32"), ("float16", "float32"), ("int32", "int64"),
             ("bool", "int32"), ("bool", "float32"), ("uint8", "int32"), ("int8", "float64"),
             ("bool", "bool"), ("int32", "int32"), ("uint8", "uint8"), ("float16", "int64")]
    va, vb = [7, -7, 3, 0, 5, 1], [2, 3, -1, 3, 1, 4]
    for op in ["_npi_add", "_npi_subtract", "_npi_multiply", "_npi_true_divide", "_npi_mod", "_npi_power"]:
        for da, db in pairs:
            xa = make([abs(v) % 2 for v in va] if da == "bool" else ([abs(v) for v in va] if da == "uint8" else va), da)
            xb = make([abs(v) % 2 for v in vb] if db == "bool" else ([abs(v) for v in vb] if db == "uint8" else vb), db)
            if op == "_npi_power":
                xb = make([0, 1, 1, 0, 1, 1] if db == "bool" else [2, 3, 1, 0, 2, 1], db)
            if out_dtype(op, [xa, xb], {}) is None:
                continue
            grad = "float" in da or "float" in db
            cs.append(case("%s %s %s" % (op, da, db), op, [xa, xb], grad=grad, seed=11))
    ints = [make([7, -7, 7, -7, 0, 5, 3, 1], "int32"), make([2, 2, -2, -2, 3, 0, 0, 4], "int32")]
    for op in INT_BINARY + ["_npi_copysign", "_npi_ldexp", "_npi_mod", "_npi_subtract", "_npi_equal", "_npi_less"]:
        cs.append(case(op + " int32", op, ints))
    for op in INT_BINARY:
        cs.append(case(op + " uint8 broadcast", op, [make([[12, 200, 7]], "uint8"), make([[3], [255]], "uint8")]))
        cs.append(case(op + " bool", op, [make([1, 0, 1, 0], "bool"), make([1, 1, 0, 0], "bool")]))
    cs.append(case("_npi_power int32", "_npi_power", [make([2, 3, 2, -2], "int32"), make([-1, 2, 0, 3], "int32")]))
    cs.append(case("_npi_add int8 wrap", "_npi_add", [make([100, -100, 127], "int8"), make([100, -100, 1], "int8")]))
    na = make([NAN, 1, NAN, 2, -0.0, 0.0, INF, -1.5])
    nb = make([1, NAN, NAN, 1, 0.0, -0.0, 1.0, 0.0])
    for op in ["_npi_true_divide", "_npi_mod", "_npi_power", "_npi_arctan2", "_npi_hypot", "_npi_copysign",
               "_npi_equal", "_npi_not_equal", "_npi_less", "_npi_greater_equal"]:
        cs.append(case(op + " nan/zero", op, [na, nb]))
    cs.append(case("_npi_true_divide int32 by zero", "_npi_true_divide", [make([5, -5, 0, 7], "int32"), make([0, 0, 3, 2], "int32")]))
    # Scalar ops.
    for i, op in enumerate(SCALAR + COMPARE_SCALAR):
        pos = op in ("_npi_power_scalar", "_npi_mod_scalar", "_npi_rmod_scalar", "_npi_rtrue_divide_scalar")
        x = rand((2, 3), 0.5 if pos else -1, 2 if pos else 1, 500 + i)
        if op in COMPARE_SCALAR:
            x = make(onp.round(x.asnumpy() * 2) / 2)
        cs.append(case(op + " 1.5", op, [x], {"scalar": 1.5, "is_int": False}, grad=op not in COMPARE_SCALAR, seed=90 + i))
        cs.append(case(op + " 0-dim", op, [make(0.75)], {"scalar": 0.5, "is_int": False}))
        cs.append(case(op + " zero-size", op, [make([], shape=(0, 2))], {"scalar": 0.5, "is_int": False}))
        xi = make([1, 2, 3, -2, 0, 5], "int32")
        cs.append(case(op + " int32 scalar=2.5", op, [xi], {"scalar": 2.5}))
        cs.append(case(op + " int32 scalar=2.5 is_int=False", op, [xi], {"scalar": 2.5, "is_int": False}))
        cs.append(case(op + " bool", op, [make([1, 0, 1], "bool")], {"scalar": 2}))
        cs.append(case(op + " uint8 scalar=-1", op, [make([1, 2, 200], "uint8")], {"scalar": -1}))
        cs.append(case(op + " float16", op, [make([1, 2, 3.5], "float16")], {"scalar": 2.5}))
    for op in INT_SCALAR:
        cs.append(case(op + " int32", op, [make([4, -6, 0, 3, 7, -1], "int32")], {"scalar": 6}))
        cs.append(case(op + " int8 negative", op, [make([4, -6, 0, 3, 7, -1], "int8")], {"scalar": -6.5}))
        if op != "_npi_lcm_scalar":
            cs.append(case(op + " bool", op, [make([1, 0, 1, 0], "bool")], {"scalar": 1}))
            cs.append(case(op + " bool 0", op, [make([1, 0], "bool")], {"scalar": 0}))
    e = make([NAN, 1.0, -1.0, 0.0, 4.0, -4.0, INF, -INF])
    for op, s in [("_npi_equal_scalar", NAN), ("_npi_not_equal_scalar", NAN), ("_npi_greater_scalar", 0.0),
                  ("_npi_mod_scalar", 0.0), ("_npi_rmod_scalar", 3.0), ("_npi_copysign_scalar", -0.0),
                  ("_npi_rtrue_divide_scalar", 1.0), ("_npi_rarctan2_scalar", 0.0)]:
        cs.append(case("%s edge %s" % (op, s), op, [e], {"scalar": s, "is_int": False}))
    # Unary ops.
    edge = make([NAN, INF, -INF, 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, -1.0])
    for i, (op, (lo, hi)) in enumerate(UNARY.items()):
        cs.append(case(op, op, [rand((2, 3), lo, hi, 10 + i)], grad=True, seed=i))
        cs.append(case(op + " 0-dim", op, [make((lo + hi) / 3)], grad=True, seed=i))
        cs.append(case(op + " zero-size", op, [make([], shape=(2, 0))]))
        cs.append(case(op + " edge", op, [edge]))
        # Integers inside the domain (MXNet converts NaN results to INT_MIN, ours to 0).
        iv = [v for v in [-3, -1, 0, 1, 2, 3, 7] if lo <= v <= hi] or [0]
        cs.append(case(op + " int32", op, [make(iv, "int32")]))
        cs.append(case(op + " float16", op, [make([0.5, 1.5, 2.5], "float16")]))
        if op not in ("_npi_degrees", "_npi_radians"):  # MXNet's float64 factors are float32-rounded
            cs.append(case(op + " float64", op, [rand((4,), lo, hi, 700 + i, "float64")]))
    cs.append(case("_npi_abs alias", "_npi_abs", [make([-1.5, 2, -0.0])]))
    for op in PREDICATES:
        cs.append(case(op, op, [edge], grad=True, seed=3))
        for d in ["int32", "bool", "float16", "uint8"]:
            cs.append(case(op + " " + d, op, [make([0, 1, 1, 0], d)]))
        cs.append(case(op + " 0-dim", op, [make(NAN)]))
    for d, v in [("int8", [0, 1, -3, 127, -128]), ("uint8", [0, 1, 3, 255]), ("int32", [0, 5, -6]),
                 ("int64", [0, 7, -1]), ("bool", [1, 0])]:
        cs.append(case("_npi_bitwise_not " + d, "_npi_bitwise_not", [make(v, d)]))
    x = make([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1.25, -1.35, 0.15, 1234.5678, 3.14159, NAN])
    for dec in [0, 1, 2, -1, -2]:
        cs.append(case("_npi_around decimals=%d" % dec, "_npi_around", [x], {"decimals": dec}))
        cs.append(case("_npi_around float64 decimals=%d" % dec, "_npi_around", [make([1.5, 2.5, 3.14159, -0.125, 155.5], "float64")],
                       {"decimals": dec}))
        cs.append(case("_npi_around int32 decimals=%d" % dec, "_npi_around", [make([15, 17, 25, -15, -17, 123, 155], "int32")],
                       {"decimals": dec}))
    cs.append(case("_npi_around grad", "_npi_around", [rand((2, 3), -3, 3, 9)], {"decimals": 1}, grad=True, seed=4))
    ne = make([NAN, INF, -INF, 0.0, -1.5])
    cs.append(case("_npi_nan_to_num values", "_npi_nan_to_num", [ne], {"nan": 1.5, "posinf": 9, "neginf": -9}))
    cs.append(case("_npi_nan_to_num grad", "_npi_nan_to_num", [ne], grad=True, seed=5))
    for d in ["float16", "float64"]:
        cs.append(case("_npi_nan_to_num " + d, "_npi_nan_to_num", [make([NAN, INF, -INF, 2.5], d)]))
    cs.append(case("_npi_nan_to_num int32", "_npi_nan_to_num", [make([1, 2], "int32")], {"nan": 1.5}))
    cs.append(case("_npi_nan_to_num bool", "_npi_nan_to_num", [make([1, 0], "bool")]))
    # where / polyval (MXNet 1.9.1 crashes on a zero-size where: covered by the op cases).
    c2 = make([[1], [0]], "float32")
    cs.append(case("_npi_where broadcast", "_npi_where", [c2, rand((3,), -1, 1, 40), rand((2, 1), -1, 1, 41)],
                   grad=True, seed=6))
    cs.append(case("_npi_where same shape", "_npi_where",
                   [make([[1, 0, 1], [0, 0, 1]]), rand((2, 3), -1, 1, 42), rand((2, 3), -1, 1, 43)], grad=True, seed=7))
    cs.append(case("_npi_where 0-dim", "_npi_where", [make(0.0), make(1.5), make(-2.0)], grad=True, seed=8))
    cs.append(case("_npi_where nan/int condition", "_npi_where",
                   [make([NAN, 0, -0.0, 2]), make([1, 2, 3, 4], "int32"), make([5, 6, 7, 8], "int32")]))
    cs.append(case("_npi_where bool condition", "_npi_where",
                   [make([1, 0, 1], "bool"), make([1, 2, 3], "float64"), make([4, 5, 6], "float64")]))
    for op, arrname in [("_npi_where_lscalar", "x"), ("_npi_where_rscalar", "y")]:
        cs.append(case(op, op, [c2, rand((3,), -1, 1, 44)], {"scalar": 2.5}, grad=True, seed=9))
        cs.append(case(op + " int32", op, [make([1, 0, 1], "int32"), make([1, 2, 3], "int32")], {"scalar": 2.5}))
        cs.append(case(op + " float16", op, [make([1, 0, 1], "bool"), make([1, 2, 3], "float16")], {"scalar": 2.5}))
    for d in ["bool", "float64", "int32", "float16"]:
        cs.append(case("_npi_where_scalar2 " + d, "_npi_where_scalar2", [make([[1, 0, 1], [0, 1, 0]], d)],
                       {"x": 1.5, "y": -2}))
    cs.append(case("_npi_polyval", "_npi_polyval", [make([1, 2, 3]), make([[0.5, 2], [1, -1]])], grad=True, seed=10))
    cs.append(case("_npi_polyval long", "_npi_polyval", [rand((5,), -1, 1, 45), rand((2, 3), -1.5, 1.5, 46)],
                   grad=True, seed=11))
    cs.append(case("_npi_polyval 0-dim x", "_npi_polyval", [make([3, -1]), make(2.0)], grad=True, seed=12))
    cs.append(case("_npi_polyval empty p", "_npi_polyval", [make([]), make([1, 2])]))
    cs.append(case("_npi_polyval int32", "_npi_polyval", [make([1, 2, 3], "int32"), make([1, 2, -3], "int32")]))
    cs.append(case("_npi_polyval float64", "_npi_polyval", [make([1.5, -2, 3], "float64"), make([0.25, 2], "float64")]))
    return cs


def write_np(out_dir):
    npx.set_np()
    try:
        doc = {"generator": "tools/conformance/refs_np_elemwise.py", "mxnet_version": mx.__version__,
               "registry": registry(), "dtypes": dtype_rules(), "cases": cases()}
    finally:
        npx.reset_np()
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "np.json"), "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    import sys
    write_np(sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "ndarray", "ops", "testdata", "elemwise"))
