// Region-of-interest pooling (MXNet 1.9.1 src/operator/roi_pooling.cc (Fast R-CNN, Girshick,
// ICCV 2015) and contrib/roi_align.cc (Mask R-CNN, He et al., ICCV 2017; Detectron2's aligned
// variant)):
//   ROIPooling(data, rois)          data (N, C, H, W), rois (R, 5) rows [batch, x1, y1, x2, y2]
//                                   -> (R, C, ph, pw) max over quantized bins
//   _contrib_ROIAlign(data, rois)   -> (R, C, ph, pw) (position_sensitive: (R, C/(ph*pw), ph,
//                                   pw)) averages of bilinear samples per bin
// rois get no gradient (zeros, as MXNet). Gradient helpers:
//   _backward_ROIPooling(ograd, data, rois)  each ograd to its bin's first maximum
//   _backward_ROIAlign(ograd, data, rois)    bilinear weights scattered (linear in ograd; data
//                                            only gives the shape)
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "ndarray/grad.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ops/conv/conv_shape.h"
#include "ndarray/ops/conv/conv_spatial_params.h"

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

// data (N, C, H, W), rois (R, 5) -> (R, channels(C), ph, pw).
template <typename F>
void RoiShape(std::string_view op, const Shape& pooled, const Shape& data, Shape* rois, Shape* out,
              F channels) {
  if (data.ndim_known() && data.ndim() != 4)
    MX_THROW(kInvalid, op, ": data must be 4-D (N, C, H, W), got shape ", data.ToString());
  if (rois->ndim_known() && rois->ndim() != 2)
    MX_THROW(kInvalid, op, ": rois must be 2-D (R, 5) rows [batch_index, x1, y1, x2, y2], got ",
             "shape ", rois->ToString());
  AssignShape(op, "rois", rois, Shape{-1, 5}, "(rows [batch_index, x1, y1, x2, y2])");
  const int64_t c = data.ndim_known() && data[1] >= 0 ? channels(data[1]) : -1;
  AssignShape(op, "output", out, Shape{(*rois)[0], c, pooled[0], pooled[1]});
}

// Batch index of a roi row; -1 when outside [0, N).
template <typename T>
int64_t RoiBatch(const T* r, int64_t N) {
  const int64_t b = static_cast<int64_t>(static_cast<AccType<T>>(r[0]));
  return b >= 0 && b < N ? b : -1;
}

// ---- ROIPooling. ----

// Calls f(output index, input index of the bin's first maximum or -1) for each output of roi r.
// Bins: MXNet's rounding of the scaled corners, bins floor/ceil of ph * (roi height / ph).
template <typename T, typename F>
void RoiPoolBins(const ROIPoolingParam& p, const T* data, const T* roi, int64_t N, int64_t C,
                 int64_t H, int64_t W, F f) {
  using A = AccType<T>;
  const int64_t PH = p.pooled_size[0], PW = p.pooled_size[1];
  const float s = p.spatial_scale;
  auto rnd = [&](T v) { return static_cast<int64_t>(std::round(static_cast<A>(v) * s)); };
  const int64_t x1 = rnd(roi[1]), y1 = rnd(roi[2]), x2 = rnd(roi[3]), y2 = rnd(roi[4]);
  const int64_t b = RoiBatch(roi, N);
  const int64_t rh = std::max<int64_t>(y2 - y1 + 1, 1), rw = std::max<int64_t>(x2 - x1 + 1, 1);
  const A bh = static_cast<A>(rh) / static_cast<A>(PH),
          bw = static_cast<A>(rw) / static_cast<A>(PW);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t ph = 0; ph < PH; ++ph)
      for (int64_t pw = 0; pw < PW; ++pw) {
        const int64_t o = (c * PH + ph) * PW + pw;
        auto clip = [](int64_t v, int64_t hi) { return std::min(std::max<int64_t>(v, 0), hi); };
        const int64_t h0 = clip(static_cast<int64_t>(std::floor(ph * bh)) + y1, H);
        const int64_t h1 = clip(static_cast<int64_t>(std::ceil((ph + 1) * bh)) + y1, H);
        const int64_t w0 = clip(static_cast<int64_t>(std::floor(pw * bw)) + x1, W);
        const int64_t w1 = clip(static_cast<int64_t>(std::ceil((pw + 1) * bw)) + x1, W);
        if (b < 0 || h1 <= h0 || w1 <= w0) {
          f(o, int64_t{-1});
          continue;
        }
        const T* plane = data + (b * C + c) * H * W;
        A best = static_cast<A>(-FLT_MAX);
        int64_t arg = -1;
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w)
            if (static_cast<A>(plane[h * W + w]) > best) {
              best = static_cast<A>(plane[h * W + w]);
              arg = (b * C + c) * H * W + h * W + w;
            }
        f(o, arg);
      }
}

void RoiPoolRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = attrs.get<ROIPoolingParam>();
  const Shape& d = in[0].shape();
  const int64_t R = in[1].shape()[0], block = d[1] * p.pooled_size[0] * p.pooled_size[1];
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "ROIPooling", {
    const T* x = In<T>(in[0]);
    const T* rois = In<T>(in[1]);
    T* y = Out<T>(out[0]);
    ParallelFor(
        R,
        [&](int64_t r) {
          RoiPoolBins<T>(p, x, rois + r * 5, d[0], d[1], d[2], d[3], [&](int64_t o, int64_t i) {
            // Empty bins and invalid batch indices give 0 (MXNet).
            y[r * block + o] = i >= 0 ? x[i] : T(0);
          });
        },
        1);
  });
}

void RoiPoolBwdRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<ROIPoolingParam>();
  const Shape& d = in[1].shape();
  const int64_t R = in[2].shape()[0], block = d[1] * p.pooled_size[0] * p.pooled_size[1];
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_backward_ROIPooling", {
    using A = AccType<T>;
    const T* g = In<T>(in[0]);
    const T* x = In<T>(in[1]);
    const T* rois = In<T>(in[2]);
    T* dx = Out<T>(out[0]);
    std::fill(dx, dx + d.Size(), T(0));
    for (int64_t r = 0; r < R; ++r)  // rois may share positions: serial scatter
      RoiPoolBins<T>(p, x, rois + r * 5, d[0], d[1], d[2], d[3], [&](int64_t o, int64_t i) {
        if (i >= 0)
          dx[i] = static_cast<T>(static_cast<A>(dx[i]) + static_cast<A>(g[r * block + o]));
      });
  });
}

// ---- ROIAlign. ----

// Bilinear sample of an (H, W) plane at (y, x) as MXNet's ROIAlign: 0 weights outside
// [-1, H] x [-1, W], coordinates clamped to the image otherwise.
struct Tap {
  int64_t i[4] = {0, 0, 0, 0};
  double w[4] = {0, 0, 0, 0};
};
template <typename A>
Tap BilinearTap(int64_t H, int64_t W, A y, A x) {
  Tap t;
  if (y < A(-1) || y > static_cast<A>(H) || x < A(-1) || x > static_cast<A>(W)) return t;
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1, x1;
  if (y0 >= H - 1) {
    y1 = y0 = H - 1;
    y = static_cast<A>(y0);
  } else {
    y1 = y0 + 1;
  }
  if (x0 >= W - 1) {
    x1 = x0 = W - 1;
    x = static_cast<A>(x0);
  } else {
    x1 = x0 + 1;
  }
  const A ly = y - static_cast<A>(y0), lx = x - static_cast<A>(x0);
  const A hy = A(1) - ly, hx = A(1) - lx;
  t.i[0] = y0 * W + x0;
  t.i[1] = y0 * W + x1;
  t.i[2] = y1 * W + x0;
  t.i[3] = y1 * W + x1;
  t.w[0] = hy * hx;
  t.w[1] = hy * lx;
  t.w[2] = ly * hx;
  t.w[3] = ly * lx;
  return t;
}

