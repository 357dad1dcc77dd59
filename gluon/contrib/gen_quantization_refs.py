#!/usr/bin/env python3
"""Reference files for gluon/contrib/quantization_test.cc, made by MXNet 1.9.1's own
mx.contrib.quantization.quantize_net (ctx=cpu(): the MKLDNN_QUANTIZE flow).

    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY gluon/contrib/gen_quantization_refs.py      # rewrites gluon/contrib/testdata/quantization/

The net: a small ResNet v1 (conv-bn-relu, max pool, two of MXNet's own model-zoo BasicBlockV1,
the second with a downsample branch, global average pool, Dense(10)), fixed seeds, BatchNorm
statistics set to non-trivial values. Files:
  float-symbol.json, float-0000.params   the float net's export (what quantize_net starts from)
  io.params       "calib0", "calib1": two calibration batches (4, 3, 12, 12); "x": a test
                  batch; "float": the float net's output on x; "naive", "entropy": the output
                  of MXNet's quantized nets on x
  naive-symbol.json, entropy-symbol.json  MXNet's quantized graphs (quantized_dtype='auto',
                  calib_data = the two batches): the calibrated ranges the test compares with
                  ours, node by node in graph order
  naive-0000.params   MXNet's quantized parameters (int8 FC weight/bias and their ranges)
  calib.nd        the two calibration batches as a list (`mxnet quantize --input`)
"""
import os
import sys
import warnings

warnings.filterwarnings("ignore")
os.environ.setdefault("MXNET_SUBGRAPH_VERBOSE", "0")

import numpy as np  # noqa: E402
import mxnet as mx  # noqa: E402
from mxnet.gluon import nn  # noqa: E402
from mxnet.gluon.model_zoo.vision.resnet import BasicBlockV1  # noqa: E402
from mxnet.contrib import quantization  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def build():
    mx.random.seed(7)
    rng = np.random.RandomState(7)
    net = nn.HybridSequential(prefix="")
    with net.name_scope():
        net.add(nn.Conv2D(8, 3, padding=1, use_bias=False, in_channels=3),
                nn.BatchNorm(in_channels=8), nn.Activation("relu"), nn.MaxPool2D(2, 2),
                BasicBlockV1(8, 1, downsample=False, in_channels=8),
                BasicBlockV1(16, 2, downsample=True, in_channels=8),
                nn.GlobalAvgPool2D(), nn.Dense(10, in_units=16))
    net.initialize(mx.init.Xavier(magnitude=2.0))
    net(mx.nd.zeros((1, 3, 12, 12)))  # finish deferred initialization
    for name, p in net.collect_params().items():
        c = p.shape[0]
        if name.endswith("gamma"):
            p.set_data(mx.nd.array(rng.uniform(0.6, 1.4, c)))
        elif name.endswith("beta"):
            p.set_data(mx.nd.array(rng.uniform(-0.3, 0.3, c)))
        elif name.endswith("running_mean"):
            p.set_data(mx.nd.array(rng.uniform(-0.2, 0.2, c)))
        elif name.endswith("running_var"):
            p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, c)))
    net.hybridize()
    return net, rng


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    net, rng = build()
    calib = [mx.nd.array(rng.uniform(-1, 1, (4, 3, 12, 12)).astype(np.float32)) for _ in range(2)]
    # The second batch has a wider range (exercises the histogram widening of entropy mode).
    calib[1] = calib[1] * 1.7
    x = mx.nd.array(rng.uniform(-1, 1, (2, 3, 12, 12)).astype(np.float32))
    y = net(x)
    net.export(os.path.join(out_dir, "float"))
    io = {"calib0": calib[0], "calib1": calib[1], "x": x, "float": y}
    data = mx.nd.concat(*calib, dim=0)
    for mode in ("naive", "entropy"):
        loader = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(data.asnumpy(), np.zeros(8)),
                                          batch_size=4, shuffle=False)
        qnet = quantization.quantize_net(net, quantized_dtype="auto", calib_mode=mode,
                                         calib_data=loader, num_calib_examples=8,
                                         ctx=mx.cpu(), logger=None)
        io[mode] = qnet(x)
        qnet.export(os.path.join(out_dir, mode))
        print("%s: |quantized - float| max %.4g (float max %.4g)"
              % (mode, float(abs(io[mode] - y).max().asscalar()), float(abs(y).max().asscalar())))
    os.remove(os.path.join(out_dir, "entropy-0000.params"))  # same as naive's
    mx.nd.save(os.path.join(out_dir, "io.params"), io)
    mx.nd.save(os.path.join(out_dir, "calib.nd"), calib)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "testdata", "quantization"))
