// Tests of the conv family's spatial-sampling and region ops: conformance with real MXNet 1.9.1
// (testdata/conv/spatial.json from tools/conformance/gen_conv_refs.py: forward and gradients of
// every input, rois' being zeros), hand-computed values, shape inference with unknown dims,
// error messages and the nd:: API.
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/conv/conv_api.h"
#include "ndarray/ops/conv/conv_spatial_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using nlohmann::json;

NDArray Arr(std::vector<double> v, Shape s, DType dt = DType::kFloat64) {
  return NDArray::FromVector(v, s, cpu(), dt);
}

// ---- MXNet conformance. ----

TEST(ConvSpatialMxnet, ForwardAndGradientsMatch) {
  const json doc = LoadRefJson("ndarray/ops/testdata/conv/spatial.json");
  ASSERT_GE(doc["cases"].size(), 20u);
  for (const json& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const Op& op = OpRegistry::Get(c["op"].get<std::string>());
    const OpAttrs a = OpAttrs::Parse(op, RefAttrs(c));
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      SCOPED_TRACE(DTypeName(dt));
      std::vector<NDArray> in;
      for (const json& t : c["inputs"]) in.push_back(RefArray(t, dt));
      NDArrayVec out = Invoke(op, a, in);
      EXPECT_TRUE(AllClose(out[0].astype(DType::kFloat64), RefArray(c["output"], DType::kFloat64),
                           1e-4, 1e-5))
          << "output";
      std::vector<NDArray> outs(out.begin(), out.end());
      std::vector<NDArray> grads =
          EagerGradBuilder::Run(op, a, in, outs, std::vector<NDArray>{RefArray(c["ograd"], dt)});
      ASSERT_EQ(grads.size(), c["grads"].size());
      for (size_t i = 0; i < grads.size(); ++i) {
        ASSERT_FALSE(grads[i].is_none()) << "no gradient for input " << i;
        EXPECT_TRUE(AllClose(grads[i].astype(DType::kFloat64),
                             RefArray(c["grads"][i], DType::kFloat64), 1e-4, 1e-5))
            << "gradient of input " << i;
      }
    }
  }
}

// ---- Hand-computed values. ----

TEST(ConvSpatialValues, GridGeneratorAndSampler) {
  // Identity affine: the target grid itself, x = -1 + w * 2/(W-1), y = -1 + h * 2/(H-1).
  NDArray theta = Arr({1, 0, 0, 0, 1, 0}, {1, 6});
  NDArray grid = nd::GridGenerator(theta, {.transform_type = "affine", .target_shape = {3, 5}});
  ASSERT_EQ(grid.shape(), (Shape{1, 2, 3, 5}));
  std::vector<double> g = grid.ToVector<double>();
  for (int h = 0; h < 3; ++h)
    for (int w = 0; w < 5; ++w) {
      EXPECT_DOUBLE_EQ(g[h * 5 + w], -1 + w * 0.5);
      EXPECT_DOUBLE_EQ(g[15 + h * 5 + w], -1 + h * 1.0);
    }
  // Sampling the identity grid reproduces the image.
  NDArray x = RandomArray({1, 2, 3, 5}, -1, 1, 5);
  EXPECT_TRUE(AllClose(nd::BilinearSampler(x, grid), x, 1e-12, 1e-12));
  // Warp with zero flow is the identity grid too.
  NDArray warp = nd::GridGenerator(NDArray::Full({1, 2, 3, 5}, 0.0, cpu(), DType::kFloat64),
                                   {.transform_type = "warp"});
  EXPECT_TRUE(AllClose(warp, grid, 1e-12, 1e-12));
  // Half a pixel to the right: the mean of neighbours; past the last column the missing
  // neighbour reads 0. data [2, 4] (H = 1), x_src = 0.5 and 1.5.
  NDArray y = nd::BilinearSampler(Arr({2, 4}, {1, 1, 1, 2}), Arr({0, 2, 0, 0}, {1, 2, 1, 2}));
  EXPECT_EQ(y.ToVector<double>(), (std::vector<double>{3, 2}));
  // SpatialTransformer = BilinearSampler(data, GridGenerator(loc)).
  NDArray data = RandomArray({2, 3, 6, 7}, -1, 1, 6);
  NDArray loc = Arr({0.9, 0.1, 0.05, -0.1, 0.8, 0.02, 0.7, -0.2, 0.1, 0.15, 0.9, -0.1}, {2, 6});
  NDArray st = nd::SpatialTransformer(data, loc, {.target_shape = {4, 5}});
  NDArray composed = nd::BilinearSampler(
      data, nd::GridGenerator(loc, {.transform_type = "affine", .target_shape = {4, 5}}));
  EXPECT_TRUE(AllClose(st, composed, 1e-12, 1e-12));
}

