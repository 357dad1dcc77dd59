// Test cases of the conv family's spatial-sampling and region ops, enumerated by
// //ndarray:all_ops_test (finite-difference gradients in float64, attribute round trips).
// Sampling points of BilinearSampler/SpatialTransformer are kept off pixel lines so the finite
// differences do not straddle a kink; rois are fixed rows and get no gradient (as MXNet).
#include <cmath>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

using Inputs = std::function<std::vector<NDArray>(DType, uint64_t)>;

// (n, 2, oh, ow) grid of normalized (x, y) whose source positions (g + 1)(size - 1)/2 have
// fractional parts in [0.15, 0.85], from one pixel left/above the image to its last pixel.
NDArray OffGridGrid(int64_t n, int64_t h, int64_t w, int64_t oh, int64_t ow, uint64_t seed,
                    DType dtype) {
  const int64_t k = n * 2 * oh * ow;
  std::vector<double> a = RandomArray({k}, 0, 1, seed, DType::kFloat64).ToVector<double>();
  std::vector<double> b = RandomArray({k}, 0, 1, seed + 1, DType::kFloat64).ToVector<double>();
  std::vector<double> g(k);
  for (int64_t i = 0; i < k; ++i) {
    const int64_t size = (i / (oh * ow)) % 2 == 0 ? w : h;
    const double real = std::floor(a[i] * (size + 1)) - 1 + 0.15 + 0.7 * b[i];
    g[i] = 2.0 * real / static_cast<double>(size - 1) - 1.0;
  }
  return NDArray::FromVector(g, Shape{n, 2, oh, ow}, cpu(), dtype);
}

Inputs SamplerInputs(bool with_ograd) {
  return [with_ograd](DType dt, uint64_t seed) {
    std::vector<NDArray> v;
    if (with_ograd) v.push_back(RandomArray({1, 2, 3, 3}, -1, 1, seed + 7, dt));
    v.push_back(RandomArray({1, 2, 4, 5}, -1, 1, seed, dt));
    v.push_back(OffGridGrid(1, 4, 5, 3, 3, seed + 3, dt));
    return v;
  };
}

// data (1, 2, 5, 6) and loc near the identity (scaled 0.8, so the grid stays inside).
Inputs TransformerInputs() {
  return [](DType dt, uint64_t seed) {
    std::vector<double> loc = {0.8, 0.05, 0.03, -0.04, 0.8, 0.06};
    std::vector<double> noise = RandomArray({6}, -0.05, 0.05, seed + 1).ToVector<double>();
    for (int i = 0; i < 6; ++i) loc[i] += noise[i];
    return std::vector<NDArray>{RandomArray({1, 2, 5, 6}, -1, 1, seed, dt),
                                NDArray::FromVector(loc, Shape{1, 6}, cpu(), dt)};
  };
}

// Random leading inputs of `shapes` followed by fixed rois rows (R, 5).
Inputs RoiInputs(std::vector<Shape> shapes, std::vector<double> rois) {
  return [shapes, rois](DType dt, uint64_t seed) {
    std::vector<NDArray> v;
    for (size_t i = 0; i < shapes.size(); ++i)
      v.push_back(RandomArray(shapes[i], -1, 1, seed + 11 * i, dt));
    const int64_t r = static_cast<int64_t>(rois.size()) / 5;
    v.push_back(NDArray::FromVector(rois, Shape{r, 5}, cpu(), dt));
    return v;
  };
}

// Rows [batch, x1, y1, x2, y2]: inside, partly outside, out-of-range batch (ROIPooling only).
const std::vector<double> kPoolRois = {0, 1.2, 2.6, 9.8, 10.2, 0, -2.2, 3.4, 6.2, 14.6};
const std::vector<double> kAlignRois = {0, 1.3, 2.1, 7.7, 8.9, 1, -1.7, 3.3, 9.1, 6.3};

// ---- GridGenerator. ----
MX_OP_TEST_CASE({.op = "GridGenerator",
                 .attrs = {{"transform_type", "affine"}, {"target_shape", "(3, 4)"}},
                 .shapes = {{2, 6}},
                 .label = "(affine)"});
MX_OP_TEST_CASE({.op = "GridGenerator",
                 .attrs = {{"transform_type", "warp"}},
                 .shapes = {{2, 2, 3, 4}},
                 .label = "(warp)"});
