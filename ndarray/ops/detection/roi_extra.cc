// Position-sensitive and rotated region pooling (MXNet 1.9.1 src/operator/contrib/
// psroi_pooling.cc, deformable_psroi_pooling.cc (R-FCN, Dai et al., NIPS 2016; Deformable ConvNets,
// Dai et al., ICCV 2017), rroi_align.cc (Ma et al., "Arbitrary-Oriented Scene Text Detection via
// Rotation Proposals", 2018)):
//   _contrib_PSROIPooling(data, rois)         data (N, output_dim*group^2, H, W), rois (R, 5)
//                                             [batch, x1, y1, x2, y2] -> (R, output_dim, P, P),
//                                             bin (ph, pw) of class c averages channel
//                                             (c*group + gh)*group + gw over its quantized bin
//   _contrib_DeformablePSROIPooling(data, rois[, trans])  bins shifted by trans (R, 2*classes,
//                                             part, part) * trans_std * roi size, averaging
//                                             sample_per_part^2 bilinear samples per bin
//   _contrib_RROIAlign(data, rois)            rois (R, 6) [batch, cx, cy, w, h, angle in
//                                             degrees] -> (R, C, ph, pw); no gradient (as MXNet)
// Gradient helpers:
//   _backward_PSROIPooling(ograd, data, rois)   d data (linear in ograd; its adjoint is the
//                                               forward)
//   _backward_DeformablePSROIPooling(ograd, data, rois[, trans])  (d data, d rois = 0[, d trans])
// rois get zero gradients (as MXNet).
//
// Differences from MXNet 1.9.1, all deliberate: a roi whose batch index is outside [0, N) gives
// zeros and no gradient (MXNet reads outside data); PSROIPooling and DeformablePSROIPooling
// require at least output_dim * group_size^2 data channels (MXNet does not check and reads past
// the data) and DeformablePSROIPooling requires output_dim to be a multiple of the number of
// classes in trans.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ops/conv/conv_extra_params.h"
#include "ndarray/ops/conv/conv_shape.h"

namespace mxnet::ops {
namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};
using GV = GradValue;
using GVs = std::vector<GradValue>;

template <typename T>
const T* In(const NDArray& a) {
  return static_cast<const T*>(a.data_ptr());
}
template <typename T>
T* Out(const NDArray& a) {
  return static_cast<T*>(a.data_ptr());
}

// Batch index of a roi row; -1 when outside [0, N).
template <typename T>
int64_t RoiBatch(const T* r, int64_t N) {
  const double v = static_cast<double>(r[0]);
  const int64_t b = static_cast<int64_t>(v);
  return v >= 0 && b < N ? b : -1;
}

// data (N, C, H, W), rois (R, cols); output (R, channels, ph, pw). Checks C == want_c (when
// want_c >= 0).
void RegionShape(std::string_view op, ShapeVec* in, ShapeVec* out, int64_t cols,
                 std::string_view row, int64_t want_c, std::string_view want_why, int64_t oc,
                 int64_t ph, int64_t pw) {
  const Shape& data = (*in)[0];
  if (data.ndim_known() && data.ndim() != 4)
    MX_THROW(kInvalid, op, ": data must be 4-D (N, C, H, W), got shape ", data.ToString());
  Shape& rois = (*in)[1];
  if (rois.ndim_known() && rois.ndim() != 2)
    MX_THROW(kInvalid, op, ": rois must be 2-D (R, ", cols, ") rows ", row, ", got shape ",
             rois.ToString());
  AssignShape(op, "rois", &rois, Shape{-1, cols}, StrCat("(rows ", row, ")"));
  if (want_c >= 0 && data.ndim_known() && data[1] >= 0 && data[1] < want_c)
    MX_THROW(kInvalid, op, ": data has ", data[1], " channels (shape ", data.ToString(),
             "), needs at least ", want_c, " ", want_why);
  const int64_t c = oc >= 0 ? oc : (data.ndim_known() ? data[1] : -1);
  AssignShape(op, "output", &(*out)[0], Shape{rois[0], c, ph, pw});
}

