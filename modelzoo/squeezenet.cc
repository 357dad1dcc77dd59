#include "modelzoo/squeezenet.h"

#include "base/strings.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

std::shared_ptr<nn::HybridSequential> FireConv(int64_t channels, int64_t kernel,
                                               int64_t padding = 0) {
  auto out = internal::Seq();
  out->add(internal::Conv(channels, {kernel}, {1}, {padding}));
  out->add(internal::Relu());
  return out;
}

std::shared_ptr<nn::HybridSequential> Fire(int64_t squeeze, int64_t expand1x1, int64_t expand3x3) {
  auto out = internal::Seq();
  out->add(FireConv(squeeze, 1));
  auto paths = std::make_shared<nn::HybridConcatenate>(1);
  paths->add(FireConv(expand1x1, 1));
  paths->add(FireConv(expand3x3, 3, 1));
  out->add(paths);
  return out;
}

std::shared_ptr<nn::MaxPool2D> CeilPool() {
  return std::make_shared<nn::MaxPool2D>(Shape{3},
                                         nn::PoolOptions{.strides = {2}, .ceil_mode = true});
}

}  // namespace

SqueezeNet::SqueezeNet(const std::string& version, int64_t classes) {
  MX_REQUIRE(version == "1.0" || version == "1.1", absl::StatusCode::kInvalidArgument,
             "Unsupported SqueezeNet version ", version, ": 1.0 or 1.1 expected");
  features = register_child(internal::Seq(), "features");
  if (version == "1.0") {
    features->add(internal::Conv(96, {7}, {2}));
    features->add(internal::Relu());
    features->add(CeilPool());
    features->add(Fire(16, 64, 64));
    features->add(Fire(16, 64, 64));
    features->add(Fire(32, 128, 128));
    features->add(CeilPool());
    features->add(Fire(32, 128, 128));
    features->add(Fire(48, 192, 192));
    features->add(Fire(48, 192, 192));
    features->add(Fire(64, 256, 256));
    features->add(CeilPool());
    features->add(Fire(64, 256, 256));
  } else {
    features->add(internal::Conv(64, {3}, {2}));
    features->add(internal::Relu());
    features->add(CeilPool());
    features->add(Fire(16, 64, 64));
    features->add(Fire(16, 64, 64));
    features->add(CeilPool());
    features->add(Fire(32, 128, 128));
    features->add(Fire(32, 128, 128));
    features->add(CeilPool());
    features->add(Fire(48, 192, 192));
    features->add(Fire(48, 192, 192));
    features->add(Fire(64, 256, 256));
    features->add(Fire(64, 256, 256));
  }
  features->add(std::make_shared<nn::Dropout>(0.5));
  output = register_child(internal::Seq(), "output");
  output->add(internal::Conv(classes, {1}));
  output->add(internal::Relu());
  output->add(std::make_shared<nn::AvgPool2D>(Shape{13}));
  output->add(std::make_shared<nn::Flatten>());
}

NDArray SqueezeNet::forward(const NDArray& x) { return (*output)((*features)(x)); }

std::shared_ptr<HybridBlock> get_squeezenet(const std::string& version,
                                            const ModelOptions& options) {
  internal::CheckArchOptions(options, StrCat("squeezenet", version), {});
  auto net = std::make_shared<SqueezeNet>(version, options.classes);
  if (options.pretrained) internal::LoadPretrained(*net, StrCat("squeezenet", version), options);
  return net;
}

std::shared_ptr<HybridBlock> squeezenet1_0(const ModelOptions& o) {
  return get_squeezenet("1.0", o);
}
std::shared_ptr<HybridBlock> squeezenet1_1(const ModelOptions& o) {
  return get_squeezenet("1.1", o);
}

}  // namespace mxnet::gluon::model_zoo::vision
