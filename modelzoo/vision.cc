#include "modelzoo/vision.h"

#include <algorithm>
#include <functional>
#include <map>

#include "base/strings.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

using Factory = std::function<std::shared_ptr<HybridBlock>(const ModelOptions&)>;

const std::map<std::string, Factory>& Models() {
  static const auto* models = new std::map<std::string, Factory>{
      {"resnet18_v1", resnet18_v1},
      {"resnet34_v1", resnet34_v1},
      {"resnet50_v1", resnet50_v1},
      {"resnet101_v1", resnet101_v1},
      {"resnet152_v1", resnet152_v1},
      {"resnet18_v2", resnet18_v2},
      {"resnet34_v2", resnet34_v2},
      {"resnet50_v2", resnet50_v2},
      {"resnet101_v2", resnet101_v2},
      {"resnet152_v2", resnet152_v2},
      {"vgg11", vgg11},
      {"vgg13", vgg13},
      {"vgg16", vgg16},
      {"vgg19", vgg19},
      {"vgg11_bn", vgg11_bn},
      {"vgg13_bn", vgg13_bn},
      {"vgg16_bn", vgg16_bn},
      {"vgg19_bn", vgg19_bn},
      {"alexnet", alexnet},
      {"densenet121", densenet121},
      {"densenet161", densenet161},
      {"densenet169", densenet169},
      {"densenet201", densenet201},
      {"squeezenet1.0", squeezenet1_0},
      {"squeezenet1.1", squeezenet1_1},
      {"inceptionv3", inception_v3},
      {"mobilenet1.0", mobilenet1_0},
      {"mobilenet0.75", mobilenet0_75},
      {"mobilenet0.5", mobilenet0_5},
      {"mobilenet0.25", mobilenet0_25},
      {"mobilenetv2_1.0", mobilenet_v2_1_0},
      {"mobilenetv2_0.75", mobilenet_v2_0_75},
      {"mobilenetv2_0.5", mobilenet_v2_0_5},
      {"mobilenetv2_0.25", mobilenet_v2_0_25},
  };
  return *models;
}

}  // namespace

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& [n, _] : Models()) names.push_back(n);
  return names;  // std::map iterates in sorted order, like Python's sorted()
}

std::shared_ptr<HybridBlock> get_model(std::string_view name, const ModelOptions& options) {
  std::string key = AsciiToLower(name);
  auto it = Models().find(key);
  if (it == Models().end())
    MX_THROW(absl::StatusCode::kInvalidArgument, "Model ", key,
             " is not supported. Available options are\n\t", StrJoin(model_names(), "\n\t"));
  return it->second(options);
}

int64_t input_size(std::string_view name) {
  return AsciiToLower(name) == "inceptionv3" ? 299 : 224;
}

}  // namespace mxnet::gluon::model_zoo::vision