// Shapes of a _backward_ helper (ograd, forward inputs...) -> gradients of the forward inputs.
template <typename F>
void BackwardShape(std::string_view op, ShapeVec* in, ShapeVec* out, F forward_shape) {
  ShapeVec fin(in->begin() + 1, in->end()), fout{(*in)[0]};
  forward_shape(&fin, &fout);
  AssignShape(op, "ograd", &(*in)[0], fout[0]);
  for (size_t i = 0; i < fin.size(); ++i) {
    AssignShape(op, "input", &(*in)[i + 1], fin[i]);
    if (i < out->size()) AssignShape(op, "gradient", &(*out)[i], fin[i]);
  }
}

// ---- PSROIPooling. ----

int64_t GroupOf(const PSROIPoolingParam& p) {
  return p.group_size > 0 ? p.group_size : p.pooled_size;
}

void PsroiShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<PSROIPoolingParam>();
  const int64_t g = GroupOf(p);
  RegionShape("_contrib_PSROIPooling", in, out, 5, "[batch_index, x1, y1, x2, y2]",
              p.output_dim * g * g, "(output_dim * group_size^2)", p.output_dim, p.pooled_size,
              p.pooled_size);
}

// Visits the bins: f(roi r, batch b, class c, ph, pw, data channel, h0, h1, w0, w1) with the
// clipped bin [h0, h1) x [w0, w1).
template <typename T, typename F>
void ForEachPsroiBin(const PSROIPoolingParam& p, const T* rois, int64_t R, int64_t N, int64_t H,
                     int64_t W, F&& f) {
  using A = AccType<T>;
  const int64_t P = p.pooled_size, G = GroupOf(p);
  const A scale = static_cast<A>(p.spatial_scale);
  for (int64_t r = 0; r < R; ++r) {
    const T* row = rois + r * 5;
    const int64_t b = RoiBatch(row, N);
    if (b < 0) continue;
    auto rd = [&](int i) { return static_cast<A>(std::round(static_cast<A>(row[i]))); };
    const A x1 = rd(1) * scale, y1 = rd(2) * scale;
    const A x2 = (rd(3) + A(1)) * scale, y2 = (rd(4) + A(1)) * scale;
    const A rw = std::max<A>(x2 - x1, A(0.1)), rh = std::max<A>(y2 - y1, A(0.1));
    const A bh = rh / static_cast<A>(P), bw = rw / static_cast<A>(P);
    for (int64_t c = 0; c < p.output_dim; ++c)
      for (int64_t ph = 0; ph < P; ++ph)
        for (int64_t pw = 0; pw < P; ++pw) {
          int64_t h0 = static_cast<int64_t>(std::floor(static_cast<A>(ph) * bh + y1));
          int64_t w0 = static_cast<int64_t>(std::floor(static_cast<A>(pw) * bw + x1));
          int64_t h1 = static_cast<int64_t>(std::ceil(static_cast<A>(ph + 1) * bh + y1));
          int64_t w1 = static_cast<int64_t>(std::ceil(static_cast<A>(pw + 1) * bw + x1));
          h0 = std::clamp<int64_t>(h0, 0, H);
          h1 = std::clamp<int64_t>(h1, 0, H);
          w0 = std::clamp<int64_t>(w0, 0, W);
          w1 = std::clamp<int64_t>(w1, 0, W);
          const int64_t gh = std::clamp<int64_t>(ph * G / P, 0, G - 1);
          const int64_t gw = std::clamp<int64_t>(pw * G / P, 0, G - 1);
          f(r, b, c, ph, pw, (c * G + gh) * G + gw, h0, h1, w0, w1);
        }
  }
}

void PsroiRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
              std::span<const NDArray> out) {
  const auto& p = attrs.get<PSROIPoolingParam>();
  const Shape& d = in[0].shape();
  const int64_t C = d[1], H = d[2], W = d[3], P = p.pooled_size;
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_contrib_PSROIPooling", {
    using A = AccType<T>;
    const T* x = In<T>(in[0]);
    T* y = Out<T>(out[0]);
    std::fill(y, y + out[0].size(), T(0));
    ForEachPsroiBin(p, In<T>(in[1]), in[1].shape()[0], d[0], H, W,
                    [&](int64_t r, int64_t b, int64_t c, int64_t ph, int64_t pw, int64_t ch,
                        int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
                      if (h1 <= h0 || w1 <= w0) return;
                      const T* plane = x + (b * C + ch) * H * W;
                      A sum = 0;
                      for (int64_t h = h0; h < h1; ++h)
                        for (int64_t w = w0; w < w1; ++w) sum += static_cast<A>(plane[h * W + w]);
                      y[((r * p.output_dim + c) * P + ph) * P + pw] =
                          static_cast<T>(sum / static_cast<A>((h1 - h0) * (w1 - w0)));
                    });
  });
}

