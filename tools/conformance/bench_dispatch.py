#!/usr/bin/env python3
"""Real MXNet 1.9.1 Python imperative dispatch overhead of tiny ops (microseconds per call).

    $PY tools/conformance/bench_dispatch.py          # runs every variant in a fresh subprocess
    $PY tools/conformance/bench_dispatch.py --child  # measure once with the current environment

Each measurement: N calls of the op on a (10,) float32 array, then mx.nd.waitall();
reported value = median over REPEATS runs of (elapsed / N). The engine type is read at
import time, so each variant runs in its own process.
"""
import os
import statistics
import subprocess
import sys
import time

N, REPEATS = 100_000, 5
VARIANTS = [  # (label, extra environment)
    ("NaiveEngine, OMP_NUM_THREADS=1", {"OMP_NUM_THREADS": "1", "MXNET_ENGINE_TYPE": "NaiveEngine"}),
    ("default engine (ThreadedEnginePerDevice), OMP_NUM_THREADS=1", {"OMP_NUM_THREADS": "1"}),
]


def child():
    import warnings
    warnings.filterwarnings("ignore")
    import mxnet as mx
    a, b = mx.nd.ones((10,)), mx.nd.ones((10,))
    ops = {"mx.nd.relu(a)": lambda: mx.nd.relu(a), "a + b": lambda: a + b}
    for name, op in ops.items():
        for _ in range(1000):  # warm-up
            op()
        mx.nd.waitall()
        runs = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            for _ in range(N):
                op()
            mx.nd.waitall()
            runs.append((time.perf_counter() - t0) / N * 1e6)
        print("  %-14s median %.2f us/call  (runs: %s)" % (name, statistics.median(runs),
                                                      ", ".join("%.2f" % r for r in runs)))


if __name__ == "__main__":
    if "--child" in sys.argv:
        child()
        sys.exit(0)
    print("mxnet 1.9.1 dispatch, N=%d calls x %d runs, %d CPUs" % (N, REPEATS, os.cpu_count()))
    for label, env in VARIANTS:
        print(label)
        sys.stdout.flush()
        clean = {k: v for k, v in os.environ.items() if k not in ("MXNET_ENGINE_TYPE", "OMP_NUM_THREADS")}
        subprocess.run([sys.executable, __file__, "--child"], env={**clean, **env}, check=True)
