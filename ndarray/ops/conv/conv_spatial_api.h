// nd:: free functions of the conv family's spatial-sampling and region ops (conv_spatial.cc,
// conv_resize.cc, conv_roi.cc). Options structs are the ops' typed attributes
// (conv_spatial_params.h) with MXNet 1.9.1's defaults, used like Python kwargs:
//   NDArray grid = nd::GridGenerator(theta, {.transform_type = "affine", .target_shape = {8, 8}});
//   NDArray y = nd::BilinearSampler(x, grid);
//   NDArray r = nd::contrib::ROIAlign(feat, rois, {.pooled_size = {7, 7}, .spatial_scale = 0.25});
// Inputs: floating-point (float32, float64, float16, bfloat16), one dtype and device for all
// inputs (rois too). Images are 4-D (N, C, H, W) unless noted. Errors throw
// mxnet::Error(kInvalidArgument) naming the op, the input or attribute and the shapes.
#pragma once

#include "ndarray/ops/conv/conv_spatial_params.h"
#include "ndarray/ops/core/basic_api.h"

namespace mxnet::nd {

using GridGeneratorOptions = ops::GridGeneratorParam;
using BilinearSamplerOptions = ops::BilinearSamplerParam;
using SpatialTransformerOptions = ops::SpatialTransformerParam;
using ROIPoolingOptions = ops::ROIPoolingParam;
using ROIAlignOptions = ops::ROIAlignParam;
using CropOptions = ops::CropParam;
using AdaptiveAvgPooling2DOptions = ops::AdaptiveAvgPoolingParam;
using BilinearResize2DOptions = ops::BilinearResizeParam;
using Im2colOptions = ops::Im2colParam;
using Col2imOptions = ops::Col2imParam;
using CorrelationOptions = ops::CorrelationParam;

// mx.nd.GridGenerator. transform_type (required) "affine": data (N, 6), output (N, 2, H, W) with
// (H, W) = target_shape (required > 0): out[:, :, h, w] = A_n (x_w, y_h, 1), x_w = -1 + 2w/(W-1).
// "warp": data (N, 2, H, W) optical flow, output ((flow_x + w)/((W-1)/2) - 1, likewise y).
NDArray GridGenerator(const NDArray& data, const GridGeneratorOptions& opts);

// mx.nd.BilinearSampler: data (N, C, H, W) sampled at grid (N, 2, OH, OW) (x, y in [-1, 1],
// x_src = (x + 1)(W - 1)/2; outside reads 0) -> (N, C, OH, OW).
NDArray BilinearSampler(const NDArray& data, const NDArray& grid,
                        const BilinearSamplerOptions& opts = {});

// mx.nd.SpatialTransformer: BilinearSampler(data, GridGenerator(loc, affine, target_shape)).
// data (N, C, H, W), loc (N, 6) -> (N, C, target_shape...). transform_type "affine" and
// sampler_type "bilinear" are the only (required) values; the defaults here fill them in.
NDArray SpatialTransformer(const NDArray& data, const NDArray& loc, SpatialTransformerOptions opts);

// mx.nd.ROIPooling: data (N, C, H, W), rois (R, 5) [batch, x1, y1, x2, y2] -> (R, C, ph, pw)
// max over rounded, scaled bins (0 for empty bins / batch index outside [0, N)).
NDArray ROIPooling(const NDArray& data, const NDArray& rois, const ROIPoolingOptions& opts);

// mx.nd.Crop: data (N, C, H, W) -> (N, C, h_w...) at offset (y, x), or centered with
// center_crop. num_args is set from the inputs given.
NDArray Crop(const NDArray& data, CropOptions opts);
// Crops to crop_like's (h, w) (its dims 2 and 3).
NDArray Crop(const NDArray& data, const NDArray& crop_like, CropOptions opts);

// mx.nd.im2col: (N, C, spatial...) -> (N, C * prod(kernel), number of blocks).
NDArray im2col(const NDArray& data, const Im2colOptions& opts);
// mx.nd.col2im: (N, C * prod(kernel), L) -> (N, C, output_size...), overlaps summed.
NDArray col2im(const NDArray& data, const Col2imOptions& opts);

// mx.nd.Correlation (FlowNet): data1, data2 (N, C, H, W) -> (N, (2r+1)^2, OH, OW) with
// r = max_displacement / stride2; patch products (is_multiply) or absolute differences.
NDArray Correlation(const NDArray& data1, const NDArray& data2,
                    const CorrelationOptions& opts = {});

namespace contrib {

// mx.nd.contrib.ROIAlign: data (N, C, H, W), rois (R, 5) -> (R, C, ph, pw) (position_sensitive:
// (R, C/(ph*pw), ph, pw)); bins average bilinear samples; negative batch index -> 0.
NDArray ROIAlign(const NDArray& data, const NDArray& rois, const ROIAlignOptions& opts);

// mx.nd.contrib.AdaptiveAvgPooling2D: (N, C, H, W) -> (N, C, output_size) ((): (1, 1), (s,):
// (s, s)), bin [floor(i*H/OH), ceil((i+1)*H/OH)) averages.
NDArray AdaptiveAvgPooling2D(const NDArray& data, const AdaptiveAvgPooling2DOptions& opts = {});

// mx.nd.contrib.BilinearResize2D: (N, C, H, W) -> (N, C, OH, OW); mode "size" (height, width or
// the scales), "odd_scale", "to_even_down", "to_even_up", "to_odd_down", "to_odd_up".
NDArray BilinearResize2D(const NDArray& data, const BilinearResize2DOptions& opts);
// mode "like" (set here): resizes to like's dims 2 and 3.
NDArray BilinearResize2D(const NDArray& data, const NDArray& like, BilinearResize2DOptions opts);

}  // namespace contrib
}  // namespace mxnet::nd
