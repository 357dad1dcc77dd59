// MXNet 1.9.1's bounding-box _contrib_ operators, registered in the reduce family:
// _contrib_box_iou, _contrib_box_nms (+ its _backward_contrib_box_nms), _contrib_box_encode,
// _contrib_box_decode, _contrib_bipartite_matching, _contrib_MultiBoxPrior.
// Semantics follow MXNet's src/operator/contrib/bounding_box-inl.h and multibox_prior*.
// Gradients as MXNet: box_nms scatters the output gradient back to the kept rows; the others
// have zero gradients (MXNet registers zero-filling backward ops, not the true derivative).
// Box values are computed in the element type (float for float16/bfloat16), like MXNet.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "ndarray/grad.h"
#include "ndarray/ops/contrib/contrib_params.h"
#include "ndarray/ops/core/reduce_internal.h"

namespace mxnet::ops {
namespace {
using namespace reduce_internal;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;

// Overlap of two boxes along one dimension: a[0], a[2] are (min, max) for corner boxes or
// (center, size) for center boxes.
template <typename A>
A Intersect(const A* a, const A* b, bool corner) {
  A w;
  if (corner) {
    w = std::min(a[2], b[2]) - std::max(a[0], b[0]);
  } else {
    A al = a[0] - a[2] / 2, ar = a[0] + a[2] / 2, bl = b[0] - b[2] / 2, br = b[0] + b[2] / 2;
    w = std::min(br, ar) - std::max(bl, al);
  }
  return w > 0 ? w : A(0);
}

template <typename A>
A BoxArea(const A* box, bool corner) {
  A w = corner ? box[2] - box[0] : box[2], h = corner ? box[3] - box[1] : box[3];
  return (w < 0 || h < 0) ? A(0) : w * h;
}

template <typename A>
A IoU(const A* a, const A* b, bool corner) {
  A i = Intersect(a, b, corner) * Intersect(a + 1, b + 1, corner);
  if (i <= 0) return A(0);
  return i / (BoxArea(a, corner) + BoxArea(b, corner) - i);
}

// Checks that `s` has rank >= min_ndim and (if last >= 0) a last dimension of `last`.
void CheckBoxes(std::string_view op, std::string_view what, const Shape& s, int min_ndim,
                int64_t last = 4) {
  if (!s.ndim_known()) return;
  if (s.ndim() < min_ndim)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": ", what, " must have at least ", min_ndim,
             " dimensions, got shape ", s.ToString());
  if (last >= 0 && s[s.ndim() - 1] >= 0 && s[s.ndim() - 1] != last)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": the last dimension of ", what, " must be ",
             last, ", got shape ", s.ToString());
}

Shape Prefix(const Shape& s, int drop) {
  Shape o;
  for (int i = 0; i < s.ndim() - drop; ++i) o.push_back(s[i]);
  return o;
}

// ---- _contrib_box_iou ----
void BoxIouShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  const Shape &l = (*in)[0], &r = (*in)[1];
  CheckBoxes("_contrib_box_iou", "lhs", l, 2);
  CheckBoxes("_contrib_box_iou", "rhs", r, 2);
  if (!l.ndim_known() || !r.ndim_known()) return;
  Shape o = Prefix(l, 1);
  for (int i = 0; i < r.ndim() - 1; ++i) o.push_back(r[i]);
  MergeShape(&(*out)[0], o, "_contrib_box_iou: output");
}

void BoxIouKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  bool corner = attrs.get<BoxIouParam>().format == "corner";
  WithComputeType(in[0].dtype(), "_contrib_box_iou", [&](auto tag) {
    using A = decltype(tag);
    std::vector<A> l = Values<A>(in[0]), r = Values<A>(in[1]), o(out[0].size());
    int64_t nl = in[0].size() / 4, nr = in[1].size() / 4;
    for (int64_t i = 0; i < nl; ++i)
      for (int64_t j = 0; j < nr; ++j) o[i * nr + j] = IoU(&l[i * 4], &r[j * 4], corner);
    Store(o, out[0]);
  });
}

MX_REGISTER_OP(_contrib_box_iou)
    .describe(
        "Pairwise IoU of boxes lhs (..., 4) and rhs (..., 4): output lhs.shape[:-1] + "
        "rhs.shape[:-1]. format corner [xmin, ymin, xmax, ymax] (default) or center "
        "[x, y, w, h]. Floating dtypes. Zero gradients (MXNet).")
    .set_params<BoxIouParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"lhs", "rhs"})
    .set_infer_shape(BoxIouShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, BoxIouKernel)
    .set_gradient(ZeroGrads, true, false);

