// VGG (mxnet.gluon.model_zoo.vision.vgg), "Very Deep Convolutional Networks for Large-Scale
// Image Recognition" (Simonyan & Zisserman 2014), with optional batch normalization. MXNet
// 1.9.1's module tree: features = [conv3x3(+BN)+relu]* + maxpool per stage, then
// Dense(4096, relu)-Dropout(0.5)-Dense(4096, relu)-Dropout(0.5); output = Dense(classes).
// Initializers as MXNet: convs Xavier(gaussian, out, 2), dense weights Normal(0.01), biases 0.
//
// Input (N, 3, H, W), H and W multiples of 32 >= 32 (224 for the pretrained weights: the first
// Dense then has 512*7*7 inputs); output (N, classes).
#pragma once

#include <memory>
#include <vector>

#include "modelzoo/common.h"

namespace mxnet::gluon::model_zoo::vision {

class VGG : public HybridBlock {
 public:
  // layers: conv layers per stage; filters: channels per stage (same length).
  VGG(std::vector<int> layers, std::vector<int64_t> filters, int64_t classes = 1000,
      bool batch_norm = false);
  NDArray forward(const NDArray& x) override;
  std::shared_ptr<nn::HybridSequential> features;
  std::shared_ptr<nn::Dense> output;
};

// num_layers 11, 13, 16 or 19 (kInvalidArgument otherwise). Pretrained names: vggN, vggN_bn.
std::shared_ptr<HybridBlock> get_vgg(int num_layers, const ModelOptions& options = {},
                                     bool batch_norm = false);
std::shared_ptr<HybridBlock> vgg11(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> vgg13(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> vgg16(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> vgg19(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> vgg11_bn(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> vgg13_bn(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> vgg16_bn(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> vgg19_bn(const ModelOptions& options = {});

}  // namespace mxnet::gluon::model_zoo::vision
