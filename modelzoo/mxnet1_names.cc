// MXNet 1.x parameter names of the model-zoo nets (gluon/param_names.h): how MXNet 1.9.1's
// python/mxnet/gluon/model_zoo/vision/*.py name their blocks, as rules over our module trees
// (which follow the same code). Checked name by name against real MXNet 1.9.1
// (//modelzoo:mxnet1_names_test, testdata/mxnet1_names.json from
// tools/conformance/gen_mxnet1_names.py).
//
// In those files the containers (features, residual blocks, bodies, fire modules, branches) are
// built with prefix='' and without a name scope of their own, so the layers inside are counted
// in the net's scope ("resnetv10_conv3"); the exceptions are the scopes below.
#include <string>
#include <vector>

#include "base/strings.h"
#include "gluon/param_names.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

// The children of net.features that hold containers (residual/dense stages, Inception's mixed
// blocks), in order: their index among them is the scope's number.
int StageIndex(const std::string& path, const Block& net) {
  if (!StartsWith(path, "features.") || path.find('.', 9) != std::string::npos) return -1;
  const Block* features = nullptr;
  for (const auto& [name, c] : net.children())
    if (name == "features") features = c.get();
  if (!features) return -1;
  int k = 0;
  for (const auto& [name, c] : features->children()) {
    bool holds_containers = false;
    for (const auto& [_, g] : c->children()) holds_containers |= !g->children().empty();
    if (!holds_containers) continue;
    if ("features." + name == path) return k;
    ++k;
  }
  return -1;
}

// Containers inherit their scope, leaves (the layers with parameters) are counted.
Mxnet1Scope Default(const Block& block) {
  return block.children().empty() ? Mxnet1Scope{} : Mxnet1Scope{Mxnet1Scope::kInherit, ""};
}

// resnet.py (layer = HybridSequential(prefix='stage%d_')), densenet.py (the dense blocks:
// HybridSequential(prefix='stage%d_')).
Mxnet1Scope Staged(const std::string& path, const Block& block, const Block& net) {
  int k = StageIndex(path, net);
  if (k >= 0) return {Mxnet1Scope::kFixed, StrCat("stage", k + 1, "_")};
  return Default(block);
}

// inception.py: the mixed blocks' HybridConcurrent(prefix='A1_') ... ('E2_').
Mxnet1Scope Inception(const std::string& path, const Block& block, const Block& net) {
  static const std::vector<std::string> kNames = {"A1_", "A2_", "A3_", "B_",  "C1_", "C2_",
                                                  "C3_", "C4_", "D_",  "E1_", "E2_"};
  int k = StageIndex(path, net);
  if (k >= 0 && k < static_cast<int>(kNames.size())) return {Mxnet1Scope::kFixed, kNames[k]};
  return Default(block);
}

// mobilenet.py's MobileNetV2: features = HybridSequential(prefix='features_') holding auto-named
// LinearBottleneck blocks (each its own scope), output = HybridSequential(prefix='output_') with
// Conv2D(prefix='pred_').
Mxnet1Scope MobileNetV2(const std::string& path, const Block& block, const Block&) {
  if (path == "features") return {Mxnet1Scope::kFixed, "features_"};
  if (path == "output") return {Mxnet1Scope::kFixed, "output_"};
  if (path == "output.0") return {Mxnet1Scope::kFixed, "pred_"};
  if (block.class_name() == "LinearBottleneck") return {};
  return Default(block);
}

Mxnet1Scope Plain(const std::string&, const Block& block, const Block&) { return Default(block); }

const bool kRegistered = [] {
  RegisterMxnet1Naming("ResNetV1", Staged);
  RegisterMxnet1Naming("ResNetV2", Staged);
  RegisterMxnet1Naming("DenseNet", Staged);
  RegisterMxnet1Naming("Inception3", Inception);
  RegisterMxnet1Naming("MobileNetV2", MobileNetV2);
  for (const char* c : {"AlexNet", "VGG", "SqueezeNet", "MobileNet"})
    RegisterMxnet1Naming(c, Plain);
  return true;
}();

}  // namespace
}  // namespace mxnet::gluon::model_zoo::vision
