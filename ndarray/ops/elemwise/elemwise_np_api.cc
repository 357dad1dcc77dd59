// Definitions of the nd::np:: functions (elemwise_np_api.h).
#include "ndarray/ops/elemwise/elemwise_np_api.h"

#include <cmath>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/elemwise/elemwise_np_util.h"

namespace mxnet::nd::np {
namespace {

NDArray Run(const Op& op, std::initializer_list<NDArray> in) {
  return Call(op, NoAttrs(op), in)[0];
}
// An integral scalar acts as a Python int (is_int), any other as a float.
NDArray Scalar(const Op& op, const NDArray& x, double s) {
  ops::ScalarParam p;
  p.scalar = s;
  p.is_int = std::isfinite(s) && std::floor(s) == s;
  return Call(op, OpAttrs::From(op, p), {x})[0];
}

}  // namespace

#define MX_NP_API2(FN, OP) \
  NDArray FN(const NDArray& a, const NDArray& b) { return Run(MX_ND_OP(OP), {a, b}); }
#define MX_NP_API_S(FN, OP) \
  NDArray FN(const NDArray& x, double s) { return Scalar(MX_ND_OP(OP), x, s); }
#define MX_NP_API_RS(FN, OP) \
  NDArray FN(double s, const NDArray& x) { return Scalar(MX_ND_OP(OP), x, s); }
#define MX_NP_API1(FN, OP) \
  NDArray FN(const NDArray& x) { return Run(MX_ND_OP(OP), {x}); }

MX_NP_API2(add, _npi_add)
MX_NP_API2(subtract, _npi_subtract)
MX_NP_API2(multiply, _npi_multiply)
MX_NP_API2(true_divide, _npi_true_divide)
MX_NP_API2(mod, _npi_mod)
MX_NP_API2(power, _npi_power)
MX_NP_API2(arctan2, _npi_arctan2)
MX_NP_API2(hypot, _npi_hypot)
MX_NP_API2(copysign, _npi_copysign)
MX_NP_API2(ldexp, _npi_ldexp)
MX_NP_API2(lcm, _npi_lcm)
MX_NP_API2(bitwise_and, _npi_bitwise_and)
MX_NP_API2(bitwise_or, _npi_bitwise_or)
MX_NP_API2(bitwise_xor, _npi_bitwise_xor)
MX_NP_API2(equal, _npi_equal)
MX_NP_API2(not_equal, _npi_not_equal)
MX_NP_API2(greater, _npi_greater)
MX_NP_API2(greater_equal, _npi_greater_equal)
MX_NP_API2(less, _npi_less)
MX_NP_API2(less_equal, _npi_less_equal)

MX_NP_API_S(add, _npi_add_scalar)
MX_NP_API_S(subtract, _npi_subtract_scalar)
MX_NP_API_RS(subtract, _npi_rsubtract_scalar)
MX_NP_API_S(multiply, _npi_multiply_scalar)
MX_NP_API_S(true_divide, _npi_true_divide_scalar)
MX_NP_API_RS(true_divide, _npi_rtrue_divide_scalar)
MX_NP_API_S(mod, _npi_mod_scalar)
MX_NP_API_RS(mod, _npi_rmod_scalar)
MX_NP_API_S(power, _npi_power_scalar)
MX_NP_API_RS(power, _npi_rpower_scalar)
MX_NP_API_S(arctan2, _npi_arctan2_scalar)
MX_NP_API_RS(arctan2, _npi_rarctan2_scalar)
MX_NP_API_S(copysign, _npi_copysign_scalar)
MX_NP_API_RS(copysign, _npi_rcopysign_scalar)
MX_NP_API_S(ldexp, _npi_ldexp_scalar)
MX_NP_API_RS(ldexp, _npi_rldexp_scalar)
MX_NP_API_S(lcm, _npi_lcm_scalar)
MX_NP_API_S(bitwise_and, _npi_bitwise_and_scalar)
MX_NP_API_S(bitwise_or, _npi_bitwise_or_scalar)
MX_NP_API_S(bitwise_xor, _npi_bitwise_xor_scalar)
MX_NP_API_S(equal, _npi_equal_scalar)
MX_NP_API_S(not_equal, _npi_not_equal_scalar)
MX_NP_API_S(greater, _npi_greater_scalar)
MX_NP_API_S(greater_equal, _npi_greater_equal_scalar)
MX_NP_API_S(less, _npi_less_scalar)
MX_NP_API_S(less_equal, _npi_less_equal_scalar)

MX_NP_API1(absolute, _npi_absolute)
MX_NP_API1(sign, _npi_sign)
MX_NP_API1(rint, _npi_rint)
MX_NP_API1(ceil, _npi_ceil)
MX_NP_API1(floor, _npi_floor)
MX_NP_API1(trunc, _npi_trunc)
MX_NP_API1(fix, _npi_fix)
MX_NP_API1(square, _npi_square)
MX_NP_API1(sqrt, _npi_sqrt)
MX_NP_API1(cbrt, _npi_cbrt)
MX_NP_API1(exp, _npi_exp)
MX_NP_API1(log, _npi_log)
MX_NP_API1(log10, _npi_log10)
MX_NP_API1(log2, _npi_log2)
MX_NP_API1(log1p, _npi_log1p)
MX_NP_API1(expm1, _npi_expm1)
MX_NP_API1(sin, _npi_sin)
MX_NP_API1(cos, _npi_cos)
MX_NP_API1(tan, _npi_tan)
MX_NP_API1(sinh, _npi_sinh)
MX_NP_API1(cosh, _npi_cosh)
MX_NP_API1(tanh, _npi_tanh)
MX_NP_API1(arcsin, _npi_arcsin)
MX_NP_API1(arccos, _npi_arccos)
MX_NP_API1(arctan, _npi_arctan)
MX_NP_API1(arcsinh, _npi_arcsinh)
MX_NP_API1(arccosh, _npi_arccosh)
MX_NP_API1(arctanh, _npi_arctanh)
MX_NP_API1(degrees, _npi_degrees)
MX_NP_API1(radians, _npi_radians)
MX_NP_API1(reciprocal, _npi_reciprocal)
MX_NP_API1(relu, _npx_relu)
MX_NP_API1(sigmoid, _npx_sigmoid)
MX_NP_API1(bitwise_not, _npi_bitwise_not)
MX_NP_API1(isnan, _npi_isnan)
MX_NP_API1(isinf, _npi_isinf)
MX_NP_API1(isposinf, _npi_isposinf)
MX_NP_API1(isneginf, _npi_isneginf)
MX_NP_API1(isfinite, _npi_isfinite)
MX_NP_API1(logical_not, _npi_logical_not)

NDArray around(const NDArray& x, int decimals) {
  const Op& op = MX_ND_OP(_npi_around);
  ops::np::AroundParam p;
  p.decimals = decimals;
  return Call(op, OpAttrs::From(op, p), {x})[0];
}

NDArray nan_to_num(const NDArray& x, double nan, std::optional<double> posinf,
                   std::optional<double> neginf) {
  const Op& op = MX_ND_OP(_npi_nan_to_num);
  ops::np::NanToNumParam p;
  p.nan = nan;
  p.posinf = posinf;
  p.neginf = neginf;
  return Call(op, OpAttrs::From(op, p), {x})[0];
}

NDArray where(const NDArray& condition, const NDArray& x, const NDArray& y) {
  return Run(MX_ND_OP(_npi_where), {condition, x, y});
}
NDArray polyval(const NDArray& p, const NDArray& x) { return Run(MX_ND_OP(_npi_polyval), {p, x}); }

}  // namespace mxnet::nd::np
