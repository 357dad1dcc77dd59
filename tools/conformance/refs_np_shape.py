"""Reference cases of MXNet 1.9.1's NumPy-interface shape ops (ndarray/ops/numpy/shape_np.cc):
_np_reshape, _npx_reshape, _np_squeeze, _np_transpose, _np_moveaxis, _np_roll, _npi_flip,
_npi_rot90, _np_copy, _np_atleast_1d/_2d/_3d, _npi_broadcast_to and (shape_np_join.cc)
_npi_concatenate, _npi_stack, _npi_vstack, _npi_hstack, _npi_dstack, _npi_column_stack,
_npi_hsplit, _npi_dsplit and (shape_np_diag.cc) _np_diag, _np_diagflat, _np_diagonal, _npi_tril, _npi_diag_indices_from,
_npi_share_memory (values, gradients, 0-dim and
zero-size shapes, dtypes), their registry entries and rejected calls. No MXNet gradients where
MXNet's are wrong (rot90 with odd k, atleast_*d: zeros). hsplit/dsplit: only calls MXNet gets
right (its dsplit returns wrong values for uneven sections, and some index lists corrupt its heap). Ops are invoked by name
(MXImperativeInvoke, np semantics on: npx.set_np()).

Called from gen_shape_refs.py (gen(out_dir)); writes np.json in the format of internal.json:
{"mxnet_version", "cases": [{"name", "op", "attrs", "inputs", "outputs", optional "head_grads",
"grads"}], "ops": registry entries, "errors": [{"name", "op", "attrs", "inputs", "message"}]}.
Read by ndarray/ops/numpy/shape_np_test.cc, compared by report.py. Deterministic (fixed seeds).
"""
import ctypes
import json
import os

import numpy as onp
import mxnet as mx
from mxnet import np, npx
from mxnet.base import _LIB, OpHandle, c_str, check_call
from mxnet._ctypes.ndarray import _imperative_invoke
from refs_errors import collect_errors

PUBLIC = ["_np_reshape", "_npx_reshape", "_np_squeeze", "_np_transpose", "_np_moveaxis", "_np_roll",
          "_npi_flip", "_npi_rot90", "_np_copy", "_np_atleast_1d", "_np_atleast_2d", "_np_atleast_3d",
          "_npi_broadcast_to", "_npi_concatenate", "_npi_stack", "_npi_vstack", "_npi_hstack",
          "_npi_dstack", "_npi_column_stack", "_np_diag", "_np_diagflat", "_np_diagonal", "_npi_tril",
          "_npi_diag_indices_from", "_npi_share_memory", "_npi_hsplit", "_npi_dsplit"]
MULTI = {"_np_atleast_1d", "_np_atleast_2d", "_np_atleast_3d"}


def invoke(op, xs, attrs):
    h = OpHandle()
    check_call(_LIB.NNGetOpHandle(c_str(op), ctypes.byref(h)))
    return _imperative_invoke(h.value, list(xs), list(attrs.keys()), [str(v) for v in attrs.values()],
                              None, True, op in MULTI)


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
    return {"shape": list(a.shape), "dtype": dt,
            "data": [_num(v, a.dtype.type) for v in a.reshape(-1).tolist()]}


def _rand(shape, seed, dtype="float32"):
    rng = onp.random.RandomState(seed)
    return np.array(onp.round(rng.uniform(-1, 1, size=shape), 4).astype(dtype), dtype=dtype)


def _iota(shape, dtype="float32"):
    return np.array(onp.arange(int(onp.prod(shape))).reshape(shape).astype(dtype), dtype=dtype)


def _case(name, op, inputs, attrs=None, grad=False, seed=0):
    attrs = attrs or {}
    c = {"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
         "inputs": [_arr(x) for x in inputs]}
    if grad:
        xs = [x.copy() for x in inputs]
        for x in xs:
            x.attach_grad()
        with mx.autograd.record():
            ys = invoke(op, xs, attrs)
        ys = ys if isinstance(ys, list) else [ys]
        hgs = [_rand(y.shape, seed + 1000 + i, onp.dtype(y.dtype).name) for i, y in enumerate(ys)]
        mx.autograd.backward(ys, hgs)
        c["head_grads"] = [_arr(h) for h in hgs]
        c["grads"] = [_arr(x.grad) for x in xs]
    else:
        ys = invoke(op, inputs, attrs)
        ys = ys if isinstance(ys, list) else [ys]
    c["outputs"] = [_arr(y) for y in ys]
    return c


