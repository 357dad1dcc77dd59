#!/usr/bin/env python3
"""Reference values of MXNet 1.9.1's elementwise ops on csr / row_sparse inputs, for
//ndarray/ops/sparse:sparse_elemwise_test.

    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_sparse_elemwise_refs.py   # writes ndarray/ops/testdata/sparse/elemwise.json

Each case: op, attrs, inputs (dense values + the storage type MXNet casts them to, or explicit
stored parts), and MXNet's output: storage type, dtype, shape, dense values and the stored parts
(csr entries as (row, col, value) triples up to indptr[-1], row_sparse indices + data). Cases
where MXNet raises carry "mxnet_error" (its message) and, when we deliberately compute instead,
"dense" (MXNet's op on the densified inputs) with our output's storage type. Deterministic.
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
os.environ["MXNET_STORAGE_FALLBACK_LOG_VERBOSE"] = "0"
import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    HERE, "..", "..", "ndarray", "ops", "testdata", "sparse", "elemwise.json")

# 4x4 with an empty row (1), values exact in binary.
A = np.array([[0, 0.5, 0, 0.75], [0, 0, 0, 0], [0.25, 0, -0.75, 0], [-0.5, 0.5, 0, 0]], np.float32)
B = np.array([[1, -0.5, 0, 0], [0, 0, 0, 0], [0, 2, 0.75, 0], [0, 0, 0, 0]], np.float32)
B3 = np.array([[[1, 0], [0, 2]], [[0, 0], [0, 0]], [[-1, 0.5], [0, 0]]], np.float32)


def num(v):
    """A float, or "nan" / "inf" / "-inf" (JSON has no non-finite numbers)."""
    v = float(v)
    return v if np.isfinite(v) else "nan" if np.isnan(v) else "inf" if v > 0 else "-inf"


def vals(a):
    return [num(v) for v in np.asarray(a).astype(np.float64).ravel()]


def dense(a, stype="default", dtype="float32"):
    return {"values": vals(a), "shape": list(np.shape(a)), "stype": stype, "dtype": dtype}


def rsp_parts(data, indices, shape, dtype="float32"):
    """A row_sparse input given by its stored parts (rows stored even when all zero)."""
    return {"stype": "row_sparse", "dtype": dtype, "shape": list(shape), "data": vals(data),
            "data_shape": list(np.shape(data)), "indices": list(indices)}


def csr_parts(data, indices, indptr, shape, dtype="float32"):
    """A csr input given by its stored parts (explicit zeros stay stored)."""
    return {"stype": "csr", "dtype": dtype, "shape": list(shape), "data": vals(data),
            "data_shape": [len(data)], "indices": list(indices), "indptr": list(indptr)}


def mx_in(spec):
    if "indptr" in spec:
        d = np.array([float(v) for v in spec["data"]], dtype=spec["dtype"])
        return mx.nd.sparse.csr_matrix((d, np.array(spec["indices"], np.int64), np.array(spec["indptr"], np.int64)),
                                       shape=tuple(spec["shape"]), dtype=spec["dtype"])
    if "data" in spec:
        d = np.array([float(v) for v in spec["data"]], dtype=spec["dtype"]).reshape(spec["data_shape"])
        return mx.nd.sparse.row_sparse_array((d, np.array(spec["indices"], np.int64)),
                                             shape=tuple(spec["shape"]), dtype=spec["dtype"])
    x = mx.nd.array(np.array([float(v) for v in spec["values"]]).reshape(spec["shape"]), dtype=spec["dtype"])
    return x.tostype(spec["stype"]) if spec["stype"] != "default" else x


def out_entry(y):
    e = {"stype": y.stype, "dtype": np.dtype(y.dtype).name, "shape": list(y.shape),
         "values": vals(y.tostype("default").asnumpy() if y.stype != "default" else y.asnumpy())}
    if y.stype == "csr":
        ptr = y.indptr.asnumpy().astype(np.int64)
        nnz = int(ptr[-1])
        idx = y.indices.asnumpy().astype(np.int64)[:nnz]
        d = [num(v) for v in y.data.asnumpy().astype(np.float64)[:nnz]]
        rows = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
        e["entries"] = sorted([[int(r), int(c), v] for r, c, v in zip(rows, idx, d)],
                              key=lambda t: (t[0], t[1]))
    elif y.stype == "row_sparse":
        e["indices"] = y.indices.asnumpy().astype(np.int64).tolist()
        e["data"] = vals(y.data.asnumpy())
    return e


def error_text(e):
    lines = [l for l in str(e).splitlines() if "Error" in l or "Check failed" in l]
    return (lines[-1] if lines else str(e).splitlines()[0]).strip()


cases = []


def add(op, inputs, attrs=None, call=None, deviation=None, dense_call=None, ours_stype="default"):
    """call(*mx inputs, **attrs); default mx.nd.<op> or mx.nd._internal.<op>. deviation: why we
    compute where MXNet raises; then "dense" is MXNet's result on the densified inputs (dense_call
    where MXNet has no dense form either) and "ours_stype" our output's storage type."""
    attrs = attrs or {}
    fn = call or getattr(mx.nd, op, None) or getattr(mx.nd._internal, op)
    ins = [mx_in(s) for s in inputs]
    case = {"op": op, "attrs": {k: str(v) for k, v in attrs.items()}, "inputs": inputs}
    try:
        y = fn(*ins, **attrs)
        y.wait_to_read()
        case["output"] = out_entry(y)
    except mx.base.MXNetError as e:
        case["mxnet_error"] = error_text(e)
        if deviation:
            case["deviation"] = deviation
            case["ours_stype"] = ours_stype
            dn = [x.tostype("default") for x in ins]
            case["dense"] = out_entry((dense_call or fn)(*dn, **attrs))
    cases.append(case)


