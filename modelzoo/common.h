// Options shared by the model-zoo factories (the keyword arguments of MXNet's
// mxnet.gluon.model_zoo.vision functions) and the helpers the model files share.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "gluon/block.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/nn/conv_layers.h"

namespace mxnet::gluon::model_zoo::vision {

struct ModelOptions {
  int64_t classes = 1000;  // number of classes of the output layer
  // Load MXNet's published weights from the model store (model_store.h):
  // `<root>/<name>-<sha1[:8]>.params`, SHA-1 verified. Never downloads; a missing or mismatched
  // file throws mxnet::Error.
  bool pretrained = false;
  Device device = cpu();  // where pretrained weights are loaded (MXNet's ctx / device)
  std::string root;       // model store directory; "" = $MXNET_HOME/models (~/.mxnet/models)
  // Architecture options MXNet's factories pass on to the model class (their **kwargs). Unset =
  // the class's default. A factory whose class does not take a set one throws kInvalidArgument
  // (MXNet: TypeError, unexpected keyword argument).
  std::optional<bool> thumbnail;   // ResNets (ResNetV1/V2 thumbnail): 3x3 stride-1 stem
  std::optional<bool> batch_norm;  // VGGs: BatchNorm after each conv; vggN_bn always sets it
  std::optional<int64_t> bn_size;  // DenseNets: bottleneck width multiplier (4)
  std::optional<double> dropout;   // DenseNets: dropout rate after each dense layer (0)
};

namespace internal {

// Loads the model store's file for `model_name` into `net` on options.device. Throws
// mxnet::Error with the store's status code (kNotFound for a missing file, kDataLoss for a
// checksum mismatch) or load_parameters' (shape/key mismatch, e.g. classes != 1000).
void LoadPretrained(Block& net, std::string_view model_name, const ModelOptions& options);

// Throws kInvalidArgument naming the first architecture option of `options` (thumbnail,
// batch_norm, bn_size, dropout) that is set but not in `takes`, for model `model`.
void CheckArchOptions(const ModelOptions& options, std::string_view model,
                      std::initializer_list<std::string_view> takes);

// Shorthands for the layers the model files build (MXNet's keyword defaults).
inline std::shared_ptr<nn::Conv2D> Conv(int64_t channels, Shape kernel, Shape strides = {1},
                                        Shape padding = {0}, bool use_bias = true,
                                        int64_t in_channels = 0, int64_t groups = 1) {
  return std::make_shared<nn::Conv2D>(channels, kernel,
                                      nn::ConvOptions{.strides = strides,
                                                      .padding = padding,
                                                      .groups = groups,
                                                      .use_bias = use_bias,
                                                      .in_channels = in_channels});
}
inline std::shared_ptr<nn::BatchNorm> BN(double epsilon = 1e-5) {
  return std::make_shared<nn::BatchNorm>(nn::BatchNormOptions{.epsilon = epsilon});
}
inline std::shared_ptr<nn::Activation> Relu() { return std::make_shared<nn::Activation>("relu"); }
inline std::shared_ptr<nn::HybridSequential> Seq() {
  return std::make_shared<nn::HybridSequential>();
}

}  // namespace internal
}  // namespace mxnet::gluon::model_zoo::vision
