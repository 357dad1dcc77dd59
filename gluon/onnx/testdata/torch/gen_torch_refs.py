#!/usr/bin/env python3
"""Regenerates gluon/onnx/testdata/torch: a small torchvision-style CNN exported by PyTorch's
torch.onnx, the reference of //gluon/onnx:onnx_test's OnnxImport.TorchExport* tests (our import
of a foreign exporter's file runs, equals PyTorch, and fine-tunes with autograd).

    TORCH_PY=$(tools/conformance/setup_torch_venv.sh | tail -1)
    $TORCH_PY gluon/onnx/testdata/torch/gen_torch_refs.py

Writes tiny_resnet.onnx (the TorchScript exporter, opset 17, eval mode, dynamic batch; conv +
batch norm + relu stem, one residual basic block, max pool, adaptive average pool, flatten,
linear: what torchvision's ResNets emit), tiny_resnet_in.npy (4x3x16x16) and tiny_resnet_out.npy
(PyTorch's output for it). Weights are random (torch.manual_seed(0)), BatchNorm statistics
non-trivial.
"""
import os
import warnings

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


class TinyResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.layer1 = Block(8)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = self.layer1(x)
        return self.fc(torch.flatten(self.avgpool(x), 1))


def main():
    torch.manual_seed(0)
    net = TinyResNet()
    with torch.no_grad():  # non-trivial running statistics
        for m in net.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    net.eval()
    x = np.random.RandomState(0).uniform(-1, 1, (4, 3, 16, 16)).astype(np.float32)
    with torch.no_grad():
        y = net(torch.from_numpy(x)).numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, (torch.from_numpy(x),), os.path.join(HERE, "tiny_resnet.onnx"),
                          opset_version=17, input_names=["data"], output_names=["out"],
                          dynamic_axes={"data": {0: "N"}, "out": {0: "N"}}, dynamo=False)
    np.save(os.path.join(HERE, "tiny_resnet_in.npy"), x)
    np.save(os.path.join(HERE, "tiny_resnet_out.npy"), y)


if __name__ == "__main__":
    main()
