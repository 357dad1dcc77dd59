// Kernel building blocks of the elemwise op family: per-element functors with MXNet 1.9's
// semantics (including integer and NaN behaviour), dtype conversion rules, NumPy broadcasting
// plans, and reference/optimized loop templates. Used by elemwise_*.cc and their tests.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string_view>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "ndarray/grad.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ndarray.h"
#include "ndarray/op.h"
#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/elemwise/elemwise_onednn.h"

namespace mxnet::ops::ew {

// ---- Element types. ----
template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
// Integer compute type: wide, wrapping arithmetic is done in it.
template <typename T>
using IntOf = std::conditional_t<std::is_unsigned_v<T>, uint64_t, int64_t>;

// double -> integer T, wrapping like the x86 float->int64->T conversion MXNet's integer kernels
// effectively perform (171.9 -> int8 -85); NaN and out-of-range values give INT64_MIN wrapped.
template <typename T>
inline T FromDouble(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_floating_point_v<T> || kIsHalf<T>) {
    return static_cast<T>(v);
  } else {
    if constexpr (std::is_same_v<T, uint64_t>) {
      if (v >= 9.2233720368547758e18 && v < 1.8446744073709552e19) return static_cast<uint64_t>(v);
    }
    if (!(v > -9.2233720368547758e18 && v < 9.2233720368547758e18))
      return static_cast<T>(std::numeric_limits<int64_t>::min());
    return static_cast<T>(static_cast<int64_t>(v));
  }
}

// A double attribute (scalar, clip bound) in the element type T, as MXNet's `DType(scalar)`.
template <typename T>
inline T ScalarAs(double s) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(s);
  else if constexpr (kIsHalf<T>)
    return T(static_cast<float>(s));
  else
    return FromDouble<T>(s);
}

