// MXNet 1.9.1's Faster R-CNN region proposal ops (src/operator/contrib/proposal.cc,
// multi_proposal.cc):
//   _contrib_Proposal(cls_prob (1, 2A, H, W), bbox_pred (1, 4A, H, W), im_info (1, 3))
//     -> output (post, 5) rows [0, x1, y1, x2, y2] [, score (post, 1)]
//   _contrib_MultiProposal: the same for N images -> (N * post, 5) rows [n, x1, y1, x2, y2]
//     [, score (N * post, 1)].
// A = len(scales) * len(ratios) anchors per cell. Per image (im_info = [height, width, scale]):
//   1. Anchors: the base box [0, 0, stride - 1, stride - 1] reshaped for each ratio r (outer) and
//      scale s (inner): w = round(sqrt(floor(stride^2 / r))) * s, h = round(w / s * r) * s around
//      the base center; shifted by (x, y) * stride for cell (y, x); box index (y * W + x) * A + a.
//   2. Score: the foreground probability cls_prob[n, A + a, y, x].
//   3. Decode with bbox_pred[n, 4a .. 4a + 3, y, x]: center/size deltas (dx, dy, dw, dh) on
//      sizes w = x2 - x1 + 1 (or, iou_loss, corner offsets), clipped to [0, width - 1] x
//      [0, height - 1]; cells beyond (int(height / stride), int(width / stride)) get score -1.
//   4. Boxes with a side < rpn_min_size * scale get score -1 and grow by min_size / 2 per side.
//   5. Sort by score (descending), keep rpn_pre_nms_top_n (<= 0: all), greedy NMS (IoU with +1
//      pixel sizes > threshold suppresses) up to min(rpn_post_nms_top_n, pre) boxes; the
//      rpn_post_nms_top_n output rows cycle through the kept boxes when fewer survive.
// Gradients are zero for every input (as MXNet).
//
// Differences from MXNet 1.9.1: MXNet sorts with an unstable sort, so equal scores (e.g. the -1
// of filtered boxes) come out in an unspecified order; ours keeps the anchor order among equal
// scores (stable). Proposal with more than one image, an anchor count that does not match
// scales x ratios, or an im_info larger than the feature map allows are shape errors here
// (MXNet aborts at run time). Any floating-point dtype runs (MXNet: float32), computing in float
// like MXNet.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/ops/contrib/nn_contrib_params.h"
#include "ndarray/ops/nn/nn_util.h"

