// Building blocks of MXNet 1.9.1's NumPy-interface elementwise ops (_npi_* / _npx_*,
// src/operator/numpy/np_elemwise_*): NumPy dtype rules, kernels that run the elemwise family's
// functors in a compute dtype and convert to the output dtype, gradients that reuse the legacy
// ops' definitions, and the extra functors and attributes (arctan2, copysign, ldexp, lcm,
// bitwise, around, nan_to_num).
#pragma once

#include <cmath>
#include <numeric>
#include <optional>
#include <string_view>

#include "ndarray/grad.h"
#include "ndarray/ops/elemwise/elemwise_util.h"

namespace mxnet::ops::np {

// ---- dtype rules (MXNet 1.9.1, checked against its np ops) ----
// Binary ops:
//   kPromote    add, multiply, power: same dtype -> it; bool with X -> X; int with float ->
//               the float; two floats -> the wider; two ints -> the wider (int8 with uint8 is
//               an error: MXNet has no int16);
//   kSubMod     subtract, mod: as kPromote but bool-bool, bool-int and two different ints are
//               errors;
//   kTrueDivide true_divide: int/bool pairs of one dtype -> float32; int/bool with a float ->
//               the float; two different floats or ints are errors;
//   kFloatSame  arctan2, hypot: one floating dtype;
//   kSame       copysign, ldexp: one dtype, not bool;
//   kIntSame    lcm, bitwise_*: one integer dtype or bool;
//   kCompare    equal, less, ...: one dtype (any); the output is bool.
enum class BinRule { kPromote, kSubMod, kTrueDivide, kFloatSame, kSame, kIntSame, kCompare };
// Scalar ops (ScalarParam: scalar, is_int):
//   kDefault    ScalarOutType (bool -> int64, or float64 with is_int=False; int -> float64
//               with is_int=False);
//   kTrueDivide int/bool -> float32, floats keep their dtype;
//   kInt        lcm: integer dtypes only;  kIntBool  bitwise: integers and bool;
//   kCompare    any dtype, bool output; computed in the input dtype (the scalar converted to
//               it) or, for int/bool inputs with is_int=False, in float64.
enum class ScalarRule { kDefault, kTrueDivide, kInt, kIntBool, kCompare };

// FInferType of a binary op with `rule`; throws kInvalidArgument "<op>: unsupported dtypes
// int8 and uint8" for pairs MXNet rejects.
void BinaryType(BinRule rule, const OpAttrs& attrs, DTypeVec* in, DTypeVec* out);
void ScalarType(ScalarRule rule, const OpAttrs& attrs, DTypeVec* in, DTypeVec* out);
// Dtype the kernels compute in, given the (inferred) input/output dtypes.
DType BinaryComputeType(BinRule rule, DType a, DType out);
DType ScalarComputeType(ScalarRule rule, DType in, bool is_int, DType out);

// Storage of a compute dtype: bool computes as uint8 (0/1) and is converted back.
inline DType Storage(DType t) { return t == DType::kBool ? DType::kUint8 : t; }
// `x` converted to dtype `t` (x itself when it already has it).
NDArray Converted(const NDArray& x, DType t);
// Writes `src` into `dst` (same element count), converting dtypes.
void ConvertInto(const NDArray& src, const NDArray& dst);

// ---- extra functors ----
struct Arctan2 {
  template <typename A>
  static A F(A a, A b) {
    return std::atan2(a, b);
  }
};
// |a| with b's sign; b >= 0 counts as positive, -0.0 included (MXNet: copysign(1.5, -0.0) = 1.5).
struct Copysign {
  template <typename A>
  static A F(A a, A b) {
    return b >= A(0) ? std::fabs(a) : -std::fabs(a);
  }
  template <typename I>
  static I Int(I a, I b) {
    if constexpr (std::is_signed_v<I>) {
      I m = a < 0 ? ew::WrapNeg(a) : a;
      return b >= 0 ? m : ew::WrapNeg(m);
    } else {
      return a;
    }
  }
};
// a * 2^b (b may be fractional); integers computed in double and truncated.
struct Ldexp {
  template <typename A>
  static A F(A a, A b) {
    return a * std::pow(A(2), b);
  }
};
// Least common multiple of |a| and |b|; 0 if either is 0. (F: only instantiated, never used:
// lcm is integer-only.)
struct Lcm {
  template <typename I>
  static I Int(I a, I b) {
    if (a == 0 || b == 0) return 0;
    if constexpr (std::is_signed_v<I>) {
      a = a < 0 ? ew::WrapNeg(a) : a;
      b = b < 0 ? ew::WrapNeg(b) : b;
    }
    return ew::WrapMul(static_cast<I>(a / std::gcd(a, b)), b);
  }
  template <typename A>
  static A F(A a, A b) {
    return static_cast<A>(Int<int64_t>(static_cast<int64_t>(a), static_cast<int64_t>(b)));
  }
};
#define MX_NP_BITWISE(NAME, OP)                                                  \
  struct NAME {                                                                  \
    template <typename I>                                                        \
    static I Int(I a, I b) {                                                     \
      return a OP b;                                                             \
    }                                                                            \
    template <typename A>                                                        \
    static A F(A a, A b) {                                                       \
      return static_cast<A>(static_cast<int64_t>(a) OP static_cast<int64_t>(b)); \
    }                                                                            \
  }
MX_NP_BITWISE(BitAnd, &);
MX_NP_BITWISE(BitOr, |);
MX_NP_BITWISE(BitXor, ^);
#undef MX_NP_BITWISE
struct BitNot {
  template <typename I>
  static I Int(I x) {
    return ~x;
  }
  template <typename A>
  static A F(A x) {
    return static_cast<A>(~static_cast<int64_t>(x));
  }
};

// ---- attributes ----
// _npi_around: decimals (int, default 0; negative rounds to tens, hundreds, ...).
struct AroundParam {
  int decimals = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("decimals", &AroundParam::decimals).describe("Number of decimal places to round to.");
  }
};
// _npi_nan_to_num: NaN -> nan, +inf -> posinf, -inf -> neginf (None: the dtype's largest /
// lowest finite value); copy is accepted for MXNet compatibility (outputs are always new).
struct NanToNumParam {
  bool copy = true;
  double nan = 0.0;
  std::optional<double> posinf, neginf;
  template <class D>
  static void Declare(D& d) {
    d.field("copy", &NanToNumParam::copy).describe("Whether to create a copy of x.");
    d.field("nan", &NanToNumParam::nan).describe("Value NaN is replaced with.");
    d.field("posinf", &NanToNumParam::posinf).describe("Value +inf is replaced with.");
    d.field("neginf", &NanToNumParam::neginf).describe("Value -inf is replaced with.");
  }
};

