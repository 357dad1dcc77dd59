"""Reference cases of MXNet 1.9.1's NumPy-interface reductions (ndarray/ops/numpy/reduce_np.cc):
_np_sum, _np_prod, _npi_mean, _np_max, _np_min, _npi_std, _npi_var, _np_all, _np_any,
_npi_argmax, _npi_argmin. Written by gen_reduce_refs.py as ndarray/ops/testdata/reduce/np.json
(read by ndarray/ops/numpy/reduce_np_test.cc, compared by tools/conformance/report.py).

cases(h) takes the generator's helpers h = {"arr", "make", "rand", "registry"} and returns
(cases, extra): cases {"name", "op", "attrs", "inputs", "outputs"[, "head_grads", "grads"]};
extra = {"ops": registry entries, "dtypes": [op, attrs, input dtype, output dtype or null],
"errors": [{"name", "op", "attrs", "inputs", "message"}]}. Runs under npx.set_np() (0-dim
results). Deterministic (fixed seeds).
"""
import mxnet as mx
import numpy as onp
from mxnet import np, npx
import mxnet.ndarray.numpy._internal as _npi
from refs_errors import collect_errors

OPS = ["_np_sum", "_np_prod", "_npi_mean", "_np_max", "_np_min", "_npi_std", "_npi_var", "_np_all",
       "_np_any", "_npi_argmax", "_npi_argmin", "_np_cumsum", "_np_trace", "_npi_diff",
       "_npx_constraint_check", "_npi_bincount", "_npi_ediff1d", "_npi_average"]
DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64"]
FN = {"_np_sum": np.sum, "_np_prod": np.prod, "_npi_mean": np.mean, "_np_max": np.max,
      "_np_min": np.min, "_npi_std": np.std, "_npi_var": np.var, "_np_all": np.all, "_np_any": np.any,
      "_npi_argmax": _npi.argmax, "_npi_argmin": _npi.argmin, "_np_cumsum": np.cumsum,
      "_np_trace": np.trace, "_npi_diff": np.diff, "_npx_constraint_check": npx.constraint_check}
NO_GRAD = {"_np_all", "_np_any", "_npi_argmax", "_npi_argmin",
           # MXNet 1.9.1 registers zero gradients for std/var (MakeZeroGradNodes); ours are the
           # true derivatives, checked by finite differences (reduce_np_cases.cc): forward only.
           "_npi_std", "_npi_var"}


def _attr(v):
    return str(v)


def _case(h, name, op, x, attrs=None, grad=False, seed=0):
    attrs = attrs or {}
    c = {"name": name, "op": op, "attrs": {k: _attr(v) for k, v in attrs.items()}, "inputs": [h["arr"](x)]}
    if grad and op not in NO_GRAD:
        xs = x.copy()
        xs.attach_grad()
        with mx.autograd.record():
            y = FN[op](xs, **attrs)
        hg = np.array(onp.round(onp.random.RandomState(seed + 1000).uniform(-1, 1, size=y.shape), 4)
                      .astype(onp.dtype(y.dtype)))
        y.backward(hg)
        c["outputs"] = [h["arr"](y)]
        c["head_grads"] = [h["arr"](hg)]
        c["grads"] = [h["arr"](xs.grad)]
    else:
        c["outputs"] = [h["arr"](FN[op](x, **attrs))]
    return c


def _np(a):
    return a.as_np_ndarray()


def _out_dtype(op, x, attrs):
    try:
        y = FN[op](x, **attrs)
        y.wait_to_read()
        return "bool" if y.dtype == onp.bool_ else onp.dtype(y.dtype).name
    except mx.base.MXNetError:
        return None


