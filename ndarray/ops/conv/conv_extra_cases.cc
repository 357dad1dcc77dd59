// Test cases of the conv family's legacy and deformable ops (conv_extra.cc, conv_extra_roi.cc),
// enumerated by //ndarray:all_ops_test (finite-difference gradients in float64, attribute round
// trips). Deformable offsets have fractional parts in [0.15, 0.85] so that every bilinear
// sample lies strictly between pixels (no kink within the finite-difference step); rois are
// fixed rows and get no gradient.
#include <cmath>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

using Inputs = std::function<std::vector<NDArray>(DType, uint64_t)>;

// Offsets in [-2, 2) whose fractional parts lie in [0.15, 0.85].
NDArray FractionalOffsets(const Shape& s, uint64_t seed, DType dt) {
  const int64_t k = s.Size();
  std::vector<double> a = RandomArray({k}, 0, 1, seed, DType::kFloat64).ToVector<double>();
  std::vector<double> b = RandomArray({k}, 0, 1, seed + 1, DType::kFloat64).ToVector<double>();
  std::vector<double> v(k);
  for (int64_t i = 0; i < k; ++i) v[i] = std::floor(a[i] * 4) - 2 + 0.15 + 0.7 * b[i];
  return NDArray::FromVector(v, s, cpu(), dt);
}

// data, offset, [mask in [0, 1]], weight, [bias].
Inputs DcnInputs(Shape data, Shape offset, std::optional<Shape> mask, Shape weight,
                 std::optional<Shape> bias, std::optional<Shape> ograd = std::nullopt) {
  return [=](DType dt, uint64_t seed) {
    std::vector<NDArray> v;
    if (ograd) v.push_back(RandomArray(*ograd, -1, 1, seed + 9, dt));
    v.push_back(RandomArray(data, -1, 1, seed, dt));
    v.push_back(FractionalOffsets(offset, seed + 1, dt));
    if (mask) v.push_back(RandomArray(*mask, 0, 1, seed + 3, dt));
    v.push_back(RandomArray(weight, -1, 1, seed + 4, dt));
    if (bias && !ograd) v.push_back(RandomArray(*bias, -1, 1, seed + 5, dt));
    return v;
  };
}

// (ograd or x-shaped grad, data, Pooling_v1(data) max output) for the Pooling_v1 helpers; data
// negative-leaning so that some windows' maximum is the zero padding.
Inputs PoolV1HelperInputs(bool ograd_first, Shape data, Shape pooled) {
  return [=](DType dt, uint64_t seed) {
    NDArray x = RandomArray(data, -1, 0.3, seed, dt);
    const Op& op = OpRegistry::Get("Pooling_v1");
    NDArray y = Invoke(
        op, OpAttrs::Parse(op, {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}}),
        std::vector<NDArray>{x})[0];
    if (y.shape() != pooled) y = RandomArray(pooled, -1, 1, seed + 2, dt);  // not used (avg)
    return std::vector<NDArray>{RandomArray(ograd_first ? pooled : data, -1, 1, seed + 1, dt), x,
                                y};
  };
}

// ---- Convolution_v1 / Pooling_v1. ----
MX_OP_TEST_CASE({.op = "Convolution_v1",
                 .attrs = {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"pad", "(1, 1)"}},
                 .shapes = {{2, 3, 5, 5}, {4, 3, 3, 3}, {4}},
                 .label = "(2d, bias)"});
MX_OP_TEST_CASE({.op = "Convolution_v1",
                 .attrs = {{"kernel", "(2, 2, 2)"},
                           {"num_filter", "2"},
                           {"num_group", "2"},
                           {"stride", "(2, 1, 1)"},
                           {"dilate", "(1, 2, 1)"},
                           {"no_bias", "True"}},
                 .shapes = {{1, 4, 4, 4, 3}, {2, 2, 2, 2, 2}},
                 .label = "(3d, grouped, no bias)"});
MX_OP_TEST_CASE({.op = "Pooling_v1",
                 .attrs = {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}},
                 .shapes = {{1, 2, 5, 6}},
                 .label = "(max, zero padding)"});
MX_OP_TEST_CASE({.op = "Pooling_v1",
                 .attrs = {{"kernel", "(2, 2)"},
                           {"stride", "(2, 2)"},
                           {"pool_type", "avg"},
                           {"pooling_convention", "full"}},
                 .shapes = {{2, 1, 5, 5}},
                 .label = "(avg, full)"});
