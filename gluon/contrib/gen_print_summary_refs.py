"""Reference outputs of MXNet 1.9.1's mx.viz.print_summary for viz_test (PrintSummary.*).

Run with the conformance venv (tools/conformance/setup_venv.sh prints its python):
    python gluon/contrib/gen_print_summary_refs.py [/path/to/shared]
Writes gluon/contrib/testdata/print_summary/<case>-symbol.json, <case>.shape (the input shapes as
JSON) and <case>.txt (what print_summary printed). The GluonCV CIFAR ResNet-20 export from
../shared is summarised in place (its symbol file is not copied into the repo).
"""
import contextlib
import io
import json
import os
import sys

import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata", "print_summary")


def summary(sym, shape):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        mx.viz.print_summary(sym, shape=shape)
    return buf.getvalue()


def synthetic():
    """Every branch of print_summary: Convolution with/without bias and with groups,
    FullyConnected with/without bias, BatchNorm, Embedding, a node with two op inputs (Concat),
    a multi-output op (SliceChannel: no `_output` key, so no shape), and pooling/activation."""
    data = mx.sym.var("data")
    c1 = mx.sym.Convolution(data, num_filter=8, kernel=(3, 3), pad=(1, 1), name="conv1")
    b1 = mx.sym.BatchNorm(c1, name="bn1")
    a1 = mx.sym.Activation(b1, act_type="relu", name="relu1")
    c2 = mx.sym.Convolution(a1, num_filter=8, kernel=(3, 3), pad=(1, 1), num_group=4, no_bias=True,
                            name="gconv")
    cat = mx.sym.Concat(a1, c2, dim=1, name="cat")
    sl = mx.sym.SliceChannel(cat, num_outputs=2, axis=1, name="split")
    add = mx.sym.elemwise_add(sl[0], sl[1], name="add")
    p = mx.sym.Pooling(add, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    f1 = mx.sym.FullyConnected(p, num_hidden=10, name="fc1")
    f2 = mx.sym.FullyConnected(f1, num_hidden=4, no_bias=True, name="fc2")
    tok = mx.sym.var("tokens")
    emb = mx.sym.Embedding(tok, input_dim=50, output_dim=4, name="emb")
    s = mx.sym.sum(emb, axis=1, name="pooled")
    out = mx.sym.elemwise_add(f2, s, name="out")
    return out, {"data": (2, 3, 8, 8), "tokens": (2, 5)}


def write(case, sym, shape, copy_symbol=True):
    if copy_symbol:
        sym.save(os.path.join(OUT, case + "-symbol.json"))
    with open(os.path.join(OUT, case + ".shape"), "w") as f:
        json.dump({k: list(v) for k, v in shape.items()}, f)
        f.write("\n")
    with open(os.path.join(OUT, case + ".txt"), "w") as f:
        f.write(summary(sym, shape))


def main():
    os.makedirs(OUT, exist_ok=True)
    sym, shape = synthetic()
    write("synthetic", sym, shape)
    # No shapes: Param # of BatchNorm is 0 and every shape column empty.
    with open(os.path.join(OUT, "synthetic_noshape.txt"), "w") as f:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            mx.viz.print_summary(sym)
        f.write(buf.getvalue())
    net = mx.gluon.model_zoo.vision.get_model("mobilenetv2_0.25", classes=10)
    net.initialize()
    net.hybridize()
    net(mx.nd.zeros((1, 3, 32, 32)))
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        net.export(os.path.join(tmp, "m"))
        write("mobilenetv2_0.25", mx.sym.load(os.path.join(tmp, "m-symbol.json")),
              {"data": (1, 3, 32, 32)})
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(OUT), "..", "..", "..", "..", "shared")
    cifar = os.path.join(shared, "data", "models", "cifar_resnet20_v1-symbol.json")
    write("cifar_resnet20_v1", mx.sym.load(cifar), {"data": (1, 3, 32, 32)}, copy_symbol=False)


if __name__ == "__main__":
    main()
