// Pixel kernels of the image ops and vision transforms (see image_kernels.h).
#include "ndarray/ops/image/image_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "base/error.h"
#include "ndarray/kernel_util.h"

namespace mxnet::ops::image {
namespace {

// (n, h*w, c) of an HWC image or NHWC batch.
struct Hwc {
  int64_t n, plane, c;
};
Hwc HwcOf(const Shape& s) {
  const bool batch = s.ndim() == 4;
  return {batch ? s[0] : 1, s[batch ? 1 : 0] * s[batch ? 2 : 1], s[batch ? 3 : 2]};
}
// (n, c, h*w) of a CHW tensor or NCHW batch.
Hwc ChwOf(const Shape& s) {
  const bool batch = s.ndim() == 4;
  return {batch ? s[0] : 1, s[batch ? 2 : 1] * s[batch ? 3 : 2], s[batch ? 1 : 0]};
}

template <typename T>
using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Stores v into T: uint8 clamped to [0, 255] and truncated.
template <typename T, typename W>
T Store(W v) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return static_cast<uint8_t>(std::min(std::max(static_cast<float>(v), 0.f), 255.f));
  } else {
    return static_cast<T>(v);
  }
}

// Calls f(T*) for in's dtype among uint8/float32/float64.
template <typename F>
void ImageTypeSwitch(DType t, const char* fn, F f) {
  switch (t) {
    case DType::kUint8:
      f(uint8_t{});
      break;
    case DType::kFloat32:
      f(float{});
      break;
    case DType::kFloat64:
      f(double{});
      break;
    default:
      MX_THROW(absl::StatusCode::kInvalidArgument, fn, ": expected uint8, float32 or float64, got ",
               DTypeName(t));
  }
}

// out[i] = Store(f(in[i], i)) with f computing in Compute<T>.
template <typename F>
void MapPixels(const NDArray& in, const NDArray& out, const char* fn, F f) {
  const int64_t n = in.size();
  ImageTypeSwitch(in.dtype(), fn, [&](auto tag) {
    using T = decltype(tag);
    using W = Compute<T>;
    const T* s = static_cast<const T*>(in.data_ptr());
    T* d = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) d[i] = Store<T>(f(static_cast<W>(s[i]), i, s));
  });
}

void RgbToHls(float r, float g, float b, float* h_out, float* l_out, float* s_out) {
  r /= 255.f;
  g /= 255.f;
  b /= 255.f;
  const float vmax = std::max({r, g, b}), vmin = std::min({r, g, b});
  float diff = vmax - vmin;
  const float l = (vmax + vmin) * 0.5f;
  float h = 0.f, s = 0.f;
  if (diff > std::numeric_limits<float>::epsilon()) {
    s = l < 0.5f ? diff / (vmax + vmin) : diff / (2.0f - vmax - vmin);
    diff = 60.f / diff;
    if (vmax == r) {
      h = (g - b) * diff;
    } else if (vmax == g) {
      h = (b - r) * diff + 120.f;
    } else {
      h = (r - g) * diff + 240.f;
    }
    if (h < 0.f) h += 360.f;
  }
  *h_out = h;
  *l_out = l;
  *s_out = s;
}

void HlsToRgb(float h, float l, float s, float* r, float* g, float* b) {
  // Which of (p2, p1, falling, rising) feeds b, g, r in each 60-degree sector.
  static constexpr int kSector[6][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1},
                                        {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
  float bb = l, gg = l, rr = l;
  if (s != 0) {
    const float p2 = l <= 0.5f ? l * (1 + s) : l + s - l * s;
    const float p1 = 2 * l - p2;
    h *= 1.f / 60.f;
    while (h < 0) h += 6;
    while (h >= 6) h -= 6;
    const int sector = std::min(static_cast<int>(h), 5);
    h -= sector;
    const float tab[4] = {p2, p1, p1 + (p2 - p1) * (1 - h), p1 + (p2 - p1) * h};
    bb = tab[kSector[sector][0]];
    gg = tab[kSector[sector][1]];
    rr = tab[kSector[sector][2]];
  }
  *r = rr * 255.f;
  *g = gg * 255.f;
  *b = bb * 255.f;
}

}  // namespace

