// MXNet 1.9.1's SSD training/inference helpers, registered in the reduce family:
// _contrib_MultiBoxDetection and _contrib_MultiBoxTarget (with _contrib_MultiBoxPrior in
// reduce_contrib_box.cc). Semantics follow MXNet's CPU kernels in
// src/operator/contrib/multibox_{detection,target}.cc, quirks included (documented per op).
// Both have zero gradients (MXNet). Source: Liu et al., "SSD: Single Shot MultiBox Detector"
// (2016).
#include <algorithm>
#include <cmath>

#include "ndarray/grad.h"
#include "ndarray/ops/contrib/contrib_params.h"
#include "ndarray/ops/core/reduce_internal.h"

namespace mxnet::ops {
namespace {
using namespace reduce_internal;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;

void CheckRank(std::string_view op, std::string_view what, const Shape& s, int ndim,
               std::string_view layout) {
  if (s.ndim_known() && s.ndim() != ndim)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": ", what, " must be ", layout,
             ", got shape ", s.ToString());
}

// Corner-box IoU (0 when the union is not positive).
template <typename A>
A Overlap(const A* a, const A* b) {
  A w = std::max(A(0), std::min(a[2], b[2]) - std::max(a[0], b[0]));
  A h = std::max(A(0), std::min(a[3], b[3]) - std::max(a[1], b[1]));
  A i = w * h;
  A u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i;
  return u <= 0 ? A(0) : i / u;
}

// ---- _contrib_MultiBoxDetection ----
void DetectionShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  constexpr std::string_view op = "_contrib_MultiBoxDetection";
  const Shape &c = (*in)[0], &l = (*in)[1], &a = (*in)[2];
  CheckRank(op, "cls_prob", c, 3, "(batch, classes, anchors)");
  CheckRank(op, "loc_pred", l, 2, "(batch, anchors * 4)");
  CheckRank(op, "anchor", a, 3, "(1, anchors, 4)");
  if (!c.ndim_known() || !a.ndim_known()) return;
  if (a[2] >= 0 && a[2] != 4)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": anchor must be (1, anchors, 4), got shape ",
             a.ToString());
  if (c[2] >= 0 && a[1] >= 0 && c[2] != a[1])
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": cls_prob ", c.ToString(), " has ", c[2],
             " anchors but anchor ", a.ToString(), " has ", a[1]);
  if (l.ndim_known() && l[1] >= 0 && a[1] >= 0 && l[1] != a[1] * 4)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": loc_pred ", l.ToString(),
             " must have anchors * 4 = ", a[1] * 4, " columns");
  MergeShape(&(*out)[0], Shape{c[0], a[1], 6}, "_contrib_MultiBoxDetection: output");
}

