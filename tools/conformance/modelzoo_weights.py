"""Deterministic model weights shared by our C++ tests and real MXNet 1.9.1.

Every value comes from integer arithmetic (FNV-1a of the parameter's structured name, then
SplitMix64 of name-seed + flat index), so Python and C++ produce bit-identical float32 arrays
without shipping weight files. The C++ twin is modelzoo/testing/deterministic_weights.cc; keep
both in step.

  u(name, i)  = (splitmix64(fnv1a64(name) + i) >> 40) / 2**23 - 1      in [-1, 1), exact in float64
  *weight     = u * sqrt(3 / fan_in)    fan_in = prod(shape[1:])  (1 for 1-D)
  *bias, *beta, *running_mean = 0.1 * u
  *gamma      = 1 + 0.2 * u
  *running_var = 1 + 0.5 * u
  other names = u
then rounded to float32 (round to nearest even, as both numpy and C++ casts do).
"""
import math

import numpy as np

_M64 = (1 << 64) - 1


def fnv1a64(name):
    h = 0xCBF29CE484222325
    for b in name.encode("utf-8"):
        h ^= b
        h = (h * 0x100000001B3) & _M64
    return h


def _splitmix64(x):
    # x: uint64 array; arithmetic wraps modulo 2**64.
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def uniform(name, n):
    seed = np.uint64(fnv1a64(name))
    with np.errstate(over="ignore"):
        idx = np.arange(n, dtype=np.uint64) + seed
    k = (_splitmix64(idx) >> np.uint64(40)).astype(np.float64)
    return k / float(1 << 23) - 1.0


def values(name, shape):
    """float32 array of `shape` for the parameter (or input) called `name`."""
    n = int(np.prod(shape)) if len(shape) else 1
    u = uniform(name, n)
    if name.endswith("weight"):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        v = u * math.sqrt(3.0 / fan_in)
    elif name.endswith("bias") or name.endswith("beta") or name.endswith("running_mean"):
        v = 0.1 * u
    elif name.endswith("gamma"):
        v = 1.0 + 0.2 * u
    elif name.endswith("running_var"):
        v = 1.0 + 0.5 * u
    else:
        v = u
    return v.astype(np.float32).reshape(shape)
