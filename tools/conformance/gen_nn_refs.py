#!/usr/bin/env python3
"""Reference values for the nn op family (ndarray/ops/nn_*.cc) from real MXNet 1.9.1.

Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_nn_refs.py [OUT_DIR]   # default: ndarray/ops/testdata/nn

Writes one JSON file per op group (norm.json, act.json, softmax.json, loss.json). Each holds
{"cases": [case, ...]} where a case is

    name        unique label
    op          registered op name;  attrs: the attribute strings passed to MXNet
    train       autograd train_mode of the forward (and of the backward)
    record      whether the forward ran under autograd.record()
    inputs      [{shape, dtype, data (flat, C order)}]
    outputs     the visible outputs
    head_grads  one per visible output (only when grads are given)
    grads       d(sum_k <head_k, out_k>)/d(input_i), or null where MXNet gives none
                (labels, aux states, length)
    aux_after   {"input index": array}: mutable inputs (BatchNorm moving stats) after the
                forward and backward, i.e. after MXNet's moving-average update

Deterministic (fixed seeds). Values are float32/float64 numbers written with repr, so they
round-trip exactly.
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import numpy as np
import mxnet as mx
from mxnet import autograd

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "ndarray", "ops", "testdata", "nn")


def arr(a):
    a = a.asnumpy() if isinstance(a, mx.nd.NDArray) else np.asarray(a)
    data = a.ravel().tolist()
    if a.dtype.kind == "f":
        data = [float(np.float32(v)) if a.dtype == np.float32 else float(v) for v in data]
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": data}


class Gen:
    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.cases = []

    def uniform(self, shape, lo=-1.0, hi=1.0, dtype="float32"):
        return self.rng.uniform(lo, hi, size=shape).astype(dtype)

    def labels(self, shape, n, dtype="float32"):
        return self.rng.randint(0, n, size=shape).astype(dtype)

    def case(self, name, op, inputs, attrs=None, train=False, record=True, grads=True,
             grad_inputs=None, aux=(), head_grads=None, n_visible=None, skip_outputs=()):
        """Runs op on numpy inputs; grad_inputs: indices whose gradient MXNet computes."""
        attrs = attrs or {}
        nd_in = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
        gi = list(range(len(inputs))) if grad_inputs is None else grad_inputs
        gi = [i for i in gi if i not in aux]
        for i in gi:
            nd_in[i].attach_grad()
        fn = getattr(mx.nd, op)
        if record:
            with autograd.record(train_mode=train):
                out = fn(*nd_in, **attrs)
        else:
            with autograd.train_mode() if train else autograd.predict_mode():
                out = fn(*nd_in, **attrs)
        outs = out if isinstance(out, list) else [out]
        if n_visible is not None:
            outs = outs[:n_visible]
        c = {"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
             "train": train, "record": record, "inputs": [arr(x) for x in inputs],
             "outputs": [None if k in skip_outputs else arr(o) for k, o in enumerate(outs)]}
        if grads and record:
            if head_grads is None:
                head_grads = [self.uniform(o.shape, dtype=o.dtype) for o in outs]
                for k in range(1, len(outs)):  # grads of extra outputs: MXNet ignores them
                    head_grads[k] = np.zeros(outs[k].shape, dtype=outs[k].dtype)
            autograd.backward(outs, [mx.nd.array(h, dtype=h.dtype) for h in head_grads],
                              train_mode=train)
            c["head_grads"] = [arr(h) for h in head_grads]
            c["grads"] = [arr(nd_in[i].grad) if i in gi else None for i in range(len(inputs))]
        if aux:
            c["aux_after"] = {str(i): arr(nd_in[i]) for i in aux}
        self.cases.append(c)


def norm_cases():
    g = Gen(1)

    def bn_inputs(shape, axis, dtype="float32"):
        c = shape[axis]
        return [g.uniform(shape, -2, 2, dtype), g.uniform((c,), 0.5, 1.5, dtype),
                g.uniform((c,), -1, 1, dtype), g.uniform((c,), -0.5, 0.5, dtype),
                g.uniform((c,), 0.5, 1.5, dtype)]

    bn = dict(aux=(3, 4))
    g.case("bn_train", "BatchNorm", bn_inputs((4, 3, 2, 2), 1),
           dict(eps=1e-5, momentum=0.9, fix_gamma=False), train=True, **bn)
    g.case("bn_train_op_defaults", "BatchNorm", bn_inputs((3, 2, 5), 1), {}, train=True, **bn)
    g.case("bn_train_momentum", "BatchNorm", bn_inputs((6, 4), 1),
           dict(momentum=0.7, fix_gamma=False), train=True, **bn)
    g.case("bn_train_axis_last", "BatchNorm", bn_inputs((2, 3, 4), 2),
           dict(axis=-1, fix_gamma=False), train=True, **bn)
    g.case("bn_train_axis0", "BatchNorm", bn_inputs((3, 5), 0),
           dict(axis=0, fix_gamma=False, eps=1e-4), train=True, **bn)
    g.case("bn_train_output_mean_var", "BatchNorm", bn_inputs((4, 3, 2), 1),
           dict(fix_gamma=False, output_mean_var=True), train=True, **bn)
    g.case("bn_train_float64", "BatchNorm", bn_inputs((3, 2, 2), 1, "float64"),
           dict(fix_gamma=False), train=True, **bn)
    g.case("bn_infer", "BatchNorm", bn_inputs((2, 3, 2, 2), 1),
           dict(eps=1e-5, fix_gamma=False), train=False, **bn)
    g.case("bn_infer_output_mean_var", "BatchNorm", bn_inputs((2, 3, 2), 1),
           dict(fix_gamma=False, output_mean_var=True), train=False, **bn)
    g.case("bn_infer_fix_gamma", "BatchNorm", bn_inputs((2, 3, 2), 1), {}, train=False, **bn)
    g.case("bn_global_stats_train", "BatchNorm", bn_inputs((4, 3, 2), 1),
           dict(use_global_stats=True, fix_gamma=False), train=True, **bn)
    # Forward in train mode without record: batch statistics, no moving-stat update.
    g.case("bn_train_norecord", "BatchNorm", bn_inputs((4, 2, 3), 1),
           dict(fix_gamma=False, output_mean_var=True), train=True, record=False, **bn)

    def ln_inputs(shape, axis):
        c = shape[axis]
        return [g.uniform(shape, -2, 2), g.uniform((c,), 0.5, 1.5), g.uniform((c,), -1, 1)]

    g.case("ln_last", "LayerNorm", ln_inputs((2, 3, 4), -1), {})
    g.case("ln_axis1", "LayerNorm", ln_inputs((2, 3, 4), 1), dict(axis=1, eps=1e-3))
    g.case("ln_output_mean_var", "LayerNorm", ln_inputs((3, 5), -1), dict(output_mean_var=True))
    g.case("gn", "GroupNorm", [g.uniform((2, 4, 3), -2, 2), g.uniform((2,), 0.5, 1.5), g.uniform((2,), -1, 1)],
           dict(num_groups=2))
    g.case("gn_output_mean_var", "GroupNorm",
           [g.uniform((2, 6, 2, 2), -2, 2), g.uniform((3,), 0.5, 1.5), g.uniform((3,), -1, 1)],
           dict(num_groups=3, eps=1e-3, output_mean_var=True))
    g.case("in", "InstanceNorm", [g.uniform((2, 3, 4), -2, 2), g.uniform((3,), 0.5, 1.5), g.uniform((3,), -1, 1)])
    g.case("in_4d", "InstanceNorm",
           [g.uniform((2, 2, 3, 2), -2, 2), g.uniform((2,), 0.5, 1.5), g.uniform((2,), -1, 1)], dict(eps=1e-5))
    return g.cases


def act_cases():
    g = Gen(2)
    for t in ["relu", "sigmoid", "tanh", "softrelu", "softsign"]:
        g.case("act_" + t, "Activation", [g.uniform((3, 4), -3, 3)], dict(act_type=t))
    g.case("act_softrelu_large", "Activation", [np.array([-30, -5, 0, 5, 19, 21, 40], np.float32)],
           dict(act_type="softrelu"))
    g.case("leaky", "LeakyReLU", [g.uniform((3, 4), -3, 3)], {})
    g.case("leaky_slope", "LeakyReLU", [g.uniform((3, 4), -3, 3)], dict(act_type="leaky", slope=0.1))
    g.case("elu", "LeakyReLU", [g.uniform((3, 4), -3, 3)], dict(act_type="elu", slope=0.5))
    g.case("selu", "LeakyReLU", [g.uniform((3, 4), -3, 3)], dict(act_type="selu"))
    g.case("gelu", "LeakyReLU", [g.uniform((3, 4), -3, 3)], dict(act_type="gelu"))
    g.case("prelu", "LeakyReLU", [g.uniform((2, 3, 2), -2, 2), g.uniform((3,), 0, 0.5)], dict(act_type="prelu"))
    g.case("prelu_shared", "LeakyReLU", [g.uniform((4, 3), -2, 2), g.uniform((1,), 0, 0.5)], dict(act_type="prelu"))
    # rrelu in predict mode: slope (lower + upper) / 2. The mask output is not compared (MXNet
    # leaves it unwritten in predict mode), nor gradients (its backward reads that mask).
    g.case("rrelu_predict", "LeakyReLU", [g.uniform((3, 4), -3, 3)],
           dict(act_type="rrelu", lower_bound=0.1, upper_bound=0.3), grads=False, record=False, skip_outputs=(1,))
    # Dropout in predict mode and with p = 0 is the identity.
    g.case("dropout_predict", "Dropout", [g.uniform((3, 4))], dict(p=0.5), train=False)
    g.case("dropout_p0_train", "Dropout", [g.uniform((3, 4))], dict(p=0.0), train=True)
    return g.cases


def softmax_cases():
    g = Gen(3)
    g.case("softmax", "softmax", [g.uniform((3, 5), -3, 3)], {})
    g.case("softmax_axis1_temp", "softmax", [g.uniform((2, 3, 4), -3, 3)], dict(axis=1, temperature=2.0))
    g.case("softmax_axis0", "softmax", [g.uniform((4, 3), -3, 3)], dict(axis=0))
    g.case("softmax_length", "softmax",
           [g.uniform((3, 5), -3, 3), np.array([2, 5, 1], np.int32)], dict(axis=-1, use_length=True),
           grad_inputs=[0])
    g.case("softmax_length_axis0", "softmax",
           [g.uniform((4, 2), -3, 3), np.array([3, 1], np.int64)], dict(axis=0, use_length=True),
           grad_inputs=[0])
    g.case("softmax_dtype", "softmax", [g.uniform((2, 4), -3, 3)], dict(dtype="float64"))
    g.case("softmax_float64", "softmax", [g.uniform((2, 4), -3, 3, "float64")], {})
    g.case("log_softmax", "log_softmax", [g.uniform((3, 5), -3, 3)], {})
    g.case("log_softmax_axis0_temp", "log_softmax", [g.uniform((4, 3), -3, 3)], dict(axis=0, temperature=0.5))
    g.case("softmin", "softmin", [g.uniform((3, 5), -3, 3)], {})
    g.case("softmin_temp", "softmin", [g.uniform((2, 3, 2), -3, 3)], dict(axis=1, temperature=3.0))
    g.case("softmax_activation_instance", "SoftmaxActivation", [g.uniform((3, 4), -3, 3)], {})
    # Forward only for rank > 2 in instance mode: MXNet's backward there uses the channel formula.
    g.case("softmax_activation_instance_3d", "SoftmaxActivation", [g.uniform((2, 3, 4), -3, 3)], {}, grads=False)
    g.case("softmax_activation_channel", "SoftmaxActivation", [g.uniform((2, 3, 2, 2), -3, 3)], dict(mode="channel"))
    return g.cases


def loss_cases():
    g = Gen(4)
    # SoftmaxOutput: the label gradient is not compared (MXNet's is not meaningful).
    so = dict(grad_inputs=[0])
    g.case("so", "SoftmaxOutput", [g.uniform((4, 5), -2, 2), g.labels((4,), 5)], {}, **so)
    g.case("so_ignore_valid", "SoftmaxOutput",
           [g.uniform((5, 4), -2, 2), np.array([1, -1, 3, -1, 0], np.float32)],
           dict(use_ignore=True, ignore_label=-1, normalization="valid"), **so)
    g.case("so_ignore_batch_scale", "SoftmaxOutput",
           [g.uniform((4, 3), -2, 2), np.array([2, 2, 0, 1], np.float32)],
           dict(use_ignore=True, ignore_label=2, normalization="batch", grad_scale=0.5), **so)
    g.case("so_no_ignore_valid", "SoftmaxOutput",
           [g.uniform((4, 3), -2, 2), np.array([2, 2, 0, 1], np.float32)],
           dict(ignore_label=2, normalization="valid"), **so)
    g.case("so_smooth", "SoftmaxOutput", [g.uniform((3, 4), -2, 2), g.labels((3,), 4)],
           dict(smooth_alpha=0.2), **so)
    g.case("so_smooth_ignore", "SoftmaxOutput",
           [g.uniform((3, 4), -2, 2), np.array([1, 0, 3], np.float32)],
           dict(smooth_alpha=0.1, use_ignore=True, ignore_label=0), **so)
    g.case("so_multi", "SoftmaxOutput", [g.uniform((2, 3, 4), -2, 2), g.labels((2, 4), 3)],
           dict(multi_output=True), **so)
    g.case("so_multi_valid_ignore", "SoftmaxOutput",
           [g.uniform((2, 3, 2, 2), -2, 2), np.array([[[0, 1], [2, 1]], [[1, 1], [0, 2]]], np.float32)],
           dict(multi_output=True, use_ignore=True, ignore_label=1, normalization="valid"), **so)
    g.case("so_multi_batch", "SoftmaxOutput", [g.uniform((2, 3, 4), -2, 2), g.labels((2, 4), 3)],
           dict(multi_output=True, normalization="batch", grad_scale=2.0), **so)
    g.case("so_preserve_shape", "SoftmaxOutput", [g.uniform((2, 3, 4), -2, 2), g.labels((2, 3), 4)],
           dict(preserve_shape=True), **so)
    g.case("so_flatten_3d", "SoftmaxOutput", [g.uniform((2, 2, 3), -2, 2), g.labels((2, 2), 3)], {},
           grads=False)
    g.case("so_prob_label", "SoftmaxOutput",
           [g.uniform((3, 4), -2, 2), np.full((3, 4), 0.25, np.float32)], dict(grad_scale=3.0), **so)
    g.case("so_out_grad", "SoftmaxOutput", [g.uniform((3, 4), -2, 2), g.labels((3,), 4)],
           dict(out_grad=True, normalization="batch"), **so)
    g.case("softmax_alias", "Softmax", [g.uniform((2, 3), -2, 2), g.labels((2,), 3)], {}, **so)
    g.case("sce", "softmax_cross_entropy", [g.uniform((4, 5), -2, 2), g.labels((4,), 5)], {}, **so)
    reg = dict(grad_inputs=[0])
    g.case("linreg", "LinearRegressionOutput", [g.uniform((3, 2)), g.uniform((3, 2))], {}, **reg)
    g.case("linreg_1d_label", "LinearRegressionOutput", [g.uniform((4, 1)), g.uniform((4,))],
           dict(grad_scale=2.0), **reg)
    g.case("logreg", "LogisticRegressionOutput", [g.uniform((3, 2), -3, 3), g.labels((3, 2), 2)], {}, **reg)
    g.case("maereg", "MAERegressionOutput", [g.uniform((2, 3)), g.uniform((2, 3))], dict(grad_scale=0.5), **reg)
    return g.cases


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, fn in [("norm", norm_cases), ("act", act_cases), ("softmax", softmax_cases), ("loss", loss_cases)]:
        path = os.path.join(OUT, name + ".json")
        with open(path, "w") as f:
            json.dump({"generator": "tools/conformance/gen_nn_refs.py", "mxnet": mx.__version__,
                       "cases": fn()}, f, separators=(",", ":"))
            f.write("\n")
        print(path, os.path.getsize(path))


if __name__ == "__main__":
    main()
