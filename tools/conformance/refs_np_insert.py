"""Reference cases of MXNet 1.9.1's mx.np.insert / mx.np.delete ops and boolean-mask assignment
(ndarray/ops/numpy/shape_np_insert.cc): _npi_insert_scalar, _npi_insert_slice, _npi_insert_tensor,
_npi_delete, _npi_boolean_mask_assign_scalar, _npi_boolean_mask_assign_tensor (values; none is
differentiable in MXNet), their registry entries and rejected calls.

Only calls MXNet 1.9.1 gets right (checked against NumPy here: the generator fails otherwise). MXNet
is wrong for: delete with negative or out-of-range tensor indices (ignored), insert with `val` and
an axis (shape check fails) or with `val` and a slice/tensor index (dtype check fails), insert
values that do not broadcast (reads past them); ours follows NumPy there, checked against NumPy's
values in shape_np_insert_test.cc. The mask assignment runs in place in MXNet (out=data), as
mx.np's a[mask] = v.

Called from gen_shape_refs.py (gen(out_dir)); writes np_insert.json in the format of np.json:
{"mxnet_version", "cases": [{"name", "op", "attrs", "inputs", "outputs"}], "ops", "errors"}. Read by
ndarray/ops/numpy/shape_np_insert_test.cc, compared by report.py. Deterministic (fixed seeds).
"""
import json
import os

import numpy as onp
import mxnet as mx
from mxnet import np, npx

from refs_np_shape import invoke, _arr, _rand, _iota
from refs_errors import collect_errors

PUBLIC = ["_npi_insert_scalar", "_npi_insert_slice", "_npi_insert_tensor", "_npi_delete",
          "_npi_boolean_mask_assign_scalar", "_npi_boolean_mask_assign_tensor"]


def _run(op, inputs, attrs):
    if op.startswith("_npi_boolean_mask_assign"):
        out = inputs[0].copy()
        invoke_out(op, [out] + list(inputs[1:]), attrs, out)
        return [out]
    ys = invoke(op, inputs, attrs)
    return ys if isinstance(ys, list) else [ys]


def invoke_out(op, xs, attrs, out):
    import ctypes
    from mxnet.base import _LIB, OpHandle, c_str, check_call
    from mxnet._ctypes.ndarray import _imperative_invoke
    h = OpHandle()
    check_call(_LIB.NNGetOpHandle(c_str(op), ctypes.byref(h)))
    _imperative_invoke(h.value, list(xs), list(attrs.keys()), [str(v) for v in attrs.values()], out, True,
                       False)


def _case(name, op, inputs, attrs, expect):
    """expect: NumPy's result, which MXNet's must equal (dtype included)."""
    attrs = {k: v for k, v in attrs.items()}
    ys = _run(op, inputs, attrs)
    got = ys[0].asnumpy()
    if got.shape != expect.shape or got.dtype != expect.dtype or not onp.array_equal(got, expect):
        raise RuntimeError("MXNet differs from NumPy in %r: %r vs %r" % (name, got, expect))
    return {"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
            "inputs": [_arr(x) for x in inputs], "outputs": [_arr(y) for y in ys]}


