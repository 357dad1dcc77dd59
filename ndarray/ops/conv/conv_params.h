// Attribute structs and geometry of the conv op family (Convolution, Deconvolution,
// FullyConnected, Pooling, UpSampling and their gradient helper ops). Field names, order, types
// and defaults are MXNet 1.9.1's (src/operator/nn/*-inl.h), so JSON graphs round-trip.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/shape.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// ---- Attributes. ----
// These structs are also the options of the nd:: functions (conv_api.h): members list the
// required fields first, in the order designated initializers name them; the schema's field
// order (MXNet's, used by the C ABI metadata and the bindings) is Declare's.

// Convolution (also the attributes of _backward_Convolution_data/_weight).
struct ConvolutionParam {
  Shape kernel;        // required: (w,), (h, w) or (d, h, w)
  int num_filter = 0;  // required
  Shape stride;        // () = 1 per dim
  Shape dilate;        // () = 1 per dim
  Shape pad;           // () = 0 per dim
  int num_group = 1;
  bool no_bias = false;
  std::optional<std::string> layout;  // None = NCW/NCHW/NCDHW from the kernel's rank
  int64_t workspace = 1024;
  std::optional<std::string> cudnn_tune;  // accepted, ignored on CPU
  bool cudnn_off = false;                 // accepted, ignored on CPU
  template <class D>
  static void Declare(D& d) {
    d.field("kernel", &ConvolutionParam::kernel)
        .required()
        .describe("Convolution kernel size: (w,), (h, w) or (d, h, w)");
    d.field("stride", &ConvolutionParam::stride)
        .describe(
            "Convolution stride: (w,), (h, w) or (d, h, w). Defaults to 1 for each dimension.");
    d.field("dilate", &ConvolutionParam::dilate)
        .describe(
            "Convolution dilate: (w,), (h, w) or (d, h, w). Defaults to 1 for each dimension.");
    d.field("pad", &ConvolutionParam::pad)
        .describe("Zero pad for convolution: (w,), (h, w) or (d, h, w). Defaults to no padding.");
    d.field("num_filter", &ConvolutionParam::num_filter)
        .required()
        .describe("Convolution filter(channel) number");
    d.field("num_group", &ConvolutionParam::num_group).describe("Number of group partitions.");
    d.field("workspace", &ConvolutionParam::workspace)
        .describe("Maximum temporary workspace allowed (MB); accepted for compatibility.");
    d.field("no_bias", &ConvolutionParam::no_bias).describe("Whether to disable bias parameter.");
    d.field("cudnn_tune", &ConvolutionParam::cudnn_tune)
        .choices({"None", "fastest", "limited_workspace", "off"})
        .describe("Whether to pick convolution algo by running performance test (GPU only).");
    d.field("cudnn_off", &ConvolutionParam::cudnn_off).describe("Turn off cudnn for this layer.");
    d.field("layout", &ConvolutionParam::layout)
        .choices({"None", "NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC"})
        .describe(
            "Layout of data, weight and output; None: NCW for 1d, NCHW for 2d, NCDHW for 3d.");
  }
  std::string Validate() const;
};

// Deconvolution (also the attributes of _backward_Deconvolution_data/_weight).
struct DeconvolutionParam {
  Shape kernel;        // required
  int num_filter = 0;  // required
  Shape stride;        // () = 1 per dim
  Shape dilate;        // () = 1 per dim
  Shape pad;           // () = 0 per dim; ignored when target_shape is set
  Shape adj;           // () = 0 per dim; must be < stride; ignored when target_shape is set
  Shape target_shape;  // () = not set
  int num_group = 1;
  bool no_bias = true;  // MXNet's default: no bias
  std::optional<std::string> layout;
  int64_t workspace = 512;
  std::optional<std::string> cudnn_tune;
  bool cudnn_off = false;
  template <class D>
  static void Declare(D& d) {
    d.field("kernel", &DeconvolutionParam::kernel)
        .required()
        .describe("Deconvolution kernel size: (w,), (h, w) or (d, h, w).");
    d.field("stride", &DeconvolutionParam::stride)
        .describe(
            "The stride used for the corresponding convolution. Defaults to 1 for each dimension.");
    d.field("dilate", &DeconvolutionParam::dilate)
        .describe(
            "Dilation factor for each dimension of the input. Defaults to 1 for each dimension.");
    d.field("pad", &DeconvolutionParam::pad)
        .describe(
            "The amount of implicit zero padding added during convolution for each dimension "
            "of the input; ignored when target_shape is set. Defaults to no padding.");
    d.field("adj", &DeconvolutionParam::adj)
        .describe("Adjustment for output shape; ignored when target_shape is set.");
    d.field("target_shape", &DeconvolutionParam::target_shape)
        .describe("Shape of the output tensor: (w,), (h, w) or (d, h, w).");
    d.field("num_filter", &DeconvolutionParam::num_filter)
        .required()
        .describe("Number of output filters.");
    d.field("num_group", &DeconvolutionParam::num_group).describe("Number of groups partition.");
    d.field("workspace", &DeconvolutionParam::workspace)
        .describe("Maximum temporary workspace allowed (MB); accepted for compatibility.");
    d.field("no_bias", &DeconvolutionParam::no_bias).describe("Whether to disable bias parameter.");
    d.field("cudnn_tune", &DeconvolutionParam::cudnn_tune)
        .choices({"None", "fastest", "limited_workspace", "off"})
        .describe("Whether to pick convolution algorithm by running performance test (GPU only).");
    d.field("cudnn_off", &DeconvolutionParam::cudnn_off).describe("Turn off cudnn for this layer.");
    d.field("layout", &DeconvolutionParam::layout)
        .choices({"None", "NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC"})
        .describe(
            "Layout of data, weight and output; None: NCW for 1d, NCHW for 2d, NCDHW for 3d.");
  }
  std::string Validate() const;
};

