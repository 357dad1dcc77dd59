"""Reference cases of MXNet 1.9.1's NumPy-interface creation ops (ndarray/ops/numpy/shape_np_create.cc):
_npi_zeros, _npi_ones, _npi_full_like, _npi_identity, _npi_eye, _npi_arange, _npi_indices,
_npi_logspace, _npi_blackman, _npi_hamming, _npi_hanning (values), with MXNet's registry entries
and rejected calls.

Called from gen_shape_refs.py (gen(out_dir)), or standalone (python refs_np_create.py OUT_DIR);
writes np_create.json in the format of internal.json (refs_shape_internal.py):
{"mxnet_version", "cases": [{"name", "op", "attrs", "inputs", "outputs"}], "ops": registry
entries, "errors": [{"name", "op", "attrs", "inputs", "message"}]}. Deterministic.
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import numpy as onp  # noqa: E402
import mxnet as mx  # noqa: E402
from mxnet import np, npx  # noqa: E402
import mxnet.ndarray.numpy._internal as _npi  # noqa: E402
from refs_errors import collect_errors

OPS = ["_npi_zeros", "_npi_ones", "_npi_full_like", "_npi_identity", "_npi_eye", "_npi_arange",
       "_npi_indices", "_npi_logspace", "_npi_blackman", "_npi_hamming", "_npi_hanning"]


def _num(v, dt):
    v = float(v)
    if onp.isnan(v):
        return "nan"
    if onp.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == int(v) and abs(v) < 2**53 and not (v == 0 and onp.signbit(v)):
        return int(v)
    return float(str(dt(v))) if dt in (onp.float32, onp.float16) else v


def _arr(a):
    a = a.asnumpy()
    dt = "bool" if a.dtype == onp.bool_ else a.dtype.name
    return {"shape": list(a.shape), "dtype": dt, "data": [_num(v, a.dtype.type) for v in a.reshape(-1).tolist()]}


def _call(op, inputs, attrs):
    y = getattr(_npi, op[5:])(*inputs, **attrs)
    y.wait_to_read()
    return y


def _case(name, op, attrs, inputs=()):
    return {"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
            "inputs": [_arr(x) for x in inputs], "outputs": [_arr(_call(op, inputs, attrs))]}


def _cases():
    cs = []
    for op in ["_npi_zeros", "_npi_ones"]:
        cs.append(_case(op + " 2x3", op, {"shape": (2, 3)}))
        cs.append(_case(op + " default 0-dim", op, {}))
        for d, s in [("bool", (2,)), ("int64", (0, 3)), ("float64", (3, 1)), ("int8", (2, 2)), ("float16", (3,))]:
            cs.append(_case("%s %s" % (op, d), op, {"shape": s, "dtype": d}))
    fl = "_npi_full_like"
    i32 = np.array([[1, 2], [3, 4]], dtype="int32")
    f32 = np.array([1.5, -2, 3], dtype="float32")
    cs.append(_case("full_like int32 truncates", fl, {"fill_value": 2.7}, [i32]))
    cs.append(_case("full_like dtype float64", fl, {"fill_value": 2.7, "dtype": "float64"}, [i32]))
    cs.append(_case("full_like float32", fl, {"fill_value": -0.25}, [f32]))
    cs.append(_case("full_like bool", fl, {"fill_value": -2.7, "dtype": "bool"}, [f32]))
    cs.append(_case("full_like uint8", fl, {"fill_value": 200, "dtype": "uint8"}, [f32]))
    cs.append(_case("full_like float16 0-dim", fl, {"fill_value": 1.1, "dtype": "float16"}, [np.array(3.0)]))
    cs.append(_case("full_like empty", fl, {"fill_value": 5}, [np.zeros((0, 2))]))
    ident = "_npi_identity"
    cs.append(_case("identity 3x3", ident, {"shape": (3, 3)}))
    cs.append(_case("identity 2x3 int32", ident, {"shape": (2, 3), "dtype": "int32"}))
    cs.append(_case("identity 4x2 float64", ident, {"shape": (4, 2), "dtype": "float64"}))
    cs.append(_case("identity 1-d", ident, {"shape": (3,)}))
    cs.append(_case("identity bool", ident, {"shape": (2, 2), "dtype": "bool"}))
    e = "_npi_eye"
    cs.append(_case("eye 3x4 k1", e, {"N": 3, "M": 4, "k": 1}))
    cs.append(_case("eye 3 k-1 int32", e, {"N": 3, "k": -1, "dtype": "int32"}))
    cs.append(_case("eye k beyond", e, {"N": 3, "k": 5}))
    cs.append(_case("eye M None float64", e, {"N": 2, "M": None, "dtype": "float64"}))
    cs.append(_case("eye 4x2 k-2", e, {"N": 4, "M": 2, "k": -2}))
    cs.append(_case("eye N 0", e, {"N": 0}))
    a = "_npi_arange"
    cs.append(_case("arange 1 5 1.5", a, {"start": 1, "stop": 5, "step": 1.5}))
    cs.append(_case("arange int32", a, {"start": 1, "stop": 5, "step": 1.5, "dtype": "int32"}))
    cs.append(_case("arange no stop", a, {"start": 4}))
    cs.append(_case("arange empty", a, {"start": 4, "stop": 1}))
    cs.append(_case("arange negative step float64", a, {"start": 3, "stop": -1, "step": -0.5, "dtype": "float64"}))
    cs.append(_case("arange int64", a, {"start": 0, "stop": 3, "dtype": "int64"}))
    ind = "_npi_indices"
    cs.append(_case("indices 2x3", ind, {"dimensions": (2, 3)}))
    cs.append(_case("indices 1-d float32", ind, {"dimensions": (2,), "dtype": "float32"}))
    cs.append(_case("indices 0-d", ind, {"dimensions": ()}))
    cs.append(_case("indices 3x1x2 int64", ind, {"dimensions": (3, 1, 2), "dtype": "int64"}))
    cs.append(_case("indices with 0", ind, {"dimensions": (2, 0)}))
    ls = "_npi_logspace"
    cs.append(_case("logspace", ls, {"start": 0, "stop": 2, "num": 5}))
    cs.append(_case("logspace no endpoint base 2", ls, {"start": 0, "stop": 2, "num": 4, "endpoint": False, "base": 2}))
    cs.append(_case("logspace int32", ls, {"start": 0, "stop": 2, "num": 4, "dtype": "int32"}))
    cs.append(_case("logspace num 1", ls, {"start": 1, "stop": 2, "num": 1}))
    cs.append(_case("logspace num 0", ls, {"start": 1, "stop": 2, "num": 0}))
    cs.append(_case("logspace float64 negative", ls, {"start": -1.5, "stop": 0.5, "num": 6, "dtype": "float64"}))
    for w in ["_npi_blackman", "_npi_hamming", "_npi_hanning"]:
        for m, d in [(5, None), (1, None), (0, None), (-2, None), (4, "float64"), (9, "float64"), (6, "int32"),
                     (7, "float16"), (12, None)]:
            attrs = {"M": m}
            if d:
                attrs["dtype"] = d
            cs.append(_case("%s M=%d %s" % (w, m, d or "float32"), w, attrs))
    return cs


RANDOM_OPS = ["_npi_uniform", "_npi_uniform_n", "_npi_normal", "_npi_normal_n", "_npi_gamma", "_npi_gumbel",
              "_npi_logistic", "_npi_exponential", "_npi_rayleigh", "_npi_pareto", "_npi_powerd", "_npi_weibull",
              "_npi_bernoulli", "_npi_multinomial"]
TWO = {"_npi_uniform": ("low", "high", 0, 2), "_npi_uniform_n": ("low", "high", 0, 2),
       "_npi_normal": ("loc", "scale", 1, 2), "_npi_normal_n": ("loc", "scale", 1, 2),
       "_npi_gamma": ("shape", "scale", 2, 0.5), "_npi_gumbel": ("loc", "scale", 1, 2),
       "_npi_logistic": ("loc", "scale", 1, 2)}
ONE = {"_npi_exponential": ("scale", 2), "_npi_rayleigh": ("scale", 2), "_npi_pareto": ("a", 3),
       "_npi_powerd": ("a", 2), "_npi_weibull": ("a", 1.5)}


def _shape_case(name, op, attrs, inputs=()):
    """Random ops: the output's shape and dtype only (values differ by generator)."""
    y = _call(op, inputs, attrs)
    dt = onp.dtype(y.dtype).name
    return {"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
            "inputs": [_arr(x) for x in inputs], "out_shape": list(y.shape), "out_dtype": dt}