UNARY = ["abs", "sign", "sqrt", "square", "cbrt", "relu", "negative", "sin", "tan", "arcsin", "arctan",
         "sinh", "tanh", "arcsinh", "arctanh", "expm1", "log1p", "degrees", "radians", "floor", "ceil",
         "round", "rint", "fix", "trunc", "identity", "_copy", "BlockGrad", "stop_gradient", "make_loss",
         "zeros_like", "exp", "cos", "sigmoid", "ones_like"]
SCALAR = [("_plus_scalar", [0, 1.5]), ("_minus_scalar", [0, 2]), ("_rminus_scalar", [0]),
          ("_mul_scalar", [2, 0]), ("_div_scalar", [4, 0]), ("_rdiv_scalar", [1]),
          ("_equal_scalar", [0, 0.5]), ("_not_equal_scalar", [0, 0.5]), ("_greater_scalar", [0, -0.5]),
          ("_greater_equal_scalar", [0, 0.25]), ("_lesser_scalar", [0, 0.5]),
          ("_lesser_equal_scalar", [0, -0.25]), ("_maximum_scalar", [0]), ("_power_scalar", [2]),
          ("_scatter_plus_scalar", [1]), ("_scatter_minus_scalar", [1])]
SPARSE = ["csr", "row_sparse"]
ALL = ["default", "csr", "row_sparse"]


