#!/usr/bin/env python3
"""ONNX cross-check with ONNX Runtime: our exports of the 34 model-zoo nets and MXNet 1.9.1's own
mx.onnx exports, run by ONNX Runtime and compared with our outputs.

    PY=$(tools/conformance/setup_venv.sh | tail -1)      # MXNet 1.9.1 + onnx + onnxruntime
    ./bazelw build //tools:mxnet
    $PY tools/conformance/onnx_check.py [--models resnet18_v1,...] [--opset 13] [--cli PATH]

Per model-zoo net (random Uniform(0.07) weights, seed 0):
 1. `mxnet export --format onnx --model NAME --opset N --out NAME.onnx` (input 1x3xSxS, dynamic
    batch) and `mxnet export --model NAME` (the same weights as -symbol.json/-0000.params);
 2. onnx.checker.check_model(full_check=True) on the .onnx;
 3. ONNX Runtime (CPU, all graph optimizations off) on a batch-2 input vs our forward
    (`mxnet predict --symbol/--params` on the same input): max|ort - ours| / max|ours| < 1e-4;
 4. our import (`mxnet predict --onnx NAME.onnx`) vs ONNX Runtime, same tolerance.
Per MXNet export (MX_ONNX below): MXNet's gluon net (random weights) -> net.export ->
mx.onnx.export_model (opset 21) -> ONNX Runtime vs MXNet's own output and vs `mxnet predict --onnx`.
Per torchvision net (TORCHVISION below; with --torch-py, the python of setup_torch_venv.sh):
torch_export.py exports it with torch.onnx (random weights, both exporters) -> ONNX Runtime vs
PyTorch, and `mxnet predict --onnx` vs ONNX Runtime and vs PyTorch.

report.py runs check_all() as its "ONNX" section; run alone, this prints one line per check and
exits 1 when any fails.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

ZOO = ["alexnet", "densenet121", "densenet161", "densenet169", "densenet201", "inceptionv3",
       "mobilenet0.25", "mobilenet0.5", "mobilenet0.75", "mobilenet1.0", "mobilenetv2_0.25",
       "mobilenetv2_0.5", "mobilenetv2_0.75", "mobilenetv2_1.0", "resnet101_v1", "resnet101_v2",
       "resnet152_v1", "resnet152_v2", "resnet18_v1", "resnet18_v2", "resnet34_v1", "resnet34_v2",
       "resnet50_v1", "resnet50_v2", "squeezenet1.0", "squeezenet1.1", "vgg11", "vgg11_bn", "vgg13",
       "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]
# MXNet's mx.onnx exporter: (net, input size).
MX_ONNX = [("resnet18_v1", 224), ("mobilenetv2_1.0", 224), ("squeezenet1.1", 224), ("densenet121", 224),
           ("vgg11_bn", 224), ("inceptionv3", 299)]
# torchvision nets exported by torch.onnx (torch_export.py in the PyTorch venv): (name, exporter,
# opset). "legacy" is the TorchScript exporter, "dynamo" the torch.export-based default of
# PyTorch >= 2.9 (weights as external data).
TORCHVISION = [(n, "legacy", 17) for n in ("resnet18", "resnet50", "mobilenet_v2", "densenet121",
                                           "inception_v3")] + \
    [(n, "dynamo", 18) for n in ("resnet18", "mobilenet_v2")]
TOL = 1e-4


def rel_err(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        return None, "shape %s vs %s" % (got.shape, want.shape)
    scale = float(np.abs(want).max()) if want.size else 0.0
    d = float(np.abs(got - want).max()) if want.size else 0.0
    if not np.isfinite(got).all():
        return None, "non-finite values"
    return (d / scale if scale else (0.0 if d == 0 else float("inf"))), ""


def _run(cmd):
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT)
    if p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd[:3]), p.stdout.decode(errors="replace").strip()[-400:]))
    return time.time() - t0


def _load_nd(path):
    import mxnet as mx
    return list(mx.nd.load(path).values())[0].asnumpy()


def _ort(path, x):
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    return sess.run(None, {sess.get_inputs()[0].name: x})[0]


def _checker(path):
    import onnx
    onnx.checker.check_model(path, full_check=True)


def _predict_onnx(cli, path, x, work, tag):
    xin, yout = os.path.join(work, tag + "-x.npy"), os.path.join(work, tag + "-y.nd")
    np.save(xin, x)
    _run([cli, "predict", "--onnx", path, "--input", xin, "--output", yout])
    return _load_nd(yout)


def check_zoo(cli, name, work, opset=13):
    """Rows (check, rel_err or None, note, seconds) for one model-zoo net."""
    rows = []
    size = 299 if name == "inceptionv3" else 224
    onnx_path = os.path.join(work, name + ".onnx")
    prefix = os.path.join(work, name)
    x = np.random.RandomState(0).uniform(-1, 1, (2, 3, size, size)).astype(np.float32)
    try:
        t = _run([cli, "export", "--format", "onnx", "--opset", str(opset), "--model", name, "--out", onnx_path])
        _run([cli, "export", "--model", name, "--out", prefix])
        xin, yout = os.path.join(work, name + "-x.npy"), os.path.join(work, name + "-ours.nd")
        np.save(xin, x)
        _run([cli, "predict", "--symbol", prefix + "-symbol.json", "--params", prefix + "-0000.params",
              "--input", xin, "--output", yout])
        ours = _load_nd(yout)
    except Exception as e:  # noqa: BLE001
        return [("export (opset %d)" % opset, None, "error: %s" % e, 0.0)]
    try:
        _checker(onnx_path)
        rows.append(("onnx.checker full_check (opset %d)" % opset, 0.0, "", t))
    except Exception as e:  # noqa: BLE001
        rows.append(("onnx.checker full_check (opset %d)" % opset, None, "error: %s" % str(e)[:300], t))
    try:
        t0 = time.time()
        ort_y = _ort(onnx_path, x)
        err, note = rel_err(ort_y, ours)
        rows.append(("ONNX Runtime vs ours, batch 2 (opset %d)" % opset, err, note, time.time() - t0))
        t0 = time.time()
        imp = _predict_onnx(cli, onnx_path, x, work, name + "-imp")
        err, note = rel_err(imp, ort_y)
        rows.append(("our import vs ONNX Runtime (opset %d)" % opset, err, note, time.time() - t0))
    except Exception as e:  # noqa: BLE001
        rows.append(("ONNX Runtime vs ours (opset %d)" % opset, None, "error: %s" % str(e)[:300], 0.0))
    for f in os.listdir(work):
        if f.startswith(name + "-") or f.startswith(name + "."):
            os.remove(os.path.join(work, f))
    return rows


def check_mx_onnx(cli, name, size, work):
    """MXNet 1.9.1's mx.onnx.export_model of a model-zoo net -> ONNX Runtime and our import."""
    import mxnet as mx
    from mxnet.gluon.model_zoo import vision
    rows = []
    try:
        net = vision.get_model(name)
        net.initialize(mx.init.Xavier(magnitude=2.0))
        net.hybridize()
        x = np.random.RandomState(1).uniform(-1, 1, (1, 3, size, size)).astype(np.float32)
        want = net(mx.nd.array(x)).asnumpy()
        prefix = os.path.join(work, "mx-" + name)
        net.export(prefix)
        path = prefix + ".onnx"
        t0 = time.time()
        # MXNet 1.9.1 writes the onnx package's newest opset (21 with onnx 1.16.2).
        mx.onnx.export_model(prefix + "-symbol.json", prefix + "-0000.params", [(1, 3, size, size)],
                             np.float32, path)
        ort_y = _ort(path, x)
        err, note = rel_err(ort_y, want)
        rows.append(("mx.onnx.export_model: ONNX Runtime vs MXNet", err, note, time.time() - t0))
        t0 = time.time()
        imp = _predict_onnx(cli, path, x, work, "mx-" + name + "-imp")
        err, note = rel_err(imp, ort_y)
        rows.append(("mx.onnx.export_model: our import vs ONNX Runtime", err, note, time.time() - t0))
    except Exception as e:  # noqa: BLE001
        rows.append(("mx.onnx.export_model -> our import", None, "error: %s" % str(e)[:300], 0.0))
    for f in os.listdir(work):
        if f.startswith("mx-" + name):
            os.remove(os.path.join(work, f))
    return rows


