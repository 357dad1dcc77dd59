#!/usr/bin/env python3
"""Reference values for gluon::loss (gluon/loss/loss.cc) from real MXNet 1.9.1's gluon.loss.

Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_loss_refs.py [OUT]   # default: gluon/loss/testdata/losses.json

Writes {"cases": [case, ...]}; a case is

    name        unique label
    loss        the gluon.loss class name;  kwargs: its constructor arguments
    inputs      [{shape, dtype, data}] in forward order (pred, label[, sample_weight, ...])
    grad        per input, whether MXNet's gradient is recorded (false for class-index labels)
    output      the loss (imperative, under autograd.record() unless no grads are recorded)
    head_grad   the output gradient passed to backward (null: forward only)
    grads       per input, d(sum(head_grad * output))/d(input), or null where grad is false
    repr        repr(loss)

Deterministic (fixed seed); float32 values written with repr so they round-trip exactly.
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import numpy as np
import mxnet as mx
from mxnet import autograd
from mxnet.gluon import loss as gloss

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "gluon", "loss", "testdata",
                                                         "losses.json")
rng = np.random.RandomState(20240611)


def arr(a):
    a = a.asnumpy() if isinstance(a, mx.nd.NDArray) else np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": [float(v) for v in a.ravel().tolist()]}


def U(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype("float32")


def labels(shape, n):
    return rng.randint(0, n, size=shape).astype("float32")


def signs(*shape):
    return (rng.randint(0, 2, size=shape) * 2 - 1).astype("float32")


cases = []


def case(name, cls, kwargs, inputs, grad=None, record=True):
    grad = [True] * len(inputs) if grad is None else grad
    if not record:
        grad = [False] * len(inputs)
    nd_in = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
    for x, g in zip(nd_in, grad):
        if g:
            x.attach_grad()
    blk = getattr(gloss, cls)(**kwargs)
    if not record:
        out, head = blk(*nd_in), None
    else:
        with autograd.record():
            out = blk(*nd_in)
        head = rng.uniform(-1, 1, size=out.shape).astype("float32")
        out.backward(mx.nd.array(head))
    cases.append({
        "name": name, "loss": cls, "kwargs": kwargs, "inputs": [arr(x) for x in inputs], "grad": grad,
        "output": arr(out), "head_grad": None if head is None else arr(head),
        "grads": [arr(x.grad) if g else None for x, g in zip(nd_in, grad)], "repr": repr(blk)})


N = 4
# L1 / L2 (label of another shape is reshaped to pred's).
case("l1", "L1Loss", {}, [U(N, 3), U(N, 3)])
case("l1_weighted", "L1Loss", {"weight": 0.5}, [U(N, 3, 2), U(N, 6), U(N, 1, 1)])
case("l1_batch_axis1", "L1Loss", {"batch_axis": 1}, [U(3, N), U(3, N)])
case("l2", "L2Loss", {}, [U(N, 5), U(N, 5)])
case("l2_weighted", "L2Loss", {"weight": 2.0}, [U(N, 5), U(N, 5), U(N, 1)])
# Sigmoid BCE: logits, probabilities, pos_weight.
case("sbce", "SigmoidBinaryCrossEntropyLoss", {}, [U(N, 3, lo=-4, hi=4), labels((N, 3), 2)])
case("sbce_sw", "SigmoidBinaryCrossEntropyLoss", {"weight": 1.5},
     [U(N, 3, lo=-4, hi=4), labels((N, 3), 2), U(N, 1, lo=0, hi=1)])
case("sbce_from_sigmoid", "SigmoidBinaryCrossEntropyLoss", {"from_sigmoid": True},
     [U(N, 3, lo=0.05, hi=0.95), labels((N, 3), 2)])
case("sbce_pos_weight", "SigmoidBinaryCrossEntropyLoss", {},
     [U(N, 3, lo=-4, hi=4), labels((N, 3), 2), U(N, 1, lo=0, hi=1), U(1, 3, lo=0.5, hi=3)])
case("sbce_from_sigmoid_pos_weight", "SigmoidBinaryCrossEntropyLoss", {"from_sigmoid": True},
     [U(N, 3, lo=0.05, hi=0.95), labels((N, 3), 2), U(N, 1, lo=0, hi=1), U(1, 3, lo=0.5, hi=3)])
# Softmax CE.
case("sce_sparse", "SoftmaxCrossEntropyLoss", {}, [U(N, 5, lo=-3, hi=3), labels((N,), 5)], [True, False])
case("sce_sparse_sw", "SoftmaxCrossEntropyLoss", {"weight": 0.7},
     [U(N, 5, lo=-3, hi=3), labels((N,), 5), U(N, 1, lo=0, hi=1)], [True, False, True])
case("sce_dense", "SoftmaxCrossEntropyLoss", {"sparse_label": False},
     [U(N, 5, lo=-3, hi=3), np.abs(U(N, 5))])
case("sce_from_logits", "SoftmaxCrossEntropyLoss", {"from_logits": True},
     [U(N, 5, lo=-3, hi=-0.1), labels((N,), 5)], [True, False])
case("sce_axis1", "SoftmaxCrossEntropyLoss", {"axis": 1},
     [U(N, 5, 3, lo=-3, hi=3), labels((N, 3), 5)], [True, False])
# KL divergence.
logp = np.log(np.exp(U(N, 5)) / np.exp(U(N, 5)).sum(axis=1, keepdims=True)).astype("float32")
q = np.exp(U(N, 5, lo=-2, hi=2))
q = (q / q.sum(axis=1, keepdims=True)).astype("float32")
case("kl", "KLDivLoss", {}, [logp, q])
case("kl_not_logits_sw", "KLDivLoss", {"from_logits": False, "weight": 2.0}, [U(N, 5, lo=-2, hi=2), q, U(N, 1)])
# Huber, hinge.
case("huber", "HuberLoss", {}, [U(N, 6, lo=-2, hi=2), U(N, 6, lo=-2, hi=2)])
case("huber_rho", "HuberLoss", {"rho": 0.5, "weight": 3.0}, [U(N, 6, lo=-2, hi=2), U(N, 6, lo=-2, hi=2), U(N, 1)])
case("hinge", "HingeLoss", {}, [U(N, 6, lo=-2, hi=2), signs(N, 6)])
case("hinge_margin", "HingeLoss", {"margin": 2.0}, [U(N, 6, lo=-2, hi=2), signs(N, 6), U(N, 1)])
case("sq_hinge", "SquaredHingeLoss", {}, [U(N, 6, lo=-2, hi=2), signs(N, 6)])
case("sq_hinge_margin", "SquaredHingeLoss", {"margin": 0.5, "weight": 0.5}, [U(N, 6, lo=-2, hi=2), signs(N, 6)])
# Logistic.
case("logistic_signed", "LogisticLoss", {}, [U(N, 4, lo=-3, hi=3), signs(N, 4)])
case("logistic_binary", "LogisticLoss", {"label_format": "binary"},
     [U(N, 4, lo=-3, hi=3), labels((N, 4), 2), U(N, 1)])
# Triplet.
case("triplet", "TripletLoss", {}, [U(N, 5), U(N, 5), U(N, 5)])
case("triplet_margin", "TripletLoss", {"margin": 0.3, "weight": 2.0}, [U(N, 2, 3), U(N, 6), U(N, 2, 3)])
# Poisson NLL (compute_full with targets > 0: MXNet gives NaN for target 0, see loss.h;
# compute_full gives forward values only: MXNet 1.9.1's version does an in-place *= that
# autograd.record() and hybridize() both reject).
case("poisson", "PoissonNLLLoss", {}, [U(N, 3), rng.randint(0, 5, size=(N, 3)).astype("float32")])
case("poisson_not_logits", "PoissonNLLLoss", {"from_logits": False},
     [U(N, 3, lo=0.1, hi=3), rng.randint(0, 5, size=(N, 3)).astype("float32"), U(N, 1)])
case("poisson_full", "PoissonNLLLoss", {"compute_full": True, "weight": 0.5},
     [U(N, 3), rng.randint(1, 6, size=(N, 3)).astype("float32") - U(N, 3, lo=0, hi=0.5)], record=False)
# Cosine embedding.
case("cosine", "CosineEmbeddingLoss", {}, [U(N, 5), U(N, 5), signs(N)], [True, True, False])
case("cosine_margin_sw", "CosineEmbeddingLoss", {"margin": 0.2, "weight": 2.0},
     [U(N, 5), U(N, 5), np.array([1, -1, -1, 1], dtype="float32"), U(N, 1)], [True, True, False, True])

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    json.dump({"mxnet_version": mx.__version__, "cases": cases}, f, separators=(",", ":"))
print(f"wrote {len(cases)} cases to {OUT}", file=sys.stderr)