def _random():
    cs = []
    pa = np.array([1.0, 2.0, 3.0])
    pb = np.array([[0.5], [1.5]])
    for op, (a, b, va, vb) in sorted(TWO.items()):
        cs.append(_shape_case(op + " attrs", op, {a: va, b: vb, "size": (2, 3)}))
        cs.append(_shape_case(op + " no size", op, {a: va, b: vb}))
        cs.append(_shape_case(op + " first tensor", op, {a: None, b: vb}, [pa]))
        cs.append(_shape_case(op + " second tensor size", op, {a: va, b: None, "size": (4, 2, 1)}, [pb]))
        cs.append(_shape_case(op + " both tensors", op, {a: None, b: None}, [pa, pb]))
        if "dtype" in str(_REG[op]):
            cs.append(_shape_case(op + " float64", op, {a: va, b: vb, "size": (3,), "dtype": "float64"}))
            cs.append(_shape_case(op + " float16", op, {a: va, b: vb, "size": (2,), "dtype": "float16"}))
    for op, (a, va) in sorted(ONE.items()):
        cs.append(_shape_case(op + " attrs", op, {a: va, "size": (2, 3)}))
        cs.append(_shape_case(op + " no size", op, {a: va}))
        cs.append(_shape_case(op + " tensor", op, {a: None}, [pa]))
        cs.append(_shape_case(op + " tensor size", op, {a: None, "size": (2, 3)}, [pa]))
    b = "_npi_bernoulli"
    pr = np.array([0.1, 0.9])
    cs.append(_shape_case("bernoulli prob", b, {"prob": 0.3, "logit": None, "is_logit": False, "size": (2, 3)}))
    cs.append(_shape_case("bernoulli logit", b, {"prob": None, "logit": 0.5, "is_logit": True, "size": (4,)}))
    cs.append(_shape_case("bernoulli no size", b, {"prob": 0.5, "logit": None, "is_logit": False}))
    cs.append(_shape_case("bernoulli prob tensor", b, {"prob": None, "logit": None, "is_logit": False}, [pr]))
    cs.append(_shape_case("bernoulli logit tensor size", b, {"prob": None, "logit": None, "is_logit": True,
                                                              "size": (3, 2)}, [pr]))
    for d in ["bool", "int32", "uint8", "float64", "float16"]:
        cs.append(_shape_case("bernoulli " + d, b, {"prob": 0.5, "logit": None, "is_logit": False, "size": (3,),
                                                     "dtype": d}))
    m = "_npi_multinomial"
    cs.append(_shape_case("multinomial pvals", m, {"n": 10, "pvals": (0.2, 0.3, 0.5)}))
    cs.append(_shape_case("multinomial short pvals", m, {"n": 10, "pvals": (0.2, 0.3)}))
    cs.append(_shape_case("multinomial size", m, {"n": 5, "pvals": (0.2, 0.3, 0.5), "size": (2, 2)}))
    cs.append(_shape_case("multinomial tensor", m, {"n": 10, "size": (3,)}, [np.array([0.2, 0.8])]))
    cs.append(_shape_case("multinomial n 0", m, {"n": 0, "pvals": (0.2, 0.8)}))
    return cs


