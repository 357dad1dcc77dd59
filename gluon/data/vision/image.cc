// Image-space operations: antialiased resampling (Pillow's algorithm), crops, flips and color
// adjustments (MXNet's image ops).
#include "gluon/data/vision/image.h"

#include "gluon/data/vision/resize_window.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "base/cpu_isa.h"
#include "base/error.h"
#include "base/strings.h"
#include "ndarray/ops/image/image_kernels.h"
#include "ndarray/random.h"

namespace mxnet::gluon::data::vision {
namespace {

// ---------------------------------------------------------------- filters (Pillow's)

double BilinearFilter(double x) {
  if (x < 0.0) x = -x;
  return x < 1.0 ? 1.0 - x : 0.0;
}

double BicubicFilter(double x) {
  constexpr double a = -0.5;
  if (x < 0.0) x = -x;
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}

double Sinc(double x) {
  if (x == 0.0) return 1.0;
  x *= M_PI;
  return std::sin(x) / x;
}

double LanczosFilter(double x) {
  if (-3.0 <= x && x < 3.0) return Sinc(x) * Sinc(x / 3);
  return 0.0;
}

struct Filter {
  double (*fn)(double);
  double support;
};

Filter FilterFor(Interp interp) {
  switch (interp) {
    case Interp::kArea:
      return {nullptr, 0.0};  // exact area weights (PrecomputeArea)
    case Interp::kBicubic:
      return {BicubicFilter, 2.0};
    case Interp::kLanczos:
      return {LanczosFilter, 3.0};
    case Interp::kNearest:
    case Interp::kBilinear:
      break;
  }
  return {BilinearFilter, 1.0};
}

// Per output position: the first input index, the tap count and ksize normalized weights
// (Pillow's precompute_coeffs with box [0, in_size)).
struct Coeffs {
  int64_t out_size = 0;
  int64_t ksize = 0;
  std::vector<int64_t> first;
  std::vector<int64_t> count;
  std::vector<double> k;
  std::vector<int32_t> kfixed;  // k in 22-bit fixed point (uint8 path)
  std::vector<float> kfloat;    // k as float (float path)
};

constexpr int kPrecisionBits = 32 - 8 - 2;

// Fills the fixed-point and float copies of the weights.
void Quantize(Coeffs* c) {
  c->kfixed.resize(c->k.size());
  c->kfloat.resize(c->k.size());
  for (size_t i = 0; i < c->k.size(); ++i) {
    const double v = c->k[i] * (1 << kPrecisionBits);
    c->kfixed[i] = static_cast<int32_t>(v < 0 ? -0.5 + v : 0.5 + v);
    c->kfloat[i] = static_cast<float>(c->k[i]);
  }
}

// Area averaging (kArea): output pixel xx covers [xx * scale, (xx + 1) * scale) of the input and
// each input pixel [x, x + 1) weighs its overlap with that interval, like OpenCV's INTER_AREA
// when shrinking. (Pillow's BOX filter counts whole pixels instead, which leaves a pattern
// when the scale is not an integer.) When enlarging, an output pixel of width scale < 1 straddles
// at most two input pixels and blends them by overlap.
// Both precompute only the outputs [o0, o0 + on) of the full out_size (a window: each output's
// coefficients depend only on its own index, so a window is exact).
Coeffs PrecomputeArea(int64_t in_size, int64_t out_size, int64_t o0, int64_t on) {
  Coeffs c;
  c.out_size = on;
  const double scale = static_cast<double>(in_size) / static_cast<double>(out_size);
  c.ksize = static_cast<int64_t>(std::ceil(scale)) + 2;
  c.first.resize(on);
  c.count.resize(on);
  c.k.assign(on * c.ksize, 0.0);
  for (int64_t xx = o0; xx < o0 + on; ++xx) {
    const double a = xx * scale, b = std::min((xx + 1) * scale, static_cast<double>(in_size));
    const int64_t xmin = static_cast<int64_t>(std::floor(a));
    const int64_t xmax = std::min<int64_t>(static_cast<int64_t>(std::ceil(b)), in_size);
    double* k = &c.k[(xx - o0) * c.ksize];
    double ww = 0;
    int64_t n = 0;
    for (int64_t x = xmin; x < xmax && n < c.ksize; ++x, ++n) {
      k[n] = std::max(0.0, std::min<double>(x + 1, b) - std::max<double>(x, a));
      ww += k[n];
    }
    for (int64_t i = 0; i < n; ++i)
      if (ww > 0) k[i] /= ww;
    c.first[xx - o0] = xmin;
    c.count[xx - o0] = n;
  }
  Quantize(&c);
  return c;
}

Coeffs Precompute(int64_t in_size, int64_t out_size, const Filter& f, int64_t o0 = 0,
                  int64_t on = -1) {
  if (on < 0) on = out_size - o0;
  if (f.fn == nullptr) return PrecomputeArea(in_size, out_size, o0, on);
  Coeffs c;
  c.out_size = on;
  const double scale = static_cast<double>(in_size) / static_cast<double>(out_size);
  const double filterscale = std::max(scale, 1.0);
  const double support = f.support * filterscale;
  c.ksize = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  c.first.resize(on);
  c.count.resize(on);
  c.k.assign(on * c.ksize, 0.0);
  for (int64_t xx = o0; xx < o0 + on; ++xx) {
    const double center = (xx + 0.5) * scale;
    const double ss = 1.0 / filterscale;
    int64_t xmin = static_cast<int64_t>(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    int64_t xmax = static_cast<int64_t>(center + support + 0.5);
    if (xmax > in_size) xmax = in_size;
    xmax -= xmin;
    double* k = &c.k[(xx - o0) * c.ksize];
    double ww = 0.0;
    for (int64_t x = 0; x < xmax; ++x) {
      const double w = f.fn((x + xmin - center + 0.5) * ss);
      k[x] = w;
      ww += w;
    }
    for (int64_t x = 0; x < xmax; ++x)
      if (ww != 0.0) k[x] /= ww;
    c.first[xx - o0] = xmin;
    c.count[xx - o0] = xmax;
  }
  Quantize(&c);
  return c;
}

inline uint8_t Clip8(int32_t v) {
  v >>= kPrecisionBits;
  return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

// Horizontal pass over one row: pixel x of the row at s[x * C + c] -> out_size * C values.
template <int kC>
void HRowU8(const uint8_t* s, int64_t cdyn, const Coeffs& cf, uint8_t* d) {
  const int64_t C = kC > 0 ? kC : cdyn;
  for (int64_t xx = 0; xx < cf.out_size; ++xx) {
    const int32_t* k = &cf.kfixed[xx * cf.ksize];
    const uint8_t* p = s + cf.first[xx] * C;
    const int64_t n = cf.count[xx];
    for (int64_t c = 0; c < C; ++c) {
      int32_t ss = 1 << (kPrecisionBits - 1);
      for (int64_t t = 0; t < n; ++t) ss += static_cast<int32_t>(p[t * C + c]) * k[t];
      d[xx * C + c] = Clip8(ss);
    }
  }
}

// ---- AVX2 versions of the uint8 passes (same integer arithmetic, so the same results). Chosen
// at run time when the CPU has AVX2. The horizontal ones load whole 8-byte groups and may read up
// to kRowSlack bytes past a row's last tap (the caller guarantees those bytes are readable).
constexpr int64_t kRowSlack = 16;

#if defined(__x86_64__) && defined(__GNUC__)
#define MX_IMAGE_AVX2 1

// MXNET_MAX_CPU_ISA below AVX2 forces the portable loops (base/cpu_isa.h; tests run both).
bool CpuHasAvx2() { return CpuIsaAtLeast(CpuIsa::kAvx2); }

// Coefficients laid out for the AVX2 horizontal pass. C == 3: per output pixel, per pair of taps
// eight int32 {k0, k0, k0, k0, k1, k1, k1, k1} (a missing odd tap is 0). C == 1: per output pixel
// the taps zero-padded to a multiple of 8.
struct WideCoeffs {
  int64_t stride = 0;  // int32 values per output pixel
  std::vector<int32_t> k;
};

WideCoeffs Widen(const Coeffs& cf, int64_t C) {
  WideCoeffs w;
  if (C == 3) {
    const int64_t pairs = (cf.ksize + 1) / 2;
    w.stride = pairs * 8;
    w.k.assign(cf.out_size * w.stride, 0);
    for (int64_t xx = 0; xx < cf.out_size; ++xx)
      for (int64_t t = 0; t < cf.count[xx]; ++t)
        for (int l = 0; l < 4; ++l)
          w.k[xx * w.stride + (t / 2) * 8 + (t % 2) * 4 + l] = cf.kfixed[xx * cf.ksize + t];
  } else {
    w.stride = (cf.ksize + 7) / 8 * 8;
    w.k.assign(cf.out_size * w.stride, 0);
    for (int64_t xx = 0; xx < cf.out_size; ++xx)
      for (int64_t t = 0; t < cf.count[xx]; ++t)
        w.k[xx * w.stride + t] = cf.kfixed[xx * cf.ksize + t];
  }
  return w;
}

__attribute__((target("avx2"))) inline uint32_t ClipPack(__m128i sum) {
  sum = _mm_add_epi32(sum, _mm_set1_epi32(1 << (kPrecisionBits - 1)));
  sum = _mm_srai_epi32(sum, kPrecisionBits);
  sum = _mm_packs_epi32(sum, sum);
  sum = _mm_packus_epi16(sum, sum);
  return static_cast<uint32_t>(_mm_cvtsi128_si32(sum));
}

__attribute__((target("avx2"))) void HRowU8C3Avx2(const uint8_t* s, const Coeffs& cf,
                                                  const WideCoeffs& wk, uint8_t* d) {
  // {R0 G0 B0 R1 G1 B1 ..} -> {R0 G0 B0 0 R1 G1 B1 0} in the low 8 bytes.
  const __m128i shuf =
      _mm_setr_epi8(0, 1, 2, -128, 3, 4, 5, -128, -128, -128, -128, -128, -128, -128, -128, -128);
  for (int64_t xx = 0; xx < cf.out_size; ++xx) {
    const uint8_t* p = s + cf.first[xx] * 3;
    const int32_t* k = &wk.k[xx * wk.stride];
    const int64_t pairs = (cf.count[xx] + 1) / 2;
    __m256i acc = _mm256_setzero_si256();
    for (int64_t j = 0; j < pairs; ++j) {
      __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + j * 6));
      const __m256i px = _mm256_cvtepu8_epi32(_mm_shuffle_epi8(v, shuf));
      const __m256i kk = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k + j * 8));
      acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(px, kk));
    }
    const uint32_t out =
        ClipPack(_mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1)));
    d[xx * 3] = static_cast<uint8_t>(out);
    d[xx * 3 + 1] = static_cast<uint8_t>(out >> 8);
    d[xx * 3 + 2] = static_cast<uint8_t>(out >> 16);
  }
}

