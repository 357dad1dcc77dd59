// MXNet 1.9.1's NumPy-interface binary elementwise ops (src/operator/numpy/
// np_elemwise_broadcast_op*.cc, np_true_divide.cc, np_elemwise_broadcast_logic_op.cc):
//   _npi_add, _npi_multiply, ...   two arrays, NumPy broadcasting (right-aligned, size-1 axes
//                                  stretch, 0-dim and zero-size arrays allowed);
//   _npi_add_scalar, ...           an array and a scalar attribute (ScalarParam: scalar, is_int);
//   _npi_equal, ... (+_scalar)     comparisons with bool outputs.
// dtypes follow np::BinRule / np::ScalarRule (elemwise_np_util.h): mixed dtypes promote like
// MXNet (int32 + float32 -> float32, bool + int8 -> int8), true_divide of ints gives float32.
// Values use the elemwise family's functors (integer wrap, Python-style mod, x % 0 = 0).
// Gradients reuse the legacy ops' definitions (broadcast_add, _plus_scalar, ...) on inputs cast
// to the output dtype; integer/bool inputs get zero gradients; comparisons have zero gradients,
// lcm and bitwise ops none.
#include <cmath>
#include <numbers>

#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/elemwise/elemwise_inst.h"  // the kernels are compiled in elemwise_inst_*.cc
#include "ndarray/ops/elemwise/elemwise_np_util.h"