_REG = {}


def _errors():
    specs = [
        ("eye negative N", "_npi_eye", [], {"N": -1}),
        ("eye negative M", "_npi_eye", [], {"N": 2, "M": -3}),
        ("logspace negative num", "_npi_logspace", [], {"start": 0, "stop": 1, "num": -1}),
        ("blackman no M", "_npi_blackman", [], {}),
        ("hamming no M", "_npi_hamming", [], {}),
        ("hanning no M", "_npi_hanning", [], {}),
        ("arange step 0", "_npi_arange", [], {"start": 0, "stop": 3, "step": 0}),
        ("arange repeat 2", "_npi_arange", [], {"start": 0, "stop": 3, "repeat": 2}),
        ("zeros negative dim", "_npi_zeros", [], {"shape": (2, -3)}),
        ("ones negative dim", "_npi_ones", [], {"shape": (-2,)}),
        ("identity negative dim", "_npi_identity", [], {"shape": (-2, 2)}),
        ("normal negative scale", "_npi_normal", [], {"loc": 0, "scale": -1, "size": (2,)}),
        ("uniform size does not fit", "_npi_uniform", [np.array([0.0, 1.0])], {"low": None, "high": 2, "size": (3, 3)}),
        ("normal_n shapes differ", "_npi_normal_n", [np.array([0.0, 1.0]), np.array([1.0, 2.0, 3.0])],
         {"loc": None, "scale": None, "size": (2,)}),
        ("gamma zero shape", "_npi_gamma", [], {"shape": 0, "scale": 1, "size": (2,)}),
        ("exponential negative scale", "_npi_exponential", [], {"scale": -1, "size": (2,)}),
        ("rayleigh negative scale", "_npi_rayleigh", [], {"scale": -1, "size": (2,)}),
        ("weibull negative a", "_npi_weibull", [], {"a": -1, "size": (2,)}),
        ("pareto negative a", "_npi_pareto", [], {"a": -1, "size": (2,)}),
        ("powerd negative a", "_npi_powerd", [], {"a": -1, "size": (2,)}),
        ("gumbel negative scale", "_npi_gumbel", [], {"loc": 0, "scale": -1, "size": (2,)}),
        ("logistic negative scale", "_npi_logistic", [], {"loc": 0, "scale": -1, "size": (2,)}),
        ("bernoulli prob above 1", "_npi_bernoulli", [], {"prob": 1.5, "logit": None, "is_logit": False,
                                                           "size": (3,)}),
        ("bernoulli prob tensor negative", "_npi_bernoulli", [np.array([0.5, -0.9])],
         {"prob": None, "logit": None, "is_logit": False}),
        ("multinomial 2-d pvals", "_npi_multinomial", [np.array([[0.2, 0.8], [0.5, 0.5]])], {"n": 10}),
        ("indices negative dim", "_npi_indices", [], {"dimensions": (2, -1)}),
    ]
    return collect_errors(specs, _call, _arr, catch=(mx.base.MXNetError, ValueError))


def gen(out_dir):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gen_reduce_refs import registry  # MXNet's registry entries (names, attrs, inputs)
    npx.set_np()
    try:
        _REG.update(registry(RANDOM_OPS))
        doc = {"generator": "tools/conformance/refs_np_create.py", "mxnet_version": mx.__version__,
               "cases": _cases(), "ops": registry(OPS), "errors": _errors(),
               "random": _random(), "random_ops": dict(_REG)}
    finally:
        npx.reset_np()
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "np_create.json")
    with open(path, "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    print("wrote %s: %d cases, %d errors" % (path, len(doc["cases"]), len(doc["errors"])))


if __name__ == "__main__":
    gen(sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "ndarray", "ops", "testdata", "shape"))
