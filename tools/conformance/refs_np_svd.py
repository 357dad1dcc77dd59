"""Reference cases of MXNet 1.9.1's mx.np.linalg.svd / pinv / norm ops
(ndarray/ops/linalg/np_linalg_svd.cc): _npi_svd and _npi_norm (values and gradients; norm with the
attributes mx.np.linalg.norm passes, checked against numpy.linalg.norm), _npi_pinv,
_npi_pinv_scalar_rcond (values; MXNet gives zero gradients), their registry entries and rejected
calls. Inputs have well separated singular values
(the SVD's gradient is undefined for repeated ones). pinv values are also checked against
numpy.linalg.pinv here.

Called by gen_reduce_refs.py (write_np_svd(OUT, registry)); writes OUT/np_svd.json in the format of
np_linalg.json, read by ndarray/ops/linalg/np_linalg_svd_test.cc and compared by
tools/conformance/report.py. Deterministic: fixed seeds, sorted keys.
"""
import warnings

warnings.filterwarnings("ignore")
import numpy as onp
import mxnet as mx
from mxnet import np, npx

from refs_np_linalg import arr, rand
from refs_np_percentile import collect_errors, invoke, write_refs

OPS = ["_npi_svd", "_npi_pinv", "_npi_pinv_scalar_rcond", "_npi_norm"]


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


# MXNet 1.9.1's gradients of the spectral (ord +-2) and matrix ord +-1 norms are wrong (checked
# against central differences of numpy.linalg.norm: off by up to 0.8); these cases keep MXNet's
# values only, ours are checked by finite differences (reduce_np_linalg_svd_cases.cc).
WRONG_GRAD = {"norm spectral 2-d", "norm spectral batch float64", "norm -2 axis (0, 1)", "norm matrix ord 1",
              "norm matrix ord -1 axes (1, 0)"}


def norm_case(name, x, attrs, want, grad=True, seed=0):
    """_npi_norm with the attributes mx.np.linalg.norm passes; want: NumPy's value."""
    grad = grad and name not in WRONG_GRAD
    xs = x.copy()
    xs.attach_grad()
    with mx.autograd.record():
        y = invoke("_npi_norm", [xs], attrs)[0]
    c = {"name": name, "op": "_npi_norm", "attrs": {k: str(v) for k, v in attrs.items()}, "inputs": [arr(x)],
         "outputs": [arr(y)]}
    if not onp.allclose(y.asnumpy(), want, rtol=1e-4, atol=1e-5):
        raise RuntimeError("MXNet differs from numpy.linalg.norm in %r: %r vs %r" % (name, y.asnumpy(), want))
    if grad:
        hg = rand(y.shape, seed, onp.dtype(y.dtype).name)
        y.backward(hg)
        c["head_grads"] = [arr(hg)]
        c["grads"] = [arr(xs.grad)]
    return c


def norm_cases():
    a, b = rand((3, 4), 21), rand((2, 3, 4), 22, "float64")
    A, B = a.asnumpy(), b.asnumpy()
    N = onp.linalg.norm
    return [
        norm_case("norm flattened", b, {"ord": 2, "axis": None, "keepdims": False, "flag": -2}, N(B), seed=31),
        norm_case("norm flattened keepdims", a, {"ord": 2, "axis": None, "keepdims": True, "flag": -2},
                  N(A, keepdims=True), seed=32),
        norm_case("norm vector ord 2 axis 1", a, {"ord": 2, "axis": (1,), "keepdims": False, "flag": -1},
                  N(A, 2, axis=1), seed=33),
        norm_case("norm vector ord 3 axis -1 float64", b, {"ord": 3, "axis": (-1,), "keepdims": True, "flag": -1},
                  N(B, 3, axis=-1, keepdims=True), seed=34),
        norm_case("norm vector ord 1 axis 0", a, {"ord": 1, "axis": (0,), "keepdims": False, "flag": -1},
                  N(A, 1, axis=0), seed=35),
        norm_case("norm vector ord 0 axis 1", a, {"ord": 0, "axis": (1,), "keepdims": False, "flag": -1},
                  N(A, 0, axis=1), grad=False),
        norm_case("norm vector ord 0.5 axis 2", b, {"ord": 0.5, "axis": (2,), "keepdims": False, "flag": -1},
                  N(B, 0.5, axis=2), seed=36),
        norm_case("norm 1-d default", rand((5,), 23), {"ord": 2, "axis": None, "keepdims": False, "flag": -1},
                  N(rand((5,), 23).asnumpy()), seed=37),
        norm_case("norm fro axis (0, 1)", a, {"ord": 2, "axis": (0, 1), "keepdims": False, "flag": 1},
                  N(A, "fro"), seed=38),
        norm_case("norm fro axis (2, 0) float64", b, {"ord": 2, "axis": (2, 0), "keepdims": True, "flag": 1},
                  N(B, "fro", axis=(2, 0), keepdims=True), seed=39),
        norm_case("norm spectral 2-d", a, {"ord": 2, "axis": None, "keepdims": False, "flag": -1}, N(A, 2),
                  seed=40),
        norm_case("norm spectral batch float64", b, {"ord": 2, "axis": (1, 2), "keepdims": False, "flag": 0},
                  N(B, 2, axis=(1, 2)), seed=41),
        norm_case("norm -2 axis (0, 1)", a, {"ord": -2, "axis": (0, 1), "keepdims": False, "flag": 0},
                  N(A, -2), seed=42),
        norm_case("norm nuclear", a, {"ord": 2, "axis": (0, 1), "keepdims": False, "flag": 2}, N(A, "nuc"),
                  seed=43),
        norm_case("norm nuclear batch axes (1, 2) float64", b,
                  {"ord": 2, "axis": (1, 2), "keepdims": True, "flag": 2}, N(B, "nuc", axis=(1, 2), keepdims=True),
                  seed=44),
        norm_case("norm matrix ord 1", a, {"ord": 1, "axis": (0, 1), "keepdims": False, "flag": -1}, N(A, 1),
                  seed=45),
        norm_case("norm matrix ord -1 axes (1, 0)", a, {"ord": -1, "axis": (1, 0), "keepdims": False, "flag": -1},
                  N(A, -1, axis=(1, 0)), seed=46),
    ]


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
    return cs + norm_cases()


def errors():
    specs = [
        ("svd more rows", "_npi_svd", [rand((3, 2), 1)], {}),
        ("norm axis out of range", "_npi_norm", [rand((3, 2), 5)], {"axis": (2,)}),
        ("svd 1-d", "_npi_svd", [rand((3,), 2)], {}),
        ("pinv 1-d", "_npi_pinv_scalar_rcond", [rand((3,), 3)], {}),
        ("pinv float16", "_npi_pinv_scalar_rcond", [rand((2, 2), 4, "float16")], {}),
    ]
    return collect_errors(specs)


def write_np_svd(out_dir, registry):
    write_refs(out_dir, "np_svd.json", "tools/conformance/refs_np_svd.py", registry, OPS, cases, errors)


if __name__ == "__main__":
    import sys
    from gen_reduce_refs import registry
    write_np_svd(sys.argv[1] if len(sys.argv) > 1 else "ndarray/ops/testdata/reduce", registry)