__attribute__((target("avx2"))) void HRowU8C1Avx2(const uint8_t* s, const Coeffs& cf,
                                                  const WideCoeffs& wk, uint8_t* d) {
  for (int64_t xx = 0; xx < cf.out_size; ++xx) {
    const uint8_t* p = s + cf.first[xx];
    const int32_t* k = &wk.k[xx * wk.stride];
    __m256i acc = _mm256_setzero_si256();
    for (int64_t t = 0; t < cf.count[xx]; t += 8) {
      const __m256i px =
          _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + t)));
      const __m256i kk = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k + t));
      acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(px, kk));
    }
    __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    sum = _mm_hadd_epi32(sum, sum);
    sum = _mm_hadd_epi32(sum, sum);
    d[xx] = static_cast<uint8_t>(ClipPack(sum));
  }
}

__attribute__((target("avx2"))) void VPassU8Avx2(const uint8_t* src, int64_t stride, int64_t elems,
                                                 const Coeffs& cf, uint8_t* dst) {
  std::vector<int32_t> acc(elems);
  const int64_t vec_end = elems / 8 * 8;
  for (int64_t yy = 0; yy < cf.out_size; ++yy) {
    std::fill(acc.begin(), acc.end(), 1 << (kPrecisionBits - 1));
    const int32_t* k = &cf.kfixed[yy * cf.ksize];
    int32_t* a = acc.data();
    for (int64_t t = 0; t < cf.count[yy]; ++t) {
      const uint8_t* s = src + (cf.first[yy] + t) * stride;
      const int32_t kt = k[t];
      const __m256i kk = _mm256_set1_epi32(kt);
      int64_t i = 0;
      for (; i < vec_end; i += 8) {
        const __m256i px =
            _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + i)));
        __m256i* ap = reinterpret_cast<__m256i*>(a + i);
        _mm256_storeu_si256(ap,
                            _mm256_add_epi32(_mm256_loadu_si256(ap), _mm256_mullo_epi32(px, kk)));
      }
      for (; i < elems; ++i) a[i] += static_cast<int32_t>(s[i]) * kt;
    }
    uint8_t* d = dst + yy * elems;
    int64_t i = 0;
    for (; i < vec_end; i += 8) {
      __m256i v = _mm256_srai_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)),
                                    kPrecisionBits);
      __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
      __m128i packed = _mm_packus_epi16(_mm_packs_epi32(lo, hi), _mm_setzero_si128());
      _mm_storel_epi64(reinterpret_cast<__m128i*>(d + i), packed);
    }
    for (; i < elems; ++i) d[i] = Clip8(a[i]);
  }
}
#endif  // x86-64

