// MXNet 1.9.1's NumPy-interface unary elementwise ops (src/operator/numpy/
// np_elemwise_unary_op_basic.cc, np_elemwise_broadcast_op_extended*.cc, numpy/np_*):
//   _npi_exp, _npi_sqrt, ...          the elemwise family's math on one array: every numeric
//                                     dtype except bool, output of the input's dtype (integers
//                                     computed in double and truncated, as MXNet: sqrt(int32 2)
//                                     is 1); gradients are the legacy ops' (exp, sqrt, ...),
//                                     zero for integer inputs;
//   _npi_isnan, ..., _npi_logical_not any dtype -> bool; zero gradients;
//   _npi_bitwise_not                  integers (~x) and bool (logical not); no gradient;
//   _npi_around                       round half to even at `decimals` places (MXNet's scaling
//                                     by 10 steps); integers and float32/64; zero gradient;
//   _npi_nan_to_num                   NaN/+inf/-inf replaced (floats; others copied).
// Shapes: the output has the input's shape (0-dim and zero-size included).
#include <cmath>
#include <cstring>
#include <limits>

#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/elemwise/elemwise_inst.h"  // the kernels are compiled in elemwise_inst_*.cc
#include "ndarray/ops/elemwise/elemwise_np_util.h"

namespace mxnet::ops {
namespace {

using np::GradIn;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};
constexpr KernelKey kOpt{DeviceType::kCPU, Backend::kOptimized};

template <typename T>
double ToD(T v) {
  if constexpr (ew::kIsHalf<T>)
    return static_cast<double>(static_cast<float>(v));
  else
    return static_cast<double>(v);
}

// ---- math on one array (legacy functors and gradients) ----
#define MX_NP_UNARY(NAME, FN, LEGACY, DOC)                 \
  MX_REGISTER_OP(NAME)                                     \
      .describe(DOC)                                       \
      .set_input_names(std::vector<std::string>{"x"})      \
      .add_inplace(0, 0)                                   \
      .set_kernel(kRef, ew::UnaryKernel<FN, false>(#NAME)) \
      .set_kernel(kOpt, ew::UnaryKernel<FN, true>(#NAME))  \
      .set_gradient(np::LegacyGrad(LEGACY, false), true, true)

MX_NP_UNARY(_npi_absolute, ew::Abs, "abs", "|x|.").add_alias("_npi_abs");
MX_NP_UNARY(_npi_sign, ew::Sign, "sign", "-1, 0 or 1 (0 for NaN). Gradient: zero.");
MX_NP_UNARY(
    _npi_rint, ew::Rint, "rint",
    "Nearest integer, halves to the lower one (MXNet: 1.5 -> 1, -0.5 -> -1). Gradient: zero.");
MX_NP_UNARY(_npi_ceil, ew::Ceil, "ceil", "Ceiling. Gradient: zero.");
MX_NP_UNARY(_npi_floor, ew::Floor, "floor", "Floor. Gradient: zero.");
MX_NP_UNARY(_npi_trunc, ew::Trunc, "trunc", "Rounding toward zero. Gradient: zero.");
MX_NP_UNARY(_npi_fix, ew::Trunc, "fix", "Rounding toward zero. Gradient: zero.");
MX_NP_UNARY(_npi_square, ew::Square, "square", "x^2.");
MX_NP_UNARY(_npi_sqrt, ew::Sqrt, "sqrt", "Square root.");
MX_NP_UNARY(_npi_cbrt, ew::Cbrt, "cbrt", "Cube root.");
MX_NP_UNARY(_npi_exp, ew::Exp, "exp", "e^x.");
MX_NP_UNARY(_npi_log, ew::Log, "log", "Natural logarithm.");
MX_NP_UNARY(_npi_log10, ew::Log10, "log10", "Base-10 logarithm.");
MX_NP_UNARY(_npi_log2, ew::Log2, "log2", "Base-2 logarithm.");
MX_NP_UNARY(_npi_log1p, ew::Log1p, "log1p", "log(1 + x).");
MX_NP_UNARY(_npi_expm1, ew::Expm1, "expm1", "exp(x) - 1.");
MX_NP_UNARY(_npi_sin, ew::Sin, "sin", "Sine (radians).");
MX_NP_UNARY(_npi_cos, ew::Cos, "cos", "Cosine (radians).");
MX_NP_UNARY(_npi_tan, ew::Tan, "tan", "Tangent (radians).");
MX_NP_UNARY(_npi_sinh, ew::Sinh, "sinh", "Hyperbolic sine.");
MX_NP_UNARY(_npi_cosh, ew::Cosh, "cosh", "Hyperbolic cosine.");
MX_NP_UNARY(_npi_tanh, ew::Tanh, "tanh", "Hyperbolic tangent.");
MX_NP_UNARY(_npi_arcsin, ew::Arcsin, "arcsin", "Inverse sine.");
MX_NP_UNARY(_npi_arccos, ew::Arccos, "arccos", "Inverse cosine.");
MX_NP_UNARY(_npi_arctan, ew::Arctan, "arctan", "Inverse tangent.");
MX_NP_UNARY(_npi_arcsinh, ew::Arcsinh, "arcsinh", "Inverse hyperbolic sine.");
MX_NP_UNARY(_npi_arccosh, ew::Arccosh, "arccosh", "Inverse hyperbolic cosine (x >= 1).");
MX_NP_UNARY(_npi_arctanh, ew::Arctanh, "arctanh", "Inverse hyperbolic tangent (|x| < 1).");
MX_NP_UNARY(_npi_degrees, ew::Degrees, "degrees", "Radians to degrees.");
MX_NP_UNARY(_npi_radians, ew::Radians, "radians", "Degrees to radians.");
MX_NP_UNARY(_npi_reciprocal, ew::Reciprocal, "reciprocal",
            "1 / x (integers truncated; integer 1/0 gives 0).");
MX_NP_UNARY(_npx_relu, ew::Relu, "relu", "max(x, 0) (NaN stays NaN).")
    .set_input_names(std::vector<std::string>{"data"});
MX_NP_UNARY(_npx_sigmoid, ew::Sigmoid, "sigmoid", "1 / (1 + exp(-x)).")
    .set_input_names(std::vector<std::string>{"data"});
#undef MX_NP_UNARY

// ---- predicates: any dtype -> bool ----
#define MX_NP_PRED(NAME, EXPR)                  \
  struct NAME {                                 \
    static bool Test(double v) { return EXPR; } \
  }
MX_NP_PRED(IsNan, std::isnan(v));
MX_NP_PRED(IsInf, std::isinf(v));
MX_NP_PRED(IsPosInf, v == std::numeric_limits<double>::infinity());
MX_NP_PRED(IsNegInf, v == -std::numeric_limits<double>::infinity());
MX_NP_PRED(IsFinite, std::isfinite(v));
MX_NP_PRED(IsZero, v == 0);
#undef MX_NP_PRED

template <typename P>
void PredKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  bool* y = static_cast<bool*>(out[0].data_ptr());
  MX_DTYPE_SWITCH(in[0].dtype(), T, {
    const T* x = static_cast<const T*>(in[0].data_ptr());
    ParallelForRange(in[0].size(), 32768, [x, y](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = P::Test(ToD(x[i]));
    });
  });
}

void BoolOut(const OpAttrs& a, DTypeVec*, DTypeVec* out) {
  MergeType(&(*out)[0], DTypeFlag(DType::kBool), StrCat(a.op() ? a.op()->name : "", ": output"));
}

#define MX_NP_PREDICATE(NAME, PRED, DOC)                        \
  MX_REGISTER_OP(NAME)                                          \
      .describe(DOC " Any dtype; bool output. Gradient: zero.") \
      .set_input_names(std::vector<std::string>{"x"})           \
      .set_infer_type(BoolOut)                                  \
      .set_kernel(kRef, PredKernel<PRED>)                       \
      .set_gradient(np::ZeroGrads, true, false)

MX_NP_PREDICATE(_npi_isnan, IsNan, "True where x is NaN.");
MX_NP_PREDICATE(_npi_isinf, IsInf, "True where x is +-inf.");
MX_NP_PREDICATE(_npi_isposinf, IsPosInf, "True where x is +inf.");
MX_NP_PREDICATE(_npi_isneginf, IsNegInf, "True where x is -inf.");
MX_NP_PREDICATE(_npi_isfinite, IsFinite, "True where x is neither NaN nor +-inf (integers: all).");
MX_NP_PREDICATE(_npi_logical_not, IsZero, "True where x == 0 (NaN is non-zero).");
#undef MX_NP_PREDICATE

// ---- bitwise_not ----
template <bool Opt>
void BitNotKernel(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  if (in[0].dtype() == DType::kBool) {
    PredKernel<IsZero>(ctx, attrs, in, out);
    return;
  }
  ew::UnaryKernel<np::BitNot, Opt>("_npi_bitwise_not")(ctx, attrs, in, out);
}

MX_REGISTER_OP(_npi_bitwise_not)
    .describe("~x for integers, logical not for bool; floats are rejected.")
    .set_input_names(std::vector<std::string>{"x"})
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      ElemwiseType(a, in, out);
      int t = (*in)[0];
      if (t >= 0 && IsFloatingPoint(static_cast<DType>(t)))
        MX_THROW(absl::StatusCode::kInvalidArgument, "_npi_bitwise_not: unsupported dtype ",
                 DTypeName(static_cast<DType>(t)), " (needs an integer or bool dtype)");
    })
    .set_kernel(kRef, BitNotKernel<false>)
    .set_kernel(kOpt, BitNotKernel<true>)
    .set_non_differentiable();

// ---- around ----
// MXNet's steps: scale by 10 |decimals| times (integers: truncating division), round half away
// from zero, move odd results of exact halves to the even neighbour, scale back (stopping at 0).
template <typename T>
T AroundOne(T v, int decimals) {
  T t = v;
  int d = 0;
  while (d != decimals) {
    if (decimals > 0) {
      ++d;
      t = static_cast<T>(t * 10);
    } else {
      --d;
      t = static_cast<T>(t / 10);
    }
  }
  T r = static_cast<T>(std::round(static_cast<double>(t)));
  if constexpr (std::is_floating_point_v<T>) {
    bool odd = std::fmod(r, T(2)) != 0;
    if (r - t == T(0.5) && odd)
      r -= 1;
    else if (t - r == T(0.5) && odd)
      r += 1;
  }
  while (d != 0 && r != 0) {
    if (decimals > 0) {
      --d;
      r = static_cast<T>(r / 10);
    } else {
      ++d;
      r = static_cast<T>(r * 10);
    }
  }
  return r;
}

void AroundKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  int dec = attrs.get<np::AroundParam>().decimals;
  MX_NUMERIC_TYPE_SWITCH(in[0].dtype(), T, "_npi_around", {
    if constexpr (ew::kIsHalf<T>) {
      MX_THROW(absl::StatusCode::kInvalidArgument, "_npi_around: unsupported dtype ",
               DTypeName(in[0].dtype()));
    } else {
      const T* x = static_cast<const T*>(in[0].data_ptr());
      T* y = static_cast<T*>(out[0].data_ptr());
      ParallelForRange(in[0].size(), 32768, [x, y, dec](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) y[i] = AroundOne<T>(x[i], dec);
      });
    }
  });
}

