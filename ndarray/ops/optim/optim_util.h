// Building blocks of the optim op family (optim*.cc): MXNet's clip, and the declaration of an
// update op's inputs from which its registration (input names, mutated inputs, in-place output,
// output count) and its shape and type inference all follow.
//
// An update op's inputs are a group (weight, grad, states, master weights, ...) and a tail. A
// single-weight op (sgd_mom_update) is one group; a multi-tensor op (multi_sgd_mom_update)
// repeats the group once per weight k, with names suffixed "_k" and output k the new weight k,
// then takes the tail (preloaded lrs/wds, AdamW's rescale_grad). Inference:
//  - shape: per group, every weight-shaped input and the output share one shape; one-element
//    inputs hold exactly one element, kAtLeastOne inputs at least one, kPerWeight inputs one
//    value per weight (unknown shapes are filled);
//  - dtype: inputs not marked f32 (and the outputs unless out_f32) share the weights' dtype;
//    f32 inputs (mp_ master weights and states) must be float32.
// Errors (kInvalidArgument) name the op and the input.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ndarray/ndarray.h"
#include "ndarray/op.h"
#include "ndarray/ops/core/basic_api.h"

namespace mxnet::ops::optim {

constexpr int64_t kGrain = 16384;

// mshadow's clip for bound >= 0 (NaN stays NaN), as two selects so loops containing it vectorize.
template <typename A>
inline A Clip(A x, A bound) {
  A y = x > bound ? bound : x;
  return y < -bound ? -bound : y;
}

template <typename T>
T* Ptr(const NDArray& a) {
  return static_cast<T*>(a.data_ptr());
}

inline std::string_view OpName(const OpAttrs& a) {
  return a.op() ? std::string_view(a.op()->name) : std::string_view("optimizer op");
}

// ---- Inputs. ----
enum class ShapeRule : uint8_t {
  kWeight,      // the weight's shape
  kOne,         // exactly one element (lamb's r1/r2, _adamw_update's rescale_grad)
  kAtLeastOne,  // at least one element, the first is read (_multi_adamw_update's rescale_grad)
  kPerWeight,   // one value per weight (preloaded lrs/wds)
};
struct UpdateInput {
  std::string name;
  bool f32 = false;      // float32 whatever the weights' dtype (mp_ master weights and states)
  bool mutated = false;  // updated in place by the kernel
  ShapeRule shape = ShapeRule::kWeight;
};
// Weight-shaped inputs of the weights' dtype: read only (weight, grad) or states (mom, mean).
inline UpdateInput In(std::string name) { return {std::move(name)}; }
inline UpdateInput State(std::string name) { return {std::move(name), false, true}; }
// float32 weight-shaped inputs of mp_ ops (master weights, states), mutated unless stated.
inline UpdateInput F32(std::string name, bool mutated = true) {
  return {std::move(name), true, mutated};
}
// Non-weight-shaped inputs.
inline UpdateInput Scalar(std::string name, bool f32, ShapeRule rule = ShapeRule::kOne) {
  return {std::move(name), f32, false, rule};
}

struct UpdateLayout {
  std::vector<UpdateInput> group;
  bool out_f32 = false;  // the output is float32 (mp_lamb_update_phase1's g)
  std::vector<UpdateInput> tail;
};

// Shape and type inference of `layout` for n weights (n < 0: a single-weight op, names as
// declared).
void InferUpdateShape(const UpdateLayout& layout, int n, const OpAttrs& a, ShapeVec* in,
                      ShapeVec* out);
void InferUpdateType(const UpdateLayout& layout, int n, const OpAttrs& a, DTypeVec* in,
                     DTypeVec* out);

// A single-weight update op: inputs as `layout` (a group, no tail), one output that may share
// input 0's buffer (the in-place update), not differentiable. All-weight-typed layouts keep the
// registry's elementwise inference.
Op& DeclareUpdate(Op& op, UpdateLayout layout);

// A multi-tensor update op with attributes P whose field `count` (num_weights / num_tensors)
// says how many groups it takes.
Op& DeclareMultiUpdate(Op& op, UpdateLayout layout, std::function<int(const OpAttrs&)> count);
template <typename P>
Op& RegisterMultiUpdate(const char* name, int P::*count, UpdateLayout layout, FCompute kernel,
                        const char* doc) {
  Op& op = OpRegistry::Register(name);
  op.describe(doc).set_params<P>().set_kernel({DeviceType::kCPU, Backend::kReference},
                                              std::move(kernel));
  return DeclareMultiUpdate(op, std::move(layout),
                            [count](const OpAttrs& a) { return a.get<P>().*count; });
}

// Validate() of the multi-tensor attributes: "" when n >= 1 and every (what, got) count equals
// n, else "n_name must be >= 1, got n" or "what has got values, expected n_name = n".
std::string CheckPerWeight(int n, std::string_view n_name,
                           std::initializer_list<std::pair<std::string_view, size_t>> counts);

}  // namespace mxnet::ops::optim

namespace mxnet::nd::optim {

// Runs `op` into `out` (returned) when given, else into new arrays (all outputs returned).
std::vector<NDArray> Run(const Op& op, const OpAttrs& attrs, const std::vector<NDArray>& in,
                         const std::vector<NDArray>& out);
// A single-output op with typed attributes P; `out` none: a new array.
template <typename P>
NDArray RunOne(const Op& op, const P& param, std::initializer_list<NDArray> in,
               const NDArray& out) {
  OpAttrs attrs = OpAttrs::From(op, param);
  std::span<const NDArray> inputs(in.begin(), in.size());
  if (out.is_none()) return Invoke(op, attrs, inputs)[0];
  InvokeInto(op, attrs, inputs, std::span<const NDArray>(&out, 1));
  return out;
}
// lists[j][k] is input j of weight k: the inputs interleaved per weight, then `tail`. Errors
// (kInvalidArgument, naming `op`): no weights, lists or `out` (unless empty) of other lengths.
std::vector<NDArray> Interleave(std::string_view op,
                                const std::vector<const std::vector<NDArray>*>& lists,
                                const std::vector<NDArray>& out,
                                std::initializer_list<NDArray> tail);
// A multi-tensor op on interleaved lists; the attributes' `count` field (num_weights /
// num_tensors) is set to the number of weights.
template <typename P>
std::vector<NDArray> RunMulti(const Op& op, P param, int P::*count,
                              const std::vector<const std::vector<NDArray>*>& lists,
                              const std::vector<NDArray>& out,
                              std::initializer_list<NDArray> tail = {}) {
  std::vector<NDArray> in = Interleave(op.name, lists, out, tail);
  param.*count = static_cast<int>(lists[0]->size());
  return Run(op, OpAttrs::From(op, std::move(param)), in, out);
}

}  // namespace mxnet::nd::optim