def _errors():
    a = _iota((2, 3, 4))
    specs = [
        ("reshape -2", "_np_reshape", [a], {"newshape": (4, -2)}),
        ("reshape two -1", "_np_reshape", [a], {"newshape": (-1, -1)}),
        ("reshape size", "_np_reshape", [a], {"newshape": (5, -1)}),
        ("reshape zero-size infer", "_np_reshape", [np.zeros((0, 3))], {"newshape": (-1, 0)}),
        ("npx_reshape 0 infer", "_npx_reshape", [a], {"newshape": (0, -1)}),
        ("npx_reshape -3 not 1", "_npx_reshape", [a], {"newshape": (-3, -4)}),
        ("npx_reshape -6 reverse", "_npx_reshape", [a], {"newshape": (-6, 2, 2, -4), "reverse": True}),
        ("npx_reshape too few", "_npx_reshape", [a], {"newshape": (-2, -2)}),
        ("squeeze not 1", "_np_squeeze", [np.zeros((1, 3))], {"axis": 1}),
        ("squeeze out of range", "_np_squeeze", [np.zeros((1, 3))], {"axis": 2}),
        ("transpose axes length", "_np_transpose", [a], {"axes": (0, 1)}),
        ("transpose repeated", "_np_transpose", [a], {"axes": (0, 1, 1)}),
        ("transpose out of range", "_np_transpose", [a], {"axes": (0, 1, 3)}),
        ("moveaxis out of range", "_np_moveaxis", [a], {"source": (0,), "destination": (3,)}),
        ("moveaxis lengths", "_np_moveaxis", [a], {"source": (0, 1), "destination": (2,)}),
        ("moveaxis repeated", "_np_moveaxis", [a], {"source": (0, 0), "destination": (1, 2)}),
        ("roll no shift", "_np_roll", [a], {}),
        ("roll flat two shifts", "_np_roll", [a], {"shift": (1, 2)}),
        ("roll lengths", "_np_roll", [a], {"shift": (1, 2), "axis": (0, 1, 2)}),
        ("roll repeated axis", "_np_roll", [a], {"shift": (1, 2), "axis": (2, 2)}),
        ("roll out of range", "_np_roll", [a], {"shift": (1,), "axis": (3,)}),
        ("flip negative axis", "_npi_flip", [a], {"axis": (0, -1)}),
        ("flip out of range", "_npi_flip", [a], {"axis": (3,)}),
        ("rot90 no axes", "_npi_rot90", [a], {}),
        ("rot90 same axes", "_npi_rot90", [a], {"axes": (1, 1)}),
        ("rot90 1-d", "_npi_rot90", [np.zeros(3)], {"axes": (0, 1)}),
        ("rot90 three axes", "_npi_rot90", [a], {"axes": (0, 1, 2)}),
        ("broadcast_to -1", "_npi_broadcast_to", [np.zeros((3, 1))], {"shape": (-1, 4)}),
        ("broadcast_to mismatch", "_npi_broadcast_to", [np.zeros((3, 2))], {"shape": (3, 4)}),
        ("broadcast_to fewer dims", "_npi_broadcast_to", [np.zeros((3, 2))], {"shape": (2,)}),
        ("concatenate shapes differ", "_npi_concatenate", [np.ones((2, 3)), np.zeros((2, 2))],
         {"num_args": 2, "axis": 0}),
        ("concatenate ranks differ", "_npi_concatenate", [np.ones((2, 3)), np.ones(3)], {"num_args": 2}),
        ("concatenate 0-dim", "_npi_concatenate", [np.array(1.0), np.array(2.0)], {"num_args": 2}),
        ("concatenate axis out of range", "_npi_concatenate", [np.ones((2, 3)), np.ones((2, 2))],
         {"num_args": 2, "axis": 2}),
        ("concatenate mixed dtypes", "_npi_concatenate", [np.zeros((2, 2)), np.zeros((2, 2), dtype="int32")],
         {"num_args": 2, "axis": 1}),
        ("stack mixed dtypes", "_npi_stack", [np.zeros((2, 2)), np.zeros((2, 2), dtype="int32")], {"num_args": 2}),
        ("stack axis out of range", "_npi_stack", [np.ones((2, 3)), np.ones((2, 3))], {"num_args": 2, "axis": 3}),
        ("vstack shapes differ", "_npi_vstack", [np.ones((2, 3)), np.zeros((2, 2))], {"num_args": 2}),
        ("hstack shapes differ", "_npi_hstack", [np.ones((2, 3)), np.ones((3, 3))], {"num_args": 2}),
        ("hstack mixed dtypes", "_npi_hstack", [np.zeros((2, 2)), np.zeros((2, 2), dtype="int32")], {"num_args": 2}),
        ("dstack shapes differ", "_npi_dstack", [np.ones((2, 3)), np.zeros((2, 2))], {"num_args": 2}),
        ("diag 3-d", "_np_diag", [np.zeros((2, 2, 2))], {}),
        ("diag 0-dim", "_np_diag", [np.array(1.0)], {}),
        ("diagonal 1-d", "_np_diagonal", [np.zeros(3)], {}),
        ("diagonal same axes", "_np_diagonal", [np.zeros((3, 4))], {"axis1": 1, "axis2": 1}),
        ("diagonal axis out of range", "_np_diagonal", [np.zeros((3, 4))], {"axis2": 2}),
        ("diagflat 0-dim", "_np_diagflat", [np.array(2.0)], {}),
        ("tril 0-dim", "_npi_tril", [np.array(2.0)], {}),
        ("diag_indices_from 1-d", "_npi_diag_indices_from", [np.zeros(3)], {}),
        ("diag_indices_from unequal", "_npi_diag_indices_from", [np.zeros((3, 4))], {}),
        ("hsplit 0-dim", "_npi_hsplit", [np.array(1.0)], {"indices": (), "sections": 1}),
        ("dsplit 2-d", "_npi_dsplit", [np.ones((2, 3))], {"indices": (), "sections": 3}),
        ("column_stack shapes differ", "_npi_column_stack", [np.ones(3), np.zeros((2, 2))], {"num_args": 2}),
    ]
    first = lambda r: r[0] if isinstance(r, list) else r  # noqa: E731
    return collect_errors(specs, lambda op, inputs, attrs: first(invoke(op, inputs, attrs)), _arr,
                          catch=(mx.base.MXNetError, ValueError))