// Horizontal pass: `rows` rows of `src` (row stride in elements; pixel x at src[x * C + c]) to
// rows of dst (out_size * C elements each, contiguous). Bytes at or after `src_end` are never
// read.
void HPassU8(const uint8_t* src, int64_t stride, int64_t rows, int64_t C, const Coeffs& cf,
             uint8_t* dst, const uint8_t* src_end) {
  const int64_t ow = cf.out_size;
#ifdef MX_IMAGE_AVX2
  if ((C == 3 || C == 1) && CpuHasAvx2()) {
    const WideCoeffs wk = Widen(cf, C);
    // Row bytes the passes read: up to the last tap of the last output pixel, plus the slack.
    const int64_t last = cf.first[ow - 1] + cf.count[ow - 1];
    std::vector<uint8_t> padded;
    for (int64_t r = 0; r < rows; ++r) {
      const uint8_t* s = src + r * stride;
      if (src_end - s < last * C + kRowSlack) {
        padded.assign(static_cast<size_t>(last * C + kRowSlack), 0);
        std::memcpy(padded.data(), s, static_cast<size_t>(last * C));
        s = padded.data();
      }
      if (C == 3) {
        HRowU8C3Avx2(s, cf, wk, dst + r * ow * C);
      } else {
        HRowU8C1Avx2(s, cf, wk, dst + r * ow * C);
      }
    }
    return;
  }
#endif
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* s = src + r * stride;
    uint8_t* d = dst + r * ow * C;
    if (C == 3) {
      HRowU8<3>(s, C, cf, d);
    } else if (C == 1) {
      HRowU8<1>(s, C, cf, d);
    } else {
      HRowU8<0>(s, C, cf, d);
    }
  }
}

