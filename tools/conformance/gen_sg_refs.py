#!/usr/bin/env python3
"""Reference exports of MXNet 1.9.1's oneDNN fused subgraph ops (_sg_mkldnn_conv,
_sg_mkldnn_fully_connected, _sg_mkldnn_selfatt_qk, _sg_mkldnn_selfatt_valatt) for
symbol/sg_ops_test.cc.

    PY=/root/.cache/mxnet-conformance/venv/bin/python
    $PY tools/conformance/gen_sg_refs.py [OUT_DIR]   # default symbol/testdata/sg

Per case: small Gluon nets are hybridized, rewritten with net.optimize_for(x, backend='MKLDNN')
and exported: <case>-symbol.json and <case>-0000.params (MXNet's export files), plus
<case>-io.params, an NDArray file {"data": input, "output": the fused net's output,
"unfused": the output before optimize_for}. The quantized_* cases are exported after
mx.contrib.quantization.quantize_net(calib_mode='naive', quantized_dtype='auto') on the input
batch; their "output" is MXNet's int8 result and "unfused" the float net's.
Fixed seeds; same bytes on every run (the fused float outputs are identical run to run).

Manual check with the CLI (what sg_ops_test.cc does through a SymbolBlock):
    bazel-bin/tools/mxnet/mxnet predict --symbol symbol/testdata/sg/CASE-symbol.json \
        --params symbol/testdata/sg/CASE-0000.params --input symbol/testdata/sg/CASE-io.params \
        --output /tmp/y.nd    # reads "data"; compare with the file's "output"
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
os.environ.setdefault("MXNET_SUBGRAPH_VERBOSE", "0")

import numpy as np  # noqa: E402
import mxnet as mx  # noqa: E402
from mxnet.gluon import nn  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def set_bn_stats(bn, rng):
    c = bn.gamma.shape[0]
    bn.gamma.set_data(mx.nd.array(rng.uniform(0.5, 1.5, c)))
    bn.beta.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, c)))
    bn.running_mean.set_data(mx.nd.array(rng.uniform(-0.3, 0.3, c)))
    bn.running_var.set_data(mx.nd.array(rng.uniform(0.5, 1.5, c)))


class ConvBnRelu(nn.HybridBlock):
    """Conv2D(bias) + BatchNorm + relu, and Conv2D(no bias) + BatchNorm + relu."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.c0 = nn.Conv2D(4, 3, padding=1, in_channels=3)
        self.bn0 = nn.BatchNorm(in_channels=4)
        self.c1 = nn.Conv2D(6, 3, strides=2, in_channels=4, use_bias=False)
        self.bn1 = nn.BatchNorm(in_channels=6)

    def hybrid_forward(self, F, x):
        a = F.Activation(self.bn0(self.c0(x)), act_type="relu")
        return F.Activation(self.bn1(self.c1(a)), act_type="relu")


class ConvAddRelu(nn.HybridBlock):
    """Residual: conv -> (conv3x3 no-bias + conv1x1) -> relu (conv + sum) -> FC + relu."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.c0 = nn.Conv2D(4, 3, padding=1, in_channels=3)
        self.c1 = nn.Conv2D(4, 3, padding=1, in_channels=4, use_bias=False)
        self.c2 = nn.Conv2D(4, 1, in_channels=4)
        self.fc = nn.Dense(5, in_units=4 * 25)

    def hybrid_forward(self, F, x):
        a = self.c0(x)
        b = F.relu(self.c1(a) + self.c2(a))
        return F.Activation(self.fc(b), act_type="relu")


class FcRelu(nn.HybridBlock):
    """Dense(relu) on a 2-D input, then Dense without activation (flatten=False on 3-D)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.fc0 = nn.Dense(8, activation="relu", in_units=6)
        self.fc1 = nn.Dense(3, flatten=False, in_units=8)

    def hybrid_forward(self, F, x):
        return self.fc1(self.fc0(x).reshape((2, 2, 8)))


class SelfAtt(nn.HybridBlock):
    """Interleaved self-attention (GluonNLP BERT style): qkv projection, qk, softmax, valatt."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.proj = nn.Dense(3 * 2 * 4, flatten=False, in_units=8)

    def hybrid_forward(self, F, x):
        qkv = self.proj(x)
        att = F.softmax(F.contrib.interleaved_matmul_selfatt_qk(qkv, heads=2), axis=-1)
        return F.contrib.interleaved_matmul_selfatt_valatt(qkv, att, heads=2)


CASES = [
    ("conv_bn_relu", ConvBnRelu, (2, 3, 7, 7)),
    ("conv_add_relu", ConvAddRelu, (2, 3, 5, 5)),
    ("fc_relu", FcRelu, (4, 6)),
    ("selfatt", SelfAtt, (3, 2, 8)),
]

QUANTIZED_CASES = [
    ("quantized_conv_bn_relu", ConvBnRelu, (2, 3, 7, 7)),
    ("quantized_conv_add_relu", ConvAddRelu, (2, 3, 5, 5)),
]


def build(cls, shape, seed):
    mx.random.seed(seed)
    rng = np.random.RandomState(seed)
    net = cls()
    net.initialize(mx.init.Xavier())
    for blk in net._children.values():
        if isinstance(blk, nn.BatchNorm):
            set_bn_stats(blk, rng)
    x = mx.nd.array(rng.uniform(-1, 1, shape).astype(np.float32))
    net.hybridize()
    return net, x


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for seed, (name, cls, shape) in enumerate(CASES):
        net, x = build(cls, shape, seed)
        unfused = net(x).copy()
        net.optimize_for(x, backend="MKLDNN")
        y = net(x)
        sym_json = json.loads(net._cached_graph[1].tojson())
        ops = sorted({n["op"] for n in sym_json["nodes"] if n["op"].startswith("_sg_")})
        assert ops, "%s: optimize_for fused nothing" % name
        prefix = os.path.join(out_dir, name)
        net.export(prefix)
        mx.nd.save(prefix + "-io.params", {"data": x, "output": y, "unfused": unfused})
        print("%s: %s, |fused - unfused| max %.3g" % (name, ", ".join(ops),
                                                      float(abs(y - unfused).max().asscalar())))
    # Quantized graphs (int8 oneDNN nodes with calibrated ranges).
    from mxnet.contrib import quantization
    for seed, (name, cls, shape) in enumerate(QUANTIZED_CASES, 10):
        net, x = build(cls, shape, seed)
        unfused = net(x).copy()
        dataset = mx.gluon.data.ArrayDataset(x.asnumpy(), np.zeros(shape[0]))
        calib = mx.gluon.data.DataLoader(dataset, batch_size=shape[0])
        qnet = quantization.quantize_net(net, quantized_dtype="auto", calib_mode="naive",
                                         calib_data=calib, num_calib_examples=shape[0],
                                         ctx=mx.cpu(), logger=None)
        y = qnet(x)
        prefix = os.path.join(out_dir, name)
        qnet.export(prefix)
        mx.nd.save(prefix + "-io.params", {"data": x, "output": y, "unfused": unfused})
        print("%s: |quantized - float| max %.3g" % (name, float(abs(y - unfused).max().asscalar())))

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "symbol", "testdata", "sg"))
