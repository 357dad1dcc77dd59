#include "modelzoo/alexnet.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

std::shared_ptr<nn::Conv2D> ConvRelu(int64_t channels, int64_t kernel, int64_t strides,
                                     int64_t padding) {
  return std::make_shared<nn::Conv2D>(
      channels, Shape{kernel},
      nn::ConvOptions{.strides = {strides}, .padding = {padding}, .activation = "relu"});
}
std::shared_ptr<nn::MaxPool2D> Pool() {
  return std::make_shared<nn::MaxPool2D>(Shape{3}, nn::PoolOptions{.strides = {2}});
}

}  // namespace

AlexNet::AlexNet(int64_t classes) {
  features = register_child(internal::Seq(), "features");
  features->add(ConvRelu(64, 11, 4, 2));
  features->add(Pool());
  features->add(ConvRelu(192, 5, 1, 2));
  features->add(Pool());
  features->add(ConvRelu(384, 3, 1, 1));
  features->add(ConvRelu(256, 3, 1, 1));
  features->add(ConvRelu(256, 3, 1, 1));
  features->add(Pool());
  features->add(std::make_shared<nn::Flatten>());
  features->add(std::make_shared<nn::Dense>(4096, nn::DenseOptions{.activation = "relu"}));
  features->add(std::make_shared<nn::Dropout>(0.5));
  features->add(std::make_shared<nn::Dense>(4096, nn::DenseOptions{.activation = "relu"}));
  features->add(std::make_shared<nn::Dropout>(0.5));
  output = register_child(std::make_shared<nn::Dense>(classes), "output");
}

NDArray AlexNet::forward(const NDArray& x) { return (*output)((*features)(x)); }

std::shared_ptr<HybridBlock> alexnet(const ModelOptions& options) {
  internal::CheckArchOptions(options, "alexnet", {});
  auto net = std::make_shared<AlexNet>(options.classes);
  if (options.pretrained) internal::LoadPretrained(*net, "alexnet", options);
  return net;
}

}  // namespace mxnet::gluon::model_zoo::vision
