#!/usr/bin/env python3
"""Reference graphs of mx.autograd.get_symbol from real MXNet 1.9.1 (symbol/get_symbol_test).

Run: PY=$(tools/conformance/setup_venv.sh | tail -1)
     $PY tools/conformance/gen_autograd_symbol_refs.py [REPO_ROOT]   # default: this checkout
Writes symbol/testdata/get_symbol.json: {"cases": {name: MXNet's get_symbol(...).tojson()
parsed}}. Each case is recorded in the same way by symbol/get_symbol_test.cc; the test compares
op names, node kinds ("var"/"null"/"node_" name prefixes and their relative order), attributes
(parsed by the op), input wiring, output counts (node_row_ptr), arg_nodes and heads. The numbers
in MXNet's names are process-wide counters, so they are compared by order only.
"""
import json
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..")
nd = mx.nd


def var(shape):
    a = nd.ones(shape)
    a.attach_grad()
    return a


def chain():
    x = var((2, 3))
    with mx.autograd.record():
        y = nd.relu(x * 2 + 1)  # _mul_scalar, _plus_scalar, relu
    return y


def split_fc():
    x = var((2, 3))
    w = var((4, 3))
    c = nd.ones((2, 3))
    with mx.autograd.record():
        a = nd.broadcast_add(x, c)
        parts = nd.split(a, num_outputs=3, axis=1)
        z = nd.broadcast_add(nd.broadcast_mul(parts[2], parts[0]), c)
        f = nd.FullyConnected(z, w, num_hidden=4, no_bias=True)
        y = nd.broadcast_add(f, nd.ones((1, 4)))
    return y


def split_head():
    x = var((2, 6))
    with mx.autograd.record():
        parts = nd.split(nd.exp(x), num_outputs=3, axis=1)
    return parts[1]


def shared_var():
    x = var((3,))
    with mx.autograd.record():
        z = nd.elemwise_add(x, x)
        y = nd.elemwise_mul(z, x)
    return y


def fc_bias():
    d = nd.ones((3, 5))
    w = var((2, 5))
    b = var((2,))
    with mx.autograd.record():
        y = nd.sum(nd.FullyConnected(d, w, b, num_hidden=2), axis=1)
    return y


def batchnorm():
    x = var((2, 3, 4))
    gamma = var((3,))
    beta = var((3,))
    mean = nd.zeros((3,))
    v = nd.ones((3,))
    with mx.autograd.record():
        y = nd.BatchNorm(x, gamma, beta, mean, v, fix_gamma=False, eps=1e-5)
    return y


CASES = [chain, split_fc, split_head, shared_var, fc_bias, batchnorm]


def main():
    out = {"cases": {}}
    for fn in CASES:
        y = fn()
        out["cases"][fn.__name__] = json.loads(mx.autograd.get_symbol(y).tojson())
    path = os.path.join(ROOT, "symbol", "testdata", "get_symbol.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