namespace mxnet::ops {
namespace {

using ew::B;
using ew::S;
using ew::U;
using np::BinRule;
using np::GradIn;
using np::ScalarRule;

constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};
constexpr KernelKey kOpt{DeviceType::kCPU, Backend::kOptimized};

// ---- own gradients (inputs already in the output dtype) ----
// arctan2(a, b): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2).
std::vector<GradValue> Arctan2Grad(GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
  GradValue d = B(b, "broadcast_add", U(b, "square", in[0]), U(b, "square", in[1]));
  GradValue g = B(b, "broadcast_div", og[0], d);
  return {b.SumLike(B(b, "broadcast_mul", g, in[1]), in[0]),
          b.SumLike(b.Neg(B(b, "broadcast_mul", g, in[0])), in[1])};
}
// copysign(a, b): d/da = 1 where a and b have the same sign (>= 0 counts as positive), else
// -1; d/db = 0.
std::vector<GradValue> CopysignGrad(GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
  GradValue flip = B(b, "broadcast_logical_xor", S(b, "_greater_equal_scalar", in[0], 0),
                     S(b, "_greater_equal_scalar", in[1], 0));
  GradValue sgn = S(b, "_rminus_scalar", b.MulScalar(flip, 2), 1);
  return {b.SumLike(B(b, "broadcast_mul", og[0], sgn), in[0]), b.ZerosLike(in[1])};
}
// ldexp(a, b) = a 2^b: d/da = 2^b, d/db = a 2^b ln 2.
std::vector<GradValue> LdexpGrad(GradBuilder& b, const OpAttrs&, GradIn in, GradIn out, GradIn og) {
  GradValue p = S(b, "_rpower_scalar", in[1], 2);
  return {b.SumLike(B(b, "broadcast_mul", og[0], p), in[0]),
          b.SumLike(b.MulScalar(B(b, "broadcast_mul", og[0], out[0]), std::numbers::ln2), in[1])};
}

// Scalar forms: x = input (output dtype), y = output, s = scalar.
#define MX_NP_SGRAD(NAME, EXPR)                                                            \
  std::vector<GradValue> NAME(GradBuilder& b, const OpAttrs& attrs, GradIn in, GradIn out, \
                              GradIn og) {                                                 \
    [[maybe_unused]] GradValue x = in[0], y = out[0], g = og[0];                           \
    [[maybe_unused]] double s = attrs.get<ScalarParam>().scalar;                           \
    return {EXPR};                                                                         \
  }
// d/dx atan2(x, s) = s / (x^2 + s^2); d/dx atan2(s, x) = -s / (x^2 + s^2) (MXNet 1.9.1's
// _npi_rarctan2_scalar backward gives -x / (x^2 + s^2) instead; ours is the derivative).
MX_NP_SGRAD(Arctan2SGrad, b.MulScalar(b.Div(g, b.AddScalar(U(b, "square", x), s* s)), s))
MX_NP_SGRAD(RArctan2SGrad, b.MulScalar(b.Div(g, b.AddScalar(U(b, "square", x), s* s)), -s))
// d/dx copysign(x, s) = 1 where x and s have the same sign (>= 0 positive), else -1.
MX_NP_SGRAD(CopysignSGrad,
            b.Mul(g, S(b, "_rminus_scalar",
                       b.MulScalar(S(b, "_greater_equal_scalar", x, 0), s >= 0 ? -2 : 2),
                       s >= 0 ? -1 : 1)))
MX_NP_SGRAD(LdexpSGrad, b.MulScalar(g, std::pow(2.0, s)))
MX_NP_SGRAD(RLdexpSGrad, b.MulScalar(b.Mul(g, y), std::numbers::ln2))
#undef MX_NP_SGRAD

// ---- binary ops ----
#define MX_NP_BINARY(NAME, FN, RULE, DOC)                                  \
  MX_REGISTER_OP(NAME)                                                     \
      .describe(DOC)                                                       \
      .set_num_inputs(2)                                                   \
      .set_input_names(std::vector<std::string>{"lhs", "rhs"})             \
      .set_infer_shape(ew::BroadcastBinaryShape)                           \
      .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {  \
        np::BinaryType(BinRule::RULE, a, in, out);                         \
      })                                                                   \
      .set_kernel(kRef, np::BinaryKernel<FN, false>(#NAME, BinRule::RULE)) \
      .set_kernel(kOpt, np::BinaryKernel<FN, true>(#NAME, BinRule::RULE))
#define MX_NP_X12 set_input_names(std::vector<std::string>{"x1", "x2"})

// Shapes: lhs, rhs broadcast to the output. dtypes: see each rule. Source: MXNet 1.9.1 mx.np.
MX_NP_BINARY(_npi_add, ew::Add, kPromote, "lhs + rhs (bool + bool is logical or).")
    .set_gradient(np::LegacyGrad("broadcast_add", true), true, true);
MX_NP_BINARY(_npi_subtract, ew::Sub, kSubMod, "lhs - rhs (bool operands only with a float).")
    .set_gradient(np::LegacyGrad("broadcast_sub", true), true, true);
MX_NP_BINARY(_npi_multiply, ew::Mul, kPromote, "lhs * rhs (bool * bool is logical and).")
    .set_gradient(np::LegacyGrad("broadcast_mul", true), true, true);
MX_NP_BINARY(_npi_true_divide, ew::Div, kTrueDivide,
             "lhs / rhs in floating point (ints give float32; x/0 = +-inf or NaN).")
    .set_gradient(np::LegacyGrad("broadcast_div", true), true, true);
MX_NP_BINARY(_npi_mod, ew::Mod, kSubMod, "lhs mod rhs, Python-style (sign of rhs; x mod 0 = 0).")
    .set_gradient(np::LegacyGrad("broadcast_mod", true), true, true);
MX_NP_BINARY(_npi_power, ew::Power, kPromote,
             "lhs ^ rhs (integers computed in double and truncated).")
    .set_gradient(np::LegacyGrad("broadcast_power", true), true, true);
MX_NP_BINARY(_npi_arctan2, np::Arctan2, kFloatSame, "atan2(x1, x2) in (-pi, pi]; floating dtypes.")
    .MX_NP_X12.set_gradient(np::OwnGrad(Arctan2Grad, true), true, true);
MX_NP_BINARY(_npi_hypot, ew::Hypot, kFloatSame, "sqrt(x1^2 + x2^2); floating dtypes.")
    .MX_NP_X12.set_gradient(np::LegacyGrad("broadcast_hypot", true), true, true);
MX_NP_BINARY(_npi_copysign, np::Copysign, kSame,
             "|lhs| with the sign of rhs (rhs >= 0, -0.0 included, is positive).")
    .set_gradient(np::OwnGrad(CopysignGrad, true), true, true);
MX_NP_BINARY(_npi_ldexp, np::Ldexp, kSame,
             "lhs * 2^rhs (rhs may be fractional; integers truncated).")
    .set_gradient(np::OwnGrad(LdexpGrad, true), true, true);
MX_NP_BINARY(_npi_lcm, np::Lcm, kIntSame,
             "Least common multiple of |lhs| and |rhs| (0 if either is 0); integers or bool.")
    .set_non_differentiable();
MX_NP_BINARY(_npi_bitwise_and, np::BitAnd, kIntSame, "lhs & rhs; integers or bool.")
    .set_non_differentiable();
MX_NP_BINARY(_npi_bitwise_or, np::BitOr, kIntSame, "lhs | rhs; integers or bool.")
    .set_non_differentiable();
MX_NP_BINARY(_npi_bitwise_xor, np::BitXor, kIntSame, "lhs ^ rhs; integers or bool.")
    .set_non_differentiable();

// Comparisons: one dtype (any), bool output, zero gradients.
#define MX_NP_COMPARE(NAME, FN, DOC) \
  MX_NP_BINARY(NAME, FN, kCompare, DOC " (bool).").set_gradient(np::ZeroGrads, true, false)
MX_NP_COMPARE(_npi_equal, ew::Equal, "lhs == rhs");
MX_NP_COMPARE(_npi_not_equal, ew::NotEqual, "lhs != rhs");
MX_NP_COMPARE(_npi_greater, ew::Greater, "lhs > rhs");
MX_NP_COMPARE(_npi_greater_equal, ew::GreaterEqual, "lhs >= rhs");
MX_NP_COMPARE(_npi_less, ew::Lesser, "lhs < rhs");
MX_NP_COMPARE(_npi_less_equal, ew::LesserEqual, "lhs <= rhs");
#undef MX_NP_COMPARE
#undef MX_NP_X12

// ---- scalar ops ----
#define MX_NP_SCALAR(NAME, FN, REV, RULE, DOC)                                     \
  MX_REGISTER_OP(NAME)                                                             \
      .describe(DOC)                                                               \
      .set_params<ScalarParam>()                                                   \
      .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {          \
        np::ScalarType(ScalarRule::RULE, a, in, out);                              \
      })                                                                           \
      .set_kernel(kRef, np::ScalarKernel<FN, REV, false>(#NAME, ScalarRule::RULE)) \
      .set_kernel(kOpt, np::ScalarKernel<FN, REV, true>(#NAME, ScalarRule::RULE))

// Shapes: the output has data's shape. Source: MXNet 1.9.1 np_elemwise_broadcast_op_scalar.cc.
MX_NP_SCALAR(_npi_add_scalar, ew::Add, false, kDefault, "x + scalar.")
    .set_gradient(np::LegacyGrad("_plus_scalar", true), true, true);
MX_NP_SCALAR(_npi_subtract_scalar, ew::Sub, false, kDefault, "x - scalar.")
    .set_gradient(np::LegacyGrad("_minus_scalar", true), true, true);
MX_NP_SCALAR(_npi_rsubtract_scalar, ew::Sub, true, kDefault, "scalar - x.")
    .set_gradient(np::LegacyGrad("_rminus_scalar", true), true, true);
MX_NP_SCALAR(_npi_multiply_scalar, ew::Mul, false, kDefault, "x * scalar.")
    .set_gradient(np::LegacyGrad("_mul_scalar", true), true, true);
MX_NP_SCALAR(_npi_true_divide_scalar, ew::Div, false, kTrueDivide,
             "x / scalar in floating point (ints give float32).")
    .set_gradient(np::LegacyGrad("_div_scalar", true), true, true);
MX_NP_SCALAR(_npi_rtrue_divide_scalar, ew::Div, true, kTrueDivide,
             "scalar / x in floating point (ints give float32).")
    .set_gradient(np::LegacyGrad("_rdiv_scalar", true), true, true);
MX_NP_SCALAR(_npi_mod_scalar, ew::Mod, false, kDefault, "x mod scalar, Python-style (x mod 0 = 0).")
    .set_gradient(np::LegacyGrad("_mod_scalar", true), true, true);
MX_NP_SCALAR(_npi_rmod_scalar, ew::Mod, true, kDefault, "scalar mod x, Python-style.")
    .set_gradient(np::LegacyGrad("_rmod_scalar", true), true, true);
MX_NP_SCALAR(_npi_power_scalar, ew::Power, false, kDefault, "x ^ scalar.")
    .set_gradient(np::LegacyGrad("_power_scalar", true), true, true);
MX_NP_SCALAR(_npi_rpower_scalar, ew::Power, true, kDefault, "scalar ^ x.")
    .set_gradient(np::LegacyGrad("_rpower_scalar", true), true, true);
MX_NP_SCALAR(_npi_arctan2_scalar, np::Arctan2, false, kDefault, "atan2(x, scalar).")
    .set_gradient(np::OwnGrad(Arctan2SGrad, true), true, true);
MX_NP_SCALAR(_npi_rarctan2_scalar, np::Arctan2, true, kDefault, "atan2(scalar, x).")
    .set_gradient(np::OwnGrad(RArctan2SGrad, true), true, true);
MX_NP_SCALAR(_npi_copysign_scalar, np::Copysign, false, kDefault, "|x| with the sign of scalar.")
    .set_gradient(np::OwnGrad(CopysignSGrad, true), true, true);
MX_NP_SCALAR(_npi_rcopysign_scalar, np::Copysign, true, kDefault,
             "|scalar| with the sign of x. Gradient: zero.")
    .set_gradient(np::ZeroGrads, true, false);
MX_NP_SCALAR(_npi_ldexp_scalar, np::Ldexp, false, kDefault, "x * 2^scalar.")
    .set_gradient(np::OwnGrad(LdexpSGrad, true), true, true);
MX_NP_SCALAR(_npi_rldexp_scalar, np::Ldexp, true, kDefault, "scalar * 2^x.")
    .set_gradient(np::OwnGrad(RLdexpSGrad, true), true, true);
MX_NP_SCALAR(_npi_lcm_scalar, np::Lcm, false, kInt,
             "lcm(x, scalar); integer dtypes (scalar truncated).")
    .set_non_differentiable();
#define MX_NP_SBITWISE(NAME, FN, DOC) \
  MX_NP_SCALAR(NAME, FN, false, kIntBool, DOC "; integers or bool.").set_non_differentiable()
MX_NP_SBITWISE(_npi_bitwise_and_scalar, np::BitAnd, "x & scalar");
MX_NP_SBITWISE(_npi_bitwise_or_scalar, np::BitOr, "x | scalar");
MX_NP_SBITWISE(_npi_bitwise_xor_scalar, np::BitXor, "x ^ scalar");
#undef MX_NP_SBITWISE
// Comparisons with a scalar: bool output, zero gradients.
#define MX_NP_SCOMPARE(NAME, FN, DOC) \
  MX_NP_SCALAR(NAME, FN, false, kCompare, DOC " (bool).").set_gradient(np::ZeroGrads, true, false)
MX_NP_SCOMPARE(_npi_equal_scalar, ew::Equal, "x == scalar");
MX_NP_SCOMPARE(_npi_not_equal_scalar, ew::NotEqual, "x != scalar");
MX_NP_SCOMPARE(_npi_greater_scalar, ew::Greater, "x > scalar");
MX_NP_SCOMPARE(_npi_greater_equal_scalar, ew::GreaterEqual, "x >= scalar");
MX_NP_SCOMPARE(_npi_less_scalar, ew::Lesser, "x < scalar");
MX_NP_SCOMPARE(_npi_less_equal_scalar, ew::LesserEqual, "x <= scalar");
#undef MX_NP_SCOMPARE

}  // namespace
}  // namespace mxnet::ops
