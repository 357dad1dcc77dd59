#include "modelzoo/mobilenet.h"

#include <cstdio>

#include "base/strings.h"
#include "ndarray/ops/elemwise/elemwise_params.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

// MXNet's _add_conv: conv (no bias) - BN - [relu or RELU6].
void AddConv(nn::HybridSequential& out, int64_t channels, int64_t kernel = 1, int64_t stride = 1,
             int64_t pad = 0, int64_t num_group = 1, bool active = true, bool relu6 = false) {
  out.add(internal::Conv(channels, {kernel}, {stride}, {pad}, false, 0, num_group));
  out.add(internal::BN());
  if (active) {
    if (relu6)
      out.add(std::make_shared<RELU6>());
    else
      out.add(internal::Relu());
  }
}

void AddConvDw(nn::HybridSequential& out, int64_t dw_channels, int64_t channels, int64_t stride) {
  AddConv(out, dw_channels, 3, stride, 1, dw_channels);
  AddConv(out, channels);
}

int64_t Mult(int64_t c, double multiplier) {
  return static_cast<int64_t>(static_cast<double>(c) * multiplier);
}

// MXNet's name suffix: '{:.2f}' with 1.00 -> 1.0 and 0.50 -> 0.5.
std::string VersionSuffix(double multiplier) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", multiplier);
  std::string s = buf;
  if (s == "1.00" || s == "0.50") s.pop_back();
  return s;
}

}  // namespace

RELU6::RELU6() : clip_(MX_ND_OP(clip), ops::ClipParam{.a_min = 0, .a_max = 6}) {}

LinearBottleneck::LinearBottleneck(int64_t in_channels, int64_t channels, int64_t t, int64_t stride)
    : use_shortcut_(stride == 1 && in_channels == channels), add_(MX_ND_OP(elemwise_add)) {
  out = register_child(internal::Seq(), "out");
  AddConv(*out, in_channels * t, 1, 1, 0, 1, true, true);
  AddConv(*out, in_channels * t, 3, stride, 1, in_channels * t, true, true);
  AddConv(*out, channels, 1, 1, 0, 1, false, true);
}

NDArray LinearBottleneck::forward(const NDArray& x) {
  NDArray y = (*out)(x);
  return use_shortcut_ ? add_({y, x}) : y;
}

MobileNet::MobileNet(double multiplier, int64_t classes) {
  features = register_child(internal::Seq(), "features");
  AddConv(*features, Mult(32, multiplier), 3, 2, 1);
  std::vector<int64_t> dw = {32, 64, 128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 1024};
  std::vector<int64_t> ch = {64, 128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 1024, 1024};
  std::vector<int64_t> strides = {1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1};
  for (size_t i = 0; i < dw.size(); ++i)
    AddConvDw(*features, Mult(dw[i], multiplier), Mult(ch[i], multiplier), strides[i]);
  features->add(std::make_shared<nn::GlobalAvgPool2D>());
  features->add(std::make_shared<nn::Flatten>());
  output = register_child(std::make_shared<nn::Dense>(classes), "output");
}

NDArray MobileNet::forward(const NDArray& x) { return (*output)((*features)(x)); }

MobileNetV2::MobileNetV2(double multiplier, int64_t classes) {
  features = register_child(internal::Seq(), "features");
  AddConv(*features, Mult(32, multiplier), 3, 2, 1, 1, true, true);
  std::vector<int64_t> in_group = {32, 16, 24, 24, 32, 32,  32,  64, 64,
                                   64, 64, 96, 96, 96, 160, 160, 160};
  std::vector<int64_t> ch_group = {16, 24, 24, 32, 32,  32,  64,  64, 64,
                                   64, 96, 96, 96, 160, 160, 160, 320};
  std::vector<int64_t> strides = {1, 2, 1, 2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1};
  for (size_t i = 0; i < in_group.size(); ++i)
    features->add(std::make_shared<LinearBottleneck>(
        Mult(in_group[i], multiplier), Mult(ch_group[i], multiplier), i == 0 ? 1 : 6, strides[i]));
  int64_t last_channels = multiplier > 1.0 ? Mult(1280, multiplier) : 1280;
  AddConv(*features, last_channels, 1, 1, 0, 1, true, true);
  features->add(std::make_shared<nn::GlobalAvgPool2D>());
  output = register_child(internal::Seq(), "output");
  output->add(internal::Conv(classes, {1}, {1}, {0}, false));
  output->add(std::make_shared<nn::Flatten>());
}

NDArray MobileNetV2::forward(const NDArray& x) { return (*output)((*features)(x)); }

std::shared_ptr<HybridBlock> get_mobilenet(double multiplier, const ModelOptions& options) {
  internal::CheckArchOptions(options, StrCat("mobilenet", VersionSuffix(multiplier)), {});
  auto net = std::make_shared<MobileNet>(multiplier, options.classes);
  if (options.pretrained)
    internal::LoadPretrained(*net, StrCat("mobilenet", VersionSuffix(multiplier)), options);
  return net;
}

std::shared_ptr<HybridBlock> get_mobilenet_v2(double multiplier, const ModelOptions& options) {
  internal::CheckArchOptions(options, StrCat("mobilenetv2_", VersionSuffix(multiplier)), {});
  auto net = std::make_shared<MobileNetV2>(multiplier, options.classes);
  if (options.pretrained)
    internal::LoadPretrained(*net, StrCat("mobilenetv2_", VersionSuffix(multiplier)), options);
  return net;
}

std::shared_ptr<HybridBlock> mobilenet1_0(const ModelOptions& o) { return get_mobilenet(1.0, o); }
std::shared_ptr<HybridBlock> mobilenet0_75(const ModelOptions& o) { return get_mobilenet(0.75, o); }
std::shared_ptr<HybridBlock> mobilenet0_5(const ModelOptions& o) { return get_mobilenet(0.5, o); }
std::shared_ptr<HybridBlock> mobilenet0_25(const ModelOptions& o) { return get_mobilenet(0.25, o); }
std::shared_ptr<HybridBlock> mobilenet_v2_1_0(const ModelOptions& o) {
  return get_mobilenet_v2(1.0, o);
}
std::shared_ptr<HybridBlock> mobilenet_v2_0_75(const ModelOptions& o) {
  return get_mobilenet_v2(0.75, o);
}
std::shared_ptr<HybridBlock> mobilenet_v2_0_5(const ModelOptions& o) {
  return get_mobilenet_v2(0.5, o);
}
std::shared_ptr<HybridBlock> mobilenet_v2_0_25(const ModelOptions& o) {
  return get_mobilenet_v2(0.25, o);
}

}  // namespace mxnet::gluon::model_zoo::vision
