"""Reference cases of MXNet 1.9.1's mx.np.percentile and mx.np.unique ops (ndarray/ops/
reduce_np_percentile.cc): _npi_percentile, _npi_unique (values; MXNet gives zero gradients), their
registry entries and rejected calls. Each MXNet result is also checked against NumPy here (the
generator fails otherwise).

Called by gen_reduce_refs.py (write_np_percentile(OUT, registry)); writes OUT/np_percentile.json in
the format of np_linalg.json, read by ndarray/ops/numpy/reduce_np_percentile_test.cc and compared by
tools/conformance/report.py. Deterministic: fixed seeds, sorted keys.
"""
import ctypes
import json
import os
import warnings

warnings.filterwarnings("ignore")
import numpy as onp
import mxnet as mx

import refs_errors
from mxnet import np, npx
from mxnet.base import _LIB, OpHandle, c_str, check_call
from mxnet._ctypes.ndarray import _imperative_invoke

from refs_np_linalg import arr, rand

OPS = ["_npi_percentile", "_npi_unique"]


def invoke(op, xs, attrs):
    h = OpHandle()
    check_call(_LIB.NNGetOpHandle(c_str(op), ctypes.byref(h)))
    return _imperative_invoke(h.value, list(xs), list(attrs.keys()), [str(v) for v in attrs.values()],
                              None, True, True)


def case(name, op, inputs, attrs, expect):
    ys = invoke(op, inputs, attrs)
    for y, w in zip(ys, expect):
        got = y.asnumpy()
        w = onp.asarray(w)
        if got.shape != w.shape or not onp.allclose(got, w, rtol=1e-5, atol=1e-6):
            raise RuntimeError("MXNet differs from NumPy in %r: %r vs %r" % (name, got, w))
    if len(ys) != len(expect):
        raise RuntimeError("%r: %d outputs, NumPy %d" % (name, len(ys), len(expect)))
    return {"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
            "inputs": [arr(x) for x in inputs], "outputs": [arr(y) for y in ys]}


def cases():
    P, U = OPS
    cs = []
    a = rand((3, 4), 1)
    A = a.asnumpy()
    b = rand((2, 3, 4), 2, "float64")
    B = b.asnumpy()
    for interp in ["linear", "lower", "higher", "midpoint", "nearest"]:
        for q, axis, keep in [(30.0, None, False), (50.0, (1,), False), (87.5, (0,), True), (0.0, (-1,), False),
                              (100.0, None, True)]:
            cs.append(case("percentile %s q %g axis %s keepdims %s" % (interp, q, axis, keep), P, [a],
                           {"axis": axis, "interpolation": interp, "keepdims": keep, "q_scalar": q},
                           [onp.percentile(A, q, axis=axis, interpolation=interp, keepdims=keep)]))
        qs = np.array([10.0, 25.0, 62.5, 90.0])
        cs.append(case("percentile %s q tensor axis (0, 2) float64" % interp, P, [b, qs],
                       {"axis": (0, 2), "interpolation": interp},
                       [onp.percentile(B, qs.asnumpy(), axis=(0, 2), interpolation=interp)]))
    cs.append(case("percentile 0-d q tensor", P, [a, np.array(40.0)], {"axis": (1,)},
                   [onp.percentile(A, 40.0, axis=1)]))
    ai = np.array(onp.array([[5, 1, 4], [2, 8, 3]], dtype="int32"))
    cs.append(case("percentile int32 (float32 out)", P, [ai], {"q_scalar": 35.0, "axis": (1,)},
                   [onp.percentile(ai.asnumpy(), 35.0, axis=1)]))
    cs.append(case("percentile float64 q on float32", P, [a, np.array([12.0], dtype="float64")], {},
                   [onp.percentile(A, [12.0])]))
    # unique
    v = np.array(onp.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8], dtype="float32").reshape(3, 4))
    V = v.asnumpy()
    for ri, rv, rc in [(False, False, False), (True, True, True), (False, True, False), (True, False, True)]:
        cs.append(case("unique flags %d%d%d" % (ri, rv, rc), U, [v],
                       {"return_index": ri, "return_inverse": rv, "return_counts": rc},
                       onp.unique(V, ri, rv, rc) if (ri or rv or rc) else [onp.unique(V)]))
    m = np.array(onp.array([[1, 2, 0], [1, 2, 0], [0, 5, 1], [1, 2, -1]], dtype="float32"))
    M = m.asnumpy()
    cs.append(case("unique axis 0", U, [m], {"return_index": True, "return_inverse": True,
                                             "return_counts": True, "axis": 0},
                   onp.unique(M, True, True, True, axis=0)))
    cs.append(case("unique axis 1", U, [m], {"return_index": True, "return_counts": True, "axis": 1},
                   onp.unique(M, True, False, True, axis=1)))
    cs.append(case("unique axis -1 3-d", U, [np.array(onp.array([1, 0, 1, 1, 0, 0, 1, 0], dtype="float32")
                                                      .reshape(2, 2, 2))],
                   {"return_inverse": True, "axis": -1},
                   onp.unique(onp.array([1, 0, 1, 1, 0, 0, 1, 0], dtype="float32").reshape(2, 2, 2), False,
                              True, False, axis=-1)))
    iv = np.array(onp.array([7, -2, 7, 0, -2, 7], dtype="int32"))
    cs.append(case("unique int32 counts", U, [iv], {"return_counts": True},
                   onp.unique(iv.asnumpy(), False, False, True)))
    cs.append(case("unique float64 index", U, [rand((5,), 3, "float64")], {"return_index": True},
                   onp.unique(rand((5,), 3, "float64").asnumpy(), True)))
    return cs


def errors():
    a = rand((3, 4), 1)
    specs = [
        ("percentile q above 100", "_npi_percentile", [a], {"q_scalar": 101.0}),
        ("percentile q tensor negative", "_npi_percentile", [a, np.array([10.0, -1.0])], {}),
        ("percentile axis out of range", "_npi_percentile", [a], {"q_scalar": 5.0, "axis": (2,)}),
        ("percentile 2-d q", "_npi_percentile", [a, np.array([[10.0]])], {}),
        ("unique axis out of range", "_npi_unique", [a], {"axis": 2}),
    ]
    return collect_errors(specs)


def collect_errors(specs):
    """MXNet's error message for each (name, op, inputs, attrs) spec that it must reject, as the
    "errors" entries of a reference file. Raises if MXNet accepts one."""
    return refs_errors.collect_errors(specs, invoke, arr, catch=(mx.base.MXNetError, ValueError))


def write_refs(out_dir, filename, generator, registry, ops, cases, errors):
    """Writes OUT_DIR/FILENAME: the registry entries of `ops` and the cases() and errors() computed
    in MXNet's NumPy mode (shared by refs_np_percentile/svd/eig.py)."""
    npx.set_np()
    try:
        doc = {"generator": generator, "mxnet_version": mx.__version__,
               "ops": registry(ops), "cases": cases(), "errors": errors()}
    finally:
        npx.reset_np()
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, filename), "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")


def write_np_percentile(out_dir, registry):
    write_refs(out_dir, "np_percentile.json", "tools/conformance/refs_np_percentile.py", registry, OPS, cases, errors)


if __name__ == "__main__":
    import sys
    from gen_reduce_refs import registry
    write_np_percentile(sys.argv[1] if len(sys.argv) > 1 else "ndarray/ops/testdata/reduce", registry)
