// Kernels of _contrib_quantized_conv (conv_quant_nn.cc): the reference (direct int32 loops,
// conv_quant_ref.cc) and a oneDNN int8 convolution (conv_quant_onednn.cc).
#pragma once

#include "ndarray/ndarray.h"
#include "ndarray/ops/conv_params.h"

namespace mxnet::ops {

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
