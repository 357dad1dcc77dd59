#!/usr/bin/env python3
"""Checks that model-zoo nets exported by our HybridBlock::export_model load in real MXNet 1.9.1.

For each net, //modelzoo:export_tool builds it with the deterministic weights of
modelzoo_weights.py, runs it hybridized and exports it (-symbol.json + -0000.params, plus
-io.params with the input and our output). Then MXNet 1.9.1:
  1. imports the export with gluon.SymbolBlock.imports and runs it on the same input;
  2. builds its own vision.get_model(name) with the same deterministic weights and runs it;
and both are compared with our output (max |a - b| / max |b|, must be < 1e-4).

Run (not part of `bazel test`):
    ./bazelw build //modelzoo:export_tool
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/modelzoo_check_export.py [NAME:SIZE ...]
Default nets: resnet18_v1:224 resnet50_v2:64 mobilenetv2_1.0:224 squeezenet1.1:224
densenet121:224 inceptionv3:299 vgg11_bn:32 alexnet:224 mobilenet0.25:64.
Prints one line per net and exits non-zero on any failure.
"""
import os
import subprocess
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
import numpy as np
import mxnet as mx
from mxnet import gluon
from mxnet.gluon.model_zoo import vision

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import modelzoo_weights  # noqa: E402

TOOL = os.path.join(ROOT, "bazel-bin", "modelzoo", "export_tool")
DEFAULT = ["resnet18_v1:224", "resnet50_v2:64", "mobilenetv2_1.0:224", "squeezenet1.1:224",
           "densenet121:224", "inceptionv3:299", "vgg11_bn:32", "alexnet:224", "mobilenet0.25:64"]


def rel_err(a, b):
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30))


def check(name, size, tmp):
    prefix = os.path.join(tmp, name)
    subprocess.run([TOOL, name, str(size), prefix], check=True)
    io = mx.nd.load(prefix + "-io.params")
    x, ours = io["data"], io["output"].asnumpy()
    # 1. Our export, imported by MXNet.
    block = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    imported = block(x).asnumpy()
    # 2. MXNet's own net with the same weights.
    net = vision.get_model(name)
    net.initialize(mx.init.Zero())
    net(x)
    for k, p in net._collect_params_with_prefix().items():
        p.set_data(mx.nd.array(modelzoo_weights.values(k, p.shape), dtype="float32"))
    native = net(x).asnumpy()
    e1, e2 = rel_err(ours, imported), rel_err(ours, native)
    ok = ours.shape == imported.shape == native.shape and e1 < 1e-4 and e2 < 1e-4
    print("%-6s %-18s input %4d  output %s  ours vs MXNet-imported-export %.2e  ours vs MXNet-zoo %.2e" %
          ("OK" if ok else "FAIL", name, size, ours.shape, e1, e2), flush=True)
    return ok


def main():
    if not os.path.exists(TOOL):
        sys.exit("build it first: ./bazelw build //modelzoo:export_tool")
    specs = sys.argv[1:] or DEFAULT
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for spec in specs:
            name, size = spec.split(":")
            ok &= check(name, int(size), tmp)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
