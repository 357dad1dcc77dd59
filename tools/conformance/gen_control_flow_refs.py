#!/usr/bin/env python3
"""Reference data for the control-flow operators _foreach, _while_loop and _cond
(symbol/control_flow_test.cc), from MXNet 1.9.1's mx.sym.contrib.foreach / while_loop / cond.

    PY=/root/.cache/mxnet-conformance/venv/bin/python
    $PY tools/conformance/gen_control_flow_refs.py [OUT_DIR]   # default symbol/testdata/control_flow
    $PY tools/conformance/gen_control_flow_refs.py --check FILE.json INPUTS.json
        # loads a symbol JSON written by our library into MXNet, binds it and prints its
        # outputs and gradients (the our-JSON -> MXNet direction; see control_flow_test.cc)

Writes one <case>.json per case: {"symbol": MXNet's tojson() text, "inputs": {name: {shape,
data}}, "head_grads": [...], "outputs": [...], "grads": {name: ...}, "steps": (while_loop:
steps taken; rows past it are undefined in MXNet and not compared)}. Fixed seeds; same bytes on
every run.
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import mxnet as mx  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def arr(a):
    a = np.asarray(a, dtype=np.float32)
    return {"shape": list(a.shape), "dtype": "float32", "data": [float("%.7g" % v) for v in a.ravel()]}


def run(sym, inputs, seed, no_grad=()):
    """Forward (is_train) and backward with random head gradients; every input but `no_grad`
    gets a gradient."""
    rng = np.random.RandomState(seed)
    args = {k: mx.nd.array(v) for k, v in inputs.items()}
    grads = {k: mx.nd.zeros(v.shape) for k, v in inputs.items() if k not in no_grad}
    req = {k: ("null" if k in no_grad else "write") for k in inputs}
    exe = sym.bind(mx.cpu(), args=args, args_grad=grads, grad_req=req)
    outs = exe.forward(is_train=True)
    heads = [rng.uniform(-1, 1, o.shape).astype(np.float32) for o in outs]
    exe.backward([mx.nd.array(h) for h in heads])
    return [o.asnumpy() for o in outs], heads, {k: g.asnumpy() for k, g in grads.items()}


def case(name, sym, inputs, seed, note="", no_grad=()):
    outs, heads, grads = run(sym, inputs, seed, no_grad)
    d = {"name": name, "note": note, "symbol": sym.tojson(),
         "arguments": sym.list_arguments(),
         "inputs": {k: arr(v) for k, v in sorted(inputs.items())},
         "head_grads": [arr(h) for h in heads], "outputs": [arr(o) for o in outs],
         "grads": {k: arr(v) for k, v in sorted(grads.items())}}
    return d


def foreach_rnn():
    """An RNN cell over 4 steps: h = tanh(FC(x, wx) + FC(h, wh, bh)); outputs [h, 2h], state h."""
    rng = np.random.RandomState(1)
    data, h0 = mx.sym.var("data"), mx.sym.var("h0")
    wx, wh, bh = mx.sym.var("wx"), mx.sym.var("wh"), mx.sym.var("bh")

    def body(x, states):
        h = mx.sym.tanh(mx.sym.FullyConnected(x, wx, num_hidden=3, no_bias=True) +
                        mx.sym.FullyConnected(states[0], wh, bh, num_hidden=3))
        return [h, h * 2], [h]

    outs, st = mx.sym.contrib.foreach(body, data, [h0])
    sym = mx.sym.Group(outs + st)
    inputs = {"data": rng.uniform(-1, 1, (4, 2, 5)), "h0": rng.uniform(-1, 1, (2, 3)),
              "wx": rng.uniform(-1, 1, (3, 5)), "wh": rng.uniform(-1, 1, (3, 3)),
              "bh": rng.uniform(-1, 1, (3,))}
    return case("foreach_rnn", sym, inputs, 11, note="RNN cell, 2 outputs + 1 state, 3 free variables")


def foreach_two_data():
    """Two data inputs, two states, 1-D data rows (shape (1,) per step) and no free variables."""
    rng = np.random.RandomState(2)
    a, b, s0, s1 = mx.sym.var("a"), mx.sym.var("b"), mx.sym.var("s0"), mx.sym.var("s1")

    def body(x, states):
        p = x[0] * x[1] + states[0]
        q = mx.sym.broadcast_mul(states[1], p)
        return [q], [p, q]

    outs, st = mx.sym.contrib.foreach(body, [a, b], [s0, s1])
    sym = mx.sym.Group(outs + st)
    inputs = {"a": rng.uniform(-1, 1, (3,)), "b": rng.uniform(-1, 1, (3,)),
              "s0": rng.uniform(-1, 1, (1,)), "s1": rng.uniform(-1, 1, (1,))}
    return case("foreach_two_data", sym, inputs, 12, note="two data, two states, 1-D data")


def while_sum(max_iterations, lim):
    """Sums s += x * i while i < lim; step outputs [s * 2]; free variables lim (cond) and x.

    MXNet 1.9.1's symbolic _while_loop backward is broken (its own test is skipped, "Bug in while
    loop op", apache/incubator-mxnet#18575), so the outputs come from the bound symbol and the
    gradients from mx.nd.contrib.while_loop under autograd (the same loop run imperatively; rows
    past the steps taken get no gradient). lim gets none (only cond reads it)."""
    rng = np.random.RandomState(3)
    i, s, lim_v, x = mx.sym.var("i"), mx.sym.var("s"), mx.sym.var("lim"), mx.sym.var("x")

    def cond(i, s):
        return i < lim_v

    def func(i, s):
        return [s * 2], [i + 1, s + mx.sym.broadcast_mul(x, i)]

    outs, st = mx.sym.contrib.while_loop(cond, func, [i, s], max_iterations=max_iterations)
    sym = mx.sym.Group(outs + st)
    inputs = {"i": np.array([0.0]), "s": rng.uniform(-1, 1, (2,)), "lim": np.array([lim]),
              "x": rng.uniform(-1, 1, (2,))}
    steps = min(max_iterations, int(np.ceil(lim)))
    exe = sym.bind(mx.cpu(), args={k: mx.nd.array(v) for k, v in inputs.items()})
    outs_v = [o.asnumpy() for o in exe.forward(is_train=False)]
    outs_v[0][steps:] = 0  # undefined in MXNet; ours are zeros
    hrng = np.random.RandomState(13)
    heads = [hrng.uniform(-1, 1, o.shape).astype(np.float32) for o in outs_v]
    nd = {k: mx.nd.array(v) for k, v in inputs.items()}
    for k in ("i", "s", "x"):
        nd[k].attach_grad()
    with mx.autograd.record():
        o, v = mx.nd.contrib.while_loop(
            lambda i, s: i < nd["lim"],
            lambda i, s: ([s * 2], [i + 1, s + mx.nd.broadcast_mul(nd["x"], i)]),
            [nd["i"], nd["s"]], max_iterations=max_iterations)
        total = (o[0][:steps] * mx.nd.array(heads[0][:steps])).sum()
        for k in range(2):
            total = total + (v[k] * mx.nd.array(heads[1 + k])).sum()
    total.backward()
    for a, b in zip([o[0][:steps]] + v, [outs_v[0][:steps]] + outs_v[1:]):
        assert np.allclose(a.asnumpy(), b, atol=1e-6), "imperative and symbolic while_loop differ"
    grads = {k: nd[k].grad.asnumpy() for k in ("i", "s", "x")}
    grads["lim"] = np.zeros(1, dtype=np.float32)
    name = "while_sum_%d_%d" % (max_iterations, int(lim))
    return {"name": name, "symbol": sym.tojson(), "arguments": sym.list_arguments(),
            "note": "stops at i >= lim after %d of %d iterations" % (steps, max_iterations),
            "inputs": {k: arr(v) for k, v in sorted(inputs.items())},
            "head_grads": [arr(h) for h in heads], "outputs": [arr(v) for v in outs_v],
            "grads": {k: arr(v) for k, v in sorted(grads.items())}, "steps": steps}


def cond_case(name, scale):
    """pred = sum(a) > sum(b); then [a * 2, b * b], else [a - b, b * 3]."""
    rng = np.random.RandomState(4)
    a, b = mx.sym.var("a"), mx.sym.var("b")
    out = mx.sym.contrib.cond(mx.sym.sum(a) > mx.sym.sum(b), lambda: [a * 2, b * b],
                              lambda: [a - b, b * 3])
    sym = mx.sym.Group(out)
    inputs = {"a": rng.uniform(0, 1, (2, 3)) * scale, "b": rng.uniform(0, 1, (2, 3))}
    return case(name, sym, inputs, 14, note="branch %s" % ("then" if scale > 1 else "else"))


def check(sym_file, inputs_file):
    sym = mx.sym.load(sym_file)
    with open(inputs_file) as f:
        raw = json.load(f)
    inputs = {k: np.array(v["data"], dtype=np.float32).reshape(v["shape"]) for k, v in raw.items()}
    try:
        outs, heads, grads = run(sym, inputs, 0)
    except mx.base.MXNetError as e:  # _while_loop backward (apache/incubator-mxnet#18575)
        exe = sym.bind(mx.cpu(), args={k: mx.nd.array(v) for k, v in inputs.items()})
        outs = [o.asnumpy() for o in exe.forward(is_train=False)]
        grads = {"error (forward only)": np.array([0.0])}
        print("backward failed in MXNet: %s" % str(e).splitlines()[0][:120])
    print(json.dumps({"outputs": [o.ravel().tolist() for o in outs],
                      "grads": {k: v.ravel().tolist() for k, v in grads.items()}}))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--check":
        return check(sys.argv[2], sys.argv[3])
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "symbol", "testdata", "control_flow")
    os.makedirs(out_dir, exist_ok=True)
    mx.random.seed(0)
    cases = [foreach_rnn(), foreach_two_data(), while_sum(5, 3), while_sum(2, 4),
             cond_case("cond_then", 3.0), cond_case("cond_else", 0.2)]
    for c in cases:
        with open(os.path.join(out_dir, c["name"] + ".json"), "w") as f:
            json.dump(c, f, indent=1, sort_keys=True)
            f.write("\n")
    print("wrote %d cases to %s" % (len(cases), out_dir))


if __name__ == "__main__":
    main()
