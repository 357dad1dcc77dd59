// The elemwise family's functor kernels (UnaryRef/UnaryOpt, BroadcastRef/BroadcastOpt,
// ScalarMap/ScalarMapSame of elemwise_util.h) are compiled once, in the elemwise_inst_*.cc
// files, instead of in every op file that registers them: the legacy and the NumPy ops share
// most functors, and one functor's kernels are 12 dtypes x several loops each. The op files
// include this header, whose `extern template` declarations stop the compiler from
// instantiating the kernels there (build time only; the compiled code is the same template).
// A functor used by an op file must be listed here (else it is compiled there, as before);
// each list is instantiated by the elemwise_inst_*.cc file named next to it.
#pragma once

#include <string_view>

#include "ndarray/ndarray.h"
#include "ndarray/ops/elemwise/elemwise_np_util.h"
#include "ndarray/ops/elemwise/elemwise_util.h"

// ---- the functor lists: X(functor) / X(functor, reversed) ----
// clang-format off
// elemwise_inst_unary_a.cc: exp, log, roots, trigonometric and hyperbolic
#define MX_EW_UNARY_A(X)                                                                      \
  X(Exp) X(Log) X(Log2) X(Log10) X(Log1p) X(Expm1) X(Sqrt) X(Rsqrt) X(Cbrt) X(Rcbrt)         \
  X(Sin) X(Cos) X(Tan) X(Arcsin) X(Arccos) X(Arctan)                                          \
  X(Sinh) X(Cosh) X(Tanh) X(Arcsinh) X(Arccosh) X(Arctanh)
// elemwise_inst_unary_b.cc: rounding, sign, special functions, activations, bitwise_not
#define MX_EW_UNARY_B(X)                                                                      \
  X(Square) X(Reciprocal) X(Abs) X(Sign) X(Floor) X(Ceil) X(Round) X(Rint) X(Trunc)           \
  X(LogicalNot) X(Degrees) X(Radians) X(Erf) X(Erfinv) X(Gamma) X(Gammaln) X(Digamma)         \
  X(Trigamma) X(Relu) X(Sigmoid) X(Softsign) X(np::BitNot)
// elemwise_inst_binary_a.cc: arithmetic
#define MX_EW_BINARY_A(X) X(Add) X(Sub) X(Mul) X(Div) X(Mod) X(Power)
// elemwise_inst_binary_b.cc: more arithmetic
#define MX_EW_BINARY_B(X) X(Maximum) X(Minimum) X(Hypot) X(np::Arctan2) X(np::Copysign) X(np::Ldexp)
// elemwise_inst_binary_c.cc: comparison
#define MX_EW_BINARY_C(X) X(Equal) X(NotEqual) X(Greater) X(GreaterEqual) X(Lesser) X(LesserEqual)
// elemwise_inst_binary_d.cc: logic and integer ops
#define MX_EW_BINARY_D(X)                                                                     \
  X(LogicalAnd) X(LogicalOr) X(LogicalXor) X(np::Lcm) X(np::BitAnd) X(np::BitOr) X(np::BitXor)
// elemwise_inst_scalar_a.cc: ScalarMap (the legacy scalar ops: any input dtype -> the
// ScalarOutType) and ScalarMapSame (the NumPy scalar ops with these functors)
#define MX_EW_SCALAR_A(X)                                                                     \
  X(Power, false) X(Power, true) X(Maximum, false) X(Minimum, false) X(Mod, false)            \
  X(Mod, true) X(Hypot, false) X(Equal, false) X(NotEqual, false) X(Greater, false)           \
  X(GreaterEqual, false) X(Lesser, false) X(LesserEqual, false) X(LogicalAnd, false)          \
  X(LogicalOr, false) X(LogicalXor, false)
// elemwise_inst_scalar_b.cc: ScalarMapSame only (the other NumPy scalar ops, which convert the
// input to the compute dtype first)
#define MX_EW_SCALAR_B(X)                                                                     \
  X(Add, false) X(Sub, false) X(Sub, true) X(Mul, false) X(Div, false) X(Div, true)           \
  X(np::Arctan2, false) X(np::Arctan2, true) X(np::Copysign, false) X(np::Copysign, true)     \
  X(np::Ldexp, false) X(np::Ldexp, true) X(np::Lcm, false) X(np::BitAnd, false)               \
  X(np::BitOr, false) X(np::BitXor, false)
// clang-format on

// ---- declarations (KW = extern) and definitions (KW empty) ----
#define MX_EW_INST_UNARY_(KW, F)                                                   \
  KW template void UnaryRef<F>(std::string_view, const NDArray&, const NDArray&);  \
  KW template void UnaryLoop<F>(std::string_view, const NDArray&, const NDArray&); \
  KW template void UnaryOpt<F>(std::string_view, const NDArray&, const NDArray&);
#define MX_EW_INST_BINARY_(KW, F)                                                    \
  KW template void BroadcastRef<F>(std::string_view, const NDArray&, const NDArray&, \
                                   const NDArray&);                                  \
  KW template void BroadcastOpt<F>(std::string_view, const NDArray&, const NDArray&, \
                                   const NDArray&);
#define MX_EW_INST_SCALAR_SAME_(KW, F, R)                                               \
  KW template void ScalarMapSame<F, R, false>(std::string_view, const NDArray&, double, \
                                              const NDArray&);                          \
  KW template void ScalarMapSame<F, R, true>(std::string_view, const NDArray&, double,  \
                                             const NDArray&);
#define MX_EW_INST_SCALAR_(KW, F, R)                                                \
  MX_EW_INST_SCALAR_SAME_(KW, F, R)                                                 \
  KW template void ScalarMap<F, R, false>(std::string_view, const NDArray&, double, \
                                          const NDArray&);                          \
  KW template void ScalarMap<F, R, true>(std::string_view, const NDArray&, double, const NDArray&);

#define MX_EW_EXTERN_UNARY(F) MX_EW_INST_UNARY_(extern, F)
#define MX_EW_EXTERN_BINARY(F) MX_EW_INST_BINARY_(extern, F)
#define MX_EW_EXTERN_SCALAR(F, R) MX_EW_INST_SCALAR_(extern, F, R)
#define MX_EW_EXTERN_SCALAR_SAME(F, R) MX_EW_INST_SCALAR_SAME_(extern, F, R)
#define MX_EW_INSTANTIATE_UNARY(F) MX_EW_INST_UNARY_(, F)
#define MX_EW_INSTANTIATE_BINARY(F) MX_EW_INST_BINARY_(, F)
#define MX_EW_INSTANTIATE_SCALAR(F, R) MX_EW_INST_SCALAR_(, F, R)
#define MX_EW_INSTANTIATE_SCALAR_SAME(F, R) MX_EW_INST_SCALAR_SAME_(, F, R)

namespace mxnet::ops::ew {
MX_EW_UNARY_A(MX_EW_EXTERN_UNARY)
MX_EW_UNARY_B(MX_EW_EXTERN_UNARY)
MX_EW_BINARY_A(MX_EW_EXTERN_BINARY)
MX_EW_BINARY_B(MX_EW_EXTERN_BINARY)
MX_EW_BINARY_C(MX_EW_EXTERN_BINARY)
MX_EW_BINARY_D(MX_EW_EXTERN_BINARY)
MX_EW_SCALAR_A(MX_EW_EXTERN_SCALAR)
MX_EW_SCALAR_B(MX_EW_EXTERN_SCALAR_SAME)
}  // namespace mxnet::ops::ew
