// MobileNet (mxnet.gluon.model_zoo.vision.mobilenet): V1 from "MobileNets: Efficient
// Convolutional Neural Networks for Mobile Vision Applications" (Howard et al. 2017), V2 from
// "Inverted Residuals and Linear Bottlenecks" (Sandler et al. 2018). MXNet 1.9.1's module trees:
//   MobileNet:   features = conv3x3/2-BN-relu, 13 depthwise-separable pairs (dw conv3x3-BN-relu,
//                pw conv1x1-BN-relu), GlobalAvgPool2D, Flatten; output = Dense(classes).
//   MobileNetV2: features = conv3x3/2-BN-RELU6, 17 LinearBottlenecks (children "out"), conv1x1
//                (1280)-BN-RELU6, GlobalAvgPool2D; output = [conv1x1(classes, no bias), Flatten].
// Convolutions have no bias. Channels are int(c * multiplier) (truncation, as Python's int()).
//
// Input (N, 3, H, W) with H, W >= 32 (224 for the pretrained weights); output (N, classes).
#pragma once

#include <memory>

#include "modelzoo/common.h"

namespace mxnet::gluon::model_zoo::vision {

// min(max(x, 0), 6) (MXNet's RELU6 block: clip(x, 0, 6)).
class RELU6 : public HybridBlock {
 public:
  RELU6();
  NDArray forward(const NDArray& x) override { return clip_({x}); }

 private:
  nn::internal::OpCall clip_;
};

// MobileNetV2's inverted residual: out = [conv1x1(in*t)-BN-RELU6, dw conv3x3(stride)-BN-RELU6,
// conv1x1(channels)-BN]; adds the input when stride == 1 and in_channels == channels.
class LinearBottleneck : public HybridBlock {
 public:
  LinearBottleneck(int64_t in_channels, int64_t channels, int64_t t, int64_t stride);
  NDArray forward(const NDArray& x) override;
  bool use_shortcut() const { return use_shortcut_; }
  std::shared_ptr<nn::HybridSequential> out;

 private:
  bool use_shortcut_;
  nn::internal::OpCall add_;
};

class MobileNet : public HybridBlock {
 public:
  explicit MobileNet(double multiplier = 1.0, int64_t classes = 1000);
  NDArray forward(const NDArray& x) override;
  std::shared_ptr<nn::HybridSequential> features;
  std::shared_ptr<nn::Dense> output;
};

class MobileNetV2 : public HybridBlock {
 public:
  explicit MobileNetV2(double multiplier = 1.0, int64_t classes = 1000);
  NDArray forward(const NDArray& x) override;
  std::shared_ptr<nn::HybridSequential> features;
  std::shared_ptr<nn::HybridSequential> output;
};

// multiplier: width multiplier (the pretrained ones: 1.0, 0.75, 0.5, 0.25; names mobilenet1.0,
// mobilenet0.75, ..., mobilenetv2_1.0, ...).
std::shared_ptr<HybridBlock> get_mobilenet(double multiplier, const ModelOptions& options = {});
std::shared_ptr<HybridBlock> get_mobilenet_v2(double multiplier, const ModelOptions& options = {});
std::shared_ptr<HybridBlock> mobilenet1_0(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> mobilenet0_75(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> mobilenet0_5(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> mobilenet0_25(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> mobilenet_v2_1_0(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> mobilenet_v2_0_75(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> mobilenet_v2_0_5(const ModelOptions& options = {});
std::shared_ptr<HybridBlock> mobilenet_v2_0_25(const ModelOptions& options = {});

}  // namespace mxnet::gluon::model_zoo::vision
