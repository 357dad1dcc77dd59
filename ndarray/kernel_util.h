// Helpers for writing CPU kernels: parallel loops on the shared OpenMP pool (base/threading.h),
// dtype dispatch, accumulation types.
#pragma once

#include <cstdint>
#include <type_traits>

#include "base/dtype.h"
#include "base/error.h"
#include "base/threading.h"

namespace mxnet {

// Accumulation/compute type: float for 16-bit floats, double for double, T otherwise.
template <typename T>
using AccType =
    std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

// Calls f(begin, end) over chunks of [0, n) in parallel when n >= grain, else once inline.
template <typename F>
void ParallelForRange(int64_t n, int64_t grain, F&& f) {
  if (n <= 0) return;
  int threads = GetNumThreads();
  if (threads <= 1 || n < 2 * grain) {
    f(int64_t{0}, n);
    return;
  }
  int64_t chunks = std::min<int64_t>(threads, n / grain);
#pragma omp parallel for num_threads(static_cast <int>(chunks)) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t b = n * c / chunks, e = n * (c + 1) / chunks;
    f(b, e);
  }
}

// Calls f(i) for i in [0, n), in parallel for large n.
template <typename F>
void ParallelFor(int64_t n, F&& f, int64_t grain = 16384) {
  ParallelForRange(n, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i);
  });
}

}  // namespace mxnet

// BODY with `using T = ...` for the floating-point dtypes (float32, float64, float16, bfloat16);
// other dtypes throw kInvalidArgument naming OPNAME.
#define MX_FLOAT_TYPE_SWITCH(dtype, T, OPNAME, ...)                                               \
  switch (dtype) {                                                                                \
    MX_DTYPE_CASE_(::mxnet::DType::kFloat32, T, __VA_ARGS__)                                      \
    MX_DTYPE_CASE_(::mxnet::DType::kFloat64, T, __VA_ARGS__)                                      \
    MX_DTYPE_CASE_(::mxnet::DType::kFloat16, T, __VA_ARGS__)                                      \
    MX_DTYPE_CASE_(::mxnet::DType::kBFloat16, T, __VA_ARGS__)                                     \
    default:                                                                                      \
      MX_THROW(absl::StatusCode::kInvalidArgument, OPNAME, ": dtype ", ::mxnet::DTypeName(dtype), \
               " is not supported (needs a floating-point type)");                                \
  }

// BODY for every numeric dtype except bool.
#define MX_NUMERIC_TYPE_SWITCH(dtype, T, OPNAME, ...)                                             \
  switch (dtype) {                                                                                \
    MX_DTYPE_CASE_(::mxnet::DType::kFloat32, T, __VA_ARGS__)                                      \
    MX_DTYPE_CASE_(::mxnet::DType::kFloat64, T, __VA_ARGS__)                                      \
    MX_DTYPE_CASE_(::mxnet::DType::kFloat16, T, __VA_ARGS__)                                      \
    MX_DTYPE_CASE_(::mxnet::DType::kBFloat16, T, __VA_ARGS__)                                     \
    MX_DTYPE_CASE_(::mxnet::DType::kUint8, T, __VA_ARGS__)                                        \
    MX_DTYPE_CASE_(::mxnet::DType::kInt8, T, __VA_ARGS__)                                         \
    MX_DTYPE_CASE_(::mxnet::DType::kInt16, T, __VA_ARGS__)                                        \
    MX_DTYPE_CASE_(::mxnet::DType::kInt32, T, __VA_ARGS__)                                        \
    MX_DTYPE_CASE_(::mxnet::DType::kInt64, T, __VA_ARGS__)                                        \
    MX_DTYPE_CASE_(::mxnet::DType::kUint16, T, __VA_ARGS__)                                       \
    MX_DTYPE_CASE_(::mxnet::DType::kUint32, T, __VA_ARGS__)                                       \
    MX_DTYPE_CASE_(::mxnet::DType::kUint64, T, __VA_ARGS__)                                       \
    default:                                                                                      \
      MX_THROW(absl::StatusCode::kInvalidArgument, OPNAME, ": dtype ", ::mxnet::DTypeName(dtype), \
               " is not supported");                                                              \
  }