// Wrapping integer arithmetic (no signed-overflow UB).
template <typename I>
inline I WrapAdd(I a, I b) {
  return static_cast<I>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
template <typename I>
inline I WrapSub(I a, I b) {
  return static_cast<I>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
template <typename I>
inline I WrapMul(I a, I b) {
  return static_cast<I>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
template <typename I>
inline I WrapNeg(I a) {
  return static_cast<I>(uint64_t{0} - static_cast<uint64_t>(a));
}

// c ? x : y for floats as a bit blend of two computed values, so that loops with it vectorize
// (GCC will not if-convert a ternary over arithmetic that may raise FP exceptions).
template <typename A>
inline A Select(bool c, A x, A y) {
  if constexpr (std::is_same_v<A, float> || std::is_same_v<A, double>) {
    using U = std::conditional_t<sizeof(A) == 4, uint32_t, uint64_t>;
    U m = U(0) - static_cast<U>(c);
    return std::bit_cast<A>((std::bit_cast<U>(x) & m) | (std::bit_cast<U>(y) & ~m));
  } else {
    return c ? x : y;
  }
}

// float32 <-> float16 with the CPU's F16C instructions (round to nearest even, as Half does).
// Return false, doing nothing, when the CPU lacks F16C.
bool FloatToHalf(const float* x, uint16_t* y, size_t n);
bool HalfToFloat(const uint16_t* x, float* y, size_t n);

// ---- Applying a functor to one element of type T. ----
// A functor has `template <class A> static A F(A...)` for floating-point A (float for 16-bit
// types) and optionally `template <class I> static I Int(I...)`, the exact integer version.
// Without Int, integer elements are computed in double and converted back (MXNet computes
// integer exp, sqrt, ... in floating point and truncates).
template <typename Op, typename I>
concept HasIntUnary = requires(I x) {
  Op::template Int<I>(x);
};
template <typename Op, typename I>
concept HasIntBinary = requires(I x) {
  Op::template Int<I>(x, x);
};

template <typename Op, typename T>
inline T Unary(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return Op::F(x);
  } else if constexpr (kIsHalf<T>) {
    return T(Op::F(static_cast<float>(x)));
  } else if constexpr (HasIntUnary<Op, IntOf<T>>) {
    return static_cast<T>(Op::template Int<IntOf<T>>(static_cast<IntOf<T>>(x)));
  } else {
    return FromDouble<T>(Op::F(static_cast<double>(x)));
  }
}

template <typename Op, typename T>
inline T Binary(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return Op::F(a, b);
  } else if constexpr (kIsHalf<T>) {
    return T(Op::F(static_cast<float>(a), static_cast<float>(b)));
  } else if constexpr (HasIntBinary<Op, IntOf<T>>) {
    return static_cast<T>(
        Op::template Int<IntOf<T>>(static_cast<IntOf<T>>(a), static_cast<IntOf<T>>(b)));
  } else {
    return FromDouble<T>(Op::F(static_cast<double>(a), static_cast<double>(b)));
  }
}

// Swaps the operands of a binary functor (_rpower_scalar, _rmod_scalar).
template <typename Op>
struct Reversed {
  template <typename A>
  static A F(A a, A b) {
    return Op::F(b, a);
  }
  template <typename I>
  requires HasIntBinary<Op, I>
  static I Int(I a, I b) { return Op::template Int<I>(b, a); }
};

// ---- Special functions without a <cmath> counterpart. ----
double ErfInvD(double y);
double DigammaD(double x);
double TrigammaD(double x);

// ---- Unary functors. ----
#define MX_EW_FLOAT_FN(NAME, EXPR) \
  struct NAME {                    \
    template <typename A>          \
    static A F(A x) {              \
      return EXPR;                 \
    }                              \
  }
MX_EW_FLOAT_FN(Log2, std::log2(x));
MX_EW_FLOAT_FN(Log10, std::log10(x));
MX_EW_FLOAT_FN(Log1p, std::log1p(x));
MX_EW_FLOAT_FN(Expm1, std::expm1(x));
MX_EW_FLOAT_FN(Rsqrt, A(1) / std::sqrt(x));
MX_EW_FLOAT_FN(Cbrt, std::cbrt(x));
MX_EW_FLOAT_FN(Rcbrt, A(1) / std::cbrt(x));
MX_EW_FLOAT_FN(Sin, std::sin(x));
MX_EW_FLOAT_FN(Cos, std::cos(x));
MX_EW_FLOAT_FN(Tan, std::tan(x));
MX_EW_FLOAT_FN(Arcsin, std::asin(x));
MX_EW_FLOAT_FN(Arccos, std::acos(x));
MX_EW_FLOAT_FN(Arctan, std::atan(x));
MX_EW_FLOAT_FN(Sinh, std::sinh(x));
MX_EW_FLOAT_FN(Cosh, std::cosh(x));
MX_EW_FLOAT_FN(Arcsinh, std::asinh(x));
MX_EW_FLOAT_FN(Arccosh, std::acosh(x));
MX_EW_FLOAT_FN(Arctanh, std::atanh(x));
MX_EW_FLOAT_FN(Erf, std::erf(x));
MX_EW_FLOAT_FN(Erfinv, static_cast<A>(ErfInvD(static_cast<double>(x))));
MX_EW_FLOAT_FN(Gamma, std::tgamma(x));
MX_EW_FLOAT_FN(Digamma, static_cast<A>(DigammaD(static_cast<double>(x))));
MX_EW_FLOAT_FN(Trigamma, static_cast<A>(TrigammaD(static_cast<double>(x))));
MX_EW_FLOAT_FN(Softsign, x / (A(1) + std::fabs(x)));
MX_EW_FLOAT_FN(Degrees, x* static_cast<A>(180.0 / std::numbers::pi));
MX_EW_FLOAT_FN(Radians, x* static_cast<A>(std::numbers::pi / 180.0));
#undef MX_EW_FLOAT_FN
struct Sigmoid {
  static constexpr onednn::Eltwise kDnnl = onednn::Eltwise::kLogistic;  // float32 fast path
  template <typename A>
  static A F(A x) {
    return A(1) / (A(1) + std::exp(-x));
  }
};
struct Tanh {
  static constexpr onednn::Eltwise kDnnl = onednn::Eltwise::kTanh;  // float32 fast path
  template <typename A>
  static A F(A x) {
    return std::tanh(x);
  }
};
struct Sqrt {
  static constexpr onednn::Eltwise kDnnl = onednn::Eltwise::kSqrt;  // float32 fast path
  template <typename A>
  static A F(A x) {
    return std::sqrt(x);
  }
};
struct Log {  // (oneDNN's log is only accurate to ~4e-6 absolute: not used)
  template <typename A>
  static A F(A x) {
    return std::log(x);
  }
};
struct Exp {
  static constexpr onednn::Eltwise kDnnl = onednn::Eltwise::kExp;  // float32 fast path
  template <typename A>
  static A F(A x) {
    return std::exp(x);
  }
};

// log|gamma(x)| without touching the global `signgam` (std::lgamma is not thread-safe).
struct Gammaln {
  template <typename A>
  static A F(A x) {
    int sign;
    return static_cast<A>(lgamma_r(static_cast<double>(x), &sign));
  }
};

// Integer-exact functors: rounding is the identity on integers, etc.
#define MX_EW_ROUND_FN(NAME, EXPR) \
  struct NAME {                    \
    template <typename A>          \
    static A F(A x) {              \
      return EXPR;                 \
    }                              \
    template <typename I>          \
    static I Int(I x) {            \
      return x;                    \
    }                              \
  }
MX_EW_ROUND_FN(Floor, std::floor(x));
MX_EW_ROUND_FN(Ceil, std::ceil(x));
MX_EW_ROUND_FN(Round, std::round(x));  // half away from zero
MX_EW_ROUND_FN(Trunc, std::trunc(x));  // fix and trunc: toward zero
#undef MX_EW_ROUND_FN
// MXNet's rint: the nearest integer, halves to the lower one (1.5 -> 1, -0.5 -> -1).
struct Rint {
  template <typename A>
  static A F(A x) {
    A f = std::floor(x), c = std::ceil(x);
    return x - f <= c - x ? f : c;
  }
  template <typename I>
  static I Int(I x) {
    return x;
  }
};

struct Square {
  template <typename A>
  static A F(A x) {
    return x * x;
  }
  template <typename I>
  static I Int(I x) {
    return WrapMul(x, x);
  }
};
struct Abs {
  template <typename A>
  static A F(A x) {
    return std::fabs(x);
  }
  template <typename I>
  static I Int(I x) {
    if constexpr (std::is_signed_v<I>)
      return x < 0 ? WrapNeg(x) : x;
    else
      return x;
  }
};
struct Sign {  // sign(NaN) = 0 as in MXNet
  template <typename A>
  static A F(A x) {
    return x > A(0) ? A(1) : (x < A(0) ? A(-1) : A(0));
  }
  template <typename I>
  static I Int(I x) {
    if constexpr (std::is_signed_v<I>)
      return x > 0 ? 1 : (x < 0 ? -1 : 0);
    else
      return x > 0 ? 1 : 0;
  }
};
struct Reciprocal {  // integer 1/0 is 0 (MXNet divides by zero and crashes)
  template <typename A>
  static A F(A x) {
    return A(1) / x;
  }
  template <typename I>
  static I Int(I x) {
    return x == 0 ? I(0) : I(1) / x;
  }
};
struct Relu {  // relu(NaN) = NaN
  template <typename A>
  static A F(A x) {
    return std::isnan(x) ? x : (x > A(0) ? x : A(0));
  }
  template <typename I>
  static I Int(I x) {
    return x > 0 ? x : I(0);
  }
};
struct LogicalNot {  // NaN is true
  template <typename A>
  static A F(A x) {
    return x == A(0) ? A(1) : A(0);
  }
  template <typename I>
  static I Int(I x) {
    return x == 0 ? I(1) : I(0);
  }
};

// ---- Binary functors. ----
struct Add {
  template <typename A>
  static A F(A a, A b) {
    return a + b;
  }
  template <typename I>
  static I Int(I a, I b) {
    return WrapAdd(a, b);
  }
};
struct Sub {
  template <typename A>
  static A F(A a, A b) {
    return a - b;
  }
  template <typename I>
  static I Int(I a, I b) {
    return WrapSub(a, b);
  }
};
struct Mul {
  template <typename A>
  static A F(A a, A b) {
    return a * b;
  }
  template <typename I>
  static I Int(I a, I b) {
    return WrapMul(a, b);
  }
};
struct Div {  // integer division truncates; x/0 is 0 for integers
  template <typename A>
  static A F(A a, A b) {
    return a / b;
  }
  template <typename I>
  static I Int(I a, I b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<I>)
      if (b == -1) return WrapNeg(a);
    return a / b;
  }
};
// Python-style modulo: the result has the divisor's sign; x mod 0 is 0 (MXNet).
struct Mod {
  template <typename A>
  static A F(A a, A b) {
    if (b == A(0)) return A(0);
    A r = std::fmod(a, b);
    if (r != A(0) && ((r < A(0)) != (b < A(0)))) r += b;
    return r;
  }
  template <typename I>
  static I Int(I a, I b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<I>) {
      if (b == -1) return 0;
      I r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    } else {
      return a % b;
    }
  }
};
struct Power {
  template <typename A>
  static A F(A a, A b) {
    return std::pow(a, b);
  }
};
struct Hypot {
  template <typename A>
  static A F(A a, A b) {
    return std::hypot(a, b);
  }
};
// maximum/minimum propagate NaN from either side (MXNet).
struct Maximum {
  template <typename A>
  static A F(A a, A b) {
    return std::isnan(a) ? a : (a > b ? a : b);
  }
  template <typename I>
  static I Int(I a, I b) {
    return a > b ? a : b;
  }
};
struct Minimum {
  template <typename A>
  static A F(A a, A b) {
    return std::isnan(a) ? a : (a < b ? a : b);
  }
  template <typename I>
  static I Int(I a, I b) {
    return a < b ? a : b;
  }
};

