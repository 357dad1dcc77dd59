#!/usr/bin/env python3
"""Reference values for the nn op family (ndarray/ops/nn_*.cc) from real MXNet 1.9.1.

Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_nn_refs.py [OUT_DIR]   # default: ndarray/ops/testdata/nn

Writes one JSON file per op group (norm.json, act.json, softmax.json, loss.json). Each holds
{"cases": [case, ...]} where a case is

    name        unique label
    op          registered op name;  attrs: the attribute strings passed to MXNet
    train       autograd train_mode of the forward (and of the backward)
    record      whether the forward ran under autograd.record()
    inputs      [{shape, dtype, data (flat, C order)}]
    outputs     the visible outputs
    head_grads  one per visible output (only when grads are given)
    grads       d(sum_k <head_k, out_k>)/d(input_i), or null where MXNet gives none
                (labels, aux states, length)
    aux_after   {"input index": array}: mutable inputs (BatchNorm moving stats) after the
                forward and backward, i.e. after MXNet's moving-average update

Deterministic (fixed seeds). Values are float32/float64 numbers written with repr, so they
round-trip exactly.
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import numpy as np
import mxnet as mx
from mxnet import autograd

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "ndarray", "ops", "testdata", "nn")


def arr(a):
    a = a.asnumpy() if isinstance(a, mx.nd.NDArray) else np.asarray(a)
    data = a.ravel().tolist()
    if a.dtype.kind == "f":
        data = [float(np.float32(v)) if a.dtype == np.float32 else float(v) for v in data]
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": data}


class Gen:
    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.cases = []

    def uniform(self, shape, lo=-1.0, hi=1.0, dtype="float32"):
        return self.rng.uniform(lo, hi, size=shape).astype(dtype)

    def labels(self, shape, n, dtype="float32"):
        return self.rng.randint(0, n, size=shape).astype(dtype)

    def case(self, name, op, inputs, attrs=None, train=False, record=True, grads=True,
             grad_inputs=None, aux=(), head_grads=None, n_visible=None, skip_outputs=(), fn=None):
        """Runs op on numpy inputs; grad_inputs: indices whose gradient MXNet computes;
        fn: the callable to run instead of mx.nd.<op> (ops whose Python wrapper lacks inputs)."""
        attrs = attrs or {}
        nd_in = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
        gi = list(range(len(inputs))) if grad_inputs is None else grad_inputs
        gi = [i for i in gi if i not in aux]
        for i in gi:
            nd_in[i].attach_grad()
        fn = fn or getattr(mx.nd, op)
        if record:
            with autograd.record(train_mode=train):
                out = fn(*nd_in, **attrs)
        else:
            with autograd.train_mode() if train else autograd.predict_mode():
                out = fn(*nd_in, **attrs)
        outs = out if isinstance(out, list) else [out]
        if n_visible is not None:
            outs = outs[:n_visible]
        c = {"name": name, "op": op, "attrs": {k: str(v) for k, v in attrs.items()},
             "train": train, "record": record, "inputs": [arr(x) for x in inputs],
             "outputs": [None if k in skip_outputs else arr(o) for k, o in enumerate(outs)]}
        if grads and record:
            if head_grads is None:
                head_grads = [self.uniform(o.shape, dtype=o.dtype) for o in outs]
                for k in range(1, len(outs)):  # grads of extra outputs: MXNet ignores them
                    head_grads[k] = np.zeros(outs[k].shape, dtype=outs[k].dtype)
            autograd.backward(outs, [mx.nd.array(h, dtype=h.dtype) for h in head_grads],
                              train_mode=train)
            c["head_grads"] = [arr(h) for h in head_grads]
            c["grads"] = [arr(nd_in[i].grad) if i in gi else None for i in range(len(inputs))]
        if aux:
            c["aux_after"] = {str(i): arr(nd_in[i]) for i in aux}
        self.cases.append(c)


def norm_cases():
    g = Gen(1)

    def bn_inputs(shape, axis, dtype="float32"):
        c = shape[axis]
        return [g.uniform(shape, -2, 2, dtype), g.uniform((c,), 0.5, 1.5, dtype),
                g.uniform((c,), -1, 1, dtype), g.uniform((c,), -0.5, 0.5, dtype),
                g.uniform((c,), 0.5, 1.5, dtype)]

    bn = dict(aux=(3, 4))
    g.case("bn_train", "BatchNorm", bn_inputs((4, 3, 2, 2), 1),
           dict(eps=1e-5, momentum=0.9, fix_gamma=False), train=True, **bn)
    g.case("bn_train_op_defaults", "BatchNorm", bn_inputs((3, 2, 5), 1), {}, train=True, **bn)
    g.case("bn_train_momentum", "BatchNorm", bn_inputs((6, 4), 1),
           dict(momentum=0.7, fix_gamma=False), train=True, **bn)
    g.case("bn_train_axis_last", "BatchNorm", bn_inputs((2, 3, 4), 2),
           dict(axis=-1, fix_gamma=False), train=True, **bn)
    g.case("bn_train_axis0", "BatchNorm", bn_inputs((3, 5), 0),
           dict(axis=0, fix_gamma=False, eps=1e-4), train=True, **bn)
    g.case("bn_train_output_mean_var", "BatchNorm", bn_inputs((4, 3, 2), 1),
           dict(fix_gamma=False, output_mean_var=True), train=True, **bn)
    g.case("bn_train_float64", "BatchNorm", bn_inputs((3, 2, 2), 1, "float64"),
           dict(fix_gamma=False), train=True, **bn)
    g.case("bn_infer", "BatchNorm", bn_inputs((2, 3, 2, 2), 1),
           dict(eps=1e-5, fix_gamma=False), train=False, **bn)
    g.case("bn_infer_output_mean_var", "BatchNorm", bn_inputs((2, 3, 2), 1),
           dict(fix_gamma=False, output_mean_var=True), train=False, **bn)
    g.case("bn_infer_fix_gamma", "BatchNorm", bn_inputs((2, 3, 2), 1), {}, train=False, **bn)
    g.case("bn_global_stats_train", "BatchNorm", bn_inputs((4, 3, 2), 1),
           dict(use_global_stats=True, fix_gamma=False), train=True, **bn)
    # Forward in train mode without record: batch statistics, no moving-stat update.
    g.case("bn_train_norecord", "BatchNorm", bn_inputs((4, 2, 3), 1),
           dict(fix_gamma=False, output_mean_var=True), train=True, record=False, **bn)

    def ln_inputs(shape, axis):
        c = shape[axis]
        return [g.uniform(shape, -2, 2), g.uniform((c,), 0.5, 1.5), g.uniform((c,), -1, 1)]

    g.case("ln_last", "LayerNorm", ln_inputs((2, 3, 4), -1), {})
    g.case("ln_axis1", "LayerNorm", ln_inputs((2, 3, 4), 1), dict(axis=1, eps=1e-3))
    g.case("ln_output_mean_var", "LayerNorm", ln_inputs((3, 5), -1), dict(output_mean_var=True))
    g.case("gn", "GroupNorm", [g.uniform((2, 4, 3), -2, 2), g.uniform((2,), 0.5, 1.5), g.uniform((2,), -1, 1)],
           dict(num_groups=2))
    g.case("gn_output_mean_var", "GroupNorm",
           [g.uniform((2, 6, 2, 2), -2, 2), g.uniform((3,), 0.5, 1.5), g.uniform((3,), -1, 1)],
           dict(num_groups=3, eps=1e-3, output_mean_var=True))
    g.case("in", "InstanceNorm", [g.uniform((2, 3, 4), -2, 2), g.uniform((3,), 0.5, 1.5), g.uniform((3,), -1, 1)])
    g.case("in_4d", "InstanceNorm",
           [g.uniform((2, 2, 3, 2), -2, 2), g.uniform((2,), 0.5, 1.5), g.uniform((2,), -1, 1)], dict(eps=1e-5))
    return g.cases


def act_cases():
    g = Gen(2)
    for t in ["relu", "sigmoid", "tanh", "softrelu", "softsign"]:
        g.case("act_" + t, "Activation", [g.uniform((3, 4), -3, 3)], dict(act_type=t))
    g.case("act_softrelu_large", "Activation", [np.array([-30, -5, 0, 5, 19, 21, 40], np.float32)],
           dict(act_type="softrelu"))
    g.case("leaky", "LeakyReLU", [g.uniform((3, 4), -3, 3)], {})
    g.case("leaky_slope", "LeakyReLU", [g.uniform((3, 4), -3, 3)], dict(act_type="leaky", slope=0.1))
    g.case("elu", "LeakyReLU", [g.uniform((3, 4), -3, 3)], dict(act_type="elu", slope=0.5))
    g.case("selu", "LeakyReLU", [g.uniform((3, 4), -3, 3)], dict(act_type="selu"))
    g.case("gelu", "LeakyReLU", [g.uniform((3, 4), -3, 3)], dict(act_type="gelu"))
    g.case("prelu", "LeakyReLU", [g.uniform((2, 3, 2), -2, 2), g.uniform((3,), 0, 0.5)], dict(act_type="prelu"))
    g.case("prelu_shared", "LeakyReLU", [g.uniform((4, 3), -2, 2), g.uniform((1,), 0, 0.5)], dict(act_type="prelu"))
    # rrelu in predict mode: slope (lower + upper) / 2. The mask output is not compared (MXNet
    # leaves it unwritten in predict mode), nor gradients (its backward reads that mask).
    g.case("rrelu_predict", "LeakyReLU", [g.uniform((3, 4), -3, 3)],
           dict(act_type="rrelu", lower_bound=0.1, upper_bound=0.3), grads=False, record=False, skip_outputs=(1,))
    # Dropout in predict mode and with p = 0 is the identity.
    g.case("dropout_predict", "Dropout", [g.uniform((3, 4))], dict(p=0.5), train=False)
    g.case("dropout_p0_train", "Dropout", [g.uniform((3, 4))], dict(p=0.0), train=True)
    return g.cases


def softmax_cases():
    g = Gen(3)
    g.case("softmax", "softmax", [g.uniform((3, 5), -3, 3)], {})
    g.case("softmax_axis1_temp", "softmax", [g.uniform((2, 3, 4), -3, 3)], dict(axis=1, temperature=2.0))
    g.case("softmax_axis0", "softmax", [g.uniform((4, 3), -3, 3)], dict(axis=0))
    g.case("softmax_length", "softmax",
           [g.uniform((3, 5), -3, 3), np.array([2, 5, 1], np.int32)], dict(axis=-1, use_length=True),
           grad_inputs=[0])
    g.case("softmax_length_axis0", "softmax",
           [g.uniform((4, 2), -3, 3), np.array([3, 1], np.int64)], dict(axis=0, use_length=True),
           grad_inputs=[0])
    g.case("softmax_dtype", "softmax", [g.uniform((2, 4), -3, 3)], dict(dtype="float64"))
    g.case("softmax_float64", "softmax", [g.uniform((2, 4), -3, 3, "float64")], {})
    g.case("log_softmax", "log_softmax", [g.uniform((3, 5), -3, 3)], {})
    g.case("log_softmax_axis0_temp", "log_softmax", [g.uniform((4, 3), -3, 3)], dict(axis=0, temperature=0.5))
    g.case("softmin", "softmin", [g.uniform((3, 5), -3, 3)], {})
    g.case("softmin_temp", "softmin", [g.uniform((2, 3, 2), -3, 3)], dict(axis=1, temperature=3.0))
    g.case("softmax_activation_instance", "SoftmaxActivation", [g.uniform((3, 4), -3, 3)], {})
    # Forward only for rank > 2 in instance mode: MXNet's backward there uses the channel formula.
    g.case("softmax_activation_instance_3d", "SoftmaxActivation", [g.uniform((2, 3, 4), -3, 3)], {}, grads=False)
    g.case("softmax_activation_channel", "SoftmaxActivation", [g.uniform((2, 3, 2, 2), -3, 3)], dict(mode="channel"))
    return g.cases


def loss_cases():
    g = Gen(4)
    # SoftmaxOutput: the label gradient is not compared (MXNet's is not meaningful).
    so = dict(grad_inputs=[0])
    g.case("so", "SoftmaxOutput", [g.uniform((4, 5), -2, 2), g.labels((4,), 5)], {}, **so)
    g.case("so_ignore_valid", "SoftmaxOutput",
           [g.uniform((5, 4), -2, 2), np.array([1, -1, 3, -1, 0], np.float32)],
           dict(use_ignore=True, ignore_label=-1, normalization="valid"), **so)
    g.case("so_ignore_batch_scale", "SoftmaxOutput",
           [g.uniform((4, 3), -2, 2), np.array([2, 2, 0, 1], np.float32)],
           dict(use_ignore=True, ignore_label=2, normalization="batch", grad_scale=0.5), **so)
    g.case("so_no_ignore_valid", "SoftmaxOutput",
           [g.uniform((4, 3), -2, 2), np.array([2, 2, 0, 1], np.float32)],
           dict(ignore_label=2, normalization="valid"), **so)
    g.case("so_smooth", "SoftmaxOutput", [g.uniform((3, 4), -2, 2), g.labels((3,), 4)],
           dict(smooth_alpha=0.2), **so)
    g.case("so_smooth_ignore", "SoftmaxOutput",
           [g.uniform((3, 4), -2, 2), np.array([1, 0, 3], np.float32)],
           dict(smooth_alpha=0.1, use_ignore=True, ignore_label=0), **so)
    g.case("so_multi", "SoftmaxOutput", [g.uniform((2, 3, 4), -2, 2), g.labels((2, 4), 3)],
           dict(multi_output=True), **so)
    g.case("so_multi_valid_ignore", "SoftmaxOutput",
           [g.uniform((2, 3, 2, 2), -2, 2), np.array([[[0, 1], [2, 1]], [[1, 1], [0, 2]]], np.float32)],
           dict(multi_output=True, use_ignore=True, ignore_label=1, normalization="valid"), **so)
    g.case("so_multi_batch", "SoftmaxOutput", [g.uniform((2, 3, 4), -2, 2), g.labels((2, 4), 3)],
           dict(multi_output=True, normalization="batch", grad_scale=2.0), **so)
    g.case("so_preserve_shape", "SoftmaxOutput", [g.uniform((2, 3, 4), -2, 2), g.labels((2, 3), 4)],
           dict(preserve_shape=True), **so)
    g.case("so_flatten_3d", "SoftmaxOutput", [g.uniform((2, 2, 3), -2, 2), g.labels((2, 2), 3)], {},
           grads=False)
    g.case("so_prob_label", "SoftmaxOutput",
           [g.uniform((3, 4), -2, 2), np.full((3, 4), 0.25, np.float32)], dict(grad_scale=3.0), **so)
    g.case("so_out_grad", "SoftmaxOutput", [g.uniform((3, 4), -2, 2), g.labels((3,), 4)],
           dict(out_grad=True, normalization="batch"), **so)
    g.case("softmax_alias", "Softmax", [g.uniform((2, 3), -2, 2), g.labels((2,), 3)], {}, **so)
    g.case("sce", "softmax_cross_entropy", [g.uniform((4, 5), -2, 2), g.labels((4,), 5)], {}, **so)
    reg = dict(grad_inputs=[0])
    g.case("linreg", "LinearRegressionOutput", [g.uniform((3, 2)), g.uniform((3, 2))], {}, **reg)
    g.case("linreg_1d_label", "LinearRegressionOutput", [g.uniform((4, 1)), g.uniform((4,))],
           dict(grad_scale=2.0), **reg)
    g.case("logreg", "LogisticRegressionOutput", [g.uniform((3, 2), -3, 3), g.labels((3, 2), 2)], {}, **reg)
    g.case("maereg", "MAERegressionOutput", [g.uniform((2, 3)), g.uniform((2, 3))], dict(grad_scale=0.5), **reg)
    return g.cases


def rnn_cases():
    """RNN (each mode; 2 layers; bidirectional; state outputs; float32/float64; LSTM projection,
    forward only: MXNet's CPU build has no projection backward) and CTCLoss (blank first/last,
    data/label lengths, an infeasible label). use_sequence_length and state clipping are not
    here: MXNet's CPU build ignores (float32) or rejects (float64) them; nn_rnn_test.cc checks
    them by hand."""
    g = Gen(5)
    gates = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}

    def psize(mode, C, H, L, D, P=0):
        R, G = (P or H), gates[mode]
        return sum(D * (G * H * (C if l == 0 else R * D) + G * H * R + P * H + 2 * G * H) for l in range(L))

    def rnn(name, mode, T=3, N=2, C=3, H=4, L=1, bidir=False, state_outputs=False, dtype="float32",
            P=0, train=True, record=True, grads=True):
        D = 2 if bidir else 1
        R = P or H
        inputs = [g.uniform((T, N, C), dtype=dtype), g.uniform((psize(mode, C, H, L, D, P),), -0.5, 0.5, dtype),
                  g.uniform((L * D, N, R), dtype=dtype)]
        if mode == "lstm":
            inputs.append(g.uniform((L * D, N, H), dtype=dtype))
        attrs = dict(state_size=H, num_layers=L, mode=mode)
        if bidir:
            attrs["bidirectional"] = True
        if state_outputs:
            attrs["state_outputs"] = True
        if P:
            attrs["projection_size"] = P
        shapes = [(T, N, D * R)]
        if state_outputs:
            shapes.append((L * D, N, R))
            if mode == "lstm":
                shapes.append((L * D, N, H))
        heads = [g.uniform(s, dtype=dtype) for s in shapes]
        g.case(name, "RNN", inputs, attrs, train=train, record=record, grads=grads, head_grads=heads)

    for dtype in ["float32", "float64"]:
        sfx = "" if dtype == "float32" else "_f64"
        # Not rnn_relu in float64: MXNet 1.9.1's CPU relu cell rounds its result to float32
        # (rnn_impl.h relu), so its float64 values are only float32-accurate.
        for mode in ["rnn_relu", "rnn_tanh", "lstm", "gru"] if dtype == "float32" else ["rnn_tanh", "lstm", "gru"]:
            rnn(mode + sfx, mode, dtype=dtype)
            rnn(mode + "_2layer_bidir_states" + sfx, mode, L=2, bidir=True, state_outputs=True, dtype=dtype)
        rnn("lstm_2layer_states" + sfx, "lstm", T=4, N=3, C=2, H=3, L=2, state_outputs=True, dtype=dtype)
        rnn("gru_bidir" + sfx, "gru", T=2, N=3, C=4, H=2, bidir=True, dtype=dtype)
    rnn("rnn_tanh_predict", "rnn_tanh", L=2, state_outputs=True, train=False)
    rnn("npx_rnn_alias", "gru", state_outputs=True)
    g.cases[-1]["op"] = "_npx_rnn"  # same op under its numpy-extension name
    # LSTMP: forward only (MXNet crashes without state_outputs and has no CPU backward).
    rnn("lstm_projection", "lstm", H=4, P=2, state_outputs=True, train=False, record=False, grads=False)
    rnn("lstm_projection_2layer_bidir", "lstm", H=3, P=2, L=2, bidir=True, state_outputs=True,
        train=False, record=False, grads=False)

    # CTCLoss: data (T, N, A) activations; labels padded with 0 (blank first) or -1 (blank last).
    ctc = dict(grad_inputs=[0])
    g.case("ctc_blank_first", "CTCLoss",
           [g.uniform((6, 3, 5), -2, 2), np.array([[1, 2, 0], [3, 3, 1], [4, 0, 0]], np.float32)], {}, **ctc)
    g.case("ctc_blank_last", "CTCLoss",
           [g.uniform((6, 3, 5), -2, 2), np.array([[0, 1, -1], [2, 2, 3], [3, -1, -1]], np.float32)],
           dict(blank_label="last"), **ctc)
    g.case("ctc_data_lengths", "CTCLoss",
           [g.uniform((6, 3, 4), -2, 2), np.array([[1, 2], [3, 3], [2, 0]], np.float32),
            np.array([6, 4, 2], np.float32)], dict(use_data_lengths=True), **ctc)
    g.case("ctc_label_lengths", "CTCLoss",
           [g.uniform((5, 2, 4), -2, 2), np.array([[1, 2, 3], [2, 2, 1]], np.float32),
            np.array([2, 3], np.float32)], dict(use_label_lengths=True), **ctc)
    g.case("ctc_both_lengths_last", "ctc_loss",
           [g.uniform((5, 3, 4), -2, 2), np.array([[0, 1, 2], [1, 1, 0], [2, 0, 1]], np.float32),
            np.array([5, 3, 4], np.float32), np.array([3, 2, 1], np.float32)],
           dict(use_data_lengths=True, use_label_lengths=True, blank_label="last"), **ctc)
    # Second sample cannot be aligned (2 labels + 1 repeat > 2 steps): loss 0. Forward only: MXNet
    # 1.9.1 leaves that sample's gradient uninitialized now and then (huge values from run to run);
    # nn_rnn_test.cc checks our zero gradient by hand.
    g.case("ctc_infeasible", "CTCLoss",
           [g.uniform((4, 2, 3), -2, 2), np.array([[1, 2], [1, 1]], np.float32), np.array([4, 2], np.float32)],
           dict(use_data_lengths=True), **dict(ctc, grads=False))
    g.cases[-1]["op"] = "_contrib_CTCLoss"  # the same op under its contrib names
    g.case("ctc_empty_label", "CTCLoss",
           [g.uniform((3, 2, 3), -2, 2), np.array([[0, 0], [2, 0]], np.float32)], {}, **ctc)
    g.cases[-1]["op"] = "_contrib_ctc_loss"
    return g.cases


def invoke_op(op):
    """mx.nd-style callable for `op` taking every input positionally (aux states included):
    mx.nd.IdentityAttachKLSparseReg has no parameter for its moving_avg aux state."""
    import ctypes
    from mxnet.base import _LIB, check_call, OpHandle, c_str
    from mxnet._ctypes.ndarray import _imperative_invoke
    h = OpHandle()
    check_call(_LIB.NNGetOpHandle(c_str(op), ctypes.byref(h)))

    def call(*args, **kw):
        return _imperative_invoke(h.value, list(args), list(kw.keys()), [str(v) for v in kw.values()],
                                  None, None, False)
    return call


def extra_cases():
    """Legacy extras (nn_sequence.cc, nn_extra.cc). Loss layers (MakeLoss, SVMOutput) and
    IdentityAttachKLSparseReg: MXNet's gradient is the loss/regularized one; labels, lengths and
    aux states get no compared gradient."""
    g = Gen(6)
    d0 = dict(grad_inputs=[0])
    # Sequence ops: data (T, B, ...) / (B, T, ...), lengths of several dtypes (float ones truncate).
    g.case("seqmask_identity", "SequenceMask", [g.uniform((4, 3, 2))], {})
    g.case("seqmask_len", "SequenceMask", [g.uniform((4, 3, 2)), np.array([1, 3, 4], np.float32)],
           dict(use_sequence_length=True, value=-1.5), **d0)
    g.case("seqmask_len_trunc_zero", "SequenceMask",
           [g.uniform((3, 4)), np.array([2.7, 0, 3, 1], np.float32)], dict(use_sequence_length=True), **d0)
    g.case("seqmask_axis1_int_len", "SequenceMask", [g.uniform((3, 4, 2)), np.array([2, 0, 4], np.int32)],
           dict(use_sequence_length=True, axis=1, value=7), **d0)
    g.case("seqmask_float64", "SequenceMask", [g.uniform((5, 2), dtype="float64"), np.array([2, 5], np.int64)],
           dict(use_sequence_length=True), **d0)
    g.case("seqmask_int_data", "SequenceMask",
           [np.arange(12, dtype=np.int32).reshape(3, 2, 2), np.array([1, 2], np.int32)],
           dict(use_sequence_length=True, value=-1), grads=False)
    # Without sequence_length MXNet 1.9.1's SequenceLast backward crashes (segfault): forward only.
    g.case("seqlast_default", "SequenceLast", [g.uniform((4, 3, 2))], {}, grads=False)
    g.case("seqlast_len", "SequenceLast", [g.uniform((4, 3, 2)), np.array([1, 4, 2], np.float32)],
           dict(use_sequence_length=True), **d0)
    g.case("seqlast_axis1", "SequenceLast", [g.uniform((3, 5, 2)), np.array([5, 1, 3], np.int64)],
           dict(use_sequence_length=True, axis=1), **d0)
    g.case("seqlast_axis1_default", "SequenceLast", [g.uniform((2, 3))], dict(axis=1), grads=False)
    g.case("seqlast_2d_float64", "SequenceLast", [g.uniform((4, 3), dtype="float64"), np.array([2, 4, 1], np.int32)],
           dict(use_sequence_length=True), **d0)
    g.case("seqrev_default", "SequenceReverse", [g.uniform((4, 3, 2))], {})
    g.case("seqrev_len", "SequenceReverse", [g.uniform((4, 3, 2)), np.array([2, 0, 4], np.float32)],
           dict(use_sequence_length=True), **d0)
    g.case("seqrev_2d_float64", "SequenceReverse", [g.uniform((5, 2), dtype="float64"), np.array([3, 1], np.int32)],
           dict(use_sequence_length=True), **d0)
    # L2Normalization.
    g.case("l2_instance", "L2Normalization", [g.uniform((2, 3, 2), -2, 2)], {})
    g.case("l2_instance_2d_eps", "L2Normalization", [g.uniform((3, 4), -2, 2)], dict(eps=0.01))
    g.case("l2_instance_1d", "L2Normalization", [g.uniform((4,), 0.5, 2)], {})
    g.case("l2_channel", "L2Normalization", [g.uniform((2, 3, 2, 2), -2, 2)], dict(mode="channel"))
    g.case("l2_spatial", "L2Normalization", [g.uniform((2, 3, 4), -2, 2)], dict(mode="spatial"))
    g.case("l2_spatial_4d_float64", "L2Normalization", [g.uniform((2, 2, 2, 3), -2, 2, "float64")],
           dict(mode="spatial", eps=1e-6))
    # LRN (MXNet 1.9.1 runs float32 only; an even nsize goes to oneDNN's window of nsize - 1).
    g.case("lrn_defaults", "LRN", [g.uniform((2, 5, 3, 3), -2, 2)], dict(nsize=3))
    g.case("lrn_strong", "LRN", [g.uniform((1, 7, 2, 3), -2, 2)], dict(nsize=5, alpha=0.5, beta=0.5, knorm=1.0))
    g.case("lrn_nsize1", "LRN", [g.uniform((2, 3, 2, 2), -2, 2)], dict(nsize=1, alpha=0.3, beta=1.0))
    g.case("lrn_nsize_even", "LRN", [g.uniform((1, 5, 2, 2), -2, 2)], dict(nsize=4, alpha=0.8, beta=0.75, knorm=1.0))
    # hard_sigmoid.
    g.case("hard_sigmoid", "hard_sigmoid", [g.uniform((3, 5), -4, 4)], {})
    g.case("hard_sigmoid_params", "hard_sigmoid", [g.uniform((4, 3), -3, 3)], dict(alpha=0.3, beta=0.4))
    g.case("hard_sigmoid_float64", "hard_sigmoid", [g.uniform((2, 6), -4, 4, "float64")], dict(alpha=0.25, beta=0.6))
    # MakeLoss: the gradient ignores the head gradient.
    g.case("makeloss_null", "MakeLoss", [g.uniform((2, 3))], {})
    g.case("makeloss_batch", "MakeLoss", [g.uniform((2, 3, 4))], dict(normalization="batch", grad_scale=2.0))
    g.case("makeloss_valid", "MakeLoss", [g.uniform((3, 4))], dict(normalization="valid", valid_thresh=0.2))
    g.case("makeloss_valid_none", "MakeLoss", [g.uniform((2, 2))],
           dict(normalization="valid", valid_thresh=5.0, grad_scale=0.5))
    g.case("makeloss_float64", "MakeLoss", [g.uniform((4,), dtype="float64")],
           dict(normalization="batch", grad_scale=3.0))
    # SVMOutput: label (data.shape[:-1]) of data's dtype.
    g.case("svm_l2", "SVMOutput", [g.uniform((4, 5), -2, 2), g.labels((4,), 5)], {}, **d0)
    g.case("svm_l1", "SVMOutput", [g.uniform((4, 3), -2, 2), g.labels((4,), 3)], dict(use_linear=True), **d0)
    g.case("svm_margin_coef", "SVMOutput", [g.uniform((3, 4), -2, 2), g.labels((3,), 4)],
           dict(margin=0.5, regularization_coefficient=2.0), **d0)
    g.case("svm_3d", "SVMOutput", [g.uniform((2, 3, 4), -2, 2), g.labels((2, 3), 4)], dict(use_linear=True), **d0)
    g.case("svm_float64", "SVMOutput", [g.uniform((3, 3), -2, 2, "float64"), g.labels((3,), 3, "float64")],
           dict(margin=1.5), **d0)

    # moments: both outputs get head gradients.
    def mom(name, x, attrs, grads=True):
        m = mx.nd.moments(mx.nd.array(x, dtype=x.dtype), **attrs)
        hg = [g.uniform(o.shape, dtype=x.dtype) for o in m] if grads else None
        g.case(name, "moments", [x], attrs, head_grads=hg, grads=grads)
    mom("moments_axis1", g.uniform((2, 3, 4), -2, 2), dict(axes=(1,)))
    mom("moments_axes02_keepdims", g.uniform((2, 3, 4), -2, 2), dict(axes=(0, 2), keepdims=True))
    mom("moments_negative_axis", g.uniform((3, 4), -2, 2), dict(axes=(-1,)))
    mom("moments_all_axes", g.uniform((2, 3), -2, 2), dict(axes=(1, 0)))
    mom("moments_float64", g.uniform((3, 2, 2), -2, 2, "float64"), dict(axes=(0, 1), keepdims=True))
    mom("moments_int32", np.arange(24, dtype=np.int32).reshape(2, 3, 4) * 3 % 7, dict(axes=(1,)), grads=False)
    # IdentityAttachKLSparseReg: moving_avg (aux) is updated by the recorded call.
    kl = invoke_op("IdentityAttachKLSparseReg")
    g.case("kl_sparse_reg", "IdentityAttachKLSparseReg", [g.uniform((4, 3), 0.1, 0.9), g.uniform((3,), 0.2, 0.6)],
           {}, aux=(1,), fn=kl)
    g.case("kl_sparse_reg_params", "IdentityAttachKLSparseReg",
           [g.uniform((5, 2), 0.1, 0.9), g.uniform((2,), 0.2, 0.6)],
           dict(sparseness_target=0.3, penalty=0.05, momentum=0.6), train=True, aux=(1,), fn=kl)
    return g.cases


def main():
    import refs_nn_contrib  # the contrib ops' cases (nn_contrib*.cc)
    os.makedirs(OUT, exist_ok=True)
    for name, fn in [("norm", norm_cases), ("act", act_cases), ("softmax", softmax_cases), ("loss", loss_cases),
                     ("rnn", rnn_cases), ("extra", extra_cases),
                     ("contrib", lambda: refs_nn_contrib.contrib_cases(Gen, invoke_op))]:
        path = os.path.join(OUT, name + ".json")
        with open(path, "w") as f:
            json.dump({"generator": "tools/conformance/gen_nn_refs.py", "mxnet": mx.__version__,
                       "cases": fn()}, f, separators=(",", ":"))
            f.write("\n")
        print(path, os.path.getsize(path))
    sys.path.insert(0, HERE)
    import refs_custom  # Custom with registered Python custom ops (custom.json)
    refs_custom.main(OUT)


if __name__ == "__main__":
    main()
