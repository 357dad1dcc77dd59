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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="naive")
    ap.add_argument("workdir", nargs="?")
    a = ap.parse_args()
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
