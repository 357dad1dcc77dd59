#!/usr/bin/env python3
"""Side-by-side inference benchmark: ours (`mxnet benchmark`, hybridized with static_alloc +
static_shape and its default --backend onednn graph passes, and imperative), real MXNet 1.9.1 (hybridized, static_alloc/static_shape), ONNX
Runtime (torchvision's torch.onnx export of the same architecture) and PyTorch eager
(torchvision), on the same machine, in the same run, with the same thread count.

Run through tools/bench/peers.sh (builds ours with -c opt and sets up the two venvs). Every
measurement is a fresh process (one system, net, batch, thread count): `--warmup` untimed calls,
then `--iters` timed ones, the median call time kept. Systems are interleaved inside each round
and rounds repeat (`--rounds`, >= 3), so slow phases of a noisy machine hit every system alike;
the table shows the median over rounds and the spread (min-max of the round medians), and the
ratio of ours (hybridized) to the best peer (> 1: ours is faster).

Weights are random (nothing is downloaded); inputs are 224x224 (299 for inceptionv3), float32.
torchvision's resnets are v1.5 (stride on the 3x3 convolution), MXNet's v1: the same FLOPs
within 2 %; ONNX Runtime runs torchvision's graph, as the issue's measurements did.
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TORCHVISION = {"resnet50_v1": "resnet50", "resnet18_v1": "resnet18", "mobilenetv2_1.0": "mobilenet_v2",
               "inceptionv3": "inception_v3", "densenet121": "densenet121"}
NETS = ["resnet50_v1", "resnet18_v1", "mobilenetv2_1.0", "inceptionv3", "densenet121"]
SYSTEMS = ["ours", "ours-imperative", "mxnet", "onnxruntime", "pytorch"]

# The peers' timing loops, run as `python -c` in their own venvs. argv: net batch warmup iters
# threads [model]; they print the median milliseconds per call.
MXNET_SNIPPET = r"""
import sys, time, statistics, warnings
warnings.filterwarnings("ignore")
import mxnet as mx
from mxnet.gluon.model_zoo import vision
name, batch, warmup, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
size = 299 if name == "inceptionv3" else 224
net = vision.get_model(name)
net.initialize(mx.init.Xavier())
net.hybridize(static_alloc=True, static_shape=True)
x = mx.nd.zeros((batch, 3, size, size))
for _ in range(warmup): net(x).wait_to_read()
ms = []
for _ in range(iters):
    t0 = time.perf_counter(); net(x).wait_to_read(); ms.append((time.perf_counter() - t0) * 1e3)
print(statistics.median(ms))
"""
ORT_SNIPPET = r"""
import sys, time, statistics
import numpy as np, onnxruntime as ort
name, batch, warmup, iters, threads, model = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
size = 299 if name == "inceptionv3" else 224
o = ort.SessionOptions()
o.intra_op_num_threads = threads
o.inter_op_num_threads = 1
o.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
s = ort.InferenceSession(model, o, providers=["CPUExecutionProvider"])
feed = {s.get_inputs()[0].name: np.zeros((batch, 3, size, size), np.float32)}
for _ in range(warmup): s.run(None, feed)
ms = []
for _ in range(iters):
    t0 = time.perf_counter(); s.run(None, feed); ms.append((time.perf_counter() - t0) * 1e3)
print(statistics.median(ms))
"""
TORCH_SNIPPET = r"""
import sys, time, statistics, warnings
warnings.filterwarnings("ignore")
import torch, torchvision
name, batch, warmup, iters, threads, tv = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
torch.set_num_threads(threads)
size = 299 if name == "inceptionv3" else 224
kw = {"weights": None}
if tv == "inception_v3": kw.update(aux_logits=False, init_weights=True)
net = getattr(torchvision.models, tv)(**kw).eval()
x = torch.zeros(batch, 3, size, size)
with torch.inference_mode():
    for _ in range(warmup): net(x)
    ms = []
    for _ in range(iters):
        t0 = time.perf_counter(); net(x); ms.append((time.perf_counter() - t0) * 1e3)
print(statistics.median(ms))
"""


def cpu_description():
    """'Model name, ISA' from lscpu (AVX-512 / AVX2 / VNNI / AMX), and the CPU count."""
    try:
        out = subprocess.run(["lscpu"], stdout=subprocess.PIPE, check=True).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        return platform.processor() or "unknown CPU"
    model = re.search(r"Model name:\s*(.+)", out)
    flag_line = re.search(r"Flags:\s*(.+)", out)
    flags = set(flag_line.group(1).split()) if flag_line else set()
    isa = "AVX-512" if "avx512f" in flags else ("AVX2" if "avx2" in flags else "SSE")
    extra = [n for f, n in (("avx512_vnni", "VNNI"), ("amx_tile", "AMX")) if f in flags]
    return "%s, %s%s, %d CPUs" % (model.group(1).strip() if model else "unknown CPU", isa,
                                  " + " + " + ".join(extra) if extra else "", os.cpu_count())


def run_one(system, net, batch, threads, args, models_dir):
    """Median ms per call of one fresh process, or None (with the error printed)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    common = [net, str(batch), str(args.warmup), str(args.iters)]
    if system in ("ours", "ours-imperative"):
        cmd = [args.cli, "benchmark", "--model", net, "--batch-size", str(batch), "--warmup",
               str(args.warmup), "--iters", str(args.iters)]
        if system == "ours-imperative":
            cmd.append("--nohybridize")
    elif system == "mxnet":
        cmd = [args.mxnet_py, "-c", MXNET_SNIPPET] + common
    elif system == "onnxruntime":
        cmd = [args.mxnet_py, "-c", ORT_SNIPPET] + common + [
            str(threads), os.path.join(models_dir, TORCHVISION[net], TORCHVISION[net] + ".onnx")]
    else:
        cmd = [args.torch_py, "-c", TORCH_SNIPPET] + common + [str(threads), TORCHVISION[net]]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    text = p.stdout.decode(errors="replace")
    if p.returncode != 0:
        print("  %s %s batch %d: failed: %s" % (system, net, batch, text.strip()[-300:]), file=sys.stderr)
        return None
    if system.startswith("ours"):
        m = re.search(r"latency per batch: median ([0-9.]+) ms", text)
        return float(m.group(1)) if m else None
    return float(text.strip().splitlines()[-1])


