// A registry op with fixed typed attributes, made once when a layer is built (no string parsing
// or printing, no per-call work), and other internal helpers of gluon::nn layers.
//
//   internal::OpCall drop(MX_ND_OP(Dropout), ops::DropoutParam{.p = 0.5f});
//   NDArray y = drop({x});
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ndarray/ops/conv/typed_attrs.h"
#include "ndarray/ops/core/basic_api.h"

namespace mxnet::gluon::nn::internal {

class OpCall {
 public:
  OpCall() = default;
  // An op without attributes (elemwise_add, _copy, sigmoid, ...).
  explicit OpCall(const Op& op) : attrs_(nd::NoAttrs(op)) {}
  // An op with its parameter struct P (the op's declared attributes), checked like the string
  // form (declared choices, P::Validate): kInvalidArgument naming the op and attribute.
  template <typename P>
  OpCall(const Op& op, P param) : attrs_(CheckedAttrs(op, std::move(param))) {}
  bool valid() const { return attrs_.op() != nullptr; }
  const OpAttrs& attrs() const { return attrs_; }
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
