#!/usr/bin/env python3
"""Reference values for the gluon training stack from real MXNet 1.9.1.

Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_optim_refs.py [REPO_ROOT]   # default: this checkout

Writes
    ndarray/ops/testdata/optim/ops.json          the fused update ops (optim family)
    gluon/training/testdata/optimizers.json      mx.optimizer.* through mx.optimizer.Updater
    gluon/training/testdata/schedulers.json      mx.lr_scheduler.* curves
    gluon/training/testdata/metrics.json         mx.metric.* values on fixed predictions
    gluon/training/testdata/trainer.json         gluon.Trainer.step on autograd gradients

Arrays are {"shape", "dtype", "data"} with data flat in C order (float32/float16 values written
exactly with repr; non-finite ones as the strings "inf", "-inf", "nan"). Every case runs three updates from fixed weights/gradients so bias
corrections, update counts and states are exercised. Deterministic (fixed seeds).

ops.json cases: op, attrs (MXNet attribute strings; per-step overrides in step_attrs), inputs
(initial weight and states, in op input order, without the gradient), grad_index (where each
step's gradient goes), grads (one per step), extra (inputs after the states, e.g. rescale_grad),
steps: [{"out": weight after the step, "mutated": {"input index": array}}]. The op is called with
out=weight, as MXNet's optimizers do. Cases with "multi": true (the multi-tensor ops: multi_*sgd*,
preloaded_*, multi_sum_sq, multi_lars, all_finite, multi_all_finite, reset_arrays) list all inputs
in op order; see gen_multi_ops.

optimizers.json cases: name, optimizer, kwargs (Python kwargs; "lr_scheduler" is a scheduler
spec as in schedulers.json), lr_mult / wd_mult (per-index multipliers, index 0), weight, grads,
weights (after each update), lrs (optimizer.learning_rate after each update).
"""
import json
import math
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import numpy as np  # noqa: E402
import mxnet as mx  # noqa: E402
from mxnet import autograd, gluon  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..")


def arr(a):
    a = a.asnumpy() if isinstance(a, mx.nd.NDArray) else np.asarray(a)
    if a.dtype.kind == "f":
        # Non-finite values as strings ("inf", "-inf", "nan"): JSON has no literal for them.
        data = [float(v) if math.isfinite(v) else repr(float(v))
                for v in a.astype(np.float64).ravel()]
    else:
        data = [int(v) for v in a.ravel()]
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": data}


def write(rel, doc):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("wrote", path)


