#!/usr/bin/env python3
"""Reference values of MXNet 1.9.1's int8/uint8 quantization ops
(ndarray/ops/testdata/conv/quant.json).

    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/refs_quant.py OUT_DIR     # also run by gen_conv_refs.py (main)

Each case runs one op imperatively (MXNet's default oneDNN CPU kernels, OMP_NUM_THREADS=1, in a
child process) on fixed or seeded inputs of the dtypes MXNet requires (float32 data, int8/uint8
quantized data, int32 accumulators, float32 (1,) min/max ranges) and records every output with
its dtype: integer outputs exactly, float outputs with 9 significant digits (float32 round
trip). Error cases record MXNet's message ("error") instead of outputs. Inputs avoid exact
rounding ties of the float scale products and zero ranges (MXNet's results there depend on
oneDNN's NaN/inf handling). Same bytes on every run.
Output: {"generator", "mxnet", "cases": [{"name", "op", "attrs", "inputs": [{"shape", "dtype",
"data"}], "outputs": [{"shape", "dtype", "data"}] | "error"}]}.
"""
import json
import os
import subprocess
import sys

import numpy as np

CASES = []
SYMBOLIC = {"_contrib_quantized_elemwise_mul"}


def case(name, op, attrs, inputs):
    """inputs: [(numpy array, dtype name)]."""
    CASES.append(dict(name=name, op=op, attrs={k: str(v) for k, v in attrs.items()},
                      inputs=inputs))


def rnd(seed, shape, lo, hi, dtype):
    rng = np.random.RandomState(seed)
    if dtype in ("int8", "uint8", "int32"):
        return rng.randint(lo, hi + 1, size=shape).astype(dtype), dtype
    return np.round(rng.uniform(lo, hi, size=shape), 4).astype(np.float32), "float32"


def f(*v):
    return np.array(v, dtype=np.float32), "float32"


