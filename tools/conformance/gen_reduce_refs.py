#!/usr/bin/env python3
"""Reference values of the reduce op family from real MXNet 1.9.1.

Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_reduce_refs.py [OUT_DIR]   # default: ndarray/ops/testdata/reduce

Writes small JSON files read by ndarray/ops/reduce/reduce_test.cc:
  registry.json   every public op of the family: MXNet names (canonical + aliases), attributes
                  (name, MXNet type/default text), input names
  reduce.json     sum/mean/prod/nansum/nanprod/max/min/norm/argmax/argmin/argmax_channel: axis,
                  keepdims, exclude combinations, dtypes, NaN and ties (values + gradients)
  dot.json        dot (1-D/2-D/N-D, transposes) and batch_dot (values + gradients)
  ordering.json   topk (every ret_typ, ties, axis None, k=0, index dtypes), sort, argsort
  indexing.json   take (clip/wrap/raise, axes, float indices), pick, one_hot, Embedding,
                  gather_nd, scatter_nd, batch_take (values + gradients)
  linalg.json     the linalg ops (_linalg_gemm ... _linalg_syevd): batches, transposes, alpha/beta,
                  gemm axis, offsets, lower/upper, singular det/slogdet (values + gradients); extra
                  key "ops": their registry entries (names, attributes, inputs) like registry.json; extra
                  key "errors": inputs MXNet rejects ({"name", "op", "attrs", "inputs", "message"})
  contrib.json    _contrib_ box ops (box_iou, box_nms, box_encode/decode, bipartite_matching,
                  MultiBoxPrior) and helpers (arange_like, index_copy, index_array, div_sqrt_dim,
                  gradientmultiplier, round/sign_ste, quadratic, allclose); "ops" as in linalg.json

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
# Synchronous engine: a rejected call (the "errors" cases) raises at once, never in a later op
# (one threaded run failed with a gemm check from an earlier case; same bytes either way).
os.environ.setdefault("MXNET_ENGINE_TYPE", "NaiveEngine")
import numpy as np
import mxnet as mx
from mxnet.base import _LIB, OpHandle, c_str, check_call, mx_uint, py_str
from refs_errors import collect_errors

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
    if op.startswith("_linalg_"):  # registered as _linalg_X, exposed as mx.nd.linalg.X
        return getattr(nd.linalg, op[len("_linalg_"):])(*inputs, **attrs)
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


def registry(public=None):
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
    for op in (public or PUBLIC):
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


# ---------------------------------------------------------------- linalg
LINALG = ["_linalg_gemm", "_linalg_gemm2", "_linalg_potrf", "_linalg_potri", "_linalg_trmm", "_linalg_trsm",
          "_linalg_syrk", "_linalg_sumlogdiag", "_linalg_extractdiag", "_linalg_makediag", "_linalg_extracttrian",
          "_linalg_maketrian", "_linalg_inverse", "_linalg_det", "_linalg_slogdet", "_linalg_gelqf", "_linalg_syevd"]


def shifted(shape, add, seed, dtype="float32"):
    """Uniform [-1, 1) entries (4 decimals) with `add` on the diagonals of the trailing matrices."""
    rng = np.random.RandomState(seed)
    a = np.round(rng.uniform(-1, 1, size=shape), 4)
    a += add * np.eye(shape[-1])
    return make(a, dtype)


def spd(shape, seed, dtype="float32"):
    rng = np.random.RandomState(seed)
    x = np.round(rng.uniform(-1, 1, size=shape), 4)
    return make(np.matmul(x, np.swapaxes(x, -1, -2)) + shape[-1] * np.eye(shape[-1]), dtype)


def sym_separated(shape, seed, dtype="float32"):
    """Symmetric, eigenvalues near 1, 3, 5, ... (well separated: stable eigenvectors)."""
    rng = np.random.RandomState(seed)
    x = np.round(rng.uniform(-1, 1, size=shape), 4)
    return make(0.15 * (x + np.swapaxes(x, -1, -2)) + np.diag(1.0 + 2.0 * np.arange(shape[-1])), dtype)


def linalg_cases():
    cs = []
    r = lambda shape, seed, dtype="float32": rand(shape, -1, 1, seed, dtype)
    # gemm / gemm2
    for i, (sa, sb, sc, attrs) in enumerate([
            ((3, 4), (4, 5), (3, 5), {}),
            ((4, 3), (5, 4), (3, 5), {"transpose_a": True, "transpose_b": True, "alpha": 2.5, "beta": -0.5}),
            ((2, 3, 4), (2, 5, 4), (2, 3, 5), {"transpose_b": True}),
            ((2, 3, 2, 4), (2, 4, 2, 5), (2, 3, 2, 5), {"axis": 1, "alpha": 0.5}),
            ((4, 2, 3), (4, 2, 5), (3, 2, 5), {"axis": -3, "transpose_a": True})]):
        cs.append(case("gemm %s" % attrs, "_linalg_gemm", [r(sa, 1000 + i), r(sb, 1010 + i), r(sc, 1020 + i)],
                       attrs, grad=[0, 1, 2], seed=1000 + i))
    cs.append(case("gemm float64", "_linalg_gemm", [r((2, 3), 1030, "float64"), r((3, 2), 1031, "float64"),
                                                     r((2, 2), 1032, "float64")], {"beta": 2.0}, grad=[0, 1, 2],
                   seed=1030))
    for i, (sa, sb, attrs) in enumerate([
            ((3, 4), (4, 2), {}), ((2, 4, 3), (2, 4, 2), {"transpose_a": True, "alpha": -2.0}),
            ((3, 4), (2, 4), {"transpose_b": True}), ((4, 2, 3), (5, 2, 4), {"transpose_a": True,
                                                                              "transpose_b": True, "axis": -3}),
            ((2, 2, 3, 4), (2, 2, 4, 3), {})]):
        cs.append(case("gemm2 %s %s %s" % (sa, sb, attrs), "_linalg_gemm2", [r(sa, 1040 + i), r(sb, 1050 + i)], attrs,
                       grad=[0, 1], seed=1040 + i))
    cs.append(case("gemm2 float64", "_linalg_gemm2", [r((3, 2), 1060, "float64"), r((2, 3), 1061, "float64")], {},
                   grad=[0, 1], seed=1060))
    # potrf / potri
    cs.append(case("potrf", "_linalg_potrf", [spd((3, 3), 1100)], {}, grad=[0], seed=1100))
    cs.append(case("potrf batch", "_linalg_potrf", [spd((2, 4, 4), 1101)], {}, grad=[0], seed=1101))
    cs.append(case("potrf float64", "_linalg_potrf", [spd((3, 3), 1102, "float64")], {}, grad=[0], seed=1102))
    a = spd((3, 3), 1103).asnumpy()
    a[0, 2] = 50.0  # the upper triangle is not read
    cs.append(case("potrf reads the lower triangle", "_linalg_potrf", [make(a)]))
    cs.append(case("potri", "_linalg_potri", [nd.linalg.potrf(spd((3, 3), 1110))], {}, grad=[0], seed=1110))
    cs.append(case("potri batch upper ignored", "_linalg_potri", [shifted((2, 3, 3), 2.5, 1111)], {}, grad=[0],
                   seed=1111))
    cs.append(case("potri float64", "_linalg_potri", [shifted((3, 3), 2.5, 1112, "float64")], {}, grad=[0],
                   seed=1112))
    # trmm / trsm: every flag combination (the other triangle of A holds values that must be ignored)
    k = 0
    for op in ["_linalg_trmm", "_linalg_trsm"]:
        for t in (False, True):
            for rs in (False, True):
                for lo in (False, True):
                    attrs = {"transpose": t, "rightside": rs, "lower": lo}
                    if t == rs:
                        attrs["alpha"] = 1.5
                    sb = (2, 3) if rs else (3, 2)
                    cs.append(case("%s %s" % (op[8:], attrs), op, [shifted((3, 3), 2.5, 1200 + k), r(sb, 1300 + k)],
                                   attrs, grad=[0, 1], seed=1200 + k))
                    k += 1
        cs.append(case("%s batch" % op[8:], op, [shifted((2, 3, 3), 2.5, 1200 + k), r((2, 3, 4), 1300 + k)],
                       {"alpha": -0.5}, grad=[0, 1], seed=1200 + k))
        k += 1
        cs.append(case("%s float64" % op[8:], op, [shifted((3, 3), 2.5, 1200 + k, "float64"),
                                                   r((3, 2), 1300 + k, "float64")], {"lower": False}, grad=[0, 1],
                       seed=1200 + k))
        k += 1
    # syrk
    cs.append(case("syrk", "_linalg_syrk", [r((3, 4), 1400)], {}, grad=[0], seed=1400))
    cs.append(case("syrk transpose alpha batch", "_linalg_syrk", [r((2, 3, 4), 1401)],
                   {"transpose": True, "alpha": 0.75}, grad=[0], seed=1401))
    cs.append(case("syrk float64", "_linalg_syrk", [r((2, 3), 1402, "float64")], {"alpha": 2.0}, grad=[0], seed=1402))
    # sumlogdiag, diagonals, triangles
    cs.append(case("sumlogdiag", "_linalg_sumlogdiag", [rand((3, 3), 0.5, 1.5, 1500)], {}, grad=[0], seed=1500))
    cs.append(case("sumlogdiag batch", "_linalg_sumlogdiag", [rand((2, 2, 3, 3), 0.5, 1.5, 1501)], {}, grad=[0],
                   seed=1501))
    cs.append(case("sumlogdiag float64", "_linalg_sumlogdiag", [rand((2, 2), 0.5, 1.5, 1502, "float64")], {},
                   grad=[0], seed=1502))
    for i, (shape, off) in enumerate([((3, 3), 0), ((2, 4, 4), 1), ((4, 4), -2), ((2, 2, 3, 3), -1)]):
        cs.append(case("extractdiag %s offset %d" % (shape, off), "_linalg_extractdiag", [r(shape, 1510 + i)],
                       {"offset": off}, grad=[0], seed=1510 + i))
    for i, (shape, off) in enumerate([((3,), 0), ((2, 3), 2), ((2, 2, 2), -1)]):
        cs.append(case("makediag %s offset %d" % (shape, off), "_linalg_makediag", [r(shape, 1520 + i)],
                       {"offset": off}, grad=[0], seed=1520 + i))
    for i, (shape, attrs) in enumerate([((3, 3), {}), ((2, 3, 3), {"lower": False}), ((4, 4), {"offset": 1}),
                                        ((4, 4), {"offset": -2, "lower": False}), ((4, 4), {"offset": 2,
                                                                                           "lower": True})]):
        cs.append(case("extracttrian %s %s" % (shape, attrs), "_linalg_extracttrian", [r(shape, 1530 + i)], attrs,
                       grad=[0], seed=1530 + i))
    for i, (shape, attrs) in enumerate([((6,), {}), ((2, 3), {"lower": False}), ((2, 6), {"offset": 2}),
                                        ((3,), {"offset": -1}), ((2, 1, 3), {"offset": -1, "lower": False})]):
        cs.append(case("maketrian %s %s" % (shape, attrs), "_linalg_maketrian", [r(shape, 1540 + i)], attrs,
                       grad=[0], seed=1540 + i))
    cs.append(case("extracttrian float64", "_linalg_extracttrian", [r((3, 3), 1550, "float64")], {"lower": False},
                   grad=[0], seed=1550))
    # inverse, det, slogdet
    cs.append(case("inverse", "_linalg_inverse", [shifted((3, 3), 3, 1600)], {}, grad=[0], seed=1600))
    cs.append(case("inverse batch", "_linalg_inverse", [shifted((2, 4, 4), -3, 1601)], {}, grad=[0], seed=1601))
    cs.append(case("inverse float64", "_linalg_inverse", [shifted((3, 3), 2, 1602, "float64")], {}, grad=[0],
                   seed=1602))
    cs.append(case("inverse needs pivoting", "_linalg_inverse", [make([[0, 1, 2], [1, 0, 3], [4, -3, 8]])], {},
                   grad=[0], seed=1603))
    cs.append(case("det", "_linalg_det", [shifted((3, 3), 1.5, 1610)], {}, grad=[0], seed=1610))
    cs.append(case("det batch negative", "_linalg_det", [shifted((2, 3, 3), -2.5, 1611)], {}, grad=[0], seed=1611))
    cs.append(case("det float64", "_linalg_det", [shifted((4, 4), 2, 1612, "float64")], {}, grad=[0], seed=1612))
    cs.append(case("det singular", "_linalg_det", [make([[[1, 2], [2, 4]], [[2, 1], [1, 3]]])], {}, grad=[0],
                   seed=1613))
    cs.append(case("det pivoting", "_linalg_det", [make([[0, 1, 2], [1, 0, 3], [4, -3, 8]])], {}, grad=[0],
                   seed=1614))
    cs.append(case("slogdet", "_linalg_slogdet", [shifted((3, 3), 1.5, 1620)], {}, grad=[0], seed=1620))
    cs.append(case("slogdet batch signs", "_linalg_slogdet", [shifted((3, 3, 3), -2.5, 1621)], {}, grad=[0],
                   seed=1621))
    cs.append(case("slogdet float64", "_linalg_slogdet", [shifted((2, 2), 2, 1622, "float64")], {}, grad=[0],
                   seed=1622))
    cs.append(case("slogdet singular", "_linalg_slogdet",
                   [make([[[2, 3], [1, 4]], [[1, 2], [2, 4]], [[1, 2], [4, 3]]])], {}, grad=[0], seed=1623))
    # gelqf (head gradients on both Q and L)
    cs.append(case("gelqf", "_linalg_gelqf", [r((2, 3), 1700)], {}, grad=[0], seed=1700))
    cs.append(case("gelqf square", "_linalg_gelqf", [shifted((3, 3), 2, 1701)], {}, grad=[0], seed=1701))
    cs.append(case("gelqf batch", "_linalg_gelqf", [r((2, 2, 4), 1702)], {}, grad=[0], seed=1702))
    cs.append(case("gelqf float64", "_linalg_gelqf", [r((3, 5), 1703, "float64")], {}, grad=[0], seed=1703))
    cs.append(case("gelqf doc example", "_linalg_gelqf", [make([[1, 2, 3], [4, 5, 6]])]))
    # syevd (distinct, well separated eigenvalues for stable eigenvectors and gradients)
    cs.append(case("syevd", "_linalg_syevd", [sym_separated((3, 3), 1800)], {}, grad=[0], seed=1800))
    cs.append(case("syevd batch", "_linalg_syevd", [sym_separated((2, 4, 4), 1801)], {}, grad=[0], seed=1801))
    cs.append(case("syevd float64", "_linalg_syevd", [sym_separated((3, 3), 1802, "float64")], {}, grad=[0],
                   seed=1802))
    cs.append(case("syevd doc example", "_linalg_syevd", [make([[1, 2], [2, 4]])]))
    a = sym_separated((3, 3), 1803).asnumpy()
    a[0, 2] = 40.0  # the upper triangle is not read
    cs.append(case("syevd reads the lower triangle", "_linalg_syevd", [make(a)]))
    cs.append(case("syevd negative definite", "_linalg_syevd", [make(-sym_separated((3, 3), 1804).asnumpy())]))
    return cs


# ---------------------------------------------------------------- contrib (box ops and helpers)
# _contrib_* ops registered in the reduce family (ndarray/ops/reduce_contrib*.cc); read by
# ndarray/ops/contrib/contrib_test.cc. MXNet's box ops define zero gradients (not the derivative).
CONTRIB_PUBLIC = ["_contrib_box_iou", "_contrib_box_nms", "_contrib_box_encode", "_contrib_box_decode",
                  "_contrib_bipartite_matching", "_contrib_arange_like", "_contrib_index_copy",
                  "_contrib_index_array", "_contrib_div_sqrt_dim", "_contrib_gradientmultiplier",
                  "_contrib_round_ste", "_contrib_sign_ste", "_contrib_quadratic", "_contrib_allclose",
                  "_contrib_MultiBoxPrior", "_contrib_MultiBoxDetection", "_contrib_MultiBoxTarget"]


def contrib_boxes(n, seed, lo=0.0, hi=1.0, dtype="float32"):
    """n random corner boxes [xmin, ymin, xmax, ymax] (positive size) as an (n, 4) array."""
    rng = np.random.RandomState(seed)
    xy = rng.uniform(lo, hi * 0.7, size=(n, 2))
    wh = rng.uniform(0.05, hi * 0.4, size=(n, 2))
    return np.round(np.concatenate([xy, xy + wh], axis=1), 4).astype(dtype)


def contrib_dets(b, n, seed, ids=3):
    """(b, n, 6) detections [class id, score, xmin, ymin, xmax, ymax] with clustered boxes."""
    rng = np.random.RandomState(seed)
    cls = rng.randint(0, ids, size=(b, n, 1)).astype(np.float64)
    score = np.round(rng.uniform(-0.2, 1, size=(b, n, 1)), 4)
    centers = rng.uniform(0.2, 0.8, size=(b, 2, 2))
    pick = rng.randint(0, 2, size=(b, n))
    c = np.stack([centers[i][pick[i]] for i in range(b)]) + rng.uniform(-0.05, 0.05, size=(b, n, 2))
    wh = rng.uniform(0.1, 0.3, size=(b, n, 2))
    box = np.concatenate([c - wh / 2, c + wh / 2], axis=2)
    return np.round(np.concatenate([cls, score, box], axis=2), 4)


def contrib_expose():
    """Makes mx.nd.contrib.X callable as _contrib_X for case() (which looks in nd and nd._internal)."""
    for op in CONTRIB_PUBLIC + ["_contrib_box_non_maximum_suppression"]:
        if not hasattr(nd._internal, op):
            setattr(nd._internal, op, getattr(nd.contrib, op[len("_contrib_"):]))


def alias(c, name):
    """The case `c` recorded under the alias `name` (MXNet's legacy nd API exposes only the canonical name)."""
    c["op"] = name
    return c


def contrib_cases():
    contrib_expose()
    cs = []
    # box_iou
    a, b = contrib_boxes(4, 1000), contrib_boxes(3, 1001)
    cs.append(case("box_iou corner", "_contrib_box_iou", [make(a), make(b)], {}, grad=[0, 1], seed=1000))
    cs.append(case("box_iou center", "_contrib_box_iou", [make(a), make(b)], {"format": "center"}))
    cs.append(case("box_iou batched", "_contrib_box_iou", [make(contrib_boxes(6, 1002), shape=(2, 3, 4)),
                                                           make(contrib_boxes(2, 1003), shape=(1, 2, 4))], {}))
    cs.append(case("box_iou disjoint and degenerate", "_contrib_box_iou",
                   [make([[0, 0, 1, 1], [0, 0, 0, 0], [2, 2, 1, 1]]), make([[1, 1, 2, 2], [0, 0, 1, 1]])], {}))
    cs.append(case("box_iou float64", "_contrib_box_iou", [make(a, "float64"), make(b, "float64")], {}))
    # box_nms
    d1 = contrib_dets(1, 8, 1010)[0]
    d3 = contrib_dets(2, 7, 1011)
    for j, attrs in enumerate([{}, {"overlap_thresh": 0.1}, {"id_index": 0}, {"id_index": 0, "force_suppress": True},
                               {"id_index": 0, "background_id": 1}, {"topk": 3}, {"topk": 0},
                               {"valid_thresh": 0.5, "id_index": 0}, {"out_format": "center"},
                               {"in_format": "center", "out_format": "center"},
                               {"in_format": "center", "id_index": 0, "overlap_thresh": 0.3},
                               {"valid_thresh": 2.0}]):
        cs.append(case("box_nms %s" % attrs, "_contrib_box_nms", [make(d1)], attrs, grad=[0], seed=1010 + j))
    cs.append(case("box_nms batched", "_contrib_box_nms", [make(d3)], {"id_index": 0, "topk": 5}, grad=[0],
                   seed=1030))
    cs.append(case("box_nms 4-D", "_contrib_box_nms", [make(d3, shape=(2, 1, 7, 6))], {"overlap_thresh": 0.3}))
    # score last, coordinates first, class id in the middle
    d_alt = d1[:, [2, 3, 4, 5, 0, 1]]
    cs.append(case("box_nms custom layout", "_contrib_box_nms", [make(d_alt)],
                   {"coord_start": 0, "score_index": 5, "id_index": 4}, grad=[0], seed=1031))
    cs.append(case("box_nms alias", "_contrib_box_non_maximum_suppression", [make(d1)], {"overlap_thresh": 0.2}))
    cs.append(case("box_nms float64", "_contrib_box_nms", [make(d1, "float64")], {"id_index": 0}))
    # box_encode
    rng = np.random.RandomState(1040)
    anchors = contrib_boxes(10, 1041).reshape(2, 5, 4)
    refs = contrib_boxes(6, 1042).reshape(2, 3, 4)
    samples = rng.choice([-1.0, 0.0, 1.0], size=(2, 5))
    matches = rng.randint(0, 3, size=(2, 5)).astype(np.float64)
    means, stds = make([0.0, 0.1, -0.1, 0.2]), make([0.1, 0.1, 0.2, 0.2])
    cs.append(case("box_encode", "_contrib_box_encode",
                   [make(samples), make(matches), make(anchors), make(refs), means, stds], {},
                   grad=[2, 3], seed=1040))
    samples2 = samples.copy()
    matches2 = matches.copy()
    matches2[samples2 <= 0.5] = -1
    cs.append(case("box_encode unmatched -1", "_contrib_box_encode",
                   [make(samples2), make(matches2), make(anchors), make(refs), make([0, 0, 0, 0]),
                    make([1, 1, 1, 1])], {}))
    # box_decode
    deltas = rand((2, 4, 4), -1, 1, 1050)
    anc_corner = make(contrib_boxes(4, 1051), shape=(1, 4, 4))
    anc_center = make(np.abs(rand((1, 4, 4), 0.1, 1, 1052).asnumpy()))
    cs.append(case("box_decode center", "_contrib_box_decode", [deltas, anc_center], {}, grad=[0, 1], seed=1050))
    cs.append(case("box_decode corner stds", "_contrib_box_decode", [deltas, anc_corner],
                   {"format": "corner", "std0": 0.1, "std1": 0.1, "std2": 0.2, "std3": 0.2}))
    cs.append(case("box_decode clip", "_contrib_box_decode", [rand((1, 4, 4), -3, 3, 1053), anc_corner],
                   {"format": "corner", "clip": 0.5}))
    cs.append(case("box_decode float64", "_contrib_box_decode",
                   [rand((2, 4, 4), -1, 1, 1054, "float64"), make(anc_center.asnumpy(), "float64")], {}))
    # bipartite_matching
    sm = rand((4, 3), 0, 1, 1060)
    for j, attrs in enumerate([{"threshold": 1e-12}, {"threshold": 0.5}, {"threshold": 0.3, "is_ascend": True},
                               {"threshold": 1e-12, "topk": 1}, {"threshold": 1e-12, "topk": 2}]):
        cs.append(case("bipartite_matching %s" % attrs, "_contrib_bipartite_matching", [sm], attrs,
                       grad=[0] if j == 0 else (), seed=1060 + j))
    cs.append(case("bipartite_matching batched", "_contrib_bipartite_matching", [rand((2, 3, 5), 0, 1, 1066)],
                   {"threshold": 0.1}))
    cs.append(case("bipartite_matching ties", "_contrib_bipartite_matching",
                   [make([[0.5, 0.5, 0.2], [0.5, 0.9, 0.5]])], {"threshold": 0.0}))
    # MultiBoxPrior
    fm = rand((1, 2, 3, 4), -1, 1, 1070)
    for j, attrs in enumerate([{}, {"sizes": (0.5, 0.25), "ratios": (1, 2, 0.5)}, {"sizes": (0.9,), "clip": True},
                               {"steps": (0.3, 0.2), "offsets": (0.2, 0.7)},
                               {"sizes": (0.3, 0.6), "ratios": (1.5,), "clip": True}]):
        cs.append(case("MultiBoxPrior %s" % attrs, "_contrib_MultiBoxPrior", [fm], attrs,
                       grad=[0] if j == 0 else (), seed=1070 + j))
    cs.append(alias(case("MultiBoxPrior alias", "_contrib_MultiBoxPrior",
                         [rand((2, 1, 2, 2), -1, 1, 1076)], {"sizes": (0.4,)}), "_npx_multibox_prior"))
    # MultiBoxDetection: 6 anchors, 3 classes (class 0 = background)
    anc = nd.contrib.MultiBoxPrior(nd.zeros((1, 1, 2, 3)), sizes=(0.9,), ratios=(1,))
    rng = np.random.RandomState(1077)
    logits = rng.uniform(-2, 2, size=(2, 3, 6))
    prob = make(np.round(np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True), 4))
    locp = rand((2, 24), -0.5, 0.5, 1078)
    for j, attrs in enumerate([{}, {"threshold": 0.3}, {"force_suppress": True, "nms_threshold": 0.2},
                               {"nms_topk": 2, "nms_threshold": 0.1}, {"nms_threshold": 0}, {"clip": False},
                               {"variances": (0.2, 0.2, 0.1, 0.1), "threshold": 0.2}]):
        cs.append(case("MultiBoxDetection %s" % attrs, "_contrib_MultiBoxDetection", [prob, locp, anc], attrs,
                       grad=[0, 1, 2] if j == 0 else (), seed=1077 + j))
    # MultiBoxTarget: label rows [class, xmin, ymin, xmax, ymax], -1 padding
    labels = make([[[0, 0.05, 0.1, 0.4, 0.6], [1, 0.5, 0.4, 0.95, 0.9], [-1, -1, -1, -1, -1]],
                   [[2, 0.3, 0.2, 0.7, 0.7], [-1, -1, -1, -1, -1], [-1, -1, -1, -1, -1]]])
    cpred = rand((2, 3, 6), -2, 2, 1085)
    for j, attrs in enumerate([{}, {"overlap_threshold": 0.2}, {"negative_mining_ratio": 1.0},
                               {"negative_mining_ratio": 2.0, "negative_mining_thresh": 0.3, "ignore_label": -2},
                               {"overlap_threshold": 0.0}, {"variances": (0.2, 0.2, 0.5, 0.5)}]):
        cs.append(case("MultiBoxTarget %s" % attrs, "_contrib_MultiBoxTarget", [anc, labels, cpred], attrs,
                       grad=[0, 2] if j == 0 else (), seed=1085 + j))
    cs.append(case("MultiBoxTarget all padding", "_contrib_MultiBoxTarget",
                   [anc, make(-np.ones((1, 2, 5))), rand((1, 3, 6), -1, 1, 1095)], {}))
    # arange_like
    x = rand((2, 3, 4), -1, 1, 1080)
    for j, attrs in enumerate([{}, {"start": 1.5, "step": -0.5}, {"repeat": 3}, {"axis": 1}, {"axis": -1, "start": 2},
                               {"axis": 0, "repeat": 2, "step": 3}]):
        cs.append(case("arange_like %s" % attrs, "_contrib_arange_like", [x], attrs, grad=[0] if j == 0 else (),
                       seed=1080 + j))
    cs.append(case("arange_like int32", "_contrib_arange_like", [make([[1, 2, 3]], "int32")],
                   {"start": 0.7, "step": 2}))
    cs.append(alias(case("arange_like float64 alias", "_contrib_arange_like", [rand((5,), -1, 1, 1087, "float64")],
                         {"start": 0.1, "step": 0.1}), "_npx_arange_like"))
    # index_copy
    old = rand((5, 3), -1, 1, 1090)
    new = rand((2, 3), -1, 1, 1091)
    cs.append(case("index_copy", "_contrib_index_copy", [old, make([3, 0], "int64"), new], {}, grad=[0, 2], seed=1090))
    cs.append(case("index_copy float index", "_contrib_index_copy", [old, make([1.7, 4.2]), new], {}, grad=[0, 2],
                   seed=1091))
    cs.append(case("index_copy 3-D", "_contrib_index_copy",
                   [rand((4, 2, 2), -1, 1, 1092), make([2], "int32"), rand((1, 2, 2), -1, 1, 1093)], {}, grad=[0, 2],
                   seed=1092))
    # index_array
    for j, attrs in enumerate([{}, {"axes": (1,)}, {"axes": (-1, 0)}, {"axes": (2, 2)}]):
        cs.append(case("index_array %s" % attrs, "_contrib_index_array", [rand((2, 3, 2), -1, 1, 1100)], attrs))
    cs.append(case("index_array 1-D", "_contrib_index_array", [rand((4,), -1, 1, 1101)], {}))
    # elementwise helpers
    cs.append(case("div_sqrt_dim", "_contrib_div_sqrt_dim", [rand((2, 3, 5), -1, 1, 1110)], {}, grad=[0], seed=1110))
    cs.append(case("div_sqrt_dim float64", "_contrib_div_sqrt_dim", [rand((3, 4), -1, 1, 1111, "float64")], {},
                   grad=[0], seed=1111))
    for j, s in enumerate([1.0, -2.5, 0.0]):
        cs.append(case("gradientmultiplier %s" % s, "_contrib_gradientmultiplier", [rand((3, 4), -1, 1, 1120 + j)],
                       {"scalar": s}, grad=[0], seed=1120 + j))
    xr = make([-2.5, -1.5, -0.5, -0.2, 0.0, 0.4999, 0.5, 1.5, 2.5, 3.7, NAN])
    for op in ["round_ste", "sign_ste"]:
        cs.append(case(op, "_contrib_" + op, [xr], {}, grad=[0], seed=1130))
        cs.append(case(op + " random", "_contrib_" + op, [rand((3, 4), -3, 3, 1131)], {}, grad=[0], seed=1131))
        cs.append(case(op + " int32", "_contrib_" + op, [make([-3, 0, 2], "int32")], {}))
    for j, attrs in enumerate([{"a": 1, "b": 2, "c": 3}, {"a": -0.5, "c": 0.25}, {}, {"b": 1.5}]):
        cs.append(case("quadratic %s" % attrs, "_contrib_quadratic", [rand((3, 4), -2, 2, 1140 + j)], attrs,
                       grad=[0], seed=1140 + j))
    cs.append(case("quadratic int32", "_contrib_quadratic", [make([-3, 0, 2, 5], "int32")],
                   {"a": 0.5, "b": 1, "c": 0.3}))
    cs.append(case("quadratic float64", "_contrib_quadratic", [rand((2, 3), -2, 2, 1145, "float64")],
                   {"a": 0.3, "b": -1.1, "c": 2}, grad=[0], seed=1145))
    # allclose
    p = rand((3, 4), -1, 1, 1150)
    q = make(p.asnumpy() + 5e-6)
    cs.append(case("allclose equal", "_contrib_allclose", [p, p], {}))
    cs.append(case("allclose within rtol", "_contrib_allclose", [q, p], {"rtol": 1e-4}))
    cs.append(case("allclose outside", "_contrib_allclose", [q, p], {"rtol": 1e-7, "atol": 1e-7}))
    cs.append(case("allclose atol", "_contrib_allclose", [make([0.0, 1.0]), make([1e-3, 1.0])], {"atol": 1e-2}))
    cs.append(case("allclose nan equal", "_contrib_allclose", [make([1.0, NAN]), make([1.0, NAN])], {}))
    cs.append(case("allclose nan not equal", "_contrib_allclose", [make([1.0, NAN]), make([1.0, NAN])],
                   {"equal_nan": False}))
    cs.append(case("allclose nan one side", "_contrib_allclose", [make([1.0, NAN]), make([1.0, 2.0])], {}))
    cs.append(case("allclose int32", "_contrib_allclose", [make([1, 2, 3], "int32"), make([1, 2, 4], "int32")],
                   {"atol": 0.5}))
    cs.append(case("allclose negative b", "_contrib_allclose", [make([-1.00001]), make([-1.0])], {"rtol": 2e-5}))
    return cs


