#!/usr/bin/env python3
"""Reference outputs of the real GluonCV CIFAR-10 ResNet-20 export from MXNet 1.9.1
(symbol/testdata/cifar_resnet20_v1_ref.json), for the executor and graph-pass tests.

    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_symbol_refs.py [SHARED_DIR]   # default /work/shared

Loads <SHARED_DIR>/data/models/cifar_resnet20_v1-symbol.json and -0000.params, binds the graph
in inference mode (is_train=False) and runs it on a deterministic input that the C++ test
recomputes without storing it:

    x[i] = ((i * 7919) % 2000) / 1000 - 1      (i = flat index, float32, shape (2, 3, 32, 32))

It runs the graph twice: as exported, and after MXNet's own graph rewriting for its oneDNN
backend (sym.get_backend_symbol("MKLDNN"): conv+BN+relu/sum fusion into _sg_mkldnn_conv; in
1.9.1 sym.optimize_for("MKLDNN", ...) returns the graph unchanged and partitions only at bind
time), and records the operator nodes of both graphs, so our pass results can be compared.

Output: {"input_shape", "input_formula", "mxnet_version", "output" (rounded to 7 significant
digits), "output_mkldnn", "op_nodes", "op_nodes_mkldnn", "ops" (count per op name)}. Same bytes
on every run.
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import mxnet as mx  # noqa: E402

OUT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "symbol", "testdata", "cifar_resnet20_v1_ref.json"))
SHAPE = (2, 3, 32, 32)


def model_input():
    i = np.arange(int(np.prod(SHAPE)), dtype=np.int64)
    return (((i * 7919) % 2000).astype(np.float64) / 1000.0 - 1.0).astype(np.float32).reshape(SHAPE)


def op_counts(sym):
    nodes = json.loads(sym.tojson())["nodes"]
    ops = {}
    for n in nodes:
        if n["op"] != "null":
            ops[n["op"]] = ops.get(n["op"], 0) + 1
    return sum(ops.values()), dict(sorted(ops.items()))


def run(sym, args, aux, x):
    args = dict(args)
    args["data"] = mx.nd.array(x)
    exe = sym.bind(mx.cpu(), args=args, aux_states=aux, grad_req="null")
    return exe.forward(is_train=False)[0].asnumpy()


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else "/work/shared"
    prefix = os.path.join(shared, "data", "models", "cifar_resnet20_v1")
    sym = mx.sym.load(prefix + "-symbol.json")
    saved = mx.nd.load(prefix + "-0000.params")
    args = {k[4:]: v for k, v in saved.items() if k.startswith("arg:")}
    aux = {k[4:]: v for k, v in saved.items() if k.startswith("aux:")}
    x = model_input()
    out = run(sym, args, aux, x)
    n, ops = op_counts(sym)
    result = {
        "input_shape": list(SHAPE),
        "input_formula": "((i * 7919) % 2000) / 1000 - 1",
        "mxnet_version": mx.__version__,
        "op_nodes": n,
        "ops": ops,
        "output": [float("%.7g" % v) for v in out.reshape(-1)],
        "output_shape": list(out.shape),
    }
    try:
        opt = sym.get_backend_symbol("MKLDNN")
        result["output_mkldnn"] = [float("%.7g" % v) for v in run(opt, args, aux, x).reshape(-1)]
        result["op_nodes_mkldnn"], result["ops_mkldnn"] = op_counts(opt)
    except Exception as e:  # a build without the MKLDNN subgraph backend
        result["mkldnn_error"] = str(e).splitlines()[0]
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