MX_OP_TEST_CASE({.op = "Pooling_v1",
                 .attrs = {{"kernel", "(2, 3)"}, {"pad", "(1, 0)"}, {"pool_type", "sum"}},
                 .shapes = {{1, 2, 4, 5}},
                 .label = "(sum, pad)"});
MX_OP_TEST_CASE({.op = "Pooling_v1",
                 .attrs = {{"global_pool", "True"}, {"pool_type", "avg"}},
                 .shapes = {{2, 3, 3, 4}},
                 .label = "(global avg)"});
MX_OP_TEST_CASE({.op = "Pooling_v1",
                 .attrs = {{"kernel", "(2, 2, 2)"},
                           {"pad", "(1, 0, 1)"},
                           {"stride", "(2, 2, 2)"},
                           {"pool_type", "avg"}},
                 .shapes = {{1, 2, 3, 4, 3}},
                 .label = "(3d avg, pad)"});
MX_OP_TEST_CASE({.op = "_backward_Pooling_v1",
                 .attrs = {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}},
                 .make_inputs = PoolV1HelperInputs(true, {1, 2, 5, 6}, {1, 2, 3, 3}),
                 .grad_inputs = {0},
                 .label = "(max, zero padding)"});
MX_OP_TEST_CASE({.op = "_backward_Pooling_v1",
                 .attrs = {{"kernel", "(2, 2)"},
                           {"stride", "(2, 1)"},
                           {"pad", "(0, 1)"},
                           {"pool_type", "avg"},
                           {"pooling_convention", "full"}},
                 .make_inputs = PoolV1HelperInputs(true, {1, 2, 5, 4}, {1, 2, 3, 5}),
                 .grad_inputs = {0},
                 .label = "(avg)"});
MX_OP_TEST_CASE({.op = "_Pooling_v1_max_gather",
                 .attrs = {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}},
                 .make_inputs = PoolV1HelperInputs(false, {1, 2, 5, 6}, {1, 2, 3, 3}),
                 .grad_inputs = {0}});

// ---- Deformable convolutions. ----
MX_OP_TEST_CASE({.op = "_contrib_DeformableConvolution",
                 .attrs = {{"kernel", "(3, 3)"}, {"num_filter", "3"}, {"pad", "(1, 1)"}},
                 .make_inputs = DcnInputs({2, 2, 4, 5}, {2, 18, 4, 5}, std::nullopt, {3, 2, 3, 3},
                                          Shape{3}),
                 .label = "(bias)"});
MX_OP_TEST_CASE({.op = "_contrib_DeformableConvolution",
                 .attrs = {{"kernel", "(2, 3)"},
                           {"num_filter", "4"},
                           {"stride", "(2, 1)"},
                           {"dilate", "(1, 2)"},
                           {"num_group", "2"},
                           {"num_deformable_group", "2"},
                           {"no_bias", "True"}},
                 .make_inputs = DcnInputs({1, 4, 5, 6}, {1, 24, 2, 2}, std::nullopt, {4, 2, 2, 3},
                                          std::nullopt),
                 .label = "(groups, strided, dilated)"});
MX_OP_TEST_CASE({.op = "_backward_DeformableConvolution",
                 .attrs = {{"kernel", "(3, 3)"}, {"num_filter", "3"}, {"pad", "(1, 1)"}},
                 .make_inputs = DcnInputs({2, 2, 4, 5}, {2, 18, 4, 5}, std::nullopt, {3, 2, 3, 3},
                                          Shape{3}, Shape{2, 3, 4, 5}),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_ModulatedDeformableConvolution",
                 .attrs = {{"kernel", "(3, 3)"}, {"num_filter", "2"}, {"pad", "(1, 1)"}},
                 .make_inputs = DcnInputs({2, 2, 4, 4}, {2, 18, 4, 4}, Shape{2, 9, 4, 4},
                                          {2, 2, 3, 3}, Shape{2}),
                 .label = "(bias)"});
MX_OP_TEST_CASE({.op = "_contrib_ModulatedDeformableConvolution",
                 .attrs = {{"kernel", "(2, 2)"},
                           {"num_filter", "2"},
                           {"stride", "(2, 2)"},
                           {"num_group", "2"},
                           {"num_deformable_group", "2"},
                           {"no_bias", "True"}},
                 .make_inputs = DcnInputs({1, 4, 5, 5}, {1, 16, 2, 2}, Shape{1, 8, 2, 2},
                                          {2, 2, 2, 2}, std::nullopt),
                 .label = "(groups, strided)"});
