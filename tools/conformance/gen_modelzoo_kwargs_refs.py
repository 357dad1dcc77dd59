#!/usr/bin/env python3
"""Reference data for the model-zoo factories' keyword arguments, from real MXNet 1.9.1.

MXNet's factories (resnet18_v1(**kwargs), get_model(name, **kwargs), ...) pass the keyword
arguments they do not use themselves on to the model class: thumbnail (ResNets), batch_norm
(VGGs), bn_size and dropout (DenseNets), classes (all). A class that does not take one raises
TypeError. Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_modelzoo_kwargs_refs.py [OUT]   # default: modelzoo/testdata/kwargs.json

Writes (deterministic) a list of cases: function ("get_model:<name>" or a factory name), kwargs,
and either input (shape), output_shape, params ([[structured name, shape], ...] in
save_parameters order) and dropouts (Dropout blocks in the tree), or error (the exception type).
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import mxnet as mx
from mxnet.gluon.model_zoo import vision

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    HERE, "..", "..", "modelzoo", "testdata", "kwargs.json")

CASES = [
    ("resnet18_v1", {"thumbnail": True, "classes": 10}, 32),
    ("resnet50_v2", {"thumbnail": True}, 32),
    ("get_model:resnet18_v2", {"thumbnail": True, "classes": 7}, 32),
    ("densenet121", {"bn_size": 2, "dropout": 0.1, "classes": 10}, 224),
    ("get_model:densenet169", {"bn_size": 3}, 224),
    ("vgg11", {"batch_norm": True, "classes": 10}, 32),
    ("get_model:vgg13", {"batch_norm": True}, 32),
    ("vgg16_bn", {"batch_norm": False}, 32),  # the _bn factory sets batch_norm=True itself
    ("alexnet", {"thumbnail": True}, None),
    ("mobilenet1_0", {"bn_size": 2}, None),
    ("resnet18_v1", {"batch_norm": True}, None),
    ("densenet121", {"thumbnail": True}, None),
    ("squeezenet1_0", {"dropout": 0.5}, None),
    ("inception_v3", {"thumbnail": True}, None),
    ("get_model:mobilenetv2_1.0", {"dropout": 0.2}, None),
]


def build(function, kwargs):
    if function.startswith("get_model:"):
        return vision.get_model(function.split(":", 1)[1], **kwargs)
    return getattr(vision, function)(**kwargs)


def main():
    out = []
    for function, kwargs, size in CASES:
        case = {"function": function, "kwargs": kwargs}
        try:
            net = build(function, kwargs)
        except TypeError as e:
            case["error"] = type(e).__name__
            out.append(case)
            continue
        assert size is not None, function
        sym = net(mx.sym.var("data"))
        arg_shapes, out_shapes, aux_shapes = sym.infer_shape(data=(1, 3, size, size))
        shapes = dict(zip(sym.list_arguments(), arg_shapes))
        shapes.update(zip(sym.list_auxiliary_states(), aux_shapes))
        case["input"] = [1, 3, size, size]
        case["output_shape"] = list(out_shapes[0])
        case["params"] = [[k, list(shapes[p.name])]
                          for k, p in net._collect_params_with_prefix().items()]
        case["dropouts"] = str(net).count("Dropout(")
        out.append(case)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", OUT, len(out), "cases")


if __name__ == "__main__":
    main()
