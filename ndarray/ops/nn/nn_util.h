// Internal helpers shared by the nn op family's .cc files (not part of the public API).
#pragma once

#include <cmath>
#include <span>
#include <string_view>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ndarray.h"
#include "ndarray/op.h"
#include "ndarray/ops/nn/nn_params.h"

namespace mxnet::ops::nn {

// `axis` (Python-style, negative from the end) as an index into a rank-`ndim` shape; throws
// kInvalidArgument naming the op, the attribute and the shape when out of range.
int NormalizeAxis(std::string_view op, std::string_view attr, int axis, const Shape& shape);

// A shape seen as (outer, n, inner) around one axis: element (o, k, i) is at (o * n + k) * inner +
// i.
struct Split3 {
  int64_t outer = 1, n = 1, inner = 1;
};
Split3 SplitAt(const Shape& s, int axis);

// The dtype of per-channel parameters and statistics for data of dtype `t`: float32 for the
// 16-bit floats, else `t` (MXNet's AccReal for BatchNorm).
int ParamDType(int t);

// Throws kInvalidArgument "<op>: <what> must be a floating-point array, got <dtype>".
void RequireFloat(std::string_view op, std::string_view what, DType t);

// Sets shape `*s` from `want` (merging unknown dims) naming op and input on a mismatch.
void AssignShape(std::string_view op, std::string_view input, Shape* s, const Shape& want);

// Builds an OpAttrs of `op_name` from a typed parameter struct.
template <typename P>
OpAttrs MakeAttrs(std::string_view op_name, P p) {
  return OpAttrs::From(OpRegistry::Get(op_name), std::move(p));
}

// Gradient helpers.
inline GradValue Apply1(GradBuilder& b, std::string_view op, std::vector<GradValue> in,
                        const OpAttrs& attrs) {
  return b.Apply(OpRegistry::Get(op), attrs, in)[0];
}

// The GELU constants (erf form, as MXNet 1.9's LeakyReLU gelu).
inline constexpr double kSqrt1_2 = 0.70710678118654752440;
inline constexpr double kInvSqrt2Pi = 0.39894228040143267794;
// SELU constants.
inline constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
inline constexpr double kSeluLambda = 1.0507009873554804934193349852946;

}  // namespace mxnet::ops::nn