// Calls f(output index within the roi's block, input plane offset, tap, 1/count) for every
// sample of roi row `roi` (nothing for a negative batch index).
template <typename T, typename F>
void RoiAlignSamples(const ROIAlignParam& p, const T* roi, int64_t N, int64_t OC, int64_t H,
                     int64_t W, F f) {
  using A = AccType<T>;
  const int64_t PH = p.pooled_size[0], PW = p.pooled_size[1];
  const int64_t b = static_cast<int64_t>(static_cast<A>(roi[0]));
  if (b < 0 || b >= N) return;  // b >= N is rejected by CheckRois
  const A s = static_cast<A>(p.spatial_scale), off = p.aligned ? A(0.5) : A(0);
  const A sw = static_cast<A>(roi[1]) * s - off, sh = static_cast<A>(roi[2]) * s - off;
  A rw = static_cast<A>(roi[3]) * s - off - sw, rh = static_cast<A>(roi[4]) * s - off - sh;
  if (!p.aligned) {  // aligned: rw, rh > 0 checked by CheckRois
    rw = std::max(rw, A(1));
    rh = std::max(rh, A(1));
  }
  const A bh = rh / static_cast<A>(PH), bw = rw / static_cast<A>(PW);
  const int64_t gh = p.sample_ratio > 0 ? p.sample_ratio : static_cast<int64_t>(std::ceil(rh / PH));
  const int64_t gw = p.sample_ratio > 0 ? p.sample_ratio : static_cast<int64_t>(std::ceil(rw / PW));
  const A inv = A(1) / static_cast<A>(gh * gw);
  const int64_t IC = p.position_sensitive ? OC * PH * PW : OC;
  for (int64_t ph = 0; ph < PH; ++ph)
    for (int64_t pw = 0; pw < PW; ++pw)
      for (int64_t iy = 0; iy < gh; ++iy) {
        const A y = sh + static_cast<A>(ph) * bh +
                    static_cast<A>(static_cast<float>(iy) + .5f) * bh / static_cast<A>(gh);
        for (int64_t ix = 0; ix < gw; ++ix) {
          const A x = sw + static_cast<A>(pw) * bw +
                      static_cast<A>(static_cast<float>(ix) + .5f) * bw / static_cast<A>(gw);
          const Tap t = BilinearTap<A>(H, W, y, x);
          for (int64_t c = 0; c < OC; ++c) {
            const int64_t ci = p.position_sensitive ? (c * PH + ph) * PW + pw : c;
            f((c * PH + ph) * PW + pw, (b * IC + ci) * H * W, t, inv);
          }
        }
      }
}

// MXNet's ROIAlign reads out of bounds for batch indices >= N and CHECK-fails on empty aligned
// rois: both are errors here (checked before the parallel loops).
template <typename T>
void CheckRois(std::string_view op, const ROIAlignParam& p, const T* rois, int64_t R,
               const Shape& data) {
  using A = AccType<T>;
  for (int64_t r = 0; r < R; ++r) {
    const T* roi = rois + r * 5;
    const int64_t b = static_cast<int64_t>(static_cast<A>(roi[0]));
    if (b >= data[0])
      MX_THROW(kInvalid, op, ": roi ", r, " has batch index ", b, ", out of range for data shape ",
               data.ToString());
    if (b < 0 || !p.aligned) continue;
    const A s = static_cast<A>(p.spatial_scale);
    if (!(static_cast<A>(roi[3]) * s > static_cast<A>(roi[1]) * s) ||
        !(static_cast<A>(roi[4]) * s > static_cast<A>(roi[2]) * s))
      MX_THROW(kInvalid, op, ": aligned=True needs rois with x2 > x1 and y2 > y1, roi ", r, " is [",
               static_cast<A>(roi[1]), ", ", static_cast<A>(roi[2]), ", ", static_cast<A>(roi[3]),
               ", ", static_cast<A>(roi[4]), "]");
  }
}

