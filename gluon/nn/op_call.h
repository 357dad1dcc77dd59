// A registry op with fixed attributes, parsed once when a layer is built (no string parsing per
// call), and other internal helpers of gluon::nn layers.
#pragma once

#include <string>
#include <vector>

#include "ndarray/op.h"

namespace mxnet::gluon::nn::internal {

class OpCall {
 public:
  OpCall() = default;
  OpCall(const std::string& op, const AttrDict& attrs)
      : attrs_(OpAttrs::Parse(OpRegistry::Get(op), attrs)) {}
  bool valid() const { return attrs_.op() != nullptr; }
  // Output 0 of the op on `inputs`.
  NDArray operator()(std::vector<NDArray> inputs) const {
    return Invoke(*attrs_.op(), attrs_, inputs)[0];
  }

 private:
  OpAttrs attrs_;
};

// How MXNet 1.9.1 prints a block without its own __repr__ and without child blocks (PReLU, ELU,
// ReflectionPad2D, ...): Block.__repr__ with an empty module list.
inline std::string EmptyBlockRepr(const std::string& class_name) { return class_name + "(\n\n)"; }

}  // namespace mxnet::gluon::nn::internal
