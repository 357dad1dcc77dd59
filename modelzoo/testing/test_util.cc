#include "modelzoo/testing/test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/strings.h"

namespace mxnet::gluon::model_zoo::testing {

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream f(path);
  if (!f.good()) MX_THROW(absl::StatusCode::kNotFound, "cannot open ", path);
  return nlohmann::json::parse(f);
}

Shape InferShapes(Block& net, const Shape& input) {
  NDArray y;
  {
    DispatchStateScope scope;
    scope.state().infer_only = true;
    y = net(NDArray::Placeholder(input));
  }
  // Parameters that were never initialized keep their inferred shape in the placeholder that
  // data() handed out; finish_deferred_init moves it into the parameter without allocating.
  for (const auto& [_, p] : net.collect_params()) p->finish_deferred_init();
  return y.shape();
}

Shape ShapeFromJson(const nlohmann::json& dims) { return Shape(dims.get<std::vector<int64_t>>()); }

NDArray ArrayFromJson(const nlohmann::json& values, const Shape& shape) {
  return NDArray::FromVector(values.get<std::vector<float>>(), shape, cpu(), DType::kFloat32);
}

double MaxRelError(const NDArray& actual, const NDArray& expected) {
  std::vector<float> a = actual.astype(DType::kFloat32, false).ToVector<float>();
  std::vector<float> b = expected.astype(DType::kFloat32, false).ToVector<float>();
  double num = 0, den = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    double d = std::abs(static_cast<double>(a[i]) - b[i]);
    num = std::isnan(d) ? INFINITY : std::max(num, d);
    den = std::max(den, std::abs(static_cast<double>(b[i])));
  }
  return num / std::max(den, 1e-30);
}

::testing::AssertionResult CloseTo(const NDArray& actual, const NDArray& expected, double tol) {
  if (actual.shape() != expected.shape())
    return ::testing::AssertionFailure()
           << "shape " << actual.shape() << " vs expected " << expected.shape();
  double e = MaxRelError(actual, expected);
  if (!(e < tol))
    return ::testing::AssertionFailure() << "max relative error " << e << " >= " << tol;
  return ::testing::AssertionSuccess() << "max relative error " << e;
}

std::string MakeTempDir(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  std::filesystem::path p = std::filesystem::path(t ? t : "/tmp") / name;
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

std::shared_ptr<HybridBlock> BuildLoadCase(const std::string& name) {
  if (name == "mobilenet0.25_c10") return vision::get_model("mobilenet0.25", {.classes = 10});
  if (name == "resnet_v1_tiny")
    return std::make_shared<vision::ResNetV1>(vision::residual_block<vision::BasicBlockV1>(),
                                              std::vector<int>{1, 1, 1, 1},
                                              std::vector<int64_t>{8, 8, 16, 32, 64}, 10, true);
  if (name == "resnet_v1b_tiny")
    return std::make_shared<vision::ResNetV1>(vision::residual_block<vision::BottleneckV1>(),
                                              std::vector<int>{1, 2},
                                              std::vector<int64_t>{16, 32, 64}, 10);
  if (name == "resnet_v2_tiny")
    return std::make_shared<vision::ResNetV2>(vision::residual_block<vision::BottleneckV2>(),
                                              std::vector<int>{1, 2},
                                              std::vector<int64_t>{16, 32, 64}, 10);
  if (name == "resnet_v2b_tiny")
    return std::make_shared<vision::ResNetV2>(vision::residual_block<vision::BasicBlockV2>(),
                                              std::vector<int>{2, 1},
                                              std::vector<int64_t>{8, 8, 16}, 10, true);
  if (name == "densenet_tiny")
    return std::make_shared<vision::DenseNet>(8, 4, std::vector<int>{2, 2}, 2, 0.1, 10);
  ADD_FAILURE() << "unknown case " << name;
  return nullptr;
}

}  // namespace mxnet::gluon::model_zoo::testing