def _cases():
    cs = []
    a = _rand((2, 3, 4), 1)
    R, X = "_np_reshape", "_npx_reshape"
    cs.append(_case("reshape (4, -1)", R, [a], {"newshape": (4, -1)}, grad=True, seed=1))
    cs.append(_case("reshape order F ignored", R, [a], {"newshape": (3, 8), "order": "F"}))
    cs.append(_case("reshape to 0-dim", R, [np.array([3.5])], {"newshape": ()}, grad=True, seed=2))
    cs.append(_case("reshape 0-dim to (1, 1)", R, [np.array(2.5)], {"newshape": (1, 1)}))
    cs.append(_case("reshape zero-size", R, [np.zeros((0, 3))], {"newshape": (3, -1)}))
    cs.append(_case("reshape int32", R, [_iota((2, 3), "int32")], {"newshape": (-1,)}))
    for ns, rev in [((-2, -1), False), ((-4,), False), ((-5, -2), False), ((-6, 1, 2, -4), False),
                    ((-6, -1, 2, -4), False), ((-2, -4), False), ((-4, 1), False), ((3, 8), False),
                    ((2, -2, -2), False), ((-1, -2), True), ((-4, -1), True), ((-2, -5), False)]:
        cs.append(_case("npx_reshape %s reverse=%s" % (ns, rev), X, [a], {"newshape": ns, "reverse": rev},
                        grad=ns == (-6, 1, 2, -4), seed=3))
    cs.append(_case("npx_reshape -3", X, [_rand((2, 1, 4), 2)], {"newshape": (-2, -3, -2)}, grad=True, seed=4))
    cs.append(_case("npx_reshape alias _npi_reshape", "_npi_reshape", [a], {"newshape": (-1, 4)}))
    S = "_np_squeeze"
    cs.append(_case("squeeze all", S, [_rand((1, 3, 1), 3)], grad=True, seed=5))
    cs.append(_case("squeeze to 0-dim", S, [np.ones((1, 1))]))
    cs.append(_case("squeeze axis -1", S, [_rand((1, 3, 1), 4)], {"axis": (-1,)}))
    cs.append(_case("squeeze zero-size", S, [np.zeros((0, 1))], {"axis": 1}))
    T = "_np_transpose"
    cs.append(_case("transpose None", T, [a], grad=True, seed=6))
    cs.append(_case("transpose negative axes", T, [a], {"axes": (-1, 0, 1)}, grad=True, seed=7))
    cs.append(_case("transpose 0-dim", T, [np.array(3.0)]))
    cs.append(_case("transpose int64", T, [_iota((2, 3), "int64")], {"axes": (1, 0)}))
    M = "_np_moveaxis"
    cs.append(_case("moveaxis 0 -> -1", M, [a], {"source": (0,), "destination": (-1,)}, grad=True, seed=8))
    cs.append(_case("moveaxis two", M, [a], {"source": (0, 1), "destination": (2, 0)}, grad=True, seed=9))
    O = "_np_roll"
    cs.append(_case("roll flat", O, [a], {"shift": (5,)}, grad=True, seed=10))
    cs.append(_case("roll two axes", O, [a], {"shift": (1, -1), "axis": (0, 2)}, grad=True, seed=11))
    cs.append(_case("roll shift broadcast", O, [a], {"shift": (1,), "axis": (0, 2)}))
    cs.append(_case("roll negative", O, [a], {"shift": (-7,), "axis": (-1,)}))
    cs.append(_case("roll 0-dim", O, [np.array(2.0)], {"shift": (1,)}))
    cs.append(_case("roll zero-size", O, [np.zeros((2, 0))], {"shift": (1,), "axis": (0,)}))
    F = "_npi_flip"
    cs.append(_case("flip 0 2", F, [a], {"axis": (0, 2)}, grad=True, seed=12))
    cs.append(_case("flip twice", F, [a], {"axis": (0, 0)}))
    cs.append(_case("flip none", F, [a], {"axis": ()}))
    cs.append(_case("flip int8", F, [_iota((4,), "int8")], {"axis": (0,)}))
    Q = "_npi_rot90"
    for k, axes in [(1, (0, 1)), (2, (1, 2)), (3, (0, 2)), (-1, (0, 2)), (5, (-1, 0)), (0, (0, 1)), (4, (1, 0))]:
        # MXNet 1.9.1's backward rotates by +k, not -k: wrong for odd k, so forward only there
        # (ours is checked by finite differences in //ndarray:all_ops_test).
        cs.append(_case("rot90 k=%d axes=%s" % (k, axes), Q, [a], {"k": k, "axes": axes},
                        grad=k % 2 == 0, seed=13 + k))
    cs.append(_case("copy", "_np_copy", [a], grad=True, seed=20))
    cs.append(_case("copy int32", "_np_copy", [_iota((2,), "int32")]))
    three = [np.array(3.0), _rand((3,), 21), _rand((2, 3), 22)]
    for n in ("1d", "2d", "3d"):  # forward only: MXNet 1.9.1's gradients of atleast_*d are zeros
        cs.append(_case("atleast_" + n, "_np_atleast_" + n, three, {"num_args": 3}))
    cs.append(_case("atleast_3d 4-d", "_np_atleast_3d", [_rand((1, 2, 1, 2), 24)], {"num_args": 1}))
    B = "_npi_broadcast_to"
    cs.append(_case("broadcast_to (2, 3, 4)", B, [_rand((3, 1), 25)], {"shape": (2, 3, 4)}, grad=True, seed=26))
    cs.append(_case("broadcast_to from 0-dim", B, [np.array(2.0)], {"shape": (2, 2)}, grad=True, seed=27))
    cs.append(_case("broadcast_to zero-size", B, [np.zeros((3, 1))], {"shape": (3, 0)}))
    cs.append(_case("broadcast_to 1 -> 0", B, [np.zeros((1,))], {"shape": (0,)}))
    cs.append(_case("broadcast_to int32", B, [_iota((2,), "int32")], {"shape": (2, 2)}))
    cs += _join_cases()
    cs += _diag_cases()
    return cs


