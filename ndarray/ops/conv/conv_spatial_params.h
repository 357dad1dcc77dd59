// Attribute structs of the conv family's spatial-sampling and region ops (conv_spatial.cc,
// conv_roi.cc): GridGenerator, BilinearSampler, SpatialTransformer, ROIPooling,
// _contrib_ROIAlign, Crop, _contrib_AdaptiveAvgPooling2D, _contrib_BilinearResize2D, im2col,
// col2im, and their _backward_* helpers. Field names, order, types and defaults are MXNet
// 1.9.1's (src/operator/{grid_generator,bilinear_sampler,spatial_transformer,roi_pooling,crop}-
// inl.h, contrib/{roi_align,adaptive_avg_pooling,bilinear_resize}-inl.h, nn/im2col-inl.h).
// Validate() is defined in conv_spatial.cc.
#pragma once

#include <optional>
#include <string>

#include "base/shape.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// GridGenerator (also _backward_GridGenerator).
struct GridGeneratorParam {
  std::string transform_type;  // required: "affine" or "warp"
  Shape target_shape{0, 0};    // (H, W); required (> 0) for affine, ignored for warp
  template <class D>
  static void Declare(D& d) {
    d.field("transform_type", &GridGeneratorParam::transform_type)
        .required()
        .choices({"affine", "warp"})
        .describe("The type of transformation: affine (data (N, 6)) or warp (flow (N, 2, H, W)).");
    d.field("target_shape", &GridGeneratorParam::target_shape)
        .describe("Output shape (H, W); required for affine, ignored for warp.");
  }
  std::string Validate() const;
};

// BilinearSampler (also _backward_BilinearSampler).
struct BilinearSamplerParam {
  std::optional<bool> cudnn_off;  // accepted, ignored on CPU
  template <class D>
  static void Declare(D& d) {
    d.field("cudnn_off", &BilinearSamplerParam::cudnn_off).describe("whether to turn cudnn off");
  }
};

// SpatialTransformer.
struct SpatialTransformerParam {
  Shape target_shape{0, 0};    // (H, W), both > 0
  std::string transform_type;  // required: "affine"
  std::string sampler_type;    // required: "bilinear"
  std::optional<bool> cudnn_off;
  template <class D>
  static void Declare(D& d) {
    d.field("target_shape", &SpatialTransformerParam::target_shape)
        .describe("output shape(h, w) of spatial transformer: (y, x)");
    d.field("transform_type", &SpatialTransformerParam::transform_type)
        .required()
        .choices({"affine"})
        .describe("transformation type");
    d.field("sampler_type", &SpatialTransformerParam::sampler_type)
        .required()
        .choices({"bilinear"})
        .describe("sampling type");
    d.field("cudnn_off", &SpatialTransformerParam::cudnn_off).describe("whether to turn cudnn off");
  }
  std::string Validate() const;
};

// ROIPooling (also _backward_ROIPooling).
struct ROIPoolingParam {
  Shape pooled_size;          // required (h, w)
  float spatial_scale = 0.f;  // required
  template <class D>
  static void Declare(D& d) {
    d.field("pooled_size", &ROIPoolingParam::pooled_size)
        .required()
        .describe("ROI pooling output shape (h,w)");
    d.field("spatial_scale", &ROIPoolingParam::spatial_scale)
        .required()
        .describe("Ratio of input feature map size to raw image size (1 / total stride).");
  }
  std::string Validate() const;
};

// _contrib_ROIAlign (also _backward_ROIAlign).
struct ROIAlignParam {
  Shape pooled_size;          // required (h, w)
  float spatial_scale = 0.f;  // required
  int sample_ratio = -1;      // <= 0: ceil(roi size / pooled size) samples per bin
  bool position_sensitive = false;
  bool aligned = false;
  template <class D>
  static void Declare(D& d) {
    d.field("pooled_size", &ROIAlignParam::pooled_size)
        .required()
        .describe("ROI Align output roi feature map height and width: (h, w)");
    d.field("spatial_scale", &ROIAlignParam::spatial_scale)
        .required()
        .describe("Ratio of input feature map size to raw image size (1 / total stride).");
    d.field("sample_ratio", &ROIAlignParam::sample_ratio)
        .describe("Optional sampling ratio of ROI align, using adaptive size by default.");
    d.field("position_sensitive", &ROIAlignParam::position_sensitive)
        .describe("Whether to perform position-sensitive RoI pooling (R-FCN's PSRoIPooling).");
    d.field("aligned", &ROIAlignParam::aligned)
        .describe("Center-aligned ROIAlign introduced in Detectron2.");
  }
  std::string Validate() const;
};

// Crop (also _backward_Crop).
struct CropParam {
  int num_args = 1;    // required: 1 (crop to h_w) or 2 (crop to crop_like's H, W)
  Shape offset{0, 0};  // (y, x)
  Shape h_w{0, 0};     // (h, w), num_args=1
  bool center_crop = false;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &CropParam::num_args)
        .required()
        .describe("Number of inputs: 1 crops to h_w, 2 to the height and width of crop_like.");
    d.field("offset", &CropParam::offset).describe("crop offset coordinate: (y, x)");
    d.field("h_w", &CropParam::h_w).describe("crop height and width: (h, w)");
    d.field("center_crop", &CropParam::center_crop)
        .describe("If true, crop the center (offset is ignored).");
  }
  std::string Validate() const;
};

