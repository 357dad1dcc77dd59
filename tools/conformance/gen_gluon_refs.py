"""Reference data for gluon tests from real MXNet 1.9.1.

Run: PY=$(tools/conformance/setup_venv.sh | tail -1); $PY tools/conformance/gen_gluon_refs.py [OUT_DIR]
Writes OUT_DIR (default gluon/nn/testdata/):
  model.params          save_parameters of the seeds' Model (two Dense(20) + relu), structured keys
  model-symbol.json,    export() of the same model after hybridize (1.x prefixed names)
  model-0000.params
  model.json            input, output, head gradient, parameter gradients, input gradient
"""
import json
import os
import sys

import mxnet as mx
import numpy as np
from mxnet import gluon, nd
from mxnet.gluon import nn

out_dir = (sys.argv[1] if len(sys.argv) > 1
           else os.path.join(os.path.dirname(__file__), "..", "..", "gluon", "nn", "testdata"))
os.makedirs(out_dir, exist_ok=True)
mx.random.seed(7)
np.random.seed(7)


class Model(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Model, self).__init__(**kwargs)
        with self.name_scope():
            self.dense0 = nn.Dense(20)
            self.dense1 = nn.Dense(20)

    def hybrid_forward(self, F, x):
        x = F.relu(self.dense0(x))
        return F.relu(self.dense1(x))


model = Model()
model.initialize(mx.init.Uniform(0.5), ctx=mx.cpu(0))
x = nd.array(np.random.uniform(-1, 1, size=(10, 10)).astype(np.float32))
model(x)  # completes deferred initialization
# Make the bias non-zero so relu sees both signs.
for name, p in model.collect_params().items():
    if name.endswith("bias"):
        p.set_data(nd.array(np.random.uniform(-0.2, 0.2, size=p.shape).astype(np.float32)))
model.save_parameters(os.path.join(out_dir, "model.params"))
x.attach_grad()
hg = nd.array(np.random.uniform(-1, 1, size=(10, 20)).astype(np.float32))
with mx.autograd.record():
    y = model(x)
y.backward(hg)
grads = {}
for name, p in model._collect_params_with_prefix().items():
    grads[name] = p.grad().asnumpy().ravel().tolist()
model.hybridize()
y2 = model(x)
model.export(os.path.join(out_dir, "model"))
ref = {
    "input": x.asnumpy().ravel().tolist(),
    "output": y.asnumpy().ravel().tolist(),
    "output_hybridized": y2.asnumpy().ravel().tolist(),
    "head_grad": hg.asnumpy().ravel().tolist(),
    "param_grads": grads,
    "input_grad": x.grad.asnumpy().ravel().tolist(),
    "symbol_inputs": mx.sym.load(os.path.join(out_dir, "model-symbol.json")).list_inputs(),
}
with open(os.path.join(out_dir, "model.json"), "w") as f:
    json.dump(ref, f)
print("wrote", os.path.normpath(out_dir))