// FullyConnected (also _backward_FullyConnected_data/_weight).
struct FullyConnectedParam {
  int num_hidden = 0;  // required
  bool no_bias = false;
  bool flatten = true;
  template <class D>
  static void Declare(D& d) {
    d.field("num_hidden", &FullyConnectedParam::num_hidden)
        .required()
        .describe("Number of hidden nodes of the output.");
    d.field("no_bias", &FullyConnectedParam::no_bias)
        .describe("Whether to disable bias parameter.");
    d.field("flatten", &FullyConnectedParam::flatten)
        .describe("Whether to collapse all but the first axis of the input data tensor.");
  }
  std::string Validate() const;
};

// Pooling (also _backward_Pooling and _Pooling_max_gather).
struct PoolingParam {
  Shape kernel;  // () only with global_pool
  std::string pool_type = "max";
  Shape stride;  // () = 1 per dim
  Shape pad;     // () = 0 per dim
  bool global_pool = false;
  std::string pooling_convention = "valid";
  std::optional<bool> count_include_pad;  // avg only; None = True
  std::optional<int> p_value;             // lp only: 1, 2 or 3
  std::optional<std::string> layout;
  bool cudnn_off = false;
  template <class D>
  static void Declare(D& d) {
    d.field("kernel", &PoolingParam::kernel).describe("Pooling kernel size: (y, x) or (d, y, x)");
    d.field("pool_type", &PoolingParam::pool_type)
        .choices({"avg", "lp", "max", "sum"})
        .describe("Pooling type to be applied.");
    d.field("global_pool", &PoolingParam::global_pool)
        .describe("Ignore kernel size, do global pooling based on current input feature map.");
    d.field("cudnn_off", &PoolingParam::cudnn_off)
        .describe("Turn off cudnn pooling and use MXNet pooling operator.");
    d.field("pooling_convention", &PoolingParam::pooling_convention)
        .choices({"full", "same", "valid"})
        .describe("Pooling convention to be applied.");
    d.field("stride", &PoolingParam::stride)
        .describe("Stride: for pooling (y, x) or (d, y, x). Defaults to 1 for each dimension.");
    d.field("pad", &PoolingParam::pad)
        .describe("Pad for pooling: (y, x) or (d, y, x). Defaults to no padding.");
    d.field("p_value", &PoolingParam::p_value)
        .describe("Value of p for Lp pooling, can be 1, 2 or 3, required for Lp Pooling.");
    d.field("count_include_pad", &PoolingParam::count_include_pad)
        .describe(
            "Only used for AvgPool: whether padding elements count in the average "
            "(None: True).");
    d.field("layout", &PoolingParam::layout)
        .choices({"None", "NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC"})
        .describe("Layout of input and output; None: NCW for 1d, NCHW for 2d, NCDHW for 3d.");
  }
  std::string Validate() const;
};

// UpSampling (also _backward_UpSampling).
struct UpSamplingParam {
  int scale = 1;                        // required
  std::string sample_type = "nearest";  // required
  int num_filter = 0;
  std::string multi_input_mode = "concat";
  int num_args = 1;  // required (MXNet's Python front end fills it in, so does nd::UpSampling)
  int64_t workspace = 512;
  template <class D>
  static void Declare(D& d) {
    d.field("scale", &UpSamplingParam::scale).required().describe("Up sampling scale");
    d.field("num_filter", &UpSamplingParam::num_filter)
        .describe("Input filter. Only used by bilinear sample_type (the number of channels).");
    d.field("sample_type", &UpSamplingParam::sample_type)
        .required()
        .choices({"bilinear", "nearest"})
        .describe("upsampling method");
    d.field("multi_input_mode", &UpSamplingParam::multi_input_mode)
        .choices({"concat", "sum"})
        .describe("How to handle multiple input: concat along channels or sum (nearest only).");
    d.field("num_args", &UpSamplingParam::num_args)
        .required()
        .describe("Number of inputs to be upsampled (nearest); 2 for bilinear (data, weight).");
    d.field("workspace", &UpSamplingParam::workspace)
        .describe("Tmp workspace for deconvolution (MB); accepted for compatibility.");
  }
  std::string Validate() const;
};