// d data: each ograd spread evenly over its bin.
void PsroiBwdRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const auto& p = attrs.get<PSROIPoolingParam>();
  const Shape& d = in[1].shape();
  const int64_t C = d[1], H = d[2], W = d[3], P = p.pooled_size;
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_backward_PSROIPooling", {
    using A = AccType<T>;
    const T* g = In<T>(in[0]);
    T* dx = Out<T>(out[0]);
    std::fill(dx, dx + out[0].size(), T(0));
    ForEachPsroiBin(p, In<T>(in[2]), in[2].shape()[0], d[0], H, W,
                    [&](int64_t r, int64_t b, int64_t c, int64_t ph, int64_t pw, int64_t ch,
                        int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
                      if (h1 <= h0 || w1 <= w0) return;
                      T* plane = dx + (b * C + ch) * H * W;
                      const A v = static_cast<A>(g[((r * p.output_dim + c) * P + ph) * P + pw]) /
                                  static_cast<A>((h1 - h0) * (w1 - w0));
                      for (int64_t h = h0; h < h1; ++h)
                        for (int64_t w = w0; w < w1; ++w)
                          plane[h * W + w] = static_cast<T>(static_cast<A>(plane[h * W + w]) + v);
                    });
  });
}

MX_REGISTER_OP(_contrib_PSROIPooling)
    .describe(
        "Position-sensitive ROI pooling (MXNet's contrib.PSROIPooling, R-FCN): data (N, "
        "output_dim*group_size^2, H, W), rois (R, 5) [batch_index, x1, y1, x2, y2] (rounded, "
        "scaled by spatial_scale, x2/y2 inclusive) -> (R, output_dim, pooled_size, "
        "pooled_size); bin (ph, pw) of class c averages channel (c*group + gh)*group + gw over "
        "its bin (0 if empty). group_size 0 means pooled_size.")
    .set_params<PSROIPoolingParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "rois"})
    .set_infer_shape(PsroiShape)
    .set_kernel(kRef, PsroiRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{b.CallP("_backward_PSROIPooling", {og[0], in[0], in[1]},
                             attrs.get<PSROIPoolingParam>()),
                     b.ZerosLike(in[1])};
        },
        true, false);

MX_REGISTER_OP(_backward_PSROIPooling)
    .describe(
        "Gradient of PSROIPooling w.r.t. data from (ograd, data, rois): each ograd spread "
        "evenly over its bin (data only gives the shape).")
    .set_params<PSROIPoolingParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "data", "rois"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      BackwardShape("_backward_PSROIPooling", in, out,
                    [&](ShapeVec* fi, ShapeVec* fo) { PsroiShape(attrs, fi, fo); });
    })
    .set_kernel(kRef, PsroiBwdRef)
    .set_gradient(
        // Linear in ograd: the adjoint is the forward pooling.
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{
              b.CallP("_contrib_PSROIPooling", {og[0], in[2]}, attrs.get<PSROIPoolingParam>()),
              b.ZerosLike(in[1]), b.ZerosLike(in[2])};
        },
        true, false);

// ---- DeformablePSROIPooling. ----

int64_t PartOf(const DeformablePSROIPoolingParam& p) {
  return p.part_size > 0 ? p.part_size : p.pooled_size;
}

void DpsroiShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "_contrib_DeformablePSROIPooling";
  const auto& p = attrs.get<DeformablePSROIPoolingParam>();
  const int64_t g = p.group_size, P = p.pooled_size;
  ShapeVec two{(*in)[0], (*in)[1]};
  RegionShape(op, &two, out, 5, "[batch_index, x1, y1, x2, y2]", p.output_dim * g * g,
              "(output_dim * group_size^2)", p.output_dim, P, P);
  (*in)[0] = two[0];
  (*in)[1] = two[1];
  if (p.no_trans) return;
  Shape& t = (*in)[2];
  if (t.ndim_known() && t.ndim() != 4)
    MX_THROW(kInvalid, op, ": trans must be 4-D (R, 2*num_classes, part_size, part_size), got ",
             "shape ", t.ToString());
  const int64_t part = PartOf(p);
  AssignShape(
      op, "trans", &t, Shape{(*in)[1][0], -1, part, part},
      StrCat("(R, 2*num_classes, part_size, part_size) for rois shape ", (*in)[1].ToString()));
  if (t[1] >= 0 && (t[1] < 2 || t[1] % 2 != 0 || p.output_dim % (t[1] / 2) != 0))
    MX_THROW(kInvalid, op, ": trans has shape ", t.ToString(),
             "; its dim 1 must be 2*num_classes with output_dim=", p.output_dim,
             " a multiple of num_classes");
  if ((*in)[1][0] < 0 && t[0] >= 0) (*in)[1][0] = t[0];
  if ((*out)[0].ndim_known() && (*out)[0][0] < 0) (*out)[0][0] = t[0];
}

