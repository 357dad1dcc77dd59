// Kernels of _contrib_quantized_conv (conv_quant_nn.cc): the reference (direct int32 loops,
// conv_quant_ref.cc) and a oneDNN int8 convolution (conv_quant_onednn.cc).
#pragma once

#include "ndarray/ndarray.h"
#include "ndarray/ops/conv/conv_params.h"

namespace mxnet::ops {

// Calls fn(tap, offset) for each kernel tap of channels-first output position (o0, o1, o2) that
// falls inside the image (not in the padding): tap = (k0 * k[1] + k1) * k[2] + k2 and offset =
// (i0 * xs[1] + i1) * xs[2] + i2, the input position within one channel.
template <class Fn>
inline void ForEachTapInside(const ConvGeom& g, int64_t o0, int64_t o1, int64_t o2, Fn&& fn) {
  for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
    const int64_t i0 = o0 * g.s[0] + k0 * g.d[0] - g.p[0];
    if (i0 < 0 || i0 >= g.xs[0]) continue;
    for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
      const int64_t i1 = o1 * g.s[1] + k1 * g.d[1] - g.p[1];
      if (i1 < 0 || i1 >= g.xs[1]) continue;
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
        const int64_t i2 = o2 * g.s[2] + k2 * g.d[2] - g.p[2];
        if (i2 < 0 || i2 >= g.xs[2]) continue;
        fn((k0 * g.k[1] + k1) * g.k[2] + k2, (i0 * g.xs[1] + i1) * g.xs[2] + i2);
      }
    }
  }
}

// y (int32, channels-first) = sum over c, k of x * w (+ bias[f] if non-null), with x uint8 or
// int8 (N, C, spatial...), w int8 (F, C, k...), bias int8 (F,), num_group 1.
void QuantizedConvRef(const ConvGeom& g, const NDArray& x, const NDArray& w, const NDArray* bias,
                      const NDArray& y);

namespace onednn {
// The same with oneDNN's int8 convolution (primitives cached by geometry and dtype). Returns
// false when oneDNN cannot run it (the caller runs the reference). oneDNN adds the bias in
// float32, so sums beyond 2^24 round as in MXNet.
bool QuantizedConvForward(const ConvGeom& g, const NDArray& x, const NDArray& w,
                          const NDArray* bias, const NDArray& y);
}  // namespace onednn

}  // namespace mxnet::ops
