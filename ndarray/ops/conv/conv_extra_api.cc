// nd:: free functions of the conv family's legacy and deformable ops (conv_extra_api.h).
#include "ndarray/ops/conv/conv_extra_api.h"

namespace mxnet::nd {
namespace {
template <typename P>
NDArray Run(const Op& op, const P& p, std::initializer_list<NDArray> in) {
  return Call(op, OpAttrs::From(op, p), in)[0];
}
}  // namespace

NDArray Convolution_v1(const NDArray& data, const NDArray& weight, const NDArray& bias,
                       const ConvolutionV1Options& opts) {
  if (opts.no_bias) return Run(MX_ND_OP(Convolution_v1), opts, {data, weight});
  return Run(MX_ND_OP(Convolution_v1), opts, {data, weight, bias});
}

NDArray Pooling_v1(const NDArray& data, const PoolingV1Options& opts) {
  return Run(MX_ND_OP(Pooling_v1), opts, {data});
}

namespace contrib {

NDArray DeformableConvolution(const NDArray& data, const NDArray& offset, const NDArray& weight,
                              const NDArray& bias, const DeformableConvolutionOptions& opts) {
  const Op& op = MX_ND_OP(_contrib_DeformableConvolution);
  if (opts.no_bias) return Run(op, opts, {data, offset, weight});
  return Run(op, opts, {data, offset, weight, bias});
}

NDArray ModulatedDeformableConvolution(const NDArray& data, const NDArray& offset,
                                       const NDArray& mask, const NDArray& weight,
                                       const NDArray& bias,
                                       const ModulatedDeformableConvolutionOptions& opts) {
  const Op& op = MX_ND_OP(_contrib_ModulatedDeformableConvolution);
  if (opts.no_bias) return Run(op, opts, {data, offset, mask, weight});
  return Run(op, opts, {data, offset, mask, weight, bias});
}

NDArray PSROIPooling(const NDArray& data, const NDArray& rois, const PSROIPoolingOptions& opts) {
  return Run(MX_ND_OP(_contrib_PSROIPooling), opts, {data, rois});
}

NDArray DeformablePSROIPooling(const NDArray& data, const NDArray& rois, const NDArray& trans,
                               const DeformablePSROIPoolingOptions& opts) {
  const Op& op = MX_ND_OP(_contrib_DeformablePSROIPooling);
  if (opts.no_trans) return Run(op, opts, {data, rois});
  return Run(op, opts, {data, rois, trans});
}

NDArray RROIAlign(const NDArray& data, const NDArray& rois, const RROIAlignOptions& opts) {
  return Run(MX_ND_OP(_contrib_RROIAlign), opts, {data, rois});
}

}  // namespace contrib
}  // namespace mxnet::nd