// Visits every sample of every bin: f(output index, data plane index, w, h, trans x index,
// trans y index, count, roi width, roi height) with (w, h) already clamped, count the bin's
// number of samples inside (the average's divisor).
template <typename T, typename F>
void ForEachDpsroiSample(const DeformablePSROIPoolingParam& p, const T* rois, const T* trans,
                         int64_t R, int64_t N, int64_t C, int64_t H, int64_t W, int64_t num_classes,
                         F&& f) {
  using A = AccType<T>;
  const int64_t P = p.pooled_size, G = p.group_size, part = PartOf(p), S = p.sample_per_part;
  const int64_t per_class = p.output_dim / num_classes;
  const A scale = static_cast<A>(p.spatial_scale), tstd = static_cast<A>(p.trans_std);
  struct Pt {
    A w, h;
  };
  std::vector<Pt> pts;
  for (int64_t r = 0; r < R; ++r) {
    const T* row = rois + r * 5;
    const int64_t b = RoiBatch(row, N);
    if (b < 0) continue;
    auto rd = [&](int i) { return static_cast<A>(std::round(static_cast<A>(row[i]))); };
    const A x1 = rd(1) * scale - A(0.5), y1 = rd(2) * scale - A(0.5);
    const A x2 = (rd(3) + A(1)) * scale - A(0.5), y2 = (rd(4) + A(1)) * scale - A(0.5);
    const A rw = std::max<A>(x2 - x1, A(0.1)), rh = std::max<A>(y2 - y1, A(0.1));
    const A bh = rh / static_cast<A>(P), bw = rw / static_cast<A>(P);
    const A sbh = bh / static_cast<A>(S), sbw = bw / static_cast<A>(S);
    for (int64_t c = 0; c < p.output_dim; ++c)
      for (int64_t ph = 0; ph < P; ++ph)
        for (int64_t pw = 0; pw < P; ++pw) {
          const int64_t part_h = static_cast<int64_t>(
              std::floor(static_cast<A>(ph) / static_cast<A>(P) * static_cast<A>(part)));
          const int64_t part_w = static_cast<int64_t>(
              std::floor(static_cast<A>(pw) / static_cast<A>(P) * static_cast<A>(part)));
          const int64_t cls = c / per_class;
          const int64_t tx = (((r * num_classes + cls) * 2) * part + part_h) * part + part_w;
          const int64_t ty = tx + part * part;
          const A dx = trans ? static_cast<A>(trans[tx]) * tstd : A(0);
          const A dy = trans ? static_cast<A>(trans[ty]) * tstd : A(0);
          const A ws = static_cast<A>(pw) * bw + x1 + dx * rw;
          const A hs = static_cast<A>(ph) * bh + y1 + dy * rh;
          const int64_t gh = std::clamp<int64_t>(ph * G / P, 0, G - 1);
          const int64_t gw = std::clamp<int64_t>(pw * G / P, 0, G - 1);
          const int64_t plane = b * C + (c * G + gh) * G + gw;
          const int64_t oi = ((r * p.output_dim + c) * P + ph) * P + pw;
          pts.clear();
          for (int64_t ih = 0; ih < S; ++ih)
            for (int64_t iw = 0; iw < S; ++iw) {
              A w = ws + static_cast<A>(iw) * sbw, h = hs + static_cast<A>(ih) * sbh;
              if (w < A(-0.5) || w > static_cast<A>(W) - A(0.5) || h < A(-0.5) ||
                  h > static_cast<A>(H) - A(0.5))
                continue;
              pts.push_back({std::clamp<A>(w, 0, static_cast<A>(W - 1)),
                             std::clamp<A>(h, 0, static_cast<A>(H - 1))});
            }
          for (const Pt& q : pts)
            f(oi, plane, q.w, q.h, tx, ty, static_cast<int64_t>(pts.size()), rw, rh);
        }
  }
}