int64_t RoiAlignChannels(const ROIAlignParam& p, int64_t c) {
  if (!p.position_sensitive) return c;
  const int64_t k = p.pooled_size[0] * p.pooled_size[1];
  if (c % k != 0)
    MX_THROW(kInvalid, "_contrib_ROIAlign: position_sensitive=True needs data channels ", c,
             " divisible by pooled_size[0]*pooled_size[1]=", k,
             " (pooled_size=", p.pooled_size.ToString(), ")");
  return c / k;
}

void RoiAlignRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const auto& p = attrs.get<ROIAlignParam>();
  const Shape& d = in[0].shape();
  const Shape& o = out[0].shape();
  const int64_t R = o[0], block = o[1] * o[2] * o[3];
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_contrib_ROIAlign", {
    using A = AccType<T>;
    const T* x = In<T>(in[0]);
    const T* rois = In<T>(in[1]);
    T* y = Out<T>(out[0]);
    std::vector<A> acc(R * block, A(0));
    CheckRois("_contrib_ROIAlign", p, rois, R, d);
    ParallelFor(
        R,
        [&](int64_t r) {
          A* a = acc.data() + r * block;
          RoiAlignSamples<T>(p, rois + r * 5, d[0], o[1], d[2], d[3],
                             [&](int64_t oi, int64_t plane, const Tap& t, A inv) {
                               A v = 0;
                               for (int k = 0; k < 4; ++k)
                                 v += static_cast<A>(t.w[k]) * static_cast<A>(x[plane + t.i[k]]);
                               a[oi] += v * inv;
                             });
        },
        1);
    for (int64_t i = 0; i < R * block; ++i) y[i] = static_cast<T>(acc[i]);
  });
}

void RoiAlignBwdRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const auto& p = attrs.get<ROIAlignParam>();
  const Shape& g = in[0].shape();
  const Shape& d = in[1].shape();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_backward_ROIAlign", {
    using A = AccType<T>;
    const T* og = In<T>(in[0]);
    const T* rois = In<T>(in[2]);
    T* dx = Out<T>(out[0]);
    std::vector<A> acc(d.Size(), A(0));
    CheckRois("_backward_ROIAlign", p, rois, g[0], d);
    const int64_t block = g[1] * g[2] * g[3];
    for (int64_t r = 0; r < g[0]; ++r)  // rois may overlap: serial scatter
      RoiAlignSamples<T>(p, rois + r * 5, d[0], g[1], d[2], d[3],
                         [&](int64_t oi, int64_t plane, const Tap& t, A inv) {
                           const A gv = static_cast<A>(og[r * block + oi]) * inv;
                           for (int k = 0; k < 4; ++k)
                             acc[plane + t.i[k]] += static_cast<A>(t.w[k]) * gv;
                         });
    for (int64_t i = 0; i < d.Size(); ++i) dx[i] = static_cast<T>(acc[i]);
  });
}

void RoiAlignShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<ROIAlignParam>();
  RoiShape("_contrib_ROIAlign", p.pooled_size, (*in)[0], &(*in)[1], &(*out)[0],
           [&](int64_t c) { return RoiAlignChannels(p, c); });
}

void RoiPoolShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  RoiShape("ROIPooling", attrs.get<ROIPoolingParam>().pooled_size, (*in)[0], &(*in)[1], &(*out)[0],
           [](int64_t c) { return c; });
}

