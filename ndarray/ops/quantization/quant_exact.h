// Exact int8 convolution on CPUs without VNNI (conv_quant_exact.cc, used by
// conv_quant_onednn.cc). oneDNN's u8·s8 kernels without VNNI (SSE4.1, AVX2, AVX-512 without
// VNNI) multiply with vpmaddubsw, which adds each pair of adjacent products in int16 and
// saturates at +-32767: with x up to 255 a pair saturates once |w| > 64. For s8 data they halve
// the weights instead (oneDNN's weight "scale adjust" 0.5), which rounds odd weights. Either way
// results are silently wrong. The exact path: s8 data is shifted to u8 (u = x + 128) and the
// shift taken off afterwards (128 times the sum of the weights over the taps inside the image);
// each weight is split w = 16 hi + lo (hi = w >> 4 in [-8, 7], lo = w & 15 in [0, 15]); the u8
// data is convolved once with the 2F filters [hi; lo] (pairs stay below 2 * 255 * 15) and
// y = 16 y_hi + y_lo - shift in int32; the bias is added afterwards as oneDNN adds it (float32,
// rounded to nearest even), so results equal the VNNI kernels' bit for bit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ndarray/ndarray.h"
#include "ndarray/ops/conv/conv_params.h"

namespace mxnet::ops::quant_exact {

// Whether oneDNN's int8 kernel named `impl` (primitive_desc::impl_info_str(), e.g.
// "brgconv:avx512_core_vnni", "jit_uni_int8:avx2", "gemm:jit", "ref:any") sums u8·s8 products
// exactly: VNNI/AMX and reference kernels do; kernels named for SSE4.1/AVX/AVX2/AVX-512 without
// VNNI do not; others (gemm) dispatch on the CPU, exact when oneDNN's effective ISA
// (dnnl::get_effective_cpu_isa(), honouring ONEDNN_MAX_CPU_ISA) has VNNI.
bool Int8KernelIsExact(std::string_view impl);
// Whether oneDNN's effective ISA has VNNI (AVX-512 VNNI or AVX2 VNNI); read once per process.
bool OneDnnHasVnni();

// The largest |w| for which no int16 pair sum can saturate (2 * 255 * 64 <= 32767): with u8
// data such weights (oneDNN's recommended 7-bit scaling) run exactly on any kernel.
constexpr int kPairSafeMaxAbsWeight = 64;
bool WeightsPairSafe(const int8_t* w, int64_t n);

// w (F, rest...) int8 -> out (2F, rest...): out[f] = w[f] >> 4, out[F + f] = w[f] & 15.
void SplitWeights(const int8_t* w, int64_t F, int64_t rest, int8_t* out);

// tap_sums (F, S) int32 for channels-first g (S output positions): the sum of w (F, C, k...)
// over the channels and the kernel taps that fall inside the image (not in the padding) at each
// output position, i.e. the convolution of an all-ones image.
void TapSums(const ConvGeom& g, const int8_t* w, int32_t* tap_sums);

// y (N, F, S) int32 = 16 t[:, :F] + t[:, F:] - 128 tap_sums for t (N, 2F, S) int32 (tap_sums
// null: no shift), plus bias (F,) int8 when non-null, added like oneDNN: float32 sum rounded to
// nearest even, saturated to int32.
void Recombine(const int32_t* t, int64_t N, int64_t F, int64_t S, const int32_t* tap_sums,
               const int8_t* bias, int32_t* y);

}  // namespace mxnet::ops::quant_exact

namespace mxnet::ops::onednn {
// _contrib_quantized_conv's oneDNN kernel by the weight split above, whatever the CPU
// (QuantizedConvForward calls it when its kernel is not exact; tests and the benchmark call it
// directly): one QuantizedConvForward call on the 2F split filters, whose values (-8..15) no
// kernel saturates. Same contract as QuantizedConvForward (conv_quant_kernels.h): false when
// oneDNN cannot run the geometry.
bool QuantizedConvForwardSplit(const ConvGeom& g, const NDArray& x, const NDArray& w,
                               const NDArray* bias, const NDArray& y);
// The name of the oneDNN kernel QuantizedConvForward picks for channels-first g with uint8 or
// int8 data (e.g. "brgconv:avx512_core_vnni", "jit_uni_int8:avx2"); "" when oneDNN cannot run
// it. Tests use it to check which path ran under an ISA cap.
std::string QuantizedConvKernelName(const ConvGeom& g, DType data, bool has_bias);
}  // namespace mxnet::ops::onednn
