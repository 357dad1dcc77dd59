"""MXNet 1.9.1's _contrib_quantized_rnn (ndarray/ops/quantization/quantized_rnn.cc): its registry entry and
whether MXNet runs it here. MXNet's pip wheel fails on the calls of its own test
(test_quantized_rnn: uint8 data from data_scale = 128 / (max - min), data_shift = 128 - max * scale)
with "could not create a primitive descriptor for a reorder primitive" on the machine the
references were made on, so there are no MXNet values; the error (or, where MXNet runs, the mean
squared difference of its output from the float32 LSTM's, which its test bounds by 1e-3) is
recorded. Read by ndarray/ops/quantization/quantized_rnn_test.cc (registry entry).

Run by hand, not by gen_nn_refs.py (its outcome depends on the CPU: where MXNet runs the op the
file records the MSE instead of the error): writes OUT/quantized_rnn.json (default
ndarray/ops/testdata/nn). Deterministic on one machine (mx.random.seed).
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import mxnet as mx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_reduce_refs import registry  # noqa: E402


def probe(L, bi, T, N, I, H):
    mx.random.seed(0)
    data = mx.sym.Variable("data", shape=(T, N, I))
    fp = mx.sym.RNN(data=data, num_layers=L, bidirectional=bi, state_outputs=True, state_size=H, mode="lstm")
    shapes, _, _ = fp.infer_shape(data=(T, N, I))
    x, w, s, c = (mx.nd.random.uniform(-1, 1, sh) for sh in shapes[:4])
    ref = mx.nd.RNN(x, w, s, c, num_layers=L, bidirectional=bi, state_size=H, mode="lstm")
    scale = 128.0 / (x.max() - x.min())
    shift = 128.0 - x.max() * scale
    q = (x * scale + shift + 0.5).astype("uint8")
    r = {"num_layers": L, "bidirectional": bi, "shape": [T, N, I], "state_size": H}
    try:
        o = mx.nd.contrib.quantized_rnn(q, w, s, c, scale.reshape((1,)), shift.reshape((1,)), num_layers=L,
                                        bidirectional=bi, state_size=H, mode="lstm")
        o = o[0] if isinstance(o, list) else o
        r["mse_vs_float_lstm"] = float(((o - ref) ** 2).mean().asscalar())
    except mx.base.MXNetError as e:
        r["mxnet_error"] = [l for l in str(e).splitlines() if l.strip()][-1].strip()[:300]
    return r


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "ndarray",
                                                               "ops", "testdata", "nn")
    doc = {"generator": "tools/conformance/refs_quantized_rnn.py", "mxnet_version": mx.__version__,
           "ops": registry(["_contrib_quantized_rnn"]),
           "runs": [probe(1, False, 5, 2, 16, 16), probe(1, True, 5, 2, 16, 16)]}
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "quantized_rnn.json"), "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