// (ograd, data, rois) of a backward op: data and rois decide ograd's shape.
template <typename P>
FInferShape RoiBwdShape(const char* op, void (*fwd)(const OpAttrs&, ShapeVec*, ShapeVec*)) {
  return [op, fwd](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
    ShapeVec fin{(*in)[1], (*in)[2]}, fout{(*in)[0]};
    fwd(attrs, &fin, &fout);
    AssignShape(op, "ograd", &(*in)[0], fout[0]);
    AssignShape(op, "rois", &(*in)[2], fin[1]);
    AssignShape(op, "output", &(*out)[0], (*in)[1]);
  };
}

MX_REGISTER_OP(ROIPooling)
    .add_alias("_npx_roi_pooling")
    .describe(
        "Region of interest max pooling (MXNet's ROIPooling): data (N, C, H, W), rois (R, 5) "
        "rows [batch_index, x1, y1, x2, y2] in image coordinates -> (R, C, ph, pw) = "
        "pooled_size. Corners are scaled by spatial_scale and rounded; the roi (at least 1x1) "
        "is split into ph x pw bins [floor(i*bin), ceil((i+1)*bin)); each output is its bin's "
        "max, 0 for empty bins and batch indices outside [0, N). rois get no gradient.")
    .set_params<ROIPoolingParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "rois"})
    .set_infer_shape(RoiPoolShape)
    .set_kernel(kRef, RoiPoolRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{
              b.CallP("_backward_ROIPooling", {og[0], in[0], in[1]}, attrs.get<ROIPoolingParam>()),
              b.ZerosLike(in[1])};
        },
        true, false);

MX_REGISTER_OP(_backward_ROIPooling)
    .describe(
        "Gradient of ROIPooling w.r.t. data from (ograd, data, rois): each ograd added at its "
        "bin's first maximum.")
    .set_params<ROIPoolingParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "data", "rois"})
    .set_infer_shape(RoiBwdShape<ROIPoolingParam>("_backward_ROIPooling", RoiPoolShape))
    .set_kernel(kRef, RoiPoolBwdRef)
    .set_non_differentiable();

MX_REGISTER_OP(_contrib_ROIAlign)
    .describe(
        "ROI Align (MXNet's contrib.ROIAlign): data (N, C, H, W), rois (R, 5) rows "
        "[batch_index, x1, y1, x2, y2] -> (R, C, ph, pw) (position_sensitive: (R, C/(ph*pw), "
        "ph, pw), output channel c of bin (i, j) reading input channel (c*ph + i)*pw + j). Each "
        "bin averages sample_ratio^2 bilinear samples (sample_ratio <= 0: ceil(roi size / "
        "pooled size) per dim) at the bin's regular grid; corners are scaled by spatial_scale "
        "(minus 0.5 with aligned=True; without it the roi is at least 1x1). Rows with a "
        "negative batch index give 0; rois get no gradient.")
    .set_params<ROIAlignParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "rois"})
    .set_infer_shape(RoiAlignShape)
    .set_kernel(kRef, RoiAlignRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{
              b.CallP("_backward_ROIAlign", {og[0], in[0], in[1]}, attrs.get<ROIAlignParam>()),
              b.ZerosLike(in[1])};
        },
        true, false);

MX_REGISTER_OP(_backward_ROIAlign)
    .describe(
        "Gradient of _contrib_ROIAlign w.r.t. data from (ograd, data, rois): the bilinear "
        "sample weights scattered (data only gives the shape).")
    .set_params<ROIAlignParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "data", "rois"})
    .set_infer_shape(RoiBwdShape<ROIAlignParam>("_backward_ROIAlign", RoiAlignShape))
    .set_kernel(kRef, RoiAlignBwdRef)
    .set_gradient(
        // Linear in ograd: its adjoint is ROIAlign itself.
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{b.CallP("_contrib_ROIAlign", {og[0], in[2]}, attrs.get<ROIAlignParam>()),
                     b.ZerosLike(in[1]), b.ZerosLike(in[2])};
        },
        true, false);

}  // namespace
}  // namespace mxnet::ops
