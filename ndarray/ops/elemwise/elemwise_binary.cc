// Binary arithmetic, comparison and logic of the elemwise family (MXNet 1.9.1
// elemwise_binary_broadcast_op_*.cc, elemwise_binary_op_*.cc, elemwise_binary_scalar_op_*.cc):
//   broadcast_*   NumPy broadcasting (right-aligned, size-1 axes stretch, rank may differ);
//   _power, _maximum, _equal, ...   the same-shape versions;
//   _power_scalar, _equal_scalar, ...   an array and a scalar attribute.
//
// dtypes: both inputs share one numeric dtype (not bool); the output has it too, comparisons and
// logic included (1/0 in the input dtype, MXNet 1.x). Integer division truncates and x/0, x%0 are
// 0; % follows Python (sign of the divisor); maximum/minimum propagate NaN. Scalar ops follow
// MXNet's NumpyBinaryScalarType: int input with is_int=False -> float64, bool -> int64/float64.
//
// Gradients: comparisons/logic have zero gradients (MXNet registers them); the rest are
// compositions of registered ops, un-broadcast with _reduce_sum_like.
#include <cmath>

#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/elemwise/elemwise_inst.h"  // the kernels are compiled in elemwise_inst_*.cc
#include "ndarray/ops/elemwise/elemwise_util.h"

