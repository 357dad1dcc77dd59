// Test cases of the nn family's contrib ops (nn_contrib*.cc), enumerated by //ndarray:all_ops_test
// (finite-difference gradients in float64, attribute round trips, oneDNN vs reference kernels).
#include <vector>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

// ---- interleaved attention matmuls: T=3, B=2, heads=2, head_dim=4 (encdec: Tq=3, Tk=5) ----
const AttrDict kHeads2 = {{"heads", "2"}};
MX_OP_TEST_CASE({.op = "_contrib_interleaved_matmul_selfatt_qk",
                 .attrs = kHeads2,
                 .shapes = {{3, 2, 24}}});
MX_OP_TEST_CASE({.op = "_contrib_interleaved_matmul_selfatt_qk",
                 .attrs = {{"heads", "1"}},
                 .shapes = {{4, 1, 6}},
                 .label = "(one head)"});
MX_OP_TEST_CASE({.op = "_contrib_interleaved_matmul_selfatt_valatt",
                 .attrs = kHeads2,
                 .shapes = {{3, 2, 24}, {4, 3, 3}}});
MX_OP_TEST_CASE({.op = "_contrib_interleaved_matmul_encdec_qk",
                 .attrs = kHeads2,
                 .shapes = {{3, 2, 8}, {5, 2, 16}}});
MX_OP_TEST_CASE({.op = "_contrib_interleaved_matmul_encdec_valatt",
                 .attrs = kHeads2,
                 .shapes = {{5, 2, 16}, {4, 3, 5}}});
MX_OP_TEST_CASE({.op = "_backward_interleaved_matmul_selfatt_qk",
                 .attrs = kHeads2,
                 .shapes = {{4, 3, 3}, {3, 2, 24}}});
MX_OP_TEST_CASE({.op = "_backward_interleaved_matmul_selfatt_valatt",
                 .attrs = kHeads2,
                 .shapes = {{3, 2, 8}, {3, 2, 24}, {4, 3, 3}}});
MX_OP_TEST_CASE({.op = "_backward_interleaved_matmul_encdec_qk",
                 .attrs = kHeads2,
                 .shapes = {{4, 3, 5}, {3, 2, 8}, {5, 2, 16}}});
MX_OP_TEST_CASE({.op = "_backward_interleaved_matmul_encdec_valatt",
                 .attrs = kHeads2,
                 .shapes = {{3, 2, 8}, {5, 2, 16}, {4, 3, 5}}});

// ---- BatchNormWithReLU, SyncBatchNorm: data, gamma in [0.5, 1.5), beta, moving_mean,
// moving_var in [0.5, 1.5) (channel axis 1) ----
auto BNInputs(Shape data) {
  return [data](DType t, uint64_t seed) {
    Shape c{data[1]};
    DType pt = t == DType::kFloat64 ? t : DType::kFloat32;
    return std::vector<NDArray>{
        RandomArray(data, -1, 1, seed, t), RandomArray(c, 0.5, 1.5, seed + 1, pt),
        RandomArray(c, -1, 1, seed + 2, pt), RandomArray(c, -0.5, 0.5, seed + 3, pt),
        RandomArray(c, 0.5, 1.5, seed + 4, pt)};
  };
}
MX_OP_TEST_CASE({.op = "_contrib_BatchNormWithReLU",
                 .attrs = {{"fix_gamma", "False"}},
                 .make_inputs = BNInputs({2, 3, 2, 2}),
                 .label = "(inference)"});
MX_OP_TEST_CASE({.op = "_contrib_BatchNormWithReLU",
                 .attrs = {{"fix_gamma", "False"}, {"eps", "1e-05"}},
                 .make_inputs = BNInputs({4, 3, 2, 2}),
                 .is_train = true,
                 .label = "(train)"});
MX_OP_TEST_CASE({.op = "_contrib_BatchNormWithReLU",
                 .attrs = {{"fix_gamma", "False"}, {"output_mean_var", "True"}},
                 .make_inputs = BNInputs({4, 3}),
                 .is_train = true,
                 .label = "(train, output_mean_var, 2-D)"});
MX_OP_TEST_CASE({.op = "_contrib_SyncBatchNorm",
                 .attrs = {{"fix_gamma", "False"}, {"key", "bn0"}},
                 .make_inputs = BNInputs({4, 3, 2, 2}),
                 .is_train = true,
                 .label = "(train)"});
MX_OP_TEST_CASE({.op = "_contrib_SyncBatchNorm",
                 .attrs = {{"key", "bn0"}, {"ndev", "2"}},
                 .make_inputs = BNInputs({3, 2, 3}),
                 .label = "(inference, fix_gamma)"});

