#include "modelzoo/resnet.h"

#include "base/strings.h"
#include "ndarray/ops/nn/nn_params.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

using internal::BN;
using internal::Conv;
using internal::Relu;
using internal::Seq;

nn::internal::OpCall AddOp() { return nn::internal::OpCall(MX_ND_OP(elemwise_add)); }
nn::internal::OpCall ReluOp() {
  return nn::internal::OpCall(MX_ND_OP(Activation), ops::ActivationParam{.act_type = "relu"});
}

// MXNet's _conv3x3: 3x3, padding 1, no bias.
std::shared_ptr<nn::Conv2D> Conv3x3(int64_t channels, int64_t stride, int64_t in_channels) {
  return Conv(channels, {3}, {stride}, {1}, false, in_channels);
}

std::shared_ptr<nn::HybridSequential> Downsample(int64_t channels, int64_t stride,
                                                 int64_t in_channels) {
  auto d = Seq();
  d->add(Conv(channels, {1}, {stride}, {0}, false, in_channels));
  d->add(BN());
  return d;
}

void CheckSpec(const std::vector<int>& layers, const std::vector<int64_t>& channels,
               const char* what) {
  MX_REQUIRE(layers.size() + 1 == channels.size(), absl::StatusCode::kInvalidArgument, what,
             ": channels must have one more entry than layers, got ", layers.size(), " layers and ",
             channels.size(), " channels");
}

std::shared_ptr<nn::HybridSequential> MakeLayer(const ResidualBlockFactory& block, int num_layer,
                                                int64_t channels, int64_t stride,
                                                int64_t in_channels) {
  auto layer = Seq();
  layer->add(block(channels, stride, channels != in_channels, in_channels));
  for (int i = 1; i < num_layer; ++i) layer->add(block(channels, 1, false, channels));
  return layer;
}

}  // namespace

BasicBlockV1::BasicBlockV1(int64_t channels, int64_t stride, bool ds, int64_t in_channels)
    : add_(AddOp()), relu_(ReluOp()) {
  body = register_child(Seq(), "body");
  body->add(Conv3x3(channels, stride, in_channels));
  body->add(BN());
  body->add(Relu());
  body->add(Conv3x3(channels, 1, channels));
  body->add(BN());
  if (ds) downsample = register_child(Downsample(channels, stride, in_channels), "downsample");
}

NDArray BasicBlockV1::forward(const NDArray& x) {
  NDArray y = (*body)(x);
  NDArray residual = downsample ? (*downsample)(x) : x;
  return relu_({add_({residual, y})});
}

BottleneckV1::BottleneckV1(int64_t channels, int64_t stride, bool ds, int64_t in_channels)
    : add_(AddOp()), relu_(ReluOp()) {
  body = register_child(Seq(), "body");
  body->add(Conv(channels / 4, {1}, {stride}));
  body->add(BN());
  body->add(Relu());
  body->add(Conv3x3(channels / 4, 1, channels / 4));
  body->add(BN());
  body->add(Relu());
  body->add(Conv(channels, {1}, {1}));
  body->add(BN());
  if (ds) downsample = register_child(Downsample(channels, stride, in_channels), "downsample");
}

NDArray BottleneckV1::forward(const NDArray& x) {
  NDArray y = (*body)(x);
  NDArray residual = downsample ? (*downsample)(x) : x;
  return relu_({add_({y, residual})});
}

BasicBlockV2::BasicBlockV2(int64_t channels, int64_t stride, bool ds, int64_t in_channels)
    : add_(AddOp()), relu_(ReluOp()) {
  bn1 = register_child(BN(), "bn1");
  conv1 = register_child(Conv3x3(channels, stride, in_channels), "conv1");
  bn2 = register_child(BN(), "bn2");
  conv2 = register_child(Conv3x3(channels, 1, channels), "conv2");
  if (ds)
    downsample =
        register_child(Conv(channels, {1}, {stride}, {0}, false, in_channels), "downsample");
}

NDArray BasicBlockV2::forward(const NDArray& x) {
  NDArray residual = x;
  NDArray y = relu_({(*bn1)(x)});
  if (downsample) residual = (*downsample)(y);
  y = (*conv1)(y);
  y = relu_({(*bn2)(y)});
  y = (*conv2)(y);
  return add_({y, residual});
}

BottleneckV2::BottleneckV2(int64_t channels, int64_t stride, bool ds, int64_t in_channels)
    : add_(AddOp()), relu_(ReluOp()) {
  bn1 = register_child(BN(), "bn1");
  conv1 = register_child(Conv(channels / 4, {1}, {1}, {0}, false), "conv1");
  bn2 = register_child(BN(), "bn2");
  conv2 = register_child(Conv3x3(channels / 4, stride, channels / 4), "conv2");
  bn3 = register_child(BN(), "bn3");
  conv3 = register_child(Conv(channels, {1}, {1}, {0}, false), "conv3");
  if (ds)
    downsample =
        register_child(Conv(channels, {1}, {stride}, {0}, false, in_channels), "downsample");
}

NDArray BottleneckV2::forward(const NDArray& x) {
  NDArray residual = x;
  NDArray y = relu_({(*bn1)(x)});
  if (downsample) residual = (*downsample)(y);
  y = (*conv1)(y);
  y = relu_({(*bn2)(y)});
  y = (*conv2)(y);
  y = relu_({(*bn3)(y)});
  y = (*conv3)(y);
  return add_({y, residual});
}