namespace mxnet::ops {

std::string ProposalParam::Validate() const {
  if (rpn_post_nms_top_n < 1)
    return StrCat("attribute rpn_post_nms_top_n must be >= 1, got ", rpn_post_nms_top_n);
  if (feature_stride < 1)
    return StrCat("attribute feature_stride must be >= 1, got ", feature_stride);
  if (scales.empty()) return "attribute scales must not be empty";
  if (ratios.empty()) return "attribute ratios must not be empty";
  for (double r : ratios)
    if (!(r > 0)) return StrCat("attribute ratios must be positive, got ", r);
  return "";
}

namespace nn {
namespace {

struct Box {
  float x1, y1, x2, y2, score;
};

// The A base anchors (ratio-major, scale-minor).
std::vector<Box> BaseAnchors(const ProposalParam& p) {
  const float base = static_cast<float>(p.feature_stride) - 1.0f;
  const float w = base + 1.0f, h = base + 1.0f;
  const float cx = static_cast<float>(0.5 * (w - 1.0)), cy = static_cast<float>(0.5 * (h - 1.0));
  std::vector<Box> out;
  for (double rd : p.ratios)
    for (double sd : p.scales) {
      const float r = static_cast<float>(rd), s = static_cast<float>(sd);
      const float size_ratios = std::floor(w * h / r);
      const float nw = std::floor(std::sqrt(size_ratios) + 0.5f) * s;
      const float nh = std::floor(nw / s * r + 0.5f) * s;
      out.push_back({cx - 0.5f * (nw - 1.0f), cy - 0.5f * (nh - 1.0f), cx + 0.5f * (nw - 1.0f),
                     cy + 0.5f * (nh - 1.0f), 0.0f});
    }
  return out;
}

// Proposals of image n into rows [row0, row0 + post) of `out` / `score`.
void ProposeImage(const ProposalParam& p, const std::vector<Box>& anchors, const float* cls,
                  const float* deltas, const float* info, int64_t A, int64_t H, int64_t W,
                  float batch_index, float* out, float* score) {
  const int64_t count = A * H * W;
  const float stride = static_cast<float>(p.feature_stride);
  const float im_h = info[0], im_w = info[1];
  const int64_t real_h = static_cast<int64_t>(im_h / stride),
                real_w = static_cast<int64_t>(im_w / stride);
  std::vector<Box> boxes(static_cast<size_t>(count));
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x < W; ++x)
      for (int64_t a = 0; a < A; ++a) {
        const int64_t idx = (y * W + x) * A + a;
        const float sx = static_cast<float>(x) * stride, sy = static_cast<float>(y) * stride;
        const Box& b0 = anchors[a];
        Box b{b0.x1 + sx, b0.y1 + sy, b0.x2 + sx, b0.y2 + sy, cls[((A + a) * H + y) * W + x]};
        const float d0 = deltas[((4 * a + 0) * H + y) * W + x];
        const float d1 = deltas[((4 * a + 1) * H + y) * W + x];
        const float d2 = deltas[((4 * a + 2) * H + y) * W + x];
        const float d3 = deltas[((4 * a + 3) * H + y) * W + x];
        float px1, py1, px2, py2;
        if (p.iou_loss) {
          px1 = b.x1 + d0, py1 = b.y1 + d1, px2 = b.x2 + d2, py2 = b.y2 + d3;
        } else {
          const float bw = b.x2 - b.x1 + 1.0f, bh = b.y2 - b.y1 + 1.0f;
          const float cx = static_cast<float>(b.x1 + 0.5 * (bw - 1.0));
          const float cy = static_cast<float>(b.y1 + 0.5 * (bh - 1.0));
          const float pcx = d0 * bw + cx, pcy = d1 * bh + cy;
          const float pw = std::exp(d2) * bw, ph = std::exp(d3) * bh;
          px1 = static_cast<float>(pcx - 0.5 * (pw - 1.0));
          py1 = static_cast<float>(pcy - 0.5 * (ph - 1.0));
          px2 = static_cast<float>(pcx + 0.5 * (pw - 1.0));
          py2 = static_cast<float>(pcy + 0.5 * (ph - 1.0));
        }
        b.x1 = std::max(std::min(px1, im_w - 1.0f), 0.0f);
        b.y1 = std::max(std::min(py1, im_h - 1.0f), 0.0f);
        b.x2 = std::max(std::min(px2, im_w - 1.0f), 0.0f);
        b.y2 = std::max(std::min(py2, im_h - 1.0f), 0.0f);
        if (y >= real_h || x >= real_w) b.score = -1.0f;
        boxes[idx] = b;
      }
  const float min_size = static_cast<float>(p.rpn_min_size) * info[2];
  for (Box& b : boxes) {
    const float iw = b.x2 - b.x1 + 1.0f, ih = b.y2 - b.y1 + 1.0f;
    if (iw < min_size || ih < min_size) {
      b.x1 -= min_size / 2, b.y1 -= min_size / 2, b.x2 += min_size / 2, b.y2 += min_size / 2;
      b.score = -1.0f;
    }
  }
  const int64_t pre =
      std::min<int64_t>(p.rpn_pre_nms_top_n > 0 ? p.rpn_pre_nms_top_n : count, count);
  const int64_t post_nms = std::min<int64_t>(p.rpn_post_nms_top_n, pre);
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t i, int64_t j) { return boxes[i].score > boxes[j].score; });
  std::vector<Box> dets(static_cast<size_t>(pre));
  for (int64_t i = 0; i < pre; ++i) dets[i] = boxes[order[i]];
  std::vector<float> area(static_cast<size_t>(pre));
  for (int64_t i = 0; i < pre; ++i)
    area[i] = (dets[i].x2 - dets[i].x1 + 1) * (dets[i].y2 - dets[i].y1 + 1);
  std::vector<char> suppressed(static_cast<size_t>(pre), 0);
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < pre && static_cast<int64_t>(keep.size()) < post_nms; ++i) {
    if (suppressed[i]) continue;
    keep.push_back(i);
    const Box& bi = dets[i];
    for (int64_t j = i + 1; j < pre; ++j) {
      if (suppressed[j]) continue;
      const float xx1 = std::max(bi.x1, dets[j].x1), yy1 = std::max(bi.y1, dets[j].y1);
      const float xx2 = std::min(bi.x2, dets[j].x2), yy2 = std::min(bi.y2, dets[j].y2);
      const float iw = std::max(0.0f, xx2 - xx1 + 1.0f), ih = std::max(0.0f, yy2 - yy1 + 1.0f);
      const float inter = iw * ih;
      if (inter / (area[i] + area[j] - inter) > p.threshold) suppressed[j] = 1;
    }
  }
  for (int64_t i = 0; i < p.rpn_post_nms_top_n; ++i) {
    const Box& b = dets[keep[i % static_cast<int64_t>(keep.size())]];
    float* o = out + i * 5;
    o[0] = batch_index, o[1] = b.x1, o[2] = b.y1, o[3] = b.x2, o[4] = b.y2;
    score[i] = b.score;
  }
}