def _errors(h, make, rand):
    specs = [
        ("sum axis out of range", "_np_sum", rand((2, 3), 1), {"axis": (2,)}),
        ("sum duplicate axis", "_np_sum", rand((2, 3), 2), {"axis": (0, -2)}),
        ("max of empty", "_np_max", np.zeros((0, 3)), {}),
        ("max over empty axis", "_np_max", np.zeros((0, 3)), {"axis": (0,)}),
        ("argmax of empty", "_npi_argmax", np.zeros((0, 3)), {}),
        ("argmax axis out of range", "_npi_argmax", rand((2, 3), 3), {"axis": 2}),
        ("sum initial", "_np_sum", rand((2, 3), 4), {"initial": 1.0}),
        ("cumsum axis out of range", "_np_cumsum", rand((2, 3), 5), {"axis": 2}),
        ("constraint violated", "_npx_constraint_check", make([1, 0], "bool"), {"msg": "x must be positive"}),
        ("bincount negative", "_npi_bincount", make([0, -1], "int32"), {}),
        ("bincount float data", "_npi_bincount", make([0, 1]), {}),
        ("bincount 2-D", "_npi_bincount", make([[1]], "int32"), {}),
        ("trace same axis", "_np_trace", rand((2, 3), 6), {"axis1": 1, "axis2": -1}),
        ("diff axis out of range", "_npi_diff", rand((2, 3), 7), {"axis": 3}),
    ]
    run = lambda op, inputs, attrs: (_bincount if op == "_npi_bincount" else FN[op])(inputs[0], **attrs)  # noqa: E731
    return collect_errors([(name, op, [x], attrs) for name, op, x, attrs in specs], run, h["arr"],
                          markers=("Check failed", "Error"), catch=(mx.base.MXNetError, ValueError),
                          attr_str=_attr)


def _bincount(x, weights=None, minlength=0):
    return np.bincount(x, weights=weights, minlength=minlength)


def _bincount_case(h, name, inputs, attrs):
    ins = list(inputs)
    y = _bincount(ins[0], weights=ins[1] if len(ins) > 1 else None, minlength=attrs.get("minlength", 0))
    full = dict(attrs, has_weights=len(ins) > 1)
    return {"name": name, "op": "_npi_bincount", "attrs": {k: _attr(v) for k, v in full.items()},
            "inputs": [h["arr"](x) for x in ins], "outputs": [h["arr"](y)]}


def _ediff1d_case(h, name, x, to_begin=None, to_end=None, grad=False, seed=0):
    """The op's attributes as mx.np.ediff1d passes them (arrays become inputs 2 and 3)."""
    arr_b, arr_e = hasattr(to_begin, "shape"), hasattr(to_end, "shape")
    attrs = {"to_begin_arr_given": arr_b, "to_end_arr_given": arr_e,
             "to_begin_scalar": None if arr_b else to_begin, "to_end_scalar": None if arr_e else to_end}
    inputs = [x] + ([to_begin] if arr_b else []) + ([to_end] if arr_e else [])
    c = {"name": name, "op": "_npi_ediff1d", "attrs": {k: _attr(v) for k, v in attrs.items()},
         "inputs": [h["arr"](a) for a in inputs]}
    if grad:
        xs = x.copy()
        xs.attach_grad()
        with mx.autograd.record():
            y = np.ediff1d(xs, to_end=to_end, to_begin=to_begin)
        hg = np.array(onp.round(onp.random.RandomState(seed + 1000).uniform(-1, 1, size=y.shape), 4)
                      .astype(onp.dtype(y.dtype)))
        y.backward(hg)
        c["outputs"], c["head_grads"] = [h["arr"](y)], [h["arr"](hg)]
        c["grads"] = [h["arr"](xs.grad)] + [None] * (len(inputs) - 1)
    else:
        c["outputs"] = [h["arr"](np.ediff1d(x, to_end=to_end, to_begin=to_begin))]
    return c


def _average_case(h, name, inputs, attrs, grad=False, seed=0):
    c = {"name": name, "op": "_npi_average", "attrs": {k: _attr(v) for k, v in attrs.items()},
         "inputs": [h["arr"](x) for x in inputs]}
    if grad:
        xs = [x.copy() for x in inputs]
        for x in xs:
            x.attach_grad()
        with mx.autograd.record():
            ys = _npi.average(*xs, **attrs)
        ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
        hg = np.array(onp.round(onp.random.RandomState(seed + 1000).uniform(-1, 1, size=ys[0].shape), 4)
                      .astype(onp.dtype(ys[0].dtype)))
        mx.autograd.backward([ys[0]], [hg])
        c["outputs"] = [h["arr"](y) for y in ys]
        # only the average's head gradient (MXNet's backward ignores sum_of_weights'); ours
        # takes a zero head gradient for the second output
        c["head_grads"] = [h["arr"](hg)] + [h["arr"](np.zeros(y.shape, dtype=y.dtype)) for y in ys[1:]]
        c["grads"] = [h["arr"](x.grad) for x in xs]
    else:
        ys = _npi.average(*inputs, **attrs)
        ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
        c["outputs"] = [h["arr"](y) for y in ys]
    return c