TEST(ConvSpatialValues, RoiPoolingAndAlign) {
  std::vector<double> v(16);
  for (int i = 0; i < 16; ++i) v[i] = i;
  NDArray x = Arr(v, {1, 1, 4, 4});
  // The whole 4x4 image in 2x2 bins; a batch index outside [0, N) gives zeros.
  NDArray rois = Arr({0, 0, 0, 3, 3, 3, 0, 0, 3, 3}, {2, 5});
  NDArray y = nd::ROIPooling(x, rois, {.pooled_size = {2, 2}, .spatial_scale = 1.0f});
  EXPECT_EQ(y.ToVector<double>(), (std::vector<double>{5, 7, 13, 15, 0, 0, 0, 0}));
  // Its gradient routes each ograd to the bin's maximum; rois get zeros.
  std::vector<NDArray> g = EagerGradBuilder::Run(
      OpRegistry::Get("ROIPooling"),
      OpAttrs::Parse(OpRegistry::Get("ROIPooling"),
                     {{"pooled_size", "(2, 2)"}, {"spatial_scale", "1.0"}}),
      std::vector<NDArray>{x, rois}, std::vector<NDArray>{y},
      std::vector<NDArray>{NDArray::Full({2, 1, 2, 2}, 1.0, cpu(), DType::kFloat64)});
  std::vector<double> dx(16, 0.0);
  dx[5] = dx[7] = dx[13] = dx[15] = 1;
  EXPECT_EQ(g[0].ToVector<double>(), dx);
  EXPECT_EQ(g[1].ToVector<double>(), std::vector<double>(10, 0.0));
  // ROIAlign: one sample at the center of the unit roi [0, 0, 1, 1] -> mean of the 4 pixels.
  NDArray x2 = Arr({0, 1, 2, 3}, {1, 1, 2, 2});
  NDArray r2 = Arr({0, 0, 0, 1, 1, -1, 0, 0, 1, 1}, {2, 5});
  NDArray a = nd::contrib::ROIAlign(
      x2, r2, {.pooled_size = {1, 1}, .spatial_scale = 1.0f, .sample_ratio = 1});
  // A negative batch index gives 0 for the whole row (MXNet 1.9.1 writes only its first value
  // and leaves the rest uninitialized).
  EXPECT_EQ(a.ToVector<double>(), (std::vector<double>{1.5, 0}));
  // aligned=True shifts the roi by half a pixel: its one sample lands on pixel (0, 0).
  NDArray b = nd::contrib::ROIAlign(
      x2, Arr({0, 0, 0, 1, 1}, {1, 5}),
      {.pooled_size = {1, 1}, .spatial_scale = 1.0f, .sample_ratio = 1, .aligned = true});
  EXPECT_EQ(b.ToVector<double>(), (std::vector<double>{0}));
}