std::vector<float> F(const NDArray& a) { return a.ToVector<float>(); }
void StoreF(const NDArray& out, const std::vector<float>& v) {
  NDArray::FromVector(v, out.shape(), cpu(), out.dtype()).copyto(out);
}

void ProposalKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const auto& p = attrs.get<ProposalParam>();
  const Shape& s = in[0].shape();
  const int64_t N = s[0], A = s[1] / 2, H = s[2], W = s[3], post = p.rpn_post_nms_top_n;
  const std::vector<Box> anchors = BaseAnchors(p);
  const std::vector<float> cls = F(in[0]), deltas = F(in[1]), info = F(in[2]);
  std::vector<float> rois(static_cast<size_t>(N * post * 5)), scores(static_cast<size_t>(N * post));
  const std::string& op = attrs.op()->name;
  for (int64_t n = 0; n < N; ++n) {
    const float* inf = info.data() + n * 3;
    for (int k = 0; k < 2; ++k) {
      const int64_t cells = k == 0 ? H : W;
      const int64_t real = static_cast<int64_t>(inf[k] / static_cast<float>(p.feature_stride));
      if (real > cells)
        MX_THROW(absl::StatusCode::kInvalidArgument, op, ": im_info[", n, "] ",
                 k == 0 ? "height " : "width ", inf[k], " / feature_stride ", p.feature_stride,
                 " = ", real, " cells exceeds the feature map's ", cells);
    }
    ProposeImage(p, anchors, cls.data() + n * 2 * A * H * W, deltas.data() + n * 4 * A * H * W, inf,
                 A, H, W, static_cast<float>(n), rois.data() + n * post * 5,
                 scores.data() + n * post);
  }
  StoreF(out[0], rois);
  StoreF(out[1], scores);
}

void ProposalShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out, bool multi) {
  const auto& p = attrs.get<ProposalParam>();
  const std::string& op = attrs.op()->name;
  const Shape& c = (*in)[0];
  int64_t N = -1;
  if (c.ndim_known()) {
    if (c.ndim() != 4)
      MX_THROW(absl::StatusCode::kInvalidArgument, op,
               ": input cls_prob must be 4-D (batch, 2 * anchors, height, width), got ",
               c.ToString());
    const int64_t A = static_cast<int64_t>(p.scales.size() * p.ratios.size());
    if (c[1] >= 0 && c[1] != 2 * A)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input cls_prob ", c.ToString(), " has ",
               c[1], " channels; expected 2 * len(scales) * len(ratios) = ", 2 * A);
    if ((c[2] == 0 || c[3] == 0))
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input cls_prob ", c.ToString(),
               " has an empty feature map");
    if (!multi && c[0] >= 0 && c[0] != 1)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input cls_prob ", c.ToString(),
               " has batch ", c[0], "; _contrib_Proposal takes one image (use MultiProposal)");
    N = c[0];
    const Shape want_bbox{c[0], c[1] >= 0 ? 2 * c[1] : -1, c[2], c[3]};
    Shape& b = (*in)[1];
    if (b.ndim_known() && b.is_known() && want_bbox.is_known() && b != want_bbox)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input bbox_pred has shape ", b.ToString(),
               ", expected ", want_bbox.ToString(), " for cls_prob ", c.ToString());
    AssignShape(op, "bbox_pred", &b, want_bbox);
    Shape& info = (*in)[2];
    if (info.ndim_known() && info.is_known() && c[0] >= 0 && info != Shape{c[0], 3})
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input im_info has shape ",
               info.ToString(), ", expected (", c[0], ", 3) (height, width, scale per image)");
    AssignShape(op, "im_info", &info, Shape{c[0], 3});
  }
  const int64_t rows = N < 0 ? -1 : N * p.rpn_post_nms_top_n;
  (*out)[0] = Shape{rows, 5};
  (*out)[1] = Shape{rows, 1};
}

void ProposalType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  const std::string& op = attrs.op()->name;
  static const char* names[] = {"cls_prob", "bbox_pred", "im_info"};
  int t = -1;
  for (int i = 0; i < 3; ++i) MergeType(&t, (*in)[i], StrCat(op, ": input ", names[i]));
  if (t >= 0) RequireFloat(op, "input cls_prob", static_cast<DType>(t));
  for (auto& x : *in) x = t;
  for (auto& x : *out) x = t;
}

std::vector<GradValue> Zeros(GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
                             std::span<const GradValue>, std::span<const GradValue>) {
  std::vector<GradValue> g;
  for (GradValue v : in) g.push_back(b.ZerosLike(v));
  return g;
}

#define MX_PROPOSAL_OP(NAME, MULTI, DOC)                                                           \
  MX_REGISTER_OP(NAME)                                                                             \
      .describe(DOC)                                                                               \
      .set_params<ProposalParam>()                                                                 \
      .set_num_inputs(3)                                                                           \
      .set_input_names(std::vector<std::string>{"cls_prob", "bbox_pred", "im_info"})               \
      .set_num_outputs(2)                                                                          \
      .set_num_visible_outputs(                                                                    \
          [](const OpAttrs& a) { return a.get<ProposalParam>().output_score ? 2 : 1; })            \
      .set_output_names(std::vector<std::string>{"output", "score"})                               \
      .set_infer_shape(                                                                            \
          [](const OpAttrs& a, ShapeVec* in, ShapeVec* out) { ProposalShape(a, in, out, MULTI); }) \
      .set_infer_type(ProposalType)                                                                \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, ProposalKernel)                         \
      .set_gradient(Zeros, true, false)

MX_PROPOSAL_OP(_contrib_Proposal, false,
               "Faster R-CNN region proposals for one image: anchors decoded by bbox_pred, "
               "clipped, filtered by size, sorted by foreground score and reduced by NMS to "
               "rpn_post_nms_top_n rows [0, x1, y1, x2, y2].");
MX_PROPOSAL_OP(_contrib_MultiProposal, true,
               "Faster R-CNN region proposals for a batch of images: rpn_post_nms_top_n rows "
               "[image index, x1, y1, x2, y2] per image.");

#undef MX_PROPOSAL_OP

}  // namespace
}  // namespace nn
}  // namespace mxnet::ops