template <int kC>
void HPassF32(const float* src, int64_t stride, int64_t rows, int64_t cdyn, const Coeffs& cf,
              float* dst) {
  const int64_t C = kC > 0 ? kC : cdyn;
  const int64_t ow = cf.out_size;
  for (int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * stride;
    float* d = dst + r * ow * C;
    for (int64_t xx = 0; xx < ow; ++xx) {
      const float* k = &cf.kfloat[xx * cf.ksize];
      const float* p = s + cf.first[xx] * C;
      const int64_t n = cf.count[xx];
      for (int64_t c = 0; c < C; ++c) {
        float ss = 0.f;
        for (int64_t t = 0; t < n; ++t) ss += p[t * C + c] * k[t];
        d[xx * C + c] = ss;
      }
    }
  }
}

// Vertical pass: output row yy = sum_t k[t] * src row (first + t); rows have `elems` elements.
void VPassU8(const uint8_t* src, int64_t stride, int64_t elems, const Coeffs& cf, uint8_t* dst) {
#ifdef MX_IMAGE_AVX2
  if (CpuHasAvx2()) return VPassU8Avx2(src, stride, elems, cf, dst);
#endif
  std::vector<int32_t> acc(elems);
  for (int64_t yy = 0; yy < cf.out_size; ++yy) {
    std::fill(acc.begin(), acc.end(), 1 << (kPrecisionBits - 1));
    const int32_t* k = &cf.kfixed[yy * cf.ksize];
    for (int64_t t = 0; t < cf.count[yy]; ++t) {
      const uint8_t* s = src + (cf.first[yy] + t) * stride;
      const int32_t kt = k[t];
      int32_t* a = acc.data();
      for (int64_t i = 0; i < elems; ++i) a[i] += static_cast<int32_t>(s[i]) * kt;
    }
    uint8_t* d = dst + yy * elems;
    for (int64_t i = 0; i < elems; ++i) d[i] = Clip8(acc[i]);
  }
}