template <typename A>
void Detection(const MultiBoxDetectionParam& p, std::span<const NDArray> in, const NDArray& out) {
  const Shape& cs = in[0].shape();
  int64_t nb = cs[0], nc = cs[1], na = cs[2];
  std::vector<A> cls = Values<A>(in[0], "_contrib_MultiBoxDetection"),
                 loc = Values<A>(in[1], "_contrib_MultiBoxDetection"),
                 anc = Values<A>(in[2], "_contrib_MultiBoxDetection");
  std::vector<A> o(nb * na * 6, A(-1)), rows(na * 6);
  const float vx = static_cast<float>(p.variances[0]), vy = static_cast<float>(p.variances[1]),
              vw = static_cast<float>(p.variances[2]), vh = static_cast<float>(p.variances[3]);
  auto clip = [&](A v) { return p.clip ? std::max(A(0), std::min(A(1), v)) : v; };
  for (int64_t b = 0; b < nb; ++b) {
    const A* pc = &cls[b * nc * na];
    const A* pl = &loc[b * na * 4];
    A* po = &o[b * na * 6];
    for (int64_t i = 0; i < na; ++i) {
      // Best non-background class (class 0 is the background).
      A score = -1;
      int id = 0;
      for (int64_t j = 1; j < nc; ++j)
        if (pc[j * na + i] > score) score = pc[j * na + i], id = static_cast<int>(j);
      if (id > 0 && score < p.threshold) id = 0;
      A* r = &rows[i * 6];
      r[0] = static_cast<A>(id - 1), r[1] = score;
      const A* an = &anc[i * 4];
      const A* lp = &pl[i * 4];
      A aw = an[2] - an[0], ah = an[3] - an[1], ax = (an[0] + an[2]) / 2, ay = (an[1] + an[3]) / 2;
      A ox = lp[0] * vx * aw + ax, oy = lp[1] * vy * ah + ay;
      A ow = std::exp(lp[2] * vw) * aw / 2, oh = std::exp(lp[3] * vh) * ah / 2;
      r[2] = clip(ox - ow), r[3] = clip(oy - oh), r[4] = clip(ox + ow), r[5] = clip(oy + oh);
    }
    // Valid detections first, in anchor order.
    int64_t valid = 0;
    for (int64_t i = 0; i < na; ++i)
      if (rows[i * 6] >= 0) std::copy(&rows[i * 6], &rows[i * 6] + 6, &po[6 * valid++]);
    if (valid < 1 || p.nms_threshold <= 0 || p.nms_threshold > 1) continue;
    std::vector<A> tmp(po, po + valid * 6);
    std::vector<int64_t> order(valid);
    for (int64_t i = 0; i < valid; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t x, int64_t y) { return tmp[x * 6 + 1] > tmp[y * 6 + 1]; });
    int64_t keep = valid;
    if (p.nms_topk > 0 && p.nms_topk < keep) {
      // MXNet marks the rest invalid by class id only; their other values stay as they were.
      keep = p.nms_topk;
      for (int64_t i = keep; i < valid; ++i) po[i * 6] = -1;
    }
    for (int64_t i = 0; i < keep; ++i)
      std::copy(&tmp[order[i] * 6], &tmp[order[i] * 6] + 6, &po[i * 6]);
    for (int64_t i = 0; i < keep; ++i) {
      if (po[i * 6] < 0) continue;
      for (int64_t j = i + 1; j < keep; ++j) {
        if (po[j * 6] < 0) continue;
        if ((p.force_suppress || po[i * 6] == po[j * 6]) &&
            Overlap(&po[i * 6 + 2], &po[j * 6 + 2]) >= p.nms_threshold)
          po[j * 6] = -1;  // suppressed: class id -1, the rest of the row kept (MXNet)
      }
    }
  }
  Store(o, out, "_contrib_MultiBoxDetection");
}

MX_REGISTER_OP(_contrib_MultiBoxDetection)
    .describe(
        "SSD detections from cls_prob (B, C, A) (class 0 = background), loc_pred (B, A*4) and "
        "anchor (1, A, 4) corner boxes: output (B, A, 6) rows [class id, score, xmin, ymin, "
        "xmax, ymax]: per anchor the best non-background class (dropped when its probability < "
        "threshold), boxes decoded as center + p*variance*size, size*exp(p*variance), clipped "
        "to [0, 1] if clip; valid rows first, sorted by score and suppressed (class id -1) by "
        "IoU >= nms_threshold within a class (any class with force_suppress), padding -1. "
        "Zero gradients.")
    .add_alias("_npx_multibox_detection")
    .set_params<MultiBoxDetectionParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"cls_prob", "loc_pred", "anchor"})
    .set_infer_shape(DetectionShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  WithComputeType(in[0].dtype(), "_contrib_MultiBoxDetection", [&](auto tag) {
                    Detection<decltype(tag)>(attrs.get<MultiBoxDetectionParam>(), in, out[0]);
                  });
                })
    .set_gradient(ZeroGrads, true, false);

// ---- _contrib_MultiBoxTarget ----
void TargetShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  constexpr std::string_view op = "_contrib_MultiBoxTarget";
  const Shape &a = (*in)[0], &l = (*in)[1], &c = (*in)[2];
  CheckRank(op, "anchor", a, 3, "(1, anchors, 4)");
  CheckRank(op, "label", l, 3, "(batch, labels, width >= 5)");
  CheckRank(op, "cls_pred", c, 3, "(batch, classes, anchors)");
  if (!a.ndim_known() || !l.ndim_known()) return;
  if ((a[0] >= 0 && a[0] != 1) || (a[2] >= 0 && a[2] != 4))
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": anchor must be (1, anchors, 4), got shape ",
             a.ToString());
  if (l[2] >= 0 && l[2] < 5)
    MX_THROW(absl::StatusCode::kInvalidArgument, op,
             ": label rows must have at least 5 values [class, xmin, ymin, xmax, ymax], got "
             "shape ",
             l.ToString());
  if (c.ndim_known() && c[2] >= 0 && a[1] >= 0 && c[2] != a[1])
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": cls_pred ", c.ToString(), " has ", c[2],
             " anchors but anchor ", a.ToString(), " has ", a[1]);
  int64_t a4 = a[1] < 0 ? -1 : a[1] * 4;
  MergeShape(&(*out)[0], Shape{l[0], a4}, "_contrib_MultiBoxTarget: loc_target");
  MergeShape(&(*out)[1], Shape{l[0], a4}, "_contrib_MultiBoxTarget: loc_mask");
  MergeShape(&(*out)[2], Shape{l[0], a[1]}, "_contrib_MultiBoxTarget: cls_target");
}

