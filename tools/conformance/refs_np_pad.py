"""Reference cases of MXNet 1.9.1's mx.np.pad op _npi_pad (ndarray/ops/numpy/shape_np_pad.cc): values for
every mode, gradients for mode 'constant' (the only one MXNet differentiates; its backward of the
others fails with "Other modes are not supported", as ours), the registry entry and rejected calls.

Only calls MXNet 1.9.1 gets right (each checked against numpy.pad here: the generator fails
otherwise). MXNet is wrong for the short pad_width forms its documentation lists ("((b, a),)",
"(p,)": its op fails an index check) and ignores reflect_type='odd'; ours follows NumPy there,
checked against numpy.pad's values in shape_np_pad_test.cc.

Called from gen_shape_refs.py (gen(out_dir)); writes np_pad.json in the format of np.json, read by
ndarray/ops/numpy/shape_np_pad_test.cc and compared by report.py. Deterministic (fixed seeds).
"""
import json
import os

import numpy as onp
import mxnet as mx
from mxnet import np, npx

from refs_np_shape import _arr, _rand, _iota, _case
from refs_errors import collect_errors

OP = "_npi_pad"
MODES = ["constant", "edge", "reflect", "symmetric", "maximum", "minimum"]


def _np_pad(x, pw, mode, cval):
    kw = {"constant_values": cval} if mode == "constant" else {}
    return onp.pad(x.asnumpy(), pw, mode=mode, **kw)


def _checked(name, x, pw, mode="constant", cval=0, grad=False, seed=0):
    attrs = {"pad_width": pw, "mode": mode}
    if mode == "constant":
        attrs["constant_value"] = cval
    c = _case(name, OP, [x], attrs, grad=grad, seed=seed)
    want = _np_pad(x, pw, mode, cval)
    got = onp.array(c["outputs"][0]["data"], dtype=onp.float64).reshape(c["outputs"][0]["shape"])
    if got.shape != want.shape or not onp.allclose(got, want.astype(onp.float64), rtol=1e-7, atol=0):
        raise RuntimeError("MXNet differs from numpy.pad in %r" % name)
    return c


def _cases():
    cs = []
    a, b3 = _rand((2, 3), 1), _rand((2, 3, 4), 2)
    for mode in MODES:
        for pw in [((1, 1), (0, 2)), ((2, 3), (3, 1)), ((0, 0), (5, 4))]:
            cs.append(_checked("%s %s" % (mode, pw), a, pw, mode, cval=1.5, grad=mode == "constant", seed=10))
        cs.append(_checked("%s 3-d" % mode, b3, ((1, 0), (2, 1), (0, 3)), mode, cval=-2,
                           grad=mode == "constant", seed=11))
    cs.append(_checked("constant int32", _iota((2, 3), "int32"), ((1, 2), (2, 1)), cval=7))
    cs.append(_checked("edge int32", _iota((2, 3), "int32"), ((1, 1), (1, 1)), "edge"))
    cs.append(_checked("reflect float64", _rand((3, 3), 3, "float64"), ((4, 5), (1, 0)), "reflect"))
    cs.append(_checked("symmetric wide", _rand((2, 2), 4), ((5, 6), (3, 7)), "symmetric"))
    cs.append(_checked("reflect axis of 1", _rand((1, 3), 5), ((2, 2), (1, 1)), "reflect"))
    cs.append(_checked("maximum float64", _rand((3, 2), 6, "float64"), ((1, 1), (2, 0)), "maximum"))
    cs.append(_checked("constant zero-size", np.zeros((0, 2)), ((1, 1), (1, 0)), cval=3))
    cs.append(_checked("constant no padding", a, ((0, 0), (0, 0)), grad=True, seed=12))
    return cs


def _errors():
    a = _rand((2, 3), 1)
    specs = [
        ("bad mode", [a], {"pad_width": ((1, 1), (0, 0)), "mode": "wrap"}),
    ]
    from refs_np_shape import invoke
    return collect_errors([(name, OP, inputs, attrs) for name, inputs, attrs in specs], invoke, _arr)


def gen(out_dir):
    from gen_reduce_refs import registry  # MXNet's registry entries (names, attrs, inputs)
    npx.set_np()
    try:
        cs = _cases()
        errs = _errors()
    finally:
        npx.reset_np()
    doc = {"generator": "tools/conformance/refs_np_pad.py", "mxnet_version": mx.__version__,
           "cases": cs, "ops": registry([OP]), "errors": errs}
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "np_pad.json")
    with open(path, "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    print("wrote %s: %d cases, %d errors" % (path, len(cs), len(errs)))


if __name__ == "__main__":
    import sys
    gen(sys.argv[1] if len(sys.argv) > 1 else "ndarray/ops/testdata/shape")