def _diag_cases():
    cs = []
    m, v = _rand((3, 4), 70), _rand((3,), 71)
    G = "_np_diag"
    cs.append(_case("diag 2-D", G, [m], grad=True, seed=72))
    cs.append(_case("diag 2-D k=1", G, [m], {"k": 1}, grad=True, seed=73))
    cs.append(_case("diag 2-D k=-2", G, [m], {"k": -2}))
    cs.append(_case("diag 2-D k past the end", G, [m], {"k": 5}))
    cs.append(_case("diag 1-D k=1", G, [v], {"k": 1}, grad=True, seed=74))
    cs.append(_case("diag 1-D k=-2", G, [v], {"k": -2}))
    cs.append(_case("diag zero-size", G, [np.zeros((0,))]))
    cs.append(_case("diag int32", G, [_iota((2, 2), "int32")]))
    D = "_np_diagonal"
    t = _rand((2, 3, 4), 75)
    cs.append(_case("diagonal default", D, [m], grad=True, seed=76))
    cs.append(_case("diagonal 3-D offset 1 axes 1 2", D, [t], {"offset": 1, "axis1": 1, "axis2": 2},
                    grad=True, seed=77))
    cs.append(_case("diagonal negative axes", D, [t], {"offset": -1, "axis1": -1, "axis2": 0},
                    grad=True, seed=78))
    cs.append(_case("diagonal offset past the end", D, [m], {"offset": 9}))
    F = "_np_diagflat"
    cs.append(_case("diagflat 2-D k=-1", F, [_rand((2, 2), 79)], {"k": -1}, grad=True, seed=80))
    cs.append(_case("diagflat 1-D k=2", F, [v], {"k": 2}))
    T = "_npi_tril"
    cs.append(_case("tril", T, [m], grad=True, seed=81))
    cs.append(_case("tril k=1", T, [m], {"k": 1}))
    cs.append(_case("tril k=-1 3-D", T, [t], {"k": -1}, grad=True, seed=82))
    cs.append(_case("tril k=-5", T, [m], {"k": -5}))
    cs.append(_case("tril 1-D", T, [v], grad=True, seed=83))
    cs.append(_case("tril int32", T, [_iota((2, 2), "int32")]))
    cs.append(_case("tril zero-size", T, [np.zeros((0, 3))]))
    I = "_npi_diag_indices_from"
    cs.append(_case("diag_indices_from 2-D", I, [np.zeros((3, 3))]))
    cs.append(_case("diag_indices_from 3-D int32", I, [np.zeros((2, 2, 2), dtype="int32")]))
    cs.append(_case("share_memory distinct", "_npi_share_memory", [m, m.copy()]))
    return cs


