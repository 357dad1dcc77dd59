// Tests of the image ops (shape_image.cc): values, gradients and errors of the deterministic ops
// against real MXNet 1.9.1 (the _image_* cases of testdata/shape/refs.json, from
// tools/conformance/gen_shape_refs.py), hand-computed values, gradients (adjoints, MXNet's
// pass-through for the random ops), statistical checks of the random ops (factor ranges, flip
// probability, seed repeatability) and error messages.
#include <cmath>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/image/image_api.h"
#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/random.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet {
namespace {

using json = nlohmann::json;
using testing::AllClose;
using testing::ErrorOf;
using testing::LoadRefJson;
using testing::RefArray;
using testing::RefAttrs;
using testing::RefInputs;
using testing::SameDTypeAllClose;

NDArray Arr(std::vector<double> v, const Shape& s, DType t = DType::kFloat32) {
  return NDArray::FromVector(v, s, cpu(), t);
}

// An (h, w, c) image with values (i * 37 + 11) % 256.
NDArray Pattern(const Shape& s, DType t = DType::kUint8) {
  std::vector<double> v(s.Size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 37 + 11) % 256);
  return Arr(v, s, t);
}

// ---------------------------------------------------------------------------------------------
// Real MXNet 1.9.1.

TEST(ImageMXNetReference, ValuesGradientsAndErrorsMatch) {
  const json refs = LoadRefJson("ndarray/ops/testdata/shape/refs.json");
  std::set<std::string> ops;
  int checked = 0, errors = 0, grads = 0;
  for (const auto& c : refs["cases"]) {
    const std::string op_name = c["op"].get<std::string>();
    if (op_name.rfind("_image_", 0) != 0) continue;
    SCOPED_TRACE(op_name + " " + c["attrs"].dump());
    ops.insert(op_name);
    AttrDict attrs = RefAttrs(c);
    std::vector<NDArray> in = RefInputs(c);
    if (c.value("error", false) || c.value("ours_error", false)) {
      EXPECT_NE(ErrorOf([&] { Invoke(op_name, in, attrs); }), "");
      ++errors;
      continue;
    }
    NDArrayVec out = Invoke(op_name, in, attrs);
    EXPECT_TRUE(SameDTypeAllClose(out[0], RefArray(c["outputs"][0]), 1e-6, 1e-7));
    ++checked;
    if (!c.contains("grads")) continue;
    const Op& op = OpRegistry::Get(op_name);
    std::vector<NDArray> outs(out.begin(), out.end()), heads = {RefArray(c["head_grads"][0])};
    auto g = EagerGradBuilder::Run(op, OpAttrs::Parse(op, attrs), in, outs, heads);
    EXPECT_TRUE(AllClose(g[0], RefArray(c["grads"][0]), 1e-5, 1e-6));
    ++grads;
  }
  for (const char* op :
       {"_image_to_tensor", "_image_normalize", "_image_flip_left_right", "_image_flip_top_bottom",
        "_image_crop", "_image_resize", "_image_adjust_lighting"})
    EXPECT_TRUE(ops.count(op)) << op;
  EXPECT_GE(checked, 80);
  EXPECT_GE(errors, 10);
  EXPECT_GE(grads, 5);
}

