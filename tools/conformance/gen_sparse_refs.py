#!/usr/bin/env python3
"""Reference values of MXNet 1.9.1's sparse operators for //ndarray/ops/reduce:reduce_sparse_test.

    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_sparse_refs.py    # writes ndarray/ops/testdata/reduce/sparse.json

Cases: dot with a csr lhs (csr . dense -> dense, csr.T . dense -> row_sparse, forward_stype
'default', csr . dense.T falls back), _sparse_retain (sorted indices, indices of rows that are
not stored), _contrib_getnnz (axis None and 1). Inputs are given dense plus the storage type MXNet
casts them to; outputs carry MXNet's storage type, dense values and stored parts. Deterministic.
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
    HERE, "..", "..", "ndarray", "ops", "testdata", "reduce", "sparse.json")


def arr(a, stype="default", dtype="float32"):
    return {"values": np.asarray(a).ravel().tolist(), "shape": list(np.shape(a)), "stype": stype, "dtype": dtype}


def mx_in(spec):
    x = mx.nd.array(np.array(spec["values"]).reshape(spec["shape"]), dtype=spec["dtype"])
    return x.tostype(spec["stype"]) if spec["stype"] != "default" else x


def out(y):
    e = {"stype": y.stype, "dtype": np.dtype(y.dtype).name, "shape": list(y.shape),
         "values": y.tostype("default").asnumpy().ravel().tolist() if y.stype != "default"
         else y.asnumpy().ravel().tolist()}
    if y.stype != "default":
        e["data"] = y.data.asnumpy().ravel().tolist()
        e["indices"] = y.indices.asnumpy().ravel().tolist()
        if y.stype == "csr":
            e["indptr"] = y.indptr.asnumpy().ravel().tolist()
    return e


def main():
    rng = np.random.RandomState(23)
    # 4x5 csr with an empty row (1) and an empty column (3); values with a fraction.
    lhs = np.array([[0, 1.5, 0, 0, -2], [0, 0, 0, 0, 0], [3, 0, 0.25, 0, 0], [0, -1, 0, 0, 4]], np.float32)
    r52 = rng.uniform(-3, 3, (5, 2)).astype(np.float32).round(2)
    r52[4] = 0  # column 4 of lhs is stored but meets a zero row of rhs
    r43 = rng.uniform(-3, 3, (4, 3)).astype(np.float32).round(2)
    r35 = rng.uniform(-3, 3, (3, 5)).astype(np.float32).round(2)
    cases = []

    def add(op, inputs, attrs, call):
        ins = [mx_in(s) for s in inputs]
        y = call(*ins)
        cases.append({"op": op, "attrs": attrs, "inputs": inputs, "output": out(y)})

    add("dot", [arr(lhs, "csr"), arr(r52)], {}, lambda a, b: mx.nd.dot(a, b))
    add("dot", [arr(lhs, "csr"), arr(r43)], {"transpose_a": "True"},
        lambda a, b: mx.nd.dot(a, b, transpose_a=True))
    add("dot", [arr(lhs, "csr"), arr(r43)], {"transpose_a": "True", "forward_stype": "default"},
        lambda a, b: mx.nd.dot(a, b, transpose_a=True, forward_stype="default"))
    add("dot", [arr(lhs, "csr"), arr(r35)], {"transpose_b": "True"},
        lambda a, b: mx.nd.dot(a, b, transpose_b=True))
    l64 = arr(lhs.astype(np.float64), "csr", "float64")
    add("dot", [l64, arr(r52.astype(np.float64), dtype="float64")], {}, lambda a, b: mx.nd.dot(a, b))
    add("dot", [l64, arr(r43.astype(np.float64), dtype="float64")], {"transpose_a": "True"},
        lambda a, b: mx.nd.dot(a, b, transpose_a=True))
    zero = np.zeros((3, 4), np.float32)
    add("dot", [arr(zero, "csr"), arr(r43[:3])], {"transpose_a": "True"},
        lambda a, b: mx.nd.dot(a, b, transpose_a=True))

    rows = np.zeros((6, 2, 2), np.float32)
    rows[0] = [[1, 2], [3, 4]]
    rows[2] = [[-1, 0], [0, 0.5]]
    rows[5] = [[7, 8], [9, 10]]
    for idx, dt in [([0, 2, 5], "int64"), ([1, 2, 4], "int64"), ([5], "float32"), ([], "int64"),
                    ([0, 1, 2, 3, 4, 5], "int32")]:
        add("_sparse_retain", [arr(rows, "row_sparse"), arr(np.array(idx, np.float64), dtype=dt)], {},
            lambda a, i: mx.nd.sparse.retain(a, i))
    for ax in [None, 1]:
        attrs = {} if ax is None else {"axis": str(ax)}
        add("_contrib_getnnz", [arr(lhs, "csr")], attrs, lambda a, ax=ax: mx.nd.contrib.getnnz(a, axis=ax))
    add("_contrib_getnnz", [arr(zero, "csr")], {"axis": "1"}, lambda a: mx.nd.contrib.getnnz(a, axis=1))

    doc = {"generator": "tools/conformance/gen_sparse_refs.py", "mxnet_version": mx.__version__, "cases": cases}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("wrote %d cases to %s" % (len(cases), OUT))


if __name__ == "__main__":
    main()