ResNetV1::ResNetV1(ResidualBlockFactory block, std::vector<int> layers,
                   std::vector<int64_t> channels, int64_t classes, bool thumbnail) {
  CheckSpec(layers, channels, "ResNetV1");
  features = register_child(Seq(), "features");
  if (thumbnail) {
    features->add(Conv3x3(channels[0], 1, 0));
  } else {
    features->add(Conv(channels[0], {7}, {2}, {3}, false));
    features->add(BN());
    features->add(Relu());
    features->add(
        std::make_shared<nn::MaxPool2D>(Shape{3}, nn::PoolOptions{.strides = {2}, .padding = {1}}));
  }
  for (size_t i = 0; i < layers.size(); ++i)
    features->add(MakeLayer(block, layers[i], channels[i + 1], i == 0 ? 1 : 2, channels[i]));
  features->add(std::make_shared<nn::GlobalAvgPool2D>());
  output = register_child(
      std::make_shared<nn::Dense>(classes, nn::DenseOptions{.in_units = channels.back()}),
      "output");
}

NDArray ResNetV1::forward(const NDArray& x) { return (*output)((*features)(x)); }

ResNetV2::ResNetV2(ResidualBlockFactory block, std::vector<int> layers,
                   std::vector<int64_t> channels, int64_t classes, bool thumbnail) {
  CheckSpec(layers, channels, "ResNetV2");
  features = register_child(Seq(), "features");
  features->add(
      std::make_shared<nn::BatchNorm>(nn::BatchNormOptions{.center = false, .scale = false}));
  if (thumbnail) {
    features->add(Conv3x3(channels[0], 1, 0));
  } else {
    features->add(Conv(channels[0], {7}, {2}, {3}, false));
    features->add(BN());
    features->add(Relu());
    features->add(
        std::make_shared<nn::MaxPool2D>(Shape{3}, nn::PoolOptions{.strides = {2}, .padding = {1}}));
  }
  int64_t in_channels = channels[0];
  for (size_t i = 0; i < layers.size(); ++i) {
    features->add(MakeLayer(block, layers[i], channels[i + 1], i == 0 ? 1 : 2, in_channels));
    in_channels = channels[i + 1];
  }
  features->add(BN());
  features->add(Relu());
  features->add(std::make_shared<nn::GlobalAvgPool2D>());
  features->add(std::make_shared<nn::Flatten>());
  output = register_child(
      std::make_shared<nn::Dense>(classes, nn::DenseOptions{.in_units = in_channels}), "output");
}

NDArray ResNetV2::forward(const NDArray& x) { return (*output)((*features)(x)); }

std::shared_ptr<HybridBlock> get_resnet(int version, int num_layers, const ModelOptions& options,
                                        bool thumbnail) {
  struct Spec {
    int n;
    bool bottleneck;
    std::vector<int> layers;
    std::vector<int64_t> channels;
  };
  static const std::vector<Spec> specs = {
      {18, false, {2, 2, 2, 2}, {64, 64, 128, 256, 512}},
      {34, false, {3, 4, 6, 3}, {64, 64, 128, 256, 512}},
      {50, true, {3, 4, 6, 3}, {64, 256, 512, 1024, 2048}},
      {101, true, {3, 4, 23, 3}, {64, 256, 512, 1024, 2048}},
      {152, true, {3, 8, 36, 3}, {64, 256, 512, 1024, 2048}},
  };
  const Spec* spec = nullptr;
  for (const auto& s : specs)
    if (s.n == num_layers) spec = &s;
  MX_REQUIRE(spec, absl::StatusCode::kInvalidArgument, "Invalid number of layers: ", num_layers,
             ". Options are 18, 34, 50, 101, 152");
  MX_REQUIRE(version == 1 || version == 2, absl::StatusCode::kInvalidArgument,
             "Invalid resnet version: ", version, ". Options are 1 and 2.");
  internal::CheckArchOptions(options, StrCat("resnet", num_layers, "_v", version), {"thumbnail"});
  thumbnail = thumbnail || options.thumbnail.value_or(false);
  std::shared_ptr<HybridBlock> net;
  if (version == 1) {
    auto block = spec->bottleneck ? residual_block<BottleneckV1>() : residual_block<BasicBlockV1>();
    net =
        std::make_shared<ResNetV1>(block, spec->layers, spec->channels, options.classes, thumbnail);
  } else {
    auto block = spec->bottleneck ? residual_block<BottleneckV2>() : residual_block<BasicBlockV2>();
    net =
        std::make_shared<ResNetV2>(block, spec->layers, spec->channels, options.classes, thumbnail);
  }
  if (options.pretrained)
    internal::LoadPretrained(*net, StrCat("resnet", num_layers, "_v", version), options);
  return net;
}

std::shared_ptr<HybridBlock> resnet18_v1(const ModelOptions& o) { return get_resnet(1, 18, o); }
std::shared_ptr<HybridBlock> resnet34_v1(const ModelOptions& o) { return get_resnet(1, 34, o); }
std::shared_ptr<HybridBlock> resnet50_v1(const ModelOptions& o) { return get_resnet(1, 50, o); }
std::shared_ptr<HybridBlock> resnet101_v1(const ModelOptions& o) { return get_resnet(1, 101, o); }
std::shared_ptr<HybridBlock> resnet152_v1(const ModelOptions& o) { return get_resnet(1, 152, o); }
std::shared_ptr<HybridBlock> resnet18_v2(const ModelOptions& o) { return get_resnet(2, 18, o); }
std::shared_ptr<HybridBlock> resnet34_v2(const ModelOptions& o) { return get_resnet(2, 34, o); }
std::shared_ptr<HybridBlock> resnet50_v2(const ModelOptions& o) { return get_resnet(2, 50, o); }
std::shared_ptr<HybridBlock> resnet101_v2(const ModelOptions& o) { return get_resnet(2, 101, o); }
std::shared_ptr<HybridBlock> resnet152_v2(const ModelOptions& o) { return get_resnet(2, 152, o); }

}  // namespace mxnet::gluon::model_zoo::vision