// ---- kernels ----
// Binary broadcast kernel: inputs converted to the compute dtype, Fn applied with the elemwise
// family's broadcast loops, the result converted to the output dtype.
template <typename Fn, bool Opt>
FCompute BinaryKernel(const char* name, BinRule rule) {
  return [name, rule](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
    DType c = Storage(BinaryComputeType(rule, in[0].dtype(), out[0].dtype()));
    NDArray a = Converted(in[0], c), b = Converted(in[1], c);
    NDArray y = out[0].dtype() == c ? out[0] : NDArray(out[0].shape(), out[0].device(), c);
    if constexpr (Opt)
      ew::BroadcastOpt<Fn>(name, a, b, y);
    else
      ew::BroadcastRef<Fn>(name, a, b, y);
    if (out[0].dtype() != c) ConvertInto(y, out[0]);
  };
}

// Scalar kernel: the same with Fn(x, scalar) (Fn(scalar, x) when Rev); a bool compute dtype
// takes the scalar as bool first (MXNet's DType(scalar)); the scalar is converted to the
// compute dtype.
template <typename Fn, bool Rev, bool Opt>
FCompute ScalarKernel(const char* name, ScalarRule rule) {
  return [name, rule](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
    const auto& p = attrs.get<ScalarParam>();
    DType c0 = ScalarComputeType(rule, in[0].dtype(), p.is_int, out[0].dtype());
    double s = c0 == DType::kBool ? static_cast<double>(p.scalar != 0) : p.scalar;
    DType c = Storage(c0);
    NDArray x = Converted(in[0], c);
    NDArray y = out[0].dtype() == c ? out[0] : NDArray(out[0].shape(), out[0].device(), c);
    ew::ScalarMapSame<Fn, Rev, Opt>(name, x, s, y);  // x and y have the dtype c
    if (out[0].dtype() != c) ConvertInto(y, out[0]);
  };
}

// ---- gradients ----
using GradIn = std::span<const GradValue>;
using GradFn = std::vector<GradValue> (*)(GradBuilder&, const OpAttrs&, GradIn, GradIn, GradIn);
// Runs `same` (a gradient written for inputs of the output's dtype) on the inputs cast to the
// output dtype (when CastIn), then casts each input's gradient back to that input's dtype, or
// zeros for integer/bool inputs (MXNet gives them no gradient): _grad_cast_like.
std::vector<GradValue> CastingGrad(const FGradient& same, bool cast_in, GradBuilder& b,
                                   const OpAttrs& attrs, GradIn in, GradIn out, GradIn og);
// The legacy op's (by name) gradient through CastingGrad.
FGradient LegacyGrad(const char* legacy, bool cast_in);
// CastingGrad of a function.
FGradient OwnGrad(GradFn f, bool cast_in);
// Zero gradients for every input (comparisons, rounding, predicates).
std::vector<GradValue> ZeroGrads(GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn);

}  // namespace mxnet::ops::np
