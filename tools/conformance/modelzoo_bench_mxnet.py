#!/usr/bin/env python3
"""Real MXNet 1.9.1's inference speed for the nets of //modelzoo:modelzoo_benchmark.

Same setup as the C++ benchmark: 224x224 input, batch 1 (latency) and 32 (throughput),
imperative vs hybridize(static_alloc=True, static_shape=True), predict mode, one warm-up call,
wait_to_read after every call. Prints the median over REPS repetitions of (at least MIN_TIME
seconds of calls each): wall ms per call, process CPU ms per call (all threads; the robust figure
on a loaded machine) and images/s.

    PY=$(tools/conformance/setup_venv.sh | tail -1)
    OMP_NUM_THREADS=1 $PY tools/conformance/modelzoo_bench_mxnet.py [REPS] [MIN_TIME] [NETS] [BATCHES]
    (NETS, BATCHES: comma-separated, default resnet18_v1,resnet50_v1,mobilenetv2_1.0 and 1,32)
"""
import statistics
import sys
import time
import warnings

warnings.filterwarnings("ignore")
import mxnet as mx
from mxnet.gluon.model_zoo import vision

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
MIN_TIME = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5


def bench(name, hybridized, batch):
    net = vision.get_model(name)
    net.initialize(mx.init.Xavier())
    x = mx.nd.random.uniform(-1, 1, shape=(batch, 3, 224, 224))
    net(x).wait_to_read()
    if hybridized:
        net.hybridize(static_alloc=True, static_shape=True)
    net(x).wait_to_read()
    wall, cpu = [], []
    for _ in range(REPS):
        n, t0, c0 = 0, time.perf_counter(), time.process_time()
        while True:
            net(x).wait_to_read()
            n += 1
            dt = time.perf_counter() - t0
            if dt >= MIN_TIME:
                break
        wall.append(dt / n)
        cpu.append((time.process_time() - c0) / n)
    return statistics.median(wall), statistics.median(cpu)


def main():
    names = sys.argv[3].split(",") if len(sys.argv) > 3 else ["resnet18_v1", "resnet50_v1", "mobilenetv2_1.0"]
    batches = [int(b) for b in sys.argv[4].split(",")] if len(sys.argv) > 4 else [1, 32]
    print("MXNet %s, OMP threads per the environment; median of %d reps" % (mx.__version__, REPS))
    for name in names:
        for hybridized in [False, True]:
            for batch in batches:
                t, c = bench(name, hybridized, batch)
                print("%-16s %-10s batch %2d  wall %9.2f ms/call  cpu %9.2f ms/call  %8.1f images/s" %
                      (name, "hybridized" if hybridized else "imperative", batch, t * 1e3, c * 1e3,
                       batch / t), flush=True)


if __name__ == "__main__":
    main()