// _channel_sum / _channel_broadcast_like: the channel axis (1 for NC*, ndim-1 for N*C).
struct ChannelAxisParam {
  int axis = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &ChannelAxisParam::axis)
        .describe("The channel axis (negative counts from the end).");
  }
};

// ---- Geometry. ----

// Whether `layout` (or the default for `nd` spatial dims) is channels-last. Throws
// kInvalidArgument naming `op` if the layout does not have nd spatial dims.
bool IsChannelsLast(std::string_view op, const std::optional<std::string>& layout, int nd);
// The layout string used in messages: "NCHW", "NHWC", ...
std::string LayoutName(bool channels_last, int nd);
// Spatial rank implied by the layout (NCW: 1, NCHW: 2, ...); 0 for None.
int LayoutSpatialRank(const std::optional<std::string>& layout);

// Converts a shape in the op's layout to (N, C, spatial...) and back. Unknown dims stay -1.
Shape ToChannelsFirst(const Shape& s, bool channels_last);
Shape FromChannelsFirst(const Shape& s, bool channels_last);

// A convolution between an "x" tensor (N, CX, xs...) and a "y" tensor (N, CY, ys...) with a
// weight (CY, CX/G, k...): y = conv(x, w). Convolution's data is x and its output y;
// Deconvolution's data is y and its output x (a deconvolution is the transposed convolution).
// Spatial arrays hold the nd real dims first, then 1s (k 1, s 1, d 1, p 0).
struct ConvGeom {
  int nd = 0;
  bool channels_last = false;
  int64_t N = 0, CX = 0, CY = 0, G = 1;
  std::array<int64_t, 3> xs{1, 1, 1}, ys{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, d{1, 1, 1}, p{0, 0, 0};
  // Shapes in the op's layout.
  Shape XShape() const;
  Shape YShape() const;
  Shape WShape() const;  // (CY, CX/G, k...) or channels-last (CY, k..., CX/G)
  int64_t DilatedKernel(int i) const { return (k[i] - 1) * d[i] + 1; }
  std::string Key() const;  // for primitive caches
  // Appends the geometry to a primitive cache key (backends::CacheKey).
  template <typename CacheKey>
  void AppendTo(CacheKey& key) const {
    key(nd, channels_last, N, CX, CY, G);
    for (int i = 0; i < nd; ++i) key(xs[i], ys[i], k[i], s[i], d[i], p[i]);
  }
};

// Output size of Convolution along spatial dim i for input size `in` (known). Throws naming op,
// kernel, pad and `data` when the dilated kernel exceeds the padded input.
int64_t ConvOutDim(std::string_view op, const ConvolutionParam& p, int i, int64_t in,
                   const Shape& data);
// Deconvolution's padding, adjustment and output size along spatial dim i for input size `in`
// (MXNet's InferPad: with target_shape, pad and adj are derived from it).
struct DeconvDim {
  int64_t pad = 0, adj = 0, out = 0;
};
DeconvDim DeconvOutDim(std::string_view op, const DeconvolutionParam& p, int i, int64_t in,
                       const Shape& data);

// Geometry of Convolution(params) on data of shape `data` (must be known).
ConvGeom ConvGeomFromConv(std::string_view op, const ConvolutionParam& p, const Shape& data);
// Geometry of Deconvolution(params) on data of shape `data` (must be known): data is the y
// tensor, the output the x tensor. Padding from target_shape as MXNet's InferPad.
ConvGeom ConvGeomFromDeconv(std::string_view op, const DeconvolutionParam& p, const Shape& data);

// Pooling geometry on an (N, C, in...) tensor, spatial arrays padded like ConvGeom.
struct PoolGeom {
  int nd = 0;
  bool channels_last = false;
  int64_t N = 0, C = 0;
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, p{0, 0, 0};
  Shape InShape() const;
  Shape OutShape() const;
  std::string Key() const;
  // Appends the geometry to a primitive cache key (backends::CacheKey).
  template <typename CacheKey>
  void AppendTo(CacheKey& key) const {
    key(nd, channels_last, N, C);
    for (int i = 0; i < nd; ++i) key(in[i], out[i], k[i], s[i], p[i]);
  }
};

// Kinds of pooling (from pool_type).
enum class PoolKind { kMax, kAvg, kSum, kLp };
PoolKind GetPoolKind(const PoolingParam& p);
// Output shape of Pooling on `data` (unknown dims give -1). Throws kInvalidArgument naming op,
// attribute and shape (rank, layout, kernel larger than the padded input, ...).
Shape PoolingOutputShape(std::string_view op, const PoolingParam& p, const Shape& data);
// Geometry of Pooling on known `data` (global_pool resolved).
PoolGeom PoolGeomFrom(std::string_view op, const PoolingParam& p, const Shape& data);

// Deconvolution attributes MXNet uses for bilinear UpSampling (kernel 2s - s%2, stride s,
// pad ceil((s-1)/2), num_group = num_filter, no bias).
DeconvolutionParam BilinearDeconvParam(const UpSamplingParam& p);

}  // namespace mxnet::ops
