// Tests of _cvimresize and _cvcopyMakeBorder (shape_image_cv.cc): every case of
// testdata/shape/image_cv.json (real MXNet 1.9.1 / OpenCV 3.4, tools/conformance/
// refs_image_cv.py), hand-computed borders, the nd:: API and errors.
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/ops/image/image_cv_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet {
namespace {

using json = nlohmann::json;
using testing::ErrorOf;
using testing::LoadRefJson;
using testing::RefArray;
using testing::RefAttrs;
using testing::RefInputs;
using testing::SameDTypeAllClose;

NDArray Arr(std::vector<double> v, const Shape& s, DType t = DType::kFloat32) {
  return NDArray::FromVector(v, s, cpu(), t);
}

TEST(ImageCvMXNetReference, ValuesAndErrorsMatch) {
  const json refs = LoadRefJson("ndarray/ops/testdata/shape/image_cv.json");
  std::set<std::string> ops;
  int checked = 0, errors = 0;
  for (const auto& c : refs["cases"]) {
    const std::string op_name = c["op"].get<std::string>();
    SCOPED_TRACE(op_name + " " + c["attrs"].dump());
    ops.insert(op_name);
    AttrDict attrs = RefAttrs(c);
    std::vector<NDArray> in = RefInputs(c);
    if (c.value("error", false)) {
      EXPECT_NE(ErrorOf([&] { Invoke(op_name, in, attrs); }), "");
      ++errors;
      continue;
    }
    NDArrayVec out = Invoke(op_name, in, attrs);
    // Integer images exactly (OpenCV's fixed point), floating ones to rounding.
    const bool integral = in[0].dtype() == DType::kUint8 || in[0].dtype() == DType::kInt32;
    EXPECT_TRUE(SameDTypeAllClose(out[0], RefArray(c["outputs"][0]), integral ? 0 : 1e-5,
                                  integral ? 0 : 1e-5));
    ++checked;
  }
  EXPECT_TRUE(ops.count("_cvimresize"));
  EXPECT_TRUE(ops.count("_cvcopyMakeBorder"));
  EXPECT_GE(checked, 38);
  EXPECT_GE(errors, 5);
}

TEST(ImageCv, BordersByHand) {
  // One row 0, 1, 2 with 4 columns each side: OpenCV's border rules.
  NDArray x = Arr({0, 1, 2}, Shape{1, 3, 1});
  auto row = [&](int type) {
    ops::MakeBorderParam p;
    p.left = p.right = 4;
    p.type = type;
    p.value = 7;
    return nd::image::cvcopyMakeBorder(x, p).ToVector<double>();
  };
  EXPECT_EQ(row(0), (std::vector<double>{7, 7, 7, 7, 0, 1, 2, 7, 7, 7, 7}));
  EXPECT_EQ(row(1), (std::vector<double>{0, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2}));
  EXPECT_EQ(row(2), (std::vector<double>{2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0}));
  EXPECT_EQ(row(3), (std::vector<double>{2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(row(4), (std::vector<double>{0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2}));
  // uint8 fill: nearest with ties to even, saturated; values replace value, missing ones are 0.
  ops::MakeBorderParam p;
  p.top = 1;
  p.value = 2.5;
  NDArray u = Arr({10, 20, 30}, Shape{1, 1, 3}, DType::kUint8);
  EXPECT_EQ(nd::image::cvcopyMakeBorder(u, p).ToVector<int>(),
            (std::vector<int>{2, 2, 2, 10, 20, 30}));
  p.values = {300, -4};
  EXPECT_EQ(nd::image::cvcopyMakeBorder(u, p).ToVector<int>(),
            (std::vector<int>{255, 0, 0, 10, 20, 30}));
}

TEST(ImageCv, ResizeShapesAndErrors) {
  NDArray x = Arr(std::vector<double>(4 * 6 * 3, 5.0), Shape{4, 6, 3}, DType::kUint8);
  NDArray y = nd::image::cvimresize(x, 3, 5);
  EXPECT_EQ(y.shape(), (Shape{5, 3, 3}));
  EXPECT_EQ(y.dtype(), DType::kUint8);
  EXPECT_EQ(y.ToVector<int>(), std::vector<int>(45, 5));  // a constant image stays constant
  EXPECT_NE(ErrorOf([&] { nd::image::cvimresize(x, 0, 5); }).find("w must be >= 1"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { nd::image::cvimresize(x, 3, 5, 7); }).find("interp"), std::string::npos);
  NDArray batch = Arr(std::vector<double>(2 * 4 * 6 * 3), Shape{2, 4, 6, 3}, DType::kUint8);
  EXPECT_NE(ErrorOf([&] { nd::image::cvimresize(batch, 3, 5); }).find("(H, W, C)"),
            std::string::npos);
  NDArray i8 = Arr({1, 2, 3}, Shape{1, 1, 3}, DType::kInt8);
  EXPECT_NE(ErrorOf([&] { nd::image::cvcopyMakeBorder(i8, {.top = 1}); }).find("got int8"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { nd::image::cvcopyMakeBorder(x, {.top = 1, .type = 5}); }).find("type"),
            std::string::npos);
  NDArray c5 = Arr(std::vector<double>(5), Shape{1, 1, 5}, DType::kUint8);
  EXPECT_NE(ErrorOf([&] { nd::image::cvcopyMakeBorder(c5, {.top = 1}); }).find("4 channels"),
            std::string::npos);
}

}  // namespace
}  // namespace mxnet
