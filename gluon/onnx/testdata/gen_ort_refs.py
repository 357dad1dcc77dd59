#!/usr/bin/env python3
"""Regenerates gluon/onnx/testdata: the ONNX test cases exported by our exporter and the outputs
ONNX Runtime computes for them (the independent reference of //gluon/onnx:onnx_test).

    PY=$(tools/conformance/setup_venv.sh | tail -1)   # has onnx and onnxruntime
    ./bazelw build //gluon/onnx:gen_onnx_cases
    $PY gluon/onnx/testdata/gen_ort_refs.py

For each case (gluon/onnx/testing/cases.cc): <case>.onnx (opset 13, exported at batch 2 with a
dynamic batch axis) and <case>_in<k>.npy (batch-3 inputs) come from bazel-bin's gen_onnx_cases;
this script checks each model with onnx.checker (full_check) and writes ONNX Runtime's outputs
(CPUExecutionProvider, graph optimizations off) as <case>_ort<k>.npy.
"""
import glob
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


def main():
    gen = os.path.join(ROOT, "bazel-bin", "gluon", "onnx", "gen_onnx_cases")
    for f in glob.glob(os.path.join(HERE, "*.onnx")) + glob.glob(os.path.join(HERE, "*.npy")):
        os.remove(f)
    names = subprocess.run([gen, HERE], check=True, capture_output=True, text=True).stdout.split()
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    for name in names:
        path = os.path.join(HERE, name + ".onnx")
        onnx.checker.check_model(onnx.load(path), full_check=True)
        sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
        feeds = {}
        for k, i in enumerate(sess.get_inputs()):
            feeds[i.name] = np.load(os.path.join(HERE, "%s_in%d.npy" % (name, k)))
        outs = sess.run(None, feeds)
        for k, o in enumerate(outs):
            np.save(os.path.join(HERE, "%s_ort%d.npy" % (name, k)), np.ascontiguousarray(o))
        print(name, [o.shape for o in outs], "onnxruntime", ort.__version__, file=sys.stderr)


if __name__ == "__main__":
    main()