#define MX_EW_PREDICATE(NAME, EXPR) \
  struct NAME {                     \
    template <typename A>           \
    static A F(A a, A b) {          \
      return (EXPR) ? A(1) : A(0);  \
    }                               \
    template <typename I>           \
    static I Int(I a, I b) {        \
      return (EXPR) ? I(1) : I(0);  \
    }                               \
  }
MX_EW_PREDICATE(Equal, a == b);
MX_EW_PREDICATE(NotEqual, a != b);
MX_EW_PREDICATE(Greater, a > b);
MX_EW_PREDICATE(GreaterEqual, a >= b);
MX_EW_PREDICATE(Lesser, a < b);
MX_EW_PREDICATE(LesserEqual, a <= b);
MX_EW_PREDICATE(LogicalAnd, a != 0 && b != 0);
MX_EW_PREDICATE(LogicalOr, a != 0 || b != 0);
MX_EW_PREDICATE(LogicalXor, (a != 0) != (b != 0));
#undef MX_EW_PREDICATE

// ---- Broadcasting. ----
// NumPy broadcast of two shapes (right-aligned; size-1 dims stretch; 0-size dims allowed).
// Unknown dims (-1) stay unknown unless the other side fixes them. Throws kInvalidArgument
// "<op>: operands could not be broadcast together with shapes (2, 3) and (4, 3)".
Shape BroadcastShapes(std::string_view op, const Shape& a, const Shape& b);

