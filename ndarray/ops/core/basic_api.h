// nd:: free functions of the basic op family, and the helpers every family's API uses.
#pragma once

#include <initializer_list>

#include "ndarray/ndarray.h"
#include "ndarray/op.h"
#include "ndarray/ops/core/basic_util.h"

namespace mxnet::nd {

// Runs a registered op (looked up once per call site) with typed attributes and returns its
// visible outputs. Used by the per-op free functions.
inline NDArrayVec Call(const Op& op, const OpAttrs& attrs, std::initializer_list<NDArray> inputs) {
  NDArrayVec out = Invoke(op, attrs, std::span<const NDArray>(inputs.begin(), inputs.size()));
  out.resize(op.NumVisibleOutputs(attrs));
  return out;
}
// Cached op handle: MX_ND_OP(elemwise_add) is a `static const Op&`.
#define MX_ND_OP(NAME)                                              \
  []() -> const ::mxnet::Op& {                                      \
    static const ::mxnet::Op& op = ::mxnet::OpRegistry::Get(#NAME); \
    return op;                                                      \
  }()
// Attributes without a parameter struct.
inline OpAttrs NoAttrs(const Op& op) { return OpAttrs::Parse(op, {}); }

// Same-shape elementwise arithmetic (elemwise_add etc.). Shapes must match exactly.
inline NDArray elemwise_add(const NDArray& a, const NDArray& b) {
  const Op& op = MX_ND_OP(elemwise_add);
  return Call(op, NoAttrs(op), {a, b})[0];
}
inline NDArray elemwise_sub(const NDArray& a, const NDArray& b) {
  const Op& op = MX_ND_OP(elemwise_sub);
  return Call(op, NoAttrs(op), {a, b})[0];
}
inline NDArray elemwise_mul(const NDArray& a, const NDArray& b) {
  const Op& op = MX_ND_OP(elemwise_mul);
  return Call(op, NoAttrs(op), {a, b})[0];
}
inline NDArray elemwise_div(const NDArray& a, const NDArray& b) {
  const Op& op = MX_ND_OP(elemwise_div);
  return Call(op, NoAttrs(op), {a, b})[0];
}
inline NDArray negative(const NDArray& a) {
  const Op& op = MX_ND_OP(negative);
  return Call(op, NoAttrs(op), {a})[0];
}
inline NDArray zeros_like(const NDArray& a) {
  const Op& op = MX_ND_OP(zeros_like);
  return Call(op, NoAttrs(op), {a})[0];
}
inline NDArray ones_like(const NDArray& a) {
  const Op& op = MX_ND_OP(ones_like);
  return Call(op, NoAttrs(op), {a})[0];
}
// x + s, x - s, s - x, x * s, x / s, s / x (the _*_scalar ops).
NDArray plus_scalar(const NDArray& x, double s);
NDArray minus_scalar(const NDArray& x, double s);
NDArray rminus_scalar(const NDArray& x, double s);
NDArray mul_scalar(const NDArray& x, double s);
NDArray div_scalar(const NDArray& x, double s);
NDArray rdiv_scalar(const NDArray& x, double s);
// Broadcasts lhs (right-aligned, NumPy rules) to rhs's shape (mx.nd.broadcast_like).
inline NDArray broadcast_like(const NDArray& lhs, const NDArray& rhs) {
  const Op& op = MX_ND_OP(broadcast_like);
  return Call(op, NoAttrs(op), {lhs, rhs})[0];
}
// Broadcasts only lhs's axes lhs_axes (each of size 1) to the sizes of rhs's axes rhs_axes,
// pairwise; negative axes count from the end. Output: lhs's shape with those sizes replaced.
// Errors: lengths differ, an axis out of range, a non-1 lhs size that differs.
NDArray broadcast_like(const NDArray& lhs, const NDArray& rhs, const Shape& lhs_axes,
                       const Shape& rhs_axes);
// Broadcasts x's size-1 axes to `shape` (same rank; 0 keeps x's size) (mx.nd.broadcast_to).
// Errors: rank differs, a non-1 size that differs.
NDArray broadcast_to(const NDArray& x, const Shape& shape);
// Broadcasts x's size-1 axes `axis` (negative counts from the end) to sizes `size`
// (mx.nd.broadcast_axis / broadcast_axes). Errors: lengths differ, an axis out of range or not 1.
NDArray broadcast_axis(const NDArray& x, const Shape& axis, const Shape& size);

}  // namespace mxnet::nd
