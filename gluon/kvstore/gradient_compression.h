// Gradient compression of the kvstore (MXNet's src/kvstore/gradient_compression, semantics only):
// each sender keeps a residual per key; before sending, residual += gradient and every element is
// quantized from the residual, which keeps the quantization error for the next round.
//
//   2bit (MXNet 1.x, threshold t > 0, default 0.5):
//       r >= t  -> code 11, decodes to +t, r -= t
//       r <= -t -> code 10, decodes to -t, r += t
//       else    -> code 00, decodes to 0
//     16 values per 32-bit word (the first value in the word's highest two bits of its first byte).
//   1bit (MXNet 2.0, threshold t, default 0.5; t only decides the sign):
//       r > t -> bit 1, decodes to +1, r -= 1;  else -> bit 0, decodes to -1, r += 1
//     32 values per 32-bit word.
// Only float32 gradients are compressed (as MXNet); others are an error naming the dtype.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gluon/training/kwargs.h"

namespace mxnet::gluon::kvstore {

enum class CompressionType { kNone, kOneBit, kTwoBit };

class GradientCompression {
 public:
  GradientCompression() = default;
  // MXNet's set_gradient_compression dict: {"type": "2bit"|"1bit"|"none", "threshold": 0.5}.
  // Errors (kInvalidArgument): unknown type, unknown key, threshold <= 0 for 2bit, a non-number
  // threshold.
  static GradientCompression FromParams(const Kwargs& params);

  CompressionType type() const { return type_; }
  bool active() const { return type_ != CompressionType::kNone; }
  float threshold() const { return threshold_; }
  // Values per 32-bit word (16 for 2bit, 32 for 1bit); 1 when off.
  int factor() const;
  // Words needed for n values: ceil(n / factor()).
  int64_t compressed_size(int64_t n) const;

  // Quantizes grad[0, n) into out[0, compressed_size(n)) updating residual[0, n) in place.
  void Quantize(const float* grad, float* residual, int64_t n, uint32_t* out) const;
  // Decodes codes for n values; out[i] += value when `accumulate`, else out[i] = value.
  void Dequantize(const uint32_t* codes, int64_t n, float* out, bool accumulate) const;

 private:
  CompressionType type_ = CompressionType::kNone;
  float threshold_ = 0.5f;
};

}  // namespace mxnet::gluon::kvstore
