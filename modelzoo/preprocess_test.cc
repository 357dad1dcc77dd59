// normalize_image vs MXNet 1.9.1's to_tensor + normalize (testdata/preprocess.json), and
// preprocess_image's sizes.
#include "modelzoo/preprocess.h"

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

}  // namespace
}  // namespace mxnet::gluon::model_zoo::vision
