#include "modelzoo/inception.h"

#include <optional>

namespace mxnet::gluon::model_zoo::vision {
namespace {

using internal::Seq;

// One conv setting of MXNet's _make_branch: (channels, kernel_size, strides, padding), unset
// values keep Conv2D's defaults (strides 1, padding 0).
struct ConvSetting {
  int64_t channels;
  Shape kernel;
  Shape strides = {1};
  Shape padding = {0};
};

std::shared_ptr<nn::HybridSequential> BasicConv(const ConvSetting& s) {
  auto out = Seq();
  out->add(internal::Conv(s.channels, s.kernel, s.strides, s.padding, false));
  out->add(internal::BN(0.001));
  out->add(internal::Relu());
  return out;
}

enum class Pool { kNone, kAvg, kMax };

std::shared_ptr<nn::HybridSequential> Branch(Pool pool,
                                             std::initializer_list<ConvSetting> settings) {
  auto out = Seq();
  if (pool == Pool::kAvg)
    out->add(
        std::make_shared<nn::AvgPool2D>(Shape{3}, nn::PoolOptions{.strides = {1}, .padding = {1}}));
  else if (pool == Pool::kMax)
    out->add(std::make_shared<nn::MaxPool2D>(Shape{3}, nn::PoolOptions{.strides = {2}}));
  for (const auto& s : settings) out->add(BasicConv(s));
  return out;
}

std::shared_ptr<nn::HybridConcatenate> Concurrent() {
  return std::make_shared<nn::HybridConcatenate>(1);
}

std::shared_ptr<nn::HybridConcatenate> MakeA(int64_t pool_features) {
  auto out = Concurrent();
  out->add(Branch(Pool::kNone, {{64, {1}}}));
  out->add(Branch(Pool::kNone, {{48, {1}}, {64, {5}, {1}, {2}}}));
  out->add(Branch(Pool::kNone, {{64, {1}}, {96, {3}, {1}, {1}}, {96, {3}, {1}, {1}}}));
  out->add(Branch(Pool::kAvg, {{pool_features, {1}}}));
  return out;
}

std::shared_ptr<nn::HybridConcatenate> MakeB() {
  auto out = Concurrent();
  out->add(Branch(Pool::kNone, {{384, {3}, {2}}}));
  out->add(Branch(Pool::kNone, {{64, {1}}, {96, {3}, {1}, {1}}, {96, {3}, {2}}}));
  out->add(Branch(Pool::kMax, {}));
  return out;
}

std::shared_ptr<nn::HybridConcatenate> MakeC(int64_t c7) {
  auto out = Concurrent();
  out->add(Branch(Pool::kNone, {{192, {1}}}));
  out->add(Branch(Pool::kNone, {{c7, {1}}, {c7, {1, 7}, {1}, {0, 3}}, {192, {7, 1}, {1}, {3, 0}}}));
  out->add(Branch(Pool::kNone, {{c7, {1}},
                                {c7, {7, 1}, {1}, {3, 0}},
                                {c7, {1, 7}, {1}, {0, 3}},
                                {c7, {7, 1}, {1}, {3, 0}},
                                {192, {1, 7}, {1}, {0, 3}}}));
  out->add(Branch(Pool::kAvg, {{192, {1}}}));
  return out;
}

std::shared_ptr<nn::HybridConcatenate> MakeD() {
  auto out = Concurrent();
  out->add(Branch(Pool::kNone, {{192, {1}}, {320, {3}, {2}}}));
  out->add(Branch(
      Pool::kNone,
      {{192, {1}}, {192, {1, 7}, {1}, {0, 3}}, {192, {7, 1}, {1}, {3, 0}}, {192, {3}, {2}}}));
  out->add(Branch(Pool::kMax, {}));
  return out;
}

std::shared_ptr<nn::HybridConcatenate> MakeE() {
  auto out = Concurrent();
  out->add(Branch(Pool::kNone, {{320, {1}}}));
  auto branch_3x3 = Seq();
  out->add(branch_3x3);
  branch_3x3->add(Branch(Pool::kNone, {{384, {1}}}));
  auto split = Concurrent();
  split->add(Branch(Pool::kNone, {{384, {1, 3}, {1}, {0, 1}}}));
  split->add(Branch(Pool::kNone, {{384, {3, 1}, {1}, {1, 0}}}));
  branch_3x3->add(split);
  auto branch_3x3dbl = Seq();
  out->add(branch_3x3dbl);
  branch_3x3dbl->add(Branch(Pool::kNone, {{448, {1}}, {384, {3}, {1}, {1}}}));
  auto dbl_split = Concurrent();
  branch_3x3dbl->add(dbl_split);
  dbl_split->add(Branch(Pool::kNone, {{384, {1, 3}, {1}, {0, 1}}}));
  dbl_split->add(Branch(Pool::kNone, {{384, {3, 1}, {1}, {1, 0}}}));
  out->add(Branch(Pool::kAvg, {{192, {1}}}));
  return out;
}

}  // namespace

Inception3::Inception3(int64_t classes) {
  features = register_child(Seq(), "features");
  features->add(BasicConv({32, {3}, {2}}));
  features->add(BasicConv({32, {3}}));
  features->add(BasicConv({64, {3}, {1}, {1}}));
  features->add(std::make_shared<nn::MaxPool2D>(Shape{3}, nn::PoolOptions{.strides = {2}}));
  features->add(BasicConv({80, {1}}));
  features->add(BasicConv({192, {3}}));
  features->add(std::make_shared<nn::MaxPool2D>(Shape{3}, nn::PoolOptions{.strides = {2}}));
  features->add(MakeA(32));
  features->add(MakeA(64));
  features->add(MakeA(64));
  features->add(MakeB());
  features->add(MakeC(128));
  features->add(MakeC(160));
  features->add(MakeC(160));
  features->add(MakeC(192));
  features->add(MakeD());
  features->add(MakeE());
  features->add(MakeE());
  features->add(std::make_shared<nn::AvgPool2D>(Shape{8}));
  features->add(std::make_shared<nn::Dropout>(0.5));
  output = register_child(std::make_shared<nn::Dense>(classes), "output");
}

NDArray Inception3::forward(const NDArray& x) { return (*output)((*features)(x)); }

std::shared_ptr<HybridBlock> inception_v3(const ModelOptions& options) {
  internal::CheckArchOptions(options, "inceptionv3", {});
  auto net = std::make_shared<Inception3>(options.classes);
  if (options.pretrained) internal::LoadPretrained(*net, "inceptionv3", options);
  return net;
}

}  // namespace mxnet::gluon::model_zoo::vision