def linalg_errors():
    """Calls MXNet rejects (non-square, batch mismatch, not positive definite, singular, ...)."""
    r = lambda shape, seed, dtype="float32": rand(shape, -1, 1, seed, dtype)
    specs = [
        ("potrf non-square", "_linalg_potrf", [r((2, 3), 1)], {}),
        ("potrf not positive definite", "_linalg_potrf", [make([[1, 2], [2, 1]])], {}),
        ("potrf batch item not positive definite", "_linalg_potrf", [make([[[4, 0], [0, 4]], [[1, 0], [0, -1]]])],
         {}),
        ("inverse singular", "_linalg_inverse", [make([[1, 2], [2, 4]])], {}),
        ("inverse non-square", "_linalg_inverse", [r((3, 2), 2)], {}),
        ("det 1-D", "_linalg_det", [r((3,), 3)], {}),
        ("det non-square", "_linalg_det", [r((2, 3), 4)], {}),
        ("slogdet non-square", "_linalg_slogdet", [r((2, 2, 3), 5)], {}),
        ("gemm2 contracted sizes differ", "_linalg_gemm2", [r((2, 3), 6), r((4, 2), 7)], {}),
        ("gemm2 batch dims differ", "_linalg_gemm2", [r((2, 2, 3), 8), r((3, 3, 2), 9)], {}),
        ("gemm2 axis is the last axis", "_linalg_gemm2", [r((2, 2, 3), 10), r((2, 3, 2), 11)], {"axis": -1}),
        ("gemm C shape wrong", "_linalg_gemm", [r((2, 3), 12), r((3, 2), 13), r((3, 3), 14)], {}),
        ("trsm batch dims differ", "_linalg_trsm", [r((2, 2, 2), 15), r((3, 2, 4), 16)], {}),
        ("trmm sizes differ", "_linalg_trmm", [r((2, 2), 17), r((3, 3), 18)], {}),
        ("trsm rightside sizes differ", "_linalg_trsm", [r((2, 2), 19), r((2, 3), 20)], {"rightside": True}),
        ("trmm A non-square", "_linalg_trmm", [r((2, 3), 21), r((2, 3), 22)], {}),
        ("gelqf more rows than columns", "_linalg_gelqf", [r((3, 2), 23)], {}),
        ("syevd non-square", "_linalg_syevd", [r((3, 2), 24)], {}),
        ("extractdiag offset out of range", "_linalg_extractdiag", [r((3, 3), 25)], {"offset": 3}),
        ("extractdiag non-square", "_linalg_extractdiag", [r((3, 4), 26)], {}),
        ("extracttrian offset out of range", "_linalg_extracttrian", [r((3, 3), 27)], {"offset": -3}),
        ("maketrian not a triangular number", "_linalg_maketrian", [r((4,), 28)], {}),
        ("sumlogdiag non-square", "_linalg_sumlogdiag", [r((2, 3), 29)], {}),
        ("syrk 1-D", "_linalg_syrk", [r((3,), 30)], {}),
        ("inverse int32", "_linalg_inverse", [make([[1, 0], [0, 1]], "int32")], {}),
        ("gemm2 float16", "_linalg_gemm2", [r((2, 2), 31, "float16"), r((2, 2), 32, "float16")], {}),
    ]
    return collect_errors(specs, call, arr, markers=("Check failed", "MXNetError", "only supports"))


