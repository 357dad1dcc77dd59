"""Reference cases of MXNet 1.9.1's mx.np.linalg.svd / pinv ops (ndarray/ops/reduce_np_linalg_svd.cc):
_npi_svd (values and gradients), _npi_pinv, _npi_pinv_scalar_rcond (values; MXNet gives zero
gradients), their registry entries and rejected calls. Inputs have well separated singular values
(the SVD's gradient is undefined for repeated ones). pinv values are also checked against
numpy.linalg.pinv here.

Called by gen_reduce_refs.py (write_np_svd(OUT, registry)); writes OUT/np_svd.json in the format of
np_linalg.json, read by ndarray/ops/reduce_np_linalg_svd_test.cc and compared by
tools/conformance/report.py. Deterministic: fixed seeds, sorted keys.
"""
import json
import os
import warnings

warnings.filterwarnings("ignore")
import numpy as onp
import mxnet as mx
from mxnet import np, npx

from refs_np_linalg import arr, rand
from refs_np_percentile import invoke

OPS = ["_npi_svd", "_npi_pinv", "_npi_pinv_scalar_rcond"]


def svd_case(name, x, seed):
    xs = x.copy()
    xs.attach_grad()
    with mx.autograd.record():
        ys = invoke("_npi_svd", [xs], {})
    hgs = [rand(y.shape, seed + i, onp.dtype(y.dtype).name) for i, y in enumerate(ys)]
    mx.autograd.backward(ys, hgs)
    ut, l, v = [y.asnumpy().astype(onp.float64) for y in ys]
    if not onp.allclose(ut @ (l[..., :, None] * v), x.asnumpy(), atol=1e-4):
        raise RuntimeError("MXNet's svd does not reconstruct A in %r" % name)
    return {"name": name, "op": "_npi_svd", "attrs": {}, "inputs": [arr(x)], "outputs": [arr(y) for y in ys],
            "head_grads": [arr(h) for h in hgs], "grads": [arr(xs.grad)]}


def pinv_case(name, op, inputs, attrs, rcond):
    ys = invoke(op, inputs, attrs)
    want = onp.linalg.pinv(inputs[0].asnumpy().astype(onp.float64), rcond)
    if not onp.allclose(ys[0].asnumpy(), want, rtol=1e-4, atol=1e-5):
        raise RuntimeError("MXNet differs from numpy.linalg.pinv in %r" % name)
    return {"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
            "inputs": [arr(x) for x in inputs], "outputs": [arr(y) for y in ys]}


def separated(shape, seed, dtype="float32"):
    """Random matrices with singular values near 1, 2, 3, ... (times a random orthogonal pair)."""
    rng = onp.random.RandomState(seed)
    m, n = shape[-2:]
    batch = shape[:-2]
    out = onp.empty(shape)
    for idx in onp.ndindex(*batch):
        q1, _ = onp.linalg.qr(rng.randn(m, m))
        q2, _ = onp.linalg.qr(rng.randn(n, n))
        s = onp.zeros((m, n))
        for i in range(min(m, n)):
            s[i, i] = i + 1 + 0.25 * rng.rand()
        out[idx] = onp.round(q1 @ s @ q2, 4)
    return np.array(out.astype(dtype), dtype=dtype)


def cases():
    cs = [
        svd_case("svd 2x3", separated((2, 3), 1), 101),
        svd_case("svd 3x3", separated((3, 3), 2), 102),
        svd_case("svd 1x4", separated((1, 4), 3), 103),
        svd_case("svd batch 2x2x4", separated((2, 2, 4), 4), 104),
        svd_case("svd float64 3x5", separated((3, 5), 5, "float64"), 105),
        svd_case("svd batch float64 2x1x2x3", separated((2, 1, 2, 3), 6, "float64"), 106),
    ]
    S, R = "_npi_pinv_scalar_rcond", "_npi_pinv"
    cs += [
        pinv_case("pinv scalar 3x2", S, [separated((3, 2), 11)], {}, 1e-15),
        pinv_case("pinv scalar 2x4 rcond 0.5", S, [separated((2, 4), 12)], {"rcond": 0.5}, 0.5),
        pinv_case("pinv scalar batch float64", S, [separated((2, 3, 3), 13, "float64")], {"rcond": 1e-10}, 1e-10),
        pinv_case("pinv scalar hermitian", S, [np.array([[2.0, 1.0], [1.0, 3.0]])], {"hermitian": True}, 1e-15),
        pinv_case("pinv scalar rank 1", S, [np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])], {"rcond": 1e-5}, 1e-5),
        pinv_case("pinv tensor rcond", R, [separated((2, 4, 3), 14), np.array([1e-3, 0.6])], {},
                  onp.array([1e-3, 0.6])),
        pinv_case("pinv 0-d rcond float64", R, [separated((3, 3), 15, "float64"), np.array(0.4, dtype="float64")],
                  {}, 0.4),
    ]
    return cs


def errors():
    specs = [
        ("svd more rows", "_npi_svd", [rand((3, 2), 1)], {}),
        ("svd 1-d", "_npi_svd", [rand((3,), 2)], {}),
        ("pinv 1-d", "_npi_pinv_scalar_rcond", [rand((3,), 3)], {}),
        ("pinv float16", "_npi_pinv_scalar_rcond", [rand((2, 2), 4, "float16")], {}),
    ]
    out = []
    for name, op, inputs, attrs in specs:
        try:
            for y in invoke(op, inputs, attrs):
                y.wait_to_read()
        except (mx.base.MXNetError, ValueError) as err:
            msg = [l for l in str(err).splitlines() if "Check failed" in l or "MXNetError" in l]
            out.append({"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
                        "inputs": [arr(x) for x in inputs], "message": (msg or [str(err)])[-1].strip()[:300]})
            continue
        raise RuntimeError("MXNet accepted the error case %r" % name)
    return out


def write_np_svd(out_dir, registry):
    npx.set_np()
    try:
        doc = {"generator": "tools/conformance/refs_np_svd.py", "mxnet_version": mx.__version__,
               "ops": registry(OPS), "cases": cases(), "errors": errors()}
    finally:
        npx.reset_np()
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "np_svd.json"), "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    import sys
    from gen_reduce_refs import registry
    write_np_svd(sys.argv[1] if len(sys.argv) > 1 else "ndarray/ops/testdata/reduce", registry)