// Shape inference of a broadcasting binary op.
void BroadcastBinaryShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out);

// Element strides of `in` (C-contiguous) seen from `out`'s index space: 0 along broadcast axes.
absl::InlinedVector<int64_t, 6> BroadcastStrides(const Shape& in, const Shape& out);

// A broadcast binary loop with axes merged where possible: `dims` is the collapsed output
// shape (rank >= 1) and sa/sb the element strides of both inputs along it.
struct BroadcastPlan {
  absl::InlinedVector<int64_t, 6> dims, sa, sb;
  BroadcastPlan(const Shape& a, const Shape& b, const Shape& out);
};

// ---- Loops. ----
// Reference: one element at a time, index arithmetic spelled out.
template <typename Op>
void UnaryRef(std::string_view name, const NDArray& in, const NDArray& out) {
  MX_NUMERIC_TYPE_SWITCH(in.dtype(), T, name, {
    const T* x = static_cast<const T*>(in.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0, n = in.size(); i < n; ++i) y[i] = Unary<Op, T>(x[i]);
  });
}

// Optimized loop: OpenMP-parallel chunks, SIMD inner loops.
template <typename Op>
void UnaryLoop(std::string_view name, const NDArray& in, const NDArray& out) {
  MX_NUMERIC_TYPE_SWITCH(in.dtype(), T, name, {
    const T* x = static_cast<const T*>(in.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    ParallelForRange(in.size(), 32768, [x, y](int64_t b, int64_t e) {
      const T* xs = x;  // locals: provably not aliased by the stores
      T* ys = y;
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) ys[i] = Unary<Op, T>(xs[i]);
    });
  });
}