def main():
    write("registry.json", [], {"ops": registry()})
    write("reduce.json", reduce_cases())
    write("dot.json", dot_cases())
    write("ordering.json", ordering_cases())
    write("indexing.json", indexing_cases())
    write("linalg.json", linalg_cases(), {"ops": registry(LINALG), "errors": linalg_errors()})
    write("contrib.json", contrib_cases(), {"ops": registry(CONTRIB_PUBLIC)})
    import refs_reduce_mask  # data-dependent-shape ops (boolean_mask, nonzero)
    helpers = {"case": case, "arr": arr, "make": make, "rand": rand, "registry": registry}
    mask, extra = refs_reduce_mask.cases(helpers)
    write("mask.json", mask, extra)
    import refs_reduce_index  # internal index/count ops (_ravel_multi_index, _histogram, ...)
    index, extra = refs_reduce_index.cases(helpers)
    write("index.json", index, extra)
    import refs_np_reduce  # NumPy-interface reductions (_np_sum, _npi_mean, _npi_argmax, ...)
    npc, extra = refs_np_reduce.cases(helpers)
    write("np.json", npc, extra)
    import refs_np_linalg  # NumPy-interface matrix products (_np_dot, _npi_matmul, _npi_einsum, ...)
    refs_np_linalg.write_np_linalg(OUT, registry)
    import refs_np_percentile  # mx.np.percentile / unique (_npi_percentile, _npi_unique)
    refs_np_percentile.write_np_percentile(OUT, registry)
    import refs_np_svd  # mx.np.linalg.svd / pinv (_npi_svd, _npi_pinv, _npi_pinv_scalar_rcond)
    refs_np_svd.write_np_svd(OUT, registry)
    import refs_np_eig  # mx.np.linalg.eig / eigvals (_npi_eig, _npi_eigvals)
    refs_np_eig.write_np_eig(OUT, registry)
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print("wrote %s (%d bytes)" % (OUT, total))


if __name__ == "__main__":
    main()