def _cases():
    cs = []
    a = _rand((3, 4), 1)
    A = a.asnumpy()
    D, IS, IL, IT = "_npi_delete", "_npi_insert_scalar", "_npi_insert_slice", "_npi_insert_tensor"
    # ---- delete ----
    for ax in [None, 0, 1, -1]:
        for i in [1, -1, 0]:
            cs.append(_case("delete int %d axis %s" % (i, ax), D, [a], {"int_ind": i, "axis": ax},
                            onp.delete(A, i, axis=ax)))
        for sl in [slice(1, 3, 1), slice(None, None, 2), slice(3, 0, -1), slice(-2, None, 1)]:
            cs.append(_case("delete slice %s:%s:%s axis %s" % (sl.start, sl.stop, sl.step, ax), D, [a],
                            {"start": sl.start, "stop": sl.stop, "step": sl.step, "axis": ax},
                            onp.delete(A, sl, axis=ax)))
    for obj, ax in [([1, 3], None), ([2, 0, 0], 1), ([0], 0), ([], 1), ([1, 2], 0)]:
        o = np.array(obj, dtype="int64")
        cs.append(_case("delete tensor %s axis %s" % (obj, ax), D, [a, o], {"axis": ax},
                        onp.delete(A, onp.array(obj, dtype="int64"), axis=ax)))
    cs.append(_case("delete 0-d tensor axis 0", D, [a, np.array(1, dtype="int64")], {"axis": 0},
                    onp.delete(A, 1, axis=0)))
    cs.append(_case("delete int32 3-d axis 2", D, [_iota((2, 3, 4), "int32")], {"int_ind": 2, "axis": 2},
                    onp.delete(onp.arange(24).reshape(2, 3, 4).astype("int32"), 2, axis=2)))
    cs.append(_case("delete zero-size", D, [np.zeros((0, 3))], {"int_ind": 1, "axis": 1},
                    onp.delete(onp.zeros((0, 3), dtype="float32"), 1, axis=1)))
    # ---- insert ----
    v3, v31, v1, v24 = _rand((3,), 2), _rand((3, 1), 3), _rand((1,), 4), _rand((2, 4), 5)
    for i in [1, -1, 0, 4]:
        cs.append(_case("insert int %d flattened values (3,)" % i, IS, [a, v3], {"int_ind": i},
                        onp.insert(A, i, v3.asnumpy())))
        cs.append(_case("insert int %d flattened val" % i, IS, [a], {"val": 2.5, "int_ind": i},
                        onp.insert(A, i, 2.5)))
    for i in [1, -1, 3]:
        for v in [v31, v1, v24]:
            cs.append(_case("insert int %d axis 0 values %s" % (i, v.shape), IS, [a, v], {"int_ind": i, "axis": 0},
                            onp.insert(A, i, v.asnumpy(), axis=0)))
        for v in [v3, v31, v1]:
            cs.append(_case("insert int %d axis 1 values %s" % (i, v.shape), IS, [a, v], {"int_ind": i, "axis": 1},
                            onp.insert(A, i, v.asnumpy(), axis=1)))
    cs.append(_case("insert int axis -1 3-d", IS, [_rand((2, 3, 2), 6), _rand((2, 3), 7)],
                    {"int_ind": 1, "axis": -1},
                    onp.insert(_rand((2, 3, 2), 6).asnumpy(), 1, _rand((2, 3), 7).asnumpy(), axis=-1)))
    for sl, ax, v in [(slice(1, 3, 1), 0, v1), (slice(1, 3, 1), 0, v24), (slice(None, None, 2), 1, v31),
                      (slice(0, 1, 1), 1, v3), (slice(1, 3, 1), None, v1)]:
        cs.append(_case("insert slice %s:%s:%s axis %s values %s" % (sl.start, sl.stop, sl.step, ax, v.shape), IL,
                        [a, v], {"start": sl.start, "stop": sl.stop, "step": sl.step, "axis": ax},
                        onp.insert(A, sl, v.asnumpy(), axis=ax)))
    for obj, ax, v in [([1, 3], 0, v24), ([3, 1], 0, v1), ([1, 3], 1, v31), ([3, 1], 1, v31), ([2], 1, v3),
                       ([2], 0, v1), ([0, 0, 2], None, _rand((3,), 8)), ([4], 1, v31)]:
        o = np.array(obj, dtype="int64")
        cs.append(_case("insert tensor %s axis %s values %s" % (obj, ax, v.shape), IT, [a, v, o], {"axis": ax},
                        onp.insert(A, onp.array(obj), v.asnumpy(), axis=ax)))
    cs.append(_case("insert 0-d tensor axis 0", IT, [a, v24[0:1], np.array(1, dtype="int64")], {"axis": 0},
                    onp.insert(A, onp.array(1), v24[0:1].asnumpy(), axis=0)))
    ai = _iota((6,), "int32")
    cs.append(_case("insert int32 arr float values (cast)", IS, [ai, np.array([1.7, -2.2], dtype="float32")],
                    {"int_ind": 2}, onp.insert(onp.arange(6).astype("int32"), 2, onp.array([1.7, -2.2]))))
    cs.append(_case("insert float arr int32 values", IS, [a, np.array([1, 2, 3, 4], dtype="int32")],
                    {"int_ind": 2, "axis": 0}, onp.insert(A, 2, onp.array([1, 2, 3, 4]), axis=0)))
    # ---- boolean mask assign ----
    S, T = "_npi_boolean_mask_assign_scalar", "_npi_boolean_mask_assign_tensor"
    x = _rand((3, 4), 9)
    X = x.asnumpy()
    m1 = onp.array([True, False, True])
    m2 = _rand((3, 4), 10).asnumpy() > 0

    def assigned(data, mask, value, start=0):
        r = data.copy()
        r[(slice(None),) * start + (mask,)] = value
        return r
    cs.append(_case("mask assign scalar rows", S, [x, np.array(m1)], {"value": 7.5, "start_axis": 0},
                    assigned(X, m1, 7.5)))
    cs.append(_case("mask assign scalar 2-d mask", S, [x, np.array(m2)], {"value": -1, "start_axis": 0},
                    assigned(X, m2, -1)))
    cs.append(_case("mask assign scalar none true", S, [x, np.array([False] * 3)], {"value": 3, "start_axis": 0},
                    X.copy()))
    y = _rand((2, 3, 2), 11)
    cs.append(_case("mask assign scalar start_axis 1", S, [y, np.array(m1)], {"value": 2, "start_axis": 1},
                    assigned(y.asnumpy(), m1, 2, 1)))
    cs.append(_case("mask assign scalar int32", S, [_iota((4,), "int32"), np.array([True, False, False, True])],
                    {"value": 9, "start_axis": 0}, assigned(onp.arange(4).astype("int32"),
                                                            onp.array([True, False, False, True]), 9)))
    v = _rand((2, 4), 12)
    cs.append(_case("mask assign tensor (count, 4)", T, [x, np.array(m1), v], {"start_axis": 0},
                    assigned(X, m1, v.asnumpy())))
    w = _rand((4,), 13)
    cs.append(_case("mask assign tensor (4,) broadcast", T, [x, np.array(m1), w], {"start_axis": 0},
                    assigned(X, m1, w.asnumpy())))
    cs.append(_case("mask assign tensor (1, 4)", T, [x, np.array(m1), w.reshape(1, 4)], {"start_axis": 0},
                    assigned(X, m1, w.reshape(1, 4).asnumpy())))
    n = int(m2.sum())
    z = _rand((n,), 14)
    cs.append(_case("mask assign tensor 2-d mask (count,)", T, [x, np.array(m2), z], {"start_axis": 0},
                    assigned(X, m2, z.asnumpy())))
    cs.append(_case("mask assign tensor size 1", T, [x, np.array(m2), np.array([4.25])], {"start_axis": 0},
                    assigned(X, m2, 4.25)))
    cs.append(_case("mask assign tensor start_axis 1 (2, count, 2)", T, [y, np.array(m1), _rand((2, 2, 2), 15)],
                    {"start_axis": 1}, assigned(y.asnumpy(), m1, _rand((2, 2, 2), 15).asnumpy(), 1)))
    return cs