template <typename A>
void Target(const MultiBoxTargetParam& p, std::span<const NDArray> in,
            std::span<const NDArray> out) {
  constexpr std::string_view op = "_contrib_MultiBoxTarget";
  const Shape& ls = in[1].shape();
  int64_t na = in[0].shape()[1], nb = ls[0], nl = ls[1], lw = ls[2], nc = in[2].shape()[1];
  std::vector<A> anc = Values<A>(in[0], op), lab = Values<A>(in[1], op),
                 pred = Values<A>(in[2], op);
  std::vector<A> lt(nb * na * 4, A(0)), lm(nb * na * 4, A(0)), ct(nb * na, A(p.ignore_label));
  const float vx = static_cast<float>(p.variances[0]), vy = static_cast<float>(p.variances[1]),
              vw = static_cast<float>(p.variances[2]), vh = static_cast<float>(p.variances[3]);
  for (int64_t b = 0; b < nb; ++b) {
    const A* pl = &lab[b * nl * lw];
    int64_t ngt = 0;  // labels up to the first class -1 (padding)
    while (ngt < nl && static_cast<float>(pl[ngt * lw]) != -1.0f) ++ngt;
    if (ngt == 0) continue;
    std::vector<A> iou(na * ngt);
    for (int64_t j = 0; j < na; ++j)
      for (int64_t k = 0; k < ngt; ++k) {
        const A *x = &anc[j * 4], *g = &pl[k * lw + 1];
        A w = std::max(A(0), std::min(x[2], g[2]) - std::max(x[0], g[0]));
        A h = std::max(A(0), std::min(x[3], g[3]) - std::max(x[1], g[1]));
        A i = w * h, u = (x[2] - x[0]) * (x[3] - x[1]) + (g[2] - g[0]) * (g[3] - g[1]) - i;
        iou[j * ngt + k] = u == 0 ? A(0) : i / u;
      }
    std::vector<char> gt_done(ngt, 0);
    std::vector<float> best_iou(na, -1.0f);
    std::vector<int64_t> best_gt(na, -1);
    std::vector<int> flag(na, -1);  // 1 positive, 0 negative, -1 ignored
    int64_t positives = 0;
    // Greedy: each ground truth takes its best still-free anchor (IoU > 1e-6).
    while (std::find(gt_done.begin(), gt_done.end(), 0) != gt_done.end()) {
      int64_t ba = -1, bg = -1;
      float best = 1e-6f;
      for (int64_t j = 0; j < na; ++j) {
        if (flag[j] == 1) continue;
        for (int64_t k = 0; k < ngt; ++k) {
          float v = static_cast<float>(iou[j * ngt + k]);
          if (!gt_done[k] && v > best) ba = j, bg = k, best = v;
        }
      }
      if (ba < 0) break;
      best_iou[ba] = best, best_gt[ba] = bg, gt_done[bg] = 1, flag[ba] = 1, ++positives;
    }
    // Best ground truth of every other anchor; positive above overlap_threshold.
    auto best_of = [&](int64_t j) {
      float m = -1.0f;
      for (int64_t k = 0; k < ngt; ++k) {
        float v = static_cast<float>(iou[j * ngt + k]);
        if (v > m) m = v, best_gt[j] = k;
      }
      best_iou[j] = m;
    };
    if (p.overlap_threshold > 0)
      for (int64_t j = 0; j < na; ++j) {
        if (flag[j] == 1) continue;
        best_of(j);
        if (best_iou[j] > p.overlap_threshold) flag[j] = 1, ++positives;
      }
    if (p.negative_mining_ratio > 0) {
      int64_t neg = static_cast<int64_t>(positives * p.negative_mining_ratio);
      neg = std::min(neg, na - positives);
      if (neg > 0) {
        // Hardest negatives: lowest background probability (softmax over the classes).
        std::vector<std::pair<float, int64_t>> cand;
        const A* pc = &pred[b * nc * na];
        for (int64_t j = 0; j < na; ++j) {
          if (flag[j] == 1) continue;
          if (best_iou[j] < 0) best_of(j);
          if (best_iou[j] < p.negative_mining_thresh && flag[j] == -1) {
            A mx = pc[j];
            for (int64_t k = 1; k < nc; ++k) mx = std::max(mx, pc[j + na * k]);
            A sum = 0;
            for (int64_t k = 0; k < nc; ++k) sum += std::exp(pc[j + na * k] - mx);
            cand.push_back({-static_cast<float>(std::exp(pc[j] - mx) / sum), j});
          }
        }
        std::stable_sort(cand.begin(), cand.end(),
                         [](const auto& x, const auto& y) { return x.first > y.first; });
        for (int64_t i = 0; i < std::min<int64_t>(neg, cand.size()); ++i) flag[cand[i].second] = 0;
      }
    } else {
      for (int64_t j = 0; j < na; ++j)
        if (flag[j] != 1) flag[j] = 0;
    }
    for (int64_t j = 0; j < na; ++j) {
      A* t = &lt[(b * na + j) * 4];
      A* m = &lm[(b * na + j) * 4];
      if (flag[j] == 1) {
        const A* g = &pl[best_gt[j] * lw];
        ct[b * na + j] = g[0] + 1;  // 0 is the background
        std::fill(m, m + 4, A(1));
        // Single-precision arithmetic, as MXNet.
        const A* x = &anc[j * 4];
        float al = x[0], at = x[1], ar = x[2], ab = x[3];
        float aw = ar - al, ah = ab - at, ax = (al + ar) * 0.5f, ay = (at + ab) * 0.5f;
        float gl = g[1], gt = g[2], gr = g[3], gb = g[4];
        float gw = gr - gl, gh = gb - gt, gx = (gl + gr) * 0.5f, gy = (gt + gb) * 0.5f;
        t[0] = static_cast<A>((gx - ax) / aw / vx);
        t[1] = static_cast<A>((gy - ay) / ah / vy);
        t[2] = static_cast<A>(std::log(gw / aw) / vw);
        t[3] = static_cast<A>(std::log(gh / ah) / vh);
      } else if (flag[j] == 0) {
        ct[b * na + j] = 0;
      }
    }
  }
  Store(lt, out[0], op);
  Store(lm, out[1], op);
  Store(ct, out[2], op);
}