TEST(ImageMXNetReference, AliasesNameTheSameOps) {
  for (const char* n :
       {"to_tensor", "normalize", "flip_left_right", "flip_top_bottom", "crop", "resize",
        "adjust_lighting", "random_flip_left_right", "random_flip_top_bottom", "random_brightness",
        "random_contrast", "random_saturation", "random_hue", "random_color_jitter",
        "random_lighting"}) {
    const std::string name = StrCat("_image_", n);
    EXPECT_EQ(&OpRegistry::Get(name), &OpRegistry::Get(StrCat("_npx_", name))) << n;
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-computed values.

TEST(Image, ToTensorTransposesAndScales) {
  NDArray x = Pattern({2, 3, 2});
  NDArray y = nd::image::to_tensor(x);
  EXPECT_EQ(y.dtype(), DType::kFloat32);
  EXPECT_EQ(y.shape(), Shape({2, 2, 3}));
  std::vector<float> xv = x.ToVector<float>(), yv = y.ToVector<float>();
  for (int h = 0; h < 2; ++h)
    for (int w = 0; w < 3; ++w)
      for (int c = 0; c < 2; ++c)
        EXPECT_EQ(yv[(c * 2 + h) * 3 + w], xv[(h * 3 + w) * 2 + c] / 255.0f);
  // Batches, other dtypes.
  NDArray b = nd::image::to_tensor(Pattern({4, 2, 3, 3}, DType::kInt32));
  EXPECT_EQ(b.shape(), Shape({4, 3, 2, 3}));
  EXPECT_FLOAT_EQ(b.ToVector<float>()[0], 11.f / 255.f);
}

TEST(Image, NormalizePerChannel) {
  NDArray x = Arr({1, 2, 3, 4, 5, 6}, {3, 1, 2});
  NDArray y = nd::image::normalize(x, {1, 2, 3}, {1, 2, 4});
  EXPECT_EQ(y.ToVector<float>(), (std::vector<float>{0, 1, 0.5, 1, 0.5, 0.75}));
  NDArray z = nd::image::normalize(Arr({2, 4}, {1, 1, 1, 2}, DType::kFloat64), {1}, {2});
  EXPECT_EQ(z.ToVector<double>(), (std::vector<double>{0.5, 1.5}));
}

TEST(Image, FlipsKeepTheMiddleAndTakeBatches) {
  NDArray x = Arr({1, 2, 3, 4, 5, 6}, {2, 3, 1});
  EXPECT_EQ(nd::image::flip_left_right(x).ToVector<float>(),
            (std::vector<float>{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(nd::image::flip_top_bottom(x).ToVector<float>(),
            (std::vector<float>{4, 5, 6, 1, 2, 3}));
  NDArray b = Arr({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2, 1}, DType::kUint8);
  EXPECT_EQ(nd::image::flip_left_right(b).ToVector<int>(),
            (std::vector<int>{2, 1, 4, 3, 6, 5, 8, 7}));
  EXPECT_EQ(nd::image::flip_top_bottom(b).ToVector<int>(),
            (std::vector<int>{3, 4, 1, 2, 7, 8, 5, 6}));
}

TEST(Image, CropBox) {
  NDArray x = Pattern({4, 5, 1});
  NDArray y = nd::image::crop(x, 1, 2, 3, 2);
  EXPECT_EQ(y.shape(), Shape({2, 3, 1}));
  std::vector<int> xv = x.ToVector<int>(), yv = y.ToVector<int>();
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(yv[r * 3 + c], xv[(r + 2) * 5 + c + 1]);
  EXPECT_EQ(nd::image::crop(Pattern({2, 4, 5, 3}), 0, 0, 5, 4).shape(), Shape({2, 4, 5, 3}));
}

TEST(Image, ResizeSizesAndSimpleValues) {
  // keep_ratio: the short side becomes size, the long side long * size / short (truncated).
  EXPECT_EQ(nd::image::resize(Pattern({4, 7, 3}), {3}, true).shape(), Shape({3, 5, 3}));
  EXPECT_EQ(nd::image::resize(Pattern({7, 4, 3}), {3}, true).shape(), Shape({5, 3, 3}));
  EXPECT_EQ(nd::image::resize(Pattern({7, 4, 3}), {3}).shape(), Shape({3, 3, 3}));
  EXPECT_EQ(nd::image::resize(Pattern({2, 7, 4, 1}), {5, 2}).shape(), Shape({2, 2, 5, 1}));
  // A constant image stays constant in every mode; the same size is a copy.
  for (int interp = 0; interp <= 4; ++interp) {
    NDArray c = NDArray::Full({5, 6, 3}, 77, cpu(), DType::kUint8);
    EXPECT_EQ(nd::image::resize(c, {9, 4}, false, interp).ToVector<int>(),
              std::vector<int>(4 * 9 * 3, 77))
        << interp;
    NDArray p = Pattern({5, 6, 3});
    EXPECT_EQ(nd::image::resize(p, {6, 5}, false, interp).ToVector<int>(), p.ToVector<int>());
  }
  // Exact 2x shrink: bilinear becomes area (2x2 block means, rounded half up).
  NDArray x = Arr({0, 1, 10, 20, 3, 4, 30, 41}, {2, 4, 1}, DType::kUint8);
  EXPECT_EQ(nd::image::resize(x, {2, 1}).ToVector<int>(), (std::vector<int>{2, 25}));
  // Nearest picks floor(x * scale).
  NDArray n = Arr({0, 1, 2, 3}, {1, 4, 1});
  EXPECT_EQ(nd::image::resize(n, {2, 1}, false, 0).ToVector<float>(), (std::vector<float>{0, 2}));
  // Bilinear upscaling with half-pixel centers: (1, 4) -> (1, 8).
  NDArray u = nd::image::resize(Arr({0, 8}, {1, 2, 1}), {4, 1});
  EXPECT_EQ(u.ToVector<float>(), (std::vector<float>{0, 2, 6, 8}));
}

TEST(Image, AdjustLightingAddsThePcaOffset) {
  const double a0 = 0.1, a1 = -0.2, a2 = 0.3;
  const double r = 55.46 * -0.5675 * a0 + 4.794 * 0.7192 * a1 + 1.148 * 0.4009 * a2;
  const double g = 55.46 * -0.5808 * a0 + 4.794 * -0.0045 * a1 + 1.148 * -0.8140 * a2;
  const double b = 55.46 * -0.5836 * a0 + 4.794 * -0.6948 * a1 + 1.148 * 0.4203 * a2;
  NDArray y = nd::image::adjust_lighting(Arr({100, 100, 100}, {1, 1, 3}), {a0, a1, a2});
  EXPECT_TRUE(AllClose(y, Arr({100 + r, 100 + g, 100 + b}, {1, 1, 3}), 1e-6, 1e-4));
  // uint8 saturates and truncates; 1-channel images are unchanged.
  NDArray u = nd::image::adjust_lighting(Arr({0, 128, 255}, {1, 1, 3}, DType::kUint8), {1, 2, -3});
  const double ur = 55.46 * -0.5675 + 4.794 * 0.7192 * 2 + 1.148 * 0.4009 * -3;
  EXPECT_EQ(u.ToVector<int>()[0], 0);
  EXPECT_LT(ur, 0);
  NDArray gray = Pattern({2, 2, 1});
  EXPECT_EQ(nd::image::adjust_lighting(gray, {1, 2, 3}).ToVector<int>(), gray.ToVector<int>());
}

// ---------------------------------------------------------------------------------------------
// Gradients.

std::vector<NDArray> GradOf(const std::string& name, const AttrDict& attrs, const NDArray& x,
                            const NDArray& head) {
  const Op& op = OpRegistry::Get(name);
  OpAttrs a = OpAttrs::Parse(op, attrs);
  std::vector<NDArray> in = {x};
  NDArrayVec out = Invoke(op, a, in);
  std::vector<NDArray> outs(out.begin(), out.end()), heads = {head};
  return EagerGradBuilder::Run(op, a, in, outs, heads);
}

TEST(ImageGrad, ToTensorIsTheAdjoint) {
  NDArray x = Pattern({2, 3, 2}, DType::kFloat64);
  NDArray h = testing::RandomArray({2, 2, 3}, -1, 1, 3, DType::kFloat32);
  NDArray g = GradOf("_image_to_tensor", {}, x, h)[0];
  EXPECT_EQ(g.shape(), x.shape());
  EXPECT_EQ(g.dtype(), DType::kFloat64);
  // <to_tensor(x), h> == <x, g> for every x: compare on the basis images.
  std::vector<float> hv = h.ToVector<float>();
  std::vector<double> gv = g.ToVector<double>();
  for (int hh = 0; hh < 2; ++hh)
    for (int w = 0; w < 3; ++w)
      for (int c = 0; c < 2; ++c)
        EXPECT_NEAR(gv[(hh * 3 + w) * 2 + c], hv[(c * 2 + hh) * 3 + w] / 255.0, 1e-9);
}

TEST(ImageGrad, FlipsFlipTheGradientAndRandomOpsPassItThrough) {
  NDArray x = Arr({1, 2, 3, 4, 5, 6}, {2, 3, 1});
  NDArray h = Arr({10, 20, 30, 40, 50, 60}, {2, 3, 1});
  EXPECT_EQ(GradOf("_image_flip_left_right", {}, x, h)[0].ToVector<float>(),
            (std::vector<float>{30, 20, 10, 60, 50, 40}));
  EXPECT_EQ(GradOf("_image_flip_top_bottom", {}, x, h)[0].ToVector<float>(),
            (std::vector<float>{40, 50, 60, 10, 20, 30}));
  NDArray rgb = Pattern({2, 2, 3}, DType::kFloat32);
  NDArray hr = testing::RandomArray({2, 2, 3}, -1, 1, 5, DType::kFloat32);
  for (const auto& [name, attrs] : std::vector<std::pair<std::string, AttrDict>>{
           {"_image_random_flip_left_right", {}},
           {"_image_random_flip_top_bottom", {}},
           {"_image_random_brightness", {{"min_factor", "0.5"}, {"max_factor", "1.5"}}},
           {"_image_random_contrast", {{"min_factor", "0.5"}, {"max_factor", "1.5"}}},
           {"_image_random_saturation", {{"min_factor", "0.5"}, {"max_factor", "1.5"}}},
           {"_image_random_hue", {{"min_factor", "0.0"}, {"max_factor", "0.5"}}},
           {"_image_random_color_jitter",
            {{"brightness", "0.1"}, {"contrast", "0.1"}, {"saturation", "0.1"}, {"hue", "0.1"}}},
           {"_image_random_lighting", {}},
           {"_image_adjust_lighting", {{"alpha", "(0.1, 0.2, 0.3)"}}}})
    EXPECT_EQ(GradOf(name, attrs, rgb, hr)[0].ToVector<float>(), hr.ToVector<float>()) << name;
  EXPECT_FALSE(OpRegistry::Get("_image_resize").differentiable());
}

// ---------------------------------------------------------------------------------------------
// Random ops.

TEST(ImageRandom, FlipProbabilityIsOneHalf) {
  ::mxnet::random::seed(11);
  NDArray x = Arr({1, 2}, {1, 2, 1});
  int lr = 0, tb = 0;
  const int n = 4000;
  NDArray y = Arr({1, 2}, {2, 1, 1});
  for (int i = 0; i < n; ++i) {
    lr += nd::image::random_flip_left_right(x).ToVector<float>()[0] == 2.f;
    tb += nd::image::random_flip_top_bottom(y).ToVector<float>()[0] == 2.f;
  }
  // 5 standard deviations (sqrt(n) / 2 ~ 32).
  EXPECT_NEAR(lr, n / 2, 160);
  EXPECT_NEAR(tb, n / 2, 160);
}

TEST(ImageRandom, EnhanceFactorsStayInRange) {
  ::mxnet::random::seed(5);
  NDArray x = NDArray::Full({2, 2, 3}, 100, cpu(), DType::kFloat32);
  double lo = 1e9, hi = -1e9, sum = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    std::vector<float> v = nd::image::random_brightness(x, 0.5f, 1.5f).ToVector<float>();
    for (float e : v) EXPECT_EQ(e, v[0]);  // one factor per image
    const double f = v[0] / 100.0;
    lo = std::min(lo, f), hi = std::max(hi, f), sum += f;
  }
  EXPECT_GE(lo, 0.5 - 1e-6);
  EXPECT_LT(hi, 1.5 + 1e-6);
  EXPECT_LT(lo, 0.52);
  EXPECT_GT(hi, 1.48);
  EXPECT_NEAR(sum / n, 1.0, 0.03);
  // Gray images are fixed points of contrast, saturation and hue; uint8 saturates.
  NDArray gray = NDArray::Full({3, 2, 3}, 90, cpu(), DType::kUint8);
  EXPECT_EQ(nd::image::random_contrast(gray, 0.f, 3.f).ToVector<int>(), gray.ToVector<int>());
  EXPECT_EQ(nd::image::random_saturation(gray, 0.f, 3.f).ToVector<int>(), gray.ToVector<int>());
  EXPECT_EQ(nd::image::random_hue(gray, 0.f, 1.f).ToVector<int>(), gray.ToVector<int>());
  std::vector<int> b = nd::image::random_brightness(gray, 3.f, 4.f).ToVector<int>();
  EXPECT_EQ(b, std::vector<int>(b.size(), 255));
  // A fixed factor (min == max) is deterministic: saturation 0 gives the luma.
  NDArray px = Arr({200, 100, 50}, {1, 1, 3});
  const float luma = 0.299f * 200 + 0.587f * 100 + 0.114f * 50;
  EXPECT_TRUE(AllClose(nd::image::random_saturation(px, 0.f, 0.f),
                       Arr({luma, luma, luma}, {1, 1, 3}), 1e-6, 1e-4));
  // A full hue turn is the identity (up to rounding).
  EXPECT_TRUE(AllClose(nd::image::random_hue(px, 1.f, 1.f), px, 1e-4, 1e-3));
}

TEST(ImageRandom, JitterAndLightingKeepShapeDtypeAndRange) {
  ::mxnet::random::seed(3);
  NDArray x = Pattern({5, 4, 3});
  for (int i = 0; i < 50; ++i) {
    NDArray y = nd::image::random_color_jitter(x, 0.4f, 0.4f, 0.4f, 0.1f);
    EXPECT_EQ(y.shape(), x.shape());
    EXPECT_EQ(y.dtype(), DType::kUint8);
    NDArray l = nd::image::random_lighting(x.astype(DType::kFloat32), 0.1f);
    EXPECT_EQ(l.shape(), x.shape());
  }
  // No jitter at all: a copy. alpha_std 0: no lighting change.
  EXPECT_EQ(nd::image::random_color_jitter(x, 0, 0, 0, 0).ToVector<int>(), x.ToVector<int>());
  EXPECT_EQ(nd::image::random_lighting(x, 0).ToVector<int>(), x.ToVector<int>());
  // Lighting noise of a float image is one offset per channel with mean ~0.
  NDArray f = NDArray::Full({1, 1, 3}, 0, cpu(), DType::kFloat32);
  double sum = 0, sq = 0;
  for (int i = 0; i < 2000; ++i) {
    const float r = nd::image::random_lighting(f, 0.1f).ToVector<float>()[0];
    sum += r, sq += r * r;
  }
  EXPECT_NEAR(sum / 2000, 0, 0.3);
  EXPECT_GT(sq / 2000, 1.0);  // sd of the R offset ~ 55.46 * 0.5675 * 0.1 ~ 3.1
}

TEST(ImageRandom, SeedMakesCallsRepeatable) {
  NDArray x = Pattern({4, 4, 3});
  auto run = [&] {
    std::vector<int> v;
    for (int i = 0; i < 5; ++i) {
      for (NDArray y :
           {nd::image::random_flip_left_right(x), nd::image::random_flip_top_bottom(x),
            nd::image::random_brightness(x, 0.2f, 1.8f), nd::image::random_contrast(x, 0.2f, 1.8f),
            nd::image::random_saturation(x, 0.2f, 1.8f), nd::image::random_hue(x, 0.f, 0.5f),
            nd::image::random_color_jitter(x, 0.5f, 0.5f, 0.5f, 0.2f),
            nd::image::random_lighting(x, 0.5f)}) {
        std::vector<int> t = y.ToVector<int>();
        v.insert(v.end(), t.begin(), t.end());
      }
    }
    return v;
  };
  ::mxnet::random::seed(99);
  std::vector<int> a = run();
  ::mxnet::random::seed(99);
  EXPECT_EQ(run(), a);
  EXPECT_NE(run(), a);
}

// ---------------------------------------------------------------------------------------------
// Errors name the op and the problem.

TEST(ImageErrors, ShapesAttributesAndDtypes) {
  auto expect = [](auto f, const std::string& what) {
    std::string msg = ErrorOf(f);
    EXPECT_NE(msg.find(what), std::string::npos) << "got: " << msg;
  };
  NDArray rgb = Pattern({4, 4, 3});
  expect(
      [&] {
        nd::image::to_tensor(Pattern({4, 4}));
      },
      "_image_to_tensor: expected an input of shape");
  expect(
      [&] {
        nd::image::normalize(Pattern({4, 4, 4}, DType::kFloat32), {0}, {1});
      },
      "_image_normalize: the channel dimension");
  expect(
      [&] {
        nd::image::normalize(Pattern({3, 4, 4}, DType::kFloat32), {0, 1}, {1});
      },
      "_image_normalize: invalid mean");
  expect(
      [&] {
        nd::image::normalize(Pattern({3, 4, 4}), {0}, {1});
      },
      "_image_normalize: expected a float32 or float64 tensor");
  expect([&] { nd::image::crop(rgb, 3, 0, 2, 2); }, "_image_crop: x + width = 5 exceeds");
  expect([&] { nd::image::crop(rgb, 0, 3, 2, 2); }, "_image_crop: y + height = 5 exceeds");
  expect([&] { nd::image::crop(rgb, -1, 0, 2, 2); }, "_image_crop: x and y must be >= 0");
  expect([&] { nd::image::crop(rgb, 0, 0, 0, 2); }, "_image_crop: width and height must be > 0");
  expect(
      [&] {
        nd::image::crop(Pattern({4, 4, 2}), 0, 0, 1, 1);
      },
      "_image_crop: the last dimension");
  expect([&] { nd::image::resize(rgb, {1, 2, 3}); }, "_image_resize: size must have 1 or 2");
  expect([&] { nd::image::resize(rgb, {0, 2}); }, "_image_resize: size must be positive");
  expect([&] { nd::image::resize(rgb, {2, 2}, false, 7); }, "_image_resize: interp must be");
  expect(
      [&] {
        nd::image::resize(Pattern({4, 4, 3}, DType::kInt32), {2, 2});
      },
      "_image_resize: expected a uint8, float32 or float64 image");
  expect([&] { nd::image::random_brightness(rgb, 1.5f, 0.5f); },
         "_image_random_brightness: min_factor 1.5 is greater than max_factor 0.5");
  expect([&] { nd::image::random_hue(rgb, -1.f, 0.5f); }, "_image_random_hue: min_factor and");
  expect(
      [&] {
        nd::image::random_contrast(Pattern({2, 4, 4, 3}), 0.f, 1.f);
      },
      "_image_random_contrast: expected an input of shape (H, W, C)");
  expect(
      [&] {
        nd::image::random_saturation(Pattern({4, 4, 4}), 0.f, 1.f);
      },
      "_image_random_saturation: the last dimension must be the channel dimension");
  expect(
      [&] {
        std::vector<NDArray> in = {rgb};
        Invoke("_image_adjust_lighting", in, {{"alpha", "(1.0, 2.0)"}});
      },
      "alpha must have 3 values");
  expect([&] { nd::image::flip_left_right(Pattern({4, 4})); }, "_image_flip_left_right: expected");
}

}  // namespace
}  // namespace mxnet
