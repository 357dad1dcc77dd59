// Shared helpers of the quantization ops (conv_quant.cc, conv_quant_nn.cc): MXNet 1.9.1's
// range arithmetic (src/operator/quantization/quantization_utils.h) and oneDNN's reorder rounding.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string_view>

#include "ndarray/op.h"

namespace mxnet::ops::quant {

// MXNet's quantized ranges of the oneDNN kernels: x * 127.5 / range (int8), * 255.5 (uint8).
inline constexpr float kInt8Range = 127.5f;
inline constexpr float kUint8Range = 255.5f;

inline float MaxAbs(float a, float b) { return std::max(std::fabs(a), std::fabs(b)); }

// What oneDNN's scaled reorder writes for the float v: round half to even, then saturate to T
// (NaN gives 127 for int8 and 0 for uint8, as MXNet's reorders do).
template <typename T>
T Saturate(float v) {
  constexpr float lo = static_cast<float>(std::numeric_limits<T>::min());
  constexpr float hi = static_cast<float>(std::numeric_limits<T>::max());
  if (std::isnan(v)) return std::is_signed_v<T> ? std::numeric_limits<T>::max() : T(0);
  if (v <= lo) return std::numeric_limits<T>::min();
  if (v >= hi) return std::numeric_limits<T>::max();
  return static_cast<T>(std::nearbyint(v));
}

// MXNet's QuantizationRangeForMultiplication: the float range of an int32 product of a (type
// range ra) and b (type range rb): MaxAbs(a)/ra * MaxAbs(b)/rb * 2^31 (INT32_MAX as float).
inline float ProductRange(float min_a, float max_a, float ra, float min_b, float max_b, float rb) {
  const float a = MaxAbs(min_a, max_a) / ra;
  const float b = MaxAbs(min_b, max_b) / rb;
  return a * b * static_cast<float>(std::numeric_limits<int32_t>::max());
}

// The single float of a (1,) range input.
inline float Scalar(const NDArray& a) { return *a.data<float>(); }
inline void SetScalar(const NDArray& a, float v) { *a.data<float>() = v; }

// Type inference: input `name` of `op` must be one of `allowed` (when known).
void CheckDType(std::string_view op, std::string_view name, int t,
                std::initializer_list<DType> allowed);
// Assigns `want` to *t (unknown) or checks it.
void AssignDType(std::string_view op, std::string_view name, int* t, DType want);
// Shape inference: inputs [first, last) are (1,) ranges; outputs 1 and 2 are (1,).
void RangeShapes(std::string_view op, ShapeVec* in, int first, int last, ShapeVec* out);

}  // namespace mxnet::ops::quant
