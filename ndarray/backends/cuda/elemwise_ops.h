// The generic elementwise kernel's ops and per-thread body, compiled both by nvcc (device code in
// elemwise_kernels.cu) and by the host compiler (elemwise_plan_test runs the same body over the
// same plan on the CPU, thread by thread, and compares it with the registry's CPU kernels).
// Plain C++ plus CUDA qualifiers: no project headers, so nvcc needs nothing else (the host's
// float16 conversions are declared here and defined in elemwise_plan.cc).
//
// Every op maps (a, b) -> out in the compute type T (float for float32 and float16, double for
// float64): a is input 0, b input 1 (binary ops) or the op's scalar (scalar ops; unary ops ignore
// it). The math is the CPU reference kernels' (ndarray/ops/elemwise/elemwise_util.h,
// core/basic.cc, nn/nn_act.cc) in T:
// add, sub, mul, div, neg, abs, square and both relus give the same bits as the CPU; sqrt, exp,
// log, tanh, sigmoid, softrelu and softsign use CUDA's math library, within a few ulp of the CPU's
// (Activation's CPU reference computes in double).
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#define MX_HD __host__ __device__ __forceinline__
#else
#define MX_HD inline
#endif

namespace mxnet::backends::cuda {

// X(name, arity, expression in a, b and T)
#define MX_GPU_ELEMWISE_OPS(X)                                     \
  X(kAdd, 2, a + b)                                                \
  X(kSub, 2, a - b)                                                \
  X(kMul, 2, a* b)                                                 \
  X(kDiv, 2, a / b)                                                \
  X(kAddScalar, 1, a + b)                                          \
  X(kSubScalar, 1, a - b)                                          \
  X(kMulScalar, 1, a* b)                                           \
  X(kDivScalar, 1, a / b)                                          \
  X(kRSub, 1, b - a)                                               \
  X(kRDiv, 1, b / a)                                               \
  X(kNeg, 1, -a)                                                   \
  X(kAbs, 1, ew_math::Fabs(a))                                     \
  X(kSquare, 1, a* a)                                              \
  X(kSqrt, 1, ew_math::Sqrt(a))                                    \
  X(kExp, 1, ew_math::Exp(a))                                      \
  X(kLog, 1, ew_math::Log(a))                                      \
  X(kTanh, 1, ew_math::Tanh(a))                                    \
  X(kSigmoid, 1, T(1) / (T(1) + ew_math::Exp(-a)))                 \
  X(kRelu, 1, a != a ? a : (a > T(0) ? a : T(0)))                  \
  X(kActRelu, 1, a > T(0) ? a : T(0))                              \
  X(kSoftrelu, 1, a > T(20) ? a : ew_math::Log1p(ew_math::Exp(a))) \
  X(kSoftsign, 1, a / (T(1) + ew_math::Fabs(a)))

enum class EwOp : int {
#define MX_EW_ENUM(NAME, ARITY, EXPR) NAME,
  MX_GPU_ELEMWISE_OPS(MX_EW_ENUM)
#undef MX_EW_ENUM
      kCount
};

// Inputs read from memory: 2 for binary ops, 1 otherwise (b is the scalar).
constexpr int EwArity(EwOp op) {
  switch (op) {
#define MX_EW_ARITY(NAME, ARITY, EXPR) \
  case EwOp::NAME:                     \
    return ARITY;
    MX_GPU_ELEMWISE_OPS(MX_EW_ARITY)
#undef MX_EW_ARITY
    default:
      return 0;
  }
}

namespace ew_math {
#if defined(__CUDA_ARCH__)
MX_HD float Fabs(float x) { return fabsf(x); }
MX_HD double Fabs(double x) { return fabs(x); }
MX_HD float Sqrt(float x) { return sqrtf(x); }
MX_HD double Sqrt(double x) { return sqrt(x); }
MX_HD float Exp(float x) { return expf(x); }
MX_HD double Exp(double x) { return exp(x); }
MX_HD float Log(float x) { return logf(x); }
MX_HD double Log(double x) { return log(x); }
MX_HD float Log1p(float x) { return log1pf(x); }
MX_HD double Log1p(double x) { return log1p(x); }
MX_HD float Tanh(float x) { return tanhf(x); }
MX_HD double Tanh(double x) { return tanh(x); }
#else
template <typename T>
MX_HD T Fabs(T x) {
  return std::fabs(x);
}
template <typename T>
MX_HD T Sqrt(T x) {
  return std::sqrt(x);
}
template <typename T>
MX_HD T Exp(T x) {
  return std::exp(x);
}
template <typename T>
MX_HD T Log(T x) {
  return std::log(x);
}
template <typename T>
MX_HD T Log1p(T x) {
  return std::log1p(x);
}
template <typename T>
MX_HD T Tanh(T x) {
  return std::tanh(x);
}
#endif
}  // namespace ew_math

template <EwOp OP, typename T>
MX_HD T EwApply(T a, T b) {
#define MX_EW_CASE(NAME, ARITY, EXPR) \
  if constexpr (OP == EwOp::NAME) return EXPR;
  MX_GPU_ELEMWISE_OPS(MX_EW_CASE)
#undef MX_EW_CASE
  return a;
}

// Element storage types: float, double, and EwHalf (IEEE binary16 bits). EwType<S>::Acc is the
// type the math runs in (float for EwHalf, as the CPU kernels' AccType); Load/Store convert with
// round to nearest even (CUDA's intrinsics on the device; base/half.h's on the host, through
// EwHalfToFloat/EwFloatToHalf defined in elemwise_plan.cc).
struct EwHalf {
  uint16_t bits;
};
float EwHalfToFloat(uint16_t bits);
uint16_t EwFloatToHalf(float f);

template <typename S>
struct EwType {
  using Acc = S;
  MX_HD static Acc Load(S x) { return x; }
  MX_HD static S Store(Acc a) { return a; }
};
template <>
struct EwType<EwHalf> {
  using Acc = float;
  MX_HD static float Load(EwHalf h) {
#if defined(__CUDA_ARCH__)
    return __half2float(__ushort_as_half(h.bits));
#else
    return EwHalfToFloat(h.bits);
#endif
  }
  MX_HD static EwHalf Store(float f) {
#if defined(__CUDA_ARCH__)
    return EwHalf{__half_as_ushort(__float2half_rn(f))};
#else
    return EwHalf{EwFloatToHalf(f)};
#endif
  }
};

template <typename S, int VEC>
struct alignas(sizeof(S) * VEC) EwVec {
  S v[VEC];
};

// The work of thread `tid` of `stride` threads over a plan (elemwise_plan.h): vectors
// tid, tid + stride, ... of [0, n_vec), then elements n_vec * VEC + tid, + stride, ... of the tail.
// `b` is read only for binary ops; otherwise `s` (already the Acc value of DType(scalar), as the
// CPU's scalar ops use it) is the second operand.
template <EwOp OP, typename S, int VEC>
MX_HD void ElemwiseThread(int64_t tid, int64_t stride, S* out, const S* a, const S* b,
                          typename EwType<S>::Acc s, int64_t n_vec, int64_t n) {
  using E = EwType<S>;
  using A = typename E::Acc;
  constexpr bool kBinary = EwArity(OP) == 2;
  using V = EwVec<S, VEC>;
  const V* va = reinterpret_cast<const V*>(a);
  const V* vb = reinterpret_cast<const V*>(b);
  V* vo = reinterpret_cast<V*>(out);
  for (int64_t i = tid; i < n_vec; i += stride) {
    V x = va[i], o;
    if constexpr (kBinary) {
      V y = vb[i];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int k = 0; k < VEC; ++k)
        o.v[k] = E::Store(EwApply<OP, A>(E::Load(x.v[k]), E::Load(y.v[k])));
    } else {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int k = 0; k < VEC; ++k) o.v[k] = E::Store(EwApply<OP, A>(E::Load(x.v[k]), s));
    }
    vo[i] = o;
  }
  for (int64_t j = n_vec * VEC + tid; j < n; j += stride)
    out[j] = E::Store(EwApply<OP, A>(E::Load(a[j]), kBinary ? E::Load(b[j]) : s));
}

