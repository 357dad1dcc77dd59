// MXNet 1.x Gluon parameter names ("resnetv10_stage1_conv0_weight") for our blocks, whose own
// names are MXNet 2.x's structured ones ("features.4.0.body.0.weight"). Used by
// Block::mxnet1_param_names, save_parameters / export_model with ParamNames::kMxnet1 and the
// 1.x-name detection of load_parameters.
//
// MXNet 1.x (python/mxnet/gluon/block.py, _BlockScope) names a block when it is constructed:
// an explicit prefix, or "<hint><count>_" where the count runs per hint inside the enclosing
// name scope; parameters are "<block prefix><leaf>". Without rules every block here is named the
// second way, each opening its own scope (a 1.x block built under `with self.name_scope()`). The
// model zoo registers rules for its nets (explicit "stage1_" scopes, containers built with
// prefix='' that name nothing), following MXNet 1.9.1's model_zoo/vision code.
#pragma once

#include <functional>
#include <string>

#include "gluon/block.h"

namespace mxnet::gluon {

struct Mxnet1Scope {
  enum Kind {
    kAuto,     // "<hint><count>_" in the enclosing scope; opens its own scope
    kFixed,    // `prefix` appended to the enclosing prefix; opens its own scope
    kInherit,  // prefix='' built in the enclosing scope: adds nothing, shares its counters
  };
  Kind kind = kAuto;
  std::string prefix;  // kFixed only ("stage1_")
};

// How 1.x names `block`, the descendant at `path` (its structured path inside `net`, e.g.
// "features.4" or "output.0") of a net of the registered class.
using Mxnet1Rule =
    std::function<Mxnet1Scope(const std::string& path, const Block& block, const Block& net)>;

// Registers the rule for nets whose class_name() is `class_name` (the model zoo's ResNetV1, ...);
// it applies to the descendants of such a block; the block itself is named kAuto. A later
// registration for the same class replaces the earlier. Thread-safe.
void RegisterMxnet1Naming(const std::string& class_name, Mxnet1Rule rule);

// The 1.x counter hint of a block: "conv" (Conv1D..3D and transposes), "dense", "batchnorm",
// "pool" (pooling layers), otherwise the lowercase class name ("hybridsequential", "resnetv1").
std::string Mxnet1Hint(const Block& block);

// The 1.x prefix of `net` built as the root in a fresh process: "<hint>0_" ("resnetv10_"), and
// "" for a SymbolBlock (1.x SymbolBlocks name parameters by their graph variables, unprefixed,
// wherever they sit in a net).
std::string Mxnet1RootPrefix(const Block& net);

}  // namespace mxnet::gluon
