// nd:: free functions of MXNet 1.9.1's int8/uint8 quantization ops (conv_quant*.cc), in
// mx.nd.contrib. Options structs are the ops' typed attributes (conv_quant_params.h) with
// MXNet's defaults:
//   NDArrayVec q = nd::contrib::quantize_v2(x);                 // {int8 data, min, max}
//   NDArray y = nd::contrib::dequantize(q[0], q[1], q[2]);       // float32
// Ranges (min/max inputs and outputs) are (1,) float32 arrays. Values are rounded like MXNet's
// oneDNN kernels (half to even, saturated). Wrong dtypes or shapes throw
// mxnet::Error(kInvalidArgument) naming the op and input. Inference only (no gradients).
#pragma once

#include <vector>

#include "ndarray/ops/conv/conv_params.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/quantization/quant_params.h"

namespace mxnet::nd::contrib {

using QuantizeOptions = ops::QuantizeParam;
using QuantizeV2Options = ops::QuantizeV2Param;
using RequantizeOptions = ops::QuantizeV2Param;
using QuantizeAsymOptions = ops::QuantizeAsymParam;

// mx.nd.contrib.quantize: data float32, min_range/max_range (1,) -> {q, min, max}; uint8
// (default): q = rne(x * 255 / r) in [0, 255], range unchanged; int8: rne(x * 127 / r),
// range (-r, r); r = max(|min_range|, |max_range|).
NDArrayVec quantize(const NDArray& data, const NDArray& min_range, const NDArray& max_range,
                    const QuantizeOptions& opts = {});
// mx.nd.contrib.quantize_v2: data float32 (int8/uint8 pass through) -> {q, min, max} with the
// calibrated or the data's range; int8 scale 127.5 / r, uint8 255.5 / r.
NDArrayVec quantize_v2(const NDArray& data, const QuantizeV2Options& opts = {});
// mx.nd.contrib.dequantize: int8/uint8 data -> float32 q * r / 127.5 (uint8: / 255.5).
NDArray dequantize(const NDArray& data, const NDArray& min_range, const NDArray& max_range);
// mx.nd.contrib.requantize: int32 data with range (min_range, max_range) -> {int8/uint8 q, min,
// max} in the calibrated range or the data's actual range.
NDArrayVec requantize(const NDArray& data, const NDArray& min_range, const NDArray& max_range,
                      const RequantizeOptions& opts = {});
// mx.nd.contrib.quantize_asym: float32 data -> {uint8 q = rne(x * scale + shift), scale, shift}.
NDArrayVec quantize_asym(const NDArray& data, const QuantizeAsymOptions& opts = {});

// ---- Quantized compute ops (conv_quant_nn.cc, conv_quant_extra.cc). Each returns {output,
// min_output, max_output} unless noted. ----
using QuantizedConvOptions = ops::ConvolutionParam;               // kernel, num_filter required
using QuantizedFullyConnectedOptions = ops::FullyConnectedParam;  // num_hidden required
using QuantizedPoolingOptions = ops::PoolingParam;
using QuantizedConcatOptions = ops::QuantizedConcatParam;
using QuantizedElemwiseAddOptions = ops::QuantizedElemwiseAddParam;
using QuantizedElemwiseMulOptions = ops::QuantizedElemwiseMulParam;
using QuantizedBatchNormOptions = ops::QuantizedBatchNormParam;
using QuantizedEmbeddingOptions = ops::QuantizedEmbeddingParam;
using CalibrateEntropyOptions = ops::CalibrateEntropyParam;

// mx.nd.contrib.quantized_conv: uint8/int8 data (N, C, H, W) or (N, C, D, H, W), int8 weight,
// optional int8 bias (NDArray() with opts.no_bias), ranges (1,) float32 -> int32 output.
NDArrayVec quantized_conv(const NDArray& data, const NDArray& weight, const NDArray& bias,
                          const NDArray& min_data, const NDArray& max_data,
                          const NDArray& min_weight, const NDArray& max_weight,
                          const NDArray& min_bias, const NDArray& max_bias,
                          const QuantizedConvOptions& opts);
// mx.nd.contrib.quantized_fully_connected: int8/uint8 data, int8 weight/bias -> int32 output.
NDArrayVec quantized_fully_connected(const NDArray& data, const NDArray& weight,
                                     const NDArray& bias, const NDArray& min_data,
                                     const NDArray& max_data, const NDArray& min_weight,
                                     const NDArray& max_weight, const NDArray& min_bias,
                                     const NDArray& max_bias,
                                     const QuantizedFullyConnectedOptions& opts);
// mx.nd.contrib.quantized_pooling (max/avg), quantized_act (relu), quantized_flatten.
NDArrayVec quantized_pooling(const NDArray& data, const NDArray& min_data, const NDArray& max_data,
                             const QuantizedPoolingOptions& opts);
NDArrayVec quantized_act(const NDArray& data, const NDArray& min_data, const NDArray& max_data);
NDArrayVec quantized_flatten(const NDArray& data, const NDArray& min_data, const NDArray& max_data);
// mx.nd.contrib.quantized_concat: data[i] with range (mins[i], maxs[i]); num_args is set here.
NDArrayVec quantized_concat(const std::vector<NDArray>& data, const std::vector<NDArray>& mins,
                            const std::vector<NDArray>& maxs, QuantizedConcatOptions opts = {});
// mx.nd.contrib.quantized_elemwise_add / _mul (mul with enable_float_output: {float32 output}).
NDArrayVec quantized_elemwise_add(const NDArray& lhs, const NDArray& rhs, const NDArray& lhs_min,
                                  const NDArray& lhs_max, const NDArray& rhs_min,
                                  const NDArray& rhs_max,
                                  const QuantizedElemwiseAddOptions& opts = {});
NDArrayVec quantized_elemwise_mul(const NDArray& lhs, const NDArray& rhs, const NDArray& lhs_min,
                                  const NDArray& lhs_max, const NDArray& rhs_min,
                                  const NDArray& rhs_max,
                                  const QuantizedElemwiseMulOptions& opts = {});
// mx.nd.contrib.quantized_batch_norm (opts.min/max_calib_range required at run time).
NDArrayVec quantized_batch_norm(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                                const NDArray& moving_mean, const NDArray& moving_var,
                                const NDArray& min_data, const NDArray& max_data,
                                const QuantizedBatchNormOptions& opts);
// mx.nd.contrib.quantized_embedding: indices, int8 weight (input_dim, output_dim), its range.
NDArrayVec quantized_embedding(const NDArray& data, const NDArray& weight,
                               const NDArray& min_weight, const NDArray& max_weight,
                               const QuantizedEmbeddingOptions& opts);
// mx.nd.contrib.calibrate_entropy: {threshold (1,), divergence (1,)}.
NDArrayVec calibrate_entropy(const NDArray& hist, const NDArray& hist_edges,
                             const CalibrateEntropyOptions& opts = {});

}  // namespace mxnet::nd::contrib
