#!/usr/bin/env python3
"""MXNet 1.x parameter names of model-zoo nets, from real MXNet 1.9.1, for //modelzoo:mxnet1_names_test.

Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_mxnet1_names.py [OUT_FILE]   # default: modelzoo/testdata/mxnet1_names.json

Each net is built by vision.get_model(name) inside a fresh mx.name.NameManager (so its prefix has
count 0, as in a fresh process), hybridized and run once on zeros (224x224; 299 for inceptionv3).
Per net (deterministic output):
  prefix        net.prefix ("resnetv10_")
  names         [[structured name, 1.x name], ...] in save_parameters order: the keys of 1.9.1's
                save_parameters file paired with the same Parameter's collect_params() key
  aux           indices into names of the parameters net.export() writes as "aux:<1.x name>"
                (the others are "arg:<1.x name>"; checked here against the export file's keys)
The deprecated net.save_params() file's keys are checked here to be the 1.x names without prefix.

Also writes modelzoo/testdata/mxnet1/<case>-export.params (net.export's parameter file:
"arg:resnetv11_..." keys) and <case>-save_params.params (net.save_params: "stage1_conv0_weight"
keys) for small nets of gen_modelzoo_refs.py's LOAD_CASES, holding the weights of
testdata/load/<case>.params (so they give that file's outputs in load/cases.json), and
<case>-symbol.json's variable names in "<case>" entries of mxnet1/cases.json. resnet_v1b_tiny is
the second ResNetV1 of its name scope: prefix resnetv11_.
"""
import json
import os
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
import mxnet as mx
from mxnet.gluon.model_zoo import vision

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    HERE, "..", "..", "modelzoo", "testdata", "mxnet1_names.json")

NETS = ["alexnet", "vgg11_bn", "resnet18_v1", "resnet50_v1", "resnet18_v2", "resnet50_v2",
        "densenet121", "squeezenet1.0", "squeezenet1.1", "inceptionv3", "mobilenet0.25",
        "mobilenetv2_1.0"]


FILE_CASES = [
    ("resnet_v1b_tiny", 2,
     lambda: vision.ResNetV1(vision.BottleneckV1, [1, 2], [16, 32, 64], classes=10), (2, 3, 32, 32)),
    ("resnet_v2b_tiny", 1,
     lambda: vision.ResNetV2(vision.BasicBlockV2, [2, 1], [8, 8, 16], classes=10, thumbnail=True),
     (2, 3, 16, 16)),
    ("densenet_tiny", 1,
     lambda: vision.DenseNet(8, 4, [2, 2], bn_size=2, dropout=0.1, classes=10), (2, 3, 56, 56)),
]


def gen_files(d, tmp):
    os.makedirs(d, exist_ok=True)
    load = os.path.join(os.path.dirname(d), "load")
    cases = {}
    for case, copies, build, shape in FILE_CASES:
        with mx.name.NameManager():
            for _ in range(copies):
                net = build()  # the last one is used: prefix count copies - 1
        net.load_parameters(os.path.join(load, case + ".params"))
        net.hybridize()
        net(mx.nd.zeros(shape))
        net.export(os.path.join(tmp, case))
        os.replace(os.path.join(tmp, case + "-0000.params"), os.path.join(d, case + "-export.params"))
        net.save_params(os.path.join(d, case + "-save_params.params"))
        sym = mx.sym.load(os.path.join(tmp, case + "-symbol.json"))
        cases[case] = {"prefix": net.prefix, "arguments": sym.list_arguments(),
                       "aux_states": sym.list_auxiliary_states()}
    with open(os.path.join(d, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1, sort_keys=True)
        f.write("\n")


def main():
    out = {}
    tmp = tempfile.mkdtemp()
    for name in NETS:
        with mx.name.NameManager():
            net = vision.get_model(name)
        net.initialize()
        net.hybridize()
        size = 299 if name == "inceptionv3" else 224
        net(mx.nd.zeros((1, 3, size, size)))
        structured = net._collect_params_with_prefix()
        by_id = {id(p): k for k, p in net.collect_params().items()}
        names = [[k, by_id[id(p)]] for k, p in structured.items()]
        # save_parameters writes exactly the structured keys.
        net.save_parameters(os.path.join(tmp, "s.params"))
        assert list(mx.nd.load(os.path.join(tmp, "s.params")).keys()) == [k for k, _ in names]
        net.export(os.path.join(tmp, "e"))
        export_keys = set(mx.nd.load(os.path.join(tmp, "e-0000.params")).keys())
        aux = [i for i, (_, n) in enumerate(names) if "aux:" + n in export_keys]
        assert export_keys == {("aux:" if i in aux else "arg:") + n
                               for i, (_, n) in enumerate(names)}
        net.save_params(os.path.join(tmp, "p.params"))
        assert set(mx.nd.load(os.path.join(tmp, "p.params")).keys()) == {
            n[len(net.prefix):] for _, n in names}
        out[name] = {"prefix": net.prefix, "names": names, "aux": aux}
        print(name, net.prefix, len(names), file=sys.stderr)
    gen_files(os.path.join(os.path.dirname(OUT), "mxnet1"), tmp)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"), sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
