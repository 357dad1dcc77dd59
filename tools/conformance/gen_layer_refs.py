#!/usr/bin/env python3
"""Reference values for gluon::nn layers (gluon/nn/*.cc) from real MXNet 1.9.1's gluon.nn.

Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_layer_refs.py [OUT_DIR]   # default: gluon/nn/testdata/layers

For every case, MXNet builds the layer, completes deferred initialization with one forward,
gives every parameter random values (running variances positive) and writes them with
save_parameters to OUT_DIR/<name>.params (structured names, as our load_parameters reads).
Then, under autograd.record(train_mode=train), it runs the forward on `input` and backward with
`head_grad` in the same mode (backward(train_mode=train): MXNet's default train_mode=True backward
after a predict-mode forward gives gradients that do not belong to that forward for BatchNorm, and
wrong ones for oneDNN max pooling). refs.json holds {"cases": [case, ...]}; a case is

    name          unique label; the C++ test builds the same layer for it
    train         train_mode of the forward/backward
    input         {shape, dtype, data} (float32; integer-valued for Embedding)
    input_grad    d(sum(head_grad * output))/d(input), or null (Embedding indices)
    output, head_grad
    params        [{name, shape, grad_req}] in MXNet's collect_params order (save_parameters names)
    param_grads   {name: array} for grad_req != "null"
    params_after  {name: array} for grad_req == "null" (BatchNorm running stats after the step)
    repr_init     repr(layer) right after construction (deferred shapes unknown)
    repr          repr(layer) after the forward
    expect        optional: {field: value} replacing MXNet's value where MXNet 1.9.1 is wrong, with
                  "why" explaining it (the test uses these; MXNet's own values stay in the case)

Deterministic (fixed seed). Values are float32 written with repr (exact round trip).
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import numpy as np
import mxnet as mx
from mxnet import autograd
from mxnet.gluon import nn
from mxnet.gluon.contrib import nn as cnn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "gluon", "nn", "testdata", "layers")
rng = np.random.RandomState(1911)


def arr(a):
    a = a.asnumpy() if isinstance(a, mx.nd.NDArray) else np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": [float(v) for v in a.ravel().tolist()]}


cases = []


def case(name, make, shape, train=False, lo=-1.0, hi=1.0, indices=None, expect=None):
    blk = make()
    repr_init = repr(blk)
    blk.initialize(mx.init.Uniform(0.5))
    if indices is not None:
        x = rng.randint(0, indices, size=shape).astype("float32")
    else:
        x = rng.uniform(lo, hi, size=shape).astype("float32")
    xd = mx.nd.array(x)
    with autograd.predict_mode():
        blk(xd)  # completes deferred initialization
    params = blk._collect_params_with_prefix()
    plist = []
    for pname, p in params.items():
        if pname.endswith("running_var"):
            v = rng.uniform(0.5, 1.5, size=p.shape)
        else:
            v = rng.uniform(-1, 1, size=p.shape)
        p.set_data(mx.nd.array(v.astype("float32")))
        plist.append({"name": pname, "shape": list(p.shape), "grad_req": p.grad_req})
    blk.save_parameters(os.path.join(OUT, name + ".params"))
    has_grad = indices is None
    if has_grad:
        xd.attach_grad()
    with autograd.record(train_mode=train):
        y = blk(xd)
    head = rng.uniform(-1, 1, size=y.shape).astype("float32")
    y.backward(mx.nd.array(head), train_mode=train)
    grads, after = {}, {}
    for pname, p in params.items():
        if p.grad_req != "null":
            grads[pname] = arr(p.grad())
        else:
            after[pname] = arr(p.data())
    cases.append({"name": name, "train": train, "input": arr(x), "output": arr(y), "head_grad": arr(head),
                  "input_grad": arr(xd.grad) if has_grad else None, "params": plist, "param_grads": grads,
                  "params_after": after, "repr_init": repr_init, "repr": repr(blk)})
    if expect:
        cases[-1]["expect"] = expect(cases[-1], blk)


os.makedirs(OUT, exist_ok=True)
for f in os.listdir(OUT):
    if f.endswith(".params"):
        os.remove(os.path.join(OUT, f))

# Dense.
case("dense_flatten", lambda: nn.Dense(5, activation="tanh"), (2, 3, 4))
case("dense_no_flatten", lambda: nn.Dense(4, use_bias=False, flatten=False), (2, 3, 6))
case("dense_in_units", lambda: nn.Dense(3, in_units=4), (5, 4))
# Convolutions.
case("conv1d", lambda: nn.Conv1D(4, 3, strides=2, padding=1), (2, 3, 9))
case("conv1d_dilation", lambda: nn.Conv1D(2, 3, dilation=2, use_bias=False), (1, 2, 10))
case("conv2d_relu", lambda: nn.Conv2D(4, (3, 3), padding=1, activation="relu"), (2, 3, 6, 6))
case("conv2d_groups_dilation", lambda: nn.Conv2D(4, 3, strides=(1, 2), dilation=2, groups=2, in_channels=4),
     (1, 4, 8, 8))


def conv2d_nhwc():
    """MXNet 1.9.1's CPU Convolution supports only channels-first layouts, so the NHWC layer's
    reference is the NCHW layer on transposed data and weights (the same arithmetic); the
    parameter file holds the NHWC layer's (O, kh, kw, I) weight, as an NHWC Conv2D has it."""
    name = "conv2d_nhwc"
    nhwc = nn.Conv2D(3, (2, 3), padding=(1, 0), layout="NHWC")
    repr_init = repr(nhwc)
    nhwc_known = nn.Conv2D(3, (2, 3), padding=(1, 0), layout="NHWC", in_channels=2)
    nhwc_known.initialize()
    w = rng.uniform(-1, 1, size=(3, 2, 3, 2)).astype("float32")
    b = rng.uniform(-1, 1, size=(3,)).astype("float32")
    assert nhwc_known.weight.shape == w.shape
    nhwc_known.weight.set_data(mx.nd.array(w))
    nhwc_known.bias.set_data(mx.nd.array(b))
    nhwc_known.save_parameters(os.path.join(OUT, name + ".params"))
    nchw = nn.Conv2D(3, (2, 3), padding=(1, 0), in_channels=2)
    nchw.initialize()
    nchw.weight.set_data(mx.nd.array(w.transpose(0, 3, 1, 2)))
    nchw.bias.set_data(mx.nd.array(b))
    x = rng.uniform(-1, 1, size=(2, 5, 5, 2)).astype("float32")
    xd = mx.nd.array(x.transpose(0, 3, 1, 2))
    xd.attach_grad()
    with autograd.record():
        y = nchw(xd).transpose((0, 2, 3, 1))
    head = rng.uniform(-1, 1, size=y.shape).astype("float32")
    y.backward(mx.nd.array(head))
    cases.append({"name": name, "train": False, "input": arr(x), "output": arr(y), "head_grad": arr(head),
                  "input_grad": arr(xd.grad.transpose((0, 2, 3, 1))),
                  "params": [{"name": "weight", "shape": list(w.shape), "grad_req": "write"},
                             {"name": "bias", "shape": [3], "grad_req": "write"}],
                  "param_grads": {"weight": arr(nchw.weight.grad().transpose((0, 2, 3, 1))),
                                  "bias": arr(nchw.bias.grad())},
                  "params_after": {}, "repr_init": repr_init, "repr": repr(nhwc_known)})


