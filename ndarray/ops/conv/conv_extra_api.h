// nd:: free functions of the conv family's legacy, deformable and position-sensitive ops
// (conv_extra.cc, conv_extra_roi.cc). Options
// structs are the ops' typed attributes (conv_extra_params.h) with MXNet 1.9.1's defaults:
//   NDArray y = nd::contrib::DeformableConvolution(x, offset, w, b,
//                                                  {.kernel = {3, 3}, .pad = {1, 1},
//                                                   .num_filter = 8});
// Inputs: floating-point, one dtype and device for all. Errors throw
// mxnet::Error(kInvalidArgument) naming the op, the input or attribute and the shapes.
#pragma once

#include "ndarray/ops/conv/conv_extra_params.h"
#include "ndarray/ops/core/basic_api.h"

namespace mxnet::nd {

using ConvolutionV1Options = ops::ConvolutionV1Param;
using PoolingV1Options = ops::PoolingV1Param;
using DeformableConvolutionOptions = ops::DeformableConvParam;
using ModulatedDeformableConvolutionOptions = ops::ModulatedDeformableConvParam;
using PSROIPoolingOptions = ops::PSROIPoolingParam;
using DeformablePSROIPoolingOptions = ops::DeformablePSROIPoolingParam;
using RROIAlignOptions = ops::RROIAlignParam;

// mx.nd.Convolution_v1: Convolution on (N, C, H, W) / (N, C, D, H, W) data, weight (num_filter,
// C/num_group, kernel...), bias (num_filter,) unless opts.no_bias (pass an empty NDArray then).
NDArray Convolution_v1(const NDArray& data, const NDArray& weight, const NDArray& bias,
                       const ConvolutionV1Options& opts);

// mx.nd.Pooling_v1: max/avg/sum pooling of 4-D/5-D data with zero padding; avg divides by
// prod(kernel).
NDArray Pooling_v1(const NDArray& data, const PoolingV1Options& opts);

namespace contrib {

// mx.nd.contrib.DeformableConvolution: data (N, C, H, W), offset (N, dg*2*kh*kw, OH, OW),
// weight (num_filter, C/num_group, kh, kw), bias (num_filter,) unless opts.no_bias (pass an
// empty NDArray then) -> (N, num_filter, OH, OW).
NDArray DeformableConvolution(const NDArray& data, const NDArray& offset, const NDArray& weight,
                              const NDArray& bias, const DeformableConvolutionOptions& opts);

// mx.nd.contrib.ModulatedDeformableConvolution (DCNv2): as DeformableConvolution with mask
// (N, dg*kh*kw, OH, OW) scaling each tap's sample.
NDArray ModulatedDeformableConvolution(const NDArray& data, const NDArray& offset,
                                       const NDArray& mask, const NDArray& weight,
                                       const NDArray& bias,
                                       const ModulatedDeformableConvolutionOptions& opts);

// mx.nd.contrib.PSROIPooling (R-FCN): data (N, output_dim*group^2, H, W), rois (R, 5)
// [batch, x1, y1, x2, y2] -> (R, output_dim, pooled_size, pooled_size) bin averages.
NDArray PSROIPooling(const NDArray& data, const NDArray& rois, const PSROIPoolingOptions& opts);

// mx.nd.contrib.DeformablePSROIPooling: as PSROIPooling with bins shifted by trans (R,
// 2*num_classes, part, part) * trans_std * roi size (pass an empty NDArray with no_trans) and
// sample_per_part^2 bilinear samples per bin.
NDArray DeformablePSROIPooling(const NDArray& data, const NDArray& rois, const NDArray& trans,
                               const DeformablePSROIPoolingOptions& opts);

// mx.nd.contrib.RROIAlign: data (N, C, H, W), rois (R, 6) [batch, cx, cy, w, h, angle in
// degrees] -> (R, C, pooled_size...). No gradient.
NDArray RROIAlign(const NDArray& data, const NDArray& rois, const RROIAlignOptions& opts);

}  // namespace contrib
}  // namespace mxnet::nd
