// Kernel building blocks of the shape op family: a dtype-agnostic strided copy (transpose, slice,
// reverse, tile, repeat, concat and split are all one strided copy), inference helpers.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ndarray/kernel_util.h"
#include "ndarray/ndarray.h"
#include "ndarray/op.h"

namespace mxnet::ops::shape_internal {

// Row-major strides (in elements) of `s`.
std::vector<int64_t> Strides(const Shape& s);

// For every index (i_0..i_{n-1}) below `dims`:
//   dst[sum_k i_k * dst_strides[k]] = src[sum_k i_k * src_strides[k]]
// with elements of `esize` bytes (1, 2, 4 or 8). Strides are in elements and may be 0 (broadcast)
// or negative (reverse). Contiguous runs become memcpy, transposes go through cache-sized tiles,
// and the outer loops run in parallel.
void StridedCopy(void* dst, const void* src, size_t esize, std::span<const int64_t> dims,
                 std::span<const int64_t> dst_strides, std::span<const int64_t> src_strides);

// Fills `n` elements of `dst` (dtype `t`) with `value` converted to `t`.
void FillValue(void* dst, DType t, int64_t n, double value);
// Fills the strided region of `dst` (dtype `t`) with `value`.
void FillStrided(void* dst, DType t, double value, std::span<const int64_t> dims,
                 std::span<const int64_t> dst_strides);

// Element pointer `offset` elements after `p`.
inline char* ElemPtr(void* p, int64_t offset, size_t esize) {
  return static_cast<char*>(p) + offset * static_cast<int64_t>(esize);
}
inline const char* ElemPtr(const void* p, int64_t offset, size_t esize) {
  return static_cast<const char*>(p) + offset * static_cast<int64_t>(esize);
}

// Accumulator of sums over T: double for floating point, T's compute type otherwise.
template <typename T>
using SumType = std::conditional_t<std::is_floating_point_v<AccType<T>>, double, AccType<T>>;

// The op name for messages.
inline std::string_view OpName(const OpAttrs& a) {
  return a.op() ? std::string_view(a.op()->name) : std::string_view("op");
}

// Normalizes `axis` for rank `ndim`; throws kInvalidArgument "<op>: <what> <axis> is out of range
// for input shape <shape>" otherwise.
int CheckAxis(const OpAttrs& a, int64_t axis, int ndim, std::string_view what, const Shape& shape);

// Throws kInvalidArgument "<op>: <message...>".
template <typename... Args>
[[noreturn]] void Fail(const OpAttrs& a, const Args&... args) {
  MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a), ": ", args...);
}

// Shape with `dims` (helper to build shapes from vectors).
inline Shape MakeShape(const std::vector<int64_t>& dims) { return Shape(dims); }

}  // namespace mxnet::ops::shape_internal