def check_torch(cli, torch_py, name, exporter, opset, work):
    """torchvision's NAME exported by torch.onnx (torch_export.py under torch_py) -> ONNX Runtime vs
    PyTorch, and our import (`mxnet predict --onnx`) vs ONNX Runtime and vs PyTorch."""
    d = os.path.join(work, "tv-%s-%s" % (name, exporter))
    os.makedirs(d, exist_ok=True)
    tag = "torch.onnx %s opset %d" % (exporter, opset)
    rows = []
    try:
        t = _run([torch_py, os.path.join(HERE, "torch_export.py"), name, exporter, str(opset), d])
        path = os.path.join(d, name + ".onnx")
        x, want = np.load(os.path.join(d, name + "-x.npy")), np.load(os.path.join(d, name + "-y.npy"))
        ort_y = _ort(path, x)
        err, note = rel_err(ort_y, want)
        rows.append(("%s: ONNX Runtime vs PyTorch" % tag, err, note, t))
        t0 = time.time()
        imp = _predict_onnx(cli, path, x, d, "imp")
        err, note = rel_err(imp, ort_y)
        rows.append(("%s: our import vs ONNX Runtime" % tag, err, note, time.time() - t0))
        err, note = rel_err(imp, want)
        rows.append(("%s: our import vs PyTorch" % tag, err, note, 0.0))
    except Exception as e:  # noqa: BLE001
        rows.append(("%s -> our import" % tag, None, "error: %s" % str(e)[:300], 0.0))
    shutil.rmtree(d, ignore_errors=True)
    return rows