// ---- fft, ifft ----
MX_OP_TEST_CASE({.op = "_contrib_fft", .shapes = {{3, 5}}});
MX_OP_TEST_CASE({.op = "_contrib_fft",
                 .attrs = {{"compute_size", "2"}},
                 .shapes = {{2, 1, 2, 4}},
                 .label = "(4-D)"});
MX_OP_TEST_CASE({.op = "_contrib_ifft", .shapes = {{3, 8}}});
MX_OP_TEST_CASE({.op = "_contrib_ifft", .shapes = {{2, 2, 1, 6}}, .label = "(4-D)"});

// ---- count_sketch: h integer buckets in [0, out_dim), s signs ----
auto SketchInputs(Shape data, std::vector<double> h, std::vector<double> s) {
  return [=](DType t, uint64_t seed) {
    const int64_t d = static_cast<int64_t>(h.size());
    return std::vector<NDArray>{RandomArray(data, -1, 1, seed, t),
                                NDArray::FromVector(h, Shape{1, d}, cpu(), t),
                                NDArray::FromVector(s, Shape{1, d}, cpu(), t)};
  };
}
MX_OP_TEST_CASE({.op = "_contrib_count_sketch",
                 .attrs = {{"out_dim", "5"}},
                 .make_inputs = SketchInputs({3, 4}, {0, 3, 4, 3}, {1, -1, 1, 1}),
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_contrib_count_sketch",
                 .attrs = {{"out_dim", "2"}, {"processing_batch_size", "1"}},
                 .make_inputs = SketchInputs({2, 1, 2, 3}, {1, 0, 1}, {-1, -1, 1}),
                 .grad_inputs = {0},
                 .label = "(4-D)"});
MX_OP_TEST_CASE({.op = "_backward_count_sketch",
                 .attrs = {{"out_dim", "3"}},
                 .make_inputs = SketchInputs({2, 3}, {2, 0, 2, 1}, {1, 1, -1, 1}),
                 .grad_inputs = {0}});

// ---- hawkesll: N=2 samples, K=3 marks, T=4 points ----
std::vector<NDArray> HawkesInputs(DType t, uint64_t seed) {
  return {RandomArray({2, 3}, 0.5, 1.5, seed, t),
          RandomArray({3}, 0.2, 0.6, seed + 1, t),
          RandomArray({3}, 0.5, 2.0, seed + 2, t),
          RandomArray({2, 3}, 0.0, 1.0, seed + 3, t),
          RandomArray({2, 4}, 0.1, 1.0, seed + 4, t),
          NDArray::FromVector(std::vector<int>{0, 2, 0, 1, 1, 1, 2, 0}, Shape{2, 4}, cpu(),
                              DType::kInt32),
          NDArray::FromVector(std::vector<double>{4, 2.5}, Shape{2}, cpu(), t),
          NDArray::FromVector(std::vector<double>{6, 5}, Shape{2}, cpu(), t)};
}
MX_OP_TEST_CASE({.op = "_contrib_hawkesll",
                 .make_inputs = HawkesInputs,
                 .grad_inputs = {0, 1, 2, 3}});
MX_OP_TEST_CASE({.op = "_backward_hawkesll",
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       std::vector<NDArray> v{RandomArray({2}, -1, 1, seed + 9, t),
                                              RandomArray({2, 3}, -1, 1, seed + 10, t)};
                       for (auto& x : HawkesInputs(t, seed)) v.push_back(x);
                       return v;
                     },
                 .check_grad = false});

// ---- Proposal, MultiProposal: zero gradients by design (MXNet), so check_grad is off. ----
// A = 2 scales x 2 ratios anchors on an H x W map with stride 4; im_info per image.
auto ProposalInputs(int64_t N, int64_t H, int64_t W, std::vector<double> info) {
  return [=](DType t, uint64_t seed) {
    return std::vector<NDArray>{RandomArray({N, 8, H, W}, 0, 1, seed, t),
                                RandomArray({N, 16, H, W}, -0.3, 0.3, seed + 1, t),
                                NDArray::FromVector(info, Shape{N, 3}, cpu(), t)};
  };
}
const AttrDict kProposalAttrs = {{"scales", "(1, 2)"},        {"ratios", "(0.5, 1)"},
                                 {"feature_stride", "4"},     {"rpn_min_size", "1"},
                                 {"rpn_pre_nms_top_n", "20"}, {"rpn_post_nms_top_n", "6"},
                                 {"threshold", "0.5"},        {"output_score", "True"}};
MX_OP_TEST_CASE({.op = "_contrib_Proposal",
                 .attrs = kProposalAttrs,
                 .make_inputs = ProposalInputs(1, 3, 4, {12, 16, 1}),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_MultiProposal",
                 .attrs = kProposalAttrs,
                 .make_inputs = ProposalInputs(2, 3, 3, {12, 12, 1, 9, 11, 1.5}),
                 .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
