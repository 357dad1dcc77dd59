"""Reference cases of MXNet 1.9.1's NumPy-interface matrix products (ndarray/ops/linalg/np_linalg.cc):
_np_dot, _npi_matmul, _npi_tensordot, _npi_tensordot_int_axes, _npi_einsum, _npi_cholesky, _npi_solve,
_npi_tensorinv, _npi_tensorsolve (values + gradients); _npi_eigh, _npi_eigvalsh (values; MXNet
registers no gradient for them).

Called by gen_reduce_refs.py (write_np_linalg(OUT, registry)); writes OUT/np_linalg.json, read by
ndarray/ops/linalg/np_linalg_test.cc and compared by tools/conformance/report.py:
  "cases"     {"name", "op", "attrs", "inputs", "outputs"[, "head_grads", "grads"]} as the other
              reduce files (arrays {"shape", "dtype", "data"})
  "errors"    [{"name", "op", "attrs", "inputs", "message"}]: calls MXNet rejects
  "ops"       op -> {"names", "inputs", "attrs"} as MXNet registers it
Deterministic: fixed seeds, sorted keys.
"""
import json
import os
import warnings

warnings.filterwarnings("ignore")
import numpy as onp
import mxnet as mx
from mxnet import np, npx
import mxnet.ndarray.numpy._internal as _npi
from refs_errors import collect_errors

OPS = ["_np_dot", "_npi_matmul", "_npi_tensordot", "_npi_tensordot_int_axes", "_npi_einsum", "_npi_cholesky",
       "_npi_solve", "_npi_tensorinv", "_npi_tensorsolve", "_npi_eigh", "_npi_eigvalsh"]


def fn(op):
    if op == "_npi_cholesky":
        return mx.ndarray.numpy.linalg.cholesky
    if op == "_npi_solve":
        return mx.ndarray.numpy.linalg.solve
    if op == "_npi_tensorinv":
        return mx.ndarray.numpy.linalg.tensorinv
    if op in ("_npi_eigh", "_npi_eigvalsh"):
        return getattr(mx.ndarray.numpy.linalg, op[len("_npi_"):])
    if op == "_npi_tensorsolve":
        return _npi.tensorsolve
    if op == "_np_dot":
        return mx.ndarray.numpy.dot  # np.dot: the _np_dot op
    return getattr(_npi, op[len("_npi_"):])


def arr(a):
    a = a.asnumpy() if hasattr(a, "asnumpy") else onp.asarray(a)
    dt = "bool" if a.dtype == onp.bool_ else a.dtype.name
    data = []
    for v in a.reshape(-1).tolist():
        v = float(v)
        if v == int(v) and abs(v) < 2**53:
            data.append(int(v))
        elif a.dtype in (onp.float32, onp.float16):
            data.append(float(str(a.dtype.type(v))))
        else:
            data.append(v)
    return {"shape": list(a.shape), "dtype": dt, "data": data}


def rand(shape, seed, dtype="float32", lo=-1, hi=1):
    rng = onp.random.RandomState(seed)
    v = onp.round(rng.uniform(lo, hi, size=shape), 4)
    if dtype in ("int32", "int64", "int8", "uint8"):
        v = rng.randint(-3 if dtype != "uint8" else 0, 4, size=shape)
    return np.array(v.astype(dtype), dtype=dtype)


def call(op, xs, attrs):
    return fn(op)(*xs, **attrs)


# MXNet 1.9.1's gradient is wrong for the operand that broadcasts over batch axes it lacks or
# has as size 1 (checked against NumPy: sum over the broadcast axes of the per-batch gradient);
# these cases keep MXNet's forward values only, ours are checked by finite differences
# (reduce_np_linalg_cases.cc: the broadcast matmul/einsum cases).
WRONG_GRAD = {"matmul broadcast batch", "einsum ellipsis broadcast"}


def case(name, op, inputs, attrs=None, grad=True, seed=0):
    attrs = dict(attrs or {})
    grad = grad and name not in WRONG_GRAD
    if op == "_npi_einsum":
        attrs.setdefault("optimize", 0)
        full = dict(attrs, num_args=len(inputs))
    else:
        full = attrs
    c = {"name": name, "op": op, "attrs": {k: str(v) for k, v in full.items()},
         "inputs": [arr(x) for x in inputs]}
    if grad:
        xs = [x.copy() for x in inputs]
        for x in xs:
            x.attach_grad()
        with mx.autograd.record():
            y = call(op, xs, attrs)
        hg = rand(y.shape, seed + 1000, onp.dtype(y.dtype).name)
        y.backward(hg)
        c["outputs"] = [arr(y)]
        c["head_grads"] = [arr(hg)]
        c["grads"] = [arr(x.grad) for x in xs]
    else:
        ys = call(op, inputs, attrs)
        c["outputs"] = [arr(y) for y in (ys if isinstance(ys, (list, tuple)) else [ys])]
    return c