conv2d_nhwc()
case("conv3d", lambda: nn.Conv3D(2, (2, 2, 2), padding=(1, 0, 0)), (1, 2, 3, 4, 4))
case("conv2d_transpose", lambda: nn.Conv2DTranspose(3, 3, strides=2, padding=1, output_padding=1), (1, 2, 4, 4))
case("conv1d_transpose_groups", lambda: nn.Conv1DTranspose(4, 3, strides=2, groups=2, in_channels=4), (1, 4, 5))
case("conv3d_transpose", lambda: nn.Conv3DTranspose(2, 2, strides=2), (1, 3, 2, 2, 2))
# Pooling. Max pooling runs in train mode: MXNet 1.9.1's oneDNN max pooling has no workspace after
# a predict-mode forward and its backward then routes gradients to the wrong elements (pooling
# itself behaves the same in both modes).
case("maxpool1d", lambda: nn.MaxPool1D(2), (2, 3, 8), train=True)
case("maxpool2d_ceil", lambda: nn.MaxPool2D(3, strides=2, ceil_mode=True), (1, 2, 7, 7), train=True)
case("maxpool2d_nhwc", lambda: nn.MaxPool2D(2, layout="NHWC"), (2, 4, 5, 3))
case("maxpool3d", lambda: nn.MaxPool3D((1, 2, 2), padding=(0, 1, 1)), (1, 2, 2, 3, 3), train=True)
case("avgpool2d_exclude_pad", lambda: nn.AvgPool2D(3, strides=2, padding=1, count_include_pad=False), (1, 2, 6, 6))
case("avgpool2d_include_pad_ceil", lambda: nn.AvgPool2D(3, strides=2, padding=1, ceil_mode=True), (1, 2, 6, 6))
case("avgpool1d", lambda: nn.AvgPool1D(3, strides=1, padding=1), (2, 2, 5))
case("avgpool3d", lambda: nn.AvgPool3D(2), (1, 2, 4, 4, 4))
case("global_maxpool2d", lambda: nn.GlobalMaxPool2D(), (2, 3, 4, 5), train=True)
case("global_avgpool1d", lambda: nn.GlobalAvgPool1D(), (2, 3, 7))
case("global_avgpool3d", lambda: nn.GlobalAvgPool3D(), (1, 2, 3, 3, 3))
# Normalization.
case("batchnorm_train", lambda: nn.BatchNorm(), (4, 3, 2, 2), train=True)
case("batchnorm_predict", lambda: nn.BatchNorm(in_channels=3), (4, 3, 2, 2))
case("batchnorm_axis_last_train", lambda: nn.BatchNorm(axis=-1, center=False, momentum=0.8), (3, 4, 5), train=True)


