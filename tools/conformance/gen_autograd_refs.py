"""Reference gradients of composite expressions from real MXNet 1.9.1 (autograd tests).

Run: PY=$(tools/conformance/setup_venv.sh | tail -1); $PY tools/conformance/gen_autograd_refs.py
Writes autograd/testdata/composite.json: per case the inputs, head gradient, output and the
gradient of every input, computed by mx.autograd in float64.
"""
import json
import os

import mxnet as mx
import numpy as np

rng = np.random.RandomState(42)
out = {}


def arr(shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float64)


def case(name, fn, inputs, head_shape_from_out=True):
    nds = [mx.nd.array(v, dtype="float64") for v in inputs]
    for a in nds:
        a.attach_grad()
    with mx.autograd.record():
        y = fn(*nds)
    hg = arr(y.shape)
    y.backward(mx.nd.array(hg, dtype="float64"))
    out[name] = {
        "inputs": [{"shape": list(v.shape), "values": v.ravel().tolist()} for v in inputs],
        "head_grad": hg.ravel().tolist(),
        "output": {"shape": list(y.shape), "values": y.asnumpy().ravel().tolist()},
        "grads": [a.grad.asnumpy().ravel().tolist() for a in nds],
    }


# Only ops of ndarray/ops/core/basic.cc, written with MXNet's operator names.
case("mul_div_chain", lambda x, y: mx.nd.elemwise_mul(
    mx.nd.elemwise_sub(mx.nd.elemwise_add(mx.nd.elemwise_mul(x, y), mx.nd.elemwise_div(x, y)),
                       x * 3.0), y),
     [arr((3, 4)), arr((3, 4), 0.5, 2.0)])
case("broadcast_like_mix", lambda x, b: mx.nd.elemwise_add(
    mx.nd.elemwise_mul(mx.nd.broadcast_like(b, x), x), 2.0 / x),
     [arr((3, 4), 0.5, 2.0), arr((3, 1))])
case("cubic_minus", lambda x: mx.nd.elemwise_sub(mx.nd.elemwise_mul(mx.nd.elemwise_mul(x, x), x),
                                                 mx.nd.negative(x) * -1.0),
     [arr((5,))])
case("shared_input_fanout", lambda x: mx.nd.elemwise_add(mx.nd.elemwise_mul(x, x),
                                                         mx.nd.elemwise_div(x, x + 2.0)),
     [arr((2, 3), 0.1, 1.0)])

path = os.path.join(os.path.dirname(__file__), "..", "..", "autograd", "testdata", "composite.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
print("wrote", os.path.normpath(path))