def _average_cases(h, make, rand):
    x, w = rand((2, 3), 70), rand((2, 3), 71, lo=0.5, hi=1.5)
    return [
        _average_case(h, "average axis 1", [x, w], {"axis": (1,), "returned": False, "weighted": True}, True, 70),
        _average_case(h, "average all returned", [x, w], {"axis": None, "returned": True, "weighted": True}, True, 71),
        _average_case(h, "average 1-D weights", [rand((3, 2), 72), rand((3,), 73, lo=0.5, hi=1.5)],
                      {"axis": (0,), "returned": True, "weighted": True}, True, 72),
        # Unweighted: MXNet 1.9.1's backward does not divide the head gradient by N (the
        # derivative of the mean) except for axis 0: forward only here; ours (og / N) is checked
        # by finite differences (reduce_np_cases.cc).
        _average_case(h, "average unweighted axis 1", [rand((2, 3), 76)],
                      {"axis": (1,), "returned": False, "weighted": False}),
        _average_case(h, "average unweighted axis 0,2", [rand((2, 3, 2), 74)],
                      {"axis": (0, 2), "returned": True, "weighted": False}),
        _average_case(h, "average unweighted float64", [rand((4,), 75, "float64")],
                      {"axis": None, "returned": False, "weighted": False}),
        _average_case(h, "average int32", [make([1, 2, 3], "int32"), make([1, 1, 2], "int32")],
                      {"axis": None, "returned": True, "weighted": True}),
        _average_case(h, "average zero weights", [make([[1, 2, 3], [4, 5, 6]]), make([[1, -1, 0], [0, 0, 0]])],
                      {"axis": (1,), "returned": True, "weighted": True}),
    ]


def cases(h):
    npx.set_np()
    try:
        return _cases(h)
    finally:
        npx.reset_np()