def define_cases():
    x = rnd(1, (2, 3, 4), -1.5, 2.0, "float32")
    x4 = rnd(2, (2, 3, 2, 3), -0.8, 0.6, "float32")
    # ---- quantize (min_range/max_range inputs), out_type uint8 (default) / int8 ----
    case("quantize uint8", "_contrib_quantize", {}, [x, f(-1.5), f(2.0)])
    case("quantize int8", "_contrib_quantize", {"out_type": "int8"}, [x, f(-1.5), f(2.0)])
    case("quantize int8 4-D", "_contrib_quantize", {"out_type": "int8"}, [x4, f(-0.8), f(0.6)])
    case("quantize uint8 clipped", "_contrib_quantize", {}, [x4, f(0.0), f(0.5)])
    case("quantize float64 data", "_contrib_quantize", {},
         [(x[0].astype(np.float64), "float64"), f(-1.5), f(2.0)])
    # ---- quantize_v2 ----
    case("quantize_v2 default", "_contrib_quantize_v2", {}, [x])
    case("quantize_v2 uint8", "_contrib_quantize_v2", {"out_type": "uint8"}, [x])
    case("quantize_v2 auto no calib", "_contrib_quantize_v2", {"out_type": "auto"}, [x4])
    case("quantize_v2 int8 calib", "_contrib_quantize_v2",
         {"min_calib_range": -0.5, "max_calib_range": 0.7}, [x4])
    case("quantize_v2 auto calib uint8", "_contrib_quantize_v2",
         {"out_type": "auto", "min_calib_range": 0.0, "max_calib_range": 1.3}, [x])
    case("quantize_v2 auto calib int8", "_contrib_quantize_v2",
         {"out_type": "auto", "min_calib_range": -0.25, "max_calib_range": 1.3}, [x])
    case("quantize_v2 int8 passthrough", "_contrib_quantize_v2", {},
         [rnd(3, (3, 5), -128, 127, "int8")])
    case("quantize_v2 uint8 passthrough calib", "_contrib_quantize_v2",
         {"out_type": "uint8", "min_calib_range": 0.0, "max_calib_range": 3.5},
         [rnd(4, (3, 5), 0, 255, "uint8")])
    case("quantize_v2 float64 data", "_contrib_quantize_v2", {},
         [(x[0].astype(np.float64), "float64")])
    # ---- dequantize ----
    case("dequantize int8", "_contrib_dequantize", {},
         [rnd(5, (2, 3, 4), -128, 127, "int8"), f(-1.2), f(0.9)])
    case("dequantize uint8", "_contrib_dequantize", {},
         [rnd(6, (2, 2, 2, 3), 0, 255, "uint8"), f(0.0), f(3.1)])
    case("dequantize int32 data", "_contrib_dequantize", {},
         [rnd(7, (4,), -1000, 1000, "int32"), f(-1.0), f(1.0)])
    case("dequantize float data", "_contrib_dequantize", {}, [x, f(-1.0), f(1.0)])
    # ---- requantize (int32 -> int8/uint8) ----
    acc = rnd(8, (2, 3, 5), -3000000, 2500000, "int32")
    case("requantize no calib", "_contrib_requantize", {}, [acc, f(-20.0), f(20.0)])
    case("requantize calib", "_contrib_requantize",
         {"min_calib_range": -0.01, "max_calib_range": 0.02}, [acc, f(-20.0), f(20.0)])
    case("requantize auto calib uint8", "_contrib_requantize",
         {"out_type": "auto", "min_calib_range": 0.0, "max_calib_range": 0.02},
         [acc, f(-20.0), f(20.0)])
    case("requantize uint8 no calib", "_contrib_requantize", {"out_type": "uint8"},
         [acc, f(-15.0), f(12.0)])
    case("requantize int8 data", "_contrib_requantize", {},
         [rnd(9, (4,), -100, 100, "int8"), f(-1.0), f(1.0)])
    # ---- quantize_asym (3-D float data: MXNet's oneDNN path) ----
    case("quantize_asym", "_contrib_quantize_asym", {}, [x])
    case("quantize_asym calib", "_contrib_quantize_asym",
         {"min_calib_range": -1.0, "max_calib_range": 1.5}, [x])
    case("quantize_asym int8 data", "_contrib_quantize_asym", {},
         [rnd(10, (2, 2, 3), -128, 127, "int8")])

    # ---- quantized_conv: uint8 data (MXNet's oneDNN kernel rejects int8 data), int8 weight and
    # bias, int32 output with the product range of data and weight ----
    d8 = rnd(11, (2, 4, 5, 5), 0, 255, "uint8")
    w8 = rnd(12, (6, 4, 3, 3), -127, 127, "int8")
    b8 = rnd(13, (6,), -127, 127, "int8")
    rng_dw = [f(0.0), f(2.5), f(-0.4), f(0.35)]
    case("quantized_conv 3x3 pad", "_contrib_quantized_conv",
         {"kernel": (3, 3), "num_filter": 6, "pad": (1, 1)},
         [d8, w8, b8] + rng_dw + [f(-0.2), f(0.15)])
    case("quantized_conv stride dilate no bias", "_contrib_quantized_conv",
         {"kernel": (2, 2), "num_filter": 6, "stride": (2, 1), "dilate": (2, 2),
          "no_bias": True}, [d8, rnd(14, (6, 4, 2, 2), -127, 127, "int8")] + rng_dw)
    case("quantized_conv 3-D", "_contrib_quantized_conv",
         {"kernel": (2, 2, 2), "num_filter": 3, "no_bias": True},
         [rnd(15, (1, 2, 3, 4, 4), 0, 255, "uint8"), rnd(16, (3, 2, 2, 2, 2), -127, 127, "int8"),
          f(-1.0), f(1.0), f(-0.5), f(0.5)])
    # (int8 data, which MXNet's GPU kernel takes and its CPU kernel rejects, is accepted by ours
    # and tested by hand in conv_quant_test.cc.)
    case("quantized_conv float data", "_contrib_quantized_conv",
         {"kernel": (3, 3), "num_filter": 6, "no_bias": True},
         [rnd(18, (1, 4, 5, 5), -1.0, 1.0, "float32"), w8] + rng_dw)
    case("quantized_conv groups", "_contrib_quantized_conv",
         {"kernel": (3, 3), "num_filter": 6, "num_group": 2, "no_bias": True},
         [d8, rnd(19, (6, 2, 3, 3), -127, 127, "int8")] + rng_dw)
    # ---- quantized_fully_connected: int8 or uint8 data, int8 weight, int8 bias ----
    fw = rnd(20, (5, 12), -127, 127, "int8")
    fb = rnd(21, (5,), -127, 127, "int8")
    case("quantized_fully_connected int8", "_contrib_quantized_fully_connected",
         {"num_hidden": 5}, [rnd(22, (3, 2, 6), -127, 127, "int8"), fw, fb,
                             f(-1.5), f(1.2), f(-0.3), f(0.25), f(-0.1), f(0.12)])
    case("quantized_fully_connected uint8", "_contrib_quantized_fully_connected",
         {"num_hidden": 5}, [rnd(23, (4, 12), 0, 255, "uint8"), fw, fb,
                             f(0.0), f(3.0), f(-0.3), f(0.25), f(-0.1), f(0.12)])
    case("quantized_fully_connected no flatten no bias", "_contrib_quantized_fully_connected",
         {"num_hidden": 5, "flatten": False, "no_bias": True},
         [rnd(24, (2, 3, 12), -127, 127, "int8"), fw, f(-1.0), f(1.0), f(-0.3), f(0.25)])
    case("quantized_fully_connected float data", "_contrib_quantized_fully_connected",
         {"num_hidden": 5, "no_bias": True},
         [rnd(25, (2, 12), -1.0, 1.0, "float32"), fw, f(-1.0), f(1.0), f(-0.3), f(0.25)])
    # ---- quantized_flatten / quantized_act ----
    case("quantized_flatten int8", "_contrib_quantized_flatten", {},
         [rnd(26, (2, 3, 2, 2), -128, 127, "int8"), f(-1.0), f(1.0)])
    case("quantized_flatten uint8", "_contrib_quantized_flatten", {},
         [rnd(27, (3, 2, 2), 0, 255, "uint8"), f(0.0), f(4.0)])
    case("quantized_act relu int8", "_contrib_quantized_act", {"act_type": "relu"},
         [rnd(28, (2, 3, 4), -128, 127, "int8"), f(-2.0), f(2.0)])
    case("quantized_act relu uint8", "_contrib_quantized_act", {"act_type": "relu"},
         [rnd(29, (2, 3, 2, 2), 0, 255, "uint8"), f(0.0), f(2.0)])
    # ---- quantized_pooling ----
    p8 = rnd(30, (2, 3, 6, 7), -128, 127, "int8")
    case("quantized_pooling max", "_contrib_quantized_pooling",
         {"kernel": (2, 2), "stride": (2, 2)}, [p8, f(-1.0), f(1.0)])
    case("quantized_pooling max pad", "_contrib_quantized_pooling",
         {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1)}, [p8, f(-1.0), f(1.0)])
    case("quantized_pooling avg", "_contrib_quantized_pooling",
         {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pool_type": "avg"},
         [p8, f(-1.0), f(1.0)])
    case("quantized_pooling avg exclude pad uint8", "_contrib_quantized_pooling",
         {"kernel": (2, 3), "stride": (1, 2), "pad": (1, 1), "pool_type": "avg",
          "count_include_pad": False},
         [rnd(31, (1, 2, 5, 6), 0, 255, "uint8"), f(0.0), f(3.0)])
    case("quantized_pooling global avg", "_contrib_quantized_pooling",
         {"kernel": (1, 1), "global_pool": True, "pool_type": "avg"}, [p8, f(-1.0), f(1.0)])
    case("quantized_pooling max full", "_contrib_quantized_pooling",
         {"kernel": (2, 2), "stride": (2, 2), "pooling_convention": "full"},
         [p8, f(-1.0), f(1.0)])
    # ---- quantized_concat (inputs, then min/max per input) ----
    c1 = rnd(32, (2, 2, 3), -128, 127, "int8")
    c2 = rnd(33, (2, 3, 3), -128, 127, "int8")
    c3 = rnd(34, (2, 1, 3), 0, 255, "uint8")
    case("quantized_concat int8", "_contrib_quantized_concat", {"num_args": 2, "dim": 1},
         [c1, c2, f(-1.0), f(1.0), f(-0.5), f(2.0)])
    case("quantized_concat mixed", "_contrib_quantized_concat", {"num_args": 3, "dim": 1},
         [c1, c2, c3, f(-1.0), f(1.0), f(-0.5), f(0.5), f(0.0), f(3.0)])
    case("quantized_concat uint8 dim2", "_contrib_quantized_concat", {"num_args": 2, "dim": 2},
         [rnd(35, (2, 2, 3), 0, 255, "uint8"), rnd(36, (2, 2, 2), 0, 255, "uint8"),
          f(0.0), f(1.0), f(0.0), f(1.0)])
    # ---- quantized_elemwise_add / mul ----
    a8 = rnd(37, (2, 3, 4), -128, 127, "int8")
    bb8 = rnd(38, (2, 3, 4), -128, 127, "int8")
    u8 = rnd(39, (2, 3, 4), 0, 255, "uint8")
    case("quantized_elemwise_add int8", "_contrib_quantized_elemwise_add", {},
         [a8, bb8, f(-1.0), f(1.0), f(-0.5), f(0.75)])
    case("quantized_elemwise_add int8 calib", "_contrib_quantized_elemwise_add",
         {"min_calib_range": -1.3, "max_calib_range": 1.3},
         [a8, bb8, f(-1.0), f(1.0), f(-0.5), f(0.75)])
    case("quantized_elemwise_add uint8 calib", "_contrib_quantized_elemwise_add",
         {"min_calib_range": 0.0, "max_calib_range": 2.5},
         [u8, rnd(40, (2, 3, 4), 0, 255, "uint8"), f(0.0), f(1.0), f(0.0), f(2.0)])
    case("quantized_elemwise_add mixed", "_contrib_quantized_elemwise_add", {},
         [a8, u8, f(-1.0), f(1.0), f(0.0), f(2.0)])
    case("quantized_elemwise_mul", "_contrib_quantized_elemwise_mul", {},
         [a8, bb8, f(-1.0), f(1.0), f(-0.5), f(0.75)])
    case("quantized_elemwise_mul calib", "_contrib_quantized_elemwise_mul",
         {"min_calib_range": -0.8, "max_calib_range": 0.8},
         [a8, bb8, f(-1.0), f(1.0), f(-0.5), f(0.75)])
    case("quantized_elemwise_mul float output", "_contrib_quantized_elemwise_mul",
         {"enable_float_output": True}, [a8, bb8, f(-1.0), f(1.0), f(-0.5), f(0.75)])
    # ---- quantized_batch_norm (calibrated output range required) ----
    bnx = rnd(41, (2, 3, 4, 5), -128, 127, "int8")
    gamma = rnd(42, (3,), 0.5, 1.5, "float32")
    beta = rnd(43, (3,), -0.3, 0.3, "float32")
    mean = rnd(44, (3,), -0.2, 0.2, "float32")
    var = rnd(45, (3,), 0.5, 2.0, "float32")
    case("quantized_batch_norm int8", "_contrib_quantized_batch_norm",
         {"min_calib_range": -2.5, "max_calib_range": 2.5},
         [bnx, gamma, beta, mean, var, f(-1.5), f(1.5)])
    case("quantized_batch_norm uint8 eps", "_contrib_quantized_batch_norm",
         {"min_calib_range": -1.0, "max_calib_range": 3.0, "eps": 0.01},
         [rnd(46, (2, 3, 3, 3), 0, 255, "uint8"), gamma, beta, mean, var, f(0.0), f(2.0)])
    case("quantized_batch_norm no calib", "_contrib_quantized_batch_norm", {},
         [bnx, gamma, beta, mean, var, f(-1.5), f(1.5)])
    # ---- quantized_embedding ----
    case("quantized_embedding", "_contrib_quantized_embedding",
         {"input_dim": 6, "output_dim": 4},
         [(np.array([[0, 5, 2], [3, 3, 1]], dtype=np.float32), "float32"),
          rnd(47, (6, 4), -128, 127, "int8"), f(-0.7), f(0.9)])
    case("quantized_embedding out of range", "_contrib_quantized_embedding",
         {"input_dim": 5, "output_dim": 3},
         [(np.array([-2, 7, 4.7, 1.2], dtype=np.float32), "float32"),
          rnd(48, (5, 3), -128, 127, "int8"), f(-1.0), f(1.0)])
    # ---- calibrate_entropy: histograms of seeded data ----
    for name, seed, bins, nq, scale in [("normal 255", 49, 1001, None, 1.0),
                                        ("laplace 31", 50, 201, 31, 0.3)]:
        rng = np.random.RandomState(seed)
        data = rng.normal(0, scale, 20000) if "normal" in name else rng.laplace(0, scale, 20000)
        th = float(np.abs(data).max())
        hist, edges = np.histogram(data, bins=bins, range=(-th, th))
        attrs = {} if nq is None else {"num_quantized_bins": nq}
        case("calibrate_entropy " + name, "_contrib_calibrate_entropy", attrs,
             [(hist.astype(np.float32), "float32"), (edges.astype(np.float32), "float32")])


def run_case(mx, c):
    from gen_conv_refs import mx_op  # noqa: E402 (mx.nd / mx.nd.contrib by name)
    ins = [mx.nd.array(a, dtype=d) for a, d in c["inputs"]]
    try:
        if c["op"] in SYMBOLIC:
            # MXNet 1.9.1 cannot run this op imperatively (its output-shape check fails): bind
            # a one-op symbol instead.
            names = ["in%d" % i for i in range(len(ins))]
            sym = getattr(mx.sym.contrib, c["op"][len("_contrib_"):])(
                *[mx.sym.var(n) for n in names], **c["attrs"])
            outs = sym.bind(mx.cpu(), dict(zip(names, ins)), grad_req="null").forward()
        else:
            outs = mx_op(mx, c["op"])(*ins, **c["attrs"])
        if not isinstance(outs, (list, tuple)):
            outs = [outs]
        outs = [(o.asnumpy(), o.dtype) for o in outs]
    except Exception as e:  # noqa: BLE001 - MXNet's rejection is the reference
        msg = str(e)
        i = msg.find("Check failed")
        if i < 0:
            i = msg.find("MXNetError")
        return {"error": " ".join(msg[i:].split("\n")[0].split())[:300]}
    return {"outputs": [tensor(a, np.dtype(d).name) for a, d in outs]}


# Ops whose int32 output sums int8 products: MXNet's oneDNN kernels for them are exact only with
# VNNI (without it they add u8*s8 product pairs in int16 and saturate, or halve the weights of
# int8 data), so its output can differ from the exact integer result on other CPUs.
INT8_PRODUCT_OPS = {"_contrib_quantized_conv", "_contrib_quantized_fully_connected"}


def exact_outputs(mx, c):
    """The exact integer result of an INT8_PRODUCT_OPS case (JSON form, as in quant.json), made
    by MXNet's own op without saturation on any CPU. Its int32 output is linear in the weight
    (input 1) plus a bias term B = y(0); with w = 16 hi + lo (hi = w >> 4 in [-8, 7], lo = w & 15
    in [0, 15]) the op runs on the even weights 2 hi and 2 lo, whose product pairs stay within
    2 * 255 * 30 (no int16 saturation) and which halve exactly:
        y(w) = 8 (y(2 hi) - B) + (y(2 lo) - B) / 2 + B        in int64.
    Other outputs (the float ranges) come from the y(2 lo) call. Returns the case's outputs
    list, or None when the case is not such an op or MXNet rejects it."""
    if c["op"] not in INT8_PRODUCT_OPS or "error" in c or c["inputs"][1]["dtype"] != "int8":
        return None
    arrays = [(np.array(t["data"], dtype=np.float64).reshape(t["shape"]).astype(t["dtype"]), t["dtype"])
              for t in c["inputs"]]
    w = arrays[1][0].astype(np.int64)
    y = {}
    for key, wv in (("hi", 2 * (w >> 4)), ("lo", 2 * (w & 15)), ("zero", 0 * w)):
        r = run_case(mx, {"op": c["op"], "attrs": c["attrs"],
                          "inputs": arrays[:1] + [(wv.astype(np.int8), "int8")] + arrays[2:]})
        if "error" in r:
            return None
        y[key] = r["outputs"]
    hi, lo, b = (np.array(y[k][0]["data"], dtype=np.int64) for k in ("hi", "lo", "zero"))
    if ((lo - b) % 2).any():
        return None
    exact = 8 * (hi - b) + (lo - b) // 2 + b
    return [dict(y["lo"][0], data=[int(v) for v in exact])] + y["lo"][1:]


def tensor(a, dtype):
    a = np.asarray(a)
    if dtype.startswith("float"):
        data = [float("%.9g" % v) for v in a.astype(np.float64).ravel()]
    else:
        data = [int(v) for v in a.ravel()]
    return {"shape": list(a.shape), "dtype": dtype, "data": data}


def child(out_path):
    import warnings
    warnings.filterwarnings("ignore")
    import mxnet as mx
    define_cases()
    cases = []
    for c in CASES:
        r = {"name": c["name"], "op": c["op"], "attrs": c["attrs"],
             "inputs": [tensor(a, d) for a, d in c["inputs"]]}
        r.update(run_case(mx, c))
        cases.append(r)
    text = json.dumps({"generator": "tools/conformance/refs_quant.py", "mxnet": "1.9.1",
                       "cases": cases}, separators=(",", ":"))
    with open(out_path, "w") as fh:
        fh.write(text + "\n")
    print(f"{out_path}: {len(cases)} cases, {len(text) + 1} bytes", file=sys.stderr)


def main(out_dir):
    """Writes out_dir/quant.json (MXNet runs in a child process with one OpenMP thread)."""
    os.makedirs(out_dir, exist_ok=True)
    env = dict(os.environ, OMP_NUM_THREADS="1", MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0")
    subprocess.run([sys.executable, os.path.abspath(__file__), "--child",
                    os.path.join(out_dir, "quant.json")], env=env, check=True,
                   cwd=os.path.dirname(os.path.abspath(__file__)))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        child(sys.argv[2])
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "..", "..", "ndarray", "ops", "testdata",
            "conv"))
