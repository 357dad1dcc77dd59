// SqueezeNet (mxnet.gluon.model_zoo.vision.squeezenet): 1.0 from "SqueezeNet: AlexNet-level
// accuracy with 50x fewer parameters and <0.5MB model size" (Iandola et al. 2016), 1.1 from the
// official SqueezeNet repo (2.4x less computation). MXNet 1.9.1's module tree: features = stem
// conv-relu-pool, fire modules (HybridSequential[squeeze conv-relu, HybridConcurrent(axis 1)[
// expand1x1 conv-relu, expand3x3 conv-relu]]) and ceil-mode max pools, Dropout(0.5); output =
// conv1x1(classes)-relu-AvgPool2D(13)-Flatten.
//
// Input (N, 3, 224, 224) (the fixed 13x13 average pool needs a 13x13 final feature map: about
// 224 px); output (N, classes).
#pragma once

#include <memory>
#include <string>

#include "modelzoo/common.h"

namespace mxnet::gluon::model_zoo::vision {

class SqueezeNet : public HybridBlock {
 public:
  // version "1.0" or "1.1" (kInvalidArgument otherwise).
  explicit SqueezeNet(const std::string& version, int64_t classes = 1000);
  NDArray forward(const NDArray& x) override;
  std::shared_ptr<nn::HybridSequential> features;
  std::shared_ptr<nn::HybridSequential> output;
};

std::shared_ptr<HybridBlock> get_squeezenet(const std::string& version,
                                            const ModelOptions& options = {});
std::shared_ptr<HybridBlock> squeezenet1_0(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> squeezenet1_1(const ModelOptions& options = {});

}  // namespace mxnet::gluon::model_zoo::vision