// ---------------------------------------------------------------- to_tensor / normalize

void ToTensor(const NDArray& in, const NDArray& out) {
  if (in.dtype() == DType::kBool) {
    ToTensor(in.astype(DType::kFloat32), out);
    return;
  }
  const auto [n, plane, c] = HwcOf(in.shape());
  float* o = out.data<float>();
  if (in.dtype() == DType::kUint8) {
    // x / 255.0f for all 256 values (the same floats as dividing each element).
    static const std::array<float, 256> kLut = [] {
      std::array<float, 256> t{};
      for (int i = 0; i < 256; ++i) t[i] = static_cast<float>(i) / 255.0f;
      return t;
    }();
    const uint8_t* src0 = in.data<uint8_t>();
    for (int64_t b = 0; b < n; ++b) {
      const uint8_t* src = src0 + b * plane * c;
      float* dst = o + b * plane * c;
      if (c == 3) {
        for (int64_t l = 0; l < plane; ++l) {
          dst[l] = kLut[src[3 * l]];
          dst[plane + l] = kLut[src[3 * l + 1]];
          dst[2 * plane + l] = kLut[src[3 * l + 2]];
        }
      } else {
        for (int64_t l = 0; l < plane; ++l)
          for (int64_t ch = 0; ch < c; ++ch) dst[ch * plane + l] = kLut[src[l * c + ch]];
      }
    }
    return;
  }
  MX_NUMERIC_TYPE_SWITCH(in.dtype(), T, "to_tensor", {
    const T* src0 = in.data<T>();
    for (int64_t b = 0; b < n; ++b) {
      const T* src = src0 + b * plane * c;
      float* dst = o + b * plane * c;
      for (int64_t l = 0; l < plane; ++l)
        for (int64_t ch = 0; ch < c; ++ch)
          dst[ch * plane + l] = static_cast<float>(src[l * c + ch]) / 255.0f;
    }
  });
}

void ToTensorBackward(const NDArray& og, const NDArray& grad) {
  const auto [n, plane, c] = HwcOf(grad.shape());
  MX_FLOAT_TYPE_SWITCH(og.dtype(), G, "_backward_image_to_tensor", {
    const G* g = og.data<G>();
    MX_FLOAT_TYPE_SWITCH(grad.dtype(), T, "_backward_image_to_tensor", {
      T* d = grad.data<T>();
      for (int64_t b = 0; b < n; ++b)
        for (int64_t l = 0; l < plane; ++l)
          for (int64_t ch = 0; ch < c; ++ch)
            d[(b * plane + l) * c + ch] =
                static_cast<T>(static_cast<double>(g[(b * c + ch) * plane + l]) / 255.0);
    });
  });
}

void Normalize(const NDArray& in, const NDArray& out, std::span<const float> mean,
               std::span<const float> std) {
  const auto [n, plane, c] = ChwOf(in.shape());
  MX_FLOAT_TYPE_SWITCH(in.dtype(), T, "normalize", {
    const T* x = in.data<T>();
    T* y = out.data<T>();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t ch = 0; ch < c; ++ch) {
        const T m = static_cast<T>(mean[mean.size() > 1 ? ch : 0]);
        const T s = static_cast<T>(std[std.size() > 1 ? ch : 0]);
        const int64_t off = (b * c + ch) * plane;
        for (int64_t i = 0; i < plane; ++i) y[off + i] = (x[off + i] - m) / s;
      }
    }
  });
}