// ---- _contrib_box_nms ----
// (batches, boxes per batch, values per box) of the data shape (..., N, W).
struct NmsDims {
  int64_t batch, num, width;
};
NmsDims NmsDimsOf(const Shape& s) {
  int nd = s.ndim();
  return {nd <= 2 ? 1 : s.ProdRange(0, nd - 2), s[nd - 2], s[nd - 1]};
}

void BoxNmsShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<BoxNMSParam>();
  const Shape& d = (*in)[0];
  constexpr std::string_view op = "_contrib_box_nms";
  CheckBoxes(op, "data", d, 2, -1);
  if (!d.ndim_known()) return;
  int64_t w = d[d.ndim() - 1];
  if (w >= 0) {
    int64_t need = p.id_index >= 0 ? 6 : 5;
    if (w < need)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": each box needs at least ", need,
               " values (score, 4 coordinates", p.id_index >= 0 ? ", class id" : "",
               "), got shape ", d.ToString());
    int cs = p.coord_start, ce = p.coord_start + 3;
    if (p.score_index < 0 || p.score_index >= w)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": score_index ", p.score_index,
               " is out of range [0, ", w, ")");
    if (p.score_index >= cs && p.score_index <= ce)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": score_index ", p.score_index,
               " overlaps the coordinates [", cs, ", ", ce, "]");
    if (cs < 0 || ce >= w)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": coordinates [", cs, ", ", ce,
               "] are out of range [0, ", w, ")");
    if (p.id_index >= 0) {
      if (p.id_index >= w)
        MX_THROW(absl::StatusCode::kInvalidArgument, op, ": id_index ", p.id_index,
                 " is out of range [0, ", w, ")");
      if (p.id_index >= cs && p.id_index <= ce)
        MX_THROW(absl::StatusCode::kInvalidArgument, op, ": id_index ", p.id_index,
                 " overlaps the coordinates [", cs, ", ", ce, "]");
      if (p.id_index == p.score_index)
        MX_THROW(absl::StatusCode::kInvalidArgument, op, ": id_index and score_index are both ",
                 p.id_index);
    }
  }
  Shape rec = d;
  rec[rec.ndim() - 1] = 1;
  MergeShape(&(*out)[0], d, "_contrib_box_nms: output");
  MergeShape(&(*out)[1], rec, "_contrib_box_nms: output 1 (record)");
}

// Converts the 4 coordinates at `c` between encodings, skipping rows whose first coordinate is
// negative (MXNet does so to leave the -1 padding alone).
template <typename A>
void ConvertBox(A* c, bool to_center) {
  if (c[0] < 0) return;
  if (to_center) {
    A l = c[0], t = c[1], r = c[2], b = c[3];
    c[0] = (l + r) / 2, c[1] = (t + b) / 2, c[2] = r - l, c[3] = b - t;
  } else {
    A x = c[0], y = c[1], w = c[2] / 2, h = c[3] / 2;
    c[0] = x - w, c[1] = y - h, c[2] = x + w, c[3] = y + h;
  }
}