def export_onnx(nets, args, models_dir):
    """torchvision's ONNX files for ONNX Runtime (tools/conformance/torch_export.py)."""
    for net in nets:
        tv = TORCHVISION[net]
        d = os.path.join(models_dir, tv)
        if os.path.exists(os.path.join(d, tv + ".onnx")):
            continue
        os.makedirs(d, exist_ok=True)
        subprocess.run([args.torch_py, os.path.join(ROOT, "tools", "conformance", "torch_export.py"), tv,
                        "legacy", "17", d], check=True)


def fmt(v, batch):
    """Latency (ms) at batch 1, throughput (images/s) otherwise."""
    if v is None:
        return "-"
    return "%.1f" % v if batch == 1 else "%.1f" % (batch * 1e3 / v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True, help="ours: a -c opt build of //tools:mxnet")
    ap.add_argument("--mxnet-py", required=True, help="python with mxnet 1.9.1 + onnxruntime")
    ap.add_argument("--torch-py", required=True, help="python with torch + torchvision")
    ap.add_argument("--nets", default=",".join(NETS))
    ap.add_argument("--batches", default="1,32")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--models-dir", help="where torchvision's ONNX files are kept (default: temporary)")
    ap.add_argument("--json", help="also write the raw results here")
    ap.add_argument("--markdown", help="write the table (with date, CPU, command) to this file")
    ap.add_argument("--command", default="tools/bench/peers.py ...",
                    help="the command line to quote in --markdown (peers.sh passes its own)")
    args = ap.parse_args()
    nets, systems = args.nets.split(","), args.systems.split(",")
    batches = [int(b) for b in args.batches.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    for n in nets:
        if n not in TORCHVISION:
            ap.error("unknown net %s (known: %s)" % (n, ", ".join(NETS)))
    for s in systems:
        if s not in SYSTEMS:
            ap.error("unknown system %s (known: %s)" % (s, ", ".join(SYSTEMS)))
    tmp = None
    models_dir = args.models_dir
    if not models_dir:
        tmp = tempfile.TemporaryDirectory(prefix="peers-")
        models_dir = tmp.name
    if "onnxruntime" in systems:
        export_onnx(nets, args, models_dir)
    cpu = cpu_description()
    print("CPU: %s; %d rounds x %d timed calls after %d warm-up; medians" %
          (cpu, args.rounds, args.iters, args.warmup), flush=True)
    results = {}  # (net, batch, threads, system) -> [round medians]
    for r in range(args.rounds):
        for net in nets:
            for batch in batches:
                for t in threads:
                    for s in systems:
                        v = run_one(s, net, batch, t, args, models_dir)
                        results.setdefault((net, batch, t, s), []).append(v)
                        print("round %d %-16s batch %2d threads %d %-16s %s ms" %
                              (r + 1, net, batch, t, s, "-" if v is None else "%.2f" % v), flush=True)
    peers = [s for s in systems if not s.startswith("ours")]
    header = ["net", "batch", "threads"] + systems + ["ours / best peer"]
    rows = []
    for net in nets:
        for batch in batches:
            for t in threads:
                cells, med = [], {}
                for s in systems:
                    vals = [v for v in results[(net, batch, t, s)] if v is not None]
                    if not vals:
                        cells.append("-")
                        continue
                    med[s] = statistics.median(vals)
                    lo, hi = min(vals), max(vals)
                    cells.append("%s (%s-%s)" % (fmt(med[s], batch), fmt(hi if batch > 1 else lo, batch),
                                                 fmt(lo if batch > 1 else hi, batch)))
                best = min((med[s] for s in peers if s in med), default=None)
                ratio = "%.2fx" % (best / med["ours"]) if best and "ours" in med else "-"
                rows.append([net, str(batch), str(t)] + cells + [ratio])
    unit = "batch 1: ms per call (lower is better); batch > 1: images/s (higher is better); " \
           "(spread over rounds); ratio > 1: ours faster than the best peer"
    table = "| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n" + \
        "".join("| " + " | ".join(r) + " |\n" for r in rows)
    print("\n" + unit + "\n\n" + table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu, "date": datetime.datetime.utcnow().isoformat() + "Z",
                       "results": [{"net": k[0], "batch": k[1], "threads": k[2], "system": k[3], "ms": v}
                                   for k, v in results.items()]}, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("Latest run: %s UTC, %s, command `%s`.\n\n%s\n\n%s" % (
                datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), cpu, args.command, unit, table))
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
