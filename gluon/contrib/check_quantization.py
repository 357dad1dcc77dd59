#!/usr/bin/env python3
"""Live check: MXNet 1.9.1 loads and runs a graph written by `mxnet quantize` (our quantize_net),
and its output agrees with ours.

    PY=$(tools/conformance/setup_venv.sh | tail -1)
    ./bazelw build //tools/mxnet:mxnet
    $PY gluon/contrib/check_quantization.py [--mode naive|entropy] [WORKDIR]

Steps: the float ResNet of testdata/quantization/ (gen_quantization_refs.py) is quantized by
`mxnet quantize --input calib.nd` on the same two calibration batches MXNet used; `mxnet
predict` runs our int8 export on the test batch; MXNet's SymbolBlock.imports loads the same
export and runs it (its oneDNN int8 kernels). Both outputs must be within 5 % of the float
output's largest magnitude of each other, and of MXNet's own quantize_net output. Exit status
1 on a mismatch.

    $PY gluon/contrib/check_quantization.py --fashion-mnist FLOAT_PREFIX INT8_PREFIX
runs a float export and an int8 export of a Fashion-MNIST model (`mxnet train` and `mxnet
quantize`, e.g. resnet18_v1) in MXNet 1.9.1 on the 10,000 test images (normalized like `mxnet
train`) and prints both top-1 accuracies and MXNet's images/s for each (batch 64).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
os.environ.setdefault("MXNET_SUBGRAPH_VERBOSE", "0")

import numpy as np  # noqa: E402
import mxnet as mx  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
REF = os.path.join(ROOT, "gluon", "contrib", "testdata", "quantization")
CLI = os.path.join(ROOT, "bazel-bin", "tools", "mxnet", "mxnet")


def fashion_mnist(root="/usr/share/datasets/fashion-mnist"):
    import gzip
    with gzip.open(os.path.join(root, "t10k-images-idx3-ubyte.gz")) as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
    with gzip.open(os.path.join(root, "t10k-labels-idx1-ubyte.gz")) as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8)
    return ((x.astype(np.float32) / 255 - 0.286) / 0.353), y


def eval_fashion_mnist(float_prefix, int8_prefix, batch=64):
    # One process per model: after the float net's MKLDNN passes, MXNet 1.9.1 can hand back the
    # int8 net's output in a oneDNN layout that asnumpy() refuses.
    if float_prefix and int8_prefix:
        for args in ((float_prefix, ""), ("", int8_prefix)):
            subprocess.check_call([sys.executable, __file__, "--fashion-mnist", args[0] or "-",
                                   args[1] or "-"])
        return 0
    import time
    x, y = fashion_mnist()
    for name, prefix, epoch in (("float32", float_prefix, 0), ("int8", int8_prefix, 0)):
        if not prefix:
            continue
        net = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"],
                                           prefix + "-%04d.params" % epoch)
        if name == "float32":
            net.optimize_for(mx.nd.array(x[:batch]), backend="MKLDNN")
        net.hybridize()  # static_alloc: MXNet 1.9.1 then returns int8 nets' output in oneDNN layout
        correct = 0
        for i in range(0, len(x), batch):
            out = net(mx.nd.array(x[i:i + batch]))
            correct += int((np.argmax(out.asnumpy(), axis=1) == y[i:i + batch]).sum())
        n = 20 * batch
        t = time.time()
        for i in range(0, n, batch):
            net(mx.nd.array(x[i:i + batch])).wait_to_read()
        print("MXNet 1.9.1 %s: top-1 %.4f on %d test images, %.1f images/s (batch %d)"
              % (name, correct / len(x), len(x), n / (time.time() - t), batch))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="naive")
    ap.add_argument("--fashion-mnist", action="store_true")
    ap.add_argument("workdir", nargs="?")
    ap.add_argument("int8_prefix", nargs="?")
    a = ap.parse_args()
    if a.fashion_mnist:
        return eval_fashion_mnist(a.workdir.strip("-"), a.int8_prefix.strip("-"))
    work = a.workdir or tempfile.mkdtemp(prefix="check_quantization_")
    io = mx.nd.load(os.path.join(REF, "io.params"))
    mx.nd.save(os.path.join(work, "calib.nd"), [io["calib0"], io["calib1"]])
    mx.nd.save(os.path.join(work, "x.nd"), {"data": io["x"]})
    prefix = os.path.join(work, "ours-" + a.mode)
    subprocess.check_call([CLI, "quantize", "--symbol", os.path.join(REF, "float-symbol.json"),
                           "--params", os.path.join(REF, "float-0000.params"), "--input",
                           os.path.join(work, "calib.nd"), "--calib-mode", a.mode, "--out",
                           prefix])
    subprocess.check_call([CLI, "predict", "--symbol", prefix + "-symbol.json", "--params",
                           prefix + "-0000.params", "--input", os.path.join(work, "x.nd"),
                           "--output", os.path.join(work, "ours.nd")])
    ours = list(mx.nd.load(os.path.join(work, "ours.nd")).values())[0].asnumpy()
    net = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    theirs = net(io["x"]).asnumpy()
    ref = io[a.mode].asnumpy()
    scale = float(np.abs(io["float"].asnumpy()).max())
    d_ours = float(np.abs(ours - theirs).max())
    d_ref = float(np.abs(theirs - ref).max())
    print("MXNet runs our %s export: |ours - MXNet on our graph| %.4g, |MXNet on our graph - "
          "MXNet's quantize_net| %.4g (float output max %.4g)" % (a.mode, d_ours, d_ref, scale))
    ok = d_ours <= 0.05 * scale and d_ref <= 0.05 * scale
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
