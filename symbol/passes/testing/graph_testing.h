// Test support for graph passes and the executor: random graphs of conv/FC/activation/BN/add
// ops (with values for every input) and an op-by-op imperative interpreter of Symbols.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "symbol/executor.h"
#include "symbol/symbol.h"

namespace mxnet::sym::testing {

struct RandomGraph {
  Symbol symbol;
  std::map<std::string, NDArray> values;  // every input of `symbol`, by name
};

struct RandomGraphOptions {
  int num_ops = 12;  // building steps (each adds one to four nodes)
  int batch = 2;
  int channels = 4;
  int size = 6;  // spatial H = W
  DType dtype = DType::kFloat32;
  bool dropout = true;     // may insert Dropout (an identity in inference)
  bool constants = true;   // may add constant subgraphs (_ones * scalar)
  bool duplicates = true;  // may repeat an earlier op on the same inputs
};

// A random graph: Convolution (3x3 / 1x1, with or without bias), BatchNorm (random statistics,
// fix_gamma either way), Activation (relu/sigmoid/tanh/softrelu), elemwise_add, Dropout,
// constant subgraphs and repeated ops on 4-D values, then Flatten + FullyConnected with
// BatchNorm/Activation/add on 2-D values. Two outputs (the last value and an earlier one).
RandomGraph RandomConvGraph(uint64_t seed, const RandomGraphOptions& options = {});

// Runs `s` node by node through the imperative dispatch (nd::Invoke) in the given mode; values
// by input name (aux inputs are updated in place in training, like the executor).
std::vector<NDArray> Interpret(const Symbol& s, const std::map<std::string, NDArray>& values,
                               bool is_train = false);

// The arrays of `values` in op.input_names() order; copies when `copy` (aux states mutate).
std::vector<NDArray> InputsFor(const CachedOp& op, const std::map<std::string, NDArray>& values,
                               bool copy = false);

// Deep copies of every value.
std::map<std::string, NDArray> CopyValues(const std::map<std::string, NDArray>& values);

}  // namespace mxnet::sym::testing