# ---------------------------------------------------------------------------------------------
# Ops
# ---------------------------------------------------------------------------------------------
def gen_ops():
    rng = np.random.RandomState(7)
    shape = (2, 3)
    cases = []

    def u(lo=-1.0, hi=1.0, dtype="float32", shp=shape):
        return rng.uniform(lo, hi, size=shp).astype(dtype)

    def case(name, op, attrs, states, n_typed_states=None, dtype="float32", extra=(),
             step_attrs=None, grad_scale=1.0, state_dtype=None):
        """states: initial arrays of the inputs after grad (numpy). Runs 3 steps."""
        weight = u(dtype=dtype)
        grads = [(u(dtype="float32") * grad_scale).astype(dtype) for _ in range(3)]
        fn = getattr(mx.nd, op, None) or getattr(mx.nd._internal, op)
        w = mx.nd.array(weight, dtype=dtype)
        st = [mx.nd.array(s, dtype=s.dtype) for s in states]
        ex = [mx.nd.array(e, dtype=e.dtype) for e in extra]
        steps = []
        for t in range(3):
            a = dict(attrs)
            if step_attrs:
                a.update(step_attrs[t])
            g = mx.nd.array(grads[t], dtype=dtype)
            fn(w, g, *st, *ex, out=w, **a)
            steps.append({"out": arr(w),
                          "mutated": {str(2 + i): arr(s) for i, s in enumerate(st)}})
        cases.append({"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
                      "step_attrs": [{k: str(v) for k, v in (s or {}).items()}
                                     for s in (step_attrs or [None] * 3)],
                      "inputs": [arr(weight)] + [arr(s) for s in states],
                      "grads": [arr(g) for g in grads], "extra": [arr(e) for e in extra],
                      "steps": steps})

    z = lambda dt="float32": np.zeros(shape, dtype=dt)  # noqa: E731
    case("sgd", "sgd_update", {"lr": 0.1, "wd": 0.01, "rescale_grad": 0.5}, [])
    case("sgd_clip", "sgd_update", {"lr": 0.1, "wd": 0.01, "rescale_grad": 2.0,
                                    "clip_gradient": 0.5}, [])
    case("sgd_mom", "sgd_mom_update", {"lr": 0.1, "momentum": 0.9, "wd": 0.01}, [z()])
    case("sgd_mom_clip", "sgd_mom_update", {"lr": 0.05, "momentum": 0.8, "wd": 0.1,
                                            "rescale_grad": 3.0, "clip_gradient": 1.0},
         [u(-0.1, 0.1)])
    case("sgd_mom_f64", "sgd_mom_update", {"lr": 0.1, "momentum": 0.9, "wd": 0.01},
         [z("float64")], dtype="float64")
    w16 = None
    for name, op, attrs, nst in [
            ("mp_sgd", "mp_sgd_update", {"lr": 0.1, "wd": 0.01, "rescale_grad": 0.5}, 0),
            ("mp_sgd_mom", "mp_sgd_mom_update", {"lr": 0.1, "momentum": 0.9, "wd": 0.01,
                                                 "clip_gradient": 0.3}, 1),
            ("mp_nag_mom", "mp_nag_mom_update", {"lr": 0.1, "momentum": 0.9, "wd": 0.05}, 1)]:
        # weight32 must equal the float16 weight: draw the weight first, then build states.
        state = rng.get_state()
        w16 = u(dtype="float16")
        rng.set_state(state)
        case(name, op, attrs, [z()] * nst + [w16.astype("float32")], dtype="float16")
    case("nag_mom", "nag_mom_update", {"lr": 0.1, "momentum": 0.9, "wd": 0.05}, [z()])
    case("nag_mom_clip", "nag_mom_update", {"lr": 0.1, "momentum": 0.7, "wd": 0.01,
                                            "rescale_grad": 2.0, "clip_gradient": 0.4},
         [u(-0.1, 0.1)])
    case("adam", "adam_update", {"lr": 0.01, "beta1": 0.9, "beta2": 0.99, "epsilon": 1e-6,
                                 "wd": 0.01, "rescale_grad": 0.5}, [z(), z()])
    case("adam_clip", "adam_update", {"lr": 0.01, "wd": 0.1, "rescale_grad": 4.0,
                                      "clip_gradient": 1.0}, [z(), z()])
    one = lambda v: np.array([v], dtype="float32")  # noqa: E731
    case("adamw", "_adamw_update", {"lr": 0.01, "eta": 0.5, "wd": 0.1, "epsilon": 1e-6},
         [z(), z()], extra=[one(0.5)])
    case("adamw_clip", "_adamw_update", {"lr": 0.01, "eta": 1.0, "wd": 0.01,
                                         "clip_gradient": 0.3}, [z(), z()], extra=[one(2.0)])
    case("adamw_skip", "_adamw_update", {"lr": 0.01, "eta": 1.0, "wd": 0.01}, [z(), z()],
         extra=[one(float("inf"))])
    state = rng.get_state()
    w16 = u(dtype="float16")
    rng.set_state(state)
    case("mp_adamw", "_mp_adamw_update", {"lr": 0.01, "eta": 0.5, "wd": 0.1},
         [z(), z(), w16.astype("float32")], dtype="float16", extra=[one(0.25)])
    case("rmsprop", "rmsprop_update", {"lr": 0.01, "gamma1": 0.9, "epsilon": 1e-8, "wd": 0.01,
                                       "rescale_grad": 0.5}, [z()])
    case("rmsprop_clip", "rmsprop_update", {"lr": 0.1, "gamma1": 0.95, "wd": 0.0,
                                            "clip_gradient": 0.2, "clip_weights": 0.6}, [z()])
    case("rmspropalex", "rmspropalex_update", {"lr": 0.01, "gamma1": 0.9, "gamma2": 0.9,
                                               "wd": 0.01, "rescale_grad": 0.5},
         [z(), z(), z()])
    case("rmspropalex_clip", "rmspropalex_update",
         {"lr": 0.01, "clip_gradient": 0.3, "clip_weights": 0.8}, [z(), z(), z()])
    case("ftrl", "ftrl_update", {"lr": 0.1, "lamda1": 0.01, "beta": 1.0, "wd": 0.01,
                                 "rescale_grad": 0.5}, [z(), z()])
    case("ftrl_clip", "ftrl_update", {"lr": 0.5, "lamda1": 0.1, "beta": 2.0,
                                      "clip_gradient": 0.25}, [z(), z()])
    case("signsgd", "signsgd_update", {"lr": 0.1, "wd": 0.01}, [])
    case("signum", "signum_update", {"lr": 0.1, "momentum": 0.9, "wd": 0.01, "wd_lh": 0.05,
                                     "rescale_grad": 0.5}, [z()])
    case("signum_clip", "signum_update", {"lr": 0.1, "momentum": 0.5, "clip_gradient": 0.1},
         [u(-0.1, 0.1)])

    # LAMB: phase 1 (three steps with t = 1, 2, 3) then phase 2 on fixed r1/r2.
    case("lamb_phase1", "lamb_update_phase1",
         {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-6, "wd": 0.01, "rescale_grad": 0.5},
         [z(), z()], step_attrs=[{"t": 1}, {"t": 2}, {"t": 3}])
    case("lamb_phase1_nobc", "lamb_update_phase1",
         {"wd": 0.0, "t": 1, "bias_correction": False, "clip_gradient": 0.3}, [z(), z()])
    # The phase-1 ops return g instead of updating the weight: their "out" is g, and the weight
    # input is unchanged (the generator's in-place call overwrote it with g, so re-run here).
    for c in cases:
        if c["op"].startswith("lamb_update_phase1"):
            w = mx.nd.array(np.array(c["inputs"][0]["data"], dtype="float32").reshape(shape))
            st = [mx.nd.zeros(shape), mx.nd.zeros(shape)]
            steps = []
            for t in range(3):
                a = dict(c["attrs"])
                a.update(c["step_attrs"][t])
                g = mx.nd.array(np.array(c["grads"][t]["data"], dtype="float32").reshape(shape))
                out = mx.nd.lamb_update_phase1(w, g, *st, **a)
                steps.append({"out": arr(out), "mutated": {"2": arr(st[0]), "3": arr(st[1])}})
            c["steps"] = steps
            c["returns_g"] = True
    for name, lb, ub, r1, r2 in [("lamb_phase2", -1, -1, 1.5, 0.5),
                                 ("lamb_phase2_bounds", 2.0, 5.0, 1.5, 0.5),
                                 ("lamb_phase2_upper", -1, 1.0, 1.5, 0.5),
                                 ("lamb_phase2_zero", -1, -1, 1.5, 0.0)]:
        weight, g = u(), u()
        attrs = {"lr": 0.1}
        if lb >= 0:
            attrs["lower_bound"] = lb
        if ub >= 0:
            attrs["upper_bound"] = ub
        w = mx.nd.array(weight)
        out = mx.nd.lamb_update_phase2(w, mx.nd.array(g), mx.nd.array([r1]), mx.nd.array([r2]),
                                       **attrs)
        cases.append({"name": name, "op": "lamb_update_phase2",
                      "attrs": {k: str(v) for k, v in attrs.items()},
                      "inputs": [arr(weight), arr(g), arr(one(r1)), arr(one(r2))],
                      "single": True, "steps": [{"out": arr(out), "mutated": {}}]})
    gen_multi_ops(cases, rng)
    write("ndarray/ops/testdata/optim/ops.json", {"cases": cases})


