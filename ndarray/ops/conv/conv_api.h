// nd:: free functions of the conv op family (see ndarray/ops/BUILD): Convolution,
// Deconvolution, FullyConnected, Pooling, UpSampling. Their options are the ops' parameter
// structs (conv_params.h: MXNet 1.9.1's keyword arguments and defaults, declared once);
// designated initializers name them:
//
//   NDArray y = nd::Convolution(x, w, b, {.kernel = {3, 3}, .num_filter = 16, .pad = {1, 1}});
//   NDArray z = nd::FullyConnected(y, w2, {.num_hidden = 10});  // no bias
//   NDArray p = nd::Pooling(y, {.kernel = {2, 2}, .pool_type = "max", .stride = {2, 2}});
//
// Layouts: "NCW"/"NCHW"/"NCDHW" (the default for a 1/2/3-D kernel) or channels-last
// "NWC"/"NHWC"/"NDHWC"; the weight follows the data layout.
// Bias (Convolution, Deconvolution, FullyConnected): the overload without a bias argument runs
// without one (no_bias is taken as true). With a bias argument no_bias must agree with it, as in
// MXNet: a bias array needs no_bias=false (Deconvolution's default is true, so say
// .no_bias = false), NDArray() needs no_bias=true; a mismatch is kInvalidArgument.
// Dtypes: float32, float64, float16, bfloat16 (oneDNN runs float32; the others use the
// reference kernels). Every input must share one dtype and device.
// Errors: mxnet::Error(kInvalidArgument) naming the op, the attribute and the shapes (a value
// outside the declared choices, wrong rank or layout, channels not divisible by num_group,
// weight/bias shapes that do not match, a kernel larger than the padded input, ...).
#pragma once

#include <vector>

#include "ndarray/ops/conv/conv_params.h"
#include "ndarray/ops/core/basic_api.h"

namespace mxnet::nd {

using ConvolutionOptions = ops::ConvolutionParam;
using DeconvolutionOptions = ops::DeconvolutionParam;
using FullyConnectedOptions = ops::FullyConnectedParam;
using PoolingOptions = ops::PoolingParam;
using UpSamplingOptions = ops::UpSamplingParam;

// MXNet's Convolution: output (N, num_filter, out...) with
// out = (in + 2*pad - dilate*(kernel-1) - 1) / stride + 1 (rounded down).
//   data   (N, C, W) / (N, C, H, W) / (N, C, D, H, W), or channels-last (N, H, W, C), ...
//   weight (num_filter, C/num_group, kw) / (num_filter, C/num_group, kh, kw) / ...,
//          channels-last (num_filter, kh, kw, C/num_group)
//   bias   (num_filter,)
NDArray Convolution(const NDArray& data, const NDArray& weight, const NDArray& bias,
                    const ops::ConvolutionParam& p);
NDArray Convolution(const NDArray& data, const NDArray& weight, const ops::ConvolutionParam& p);

// MXNet's Deconvolution (transposed convolution), output (N, num_filter, out...) with
// out = stride*(in-1) + dilate*(kernel-1) + 1 - 2*pad + adj, or target_shape when given (pad
// and adj are then derived from it).
//   data   (N, C, spatial...) in the layout
//   weight (C, num_filter/num_group, kernel...) (channels-last: (C, kernel...,
//          num_filter/num_group))
//   bias   (num_filter,); MXNet's default is no bias (no_bias=true)
NDArray Deconvolution(const NDArray& data, const NDArray& weight, const NDArray& bias,
                      const ops::DeconvolutionParam& p);
NDArray Deconvolution(const NDArray& data, const NDArray& weight, const ops::DeconvolutionParam& p);

// MXNet's FullyConnected: Y = X W^T + b.
//   flatten=true:  data (N, d1, d2, ...) viewed as (N, d1*d2*...), output (N, num_hidden)
//   flatten=false: data (..., K), output (..., num_hidden)
//   weight (num_hidden, K), bias (num_hidden,)
NDArray FullyConnected(const NDArray& data, const NDArray& weight, const NDArray& bias,
                       const ops::FullyConnectedParam& p);
NDArray FullyConnected(const NDArray& data, const NDArray& weight,
                       const ops::FullyConnectedParam& p);

// MXNet's Pooling over data (N, C, W) / (N, C, H, W) / (N, C, D, H, W) or channels-last.
//   pool_type: "max" (padding ignored), "avg" (divides by the window clipped to the padded
//   input, or to the input with count_include_pad=false), "sum", "lp" (p_value 1, 2 or 3).
//   pooling_convention: "valid" (out = 1 + (in + 2*pad - kernel) / stride, rounded down),
//   "full" (rounded up), "same" (1-D only: out = ceil(in / stride), no pad).
//   global_pool: pools each whole plane to 1 (kernel, stride and pad ignored).
NDArray Pooling(const NDArray& data, const ops::PoolingParam& p);

// MXNet's UpSampling of 4-D (N, C, H, W) arrays by an integer scale.
//   "nearest": each input is upsampled to (scale*H0, scale*W0) of the first one (its H, W must
//   divide that); several inputs are concatenated along C (multi_input_mode "concat") or summed
//   ("sum", equal C).
//   "bilinear": inputs {data (N, C, H, W), weight (C, 1, 2*scale - scale%2, same)}, num_filter C;
//   a grouped Deconvolution with stride scale and pad ceil((scale-1)/2).
// num_args is the number of inputs given (leave it at 1 or set it to that number).
NDArray UpSampling(const NDArray& data, const ops::UpSamplingParam& p);
NDArray UpSampling(const std::vector<NDArray>& inputs, const ops::UpSamplingParam& p);

}  // namespace mxnet::nd