template <typename A>
void BoxNms(const BoxNMSParam& p, const NDArray& data, const NDArray& out, const NDArray& rec) {
  NmsDims dm = NmsDimsOf(data.shape());
  std::vector<A> x = Values<A>(data);
  int64_t total = dm.batch * dm.num, w = dm.width;
  std::vector<A> o(total * w, A(-1)), r(total, A(-1));
  int64_t topk = p.topk < 0 ? dm.num : std::min<int64_t>(dm.num, p.topk);
  if (topk < 1) {  // MXNet: the input unchanged, record = 0..n-1
    std::iota(r.begin(), r.end(), A(0));
    Store(x, out);
    Store(r, rec);
    return;
  }
  bool corner = p.in_format == "corner", has_id = p.id_index >= 0;
  // Valid boxes of each batch, by descending score (stable), first topk of them.
  for (int64_t b = 0; b < dm.batch; ++b) {
    std::vector<int64_t> idx;
    for (int64_t k = 0; k < dm.num; ++k) {
      const A* row = &x[(b * dm.num + k) * w];
      bool valid = row[p.score_index] > static_cast<A>(p.valid_thresh);
      if (has_id) valid = valid && row[p.id_index] != static_cast<A>(p.background_id);
      if (valid) idx.push_back(b * dm.num + k);
    }
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t i, int64_t j) {
      return x[i * w + p.score_index] > x[j * w + p.score_index];
    });
    if (static_cast<int64_t>(idx.size()) > topk) idx.resize(topk);
    for (size_t ref = 0; ref < idx.size(); ++ref) {
      if (idx[ref] < 0) continue;
      const A* rb = &x[idx[ref] * w];
      for (size_t pos = ref + 1; pos < idx.size(); ++pos) {
        if (idx[pos] < 0) continue;
        const A* pb = &x[idx[pos] * w];
        if (!p.force_suppress && has_id &&
            static_cast<int>(rb[p.id_index]) != static_cast<int>(pb[p.id_index]))
          continue;
        const A *rc = rb + p.coord_start, *pc = pb + p.coord_start;
        A inter = Intersect(rc, pc, corner) * Intersect(rc + 1, pc + 1, corner);
        A iou = inter / (BoxArea(rc, corner) + BoxArea(pc, corner) - inter);
        if (iou > p.overlap_thresh) idx[pos] = -1;
      }
    }
    int64_t count = 0;
    for (int64_t loc : idx) {
      if (loc < 0) continue;
      int64_t dst = b * dm.num + count++;
      std::copy(&x[loc * w], &x[loc * w] + w, &o[dst * w]);
      r[dst] = static_cast<A>(loc);
    }
  }
  if (p.in_format != p.out_format)
    for (int64_t i = 0; i < total; ++i)
      ConvertBox(&o[i * w + p.coord_start], p.out_format == "center");
  Store(o, out);
  Store(r, rec);
}

MX_REGISTER_OP(_contrib_box_nms)
    .describe(
        "Non-maximum suppression of boxes data (..., N, W) (rows: score at score_index, 4 "
        "coordinates from coord_start, optional class id at id_index): per batch, boxes with "
        "score > valid_thresh (and id != background_id) sorted by descending score, the topk "
        "best kept unless a better one overlaps by IoU > overlap_thresh (same class unless "
        "force_suppress). Output data's shape: kept rows first, the rest -1; hidden output 1 "
        "(..., N, 1) records each kept row's source index (-1 none). Gradient: og rows copied "
        "back to their source rows, zero elsewhere (MXNet).")
    .add_alias("_contrib_box_non_maximum_suppression")
    .set_params<BoxNMSParam>()
    .set_num_inputs(1)
    .set_num_outputs(2)
    .set_num_visible_outputs([](const OpAttrs&) { return 1; })
    .set_input_names(std::vector<std::string>{"data"})
    .set_output_names(std::vector<std::string>{"output", "record"})
    .set_infer_shape(BoxNmsShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  WithComputeType(in[0].dtype(), "_contrib_box_nms", [&](auto tag) {
                    BoxNms<decltype(tag)>(attrs.get<BoxNMSParam>(), in[0], out[0], out[1]);
                  });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV, GV out, GV og) {
          return Grads{b.CallP("_backward_contrib_box_nms", {og[0], out[1]}, a.get<BoxNMSParam>())};
        },
        false, true);

MX_REGISTER_OP(_backward_contrib_box_nms)
    .describe(
        "Gradient of _contrib_box_nms from the head gradient (..., N, W) and the record "
        "(..., N, 1): zeros with og's row i written to row record[i] (internal).")
    .set_params<BoxNMSParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"out_grad", "record"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[0], "_backward_contrib_box_nms: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  NmsDims dm = NmsDimsOf(s);
                  int64_t total = dm.batch * dm.num;
                  std::vector<int64_t> rec = ReadIndices(in[1]);
                  if (static_cast<int64_t>(rec.size()) != total)
                    MX_THROW(absl::StatusCode::kInvalidArgument,
                             "_backward_contrib_box_nms: record has ", rec.size(),
                             " entries, expected ", total);
                  out[0].Fill(0);
                  size_t row = static_cast<size_t>(dm.width) * DTypeSize(in[0].dtype());
                  const char* g = static_cast<const char*>(in[0].data_ptr());
                  char* y = static_cast<char*>(out[0].data_ptr());
                  for (int64_t i = 0; i < total; ++i)
                    if (rec[i] >= 0 && rec[i] < total)
                      std::memcpy(y + rec[i] * row, g + i * row, row);
                })
    .set_non_differentiable();

