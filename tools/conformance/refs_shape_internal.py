"""Reference cases of MXNet 1.9.1's internal helper ops (ndarray/ops/shape/shape_internal.cc):
_scatter_elemwise_div, _scatter_plus_scalar, _scatter_minus_scalar, _identity_with_attr_like_rhs,
_copyto (through NDArray.copyto, the only way MXNet runs it), _rnn_param_concat (values and
gradients), with MXNet's registry entries and rejected calls. _set_value, _zeros_without_dtype,
_NoGradient and _CrossDeviceCopy do not run imperatively in MXNet (no output / dtype / inputs):
ndarray/ops/shape/shape_internal_test.cc checks them by hand.

Called from gen_shape_refs.py (gen(out_dir)); writes internal.json:
{"mxnet_version", "cases": [{"name", "op", "attrs", "inputs", "outputs", optional "head_grads",
"grads"}], "ops": registry entries, "errors": [{"name", "op", "attrs", "inputs", "message"}]}
(the reduce family's case format). Deterministic (fixed seeds).
"""
import json
import os

import numpy as np
import mxnet as mx
from refs_errors import collect_errors

nd = mx.nd
PUBLIC = ["_scatter_elemwise_div", "_scatter_plus_scalar", "_scatter_minus_scalar",
          "_identity_with_attr_like_rhs", "_copyto", "_rnn_param_concat", "_set_value",
          "_zeros_without_dtype", "_NoGradient", "_CrossDeviceCopy"]


def _num(v, dt):
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == int(v) and abs(v) < 2**53 and not (v == 0 and np.signbit(v)):
        return int(v)
    return float(str(dt(v))) if dt in (np.float32, np.float16) else v


def _arr(a):
    a = a.asnumpy()
    return {"shape": list(a.shape), "dtype": a.dtype.name,
            "data": [_num(v, a.dtype.type) for v in a.reshape(-1).tolist()]}


def _rand(shape, seed, dtype="float32", lo=-1, hi=1):
    rng = np.random.RandomState(seed)
    return nd.array(np.round(rng.uniform(lo, hi, size=shape), 4), dtype=dtype)


def _case(name, op, inputs, attrs=None, grad=(), seed=0, fn=None):
    attrs = attrs or {}
    fn = fn or (lambda *xs: getattr(nd._internal, op)(*xs, **attrs))
    c = {"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
         "inputs": [_arr(x) for x in inputs]}
    xs = [x.copy() for x in inputs]
    if grad:
        for i in grad:
            xs[i].attach_grad()
        with mx.autograd.record():
            y = fn(*xs)
        hg = _rand(y.shape, seed + 1000, np.dtype(y.dtype).name)
        y.backward(hg)
        c["head_grads"] = [_arr(hg)]
        c["grads"] = [_arr(xs[i].grad) if i in grad else None for i in range(len(xs))]
    else:
        y = fn(*xs)
    c["outputs"] = [_arr(y)]
    return c


def _errors():
    specs = [
        ("scatter_elemwise_div shapes differ", "_scatter_elemwise_div", [nd.array([1, 2, 3]), nd.array([2, 4])], {}),
        ("identity_with_attr_like_rhs shapes differ", "_identity_with_attr_like_rhs",
         [nd.array([1, 2]), nd.array([[3, 4, 5]])], {}),
        ("identity_with_attr_like_rhs dtypes differ", "_identity_with_attr_like_rhs",
         [nd.array([1, 2]), nd.array([3, 4], dtype="int32")], {}),
        ("rnn_param_concat dims differ", "_rnn_param_concat", [nd.array([[1, 2]]), nd.array([[3]])],
         {"dim": 0, "num_args": 2}),
    ]
    return collect_errors(specs, lambda op, inputs, attrs: getattr(nd._internal, op)(*inputs, **attrs), _arr)


def gen(out_dir):
    from gen_reduce_refs import registry  # MXNet's registry entries (names, attrs, inputs)
    cs = []
    d = "_scatter_elemwise_div"
    cs.append(_case("scatter_elemwise_div", d, [_rand((2, 3), 1), _rand((2, 3), 2, lo=0.5, hi=2)], grad=[0, 1], seed=1))
    cs.append(_case("scatter_elemwise_div by zero", d, [nd.array([1, -2, 0]), nd.array([0, 0, 0])]))
    cs.append(_case("scatter_elemwise_div int32 truncates", d,
                    [nd.array([7, 2, -7], dtype="int32"), nd.array([2, 3, 2], dtype="int32")]))
    cs.append(_case("scatter_elemwise_div float64", d, [_rand((4,), 3, "float64"), _rand((4,), 4, "float64", 1, 2)],
                    grad=[0, 1], seed=2))
    for op in ["_scatter_plus_scalar", "_scatter_minus_scalar"]:
        cs.append(_case(op + " float", op, [_rand((2, 3), 5)], {"scalar": 1.5}, grad=[0], seed=3))
        cs.append(_case(op + " default scalar", op, [_rand((3,), 6)]))
        cs.append(_case(op + " int32 is_int", op, [nd.array([1, 0, 3], dtype="int32")], {"scalar": 2.7}))
        cs.append(_case(op + " int32 float scalar", op, [nd.array([1, 0, 3], dtype="int32")],
                        {"scalar": 2.7, "is_int": False}))
    i = "_identity_with_attr_like_rhs"
    cs.append(_case("identity_with_attr_like_rhs", i, [_rand((2, 3), 7), _rand((2, 3), 8)], grad=[0, 1], seed=4))
    cs.append(_case("identity_with_attr_like_rhs int64", i,
                    [nd.array([1, 2], dtype="int64"), nd.array([3, 4], dtype="int64")]))
    cp = lambda x: x.copyto(mx.cpu())
    cs.append(_case("copyto", "_copyto", [_rand((2, 2), 9)], grad=[0], seed=5, fn=cp))
    cs.append(_case("copyto int32", "_copyto", [nd.array([1, -2, 3], dtype="int32")], fn=cp))
    r = "_rnn_param_concat"
    cs.append(_case("rnn_param_concat dim 1", r, [_rand((2, 3), 10), _rand((2, 1), 11)], {"num_args": 2},
                    grad=[0, 1], seed=6))
    cs.append(_case("rnn_param_concat dim 0 three", r, [_rand((4,), 12), _rand((2,), 13), _rand((3,), 14)],
                    {"num_args": 3, "dim": 0}, grad=[0, 1, 2], seed=7))
    doc = {"generator": "tools/conformance/refs_shape_internal.py", "mxnet_version": mx.__version__,
           "cases": cs, "ops": registry(PUBLIC), "errors": _errors()}
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "internal.json")
    with open(path, "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    print("wrote %s: %d cases" % (path, len(cs)))