def gen_multi_ops(cases, rng):
    """ftml_update (the three-step format above) and the multi-tensor ops ("multi": true).

    multi cases: inputs are all of the op's inputs in op order (initial values); grad_index the
    positions that take a fresh gradient each step (grads[t] one array per position; absent for
    one-step ops); out_index the input positions the outputs are written to (out = those inputs,
    as MXNet's optimizers call the multi SGD ops) or null for fresh outputs (out_init: their
    initial values, for all_finite's init_output=False); steps[t]: out (output 0, or input 0
    after the call for reset_arrays, which has no outputs), outputs (all), mutated (every input
    except the gradients, after the call).
    """
    shape = (2, 3)

    def u(lo=-1.0, hi=1.0, dtype="float32", shp=shape):
        return rng.uniform(lo, hi, size=shp).astype(dtype)

    # ---- ftml_update: d, v, z start at zero; t = 1, 2, 3 ----
    z = lambda dt="float32": np.zeros(shape, dtype=dt)  # noqa: E731
    for name, attrs, dtype in [
            ("ftml", {"lr": 0.1, "beta1": 0.6, "beta2": 0.999, "wd": 0.01, "rescale_grad": 0.5},
             "float32"),
            ("ftml_clip", {"lr": 0.05, "epsilon": 1e-6, "wd": 0.1, "rescale_grad": 2.0,
                           "clip_grad": 0.5}, "float32"),
            ("ftml_f64", {"lr": 0.1, "wd": 0.01}, "float64")]:
        weight = u(dtype=dtype)
        grads = [u(dtype=dtype) for _ in range(3)]
        w = mx.nd.array(weight, dtype=dtype)
        st = [mx.nd.zeros(shape, dtype=dtype) for _ in range(3)]
        steps = []
        for t in range(3):
            mx.nd.ftml_update(w, mx.nd.array(grads[t], dtype=dtype), *st, out=w, t=t + 1, **attrs)
            steps.append({"out": arr(w), "mutated": {str(2 + i): arr(x) for i, x in enumerate(st)}})
        cases.append({"name": name, "op": "ftml_update",
                      "attrs": {k: str(v) for k, v in attrs.items()},
                      "step_attrs": [{"t": str(t + 1)} for t in range(3)],
                      "inputs": [arr(weight)] + [arr(z(dtype))] * 3,
                      "grads": [arr(g) for g in grads], "extra": [], "steps": steps})

    def multi(name, op, attrs, inputs, grad_index=(), out_index=None, n_steps=1, out_init=None):
        """inputs: numpy arrays in op order; fresh gradients at grad_index for each step."""
        fn = getattr(mx.nd, op, None) or getattr(mx.nd._internal, op)
        nd_in = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
        grads = [[u(dtype=inputs[i].dtype, shp=inputs[i].shape) for i in grad_index]
                 for _ in range(n_steps)]
        steps = []
        for t in range(n_steps):
            for i, g in zip(grad_index, grads[t]):
                nd_in[i] = mx.nd.array(g, dtype=g.dtype)
            kw = {k: v for k, v in attrs.items()}
            if out_index is not None:
                outs = [nd_in[i] for i in out_index]
                fn(*nd_in, out=outs if len(outs) > 1 else outs[0], **kw)
            elif out_init is not None:
                outs = [mx.nd.array(x, dtype=x.dtype) for x in out_init]
                fn(*nd_in, out=outs[0], **kw)
            else:
                r = fn(*nd_in, **kw)
                outs = list(r) if isinstance(r, (list, tuple)) else ([r] if r is not None else [])
            mx.nd.waitall()
            steps.append({"out": arr(outs[0] if outs else nd_in[0]),
                          "outputs": [arr(o) for o in outs],
                          "mutated": {str(i): arr(x) for i, x in enumerate(nd_in)
                                      if i not in grad_index}})
        c = {"name": name, "op": op, "multi": True, "attrs": {k: str(v) for k, v in attrs.items()},
             "inputs": [arr(x) for x in inputs], "grad_index": list(grad_index),
             "out_index": list(out_index) if out_index is not None else None, "steps": steps}
        if n_steps > 1 or grad_index:
            c["grads"] = [[arr(g) for g in gs] for gs in grads]
        if out_init is not None:
            c["out_init"] = [arr(x) for x in out_init]
        cases.append(c)

    shapes = [(2, 3), (4,), (1, 2, 2)]

    def groups(n_mom, mp, dtype="float32", shp=shapes):
        ins, grad_index, out_index = [], [], []
        for s in shp:
            w = u(dtype=dtype, shp=s)
            out_index.append(len(ins))
            ins.append(w)
            grad_index.append(len(ins))
            ins.append(np.zeros(s, dtype=dtype))  # replaced by each step's gradient
            for _ in range(n_mom):
                ins.append(u(-0.1, 0.1, dtype="float32" if mp else dtype, shp=s))
            if mp:
                ins.append(w.astype("float32"))
        return ins, grad_index, out_index

    tup = lambda v: "(" + ", ".join(repr(float(x)) for x in v) + ("," if len(v) == 1 else "") + ")"  # noqa: E731
    lrs, wds = [0.1, 0.05, 0.2], [0.01, 0.0, 0.1]
    for name, op, n_mom, mp, extra, dtype in [
            ("multi_sgd", "multi_sgd_update", 0, False, {"rescale_grad": 0.5}, "float32"),
            ("multi_sgd_clip", "multi_sgd_update", 0, False, {"clip_gradient": 0.3}, "float32"),
            ("multi_sgd_f64", "multi_sgd_update", 0, False, {}, "float64"),
            ("multi_sgd_mom", "multi_sgd_mom_update", 1, False, {"momentum": 0.9}, "float32"),
            ("multi_sgd_mom_clip", "multi_sgd_mom_update", 1, False,
             {"momentum": 0.8, "rescale_grad": 2.0, "clip_gradient": 0.5}, "float32"),
            ("multi_sgd_mom_f64", "multi_sgd_mom_update", 1, False, {"momentum": 0.9}, "float64"),
            ("multi_mp_sgd", "multi_mp_sgd_update", 0, True, {"rescale_grad": 0.5}, "float16"),
            ("multi_mp_sgd_mom", "multi_mp_sgd_mom_update", 1, True,
             {"momentum": 0.9, "clip_gradient": 0.4}, "float16")]:
        ins, gi, oi = groups(n_mom, mp, dtype)
        attrs = dict(extra, lrs=tup(lrs), wds=tup(wds), num_weights=len(shapes))
        multi(name, op, attrs, ins, gi, oi, n_steps=3)
        pre = "preloaded_" + op
        if dtype != "float64":
            ins, gi, oi = groups(n_mom, mp, dtype)
            ins += [np.array(lrs, dtype="float32"), np.array(wds, dtype="float32")]
            multi("preloaded_" + name, pre, dict(extra, num_weights=len(shapes)), ins, gi, oi,
                  n_steps=3)
    ins, gi, oi = groups(1, False, "float64")
    ins += [np.array(lrs, dtype="float32"), np.array(wds, dtype="float32")]
    multi("preloaded_multi_sgd_mom_f64", "preloaded_multi_sgd_mom_update",
          {"momentum": 0.9, "num_weights": 3}, ins, gi, oi, n_steps=3)
    ins, gi, oi = groups(0, False, "float32", [(3,)])
    multi("multi_sgd_one", "multi_sgd_update", {"lrs": "(0.1,)", "wds": "(0.2,)"}, ins, gi, oi,
          n_steps=3)

    # ---- multi_sum_sq, multi_lars, all_finite, multi_all_finite, reset_arrays ----
    multi("multi_sum_sq", "multi_sum_sq", {"num_arrays": 3},
          [u(shp=(2, 3)), u(shp=(40,)), u(shp=(1,))])
    multi("multi_sum_sq_f64", "multi_sum_sq", {"num_arrays": 2},
          [u(dtype="float64", shp=(5,)), u(dtype="float64", shp=(2, 2))])
    multi("multi_sum_sq_f16", "multi_sum_sq", {"num_arrays": 2},
          [u(dtype="float16", shp=(7,)), u(dtype="float16", shp=(3,))])
    lr4 = np.array([0.1, 0.2, 0.3, 0.4], dtype="float32")
    wss = np.array([4.0, 0.0, 2.5, 9.0], dtype="float32")
    gss = np.array([1.0, 1.0, 0.0, 0.25], dtype="float32")
    wd4 = np.array([0.01, 0.0, 0.1, 0.5], dtype="float32")
    multi("multi_lars", "multi_lars", {"eta": 0.001, "eps": 1e-8}, [lr4, wss, gss, wd4])
    multi("multi_lars_rescale", "multi_lars", {"eta": 0.01, "eps": 0.1, "rescale_grad": 0.5},
          [lr4, wss, gss, wd4])
    bad = u(shp=(2, 3))
    bad[1, 2] = np.inf
    nan = u(dtype="float16", shp=(4,))
    nan[0] = np.nan
    multi("all_finite", "all_finite", {}, [u(shp=(2, 3))])
    multi("all_finite_inf", "all_finite", {}, [bad])
    multi("all_finite_nan_f16", "all_finite", {}, [nan])
    big = np.array([1.0, 1e300], dtype="float64")  # finite in float64, inf as float32
    multi("all_finite_f64_overflow", "all_finite", {}, [big])
    multi("all_finite_no_init", "all_finite", {"init_output": False}, [u(shp=(3,))],
          out_init=[np.array([0.5], dtype="float32")])
    multi("all_finite_no_init_inf", "all_finite", {"init_output": False}, [bad],
          out_init=[np.array([0.5], dtype="float32")])
    multi("multi_all_finite", "multi_all_finite", {"num_arrays": 2},
          [u(shp=(2, 3)), u(shp=(5,))])
    multi("multi_all_finite_inf", "multi_all_finite", {"num_arrays": 3},
          [u(shp=(2, 3)), u(shp=(5,)), bad])
    multi("multi_all_finite_no_init", "multi_all_finite", {"num_arrays": 1, "init_output": False},
          [u(shp=(4,))], out_init=[np.array([0.0], dtype="float32")])
    multi("reset_arrays", "reset_arrays", {"num_arrays": 3},
          [u(shp=(2, 3)), u(dtype="float64", shp=(4,)), u(dtype="float16", shp=(1, 3))])


