// The exact int8 path (conv_quant_exact.h): which oneDNN kernels are exact, the weight split,
// the recombination and the split convolution.
#include "ndarray/ops/quantization/quant_exact.h"

#include <dnnl.hpp>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "ndarray/ops/quantization/quant_kernels.h"

namespace mxnet::ops::quant_exact {

bool OneDnnHasVnni() {
  static const bool has = [] {
    const unsigned isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    // oneDNN's ISA values are feature bit sets: a superset contains the VNNI level's bits.
    for (dnnl::cpu_isa vnni : {dnnl::cpu_isa::avx512_core_vnni, dnnl::cpu_isa::avx2_vnni}) {
      const unsigned bits = static_cast<unsigned>(vnni);
      if ((isa & bits) == bits) return true;
    }
    return false;
  }();
  return has;
}

bool Int8KernelIsExact(std::string_view impl) {
  auto has = [&](std::string_view part) { return impl.find(part) != std::string_view::npos; };
  if (impl.starts_with("ref")) return true;
  if (has("vnni") || has("amx")) return true;
  if (has("sse41") || has("avx")) return false;  // also avx2, avx512_core, avx512_mic
  return OneDnnHasVnni();
}

bool WeightsPairSafe(const int8_t* w, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (std::abs(static_cast<int>(w[i])) > kPairSafeMaxAbsWeight) return false;
  return true;
}

void SplitWeights(const int8_t* w, int64_t F, int64_t rest, int8_t* out) {
  const int64_t n = F * rest;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<int8_t>(w[i] >> 4);      // floor(w / 16), in [-8, 7]
    out[n + i] = static_cast<int8_t>(w[i] & 15);  // w - 16 floor(w / 16), in [0, 15]
  }
}

void TapSums(const ConvGeom& g, const int8_t* w, int32_t* tap_sums) {
  const int64_t C = g.CX, KS = g.k[0] * g.k[1] * g.k[2];
  const int64_t S = g.ys[0] * g.ys[1] * g.ys[2];
#pragma omp parallel for schedule(static)
  for (int64_t f = 0; f < g.CY; ++f) {
    std::vector<int32_t> ksum(KS, 0);  // over the channels, per tap
    for (int64_t c = 0; c < C; ++c)
      for (int64_t k = 0; k < KS; ++k) ksum[k] += w[(f * C + c) * KS + k];
    int32_t* m = tap_sums + f * S;
    for (int64_t o0 = 0; o0 < g.ys[0]; ++o0)
      for (int64_t o1 = 0; o1 < g.ys[1]; ++o1)
        for (int64_t o2 = 0; o2 < g.ys[2]; ++o2) {
          int32_t sum = 0;
          ForEachTapInside(g, o0, o1, o2, [&](int64_t k, int64_t) { sum += ksum[k]; });
          m[(o0 * g.ys[1] + o1) * g.ys[2] + o2] = sum;
        }
  }
}

void Recombine(const int32_t* t, int64_t N, int64_t F, int64_t S, const int32_t* tap_sums,
               const int8_t* bias, int32_t* y) {
  constexpr float kMax = 2147483520.0f;  // the largest float32 below 2^31
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t n = 0; n < N; ++n)
    for (int64_t f = 0; f < F; ++f) {
      const int32_t* hi = t + (n * 2 * F + f) * S;
      const int32_t* lo = hi + F * S;
      const int32_t* m = tap_sums ? tap_sums + f * S : nullptr;
      int32_t* o = y + (n * F + f) * S;
      // In uint32: wraps around modulo 2^32 like a single convolution's int32 accumulator.
      for (int64_t s = 0; s < S; ++s) {
        uint32_t v = static_cast<uint32_t>(hi[s]) * 16u + static_cast<uint32_t>(lo[s]);
        if (m) v -= static_cast<uint32_t>(m[s]) * 128u;
        o[s] = static_cast<int32_t>(v);
      }
      if (!bias) continue;
      const float b = bias[f];
      for (int64_t s = 0; s < S; ++s) {
        const float v = static_cast<float>(o[s]) + b;
        o[s] = static_cast<int32_t>(std::lrint(std::fmax(-2147483648.0f, std::fmin(v, kMax))));
      }
    }
}

}  // namespace mxnet::ops::quant_exact

namespace mxnet::ops::onednn {

bool QuantizedConvForwardSplit(const ConvGeom& g, const NDArray& x, const NDArray& w,
                               const NDArray* bias, const NDArray& y) {
  if (g.channels_last || g.G != 1 || g.N == 0 || (g.nd != 2 && g.nd != 3)) return false;
  ConvGeom g2 = g;
  g2.CY = 2 * g.CY;  // the filters [w >> 4; w & 15]
  const int64_t S = y.size() / (g.N * g.CY);
  // int8 data as uint8 x + 128 (flipping the sign bit); the shift comes off in Recombine.
  const bool s8 = x.dtype() == DType::kInt8;
  NDArray u = x;
  std::vector<int32_t> tap_sums;
  if (s8) {
    u = NDArray(x.shape(), cpu(), DType::kUint8);
    const auto* xp = static_cast<const uint8_t*>(x.data_ptr());
    uint8_t* up = u.data<uint8_t>();
    for (int64_t i = 0; i < x.size(); ++i) up[i] = xp[i] ^ 0x80;
    tap_sums.resize(g.CY * S);
    quant_exact::TapSums(g, w.data<int8_t>(), tap_sums.data());
  }
  Shape ws = w.shape();
  ws[0] = g2.CY;
  NDArray w2(ws, cpu(), DType::kInt8);
  quant_exact::SplitWeights(w.data<int8_t>(), g.CY, w.size() / g.CY, w2.data<int8_t>());
  Shape ts = y.shape();
  ts[1] = g2.CY;
  NDArray t(ts, cpu(), DType::kInt32);
  // u8 data and |w2| <= 15: QuantizedConvForward runs oneDNN's kernel directly.
  if (!QuantizedConvForward(g2, u, w2, nullptr, t)) return false;
  quant_exact::Recombine(t.data<int32_t>(), g.N, g.CY, S, s8 ? tap_sums.data() : nullptr,
                         bias ? bias->data<int8_t>() : nullptr, y.data<int32_t>());
  return true;
}

}  // namespace mxnet::ops::onednn