void VPassF32(const float* src, int64_t stride, int64_t elems, const Coeffs& cf, float* dst) {
  for (int64_t yy = 0; yy < cf.out_size; ++yy) {
    float* d = dst + yy * elems;
    std::fill(d, d + elems, 0.f);
    const float* k = &cf.kfloat[yy * cf.ksize];
    for (int64_t t = 0; t < cf.count[yy]; ++t) {
      const float* s = src + (cf.first[yy] + t) * stride;
      const float kt = k[t];
      for (int64_t i = 0; i < elems; ++i) d[i] += s[i] * kt;
    }
  }
}

template <typename T>
void HPass(const T* src, int64_t stride, int64_t rows, int64_t C, const Coeffs& cf, T* dst,
           const T* src_end) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    HPassU8(src, stride, rows, C, cf, dst, src_end);
  } else {
    if (C == 3) return HPassF32<3>(src, stride, rows, C, cf, dst);
    if (C == 1) return HPassF32<1>(src, stride, rows, C, cf, dst);
    return HPassF32<0>(src, stride, rows, C, cf, dst);
  }
}

template <typename T>
void VPass(const T* src, int64_t stride, int64_t elems, const Coeffs& cf, T* dst) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    VPassU8(src, stride, elems, cf, dst);
  } else {
    VPassF32(src, stride, elems, cf, dst);
  }
}

// Resamples the (w x h) region at (x0, y0) of one HWC image (row stride W * C) to ow x oh, and
// writes the window [ox0, ox0 + cw) x [oy0, oy0 + ch) of that result (cw x ch pixels) to dst;
// only the window is computed.
template <typename T>
void ResampleRegion(const T* src, int64_t H, int64_t W, int64_t C, int64_t x0, int64_t y0,
                    int64_t w, int64_t h, int64_t ow, int64_t oh, Interp interp, T* dst,
                    int64_t ox0, int64_t oy0, int64_t cw, int64_t ch) {
  const int64_t stride = W * C;
  const T* src_end = src + H * stride;
  const T* region = src + y0 * stride + x0 * C;
  if (interp == Interp::kNearest) {
    const double sx = static_cast<double>(w) / ow, sy = static_cast<double>(h) / oh;
    std::vector<int64_t> xs(cw);
    for (int64_t x = 0; x < cw; ++x)
      xs[x] = std::min<int64_t>(static_cast<int64_t>((ox0 + x + 0.5) * sx), w - 1);
    for (int64_t y = 0; y < ch; ++y) {
      const T* s =
          region + std::min<int64_t>(static_cast<int64_t>((oy0 + y + 0.5) * sy), h - 1) * stride;
      T* d = dst + y * cw * C;
      for (int64_t x = 0; x < cw; ++x)
        for (int64_t c = 0; c < C; ++c) d[x * C + c] = s[xs[x] * C + c];
    }
    return;
  }
  const Filter f = FilterFor(interp);
  const bool need_h = ow != w, need_v = oh != h;
  if (!need_h && !need_v) {
    for (int64_t y = 0; y < ch; ++y)
      std::memcpy(dst + y * cw * C, region + (oy0 + y) * stride + ox0 * C, sizeof(T) * cw * C);
    return;
  }
  if (!need_v) {
    HPass(region + oy0 * stride, stride, ch, C, Precompute(w, ow, f, ox0, cw), dst, src_end);
    return;
  }
  Coeffs cv = Precompute(h, oh, f, oy0, ch);
  if (!need_h) {
    VPass(region + ox0 * C, stride, cw * C, cv, dst);
    return;
  }
  // Horizontal pass over the rows the vertical pass reads, into an intermediate of dtype T
  // (Pillow keeps an 8-bit intermediate for 8-bit images).
  const int64_t first_row = cv.first[0];
  const int64_t last_row = cv.first[ch - 1] + cv.count[ch - 1];
  for (int64_t& r : cv.first) r -= first_row;
  std::vector<T> tmp(static_cast<size_t>((last_row - first_row) * cw * C));
  HPass(region + first_row * stride, stride, last_row - first_row, C, Precompute(w, ow, f, ox0, cw),
        tmp.data(), src_end);
  VPass(tmp.data(), cw * C, cw * C, cv, dst);
}

