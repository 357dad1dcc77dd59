// nd::contrib:: free functions of MXNet 1.9.1's box and helper _contrib_ operators
// (mx.nd.contrib.*) registered in the reduce family (reduce_contrib.cc, reduce_contrib_box.cc).
//
//   NDArray iou = nd::contrib::box_iou(anchors, gt);                 // (N, 4) x (M, 4) -> (N, M)
//   NDArray kept = nd::contrib::box_nms(dets, {.overlap_thresh = 0.45f, .id_index = 0});
//   NDArray priors = nd::contrib::MultiBoxPrior(feat, {.sizes = {0.2, 0.3}, .ratios = {1, 2}});
//
// Errors: mxnet::Error(kInvalidArgument) naming the op and the offending input shape or attribute
// (wrong rank, last dimension not 4, indices of box_nms out of the row), kOutOfRange for
// index_copy indices outside the first axis and box_encode matches outside refs. Box ops need
// floating dtypes. Not registered: boolean_mask (its output shape depends on the mask's values).
#pragma once

#include <optional>
#include <string_view>

#include "ndarray/ops/contrib/contrib_params.h"
#include "ndarray/ops/core/basic_api.h"

namespace mxnet::nd::contrib {

using BoxNMSOptions = ops::BoxNMSParam;
using BoxDecodeOptions = ops::BoxDecodeParam;
using ArangeLikeOptions = ops::ArangeLikeParam;
using MultiBoxPriorOptions = ops::MultiBoxPriorParam;
using MultiBoxDetectionOptions = ops::MultiBoxDetectionParam;
using MultiBoxTargetOptions = ops::MultiBoxTargetParam;

// ---- Boxes ----
// IoU of every lhs box (..., 4) with every rhs box (..., 4): lhs.shape[:-1] + rhs.shape[:-1].
// format "corner" [xmin, ymin, xmax, ymax] or "center" [x, y, w, h].
NDArray box_iou(const NDArray& lhs, const NDArray& rhs, std::string_view format = "corner");
// Non-maximum suppression of data (..., N, W); same shape, kept rows first by descending score,
// the rest -1 (see the op's doc for every attribute).
NDArray box_nms(const NDArray& data, const BoxNMSOptions& opts = {});
// (targets, masks), both anchors' shape (B, N, 4); samples/matches (B, N), refs (B, M, 4),
// means/stds (4,).
NDArrayVec box_encode(const NDArray& samples, const NDArray& matches, const NDArray& anchors,
                      const NDArray& refs, const NDArray& means, const NDArray& stds);
// Corner boxes (B, N, 4) from deltas data (B, N, 4) and anchors (1, N, 4).
NDArray box_decode(const NDArray& data, const NDArray& anchors, const BoxDecodeOptions& opts = {});
// (row_marker (..., R), col_marker (..., C)) of a greedy matching of scores (..., R, C).
NDArrayVec bipartite_matching(const NDArray& data, float threshold, bool is_ascend = false,
                              int topk = -1);
// SSD anchors (1, H*W*(sizes+ratios-1), 4) for a feature map (B, C, H, W).
NDArray MultiBoxPrior(const NDArray& data, const MultiBoxPriorOptions& opts = {});
// Detections (B, A, 6) [class id, score, xmin, ymin, xmax, ymax] from cls_prob (B, C, A),
// loc_pred (B, A*4) and anchor (1, A, 4).
NDArray MultiBoxDetection(const NDArray& cls_prob, const NDArray& loc_pred, const NDArray& anchor,
                          const MultiBoxDetectionOptions& opts = {});
// (loc_target (B, A*4), loc_mask (B, A*4), cls_target (B, A)) from anchor (1, A, 4),
// label (B, L, >= 5) and cls_pred (B, C, A).
NDArrayVec MultiBoxTarget(const NDArray& anchor, const NDArray& label, const NDArray& cls_pred,
                          const MultiBoxTargetOptions& opts = {});

// ---- Helpers ----
// start + (i // repeat) * step in data's dtype, data's shape (or (data.shape[axis],)).
NDArray arange_like(const NDArray& data, const ArangeLikeOptions& opts = {});
// old_tensor with rows index_vector[j] replaced by new_tensor[j].
NDArray index_copy(const NDArray& old_tensor, const NDArray& index_vector,
                   const NDArray& new_tensor);
// int64 (d1, ..., dn, m) coordinates of every element (axes: which coordinates; None: all).
NDArray index_array(const NDArray& data, std::optional<Shape> axes = std::nullopt);
// data / sqrt(data.shape[-1]).
NDArray div_sqrt_dim(const NDArray& data);
// Identity whose gradient is scaled by `scalar`.
NDArray gradientmultiplier(const NDArray& data, double scalar);
// round / sign with straight-through (identity) gradients.
NDArray round_ste(const NDArray& data);
NDArray sign_ste(const NDArray& data);
// a*x^2 + b*x + c.
NDArray quadratic(const NDArray& data, float a = 0, float b = 0, float c = 0);
// uint8 scalar (shape ()): 1 if every |a - b| <= atol + rtol * |b|.
NDArray allclose(const NDArray& a, const NDArray& b, float rtol = 1e-5f, float atol = 1e-8f,
                 bool equal_nan = true);

}  // namespace mxnet::nd::contrib
