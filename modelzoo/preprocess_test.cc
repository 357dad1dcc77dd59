// normalize_image vs MXNet 1.9.1's to_tensor + normalize (testdata/preprocess.json), and
// preprocess_image's sizes.
#include "modelzoo/preprocess.h"

#include <cmath>
#include <fstream>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gluon/data/vision/transforms.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

NDArray Image(const nlohmann::json& c) {
  std::vector<uint8_t> v;
  for (int x : c["image"].get<std::vector<int>>()) v.push_back(static_cast<uint8_t>(x));
  return NDArray::FromVector(v, Shape(c["shape"].get<std::vector<int64_t>>()), cpu(),
                             DType::kUint8);
}

TEST(Normalize, MatchesMxnet) {
  std::ifstream f("modelzoo/testdata/preprocess.json");
  ASSERT_TRUE(f.good());
  nlohmann::json ref = nlohmann::json::parse(f);
  for (const auto& c : ref["cases"]) {
    NDArray y = normalize_image(Image(c));
    EXPECT_EQ(y.dtype(), DType::kFloat32);
    NDArray expected = NDArray::FromVector(c["output"].get<std::vector<float>>(),
                                           Shape(c["output_shape"].get<std::vector<int64_t>>()));
    EXPECT_TRUE(mxnet::testing::AllClose(y, expected, 1e-6, 1e-6));
  }
}

TEST(Normalize, BadShapes) {
  EXPECT_THROW(normalize_image(NDArray::Full(Shape{4, 4}, 1, cpu(), DType::kUint8)), Error);
  EXPECT_THROW(normalize_image(NDArray::Full(Shape{4, 4, 4}, 1, cpu(), DType::kUint8)), Error);
}

TEST(Preprocess, ResizeCropNormalize) {
  // A constant image stays constant through resize and crop.
  NDArray img = NDArray::Full(Shape{300, 400, 3}, 128, cpu(), DType::kUint8);
  NDArray x = preprocess_image(img);
  ASSERT_EQ(x.shape(), Shape({1, 3, 224, 224}));
  std::vector<float> v = x.ToVector<float>();
  for (int c = 0; c < 3; ++c) {
    float expected = (128.f / 255.f - kImageNetMean[c]) / kImageNetStd[c];
    EXPECT_NEAR(v[c * 224 * 224], expected, 1e-5);
    EXPECT_NEAR(v[c * 224 * 224 + 224 * 224 - 1], expected, 1e-5);
  }
  EXPECT_EQ(
      preprocess_image(NDArray::Full(Shape{100, 80, 3}, 0, cpu(), DType::kUint8), 299).shape(),
      Shape({1, 3, 299, 299}));
  EXPECT_THROW(preprocess_image(NDArray::Full(Shape{2, 10, 10, 3}, 0, cpu(), DType::kUint8)),
               Error);
}

// preprocess_image resizes only the center crop (resize_window): the same floats as the full
// Resize + CenterCrop of gluon's transforms, also for extreme aspect ratios, where the full
// resize was the cost (a 1 x 60000 PNG of 88 bytes took 12 s and 300 MB: found by
// //tools/fuzz:image_fuzzer, reproducer gluon/data/vision/testdata/fuzz/png_1x60000_88_bytes.png).
TEST(Preprocess, EqualsFullResizeThenCropForAnyAspectRatio) {
  std::mt19937 rng(3);
  for (Shape s : {Shape{3, 2000, 3}, Shape{1500, 2, 3}, Shape{37, 41, 3}, Shape{500, 333, 3}}) {
    NDArray img(s, cpu(), DType::kUint8);
    auto* p = img.data<uint8_t>();
    for (int64_t i = 0; i < img.size(); ++i) p[i] = static_cast<uint8_t>(rng());
    for (int64_t size : {32, 224}) {
      const auto resize = static_cast<int64_t>(std::ceil(size / 0.875));
      NDArray full = data::vision::transforms::CenterCrop(size)(
          data::vision::transforms::Resize(resize, true)(img));
      EXPECT_EQ(preprocess_image(img, size).ToVector<float>(),
                normalize_image(full).ToVector<float>())
          << s.ToString() << " size " << size;
    }
  }
  NDArray thin(Shape{1, 60000, 3}, cpu(), DType::kUint8);
  thin.Fill(7);
  EXPECT_EQ(preprocess_image(thin, 32).shape(), Shape({1, 3, 32, 32}));
}

}  // namespace
}  // namespace mxnet::gluon::model_zoo::vision
