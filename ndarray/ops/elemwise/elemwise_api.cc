// Definitions of the elemwise family's nd:: functions and NDArray operators (elemwise_api.h).
#include "ndarray/ops/elemwise/elemwise_api.h"

namespace mxnet::nd {
namespace {

NDArray Unary(const Op& op, const NDArray& x) { return Call(op, NoAttrs(op), {x})[0]; }
NDArray Binary(const Op& op, const NDArray& a, const NDArray& b) {
  return Call(op, NoAttrs(op), {a, b})[0];
}
NDArray Scalar(const Op& op, const NDArray& x, double s, bool is_int) {
  ops::ScalarParam p;
  p.scalar = s;
  p.is_int = is_int;
  return Call(op, OpAttrs::From(op, p), {x})[0];
}

}  // namespace

#define MX_EW_API_UNARY(FN, OP) \
  NDArray FN(const NDArray& x) { return Unary(MX_ND_OP(OP), x); }
MX_EW_API_UNARY(exp, exp)
MX_EW_API_UNARY(log, log)
MX_EW_API_UNARY(log2, log2)
MX_EW_API_UNARY(log10, log10)
MX_EW_API_UNARY(log1p, log1p)
MX_EW_API_UNARY(expm1, expm1)
MX_EW_API_UNARY(sqrt, sqrt)
MX_EW_API_UNARY(rsqrt, rsqrt)
MX_EW_API_UNARY(cbrt, cbrt)
MX_EW_API_UNARY(rcbrt, rcbrt)
MX_EW_API_UNARY(square, square)
MX_EW_API_UNARY(reciprocal, reciprocal)
MX_EW_API_UNARY(abs, abs)
MX_EW_API_UNARY(sign, sign)
MX_EW_API_UNARY(floor, floor)
MX_EW_API_UNARY(ceil, ceil)
MX_EW_API_UNARY(round, round)
MX_EW_API_UNARY(rint, rint)
MX_EW_API_UNARY(fix, fix)
MX_EW_API_UNARY(trunc, trunc)
MX_EW_API_UNARY(sin, sin)
MX_EW_API_UNARY(cos, cos)
MX_EW_API_UNARY(tan, tan)
MX_EW_API_UNARY(arcsin, arcsin)
MX_EW_API_UNARY(arccos, arccos)
MX_EW_API_UNARY(arctan, arctan)
MX_EW_API_UNARY(sinh, sinh)
MX_EW_API_UNARY(cosh, cosh)
MX_EW_API_UNARY(tanh, tanh)
MX_EW_API_UNARY(arcsinh, arcsinh)
MX_EW_API_UNARY(arccosh, arccosh)
MX_EW_API_UNARY(arctanh, arctanh)
MX_EW_API_UNARY(degrees, degrees)
MX_EW_API_UNARY(radians, radians)
MX_EW_API_UNARY(erf, erf)
MX_EW_API_UNARY(erfinv, erfinv)
MX_EW_API_UNARY(gamma, gamma)
MX_EW_API_UNARY(gammaln, gammaln)
MX_EW_API_UNARY(relu, relu)
MX_EW_API_UNARY(sigmoid, sigmoid)
MX_EW_API_UNARY(softsign, softsign)
MX_EW_API_UNARY(logical_not, logical_not)
MX_EW_API_UNARY(BlockGrad, BlockGrad)
MX_EW_API_UNARY(stop_gradient, BlockGrad)
MX_EW_API_UNARY(make_loss, make_loss)
#undef MX_EW_API_UNARY

#define MX_EW_API_BINARY(FN, OP) \
  NDArray FN(const NDArray& a, const NDArray& b) { return Binary(MX_ND_OP(OP), a, b); }
MX_EW_API_BINARY(broadcast_add, broadcast_add)
MX_EW_API_BINARY(broadcast_plus, broadcast_add)
MX_EW_API_BINARY(broadcast_sub, broadcast_sub)
MX_EW_API_BINARY(broadcast_minus, broadcast_sub)
MX_EW_API_BINARY(broadcast_mul, broadcast_mul)
MX_EW_API_BINARY(broadcast_div, broadcast_div)
MX_EW_API_BINARY(broadcast_mod, broadcast_mod)
MX_EW_API_BINARY(broadcast_power, broadcast_power)
MX_EW_API_BINARY(broadcast_maximum, broadcast_maximum)
MX_EW_API_BINARY(broadcast_minimum, broadcast_minimum)
MX_EW_API_BINARY(broadcast_hypot, broadcast_hypot)
MX_EW_API_BINARY(broadcast_equal, broadcast_equal)
MX_EW_API_BINARY(broadcast_not_equal, broadcast_not_equal)
MX_EW_API_BINARY(broadcast_greater, broadcast_greater)
MX_EW_API_BINARY(broadcast_greater_equal, broadcast_greater_equal)
MX_EW_API_BINARY(broadcast_lesser, broadcast_lesser)
MX_EW_API_BINARY(broadcast_lesser_equal, broadcast_lesser_equal)
MX_EW_API_BINARY(broadcast_logical_and, broadcast_logical_and)
MX_EW_API_BINARY(broadcast_logical_or, broadcast_logical_or)
MX_EW_API_BINARY(broadcast_logical_xor, broadcast_logical_xor)
MX_EW_API_BINARY(elemwise_mod, _mod)
MX_EW_API_BINARY(elemwise_power, _power)
MX_EW_API_BINARY(elemwise_maximum, _maximum)
MX_EW_API_BINARY(elemwise_minimum, _minimum)
MX_EW_API_BINARY(elemwise_hypot, _hypot)
MX_EW_API_BINARY(elemwise_equal, _equal)
MX_EW_API_BINARY(elemwise_not_equal, _not_equal)
MX_EW_API_BINARY(elemwise_greater, _greater)
MX_EW_API_BINARY(elemwise_greater_equal, _greater_equal)
MX_EW_API_BINARY(elemwise_lesser, _lesser)
MX_EW_API_BINARY(elemwise_lesser_equal, _lesser_equal)
MX_EW_API_BINARY(elemwise_logical_and, _logical_and)
MX_EW_API_BINARY(elemwise_logical_or, _logical_or)
MX_EW_API_BINARY(elemwise_logical_xor, _logical_xor)
#undef MX_EW_API_BINARY

#define MX_EW_API_SCALAR(FN, OP) \
  NDArray FN(const NDArray& x, double s, bool is_int) { return Scalar(MX_ND_OP(OP), x, s, is_int); }
MX_EW_API_SCALAR(power_scalar, _power_scalar)
MX_EW_API_SCALAR(rpower_scalar, _rpower_scalar)
MX_EW_API_SCALAR(maximum_scalar, _maximum_scalar)
MX_EW_API_SCALAR(minimum_scalar, _minimum_scalar)
MX_EW_API_SCALAR(mod_scalar, _mod_scalar)
MX_EW_API_SCALAR(rmod_scalar, _rmod_scalar)
MX_EW_API_SCALAR(hypot_scalar, _hypot_scalar)
MX_EW_API_SCALAR(equal_scalar, _equal_scalar)
MX_EW_API_SCALAR(not_equal_scalar, _not_equal_scalar)
MX_EW_API_SCALAR(greater_scalar, _greater_scalar)
MX_EW_API_SCALAR(greater_equal_scalar, _greater_equal_scalar)
MX_EW_API_SCALAR(lesser_scalar, _lesser_scalar)
MX_EW_API_SCALAR(lesser_equal_scalar, _lesser_equal_scalar)
MX_EW_API_SCALAR(logical_and_scalar, _logical_and_scalar)
MX_EW_API_SCALAR(logical_or_scalar, _logical_or_scalar)
MX_EW_API_SCALAR(logical_xor_scalar, _logical_xor_scalar)
#undef MX_EW_API_SCALAR

NDArray maximum(const NDArray& a, const NDArray& b) { return broadcast_maximum(a, b); }
NDArray maximum(const NDArray& a, double s) { return maximum_scalar(a, s); }
NDArray maximum(double s, const NDArray& a) { return maximum_scalar(a, s); }
NDArray minimum(const NDArray& a, const NDArray& b) { return broadcast_minimum(a, b); }
NDArray minimum(const NDArray& a, double s) { return minimum_scalar(a, s); }
NDArray minimum(double s, const NDArray& a) { return minimum_scalar(a, s); }
NDArray power(const NDArray& a, const NDArray& b) { return broadcast_power(a, b); }
NDArray power(const NDArray& a, double s) { return power_scalar(a, s); }
NDArray power(double s, const NDArray& a) { return rpower_scalar(a, s); }
NDArray modulo(const NDArray& a, const NDArray& b) { return broadcast_mod(a, b); }
NDArray modulo(const NDArray& a, double s) { return mod_scalar(a, s); }
NDArray modulo(double s, const NDArray& a) { return rmod_scalar(a, s); }

NDArray clip(const NDArray& x, float a_min, float a_max) {
  const Op& op = MX_ND_OP(clip);
  ops::ClipParam p;
  p.a_min = a_min;
  p.a_max = a_max;
  return Call(op, OpAttrs::From(op, p), {x})[0];
}

NDArray where(const NDArray& condition, const NDArray& x, const NDArray& y) {
  const Op& op = MX_ND_OP(where);
  return Call(op, NoAttrs(op), {condition, x, y})[0];
}

NDArray cast(const NDArray& x, DType dtype) {
  const Op& op = MX_ND_OP(cast);
  return Call(op, OpAttrs::Parse(op, {{"dtype", std::string(DTypeName(dtype))}}), {x})[0];
}

NDArray smooth_l1(const NDArray& x, double sigma) {
  return Scalar(MX_ND_OP(smooth_l1), x, sigma, true);
}

NDArray add_n(std::span<const NDArray> args) {
  const Op& op = MX_ND_OP(add_n);
  ops::AddNParam p;
  p.num_args = static_cast<int>(args.size());
  NDArrayVec out = Invoke(op, OpAttrs::From(op, p), args);
  return out[0];
}

}  // namespace mxnet::nd