// The element types the kernel has.
enum class EwDType : int { kFloat32, kFloat64, kFloat16 };

// Calls f.template operator()<OP, S, VEC>() for the runtime op, element type and vector width
// (1 up to 16 bytes / sizeof(S)). Returns false for a combination it does not have.
template <typename S, EwOp OP, typename F>
bool EwDispatchVec(int vec, F& f) {
  switch (vec) {
    case 1:
      f.template operator()<OP, S, 1>();
      return true;
    case 2:
      f.template operator()<OP, S, 2>();
      return true;
    case 4:
      if constexpr (sizeof(S) <= 4) {
        f.template operator()<OP, S, 4>();
        return true;
      }
      return false;
    case 8:
      if constexpr (sizeof(S) <= 2) {
        f.template operator()<OP, S, 8>();
        return true;
      }
      return false;
    default:
      return false;
  }
}

template <typename F>
bool EwDispatch(EwOp op, EwDType t, int vec, F&& f) {
  switch (op) {
#define MX_EW_DISPATCH(NAME, ARITY, EXPR)                 \
  case EwOp::NAME:                                        \
    switch (t) {                                          \
      case EwDType::kFloat32:                             \
        return EwDispatchVec<float, EwOp::NAME>(vec, f);  \
      case EwDType::kFloat64:                             \
        return EwDispatchVec<double, EwOp::NAME>(vec, f); \
      case EwDType::kFloat16:                             \
        return EwDispatchVec<EwHalf, EwOp::NAME>(vec, f); \
    }                                                     \
    return false;
    MX_GPU_ELEMWISE_OPS(MX_EW_DISPATCH)
#undef MX_EW_DISPATCH
    default:
      return false;
  }
}

}  // namespace mxnet::backends::cuda