MX_REGISTER_OP(_contrib_MultiBoxTarget)
    .describe(
        "SSD training targets from anchor (1, A, 4), label (B, L, W >= 5) rows [class, xmin, "
        "ymin, xmax, ymax] (padding rows start with -1) and cls_pred (B, C, A): every ground "
        "truth greedily takes its best anchor, other anchors are positive when their best IoU > "
        "overlap_threshold; negatives are all others, or with negative_mining_ratio > 0 the "
        "ratio * positives hardest (lowest background softmax) among IoU < "
        "negative_mining_thresh. Outputs loc_target (B, A*4) ((g - a) / size / variance, "
        "log(size ratio) / variance), loc_mask (B, A*4) and cls_target (B, A) (class + 1, 0 "
        "negative, ignore_label otherwise). Zero gradients.")
    .add_alias("_npx_multibox_target")
    .set_params<MultiBoxTargetParam>()
    .set_num_inputs(3)
    .set_num_outputs(3)
    .set_input_names(std::vector<std::string>{"anchor", "label", "cls_pred"})
    .set_output_names(std::vector<std::string>{"loc_target", "loc_mask", "cls_target"})
    .set_infer_shape(TargetShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  WithComputeType(in[0].dtype(), "_contrib_MultiBoxTarget", [&](auto tag) {
                    Target<decltype(tag)>(attrs.get<MultiBoxTargetParam>(), in, out);
                  });
                })
    .set_gradient(ZeroGrads, true, false);

}  // namespace
}  // namespace mxnet::ops