void CheckImage(const NDArray& src, const char* fn, bool allow_batch) {
  MX_REQUIRE(!src.is_none(), absl::StatusCode::kInvalidArgument, fn, ": the input is a none array");
  MX_REQUIRE(src.ndim() == 3 || (allow_batch && src.ndim() == 4),
             absl::StatusCode::kInvalidArgument, fn, ": expected an image of shape (H, W, C)",
             allow_batch ? " or (N, H, W, C)" : "", ", got shape ", src.shape().ToString());
  MX_REQUIRE(src.device().is_cpu(), absl::StatusCode::kInvalidArgument, fn,
             ": image operations run on CPU arrays, got one on ", src.device().ToString());
}

void CheckResizableDType(const NDArray& src, const char* fn) {
  MX_REQUIRE(src.dtype() == DType::kUint8 || src.dtype() == DType::kFloat32,
             absl::StatusCode::kInvalidArgument, fn, ": expected a uint8 or float32 image, got ",
             DTypeName(src.dtype()));
}

// Crops/resizes one HWC image region into a new (oh, ow, C) array.
NDArray RegionResize(const NDArray& src, int64_t x0, int64_t y0, int64_t w, int64_t h, int64_t ow,
                     int64_t oh, Interp interp) {
  const int64_t H = src.shape()[0], W = src.shape()[1], C = src.shape()[2];
  NDArray out(Shape{oh, ow, C}, cpu(), src.dtype());
  if (ow == w && oh == h) {
    // Plain crop: any dtype.
    const size_t es = DTypeSize(src.dtype());
    const char* s = static_cast<const char*>(src.data_ptr());
    char* d = static_cast<char*>(out.data_ptr());
    for (int64_t y = 0; y < h; ++y)
      std::memcpy(d + y * w * C * es, s + ((y0 + y) * W + x0) * C * es, w * C * es);
    return out;
  }
  CheckResizableDType(src, "imresize");
  if (src.dtype() == DType::kUint8) {
    ResampleRegion(src.data<uint8_t>(), H, W, C, x0, y0, w, h, ow, oh, interp, out.data<uint8_t>(),
                   0, 0, ow, oh);
  } else {
    ResampleRegion(src.data<float>(), H, W, C, x0, y0, w, h, ow, oh, interp, out.data<float>(), 0,
                   0, ow, oh);
  }
  return out;
}

double Uniform(double lo, double hi) {
  random::GeneratorGuard g(cpu());
  return std::uniform_real_distribution<double>(lo, hi)(g.gen());
}

int64_t RandInt(int64_t lo, int64_t hi) {  // inclusive
  random::GeneratorGuard g(cpu());
  return std::uniform_int_distribution<int64_t>(lo, hi)(g.gen());
}

// ---------------------------------------------------------------- color helpers

void CheckColorImage(const NDArray& src, const char* fn) {
  CheckImage(src, fn, false);
  const int64_t c = src.shape()[2];
  MX_REQUIRE(c == 1 || c == 3, absl::StatusCode::kInvalidArgument, fn,
             ": the last dimension must be the channel dimension with 1 or 3 elements, got "
             "shape ",
             src.shape().ToString());
  CheckResizableDType(src, fn);
}

}  // namespace

absl::StatusOr<Interp> InterpFromInt(int code) {
  if (code >= 0 && code <= 4) return static_cast<Interp>(code);
  if (code == 9 || code == 10) return Interp::kBilinear;
  return absl::InvalidArgumentError(
      StrCat("interpolation must be 0 (nearest), 1 (bilinear), 2 (bicubic), 3 (area) or "
             "4 (lanczos), got ",
             code));
}

NDArray imresize(const NDArray& src, int64_t w, int64_t h, Interp interp) {
  CheckImage(src, "imresize", true);
  CheckResizableDType(src, "imresize");
  MX_REQUIRE(w >= 1 && h >= 1, absl::StatusCode::kInvalidArgument,
             "imresize: the output size must be positive, got width ", w, " and height ", h);
  const bool batch = src.ndim() == 4;
  const int64_t H = src.shape()[batch ? 1 : 0], W = src.shape()[batch ? 2 : 1];
  MX_REQUIRE(H >= 1 && W >= 1, absl::StatusCode::kInvalidArgument,
             "imresize: cannot resize an empty image of shape ", src.shape().ToString());
  if (!batch) return RegionResize(src, 0, 0, W, H, w, h, interp);
  const int64_t N = src.shape()[0], C = src.shape()[3];
  NDArray out(Shape{N, h, w, C}, cpu(), src.dtype());
  const size_t out_bytes = static_cast<size_t>(h * w * C) * DTypeSize(src.dtype());
  for (int64_t i = 0; i < N; ++i) {
    NDArray one = RegionResize(src.at(i), 0, 0, W, H, w, h, interp);
    std::memcpy(static_cast<char*>(out.data_ptr()) + i * out_bytes, one.data_ptr(), out_bytes);
  }
  return out;
}