def _join_cases():
    cs = []
    C = "_npi_concatenate"
    a, b = _rand((2, 3), 30), _rand((1, 3), 31)
    cs.append(_case("concatenate axis 0", C, [a, b], {"num_args": 2, "axis": 0}, grad=True, seed=32))
    cs.append(_case("concatenate default axis", C, [a, _rand((2, 3), 33)], {"num_args": 2}))
    cs.append(_case("concatenate axis -1", C, [a, _rand((2, 2), 34)], {"num_args": 2, "axis": -1},
                    grad=True, seed=35))
    cs.append(_case("concatenate axis None", C, [a, _rand((2,), 36)], {"num_args": 2, "axis": None},
                    grad=True, seed=37))
    cs.append(_case("concatenate zero-size", C, [np.zeros((2, 0)), _rand((2, 2), 38)], {"num_args": 2, "axis": 1}))
    cs.append(_case("concatenate one", C, [a], {"num_args": 1, "axis": 0}))
    cs.append(_case("concatenate int32 three", C, [_iota((2,), "int32"), _iota((1,), "int32"), _iota((3,), "int32")],
                    {"num_args": 3, "axis": 0}))
    S = "_npi_stack"
    cs.append(_case("stack axis 0", S, [a, _rand((2, 3), 39)], {"num_args": 2}, grad=True, seed=40))
    cs.append(_case("stack axis -1", S, [a, _rand((2, 3), 41)], {"num_args": 2, "axis": -1}, grad=True, seed=42))
    cs.append(_case("stack 0-dim", S, [np.array(1.5), np.array(-2.0)], {"num_args": 2}, grad=True, seed=43))
    V, H, D, K = "_npi_vstack", "_npi_hstack", "_npi_dstack", "_npi_column_stack"
    one, three, mat = _rand((3,), 44), _rand((3,), 45), _rand((2, 3), 46)
    cs.append(_case("vstack 1-D", V, [one, three], {"num_args": 2}, grad=True, seed=47))
    cs.append(_case("vstack 1-D and 2-D", V, [one, mat], {"num_args": 2}, grad=True, seed=48))
    cs.append(_case("vstack 0-dim", V, [np.array(1.0), np.array(2.0)], {"num_args": 2}))
    cs.append(_case("hstack 1-D", H, [one, _rand((2,), 49)], {"num_args": 2}, grad=True, seed=50))
    cs.append(_case("hstack 2-D", H, [mat, _rand((2, 2), 51)], {"num_args": 2}, grad=True, seed=52))
    cs.append(_case("hstack 0-dim", H, [np.array(1.0), np.array(2.0)], {"num_args": 2}, grad=True, seed=53))
    cs.append(_case("hstack dim ignored", H, [mat, _rand((2, 2), 54)], {"num_args": 2, "dim": 0}))
    cs.append(_case("hstack zero-size", H, [np.zeros((2, 0)), _rand((2, 2), 55)], {"num_args": 2}))
    cs.append(_case("dstack 1-D", D, [one, three], {"num_args": 2}, grad=True, seed=56))
    cs.append(_case("dstack 2-D", D, [mat, _rand((2, 3), 57)], {"num_args": 2}, grad=True, seed=58))
    cs.append(_case("dstack 3-D", D, [_rand((2, 3, 1), 59), _rand((2, 3, 2), 60)], {"num_args": 2}))
    cs.append(_case("dstack 0-dim", D, [np.array(1.0), np.array(2.0)], {"num_args": 2}))
    cs.append(_case("column_stack 1-D", K, [one, three], {"num_args": 2}, grad=True, seed=61))
    cs.append(_case("column_stack 1-D and 2-D", K, [_rand((2,), 62), _rand((2, 2), 63)], {"num_args": 2},
                    grad=True, seed=64))
    cs.append(_case("column_stack 0-dim", K, [np.array(1.0), np.array(2.0)], {"num_args": 2}))
    cs.append(_case("column_stack 3-D", K, [_rand((2, 1, 2), 65), _rand((2, 2, 2), 66)], {"num_args": 2}))
    X = _rand((2, 5, 4), 67)
    cs.append(_case("hsplit sections 3 of 5", "_npi_hsplit", [X], {"indices": (), "sections": 3}, grad=True, seed=68))
    cs.append(_case("hsplit indices", "_npi_hsplit", [_rand((2, 4, 3), 69)], {"indices": (0, 1, 3)}, grad=True,
                    seed=70))
    cs.append(_case("hsplit 1-D sections 4 of 10", "_npi_hsplit", [_iota((10,))], {"indices": (), "sections": 4}))
    cs.append(_case("hsplit squeeze", "_npi_hsplit", [_rand((2, 4, 3), 71)],
                    {"indices": (), "sections": 4, "squeeze_axis": True}, grad=True, seed=72))
    # No dsplit values: MXNet 1.9.1's dsplit corrupts its heap (the generator aborts); ours is
    # checked by hand in shape_np_test.cc and by //ndarray:all_ops_test.
    cs.append(_case("column_stack int64", K, [_iota((2,), "int64"), _iota((2,), "int64")], {"num_args": 2}))
    return cs


def gen(out_dir):
    from gen_reduce_refs import registry  # MXNet's registry entries (names, attrs, inputs)
    npx.set_np()
    try:
        cs = _cases()
        errs = _errors()
    finally:
        npx.reset_np()
    doc = {"generator": "tools/conformance/refs_np_shape.py", "mxnet_version": mx.__version__,
           "cases": cs, "ops": registry(PUBLIC), "errors": errs}
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "np.json")
    with open(path, "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    print("wrote %s: %d cases, %d errors" % (path, len(cs), len(errs)))


if __name__ == "__main__":
    import sys
    gen(sys.argv[1] if len(sys.argv) > 1 else "ndarray/ops/testdata/shape")