void NormalizeBackward(const NDArray& og, const NDArray& grad, std::span<const float> std) {
  const auto [n, plane, c] = ChwOf(grad.shape());
  MX_FLOAT_TYPE_SWITCH(grad.dtype(), T, "_backward_image_normalize", {
    const T* g = og.data<T>();
    T* d = grad.data<T>();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t ch = 0; ch < c; ++ch) {
        const T s = static_cast<T>(std[std.size() > 1 ? ch : 0]);
        const int64_t off = (b * c + ch) * plane;
        for (int64_t i = 0; i < plane; ++i) d[off + i] = g[off + i] / s;
      }
    }
  });
}

// ---------------------------------------------------------------- flips

void Flip(const NDArray& in, const NDArray& out, int axis) {
  const Shape& s = in.shape();
  const size_t es = DTypeSize(in.dtype());
  const int64_t outer = s.ProdRange(0, axis), mid = s[axis];
  const size_t inner = static_cast<size_t>(s.ProdRange(axis + 1, s.ndim())) * es;
  const char* src = static_cast<const char*>(in.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  for (int64_t i = 0; i < outer; ++i)
    for (int64_t j = 0; j < mid; ++j)
      std::memcpy(dst + (i * mid + j) * inner, src + (i * mid + (mid - 1 - j)) * inner, inner);
}

// ---------------------------------------------------------------- color

void AdjustBrightness(const NDArray& in, const NDArray& out, float alpha) {
  MapPixels(in, out, "adjust_brightness", [alpha](auto v, int64_t, auto) { return v * alpha; });
}

void AdjustContrast(const NDArray& in, const NDArray& out, float alpha) {
  const int64_t pixels = in.shape()[0] * in.shape()[1], C = in.shape()[2];
  double sum = 0;
  ImageTypeSwitch(in.dtype(), "adjust_contrast", [&](auto tag) {
    using T = decltype(tag);
    using W = Compute<T>;
    const T* p = static_cast<const T*>(in.data_ptr());
    if (C == 3) {
      for (int64_t l = 0; l < pixels; ++l)
        sum += W(0.299f) * p[3 * l] + W(0.587f) * p[3 * l + 1] + W(0.114f) * p[3 * l + 2];
    } else {
      for (int64_t l = 0; l < pixels; ++l) sum += p[l];
    }
  });
  if (in.dtype() == DType::kFloat64) {
    const double mean = pixels > 0 ? sum / static_cast<double>(pixels) : 0.0;
    const double beta = (1 - static_cast<double>(alpha)) * mean;
    MapPixels(in, out, "adjust_contrast",
              [alpha, beta](auto v, int64_t, auto) { return v * alpha + beta; });
    return;
  }
  const float mean = pixels > 0 ? static_cast<float>(sum / static_cast<double>(pixels)) : 0.f;
  const float beta = (1 - alpha) * mean;
  MapPixels(in, out, "adjust_contrast",
            [alpha, beta](auto v, int64_t, auto) { return v * alpha + beta; });
}

void AdjustSaturation(const NDArray& in, const NDArray& out, float alpha) {
  if (in.shape()[2] == 1) {
    std::memcpy(out.data_ptr(), in.data_ptr(), in.nbytes());
    return;
  }
  MapPixels(in, out, "adjust_saturation", [alpha](auto v, int64_t i, auto p) {
    using W = decltype(v);
    const W alpha_o = W(1) - W(alpha);
    const int64_t px = i / 3 * 3;
    const W gray = W(0.299f) * p[px] + W(0.587f) * p[px + 1] + W(0.114f) * p[px + 2];
    return gray * alpha_o + v * W(alpha);
  });
}

void AdjustHue(const NDArray& in, const NDArray& out, float alpha) {
  // A zero rotation is the identity (the HLS round trip would truncate some uint8 values).
  if (in.shape()[2] == 1 || alpha == 0.f) {
    std::memcpy(out.data_ptr(), in.data_ptr(), in.nbytes());
    return;
  }
  const int64_t pixels = in.shape()[0] * in.shape()[1];
  ImageTypeSwitch(in.dtype(), "adjust_hue", [&](auto tag) {
    using T = decltype(tag);
    const T* s = static_cast<const T*>(in.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < pixels; ++i) {
      float h, l, sat, r, g, b;
      RgbToHls(static_cast<float>(s[3 * i]), static_cast<float>(s[3 * i + 1]),
               static_cast<float>(s[3 * i + 2]), &h, &l, &sat);
      h += alpha * 360.f;
      HlsToRgb(h, l, sat, &r, &g, &b);
      o[3 * i] = Store<T>(r);
      o[3 * i + 1] = Store<T>(g);
      o[3 * i + 2] = Store<T>(b);
    }
  });
}

void AdjustLighting(const NDArray& in, const NDArray& out, const std::array<float, 3>& alpha) {
  if (in.shape()[2] == 1) {
    std::memcpy(out.data_ptr(), in.data_ptr(), in.nbytes());
    return;
  }
  // AlexNet's eigenvalues (55.46, 4.794, 1.148) times the eigenvectors (columns), in float.
  static const float kEig[3][3] = {
      {static_cast<float>(55.46 * -0.5675), static_cast<float>(4.794 * 0.7192),
       static_cast<float>(1.148 * 0.4009)},
      {static_cast<float>(55.46 * -0.5808), static_cast<float>(4.794 * -0.0045),
       static_cast<float>(1.148 * -0.8140)},
      {static_cast<float>(55.46 * -0.5836), static_cast<float>(4.794 * -0.6948),
       static_cast<float>(1.148 * 0.4203)}};
  float pca[3];
  for (int k = 0; k < 3; ++k)
    pca[k] = kEig[k][0] * alpha[0] + kEig[k][1] * alpha[1] + kEig[k][2] * alpha[2];
  MapPixels(in, out, "adjust_lighting", [&pca](auto v, int64_t i, auto) {
    using W = decltype(v);
    return v + static_cast<W>(pca[i % 3]);
  });
}

// ---------------------------------------------------------------- OpenCV resize

namespace {

constexpr int kCoefBits = 11;  // OpenCV's INTER_RESIZE_COEF_BITS
constexpr int kCoefScale = 1 << kCoefBits;

// Per output index along one axis: `k` clamped source indices and float weights.
struct AxisTaps {
  int k = 1;
  std::vector<int64_t> idx;
  std::vector<float> w;
};

void CubicCoeffs(float x, float* c) {
  const float A = -0.75f;
  c[0] = ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
  c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
  c[2] = ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
  c[3] = 1.f - c[0] - c[1] - c[2];
}

void Lanczos4Coeffs(float x, float* c) {
  if (x < std::numeric_limits<float>::epsilon()) {
    for (int i = 0; i < 8; ++i) c[i] = 0;
    c[3] = 1;
    return;
  }
  // sin(pi t) sin(pi t / 4) / t^2 for the taps t = x + 3 - i, up to a factor the normalization
  // removes: (-1)^i sin(y) / y^2 with y = -(x + 3 - i) * pi / 4.
  float sum = 0;
  for (int i = 0; i < 8; ++i) {
    const double y = -(x + 3 - i) * M_PI * 0.25;
    c[i] = static_cast<float>((i % 2 ? -1.0 : 1.0) * std::sin(y) / (y * y));
    sum += c[i];
  }
  sum = 1.f / sum;
  for (int i = 0; i < 8; ++i) c[i] *= sum;
}

// OpenCV's interpolation coordinates and weights (resize's generic path) for one axis.
// `clamp_border`: OpenCV zeroes the fraction at the borders along x only (rows just clamp).
AxisTaps GenericTaps(int64_t in, int64_t out, int interp, bool area_up, bool clamp_border) {
  const double inv = static_cast<double>(out) / static_cast<double>(in);
  const double scale = 1.0 / inv;
  AxisTaps t;
  t.k = interp == 2 ? 4 : interp == 4 ? 8 : 2;
  const int k2 = t.k / 2;
  const bool clamp_frac = clamp_border && interp != 2 && interp != 4;
  t.idx.resize(out * t.k);
  t.w.resize(out * t.k);
  for (int64_t d = 0; d < out; ++d) {
    int64_t s;
    float f;
    if (area_up) {
      s = static_cast<int64_t>(std::floor(d * scale));
      f = static_cast<float>((d + 1) - (s + 1) * inv);
      f = f <= 0 ? 0.f : f - std::floor(f);
    } else {
      f = static_cast<float>((d + 0.5) * scale - 0.5);
      s = static_cast<int64_t>(std::floor(f));
      f -= static_cast<float>(s);
    }
    if (clamp_frac && s < 0) f = 0, s = 0;
    if (clamp_frac && s >= in - 1) f = 0, s = in - 1;
    float c[8];
    if (t.k == 2) {
      c[0] = 1.f - f;
      c[1] = f;
    } else if (t.k == 4) {
      CubicCoeffs(f, c);
    } else {
      Lanczos4Coeffs(f, c);
    }
    for (int j = 0; j < t.k; ++j) {
      t.idx[d * t.k + j] = std::clamp<int64_t>(s - k2 + 1 + j, 0, in - 1);
      t.w[d * t.k + j] = c[j];
    }
  }
  return t;
}

// OpenCV's pixel-area weights when shrinking (computeResizeAreaTab), padded to a fixed count.
AxisTaps AreaTaps(int64_t in, int64_t out) {
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  std::vector<std::vector<std::pair<int64_t, float>>> rows(out);
  size_t k = 1;
  for (int64_t d = 0; d < out; ++d) {
    const double f1 = d * scale, f2 = f1 + scale;
    const double cell = std::min(scale, static_cast<double>(in) - f1);
    int64_t s1 = static_cast<int64_t>(std::ceil(f1)), s2 = static_cast<int64_t>(std::floor(f2));
    s2 = std::min(s2, in - 1);
    s1 = std::min(s1, s2);
    auto& r = rows[d];
    if (s1 - f1 > 1e-3) r.push_back({s1 - 1, static_cast<float>((s1 - f1) / cell)});
    for (int64_t s = s1; s < s2; ++s) r.push_back({s, static_cast<float>(1.0 / cell)});
    if (f2 - s2 > 1e-3)
      r.push_back({s2, static_cast<float>(std::min(std::min(f2 - s2, 1.0), cell) / cell)});
    k = std::max(k, r.size());
  }
  AxisTaps t;
  t.k = static_cast<int>(k);
  t.idx.assign(out * k, 0);
  t.w.assign(out * k, 0.f);
  for (int64_t d = 0; d < out; ++d)
    for (size_t j = 0; j < rows[d].size(); ++j) {
      t.idx[d * k + j] = rows[d][j].first;
      t.w[d * k + j] = rows[d][j].second;
    }
  return t;
}

int64_t RoundHalfEven(double v) { return static_cast<int64_t>(std::nearbyint(v)); }

// Separable resampling of one image with the taps of both axes.
template <typename T>
void SeparableResize(const T* src, int64_t H, int64_t W, int64_t C, const AxisTaps& tx,
                     const AxisTaps& ty, int64_t oh, int64_t ow, bool fixed_point, T* dst) {
  const int64_t row = ow * C;
  if constexpr (std::is_same_v<T, uint8_t>) {
    if (fixed_point) {
      // 11-bit integer weights in both passes, rounded shift by 22 bits at the end.
      std::vector<int32_t> ax(tx.w.size()), ay(ty.w.size());
      for (size_t i = 0; i < ax.size(); ++i) ax[i] = RoundHalfEven(tx.w[i] * kCoefScale);
      for (size_t i = 0; i < ay.size(); ++i) ay[i] = RoundHalfEven(ty.w[i] * kCoefScale);
      std::vector<int32_t> hbuf(H * row);
      for (int64_t y = 0; y < H; ++y)
        for (int64_t x = 0; x < ow; ++x)
          for (int64_t c = 0; c < C; ++c) {
            int32_t s = 0;
            for (int j = 0; j < tx.k; ++j)
              s += src[(y * W + tx.idx[x * tx.k + j]) * C + c] * ax[x * tx.k + j];
            hbuf[y * row + x * C + c] = s;
          }
      // Two taps: OpenCV's vector loop, ((S0 >> 4) * b0 >> 16) + ((S1 >> 4) * b1 >> 16) rounded
      // by 2 bits; four taps: its float loop, sum of S_k * (b_k / 2^22) rounded to nearest.
      // (MXNet's build runs them on every element; the scalar formula below serves the other tap
      // counts.)
      int64_t simd_end = 0;
      if (ty.k == 2 || ty.k == 4) simd_end = row;
      for (int64_t y = 0; y < oh && ty.k == 2; ++y)
        for (int64_t i = 0; i < simd_end; ++i) {
          const int32_t b0 = ay[y * 2], b1 = ay[y * 2 + 1];
          const int32_t s0 = hbuf[ty.idx[y * 2] * row + i] >> 4;
          const int32_t s1 = hbuf[ty.idx[y * 2 + 1] * row + i] >> 4;
          const int32_t v = (((s0 * b0) >> 16) + ((s1 * b1) >> 16) + 2) >> 2;
          dst[y * row + i] = static_cast<uint8_t>(std::clamp<int32_t>(v, 0, 255));
        }
      const float kInv = 1.f / static_cast<float>(kCoefScale * kCoefScale);
      for (int64_t y = 0; y < oh && ty.k == 4; ++y)
        for (int64_t i = 0; i < simd_end; ++i) {
          float v = 0;
          for (int j = 0; j < 4; ++j)
            v += static_cast<float>(hbuf[ty.idx[y * 4 + j] * row + i]) *
                 (static_cast<float>(ay[y * 4 + j]) * kInv);
          dst[y * row + i] = static_cast<uint8_t>(std::clamp<int64_t>(RoundHalfEven(v), 0, 255));
        }
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t i = simd_end; i < row; ++i) {
          int64_t s = 0;
          for (int j = 0; j < ty.k; ++j)
            s += static_cast<int64_t>(hbuf[ty.idx[y * ty.k + j] * row + i]) * ay[y * ty.k + j];
          s = (s + (int64_t{1} << (2 * kCoefBits - 1))) >> (2 * kCoefBits);
          dst[y * row + i] = static_cast<uint8_t>(std::clamp<int64_t>(s, 0, 255));
        }
      return;
    }
  }
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  std::vector<Acc> hbuf(H * row);
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x < ow; ++x)
      for (int64_t c = 0; c < C; ++c) {
        Acc s = 0;
        for (int j = 0; j < tx.k; ++j)
          s += static_cast<Acc>(src[(y * W + tx.idx[x * tx.k + j]) * C + c]) * tx.w[x * tx.k + j];
        hbuf[y * row + x * C + c] = s;
      }
  for (int64_t y = 0; y < oh; ++y)
    for (int64_t i = 0; i < row; ++i) {
      Acc s = 0;
      for (int j = 0; j < ty.k; ++j) s += hbuf[ty.idx[y * ty.k + j] * row + i] * ty.w[y * ty.k + j];
      if constexpr (std::is_same_v<T, uint8_t>) {
        dst[y * row + i] = static_cast<uint8_t>(std::clamp<int64_t>(RoundHalfEven(s), 0, 255));
      } else {
        dst[y * row + i] = static_cast<T>(s);
      }
    }
}