// ---- _contrib_box_encode ----
void BoxEncodeShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  constexpr std::string_view op = "_contrib_box_encode";
  const Shape &s = (*in)[0], &m = (*in)[1], &a = (*in)[2], &r = (*in)[3];
  if (s.ndim_known() && s.ndim() != 2)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": samples must be 2-D (B, N), got shape ",
             s.ToString());
  if (m.ndim_known() && m.ndim() != 2)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": matches must be 2-D (B, N), got shape ",
             m.ToString());
  CheckBoxes(op, "anchors", a, 3);
  CheckBoxes(op, "refs", r, 3);
  if (a.ndim_known() && a.ndim() != 3)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": anchors must be (B, N, 4), got shape ",
             a.ToString());
  if (r.ndim_known() && r.ndim() != 3)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": refs must be (B, M, 4), got shape ",
             r.ToString());
  MergeShape(&(*in)[4], Shape{4}, "_contrib_box_encode: means");
  MergeShape(&(*in)[5], Shape{4}, "_contrib_box_encode: stds");
  if (a.ndim_known()) {
    Shape bn = Prefix(a, 1);
    MergeShape(&(*in)[0], bn, "_contrib_box_encode: samples");
    MergeShape(&(*in)[1], bn, "_contrib_box_encode: matches");
    if (r.ndim_known() && a[0] >= 0 && r[0] >= 0 && a[0] != r[0])
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": refs ", r.ToString(), " and anchors ",
               a.ToString(), " have different batch sizes");
  }
  MergeShape(&(*out)[0], a, "_contrib_box_encode: output 0");
  MergeShape(&(*out)[1], a, "_contrib_box_encode: output 1");
}

template <typename A>
void BoxEncode(std::span<const NDArray> in, std::span<const NDArray> out) {
  const Shape& as = in[2].shape();
  int64_t nb = as[0], n = as[1], m = in[3].shape()[1];
  std::vector<A> smp = Values<A>(in[0]), mt = Values<A>(in[1]), an = Values<A>(in[2]),
                 rf = Values<A>(in[3]), mean = Values<A>(in[4]), sd = Values<A>(in[5]);
  std::vector<A> tg(nb * n * 4), mk(nb * n * 4);
  for (int64_t i = 0; i < nb * n; ++i) {
    A valid = smp[i] > A(0.5) ? A(1) : A(0);
    for (int k = 0; k < 4; ++k) mk[i * 4 + k] = valid, tg[i * 4 + k] = A(0);
    if (valid == A(0)) continue;
    int64_t match = static_cast<int64_t>(mt[i]);
    if (match < 0 || match >= m)
      MX_THROW(absl::StatusCode::kOutOfRange, "_contrib_box_encode: match ", match, " of anchor ",
               i % n, " in batch ", i / n, " is out of range for ", m, " refs");
    const A* rb = &rf[((i / n) * m + match) * 4];
    const A* ab = &an[i * 4];
    A rw = rb[2] - rb[0], rh = rb[3] - rb[1], rx = rb[0] + rw * A(0.5), ry = rb[1] + rh * A(0.5);
    A aw = ab[2] - ab[0], ah = ab[3] - ab[1], ax = ab[0] + aw * A(0.5), ay = ab[1] + ah * A(0.5);
    tg[i * 4 + 0] = ((rx - ax) / aw - mean[0]) / sd[0];
    tg[i * 4 + 1] = ((ry - ay) / ah - mean[1]) / sd[1];
    tg[i * 4 + 2] = (std::log(rw / aw) - mean[2]) / sd[2];
    tg[i * 4 + 3] = (std::log(rh / ah) - mean[3]) / sd[3];
  }
  Store(tg, out[0]);
  Store(mk, out[1]);
}

MX_REGISTER_OP(_contrib_box_encode)
    .describe(
        "Encodes box targets: samples (B, N) (> 0.5 = positive), matches (B, N) (index into "
        "refs), anchors (B, N, 4), refs (B, M, 4) corner boxes, means (4,), stds (4,). Output 0 "
        "(B, N, 4): ((dx / w_a - mean) / std, (dy / h_a - mean) / std, (log(w_r / w_a) - mean) / "
        "std, (log(h_r / h_a) - mean) / std) for positives, 0 elsewhere; output 1 (B, N, 4): "
        "the positive mask. A positive's match outside [0, M) is kOutOfRange. Zero gradients.")
    .set_num_inputs(6)
    .set_num_outputs(2)
    .set_input_names(std::vector<std::string>{"samples", "matches", "anchors", "refs", "means",
                                              "stds"})
    .set_infer_shape(BoxEncodeShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  WithComputeType(in[2].dtype(), "_contrib_box_encode",
                                  [&](auto tag) { BoxEncode<decltype(tag)>(in, out); });
                })
    .set_gradient(ZeroGrads, true, false);

