// Gradients as compositions of registered ops. An op's FGradient is written once against
// GradBuilder; autograd evaluates it eagerly on NDArrays (EagerGradBuilder, also used by the
// gradient tests) and the symbol library builds graph nodes with it, so higher-order gradients
// and graph differentiation come from the same definition.
#pragma once

#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "ndarray/op.h"

namespace mxnet {

// A value inside a gradient computation (an NDArray or a graph node output).
struct GradValue {
  int id = -1;
  bool valid() const { return id >= 0; }
};

class GradBuilder {
 public:
  virtual ~GradBuilder() = default;
  // Applies `op` and returns all of its outputs.
  virtual std::vector<GradValue> Apply(const Op& op, const OpAttrs& attrs,
                                       std::span<const GradValue> inputs) = 0;

  // Op by name with string attributes; returns output 0.
  GradValue Call(std::string_view op, std::initializer_list<GradValue> inputs,
                 const AttrDict& attrs = {});
  // Op by name with typed attributes; returns output 0.
  template <typename P>
  GradValue CallP(std::string_view op, std::initializer_list<GradValue> inputs, P param) {
    const Op& o = OpRegistry::Get(op);
    return Apply(o, OpAttrs::From(o, std::move(param)), std::vector<GradValue>(inputs))[0];
  }

  // Sugar over registered ops (same-shape elementwise unless noted).
  GradValue Add(GradValue a, GradValue b) { return Call("elemwise_add", {a, b}); }
  GradValue Sub(GradValue a, GradValue b) { return Call("elemwise_sub", {a, b}); }
  GradValue Mul(GradValue a, GradValue b) { return Call("elemwise_mul", {a, b}); }
  GradValue Div(GradValue a, GradValue b) { return Call("elemwise_div", {a, b}); }
  GradValue Neg(GradValue a) { return Call("negative", {a}); }
  GradValue MulScalar(GradValue a, double s);
  GradValue AddScalar(GradValue a, double s);
  GradValue ZerosLike(GradValue a) { return Call("zeros_like", {a}); }
  GradValue OnesLike(GradValue a) { return Call("ones_like", {a}); }
  // Sums `g` over the axes along which `like` was broadcast, giving like's shape (grad of
  // broadcasting binary ops).
  GradValue SumLike(GradValue g, GradValue like) { return Call("_reduce_sum_like", {g, like}); }
};

// Evaluates gradient definitions immediately with Invoke (autograd; tests).
class EagerGradBuilder final : public GradBuilder {
 public:
  GradValue Wrap(const NDArray& a) {
    values_.push_back(a);
    return GradValue{static_cast<int>(values_.size()) - 1};
  }
  const NDArray& Get(GradValue v) const;
  std::vector<GradValue> Apply(const Op& op, const OpAttrs& attrs,
                               std::span<const GradValue> inputs) override;

  // Runs op's gradient on concrete arrays; returns one NDArray per input (none where the op has
  // no gradient for that input). Throws kUnimplemented if the op is not differentiable.
  static std::vector<NDArray> Run(const Op& op, const OpAttrs& attrs,
                                  std::span<const NDArray> inputs, std::span<const NDArray> outputs,
                                  std::span<const NDArray> out_grads);

 private:
  std::vector<NDArray> values_;
};

}  // namespace mxnet