// Optimized kernel: oneDNN's JIT eltwise for large float32 arrays where the functor names one
// (exp, sqrt, tanh, sigmoid), else the parallel SIMD loop.
template <typename Op>
void UnaryOpt(std::string_view name, const NDArray& in, const NDArray& out) {
  if constexpr (requires { Op::kDnnl; }) {
    if (in.dtype() == DType::kFloat32 && in.size() >= onednn::kMinElements &&
        onednn::Run(Op::kDnnl, static_cast<const float*>(in.data_ptr()),
                    static_cast<float*>(out.data_ptr()), in.size()))
      return;
  }
  UnaryLoop<Op>(name, in, out);
}

template <typename Op>
void BroadcastRef(std::string_view name, const NDArray& a, const NDArray& b, const NDArray& out) {
  const Shape& os = out.shape();
  auto sa = BroadcastStrides(a.shape(), os), sb = BroadcastStrides(b.shape(), os);
  MX_NUMERIC_TYPE_SWITCH(a.dtype(), T, name, {
    const T* x = static_cast<const T*>(a.data_ptr());
    const T* z = static_cast<const T*>(b.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0, n = out.size(); i < n; ++i) {
      int64_t rest = i, ia = 0, ib = 0;
      for (int d = os.ndim() - 1; d >= 0; --d) {
        int64_t c = rest % os[d];
        rest /= os[d];
        ia += c * sa[d];
        ib += c * sb[d];
      }
      y[i] = Binary<Op, T>(x[ia], z[ib]);
    }
  });
}

// Inner loop of the optimized broadcast kernel; CA/CB: whether lhs/rhs advance (stride 1) or
// are broadcast (stride 0) along the innermost collapsed axis.
template <typename Op, typename T, bool CA, bool CB>
inline void BroadcastInner(const T* x, const T* z, T* y, int64_t n) {
  if constexpr (CA && CB) {
    _Pragma("omp simd") for (int64_t j = 0; j < n; ++j) y[j] = Binary<Op, T>(x[j], z[j]);
  } else if constexpr (CA) {
    const T zv = z[0];
    _Pragma("omp simd") for (int64_t j = 0; j < n; ++j) y[j] = Binary<Op, T>(x[j], zv);
  } else if constexpr (CB) {
    const T xv = x[0];
    _Pragma("omp simd") for (int64_t j = 0; j < n; ++j) y[j] = Binary<Op, T>(xv, z[j]);
  } else {
    const T v = Binary<Op, T>(x[0], z[0]);
    for (int64_t j = 0; j < n; ++j) y[j] = v;
  }
}

