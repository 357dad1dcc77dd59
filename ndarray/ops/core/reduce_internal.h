// Helpers shared by the reduce family's source files (not part of the nd:: API).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/error.h"
#include "base/shape.h"
#include "base/strings.h"
#include "ndarray/grad.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ndarray.h"
#include "ndarray/op.h"

namespace mxnet::ops::reduce_internal {

// The op's name for messages.
inline std::string_view OpName(const OpAttrs& attrs) {
  return attrs.op() ? std::string_view(attrs.op()->name) : std::string_view("op");
}

// The eigenvalues' shape (..., n) of square matrices (..., n, n) (MXNet's np.linalg eig, eigh,
// eigvals, eigvalsh). Errors: kInvalidArgument naming `op` for fewer than 2 dims or non-square.
inline Shape EigvalShape(std::string_view op, const Shape& a) {
  constexpr auto kBad = absl::StatusCode::kInvalidArgument;
  if (a.ndim() < 2) MX_THROW(kBad, op, ": input A must be at least 2-D, got shape ", a.ToString());
  if (a[a.ndim() - 1] != a[a.ndim() - 2])
    MX_THROW(kBad, op, ": input A must be square on its last two axes, got shape ", a.ToString());
  Shape w;
  for (int i = 0; i < a.ndim() - 1; ++i) w.push_back(a[i]);
  return w;
}

// Output dtype of the np.linalg eig family: float32 for float32 input, float64 for float64 and
// integer inputs; float16, bfloat16 and bool are kInvalidArgument (as MXNet 1.9.1).
inline void NpEigType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  int t = (*in)[0];
  if (t < 0) return;
  auto d = static_cast<DType>(t);
  if (d == DType::kFloat16 || d == DType::kBFloat16 || d == DType::kBool)
    MX_THROW(absl::StatusCode::kInvalidArgument, OpName(attrs), ": dtype ", DTypeName(d),
             " is not supported (float32, float64 and integer types)");
  int o = static_cast<int>(d == DType::kFloat32 ? DType::kFloat32 : DType::kFloat64);
  for (auto& x : *out) MergeType(&x, o, StrCat(OpName(attrs), ": output"));
}

// Normalizes `axis` (negative counts from the end) for an input of `shape`; throws
// kInvalidArgument "<op>: axis 3 is out of range for input shape (2, 3)".
inline int CheckAxis(std::string_view op, int64_t axis, const Shape& shape,
                     std::string_view what = "axis") {
  int nd = shape.ndim();
  if (axis < -nd || axis >= nd)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": ", what, " ", axis,
             " is out of range for input shape ", shape.ToString());
  return static_cast<int>(axis < 0 ? axis + nd : axis);
}

// Reads element i of an index array (any dtype) as int64, truncating floats toward zero like
// MXNet's static_cast; NaN reads as 0.
template <typename I>
inline int64_t IndexAt(const I* p, int64_t i) {
  if constexpr (std::is_floating_point_v<I> || std::is_same_v<I, Half> ||
                std::is_same_v<I, BFloat16>) {
    double v = static_cast<double>(p[i]);
    if (std::isnan(v)) return 0;
    if (v >= 9.2e18) return INT64_MAX;
    if (v <= -9.2e18) return INT64_MIN;
    return static_cast<int64_t>(v);
  } else if constexpr (std::is_same_v<I, uint64_t>) {
    return p[i] > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(p[i]);
  } else {
    return static_cast<int64_t>(p[i]);
  }
}

// All indices of `idx` as int64.
inline std::vector<int64_t> ReadIndices(const NDArray& idx) {
  std::vector<int64_t> out(idx.size());
  MX_DTYPE_SWITCH(idx.dtype(), I, {
    const I* p = static_cast<const I*>(idx.data_ptr());
    for (int64_t i = 0; i < idx.size(); ++i) out[i] = IndexAt(p, i);
  });
  return out;
}

// (outer, n, inner) sizes of `shape` around axis `axis`.
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
inline AxisSplit SplitAt(const Shape& shape, int axis) {
  AxisSplit s;
  s.outer = shape.ProdRange(0, axis);
  s.n = shape[axis];
  s.inner = shape.ProdRange(axis + 1, shape.ndim());
  return s;
}

// Whether an index array's dtype is floating point (Half/BFloat16 included).
inline bool IsFloatIndex(DType t) { return IsFloatingPoint(t); }

// Zero gradients for every input (MXNet's MakeZeroGradNodes).
inline std::vector<GradValue> ZeroGrads(GradBuilder& b, const OpAttrs&,
                                        std::span<const GradValue> in, std::span<const GradValue>,
                                        std::span<const GradValue>) {
  std::vector<GradValue> g;
  for (GradValue v : in) g.push_back(b.ZerosLike(v));
  return g;
}

// Elements of a floating-point array as A (the compute type); `op` names it in dtype errors.
template <typename A>
std::vector<A> Values(const NDArray& a, std::string_view op = "box op") {
  std::vector<A> v(a.size());
  MX_FLOAT_TYPE_SWITCH(a.dtype(), T, op, {
    const T* p = static_cast<const T*>(a.data_ptr());
    for (int64_t i = 0; i < a.size(); ++i) v[i] = static_cast<A>(p[i]);
  });
  return v;
}

// Writes v (compute type A) into out's floating-point dtype.
template <typename A>
void Store(const std::vector<A>& v, const NDArray& out, std::string_view op = "box op") {
  MX_FLOAT_TYPE_SWITCH(out.dtype(), T, op, {
    T* p = static_cast<T*>(out.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
  });
}

// Runs body(A{}) with A = double for float64 inputs, float for the other floating types;
// other dtypes throw kInvalidArgument naming `op`.
template <typename F>
void WithComputeType(DType dt, std::string_view op, F&& body) {
  if (!IsFloatingPoint(dt))
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": dtype ", DTypeName(dt),
             " is not supported (needs a floating-point type)");
  if (dt == DType::kFloat64)
    body(double{});
  else
    body(float{});
}

}  // namespace mxnet::ops::reduce_internal