namespace mxnet::ops {
namespace {

using ew::B;
using ew::S;
using ew::U;

using GradIn = std::span<const GradValue>;

// Un-broadcasts a gradient to `like`'s shape (identity for the same-shape ops).
template <bool Bc>
GradValue R(GradBuilder& b, GradValue g, GradValue like) {
  if constexpr (Bc)
    return b.SumLike(g, like);
  else
    return g;
}

template <bool Bc>
std::vector<GradValue> AddGrad(GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
  return {R<Bc>(b, og[0], in[0]), R<Bc>(b, og[0], in[1])};
}
template <bool Bc>
std::vector<GradValue> SubGrad(GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
  return {R<Bc>(b, og[0], in[0]), R<Bc>(b, b.Neg(og[0]), in[1])};
}
template <bool Bc>
std::vector<GradValue> MulGrad(GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
  return {R<Bc>(b, B(b, "broadcast_mul", og[0], in[1]), in[0]),
          R<Bc>(b, B(b, "broadcast_mul", og[0], in[0]), in[1])};
}
// d(a/b)/da = 1/b, d(a/b)/db = -a/b^2.
template <bool Bc>
std::vector<GradValue> DivGrad(GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
  GradValue ga = B(b, "broadcast_div", og[0], in[1]);
  GradValue gb =
      b.Neg(B(b, "broadcast_mul", og[0], B(b, "broadcast_div", in[0], U(b, "square", in[1]))));
  return {R<Bc>(b, ga, in[0]), R<Bc>(b, gb, in[1])};
}
// a mod b = a - b * floor(a / b): d/da = 1, d/db = -floor(a / b).
template <bool Bc>
std::vector<GradValue> ModGrad(GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
  GradValue q = U(b, "floor", B(b, "broadcast_div", in[0], in[1]));
  return {R<Bc>(b, og[0], in[0]), R<Bc>(b, b.Neg(B(b, "broadcast_mul", og[0], q)), in[1])};
}
// d(a^b)/da = b a^(b-1), d(a^b)/db = a^b log(a).
template <bool Bc>
std::vector<GradValue> PowerGrad(GradBuilder& b, const OpAttrs&, GradIn in, GradIn out, GradIn og) {
  GradValue da =
      B(b, "broadcast_mul", in[1], B(b, "broadcast_power", in[0], S(b, "_minus_scalar", in[1], 1)));
  GradValue db = B(b, "broadcast_mul", out[0], U(b, "log", in[0]));
  return {R<Bc>(b, B(b, "broadcast_mul", og[0], da), in[0]),
          R<Bc>(b, B(b, "broadcast_mul", og[0], db), in[1])};
}
// Ties go to lhs (MXNet): maximum lhs mask a >= b, rhs a < b; minimum lhs a <= b, rhs a > b.
template <bool Bc, bool Max>
std::vector<GradValue> MaxMinGrad(GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
  GradValue ma = B(b, Max ? "broadcast_greater_equal" : "broadcast_lesser_equal", in[0], in[1]);
  GradValue mb = B(b, Max ? "broadcast_lesser" : "broadcast_greater", in[0], in[1]);
  return {R<Bc>(b, b.Mul(og[0], ma), in[0]), R<Bc>(b, b.Mul(og[0], mb), in[1])};
}
// d hypot(a, b)/da = a / hypot(a, b).
template <bool Bc>
std::vector<GradValue> HypotGrad(GradBuilder& b, const OpAttrs&, GradIn in, GradIn out, GradIn og) {
  return {R<Bc>(b, b.Mul(og[0], B(b, "broadcast_div", in[0], out[0])), in[0]),
          R<Bc>(b, b.Mul(og[0], B(b, "broadcast_div", in[1], out[0])), in[1])};
}
std::vector<GradValue> ZeroGrad2(GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn) {
  return {b.ZerosLike(in[0]), b.ZerosLike(in[1])};
}

#define MX_EW_BROADCAST(NAME, FN, DOC)                                                         \
  MX_REGISTER_OP(NAME)                                                                         \
      .describe(DOC " NumPy broadcasting.")                                                    \
      .set_num_inputs(2)                                                                       \
      .set_input_names(std::vector<std::string>{"lhs", "rhs"})                                 \
      .set_infer_shape(ew::BroadcastBinaryShape)                                               \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, ew::BinaryKernel<FN, false>(#NAME)) \
      .set_kernel({DeviceType::kCPU, Backend::kOptimized}, ew::BinaryKernel<FN, true>(#NAME))

#define MX_EW_SAME_SHAPE(NAME, FN, DOC)                                                        \
  MX_REGISTER_OP(NAME)                                                                         \
      .describe(DOC " Inputs of the same shape.")                                              \
      .set_num_inputs(2)                                                                       \
      .set_input_names(std::vector<std::string>{"lhs", "rhs"})                                 \
      .add_inplace(0, 0)                                                                       \
      .add_inplace(1, 0)                                                                       \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, ew::BinaryKernel<FN, false>(#NAME)) \
      .set_kernel({DeviceType::kCPU, Backend::kOptimized}, ew::BinaryKernel<FN, true>(#NAME))

// ---- broadcast arithmetic ----
MX_EW_BROADCAST(broadcast_add, ew::Add, "lhs + rhs.")
    .add_alias("broadcast_plus")
    .add_alias("_sparse_broadcast_add")
    .add_alias("_sparse_broadcast_plus")
    .set_gradient(AddGrad<true>, true, false);
MX_EW_BROADCAST(broadcast_sub, ew::Sub, "lhs - rhs.")
    .add_alias("broadcast_minus")
    .add_alias("_sparse_broadcast_sub")
    .add_alias("_sparse_broadcast_minus")
    .set_gradient(SubGrad<true>, true, false);
MX_EW_BROADCAST(broadcast_mul, ew::Mul, "lhs * rhs.")
    .add_alias("_sparse_broadcast_mul")
    .set_gradient(MulGrad<true>, true, false);
MX_EW_BROADCAST(broadcast_div, ew::Div, "lhs / rhs (integers: truncated, x/0 = 0).")
    .add_alias("_sparse_broadcast_div")
    .set_gradient(DivGrad<true>, true, false);
MX_EW_BROADCAST(broadcast_mod, ew::Mod, "lhs mod rhs, Python-style (sign of rhs; x mod 0 = 0).")
    .set_gradient(ModGrad<true>, true, false);
MX_EW_BROADCAST(broadcast_power, ew::Power, "lhs ^ rhs.").set_gradient(PowerGrad<true>, true, true);
MX_EW_BROADCAST(broadcast_maximum, ew::Maximum, "max(lhs, rhs) (NaN propagates).")
    .add_alias("_npi_maximum")
    .set_gradient(MaxMinGrad<true, true>, true, false);
MX_EW_BROADCAST(broadcast_minimum, ew::Minimum, "min(lhs, rhs) (NaN propagates).")
    .add_alias("_npi_minimum")
    .set_gradient(MaxMinGrad<true, false>, true, false);
MX_EW_BROADCAST(broadcast_hypot, ew::Hypot, "sqrt(lhs^2 + rhs^2).")
    .set_gradient(HypotGrad<true>, true, true);

// ---- broadcast comparison and logic (1/0 in the input dtype; zero gradients) ----
MX_EW_BROADCAST(broadcast_equal, ew::Equal, "1 where lhs == rhs else 0.")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_BROADCAST(broadcast_not_equal, ew::NotEqual, "1 where lhs != rhs else 0.")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_BROADCAST(broadcast_greater, ew::Greater, "1 where lhs > rhs else 0.")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_BROADCAST(broadcast_greater_equal, ew::GreaterEqual, "1 where lhs >= rhs else 0.")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_BROADCAST(broadcast_lesser, ew::Lesser, "1 where lhs < rhs else 0.")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_BROADCAST(broadcast_lesser_equal, ew::LesserEqual, "1 where lhs <= rhs else 0.")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_BROADCAST(broadcast_logical_and, ew::LogicalAnd, "1 where lhs and rhs are non-zero else 0.")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_BROADCAST(broadcast_logical_or, ew::LogicalOr, "1 where lhs or rhs is non-zero else 0.")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_BROADCAST(broadcast_logical_xor, ew::LogicalXor,
                "1 where exactly one of lhs, rhs is non-zero else 0.")
    .set_gradient(ZeroGrad2, true, false);

// ---- same-shape versions ----
MX_EW_SAME_SHAPE(_mod, ew::Mod, "lhs mod rhs, Python-style.")
    .add_alias("_Mod")
    .set_gradient(ModGrad<false>, true, false);
MX_EW_SAME_SHAPE(_power, ew::Power, "lhs ^ rhs.")
    .add_alias("_Power")
    .set_gradient(PowerGrad<false>, true, true);
MX_EW_SAME_SHAPE(_maximum, ew::Maximum, "max(lhs, rhs).")
    .add_alias("_Maximum")
    .set_gradient(MaxMinGrad<false, true>, true, false);
MX_EW_SAME_SHAPE(_minimum, ew::Minimum, "min(lhs, rhs).")
    .add_alias("_Minimum")
    .set_gradient(MaxMinGrad<false, false>, true, false);
MX_EW_SAME_SHAPE(_hypot, ew::Hypot, "sqrt(lhs^2 + rhs^2).")
    .add_alias("_Hypot")
    .set_gradient(HypotGrad<false>, true, true);
MX_EW_SAME_SHAPE(_equal, ew::Equal, "1 where lhs == rhs else 0.")
    .add_alias("_Equal")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_SAME_SHAPE(_not_equal, ew::NotEqual, "1 where lhs != rhs else 0.")
    .add_alias("_Not_Equal")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_SAME_SHAPE(_greater, ew::Greater, "1 where lhs > rhs else 0.")
    .add_alias("_Greater")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_SAME_SHAPE(_greater_equal, ew::GreaterEqual, "1 where lhs >= rhs else 0.")
    .add_alias("_Greater_Equal")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_SAME_SHAPE(_lesser, ew::Lesser, "1 where lhs < rhs else 0.")
    .add_alias("_Lesser")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_SAME_SHAPE(_lesser_equal, ew::LesserEqual, "1 where lhs <= rhs else 0.")
    .add_alias("_Lesser_Equal")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_SAME_SHAPE(_logical_and, ew::LogicalAnd, "1 where both are non-zero else 0.")
    .add_alias("_Logical_And")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_SAME_SHAPE(_logical_or, ew::LogicalOr, "1 where either is non-zero else 0.")
    .add_alias("_Logical_Or")
    .set_gradient(ZeroGrad2, true, false);
MX_EW_SAME_SHAPE(_logical_xor, ew::LogicalXor, "1 where exactly one is non-zero else 0.")
    .add_alias("_Logical_Xor")
    .set_gradient(ZeroGrad2, true, false);

// ---- scalar versions ----
#define MX_EW_SCALAR(NAME, FN, REV, DOC)                   \
  MX_REGISTER_OP(NAME)                                     \
      .describe(DOC)                                       \
      .set_params<ScalarParam>()                           \
      .set_infer_type(ew::ScalarOpType)                    \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, \
                  ew::ScalarKernel<FN, REV, false>(#NAME)) \
      .set_kernel({DeviceType::kCPU, Backend::kOptimized}, ew::ScalarKernel<FN, REV, true>(#NAME))

// Gradient of a scalar op: x = input, y = output, g = output gradient, s = the scalar.
#define MX_EW_SGRAD(EXPR)                                                      \
  [](GradBuilder& b, const OpAttrs& attrs, GradIn in, GradIn out, GradIn og) { \
    [[maybe_unused]] GradValue x = ew::At(in, 0);                              \
    [[maybe_unused]] GradValue y = ew::At(out, 0);                             \
    [[maybe_unused]] GradValue g = og[0];                                      \
    [[maybe_unused]] double s = attrs.get<ScalarParam>().scalar;               \
    return std::vector<GradValue>{EXPR};                                       \
  }
#define MX_EW_SZERO MX_EW_SGRAD(b.ZerosLike(x)), true, false

MX_EW_SCALAR(_power_scalar, ew::Power, false, "x ^ scalar.")
    .add_alias("_PowerScalar")
    .set_gradient(MX_EW_SGRAD(b.Mul(g, b.MulScalar(S(b, "_power_scalar", x, s - 1), s))), true,
                  false);
MX_EW_SCALAR(_rpower_scalar, ew::Power, true, "scalar ^ x.")
    .add_alias("_RPowerScalar")
    .set_gradient(MX_EW_SGRAD(b.MulScalar(b.Mul(g, y), std::log(s))), false, true);
MX_EW_SCALAR(_maximum_scalar, ew::Maximum, false, "max(x, scalar) (NaN propagates).")
    .add_alias("_MaximumScalar")
    .add_alias("_npi_maximum_scalar")
    .set_gradient(MX_EW_SGRAD(b.Mul(g, S(b, "_greater_equal_scalar", x, s))), true, false);
MX_EW_SCALAR(_minimum_scalar, ew::Minimum, false, "min(x, scalar) (NaN propagates).")
    .add_alias("_MinimumScalar")
    .add_alias("_npi_minimum_scalar")
    .set_gradient(MX_EW_SGRAD(b.Mul(g, S(b, "_lesser_equal_scalar", x, s))), true, false);
MX_EW_SCALAR(_mod_scalar, ew::Mod, false, "x mod scalar, Python-style (x mod 0 = 0).")
    .add_alias("_ModScalar")
    .set_gradient(MX_EW_SGRAD(g), false, false);
MX_EW_SCALAR(_rmod_scalar, ew::Mod, true, "scalar mod x, Python-style.")
    .add_alias("_RModScalar")
    .set_gradient(MX_EW_SGRAD(b.Neg(b.Mul(g, U(b, "floor", S(b, "_rdiv_scalar", x, s))))), true,
                  false);
MX_EW_SCALAR(_hypot_scalar, ew::Hypot, false, "sqrt(x^2 + scalar^2).")
    .add_alias("_HypotScalar")
    .add_alias("_npi_hypot_scalar")
    .set_gradient(MX_EW_SGRAD(b.Mul(g, b.Div(x, y))), true, true);
MX_EW_SCALAR(_equal_scalar, ew::Equal, false, "1 where x == scalar else 0.")
    .add_alias("_EqualScalar")
    .set_gradient(MX_EW_SZERO);
MX_EW_SCALAR(_not_equal_scalar, ew::NotEqual, false, "1 where x != scalar else 0.")
    .add_alias("_NotEqualScalar")
    .set_gradient(MX_EW_SZERO);
MX_EW_SCALAR(_greater_scalar, ew::Greater, false, "1 where x > scalar else 0.")
    .add_alias("_GreaterScalar")
    .set_gradient(MX_EW_SZERO);
MX_EW_SCALAR(_greater_equal_scalar, ew::GreaterEqual, false, "1 where x >= scalar else 0.")
    .add_alias("_GreaterEqualScalar")
    .set_gradient(MX_EW_SZERO);
MX_EW_SCALAR(_lesser_scalar, ew::Lesser, false, "1 where x < scalar else 0.")
    .add_alias("_LesserScalar")
    .set_gradient(MX_EW_SZERO);
MX_EW_SCALAR(_lesser_equal_scalar, ew::LesserEqual, false, "1 where x <= scalar else 0.")
    .add_alias("_LesserEqualScalar")
    .set_gradient(MX_EW_SZERO);
MX_EW_SCALAR(_logical_and_scalar, ew::LogicalAnd, false,
             "1 where x and scalar are non-zero else 0.")
    .add_alias("_LogicalAndScalar")
    .set_gradient(MX_EW_SZERO);
MX_EW_SCALAR(_logical_or_scalar, ew::LogicalOr, false, "1 where x or scalar is non-zero else 0.")
    .add_alias("_LogicalOrScalar")
    .set_gradient(MX_EW_SZERO);
MX_EW_SCALAR(_logical_xor_scalar, ew::LogicalXor, false,
             "1 where exactly one of x, scalar is non-zero else 0.")
    .add_alias("_LogicalXorScalar")
    .set_gradient(MX_EW_SZERO);

}  // namespace
}  // namespace mxnet::ops