// Corners (floor/ceil) and fractional parts of a clamped sample (MXNet's bilinear_interp).
struct Corners {
  int64_t x0, x1, y0, y1;
};
template <typename A>
Corners CornersOf(A w, A h) {
  return {static_cast<int64_t>(std::floor(w)), static_cast<int64_t>(std::ceil(w)),
          static_cast<int64_t>(std::floor(h)), static_cast<int64_t>(std::ceil(h))};
}

int64_t NumClasses(const DeformablePSROIPoolingParam& p, std::span<const NDArray> in, int ti) {
  return p.no_trans ? 1 : in[ti].shape()[1] / 2;
}

void DpsroiRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  const auto& p = attrs.get<DeformablePSROIPoolingParam>();
  const Shape& d = in[0].shape();
  const int64_t W = d[3];
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_contrib_DeformablePSROIPooling", {
    using A = AccType<T>;
    const T* x = In<T>(in[0]);
    T* y = Out<T>(out[0]);
    std::vector<A> acc(out[0].size(), A(0));
    ForEachDpsroiSample(
        p, In<T>(in[1]), p.no_trans ? nullptr : In<T>(in[2]), in[1].shape()[0], d[0], d[1], d[2], W,
        NumClasses(p, in, 2),
        [&](int64_t oi, int64_t plane, A w, A h, int64_t, int64_t, int64_t count, A, A) {
          const T* xp = x + plane * d[2] * W;
          const Corners k = CornersOf(w, h);
          const A fx = w - static_cast<A>(k.x0), fy = h - static_cast<A>(k.y0);
          const A v = (1 - fx) * (1 - fy) * static_cast<A>(xp[k.y0 * W + k.x0]) +
                      (1 - fx) * fy * static_cast<A>(xp[k.y1 * W + k.x0]) +
                      fx * (1 - fy) * static_cast<A>(xp[k.y0 * W + k.x1]) +
                      fx * fy * static_cast<A>(xp[k.y1 * W + k.x1]);
          acc[oi] += v / static_cast<A>(count);
        });
    for (size_t i = 0; i < acc.size(); ++i) y[i] = static_cast<T>(acc[i]);
  });
}

// (ograd, data, rois[, trans]) -> (d data, d rois = 0[, d trans]).
void DpsroiBwdRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const auto& p = attrs.get<DeformablePSROIPoolingParam>();
  const Shape& d = in[1].shape();
  const int64_t W = d[3];
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_backward_DeformablePSROIPooling", {
    using A = AccType<T>;
    const T* g = In<T>(in[0]);
    const T* x = In<T>(in[1]);
    std::vector<A> dx(out[0].size(), A(0)), dt(p.no_trans ? 0 : out[2].size(), A(0));
    const A tstd = static_cast<A>(p.trans_std);
    ForEachDpsroiSample(
        p, In<T>(in[2]), p.no_trans ? nullptr : In<T>(in[3]), in[2].shape()[0], d[0], d[1], d[2], W,
        NumClasses(p, in, 3),
        [&](int64_t oi, int64_t plane, A w, A h, int64_t tx, int64_t ty, int64_t count, A rw,
            A rh) {
          const A gv = static_cast<A>(g[oi]) / static_cast<A>(count);
          const Corners k = CornersOf(w, h);
          const A fx = w - static_cast<A>(k.x0), fy = h - static_cast<A>(k.y0);
          const int64_t base = plane * d[2] * W;
          const int64_t i00 = base + k.y0 * W + k.x0, i01 = base + k.y1 * W + k.x0;
          const int64_t i10 = base + k.y0 * W + k.x1, i11 = base + k.y1 * W + k.x1;
          dx[i00] += (1 - fx) * (1 - fy) * gv;
          dx[i01] += (1 - fx) * fy * gv;
          dx[i10] += fx * (1 - fy) * gv;
          dx[i11] += fx * fy * gv;
          if (p.no_trans) return;
          const A u00 = static_cast<A>(x[i00]), u01 = static_cast<A>(x[i01]);
          const A u10 = static_cast<A>(x[i10]), u11 = static_cast<A>(x[i11]);
          dt[tx] += (u11 * fy + u10 * (1 - fy) - u01 * fy - u00 * (1 - fy)) * tstd * gv * rw;
          dt[ty] += (u11 * fx + u01 * (1 - fx) - u10 * fx - u00 * (1 - fx)) * tstd * gv * rh;
        });
    T* o0 = Out<T>(out[0]);
    for (size_t i = 0; i < dx.size(); ++i) o0[i] = static_cast<T>(dx[i]);
    std::fill(Out<T>(out[1]), Out<T>(out[1]) + out[1].size(), T(0));
    if (!p.no_trans) {
      T* o2 = Out<T>(out[2]);
      for (size_t i = 0; i < dt.size(); ++i) o2[i] = static_cast<T>(dt[i]);
    }
  });
}

