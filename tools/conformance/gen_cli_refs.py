"""Reference data for the `mxnet` CLI tests from real MXNet 1.9.1.

Run: PY=$(tools/conformance/setup_venv.sh | tail -1); $PY tools/conformance/gen_cli_refs.py
Writes gluon/nn/testdata/cifar_input.nd ({"data": (2, 3, 32, 32) float32}) and
cifar_logits.nd ({"logits": (2, 10)}): the real GluonCV CIFAR-10 ResNet-20 export in
../shared/data/models run by MXNet's SymbolBlock.imports on that input.
"""
import os

import mxnet as mx
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
shared = os.path.join(here, "..", "..", "..", "shared", "data", "models")
out = os.path.join(here, "..", "..", "gluon", "nn", "testdata")
net = mx.gluon.SymbolBlock.imports(os.path.join(shared, "cifar_resnet20_v1-symbol.json"), ["data"],
                                   os.path.join(shared, "cifar_resnet20_v1-0000.params"))
rng = np.random.RandomState(3)
x = mx.nd.array(rng.uniform(-2, 2, size=(2, 3, 32, 32)).astype(np.float32))
y = net(x)
mx.nd.save(os.path.join(out, "cifar_input.nd"), {"data": x})
mx.nd.save(os.path.join(out, "cifar_logits.nd"), {"logits": y})
print("logits", y.asnumpy())
