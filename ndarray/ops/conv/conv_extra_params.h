// Attribute structs of the conv family's legacy and deformable ops (conv_extra.cc,
// conv_extra_roi.cc): Convolution_v1, Pooling_v1, _contrib_DeformableConvolution,
// _contrib_ModulatedDeformableConvolution, _contrib_PSROIPooling,
// _contrib_DeformablePSROIPooling, _contrib_RROIAlign and their _backward_* helpers. Field
// names, order, types and defaults are MXNet 1.9.1's (src/operator/{convolution_v1,pooling_v1}-
// inl.h, contrib/{deformable_convolution,modulated_deformable_convolution,psroi_pooling,
// deformable_psroi_pooling,rroi_align}-inl.h). Validate() is defined in conv_extra.cc.
#pragma once

#include <optional>
#include <string>

#include "base/shape.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// Convolution_v1 (2-D or 3-D, NCHW/NCDHW).
struct ConvolutionV1Param {
  Shape kernel;        // required: (h, w) or (d, h, w)
  Shape stride;        // () = 1 per dim
  Shape dilate;        // () = 1 per dim
  Shape pad;           // () = 0 per dim
  int num_filter = 0;  // required
  int num_group = 1;
  int64_t workspace = 1024;
  bool no_bias = false;
  std::optional<std::string> cudnn_tune;  // accepted, ignored on CPU
  bool cudnn_off = false;                 // accepted, ignored on CPU
  std::optional<std::string> layout;      // None, NCHW or NCDHW
  template <class D>
  static void Declare(D& d) {
    d.field("kernel", &ConvolutionV1Param::kernel)
        .required()
        .describe("convolution kernel size: (h, w) or (d, h, w)");
    d.field("stride", &ConvolutionV1Param::stride)
        .describe("convolution stride: (h, w) or (d, h, w)");
    d.field("dilate", &ConvolutionV1Param::dilate)
        .describe("convolution dilate: (h, w) or (d, h, w)");
    d.field("pad", &ConvolutionV1Param::pad).describe("pad for convolution: (h, w) or (d, h, w)");
    d.field("num_filter", &ConvolutionV1Param::num_filter)
        .required()
        .describe("convolution filter(channel) number");
    d.field("num_group", &ConvolutionV1Param::num_group).describe("Number of group partitions.");
    d.field("workspace", &ConvolutionV1Param::workspace)
        .describe("Maximum temporary workspace allowed (MB); accepted for compatibility.");
    d.field("no_bias", &ConvolutionV1Param::no_bias).describe("Whether to disable bias parameter.");
    d.field("cudnn_tune", &ConvolutionV1Param::cudnn_tune)
        .choices({"None", "fastest", "limited_workspace", "off"})
        .describe("Whether to pick convolution algo by running performance test (GPU only).");
    d.field("cudnn_off", &ConvolutionV1Param::cudnn_off).describe("Turn off cudnn for this layer.");
    d.field("layout", &ConvolutionV1Param::layout)
        .choices({"None", "NCDHW", "NCHW", "NDHWC", "NHWC"})
        .describe("Layout of input, output and weight; None: NCHW for 2d, NCDHW for 3d.");
  }
  std::string Validate() const;
};

// Pooling_v1 (2-D or 3-D, NCHW/NCDHW).
struct PoolingV1Param {
  Shape kernel;  // () only with global_pool
  std::string pool_type = "max";
  bool global_pool = false;
  std::string pooling_convention = "valid";
  Shape stride;  // () = 1 per dim
  Shape pad;     // () = 0 per dim
  template <class D>
  static void Declare(D& d) {
    d.field("kernel", &PoolingV1Param::kernel).describe("pooling kernel size: (y, x) or (d, y, x)");
    d.field("pool_type", &PoolingV1Param::pool_type)
        .choices({"avg", "max", "sum"})
        .describe("Pooling type to be applied.");
    d.field("global_pool", &PoolingV1Param::global_pool)
        .describe("Ignore kernel size, do global pooling based on current input feature map.");
    d.field("pooling_convention", &PoolingV1Param::pooling_convention)
        .choices({"full", "valid"})
        .describe("Pooling convention to be applied.");
    d.field("stride", &PoolingV1Param::stride).describe("stride: for pooling (y, x) or (d, y, x)");
    d.field("pad", &PoolingV1Param::pad).describe("pad for pooling: (y, x) or (d, y, x)");
  }
  std::string Validate() const;
};

