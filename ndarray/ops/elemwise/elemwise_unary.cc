// Unary math of the elemwise family (MXNet 1.9.1 elemwise_unary_op_*.cc): exp/log family,
// powers and roots, trigonometric and hyperbolic functions, erf/erfinv, gamma/gammaln,
// rounding, reciprocal, relu/sigmoid/softsign, degrees/radians, logical_not, plus the helper
// ops _digamma/_trigamma used by the gamma gradients.
//
// Every op takes every numeric dtype except bool (as in MXNet): float16/bfloat16 compute in
// float; integer inputs are computed in double and truncated back (exp(int32 1) = 2), except
// where the result is exact in integers (abs, sign, square, rounding, relu, logical_not).
// Gradients are compositions of registered ops, so they are differentiable again.
#include <numbers>

#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/elemwise/elemwise_inst.h"  // the kernels are compiled in elemwise_inst_*.cc
#include "ndarray/ops/elemwise/elemwise_util.h"

namespace mxnet::ops {
namespace {

using ew::At;
using ew::S;
using ew::U;

#define MX_EW_UNARY(NAME, FN, DOC)                                                            \
  MX_REGISTER_OP(NAME)                                                                        \
      .describe(DOC)                                                                          \
      .add_inplace(0, 0)                                                                      \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, ew::UnaryKernel<FN, false>(#NAME)) \
      .set_kernel({DeviceType::kCPU, Backend::kOptimized}, ew::UnaryKernel<FN, true>(#NAME))

// Gradient lambda of a unary op: x = input, y = output, g = output gradient.
#define MX_EW_GRAD(EXPR)                                              \
  [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,   \
     std::span<const GradValue> out, std::span<const GradValue> og) { \
    [[maybe_unused]] GradValue x = At(in, 0);                         \
    [[maybe_unused]] GradValue y = At(out, 0);                        \
    [[maybe_unused]] GradValue g = og[0];                             \
    return std::vector<GradValue>{EXPR};                              \
  }
#define MX_EW_ZERO_GRAD MX_EW_GRAD(b.ZerosLike(x)), true, false

constexpr double kLn2 = std::numbers::ln2;
constexpr double kLn10 = std::numbers::ln10;
constexpr double kPi = std::numbers::pi;

// ---- exp / log family ----
MX_EW_UNARY(exp, ew::Exp, "Elementwise e^x.")
    .add_alias("_sparse_exp")
    .set_gradient(MX_EW_GRAD(b.Mul(g, y)), false, true);
MX_EW_UNARY(log, ew::Log, "Elementwise natural logarithm (NaN for x < 0, -inf at 0).")
    .add_alias("_sparse_log")
    .set_gradient(MX_EW_GRAD(b.Div(g, x)), true, false);
MX_EW_UNARY(log2, ew::Log2, "Elementwise base-2 logarithm.")
    .add_alias("_sparse_log2")
    .set_gradient(MX_EW_GRAD(b.Div(g, b.MulScalar(x, kLn2))), true, false);
MX_EW_UNARY(log10, ew::Log10, "Elementwise base-10 logarithm.")
    .add_alias("_sparse_log10")
    .set_gradient(MX_EW_GRAD(b.Div(g, b.MulScalar(x, kLn10))), true, false);
MX_EW_UNARY(log1p, ew::Log1p, "Elementwise log(1 + x), accurate for small x.")
    .add_alias("_sparse_log1p")
    .set_gradient(MX_EW_GRAD(b.Div(g, b.AddScalar(x, 1))), true, false);
MX_EW_UNARY(expm1, ew::Expm1, "Elementwise exp(x) - 1, accurate for small x.")
    .add_alias("_sparse_expm1")
    .set_gradient(MX_EW_GRAD(b.Mul(g, U(b, "exp", x))), true, false);

// ---- powers and roots ----
MX_EW_UNARY(sqrt, ew::Sqrt, "Elementwise square root.")
    .add_alias("_sparse_sqrt")
    .set_gradient(MX_EW_GRAD(b.Div(b.MulScalar(g, 0.5), y)), false, true);
MX_EW_UNARY(rsqrt, ew::Rsqrt, "Elementwise 1 / sqrt(x).")
    .add_alias("_sparse_rsqrt")
    .set_gradient(MX_EW_GRAD(b.MulScalar(b.Mul(g, b.Div(y, x)), -0.5)), true, true);
MX_EW_UNARY(cbrt, ew::Cbrt, "Elementwise cube root.")
    .add_alias("_sparse_cbrt")
    .set_gradient(MX_EW_GRAD(b.Div(g, b.MulScalar(U(b, "square", y), 3))), false, true);
MX_EW_UNARY(rcbrt, ew::Rcbrt, "Elementwise 1 / cbrt(x).")
    .set_gradient(MX_EW_GRAD(b.MulScalar(b.Mul(g, b.Div(y, x)), -1.0 / 3)), true, true);
MX_EW_UNARY(square, ew::Square, "Elementwise x^2.")
    .add_alias("_sparse_square")
    .set_gradient(MX_EW_GRAD(b.Mul(g, b.MulScalar(x, 2))), true, false);
MX_EW_UNARY(reciprocal, ew::Reciprocal, "Elementwise 1 / x (integers: truncated, 1/0 gives 0).")
    .set_gradient(MX_EW_GRAD(b.Neg(b.Div(g, U(b, "square", x)))), true, false);

// ---- sign, absolute value, rounding (zero gradients as in MXNet) ----
MX_EW_UNARY(abs, ew::Abs, "Elementwise absolute value.")
    .add_alias("_sparse_abs")
    .set_gradient(MX_EW_GRAD(b.Mul(g, U(b, "sign", x))), true, false);
MX_EW_UNARY(sign, ew::Sign, "Elementwise sign: -1, 0 or 1 (0 for NaN). Gradient: zero.")
    .add_alias("_sparse_sign")
    .set_gradient(MX_EW_ZERO_GRAD);
MX_EW_UNARY(floor, ew::Floor, "Elementwise floor. Gradient: zero.")
    .add_alias("_sparse_floor")
    .set_gradient(MX_EW_ZERO_GRAD);
MX_EW_UNARY(ceil, ew::Ceil, "Elementwise ceiling. Gradient: zero.")
    .add_alias("_sparse_ceil")
    .set_gradient(MX_EW_ZERO_GRAD);
MX_EW_UNARY(round, ew::Round, "Elementwise rounding, halves away from zero. Gradient: zero.")
    .add_alias("_sparse_round")
    .set_gradient(MX_EW_ZERO_GRAD);
MX_EW_UNARY(
    rint, ew::Rint,
    "Elementwise nearest integer, halves to the lower one (1.5 -> 1, -0.5 -> -1). Gradient: zero.")
    .add_alias("_sparse_rint")
    .set_gradient(MX_EW_ZERO_GRAD);
MX_EW_UNARY(fix, ew::Trunc, "Elementwise rounding toward zero. Gradient: zero.")
    .add_alias("_sparse_fix")
    .set_gradient(MX_EW_ZERO_GRAD);
MX_EW_UNARY(trunc, ew::Trunc, "Elementwise truncation toward zero. Gradient: zero.")
    .add_alias("_sparse_trunc")
    .set_gradient(MX_EW_ZERO_GRAD);
MX_EW_UNARY(logical_not, ew::LogicalNot,
            "Elementwise 1 where x == 0 else 0 (input dtype). Gradient: zero.")
    .set_gradient(MX_EW_ZERO_GRAD);

// ---- trigonometric ----
MX_EW_UNARY(sin, ew::Sin, "Elementwise sine (radians).")
    .add_alias("_sparse_sin")
    .set_gradient(MX_EW_GRAD(b.Mul(g, U(b, "cos", x))), true, false);
MX_EW_UNARY(cos, ew::Cos, "Elementwise cosine (radians).")
    .add_alias("_sparse_cos")
    .set_gradient(MX_EW_GRAD(b.Neg(b.Mul(g, U(b, "sin", x)))), true, false);
MX_EW_UNARY(tan, ew::Tan, "Elementwise tangent (radians).")
    .add_alias("_sparse_tan")
    .set_gradient(MX_EW_GRAD(b.Mul(g, b.AddScalar(U(b, "square", y), 1))), false, true);
MX_EW_UNARY(arcsin, ew::Arcsin, "Elementwise inverse sine, in [-pi/2, pi/2].")
    .add_alias("_sparse_arcsin")
    .set_gradient(MX_EW_GRAD(b.Mul(g, U(b, "rsqrt", S(b, "_rminus_scalar", U(b, "square", x), 1)))),
                  true, false);
MX_EW_UNARY(arccos, ew::Arccos, "Elementwise inverse cosine, in [0, pi].")
    .add_alias("_sparse_arccos")
    .set_gradient(MX_EW_GRAD(b.Neg(b.Mul(g, U(b, "rsqrt",
                                              S(b, "_rminus_scalar", U(b, "square", x), 1))))),
                  true, false);
MX_EW_UNARY(arctan, ew::Arctan, "Elementwise inverse tangent, in (-pi/2, pi/2).")
    .add_alias("_sparse_arctan")
    .set_gradient(MX_EW_GRAD(b.Div(g, b.AddScalar(U(b, "square", x), 1))), true, false);
MX_EW_UNARY(degrees, ew::Degrees, "Elementwise radians to degrees.")
    .add_alias("_sparse_degrees")
    .set_gradient(MX_EW_GRAD(b.MulScalar(g, 180.0 / kPi)), false, false);
MX_EW_UNARY(radians, ew::Radians, "Elementwise degrees to radians.")
    .add_alias("_sparse_radians")
    .set_gradient(MX_EW_GRAD(b.MulScalar(g, kPi / 180.0)), false, false);

// ---- hyperbolic ----
MX_EW_UNARY(sinh, ew::Sinh, "Elementwise hyperbolic sine.")
    .add_alias("_sparse_sinh")
    .set_gradient(MX_EW_GRAD(b.Mul(g, U(b, "cosh", x))), true, false);
MX_EW_UNARY(cosh, ew::Cosh, "Elementwise hyperbolic cosine.")
    .add_alias("_sparse_cosh")
    .set_gradient(MX_EW_GRAD(b.Mul(g, U(b, "sinh", x))), true, false);
MX_EW_UNARY(tanh, ew::Tanh, "Elementwise hyperbolic tangent.")
    .add_alias("_sparse_tanh")
    .set_gradient(MX_EW_GRAD(b.Mul(g, S(b, "_rminus_scalar", U(b, "square", y), 1))), false, true);
MX_EW_UNARY(arcsinh, ew::Arcsinh, "Elementwise inverse hyperbolic sine.")
    .add_alias("_sparse_arcsinh")
    .set_gradient(MX_EW_GRAD(b.Mul(g, U(b, "rsqrt", b.AddScalar(U(b, "square", x), 1)))), true,
                  false);
MX_EW_UNARY(arccosh, ew::Arccosh, "Elementwise inverse hyperbolic cosine (x >= 1).")
    .add_alias("_sparse_arccosh")
    .set_gradient(MX_EW_GRAD(b.Mul(g, U(b, "rsqrt", b.AddScalar(U(b, "square", x), -1)))), true,
                  false);
MX_EW_UNARY(arctanh, ew::Arctanh, "Elementwise inverse hyperbolic tangent (|x| < 1).")
    .add_alias("_sparse_arctanh")
    .set_gradient(MX_EW_GRAD(b.Div(g, S(b, "_rminus_scalar", U(b, "square", x), 1))), true, false);

// ---- special functions ----
MX_EW_UNARY(erf, ew::Erf, "Elementwise Gauss error function.")
    .add_alias("_npx_erf")
    .set_gradient(MX_EW_GRAD(b.Mul(g, b.MulScalar(U(b, "exp", b.Neg(U(b, "square", x))),
                                                  2 / std::sqrt(kPi)))),
                  true, false);
MX_EW_UNARY(erfinv, ew::Erfinv, "Elementwise inverse error function (+-inf at +-1, NaN outside).")
    .add_alias("_npx_erfinv")
    .set_gradient(MX_EW_GRAD(b.Mul(g, b.MulScalar(U(b, "exp", U(b, "square", y)),
                                                  std::sqrt(kPi) / 2))),
                  false, true);
MX_EW_UNARY(gamma, ew::Gamma, "Elementwise gamma function.")
    .add_alias("_npx_gamma")
    .add_alias("_sparse_gamma")
    .set_gradient(MX_EW_GRAD(b.Mul(g, b.Mul(y, U(b, "_digamma", x)))), true, true);
MX_EW_UNARY(gammaln, ew::Gammaln, "Elementwise log of the absolute value of the gamma function.")
    .add_alias("_npx_gammaln")
    .add_alias("_sparse_gammaln")
    .set_gradient(MX_EW_GRAD(b.Mul(g, U(b, "_digamma", x))), true, false);
MX_EW_UNARY(_digamma, ew::Digamma,
            "Elementwise digamma psi(x) = d/dx log gamma(x); helper of the gamma/gammaln gradients "
            "(not an MXNet op).")
    .set_gradient(MX_EW_GRAD(b.Mul(g, U(b, "_trigamma", x))), true, false);
MX_EW_UNARY(_trigamma, ew::Trigamma,
            "Elementwise trigamma psi'(x); helper of the _digamma gradient (not an MXNet op).")
    .set_non_differentiable();

// ---- activations ----
MX_EW_UNARY(relu, ew::Relu, "Elementwise max(x, 0) (NaN stays NaN).")
    .add_alias("_sparse_relu")
    .set_gradient(MX_EW_GRAD(b.Mul(g, S(b, "_greater_scalar", x, 0))), true, false);
MX_EW_UNARY(sigmoid, ew::Sigmoid, "Elementwise 1 / (1 + exp(-x)).")
    .add_alias("_sparse_sigmoid")
    .set_gradient(MX_EW_GRAD(b.Mul(g, b.Mul(y, S(b, "_rminus_scalar", y, 1)))), false, true);
MX_EW_UNARY(softsign, ew::Softsign, "Elementwise x / (1 + |x|).")
    .set_gradient(MX_EW_GRAD(b.Div(g, U(b, "square", b.AddScalar(U(b, "abs", x), 1)))), true,
                  false);

}  // namespace
}  // namespace mxnet::ops
