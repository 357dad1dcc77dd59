#!/usr/bin/env python3
"""Module-era exports (MXNet 1.x Module API checkpoints ending in loss heads) and MXNet's own
inference outputs, for //gluon:symbol_block_test and //tools/mxnet:module_export_test.

Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_module_exports.py [OUT_DIR]    # default: gluon/testdata/module

Per net NAME (small; deterministic: seeded initializers and inputs):
  NAME-symbol.json, NAME-0000.params  mx.mod.Module(...).save_checkpoint(NAME, 0) after
      bind(data + label shapes) and init_params (Xavier; BatchNorm statistics set to random
      values); the .params holds no label
  NAME-io.nd   {"data": an input batch, "output": MXNet's prediction for it}: the checkpoint
      loaded with mx.model.load_checkpoint into mx.mod.Module(sym, label_names=None), bound
      for_training=False with the data shape only, set_params(allow_missing=True) (the label is
      missing), forward(is_train=False)
Nets: mlp_softmax (FullyConnected x2 -> SoftmaxOutput), conv_softmax (Convolution, BatchNorm,
Pooling, FullyConnected -> SoftmaxOutput), linreg (-> LinearRegressionOutput), logreg
(-> LogisticRegressionOutput), maereg (-> MAERegressionOutput), svm (-> SVMOutput), and
lenet_gray (LeNet on 1x28x28 -> SoftmaxOutput). For lenet_gray also digit.png (a 28x28
grayscale PNG) and lenet_gray-png.nd {"prob": MXNet's output for mx.image.imread(digit.png,
flag=0) / 255 as (1, 1, 28, 28)}.
"""
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import numpy as np
import mxnet as mx
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "gluon", "testdata",
                                                         "module")
S = mx.sym


def mlp_softmax():
    x = S.var("data")
    h = S.Activation(S.FullyConnected(x, num_hidden=16, name="fc1"), act_type="relu", name="relu1")
    return S.SoftmaxOutput(S.FullyConnected(h, num_hidden=5, name="fc2"), name="softmax"), (4, 20)


def conv_softmax():
    x = S.var("data")
    c = S.Convolution(x, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv1")
    c = S.Activation(S.BatchNorm(c, fix_gamma=False, name="bn1"), act_type="relu")
    c = S.Pooling(c, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    f = S.FullyConnected(S.Flatten(c), num_hidden=6, name="fc1")
    return S.SoftmaxOutput(f, name="softmax"), (3, 3, 8, 8)


def linreg():
    x = S.var("data")
    h = S.Activation(S.FullyConnected(x, num_hidden=8, name="fc1"), act_type="tanh")
    return S.LinearRegressionOutput(S.FullyConnected(h, num_hidden=2, name="fc2"), name="lro"), (5, 6)


def logreg():
    x = S.var("data")
    return S.LogisticRegressionOutput(S.FullyConnected(x, num_hidden=3, name="fc1"), name="lgo"), (4, 7)


def maereg():
    x = S.var("data")
    return S.MAERegressionOutput(S.FullyConnected(x, num_hidden=2, name="fc1"), name="mae"), (3, 5)


def svm():
    x = S.var("data")
    return S.SVMOutput(S.FullyConnected(x, num_hidden=4, name="fc1"), name="svm"), (3, 6)


def lenet_gray():
    x = S.var("data")
    c = S.Activation(S.Convolution(x, kernel=(5, 5), num_filter=6, name="conv1"), act_type="tanh")
    c = S.Pooling(c, kernel=(2, 2), stride=(2, 2), pool_type="max")
    c = S.Activation(S.Convolution(c, kernel=(5, 5), num_filter=12, name="conv2"), act_type="tanh")
    c = S.Pooling(c, kernel=(2, 2), stride=(2, 2), pool_type="max")
    f = S.Activation(S.FullyConnected(S.Flatten(c), num_hidden=32, name="fc1"), act_type="tanh")
    return S.SoftmaxOutput(S.FullyConnected(f, num_hidden=10, name="fc2"), name="softmax"), (2, 1, 28, 28)


NETS = [mlp_softmax, conv_softmax, linreg, logreg, maereg, svm, lenet_gray]


def predict(prefix, data):
    sym, args, aux = mx.model.load_checkpoint(prefix, 0)
    mod = mx.mod.Module(sym, data_names=["data"], label_names=None, context=mx.cpu())
    mod.bind(for_training=False, data_shapes=[("data", data.shape)])
    # As MXNet's "predict with a pretrained model" tutorial: the label is no parameter.
    mod.set_params(args, aux, allow_missing=True)
    mod.forward(mx.io.DataBatch([data]), is_train=False)
    return mod.get_outputs()[0]


def main():
    os.makedirs(OUT, exist_ok=True)
    for i, build in enumerate(NETS):
        name = build.__name__
        mx.random.seed(7 + i)
        rng = np.random.RandomState(7 + i)
        sym, shape = build()
        label_name = sym.list_arguments()[-1]
        assert label_name.endswith("_label"), label_name
        mod = mx.mod.Module(sym, data_names=["data"], label_names=[label_name], context=mx.cpu())
        label_shape = sym.infer_shape(data=shape)[0][-1]
        mod.bind(data_shapes=[("data", shape)], label_shapes=[(label_name, label_shape)])
        mod.init_params(mx.init.Xavier(magnitude=2.0))
        args, aux = mod.get_params()
        for k in aux:
            lo, hi = (0.5, 1.5) if k.endswith("var") else (-0.3, 0.3)
            aux[k] = mx.nd.array(rng.uniform(lo, hi, size=aux[k].shape).astype(np.float32))
        mod.set_params(args, aux)
        prefix = os.path.join(OUT, name)
        mod.save_checkpoint(prefix, 0)
        assert not any(k.endswith("_label") for k in mx.nd.load(prefix + "-0000.params"))
        data = mx.nd.array(rng.uniform(-1, 1, size=shape).astype(np.float32))
        if name == "lenet_gray":
            data = mx.nd.array(rng.uniform(0, 1, size=shape).astype(np.float32))
        out = predict(prefix, data)
        mx.nd.save(prefix + "-io.nd", {"data": data, "output": out})
        print(name, shape, "->", out.shape, file=sys.stderr)
        if name == "lenet_gray":
            # A 28x28 grayscale "digit": a bright ring on black.
            yy, xx = np.mgrid[0:28, 0:28]
            r = np.sqrt((yy - 13.5) ** 2 + (xx - 13.5) ** 2)
            img = np.clip(255 * np.exp(-((r - 8) ** 2) / 6.0), 0, 255).astype(np.uint8)
            Image.fromarray(img, mode="L").save(os.path.join(OUT, "digit.png"))
            gray = mx.image.imread(os.path.join(OUT, "digit.png"), flag=0)  # (28, 28, 1) uint8
            x = gray.astype("float32").transpose((2, 0, 1)).expand_dims(0) / 255.0
            mx.nd.save(prefix + "-png.nd", {"prob": predict(prefix, x)})


if __name__ == "__main__":
    main()
