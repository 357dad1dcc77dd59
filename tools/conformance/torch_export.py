#!/usr/bin/env python3
"""Exports one torchvision vision net with torch.onnx for onnx_check.py (runs in the PyTorch venv
of setup_torch_venv.sh, never in MXNet's).

    $TORCH_PY tools/conformance/torch_export.py NAME EXPORTER OPSET OUT_DIR

NAME: a torchvision.models constructor (resnet18, mobilenet_v2, ...), built with weights=None and
torch.manual_seed(0) (random weights: nothing is downloaded), in eval mode. EXPORTER: "legacy"
(the TorchScript exporter, dynamo=False) or "dynamo" (the torch.export-based one, the default
since PyTorch 2.9; it writes the weights as external data NAME.onnx.data). Input "data" of shape
(2, 3, S, S) (S = 299 for inception_v3, else 224) with a dynamic batch axis. Writes
OUT_DIR/NAME.onnx, NAME-x.npy (the input) and NAME-y.npy (PyTorch's output for it).
"""
import os
import sys
import warnings

import numpy as np
import torch
import torchvision


def main():
    name, exporter, opset, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    torch.manual_seed(0)
    kwargs = {"weights": None}
    if name == "inception_v3":
        kwargs.update(aux_logits=False, init_weights=True)
    net = getattr(torchvision.models, name)(**kwargs).eval()
    size = 299 if name == "inception_v3" else 224
    x = np.random.RandomState(0).uniform(-1, 1, (2, 3, size, size)).astype(np.float32)
    with torch.no_grad():
        y = net(torch.from_numpy(x)).numpy()
    path = os.path.join(out, name + ".onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, (torch.from_numpy(x),), path, opset_version=opset,
                          input_names=["data"], output_names=["out"],
                          dynamic_axes={"data": {0: "N"}, "out": {0: "N"}},
                          dynamo=exporter == "dynamo")
    np.save(os.path.join(out, name + "-x.npy"), x)
    np.save(os.path.join(out, name + "-y.npy"), y)


if __name__ == "__main__":
    main()
