#!/usr/bin/env python3
"""Reference data for //modelzoo from real MXNet 1.9.1 (mxnet.gluon.model_zoo.vision).

Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_modelzoo_refs.py [OUT_DIR]     # default: modelzoo/testdata

Writes (deterministic: same bytes every run):

  nets/<name>.json   one per model of get_model's table (34):
      name, canonical_input ([1, 3, 224, 224]; 299 for inceptionv3),
      output_shape      at the canonical input,
      param_count       elements of all parameters (running stats included) at that input,
      params            [[structured name, shape], ...] in save_parameters order (the keys of
                        MXNet's save_parameters file),
      test_input        a small input shape the net accepts (32x32 where MXNet allows),
      test_output       MXNet's output for that input with the deterministic weights of
                        modelzoo_weights.py (parameters by structured name; input named "input")
  load/<case>.params  save_parameters of small nets with MXNet-initialized weights
                      (Xavier, seeded; BatchNorm running stats randomized) (< 2 MB in all)
  preprocess.json     mx.nd.image.to_tensor + normalize(ImageNet mean/std) of small uint8 images
  load/cases.json     per case: constructor, input shape (values: modelzoo_weights.values("input",
                      shape)), MXNet's imperative and
                      hybridized outputs in predict mode, parameter names
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import numpy as np
import mxnet as mx
from mxnet.gluon.model_zoo import vision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import modelzoo_weights  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "modelzoo", "testdata")

# get_model's table, in MXNet's order.
NAMES = [
    "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
    "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2",
    "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn",
    "alexnet", "densenet121", "densenet161", "densenet169", "densenet201",
    "squeezenet1.0", "squeezenet1.1", "inceptionv3",
    "mobilenet1.0", "mobilenet0.75", "mobilenet0.5", "mobilenet0.25",
    "mobilenetv2_1.0", "mobilenetv2_0.75", "mobilenetv2_0.5", "mobilenetv2_0.25",
]


def test_size(name):
    """The smallest convenient input each architecture accepts."""
    if name.startswith("densenet") or name.startswith("squeezenet"):
        return 224  # fixed AvgPool2D(7) / AvgPool2D(13) at the end
    if name == "inceptionv3":
        return 299  # fixed AvgPool2D(8)
    if name == "alexnet":
        return 64
    return 32  # global pooling (resnet, mobilenet) or 5 max-pools (vgg)


def f32list(a):
    return [float(v) for v in np.asarray(a, dtype=np.float32).ravel()]


def structure(net, size):
    """[[structured name, shape]] and output shape from MXNet's own shape inference."""
    sym = net(mx.sym.var("data"))
    arg_shapes, out_shapes, aux_shapes = sym.infer_shape(data=(1, 3, size, size))
    shapes = dict(zip(sym.list_arguments(), arg_shapes))
    shapes.update(zip(sym.list_auxiliary_states(), aux_shapes))
    params = [[k, list(shapes[p.name])] for k, p in net._collect_params_with_prefix().items()]
    return params, list(out_shapes[0])


def set_deterministic(net, x):
    net.initialize(mx.init.Zero())
    net(x)  # completes deferred initialization
    for k, p in net._collect_params_with_prefix().items():
        p.set_data(mx.nd.array(modelzoo_weights.values(k, p.shape), dtype="float32"))


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")


def gen_nets():
    os.makedirs(os.path.join(OUT, "nets"), exist_ok=True)
    for name in NAMES:
        canon = 299 if name == "inceptionv3" else 224
        params, out_shape = structure(vision.get_model(name), canon)
        count = int(sum(int(np.prod(s)) for _, s in params))
        size = test_size(name)
        net = vision.get_model(name)
        shape = (1, 3, size, size)
        x = mx.nd.array(modelzoo_weights.values("input", shape), dtype="float32")
        set_deterministic(net, x)
        y = net(x).asnumpy()
        write_json(os.path.join(OUT, "nets", name + ".json"), {
            "name": name,
            "canonical_input": [1, 3, canon, canon],
            "output_shape": out_shape,
            "param_count": count,
            "params": params,
            "test_input": list(shape),
            "test_output_shape": list(y.shape),
            "test_output": f32list(y),
        })
        print("%-18s params %10d  out %s  test %s max|y| %.4g" % (name, count, out_shape, size,
                                                                  np.abs(y).max()))