TEST(ConvSpatialValues, CropResizePoolingBlocks) {
  std::vector<double> v(2 * 4 * 5);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  NDArray x = Arr(v, {1, 2, 4, 5});
  NDArray c = nd::Crop(x, {.offset = {1, 2}, .h_w = {2, 2}});
  EXPECT_EQ(c.ToVector<double>(), (std::vector<double>{7, 8, 12, 13, 27, 28, 32, 33}));
  // center_crop: offset ((4-2)/2, (5-3)/2) = (1, 1).
  NDArray cc =
      nd::Crop(x, NDArray::Full({3, 7, 2, 3}, 0.0, cpu(), DType::kFloat64), {.center_crop = true});
  EXPECT_EQ(cc.shape(), (Shape{1, 2, 2, 3}));
  EXPECT_EQ(cc.ToVector<double>()[0], 6);
  // Resizing to the same size is the identity (both corner conventions).
  for (bool ac : {true, false})
    EXPECT_TRUE(
        AllClose(nd::contrib::BilinearResize2D(x, {.height = 4, .width = 5, .align_corners = ac}),
                 x, 1e-12, 1e-12));
  // align_corners: a 2-pixel row [0, 1] stretched to 3 is [0, 0.5, 1]; like-mode reads like's
  // dims 2 and 3.
  NDArray r = nd::contrib::BilinearResize2D(
      Arr({0, 1}, {1, 1, 1, 2}), NDArray::Full({1, 1, 1, 3}, 0.0, cpu(), DType::kFloat64), {});
  EXPECT_EQ(r.ToVector<double>(), (std::vector<double>{0, 0.5, 1}));
  // Adaptive pooling with divisible sizes is average pooling.
  NDArray p = RandomArray({2, 3, 6, 8}, -1, 1, 9);
  EXPECT_TRUE(AllClose(nd::contrib::AdaptiveAvgPooling2D(p, {.output_size = {3, 4}}),
                       nd::Pooling(p, {.kernel = {2, 2}, .pool_type = "avg", .stride = {2, 2}}),
                       1e-12, 1e-12));
  EXPECT_EQ(nd::contrib::AdaptiveAvgPooling2D(p).shape(), (Shape{2, 3, 1, 1}));
  // im2col and col2im are adjoint: <im2col(x), y> = <x, col2im(y)>.
  NDArray img = RandomArray({2, 3, 5, 6}, -1, 1, 10);
  nd::Im2colOptions io{.kernel = {3, 2}, .stride = {2, 1}, .dilate = {1, 2}, .pad = {1, 0}};
  NDArray cols = nd::im2col(img, io);
  ASSERT_EQ(cols.shape(), (Shape{2, 18, 3 * 4}));
  NDArray yc = RandomArray(cols.shape(), -1, 1, 11);
  NDArray back = nd::col2im(
      yc,
      {.output_size = {5, 6}, .kernel = {3, 2}, .stride = {2, 1}, .dilate = {1, 2}, .pad = {1, 0}});
  auto dot = [](const NDArray& a, const NDArray& b) {
    double s = 0;
    std::vector<double> x = a.ToVector<double>(), y = b.ToVector<double>();
    for (size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
    return s;
  };
  EXPECT_NEAR(dot(cols, yc), dot(img, back), 1e-10);
  // 1x1 blocks are a reshape.
  EXPECT_EQ(nd::im2col(img, {.kernel = {1, 1}}).ToVector<double>(), img.ToVector<double>());
}

TEST(ConvSpatialValues, Correlation) {
  // No displacement, 1x1 patches: the channel mean of data1 * data2 per pixel.
  NDArray a = RandomArray({2, 3, 4, 5}, -1, 1, 12), b = RandomArray({2, 3, 4, 5}, -1, 1, 13);
  NDArray y = nd::Correlation(a, b, {.kernel_size = 1, .max_displacement = 0});
  ASSERT_EQ(y.shape(), (Shape{2, 1, 4, 5}));
  std::vector<double> va = a.ToVector<double>(), vb = b.ToVector<double>(),
                      vy = y.ToVector<double>();
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 20; ++i) {
      double s = 0;
      for (int c = 0; c < 3; ++c) s += va[(n * 3 + c) * 20 + i] * vb[(n * 3 + c) * 20 + i];
      EXPECT_NEAR(vy[n * 20 + i], s / 3, 1e-12);
    }
  // Displacement 1 with padding 1: 9 channels; channel 4 (no displacement) is the one above.
  NDArray y9 = nd::Correlation(a, b, {.kernel_size = 1, .max_displacement = 1, .pad_size = 1});
  ASSERT_EQ(y9.shape(), (Shape{2, 9, 4, 5}));
  std::vector<double> v9 = y9.ToVector<double>();
  EXPECT_NEAR(v9[4 * 20 + 7], vy[7], 1e-12);
}

// ---- Shape inference. ----