def fix_gamma_expect(c, blk):
    # MXNet's BatchNorm op overwrites gamma with 1 when fix_gamma (scale=False); ours uses 1 in
    # the computation (same output and gradients) and leaves the stored gamma as loaded.
    loaded = mx.nd.load(os.path.join(OUT, c["name"] + ".params"))["gamma"]
    return {"params_after.gamma": arr(loaded),
            "why": "MXNet writes 1 into gamma under fix_gamma; we leave the loaded value (outputs agree)"}


case("batchnorm_no_scale_train", lambda: nn.BatchNorm(scale=False, epsilon=1e-3), (6, 2), train=True,
     expect=fix_gamma_expect)
case("layernorm", lambda: nn.LayerNorm(), (2, 3, 5))
case("layernorm_axis1", lambda: nn.LayerNorm(axis=1, epsilon=1e-3, center=False), (2, 4, 3))
case("groupnorm", lambda: nn.GroupNorm(num_groups=2), (2, 4, 3, 3))
case("instancenorm", lambda: nn.InstanceNorm(scale=True), (2, 3, 5))
case("instancenorm_axis2", lambda: nn.InstanceNorm(axis=2, epsilon=1e-3, scale=True), (2, 4, 3))
# Embedding, Dropout, Flatten.
case("embedding", lambda: nn.Embedding(10, 4), (2, 3), indices=10)
case("dropout_predict", lambda: nn.Dropout(0.5), (3, 4))
case("dropout_axes_predict", lambda: nn.Dropout(0.3, axes=(1,)), (3, 4))
case("flatten", lambda: nn.Flatten(), (2, 3, 4))
# Activations.
case("activation_softrelu", lambda: nn.Activation("softrelu"), (3, 4), lo=-3, hi=3)
case("leakyrelu", lambda: nn.LeakyReLU(0.1), (3, 4))
case("prelu", lambda: nn.PReLU(), (2, 3, 4))
case("prelu_channels", lambda: nn.PReLU(in_channels=3), (2, 3, 4))
case("elu", lambda: nn.ELU(0.7), (3, 4), lo=-3, hi=3)


def selu_expect(c, blk):
    # MXNet 1.9.1's SELU backward computes lambda * (y + alpha) for x <= 0 where y is the output
    # (which already includes lambda); the derivative is lambda * alpha * exp(x) = y + lambda * alpha.
    lam, alpha = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717
    x = np.array(c["input"]["data"], dtype=np.float64).reshape(c["input"]["shape"])
    h = np.array(c["head_grad"]["data"], dtype=np.float64).reshape(c["head_grad"]["shape"])
    g = h * np.where(x > 0, lam, lam * alpha * np.exp(x))
    return {"input_grad": arr(g.astype("float32")),
            "why": "MXNet 1.9.1's SELU gradient for x <= 0 is lambda*(y + alpha), not y + lambda*alpha"}


case("selu", lambda: nn.SELU(), (3, 4), lo=-3, hi=3, expect=selu_expect)
case("gelu", lambda: nn.GELU(), (3, 4), lo=-3, hi=3)
case("swish", lambda: nn.Swish(1.5), (3, 4), lo=-3, hi=3)
# Containers and padding.


def concurrent():
    c = cnn.HybridConcurrent(axis=1)
    c.add(nn.Dense(3), nn.Dense(2, activation="relu"))
    return c


case("hybrid_concurrent", concurrent, (2, 5))
case("reflection_pad2d", lambda: nn.ReflectionPad2D(2), (1, 2, 4, 5))


def small_net():
    s = nn.HybridSequential()
    s.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(2), nn.Flatten(),
          nn.Dense(3))
    return s


case("sequential_train", small_net, (2, 2, 4, 4), train=True)

with open(os.path.join(OUT, "refs.json"), "w") as f:
    json.dump({"mxnet_version": mx.__version__, "cases": cases}, f, separators=(",", ":"))
total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
print(f"wrote {len(cases)} cases to {OUT} ({total} bytes)", file=sys.stderr)
