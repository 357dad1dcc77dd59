// DenseNet-BC (mxnet.gluon.model_zoo.vision.densenet), "Densely Connected Convolutional
// Networks" (Huang et al. 2016). MXNet 1.9.1's module tree: features = conv7x7/2-BN-relu-
// maxpool3x3/2, dense blocks ("stage" HybridSequentials of dense layers, each a
// HybridConcurrent(axis 1)[Identity, BN-relu-conv1x1(bn_size*growth)-BN-relu-conv3x3(growth)
// [-Dropout]]) with transitions (BN-relu-conv1x1(half)-avgpool2x2/2) between them, BN-relu-
// AvgPool2D(7)-Flatten; output = Dense(classes).
//
// Input (N, 3, H, W) whose final feature map is 7x7 or a little larger (224 for the standard
// four-block nets); output (N, classes).
#pragma once

#include <memory>
#include <vector>

#include "modelzoo/common.h"

namespace mxnet::gluon::model_zoo::vision {

class DenseNet : public HybridBlock {
 public:
  // num_init_features: stem channels; growth_rate: channels each dense layer adds;
  // block_config: dense layers per block; bn_size: bottleneck width multiplier; dropout: rate
  // after each dense layer (0 = none).
  DenseNet(int64_t num_init_features, int64_t growth_rate, std::vector<int> block_config,
           int64_t bn_size = 4, double dropout = 0, int64_t classes = 1000);
  NDArray forward(const NDArray& x) override;
  std::shared_ptr<nn::HybridSequential> features;
  std::shared_ptr<nn::Dense> output;
};

// num_layers 121, 161, 169 or 201 (kInvalidArgument otherwise).
std::shared_ptr<HybridBlock> get_densenet(int num_layers, const ModelOptions& options = {});
std::shared_ptr<HybridBlock> densenet121(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> densenet161(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> densenet169(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> densenet201(const ModelOptions& options = {});

}  // namespace mxnet::gluon::model_zoo::vision
