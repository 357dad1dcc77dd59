"""MXNet 1.9.1 references for the fused AdamW / LAMB / group AdaGrad ops (optim_multi2.cc).

Called from gen_optim_refs.py (gen(arr, write)); also runnable alone with the conformance venv:
    $PY tools/conformance/refs_optim_multi2.py [REPO_ROOT]
Writes ndarray/ops/testdata/optim/multi2.json in the "multi" case format of ops.json (see
gen_optim_refs.gen_multi_ops): inputs (all of the op's inputs in op order, initial values),
grad_index (positions that take a fresh gradient each step, grads[t]), out_index (outputs are
written into those inputs: MXNet's ops require out=), steps[t]: out, outputs, mutated (every
input except the gradients, after the call). Three steps each; deterministic (fixed seed).

_contrib_group_adagrad_update has no dense CPU kernel in MXNet: its references come from a
row_sparse gradient holding every row (the same values a dense gradient gives).
"""
import os
import sys

import numpy as np


def gen(arr, write):
    import mxnet as mx

    rng = np.random.RandomState(11)
    cases = []

    def u(lo=-1.0, hi=1.0, dtype="float32", shp=(2, 3)):
        return rng.uniform(lo, hi, size=shp).astype(dtype)

    def multi(name, op, attrs, inputs, grad_index, out_index, sparse_grad=False):
        fn = getattr(mx.nd._internal, op, None) or getattr(mx.nd.contrib, op.replace("_contrib_", ""))
        nd_in = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
        grads = [[u(dtype=inputs[i].dtype, shp=inputs[i].shape) for i in grad_index]
                 for _ in range(3)]
        steps = []
        for t in range(3):
            for i, g in zip(grad_index, grads[t]):
                nd_in[i] = mx.nd.array(g, dtype=g.dtype)
            call_in = list(nd_in)
            if sparse_grad:
                for i in grad_index:
                    call_in[i] = nd_in[i].tostype("row_sparse")
            kw = dict(attrs)
            outs = [nd_in[i] for i in out_index]
            fn(*call_in, out=outs if len(outs) > 1 else outs[0], **kw)
            mx.nd.waitall()
            steps.append({"out": arr(outs[0]), "outputs": [arr(o) for o in outs],
                          "mutated": {str(i): arr(x) for i, x in enumerate(nd_in)
                                      if i not in grad_index}})
        c = {"name": name, "op": op, "multi": True, "attrs": {k: str(v) for k, v in attrs.items()},
             "inputs": [arr(x) for x in inputs], "grad_index": list(grad_index),
             "out_index": list(out_index), "steps": steps,
             "grads": [[arr(g) for g in gs] for gs in grads]}
        cases.append(c)

    shapes = [(2, 3), (4,), (1, 2, 2)]

    def groups(mp, dtype, scale=None, shp=shapes):
        """weight, grad, mean, var[, weight32] per shape, then rescale_grad (adamw)."""
        ins, gi, oi = [], [], []
        sd = "float32" if mp else dtype
        for s in shp:
            w = u(dtype=dtype, shp=s)
            oi.append(len(ins))
            ins.append(w)
            gi.append(len(ins))
            ins.append(np.zeros(s, dtype=dtype))  # replaced by each step's gradient
            ins.append(u(-0.1, 0.1, dtype=sd, shp=s))
            ins.append(u(0.0, 0.1, dtype=sd, shp=s))
            if mp:
                ins.append(w.astype("float32"))
        if scale is not None:
            ins.append(np.array([scale], dtype=sd))
        return ins, gi, oi

    tup = lambda v: "(" + ", ".join(repr(float(x)) for x in v) + ("," if len(v) == 1 else "") + ")"  # noqa: E731
    lrs, wds, etas = [0.1, 0.05, 0.2], [0.01, 0.0, 0.1], [1.0, 0.5, 0.9]
    n = len(shapes)
    adamw = dict(lrs=tup(lrs), wds=tup(wds), etas=tup(etas), num_weights=n)
    for name, op, mp, extra, dtype, scale in [
            ("multi_adamw", "_multi_adamw_update", False, {}, "float32", 1.0),
            ("multi_adamw_clip", "_multi_adamw_update", False,
             {"clip_gradient": 0.3, "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6}, "float32", 2.0),
            ("multi_adamw_skip_zero", "_multi_adamw_update", False, {}, "float32", 0.0),
            ("multi_adamw_skip_nan", "_multi_adamw_update", False, {}, "float32", float("nan")),
            ("multi_mp_adamw", "_multi_mp_adamw_update", True, {}, "float16", 0.5),
            ("multi_mp_adamw_clip", "_multi_mp_adamw_update", True, {"clip_gradient": 0.2},
             "float16", 1.0),
            ("multi_mp_adamw_f32", "_multi_mp_adamw_update", True, {}, "float32", 1.0)]:
        ins, gi, oi = groups(mp, dtype, scale)
        multi(name, op, dict(adamw, **extra), ins, gi, oi)
    ins, gi, oi = groups(False, "float32", 1.0, [(5,)])
    multi("multi_adamw_one", "_multi_adamw_update",
          {"lrs": "(0.1,)", "wds": "(0.2,)", "etas": "(1.0,)"}, ins, gi, oi)

    # LAMB: step_count is an attribute (fixed over the three calls; per-tensor counts differ).
    lamb = dict(learning_rates=tup(lrs), wds=tup(wds), num_tensors=n)
    for name, op, mp, extra, dtype in [
            ("multi_lamb", "_multi_lamb_update", False, {}, "float32"),
            ("multi_lamb_no_bias", "_multi_lamb_update", False,
             {"bias_correction": False, "rescale_grad": 0.5}, "float32"),
            ("multi_lamb_clip_bounds", "_multi_lamb_update", False,
             {"clip_gradient": 0.3, "lower_bound": 0.5, "upper_bound": 1.2, "beta1": 0.8,
              "epsilon": 1e-4}, "float32"),
            ("multi_lamb_f64", "_multi_lamb_update", False, {"rescale_grad": 2.0}, "float64"),
            ("multi_mp_lamb", "_multi_mp_lamb_update", True, {}, "float16"),
            ("multi_mp_lamb_clip", "_multi_mp_lamb_update", True,
             {"clip_gradient": 0.2, "upper_bound": 0.5}, "float16")]:
        ins, gi, oi = groups(mp, dtype)
        multi(name, op, dict(lamb, step_count="(1, 2, 5)", **extra), ins, gi, oi)
    # A zero weight: |w| = 0 gives trust ratio 1.
    ins, gi, oi = groups(False, "float32", None, [(3,)])
    ins[0] = np.zeros(3, dtype="float32")
    multi("multi_lamb_zero_weight", "_multi_lamb_update",
          {"learning_rates": "(0.1,)", "wds": "(0.0,)", "step_count": "(1,)"}, ins, gi, oi)

    # Group AdaGrad: history (rows, 1) and (rows,).
    for name, attrs, shp, hshp, dtype in [
            ("group_adagrad", {"lr": 0.1}, (4, 3), (4, 1), "float32"),
            ("group_adagrad_clip", {"lr": 0.05, "rescale_grad": 2.0, "clip_gradient": 0.5,
                                    "epsilon": 1e-3}, (3, 2, 2), (3,), "float32"),
            ("group_adagrad_f64", {"lr": 0.1}, (3, 2), (3, 1), "float64")]:
        ins = [u(dtype=dtype, shp=shp), np.zeros(shp, dtype=dtype),
               u(0.0, 0.5, dtype=dtype, shp=hshp)]
        multi(name, "_contrib_group_adagrad_update", attrs, ins, [1], [0], sparse_grad=True)

    write("ndarray/ops/testdata/optim/multi2.json", {"cases": cases})


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..")
    sys.argv = [sys.argv[0], root]
    import gen_optim_refs  # noqa: E402  (arr, write; ROOT from argv)
    gen(gen_optim_refs.arr, gen_optim_refs.write)