def spd(n, seed, dtype="float32", batch=()):
    rng = onp.random.RandomState(seed)
    x = onp.round(rng.uniform(-1, 1, size=batch + (n, n)), 4)
    a = onp.matmul(x, onp.swapaxes(x, -1, -2)) + n * onp.eye(n)
    return np.array(a.astype(dtype), dtype=dtype)


def dominant(n, seed, dtype="float32", batch=()):
    rng = onp.random.RandomState(seed)
    a = onp.round(rng.uniform(-1, 1, size=batch + (n, n)), 4) + 2.5 * onp.eye(n)
    return np.array(a.astype(dtype), dtype=dtype)


def sym(n, seed, dtype="float32", batch=()):
    """Asymmetric input whose lower (and upper) triangles give well separated eigenvalues."""
    rng = onp.random.RandomState(seed)
    a = onp.round(rng.uniform(-0.3, 0.3, size=batch + (n, n)), 4) + onp.diag(onp.arange(n) * 2.0 + 1)
    return np.array(a.astype(dtype), dtype=dtype)


def cases():
    r = rand
    d, m, t, ti, e, ch, so, tinv, ts, eh, ev = OPS
    return [
        case("eigvalsh lower", ev, [sym(3, 131)], grad=False),
        case("eigvalsh upper", ev, [sym(3, 132)], {"UPLO": "U"}, grad=False),
        case("eigvalsh batch float64", ev, [sym(4, 133, "float64", (2,))], grad=False),
        case("eigvalsh int32", ev, [np.array([[2, 1], [1, 3]], dtype="int32")], grad=False),
        case("eigh lower", eh, [sym(3, 134)], grad=False),
        case("eigh upper float64", eh, [sym(4, 135, "float64")], {"UPLO": "U"}, grad=False),
        case("eigh batch", eh, [sym(3, 136, "float32", (2,))], grad=False),
        case("tensorsolve default axes", ts, [dominant(6, 121).reshape(2, 3, 6), r((2, 3), 122)], seed=81),
        case("tensorsolve a_axes (0,)", ts, [dominant(6, 123).reshape(6, 2, 3), r((2, 3), 124)],
             {"a_axes": (0,)}, seed=82),
        case("tensorsolve a_axes (1,) float64", ts,
             [dominant(6, 125, "float64").reshape(2, 6, 3), r((2, 3), 126, "float64")], {"a_axes": (1,)}, seed=83),
        case("tensorsolve 4-d", ts, [dominant(4, 127).reshape(2, 2, 2, 2), r((2, 2), 128)], seed=84),
        case("tensorsolve int32", ts, [np.array(onp.eye(4).reshape(2, 2, 4) * 2, dtype="int32"),
                                       np.array([[1, 2], [3, 4]], dtype="int32")], grad=False),
        case("tensorinv ind 1", tinv, [dominant(6, 111).reshape(6, 2, 3)], {"ind": 1}, seed=71),
        case("tensorinv ind 2 float64", tinv, [dominant(6, 112, "float64").reshape(2, 3, 6)], {"ind": 2},
             seed=72),
        case("tensorinv default ind", tinv, [dominant(4, 113).reshape(2, 2, 2, 2)], seed=73),
        case("cholesky 3x3", ch, [spd(3, 91)], seed=61),
        case("cholesky batch float64", ch, [spd(2, 92, "float64", (3,))], seed=62),
        case("cholesky 1x1", ch, [spd(1, 93)], seed=63),
        # MXNet 1.9.1's solve backward fails for vector B (gemm dimension / batch size checks); forward only here, ours checked by finite differences.
        case("solve vector", so, [dominant(3, 94), r((3,), 95)], grad=False),
        case("solve matrix", so, [dominant(3, 96), r((3, 2), 97)], seed=65),
        case("solve batch vectors float64", so, [dominant(2, 98, "float64", (2,)), r((2, 2), 99, "float64")],
             grad=False),
        case("solve batch matrices", so, [dominant(3, 100, "float32", (2,)), r((2, 3, 4), 101)], seed=67),
        case("solve float32 with float64", so, [dominant(2, 102), r((2,), 103, "float64")], grad=False),
        case("solve int32", so, [np.array([[3, 1], [1, 2]], dtype="int32"), np.array([9, 8], dtype="int32")],
             grad=False),
        case("dot 1d.1d", d, [r((4,), 1), r((4,), 2)], seed=1),
        case("dot 2d.2d", d, [r((2, 3), 3), r((3, 4), 4)], seed=2),
        case("dot 3d.1d", d, [r((2, 3, 4), 5), r((4,), 6)], seed=3),
        case("dot 1d.2d", d, [r((3,), 7), r((3, 2), 8)], seed=4),
        case("dot 3d.3d", d, [r((2, 3, 4), 9), r((2, 4, 3), 10)], seed=5),
        case("dot 0d.2d", d, [r((), 11), r((2, 3), 12)], seed=6),
        case("dot 2d.0d float64", d, [r((2, 3), 13, "float64"), r((), 14, "float64")], seed=7),
        case("dot float64 2d.3d", d, [r((3, 2), 17, "float64"), r((4, 2, 3), 18, "float64")], seed=8),
        case("matmul 2d", m, [r((3, 4), 21), r((4, 2), 22)], seed=11),
        case("matmul broadcast batch", m, [r((2, 1, 3, 4), 23), r((5, 4, 2), 24)], seed=12),
        case("matmul 1d.3d", m, [r((4,), 25), r((2, 4, 3), 26)], seed=13),
        case("matmul 3d.1d", m, [r((2, 3, 4), 27), r((4,), 28)], seed=14),
        case("matmul 1d.1d", m, [r((3,), 29), r((3,), 30)], seed=15),
        case("matmul batch 1 vs 3", m, [r((1, 2, 3), 31), r((3, 3, 2), 32)], seed=16),
        case("matmul float64", m, [r((2, 2, 3), 35, "float64"), r((3, 4), 36, "float64")], seed=17),
        case("tensordot axes lists", t, [r((3, 4, 5), 41), r((4, 3, 2), 42)],
             {"a_axes_summed": (0, 1), "b_axes_summed": (1, 0)}, seed=21),
        case("tensordot negative axes", t, [r((2, 3, 4), 43), r((4, 3), 44)],
             {"a_axes_summed": (-1, -2), "b_axes_summed": (0, 1)}, seed=22),
        case("tensordot no axes (outer)", t, [r((2, 3), 45), r((2,), 46)],
             {"a_axes_summed": (), "b_axes_summed": ()}, seed=23),
        case("tensordot middle axis", t, [r((2, 3, 4), 47), r((5, 3), 48)],
             {"a_axes_summed": (1,), "b_axes_summed": (1,)}, seed=24),
        case("tensordot_int_axes 2", ti, [r((3, 4, 5), 51), r((4, 5, 2), 52)], {"axes": 2}, seed=31),
        case("tensordot_int_axes 0", ti, [r((2, 3), 53), r((2,), 54)], {"axes": 0}, seed=32),
        case("tensordot_int_axes 1 float64", ti, [r((2, 3), 55, "float64"), r((3, 2), 56, "float64")],
             {"axes": 1}, seed=33),
        case("einsum matmul", e, [r((2, 3), 61), r((3, 4), 62)], {"subscripts": "ij,jk->ik"}, seed=41),
        case("einsum implicit", e, [r((2, 3), 63), r((3, 4), 64)], {"subscripts": "ij,jk"}, seed=42),
        case("einsum implicit order", e, [r((2, 3), 65), r((4, 3), 66)], {"subscripts": "ba,ca"}, seed=43),
        case("einsum ellipsis broadcast", e, [r((5, 2, 3), 67), r((1, 3, 4), 68)],
             {"subscripts": "...ij,...jk->...ik"}, seed=44),
        case("einsum diagonal", e, [r((3, 3), 69)], {"subscripts": "ii->i"}, seed=45),
        case("einsum trace", e, [r((3, 3), 70)], {"subscripts": "ii"}, seed=46),
        case("einsum transpose", e, [r((2, 3, 4), 71)], {"subscripts": "ijk->kij"}, seed=47),
        case("einsum sum all", e, [r((2, 3), 72)], {"subscripts": "ij->"}, seed=48),
        case("einsum three operands optimize", e, [r((2, 3), 73), r((3, 4), 74), r((4, 2), 75)],
             {"subscripts": "ij,jk,kl->il", "optimize": 1}, seed=49),
        case("einsum outer", e, [r((3,), 76), r((2,), 77)], {"subscripts": "i,j->ij"}, seed=50),
        case("einsum batch bilinear", e, [r((2, 3), 78), r((3, 4, 5), 79), r((2, 5), 80)],
             {"subscripts": "bi,ijk,bk->bj"}, seed=51),
        case("einsum ellipsis left", e, [r((2, 3, 4), 81)], {"subscripts": "i...->..."}, seed=52),
        case("einsum int32", e, [r((2, 3), 82, "int32"), r((3,), 83, "int32")], {"subscripts": "ij,j->i"},
             grad=False),
        case("einsum float16", e, [r((2, 3), 86, "float16"), r((3, 2), 87, "float16")],
             {"subscripts": "ij,jk->ik"}, grad=False),
        case("einsum uint8", e, [r((2, 3), 88, "uint8")], {"subscripts": "ij->j"}, grad=False),
        case("einsum float64 spaces", e, [r((3, 2), 84, "float64"), r((3, 2), 85, "float64")],
             {"subscripts": "ij, ij -> j"}, seed=53),
    ]