# ---------------------------------------------------------------------------------------------
# Schedulers
# ---------------------------------------------------------------------------------------------
def make_scheduler(spec):
    spec = dict(spec)
    kind = spec.pop("type")
    cls = {"factor": mx.lr_scheduler.FactorScheduler,
           "multifactor": mx.lr_scheduler.MultiFactorScheduler,
           "poly": mx.lr_scheduler.PolyScheduler,
           "cosine": mx.lr_scheduler.CosineScheduler}[kind]
    return cls(**spec)


SCHEDULERS = [
    {"type": "factor", "step": 3, "factor": 0.5},
    {"type": "factor", "step": 2, "factor": 0.1, "stop_factor_lr": 1e-4, "base_lr": 0.1},
    {"type": "factor", "step": 4, "factor": 0.5, "base_lr": 1.0, "warmup_steps": 5,
     "warmup_begin_lr": 0.1},
    {"type": "factor", "step": 4, "factor": 0.5, "base_lr": 1.0, "warmup_steps": 3,
     "warmup_begin_lr": 0.2, "warmup_mode": "constant"},
    {"type": "multifactor", "step": [3, 7, 8], "factor": 0.5},
    {"type": "multifactor", "step": [5, 10], "factor": 0.1, "base_lr": 1.0, "warmup_steps": 4,
     "warmup_begin_lr": 0.5},
    {"type": "poly", "max_update": 20, "base_lr": 0.1},
    {"type": "poly", "max_update": 20, "base_lr": 1.0, "pwr": 1, "final_lr": 0.1,
     "warmup_steps": 5, "warmup_begin_lr": 0.01},
    {"type": "cosine", "max_update": 20, "base_lr": 0.5},
    {"type": "cosine", "max_update": 15, "base_lr": 1.0, "final_lr": 0.05, "warmup_steps": 5,
     "warmup_begin_lr": 0.1, "warmup_mode": "linear"},
]


