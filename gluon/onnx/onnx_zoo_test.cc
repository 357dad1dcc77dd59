// Model-zoo nets (every architecture family, small inputs) through export_onnx: ONNX's C++ checker
// with strict shape inference, then our import at batch 2 against the net's own forward. The
// full-size 34-net check against ONNX Runtime is tools/conformance/onnx_check.py (report.py).
#include <cmath>
#include <fstream>

#include "gluon/onnx/onnx.h"
#include "gluon/onnx/testing/cases.h"
#include "gtest/gtest.h"
#include "modelzoo/vision.h"
#include "onnx/checker.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

namespace mxnet::gluon {
namespace {

std::string Tmp(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

struct Net {
  const char* name;
  int64_t size;
  int opset;
};

class OnnxZoo : public ::testing::TestWithParam<Net> {};

TEST_P(OnnxZoo, ExportsChecksAndImports) {
  const Net& p = GetParam();
  auto net = model_zoo::vision::get_model(p.name, {.classes = 10});
  net->initialize(init::Xavier());
  const std::string path = Tmp(std::string(p.name) + ".onnx");
  absl::Status st = export_onnx(*net, {Shape{1, 3, p.size, p.size}}, path, p.opset);
  ASSERT_TRUE(st.ok()) << st;
  try {
    ::onnx::checker::check_model(path);
    ::onnx::ModelProto m;
    std::ifstream f(path, std::ios::binary);
    ASSERT_TRUE(m.ParseFromIstream(&f));
    ::onnx::ShapeInferenceOptions opts(true, 1, false);
    ::onnx::shape_inference::InferShapes(m, ::onnx::OpSchemaRegistry::Instance(), opts);
  } catch (const std::exception& e) {
    FAIL() << p.name << ": onnx checker: " << e.what();
  }
  NDArray x = onnx_testing::Lcg(Shape{2, 3, p.size, p.size}, 5);
  NDArray want = (*net)(x);
  auto block = imports_onnx(path);
  ASSERT_TRUE(block.ok()) << block.status();
  NDArray got = (**block)(x);
  ASSERT_EQ(got.shape(), want.shape());
  std::vector<float> a = got.ToVector<float>(), b = want.ToVector<float>();
  double err = 0, scale = 1e-12;
  for (size_t i = 0; i < a.size(); ++i) {
    err = std::max(err, std::abs(double(a[i]) - b[i]));
    scale = std::max(scale, std::abs(double(b[i])));
  }
  EXPECT_LT(err / scale, 1e-4) << p.name;
}

INSTANTIATE_TEST_SUITE_P(Nets, OnnxZoo,
                         ::testing::Values(Net{"resnet18_v1", 64, 13}, Net{"resnet18_v2", 64, 17},
                                           Net{"mobilenet0.25", 64, 13},
                                           Net{"mobilenetv2_0.25", 64, 15},
                                           Net{"squeezenet1.0", 224, 13},
                                           Net{"squeezenet1.1", 224, 16},
                                           Net{"densenet121", 224, 13}, Net{"inceptionv3", 299, 17},
                                           Net{"alexnet", 64, 14}, Net{"vgg11_bn", 32, 13}),
                         [](const auto& info) {
                           std::string n = info.param.name;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace mxnet::gluon
