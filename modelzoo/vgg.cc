#include "modelzoo/vgg.h"

#include "base/strings.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

std::shared_ptr<nn::Dense> Dense(int64_t units, const std::string& activation) {
  return std::make_shared<nn::Dense>(units, nn::DenseOptions{.activation = activation,
                                                             .weight_initializer = init::Normal(),
                                                             .bias_initializer = init::Zero()});
}

}  // namespace

VGG::VGG(std::vector<int> layers, std::vector<int64_t> filters, int64_t classes, bool batch_norm) {
  MX_REQUIRE(layers.size() == filters.size(), absl::StatusCode::kInvalidArgument,
             "VGG: layers and filters must have the same length, got ", layers.size(), " and ",
             filters.size());
  features = register_child(internal::Seq(), "features");
  for (size_t i = 0; i < layers.size(); ++i) {
    for (int j = 0; j < layers[i]; ++j) {
      features->add(std::make_shared<nn::Conv2D>(
          filters[i], Shape{3},
          nn::ConvOptions{.padding = {1},
                          .weight_initializer = init::Xavier("gaussian", "out", 2),
                          .bias_initializer = init::Zero()}));
      if (batch_norm) features->add(internal::BN());
      features->add(internal::Relu());
    }
    features->add(std::make_shared<nn::MaxPool2D>(Shape{2}, nn::PoolOptions{.strides = {2}}));
  }
  features->add(Dense(4096, "relu"));
  features->add(std::make_shared<nn::Dropout>(0.5));
  features->add(Dense(4096, "relu"));
  features->add(std::make_shared<nn::Dropout>(0.5));
  output = register_child(Dense(classes, ""), "output");
}

NDArray VGG::forward(const NDArray& x) { return (*output)((*features)(x)); }

std::shared_ptr<HybridBlock> get_vgg(int num_layers, const ModelOptions& options, bool batch_norm) {
  std::vector<int> layers;
  switch (num_layers) {
    case 11:
      layers = {1, 1, 2, 2, 2};
      break;
    case 13:
      layers = {2, 2, 2, 2, 2};
      break;
    case 16:
      layers = {2, 2, 3, 3, 3};
      break;
    case 19:
      layers = {2, 2, 4, 4, 4};
      break;
    default:
      MX_THROW(absl::StatusCode::kInvalidArgument, "Invalid number of layers: ", num_layers,
               ". Options are 11, 13, 16, 19");
  }
  internal::CheckArchOptions(options, StrCat("vgg", num_layers), {"batch_norm"});
  batch_norm = batch_norm || options.batch_norm.value_or(false);
  auto net = std::make_shared<VGG>(layers, std::vector<int64_t>{64, 128, 256, 512, 512},
                                   options.classes, batch_norm);
  if (options.pretrained)
    internal::LoadPretrained(*net, StrCat("vgg", num_layers, batch_norm ? "_bn" : ""), options);
  return net;
}

std::shared_ptr<HybridBlock> vgg11(const ModelOptions& o) { return get_vgg(11, o); }
std::shared_ptr<HybridBlock> vgg13(const ModelOptions& o) { return get_vgg(13, o); }
std::shared_ptr<HybridBlock> vgg16(const ModelOptions& o) { return get_vgg(16, o); }
std::shared_ptr<HybridBlock> vgg19(const ModelOptions& o) { return get_vgg(19, o); }
std::shared_ptr<HybridBlock> vgg11_bn(const ModelOptions& o) { return get_vgg(11, o, true); }
std::shared_ptr<HybridBlock> vgg13_bn(const ModelOptions& o) { return get_vgg(13, o, true); }
std::shared_ptr<HybridBlock> vgg16_bn(const ModelOptions& o) { return get_vgg(16, o, true); }
std::shared_ptr<HybridBlock> vgg19_bn(const ModelOptions& o) { return get_vgg(19, o, true); }

}  // namespace mxnet::gluon::model_zoo::vision