// ---- _contrib_box_decode ----
void BoxDecodeShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  constexpr std::string_view op = "_contrib_box_decode";
  const Shape &d = (*in)[0], &a = (*in)[1];
  CheckBoxes(op, "data", d, 3);
  CheckBoxes(op, "anchors", a, 3);
  if (d.ndim_known() && d.ndim() != 3)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": data must be (B, N, 4), got shape ",
             d.ToString());
  if (d.is_known() && a.is_known() && a.Size() != d[1] * 4)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": anchors ", a.ToString(),
             " must hold N=", d[1], " boxes (shape (1, N, 4)) for data ", d.ToString());
  MergeShape(&(*out)[0], d, "_contrib_box_decode: output");
}

template <typename A>
void BoxDecode(const BoxDecodeParam& p, std::span<const NDArray> in, const NDArray& out) {
  int64_t nb = in[0].shape()[0], n = in[0].shape()[1];
  std::vector<A> x = Values<A>(in[0]), an = Values<A>(in[1]), o(nb * n * 4);
  bool corner = p.format == "corner", clip = p.clip > 0;
  A std0 = p.std0, std1 = p.std1, std2 = p.std2, std3 = p.std3, cl = p.clip;
  for (int64_t i = 0; i < nb * n; ++i) {
    const A* a = &an[(i % n) * 4];
    A ax = a[0], ay = a[1], aw = a[2], ah = a[3];
    if (corner) {
      aw = aw - ax, ah = ah - ay;
      ax = ax + aw * A(0.5), ay = ay + ah * A(0.5);
    }
    const A* d = &x[i * 4];
    A ox = d[0] * std0 * aw + ax, oy = d[1] * std1 * ah + ay;
    A dw = d[2] * std2, dh = d[3] * std3;
    if (clip) dw = std::min(dw, cl), dh = std::min(dh, cl);
    A ow = std::exp(dw) * aw * A(0.5), oh = std::exp(dh) * ah * A(0.5);
    o[i * 4 + 0] = ox - ow, o[i * 4 + 1] = oy - oh, o[i * 4 + 2] = ox + ow, o[i * 4 + 3] = oy + oh;
  }
  Store(o, out);
}

MX_REGISTER_OP(_contrib_box_decode)
    .describe(
        "Decodes box deltas data (B, N, 4) against anchors (1, N, 4) (format: the anchors' "
        "encoding, center by default) into corner boxes (B, N, 4): center + d*std*size, "
        "size * exp(min(d*std, clip) if clip > 0). Zero gradients (MXNet).")
    .set_params<BoxDecodeParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "anchors"})
    .set_infer_shape(BoxDecodeShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  WithComputeType(in[0].dtype(), "_contrib_box_decode", [&](auto tag) {
                    BoxDecode<decltype(tag)>(attrs.get<BoxDecodeParam>(), in, out[0]);
                  });
                })
    .set_gradient(ZeroGrads, true, false);

// ---- _contrib_bipartite_matching ----
void MatchingShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  const Shape& d = (*in)[0];
  CheckBoxes("_contrib_bipartite_matching", "data", d, 2, -1);
  if (!d.ndim_known()) return;
  Shape rows = Prefix(d, 1), cols = Prefix(d, 2);
  cols.push_back(d[d.ndim() - 1]);
  MergeShape(&(*out)[0], rows, "_contrib_bipartite_matching: output 0");
  MergeShape(&(*out)[1], cols, "_contrib_bipartite_matching: output 1");
}

template <typename A>
void Matching(const BipartiteMatchingParam& p, const NDArray& data, const NDArray& rows,
              const NDArray& cols) {
  const Shape& s = data.shape();
  int64_t nr = s[s.ndim() - 2], nc = s[s.ndim() - 1], stride = nr * nc;
  int64_t nb = stride == 0 ? 0 : data.size() / stride;
  std::vector<A> x = Values<A>(data), rm(nb * nr, A(-1)), cm(nb * nc, A(-1));
  A th = static_cast<A>(p.threshold);
  std::vector<int64_t> order(stride);
  for (int64_t b = 0; b < nb; ++b) {
    const A* sc = &x[b * stride];
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
      return p.is_ascend ? sc[i] < sc[j] : sc[i] > sc[j];
    });
    A* rmk = &rm[b * nr];
    A* cmk = &cm[b * nc];
    int count = 0;
    for (int64_t k : order) {
      int64_t r = k / nc, c = k % nc;
      if (rmk[r] != A(-1) || cmk[c] != A(-1)) continue;
      if (!(p.is_ascend ? sc[k] < th : sc[k] > th)) break;  // the rest are worse
      rmk[r] = static_cast<A>(c);
      cmk[c] = static_cast<A>(r);
      // MXNet checks the limit after assigning, so topk = k keeps k + 1 matches.
      if (p.topk > 0 && ++count > p.topk) break;
    }
  }
  Store(rm, rows);
  Store(cm, cols);
}

