#!/usr/bin/env python3
"""Reference statistics and values of initializers (gluon/init.cc) from real MXNet 1.9.1.

Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_init_refs.py [OUT]   # default: gluon/testdata/init_refs.json

Random initializers cannot match MXNet's random stream, so their distributions are compared:

    stats[]   spec (our init::Create text; MXNet's dumps()), param (name passed to the
              initializer), shape, seeds (how many draws were pooled), and over all drawn
              elements: mean, std, min, max, mean_abs; for "orthogonal" also
              gram_dev = max |G - scale^2 I| where G = W W^T (nout <= nin) or W^T W
              (W reshaped to (nout, nin)), and sumsq = sum(W^2) per draw (mean over draws)
    exact[]   spec, param, shape, data: deterministic initializers (constant, bilinear, role
              rules, mixed) element by element
    dumps     {spec: MXNet's dumps() text}

Deterministic (fixed seeds).
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "gluon", "testdata", "init_refs.json")


def run(init, param, shape, seed):
    mx.random.seed(seed)
    arr = mx.nd.zeros(shape)
    init(mx.init.InitDesc(param), arr)
    return arr.asnumpy().astype(np.float64)


stats, exact, dumps = [], [], {}


def stat(spec, init, shape, param="weight", seeds=4):
    draws = [run(init, param, shape, 1000 + s) for s in range(seeds)]
    allv = np.concatenate([d.ravel() for d in draws])
    e = {"spec": spec, "param": param, "shape": list(shape), "seeds": seeds, "mean": float(allv.mean()),
         "std": float(allv.std()), "min": float(allv.min()), "max": float(allv.max()),
         "mean_abs": float(np.abs(allv).mean())}
    if spec.startswith('["orthogonal"') or spec == "orthogonal":
        scale = json.loads(spec)[1].get("scale", 1.414) if spec.startswith("[") else 1.414
        devs, sumsq = [], []
        for d in draws:
            w = d.reshape(shape[0], -1)
            g = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
            devs.append(np.abs(g - scale * scale * np.eye(g.shape[0])).max())
            sumsq.append((w * w).sum())
        e["gram_dev"] = float(max(devs))
        e["sumsq"] = float(np.mean(sumsq))
    stats.append(e)
    if hasattr(init, "dumps"):
        dumps[spec] = init.dumps()


def ex(spec, init, shape, param="weight"):
    v = run(init, param, shape, 7)
    exact.append({"spec": spec, "param": param, "shape": list(shape), "data": [float(x) for x in v.ravel()]})
    if hasattr(init, "dumps"):
        dumps[spec] = init.dumps()


stat('["uniform", {"scale": 0.07}]', mx.init.Uniform(0.07), (64, 50))
stat('["normal", {"sigma": 0.5}]', mx.init.Normal(0.5), (64, 50))
stat("xavier", mx.init.Xavier(), (64, 32, 3, 3))
stat('["xavier", {"rnd_type": "gaussian", "factor_type": "in", "magnitude": 2}]',
     mx.init.Xavier("gaussian", "in", 2), (64, 32, 3, 3))
stat('["xavier", {"rnd_type": "uniform", "factor_type": "out", "magnitude": 3}]',
     mx.init.Xavier("uniform", "out", 3), (100, 40))
stat("msraprelu", mx.init.MSRAPrelu(), (32, 16, 3, 3))
stat('["msraprelu", {"factor_type": "in", "slope": 0.1}]', mx.init.MSRAPrelu("in", 0.1), (128, 64))
stat('["msraprelu", {"factor_type": "out", "slope": 0.0}]', mx.init.MSRAPrelu("out", 0.0), (48, 24, 5))
stat("orthogonal", mx.init.Orthogonal(), (20, 50))
stat('["orthogonal", {"scale": 1.0, "rand_type": "normal"}]', mx.init.Orthogonal(1.0, "normal"), (50, 20))
stat('["orthogonal", {"scale": 0.5, "rand_type": "uniform"}]', mx.init.Orthogonal(0.5, "uniform"), (8, 4, 3, 3))
stat('["orthogonal", {"scale": 2.0, "rand_type": "normal"}]', mx.init.Orthogonal(2.0, "normal"), (16, 16))

ex("bilinear", mx.init.Bilinear(), (2, 1, 4, 4))
ex("bilinear", mx.init.Bilinear(), (1, 2, 3, 5))
ex('["constant", {"value": 0.5}]', mx.init.Constant(0.5), (3, 4))
# Role rules: *bias / *beta -> 0 and *gamma -> 1 whatever the initializer.
ex('["constant", {"value": 0.5}]', mx.init.Constant(0.5), (3,), param="dense0_bias")
ex("xavier", mx.init.Xavier(), (4,), param="bn_gamma")
ex("xavier", mx.init.Xavier(), (4,), param="bn_beta")
ex("ones", mx.init.One(), (2, 2), param="conv_weight")
# Mixed: the first matching pattern's initializer does the whole call (role rules included).
mixed = mx.init.Mixed(["run.*", ".*bias", ".*"], [mx.init.Constant(5), mx.init.One(), mx.init.Constant(2)])
mixed_spec = json.dumps(["mixed", {"patterns": ["run.*", ".*bias", ".*"],
                                   "initializers": [["constant", {"value": 5}], "ones",
                                                    ["constant", {"value": 2}]]}])
for param in ["fc_weight", "fc_bias", "running_mean_weight"]:
    ex(mixed_spec, mixed, (2, 3), param=param)

for spec, init in [("orthogonal", mx.init.Orthogonal()), ("msraprelu", mx.init.MSRAPrelu()),
                   ("bilinear", mx.init.Bilinear()), ("xavier", mx.init.Xavier())]:
    dumps[spec] = init.dumps()

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    json.dump({"mxnet_version": mx.__version__, "stats": stats, "exact": exact, "dumps": dumps}, f, indent=1)
print(f"wrote {len(stats)} stats and {len(exact)} exact entries to {OUT}", file=sys.stderr)