// Integer-factor shrink by (sx, sy): block means (OpenCV's resizeAreaFast).
template <typename T>
void AreaFast(const T* src, int64_t W, int64_t C, int64_t sx, int64_t sy, int64_t oh, int64_t ow,
              T* dst) {
  using Acc = std::conditional_t<std::is_same_v<T, uint8_t>, int64_t,
                                 std::conditional_t<std::is_same_v<T, double>, double, float>>;
  const int64_t area = sx * sy;
  const float scale = 1.f / static_cast<float>(area);
  for (int64_t y = 0; y < oh; ++y)
    for (int64_t x = 0; x < ow; ++x)
      for (int64_t c = 0; c < C; ++c) {
        Acc s = 0;
        for (int64_t dy = 0; dy < sy; ++dy)
          for (int64_t dx = 0; dx < sx; ++dx) s += src[((y * sy + dy) * W + x * sx + dx) * C + c];
        T& d = dst[(y * ow + x) * C + c];
        if constexpr (std::is_same_v<T, uint8_t>) {
          d = area == 4 ? static_cast<uint8_t>((s + 2) >> 2)
                        : static_cast<uint8_t>(std::clamp<int64_t>(
                              RoundHalfEven(static_cast<float>(s) * scale), 0, 255));
        } else {
          d = static_cast<T>(s * static_cast<Acc>(scale));
        }
      }
}

}  // namespace