def gen_schedulers():
    cases = []
    for spec in SCHEDULERS:
        s = make_scheduler(spec)
        cases.append({"spec": spec, "lrs": [float(s(i)) for i in range(26)]})
    # A non-monotonic query sequence (the schedulers are stateful).
    for spec in [SCHEDULERS[0], SCHEDULERS[4], SCHEDULERS[6]]:
        s = make_scheduler(spec)
        q = [0, 5, 12, 3, 20, 9, 25, 1]
        cases.append({"spec": spec, "queries": q, "lrs": [float(s(i)) for i in q]})
    write("gluon/training/testdata/schedulers.json", {"cases": cases})


# ---------------------------------------------------------------------------------------------
# Optimizers (through mx.optimizer.Updater, like gluon.Trainer)
# ---------------------------------------------------------------------------------------------
OPTIMIZERS = [
    ("sgd", "sgd", {"learning_rate": 0.1}),
    ("sgd_wd_rescale", "sgd", {"learning_rate": 0.1, "wd": 0.01, "rescale_grad": 0.25}),
    ("sgd_mom", "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}),
    ("sgd_mom_clip", "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01,
                             "rescale_grad": 2.0, "clip_gradient": 0.5}),
    ("sgd_mom_mult", "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.1}, 0.5, 2.0),
    ("sgd_mom_mp", "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01,
                           "multi_precision": True}, 1.0, 1.0, "float16"),
    ("sgd_mp", "sgd", {"learning_rate": 0.1, "wd": 0.01, "multi_precision": True}, 1.0, 1.0,
     "float16"),
    ("sgd_f16", "sgd", {"learning_rate": 0.1, "momentum": 0.9}, 1.0, 1.0, "float16"),
    ("sgd_sched", "sgd", {"momentum": 0.9,
                          "lr_scheduler": {"type": "factor", "step": 1, "factor": 0.5,
                                           "base_lr": 0.2}}),
    ("nag", "nag", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}),
    ("nag_nomom", "nag", {"learning_rate": 0.1, "wd": 0.01, "clip_gradient": 0.3}),
    ("nag_mp", "nag", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01,
                       "multi_precision": True}, 1.0, 1.0, "float16"),
    ("adam", "adam", {}),
    ("adam_wd_clip", "adam", {"learning_rate": 0.01, "wd": 0.01, "rescale_grad": 0.5,
                              "clip_gradient": 0.2, "beta1": 0.8, "beta2": 0.99}),
    ("adam_mult", "adam", {"learning_rate": 0.01, "wd": 0.1}, 2.0, 0.0),
    ("adam_mp", "adam", {"learning_rate": 0.01, "multi_precision": True}, 1.0, 1.0, "float16"),
    ("adam_sched", "adam", {"learning_rate": 0.05,
                            "lr_scheduler": {"type": "poly", "max_update": 4, "base_lr": 0.1}}),
    ("rmsprop", "rmsprop", {"learning_rate": 0.01, "wd": 0.01}),
    ("rmsprop_centered", "rmsprop", {"learning_rate": 0.01, "centered": True, "wd": 0.01,
                                     "clip_gradient": 0.5, "clip_weights": 0.9}),
    ("adagrad", "adagrad", {"learning_rate": 0.1, "wd": 0.01, "rescale_grad": 0.5}),
    ("adagrad_clip", "adagrad", {"learning_rate": 0.1, "eps": 1e-5, "clip_gradient": 0.2}),
    ("adadelta", "adadelta", {"wd": 0.01, "rescale_grad": 0.5}),
    ("adadelta_clip", "adadelta", {"rho": 0.8, "epsilon": 1e-4, "clip_gradient": 0.3}),
    ("adamax", "adamax", {"wd": 0.01, "rescale_grad": 0.5}),
    ("adamax_clip", "adamax", {"learning_rate": 0.01, "clip_gradient": 0.3, "beta1": 0.8}),
    ("nadam", "nadam", {"wd": 0.01, "rescale_grad": 0.5}),
    ("nadam_clip", "nadam", {"learning_rate": 0.01, "clip_gradient": 0.3,
                             "schedule_decay": 0.01}),
    ("lamb", "lamb", {"learning_rate": 0.01, "wd": 0.01}),
    ("lamb_bounds", "lamb", {"learning_rate": 0.01, "wd": 0.01, "lower_bound": 2.0,
                             "upper_bound": 5.0, "clip_gradient": 0.5}),
    ("lamb_nobc", "lamb", {"learning_rate": 0.01, "bias_correction": False}),
    ("signum", "signum", {"learning_rate": 0.01, "wd": 0.01, "wd_lh": 0.01}),
    ("signum_nomom", "signum", {"learning_rate": 0.01, "momentum": 0.0, "wd": 0.01}),
    ("ftrl", "ftrl", {"lamda1": 0.01, "wd": 0.01, "rescale_grad": 0.5}),
    ("ftrl_clip", "ftrl", {"learning_rate": 0.5, "lamda1": 0.1, "beta": 2.0,
                           "clip_gradient": 0.25}),
]


