// nd::np:: free functions over the NumPy-interface elemwise ops (mx.np.<name> of MXNet 1.9.1;
// ops _npi_* / _npx_*, see elemwise_np_*.cc).
//
// Common rules:
//  - binary functions broadcast like NumPy (right-aligned, size-1 axes stretch, 0-dim and
//    zero-size arrays allowed); incompatible shapes throw kInvalidArgument
//    "_npi_add: operands could not be broadcast together with shapes (3,) and (2,)";
//  - mixed dtypes promote as MXNet's np ops: int32 + float32 -> float32, bool + int8 -> int8,
//    float16 * float32 -> float32; true_divide of integers gives float32; subtract/mod reject
//    bool and mixed-integer pairs, comparisons/arctan2/hypot/copysign/ldexp/lcm/bitwise need
//    one dtype (kInvalidArgument "<op>: unsupported dtypes int8 and uint8");
//  - comparisons and the is* predicates return bool arrays;
//  - array-scalar forms: the scalar acts as a Python int when it is integral (is_int=true: an
//    int32 array stays int32) and as a float otherwise (an integer array gives float64);
//  - unary math keeps the input dtype (integers computed in double and truncated); bool inputs
//    are rejected.
#pragma once

#include <optional>

#include "ndarray/ndarray.h"

namespace mxnet::nd::np {

// ---- array (op) array: shapes broadcast; dtypes promote as above. ----
NDArray add(const NDArray& a, const NDArray& b);
NDArray subtract(const NDArray& a, const NDArray& b);
NDArray multiply(const NDArray& a, const NDArray& b);
NDArray true_divide(const NDArray& a, const NDArray& b);  // floating-point division
NDArray mod(const NDArray& a, const NDArray& b);          // Python-style; x mod 0 = 0
NDArray power(const NDArray& a, const NDArray& b);
NDArray arctan2(const NDArray& a, const NDArray& b);  // floats
NDArray hypot(const NDArray& a, const NDArray& b);    // floats
NDArray copysign(const NDArray& a, const NDArray& b);
NDArray ldexp(const NDArray& a, const NDArray& b);  // a * 2^b
NDArray lcm(const NDArray& a, const NDArray& b);    // integers
NDArray bitwise_and(const NDArray& a, const NDArray& b);
NDArray bitwise_or(const NDArray& a, const NDArray& b);
NDArray bitwise_xor(const NDArray& a, const NDArray& b);
// Comparisons (bool output).
NDArray equal(const NDArray& a, const NDArray& b);
NDArray not_equal(const NDArray& a, const NDArray& b);
NDArray greater(const NDArray& a, const NDArray& b);
NDArray greater_equal(const NDArray& a, const NDArray& b);
NDArray less(const NDArray& a, const NDArray& b);
NDArray less_equal(const NDArray& a, const NDArray& b);

// ---- array (op) scalar and scalar (op) array: output of x's shape. ----
NDArray add(const NDArray& x, double s);
NDArray subtract(const NDArray& x, double s);
NDArray subtract(double s, const NDArray& x);
NDArray multiply(const NDArray& x, double s);
NDArray true_divide(const NDArray& x, double s);
NDArray true_divide(double s, const NDArray& x);
NDArray mod(const NDArray& x, double s);
NDArray mod(double s, const NDArray& x);
NDArray power(const NDArray& x, double s);
NDArray power(double s, const NDArray& x);
NDArray arctan2(const NDArray& x, double s);
NDArray arctan2(double s, const NDArray& x);
NDArray copysign(const NDArray& x, double s);
NDArray copysign(double s, const NDArray& x);
NDArray ldexp(const NDArray& x, double s);
NDArray ldexp(double s, const NDArray& x);
NDArray lcm(const NDArray& x, double s);
NDArray bitwise_and(const NDArray& x, double s);
NDArray bitwise_or(const NDArray& x, double s);
NDArray bitwise_xor(const NDArray& x, double s);
NDArray equal(const NDArray& x, double s);
NDArray not_equal(const NDArray& x, double s);
NDArray greater(const NDArray& x, double s);
NDArray greater_equal(const NDArray& x, double s);
NDArray less(const NDArray& x, double s);
NDArray less_equal(const NDArray& x, double s);

// ---- unary: x's shape and dtype (numeric, not bool). ----
NDArray absolute(const NDArray& x);
NDArray sign(const NDArray& x);
NDArray rint(const NDArray& x);  // halves to the lower integer (MXNet)
NDArray ceil(const NDArray& x);
NDArray floor(const NDArray& x);
NDArray trunc(const NDArray& x);
NDArray fix(const NDArray& x);
NDArray square(const NDArray& x);
NDArray sqrt(const NDArray& x);
NDArray cbrt(const NDArray& x);
NDArray exp(const NDArray& x);
NDArray log(const NDArray& x);
NDArray log10(const NDArray& x);
NDArray log2(const NDArray& x);
NDArray log1p(const NDArray& x);
NDArray expm1(const NDArray& x);
NDArray sin(const NDArray& x);
NDArray cos(const NDArray& x);
NDArray tan(const NDArray& x);
NDArray sinh(const NDArray& x);
NDArray cosh(const NDArray& x);
NDArray tanh(const NDArray& x);
NDArray arcsin(const NDArray& x);
NDArray arccos(const NDArray& x);
NDArray arctan(const NDArray& x);
NDArray arcsinh(const NDArray& x);
NDArray arccosh(const NDArray& x);
NDArray arctanh(const NDArray& x);
NDArray degrees(const NDArray& x);
NDArray radians(const NDArray& x);
NDArray reciprocal(const NDArray& x);
NDArray relu(const NDArray& x);         // mx.npx.relu
NDArray sigmoid(const NDArray& x);      // mx.npx.sigmoid
NDArray bitwise_not(const NDArray& x);  // integers and bool
// Any dtype -> bool.
NDArray isnan(const NDArray& x);
NDArray isinf(const NDArray& x);
NDArray isposinf(const NDArray& x);
NDArray isneginf(const NDArray& x);
NDArray isfinite(const NDArray& x);
NDArray logical_not(const NDArray& x);
// Rounds half to even at `decimals` places (negative: tens, ...); integers, float32/float64.
NDArray around(const NDArray& x, int decimals = 0);
// NaN -> nan, +inf -> posinf, -inf -> neginf (default: the dtype's largest/lowest value).
NDArray nan_to_num(const NDArray& x, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                   std::optional<double> neginf = std::nullopt);
// x where condition is non-zero else y; the three broadcast; x, y of one dtype.
NDArray where(const NDArray& condition, const NDArray& x, const NDArray& y);
// p[0] x^(n-1) + ... + p[n-1] for 1-D p of x's dtype; output of x's shape.
NDArray polyval(const NDArray& p, const NDArray& x);

}  // namespace mxnet::nd::np