MX_REGISTER_OP(_npi_around)
    .describe(
        "Rounds to `decimals` places (default 0; negative: tens, hundreds, ...), halves to "
        "even; integers and float32/float64 (not float16, as MXNet). Gradient: zero.")
    .set_params<np::AroundParam>()
    .set_input_names(std::vector<std::string>{"x"})
    .add_inplace(0, 0)
    .set_kernel(kRef, AroundKernel)
    .set_gradient(np::ZeroGrads, true, false);

// ---- nan_to_num ----
double MaxFinite(DType t) {
  switch (t) {
    case DType::kFloat16:
      return 65504.0;
    case DType::kBFloat16:
      return 3.3895313892515355e38;
    case DType::kFloat32:
      return std::numeric_limits<float>::max();
    default:
      return std::numeric_limits<double>::max();
  }
}

void NanToNumKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const auto& p = attrs.get<np::NanToNumParam>();
  DType dt = in[0].dtype();
  if (!IsFloatingPoint(dt)) {
    std::memcpy(out[0].data_ptr(), in[0].data_ptr(), static_cast<size_t>(in[0].nbytes()));
    return;
  }
  MX_FLOAT_TYPE_SWITCH(dt, T, "_npi_nan_to_num", {
    const T nanv = ew::ScalarAs<T>(p.nan), pos = ew::ScalarAs<T>(p.posinf.value_or(MaxFinite(dt))),
            neg = ew::ScalarAs<T>(p.neginf.value_or(-MaxFinite(dt)));
    const T* x = static_cast<const T*>(in[0].data_ptr());
    T* y = static_cast<T*>(out[0].data_ptr());
    ParallelForRange(in[0].size(), 32768, [=](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        double v = ToD(x[i]);
        y[i] = std::isnan(v) ? nanv : (std::isinf(v) ? (v > 0 ? pos : neg) : x[i]);
      }
    });
  });
}

MX_REGISTER_OP(_npi_nan_to_num)
    .describe(
        "Replaces NaN by `nan` (default 0), +inf by `posinf` and -inf by `neginf` (default: "
        "the dtype's largest/lowest finite value); non-float dtypes are copied. Gradient: "
        "the output gradient where x is finite, else 0.")
    .set_params<np::NanToNumParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .add_inplace(0, 0)
    .set_kernel(kRef, NanToNumKernel)
    .set_gradient(np::OwnGrad(
                      [](GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
                        return std::vector<GradValue>{
                            b.Call("_npi_multiply", {og[0], b.Call("_npi_isfinite", {in[0]})})};
                      },
                      false),
                  true, false);

}  // namespace
}  // namespace mxnet::ops