struct Inferred {
  ShapeVec in, out;
};
Inferred Infer(std::string_view name, const AttrDict& attrs, ShapeVec in) {
  const Op& op = OpRegistry::Get(name);
  DTypeVec in_t(in.size(), 0), out_t;
  Inferred r{in, {}};
  InferOutputs(op, OpAttrs::Parse(op, attrs), &r.in, &in_t, &r.out, &out_t);
  return r;
}

TEST(ConvSpatialShape, UnknownDims) {
  auto r = Infer("GridGenerator", {{"transform_type", "affine"}, {"target_shape", "(4, 6)"}},
                 {Shape{-1, 6}});
  EXPECT_EQ(r.out[0], (Shape{-1, 2, 4, 6}));
  r = Infer("BilinearSampler", {}, {Shape{-1, 3, 10, 10}, Shape{2, 2, 5, -1}});
  EXPECT_EQ(r.out[0], (Shape{2, 3, 5, -1}));
  r = Infer(
      "SpatialTransformer",
      {{"target_shape", "(4, 6)"}, {"transform_type", "affine"}, {"sampler_type", "bilinear"}},
      {Shape{3, 2, 8, 8}, Shape::Unknown()});
  EXPECT_EQ(r.in[1], (Shape{3, 6}));
  EXPECT_EQ(r.out[0], (Shape{3, 2, 4, 6}));
  r = Infer("_contrib_ROIAlign",
            {{"pooled_size", "(7, 7)"}, {"spatial_scale", "0.25"}, {"position_sensitive", "True"}},
            {Shape{1, 98, 20, 20}, Shape::Unknown()});
  EXPECT_EQ(r.in[1], (Shape{-1, 5}));
  EXPECT_EQ(r.out[0], (Shape{-1, 2, 7, 7}));
  r = Infer("ROIPooling", {{"pooled_size", "(2, 3)"}, {"spatial_scale", "1.0"}},
            {Shape{1, 4, 9, 9}, Shape{6, 5}});
  EXPECT_EQ(r.out[0], (Shape{6, 4, 2, 3}));
  r = Infer("im2col", {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}}, {Shape{2, 4, 8, -1}});
  EXPECT_EQ(r.out[0], (Shape{2, 36, -1}));
  r = Infer("col2im", {{"output_size", "(4, 4)"}, {"kernel", "(2, 2)"}, {"stride", "(2, 2)"}},
            {Shape::Unknown()});
  EXPECT_EQ(r.in[0], (Shape{-1, -1, 4}));
  EXPECT_EQ(r.out[0], (Shape{-1, -1, 4, 4}));
  r = Infer("Crop", {{"num_args", "2"}}, {Shape{2, 3, 9, 9}, Shape{1, 1, 4, 5}});
  EXPECT_EQ(r.out[0], (Shape{2, 3, 4, 5}));
  r = Infer("_contrib_BilinearResize2D", {{"scale_height", "2.0"}, {"scale_width", "0.5"}},
            {Shape{1, 3, 5, -1}});
  EXPECT_EQ(r.out[0], (Shape{1, 3, 10, -1}));
  r = Infer("_contrib_BilinearResize2D", {{"mode", "to_odd_down"}}, {Shape{1, 3, 6, 7}});
  EXPECT_EQ(r.out[0], (Shape{1, 3, 5, 7}));
  r = Infer("_contrib_AdaptiveAvgPooling2D", {{"output_size", "(5,)"}}, {Shape{2, -1, 9, 9}});
  EXPECT_EQ(r.out[0], (Shape{2, -1, 5, 5}));
}

// ---- Errors name the op, the input or attribute and the shapes. ----