def iter_all(cli, work, models=None, opset=13, mx_models=None, torch_py=None, torch_models=None):
    """Yields (group, name, check, rel_err or None, note, seconds) per check, net by net.
    torch_py: the PyTorch venv's python (setup_torch_venv.sh); None skips the torchvision group."""
    for name in models if models is not None else ZOO:
        for check, err, note, t in check_zoo(cli, name, work, opset):
            yield ("our export", name, check, err, note, t)
    for name, size in (mx_models if mx_models is not None else MX_ONNX):
        for check, err, note, t in check_mx_onnx(cli, name, size, work):
            yield ("MXNet export", name, check, err, note, t)
    if torch_py:
        for name, exporter, tv_opset in (torch_models if torch_models is not None else TORCHVISION):
            for check, err, note, t in check_torch(cli, torch_py, name, exporter, tv_opset, work):
                yield ("torchvision export", name, check, err, note, t)


def check_all(cli, work, models=None, opset=13, mx_models=None, torch_py=None):
    """[(group, name, check, rel_err or None, note, seconds)] for the zoo nets, MXNet's exports and
    (with torch_py) torchvision's torch.onnx exports."""
    return list(iter_all(cli, work, models, opset, mx_models, torch_py))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "bazel-bin", "tools", "mxnet", "mxnet"))
    ap.add_argument("--models", help="model-zoo nets, comma-separated (default: all 34; 'none')")
    ap.add_argument("--mx-models", help="nets for the mx.onnx check, NAME:SIZE,... (default: 6; 'none')")
    ap.add_argument("--opset", type=int, default=13)
    ap.add_argument("--torch-py", help="the PyTorch venv's python (setup_torch_venv.sh) for the "
                    "torchvision group (default: none)")
    ap.add_argument("--torch-models", help="torchvision nets NAME:EXPORTER:OPSET,... (default: 7)")
    args = ap.parse_args()
    models = None if not args.models else ([] if args.models == "none" else args.models.split(","))
    mx_models = None
    if args.mx_models == "none":
        mx_models = []
    elif args.mx_models:
        mx_models = [(m.split(":")[0], int(m.split(":")[1])) for m in args.mx_models.split(",")]
    torch_models = None
    if args.torch_models:
        torch_models = [(m.split(":")[0], m.split(":")[1], int(m.split(":")[2]))
                        for m in args.torch_models.split(",")]
    fails = 0
    with tempfile.TemporaryDirectory(prefix="onnx-check-") as work:
        for group, name, check, err, note, t in iter_all(args.cli, work, models, args.opset, mx_models,
                                                         args.torch_py, torch_models):
            ok = err is not None and err < TOL
            fails += not ok
            print("%-4s %-12s %-18s %-50s %s %6.1fs %s" % ("ok" if ok else "FAIL", group, name, check,
                                                         "-" if err is None else "%.2e" % err, t, note),
                  flush=True)
    print("%d failed" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
