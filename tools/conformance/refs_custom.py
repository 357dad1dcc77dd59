#!/usr/bin/env python3
"""Reference values of MXNet 1.9.1's Custom operator (ndarray/ops/testdata/nn/custom.json).

    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/refs_custom.py OUT_DIR     # also run by gen_nn_refs.py (main)

The custom ops below are the Python twins (mx.operator.register) of the C++ test ops in
ndarray/ops/nn/nn_custom_cases.cc; keep them in step. Each case runs mx.nd.Custom under
autograd.record() on fixed seeded float32 inputs, then backward with fixed head gradients, and
records the outputs, the inputs after the call (aux states are updated in place) and the
argument gradients. Read by ndarray/ops/nn/nn_custom_test.cc (MatchesMXNet); not in report.py's
op jobs, because dump_ours has no registered C++ op_type for these names. Same bytes every run.
Output: {"generator", "mxnet", "cases": [{"id", "op_type", "kwargs", "inputs", "outputs",
"inputs_after", "head_grads", "grads"}]} with arrays as {"shape", "dtype", "data"}.
"""
import json
import os
import sys

import numpy as np
import mxnet as mx
from mxnet import autograd


class _Sigmoid(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], 1.0 / (1.0 + mx.nd.exp(-in_data[0])))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        y = out_data[0]
        self.assign(in_grad[0], req[0], out_grad[0] * y * (1 - y))


@mx.operator.register("_test_custom_sigmoid")
class _SigmoidProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def create_operator(self, ctx, shapes, dtypes):
        return _Sigmoid()


class _Pair(mx.operator.CustomOp):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        self.assign(out_data[0], req[0], self.scale * a * b)
        self.assign(out_data[1], req[1], a - b * b)
        self.assign(aux[0], "add", mx.nd.ones_like(aux[0]))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = in_data
        g0, g1 = out_grad
        self.assign(in_grad[0], req[0], self.scale * b * g0 + g1)
        self.assign(in_grad[1], req[1], self.scale * a * g0 - 2 * b * g1)


@mx.operator.register("_test_custom_pair")
class _PairProp(mx.operator.CustomOpProp):
    def __init__(self, scale="1"):
        super().__init__(need_top_grad=True)
        self.scale = float(scale)

    def list_arguments(self):
        return ["a", "b"]

    def list_outputs(self):
        return ["prod", "diff"]

    def list_auxiliary_states(self):
        return ["count"]

    def infer_shape(self, in_shape):
        assert in_shape[0] == in_shape[1]
        return in_shape, [in_shape[0], in_shape[0]], [[1]]

    def create_operator(self, ctx, shapes, dtypes):
        return _Pair(self.scale)


class _SqLoss(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 2 * in_data[0])


@mx.operator.register("_test_custom_sqloss")
class _SqLossProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def create_operator(self, ctx, shapes, dtypes):
        return _SqLoss()


def arr(a):
    a = a.asnumpy() if isinstance(a, mx.nd.NDArray) else np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype),
            "data": [float(np.float32(v)) for v in a.ravel().tolist()]}


def run(cid, op_type, kwargs, inputs, nargs, seed):
    rng = np.random.RandomState(seed)
    xs = [mx.nd.array(x, dtype="float32") for x in inputs]
    before = [arr(x) for x in xs]
    for x in xs[:nargs]:
        x.attach_grad()
    with autograd.record():
        outs = mx.nd.Custom(*xs, op_type=op_type, **kwargs)
    outs = outs if isinstance(outs, list) else [outs]
    hg = [mx.nd.array(np.round(rng.uniform(-1, 1, o.shape), 3), dtype="float32") for o in outs]
    autograd.backward(outs, hg)
    return dict(id=cid, op_type=op_type, kwargs=kwargs, inputs=before,
                outputs=[arr(o) for o in outs], inputs_after=[arr(x) for x in xs],
                head_grads=[arr(h) for h in hg], grads=[arr(x.grad) for x in xs[:nargs]])


def cases():
    rng = np.random.RandomState(42)
    u = lambda shape, lo, hi: np.round(rng.uniform(lo, hi, shape), 4).astype(np.float32)
    return [
        run("sigmoid", "_test_custom_sigmoid", {}, [u((3, 4), -3, 3)], 1, 1),
        run("pair scale 0.5", "_test_custom_pair", {"scale": "0.5"},
            [u((2, 3), -1, 1), u((2, 3), -1, 1), np.zeros((1,), np.float32)], 2, 2),
        run("pair default scale", "_test_custom_pair", {},
            [u((4,), -2, 2), u((4,), -2, 2), np.array([5], np.float32)], 2, 3),
        run("sqloss need_top_grad false", "_test_custom_sqloss", {}, [u((5,), -1, 1)], 1, 4),
    ]


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "custom.json")
    with open(path, "w") as f:
        json.dump({"generator": "tools/conformance/refs_custom.py", "mxnet": mx.__version__,
                   "cases": cases()}, f, separators=(",", ":"))
        f.write("\n")
    print(path, os.path.getsize(path))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else
         os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ndarray", "ops",
                      "testdata", "nn"))
