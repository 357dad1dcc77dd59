#!/usr/bin/env python3
"""Reference values of the reduce op family from real MXNet 1.9.1.

Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_reduce_refs.py [OUT_DIR]   # default: ndarray/ops/testdata/reduce

Writes small JSON files read by ndarray/ops/reduce_test.cc:
  registry.json   every public op of the family: MXNet names (canonical + aliases), attributes
                  (name, MXNet type/default text), input names
  reduce.json     sum/mean/prod/nansum/nanprod/max/min/norm/argmax/argmin/argmax_channel: axis,
                  keepdims, exclude combinations, dtypes, NaN and ties (values + gradients)
  dot.json        dot (1-D/2-D/N-D, transposes) and batch_dot (values + gradients)
  ordering.json   topk (every ret_typ, ties, axis None, k=0, index dtypes), sort, argsort
  indexing.json   take (clip/wrap/raise, axes, float indices), pick, one_hot, Embedding,
                  gather_nd, scatter_nd, batch_take (values + gradients)

Each case: {"name", "op", "attrs", "inputs": [array], "outputs": [array] (the visible outputs),
            optional "head_grads": [array] (one per visible output), "grads": [array | null]}
with array = {"shape": [...], "dtype": "float32", "data": [...]} (row-major). Non-finite values
are written as the strings "nan", "inf", "-inf". Attributes are MXNet's Python str() of the value.
Deterministic: fixed seeds, sorted keys.
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
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "ndarray", "ops", "testdata", "reduce")
nd = mx.nd
NAN = float("nan")


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
    return nd.array(a, dtype=dtype)


def rand(shape, lo, hi, seed, dtype="float32"):
    rng = np.random.RandomState(seed)
    return make(np.round(rng.uniform(lo, hi, size=shape), 4), dtype)


def ints(shape, lo, hi, seed, dtype="float32"):
    rng = np.random.RandomState(seed)
    return make(rng.randint(lo, hi + 1, size=shape), dtype)


def call(op, inputs, attrs):
    fn = getattr(nd, op, None) or getattr(nd._internal, op)
    return fn(*inputs, **attrs)


def as_list(y):
    return list(y) if isinstance(y, (list, tuple)) else [y]


def case(name, op, inputs, attrs=None, grad=(), seed=0):
    """Runs op in MXNet; `grad` lists the inputs whose gradients are recorded (random head
    gradients for every visible output)."""
    attrs = attrs or {}
    c = {"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
         "inputs": [arr(x) for x in inputs]}
    if grad:
        xs = [x.copy() for x in inputs]
        for i in grad:
            xs[i].attach_grad()
        with mx.autograd.record():
            ys = as_list(call(op, xs, attrs))
        hgs = [rand(y.shape, -1, 1, seed + 1000 + k, np.dtype(y.dtype).name) for k, y in enumerate(ys)]
        mx.autograd.backward(ys, hgs)
        c["outputs"] = [arr(y) for y in ys]
        c["head_grads"] = [arr(h) for h in hgs]
        c["grads"] = [arr(xs[i].grad) if i in grad else None for i in range(len(xs))]
    else:
        ys = as_list(call(op, inputs, attrs))
        c["outputs"] = [arr(y) for y in ys]
    return c


def write(name, cases, extra=None):
    doc = {"generator": "tools/conformance/gen_reduce_refs.py", "mxnet_version": mx.__version__,
           "cases": cases}
    if extra:
        doc.update(extra)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")


# ---------------------------------------------------------------- registry
PUBLIC = ["sum", "mean", "prod", "nansum", "nanprod", "max", "min", "norm", "argmax", "argmin",
          "argmax_channel", "dot", "batch_dot", "topk", "sort", "argsort", "take", "pick", "one_hot",
          "Embedding", "gather_nd", "scatter_nd", "batch_take"]


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
    for op in PUBLIC:
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


# ---------------------------------------------------------------- reductions
AXES = [
    {},
    {"axis": 1},
    {"axis": (0, 2)},
    {"axis": -1, "keepdims": True},
    {"axis": (1,), "exclude": True},
    {"axis": (0,), "exclude": True, "keepdims": True},
    {"axis": ()},
    {"axis": (-3, -1)},
]


def reduce_cases():
    cs = []
    for i, op in enumerate(["sum", "mean", "prod", "nansum", "nanprod", "max", "min"]):
        lo, hi = (0.5, 1.5) if "prod" in op else (-1, 1)
        for j, attrs in enumerate(AXES):
            x = rand((2, 3, 4), lo, hi, 10 * i + j)
            cs.append(case("%s %s" % (op, attrs), op, [x], attrs, grad=[0], seed=100 * i + j))
    for alias, attrs in [("sum_axis", {"axis": 0}), ("max_axis", {"axis": 1}), ("min_axis", {"axis": (0, 1)})]:
        cs.append(case(alias, alias, [rand((3, 4), -1, 1, 7)], attrs, grad=[0], seed=3))
    # dtypes
    cs.append(case("sum int8 wraps", "sum", [make([100, 100, 27, -5], "int8")]))
    cs.append(case("mean int8 divides the wrapped sum", "mean", [make([100, 100, 101], "int8")]))
    cs.append(case("sum int32 axis", "sum", [ints((3, 4), -50, 50, 1, "int32")], {"axis": 1}))
    cs.append(case("mean int32 truncates", "mean", [make([[1, 2], [3, 4]], "int32")], {"axis": 1}))
    cs.append(case("max int32", "max", [ints((3, 4), -50, 50, 2, "int32")], {"axis": 0}))
    cs.append(case("prod int32", "prod", [ints((2, 3), -3, 3, 3, "int32")], {"axis": 1}))
    cs.append(case("sum uint8 wraps", "sum", [make([200, 100, 3], "uint8")]))
    cs.append(case("sum int64", "sum", [make([2**40, 3, -7], "int64")]))
    cs.append(case("sum float16", "sum", [rand((4, 5), -1, 1, 4, "float16")], {"axis": 1}))
    cs.append(case("mean float16 overflow", "mean", [make([60000, 60000], "float16")]))
    cs.append(case("max float16", "max", [rand((4, 5), -1, 1, 5, "float16")], {"axis": 0}))
    cs.append(case("sum float64", "sum", [rand((3, 4), -1, 1, 6, "float64")], {"axis": 0}, grad=[0], seed=7))
    cs.append(case("mean float64", "mean", [rand((3, 4), -1, 1, 8, "float64")], {"axis": (0, 1)}, grad=[0], seed=9))
    # NaN and ties
    xn = make([[1, NAN, 3], [2, 2, 1]])
    for op in ["nansum", "nanprod", "max", "min"]:
        cs.append(case(op + " NaN", op, [xn], {"axis": 1}, grad=[0], seed=11))
    cs.append(case("max ties", "max", [make([[1, 3, 3], [2, 2, 1]])], {"axis": 1}, grad=[0], seed=12))
    cs.append(case("min ties all", "min", [make([[1, 1, 3], [2, 0, 0]])], {}, grad=[0], seed=13))
    cs.append(case("prod with zero", "prod", [make([[1, 0, 3], [2, 2, 1]])], {"axis": 1}, grad=[0], seed=14))
    # norm
    for j, attrs in enumerate([{}, {"ord": 1}, {"axis": 1}, {"axis": (0, 2), "keepdims": True},
                               {"ord": 1, "axis": -1}, {"axis": (-1, 0)}, {"ord": 2, "axis": (1,)}]):
        cs.append(case("norm %s" % attrs, "norm", [rand((2, 3, 4), -1, 1, 40 + j)], attrs, grad=[0], seed=40 + j))
    cs.append(case("norm float64", "norm", [rand((2, 3), -1, 1, 51, "float64")], {"ord": 1}, grad=[0], seed=51))
    cs.append(case("norm float16", "norm", [make([[3, 4], [1, 2]], "float16")], {"axis": 1}))
    cs.append(case("norm large", "norm", [make([1e20, 1e20])]))
    # argmax / argmin / argmax_channel
    x = rand((3, 4, 2), -1, 1, 60)
    for op in ["argmax", "argmin"]:
        for attrs in [{"axis": 1}, {"axis": -1, "keepdims": True}, {}, {"keepdims": True}, {"axis": 0}]:
            cs.append(case("%s %s" % (op, attrs), op, [x], attrs, grad=[0], seed=61))
    cs.append(case("argmax ties", "argmax", [make([[1, 3, 3], [2, 2, 1]])], {"axis": 1}))
    cs.append(case("argmin ties", "argmin", [make([[1, 1, 3], [2, 0, 0]])], {"axis": 1}))
    cs.append(case("argmax NaN", "argmax", [make([[NAN, 1, NAN, 3], [1, NAN, 3, 0]])], {"axis": 1}))
    cs.append(case("argmin NaN", "argmin", [make([[0, NAN, 1, NAN, 3]])], {"axis": 1}))
    cs.append(case("argmax float64", "argmax", [rand((3, 4), -1, 1, 62, "float64")], {"axis": 1}))
    cs.append(case("argmax int32", "argmax", [ints((3, 4), -9, 9, 63, "int32")], {"axis": 0}))
    cs.append(case("argmin float16", "argmin", [rand((3, 4), -1, 1, 64, "float16")], {"axis": 1}))
    cs.append(case("argmax_channel 2-D", "argmax_channel", [rand((3, 5), -1, 1, 65)]))
    cs.append(case("argmax_channel 3-D", "argmax_channel", [rand((2, 4, 3), -1, 1, 66)]))
    return cs


# ---------------------------------------------------------------- dot / batch_dot
def dot_cases():
    cs = []
    specs = [((3, 4), (4, 5), False, False), ((4, 3), (4, 5), True, False), ((3, 4), (5, 4), False, True),
             ((4, 3), (5, 4), True, True), ((5,), (5,), False, False), ((4,), (4, 3), False, False),
             ((4,), (4, 3), True, False), ((4,), (3, 4), False, True), ((3, 4), (4,), False, False),
             ((4, 3), (4,), True, False), ((3, 4), (4,), False, True), ((2, 3, 4), (4, 2, 3), False, False),
             ((2, 3, 4), (2, 3, 2), True, False), ((2, 3, 4), (3, 2, 4), False, True),
             ((2, 3, 2), (3, 2, 2), True, True), ((2, 3, 4), (4,), False, False), ((2,), (2, 3, 2), False, False)]
    for i, (sa, sb, ta, tb) in enumerate(specs):
        a, b = rand(sa, -1, 1, 200 + i), rand(sb, -1, 1, 300 + i)
        cs.append(case("dot %s %s ta=%s tb=%s" % (sa, sb, ta, tb), "dot", [a, b],
                       {"transpose_a": ta, "transpose_b": tb}, grad=[0, 1], seed=i))
    cs.append(case("dot float64", "dot", [rand((3, 2), -1, 1, 400, "float64"), rand((2, 4), -1, 1, 401, "float64")],
                   {}, grad=[0, 1], seed=40))
    bspecs = [((2, 3, 4), (2, 4, 5), False, False), ((2, 4, 3), (2, 4, 5), True, False),
              ((2, 3, 4), (2, 5, 4), False, True), ((2, 4, 3), (2, 5, 4), True, True),
              ((2, 2, 3, 2), (2, 2, 2, 3), False, False)]
    for i, (sa, sb, ta, tb) in enumerate(bspecs):
        a, b = rand(sa, -1, 1, 500 + i), rand(sb, -1, 1, 600 + i)
        cs.append(case("batch_dot %s %s ta=%s tb=%s" % (sa, sb, ta, tb), "batch_dot", [a, b],
                       {"transpose_a": ta, "transpose_b": tb}, grad=[0, 1], seed=50 + i))
    cs.append(case("batch_dot float64", "batch_dot",
                   [rand((2, 2, 3), -1, 1, 700, "float64"), rand((2, 3, 2), -1, 1, 701, "float64")], {},
                   grad=[0, 1], seed=60))
    return cs


# ---------------------------------------------------------------- ordering
def ordering_cases():
    cs = []
    x = rand((3, 5), -1, 1, 800)
    x3 = rand((2, 4, 3), -1, 1, 801)
    for j, attrs in enumerate([{}, {"k": 2}, {"k": 2, "ret_typ": "value"}, {"k": 3, "ret_typ": "both"},
                               {"k": 2, "ret_typ": "mask"}, {"k": 2, "ret_typ": "both", "is_ascend": True},
                               {"k": 0, "ret_typ": "value"}, {"k": 4, "axis": None, "ret_typ": "both"},
                               {"k": 3, "axis": None, "ret_typ": "mask"}, {"k": 2, "dtype": "int32"},
                               {"k": 1, "axis": 0, "ret_typ": "both", "dtype": "int64"}]):
        cs.append(case("topk %s" % attrs, "topk", [x], attrs, grad=[0], seed=800 + j))
    for j, attrs in enumerate([{"axis": 1, "k": 2, "ret_typ": "both"}, {"axis": -2, "k": 3, "ret_typ": "value"},
                               {"axis": 0, "k": 1, "ret_typ": "mask", "is_ascend": True}]):
        cs.append(case("topk 3-D %s" % attrs, "topk", [x3], attrs, grad=[0], seed=820 + j))
    cs.append(case("topk ties desc", "topk", [make([1, 5, 5, 5, 2])], {"k": 2, "ret_typ": "both"}))
    cs.append(case("topk ties asc", "topk", [make([5, 1, 1, 1, 2])], {"k": 2, "ret_typ": "both", "is_ascend": True}))
    cs.append(case("topk ties rows", "topk", [make([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]])],
                   {"k": 3, "ret_typ": "both", "is_ascend": True}))
    cs.append(case("topk int32 data", "topk", [make([3, 1, 2], "int32")], {"k": 2, "ret_typ": "both"}))
    cs.append(case("topk float16 indices", "topk", [x], {"k": 2, "dtype": "float16"}))
    cs.append(case("topk long row partial sort", "topk", [rand((2, 40), -1, 1, 830)], {"k": 3, "ret_typ": "both"},
                   grad=[0], seed=830))
    for j, attrs in enumerate([{}, {"is_ascend": False}, {"axis": 0}, {"axis": None}]):
        # MXNet 1.9.1's sort backward fails unless axis is given as an int ("Invalid Parameter
        # format for axis ... value=''" in _backward_topk).
        cs.append(case("sort %s" % attrs, "sort", [x], attrs, grad=[0] if attrs.get("axis") is not None else (),
                       seed=840 + j))
        cs.append(case("argsort %s" % attrs, "argsort", [x], attrs, grad=[0], seed=850 + j))
    cs.append(case("sort axis -1 grad", "sort", [x], {"axis": -1}, grad=[0], seed=845))
    cs.append(case("argsort int64", "argsort", [x3], {"axis": 1, "dtype": "int64"}))
    cs.append(case("argsort ties desc", "argsort", [make([1, 5, 5, 5, 2])], {"is_ascend": False}))
    cs.append(case("argsort ties asc", "argsort", [make([5, 1, 1, 1, 2])]))
    cs.append(case("argsort NaN", "argsort", [make([3, NAN, 2, NAN, 1])]))
    cs.append(case("sort int32", "sort", [make([3, 1, 2, -7], "int32")], {"is_ascend": False}))
    return cs


# ---------------------------------------------------------------- indexing
def indexing_cases():
    cs = []
    a = rand((4, 3), -1, 1, 900)
    a3 = rand((2, 4, 3), -1, 1, 901)
    cs.append(case("take clip", "take", [a, make([[0, 5], [-1, 2]])], {}, grad=[0], seed=900))
    cs.append(case("take wrap", "take", [a, make([[0, 5], [-1, 2], [-6, 9]])], {"mode": "wrap"}, grad=[0], seed=901))
    cs.append(case("take raise", "take", [a, make([3, 0, 2], "int64")], {"mode": "raise"}, grad=[0], seed=902))
    cs.append(case("take axis 1", "take", [a3, make([2, 0, 2, 1])], {"axis": 1}, grad=[0], seed=903))
    cs.append(case("take axis -1 wrap", "take", [a3, make([[3], [-1]])], {"axis": -1, "mode": "wrap"}, grad=[0],
                   seed=904))
    cs.append(case("take float indices", "take", [a, make([0.7, 1.5, 2.9, -0.5])], {}, grad=[0], seed=905))
    cs.append(case("take int32 data", "take", [make([[1, 2], [3, 4]], "int32"), make([1, 1, 0], "int32")]))
    cs.append(case("pick clip", "pick", [a, make([0, 5, -1, 2])], {}, grad=[0], seed=910))
    cs.append(case("pick wrap", "pick", [a, make([0, 5, -1, 2])], {"mode": "wrap"}, grad=[0], seed=911))
    cs.append(case("pick axis 0", "pick", [a, make([0, 3, 1])], {"axis": 0}, grad=[0], seed=912))
    cs.append(case("pick keepdims", "pick", [a, make([0, 2, 1, 1])], {"keepdims": True}, grad=[0], seed=913))
    cs.append(case("pick 3-D axis 1", "pick", [a3, make([[0, 1, 3], [2, 1, 0]])], {"axis": 1}, grad=[0], seed=914))
    cs.append(case("pick int32 index", "pick", [a, make([2, 0, 1, 1], "int32")], {}, grad=[0], seed=915))
    cs.append(case("one_hot", "one_hot", [make([1, 0, -1, 3, 2.7])], {"depth": 3}))
    cs.append(case("one_hot values dtype", "one_hot", [make([[1, 0], [2, 2]])],
                   {"depth": 4, "on_value": 5.0, "off_value": -1.0, "dtype": "int32"}))
    cs.append(case("one_hot int32 indices float64", "one_hot", [make([1, 0, 3], "int32")], {"depth": 3,
                                                                                          "dtype": "float64"}))
    w = rand((5, 3), -1, 1, 920)
    cs.append(case("Embedding", "Embedding", [make([[0, 2], [4, 2]]), w], {"input_dim": 5, "output_dim": 3},
                   grad=[1], seed=920))
    cs.append(case("Embedding clip", "Embedding", [make([[0, 7], [-1, 2]]), w], {"input_dim": 5, "output_dim": 3},
                   grad=[1], seed=921))
    cs.append(case("Embedding float64", "Embedding", [make([1, 3]), rand((4, 2), -1, 1, 922, "float64")],
                   {"input_dim": 4, "output_dim": 2, "dtype": "float64"}, grad=[1], seed=922))
    d = rand((2, 3, 4), -1, 1, 930)
    # MXNet 1.9.1's gather_nd wraps negative indices forward but its backward adds at the unwrapped
    # offset (here d[0, 2] instead of d[1, 2]), so that case records values only.
    cs.append(case("gather_nd negative index", "gather_nd", [d, make([[1, 0, 1], [2, 0, -1]])]))
    cs.append(case("gather_nd", "gather_nd", [d, make([[1, 0, 1], [2, 0, 1]])], {}, grad=[0], seed=930))
    cs.append(case("gather_nd full", "gather_nd", [d, make([[1, 0], [2, 0], [3, 1]])], {}, grad=[0], seed=931))
    cs.append(case("gather_nd repeated", "gather_nd", [d, make([[1, 1, 0], [2, 2, 0]], "int32")], {}, grad=[0],
                   seed=932))
    cs.append(case("scatter_nd", "scatter_nd", [rand((3,), -1, 1, 940), make([[0, 1, 1], [1, 0, 1]])],
                   {"shape": (2, 2)}, grad=[0], seed=940))
    cs.append(case("scatter_nd rows", "scatter_nd", [rand((2, 3), -1, 1, 941), make([[2, 0]])], {"shape": (3, 3)},
                   grad=[0], seed=941))
    cs.append(case("scatter_nd duplicates", "scatter_nd", [make([1, 2, 3]), make([[0, 0, 1], [1, 1, 1]])],
                   {"shape": (2, 2)}))
    cs.append(case("batch_take", "batch_take", [a, make([0, 2, 1, 1], "int32")]))
    cs.append(case("batch_take clip", "batch_take", [a, make([0, 5, -1, 2], "int32")]))
    return cs


def main():
    write("registry.json", [], {"ops": registry()})
    write("reduce.json", reduce_cases())
    write("dot.json", dot_cases())
    write("ordering.json", ordering_cases())
    write("indexing.json", indexing_cases())
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print("wrote %s (%d bytes)" % (OUT, total))


if __name__ == "__main__":
    main()
