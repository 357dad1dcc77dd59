#include "modelzoo/densenet.h"

#include "base/strings.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

using internal::BN;
using internal::Conv;
using internal::Relu;
using internal::Seq;

std::shared_ptr<nn::HybridConcatenate> DenseLayer(int64_t growth_rate, int64_t bn_size,
                                                  double dropout) {
  auto new_features = Seq();
  new_features->add(BN());
  new_features->add(Relu());
  new_features->add(Conv(bn_size * growth_rate, {1}, {1}, {0}, false));
  new_features->add(BN());
  new_features->add(Relu());
  new_features->add(Conv(growth_rate, {3}, {1}, {1}, false));
  if (dropout != 0) new_features->add(std::make_shared<nn::Dropout>(dropout));
  auto out = std::make_shared<nn::HybridConcatenate>(1);
  out->add(std::make_shared<nn::Identity>());
  out->add(new_features);
  return out;
}

std::shared_ptr<nn::HybridSequential> DenseBlock(int num_layers, int64_t bn_size,
                                                 int64_t growth_rate, double dropout) {
  auto out = Seq();
  for (int i = 0; i < num_layers; ++i) out->add(DenseLayer(growth_rate, bn_size, dropout));
  return out;
}

std::shared_ptr<nn::HybridSequential> Transition(int64_t num_output_features) {
  auto out = Seq();
  out->add(BN());
  out->add(Relu());
  out->add(Conv(num_output_features, {1}, {1}, {0}, false));
  out->add(std::make_shared<nn::AvgPool2D>(Shape{2}, nn::PoolOptions{.strides = {2}}));
  return out;
}

}  // namespace

DenseNet::DenseNet(int64_t num_init_features, int64_t growth_rate, std::vector<int> block_config,
                   int64_t bn_size, double dropout, int64_t classes) {
  MX_REQUIRE(!block_config.empty(), absl::StatusCode::kInvalidArgument,
             "DenseNet: block_config is empty");
  features = register_child(Seq(), "features");
  features->add(Conv(num_init_features, {7}, {2}, {3}, false));
  features->add(BN());
  features->add(Relu());
  features->add(
      std::make_shared<nn::MaxPool2D>(Shape{3}, nn::PoolOptions{.strides = {2}, .padding = {1}}));
  int64_t num_features = num_init_features;
  for (size_t i = 0; i < block_config.size(); ++i) {
    features->add(DenseBlock(block_config[i], bn_size, growth_rate, dropout));
    num_features += block_config[i] * growth_rate;
    if (i + 1 != block_config.size()) {
      features->add(Transition(num_features / 2));
      num_features /= 2;
    }
  }
  features->add(BN());
  features->add(Relu());
  features->add(std::make_shared<nn::AvgPool2D>(Shape{7}));
  features->add(std::make_shared<nn::Flatten>());
  output = register_child(std::make_shared<nn::Dense>(classes), "output");
}

NDArray DenseNet::forward(const NDArray& x) { return (*output)((*features)(x)); }

std::shared_ptr<HybridBlock> get_densenet(int num_layers, const ModelOptions& options) {
  int64_t init = 64, growth = 32;
  std::vector<int> config;
  switch (num_layers) {
    case 121:
      config = {6, 12, 24, 16};
      break;
    case 161:
      init = 96, growth = 48, config = {6, 12, 36, 24};
      break;
    case 169:
      config = {6, 12, 32, 32};
      break;
    case 201:
      config = {6, 12, 48, 32};
      break;
    default:
      MX_THROW(absl::StatusCode::kInvalidArgument, "Invalid number of layers: ", num_layers,
               ". Options are 121, 161, 169, 201");
  }
  internal::CheckArchOptions(options, StrCat("densenet", num_layers), {"bn_size", "dropout"});
  auto net = std::make_shared<DenseNet>(init, growth, config, options.bn_size.value_or(4),
                                        options.dropout.value_or(0), options.classes);
  if (options.pretrained) internal::LoadPretrained(*net, StrCat("densenet", num_layers), options);
  return net;
}

std::shared_ptr<HybridBlock> densenet121(const ModelOptions& o) { return get_densenet(121, o); }
std::shared_ptr<HybridBlock> densenet161(const ModelOptions& o) { return get_densenet(161, o); }
std::shared_ptr<HybridBlock> densenet169(const ModelOptions& o) { return get_densenet(169, o); }
std::shared_ptr<HybridBlock> densenet201(const ModelOptions& o) { return get_densenet(201, o); }

}  // namespace mxnet::gluon::model_zoo::vision