def adamw_reference(kwargs, weight, grads, lr_mult, wd_mult):
    """MXNet 2.0's AdamW (fused step) written with 1.9.1's _adamw_update op."""
    lr0 = kwargs.get("learning_rate", 0.001)
    b1, b2 = kwargs.get("beta1", 0.9), kwargs.get("beta2", 0.999)
    eps = kwargs.get("epsilon", 1e-6)
    wd = kwargs.get("wd", 0.0) * wd_mult
    rescale = kwargs.get("rescale_grad", 1.0)
    clip = kwargs.get("clip_gradient")
    w = mx.nd.array(weight)
    mean, var = mx.nd.zeros(w.shape), mx.nd.zeros(w.shape)
    out = []
    for t, g in enumerate(grads, start=1):
        lr = lr0 * lr_mult
        if kwargs.get("correct_bias", True):
            lr *= math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        extra = {"clip_gradient": clip} if clip else {}
        mx.nd._internal._adamw_update(w, mx.nd.array(g), mean, var, mx.nd.array([rescale]),
                                      out=w, lr=1.0, wd=wd, eta=lr, beta1=b1, beta2=b2,
                                      epsilon=eps, **extra)
        out.append(arr(w))
    return out


def gen_optimizers():
    rng = np.random.RandomState(11)
    cases = []
    for entry in OPTIMIZERS:
        name, opt_name, kwargs = entry[:3]
        lr_mult = entry[3] if len(entry) > 3 else 1.0
        wd_mult = entry[4] if len(entry) > 4 else 1.0
        dtype = entry[5] if len(entry) > 5 else "float32"
        weight = rng.uniform(-1, 1, size=(2, 3)).astype(dtype)
        grads = [rng.uniform(-1, 1, size=(2, 3)).astype(dtype) for _ in range(3)]
        kw = dict(kwargs)
        if "lr_scheduler" in kw:
            kw["lr_scheduler"] = make_scheduler(kw["lr_scheduler"])
        opt = mx.optimizer.create(opt_name, **kw)
        opt.set_lr_mult({0: lr_mult})
        opt.set_wd_mult({0: wd_mult})
        upd = mx.optimizer.get_updater(opt)
        w = mx.nd.array(weight, dtype=dtype)
        weights, lrs = [], []
        for g in grads:
            upd(0, mx.nd.array(g, dtype=dtype), w)
            weights.append(arr(w))
            lrs.append(float(opt.learning_rate))
        cases.append({"name": name, "optimizer": opt_name, "kwargs": kwargs,
                      "lr_mult": lr_mult, "wd_mult": wd_mult, "weight": arr(weight),
                      "grads": [arr(g) for g in grads], "weights": weights, "lrs": lrs})
    for name, kwargs, lr_mult, wd_mult in [
            ("adamw", {"learning_rate": 0.01, "wd": 0.1}, 1.0, 1.0),
            ("adamw_clip_mult", {"learning_rate": 0.01, "wd": 0.01, "rescale_grad": 0.5,
                                 "clip_gradient": 0.2, "epsilon": 1e-8}, 0.5, 2.0),
            ("adamw_nobias", {"learning_rate": 0.01, "wd": 0.1, "correct_bias": False},
             1.0, 1.0)]:
        weight = rng.uniform(-1, 1, size=(2, 3)).astype("float32")
        grads = [rng.uniform(-1, 1, size=(2, 3)).astype("float32") for _ in range(3)]
        cases.append({"name": name, "optimizer": "adamw", "kwargs": kwargs,
                      "lr_mult": lr_mult, "wd_mult": wd_mult, "weight": arr(weight),
                      "grads": [arr(g) for g in grads],
                      "weights": adamw_reference(kwargs, weight, grads, lr_mult, wd_mult),
                      "lrs": None})
    write("gluon/training/testdata/optimizers.json", {"cases": cases})