int DpsroiNumInputs(const OpAttrs& a) {
  return a.get<DeformablePSROIPoolingParam>().no_trans ? 2 : 3;
}

MX_REGISTER_OP(_contrib_DeformablePSROIPooling)
    .describe(
        "Deformable position-sensitive ROI pooling (MXNet's contrib.DeformablePSROIPooling): "
        "data (N, output_dim*group_size^2, H, W), rois (R, 5) [batch_index, x1, y1, x2, y2], "
        "trans (R, 2*num_classes, part_size, part_size) unless no_trans -> (R, output_dim, "
        "pooled_size, pooled_size). Each bin is shifted by trans * trans_std * roi size and "
        "averages the sample_per_part^2 bilinear samples that fall inside the image.")
    .set_params<DeformablePSROIPoolingParam>()
    .set_num_inputs(DpsroiNumInputs)
    .set_input_names([](const OpAttrs& a) {
      return a.get<DeformablePSROIPoolingParam>().no_trans
                 ? std::vector<std::string>{"data", "rois"}
                 : std::vector<std::string>{"data", "rois", "trans"};
    })
    .set_infer_shape(DpsroiShape)
    .set_kernel(kRef, DpsroiRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          const Op& bwd = OpRegistry::Get("_backward_DeformablePSROIPooling");
          std::vector<GV> args{og[0]};
          args.insert(args.end(), in.begin(), in.end());
          return b.Apply(bwd, OpAttrs::From(bwd, attrs.get<DeformablePSROIPoolingParam>()), args);
        },
        true, false);

MX_REGISTER_OP(_backward_DeformablePSROIPooling)
    .describe(
        "Gradients of DeformablePSROIPooling from (ograd, data, rois[, trans]): d data, d rois "
        "(zeros) and, unless no_trans, d trans.")
    .set_params<DeformablePSROIPoolingParam>()
    .set_num_inputs([](const OpAttrs& a) { return DpsroiNumInputs(a) + 1; })
    .set_num_outputs(DpsroiNumInputs)
    .set_input_names([](const OpAttrs& a) {
      return a.get<DeformablePSROIPoolingParam>().no_trans
                 ? std::vector<std::string>{"ograd", "data", "rois"}
                 : std::vector<std::string>{"ograd", "data", "rois", "trans"};
    })
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      BackwardShape("_backward_DeformablePSROIPooling", in, out,
                    [&](ShapeVec* fi, ShapeVec* fo) { DpsroiShape(attrs, fi, fo); });
    })
    .set_kernel(kRef, DpsroiBwdRef)
    .set_non_differentiable();

// ---- RROIAlign. ----

void RroiShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<RROIAlignParam>();
  RegionShape("_contrib_RROIAlign", in, out, 6,
              "[batch_index, center_x, center_y, width, height, angle]", -1, "", -1,
              p.pooled_size[0], p.pooled_size[1]);
}

