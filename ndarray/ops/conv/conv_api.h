// nd:: free functions of the conv op family (see ndarray/ops/BUILD): Convolution,
// Deconvolution, FullyConnected, Pooling, UpSampling. Options mirror MXNet 1.9.1's keyword
// arguments and defaults (mx.nd.Convolution etc.); designated initializers name them:
//
//   NDArray y = nd::Convolution(x, w, b, {.kernel = {3, 3}, .num_filter = 16, .pad = {1, 1}});
//   NDArray z = nd::FullyConnected(y, w2, b2, {.num_hidden = 10});
//   NDArray p = nd::Pooling(y, {.kernel = {2, 2}, .pool_type = "max", .stride = {2, 2}});
//
// Layouts: "NCW"/"NCHW"/"NCDHW" (the default for a 1/2/3-D kernel) or channels-last
// "NWC"/"NHWC"/"NDHWC"; the weight follows the data layout. Bias: pass NDArray() to leave it
// out; `no_bias` then defaults to true (setting it against the arrays given is an error).
// Dtypes: float32, float64, float16, bfloat16 (oneDNN runs float32; the others use the
// reference kernels). Every input must share one dtype and device.
// Errors: mxnet::Error(kInvalidArgument) naming the op, the attribute and the shapes (wrong rank
// or layout, channels not divisible by num_group, weight/bias shapes that do not match, a kernel
// larger than the padded input, ...).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ndarray/ops/core/basic_api.h"

namespace mxnet::nd {

// MXNet's Convolution: output (N, num_filter, out...) with
// out = (in + 2*pad - dilate*(kernel-1) - 1) / stride + 1 (rounded down).
//   data   (N, C, W) / (N, C, H, W) / (N, C, D, H, W), or channels-last (N, H, W, C), ...
//   weight (num_filter, C/num_group, kw) / (num_filter, C/num_group, kh, kw) / ...,
//          channels-last (num_filter, kh, kw, C/num_group)
//   bias   (num_filter,) or NDArray()
struct ConvolutionOptions {
  Shape kernel;                 // required: (w,), (h, w) or (d, h, w)
  int num_filter = 0;           // required
  Shape stride;                 // () = 1 per dim
  Shape dilate;                 // () = 1 per dim
  Shape pad;                    // () = 0 per dim (symmetric zero padding)
  int num_group = 1;            // channel groups (num_group == C: depthwise)
  std::optional<bool> no_bias;  // unset: true iff bias is NDArray()
  std::optional<std::string> layout;
  int64_t workspace = 1024;               // accepted for compatibility
  std::optional<std::string> cudnn_tune;  // GPU only
  bool cudnn_off = false;                 // GPU only
};
NDArray Convolution(const NDArray& data, const NDArray& weight, const NDArray& bias,
                    const ConvolutionOptions& opts);

// MXNet's Deconvolution (transposed convolution), output (N, num_filter, out...) with
// out = stride*(in-1) + dilate*(kernel-1) + 1 - 2*pad + adj, or target_shape when given (pad
// and adj are then derived from it).
//   data   (N, C, spatial...) in the layout
//   weight (C, num_filter/num_group, kernel...) (channels-last: (C, kernel...,
//   num_filter/num_group)) bias   (num_filter,) or NDArray(); MXNet's default is no bias
struct DeconvolutionOptions {
  Shape kernel;        // required
  int num_filter = 0;  // required
  Shape stride;        // () = 1 per dim
  Shape dilate;        // () = 1 per dim
  Shape pad;           // () = 0 per dim
  Shape adj;           // () = 0 per dim; must be < stride
  Shape target_shape;  // () = not set
  int num_group = 1;
  std::optional<bool> no_bias;  // unset: true iff bias is NDArray()
  std::optional<std::string> layout;
  int64_t workspace = 512;
  std::optional<std::string> cudnn_tune;
  bool cudnn_off = false;
};
NDArray Deconvolution(const NDArray& data, const NDArray& weight, const NDArray& bias,
                      const DeconvolutionOptions& opts);

// MXNet's FullyConnected: Y = X W^T + b.
//   flatten=true:  data (N, d1, d2, ...) viewed as (N, d1*d2*...), output (N, num_hidden)
//   flatten=false: data (..., K), output (..., num_hidden)
//   weight (num_hidden, K), bias (num_hidden,) or NDArray()
struct FullyConnectedOptions {
  int num_hidden = 0;           // required
  std::optional<bool> no_bias;  // unset: true iff bias is NDArray()
  bool flatten = true;
};
NDArray FullyConnected(const NDArray& data, const NDArray& weight, const NDArray& bias,
                       const FullyConnectedOptions& opts);

// MXNet's Pooling over data (N, C, W) / (N, C, H, W) / (N, C, D, H, W) or channels-last.
//   pool_type: "max" (padding ignored), "avg" (divides by the window clipped to the padded
//   input, or to the input with count_include_pad=false), "sum", "lp" (p_value 1, 2 or 3).
//   pooling_convention: "valid" (out = 1 + (in + 2*pad - kernel) / stride, rounded down),
//   "full" (rounded up), "same" (1-D only: out = ceil(in / stride), no pad).
//   global_pool: pools each whole plane to 1 (kernel, stride and pad ignored).
struct PoolingOptions {
  Shape kernel;  // required unless global_pool
  std::string pool_type = "max";
  Shape stride;  // () = 1 per dim
  Shape pad;     // () = 0 per dim
  bool global_pool = false;
  std::string pooling_convention = "valid";
  std::optional<bool> count_include_pad;  // avg only; unset = true
  std::optional<int> p_value;             // lp only
  std::optional<std::string> layout;
  bool cudnn_off = false;
};
NDArray Pooling(const NDArray& data, const PoolingOptions& opts);

// MXNet's UpSampling of 4-D (N, C, H, W) arrays by an integer scale.
//   "nearest": each input is upsampled to (scale*H0, scale*W0) of the first one (its H, W must
//   divide that); several inputs are concatenated along C (multi_input_mode "concat") or summed
//   ("sum", equal C).
//   "bilinear": inputs {data (N, C, H, W), weight (C, 1, 2*scale - scale%2, same)}, num_filter C;
//   a grouped Deconvolution with stride scale and pad ceil((scale-1)/2).
struct UpSamplingOptions {
  int scale = 1;  // required
  std::string sample_type = "nearest";
  int num_filter = 0;  // bilinear: the number of channels
  std::string multi_input_mode = "concat";
  int64_t workspace = 512;
};
NDArray UpSampling(const NDArray& data, const UpSamplingOptions& opts);
NDArray UpSampling(const std::vector<NDArray>& inputs, const UpSamplingOptions& opts);

}  // namespace mxnet::nd
