"""Reference statistics of MXNet 1.9.1's mx.np.random.choice op _npi_choice
(ndarray/ops/numpy/shape_np_choice.cc): MXNet's generator differs from ours, so instead of values this
records, per call, the output shape and dtype of one call and the frequencies of each index over
many draws (MXNet seeded, 20000 indices per call form), plus that draws without replacement are
distinct; and the registry entry. Read by ndarray/ops/numpy/shape_np_choice_test.cc, which draws as many
with ours and compares the frequencies (binomial standard errors). Not an op case of report.py
(values are random).

Called from gen_shape_refs.py (gen(out_dir)); writes np_choice.json. Deterministic (mx.random.seed).
"""
import json
import os
import warnings

warnings.filterwarnings("ignore")
import numpy as onp
import mxnet as mx
from mxnet import np, npx

from refs_np_percentile import invoke
from refs_np_linalg import arr

DRAWS = 20000


def stats(name, attrs, inputs, n, per_call):
    """Runs the call until DRAWS indices were drawn; frequencies of each of the n indices."""
    calls = max(1, DRAWS // per_call)
    counts = onp.zeros(n)
    distinct = True
    first = None
    for _ in range(calls):
        y = invoke("_npi_choice", inputs, attrs)[0]
        v = y.asnumpy().astype(onp.int64).ravel()
        first = first if first is not None else y
        if not attrs.get("replace", True):
            distinct = distinct and len(set(v.tolist())) == v.size
        counts += onp.bincount(v, minlength=n)
    return {"name": name, "attrs": {k: str(v) for k, v in attrs.items()}, "inputs": [arr(x) for x in inputs],
            "shape": list(first.shape), "dtype": onp.dtype(first.dtype).name, "calls": calls,
            "freq": (counts / counts.sum()).tolist(), "distinct": distinct}


def gen(out_dir):
    from gen_reduce_refs import registry
    npx.set_np()
    mx.random.seed(42)
    try:
        p4 = np.array([0.1, 0.2, 0.3, 0.4])
        p5 = np.array([0.5, 0.0, 0.25, 0.05, 0.2])
        cs = [
            stats("uniform with replacement", {"a": 5, "size": (4, 5)}, [], 5, 20),
            stats("uniform one draw", {"a": 3, "size": None}, [], 3, 1),
            stats("weighted with replacement", {"a": 4, "size": (100,), "weighted": True}, [p4], 4, 100),
            stats("weighted with a zero", {"a": 5, "size": (50,), "weighted": True}, [p5], 5, 50),
            stats("uniform without replacement", {"a": 6, "size": (3,), "replace": False}, [], 6, 3),
            stats("uniform permutation", {"a": 4, "size": (4,), "replace": False}, [], 4, 4),
            stats("weighted without replacement", {"a": 4, "size": (2,), "replace": False, "weighted": True},
                  [p4], 4, 2),
            stats("population from input1", {"a": None, "size": (10,)}, [np.zeros((2, 3))], 6, 10),
        ]
    finally:
        npx.reset_np()
    doc = {"generator": "tools/conformance/refs_np_choice.py", "mxnet_version": mx.__version__,
           "draws": DRAWS, "cases": cs, "ops": registry(["_npi_choice"])}
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "np_choice.json")
    with open(path, "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    print("wrote %s: %d cases" % (path, len(cs)))


if __name__ == "__main__":
    import sys
    gen(sys.argv[1] if len(sys.argv) > 1 else "ndarray/ops/testdata/shape")
