#!/usr/bin/env python3
"""Reference values of MXNet 1.9.1's row_sparse gradients and lazy optimizer updates.

    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_sparse_grad_refs.py

writes
  ndarray/ops/testdata/reduce/sparse_embedding.json   (//ndarray/ops/reduce:reduce_sparse_embedding_test)
    Embedding(sparse_grad=True) under autograd with attach_grad(stype='row_sparse'): the
    gradient's storage type, indices, data and dense values (repeats summed; the layer used
    twice), and the dense gradient of the same graph.
  ndarray/ops/testdata/optim/sparse.json              (//ndarray/ops/optim:optim_sparse_test)
    sgd_update, sgd_mom_update, adam_update (lazy_update True and False) and
    sparse.adagrad_update on a dense weight with a row_sparse grad, out=weight: weight and
    states before and after.
  gluon/training/testdata/sparse_trainer.json         (//gluon/training:trainer_sparse_test)
    gluon nn.Embedding(sparse_grad=True) trained by gluon.Trainer (sgd with momentum, adam,
    adagrad) for two steps: the weight after each step.
Float32 values are written exactly (as their double value). Deterministic.
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
os.environ["MXNET_STORAGE_FALLBACK_LOG_VERBOSE"] = "0"
import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def vals(a):
    return np.asarray(a).astype(np.float64).ravel().tolist()


def grad_entry(g):
    e = {"stype": g.stype, "shape": list(g.shape), "values": vals(g.tostype("default").asnumpy())}
    if g.stype == "row_sparse":
        e["indices"] = g.indices.asnumpy().astype(np.int64).tolist()
        e["data"] = vals(g.data.asnumpy())
    return e


def write(path, doc):
    path = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    doc = dict({"generator": "tools/conformance/gen_sparse_grad_refs.py", "mxnet_version": mx.__version__}, **doc)
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print("wrote", path)


def embedding_cases(rng):
    cases = []
    for dtype in ["float32"]:  # MXNet 1.9.1 fails float64 Embedding backward ("Backward shape inconsistent")
        w0 = rng.uniform(-1, 1, (6, 4)).astype(dtype)
        datas = [np.array([[1, 3], [0, 3], [3, 5]], np.float32), np.array([[4, 4], [1, 2], [4, 4]], np.float32)]
        for uses in [1, 2]:
            for req in ["write"]:  # MXNet 1.9.1 refuses grad_req 'add' with sparse_grad
                d1, d2 = datas
                og1 = rng.uniform(-1, 1, d1.shape + (4,)).astype(dtype)
                out = {}
                for stype in ["row_sparse", "default"]:
                    w = mx.nd.array(w0, dtype=dtype)
                    w.attach_grad(grad_req=req, stype=stype)
                    passes = 2 if req == "add" else 1
                    for _ in range(passes):
                        with mx.autograd.record():
                            y1 = mx.nd.Embedding(mx.nd.array(d1), w, input_dim=6, output_dim=4, dtype=dtype,
                                                 sparse_grad=(stype == "row_sparse"))
                            if uses == 2:  # the layer used twice: y1 + y2
                                y1 = y1 + mx.nd.Embedding(mx.nd.array(d2), w, input_dim=6, output_dim=4, dtype=dtype,
                                                          sparse_grad=(stype == "row_sparse"))
                        y1.backward(mx.nd.array(og1, dtype=dtype))
                    out[stype] = grad_entry(w.grad)
                cases.append({"dtype": dtype, "weight": vals(w0), "input_dim": 6, "output_dim": 4,
                              "data": [vals(d1), vals(d2)][:uses], "data_shapes": [list(d1.shape), list(d2.shape)][:uses],
                              "ograd": vals(og1), "grad_req": req,
                              "sparse": out["row_sparse"], "dense": out["default"]})
    return cases


def optim_cases(rng):
    cases = []
    shape = (6, 3)
    row_sets = [[0, 2, 5], [1], list(range(6)), []]

    def run(op, attrs, rows, nstates, positive_states=False):
        w = rng.uniform(-1, 1, shape).astype(np.float32)
        g = np.zeros(shape, np.float32)
        for r in rows:
            g[r] = rng.uniform(-2, 2, shape[1]).astype(np.float32)
        states = [rng.uniform(0.01 if positive_states else -1, 1, shape).astype(np.float32) for _ in range(nstates)]
        if op == "adam_update":
            states[1] = np.abs(states[1])
        wn = mx.nd.array(w)
        gn = (mx.nd.sparse.row_sparse_array((mx.nd.array(g[rows]), mx.nd.array(rows, dtype="int64")), shape=shape)
              if rows else mx.nd.sparse.zeros("row_sparse", shape))
        sn = [mx.nd.array(s) for s in states]
        kw = {k: (v if not isinstance(v, str) else v) for k, v in attrs.items()}
        if op == "_sparse_adagrad_update":
            mx.nd.sparse.adagrad_update(wn, gn, sn[0], out=wn, **kw)
        else:
            getattr(mx.nd, op)(wn, gn, *sn, out=wn, **kw)
        cases.append({"op": op, "attrs": {k: str(v) for k, v in attrs.items()}, "shape": list(shape),
                      "weight": vals(w), "grad_rows": rows, "grad_data": vals(g[rows]) if rows else [],
                      "states": [vals(s) for s in states], "weight_after": vals(wn.asnumpy()),
                      "states_after": [vals(s.asnumpy()) for s in sn]})

    for rows in row_sets:
        for lazy in [True, False]:
            run("sgd_update", {"lr": 0.1, "wd": 0.1, "rescale_grad": 0.5, "lazy_update": lazy}, rows, 0)
            run("sgd_update", {"lr": 0.2, "wd": 0.0, "clip_gradient": 0.3, "lazy_update": lazy}, rows, 0)
            run("sgd_mom_update", {"lr": 0.1, "momentum": 0.9, "wd": 0.01, "rescale_grad": 0.5,
                                   "lazy_update": lazy}, rows, 1)
            run("sgd_mom_update", {"lr": 0.05, "momentum": 0.5, "wd": 0.0, "clip_gradient": 0.4,
                                   "lazy_update": lazy}, rows, 1)
            run("adam_update", {"lr": 0.01, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "wd": 0.01,
                                "rescale_grad": 0.5, "lazy_update": lazy}, rows, 2)
            run("adam_update", {"lr": 0.02, "beta1": 0.8, "beta2": 0.9, "epsilon": 1e-6, "wd": 0.0,
                                "clip_gradient": 0.3, "lazy_update": lazy}, rows, 2)
        run("_sparse_adagrad_update", {"lr": 0.1, "epsilon": 1e-7, "rescale_grad": 0.5}, rows, 1, True)
        run("_sparse_adagrad_update", {"lr": 0.3, "epsilon": 1e-3, "clip_gradient": 0.2}, rows, 1, True)
    return cases


def trainer_cases(rng):
    cases = []
    w0 = rng.uniform(-1, 1, (8, 3)).astype(np.float32)
    batches = [np.array([[1, 2, 2], [7, 1, 0]], np.float32), np.array([[3, 3, 5]], np.float32)]
    heads = [rng.uniform(-1, 1, b.shape + (3,)).astype(np.float32) for b in batches]
    configs = [("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}),
               ("sgd", {"learning_rate": 0.1, "wd": 0.01, "lazy_update": False}),
               ("adam", {"learning_rate": 0.01, "wd": 0.001}),
               ("adam", {"learning_rate": 0.01, "lazy_update": False}),
               ("adagrad", {"learning_rate": 0.1})]
    for opt, kw in configs:
        for sparse in [True, False]:
            net = mx.gluon.nn.Embedding(8, 3, sparse_grad=sparse)
            net.initialize()
            net.weight.set_data(mx.nd.array(w0))
            tr = mx.gluon.Trainer(net.collect_params(), opt, dict(kw))
            after = []
            for b, h in zip(batches, heads):
                with mx.autograd.record():
                    y = net(mx.nd.array(b))
                y.backward(mx.nd.array(h))
                tr.step(b.shape[0])
                after.append(vals(net.weight.data().asnumpy()))
            cases.append({"optimizer": opt, "kwargs": {k: str(v) for k, v in kw.items()},
                          "sparse_grad": sparse, "weight": vals(w0), "input_dim": 8, "output_dim": 3,
                          "batches": [vals(b) for b in batches], "batch_shapes": [list(b.shape) for b in batches],
                          "head_grads": [vals(h) for h in heads], "weight_after": after})
    return cases


def main():
    rng = np.random.RandomState(2301)
    write("ndarray/ops/testdata/reduce/sparse_embedding.json", {"cases": embedding_cases(rng)})
    write("ndarray/ops/testdata/optim/sparse.json", {"cases": optim_cases(rng)})
    write("gluon/training/testdata/sparse_trainer.json", {"cases": trainer_cases(rng)})


if __name__ == "__main__":
    main()