def _errors():
    a = _rand((3, 4), 1)
    specs = [
        ("delete int out of range", "_npi_delete", [a], {"int_ind": 4, "axis": 1}),
        ("delete int below range", "_npi_delete", [a], {"int_ind": -4, "axis": 0}),
        ("delete axis out of range", "_npi_delete", [a], {"int_ind": 0, "axis": 2}),
        ("insert index out of range", "_npi_insert_scalar", [a, _rand((4,), 2)], {"int_ind": 5, "axis": 0}),
        ("insert axis out of range", "_npi_insert_scalar", [a, _rand((3,), 2)], {"int_ind": 0, "axis": 2}),
        ("insert slice values do not fit", "_npi_insert_slice", [a, _rand((3,), 3)],
         {"start": 1, "stop": 3, "step": 1, "axis": 0}),
        ("insert tensor values do not fit", "_npi_insert_tensor",
         [a, _rand((3, 1), 4), np.array([1, 3], dtype="int64")], {"axis": 0}),
        ("mask assign mask shape", "_npi_boolean_mask_assign_scalar", [a, np.array([True, False])],
         {"value": 1, "start_axis": 0}),
        ("mask assign tensor count", "_npi_boolean_mask_assign_tensor",
         [a, np.array([True, False, True]), _rand((3, 4), 5)], {"start_axis": 0}),
    ]
    return collect_errors(specs, lambda op, inputs, attrs: _run(op, inputs, attrs)[0], _arr)


def gen(out_dir):
    from gen_reduce_refs import registry  # MXNet's registry entries (names, attrs, inputs)
    npx.set_np()
    try:
        cs = _cases()
        errs = _errors()
    finally:
        npx.reset_np()
    doc = {"generator": "tools/conformance/refs_np_insert.py", "mxnet_version": mx.__version__,
           "cases": cs, "ops": registry(PUBLIC), "errors": errs}
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "np_insert.json")
    with open(path, "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    print("wrote %s: %d cases, %d errors" % (path, len(cs), len(errs)))


if __name__ == "__main__":
    import sys
    gen(sys.argv[1] if len(sys.argv) > 1 else "ndarray/ops/testdata/shape")