# ---------------------------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------------------------
def gen_metrics():
    rng = np.random.RandomState(3)
    cases = []

    def softmax(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)).astype("float32")

    def run(name, make, kwargs, batches):
        m = make(**kwargs)
        values = []
        for labels, preds in batches:
            m.update([mx.nd.array(l, dtype=l.dtype) for l in labels],
                     [mx.nd.array(p, dtype=p.dtype) for p in preds])
            n, v = m.get()
            values.append({"names": n if isinstance(n, list) else [n],
                           "values": [float(x) for x in (v if isinstance(v, list) else [v])]})
        gn, gv = m.get_global()
        cases.append({"name": name, "metric": make.__name__, "kwargs": kwargs,
                      "batches": [{"labels": [arr(l) for l in labels],
                                   "preds": [arr(p) for p in preds]}
                                  for labels, preds in batches],
                      "values": values,
                      "global": {"names": gn if isinstance(gn, list) else [gn],
                                 "values": [float(x) for x in
                                            (gv if isinstance(gv, list) else [gv])]}})

    cls_batches = []
    for n in (8, 6):
        p = softmax(rng.normal(size=(n, 5)))
        l = rng.randint(0, 5, size=(n,)).astype("float32")
        cls_batches.append(([l], [p]))
    run("accuracy", mx.metric.Accuracy, {}, cls_batches)
    # Predicted labels (same shape as labels) are compared directly.
    run("accuracy_labels", mx.metric.Accuracy, {},
        [([np.array([0, 1, 2, 3], "float32")], [np.array([0, 1, 1, 3], "float32")])])
    p3 = softmax(rng.normal(size=(2, 4, 3))).transpose(0, 2, 1).copy()  # classes on axis 1
    run("accuracy_axis", mx.metric.Accuracy, {"axis": 1},
        [([rng.randint(0, 3, size=(2, 4)).astype("float32")], [p3])])
    run("top_k_3", mx.metric.TopKAccuracy, {"top_k": 3}, cls_batches)
    run("top_k_2", mx.metric.TopKAccuracy, {"top_k": 2}, cls_batches)
    bin_batches = []
    for n in (10, 7):
        p = softmax(rng.normal(size=(n, 2)))
        l = rng.randint(0, 2, size=(n,)).astype("float32")
        bin_batches.append(([l], [p]))
    run("f1_macro", mx.metric.F1, {}, bin_batches)
    run("f1_micro", mx.metric.F1, {"average": "micro"}, bin_batches)
    reg_batches = []
    for shp in [(6,), (4, 1)]:
        l = rng.normal(size=shp).astype("float32")
        p = rng.normal(size=shp).astype("float32")
        reg_batches.append(([l], [p]))
    reg_batches.append(([rng.normal(size=(3, 2)).astype("float32")],
                        [rng.normal(size=(3, 2)).astype("float32")]))
    for cls in (mx.metric.MAE, mx.metric.MSE, mx.metric.RMSE):
        run(cls.__name__.lower(), cls, {}, reg_batches)
    run("cross_entropy", mx.metric.CrossEntropy, {}, cls_batches)
    run("cross_entropy_eps", mx.metric.CrossEntropy, {"eps": 1e-3}, cls_batches)
    run("perplexity", mx.metric.Perplexity, {"ignore_label": None}, cls_batches)
    ppl = []
    for n in (8, 6):
        p = softmax(rng.normal(size=(n, 5)))
        l = rng.randint(0, 5, size=(n,)).astype("float32")
        l[:2] = 0
        ppl.append(([l], [p]))
    run("perplexity_ignore", mx.metric.Perplexity, {"ignore_label": 0}, ppl)
    run("loss", mx.metric.Loss, {},
        [([], [rng.uniform(0, 2, size=(4,)).astype("float32")]),
         ([], [rng.uniform(0, 2, size=(3, 2)).astype("float32")])])

    # Composite: accuracy + top_k + cross-entropy on the classification batches.
    comp = mx.metric.CompositeEvalMetric()
    comp.add(mx.metric.Accuracy())
    comp.add(mx.metric.TopKAccuracy(top_k=2))
    comp.add(mx.metric.CrossEntropy())
    values = []
    for labels, preds in cls_batches:
        comp.update([mx.nd.array(l) for l in labels], [mx.nd.array(p) for p in preds])
        n, v = comp.get()
        values.append({"names": n, "values": [float(x) for x in v]})
    cases.append({"name": "composite", "metric": "CompositeEvalMetric",
                  "children": ["accuracy", "top_k_accuracy_2", "ce"],
                  "batches": [{"labels": [arr(l) for l in labels],
                               "preds": [arr(p) for p in preds]}
                              for labels, preds in cls_batches],
                  "values": values})
    # Registered names and aliases.
    names = {}
    for n, kw in [("acc", {}), ("accuracy", {}), ("top_k_accuracy", {"top_k": 5}),
                  ("top_k_acc", {"top_k": 2}), ("f1", {}), ("mae", {}), ("mse", {}),
                  ("rmse", {}), ("ce", {}), ("crossentropy", {}), ("perplexity",
                                                                    {"ignore_label": None}),
                  ("loss", {}), ("composite", {})]:
        names[n] = mx.metric.create(n, **kw).name
    write("gluon/training/testdata/metrics.json", {"cases": cases, "names": names})


