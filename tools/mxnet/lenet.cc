#include "tools/mxnet/lenet.h"

#include "gluon/nn/conv_layers.h"

namespace mxnet::cli {

namespace nn = gluon::nn;

std::shared_ptr<nn::HybridSequential> LeNet() {
  auto net = std::make_shared<nn::HybridSequential>();
  net->add({std::make_shared<nn::Conv2D>(16, Shape{5, 5},
                                         nn::ConvOptions{.padding = {2, 2}, .activation = "relu"}),
            std::make_shared<nn::MaxPool2D>(),
            std::make_shared<nn::Conv2D>(32, Shape{5, 5}, nn::ConvOptions{.activation = "relu"}),
            std::make_shared<nn::MaxPool2D>(), std::make_shared<nn::Flatten>(),
            std::make_shared<nn::Dense>(128, nn::DenseOptions{.activation = "relu"}),
            std::make_shared<nn::Dense>(10)});
  return net;
}

}  // namespace mxnet::cli
