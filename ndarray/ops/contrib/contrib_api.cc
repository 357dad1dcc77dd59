// nd::contrib:: free functions of the box and helper _contrib_ ops (reduce_contrib_api.h).
#include "ndarray/ops/contrib/contrib_api.h"

namespace mxnet::nd::contrib {
namespace {
template <typename P>
NDArrayVec CallP(const Op& op, P p, std::initializer_list<NDArray> in) {
  return Call(op, OpAttrs::From(op, std::move(p)), in);
}
NDArray Call0(const Op& op, std::initializer_list<NDArray> in) {
  return Call(op, NoAttrs(op), in)[0];
}
}  // namespace

NDArray box_iou(const NDArray& lhs, const NDArray& rhs, std::string_view format) {
  ops::BoxIouParam p;
  p.format = std::string(format);
  return CallP(MX_ND_OP(_contrib_box_iou), p, {lhs, rhs})[0];
}
NDArray box_nms(const NDArray& data, const BoxNMSOptions& opts) {
  return CallP(MX_ND_OP(_contrib_box_nms), opts, {data})[0];
}
NDArrayVec box_encode(const NDArray& samples, const NDArray& matches, const NDArray& anchors,
                      const NDArray& refs, const NDArray& means, const NDArray& stds) {
  const Op& op = MX_ND_OP(_contrib_box_encode);
  return Call(op, NoAttrs(op), {samples, matches, anchors, refs, means, stds});
}
NDArray box_decode(const NDArray& data, const NDArray& anchors, const BoxDecodeOptions& opts) {
  return CallP(MX_ND_OP(_contrib_box_decode), opts, {data, anchors})[0];
}
NDArrayVec bipartite_matching(const NDArray& data, float threshold, bool is_ascend, int topk) {
  ops::BipartiteMatchingParam p;
  p.threshold = threshold;
  p.is_ascend = is_ascend;
  p.topk = topk;
  return CallP(MX_ND_OP(_contrib_bipartite_matching), p, {data});
}
NDArray MultiBoxPrior(const NDArray& data, const MultiBoxPriorOptions& opts) {
  return CallP(MX_ND_OP(_contrib_MultiBoxPrior), opts, {data})[0];
}
NDArray MultiBoxDetection(const NDArray& cls_prob, const NDArray& loc_pred, const NDArray& anchor,
                          const MultiBoxDetectionOptions& opts) {
  return CallP(MX_ND_OP(_contrib_MultiBoxDetection), opts, {cls_prob, loc_pred, anchor})[0];
}
NDArrayVec MultiBoxTarget(const NDArray& anchor, const NDArray& label, const NDArray& cls_pred,
                          const MultiBoxTargetOptions& opts) {
  return CallP(MX_ND_OP(_contrib_MultiBoxTarget), opts, {anchor, label, cls_pred});
}

NDArray arange_like(const NDArray& data, const ArangeLikeOptions& opts) {
  return CallP(MX_ND_OP(_contrib_arange_like), opts, {data})[0];
}
NDArray index_copy(const NDArray& old_tensor, const NDArray& index_vector,
                   const NDArray& new_tensor) {
  return Call0(MX_ND_OP(_contrib_index_copy), {old_tensor, index_vector, new_tensor});
}
NDArray index_array(const NDArray& data, std::optional<Shape> axes) {
  ops::IndexArrayParam p;
  p.axes = std::move(axes);
  return CallP(MX_ND_OP(_contrib_index_array), p, {data})[0];
}
NDArray div_sqrt_dim(const NDArray& data) { return Call0(MX_ND_OP(_contrib_div_sqrt_dim), {data}); }
NDArray gradientmultiplier(const NDArray& data, double scalar) {
  ops::GradientMultiplierParam p;
  p.scalar = scalar;
  return CallP(MX_ND_OP(_contrib_gradientmultiplier), p, {data})[0];
}
NDArray round_ste(const NDArray& data) { return Call0(MX_ND_OP(_contrib_round_ste), {data}); }
NDArray sign_ste(const NDArray& data) { return Call0(MX_ND_OP(_contrib_sign_ste), {data}); }
NDArray quadratic(const NDArray& data, float a, float b, float c) {
  ops::QuadraticParam p;
  p.a = a, p.b = b, p.c = c;
  return CallP(MX_ND_OP(_contrib_quadratic), p, {data})[0];
}
NDArray allclose(const NDArray& a, const NDArray& b, float rtol, float atol, bool equal_nan) {
  ops::AllCloseParam p;
  p.rtol = rtol, p.atol = atol, p.equal_nan = equal_nan;
  return CallP(MX_ND_OP(_contrib_allclose), p, {a, b})[0];
}

}  // namespace mxnet::nd::contrib