def errors():
    r = rand
    specs = [
        ("dot contracted sizes differ", "_np_dot", [r((2, 3), 1), r((4,), 2)], {}),
        ("dot 2d.2d mismatch", "_np_dot", [r((2, 3), 3), r((2, 3), 4)], {}),
        ("matmul sizes differ", "_npi_matmul", [r((2, 3), 5), r((2, 3), 6)], {}),
        ("matmul batch not broadcastable", "_npi_matmul", [r((2, 2, 3), 7), r((3, 3, 2), 8)], {}),
        ("matmul 0-dim", "_npi_matmul", [r((), 9), r((2, 3), 10)], {}),
        ("tensordot sizes differ", "_npi_tensordot", [r((2, 3), 11), r((2, 3), 12)],
         {"a_axes_summed": (1,), "b_axes_summed": (0,)}),
        # (tensordot_int_axes with axes > ndim crashes MXNet 1.9.1 (free(): invalid pointer); ours
        # rejects it, checked in reduce_np_linalg_test.cc.)
        ("dot int32 (float32/float64 only)", "_np_dot", [r((2, 3), 19, "int32"), r((3,), 20, "int32")], {}),
        ("matmul float16 (float32/float64 only on CPU)", "_npi_matmul",
         [r((2, 3), 21, "float16"), r((3, 2), 22, "float16")], {}),
        ("tensordot_int_axes int32", "_npi_tensordot_int_axes", [r((3,), 23, "int32"), r((3,), 24, "int32")],
         {"axes": 1}),
        ("cholesky not positive definite", "_npi_cholesky", [np.array([[1.0, 2.0], [2.0, 1.0]])], {}),
        ("cholesky non-square", "_npi_cholesky", [r((2, 3), 25)], {}),
        ("cholesky 1-d", "_npi_cholesky", [r((3,), 26)], {}),
        ("cholesky int32", "_npi_cholesky", [np.array([[4, 2], [2, 3]], dtype="int32")], {}),
        ("solve singular", "_npi_solve", [np.ones((2, 2)), np.ones((2,))], {}),
        ("solve non-square", "_npi_solve", [r((2, 3), 27), r((2,), 28)], {}),
        ("solve rows differ", "_npi_solve", [r((2, 2), 29), r((3,), 30)], {}),
        ("solve batch differs", "_npi_solve", [r((3, 2, 2), 31), r((2, 2, 2), 32)], {}),
        ("solve float16", "_npi_solve", [r((2, 2), 33, "float16"), r((2,), 34, "float16")], {}),
        ("tensorinv not square", "_npi_tensorinv", [r((2, 3), 35)], {"ind": 1}),
        ("tensorinv ind 0", "_npi_tensorinv", [r((2, 2), 36)], {"ind": 0}),
        ("tensorsolve not square", "_npi_tensorsolve", [r((2, 3, 5), 37), r((2, 3), 38)], {}),
        ("tensorsolve float16", "_npi_tensorsolve", [r((2, 2), 39, "float16"), r((2,), 40, "float16")], {}),
        ("eigh non-square", "_npi_eigh", [r((2, 3), 41)], {}),
        ("eigvalsh 1-d", "_npi_eigvalsh", [r((3,), 42)], {}),
        ("eigvalsh float16", "_npi_eigvalsh", [r((2, 2), 43, "float16")], {}),
        ("einsum operand count", "_npi_einsum", [r((2, 3), 15)], {"subscripts": "ij,jk->ik"}),
        ("einsum label sizes differ", "_npi_einsum", [r((2, 3), 16), r((2, 4), 17)], {"subscripts": "ij,jk->ik"}),
        ("einsum ndim mismatch", "_npi_einsum", [r((2, 3, 4), 18)], {"subscripts": "ij->i"}),
    ]
    shown = lambda op, inputs, attrs: dict(attrs, num_args=len(inputs)) if op == "_npi_einsum" else attrs  # noqa: E731
    return collect_errors(specs, call, arr, shown_attrs=shown)


def write_np_linalg(out_dir, registry):
    npx.set_np()
    try:
        doc = {"generator": "tools/conformance/refs_np_linalg.py", "mxnet_version": mx.__version__,
               "ops": registry(OPS), "cases": cases(), "errors": errors()}
    finally:
        npx.reset_np()
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "np_linalg.json"), "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