// Detectron's/MXNet's rotated ROIAlign: bin samples on the roi's rotated grid, each read with
// ROIAlign's bilinear rule (outside (-1, H) x (-1, W): 0; coordinates below 0 clamp to 0, past
// the last row/column to it).
void RroiRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
             std::span<const NDArray> out) {
  const auto& p = attrs.get<RROIAlignParam>();
  const Shape& d = in[0].shape();
  const int64_t N = d[0], C = d[1], H = d[2], W = d[3];
  const int64_t PH = p.pooled_size[0], PW = p.pooled_size[1], R = in[1].shape()[0];
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_contrib_RROIAlign", {
    using A = AccType<T>;
    const T* x = In<T>(in[0]);
    const T* rois = In<T>(in[1]);
    T* y = Out<T>(out[0]);
    std::fill(y, y + out[0].size(), T(0));
    const A scale = static_cast<A>(p.spatial_scale);
    ParallelFor(
        R,
        [&](int64_t r) {
          const T* row = rois + r * 6;
          const int64_t b = RoiBatch(row, N);
          if (b < 0) return;
          const A cx = static_cast<A>(row[1]) * scale, cy = static_cast<A>(row[2]) * scale;
          const A rw = std::max<A>(static_cast<A>(row[3]) * scale, A(1));
          const A rh = std::max<A>(static_cast<A>(row[4]) * scale, A(1));
          const A theta = static_cast<A>(row[5]) * static_cast<A>(M_PI) / A(180);
          const A ct = std::cos(theta), st = std::sin(theta);
          const A bh = rh / static_cast<A>(PH), bw = rw / static_cast<A>(PW);
          const int64_t gy = p.sampling_ratio > 0
                                 ? p.sampling_ratio
                                 : static_cast<int64_t>(std::ceil(rh / static_cast<A>(PH)));
          const int64_t gx = p.sampling_ratio > 0
                                 ? p.sampling_ratio
                                 : static_cast<int64_t>(std::ceil(rw / static_cast<A>(PW)));
          const A count = static_cast<A>(std::max<int64_t>(gy * gx, 1));
          const A y0 = -rh / A(2), x0 = -rw / A(2);
          for (int64_t c = 0; c < C; ++c) {
            const T* plane = x + (b * C + c) * H * W;
            for (int64_t ph = 0; ph < PH; ++ph)
              for (int64_t pw = 0; pw < PW; ++pw) {
                A sum = 0;
                for (int64_t iy = 0; iy < gy; ++iy) {
                  const A yy = y0 + static_cast<A>(ph) * bh +
                               (static_cast<A>(iy) + A(0.5)) * bh / static_cast<A>(gy);
                  for (int64_t ix = 0; ix < gx; ++ix) {
                    const A xx = x0 + static_cast<A>(pw) * bw +
                                 (static_cast<A>(ix) + A(0.5)) * bw / static_cast<A>(gx);
                    A sy = yy * ct - xx * st + cy;
                    A sx = yy * st + xx * ct + cx;
                    if (sy < -1 || sy > static_cast<A>(H) || sx < -1 || sx > static_cast<A>(W))
                      continue;
                    sy = std::max<A>(sy, 0);
                    sx = std::max<A>(sx, 0);
                    int64_t yl = static_cast<int64_t>(sy), xl = static_cast<int64_t>(sx), yh, xh;
                    if (yl >= H - 1) {
                      yh = yl = H - 1;
                      sy = static_cast<A>(yl);
                    } else {
                      yh = yl + 1;
                    }
                    if (xl >= W - 1) {
                      xh = xl = W - 1;
                      sx = static_cast<A>(xl);
                    } else {
                      xh = xl + 1;
                    }
                    const A ly = sy - static_cast<A>(yl), lx = sx - static_cast<A>(xl);
                    const A hy = 1 - ly, hx = 1 - lx;
                    sum += hy * hx * static_cast<A>(plane[yl * W + xl]) +
                           hy * lx * static_cast<A>(plane[yl * W + xh]) +
                           ly * hx * static_cast<A>(plane[yh * W + xl]) +
                           ly * lx * static_cast<A>(plane[yh * W + xh]);
                  }
                }
                y[((r * C + c) * PH + ph) * PW + pw] = static_cast<T>(sum / count);
              }
          }
        },
        1);
  });
}

MX_REGISTER_OP(_contrib_RROIAlign)
    .describe(
        "Rotated ROI Align (MXNet's contrib.RROIAlign): data (N, C, H, W), rois (R, 6) "
        "[batch_index, center_x, center_y, width, height, angle in degrees] (scaled by "
        "spatial_scale, sizes at least 1) -> (R, C, pooled_size[0], pooled_size[1]); each bin "
        "averages bilinear samples on the rotated grid (sampling_ratio per side, or "
        "ceil(roi size / pooled size)). No gradient, as MXNet.")
    .set_params<RROIAlignParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "rois"})
    .set_infer_shape(RroiShape)
    .set_kernel(kRef, RroiRef)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