void ExpectError(const std::function<void()>& f, std::vector<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning " << StrJoin(parts, ", ");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument) << e.what();
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

NDArray Ones(Shape s) { return NDArray::Full(s, 1.0, cpu(), DType::kFloat32); }

TEST(ConvSpatialErrors, MessagesNameOpAndShapes) {
  ExpectError(
      [] {
        nd::GridGenerator(Ones({2, 6}), {.transform_type = "affine"});
      },
      {"GridGenerator", "target_shape=(0, 0)"});
  ExpectError(
      [] {
        nd::GridGenerator(Ones({2, 5}), {.transform_type = "affine", .target_shape = {2, 2}});
      },
      {"GridGenerator", "(N, 6)", "(2, 5)"});
  ExpectError(
      [] {
        nd::GridGenerator(Ones({2, 3, 4, 4}), {.transform_type = "warp"});
      },
      {"GridGenerator", "flow", "(2, 3, 4, 4)"});
  ExpectError(
      [] {
        nd::BilinearSampler(Ones({1, 3, 4, 4}), Ones({1, 3, 2, 2}));
      },
      {"BilinearSampler", "grid", "2 channels", "(1, 3, 2, 2)"});
  ExpectError(
      [] {
        nd::BilinearSampler(Ones({2, 3, 4, 4}), Ones({1, 2, 2, 2}));
      },
      {"BilinearSampler", "(2, 3, 4, 4)", "(1, 2, 2, 2)", "batch"});
  ExpectError(
      [] {
        OpAttrs::Parse(
            OpRegistry::Get("SpatialTransformer"),
            {{"target_shape", "(2, 2)"}, {"transform_type", "warp"}, {"sampler_type", "bilinear"}});
      },
      {"SpatialTransformer", "transform_type", "warp"});
  ExpectError(
      [] {
        nd::SpatialTransformer(Ones({1, 1, 4, 4}), Ones({1, 4}), {.target_shape = {2, 2}});
      },
      {"SpatialTransformer", "loc", "(1, 4)", "(1, 6)"});
  ExpectError(
      [] {
        nd::ROIPooling(Ones({1, 2, 4, 4}), Ones({3, 4}),
                       {.pooled_size = {2, 2}, .spatial_scale = 1});
      },
      {"ROIPooling", "rois", "(3, 4)", "(-1, 5)"});
  ExpectError(
      [] {
        nd::ROIPooling(Ones({1, 2, 4, 4}), Ones({3, 5}), {.pooled_size = {2, 2}});
      },
      {"ROIPooling", "spatial_scale"});
  ExpectError(
      [] {
        nd::contrib::ROIAlign(
            Ones({1, 6, 4, 4}), Ones({1, 5}),
            {.pooled_size = {2, 2}, .spatial_scale = 1, .position_sensitive = true});
      },
      {"_contrib_ROIAlign", "channels 6", "pooled_size=(2, 2)"});
  ExpectError(
      [] {
        nd::contrib::ROIAlign(Ones({1, 2, 4, 4}), Arr({3, 0, 0, 2, 2}, {1, 5}, DType::kFloat32),
                              {.pooled_size = {2, 2}, .spatial_scale = 1});
      },
      {"_contrib_ROIAlign", "batch index 3", "(1, 2, 4, 4)"});
  ExpectError(
      [] {
        nd::Crop(Ones({1, 1, 4, 4}), {.h_w = {5, 2}});
      },
      {"Crop", "(5, 2)", "exceeds", "(1, 1, 4, 4)"});
  ExpectError(
      [] {
        nd::Crop(Ones({1, 1, 4, 4}), {.offset = {2, 0}, .h_w = {3, 3}});
      },
      {"Crop", "offset=(2, 0)", "(1, 1, 4, 4)"});
  ExpectError([] { nd::Crop(Ones({1, 1, 4, 4}), nd::CropOptions{}); }, {"Crop", "h_w"});
  ExpectError([] { nd::Crop(Ones({1, 4, 4}), {.h_w = {2, 2}}); }, {"Crop", "4-D", "(1, 4, 4)"});
  ExpectError(
      [] {
        nd::contrib::BilinearResize2D(Ones({1, 1, 4, 4}), {.scale_height = 2.0f});
      },
      {"_contrib_BilinearResize2D", "scale_width"});
  ExpectError(
      [] {
        nd::contrib::AdaptiveAvgPooling2D(Ones({1, 1, 4, 4}), {.output_size = {1, 2, 3}});
      },
      {"_contrib_AdaptiveAvgPooling2D", "output_size=(1, 2, 3)"});
  ExpectError(
      [] {
        nd::contrib::AdaptiveAvgPooling2D(Ones({1, 4, 4}));
      },
      {"_contrib_AdaptiveAvgPooling2D", "4-D", "(1, 4, 4)"});
  ExpectError(
      [] {
        nd::im2col(Ones({1, 1, 3, 3}), {.kernel = {5, 5}});
      },
      {"im2col", "kernel=(5, 5)", "exceeds", "(1, 1, 3, 3)"});
  ExpectError(
      [] {
        nd::im2col(Ones({1, 1, 3, 3}), {.kernel = {2, 2}, .stride = {1}});
      },
      {"im2col", "stride=(1,)", "2 entries"});
  ExpectError(
      [] {
        nd::col2im(Ones({1, 8, 5}), {.output_size = {4, 4}, .kernel = {2, 2}, .stride = {2, 2}});
      },
      {"col2im", "(1, 8, 5)", "(-1, -1, 4)"});
  ExpectError(
      [] {
        nd::col2im(Ones({1, 6, 4}), {.output_size = {4, 4}, .kernel = {2, 2}, .stride = {2, 2}});
      },
      {"col2im", "multiple of 4"});
  ExpectError(
      [] {
        nd::Correlation(Ones({1, 1, 4, 4}), Ones({1, 1, 4, 4}),
                        {.kernel_size = 3, .max_displacement = 2});
      },
      {"Correlation", "do not fit", "(1, 1, 4, 4)"});
  ExpectError(
      [] {
        nd::Correlation(Ones({1, 1, 4, 4}), Ones({1, 2, 4, 4}));
      },
      {"Correlation", "same shape"});
  ExpectError(
      [] {
        nd::Correlation(Ones({1, 1, 4, 4}), Ones({1, 1, 4, 4}), {.kernel_size = 2});
      },
      {"Correlation", "kernel_size=2", "odd"});
}

// ---- The nd:: API. ----

TEST(ConvSpatialApi, MatchesByNameInvocation) {
  NDArray x = RandomArray({2, 4, 6, 6}, -1, 1, 1, DType::kFloat32);
  NDArray rois = Arr({0, 1, 1, 9, 9, 1, 0, 2, 7, 11}, {2, 5}, DType::kFloat32);
  auto by_name = [](std::string_view op, std::vector<NDArray> in, AttrDict attrs) {
    return Invoke(op, in, attrs)[0];
  };
  EXPECT_TRUE(AllClose(
      nd::contrib::ROIAlign(x, rois,
                            {.pooled_size = {2, 2}, .spatial_scale = 0.5f, .sample_ratio = 2}),
      by_name("_contrib_ROIAlign", {x, rois},
              {{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.5"}, {"sample_ratio", "2"}}),
      0, 0));
  EXPECT_TRUE(AllClose(
      nd::ROIPooling(x, rois, {.pooled_size = {3, 2}, .spatial_scale = 0.5f}),
      by_name("ROIPooling", {x, rois}, {{"pooled_size", "(3, 2)"}, {"spatial_scale", "0.5"}}), 0,
      0));
  NDArray like = Ones({1, 1, 3, 9});
  EXPECT_TRUE(AllClose(nd::contrib::BilinearResize2D(x, like, {.align_corners = false}),
                       by_name("_contrib_BilinearResize2D", {x, like},
                               {{"mode", "like"}, {"align_corners", "False"}}),
                       0, 0));
  NDArray small = Ones({1, 1, 3, 4});
  EXPECT_TRUE(AllClose(nd::Crop(x, small, {.center_crop = true}),
                       by_name("Crop", {x, small}, {{"num_args", "2"}, {"center_crop", "True"}}), 0,
                       0));
  // Attributes print like MXNet (required fields and non-defaults).
  const Op& ra = OpRegistry::Get("_contrib_ROIAlign");
  AttrDict d =
      OpAttrs::From(
          ra, ops::ROIAlignParam{.pooled_size = {7, 7}, .spatial_scale = 0.0625f, .aligned = true})
          .ToDict();
  EXPECT_EQ(
      d, (AttrDict{{"aligned", "True"}, {"pooled_size", "(7, 7)"}, {"spatial_scale", "0.0625"}}));
}

}  // namespace
}  // namespace mxnet::testing