def _cases(h):
    def make(data, dtype="float32"):
        return np.array(onp.array(data, dtype=onp.float64).astype(dtype), dtype=dtype)

    def rand(shape, seed, dtype="float32", lo=-1, hi=1):
        return make(onp.round(onp.random.RandomState(seed).uniform(lo, hi, size=shape), 4), dtype)

    cs = []
    axes = [({}, "all"), ({"axis": (1,)}, "axis 1"), ({"axis": (-1,), "keepdims": True}, "last keepdims"),
            ({"axis": (0, 2)}, "axes 0,2"), ({"axis": ()}, "empty tuple"), ({"keepdims": True}, "all keepdims")]
    for i, op in enumerate(OPS[:9]):
        lo, hi = (0.5, 1.5) if op == "_np_prod" else (-1, 1)
        for j, (attrs, label) in enumerate(axes):
            x = rand((2, 3, 4), 10 * i + j, lo=lo, hi=hi)
            if op in ("_np_all", "_np_any"):
                x = make(onp.round(x.asnumpy()) * (onp.arange(24).reshape(2, 3, 4) % 5 != 0))
            cs.append(_case(h, "%s %s" % (op, label), op, x, attrs, grad=True, seed=10 * i + j))
        cs.append(_case(h, "%s 0-dim" % op, op, make(0.75), {}, grad=op not in ("_npi_std", "_npi_var"), seed=i))
    for op in ["_npi_argmax", "_npi_argmin"]:
        x = make([[1, 5, 5, 2], [7, 0, 7, 0], [3, 3, 3, 3]])  # ties: first index
        cs.append(_case(h, "%s flattened" % op, op, x))
        cs.append(_case(h, "%s axis 1" % op, op, x, {"axis": 1}))
        cs.append(_case(h, "%s axis 0 keepdims" % op, op, x, {"axis": 0, "keepdims": True}))
        cs.append(_case(h, "%s NaN" % op, op, make([1, float("nan"), 3, float("nan")])))
        cs.append(_case(h, "%s int32 3-d" % op, op, make(onp.arange(24) % 7, "int32").reshape(2, 3, 4), {"axis": -2}))
        cs.append(_case(h, "%s 0-dim" % op, op, make(2.5)))
    # dtypes, attributes and edges
    ints = make([[1, 2, 4], [7, -3, 100]], "int32")
    cs += [
        _case(h, "sum int8 wraps", "_np_sum", make([100, 100, 7], "int8")),
        _case(h, "sum bool -> int64", "_np_sum", make([1, 0, 1, 1], "bool")),
        _case(h, "sum int32 dtype float64", "_np_sum", ints, {"axis": (1,), "dtype": "float64"}),
        _case(h, "sum float32 dtype float64 grad", "_np_sum", rand((3, 2), 50), {"axis": (0,), "dtype": "float64"}, grad=True, seed=50),
        _case(h, "prod int32", "_np_prod", ints, {"axis": (0,)}),
        _case(h, "prod bool", "_np_prod", make([1, 0, 1], "bool")),
        _case(h, "mean int32 -> float32", "_npi_mean", ints, {"axis": (1,)}),
        _case(h, "mean int32 dtype int32", "_npi_mean", ints, {"axis": (1,), "dtype": "int32"}),
        _case(h, "mean float16", "_npi_mean", rand((4, 3), 51, "float16"), {"axis": (0,)}),
        _case(h, "mean float64 grad", "_npi_mean", rand((2, 5), 52, "float64"), {"axis": (1,)}, grad=True, seed=52),
        _case(h, "max int32", "_np_max", ints, {"axis": (1,)}),
        _case(h, "max bool", "_np_max", make([0, 1, 0], "bool")),
        _case(h, "max NaN", "_np_max", make([[1, float("nan")], [2, 3]]), {"axis": (1,)}),
        _case(h, "max ties grad", "_np_max", make([[1, 3, 3], [2, 2, 0]]), {"axis": (1,)}, grad=True, seed=53),
        _case(h, "min uint8", "_np_min", make([[9, 3], [4, 200]], "uint8"), {"axis": (0,)}),
        _case(h, "max zero-size empty result", "_np_max", np.zeros((0, 3)), {"axis": (1,)}),
        _case(h, "std int32 truncates", "_npi_std", make([1, 2, 4], "int32")),
        _case(h, "var int32 dtype float64", "_npi_var", make([1, 2, 4], "int32"), {"dtype": "float64"}),
        _case(h, "std ddof 1", "_npi_std", rand((3, 4), 54), {"ddof": 1}, grad=True, seed=54),
        _case(h, "var ddof 1 axis 0", "_npi_var", rand((3, 4), 55), {"axis": (0,), "ddof": 1}, grad=True, seed=55),
        _case(h, "std float64 axis 1 keepdims", "_npi_std", rand((3, 4), 56, "float64"), {"axis": (1,), "keepdims": True}, grad=True, seed=56),
        _case(h, "all int32", "_np_all", make([[1, 0], [2, 3]], "int32"), {"axis": (1,)}),
        _case(h, "any float NaN", "_np_any", make([0, float("nan"), 0])),
        _case(h, "any keepdims", "_np_any", make([[0, 0], [2, 0]]), {"axis": (1,), "keepdims": True}),
        _case(h, "all zero-size", "_np_all", np.zeros((0, 3))),
        _case(h, "any zero-size axis 0", "_np_any", np.zeros((0, 3)), {"axis": (0,)}),
        _case(h, "sum zero-size", "_np_sum", np.zeros((0, 3))),
        _case(h, "sum zero-size axis 0", "_np_sum", np.zeros((0, 3)), {"axis": (0,)}),
        _case(h, "mean zero-size axis 0", "_npi_mean", np.zeros((0, 3)), {"axis": (0,)}),
        _case(h, "std zero-size axis 0", "_npi_std", np.zeros((0, 3)), {"axis": (0,)}),
    ]
    for k, (attrs, x) in enumerate([({}, rand((2, 3), 60)), ({"axis": 1}, rand((2, 3, 4), 61)),
                                    ({"axis": 0}, rand((2, 3, 4), 62, "float64")), ({}, make(1.5)),
                                    ({"axis": 0, "dtype": "float64"}, rand((3, 2), 63))]):
        cs.append(_case(h, "_np_cumsum %s %s" % (attrs, x.shape), "_np_cumsum", x, attrs, grad=True, seed=60 + k))
    cs += [_case(h, "cumsum int8 wraps", "_np_cumsum", make([100, 100, 7], "int8")),
           _case(h, "cumsum bool", "_np_cumsum", make([1, 0, 1], "bool")),
           _case(h, "cumsum float16", "_np_cumsum", rand((7,), 64, "float16")),
           _case(h, "cumsum zero-size", "_np_cumsum", np.zeros((0, 3)), {"axis": 1})]
    cs += _average_cases(h, make, rand)
    cs += [_ediff1d_case(h, "ediff1d 2-d", rand((2, 3), 100), grad=True, seed=100),
           _ediff1d_case(h, "ediff1d begin array end scalar", rand((5,), 101), make([9, 8]), 5.0, True, 101),
           _ediff1d_case(h, "ediff1d begin scalar end array", rand((4,), 102, "float64"), 3.0,
                         rand((2,), 103, "float64"), True, 102),
           _ediff1d_case(h, "ediff1d int32", make([1, 5, 2], "int32"), None, make([1, 2], "int32")),
           _ediff1d_case(h, "ediff1d 0-dim", make(2.0)),
           _ediff1d_case(h, "ediff1d empty begin scalar", make([]), 1.0)]
    cs += [_case(h, "constraint_check true", "_npx_constraint_check", make([[1, 1], [1, 1]], "bool"),
                 {"msg": "unused"}),
           _case(h, "constraint_check 0-dim", "_npx_constraint_check", make(1, "bool")),
           _bincount_case(h, "bincount int32", [make([0, 1, 1, 3, 1], "int32")], {}),
           _bincount_case(h, "bincount int64 minlength", [make([0, 1, 1, 3], "int64")], {"minlength": 6}),
           _bincount_case(h, "bincount uint8", [make([0, 2], "uint8")], {}),
           _bincount_case(h, "bincount weights float32", [make([0, 1, 1, 3], "int32"), make([0.5, 1, 2, 3])], {}),
           _bincount_case(h, "bincount weights float64", [make([2, 2, 0], "int64"), rand((3,), 97, "float64")],
                          {"minlength": 4}),
           _bincount_case(h, "bincount empty minlength", [make([], "int32")], {"minlength": 3})]
    x3 = rand((2, 3, 4), 80)
    for k, attrs in enumerate([{}, {"offset": 1, "axis1": 1, "axis2": 2}, {"offset": -1, "axis1": 2, "axis2": 0},
                               {"offset": 5}]):
        cs.append(_case(h, "_np_trace %s" % attrs, "_np_trace", x3, attrs, grad=True, seed=80 + k))
    cs.append(_case(h, "_np_trace int32", "_np_trace", make([[1, 2], [3, 4]], "int32")))
    cs.append(_case(h, "_np_trace float64 square", "_np_trace", rand((3, 3), 85, "float64"), grad=True, seed=85))
    for k, attrs in enumerate([{}, {"n": 2, "axis": 1}, {"n": 5}, {"n": 0}, {"n": 3, "axis": 0}]):
        cs.append(_case(h, "_npi_diff %s" % attrs, "_npi_diff", rand((4, 3, 5), 90 + k), attrs, grad=True, seed=90 + k))
    cs += [_case(h, "_npi_diff int8 wraps", "_npi_diff", make([-100, 100, -100], "int8")),
           _case(h, "_npi_diff uint8", "_npi_diff", make([5, 3, 9], "uint8")),
           _case(h, "_npi_diff float16", "_npi_diff", rand((6,), 96, "float16"), {"n": 2})]
    dtypes = []
    for op in OPS[:-4]:
        for d in DTYPES:
            dtypes.append([op, {}, [d], _out_dtype(op, make([1, 2, 3], d), {})])
    for op in ["_np_sum", "_np_prod", "_npi_mean", "_npi_std", "_npi_var", "_np_cumsum"]:
        for d in ["int32", "float32", "bool"]:
            for want in ["float16", "float64", "int64"]:
                dtypes.append([op, {"dtype": want}, [d], _out_dtype(op, make([1, 2, 3], d), {"dtype": want})])
    return cs, {"ops": h["registry"](OPS), "dtypes": dtypes, "errors": _errors(h, make, rand)}