MX_REGISTER_OP(_contrib_bipartite_matching)
    .describe(
        "Greedy bipartite matching of a score matrix data (..., R, C): pairs taken in "
        "descending score order (ascending with is_ascend) while the score is > threshold (< "
        "with is_ascend), each row and column at most once. Output 0 (..., R): matched column "
        "per row, output 1 (..., C): matched row per column, -1 where unmatched. topk > 0 "
        "stops after topk + 1 matches (MXNet's off-by-one). Zero gradient.")
    .set_params<BipartiteMatchingParam>()
    .set_num_inputs(1)
    .set_num_outputs(2)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(MatchingShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  WithComputeType(in[0].dtype(), "_contrib_bipartite_matching", [&](auto tag) {
                    Matching<decltype(tag)>(attrs.get<BipartiteMatchingParam>(), in[0], out[0],
                                            out[1]);
                  });
                })
    .set_gradient(ZeroGrads, true, false);

// ---- _contrib_MultiBoxPrior ----
void PriorShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<MultiBoxPriorParam>();
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return;
  if (d.ndim() < 4)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "_contrib_MultiBoxPrior: data must be 4-D (batch, channel, height, width), got "
             "shape ",
             d.ToString());
  if (d[2] == 0 || d[3] == 0)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "_contrib_MultiBoxPrior: height and width must be > 0, got shape ", d.ToString());
  int64_t per = static_cast<int64_t>(p.sizes.size() + p.ratios.size()) - 1;
  Shape o{1, d[2] < 0 || d[3] < 0 ? -1 : d[2] * d[3] * per, 4};
  MergeShape(&(*out)[0], o, "_contrib_MultiBoxPrior: output");
}

void PriorKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const auto& p = attrs.get<MultiBoxPriorParam>();
  const int h = static_cast<int>(in[0].shape()[2]), w = static_cast<int>(in[0].shape()[3]);
  // Single-precision arithmetic, as MXNet's kernel.
  float step_y = static_cast<float>(p.steps[0]), step_x = static_cast<float>(p.steps[1]);
  if (step_y <= 0 || step_x <= 0) step_y = 1.f / h, step_x = 1.f / w;
  float off_y = static_cast<float>(p.offsets[0]), off_x = static_cast<float>(p.offsets[1]);
  std::vector<float> o;
  o.reserve(out[0].size());
  auto emit = [&](float cx, float cy, float size, float ratio) {
    float bw = size * h / w * ratio / 2, bh = size / ratio / 2;
    for (float v : {cx - bw, cy - bh, cx + bw, cy + bh})
      o.push_back(p.clip ? std::min(1.f, std::max(0.f, v)) : v);
  };
  for (int r = 0; r < h; ++r) {
    float cy = (r + off_y) * step_y;
    for (int c = 0; c < w; ++c) {
      float cx = (c + off_x) * step_x;
      float ratio0 = std::sqrt(static_cast<float>(p.ratios[0]));
      for (double s : p.sizes) emit(cx, cy, static_cast<float>(s), ratio0);
      for (size_t j = 1; j < p.ratios.size(); ++j)
        emit(cx, cy, static_cast<float>(p.sizes[0]), std::sqrt(static_cast<float>(p.ratios[j])));
    }
  }
  Store(o, out[0]);
}

MX_REGISTER_OP(_contrib_MultiBoxPrior)
    .describe(
        "SSD prior (anchor) boxes for a feature map data (B, C, H, W): output (1, H*W*(S+R-1), "
        "4) corner boxes, per cell every size with ratios[0], then sizes[0] with each further "
        "ratio; width size*H/W*sqrt(ratio), height size/sqrt(ratio); centers (i + offset) * "
        "step. Floating dtypes. Zero gradient. Source: Liu et al., SSD (2016); MXNet.")
    .add_alias("_npx_multibox_prior")
    .set_params<MultiBoxPriorParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(PriorShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, PriorKernel)
    .set_gradient(ZeroGrads, true, false);

}  // namespace
}  // namespace mxnet::ops
