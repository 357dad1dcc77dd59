"""Reference cases of the nn family's contrib ops (ndarray/ops/nn_contrib*.cc) from real MXNet
1.9.1, written by gen_nn_refs.py to ndarray/ops/testdata/nn/contrib.json (same case format as the
other nn files; see gen_nn_refs.py's docstring).

MXNet's CPU kernels of the interleaved attention matmuls run float32 only, so every case is
float32. Deterministic (fixed seed).
"""
import numpy as np


def contrib_cases(Gen, invoke_op):
    g = Gen(11)

    def case(name, op, inputs, attrs, **kw):  # by op name: mx.nd lacks the _contrib_ names
        g.case(name, op, inputs, attrs, fn=invoke_op(op), **kw)

    # ---- interleaved attention matmuls (T, B, heads * n * head_dim) ----
    def selfatt(name, T, B, H, D):
        qkv = g.uniform((T, B, H * 3 * D), -1, 1)
        case(name + "_qk", "_contrib_interleaved_matmul_selfatt_qk", [qkv], dict(heads=H))
        att = g.uniform((B * H, T, T), -1, 1)
        case(name + "_valatt", "_contrib_interleaved_matmul_selfatt_valatt", [qkv, att], dict(heads=H))

    selfatt("selfatt", 3, 2, 2, 4)
    selfatt("selfatt_one_head", 4, 1, 1, 5)
    selfatt("selfatt_wide", 5, 3, 3, 2)

    def encdec(name, Tq, Tk, B, H, D):
        q = g.uniform((Tq, B, H * D), -1, 1)
        kv = g.uniform((Tk, B, H * 2 * D), -1, 1)
        case(name + "_qk", "_contrib_interleaved_matmul_encdec_qk", [q, kv], dict(heads=H))
        att = g.uniform((B * H, Tq, Tk), -1, 1)
        case(name + "_valatt", "_contrib_interleaved_matmul_encdec_valatt", [kv, att], dict(heads=H))

    encdec("encdec", 3, 5, 2, 2, 4)
    encdec("encdec_one_head", 2, 4, 3, 1, 3)
    encdec("encdec_long_query", 6, 2, 1, 4, 2)

    # ---- BatchNormWithReLU (MXNet: 4-D float32 through MKL-DNN only), SyncBatchNorm ----
    def bn_inputs(shape):
        c = shape[1]
        return [g.uniform(shape, -2, 2), g.uniform((c,), 0.5, 1.5), g.uniform((c,), -1, 1),
                g.uniform((c,), -0.5, 0.5), g.uniform((c,), 0.5, 1.5)]

    bn = dict(aux=(3, 4))
    relu = "_contrib_BatchNormWithReLU"
    case("bnrelu_train", relu, bn_inputs((4, 3, 2, 2)), dict(fix_gamma=False, eps=1e-5), train=True, **bn)
    case("bnrelu_train_defaults", relu, bn_inputs((3, 2, 3, 2)), {}, train=True, **bn)
    case("bnrelu_train_output_mean_var", relu, bn_inputs((4, 2, 2, 3)),
         dict(fix_gamma=False, output_mean_var=True, momentum=0.7), train=True, **bn)
    # Forward only: MXNet 1.9.1's backward after a predict-mode forward is all zeros (ours is the
    # gradient of what the forward computed; //ndarray:all_ops_test checks it by finite differences).
    case("bnrelu_infer", relu, bn_inputs((2, 3, 2, 2)), dict(fix_gamma=False), grads=False, **bn)
    case("bnrelu_global_stats", relu, bn_inputs((3, 2, 2, 2)),
         dict(fix_gamma=False, use_global_stats=True), train=True, **bn)
    sync = "_contrib_SyncBatchNorm"
    case("syncbn_train", sync, bn_inputs((4, 3, 2, 2)), dict(fix_gamma=False, key="bn0"), train=True, **bn)
    case("syncbn_train_3d_output_mean_var", sync, bn_inputs((4, 3, 5)),
         dict(fix_gamma=False, output_mean_var=True, eps=1e-4, momentum=0.8, key="bn1"), train=True, **bn)
    case("syncbn_train_2d_fix_gamma", sync, bn_inputs((6, 4)), dict(key="bn2"), train=True, **bn)
    case("syncbn_global_stats", sync, bn_inputs((3, 2, 2)),
         dict(fix_gamma=False, use_global_stats=True, key="bn3"), train=True, **bn)
    # Inference: MXNet leaves the mean/var outputs unwritten; only the output is compared.
    case("syncbn_infer", sync, bn_inputs((2, 3, 2)), dict(fix_gamma=False, output_mean_var=True, key="bn4"),
         skip_outputs=(1, 2), **bn)

    # ---- hawkesll (fft, ifft and count_sketch are GPU-only in MXNet: checked by hand in
    # nn_contrib_test.cc) ----
    def hawkes(name, N, K, T, valid_length, max_time, grads=True):
        inputs = [g.uniform((N, K), 0.5, 1.5), g.uniform((K,), 0.2, 0.6), g.uniform((K,), 0.5, 2.0),
                  g.uniform((N, K), 0.0, 1.0), g.uniform((N, T), 0.1, 1.0),
                  g.rng.randint(0, K, size=(N, T)).astype(np.int32),
                  np.array(valid_length, np.float32), np.array(max_time, np.float32)]
        # MXNet leaves the state gradient unwritten: lda, alpha and beta are compared.
        case(name, "_contrib_hawkesll", inputs, {}, grad_inputs=[0, 1, 2], grads=grads)

    hawkes("hawkesll", 3, 2, 4, [4, 2, 0], [5, 3, 1])
    hawkes("hawkesll_fractional_length", 2, 3, 5, [2.5, 5], [8, 6])
    hawkes("hawkesll_one_mark", 2, 1, 3, [3, 1], [4, 2])
    # MXNet's documented example (alpha / beta < 1, zero states, marks all 0).
    case("hawkesll_doc_example", "_contrib_hawkesll",
         [np.array([[1.5, 2.0, 3.0]] * 4, np.float32), np.array([0.2, 0.3, 0.4], np.float32),
          np.array([1.0, 2.0, 3.0], np.float32), np.zeros((4, 3), np.float32),
          np.array([[6, 7, 8, 9], [1, 2, 3, 4], [3, 4, 5, 6], [8, 9, 10, 11]], np.float32),
          np.zeros((4, 4), np.int32), np.array([1, 2, 3, 4], np.float32), np.full((4,), 100.0, np.float32)],
         {}, grad_inputs=[0, 1, 2])

    # ---- Proposal, MultiProposal (zero gradients: forward only) ----
    def proposal(name, op, N, H, W, info, attrs, A=None):
        A = A or len(attrs.get("scales", (4, 8, 16, 32))) * len(attrs.get("ratios", (0.5, 1, 2)))
        inputs = [g.uniform((N, 2 * A, H, W), 0, 1), g.uniform((N, 4 * A, H, W), -0.3, 0.3),
                  np.array(info, np.float32).reshape(N, 3)]
        case(name, op, inputs, attrs, grads=False)

    small = dict(scales=(1, 2), ratios=(0.5, 1), feature_stride=4, rpn_min_size=1)
    proposal("proposal", "_contrib_Proposal", 1, 3, 4, [12, 16, 1],
             dict(small, rpn_pre_nms_top_n=20, rpn_post_nms_top_n=6, threshold=0.5, output_score=True))
    proposal("proposal_padded_image", "_contrib_Proposal", 1, 4, 4, [10, 13, 1],
             dict(small, rpn_post_nms_top_n=8, threshold=0.6, output_score=True))
    proposal("proposal_defaults_cycle", "_contrib_Proposal", 1, 2, 3, [32, 48, 1], {}, A=12)
    proposal("proposal_iou_loss", "_contrib_Proposal", 1, 3, 3, [24, 24, 2.0],
             dict(scales=(2,), ratios=(1,), feature_stride=8, rpn_min_size=2, iou_loss=True,
                  rpn_post_nms_top_n=4, output_score=True))
    proposal("multiproposal", "_contrib_MultiProposal", 2, 3, 3, [12, 12, 1, 9, 11, 1.5],
             dict(small, rpn_pre_nms_top_n=12, rpn_post_nms_top_n=5, threshold=0.5, output_score=True))
    proposal("multiproposal_three", "_contrib_MultiProposal", 3, 2, 4, [8, 16, 1, 8, 12, 1, 6, 16, 0.5],
             dict(small, rpn_post_nms_top_n=4, threshold=0.7))
    return g.cases
