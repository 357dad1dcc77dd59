// Inception v3 (mxnet.gluon.model_zoo.vision.inception), "Rethinking the Inception Architecture
// for Computer Vision" (Szegedy et al. 2015). MXNet 1.9.1's module tree: features = five basic
// convs (conv without bias-BN(eps 1e-3)-relu) and two max pools, Inception blocks A1-A3, B,
// C1-C4, D, E1, E2 (HybridConcurrent(axis 1) of branches), AvgPool2D(8), Dropout(0.5); output =
// Dense(classes). (MXNet's auxiliary classifier, make_aux, is not part of the net.)
//
// Input (N, 3, 299, 299) (the fixed 8x8 average pool); output (N, classes).
#pragma once

#include <memory>

#include "modelzoo/common.h"

namespace mxnet::gluon::model_zoo::vision {

class Inception3 : public HybridBlock {
 public:
  explicit Inception3(int64_t classes = 1000);
  NDArray forward(const NDArray& x) override;
  std::shared_ptr<nn::HybridSequential> features;
  std::shared_ptr<nn::Dense> output;
};

// Pretrained name: inceptionv3.
std::shared_ptr<HybridBlock> inception_v3(const ModelOptions& options = {});

}  // namespace mxnet::gluon::model_zoo::vision
