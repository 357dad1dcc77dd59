// ResNets (mxnet.gluon.model_zoo.vision.resnet): V1 from "Deep Residual Learning for Image
// Recognition" (He et al. 2015), V2 from "Identity Mappings in Deep Residual Networks" (He et
// al. 2016). Module tree, parameter names/shapes and layer settings are MXNet 1.9.1's, so
// save_parameters keys match (resnet18_v1: features.0.weight, features.1.gamma, ...,
// features.4.0.body.0.weight, ..., features.5.0.downsample.0.weight, ..., output.weight).
//
// Input (N, 3, H, W) with H, W >= 32 (the nets end in global average pooling; MXNet's
// pretrained weights expect 224 and the normalization of preprocess.h); output (N, classes).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "modelzoo/common.h"

namespace mxnet::gluon::model_zoo::vision {

// BasicBlock V1 (ResNet-18/34 V1): body = conv3x3(stride)-BN-relu-conv3x3-BN, downsample =
// conv1x1(stride)-BN when `downsample`; out = relu(body(x) + residual).
class BasicBlockV1 : public HybridBlock {
 public:
  BasicBlockV1(int64_t channels, int64_t stride, bool downsample = false, int64_t in_channels = 0);
  NDArray forward(const NDArray& x) override;
  std::shared_ptr<nn::HybridSequential> body;
  std::shared_ptr<nn::HybridSequential> downsample;  // null without downsampling

 private:
  nn::internal::OpCall add_, relu_;
};

// Bottleneck V1 (ResNet-50/101/152 V1): body = conv1x1(channels/4, stride, with bias)-BN-relu-
// conv3x3(channels/4)-BN-relu-conv1x1(channels, with bias)-BN; downsample as BasicBlockV1.
class BottleneckV1 : public HybridBlock {
 public:
  BottleneckV1(int64_t channels, int64_t stride, bool downsample = false, int64_t in_channels = 0);
  NDArray forward(const NDArray& x) override;
  std::shared_ptr<nn::HybridSequential> body;
  std::shared_ptr<nn::HybridSequential> downsample;

 private:
  nn::internal::OpCall add_, relu_;
};

// BasicBlock V2 (pre-activation): bn1-relu, [downsample = conv1x1(stride) of that], conv1
// (3x3, stride), bn2-relu, conv2 (3x3); out = conv2 + residual.
class BasicBlockV2 : public HybridBlock {
 public:
  BasicBlockV2(int64_t channels, int64_t stride, bool downsample = false, int64_t in_channels = 0);
  NDArray forward(const NDArray& x) override;
  std::shared_ptr<nn::BatchNorm> bn1, bn2;
  std::shared_ptr<nn::Conv2D> conv1, conv2;
  std::shared_ptr<nn::Conv2D> downsample;  // null without downsampling

 private:
  nn::internal::OpCall add_, relu_;
};

// Bottleneck V2: bn1-relu, [downsample], conv1 1x1 (channels/4), bn2-relu, conv2 3x3 (stride),
// bn3-relu, conv3 1x1 (channels); out = conv3 + residual.
class BottleneckV2 : public HybridBlock {
 public:
  BottleneckV2(int64_t channels, int64_t stride, bool downsample = false, int64_t in_channels = 0);
  NDArray forward(const NDArray& x) override;
  std::shared_ptr<nn::BatchNorm> bn1, bn2, bn3;
  std::shared_ptr<nn::Conv2D> conv1, conv2, conv3;
  std::shared_ptr<nn::Conv2D> downsample;

 private:
  nn::internal::OpCall add_, relu_;
};

// Makes one residual block: (channels, stride, downsample, in_channels). MXNet passes the block
// class; here residual_block<BasicBlockV1>() and friends stand for it.
using ResidualBlockFactory = std::function<std::shared_ptr<HybridBlock>(
    int64_t channels, int64_t stride, bool downsample, int64_t in_channels)>;
template <typename B>
ResidualBlockFactory residual_block() {
  return [](int64_t channels, int64_t stride, bool downsample,
            int64_t in_channels) -> std::shared_ptr<HybridBlock> {
    return std::make_shared<B>(channels, stride, downsample, in_channels);
  };
}

// ResNet V1. layers: blocks per stage; channels: stem channels then one per stage
// (layers.size() + 1 values). thumbnail: a 3x3 stride-1 stem (for small images such as CIFAR)
// instead of conv7x7/2-BN-relu-maxpool3x3/2. Children: features (stem, stages "1".., global
// average pool), output (Dense(classes)).
class ResNetV1 : public HybridBlock {
 public:
  ResNetV1(ResidualBlockFactory block, std::vector<int> layers, std::vector<int64_t> channels,
           int64_t classes = 1000, bool thumbnail = false);
  NDArray forward(const NDArray& x) override;
  std::shared_ptr<nn::HybridSequential> features;
  std::shared_ptr<nn::Dense> output;
};

// ResNet V2: like V1 with a leading BatchNorm(scale=false, center=false) on the input and a
// final BN-relu before pooling and Flatten.
class ResNetV2 : public HybridBlock {
 public:
  ResNetV2(ResidualBlockFactory block, std::vector<int> layers, std::vector<int64_t> channels,
           int64_t classes = 1000, bool thumbnail = false);
  NDArray forward(const NDArray& x) override;
  std::shared_ptr<nn::HybridSequential> features;
  std::shared_ptr<nn::Dense> output;
};

// version 1 or 2; num_layers 18, 34, 50, 101, 152. Throws kInvalidArgument otherwise (naming
// the options). thumbnail as in ResNetV1 (MXNet's **kwargs pass-through).
std::shared_ptr<HybridBlock> get_resnet(int version, int num_layers,
                                        const ModelOptions& options = {}, bool thumbnail = false);
std::shared_ptr<HybridBlock> resnet18_v1(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> resnet34_v1(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> resnet50_v1(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> resnet101_v1(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> resnet152_v1(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> resnet18_v2(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> resnet34_v2(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> resnet50_v2(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> resnet101_v2(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> resnet152_v2(const ModelOptions& options = {});

}  // namespace mxnet::gluon::model_zoo::vision
