// nd:: free functions of the elemwise op family (see ndarray/ops/BUILD), and the arithmetic,
// comparison and modulo operators on NDArray (mxnet.ndarray.NDArray's __add__ etc.).
//
// Common rules (MXNet 1.9.1, legacy mx.nd semantics):
//  - dtypes: every numeric dtype except bool unless noted; inputs of binary ops share one dtype
//    (a mismatch throws kInvalidArgument naming the op and input). Results keep the input dtype,
//    comparisons and logic included (1/0 as float32 for float32 inputs). float16/bfloat16
//    compute in float32; integer inputs of transcendental functions are computed in floating
//    point and truncated (exp of int32 1 is 2).
//  - broadcast_* and the NDArray operators broadcast like NumPy (right-aligned; size-1 axes
//    stretch; ranks may differ; zero-size axes allowed). Incompatible shapes throw
//    kInvalidArgument "broadcast_add: operands could not be broadcast together with shapes
//    (2, 3) and (4, 3)".
//  - integer division truncates; integer x/0 and x%0 give 0 (MXNet crashes); % follows Python
//    (result has the divisor's sign); maximum/minimum propagate NaN.
//  - scalar ops (`*_scalar`): the scalar converts to the array's dtype (is_int=true, MXNet's
//    default: int32 > 2.5 compares with 2); with is_int=false an integer array gives a float64
//    result (MXNet's NumpyBinaryScalarType); a bool array gives int64 (is_int) or float64.
#pragma once

#include <initializer_list>
#include <span>
#include <vector>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/elemwise/elemwise_params.h"