MX_OP_TEST_CASE({.op = "_backward_ModulatedDeformableConvolution",
                 .attrs = {{"kernel", "(3, 3)"}, {"num_filter", "2"}, {"pad", "(1, 1)"}},
                 .make_inputs = DcnInputs({2, 2, 4, 4}, {2, 18, 4, 4}, Shape{2, 9, 4, 4},
                                          {2, 2, 3, 3}, Shape{2}, Shape{2, 2, 4, 4}),
                 .check_grad = false});

// ---- Position-sensitive / rotated region pooling (gradients w.r.t. data and trans). ----

// Random leading inputs of `shapes`, fixed rois rows (R, cols) at `rois_at`, then random `tail`
// inputs (trans in [-1, 1]).
Inputs RegionInputs(std::vector<Shape> shapes, std::vector<double> rois, int64_t cols,
                    std::vector<Shape> tail = {}) {
  return [=](DType dt, uint64_t seed) {
    std::vector<NDArray> v;
    for (size_t i = 0; i < shapes.size(); ++i)
      v.push_back(RandomArray(shapes[i], -1, 1, seed + 11 * i, dt));
    v.push_back(NDArray::FromVector(rois, Shape{static_cast<int64_t>(rois.size()) / cols, cols},
                                    cpu(), dt));
    for (size_t i = 0; i < tail.size(); ++i)
      v.push_back(RandomArray(tail[i], -1, 1, seed + 5 + 13 * i, dt));
    return v;
  };
}

// Rows [batch, x1, y1, x2, y2]: inside, partly outside, out-of-range batch (zeros).
const std::vector<double> kPsRois = {0,   1.2,  0.7, 9.4, 10.1, 0,   -3.2, 6.1,
                                     4.1, 15.3, 3,   1.0, 1.0,  4.0, 4.0};
const AttrDict kPsroi = {{"spatial_scale", "0.5"}, {"output_dim", "2"}, {"pooled_size", "2"}};
const AttrDict kDpsroi = {{"spatial_scale", "0.5"}, {"output_dim", "2"},      {"group_size", "2"},
                          {"pooled_size", "2"},     {"sample_per_part", "2"}, {"trans_std", "0.1"}};

MX_OP_TEST_CASE({.op = "_contrib_PSROIPooling",
                 .attrs = kPsroi,
                 .make_inputs = RegionInputs({{1, 8, 6, 7}}, kPsRois, 5),
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_backward_PSROIPooling",
                 .attrs = kPsroi,
                 .make_inputs = RegionInputs({{3, 2, 2, 2}, {1, 8, 6, 7}}, kPsRois, 5),
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_contrib_DeformablePSROIPooling",
                 .attrs = kDpsroi,
                 .make_inputs = RegionInputs({{1, 8, 6, 7}}, kPsRois, 5, {{3, 4, 2, 2}}),
                 .grad_inputs = {0, 2},
                 .label = "(trans)"});
MX_OP_TEST_CASE({.op = "_contrib_DeformablePSROIPooling",
                 .attrs = {{"spatial_scale", "1.0"},
                           {"output_dim", "1"},
                           {"group_size", "3"},
                           {"pooled_size", "3"},
                           {"part_size", "2"},
                           {"sample_per_part", "2"},
                           {"no_trans", "True"}},
                 .make_inputs = RegionInputs({{1, 9, 5, 6}}, {0, 0.8, 0.2, 3.3, 4.4}, 5),
                 .grad_inputs = {0},
                 .label = "(no_trans)"});
MX_OP_TEST_CASE({.op = "_backward_DeformablePSROIPooling",
                 .attrs = kDpsroi,
                 .make_inputs = RegionInputs({{3, 2, 2, 2}, {1, 8, 6, 7}}, kPsRois, 5,
                                             {{3, 4, 2, 2}}),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_RROIAlign",
                 .attrs = {{"pooled_size", "(2, 3)"}, {"spatial_scale", "1.0"}},
                 .make_inputs = RegionInputs({{2, 3, 7, 8}},
                                             {0, 3.3, 2.7, 4.1, 2.6, 30.0, 1, 5.2, 4.1, 6.3, 3.1,
                                              -45.0, 2, 3.0, 3.0, 2.0, 2.0, 0.0},
                                             6),
                 .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
