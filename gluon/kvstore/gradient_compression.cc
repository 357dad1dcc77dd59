#include "gluon/kvstore/gradient_compression.h"

#include <cstring>

#include "base/error.h"

namespace mxnet::gluon::kvstore {

GradientCompression GradientCompression::FromParams(const Kwargs& params) {
  KwargReader r("set_gradient_compression", params);
  GradientCompression gc;
  const std::string type = r.String("type", "none");
  const double threshold = r.Double("threshold", 0.5);
  r.Finish();
  if (type == "2bit") {
    if (!(threshold > 0))
      MX_THROW(absl::StatusCode::kInvalidArgument,
               "set_gradient_compression: threshold must be greater than 0 for two bit "
               "compression, got ",
               threshold);
    gc.type_ = CompressionType::kTwoBit;
  } else if (type == "1bit") {
    gc.type_ = CompressionType::kOneBit;
  } else if (type == "none") {
    gc.type_ = CompressionType::kNone;
  } else {
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "set_gradient_compression: unknown type for gradient compression '", type,
             "' (2bit, 1bit, none)");
  }
  gc.threshold_ = static_cast<float>(threshold);
  return gc;
}

int GradientCompression::factor() const {
  switch (type_) {
    case CompressionType::kOneBit:
      return 32;
    case CompressionType::kTwoBit:
      return 16;
    default:
      return 1;
  }
}

int64_t GradientCompression::compressed_size(int64_t n) const {
  const int f = factor();
  return (n + f - 1) / f;
}

void GradientCompression::Quantize(const float* grad, float* residual, int64_t n,
                                   uint32_t* out) const {
  auto* bytes = reinterpret_cast<uint8_t*>(out);
  std::memset(bytes, 0, static_cast<size_t>(compressed_size(n)) * 4);
  const float t = threshold_;
  if (type_ == CompressionType::kTwoBit) {
    for (int64_t i = 0; i < n; ++i) {
      float r = residual[i] + grad[i];
      const int shift = 6 - 2 * static_cast<int>(i & 3);
      if (r >= t) {
        bytes[i >> 2] |= static_cast<uint8_t>(3u << shift);
        r -= t;
      } else if (r <= -t) {
        bytes[i >> 2] |= static_cast<uint8_t>(2u << shift);
        r += t;
      }
      residual[i] = r;
    }
  } else if (type_ == CompressionType::kOneBit) {
    for (int64_t i = 0; i < n; ++i) {
      float r = residual[i] + grad[i];
      if (r > t) {
        bytes[i >> 3] |= static_cast<uint8_t>(0x80u >> (i & 7));
        r -= 1;
      } else {
        r += 1;
      }
      residual[i] = r;
    }
  } else {
    MX_THROW(absl::StatusCode::kFailedPrecondition, "GradientCompression: compression is off");
  }
}

void GradientCompression::Dequantize(const uint32_t* codes, int64_t n, float* out,
                                     bool accumulate) const {
  const auto* bytes = reinterpret_cast<const uint8_t*>(codes);
  const float t = threshold_;
  for (int64_t i = 0; i < n; ++i) {
    float v;
    if (type_ == CompressionType::kTwoBit) {
      const unsigned c = (bytes[i >> 2] >> (6 - 2 * (i & 3))) & 3u;
      v = c == 3 ? t : c == 2 ? -t : 0.0f;
    } else if (type_ == CompressionType::kOneBit) {
      v = (bytes[i >> 3] & (0x80u >> (i & 7))) ? 1.0f : -1.0f;
    } else {
      MX_THROW(absl::StatusCode::kFailedPrecondition, "GradientCompression: compression is off");
    }
    out[i] = accumulate ? out[i] + v : v;
  }
}

}  // namespace mxnet::gluon::kvstore