MX_OP_TEST_CASE({.op = "_backward_GridGenerator",
                 .attrs = {{"transform_type", "affine"}, {"target_shape", "(3, 4)"}},
                 .shapes = {{2, 2, 3, 4}},
                 .label = "(affine)"});
MX_OP_TEST_CASE({.op = "_backward_GridGenerator",
                 .attrs = {{"transform_type", "warp"}},
                 .shapes = {{1, 2, 4, 3}},
                 .label = "(warp)"});

// ---- BilinearSampler / SpatialTransformer. ----
MX_OP_TEST_CASE({.op = "BilinearSampler", .make_inputs = SamplerInputs(false)});
MX_OP_TEST_CASE({.op = "BilinearSampler",
                 .attrs = {{"cudnn_off", "True"}},
                 .make_inputs = SamplerInputs(false),
                 .label = "(cudnn_off)"});
MX_OP_TEST_CASE({.op = "_backward_BilinearSampler", .make_inputs = SamplerInputs(true)});
MX_OP_TEST_CASE({.op = "SpatialTransformer",
                 .attrs = {{"target_shape", "(3, 4)"},
                           {"transform_type", "affine"},
                           {"sampler_type", "bilinear"}},
                 .make_inputs = TransformerInputs()});

// ---- ROIPooling / ROIAlign (gradient w.r.t. data only). ----
MX_OP_TEST_CASE({.op = "ROIPooling",
                 .attrs = {{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.5"}},
                 .make_inputs = RoiInputs({{1, 2, 6, 6}}, kPoolRois),
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_backward_ROIPooling",
                 .attrs = {{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.5"}},
                 .make_inputs = RoiInputs({{2, 2, 2, 2}, {1, 2, 6, 6}}, kPoolRois)});
MX_OP_TEST_CASE({.op = "_contrib_ROIAlign",
                 .attrs = {{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.5"}},
                 .make_inputs = RoiInputs({{2, 2, 5, 5}}, kAlignRois),
                 .grad_inputs = {0},
                 .label = "(adaptive samples)"});
MX_OP_TEST_CASE({.op = "_contrib_ROIAlign",
                 .attrs = {{"pooled_size", "(2, 2)"},
                           {"spatial_scale", "0.5"},
                           {"sample_ratio", "2"},
                           {"position_sensitive", "True"},
                           {"aligned", "True"}},
                 .make_inputs = RoiInputs({{2, 8, 5, 5}}, kAlignRois),
                 .grad_inputs = {0},
                 .label = "(position sensitive, aligned)"});
MX_OP_TEST_CASE({.op = "_backward_ROIAlign",
                 .attrs = {{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.5"}},
                 .make_inputs = RoiInputs({{2, 2, 2, 2}, {2, 2, 5, 5}}, kAlignRois),
                 .grad_inputs = {0}});

// ---- Crop. ----
MX_OP_TEST_CASE({.op = "Crop",
                 .attrs = {{"num_args", "1"}, {"h_w", "(2, 3)"}, {"offset", "(1, 2)"}},
                 .shapes = {{2, 2, 4, 6}},
                 .label = "(h_w, offset)"});
MX_OP_TEST_CASE({.op = "Crop",
                 .attrs = {{"num_args", "2"}, {"center_crop", "True"}},
                 .shapes = {{1, 2, 5, 6}, {1, 1, 2, 3}},
                 .grad_inputs = {0},
                 .label = "(crop_like, center)"});
MX_OP_TEST_CASE({.op = "_backward_Crop",
                 .attrs = {{"num_args", "1"}, {"h_w", "(2, 3)"}, {"offset", "(1, 2)"}},
                 .shapes = {{2, 2, 2, 3}, {2, 2, 4, 6}},
                 .grad_inputs = {0}});

// ---- Adaptive pooling, bilinear resize. ----
MX_OP_TEST_CASE({.op = "_contrib_AdaptiveAvgPooling2D",
                 .attrs = {{"output_size", "(3, 2)"}},
                 .shapes = {{1, 2, 5, 7}},
                 .label = "(overlapping bins)"});
MX_OP_TEST_CASE({.op = "_contrib_AdaptiveAvgPooling2D",
                 .shapes = {{2, 1, 3, 4}},
                 .label = "(global)"});
MX_OP_TEST_CASE({.op = "_backward_contrib_AdaptiveAvgPooling2D",
                 .attrs = {{"output_size", "(3,)"}},
                 .shapes = {{1, 2, 3, 3}, {1, 2, 5, 7}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_contrib_BilinearResize2D",
                 .attrs = {{"height", "5"}, {"width", "7"}},
                 .shapes = {{1, 2, 3, 4}},
                 .label = "(size, align_corners)"});
MX_OP_TEST_CASE(
    {.op = "_contrib_BilinearResize2D",
     .attrs = {{"scale_height", "0.5"}, {"scale_width", "1.5"}, {"align_corners", "False"}},
     .shapes = {{1, 2, 6, 4}},
     .label = "(scales, half-pixel)"});
MX_OP_TEST_CASE({.op = "_contrib_BilinearResize2D",
                 .attrs = {{"mode", "like"}},
                 .shapes = {{1, 2, 3, 4}, {1, 1, 4, 6}},
                 .grad_inputs = {0},
                 .label = "(like)"});
MX_OP_TEST_CASE({.op = "_contrib_BilinearResize2D",
                 .attrs = {{"mode", "odd_scale"}, {"scale_height", "2.0"}, {"scale_width", "0.5"}},
                 .shapes = {{1, 1, 3, 4}},
                 .label = "(odd_scale)"});
MX_OP_TEST_CASE({.op = "_contrib_BilinearResize2D",
                 .attrs = {{"mode", "to_even_down"}},
                 .shapes = {{1, 1, 5, 4}},
                 .label = "(to_even_down)"});
MX_OP_TEST_CASE({.op = "_backward_contrib_BilinearResize2D",
                 .attrs = {{"height", "5"}, {"width", "7"}, {"align_corners", "False"}},
                 .shapes = {{1, 2, 5, 7}, {1, 2, 3, 4}},
                 .grad_inputs = {0}});

// ---- im2col / col2im. ----
const AttrDict kBlocks2d = {
    {"kernel", "(3, 3)"}, {"stride", "(2, 1)"}, {"dilate", "(1, 2)"}, {"pad", "(1, 1)"}};
MX_OP_TEST_CASE({.op = "im2col", .attrs = kBlocks2d, .shapes = {{1, 2, 5, 6}}, .label = "(2d)"});
MX_OP_TEST_CASE({.op = "im2col",
                 .attrs = {{"kernel", "(3,)"}, {"stride", "(2,)"}, {"pad", "(1,)"}},
                 .shapes = {{2, 2, 7}},
                 .label = "(1d)"});
MX_OP_TEST_CASE({.op = "im2col",
                 .attrs = {{"kernel", "(2, 2, 2)"}},
                 .shapes = {{1, 1, 3, 3, 3}},
                 .label = "(3d)"});
MX_OP_TEST_CASE({.op = "_backward_im2col",
                 .attrs = kBlocks2d,
                 .shapes = {{1, 18, 12}, {1, 2, 5, 6}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "col2im",
                 .attrs = {{"output_size", "(5, 6)"},
                           {"kernel", "(3, 3)"},
                           {"stride", "(2, 1)"},
                           {"dilate", "(1, 2)"},
                           {"pad", "(1, 1)"}},
                 .shapes = {{1, 18, 12}}});

// ---- Correlation. ----
MX_OP_TEST_CASE({.op = "Correlation",
                 .attrs = {{"kernel_size", "1"}, {"max_displacement", "1"}, {"pad_size", "1"}},
                 .shapes = {{1, 2, 4, 5}, {1, 2, 4, 5}},
                 .label = "(multiply)"});
MX_OP_TEST_CASE({.op = "Correlation",
                 .attrs = {{"kernel_size", "3"},
                           {"max_displacement", "2"},
                           {"stride1", "2"},
                           {"stride2", "2"},
                           {"pad_size", "2"},
                           {"is_multiply", "False"}},
                 .shapes = {{2, 2, 5, 5}, {2, 2, 5, 5}},
                 .label = "(absolute difference, strides)"});
MX_OP_TEST_CASE({.op = "_backward_Correlation",
                 .attrs = {{"kernel_size", "1"}, {"max_displacement", "1"}, {"pad_size", "1"}},
                 .shapes = {{1, 9, 4, 5}, {1, 2, 4, 5}, {1, 2, 4, 5}}});

}  // namespace
}  // namespace mxnet::testing
