"""Reference cases of MXNet 1.9.1's mx.np.linalg.eig / eigvals ops (ndarray/ops/linalg/np_linalg_geev.cc):
_npi_eig, _npi_eigvals (values; MXNet gives zero gradients), their registry entries and rejected calls.
Matrices have real, distinct eigenvalues (MXNet rejects complex ones). MXNet's eigenvector columns
carry LAPACK's arbitrary sign: report.py and reduce_np_linalg_geev_test.cc compare them up to the
sign of each column (sign_normalized below: largest-magnitude entry positive, as ours).

Called by gen_reduce_refs.py (write_np_eig(OUT, registry)); writes OUT/np_eig.json in the format of
np_linalg.json. Deterministic: fixed seeds, sorted keys.
"""
import warnings

warnings.filterwarnings("ignore")
import numpy as onp
import mxnet as mx
from mxnet import np, npx

from refs_np_linalg import arr, rand
from refs_np_percentile import collect_errors, invoke, write_refs

OPS = ["_npi_eig", "_npi_eigvals"]


def sign_normalized(v):
    """v ({"shape", "dtype", "data"}, (..., n, n)) with each column's largest |entry| positive."""
    a = onp.array(v["data"], dtype=onp.float64).reshape(v["shape"])
    if a.size:
        idx = onp.argmax(onp.abs(a), axis=-2)[..., None, :]
        sign = onp.where(onp.take_along_axis(a, idx, axis=-2) < 0, -1.0, 1.0)
        a = a * sign
    return dict(v, data=a.ravel().tolist())


def real_spectrum(n, seed, dtype="float32", batch=(), kind="similar"):
    rng = onp.random.RandomState(seed)
    out = onp.empty(batch + (n, n))
    for idx in onp.ndindex(*batch):
        if kind == "similar":  # S diag(l) S^-1, S well conditioned
            s = onp.eye(n) + 0.3 * rng.uniform(-1, 1, (n, n))
            lam = onp.arange(1, n + 1) * 1.5 + 0.2 * rng.rand(n) - n / 2.0
            m = s @ onp.diag(lam) @ onp.linalg.inv(s)
        else:  # near upper triangular
            m = onp.triu(rng.uniform(-1, 1, (n, n))) + onp.diag(onp.arange(n) * 2.0) + 0.05 * rng.uniform(-1, 1, (n, n))
        out[idx] = onp.round(m, 4)
    return np.array(out.astype(dtype), dtype=dtype)


def case(name, op, x):
    ys = invoke(op, [x], {})
    w = onp.linalg.eigvals(x.asnumpy().astype(onp.float64))
    if onp.abs(onp.imag(w)).max() > 0:
        raise RuntimeError("%r has complex eigenvalues" % name)
    got = ys[0].asnumpy()
    if not onp.allclose(onp.sort(got, axis=-1), onp.sort(onp.real(w), axis=-1), rtol=1e-4, atol=1e-4):
        raise RuntimeError("MXNet's eigenvalues differ from NumPy's in %r" % name)
    return {"name": name, "op": op, "attrs": {}, "inputs": [arr(x)], "outputs": [arr(y) for y in ys]}


def cases():
    E, V = OPS
    cs = []
    # (Seed 14 for the 5x5 eig case is left out: for that float32 matrix MXNet's sgeev returns the
    # first two eigenvalues in the other order than NumPy's LAPACK and ours; LAPACK's order is
    # rounding-dependent there.)
    for n, seed in [(2, 1), (3, 2), (4, 3), (5, 4), (6, 5)]:
        cs.append(case("eigvals similar %dx%d" % (n, n), V, real_spectrum(n, seed)))
        cs.append(case("eig similar %dx%d" % (n, n), E, real_spectrum(n, seed + 10 if seed != 4 else 41)))
    for n, seed in [(3, 21), (4, 22), (5, 23)]:
        cs.append(case("eigvals near triangular %dx%d" % (n, n), V, real_spectrum(n, seed, kind="tri")))
        cs.append(case("eig near triangular %dx%d" % (n, n), E, real_spectrum(n, seed + 10, kind="tri")))
    cs.append(case("eig batch float64", E, real_spectrum(3, 31, "float64", (2, 2))))
    cs.append(case("eigvals batch float64", V, real_spectrum(4, 32, "float64", (3,))))
    cs.append(case("eig int32", E, np.array([[2, 1], [0, 3]], dtype="int32")))
    cs.append(case("eigvals int32", V, np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]], dtype="int32")))
    cs.append(case("eig 1x1", E, np.array([[2.5]])))
    cs.append(case("eig diagonal", E, np.array([[3.0, 0, 0], [0, 1, 0], [0, 0, 2]])))
    return cs


def errors():
    specs = [
        ("eig complex eigenvalues", "_npi_eig", [np.array([[0.0, -1.0], [1.0, 0.0]])], {}),
        ("eigvals non-square", "_npi_eigvals", [rand((2, 3), 1)], {}),
        ("eig 1-d", "_npi_eig", [rand((3,), 2)], {}),
        ("eigvals float16", "_npi_eigvals", [rand((2, 2), 3, "float16")], {}),
    ]
    return collect_errors(specs)


def write_np_eig(out_dir, registry):
    write_refs(out_dir, "np_eig.json", "tools/conformance/refs_np_eig.py", registry, OPS, cases, errors)


if __name__ == "__main__":
    import sys
    from gen_reduce_refs import registry
    write_np_eig(sys.argv[1] if len(sys.argv) > 1 else "ndarray/ops/testdata/reduce", registry)