def main():
    for op in UNARY:
        for s in SPARSE:
            add(op, [dense(A, s)])
    for s in SPARSE:
        add("_contrib_round_ste", [dense(A * 3, s)], call=mx.nd.contrib.round_ste)
        add("_contrib_sign_ste", [dense(A, s)], call=mx.nd.contrib.sign_ste)
    for op, scalars in SCALAR:
        for sc in scalars:
            for s in SPARSE:
                add(op, [dense(A, s)], {"scalar": sc})
    for s in SPARSE:
        add("clip", [dense(A, s)], {"a_min": -0.5, "a_max": 0.6})
        add("clip", [dense(A, s)], {"a_min": 0.1, "a_max": 0.6},
            deviation="ours falls back to dense (MXNet: not implemented when 0 is outside [a_min, a_max])")
    # Binary ops over every pair of storage types.
    for op in ["elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"]:
        for s1 in ALL:
            for s2 in ALL:
                if s1 == s2 == "default":
                    continue
                add(op, [dense(A, s1), dense(B, s2)])
    # row_sparse operands storing an all-zero row; a 3-d row_sparse; float64; _grad_add.
    z = rsp_parts(np.array([[0, 1, 0, 0], [0, 0, 0, 0]], np.float32), [1, 3], (4, 4))
    for op in ["elemwise_add", "elemwise_sub", "elemwise_mul"]:
        add(op, [z, dense(B, "row_sparse")])
        add(op, [z, dense(A)])
    add("elemwise_sub", [dense(A, "csr"), dense(A, "csr")])  # every result 0: nothing stored
    add("elemwise_mul", [dense(B3, "row_sparse"), dense(B3 + 1)])
    add("elemwise_add", [dense(B3, "row_sparse"), dense(-B3, "row_sparse")])
    add("elemwise_add", [dense(A, "csr", "float64"), dense(B, "csr", "float64")])
    add("elemwise_mul", [dense(A, "row_sparse", "float64"), dense(B, dtype="float64")])
    add("_grad_add", [dense(A, "row_sparse"), dense(B, "row_sparse")], call=mx.nd._internal._grad_add)
    # broadcast ops with a csr lhs.
    for shape in [(1, 4), (4, 1), (4,), (1,), (1, 1), (4, 4)]:
        rhs = dense(np.arange(1, 1 + int(np.prod(shape)), dtype=np.float32).reshape(shape) / 2)
        add("broadcast_mul", [dense(A, "csr"), rhs])
        add("broadcast_div", [dense(A, "csr"), rhs],
            deviation="ours divides (MXNet: use elemwise_div for csr / dense of the same shape)"
            if shape == (4, 4) else None, ours_stype="csr")
    col = dense(np.array([[1], [2], [3], [4]], np.float32))
    for op in ["broadcast_add", "broadcast_sub", "broadcast_plus", "broadcast_minus"]:
        add(op, [dense(A, "csr"), col])
    add("broadcast_mul", [dense(A, "row_sparse"), col])
    add("broadcast_mul", [col, dense(A, "csr")])
    # add_n / ElementWiseSum.
    y = rsp_parts(np.array([[5, 1, 0, 0]], np.float32), [2], (4, 4))
    add("add_n", [z, y, z], {"num_args": 3}, call=lambda *a, **k: mx.nd.add_n(*a))
    add("add_n", [dense(A, "row_sparse"), dense(B, "row_sparse")], {"num_args": 2},
        call=lambda *a, **k: mx.nd.add_n(*a))
    add("ElementWiseSum", [dense(A, "row_sparse"), dense(B, "row_sparse"), dense(A, "row_sparse")],
        {"num_args": 3}, call=lambda *a, **k: mx.nd.ElementWiseSum(*a))
    add("add_n", [dense(A, "csr"), dense(B, "csr")], {"num_args": 2}, call=lambda *a, **k: mx.nd.add_n(*a))
    add("add_n", [dense(A), dense(B, "row_sparse")], {"num_args": 2}, call=lambda *a, **k: mx.nd.add_n(*a))
    add("add_n", [dense(A, "row_sparse"), dense(B), dense(A, "row_sparse")], {"num_args": 3},
        call=lambda *a, **k: mx.nd.add_n(*a))
    add("add_n", [dense(A), dense(B, "csr"), dense(A)], {"num_args": 3}, call=lambda *a, **k: mx.nd.add_n(*a))
    # _square_sum of row_sparse data.
    for ax in [0, 1, -1]:
        for kd in [False, True]:
            add("_square_sum", [dense(A, "row_sparse")], {"axis": ax, "keepdims": kd},
                deviation="ours falls back to dense (MXNet: not implemented for axis -1)" if ax < 0 else None,
                dense_call=lambda x, axis, keepdims: mx.nd.sum(mx.nd.square(x), axis=axis, keepdims=keepdims))
    add("_square_sum", [z], {"axis": 1, "keepdims": True})
    add("_square_sum", [z], {"axis": 0, "keepdims": True})
    add("_square_sum", [dense(np.zeros((3, 2), np.float32), "row_sparse")], {"axis": 1, "keepdims": True})
    # Other dtypes (values exact in each).
    for dt in ["float16", "float64", "int32", "int64"]:
        add("elemwise_add", [dense(A * 4, "csr", dt), dense(B * 4, "csr", dt)])
        add("elemwise_mul", [dense(A * 4, "row_sparse", dt), dense(B * 4, "row_sparse", dt)])
        add("abs", [dense(A * 4, "csr", dt)])
        add("_mul_scalar", [dense(A * 4, "row_sparse", dt)], {"scalar": 3})
        add("add_n", [dense(A * 4, "row_sparse", dt), dense(B * 4, "row_sparse", dt)], {"num_args": 2},
            call=lambda *a, **k: mx.nd.add_n(*a))
    # slice and concat of csr arrays.
    zc = csr_parts([0, 1.5, -2], [0, 1, 3], [0, 2, 2, 3], (3, 4))  # an explicitly stored 0
    for b, e, st in [((1,), (3,), None), ((-3,), (None,), None), ((None, 1), (None, 3), None),
                     ((1, 1), (3, 3), None), ((0,), (4,), (2,)), ((0, 0), (2, 4), (1, 1))]:
        attrs = {"begin": b, "end": e} if st is None else {"begin": b, "end": e, "step": st}
        add("slice", [dense(A, "csr")], attrs)
    add("slice", [zc], {"begin": (0,), "end": (2,)})
    add("slice", [dense(A, "row_sparse")], {"begin": (1,), "end": (3,)})
    cat = lambda *a, **k: mx.nd.concat(*a, dim=int(k["dim"]))  # noqa: E731
    add("Concat", [dense(A, "csr"), dense(B, "csr")], {"num_args": 2, "dim": 0}, call=cat)
    add("Concat", [dense(A, "csr"), zc, dense(B, "csr")], {"num_args": 3, "dim": 0}, call=cat)
    add("Concat", [dense(A, "csr"), dense(B)], {"num_args": 2, "dim": 0}, call=cat)
    add("Concat", [dense(A, "csr"), dense(B, "csr")], {"num_args": 2, "dim": 1}, call=cat)
    add("Concat", [dense(A, "row_sparse"), dense(B, "row_sparse")], {"num_args": 2, "dim": 0}, call=cat)
    # Bad input: shapes that do not match.
    add("elemwise_add", [dense(A, "csr"), dense(B[:3], "csr")])
    add("elemwise_mul", [dense(A, "row_sparse"), dense(B[:, :3])])
    add("elemwise_sub", [dense(A, "row_sparse"), dense(B[:3], "row_sparse")])

    doc = {"generator": "tools/conformance/gen_sparse_elemwise_refs.py", "mxnet_version": mx.__version__,
           "cases": cases}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT + ".tmp", "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
        f.write("\n")
    os.replace(OUT + ".tmp", OUT)
    print("wrote %d cases (%d MXNet errors) to %s" % (len(cases), sum("mxnet_error" in c for c in cases), OUT))


if __name__ == "__main__":
    main()
