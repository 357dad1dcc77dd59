#!/usr/bin/env python3
"""Reference files for gluon/contrib's tests, made by other projects' own code.

    PY=$(tools/conformance/setup_venv.sh | tail -1)   # MXNet 1.9.1, tensorboard, tensorboardX
    $PY gluon/contrib/gen_tensorboard_refs.py          # rewrites gluon/contrib/testdata/

testdata/tensorboardx_reference.tfevents: an event file written by tensorboardX's SummaryWriter
    with the calls listed in testdata/tensorboardx_reference.json (scalars, an equal-width
    histogram, uint8 images, text); summary_writer_test.cc makes the same calls with our
    SummaryWriter and compares the two files field by field (wall times aside).
testdata/viz_net-symbol.json, testdata/viz_net_mxnet.dot: a small Gluon net exported by MXNet
    1.9.1 and mx.viz.plot_network(sym, shape={"data": (1, 2, 9, 9)}).source; viz_test.cc draws the
    same symbol and compares nodes, labels, colours and edges.
"""
import glob
import json
import os
import shutil
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "testdata")

# The calls, shared with summary_writer_test.cc through the JSON file.
CALLS = {
    "scalars": [["loss", 0.25, 3], ["lr", 0.001, 4], ["train/accuracy", 0.875, 5]],
    "histogram": {"tag": "weights", "step": 5, "bins": 7,
                  "values": [round((i * 37 % 23) / 7.0 - 1.5, 6) for i in range(20)] + [4.0, 4.0]},
    # uint8 images (C, H, W), values row-major.
    "images": [{"tag": "gray", "step": 6, "shape": [1, 5, 4],
                "values": [(i * 13) % 256 for i in range(20)]},
               {"tag": "rgb", "step": 7, "shape": [3, 2, 3],
                "values": [(i * 41 + 7) % 256 for i in range(18)]}],
    "texts": [["note", "hello **world**", 8]],
}


def tensorboardx_file():
    from tensorboardX import SummaryWriter
    tmp = tempfile.mkdtemp()
    try:
        w = SummaryWriter(logdir=tmp)
        for tag, v, step in CALLS["scalars"]:
            w.add_scalar(tag, v, step)
        h = CALLS["histogram"]
        w.add_histogram(h["tag"], np.array(h["values"], dtype=np.float64), h["step"], bins=h["bins"])
        for im in CALLS["images"]:
            w.add_image(im["tag"], np.array(im["values"], dtype=np.uint8).reshape(im["shape"]), im["step"])
        for tag, text, step in CALLS["texts"]:
            w.add_text(tag, text, step)
        w.close()
        files = glob.glob(os.path.join(tmp, "events.out.tfevents.*"))
        assert len(files) == 1, files
        shutil.copyfile(files[0], os.path.join(OUT, "tensorboardx_reference.tfevents"))
    finally:
        shutil.rmtree(tmp)
    with open(os.path.join(OUT, "tensorboardx_reference.json"), "w") as f:
        json.dump(CALLS, f, indent=1)
        f.write("\n")


def viz_files():
    import mxnet as mx
    from mxnet.gluon import nn
    net = nn.HybridSequential(prefix="")
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, strides=2, activation="relu"), nn.BatchNorm(), nn.MaxPool2D(),
                nn.Conv2D(6, 1), nn.LeakyReLU(0.1), nn.GlobalAvgPool2D(), nn.Flatten(), nn.Dense(3))
    net.initialize()
    net.hybridize()
    net(mx.nd.zeros((1, 2, 9, 9)))
    tmp = tempfile.mkdtemp()
    try:
        net.export(os.path.join(tmp, "viz_net"))
        shutil.copyfile(os.path.join(tmp, "viz_net-symbol.json"), os.path.join(OUT, "viz_net-symbol.json"))
    finally:
        shutil.rmtree(tmp)
    sym = mx.sym.load(os.path.join(OUT, "viz_net-symbol.json"))
    dot = mx.viz.plot_network(sym, shape={"data": (1, 2, 9, 9)})
    with open(os.path.join(OUT, "viz_net_mxnet.dot"), "w") as f:
        f.write(dot.source)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    tensorboardx_file()
    viz_files()
    print("wrote", sorted(os.listdir(OUT)))
