// AlexNet (mxnet.gluon.model_zoo.vision.alexnet), the "One weird trick for parallelizing
// convolutional neural networks" (Krizhevsky 2014) variant. MXNet 1.9.1's module tree:
// features = conv11x11/4(64)-pool-conv5x5(192)-pool-conv3x3(384, 256, 256)-pool-Flatten-
// Dense(4096, relu)-Dropout-Dense(4096, relu)-Dropout (convs with relu); output = Dense(classes).
//
// Input (N, 3, H, W) with H, W >= 63 (224 for the pretrained weights); output (N, classes).
#pragma once

#include <memory>

#include "modelzoo/common.h"

namespace mxnet::gluon::model_zoo::vision {

class AlexNet : public HybridBlock {
 public:
  explicit AlexNet(int64_t classes = 1000);
  NDArray forward(const NDArray& x) override;
  std::shared_ptr<nn::HybridSequential> features;
  std::shared_ptr<nn::Dense> output;
};

std::shared_ptr<HybridBlock> alexnet(const ModelOptions& options = {});

}  // namespace mxnet::gluon::model_zoo::vision
