// nd:: free functions of the conv family's spatial and region ops (conv_spatial_api.h).
#include "ndarray/ops/conv/conv_spatial_api.h"

namespace mxnet::nd {
namespace {
template <typename P>
NDArray Run(const Op& op, const P& p, std::initializer_list<NDArray> in) {
  return Call(op, OpAttrs::From(op, p), in)[0];
}
}  // namespace

NDArray GridGenerator(const NDArray& data, const GridGeneratorOptions& opts) {
  return Run(MX_ND_OP(GridGenerator), opts, {data});
}

NDArray BilinearSampler(const NDArray& data, const NDArray& grid,
                        const BilinearSamplerOptions& opts) {
  return Run(MX_ND_OP(BilinearSampler), opts, {data, grid});
}

NDArray SpatialTransformer(const NDArray& data, const NDArray& loc,
                           SpatialTransformerOptions opts) {
  if (opts.transform_type.empty()) opts.transform_type = "affine";
  if (opts.sampler_type.empty()) opts.sampler_type = "bilinear";
  return Run(MX_ND_OP(SpatialTransformer), opts, {data, loc});
}

NDArray ROIPooling(const NDArray& data, const NDArray& rois, const ROIPoolingOptions& opts) {
  return Run(MX_ND_OP(ROIPooling), opts, {data, rois});
}

NDArray Crop(const NDArray& data, CropOptions opts) {
  opts.num_args = 1;
  return Run(MX_ND_OP(Crop), opts, {data});
}

NDArray Crop(const NDArray& data, const NDArray& crop_like, CropOptions opts) {
  opts.num_args = 2;
  return Run(MX_ND_OP(Crop), opts, {data, crop_like});
}

NDArray im2col(const NDArray& data, const Im2colOptions& opts) {
  return Run(MX_ND_OP(im2col), opts, {data});
}

NDArray col2im(const NDArray& data, const Col2imOptions& opts) {
  return Run(MX_ND_OP(col2im), opts, {data});
}

NDArray Correlation(const NDArray& data1, const NDArray& data2, const CorrelationOptions& opts) {
  return Run(MX_ND_OP(Correlation), opts, {data1, data2});
}

namespace contrib {

NDArray ROIAlign(const NDArray& data, const NDArray& rois, const ROIAlignOptions& opts) {
  return Run(MX_ND_OP(_contrib_ROIAlign), opts, {data, rois});
}

NDArray AdaptiveAvgPooling2D(const NDArray& data, const AdaptiveAvgPooling2DOptions& opts) {
  return Run(MX_ND_OP(_contrib_AdaptiveAvgPooling2D), opts, {data});
}

NDArray BilinearResize2D(const NDArray& data, const BilinearResize2DOptions& opts) {
  return Run(MX_ND_OP(_contrib_BilinearResize2D), opts, {data});
}

NDArray BilinearResize2D(const NDArray& data, const NDArray& like, BilinearResize2DOptions opts) {
  opts.mode = "like";
  return Run(MX_ND_OP(_contrib_BilinearResize2D), opts, {data, like});
}

}  // namespace contrib
}  // namespace mxnet::nd