// _contrib_AdaptiveAvgPooling2D (also its _backward_).
struct AdaptiveAvgPoolingParam {
  Shape output_size;  // () = (1, 1); (s,) = (s, s); (h, w)
  template <class D>
  static void Declare(D& d) {
    d.field("output_size", &AdaptiveAvgPoolingParam::output_size)
        .describe("int (output size) or a tuple of int for output (height, width).");
  }
  std::string Validate() const;
};

// _contrib_BilinearResize2D (also its _backward_).
struct BilinearResizeParam {
  int height = 1;
  int width = 1;
  std::optional<float> scale_height;
  std::optional<float> scale_width;
  std::string mode = "size";
  bool align_corners = true;
  template <class D>
  static void Declare(D& d) {
    d.field("height", &BilinearResizeParam::height)
        .describe("output height (ignored if scale_height is defined or mode is not 'size')");
    d.field("width", &BilinearResizeParam::width)
        .describe("output width (ignored if scale_width is defined or mode is not 'size')");
    d.field("scale_height", &BilinearResizeParam::scale_height)
        .describe("sampling scale of the height (modes 'size' and 'odd_scale')");
    d.field("scale_width", &BilinearResizeParam::scale_width)
        .describe("sampling scale of the width (modes 'size' and 'odd_scale')");
    d.field("mode", &BilinearResizeParam::mode)
        .choices(
            {"like", "odd_scale", "size", "to_even_down", "to_even_up", "to_odd_down", "to_odd_up"})
        .describe("resizing mode");
    d.field("align_corners", &BilinearResizeParam::align_corners)
        .describe("Whether the corner pixels of input and output are aligned.");
  }
  std::string Validate() const;
};

// im2col.
struct Im2colParam {
  Shape kernel;  // required: (w,), (h, w) or (d, h, w)
  Shape stride;  // () = 1 per dim
  Shape dilate;  // () = 1 per dim
  Shape pad;     // () = 0 per dim
  template <class D>
  static void Declare(D& d) {
    d.field("kernel", &Im2colParam::kernel)
        .required()
        .describe("Sliding kernel size: (w,), (h, w) or (d, h, w).");
    d.field("stride", &Im2colParam::stride)
        .describe("The stride between adjacent sliding blocks. Defaults to 1 for each dimension.");
    d.field("dilate", &Im2colParam::dilate)
        .describe("The spacing between adjacent kernel points. Defaults to 1 for each dimension.");
    d.field("pad", &Im2colParam::pad)
        .describe("The zero-value padding size on both sides. Defaults to no padding.");
  }
  std::string Validate() const;
};

// col2im.
struct Col2imParam {
  Shape output_size;  // required: the image's spatial dims
  Shape kernel;       // required
  Shape stride;
  Shape dilate;
  Shape pad;
  template <class D>
  static void Declare(D& d) {
    d.field("output_size", &Col2imParam::output_size)
        .required()
        .describe("The spatial dimension of image array: (w,), (h, w) or (d, h, w).");
    d.field("kernel", &Col2imParam::kernel)
        .required()
        .describe("Sliding kernel size: (w,), (h, w) or (d, h, w).");
    d.field("stride", &Col2imParam::stride)
        .describe("The stride between adjacent sliding blocks. Defaults to 1 for each dimension.");
    d.field("dilate", &Col2imParam::dilate)
        .describe("The spacing between adjacent kernel points. Defaults to 1 for each dimension.");
    d.field("pad", &Col2imParam::pad)
        .describe("The zero-value padding size on both sides. Defaults to no padding.");
  }
  std::string Validate() const;
};

// Correlation (also _backward_Correlation; FlowNet, Dosovitskiy et al., ICCV 2015).
struct CorrelationParam {
  int kernel_size = 1;  // odd
  int max_displacement = 1;
  int stride1 = 1;
  int stride2 = 1;
  int pad_size = 0;
  bool is_multiply = true;
  template <class D>
  static void Declare(D& d) {
    d.field("kernel_size", &CorrelationParam::kernel_size)
        .describe("kernel size for Correlation must be an odd number");
    d.field("max_displacement", &CorrelationParam::max_displacement)
        .describe("Max displacement of Correlation");
    d.field("stride1", &CorrelationParam::stride1).describe("stride1 quantize data1 globally");
    d.field("stride2", &CorrelationParam::stride2)
        .describe("stride2 quantize data2 within the neighborhood centered around data1");
    d.field("pad_size", &CorrelationParam::pad_size).describe("pad for Correlation");
    d.field("is_multiply", &CorrelationParam::is_multiply)
        .describe("operation type is either multiplication or subduction");
  }
  std::string Validate() const;
};

}  // namespace mxnet::ops