namespace mxnet {

NDArray operator+(const NDArray& a, const NDArray& b) { return nd::broadcast_add(a, b); }
NDArray operator+(const NDArray& a, double s) { return nd::plus_scalar(a, s); }
NDArray operator+(double s, const NDArray& a) { return nd::plus_scalar(a, s); }
NDArray operator-(const NDArray& a, const NDArray& b) { return nd::broadcast_sub(a, b); }
NDArray operator-(const NDArray& a, double s) { return nd::minus_scalar(a, s); }
NDArray operator-(double s, const NDArray& a) { return nd::rminus_scalar(a, s); }
NDArray operator*(const NDArray& a, const NDArray& b) { return nd::broadcast_mul(a, b); }
NDArray operator*(const NDArray& a, double s) { return nd::mul_scalar(a, s); }
NDArray operator*(double s, const NDArray& a) { return nd::mul_scalar(a, s); }
NDArray operator/(const NDArray& a, const NDArray& b) { return nd::broadcast_div(a, b); }
NDArray operator/(const NDArray& a, double s) { return nd::div_scalar(a, s); }
NDArray operator/(double s, const NDArray& a) { return nd::rdiv_scalar(a, s); }
NDArray operator%(const NDArray& a, const NDArray& b) { return nd::broadcast_mod(a, b); }
NDArray operator%(const NDArray& a, double s) { return nd::mod_scalar(a, s); }
NDArray operator%(double s, const NDArray& a) { return nd::rmod_scalar(a, s); }
NDArray operator-(const NDArray& a) { return nd::negative(a); }

NDArray operator==(const NDArray& a, const NDArray& b) { return nd::broadcast_equal(a, b); }
NDArray operator==(const NDArray& a, double s) { return nd::equal_scalar(a, s); }
NDArray operator==(double s, const NDArray& a) { return nd::equal_scalar(a, s); }
NDArray operator!=(const NDArray& a, const NDArray& b) { return nd::broadcast_not_equal(a, b); }
NDArray operator!=(const NDArray& a, double s) { return nd::not_equal_scalar(a, s); }
NDArray operator!=(double s, const NDArray& a) { return nd::not_equal_scalar(a, s); }
NDArray operator>(const NDArray& a, const NDArray& b) { return nd::broadcast_greater(a, b); }
NDArray operator>(const NDArray& a, double s) { return nd::greater_scalar(a, s); }
NDArray operator>(double s, const NDArray& a) { return nd::lesser_scalar(a, s); }
NDArray operator>=(const NDArray& a, const NDArray& b) { return nd::broadcast_greater_equal(a, b); }
NDArray operator>=(const NDArray& a, double s) { return nd::greater_equal_scalar(a, s); }
NDArray operator>=(double s, const NDArray& a) { return nd::lesser_equal_scalar(a, s); }
NDArray operator<(const NDArray& a, const NDArray& b) { return nd::broadcast_lesser(a, b); }
NDArray operator<(const NDArray& a, double s) { return nd::lesser_scalar(a, s); }
NDArray operator<(double s, const NDArray& a) { return nd::greater_scalar(a, s); }
NDArray operator<=(const NDArray& a, const NDArray& b) { return nd::broadcast_lesser_equal(a, b); }
NDArray operator<=(const NDArray& a, double s) { return nd::lesser_equal_scalar(a, s); }
NDArray operator<=(double s, const NDArray& a) { return nd::greater_equal_scalar(a, s); }

}  // namespace mxnet