template <typename Op, typename T>
void BroadcastOptTyped(const BroadcastPlan& p, const T* x, const T* z, T* y) {
  const int k = static_cast<int>(p.dims.size());
  const int64_t inner = p.dims[k - 1];
  int64_t rows = 1;
  for (int d = 0; d < k - 1; ++d) rows *= p.dims[d];
  if (rows == 0 || inner == 0) return;
  auto run = [&]<bool CA, bool CB>() {
    ParallelForRange(rows, std::max<int64_t>(1, 32768 / inner), [&](int64_t r0, int64_t r1) {
      absl::InlinedVector<int64_t, 6> coord(std::max(k - 1, 0));
      int64_t oa = 0, ob = 0, rest = r0;
      for (int d = k - 2; d >= 0; --d) {
        coord[d] = rest % p.dims[d];
        rest /= p.dims[d];
        oa += coord[d] * p.sa[d];
        ob += coord[d] * p.sb[d];
      }
      for (int64_t r = r0; r < r1; ++r) {
        BroadcastInner<Op, T, CA, CB>(x + oa, z + ob, y + r * inner, inner);
        for (int d = k - 2; d >= 0; --d) {
          oa += p.sa[d];
          ob += p.sb[d];
          if (++coord[d] < p.dims[d]) break;
          oa -= p.sa[d] * p.dims[d];
          ob -= p.sb[d] * p.dims[d];
          coord[d] = 0;
        }
      }
    });
  };
  bool ca = p.sa[k - 1] != 0, cb = p.sb[k - 1] != 0;
  if (ca && cb)
    run.template operator()<true, true>();
  else if (ca)
    run.template operator()<true, false>();
  else if (cb)
    run.template operator()<false, true>();
  else
    run.template operator()<false, false>();
}

template <typename Op>
void BroadcastOpt(std::string_view name, const NDArray& a, const NDArray& b, const NDArray& out) {
  if (out.size() == 0) return;
  BroadcastPlan plan(a.shape(), b.shape(), out.shape());
  MX_NUMERIC_TYPE_SWITCH(a.dtype(), T, name, {
    BroadcastOptTyped<Op, T>(plan, static_cast<const T*>(a.data_ptr()),
                             static_cast<const T*>(b.data_ptr()), static_cast<T*>(out.data_ptr()));
  });
}

// Output dtype of MXNet 1.9's scalar ops (NumpyBinaryScalarType): integer input with a
// non-integer scalar (is_int=False) gives float64; bool input gives int64 (is_int) or float64;
// otherwise the input dtype.
// (Defined with the basic family's scalar ops, which follow the same rule.)
using ops::ScalarOpType;
using ops::ScalarOutType;

// y = Op(x, s) (or Op(s, x) when Rev) over one input/output element type pair, the scalar
// converted to the output type T.
template <typename Op, bool Rev, bool Parallel, typename Tin, typename T>
void ScalarMapTyped(const NDArray& in, double s, const NDArray& out) {
  const Tin* x = static_cast<const Tin*>(in.data_ptr());
  T* y = static_cast<T*>(out.data_ptr());
  const T sv = ScalarAs<T>(s);
  auto body = [x, y, sv](int64_t b, int64_t e) {
    // Locals, so that the stores cannot alias the scalar (else it is reloaded every element).
    const Tin* xs = x;
    T* ys = y;
    const T s1 = sv;
    _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
      T v = static_cast<T>(xs[i]);
      ys[i] = Rev ? Binary<Op, T>(s1, v) : Binary<Op, T>(v, s1);
    }
  };
  if constexpr (Parallel)
    ParallelForRange(in.size(), 32768, body);
  else
    body(0, in.size());
}