NDArray fixed_crop(const NDArray& src, int64_t x0, int64_t y0, int64_t w, int64_t h, int64_t out_w,
                   int64_t out_h, Interp interp) {
  CheckImage(src, "fixed_crop", false);
  const int64_t H = src.shape()[0], W = src.shape()[1];
  MX_REQUIRE(x0 >= 0 && y0 >= 0 && w >= 1 && h >= 1 && x0 + w <= W && y0 + h <= H,
             absl::StatusCode::kInvalidArgument, "fixed_crop: the rectangle x0=", x0, " y0=", y0,
             " w=", w, " h=", h, " is not inside the image of shape ", src.shape().ToString());
  if (out_w <= 0) out_w = w;
  if (out_h <= 0) out_h = h;
  return RegionResize(src, x0, y0, w, h, out_w, out_h, interp);
}

NDArray resize_short(const NDArray& src, int64_t size, Interp interp, bool round_long_side) {
  CheckImage(src, "resize_short", false);
  MX_REQUIRE(size >= 1, absl::StatusCode::kInvalidArgument,
             "resize_short: size must be positive, got ", size);
  const int64_t h = src.shape()[0], w = src.shape()[1];
  const int64_t shorter = std::min(h, w), longer = std::max(h, w);
  const int64_t scaled =
      round_long_side ? std::llround(static_cast<double>(size) * static_cast<double>(longer) /
                                     static_cast<double>(shorter))
                      : size * longer / shorter;
  const int64_t other = std::max<int64_t>(size, scaled);
  return h <= w ? imresize(src, other, size, interp) : imresize(src, size, other, interp);
}

NDArray center_crop(const NDArray& src, int64_t w, int64_t h, Interp interp, CropBox* box) {
  CheckImage(src, "center_crop", false);
  MX_REQUIRE(w >= 1 && h >= 1, absl::StatusCode::kInvalidArgument,
             "center_crop: the crop size must be positive, got width ", w, " and height ", h);
  const int64_t H = src.shape()[0], W = src.shape()[1];
  // mx.image.scale_down: shrink the crop (keeping its aspect ratio) to fit the image.
  double cw = static_cast<double>(w), ch = static_cast<double>(h);
  if (H < ch) {
    cw = cw * H / ch;
    ch = static_cast<double>(H);
  }
  if (W < cw) {
    ch = ch * W / cw;
    cw = static_cast<double>(W);
  }
  const int64_t new_w = std::max<int64_t>(1, static_cast<int64_t>(cw));
  const int64_t new_h = std::max<int64_t>(1, static_cast<int64_t>(ch));
  const int64_t x0 = (W - new_w) / 2, y0 = (H - new_h) / 2;
  if (box) *box = {x0, y0, new_w, new_h};
  return fixed_crop(src, x0, y0, new_w, new_h, w, h, interp);
}