// _contrib_DeformableConvolution and _contrib_ModulatedDeformableConvolution (with_mask), also
// their _backward_* helpers. 2-D only (NCHW).
template <bool kModulated>
struct DeformableConvParamT {
  Shape kernel;        // required (h, w)
  Shape stride;        // () = 1 per dim
  Shape dilate;        // () = 1 per dim
  Shape pad;           // () = 0 per dim
  int num_filter = 0;  // required
  int num_group = 1;
  int num_deformable_group = 1;
  int64_t workspace = 1024;
  bool no_bias = false;
  int im2col_step = 64;               // Modulated only; accepted, no effect on results
  std::optional<std::string> layout;  // None or NCHW
  template <class D>
  static void Declare(D& d) {
    using P = DeformableConvParamT;
    d.field("kernel", &P::kernel).required().describe("Convolution kernel size: (h, w)");
    d.field("stride", &P::stride)
        .describe("Convolution stride: (h, w). Defaults to 1 for each dimension.");
    d.field("dilate", &P::dilate)
        .describe("Convolution dilate: (h, w). Defaults to 1 for each dimension.");
    d.field("pad", &P::pad).describe("Zero pad for convolution: (h, w). Defaults to no padding.");
    d.field("num_filter", &P::num_filter).required().describe("Convolution filter(channel) number");
    d.field("num_group", &P::num_group).describe("Number of group partitions.");
    d.field("num_deformable_group", &P::num_deformable_group)
        .describe("Number of deformable group partitions.");
    d.field("workspace", &P::workspace)
        .describe("Maximum temperal workspace allowed for convolution (MB); accepted.");
    d.field("no_bias", &P::no_bias).describe("Whether to disable bias parameter.");
    if constexpr (kModulated)
      d.field("im2col_step", &P::im2col_step)
          .describe("Maximum number of images per im2col computation; accepted, no effect.");
    d.field("layout", &P::layout)
        .choices({"None", "NCDHW", "NCHW", "NCW"})
        .describe("Layout of input, output and weight; only NCHW (the default) is supported.");
  }
  std::string Validate() const;
};
using DeformableConvParam = DeformableConvParamT<false>;
using ModulatedDeformableConvParam = DeformableConvParamT<true>;

// _contrib_PSROIPooling (also _backward_PSROIPooling).
struct PSROIPoolingParam {
  float spatial_scale = 0.f;  // required
  int output_dim = 0;         // required
  int pooled_size = 0;        // required
  int group_size = 0;         // 0 = pooled_size
  template <class D>
  static void Declare(D& d) {
    d.field("spatial_scale", &PSROIPoolingParam::spatial_scale)
        .required()
        .describe("Ratio of input feature map height (or w) to raw image height (or w).");
    d.field("output_dim", &PSROIPoolingParam::output_dim).required().describe("fix output dim");
    d.field("pooled_size", &PSROIPoolingParam::pooled_size).required().describe("fix pooled size");
    d.field("group_size", &PSROIPoolingParam::group_size)
        .describe("fix group size (0: pooled_size)");
  }
  std::string Validate() const;
};

// _contrib_DeformablePSROIPooling (also _backward_DeformablePSROIPooling).
struct DeformablePSROIPoolingParam {
  float spatial_scale = 0.f;  // required
  int output_dim = 0;         // required
  int group_size = 0;         // required
  int pooled_size = 0;        // required
  int part_size = 0;          // 0 = pooled_size
  int sample_per_part = 1;
  float trans_std = 0.f;
  bool no_trans = false;
  template <class D>
  static void Declare(D& d) {
    using P = DeformablePSROIPoolingParam;
    d.field("spatial_scale", &P::spatial_scale)
        .required()
        .describe("Ratio of input feature map height (or w) to raw image height (or w).");
    d.field("output_dim", &P::output_dim).required().describe("fix output dim");
    d.field("group_size", &P::group_size).required().describe("fix group size");
    d.field("pooled_size", &P::pooled_size).required().describe("fix pooled size");
    d.field("part_size", &P::part_size).describe("fix part size (0: pooled_size)");
    d.field("sample_per_part", &P::sample_per_part).describe("fix samples per part");
    d.field("trans_std", &P::trans_std).describe("fix transition std");
    d.field("no_trans", &P::no_trans).describe("Whether to disable trans parameter.");
  }
  std::string Validate() const;
};

// _contrib_RROIAlign (forward only, as MXNet).
struct RROIAlignParam {
  Shape pooled_size;          // required (h, w)
  float spatial_scale = 0.f;  // required
  int sampling_ratio = -1;    // <= 0: ceil(roi size / pooled size) samples per bin
  template <class D>
  static void Declare(D& d) {
    d.field("pooled_size", &RROIAlignParam::pooled_size)
        .required()
        .describe("RROI align output shape (h,w)");
    d.field("spatial_scale", &RROIAlignParam::spatial_scale)
        .required()
        .describe("Ratio of input feature map height (or width) to raw image height (or width).");
    d.field("sampling_ratio", &RROIAlignParam::sampling_ratio)
        .describe("Optional sampling ratio of RROI align, using adaptive size by default.");
  }
  std::string Validate() const;
};

}  // namespace mxnet::ops