// ScalarMap for an output of the input's dtype (a numeric dtype, not bool).
template <typename Op, bool Rev, bool Parallel>
void ScalarMapSame(std::string_view name, const NDArray& in, double s, const NDArray& out) {
  MX_NUMERIC_TYPE_SWITCH(in.dtype(), T, name,
                         { ScalarMapTyped<Op, Rev, Parallel, T, T>(in, s, out); });
}

// out = Op(x, s) (or Op(s, x) when Rev) with the scalar in the output element type; when the
// output dtype differs from the input's (see ScalarOutType) the input is converted first.
template <typename Op, bool Rev, bool Parallel>
void ScalarMap(std::string_view name, const NDArray& in, double s, const NDArray& out) {
  if (in.dtype() == out.dtype()) {
    ScalarMapSame<Op, Rev, Parallel>(name, in, s, out);
  } else if (out.dtype() == DType::kFloat64) {
    MX_DTYPE_SWITCH(in.dtype(), T, {
      if constexpr (kIsHalf<T>) {
        MX_THROW(absl::StatusCode::kInternal, name, ": unexpected dtype");
      } else {
        ScalarMapTyped<Op, Rev, Parallel, T, double>(in, s, out);
      }
    });
  } else if (out.dtype() == DType::kInt64 && in.dtype() == DType::kBool) {
    ScalarMapTyped<Op, Rev, Parallel, bool, int64_t>(in, s, out);
  } else {
    MX_THROW(absl::StatusCode::kInvalidArgument, name, ": unsupported dtypes ",
             DTypeName(in.dtype()), " -> ", DTypeName(out.dtype()));
  }
}

// ---- Gradient composition helpers (registered ops by name). ----
inline GradValue U(GradBuilder& b, std::string_view op, GradValue x) { return b.Call(op, {x}); }
inline GradValue B(GradBuilder& b, std::string_view op, GradValue x, GradValue y) {
  return b.Call(op, {x, y});
}
// A scalar op (_greater_scalar, _rminus_scalar, ...) on a floating-point value.
inline GradValue S(GradBuilder& b, std::string_view op, GradValue x, double s) {
  ScalarParam p;
  p.scalar = s;
  p.is_int = false;
  return b.CallP(op, {x}, p);
}
inline GradValue At(std::span<const GradValue> v, size_t i) {
  return i < v.size() ? v[i] : GradValue{};
}

// Registers the reference and optimized kernels of a unary functor op.
template <typename Fn, bool Opt>
FCompute UnaryKernel(const char* name) {
  return [name](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                std::span<const NDArray> out) {
    if constexpr (Opt)
      UnaryOpt<Fn>(name, in[0], out[0]);
    else
      UnaryRef<Fn>(name, in[0], out[0]);
  };
}
template <typename Fn, bool Opt>
FCompute BinaryKernel(const char* name) {
  return [name](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                std::span<const NDArray> out) {
    if constexpr (Opt)
      BroadcastOpt<Fn>(name, in[0], in[1], out[0]);
    else
      BroadcastRef<Fn>(name, in[0], in[1], out[0]);
  };
}
template <typename Fn, bool Rev, bool Opt>
FCompute ScalarKernel(const char* name) {
  return [name](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
    double s = attrs.get<ScalarParam>().scalar;
    if constexpr (Opt && std::is_same_v<Fn, Power> && !Rev) {
      // x^2 (the common case) as x * x: exact, and vectorizes where pow() does not.
      if (s == 2 && in[0].dtype() == out[0].dtype() && IsFloatingPoint(in[0].dtype())) {
        UnaryLoop<Square>(name, in[0], out[0]);
        return;
      }
    }
    ScalarMap<Fn, Rev, Opt>(name, in[0], s, out[0]);
  };
}

}  // namespace mxnet::ops::ew