NDArray random_size_crop(const NDArray& src, int64_t w, int64_t h, std::pair<double, double> area,
                         std::pair<double, double> ratio, Interp interp, CropBox* box) {
  CheckImage(src, "random_size_crop", false);
  MX_REQUIRE(area.first > 0 && area.first <= area.second, absl::StatusCode::kInvalidArgument,
             "random_size_crop: area must satisfy 0 < min <= max, got (", area.first, ", ",
             area.second, ")");
  MX_REQUIRE(ratio.first > 0 && ratio.first <= ratio.second, absl::StatusCode::kInvalidArgument,
             "random_size_crop: ratio must satisfy 0 < min <= max, got (", ratio.first, ", ",
             ratio.second, ")");
  const int64_t H = src.shape()[0], W = src.shape()[1];
  const double src_area = static_cast<double>(H) * W;
  const double log_r0 = std::log(ratio.first), log_r1 = std::log(ratio.second);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target_area = Uniform(area.first, area.second) * src_area;
    const double new_ratio = std::exp(Uniform(log_r0, log_r1));
    const auto new_w = static_cast<int64_t>(std::nearbyint(std::sqrt(target_area * new_ratio)));
    const auto new_h = static_cast<int64_t>(std::nearbyint(std::sqrt(target_area / new_ratio)));
    if (new_w >= 1 && new_h >= 1 && new_w <= W && new_h <= H) {
      const int64_t x0 = RandInt(0, W - new_w);
      const int64_t y0 = RandInt(0, H - new_h);
      if (box) *box = {x0, y0, new_w, new_h};
      return fixed_crop(src, x0, y0, new_w, new_h, w, h, interp);
    }
  }
  return center_crop(src, w, h, interp, box);
}

namespace {
// Reverses axis `axis` of a C-contiguous array.
NDArray FlipAxis(const NDArray& src, int axis) {
  NDArray out(src.shape(), cpu(), src.dtype());
  ops::image::Flip(src, out, axis);
  return out;
}
}  // namespace

NDArray flip_left_right(const NDArray& src) {
  CheckImage(src, "flip_left_right", true);
  return FlipAxis(src, src.ndim() == 4 ? 2 : 1);
}

NDArray flip_top_bottom(const NDArray& src) {
  CheckImage(src, "flip_top_bottom", true);
  return FlipAxis(src, src.ndim() == 4 ? 1 : 0);
}

namespace {
// Runs a shared color kernel (ndarray/ops/image/image_kernels.h) into a new array.
template <typename K>
NDArray ColorOp(const NDArray& src, const char* fn, K kernel) {
  CheckColorImage(src, fn);
  NDArray out(src.shape(), cpu(), src.dtype());
  kernel(src, out);
  return out;
}
}  // namespace

NDArray adjust_brightness(const NDArray& src, float alpha) {
  return ColorOp(src, "adjust_brightness", [alpha](const NDArray& in, const NDArray& out) {
    ops::image::AdjustBrightness(in, out, alpha);
  });
}

NDArray adjust_contrast(const NDArray& src, float alpha) {
  return ColorOp(src, "adjust_contrast", [alpha](const NDArray& in, const NDArray& out) {
    ops::image::AdjustContrast(in, out, alpha);
  });
}

NDArray adjust_saturation(const NDArray& src, float alpha) {
  return ColorOp(src, "adjust_saturation", [alpha](const NDArray& in, const NDArray& out) {
    ops::image::AdjustSaturation(in, out, alpha);
  });
}

NDArray adjust_hue(const NDArray& src, float alpha) {
  return ColorOp(src, "adjust_hue", [alpha](const NDArray& in, const NDArray& out) {
    ops::image::AdjustHue(in, out, alpha);
  });
}

NDArray resize_window(const NDArray& src, int64_t ow, int64_t oh, int64_t ox0, int64_t oy0,
                      int64_t cw, int64_t ch, Interp interp) {
  CheckImage(src, "resize_window", false);
  CheckResizableDType(src, "resize_window");
  const int64_t H = src.shape()[0], W = src.shape()[1], C = src.shape()[2];
  MX_REQUIRE(H >= 1 && W >= 1 && ow >= 1 && oh >= 1 && cw >= 1 && ch >= 1 && ox0 >= 0 && oy0 >= 0 &&
                 ox0 + cw <= ow && oy0 + ch <= oh,
             absl::StatusCode::kInvalidArgument, "resize_window: the window x0=", ox0, " y0=", oy0,
             " w=", cw, " h=", ch, " is not inside the ", ow, "x", oh, " resize of shape ",
             src.shape().ToString());
  NDArray out(Shape{ch, cw, C}, cpu(), src.dtype());
  if (src.dtype() == DType::kUint8) {
    ResampleRegion(src.data<uint8_t>(), H, W, C, 0, 0, W, H, ow, oh, interp, out.data<uint8_t>(),
                   ox0, oy0, cw, ch);
  } else {
    ResampleRegion(src.data<float>(), H, W, C, 0, 0, W, H, ow, oh, interp, out.data<float>(), ox0,
                   oy0, cw, ch);
  }
  return out;
}

}  // namespace mxnet::gluon::data::vision