void ResizeCv(const NDArray& in, const NDArray& out, int interp) {
  const Shape& is = in.shape();
  const Shape& os = out.shape();
  const bool batch = is.ndim() == 4;
  const int64_t n = batch ? is[0] : 1, H = is[batch ? 1 : 0], W = is[batch ? 2 : 1];
  const int64_t C = is[batch ? 3 : 2], oh = os[batch ? 1 : 0], ow = os[batch ? 2 : 1];
  const double scale_x = 1.0 / (static_cast<double>(ow) / W);
  const double scale_y = 1.0 / (static_cast<double>(oh) / H);
  const int64_t isx = static_cast<int64_t>(std::llround(scale_x));
  const int64_t isy = static_cast<int64_t>(std::llround(scale_y));
  const bool area_fast = std::abs(scale_x - isx) < std::numeric_limits<double>::epsilon() &&
                         std::abs(scale_y - isy) < std::numeric_limits<double>::epsilon();
  if (interp == 1 && area_fast && isx == 2 && isy == 2) interp = 3;
  const bool shrink = scale_x >= 1 && scale_y >= 1;
  AxisTaps tx, ty;
  bool fixed_point = false;
  if (interp == 0) {
    tx.idx.resize(ow);
    ty.idx.resize(oh);
    tx.w.assign(ow, 1.f);
    ty.w.assign(oh, 1.f);
    for (int64_t x = 0; x < ow; ++x)
      tx.idx[x] = std::min<int64_t>(static_cast<int64_t>(std::floor(x * scale_x)), W - 1);
    for (int64_t y = 0; y < oh; ++y)
      ty.idx[y] = std::min<int64_t>(static_cast<int64_t>(std::floor(y * scale_y)), H - 1);
  } else if (interp == 3 && shrink) {
    if (!area_fast) tx = AreaTaps(W, ow), ty = AreaTaps(H, oh);
  } else {
    tx = GenericTaps(W, ow, interp, interp == 3, true);
    ty = GenericTaps(H, oh, interp, interp == 3, false);
    fixed_point = true;
  }
  const size_t es = DTypeSize(in.dtype());
  if (oh == H && ow == W) {  // cv::resize copies
    std::memcpy(out.data_ptr(), in.data_ptr(), in.nbytes());
    return;
  }
  ImageTypeSwitch(in.dtype(), "resize", [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < n; ++b) {
      const T* s =
          reinterpret_cast<const T*>(static_cast<const char*>(in.data_ptr()) + b * H * W * C * es);
      T* d = reinterpret_cast<T*>(static_cast<char*>(out.data_ptr()) + b * oh * ow * C * es);
      if (interp == 0) {
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t x = 0; x < ow; ++x)
            std::memcpy(d + (y * ow + x) * C, s + (ty.idx[y] * W + tx.idx[x]) * C, C * es);
      } else if (interp == 3 && shrink && area_fast) {
        AreaFast(s, W, C, isx, isy, oh, ow, d);
      } else {
        SeparableResize(s, H, W, C, tx, ty, oh, ow, fixed_point, d);
      }
    }
  });
}

}  // namespace mxnet::ops::image