# ---------------------------------------------------------------------------------------------
# Trainer (gluon.Trainer.step on gradients from autograd)
# ---------------------------------------------------------------------------------------------
def gen_trainer():
    rng = np.random.RandomState(5)
    cases = []
    for name, opt, kwargs in [
            ("sgd", "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}),
            ("adam", "adam", {"learning_rate": 0.01, "wd": 0.001, "clip_gradient": 0.5}),
            ("rmsprop", "rmsprop", {"learning_rate": 0.01, "centered": True})]:
        w0 = rng.uniform(-1, 1, size=(2, 3)).astype("float32")
        b0 = rng.uniform(-1, 1, size=(3,)).astype("float32")
        xs = [rng.uniform(-1, 1, size=(2, 3)).astype("float32") for _ in range(3)]
        ys = [rng.uniform(-1, 1, size=(3,)).astype("float32") for _ in range(3)]
        w = gluon.Parameter("w", shape=(2, 3), lr_mult=0.5)
        b = gluon.Parameter("b", shape=(3,), wd_mult=0.0)
        for p, v in ((w, w0), (b, b0)):
            p.initialize(ctx=mx.cpu())
            p.set_data(mx.nd.array(v))
        params = {"w": w, "b": b}
        tr = gluon.Trainer(params, opt, dict(kwargs))
        steps = []
        for x, y in zip(xs, ys):
            with autograd.record():
                loss = w.data() * mx.nd.array(x)
                loss2 = b.data() * mx.nd.array(y)
            autograd.backward([loss, loss2])
            tr.step(4)
            steps.append({"w": arr(w.data()), "b": arr(b.data()), "lr": tr.learning_rate})
        cases.append({"name": name, "optimizer": opt, "kwargs": kwargs, "w": arr(w0),
                      "b": arr(b0), "xs": [arr(x) for x in xs], "ys": [arr(y) for y in ys],
                      "batch_size": 4, "steps": steps})
    write("gluon/training/testdata/trainer.json", {"cases": cases})


if __name__ == "__main__":
    gen_ops()
    sys.path.insert(0, HERE)
    import refs_optim_multi2  # noqa: E402  (testdata/optim/multi2.json)
    refs_optim_multi2.gen(arr, write)
    gen_schedulers()
    gen_optimizers()
    gen_metrics()
    gen_trainer()