namespace mxnet::nd {

// ---- Unary math (mx.nd.<name>); output has the input's shape and dtype. ----
NDArray exp(const NDArray& x);
NDArray log(const NDArray& x);  // NaN for x < 0, -inf at 0
NDArray log2(const NDArray& x);
NDArray log10(const NDArray& x);
NDArray log1p(const NDArray& x);  // log(1 + x)
NDArray expm1(const NDArray& x);  // exp(x) - 1
NDArray sqrt(const NDArray& x);
NDArray rsqrt(const NDArray& x);  // 1 / sqrt(x)
NDArray cbrt(const NDArray& x);
NDArray rcbrt(const NDArray& x);  // 1 / cbrt(x)
NDArray square(const NDArray& x);
NDArray reciprocal(const NDArray& x);  // 1 / x; integers: truncated, 1/0 = 0
NDArray abs(const NDArray& x);
NDArray sign(const NDArray& x);  // -1, 0, 1 (0 for NaN); zero gradient
// Rounding (zero gradients): floor, ceil, round (halves away from zero), rint (MXNet's: halves
// to the lower integer, 1.5 -> 1, -0.5 -> -1), fix and trunc (toward zero).
NDArray floor(const NDArray& x);
NDArray ceil(const NDArray& x);
NDArray round(const NDArray& x);
NDArray rint(const NDArray& x);
NDArray fix(const NDArray& x);
NDArray trunc(const NDArray& x);
// Trigonometric (radians) and hyperbolic functions and their inverses.
NDArray sin(const NDArray& x);
NDArray cos(const NDArray& x);
NDArray tan(const NDArray& x);
NDArray arcsin(const NDArray& x);
NDArray arccos(const NDArray& x);
NDArray arctan(const NDArray& x);
NDArray sinh(const NDArray& x);
NDArray cosh(const NDArray& x);
NDArray tanh(const NDArray& x);
NDArray arcsinh(const NDArray& x);
NDArray arccosh(const NDArray& x);
NDArray arctanh(const NDArray& x);
NDArray degrees(const NDArray& x);  // radians -> degrees
NDArray radians(const NDArray& x);  // degrees -> radians
// Special functions: erf, erfinv (+-inf at +-1, NaN outside [-1, 1]), gamma, gammaln
// (log|gamma(x)|).
NDArray erf(const NDArray& x);
NDArray erfinv(const NDArray& x);
NDArray gamma(const NDArray& x);
NDArray gammaln(const NDArray& x);
// Activations: relu (max(x, 0), NaN stays NaN), sigmoid, softsign (x / (1 + |x|)).
NDArray relu(const NDArray& x);
NDArray sigmoid(const NDArray& x);
NDArray softsign(const NDArray& x);
// 1 where x == 0 else 0, in x's dtype (NaN counts as true, so gives 0).
NDArray logical_not(const NDArray& x);
// Identity whose gradient is zero (mx.nd.BlockGrad / stop_gradient); any dtype incl. bool.
NDArray BlockGrad(const NDArray& x);
NDArray stop_gradient(const NDArray& x);
// Identity whose gradient is ones regardless of the output gradient (mx.nd.make_loss).
NDArray make_loss(const NDArray& x);

// ---- Broadcasting binary ops (mx.nd.broadcast_*); shapes broadcast, dtypes must match. ----
NDArray broadcast_add(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_plus(const NDArray& lhs, const NDArray& rhs);  // alias of broadcast_add
NDArray broadcast_sub(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_minus(const NDArray& lhs, const NDArray& rhs);  // alias of broadcast_sub
NDArray broadcast_mul(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_div(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_mod(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_power(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_maximum(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_minimum(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_hypot(const NDArray& lhs, const NDArray& rhs);
// Comparisons and logic: 1/0 in the input dtype; zero gradients.
NDArray broadcast_equal(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_not_equal(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_greater(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_greater_equal(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_lesser(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_lesser_equal(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_logical_and(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_logical_or(const NDArray& lhs, const NDArray& rhs);
NDArray broadcast_logical_xor(const NDArray& lhs, const NDArray& rhs);

// ---- Same-shape binary ops (MXNet's _mod, _power, _maximum, _equal, ...): like the
// broadcast_* versions, but shapes must be equal (kInvalidArgument otherwise). ----
NDArray elemwise_mod(const NDArray& lhs, const NDArray& rhs);
NDArray elemwise_power(const NDArray& lhs, const NDArray& rhs);
NDArray elemwise_maximum(const NDArray& lhs, const NDArray& rhs);
NDArray elemwise_minimum(const NDArray& lhs, const NDArray& rhs);
NDArray elemwise_hypot(const NDArray& lhs, const NDArray& rhs);
NDArray elemwise_equal(const NDArray& lhs, const NDArray& rhs);
NDArray elemwise_not_equal(const NDArray& lhs, const NDArray& rhs);
NDArray elemwise_greater(const NDArray& lhs, const NDArray& rhs);
NDArray elemwise_greater_equal(const NDArray& lhs, const NDArray& rhs);
NDArray elemwise_lesser(const NDArray& lhs, const NDArray& rhs);
NDArray elemwise_lesser_equal(const NDArray& lhs, const NDArray& rhs);
NDArray elemwise_logical_and(const NDArray& lhs, const NDArray& rhs);
NDArray elemwise_logical_or(const NDArray& lhs, const NDArray& rhs);
NDArray elemwise_logical_xor(const NDArray& lhs, const NDArray& rhs);

// ---- Scalar ops (MXNet's _power_scalar etc.; `r` = scalar on the left: rpower_scalar(x, s)
// is s ^ x). Output dtype: see the header comment (is_int). ----
NDArray power_scalar(const NDArray& x, double s, bool is_int = true);
NDArray rpower_scalar(const NDArray& x, double s, bool is_int = true);
NDArray maximum_scalar(const NDArray& x, double s, bool is_int = true);
NDArray minimum_scalar(const NDArray& x, double s, bool is_int = true);
NDArray mod_scalar(const NDArray& x, double s, bool is_int = true);
NDArray rmod_scalar(const NDArray& x, double s, bool is_int = true);
NDArray hypot_scalar(const NDArray& x, double s, bool is_int = true);
NDArray equal_scalar(const NDArray& x, double s, bool is_int = true);
NDArray not_equal_scalar(const NDArray& x, double s, bool is_int = true);
NDArray greater_scalar(const NDArray& x, double s, bool is_int = true);
NDArray greater_equal_scalar(const NDArray& x, double s, bool is_int = true);
NDArray lesser_scalar(const NDArray& x, double s, bool is_int = true);
NDArray lesser_equal_scalar(const NDArray& x, double s, bool is_int = true);
NDArray logical_and_scalar(const NDArray& x, double s, bool is_int = true);
NDArray logical_or_scalar(const NDArray& x, double s, bool is_int = true);
NDArray logical_xor_scalar(const NDArray& x, double s, bool is_int = true);

// ---- mx.nd.maximum / minimum / power / modulo: broadcast op for two arrays, scalar op when
// one side is a number. ----
NDArray maximum(const NDArray& lhs, const NDArray& rhs);
NDArray maximum(const NDArray& lhs, double rhs);
NDArray maximum(double lhs, const NDArray& rhs);
NDArray minimum(const NDArray& lhs, const NDArray& rhs);
NDArray minimum(const NDArray& lhs, double rhs);
NDArray minimum(double lhs, const NDArray& rhs);
NDArray power(const NDArray& base, const NDArray& exp);
NDArray power(const NDArray& base, double exp);
NDArray power(double base, const NDArray& exp);
NDArray modulo(const NDArray& lhs, const NDArray& rhs);
NDArray modulo(const NDArray& lhs, double rhs);
NDArray modulo(double lhs, const NDArray& rhs);

// ---- Others. ----
// Clips to [a_min, a_max] (mx.nd.clip): x > a_max -> a_max, else x < a_min -> a_min; NaN passes.
// Bounds are converted to x's dtype first. Gradient passes where a_min <= x <= a_max.
NDArray clip(const NDArray& x, float a_min, float a_max);
// x where condition != 0 else y (mx.nd.where). condition: x's shape, or 1-D with x.shape[0]
// elements (selects rows); any dtype. x, y: same shape and dtype. Errors: kInvalidArgument.
NDArray where(const NDArray& condition, const NDArray& x, const NDArray& y);
// Element conversion (mx.nd.cast / Cast): dtype one of float16/32/64, bfloat16, uint8, int8,
// int32, int64, bool (others: kInvalidArgument, as MXNet). Floats to integers truncate.
NDArray cast(const NDArray& x, DType dtype);
// Smooth L1 (mx.nd.smooth_l1): 0.5 (sigma x)^2 where |x| < 1/sigma^2, else |x| - 0.5/sigma^2.
NDArray smooth_l1(const NDArray& x, double sigma = 1.0);
// Sum of one or more arrays of identical shape and dtype (mx.nd.add_n / ElementWiseSum).
// Errors: kInvalidArgument for no inputs or mismatched shapes/dtypes.
NDArray add_n(std::span<const NDArray> args);
inline NDArray add_n(std::initializer_list<NDArray> args) {
  return add_n(std::span<const NDArray>(args.begin(), args.size()));
}

}  // namespace mxnet::nd

namespace mxnet {

// ---- NDArray operators (in namespace mxnet so argument-dependent lookup finds them). ----
// Two arrays: broadcast_add/sub/mul/div/mod (shapes broadcast; dtypes must match).
// Array and number: _plus/_minus/_rminus/_mul/_div/_rdiv/_mod/_rmod_scalar.
NDArray operator+(const NDArray& a, const NDArray& b);
NDArray operator+(const NDArray& a, double s);
NDArray operator+(double s, const NDArray& a);
NDArray operator-(const NDArray& a, const NDArray& b);
NDArray operator-(const NDArray& a, double s);
NDArray operator-(double s, const NDArray& a);
NDArray operator*(const NDArray& a, const NDArray& b);
NDArray operator*(const NDArray& a, double s);
NDArray operator*(double s, const NDArray& a);
NDArray operator/(const NDArray& a, const NDArray& b);
NDArray operator/(const NDArray& a, double s);
NDArray operator/(double s, const NDArray& a);
NDArray operator%(const NDArray& a, const NDArray& b);
NDArray operator%(const NDArray& a, double s);
NDArray operator%(double s, const NDArray& a);
// -a (negative).
NDArray operator-(const NDArray& a);
// Elementwise comparisons (broadcast_equal, ..., or the *_scalar ops; a number on the left
// flips the comparison: 2 < a is a > 2). Result: 1/0 in the array's dtype, as MXNet 1.x.
NDArray operator==(const NDArray& a, const NDArray& b);
NDArray operator==(const NDArray& a, double s);
NDArray operator==(double s, const NDArray& a);
NDArray operator!=(const NDArray& a, const NDArray& b);
NDArray operator!=(const NDArray& a, double s);
NDArray operator!=(double s, const NDArray& a);
NDArray operator>(const NDArray& a, const NDArray& b);
NDArray operator>(const NDArray& a, double s);
NDArray operator>(double s, const NDArray& a);
NDArray operator>=(const NDArray& a, const NDArray& b);
NDArray operator>=(const NDArray& a, double s);
NDArray operator>=(double s, const NDArray& a);
NDArray operator<(const NDArray& a, const NDArray& b);
NDArray operator<(const NDArray& a, double s);
NDArray operator<(double s, const NDArray& a);
NDArray operator<=(const NDArray& a, const NDArray& b);
NDArray operator<=(const NDArray& a, double s);
NDArray operator<=(double s, const NDArray& a);

}  // namespace mxnet