# Small nets with MXNet-initialized weights, committed as .params for load_parameters tests.
LOAD_CASES = [
    # (case, constructor description for the C++ test, builder, input shape)
    ("mobilenet0.25_c10", "mobilenet0.25 classes=10",
     lambda: vision.get_model("mobilenet0.25", classes=10), (2, 3, 32, 32)),
    ("resnet_v1_tiny", "ResNetV1(BasicBlockV1, [1, 1, 1, 1], [8, 8, 16, 32, 64], classes=10, thumbnail=True)",
     lambda: vision.ResNetV1(vision.BasicBlockV1, [1, 1, 1, 1], [8, 8, 16, 32, 64], classes=10,
                             thumbnail=True), (2, 3, 16, 16)),
    ("resnet_v1b_tiny", "ResNetV1(BottleneckV1, [1, 2], [16, 32, 64], classes=10)",
     lambda: vision.ResNetV1(vision.BottleneckV1, [1, 2], [16, 32, 64], classes=10), (2, 3, 32, 32)),
    ("resnet_v2_tiny", "ResNetV2(BottleneckV2, [1, 2], [16, 32, 64], classes=10)",
     lambda: vision.ResNetV2(vision.BottleneckV2, [1, 2], [16, 32, 64], classes=10), (2, 3, 32, 32)),
    ("resnet_v2b_tiny", "ResNetV2(BasicBlockV2, [2, 1], [8, 8, 16], classes=10, thumbnail=True)",
     lambda: vision.ResNetV2(vision.BasicBlockV2, [2, 1], [8, 8, 16], classes=10, thumbnail=True),
     (2, 3, 16, 16)),
    ("densenet_tiny", "DenseNet(8, 4, [2, 2], bn_size=2, dropout=0.1, classes=10)",
     lambda: vision.DenseNet(8, 4, [2, 2], bn_size=2, dropout=0.1, classes=10), (2, 3, 56, 56)),
]


def gen_load():
    d = os.path.join(OUT, "load")
    os.makedirs(d, exist_ok=True)
    cases = {}
    total = 0
    for i, (case, desc, build, shape) in enumerate(LOAD_CASES):
        mx.random.seed(100 + i)
        rng = np.random.RandomState(100 + i)
        net = build()
        net.initialize(mx.init.Xavier(magnitude=2.0))
        x = mx.nd.array(modelzoo_weights.values("input", shape), dtype="float32")
        net(x)
        for k, p in net._collect_params_with_prefix().items():
            if k.endswith("running_mean") or k.endswith("beta") or k.endswith("bias"):
                p.set_data(mx.nd.array(rng.uniform(-0.2, 0.2, size=p.shape).astype(np.float32)))
            elif k.endswith("running_var") or k.endswith("gamma"):
                p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, size=p.shape).astype(np.float32)))
        path = os.path.join(d, case + ".params")
        net.save_parameters(path)
        total += os.path.getsize(path)
        y = net(x).asnumpy()
        net.hybridize()
        yh = net(x).asnumpy()
        cases[case] = {
            "constructor": desc,
            "input_shape": list(shape),
            "output_shape": list(y.shape),
            "output": f32list(y),
            "output_hybridized": f32list(yh),
            "params": list(mx.nd.load(path).keys()),
        }
        print("%-18s %8d bytes  out %s" % (case, os.path.getsize(path), list(y.shape)))
    write_json(os.path.join(d, "cases.json"), cases)
    print("load/*.params: %d bytes in all" % total)


def gen_preprocess():
    """ToTensor + Normalize with ImageNet's mean/std, as the model zoo docs prescribe."""
    rng = np.random.RandomState(5)
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    cases = []
    for shape in [(5, 7, 3), (2, 4, 6, 3)]:
        img = rng.randint(0, 256, size=shape).astype(np.uint8)
        x = mx.nd.image.to_tensor(mx.nd.array(img, dtype="uint8"))
        y = mx.nd.image.normalize(x, mean=mean, std=std)
        if len(shape) == 3:
            y = y.expand_dims(0)
        cases.append({"shape": list(shape), "image": img.ravel().tolist(),
                      "output_shape": list(y.shape), "output": f32list(y.asnumpy())})
    os.makedirs(OUT, exist_ok=True)
    write_json(os.path.join(OUT, "preprocess.json"), {"mean": mean, "std": std, "cases": cases})


if __name__ == "__main__":
    gen_preprocess()
    gen_load()
    gen_nets()
    print("wrote", os.path.normpath(OUT))
